"""Hostile bots in real matches (real processes, never mocked): the match completes, the right
fault is recorded, the other bots are unaffected, no process is left behind, arena memory stays bounded.
"""

from __future__ import annotations

import resource
import time
import uuid
from pathlib import Path

import pytest

from arena.limits import Limits
from arena.match import MatchConfig
from arena.replay import validate
from arena.runner import BotSpec, run_match
from sdk.protocol import Clock

ROOT = Path(__file__).resolve().parent.parent
FAST = Clock(hello_ms=5000, move_ms=300, bank_ms=300)


def leftovers(token: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def play(mode: str, tmp_path: Path, at: int = 3, limits: Limits | None = None) -> tuple:
    token = f"tok{uuid.uuid4().hex[:10]}"
    bots = [BotSpec("hostile", f"python tests/hostile/protocol_bot.py {mode} {at} {token}")] + [
        BotSpec(f"greedy{i}", "python bots/greedy.py") for i in range(3)]
    replay = tmp_path / "r.jsonl"
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report = run_match(bots, MatchConfig(sessions=2, seed=5, clock=FAST), replay_path=replay, base_dir=ROOT,
                       limits=limits or Limits(memory_mb=256), log_dir=tmp_path / "logs")
    growth_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before) / 1024
    deadline = time.monotonic() + 5
    while leftovers(token) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert leftovers(token) == [], f"{mode}: processes left behind"
    assert growth_mb < 64, f"{mode}: the arena grew by {growth_mb:.0f} MB"
    assert validate(replay).complete
    assert report.sessions_played == 2
    for seat in report.seats[1:]:  # the other bots' games are unaffected
        assert seat.fault_count == 0 and seat.disqualified is None
    return report, report.seats[0]


@pytest.mark.parametrize(("mode", "faults", "disqualified"), [
    ("hang", {"timeout": 3}, "fault limit (3) reached"),
    ("exit", {"crash": 1}, "crash"),
    ("garbage", {"malformed": 3}, "fault limit (3) reached"),
    ("close_stdout", {"crash": 1}, "crash"),
    ("stale", {"timeout": 3}, "fault limit (3) reached"),
    ("illegal", {"illegal": 3}, "fault limit (3) reached"),
])
def test_faulting_bots_are_replaced_and_disqualified(mode: str, faults: dict, disqualified: str,
                                                       tmp_path: Path) -> None:
    report, seat = play(mode, tmp_path)
    assert seat.faults == faults
    assert seat.disqualified == disqualified
    assert report.ranking[-1] == 0  # R16: below every bot that was not disqualified


def test_a_100mb_line_is_one_malformed_fault_and_memory_stays_bounded(tmp_path: Path) -> None:
    _, seat = play("long_line", tmp_path)
    assert seat.faults == {"malformed": 1} and seat.disqualified is None


def test_stderr_flood_is_capped_and_costs_nothing(tmp_path: Path) -> None:
    _, seat = play("stderr_flood", tmp_path)
    assert seat.fault_count == 0
    log = next((tmp_path / "logs").glob("*p0-hostile*"))
    assert log.stat().st_size <= Limits().stderr_bytes + 4096


def test_memory_hog_is_stopped(tmp_path: Path) -> None:
    _, seat = play("memory", tmp_path, limits=Limits(memory_mb=128))
    assert seat.disqualified is not None
    assert set(seat.faults) <= {"crash", "timeout", "malformed"} and seat.fault_count >= 1


def test_forked_children_that_ignore_sigterm_do_not_survive(tmp_path: Path) -> None:
    _, seat = play("fork", tmp_path)
    assert seat.fault_count == 0  # forking is allowed; outliving the match is not (checked in play)


def test_huge_file_is_stopped_by_the_file_size_limit(tmp_path: Path) -> None:
    _, seat = play("huge_file", tmp_path, limits=Limits(memory_mb=256, file_size_mb=8))
    assert seat.fault_count == 0
    log = next((tmp_path / "logs").glob("*p0-hostile*")).read_text()
    assert "huge file stopped" in log and "File too large" in log
