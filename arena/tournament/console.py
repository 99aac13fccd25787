"""``arena tournament run``: the runner with a progress bar, shared logging and clean Ctrl-C."""

from __future__ import annotations

import logging
import sys
import time
from collections import Counter
from pathlib import Path

import click

from arena.match import MatchReport
from arena.ratings import format_table, ratings_from_store

from .config import TournamentConfig
from .runner import Paths, RunSummary, local_executor, run_tournament, stop_workers
from .schedule import ScheduledMatch, build_schedule
from .store import ScheduleMismatch, Store, StoreError

log = logging.getLogger(__name__)


class Progress:
    """Progress bar on stderr: matches done, rate, time left (click's ETA) and the current leader."""

    def __init__(self, total: int, done: int, enabled: bool) -> None:
        self.wins: Counter[str] = Counter()
        self.started = time.monotonic()
        self.played = 0
        self.total = total
        self.done = done
        self.enabled = enabled
        interactive = sys.stderr.isatty()
        self.bar = click.progressbar(length=total, label="matches", file=sys.stderr, show_pos=True, show_eta=True,
                                     item_show_func=lambda _: self.status()) if enabled and interactive else None
        self.step = max(1, -(-total // 10))  # without a terminal: a plain line every 10%
        if self.bar is not None:
            self.bar.__enter__()
            self.bar.update(done)

    def status(self) -> str:
        rate = self.played / max(time.monotonic() - self.started, 1e-9) * 60
        leader = f", leader: {self.wins.most_common(1)[0][0]}" if self.wins else ""
        return f"{rate:.1f}/min{leader}"

    def advance(self, match: ScheduledMatch, report: MatchReport | None) -> None:
        self.played += 1
        if report is not None and report.winner is not None:
            self.wins[report.seats[report.winner].name] += 1
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.enabled and (self.done % self.step == 0 or self.done == self.total):
            click.echo(f"matches {self.done}/{self.total}, {self.status()}", err=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


def _executor(kind: str, jobs: int, scheduler: str | None):
    if kind == "dask":
        from .dask_executor import dask_executor  # noqa: PLC0415 (optional extra)

        return dask_executor(scheduler, jobs)
    return local_executor(jobs)


def run_from_cli(
    config: TournamentConfig, *, jobs: int, db: Path | None, results: Path | None, executor_kind: str = "local",
    scheduler: str | None = None, isolation: str | None = None, progress: bool = True, fmt: str = "table",
) -> int:
    """Run or resume the tournament; print the rating table. Returns the exit code."""
    paths = Paths.default(config, db, results)
    schedule = build_schedule(config)
    try:
        store = Store.open(paths.db)
        resumed = store.init_tournament(config, schedule)
    except ScheduleMismatch as error:
        click.echo(f"error: {error}", err=True)
        return 2
    except StoreError as error:
        click.echo(f"error: {paths.db}: {error}", err=True)
        return 2
    with store:
        counts = store.progress()
        if resumed:
            click.echo(f"resuming {config.name}: {counts['done']}/{counts['total']} matches already done", err=True)
        summary = None
        if counts["done"] < counts["total"]:
            summary = _run(config, store, paths, counts, jobs=jobs, executor_kind=executor_kind, scheduler=scheduler,
                           isolation=isolation, progress=progress)
            if summary is None:
                return 130
        click.echo(format_table(ratings_from_store(store), fmt), nl=False)
        if summary is not None and summary.failed:
            click.echo(f"{len(summary.failed)} match(es) could not be played (see `arena tournament status`); "
                       "run the same command again to retry them", err=True)
            return 1
    return 0


def _run(config: TournamentConfig, store: Store, paths: Paths, counts: dict[str, int], *, jobs: int,
         executor_kind: str, scheduler: str | None, isolation: str | None, progress: bool) -> RunSummary | None:
    """Play the unfinished matches; None if interrupted."""
    import multiprocessing_logging

    executor = _executor(executor_kind, jobs, scheduler)
    multiprocessing_logging.install_mp_handler()
    bar = Progress(counts["total"], counts["done"], progress)
    try:
        summary = run_tournament(config, store, executor, paths, slots=jobs, base_dir=Path.cwd(),
                                 isolation=isolation, on_done=bar.advance)
    except KeyboardInterrupt:
        bar.close()
        stop_workers(executor)
        click.echo(f"\ninterrupted: finished matches are saved in {paths.db}; run the same command to resume",
                   err=True)
        return None
    finally:
        multiprocessing_logging.uninstall_mp_handler()
    executor.shutdown(wait=True)
    bar.close()
    return summary
