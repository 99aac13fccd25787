"""Tournaments end to end, with real bot processes: -j independence, kill and resume, the CLI."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from arena.replay import validate

ROOT = Path(__file__).resolve().parent.parent

TOURNAMENT = """
name: tiny
seats: 4
matches: 3
sessions: 2
rotation: true
seed: 11
bots:
  - {name: random-a, cmd: python bots/random_bot.py}
  - {name: random-b, cmd: python bots/random_bot.py}
  - {name: greedy, cmd: python bots/greedy.py}
  - {name: low-first, cmd: python bots/low_first.py}
"""


def arena(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=240, **kwargs)


@pytest.fixture()
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(TOURNAMENT)
    return path


def run_tiny(tiny: Path, where: Path, jobs: int) -> str:
    result = arena("tournament", "run", str(tiny), "-j", str(jobs), "--db", str(where / "t.sqlite"),
                   "--results", str(where / "results"), "--format", "json")
    assert result.returncode == 0, result.stderr
    return result.stdout


def statuses(db: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT idx, status FROM matches ORDER BY idx").fetchall()


def test_ratings_do_not_depend_on_worker_count(tiny: Path, tmp_path: Path) -> None:
    one = json.loads(run_tiny(tiny, tmp_path / "j1", 1))
    two = json.loads(run_tiny(tiny, tmp_path / "j2", 2))
    assert one == two
    assert [row["matches"] for row in one] == [12, 12, 12, 12]
    for replay in (tmp_path / "j2" / "results" / "replays").iterdir():
        assert validate(replay).complete


def test_killed_tournament_resumes_without_lost_or_duplicated_matches(tiny: Path, tmp_path: Path) -> None:
    """SIGKILL the runner halfway; running it again ends with every match once and equal ratings."""
    reference = json.loads(run_tiny(tiny, tmp_path / "ref", 2))
    where = tmp_path / "killed"
    db = where / "t.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", "from arena.cli import main; main()", "tournament", "run",
                             str(tiny), "-j", "2", "--db", str(db), "--results", str(where / "results")],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    done = 0
    while time.monotonic() < deadline:
        if db.exists():
            try:
                done = sum(1 for _, status in statuses(db) if status == "done")
            except sqlite3.OperationalError:
                done = 0
            if done >= 4:
                break
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 4 <= done < 12, "the kill must land halfway"
    interrupted = statuses(db)
    assert len(interrupted) == 12 and any(status != "done" for _, status in interrupted)

    resumed = json.loads(run_tiny(tiny, where, 2))
    final = statuses(db)
    assert [idx for idx, _ in final] == list(range(12))  # no match lost or duplicated
    assert all(status == "done" for _, status in final)
    assert resumed == reference
    for replay in (where / "results" / "replays").iterdir():
        assert validate(replay).complete


def test_no_bot_process_outlives_a_killed_tournament(tiny: Path, tmp_path: Path) -> None:
    token = f"tok{uuid.uuid4().hex[:10]}"  # bots ignore extra arguments; the token finds leftovers
    tiny.write_text(TOURNAMENT.replace(".py}", f".py {token}}}"))
    db = tmp_path / "t.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", "from arena.cli import main; main()", "tournament", "run",
                             str(tiny), "-j", "2", "--db", str(db), "--results", str(tmp_path / "results")],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not _processes_with(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(token), "no bot ever started"
    time.sleep(0.5)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _processes_with(token):
        time.sleep(0.1)
    assert _processes_with(token) == [], "bot processes outlived the killed tournament"


def _processes_with(token: str) -> list[int]:
    """Processes whose command line holds ``token``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if token in cmdline:
            pids.append(int(entry.name))
    return pids


def test_changed_file_is_refused_against_an_existing_database(tiny: Path, tmp_path: Path) -> None:
    run_tiny(tiny, tmp_path, 2)
    tiny.write_text(TOURNAMENT.replace("seed: 11", "seed: 12"))
    result = arena("tournament", "run", str(tiny), "--db", str(tmp_path / "t.sqlite"),
                   "--results", str(tmp_path / "results"))
    assert result.returncode == 2
    assert "seed" in result.stderr


def test_bad_file_is_refused_before_any_bot_starts(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(TOURNAMENT.replace("sessions: 2", "sesions: 2"))
    result = arena("tournament", "run", str(bad), "--db", str(tmp_path / "t.sqlite"))
    assert result.returncode == 2
    assert "bad.yaml" in result.stderr and "sesions" in result.stderr and "sessions" in result.stderr
    assert not (tmp_path / "t.sqlite").exists()


def test_status_ratings_and_publish(tiny: Path, tmp_path: Path) -> None:
    run_tiny(tiny, tmp_path, 2)
    db = str(tmp_path / "t.sqlite")
    status = arena("tournament", "status", str(tiny), "--db", db)
    assert status.returncode == 0 and "12/12 matches done" in status.stdout
    for fmt in ("table", "csv", "md", "json"):
        result = arena("ratings", db, "--format", fmt)
        assert result.returncode == 0 and "greedy" in result.stdout
    out = tmp_path / "site"
    published = arena("publish", db, "--out", str(out))
    assert published.returncode == 0, published.stderr
    assert {"ratings.csv", "ratings.md", "ratings.json"} <= {p.name for p in out.iterdir()}
    assert len(list((out / "replays").iterdir())) == 12
