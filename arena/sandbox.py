"""Isolation for bot processes: pick a level, drop privileges, build the wrapper command.

Levels, strongest first (``ISOLATION_LEVELS``):

* ``"bubblewrap"``: ``bwrap`` with new PID/network/IPC/UTS/mount namespaces, a
  read-only view of the system, the interpreter and the SDK, the bot's own files
  read-only, a private writable working directory and a private /tmp.
* ``"unshare"``: ``unshare`` namespaces (PID, network, IPC, UTS, mount) with a
  private /tmp, but the rest of the file system visible (Unix permissions apply).
* ``"process-group"``: a new session/process group plus rlimits only.

When the arena runs as root, a bot runs as an unprivileged uid leased per bot
(see ``UidLease``), so it can read neither the results database nor another
bot's working directory; only at the process-group level, where no mount
namespace can expose an interpreter kept under a private directory (e.g.
/root/.pyenv), may it have to keep the arena's uid. See docs/isolation.md.
"""

from __future__ import annotations

import fcntl
import importlib.machinery
import importlib.util
import logging
import os
import shlex
import shutil
import signal
import site
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

ISOLATION_LEVELS = ("bubblewrap", "unshare", "process-group")
ENV_ISOLATION = "ARENA_SANDBOX"
"""Force a level ("bubblewrap", "unshare", "process-group") or "auto"."""
ENV_BWRAP = "ARENA_BWRAP"
"""Path of the bwrap binary (default: found on PATH); a missing path disables bubblewrap."""
ENV_UID_BASE = "ARENA_UID_BASE"
UID_BASE = 2_000_000_000
"""Bots run as uid/gid UID_BASE + n (n < UID_COUNT) when the arena is root."""
UID_COUNT = 4096
SYSTEM_RO = ("/usr", "/etc")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"


class SandboxError(RuntimeError):
    """The requested isolation level cannot be used on this machine."""


# --------------------------------------------------------------------------- spec


@dataclass
class SandboxSpec:
    """What one bot needs inside its sandbox."""

    argv: list[str]
    workdir: Path
    ro_paths: list[Path] = field(default_factory=list)
    uid: int | None = None  # drop to this uid/gid before exec (None: keep ours)
    gid: int | None = None
    tmp_mb: int = 256
    fds: tuple[int, int, int] | None = None
    """bwrap only: the (stdin, stdout, stderr) pipe ends passed as extra fds.

    bwrap's own processes keep fds 0-2 open for the bot's whole life, which
    would hide EOF when a bot closes its stdout; extra fds they close.
    """


def is_root() -> bool:
    return os.geteuid() == 0


def interpreter_paths() -> list[Path]:
    """Directories the arena's Python interpreter needs (prefixes, venv)."""
    cands = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    cands.add(str(Path(os.path.realpath(sys.executable)).parent.parent))
    return sorted({Path(os.path.realpath(c)) for c in cands if c})


def sdk_paths() -> list[Path]:
    """Directories of the installed ``sdk`` package (editable installs point at the checkout)."""
    try:
        spec = importlib.util.find_spec("sdk")
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    locs = list(spec.submodule_search_locations or [])
    if not locs and spec.origin:
        locs = [str(Path(spec.origin).parent)]
    return [Path(os.path.realpath(p)) for p in locs]


def sdk_pythonpath() -> str | None:
    """PYTHONPATH a fresh interpreter needs to import ``sdk``, or None if it finds it itself."""
    paths = sdk_paths()
    if not paths:
        return None
    parent = str(paths[0].parent)
    site_dirs = {os.path.realpath(p) for p in site.getsitepackages() + [site.getusersitepackages()]}
    if parent in site_dirs:
        return None
    for finder in sys.meta_path:  # an editable-install finder lives in site-packages
        if finder is importlib.machinery.PathFinder or not hasattr(finder, "find_spec"):
            continue
        try:
            if finder.find_spec("sdk", None) is not None:
                return None
        except Exception:  # noqa: BLE001 - foreign finders may raise anything
            continue
    return parent


# --------------------------------------------------------------------------- uids


class UidLease:
    """An exclusive unprivileged uid for one bot, held through an flock'ed file.

    A per-bot uid makes RLIMIT_NPROC per bot, keeps bots out of each other's
    working directories, and lets ``close`` kill every process of that uid.
    The lock dies with the arena process, so a crash never leaks a uid.
    """

    _lock = threading.Lock()
    _held: set[int] = set()

    def __init__(self, uid: int, fd: int) -> None:
        self.uid = uid
        self.gid = uid
        self._fd = fd

    @classmethod
    def acquire(cls) -> UidLease:
        base = int(os.environ.get(ENV_UID_BASE, UID_BASE))
        lock_dir = _private_dir(Path(tempfile.gettempdir()) / "arena-uid-locks", 0o700)
        with cls._lock:
            for uid in range(base, base + UID_COUNT):
                if uid in cls._held:
                    continue
                fd = os.open(lock_dir / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                    continue
                cls._held.add(uid)
                _kill_stale(uid)
                return cls(uid, fd)
        raise SandboxError(f"no free bot uid in [{base}, {base + UID_COUNT})")

    def release(self) -> None:
        if self._fd < 0:
            return
        with self._lock:
            self._held.discard(self.uid)
            os.close(self._fd)
            self._fd = -1


def processes_of_uid(uid: int) -> set[int]:
    """Pids of live (non-zombie) processes whose real uid is ``uid``."""
    out: set[int] = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            # Cheap filter first: /proc/PID belongs to the process's (effective) uid, or to root
            # when it is not dumpable; only those candidates need their status file read.
            owner = entry.stat().st_uid
            if owner not in (uid, 0):
                continue
            status = Path(entry.path, "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        if fields.get("State", "").strip().startswith("Z"):
            continue
        uids = fields.get("Uid", "").split()
        if uids and int(uids[0]) == uid:
            out.add(int(entry.name))
    return out


def _kill_stale(uid: int) -> None:
    """Kill processes still running as a free uid (left by an arena that died)."""
    for _ in range(100):
        pids = processes_of_uid(uid)
        if not pids:
            return
        log.warning("killing processes %s left with bot uid %s by a dead arena", sorted(pids), uid)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)


def _private_dir(path: Path, mode: int) -> Path:
    """Create (or check) a root-owned directory that no other user can tamper with."""
    try:
        path.mkdir(mode=mode, exist_ok=False)
        os.chmod(path, mode)
    except FileExistsError:
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
            raise SandboxError(f"{path} exists but is not a private directory of ours")
    return path


def make_workdir(root: Path | None, name: str, uid: int | None, gid: int | None) -> Path:
    """A fresh, empty, private working directory for one bot in one match."""
    root = _private_dir(Path(root or Path(tempfile.gettempdir()) / "arena-bots"), 0o711)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:40] or "bot"
    workdir = Path(tempfile.mkdtemp(prefix=f"{safe}-", dir=root))
    if uid is not None:
        os.chown(workdir, uid, gid if gid is not None else uid)
    os.chmod(workdir, 0o700)
    return workdir


def reachable_by(path: Path, uid: int, gid: int) -> bool:
    """Whether ``uid``/``gid`` can traverse to ``path`` and read it (mode bits only)."""
    p = Path(os.path.realpath(path))
    try:
        for anc in [*reversed(p.parents), p]:
            st = os.stat(anc)
            need = 0o5 if anc == p else 0o1
            if st.st_uid == uid:
                bits = (st.st_mode >> 6) & 0o7
            elif st.st_gid == gid:
                bits = (st.st_mode >> 3) & 0o7
            else:
                bits = st.st_mode & 0o7
            if anc == p and not stat.S_ISDIR(st.st_mode):
                need = 0o4
            if bits & need != need:
                return False
    except OSError:
        return False
    return True


# --------------------------------------------------------------------------- wrappers


def _setpriv(spec: SandboxSpec, pdeathsig: bool = False) -> list[str]:
    """setpriv prefix that drops to the bot's uid (and/or sets a parent-death SIGKILL)."""
    setpriv = shutil.which("setpriv")
    if setpriv is None or (spec.uid is None and not pdeathsig):
        return []
    args = [setpriv]
    if spec.uid is not None:
        args += [
            f"--reuid={spec.uid}",
            f"--regid={spec.gid if spec.gid is not None else spec.uid}",
            "--clear-groups",
            "--bounding-set=-all",
            "--inh-caps=-all",
            "--no-new-privs",
        ]
    if pdeathsig:
        args += ["--pdeathsig", "KILL"]  # applied after the uid change, which clears it
    return [*args, "--"]


def _fd_redirect(fds: tuple[int, int, int] | None) -> list[str]:
    """A shell prefix moving the passed pipe ends onto fds 0-2 (bash: fds may be >= 10)."""
    if fds is None:
        return []
    shell = shutil.which("bash")
    if shell is None:
        if max(fds) > 9:
            raise SandboxError("bash is needed to pass pipe fds above 9 to bwrap")
        shell = shutil.which("sh") or "/bin/sh"
    i, o, e = fds
    return [shell, "-c", f'exec "$@" <&{i} >&{o} 2>&{e} {i}<&- {o}>&- {e}>&-', "arena-fds"]


def _ancestors(paths: list[Path], existing: set[Path]) -> list[Path]:
    """Strict ancestors of ``paths`` that bwrap must create, shallowest first."""
    out: set[Path] = set()
    for p in paths:
        for anc in p.parents:
            if anc == Path("/") or any(anc == e or e in anc.parents for e in existing):
                continue
            if anc not in (Path("/tmp"), Path("/proc"), Path("/dev")):
                out.add(anc)
    return sorted(out, key=lambda a: (len(a.parts), str(a)))


def _bwrap() -> str | None:
    """The bwrap binary: $ARENA_BWRAP if set (and executable), else from PATH."""
    path = os.environ.get(ENV_BWRAP)
    if path is None:
        return shutil.which("bwrap")
    return path if os.access(path, os.X_OK) else None


def bwrap_argv(spec: SandboxSpec) -> list[str]:
    """bubblewrap command line for ``spec``."""
    args = [
        _bwrap() or "bwrap",
        "--die-with-parent", "--new-session",
        "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
        "--unshare-cgroup-try", "--hostname", "arena-bot",
    ]  # fmt: skip
    mounted: set[Path] = set()
    for d in SYSTEM_RO:
        if os.path.isdir(d):
            args += ["--ro-bind", d, d]
            mounted.add(Path(d))
    for d in SYSTEM_LINKS:
        if os.path.islink(d):
            args += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            args += ["--ro-bind", d, d]
            mounted.add(Path(d))
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--perms", "1777", "--size", str(spec.tmp_mb << 20), "--tmpfs", "/tmp"]
    ro = _dedupe([p for p in spec.ro_paths if not any(m == p or m in p.parents for m in mounted)])
    binds = [*ro, spec.workdir]
    for anc in _ancestors(binds, mounted):
        args += ["--perms", "0755", "--dir", str(anc)]
    for p in sorted(ro, key=lambda q: len(q.parts)):
        args += ["--ro-bind", str(p), str(p)]
    args += ["--bind", str(spec.workdir), str(spec.workdir), "--chdir", str(spec.workdir)]
    # bwrap sets PWD, bash SHLVL and _: the bot's environment is exactly ours
    env_cmd = [shutil.which("env") or "/usr/bin/env", "-u", "PWD", "-u", "SHLVL", "-u", "_"]
    return [*args, "--", *_fd_redirect(spec.fds), *_setpriv(spec), *env_cmd, *spec.argv]


def _dedupe(paths: list[Path]) -> list[Path]:
    """Drop duplicates and paths already inside another listed path."""
    uniq = sorted(set(paths), key=lambda q: len(q.parts))
    return [p for i, p in enumerate(uniq) if not any(q in p.parents for q in uniq[:i])]


def _hidden_root(path: Path, uid: int, gid: int) -> Path | None:
    """The shallowest ancestor of ``path`` that ``uid`` cannot traverse, if any."""
    for anc in reversed(path.parents):
        if anc != Path("/") and not reachable_by(anc, uid, gid):
            return anc
    return None


def unshare_argv(spec: SandboxSpec) -> list[str]:
    """``unshare`` command line for ``spec``: namespaces, private /tmp, uid drop.

    ``unshare`` execs a small ``sh`` (no lingering parent holding the pipes)
    in new network/IPC/UTS/mount namespaces whose children enter a new PID
    namespace. The sh mounts a private /tmp, re-exposes directories the bot
    needs that sit under a directory its uid cannot traverse (e.g. the
    interpreter under /root) by covering that directory with an empty tmpfs,
    then starts the bot as PID 1 of the new namespace (so every process it
    starts dies with it), with a parent-death SIGKILL, and waits for it.
    """
    ns = ["--net", "--ipc", "--uts", "--mount", "--propagation", "private"]
    if not is_root():
        ns = ["--user", "--map-root-user", *ns]
    covers = {Path("/tmp")}
    if spec.uid is not None:
        gid = spec.gid if spec.gid is not None else spec.uid
        covers |= {h for p in spec.ro_paths if (h := _hidden_root(p, spec.uid, gid))}
    covers = set(_dedupe(list(covers)))
    needed = [(p, True) for p in _dedupe(spec.ro_paths)] + [(spec.workdir, False)]
    staged = [(p, ro) for p, ro in needed if any(c == p or c in p.parents for c in covers)]
    stage = next((Path(d) for d in ("/mnt", "/media", "/srv", "/opt") if os.path.isdir(d)), None)
    if staged and stage is None:
        raise SandboxError("unshare: no directory to stage bind mounts in")
    q = shlex.quote
    lines = ["set -e"]
    if staged:
        lines.append(f"mount -t tmpfs -o size=1m,mode=0700 arena-stage {q(str(stage))}")
    for i, (p, _) in enumerate(staged):
        lines.append(f"mkdir {q(f'{stage}/{i}')}; mount --rbind {q(str(p))} {q(f'{stage}/{i}')}")
    for c in sorted(covers, key=lambda p: len(p.parts)):
        mode, size = ("1777", f"{spec.tmp_mb}m") if c == Path("/tmp") else ("0755", "1m")
        lines.append(f"mount -t tmpfs -o mode={mode},size={size} arena-cover {q(str(c))}")
    for i, (p, ro) in enumerate(staged):
        lines.append(f"mkdir -p {q(str(p))}; mount --move {q(f'{stage}/{i}')} {q(str(p))}")
        if ro:
            lines.append(f"mount -o remount,bind,ro {q(str(p))}")
    if staged:
        lines.append(f"umount {q(str(stage))}")
    sh = shutil.which("sh") or "/bin/sh"
    unshare = shutil.which("unshare") or "unshare"
    # After ``unshare --pid`` the first child is PID 1; when it exits no more
    # forks are possible, so this part forks exactly once: the bot.
    pid1 = 'mount -t proc -o nosuid,nodev,noexec proc /proc && unset PWD OLDPWD && exec "$@"'
    run = " ".join(q(a) for a in [sh, "-c", pid1, "arena-pid1", *_setpriv(spec, pdeathsig=True)])
    waiter = "\n".join([
        "exec 3<&0",
        f'{run} "$@" <&3 3<&- &',
        "exec 0</dev/null 1>/dev/null 2>/dev/null 3<&-",
        'wait "$!"',
        'exit "$?"',
    ])  # fmt: skip
    pid_ns = [unshare, "--pid", "--", sh, "-c", waiter]
    lines += [
        f"cd {q(str(spec.workdir))}",
        "unset PWD OLDPWD",
        f'exec {" ".join(q(a) for a in pid_ns)} arena-waiter "$@"',
    ]
    return [unshare, *ns, "--", sh, "-c", "\n".join(lines), "arena-ns", *spec.argv]


def wrap_argv(level: str, spec: SandboxSpec) -> list[str]:
    """The full command line that runs ``spec.argv`` at isolation ``level``."""
    if level == "bubblewrap":
        return bwrap_argv(spec)
    if level == "unshare":
        return unshare_argv(spec)
    if level == "process-group":
        return list(spec.argv)
    raise SandboxError(f"unknown isolation level {level!r}; use one of {ISOLATION_LEVELS}")


# --------------------------------------------------------------------------- probing

_probe_lock = threading.Lock()
_probe_cache: dict[str, bool] = {}
_warned: set[str] = set()


def _probe(level: str) -> bool:
    """Run ``true`` at ``level`` once, the way real bots are run; cache the answer."""
    with _probe_lock:
        if level not in _probe_cache:
            _probe_cache[level] = _run_probe(level)
        return _probe_cache[level]


def _run_probe(level: str) -> bool:
    if level == "process-group":
        return True
    tool = _bwrap() if level == "bubblewrap" else shutil.which("unshare")
    if tool is None or (is_root() and shutil.which("setpriv") is None):
        log.debug("isolation %s: its tool or setpriv not found", level)
        return False
    true = shutil.which("true") or "/bin/true"
    with tempfile.TemporaryDirectory(prefix="arena-probe-") as tmp:
        workdir = Path(tmp) / "w"
        workdir.mkdir()
        uid = 65534 if is_root() else None
        if uid is not None:
            os.chown(tmp, 0, 0)
            os.chmod(tmp, 0o711)
            os.chown(workdir, uid, uid)
        spec = SandboxSpec([true], workdir, interpreter_paths(), uid, uid, tmp_mb=1)
        try:
            proc = subprocess.run(
                wrap_argv(level, spec),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=20,
                env={"PATH": SAFE_PATH, "LANG": "C.UTF-8"},
            )
        except (OSError, subprocess.SubprocessError) as exc:
            log.debug("isolation %s probe failed: %s", level, exc)
            return False
    if proc.returncode != 0:
        log.debug("isolation %s probe exited %s: %s", level, proc.returncode, proc.stderr[-500:])
    return proc.returncode == 0


def available_levels() -> list[str]:
    """Isolation levels that work on this machine, strongest first (probed once)."""
    return [lvl for lvl in ISOLATION_LEVELS if _probe(lvl)]


def select_isolation(requested: str | None = None) -> str:
    """The level to use: ``requested``, else $ARENA_SANDBOX, else the strongest that works.

    An explicitly requested level that does not work raises ``SandboxError``;
    falling back from bubblewrap on "auto" logs one warning per process.
    """
    want = (requested or os.environ.get(ENV_ISOLATION) or "auto").strip().lower()
    if want != "auto":
        if want not in ISOLATION_LEVELS:
            raise SandboxError(f"unknown isolation level {want!r}; use one of {ISOLATION_LEVELS}")
        if not _probe(want):
            raise SandboxError(f"isolation level {want!r} does not work on this machine")
        return want
    level = next(lvl for lvl in ISOLATION_LEVELS if _probe(lvl))
    if level != "bubblewrap" and level not in _warned:
        _warned.add(level)
        log.warning(
            "bubblewrap is not available or failed to start; bots run with weaker "
            "isolation %r (install bubblewrap for full sandboxing)",
            level,
        )
    return level
