"""Resource limits for bot processes: the ``Limits`` dataclass, rlimits and cgroups.

Memory is limited through a cgroup when one can be created (cgroup v2
``memory.max``, else cgroup v1 ``memory.limit_in_bytes``); otherwise through
RLIMIT_AS, which is never set below ``AS_FLOOR_MB`` because language runtimes
(Node.js needs ~780 MiB) reserve much more address space than they use.
RLIMIT_AS alone can leave a process spinning on failed allocations, so the
caller's wall-clock deadlines always back it up.
"""

from __future__ import annotations

import logging
import math
import os
import resource
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

MiB = 1 << 20
AS_FLOOR_MB = 1024
"""RLIMIT_AS is never set below this: Node.js cannot even start under ~780 MiB."""

_CGROUP_ROOT = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Limits:
    """Per-bot resource limits (defaults from the arena's issue)."""

    memory_mb: int = 1024
    cpu_s: int = 120
    open_files: int = 256
    file_size_mb: int = 64
    processes: int = 256
    stderr_bytes: int = 1 * MiB
    line_bytes: int = 64 * 1024

    def address_space_bytes(self) -> int:
        """The RLIMIT_AS used when no memory cgroup is available."""
        return max(self.memory_mb, AS_FLOOR_MB) * MiB

    def rlimits(self, *, address_space: bool, nproc: bool) -> list[tuple[int, int, int]]:
        """(resource, soft, hard) triples to apply in the child before exec."""
        cpu_s = math.ceil(self.cpu_s)  # setrlimit takes whole seconds (a YAML file may say 120.0)
        out = [
            (resource.RLIMIT_CPU, cpu_s, cpu_s + 1),
            (resource.RLIMIT_NOFILE, self.open_files, self.open_files),
            (resource.RLIMIT_FSIZE, self.file_size_mb * MiB, self.file_size_mb * MiB),
            (resource.RLIMIT_CORE, 0, 0),
        ]
        if address_space:
            size = self.address_space_bytes()
            out.append((resource.RLIMIT_AS, size, size))
        if nproc:
            out.append((resource.RLIMIT_NPROC, self.processes, self.processes))
        return [_clamp(r, soft, hard) for r, soft, hard in out]


def _clamp(res: int, soft: int, hard: int) -> tuple[int, int, int]:
    """Keep a limit within the current hard limit when we may not raise it."""
    if os.geteuid() == 0:
        return res, soft, hard
    _, cur_hard = resource.getrlimit(res)
    if cur_hard != resource.RLIM_INFINITY:
        hard = min(hard, cur_hard)
        soft = min(soft, hard)
    return res, soft, hard


# --------------------------------------------------------------------------- cgroups


@dataclass
class _Mount:
    point: Path
    fstype: str
    root: str
    options: set[str]


def _mounts() -> list[_Mount]:
    """cgroup mounts from /proc/self/mountinfo."""
    out: list[_Mount] = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        pre, _, post = line.partition(" - ")
        fields, tail = pre.split(), post.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        opts = set(tail[2].split(",")) | set(fields[5].split(","))
        out.append(_Mount(Path(fields[4]), tail[0], fields[3], opts))
    return out


def _own_paths() -> dict[str, str]:
    """Controller (or "" for v2) -> this process's cgroup path."""
    out: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        for ctrl in parts[1].split(",") if parts[1] else [""]:
            out[ctrl] = parts[2]
    return out


def _parent_candidates(mount: _Mount, own: str | None) -> list[Path]:
    """Our own cgroup directory inside ``mount`` first, then the mount root."""
    cands: list[Path] = []
    if own is not None:
        rel = os.path.relpath(own, mount.root) if own.startswith(mount.root) else None
        if rel is not None and not rel.startswith(".."):
            cands.append(mount.point / rel if rel != "." else mount.point)
    cands.append(mount.point)
    return list(dict.fromkeys(c.resolve() for c in cands if c.is_dir()))


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _read_kv(path: Path, key: str) -> int | None:
    try:
        for line in path.read_text().splitlines():
            k, _, v = line.partition(" ")
            if k == key:
                return int(v)
    except (OSError, ValueError):
        return None
    return None


class Cgroup:
    """A per-bot cgroup (v2, or a set of v1 controller directories).

    It limits memory and processes, lets the caller kill every process the bot
    started (even ones that called setsid), and reports peak memory and CPU.
    """

    def __init__(self, version: int, dirs: dict[str, Path]) -> None:
        self.version = version
        self.dirs = dirs  # v2: {"": dir}; v1: {"memory": dir, "pids": dir, "cpuacct": dir}

    # ---------------------------------------------------------------- creation
    @classmethod
    def create(cls, name: str, limits: Limits) -> Cgroup | None:
        """Create a cgroup with a memory limit, or return None where impossible."""
        tag = f"arena-{os.getpid()}-{_pidns()}-{_safe(name)}-{uuid.uuid4().hex[:8]}"
        return cls._create_v2(tag, limits) or cls._create_v1(tag, limits)

    @classmethod
    def _mkchild(cls, parent: Path, tag: str) -> Path | None:
        """Create ``parent/tag``, first reaping cgroups left by arenas that died."""
        if parent not in _swept:
            _swept.add(parent)
            _reap_stale(parent)
        return _mkdir(parent / tag)

    @classmethod
    def _create_v2(cls, tag: str, limits: Limits) -> Cgroup | None:
        own = _own_paths().get("")
        for mount in (m for m in _mounts() if m.fstype == "cgroup2"):
            for parent in _parent_candidates(mount, own):
                d = cls._mkchild(parent, tag)
                if d is None:
                    continue
                if not (d / "memory.max").exists():
                    try:
                        _write(parent / "cgroup.subtree_control", "+memory +pids")
                    except OSError:
                        pass
                if (d / "memory.max").exists():
                    cg = cls(2, {"": d})
                    if cg._configure(limits):
                        return cg
                    cg.remove()
                else:
                    _rmdir(d)
        return None

    @classmethod
    def _create_v1(cls, tag: str, limits: Limits) -> Cgroup | None:
        own = _own_paths()
        dirs: dict[str, Path] = {}
        for ctrl in ("memory", "pids", "cpuacct"):
            for mount in (m for m in _mounts() if m.fstype == "cgroup" and ctrl in m.options):
                for parent in _parent_candidates(mount, own.get(ctrl)):
                    d = cls._mkchild(parent, tag)
                    if d is not None:
                        dirs[ctrl] = d
                        break
                if ctrl in dirs:
                    break
        cg = cls(1, dirs)
        if "memory" in dirs and cg._configure(limits):
            return cg
        cg.remove()
        return None

    def _configure(self, limits: Limits) -> bool:
        mem = str(limits.memory_mb * MiB)
        try:
            if self.version == 2:
                d = self.dirs[""]
                _write(d / "memory.max", mem)
                for f, v in (("memory.swap.max", "0"), ("pids.max", str(limits.processes))):
                    if (d / f).exists():
                        _write(d / f, v)
            else:
                d = self.dirs["memory"]
                _write(d / "memory.limit_in_bytes", mem)
                if (d / "memory.memsw.limit_in_bytes").exists():
                    _write(d / "memory.memsw.limit_in_bytes", mem)
                if "pids" in self.dirs:
                    _write(self.dirs["pids"] / "pids.max", str(limits.processes))
            return True
        except OSError as exc:
            log.debug("cannot configure cgroup %s: %s", self.dirs, exc)
            return False

    # ---------------------------------------------------------------- use
    def procs_files(self) -> list[str]:
        """cgroup.procs files the child writes its pid into before exec."""
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def pids(self) -> set[int]:
        """Every process currently in the cgroup (any controller)."""
        out: set[int] = set()
        for d in self.dirs.values():
            try:
                out.update(int(p) for p in (d / "cgroup.procs").read_text().split())
            except (OSError, ValueError):
                pass
        return out

    def kill_all(self, timeout_s: float = 3.0) -> set[int]:
        """SIGKILL every process in the cgroup until it is empty; return survivors."""
        kill_file = self.dirs.get("", Path("/nonexistent")) / "cgroup.kill"
        end = time.monotonic() + timeout_s
        while True:
            pids = self.pids()
            if not pids or time.monotonic() > end:
                return pids
            if kill_file.exists():
                try:
                    _write(kill_file, "1")
                except OSError:
                    pass
            for pid in pids:
                _kill(pid)
            time.sleep(0.005)

    def peak_memory(self) -> int | None:
        """Peak memory use in bytes, where the kernel reports it."""
        if self.version == 2:
            return _read_int(self.dirs[""] / "memory.peak")
        return _read_int(self.dirs["memory"] / "memory.max_usage_in_bytes")

    def cpu_seconds(self) -> float | None:
        """CPU time used by every process of the cgroup."""
        if self.version == 2:
            usec = _read_kv(self.dirs[""] / "cpu.stat", "usage_usec")
            return None if usec is None else usec / 1e6
        if "cpuacct" in self.dirs:
            ns = _read_int(self.dirs["cpuacct"] / "cpuacct.usage")
            return None if ns is None else ns / 1e9
        return None

    def oom_killed(self) -> bool | None:
        """Whether the kernel OOM-killed a process of this cgroup."""
        if self.version == 2:
            n = _read_kv(self.dirs[""] / "memory.events", "oom_kill")
        else:
            n = _read_kv(self.dirs["memory"] / "memory.oom_control", "oom_kill")
        return None if n is None else n > 0

    def remove(self) -> None:
        """Kill what is left and remove the cgroup directories."""
        if self.pids():
            self.kill_all()
        for d in self.dirs.values():
            _rmdir(d)
        self.dirs = {}


_swept: set[Path] = set()


def _reap_stale(parent: Path) -> None:
    """Kill the processes of, and remove, ``arena-<pid>-*`` cgroups whose arena is gone.

    An arena killed with SIGKILL cannot clean up; without a PID namespace
    (process-group level) its bots' daemons would live on in their cgroup.
    """
    try:
        entries = [e for e in os.scandir(parent) if e.is_dir() and e.name.startswith("arena-")]
    except OSError:
        return
    for entry in entries:
        parts = entry.name.split("-")
        owner = parts[1]
        if len(parts) < 3 or parts[2] != _pidns() or not owner.isdigit() or _alive(int(owner)):
            continue  # a live arena's, or one in another PID namespace (can't tell)
        log.warning("removing cgroup %s left by a dead arena (pid %s)", entry.path, owner)
        Cgroup(1, {"stale": Path(entry.path)}).remove()


def _pidns() -> str:
    """Inode of our PID namespace: arena pids are only comparable within one."""
    try:
        return os.readlink("/proc/self/ns/pid").strip("pid:[]")
    except OSError:
        return "0"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:32] or "bot"


def _mkdir(path: Path) -> Path | None:
    try:
        path.mkdir()
        return path
    except OSError:
        return None


def _rmdir(path: Path) -> None:
    for _ in range(50):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)
    log.warning("could not remove cgroup %s", path)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
