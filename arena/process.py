"""Run untrusted bot programs as processes and talk JSON Lines with them.

No game logic lives here: this layer moves text lines with deadlines.

* ``parse_command`` turns a bot's command string into an argv.
* ``BotPool`` starts the 4-8 bots of one match, each sandboxed (see
  ``arena.sandbox``) and limited (see ``arena.limits``), and multiplexes all
  their pipes through ONE selector: while the caller waits for one bot's reply,
  every bot's stderr is drained into a capped log file and unsolicited stdout
  lines are queued (bounded, oldest dropped).
* ``close`` ends a bot: EOF on stdin, a grace period, then SIGKILL for every
  process it started (process group, cgroup, PID namespace, its uid).

Times are ``time.monotonic()`` seconds; deadlines are absolute monotonic times.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import logging
import os
import resource
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Callable, Literal, NamedTuple

from arena.limits import Cgroup, Limits
from arena.sandbox import (
    SAFE_PATH,
    SandboxSpec,
    UidLease,
    interpreter_paths,
    is_root,
    make_workdir,
    processes_of_uid,
    reachable_by,
    sdk_paths,
    sdk_pythonpath,
    select_isolation,
    wrap_argv,
)

__all__ = [
    "BotCommandError",
    "parse_command",
    "Limits",
    "ReadResult",
    "SendResult",
    "ExitInfo",
    "Bot",
    "BotPool",
]

log = logging.getLogger(__name__)

PYTHON_NAMES = ("python", "python3")
INTERPRETERS = ("python", "python3", "node", "nodejs", "ruby", "perl", "php", "java", "sh", "bash")
CHUNK = 256 * 1024
PIPE_SIZE = 1 << 20
ENV_CGROUPS = "ARENA_CGROUPS"
"""Set to 0 to disable cgroups (memory then falls back to RLIMIT_AS)."""

_warned_paths: set[str] = set()

ReadKind = Literal["line", "timeout", "eof", "too_long"]
SendKind = Literal["ok", "timeout", "closed"]


class BotCommandError(ValueError):
    """A bot command that cannot be run (empty, or its program does not exist)."""


# --------------------------------------------------------------------------- commands


def parse_command(cmd: str, base_dir: Path) -> list[str]:
    """Split ``cmd`` like a shell and resolve it into an absolute argv.

    A leading ``python``/``python3`` becomes ``sys.executable`` (so the installed
    SDK is importable); other bare program names are looked up on PATH; relative
    paths (the program, and arguments naming existing files) resolve against
    ``base_dir``. Raises ``BotCommandError`` naming the command if the program,
    or the script an interpreter is given, does not exist.
    """
    try:
        argv = shlex.split(cmd)
    except ValueError as exc:
        raise BotCommandError(f"bot command {cmd!r} cannot be parsed: {exc}") from None
    if not argv:
        raise BotCommandError(f"bot command {cmd!r} is empty")
    base = Path(base_dir).resolve()
    prog = argv[0]
    if prog in PYTHON_NAMES:
        exe = sys.executable
    elif "/" in prog:
        exe = str(base / prog) if not os.path.isabs(prog) else prog
    else:
        exe = shutil.which(prog) or ""
    if not exe or not os.path.isfile(exe) or not os.access(exe, os.X_OK):
        raise BotCommandError(f"bot command {cmd!r}: program {prog!r} not found or not executable")
    out = [os.path.abspath(exe)]
    for arg in argv[1:]:
        cand = base / arg
        if not arg.startswith("-") and not os.path.isabs(arg) and cand.exists():
            out.append(str(cand))
        else:
            out.append(arg)
    _check_script(cmd, prog, out)
    return out


def _check_script(cmd: str, prog: str, argv: list[str]) -> None:
    """For ``python x.py``/``node x.js``: the script must exist."""
    if Path(prog).name.rstrip("0123456789.") not in INTERPRETERS:
        return
    args = iter(argv[1:])
    for arg in args:
        if arg in ("-m", "-c", "-e", "--eval", "-p", "--print"):
            return
        if arg in ("-X", "-W", "-r", "--require"):
            next(args, None)  # the option's value
            continue
        if arg.startswith("-"):
            continue
        if not os.path.exists(arg):
            raise BotCommandError(f"bot command {cmd!r}: script {arg!r} does not exist")
        return


def _script_dir(argv: list[str]) -> Path | None:
    """Directory of the bot's own files: its script's, or its program's if not a system one."""
    for arg in argv[1:]:
        if os.path.isabs(arg) and os.path.exists(arg):
            return Path(os.path.realpath(arg)).parent
    prog = Path(os.path.realpath(argv[0]))
    if prog.parts[1:2] in (("usr",), ("bin",)) or Path(os.path.realpath(sys.executable)) == prog:
        return None
    return prog.parent


# --------------------------------------------------------------------------- polling


class _Poller:
    """One epoll set for the whole match: fd -> (bot, kind). Thinner than ``selectors`` on the hot
    path (a turn's round trip is a few tens of microseconds), with ``poll`` where epoll is missing."""

    def __init__(self) -> None:
        self._epoll = getattr(select, "epoll", None)
        self._poll = self._epoll() if self._epoll else select.poll()
        self.map: dict[int, tuple[Bot, str]] = {}

    def register(self, fd: int, write: bool, data: tuple[Bot, str]) -> None:
        if self._epoll:
            self._poll.register(fd, select.EPOLLOUT if write else select.EPOLLIN)
        else:
            self._poll.register(fd, select.POLLOUT if write else select.POLLIN)
        self.map[fd] = data

    def unregister(self, fd: int) -> None:
        self.map.pop(fd, None)
        try:
            self._poll.unregister(fd)
        except (KeyError, OSError, ValueError):
            pass

    def select(self, timeout: float) -> list[tuple[int, tuple[Bot, str]]]:
        events = self._poll.poll(timeout) if self._epoll else self._poll.poll(timeout * 1000)
        found = self.map
        return [(fd, found[fd]) for fd, _ in events if fd in found]

    def close(self) -> None:
        if self._epoll:
            self._poll.close()


# --------------------------------------------------------------------------- results


class ReadResult(NamedTuple):
    """Outcome of waiting for one line from a bot (a tuple: cheap on the hot path).

    ``kind`` is "line" (``text`` is the line without its newline), "timeout",
    "eof" (stdout closed: the bot crashed, exited or closed it), or "too_long"
    (``text`` holds the first bytes; the rest of that line is discarded).
    ``elapsed_s`` runs from the end of the last ``send`` to this bot (or its
    start) to the moment the whole line was read (or the deadline, or EOF).
    """

    kind: ReadKind
    text: str
    elapsed_s: float

    @property
    def ok(self) -> bool:
        return self.kind == "line"


class SendResult(NamedTuple):
    """Outcome of ``send``: "ok", "timeout" (the bot is not reading) or "closed" (gone)."""

    kind: SendKind
    elapsed_s: float

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


@dataclass(frozen=True)
class ExitInfo:
    """How a bot ended, as reported by ``close``.

    ``returncode`` is the raw status of the process the arena started (negative:
    killed by that signal); ``signal`` is the signal that ended the bot, also
    when a wrapper (bwrap, unshare) reports it as 128+N. ``killed`` says the
    arena had to SIGKILL it after the grace period.
    """

    returncode: int | None
    signal: int | None
    killed: bool
    cpu_s: float | None
    peak_memory_bytes: int | None
    oom_killed: bool | None
    stderr_bytes: int
    stderr_dropped: int
    lines_dropped: int
    isolation: str
    leftover_pids: tuple[int, ...] = ()


# --------------------------------------------------------------------------- bot


@dataclass(eq=False)
class Bot:
    """One running bot. Created by ``BotPool.start``; use the pool to talk to it."""

    name: str
    argv: list[str]
    isolation: str
    workdir: Path
    log_path: Path
    uid: int | None
    proc: subprocess.Popen[bytes]
    limits: Limits
    stdin_fd: int = -1
    stdout_fd: int = -1
    stderr_fd: int = -1
    cgroup: Cgroup | None = None
    lease: UidLease | None = None
    queue_lines: int = 32
    started_t: float = field(default_factory=time.monotonic)
    last_send_t: float = 0.0
    pending: deque[tuple[ReadKind, str, float]] = field(default_factory=deque)
    unsolicited: deque[str] = field(default_factory=deque)
    lines_dropped: int = 0
    stderr_bytes: int = 0
    stderr_dropped: int = 0
    stdout_eof: bool = False
    send_failure: SendKind | None = None
    closed: bool = False
    exit_info: ExitInfo | None = None
    _buf: bytearray = field(default_factory=bytearray)
    _discarding: bool = False
    _log: IO[bytes] | None = None
    _status: int | None = None
    _rusage: resource.struct_rusage | None = None
    _keep_workdir: bool = False

    def __post_init__(self) -> None:
        self.last_send_t = self.started_t

    @property
    def pid(self) -> int:
        return self.proc.pid

    def poll(self) -> int | None:
        """Reap the process if it has exited; return its raw wait status or None."""
        if self._status is None:
            try:
                pid, status, ru = os.wait4(self.proc.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status, ru = self.proc.pid, 0, None
            if pid == 0:
                return None
            self._status, self._rusage = status, ru
            self.proc.returncode = _returncode(status)
        return self._status

    def returncode(self) -> int | None:
        """Exit code (negative: signal) of the started process, or None while it runs."""
        status = self.poll()
        return None if status is None else _returncode(status)

    def exit_signal(self) -> int | None:
        """The signal that ended the bot (also through a 128+N wrapper status), if any."""
        rc = self.returncode()
        if rc is None:
            return None
        if rc < 0:
            return -rc
        if self.isolation != "process-group" and 128 < rc < 128 + 65:
            return rc - 128
        return None

    def _enqueue(self, kind: ReadKind, text: str) -> None:
        if len(self.pending) >= self.queue_lines:
            self.pending.popleft()
            self.lines_dropped += 1
        self.pending.append((kind, text, time.monotonic()))

    def _feed(self, data: bytes) -> None:
        """Split stdout bytes into lines; never buffer more than ``line_bytes``."""
        cap = self.limits.line_bytes
        while data:
            nl = data.find(b"\n")
            if self._discarding:
                if nl < 0:
                    return
                self._discarding = False
                data = data[nl + 1 :]
                continue
            if nl < 0:
                self._buf += data
                if len(self._buf) > cap:
                    self._too_long()
                return
            self._buf += data[:nl]
            data = data[nl + 1 :]
            if len(self._buf) > cap:
                self._too_long()
                self._discarding = False
            else:
                self._emit_line()

    def _emit_line(self) -> None:
        raw = bytes(self._buf)
        self._buf.clear()
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        self._enqueue("line", raw.decode("utf-8", errors="replace"))

    def _too_long(self) -> None:
        head = bytes(self._buf[:200]).decode("utf-8", errors="replace")
        self._buf = bytearray()
        self._discarding = True
        self._enqueue("too_long", head)

    def _feed_eof(self) -> None:
        if self._buf and not self._discarding:
            self._emit_line()
        self._buf = bytearray()
        self.stdout_eof = True

    def _log_stderr(self, data: bytes) -> None:
        room = self.limits.stderr_bytes - self.stderr_bytes
        keep = data[: max(room, 0)]
        if keep and self._log is not None:
            self._log.write(keep)
            self._log.flush()
        self.stderr_bytes += len(keep)
        self.stderr_dropped += len(data) - len(keep)


def _returncode(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.waitstatus_to_exitcode(status)


# --------------------------------------------------------------------------- pool


class BotPool:
    """The bots of one match, multiplexed through one selector (not thread-safe).

    ``isolation`` forces a level (else $ARENA_SANDBOX, else the strongest that
    works; see ``arena.sandbox.select_isolation``); ``self.isolation`` is the
    level actually in effect, for the caller to record. ``use_cgroups=False``
    (or $ARENA_CGROUPS=0) skips cgroups, so memory is limited by RLIMIT_AS.
    """

    def __init__(
        self,
        limits: Limits | None = None,
        *,
        isolation: str | None = None,
        work_root: Path | None = None,
        log_dir: Path | None = None,
        queue_lines: int = 32,
        send_timeout_s: float = 2.0,
        use_cgroups: bool | None = None,
        keep_workdirs: bool = False,
    ) -> None:
        self.limits = limits or Limits()
        self.isolation = select_isolation(isolation)
        self.work_root = work_root
        self.log_dir = log_dir
        self.queue_lines = queue_lines
        self.send_timeout_s = send_timeout_s
        env_cg = os.environ.get(ENV_CGROUPS, "1").strip().lower() not in ("0", "no", "false", "off")
        self.use_cgroups = env_cg if use_cgroups is None else use_cgroups
        self.keep_workdirs = keep_workdirs
        self.bots: list[Bot] = []
        self._sel = _Poller()
        self._libc = _libc()

    # ---------------------------------------------------------------- context
    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close_all(grace_s=0.2)
        self._sel.close()

    # ---------------------------------------------------------------- start
    def start(
        self,
        name: str,
        command: str,
        base_dir: Path,
        *,
        bot_dir: Path | None = None,
        log_path: Path | None = None,
    ) -> Bot:
        """Start a bot from its command string (see ``parse_command``).

        ``bot_dir`` holds the bot's own files (mounted read-only; default: its
        script's directory); ``log_path`` receives its capped stderr.
        """
        argv = parse_command(command, base_dir)
        own = Path(os.path.realpath(bot_dir)) if bot_dir else _script_dir(argv)
        lease = UidLease.acquire() if is_root() else None
        try:
            return self._start(name, argv, own, lease, log_path)
        except BaseException:
            if lease:
                lease.release()
            raise

    def _start(
        self, name: str, argv: list[str], own: Path | None, lease: UidLease | None, log_path: Path | None
    ) -> Bot:
        ro = [*([own] if own else []), Path(os.path.realpath(argv[0])).parent]
        if os.path.realpath(argv[0]) == os.path.realpath(sys.executable):
            ro += [*interpreter_paths(), *sdk_paths()]
        uid = lease.uid if lease else None
        if uid is not None and self.isolation == "process-group":
            uid = self._droppable(uid, argv, ro)
        workdir = make_workdir(self.work_root, name, uid, uid)
        undo: list[Callable[[], object]] = [lambda: shutil.rmtree(workdir, ignore_errors=True)]
        try:
            log_path, log_file = self._open_log(log_path, workdir)
            undo.append(log_file.close)
            cgroup = Cgroup.create(name, self.limits) if self.use_cgroups else None
            if cgroup:
                undo.append(cgroup.remove)
            (r_in, w_in), (r_out, w_out), (r_err, w_err) = os.pipe(), os.pipe(), os.pipe()
            pipes, child = (w_in, r_out, r_err), (r_in, w_out, w_err)
            undo.append(lambda: [os.close(fd) for fd in pipes])
            spec = SandboxSpec(argv, workdir, ro, uid, uid, tmp_mb=self.limits.memory_mb)
            spec.fds = child if self.isolation == "bubblewrap" else None
            try:
                proc = self._popen(wrap_argv(self.isolation, spec), spec, workdir, cgroup, child)
            finally:
                for fd in child:
                    os.close(fd)
        except BaseException:
            for fn in reversed(undo):
                fn()
            raise
        bot = Bot(name, argv, self.isolation, workdir, log_path, uid, proc, self.limits, *pipes,
                  cgroup=cgroup, lease=lease, queue_lines=self.queue_lines, _log=log_file,
                  _keep_workdir=self.keep_workdirs)  # fmt: skip
        self._register(bot)
        self.bots.append(bot)
        return bot

    def _open_log(self, log_path: Path | None, workdir: Path) -> tuple[Path, IO[bytes]]:
        """The bot's stderr log (mode 0600): ``log_path``, else ``<log_dir>/<workdir name>.stderr.log``."""
        default = Path(self.log_dir or workdir.parent) / f"{workdir.name}.stderr.log"
        path = Path(log_path) if log_path else default
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        return path, os.fdopen(fd, "wb")

    def _droppable(self, uid: int, argv: list[str], ro: list[Path]) -> int | None:
        """In process-group mode, drop to ``uid`` only if it can reach the bot's files."""
        hidden = [str(p) for p in [Path(argv[0]), *ro] if not reachable_by(p, uid, uid)]
        if not hidden:
            return uid
        if hidden[0] not in _warned_paths:
            _warned_paths.add(hidden[0])
            log.warning(
                "isolation process-group: bot uids cannot reach %s; such bots run as the arena's user", hidden
            )
        return None

    def _env(self, workdir: Path) -> dict[str, str]:
        env = {"PATH": SAFE_PATH, "HOME": str(workdir), "LANG": "C.UTF-8"}
        pythonpath = sdk_pythonpath()
        if pythonpath:
            env["PYTHONPATH"] = pythonpath
        return env

    def _popen(
        self,
        argv: list[str],
        spec: SandboxSpec,
        workdir: Path,
        cgroup: Cgroup | None,
        child: tuple[int, int, int],
    ) -> subprocess.Popen[bytes]:
        """Start the (wrapped) bot with the child ends of its pipes.

        With bwrap they go as extra fds (see ``SandboxSpec.fds``), and bwrap's
        own stdin/stdout are /dev/null while its stderr goes to the bot's log.
        """
        rlimits = self.limits.rlimits(address_space=cgroup is None, nproc=spec.uid is not None)
        procs_files = cgroup.procs_files() if cgroup else []
        drop = spec.uid if self.isolation == "process-group" else None
        preexec = _make_preexec(rlimits, procs_files, drop, self._libc)
        std = (subprocess.DEVNULL, subprocess.DEVNULL, child[2]) if spec.fds else child
        try:
            return subprocess.Popen(
                argv,
                stdin=std[0],
                stdout=std[1],
                stderr=std[2],
                pass_fds=spec.fds or (),
                close_fds=True,
                cwd=str(workdir),
                env=self._env(workdir),
                start_new_session=True,
                preexec_fn=preexec,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise BotCommandError(f"bot command {' '.join(spec.argv)!r} could not start: {exc}") from exc

    def _register(self, bot: Bot) -> None:
        for fd, kind in ((bot.stdout_fd, "out"), (bot.stderr_fd, "err"), (bot.stdin_fd, "in")):
            os.set_blocking(fd, False)
            if kind != "in":
                _grow_pipe(fd)
                self._sel.register(fd, False, (bot, kind))

    # ---------------------------------------------------------------- I/O
    def pump(self, timeout_s: float = 0.0) -> None:
        """Drain every bot's pipes once (waiting at most ``timeout_s`` for data)."""
        self._select(max(timeout_s, 0.0))

    def _select(self, timeout: float) -> set[int]:
        """One selector round; returns the fds that became writable."""
        writable: set[int] = set()
        if not self._sel.map:
            time.sleep(timeout)
            return writable
        for fd, (bot, kind) in self._sel.select(timeout):
            if kind == "in":
                writable.add(fd)
            elif kind == "out":
                self._read_stdout(bot, fd)
            else:
                self._read_stderr(bot, fd)
        return writable

    def _read(self, fd: int) -> bytes | None:
        """One non-blocking read: bytes, b"" at EOF, None if nothing is there."""
        try:
            return os.read(fd, CHUNK)
        except BlockingIOError:
            return None
        except OSError as exc:
            if exc.errno in (errno.EIO, errno.EBADF):
                return b""
            raise

    def _read_stdout(self, bot: Bot, fd: int) -> bool:
        """Read one chunk of stdout; False if there was nothing to read."""
        data = self._read(fd)
        if data is None:
            return False
        if data:
            bot._feed(data)
        else:
            self._unregister(fd)
            bot._feed_eof()
        return True

    def _read_stderr(self, bot: Bot, fd: int) -> bool:
        """Read one chunk of stderr into the capped log; False if there was nothing."""
        data = self._read(fd)
        if data is None:
            return False
        if data:
            bot._log_stderr(data)
        else:
            self._unregister(fd)
        return True

    def _unregister(self, fd: int) -> None:
        try:
            self._sel.unregister(fd)
        except (KeyError, ValueError):
            pass

    def send(self, bot: Bot, line: str, deadline: float | None = None) -> SendResult:
        """Write ``line`` plus a newline to the bot's stdin before ``deadline``.

        Lines still queued from the bot are moved to ``bot.unsolicited`` first
        (they were not replies to this message). A bot that does not read and
        lets the pipe fill gets "timeout"; a closed pipe gives "closed". After a
        failed send the bot's input is out of sync, so later sends fail at once.
        """
        if "\n" in line:
            raise ValueError("a protocol line must not contain a newline")
        start = time.monotonic()
        deadline = start + self.send_timeout_s if deadline is None else deadline
        self._flush_pending(bot)
        if bot.send_failure or bot.stdin_fd < 0:
            return SendResult(bot.send_failure or "closed", 0.0)
        kind = self._write_all(bot, (line + "\n").encode(), deadline)
        now = time.monotonic()
        if kind != "ok":
            bot.send_failure = kind
        bot.last_send_t = now
        return SendResult(kind, now - start)

    def _flush_pending(self, bot: Bot) -> None:
        self._select(0)
        while bot.pending:
            kind, text, _ = bot.pending.popleft()
            if len(bot.unsolicited) >= self.queue_lines:
                bot.unsolicited.popleft()
                bot.lines_dropped += 1
            bot.unsolicited.append(text if kind == "line" else f"<{kind}> {text}")

    def _write_all(self, bot: Bot, data: bytes, deadline: float) -> SendKind:
        fd = bot.stdin_fd
        written = 0
        try:  # the common case: the pipe has room for the whole line
            written = os.write(fd, data)
            if written == len(data):
                return "ok"
        except BlockingIOError:
            pass
        except (BrokenPipeError, ConnectionResetError):
            return "closed"
        view = memoryview(data)[written:]
        registered = False
        try:
            while view:
                try:
                    view = view[os.write(fd, view) :]
                    continue
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionResetError):
                    return "closed"
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return "timeout"
                if not registered:
                    self._sel.register(fd, True, (bot, "in"))
                    registered = True
                self._select(remaining)
            return "ok"
        finally:
            if registered:
                self._unregister(fd)

    def wait_line(self, bot: Bot, deadline: float) -> ReadResult:
        """Wait until ``deadline`` (monotonic) for the bot's next stdout line.

        Drains every bot of the pool meanwhile. Returns a queued line at once;
        "eof" once stdout is closed and nothing is queued; "timeout" at the
        deadline. A line longer than ``limits.line_bytes`` is "too_long" as soon
        as it passes the cap, and its remainder is discarded unbuffered.
        """
        first = True
        while True:
            if bot.closed and not bot.pending:
                return ReadResult("eof", "", time.monotonic() - bot.last_send_t)
            if bot.pending:
                kind, text, t = bot.pending.popleft()
                return ReadResult(kind, text, t - bot.last_send_t)
            now = time.monotonic()
            if bot.stdout_eof:
                return ReadResult("eof", "", now - bot.last_send_t)
            if now >= deadline and not first:
                return ReadResult("timeout", "", now - bot.last_send_t)
            self._select(max(deadline - now, 0.0))
            first = False

    # ---------------------------------------------------------------- close
    def close(self, bot: Bot, grace_s: float = 1.0) -> ExitInfo:
        """End the bot: close stdin, wait ``grace_s``, then SIGKILL all it started.

        Kills the process group, the PID namespace (by killing its wrapper),
        every process in its cgroup and every process of its uid; reaps the
        process; removes the cgroup, working directory and uid lease. Idempotent.
        """
        if bot.exit_info is not None:
            return bot.exit_info
        self._close_stdin(bot)
        end = time.monotonic() + grace_s
        while bot.poll() is None and time.monotonic() < end:
            self._select(min(0.02, max(end - time.monotonic(), 0.0)))
        killed = bot.poll() is None
        leftovers = self._kill_everything(bot)
        self._final_drain(bot)
        info = self._exit_info(bot, killed, leftovers)
        self._release(bot)
        bot.exit_info = info
        bot.closed = True
        if bot in self.bots:
            self.bots.remove(bot)
        return info

    def close_all(self, grace_s: float = 1.0) -> dict[str, ExitInfo]:
        """Close every bot of the pool (stdin of all first, so their graces overlap)."""
        for bot in self.bots:
            self._close_stdin(bot)
        end = time.monotonic() + grace_s
        while any(b.poll() is None for b in self.bots) and time.monotonic() < end:
            self._select(min(0.02, max(end - time.monotonic(), 0.0)))
        return {bot.name: self.close(bot, grace_s=0.0) for bot in list(self.bots)}

    def close_stdin(self, bot: Bot) -> None:
        """Close the bot's stdin: it sees EOF (and should exit on its own)."""
        self._close_stdin(bot)

    def _close_stdin(self, bot: Bot) -> None:
        """Close the bot's stdin: it sees EOF."""
        if bot.stdin_fd >= 0:
            self._unregister(bot.stdin_fd)
            os.close(bot.stdin_fd)
            bot.stdin_fd = -1

    def _kill_everything(self, bot: Bot) -> tuple[int, ...]:
        """SIGKILL the bot's whole tree; reap it; return pids that survived."""
        pid = bot.proc.pid
        for attempt in range(3):
            _killpg(pid)
            if bot.poll() is None:
                _kill(pid)
            if bot.cgroup:
                bot.cgroup.kill_all(timeout_s=1.0)
            if bot.uid is not None:
                _kill_uid(bot.uid)
            if bot.isolation == "process-group":
                _kill_home(bot.workdir)
            self._reap(bot, timeout_s=2.0)
            left = self._survivors(bot)
            if not left:
                return ()
            log.warning("bot %s: processes %s survived SIGKILL round %d", bot.name, sorted(left), attempt)
        return tuple(sorted(left))

    def _reap(self, bot: Bot, timeout_s: float) -> None:
        end = time.monotonic() + timeout_s
        while bot.poll() is None and time.monotonic() < end:
            time.sleep(0.002)

    def _survivors(self, bot: Bot) -> set[int]:
        left: set[int] = set()
        if bot.poll() is None:
            left.add(bot.proc.pid)
        if bot.cgroup:
            left |= bot.cgroup.pids()
        if bot.uid is not None:
            left |= processes_of_uid(bot.uid)
        if bot.isolation == "process-group":
            left |= processes_with_home(bot.workdir)
        return left

    def _final_drain(self, bot: Bot) -> None:
        """Read what the dead bot left in its pipes (stderr up to the cap)."""
        for fd, reader in ((bot.stdout_fd, self._read_stdout), (bot.stderr_fd, self._read_stderr)):
            for _ in range(256):
                if fd < 0 or fd not in self._sel.map or not reader(bot, fd):
                    break

    def _exit_info(self, bot: Bot, killed: bool, leftovers: tuple[int, ...]) -> ExitInfo:
        ru = bot._rusage
        cpu = bot.cgroup.cpu_seconds() if bot.cgroup else None
        if cpu is None and ru is not None:
            cpu = ru.ru_utime + ru.ru_stime
        peak = bot.cgroup.peak_memory() if bot.cgroup else None
        if peak is None and ru is not None:
            peak = ru.ru_maxrss * 1024
        return ExitInfo(
            returncode=bot.returncode(),
            signal=bot.exit_signal(),
            killed=killed,
            cpu_s=cpu,
            peak_memory_bytes=peak,
            oom_killed=bot.cgroup.oom_killed() if bot.cgroup else None,
            stderr_bytes=bot.stderr_bytes,
            stderr_dropped=bot.stderr_dropped,
            lines_dropped=bot.lines_dropped,
            isolation=bot.isolation,
            leftover_pids=leftovers,
        )

    def _release(self, bot: Bot) -> None:
        self._close_stdin(bot)
        for fd in (bot.stdout_fd, bot.stderr_fd):
            if fd >= 0:
                self._unregister(fd)
                os.close(fd)
        bot.stdout_fd = bot.stderr_fd = -1
        if bot._log:
            bot._log.close()
        if bot.cgroup:
            bot.cgroup.remove()
        if not bot._keep_workdir:
            shutil.rmtree(bot.workdir, ignore_errors=True)
        if bot.lease:
            bot.lease.release()


# --------------------------------------------------------------------------- helpers


def _libc() -> ctypes.CDLL | None:
    """The C library, if it has ``prctl`` (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    return libc if hasattr(libc, "prctl") else None


PR_SET_PDEATHSIG = 1


def _make_preexec(
    rlimits: list[tuple[int, int, int]], procs_files: list[str], uid: int | None, libc: ctypes.CDLL | None
):
    """The function run in the child between fork and exec (kept minimal).

    It joins the cgroup, sets the rlimits, drops to ``uid`` when asked (the
    process-group level; other levels drop inside the sandbox with setpriv),
    and asks for SIGKILL when the arena dies.
    """

    def preexec() -> None:
        pid = str(os.getpid()).encode()
        for path in procs_files:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, pid)
            finally:
                os.close(fd)
        for res, soft, hard in rlimits:
            resource.setrlimit(res, (soft, hard))
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        if libc is not None:
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    return preexec


def _grow_pipe(fd: int) -> None:
    """Give a pipe more room so a chatty bot rarely blocks between our reads."""
    try:
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), PIPE_SIZE)
    except OSError:
        pass


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def processes_with_home(workdir: Path) -> set[int]:
    """Live processes whose initial environment has ``HOME=<workdir>`` (the bot's tag).

    The last resort at the process-group level without a cgroup or a bot uid:
    a forked daemon keeps the environment it was started with, even after
    setsid. (A process that re-execs itself with another environment escapes.)
    """
    tag = b"HOME=" + os.fsencode(workdir) + b"\0"
    out: set[int] = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            env = Path(entry.path, "environ").read_bytes()
        except OSError:
            continue
        if (b"\0" + env).find(b"\0" + tag) >= 0:
            out.add(int(entry.name))
    return out


def _kill_home(workdir: Path, timeout_s: float = 1.0) -> None:
    """SIGKILL every process tagged with the bot's HOME until none is left."""
    end = time.monotonic() + timeout_s
    while (pids := processes_with_home(workdir)) and time.monotonic() < end:
        for pid in pids:
            _kill(pid)
        time.sleep(0.005)


def _kill_uid(uid: int, timeout_s: float = 1.0) -> None:
    """SIGKILL every process of ``uid`` until none is left (a leased, per-bot uid)."""
    end = time.monotonic() + timeout_s
    while (pids := processes_of_uid(uid)) and time.monotonic() < end:
        for pid in pids:
            _kill(pid)
        time.sleep(0.005)
