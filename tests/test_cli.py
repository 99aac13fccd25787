"""The arena command line: results, formats and exit codes (real bot processes)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main

ROOT = Path(__file__).resolve().parent.parent
GREEDY = "python bots/greedy.py"
RANDOM = "python bots/random_bot.py"


@pytest.fixture(autouse=True)
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def arena(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_every_command_has_help() -> None:
    for command in ([], ["match"], ["validate"], ["replay"], ["check"], ["tournament"], ["tournament", "run"],
                    ["tournament", "status"], ["ratings"], ["publish"]):
        result = arena(*command, "--help")
        assert result.exit_code == 0 and "Usage:" in result.output


def test_match_prints_a_result_and_writes_a_valid_replay(tmp_path: Path) -> None:
    replay = tmp_path / "r.jsonl"
    result = arena("match", GREEDY, RANDOM, "node bots/js/greedy.js", GREEDY, "--sessions", "3",
                   "--replay", str(replay), "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert sorted(row["bot"] for row in rows) == ["greedy.js", "greedy.py", "greedy.py#2", "random_bot"]
    assert sorted(row["place"] for row in rows) == [1, 2, 3, 4]
    assert all(row["faults"] == "0" for row in rows)
    valid = arena("validate", str(replay))
    assert valid.exit_code == 0 and valid.output.startswith("OK")
    account = arena("replay", str(replay))
    assert account.exit_code == 0 and "Session 3" in account.output and "Match over" in account.output


def test_rotated_match_plays_every_starting_job(tmp_path: Path) -> None:
    replay = tmp_path / "r.jsonl"
    result = arena("match", GREEDY, RANDOM, RANDOM, RANDOM, "--sessions", "1", "--rotate", "--replay", str(replay),
                   "--format", "csv")
    assert result.exit_code == 0, result.output
    replays = sorted(tmp_path.glob("r-r*.jsonl"))
    assert len(replays) == 4
    first_jobs = {tuple(json.loads(p.read_text().splitlines()[1])["jobs"]) for p in replays}
    assert len(first_jobs) == 4  # every bot held every starting job once
    assert result.stdout.splitlines()[0].startswith("place,bot,wins")


def test_match_needs_four_to_eight_bots() -> None:
    result = arena("match", GREEDY, GREEDY, GREEDY)
    assert result.exit_code == 2 and "4 to 8 bots" in result.output


def test_match_names_a_missing_bot_program() -> None:
    result = arena("match", GREEDY, GREEDY, GREEDY, "python bots/no_such_bot.py", "--sessions", "1")
    assert result.exit_code == 2 and "no_such_bot.py" in result.output


def test_validate_fails_on_a_broken_replay(tmp_path: Path) -> None:
    replay = tmp_path / "r.jsonl"
    arena("match", GREEDY, GREEDY, GREEDY, GREEDY, "--sessions", "1", "--replay", str(replay))
    lines = replay.read_text().splitlines()
    start = json.loads(lines[1])
    start["order"] = list(reversed(start["order"]))
    lines[1] = json.dumps(start)
    replay.write_text("\n".join(lines) + "\n")
    result = arena("validate", str(replay))
    assert result.exit_code == 1 and "INVALID" in result.output and "R4" in result.output


def test_check_passes_a_good_bot_and_fails_a_bad_one() -> None:
    good = arena("check", GREEDY, "--sessions", "2")
    assert good.exit_code == 0 and "FIT for a tournament" in good.output and "p95" in good.output
    bad = arena("check", "python tests/hostile/protocol_bot.py illegal 2", "--sessions", "2")
    assert bad.exit_code == 1 and "NOT FIT" in bad.output and "illegal" in bad.output


@pytest.mark.skipif(os.environ.get("ARENA_SANDBOX") == "process-group", reason="needs a namespace sandbox")
def test_check_reports_the_sandbox_in_effect() -> None:
    result = arena("check", GREEDY, "--sessions", "1")
    assert "isolation:" in result.output and "in-process" not in result.output
