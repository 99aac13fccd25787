"""The ``arena`` command line (click).

Exit codes: 0 success; 1 the thing checked failed (an invalid replay, a bot not fit, matches that
could not be played); 2 bad usage or a bad input file (click's convention); 130 interrupted.
"""

from __future__ import annotations

import logging
import os
import shlex
import sys
from pathlib import Path

import click

from sdk.protocol import Clock
from sdk.rules import PRESETS

from .tables import FORMATS, render

log = logging.getLogger("arena")
FORMAT_OPTION = click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True,
                             help="Output format of the table.")


def _setup_logging(verbose: int, log_file: str | None) -> None:
    level = logging.WARNING - 10 * min(verbose, 2)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        handlers.append(logging.FileHandler(log_file))
    logging.basicConfig(level=level, handlers=handlers, force=True,
                        format="%(asctime)s %(processName)s %(name)s %(levelname)s: %(message)s")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="animal-poker-arena")
@click.option("-v", "--verbose", count=True, help="More log output (-v info, -vv debug).")
@click.option("--log-file", type=click.Path(dir_okay=False), help="Also write the log to this file.")
def main(verbose: int, log_file: str | None) -> None:
    """Animal Poker arena: run bots, matches and tournaments, and rate the bots."""
    _setup_logging(verbose, log_file)


# --------------------------------------------------------------------------------------- match
def _bot_names(cmds: tuple[str, ...]) -> list[str]:
    """Short display names from commands ('python bots/greedy.py' -> 'greedy'), made unique.

    Two different programs with one stem keep their suffix (greedy.py, greedy.js); copies of one
    command are numbered (greedy, greedy#2).
    """
    scripts = []
    for cmd in cmds:
        words = shlex.split(cmd) or ["bot"]
        scripts.append(Path(next((w for w in reversed(words) if not w.startswith("-")), words[0])))
    stems = [s.stem or "bot" for s in scripts]
    names: list[str] = []
    for script, stem in zip(scripts, stems):
        clash = any(other.stem == stem and other.name != script.name for other in scripts)
        base = script.name if clash else stem
        name, k = base, 2
        while name in names:
            name, k = f"{base}#{k}", k + 1
        names.append(name)
    return names


def _rotated_path(path: str | None, rotation: int, rotations: int) -> str | None:
    if path is None or rotations == 1:
        return path
    p = Path(path)
    return str(p.with_name(f"{p.stem}-r{rotation}{p.suffix}"))


@main.command()
@click.argument("cmds", nargs=-1, required=True)
@click.option("--sessions", type=click.IntRange(min=1), default=8, show_default=True, help="Sessions per match (R14).")
@click.option("--duration", help="Timed match instead: e.g. 90s, 2m, 1h (the running session is finished).")
@click.option("--seed", type=int, default=0, show_default=True, help="Match seed (deals, first jobs, bot seeds).")
@click.option("--rules", type=click.Choice(sorted(PRESETS)), default="animal-poker", show_default=True)
@click.option("--rotate", is_flag=True, help="Play once per rotation of the starting jobs (duplicate deals).")
@click.option("--replay", type=click.Path(dir_okay=False), help="Write the replay here (-rK per rotation).")
@click.option("--move-ms", type=click.IntRange(min=1), default=1000, show_default=True, help="Time per move.")
@click.option("--bank-ms", type=click.IntRange(min=0), default=10000, show_default=True, help="Time bank per match.")
@click.option("--hello-ms", type=click.IntRange(min=1), default=10000, show_default=True, help="Time to answer hello.")
@click.option("--fault-limit", type=click.IntRange(min=1), default=3, show_default=True)
@click.option("--memory-mb", type=click.IntRange(min=16), default=1024, show_default=True)
@click.option("--log-dir", type=click.Path(file_okay=False), help="Keep each bot's stderr log here.")
@click.option("--isolation", type=click.Choice(["auto", "bubblewrap", "unshare", "process-group"]), default="auto",
              show_default=True, help="Sandbox level (auto: the strongest this machine allows).")
@FORMAT_OPTION
def match(cmds: tuple[str, ...], sessions: int, duration: str | None, seed: int, rules: str, rotate: bool,
          replay: str | None, move_ms: int, bank_ms: int, hello_ms: int, fault_limit: int, memory_mb: int,
          log_dir: str | None, isolation: str, fmt: str) -> None:
    """Play one match between 4 to 8 bot commands (CMD: e.g. "python bots/greedy.py") and print the result."""
    from .limits import Limits
    from .match import MatchConfig
    from .process import BotCommandError
    from .runner import BotSpec, run_match
    from .tournament.config import ConfigError, parse_duration
    from sdk.deal import initial_jobs

    if not 4 <= len(cmds) <= 8:
        raise click.UsageError(f"a match needs 4 to 8 bots (R1), not {len(cmds)}")
    duration_s = None
    if duration is not None:
        try:
            duration_s = parse_duration(duration)
        except (ConfigError, ValueError) as error:
            raise click.BadParameter(str(error), param_hint="--duration") from None
    names = _bot_names(cmds)
    bots = [BotSpec(name, cmd) for name, cmd in zip(names, cmds)]
    clock = Clock(hello_ms=hello_ms, move_ms=move_ms, bank_ms=bank_ms)
    rotations = len(cmds) if rotate else 1
    reports = []
    with click.progressbar(range(rotations), label="matches", file=sys.stderr) if rotations > 1 else _noop(range(1)) as bar:
        for rotation in bar:
            config = MatchConfig(rules=rules, sessions=None if duration_s else sessions, duration_s=duration_s,
                                 seed=seed, clock=clock, fault_limit=fault_limit,
                                 jobs=tuple(initial_jobs(seed, len(cmds), rotation)) if rotate else None,
                                 match_id=f"match-r{rotation}" if rotate else "match")
            try:
                reports.append(run_match(bots, config, replay_path=_rotated_path(replay, rotation, rotations),
                                         limits=Limits(memory_mb=memory_mb), log_dir=log_dir,
                                         isolation=None if isolation == "auto" else isolation))
            except BotCommandError as error:
                raise click.BadParameter(str(error), param_hint="CMD") from None
    click.echo(render(_result_rows(names, reports), RESULT_COLUMNS, fmt), nl=False)
    if fmt == "table":
        report = reports[-1]
        click.echo(f"\n{len(reports)} match(es), {sum(r.sessions_played for r in reports)} sessions, "
                   f"isolation: {report.isolation}" + (f", replay: {replay}" if replay else ""))


class _noop:
    def __init__(self, items): self.items = items
    def __enter__(self): return self.items
    def __exit__(self, *exc): return False


RESULT_COLUMNS = ("place", "bot", "wins", "mean_place", "ceo_sessions", "faults", "disqualified", "ms_per_move",
                  "max_ms", "bank_left_ms")


def _result_rows(names: list[str], reports: list) -> list[dict]:
    """One row per bot over one or more matches (R15 places; faults by kind)."""
    rows = []
    for player, name in enumerate(names):
        places = [r.ranking.index(player) + 1 for r in reports if r.ranking]
        latencies = [ms for r in reports for ms in r.seats[player].latencies_ms]
        kinds: dict[str, int] = {}
        for r in reports:
            for kind, count in r.seats[player].faults.items():
                kinds[kind] = kinds.get(kind, 0) + count
        dq = [r.seats[player].disqualified for r in reports if r.seats[player].disqualified]
        rows.append({
            "place": places[0] if len(places) == 1 else None,
            "bot": name,
            "wins": sum(1 for r in reports if r.winner == player),
            "mean_place": round(sum(places) / len(places), 2) if places else None,
            "ceo_sessions": sum(r.ceo_sessions(player) for r in reports),
            "faults": ", ".join(f"{k}:{v}" for k, v in sorted(kinds.items())) or "0",
            "disqualified": "; ".join(dq) or "no",
            "ms_per_move": round(sum(latencies) / len(latencies), 1) if latencies else None,
            "max_ms": round(max(latencies), 1) if latencies else None,
            "bank_left_ms": round(min(r.seats[player].bank_left_ms for r in reports)),
        })
    rows.sort(key=lambda row: (row["mean_place"] is None, row["mean_place"] or 0, row["bot"]))
    return rows


# ---------------------------------------------------------------------------- replays
@main.command()
@click.argument("replays", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
def validate(replays: tuple[str, ...]) -> None:
    """Re-check replays against the rules with the engine; name the first rule each one breaks."""
    from .replay import ReplayError, validate as check

    bad = 0
    for path in replays:
        try:
            summary = check(path)
        except ReplayError as error:
            bad += 1
            click.echo(f"INVALID {path}: {error}")
        else:
            state = "complete" if summary.complete else "incomplete (a valid prefix: the match did not finish)"
            click.echo(f"OK {path}: {summary.sessions} session(s), {summary.plays} plays, {state}")
    raise SystemExit(1 if bad else 0)


@main.command()
@click.argument("replay_file", metavar="REPLAY", type=click.Path(exists=True, dir_okay=False))
@click.option("--html", "html_out", type=click.Path(dir_okay=False),
              help="Write a self-contained HTML viewer of REPLAY to this file instead of printing the account.")
def replay(replay_file: str, html_out: str | None) -> None:
    """Print a readable account of REPLAY, session by session, round by round (--html: a viewer page)."""
    if html_out:
        from .site import write_replay_html

        click.echo(f"wrote {write_replay_html(replay_file, html_out)}")
        return
    from .account import account
    from .replay import ReplayError

    try:
        for line in account(replay_file):
            click.echo(line)
    except ReplayError as error:
        raise click.ClickException(f"{replay_file}: {error}") from None


# ----------------------------------------------------------------------------- check
@main.command()
@click.argument("cmd")
@click.option("--sessions", type=click.IntRange(min=1), default=8, show_default=True, help="Sessions per match (4 matches).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--move-ms", type=click.IntRange(min=1), default=1000, show_default=True)
@click.option("--bank-ms", type=click.IntRange(min=0), default=10000, show_default=True)
@click.option("--log-dir", type=click.Path(file_okay=False), help="Keep the bot's stderr logs here.")
def check(cmd: str, sessions: int, seed: int, move_ms: int, bank_ms: int, log_dir: str | None) -> None:
    """Check that the bot CMD is fit for a tournament (exit code 1 if not)."""
    from .check import check_bot
    from .process import BotCommandError

    try:
        report = check_bot(cmd, sessions=sessions, seed=seed, clock=Clock(move_ms=move_ms, bank_ms=bank_ms),
                           log_dir=Path(log_dir) if log_dir else None)
    except BotCommandError as error:
        raise click.BadParameter(str(error), param_hint="CMD") from None

    def fmt(ms: float | None) -> str:
        return "-" if ms is None else f"{ms:.1f} ms"

    click.echo(f"bot:        {report.name or '?'} ({cmd})")
    click.echo(f"isolation:  {report.isolation}")
    click.echo(f"handshake:  {'no ready in time' if 'no_hello' in report.faults else 'ok'}")
    click.echo(f"played:     {report.matches} match(es), {report.turns} turns against random bots")
    faults = ", ".join(f"{k}: {v}" for k, v in sorted(report.faults.items())) or "none"
    click.echo(f"faults:     {faults}")
    click.echo(f"latency:    p50 {fmt(report.percentile(50))}, p95 {fmt(report.percentile(95))}, "
               f"max {fmt(max(report.latencies_ms) if report.latencies_ms else None)}")
    peak = f"{report.peak_memory_kb / 1024:.1f} MiB" if report.peak_memory_kb else "unknown"
    click.echo(f"memory:     peak {peak}")
    click.echo(f"exit:       {', '.join(sorted(set(report.exits)))}")
    if report.fit:
        click.echo("verdict:    FIT for a tournament")
        return
    click.echo("verdict:    NOT FIT: " + "; ".join(report.problems))
    raise SystemExit(1)


# ------------------------------------------------------------------------ tournaments
@main.group()
def tournament() -> None:
    """Run tournaments described by YAML files (see tournaments/)."""


def _load(file: str):
    from .tournament.config import ConfigError, load_config

    try:
        return load_config(file)
    except ConfigError as error:
        raise click.UsageError(str(error)) from None


@tournament.command("run")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="all cores",
              help="Matches played in parallel.")
@click.option("--db", type=click.Path(dir_okay=False), help="Results database [default: results/NAME.sqlite].")
@click.option("--results", type=click.Path(file_okay=False), help="Replays and logs [default: results/NAME/].")
@click.option("--executor", type=click.Choice(["local", "dask"]), default="local", show_default=True)
@click.option("--scheduler", help="Dask scheduler address (tcp://HOST:8786); default: a local cluster.")
@click.option("--isolation", type=click.Choice(["auto", "bubblewrap", "unshare", "process-group"]), default="auto",
              show_default=True)
@click.option("--progress/--no-progress", default=True, help="Show a progress bar on stderr.")
@FORMAT_OPTION
def tournament_run(file: str, jobs: int, db: str | None, results: str | None, executor: str, scheduler: str | None,
                   isolation: str, progress: bool, fmt: str) -> None:
    """Run (or resume) the tournament FILE and print its rating table."""
    from .tournament.console import run_from_cli

    config = _load(file)
    code = run_from_cli(config, jobs=jobs, db=Path(db) if db else None, results=Path(results) if results else None,
                        executor_kind=executor, scheduler=scheduler,
                        isolation=None if isolation == "auto" else isolation, progress=progress, fmt=fmt)
    raise SystemExit(code)


@tournament.command("status")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--db", type=click.Path(dir_okay=False), help="Results database [default: results/NAME.sqlite].")
def tournament_status(file: str, db: str | None) -> None:
    """Show how far the tournament FILE has got."""
    from .tournament.runner import Paths
    from .tournament.store import Store

    config = _load(file)
    paths = Paths.default(config, Path(db) if db else None)
    if not paths.db.exists():
        click.echo(f"{config.name}: not started ({paths.db} does not exist); {config.total_matches()} matches scheduled")
        return
    with Store.open(paths.db) as store:
        progress = store.progress()
        aborted = store.aborted()
    total = progress["total"]
    click.echo(f"{config.name}: {progress['done']}/{total} matches done ({100 * progress['done'] / max(total, 1):.0f}%), "
               f"{progress['pending']} pending, {progress['running']} running, {progress['aborted']} aborted "
               f"[{paths.db}]")
    for idx, error in aborted:
        click.echo(f"  match {idx}: {error}")


@main.command()
@click.argument("db", type=click.Path(exists=True, dir_okay=False))
@FORMAT_OPTION
def ratings(db: str, fmt: str) -> None:
    """Print the TrueSkill rating table of the results database DB."""
    from .ratings import format_table, ratings_from_store
    from .tournament.store import Store

    with Store.open(db) as store:
        table = ratings_from_store(store)
    click.echo(format_table(table, fmt), nl=False)


@main.command()
@click.argument("db", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output folder.")
def publish(db: str, out_dir: str) -> None:
    """Write ratings.csv/.md/.json, the replays and a static site (index.html, bot pages, replay viewer)
    of the results database DB to a folder that opens from disk with no server."""
    from .publish import publish as write

    result = write(db, out_dir)
    click.echo(f"wrote {len(result.files)} file(s) and {len(result.replays)} replay(s) to {result.out_dir}")
    if result.missing:
        click.echo(f"warning: {len(result.missing)} replay(s) missing", err=True)
