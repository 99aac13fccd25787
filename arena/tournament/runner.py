"""Running a tournament: matches in parallel workers, each result committed as it finishes.

The runner is written against :class:`concurrent.futures.Executor`, so the local process pool
and a cluster executor share one code path. Only this (main) process writes the database; a
worker plays one match and returns its :class:`~arena.match.MatchReport`.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from arena.limits import Limits
from arena.match import MatchConfig, MatchReport
from arena.runner import BotSpec, run_match

from .config import TournamentConfig
from .schedule import ScheduledMatch, match_config
from .store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MatchTask:
    """Everything a worker needs to play one scheduled match (picklable)."""

    index: int
    bots: tuple[BotSpec, ...]
    config: MatchConfig
    replay_path: str
    log_dir: str
    base_dir: str
    limits: Limits
    isolation: str | None = None


def play_task(task: MatchTask) -> MatchReport:
    """Play one match in this (worker) process."""
    log.info("match %s starts: %s", task.config.match_id, ", ".join(b.name for b in task.bots))
    report = run_match(task.bots, task.config, replay_path=task.replay_path, base_dir=task.base_dir,
                       limits=task.limits, isolation=task.isolation, log_dir=task.log_dir)
    for seat in report.seats:
        if seat.disqualified:
            log.warning("match %s: %s disqualified (%s)", task.config.match_id, seat.name, seat.disqualified)
    log.info("match %s done: winner %s", task.config.match_id,
             report.seats[report.winner].name if report.winner is not None else "none")
    return report


def _worker_init() -> None:
    """Die with the runner (no orphan keeps playing), and end matches cleanly on SIGTERM."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux
        pass

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)


def local_executor(jobs: int) -> ProcessPoolExecutor:
    """The local pool: forked workers, so multiprocessing-logging's handler reaches them."""
    context = multiprocessing.get_context("fork")
    return ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_worker_init)


@dataclass
class Paths:
    """Where a tournament's files go: the database next to the results folder."""

    db: Path
    results: Path

    @classmethod
    def default(cls, config: TournamentConfig, db: Path | None = None, results: Path | None = None) -> Paths:
        root = Path("results")
        return cls(db=db or root / f"{config.name}.sqlite", results=results or root / config.name)

    def replay(self, match: ScheduledMatch) -> Path:
        return self.results / "replays" / f"{match.match_id}.jsonl"

    def stored_replay(self, match: ScheduledMatch) -> str:
        """The replay path as stored: relative to the database's folder when possible."""
        path = self.replay(match).resolve()
        try:
            return str(path.relative_to(self.db.resolve().parent))
        except ValueError:
            return str(path)


@dataclass
class RunSummary:
    """What one invocation of the runner did."""

    played: int = 0
    failed: dict[int, str] = field(default_factory=dict)
    interrupted: bool = False
    resumed: bool = False
    skipped: int = 0


def make_task(config: TournamentConfig, match: ScheduledMatch, paths: Paths, base_dir: Path,
              isolation: str | None) -> MatchTask:
    bots = tuple(BotSpec(name, config.bot(name).cmd) for name in match.bots)
    limits = Limits(memory_mb=config.limits.memory_mb, cpu_s=config.limits.cpu_s)
    return MatchTask(match.index, bots, match_config(config, match), str(paths.replay(match)),
                     str(paths.results / "logs"), str(base_dir), limits, isolation)


def run_tournament(
    config: TournamentConfig,
    store: Store,
    executor: Executor,
    paths: Paths,
    *,
    slots: int,
    base_dir: Path | None = None,
    isolation: str | None = None,
    on_done: Callable[[ScheduledMatch, MatchReport | None], None] | None = None,
) -> RunSummary:
    """Play every unfinished match of the tournament; commit each result when it arrives.

    At most ``slots`` matches are in flight. On KeyboardInterrupt the matches in flight are
    abandoned (marked ``aborted``: they are played again on resume) and the interrupt re-raised.
    """
    summary = RunSummary()
    pending = store.pending()
    todo = list(pending)
    todo.reverse()
    base = base_dir or Path.cwd()
    (paths.results / "replays").mkdir(parents=True, exist_ok=True)
    (paths.results / "logs").mkdir(parents=True, exist_ok=True)
    in_flight: dict[Future[MatchReport], ScheduledMatch] = {}

    def submit() -> None:
        while todo and len(in_flight) < slots:
            match = todo.pop()
            store.mark_running(match.index)
            task = make_task(config, match, paths, base, isolation)
            in_flight[executor.submit(play_task, task)] = match

    try:
        submit()
        while in_flight:
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                match = in_flight.pop(future)
                error = future.exception()
                if error is None:
                    store.record(match.index, future.result(), paths.stored_replay(match))
                    summary.played += 1
                    if on_done is not None:
                        on_done(match, future.result())
                else:
                    message = f"{type(error).__name__}: {error}"
                    log.error("match %s failed: %s", match.match_id, message)
                    store.mark_aborted(match.index, message)
                    summary.failed[match.index] = message
                    if on_done is not None:
                        on_done(match, None)
            submit()
    except KeyboardInterrupt:
        summary.interrupted = True
        for future, match in in_flight.items():
            future.cancel()
            store.mark_aborted(match.index, "interrupted")
        raise
    return summary


def stop_workers(executor: Executor, timeout_s: float = 5.0) -> None:
    """End a local pool's workers now: SIGTERM (their matches kill their bots), then SIGKILL."""
    processes = list(getattr(executor, "_processes", {}).values()) if isinstance(executor, ProcessPoolExecutor) else []
    for process in processes:
        if process.is_alive():
            os.kill(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
    executor.shutdown(wait=False, cancel_futures=True)
