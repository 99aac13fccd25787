"""Tournaments on a Dask cluster: ``arena tournament run FILE --executor dask [--scheduler ADDR]``.

The runner (:func:`arena.tournament.runner.run_tournament`) only needs a
:class:`concurrent.futures.Executor`; :class:`DaskMatchExecutor` is one, backed by a
``distributed.Client``. Each ``submit(play_task, task)`` becomes a Dask task that runs
:func:`play_task_remote` on a worker, which calls the very same :func:`~arena.tournament.runner.play_task`
the local pool runs, only with the replay and the bot logs redirected to a temporary folder on the
worker. Their contents come back with the :class:`~arena.match.MatchReport` and are written on the
main machine at the paths the local runner uses *before* the returned future completes, so the
runner and its store logic (commit on arrival, resume) are unchanged. Only the main machine
touches the SQLite database.

Settings (environment variables; see docs/scaling.md):

``ARENA_DASK_CPUS_PER_MATCH``
    The amount of the worker resource ``cpus`` each match reserves: a number (default ``1``) or
    ``seats`` (one per bot in the match). Workers must declare it: ``dask worker ... --resources cpus=2``.
``ARENA_DASK_SHIP_BOTS``
    ``1`` (default): the bot files the tournament's commands name are packed and unpacked on every
    worker (a worker plugin); the match's ``base_dir`` points there. ``0``: the bots are installed
    at the same paths on every node.
``ARENA_DASK_BUNDLE_MAX_MB``
    Refuse to ship more than this many megabytes of bot files (default 200).
``ARENA_DASK_WAIT_S``
    How long to wait for the first worker of an existing cluster (default 60).

``distributed`` is an optional dependency (``pip install -e '.[dask]'``): this module imports
without it, and :func:`dask_executor` says how to install it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gzip
import hashlib
import io
import logging
import os
import shlex
import shutil
import signal
import tarfile
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future, InvalidStateError
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from arena.match import MatchReport
from sdk.rules import MAX_PLAYERS

from .runner import MatchTask, play_task

try:  # the plugin base class; the module must import without the optional extra
    from distributed.diagnostics.plugin import WorkerPlugin as _WorkerPlugin
except ImportError:  # pragma: no cover - exercised when the extra is not installed
    _WorkerPlugin = object  # type: ignore[assignment,misc]

log = logging.getLogger(__name__)

INSTALL_HINT = "pip install -e '.[dask]'  (or: pip install 'dask[distributed]')"


class DaskUnavailable(click.ClickException):
    """The Dask executor cannot start (extra not installed, scheduler unreachable, bad setting): exit 2."""

    exit_code = 2


# --------------------------------------------------------------------------- settings


def cpus_per_match_setting(value: str | int | float | None = None) -> int | float | str:
    """``ARENA_DASK_CPUS_PER_MATCH`` (or ``value``): a positive number, or ``"seats"``. Default 1.

    One CPU per match is the default because the bots of a match alternate turns: only the bot to
    move computes, so a match keeps about one core busy. Reserving one CPU per seat keeps every bot
    on its own core even when bots think while waiting, but a worker must then declare at least as
    many cpus as the largest match has seats, or such matches never start.
    """
    raw = os.environ.get("ARENA_DASK_CPUS_PER_MATCH", "1") if value is None else value
    if isinstance(raw, str):
        text = raw.strip().lower()
        if text == "seats":
            return "seats"
        try:
            number: float = float(text)
        except ValueError:
            number = float("nan")
    else:
        number = float(raw)
    if not number > 0 or number == float("inf"):
        raise DaskUnavailable(f"ARENA_DASK_CPUS_PER_MATCH={raw!r} is not valid: use a positive number or 'seats'")
    return int(number) if number == int(number) else number


def _flag(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    text = raw.strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise DaskUnavailable(f"{name}={raw!r} is not valid: use 1 or 0")


def _float_env(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise DaskUnavailable(f"{name}={raw!r} is not valid: use a positive number")
    return value


# --------------------------------------------------------------------------- bot bundles


class BundleError(ValueError):
    """The bot files of a command cannot be shipped to the workers."""


@dataclass(frozen=True)
class BotBundle:
    """The bot files of some commands, packed (tar.gz) to be unpacked on the workers.

    ``id`` is a hash of the paths, modes and contents, so the same files give the same folder.
    """

    id: str
    data: bytes
    files: tuple[str, ...]


def bot_paths(cmd: str, base_dir: str | Path) -> list[Path]:
    """The files and folders a bot command needs, relative to ``base_dir``.

    The same tokens :func:`arena.process.parse_command` resolves against the base directory: the
    program when it is a relative path, and every argument naming an existing file or folder there,
    plus the package or module of ``python -m NAME``. A file stands for its whole folder (the bot's
    own files, which the sandbox mounts), except a file directly in the base directory, which is
    shipped alone. Absolute paths are not shipped (they must exist on the workers).
    Raises :class:`BundleError` for a path outside the base directory.
    """
    base = Path(base_dir).resolve()
    try:
        argv = shlex.split(cmd)
    except ValueError as error:
        raise BundleError(f"cannot split the command {cmd!r}: {error}") from None
    candidates: list[str] = []
    if argv and "/" in argv[0] and not os.path.isabs(argv[0]):
        candidates.append(argv[0])
    args = argv[1:]
    for i, arg in enumerate(args):
        if arg == "-m" and i + 1 < len(args):
            top = args[i + 1].split(".")[0]
            candidates += [top, f"{top}.py"]
        elif not arg.startswith("-") and not os.path.isabs(arg):
            candidates.append(arg)
    out: list[Path] = []
    for name in candidates:
        path = base / name
        if not path.exists():
            continue
        real = path.resolve()
        try:
            real.relative_to(base)
        except ValueError:
            raise BundleError(
                f"the bot command {cmd!r} names {name!r}, which is outside the base directory {base}; move it "
                "inside, or install the bots at the same paths on every node and set ARENA_DASK_SHIP_BOTS=0") from None
        if real.is_file() and real.parent != base:
            real = real.parent
        if real not in out:
            out.append(real)
    return out


def _walk(path: Path) -> Iterable[Path]:
    """Files under ``path`` (or ``path`` itself), without hidden entries and ``__pycache__``."""
    if path.is_file():
        yield path
        return
    for root, dirs, files in os.walk(path, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            if not name.startswith("."):
                yield Path(root) / name


def build_bundle(commands: Iterable[tuple[str, str]], max_bytes: int = 200 * 2**20) -> BotBundle:
    """Pack the bot files of ``(cmd, base_dir)`` pairs, each at its path relative to its base directory.

    Raises :class:`BundleError` if a path is outside its base directory or the files exceed ``max_bytes``.
    """
    entries: dict[str, Path] = {}
    for cmd, base_dir in commands:
        base = Path(base_dir).resolve()
        for path in bot_paths(cmd, base):
            for file in _walk(path):
                entries.setdefault(file.relative_to(base).as_posix(), file)
    total = 0
    digest = hashlib.sha256()
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=6, mtime=0) as packed, \
            tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in sorted(entries):
            data = entries[rel].read_bytes()
            total += len(data)
            if total > max_bytes:
                raise BundleError(
                    f"the bot files to ship exceed {max_bytes // 2**20} MB (at {rel}); put each bot in its own "
                    "folder, raise ARENA_DASK_BUNDLE_MAX_MB, or install the bots on every node and set "
                    "ARENA_DASK_SHIP_BOTS=0")
            mode = 0o755 if os.access(entries[rel], os.X_OK) else 0o644
            digest.update(f"{rel}\0{mode:o}\0{len(data)}\0".encode())
            digest.update(data)
            info = tarfile.TarInfo(rel)
            info.size = len(data)
            info.mode = mode
            info.mtime = 0
            tar.addfile(info, io.BytesIO(data))
    return BotBundle(digest.hexdigest()[:16], buffer.getvalue(), tuple(sorted(entries)))


def unpack_bundle(bundle_id: str, data: bytes, root: str | Path) -> Path:
    """Unpack a bundle into ``root/bundle_id`` (atomically; a no-op if it is there) and return that folder."""
    target = Path(root) / bundle_id
    if target.is_dir():
        return target
    Path(root).mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{bundle_id}-", dir=root))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            for member in tar.getmembers():
                rel = Path(member.name)
                if not member.isfile() or rel.is_absolute() or ".." in rel.parts:
                    raise BundleError(f"refusing the bundle entry {member.name!r}")
                dest = staging / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                assert source is not None
                dest.write_bytes(source.read())
                dest.chmod(member.mode & 0o755)
        staging.chmod(0o755)
        try:
            staging.rename(target)
        except OSError:  # another thread or process unpacked it first
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _bundle_root(worker: Any | None) -> Path:
    local = getattr(worker, "local_directory", None) if worker is not None else None
    return Path(local or tempfile.gettempdir()) / "arena-bots"


class BotBundlePlugin(_WorkerPlugin):
    """Unpacks a :class:`BotBundle` into ``<worker local directory>/arena-bots/<id>`` on every worker,
    including workers that join later (the scheduler keeps the plugin)."""

    idempotent = True

    def __init__(self, bundle_id: str, data: bytes) -> None:
        self.bundle_id = bundle_id
        self.data = data
        self.name = plugin_name(bundle_id)

    def setup(self, worker: Any) -> None:
        unpack_bundle(self.bundle_id, self.data, _bundle_root(worker))

    def teardown(self, worker: Any) -> None:
        shutil.rmtree(_bundle_root(worker) / self.bundle_id, ignore_errors=True)


def plugin_name(bundle_id: str) -> str:
    return f"arena-bots-{bundle_id}"


class IgnoreInterrupt(_WorkerPlugin):
    """For a local cluster's workers: Ctrl-C is the runner's business (it marks the matches in flight
    aborted and closes the cluster, which ends the workers and their bots)."""

    idempotent = True
    name = "arena-ignore-sigint"

    def setup(self, worker: Any) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_IGN)


# --------------------------------------------------------------------------- on the worker


@dataclass
class RemoteResult:
    """What :func:`play_task_remote` sends back: the report, the replay file's bytes, the bot logs
    (file name -> bytes) and the arena's log records of the match (name, level, message)."""

    report: MatchReport
    replay: bytes | None
    logs: dict[str, bytes] = field(default_factory=dict)
    records: list[tuple[str, int, str]] = field(default_factory=list)
    worker: str = ""


class _ThreadRecords(logging.Handler):
    """Collects the ``arena`` log records emitted by one thread (the match's)."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.thread = threading.get_ident()
        self.records: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            try:
                message = record.getMessage()
            except Exception:  # noqa: BLE001 - a bad log call must not lose the match
                message = str(record.msg)
            self.records.append((record.name, record.levelno, message))


def play_task_remote(task: MatchTask, bundle_id: str | None = None, log_level: int = logging.WARNING) -> RemoteResult:
    """Run :func:`~arena.tournament.runner.play_task` on this (worker) machine.

    The replay and the bot logs go to a temporary folder, whose contents are returned; with a
    ``bundle_id`` the bots' relative paths resolve in the unpacked bundle instead of ``task.base_dir``.
    """
    try:
        from distributed import get_worker  # noqa: PLC0415

        worker = get_worker()
    except (ImportError, ValueError):  # not on a Dask worker (tests call it directly)
        worker = None
    base_dir = task.base_dir
    if bundle_id is not None:
        root = _bundle_root(worker)
        folder = root / bundle_id
        if not folder.is_dir():
            plugin = getattr(worker, "plugins", {}).get(plugin_name(bundle_id)) if worker is not None else None
            if plugin is None:
                raise BundleError(f"the bot files (bundle {bundle_id}) are not on this worker")
            unpack_bundle(bundle_id, plugin.data, root)
        base_dir = str(folder)
    arena_log = logging.getLogger("arena")
    if arena_log.getEffectiveLevel() > log_level:
        arena_log.setLevel(log_level)
    capture = _ThreadRecords(log_level)
    arena_log.addHandler(capture)
    scratch = Path(tempfile.mkdtemp(prefix="arena-match-", dir=getattr(worker, "local_directory", None)))
    try:
        local = dataclasses.replace(task, replay_path=str(scratch / Path(task.replay_path).name),
                                    log_dir=str(scratch / "logs"), base_dir=base_dir)
        report = play_task(local)
        replay = Path(local.replay_path)
        logs_dir = Path(local.log_dir)
        logs = {p.relative_to(logs_dir).as_posix(): p.read_bytes() for p in sorted(logs_dir.rglob("*")) if p.is_file()}
        return RemoteResult(report, replay.read_bytes() if replay.is_file() else None, logs, capture.records,
                            getattr(worker, "address", "") or "")
    finally:
        arena_log.removeHandler(capture)
        shutil.rmtree(scratch, ignore_errors=True)


# --------------------------------------------------------------------------- on the main machine


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.part")
    partial.write_bytes(data)
    os.replace(partial, path)


def deliver(task: MatchTask, result: RemoteResult) -> MatchReport:
    """Write a remote match's replay and logs where the local runner would have, replay its log
    records here, and return its report."""
    if result.replay is not None:
        _write_atomic(Path(task.replay_path), result.replay)
    for name, data in result.logs.items():
        rel = Path(name)
        if rel.is_absolute() or ".." in rel.parts:
            continue
        _write_atomic(Path(task.log_dir) / rel, data)
    where = f"[{result.worker}] " if result.worker else ""
    for name, level, message in result.records:
        logger = logging.getLogger(name)
        if logger.isEnabledFor(level):
            logger.log(level, "%s%s", where, message)
    return result.report


class _MatchFuture(Future):
    """The runner's future for one remote match; cancelling it cancels the Dask task."""

    def __init__(self) -> None:
        super().__init__()
        self.remote: Any = None

    def cancel(self) -> bool:
        remote = self.remote
        if remote is not None:
            try:
                remote.cancel()
            except Exception:  # noqa: BLE001 - the client may be closing
                pass
        return super().cancel()


class DaskMatchExecutor(Executor):
    """A :class:`concurrent.futures.Executor` that plays matches on a Dask cluster.

    ``submit(play_task, task)`` runs :func:`play_task_remote` on a worker that has the ``cpus``
    resource the match needs; the returned future completes (with the ``MatchReport``) once the replay
    and logs are written locally. Anything else is submitted to the client as it is.
    """

    def __init__(self, client: Any, *, cluster: Any = None, cpus_per_match: int | float | str = 1,
                 ship_bots: bool = True, bundle_max_bytes: int = 200 * 2**20) -> None:
        self.client = client
        self.cluster = cluster
        self.cpus_per_match = cpus_per_match
        self.ship_bots = ship_bots
        self.bundle_max_bytes = bundle_max_bytes
        self._lock = threading.Lock()
        self._futures: set[_MatchFuture] = set()
        self._shipped: set[tuple[str, str]] = set()
        self._bundle: BotBundle | None = None
        self._capacity_ok: set[float] = set()
        self._closed = False

    # ---- submitting

    def cpus_for(self, task: MatchTask) -> float:
        return len(task.bots) if self.cpus_per_match == "seats" else float(self.cpus_per_match)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if self._closed:
            raise RuntimeError("cannot submit to a shut-down DaskMatchExecutor")
        if fn is not play_task or len(args) != 1 or kwargs or not isinstance(args[0], MatchTask):
            return self._plain(fn, *args, **kwargs)
        task: MatchTask = args[0]
        future = _MatchFuture()
        status = getattr(self.client, "status", "running")
        if status not in ("running", "connecting", "newly-created"):  # a closed client would queue it forever
            future.set_exception(RuntimeError(f"lost the Dask scheduler (the client is {status})"))
            return future
        try:
            bundle_id = self._ensure_bundle(task) if self.ship_bots else None
            need = self.cpus_for(task)
            self._check_capacity(need)
        except Exception as error:  # noqa: BLE001 - unreadable bot files, no capacity, failed upload: the match fails
            future.set_exception(error)
            return future
        remote = self.client.submit(
            play_task_remote, task, bundle_id, logging.getLogger("arena").getEffectiveLevel(),
            key=f"arena-match-{task.config.match_id}-{uuid.uuid4().hex[:8]}", pure=False,
            resources={"cpus": need})
        future.remote = remote
        with self._lock:
            self._futures.add(future)
        remote.add_done_callback(lambda done: self._finish(task, future, done))
        return future

    def _plain(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
        future = _MatchFuture()
        remote = self.client.submit(fn, *args, pure=False, **kwargs)
        future.remote = remote

        def finish(done: Any) -> None:
            self._settle(future, lambda: done.result())

        remote.add_done_callback(finish)
        return future

    def _finish(self, task: MatchTask, future: _MatchFuture, remote: Any) -> None:
        def outcome() -> MatchReport:
            if remote.status == "cancelled":
                raise RuntimeError(f"the Dask task of match {task.config.match_id} was cancelled "
                                   "(lost the connection to the scheduler?)")
            return deliver(task, remote.result())

        self._settle(future, outcome)
        with self._lock:
            self._futures.discard(future)
        future.remote = None  # let the scheduler forget the result

    @staticmethod
    def _settle(future: Future, outcome: Callable[[], Any]) -> None:
        try:
            value = outcome()
        except BaseException as error:  # noqa: BLE001 - handed to the runner
            if not future.cancelled():
                try:
                    future.set_exception(error)
                except InvalidStateError:
                    pass
            return
        if not future.cancelled():
            try:
                future.set_result(value)
            except InvalidStateError:
                pass

    # ---- bots and resources

    def _ensure_bundle(self, task: MatchTask) -> str | None:
        """The id of a bundle holding the bots of ``task`` (and of every earlier task), registered on the
        cluster; None if their commands name no file to ship (absolute paths, programs on PATH)."""
        wanted = {(bot.cmd, task.base_dir) for bot in task.bots}
        with self._lock:
            if wanted <= self._shipped:
                return self._bundle.id if self._bundle is not None else None
            commands = sorted(self._shipped | wanted)
            bundle = build_bundle(commands, self.bundle_max_bytes)
            if not bundle.files:
                self._shipped = set(commands)
                return None
            if self._bundle is None or bundle.id != self._bundle.id:
                log.info("shipping %d bot file(s) (%d KB) to the Dask workers as bundle %s", len(bundle.files),
                         len(bundle.data) // 1024, bundle.id)
                plugin = BotBundlePlugin(bundle.id, bundle.data)
                register = getattr(self.client, "register_plugin", None)
                if register is not None:
                    register(plugin, name=plugin.name)
                else:  # distributed < 2023.9
                    self.client.register_worker_plugin(plugin, name=plugin.name)
            self._bundle = bundle
            self._shipped = set(commands)
            return bundle.id

    def _workers(self) -> dict[str, Any]:
        try:
            info = self.client.scheduler_info(n_workers=-1)
        except TypeError:  # older distributed
            info = self.client.scheduler_info()
        return info.get("workers", {})

    def capacity(self, need: float) -> int:
        """How many matches needing ``need`` cpus the cluster's workers can run at once."""
        total = 0
        for worker in self._workers().values():
            cpus = float((worker.get("resources") or {}).get("cpus", 0))
            total += min(int(cpus // need), int(worker.get("nthreads", 1) or 1))
        return total

    def _check_capacity(self, need: float) -> None:
        if need in self._capacity_ok:
            return
        if self.capacity(need) == 0:
            raise RuntimeError(
                f"no worker of the Dask cluster declares the resource cpus>={need:g} that a match needs: start "
                f"the workers with `dask worker SCHEDULER --resources cpus={max(1, int(need + 0.999))}` "
                "(or lower ARENA_DASK_CPUS_PER_MATCH)")
        self._capacity_ok.add(need)

    # ---- shutting down

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._closed:
            return
        self._closed = True
        with self._lock:
            pending = list(self._futures)
        if cancel_futures:
            for future in pending:
                future.cancel()
        elif wait:
            for future in pending:
                try:
                    future.exception()
                except BaseException:  # noqa: BLE001 - cancelled
                    pass
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()


# --------------------------------------------------------------------------- construction


def dask_executor(scheduler: str | None, jobs: int, *, cpus_per_match: int | float | str | None = None,
                  ship_bots: bool | None = None) -> DaskMatchExecutor:
    """The executor for ``--executor dask``: a client of the cluster at ``scheduler`` (``tcp://HOST:8786``),
    or of a new local cluster of ``jobs`` worker processes (one thread each) on 127.0.0.1.

    Raises :class:`DaskUnavailable` (a ``click.ClickException`` with exit code 2) if ``distributed``
    is not installed, the scheduler cannot be reached, no worker joins, or a setting is invalid.
    """
    try:
        from distributed import Client, LocalCluster  # noqa: PLC0415
    except ImportError:
        raise DaskUnavailable(f"--executor dask needs the optional Dask extra; install it with: {INSTALL_HINT}") \
            from None
    if logging.getLogger("arena").getEffectiveLevel() > logging.DEBUG:  # Dask's INFO chatter only with -vv
        for name in ("distributed", "dask"):
            if logging.getLogger(name).getEffectiveLevel() < logging.WARNING:
                logging.getLogger(name).setLevel(logging.WARNING)
    need = cpus_per_match_setting(cpus_per_match)
    ship = _flag("ARENA_DASK_SHIP_BOTS", True) if ship_bots is None else ship_bots
    max_bytes = int(_float_env("ARENA_DASK_BUNDLE_MAX_MB", 200) * 2**20)
    if scheduler is None:
        declared = MAX_PLAYERS if need == "seats" else need
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address="127.0.0.1:0", resources={"cpus": declared},
                               silence_logs=logging.ERROR)
        try:
            client = Client(cluster)
            client.register_plugin(IgnoreInterrupt())
        except BaseException:
            cluster.close()
            raise
        return DaskMatchExecutor(client, cluster=cluster, cpus_per_match=need, ship_bots=ship,
                                 bundle_max_bytes=max_bytes)
    try:
        client = Client(scheduler, timeout="15s")
    except (OSError, TimeoutError, asyncio.TimeoutError) as error:
        raise DaskUnavailable(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
    wait_s = _float_env("ARENA_DASK_WAIT_S", 60)
    try:
        client.wait_for_workers(1, timeout=wait_s)
    except (OSError, TimeoutError, asyncio.TimeoutError) as error:
        client.close()
        raise DaskUnavailable(f"no Dask worker joined the scheduler at {scheduler} within {wait_s:g} s "
                              f"({type(error).__name__}); start some with "
                              f"`dask worker {scheduler} --nthreads 1 --resources cpus=1`") from None
    executor = DaskMatchExecutor(client, cpus_per_match=need, ship_bots=ship, bundle_max_bytes=max_bytes)
    if need != "seats":
        capacity = executor.capacity(float(need))
        if capacity < jobs:
            log.warning("the Dask cluster can run %d match(es) at once now (cpus=%g each); -j %d keeps the rest "
                        "queued on the scheduler", capacity, float(need), jobs)
        elif capacity > jobs:
            log.warning("the Dask cluster can run %d matches at once but -j %d keeps only %d in flight; "
                        "pass -j %d to use it all", capacity, jobs, jobs, capacity)
    return executor
