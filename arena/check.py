"""``arena check``: is a bot fit to enter a tournament?

Plays the bot, as a real sandboxed process, against three in-process random bots: one match per
starting job (seat rotation), so it leads, follows, gives and receives in the exchange. Reports the
handshake, every fault kind, latency percentiles, peak memory and whether it exits cleanly.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

from sdk.bot import Bot, TurnView
from sdk.deal import initial_jobs
from sdk.protocol import Clock

from .limits import Limits
from .match import MatchConfig, MatchReport, play_match
from .process import BotPool
from .replay import ReplayWriter
from .runner import ProcessChannel
from .scripted import BotChannel


class _RandomBot(Bot):
    name = "random"

    def play(self, turn: TurnView) -> list:
        return self.rng.choice(turn.legal)


@dataclass
class CheckReport:
    """The verdict of ``arena check`` and the figures behind it."""

    cmd: str
    name: str = ""
    matches: int = 0
    turns: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    latencies_ms: list[float] = field(default_factory=list)
    peak_memory_kb: int | None = None
    exits: list[str] = field(default_factory=list)
    isolation: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def fit(self) -> bool:
        return not self.problems

    def percentile(self, q: float) -> float | None:
        if not self.latencies_ms:
            return None
        if len(self.latencies_ms) == 1:
            return self.latencies_ms[0]
        return statistics.quantiles(self.latencies_ms, n=100, method="inclusive")[int(q) - 1]


def check_bot(
    cmd: str, *, sessions: int = 8, seed: int = 1, clock: Clock | None = None, base_dir: Path | None = None,
    limits: Limits | None = None, isolation: str | None = None, log_dir: Path | None = None,
    replay_dir: Path | None = None,
) -> CheckReport:
    """Play one match per rotation (4) against random bots and judge the bot."""
    clock = clock or Clock()
    report = CheckReport(cmd)
    base = base_dir or Path.cwd()
    for rotation in range(4):
        config = MatchConfig(sessions=sessions, seed=seed, clock=clock, jobs=tuple(initial_jobs(seed, 4, rotation)),
                             match_id=f"check-r{rotation}")
        with BotPool(limits or Limits(), isolation=isolation, log_dir=log_dir) as pool:
            bot = pool.start("candidate", cmd, base,
                             log_path=log_dir / f"check-r{rotation}.stderr.log" if log_dir else None)
            channels = [ProcessChannel(pool, bot)] + [BotChannel(_RandomBot()) for _ in range(3)]
            replay = ReplayWriter(replay_dir / f"check-r{rotation}.jsonl" if replay_dir else None)
            result = play_match(channels, ["candidate", "random-1", "random-2", "random-3"], config, replay, [cmd] + [""] * 3)
        _absorb(report, result)
        if result.seats[0].disqualified:
            break  # a disqualified bot has shown enough
    _judge(report)
    return report


def _absorb(report: CheckReport, result: MatchReport) -> None:
    seat = result.seats[0]
    report.matches += 1
    report.turns += seat.moves
    report.isolation = result.seats[0].isolation or result.isolation
    name = seat.ready_name or "?"
    report.name = f"{name} {seat.version}" if seat.version else name
    for kind, count in seat.faults.items():
        report.faults[kind] = report.faults.get(kind, 0) + count
    report.latencies_ms.extend(seat.latencies_ms)
    if seat.exit.peak_memory_kb is not None:
        report.peak_memory_kb = max(report.peak_memory_kb or 0, seat.exit.peak_memory_kb)
    report.exits.append(seat.exit.status)
    if seat.disqualified:
        report.problems.append(f"disqualified in match {report.matches}: {seat.disqualified}")


def _judge(report: CheckReport) -> None:
    for kind, count in sorted(report.faults.items()):
        report.problems.append(f"{count} {kind} fault(s)")
    unclean = [status for status in report.exits if status != "exited 0"]
    if unclean:
        report.problems.append(f"did not exit cleanly after match_end ({unclean[0]})")
    report.problems = list(dict.fromkeys(report.problems))
