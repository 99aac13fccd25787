"""The results database (tournament.md, 'Running and storage'): resume, refusal, atomic writes, order."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from arena.match import MatchReport, SeatReport
from arena.tournament.config import BotEntry, TournamentConfig
from arena.tournament.schedule import ScheduledMatch, build_schedule
from arena.tournament.store import ScheduleMismatch, Store, StoreError

ROOT = Path(__file__).resolve().parent.parent


def make_config(**changes) -> TournamentConfig:
    bots = tuple(BotEntry(n, "python bots/greedy.py") for n in ("a", "b", "c", "d", "e"))
    settings = dict(name="t", bots=bots, seats=(4,), matches=3, sessions=2, seed=7)
    settings.update(changes)
    return TournamentConfig(**settings)


def make_report(m: ScheduledMatch, ranking: list[int] | None = None, dq: dict[int, str] | None = None,
                faults: dict[int, dict[str, int]] | None = None, sessions: int = 2) -> MatchReport:
    """A finished match: ``ranking`` (player ids, winner first), CEO of every session = the winner."""
    n = m.seats
    ranking = list(range(n)) if ranking is None else ranking
    final = [0] * n
    for place, p in enumerate(ranking):
        final[p] = place + 1
    seats = [SeatReport(name=name, cmd="python bots/greedy.py", faults=(faults or {}).get(p, {}),
                        disqualified=(dq or {}).get(p)) for p, name in enumerate(m.bots)]
    return MatchReport(match_id=m.match_id, seed=m.seed, rules="animal-poker", jobs=list(m.jobs), ranking=ranking,
                       winner=ranking[0], sessions_played=sessions, results=[final[:] for _ in range(sessions)],
                       reason="sessions", seats=seats, isolation="none", duration_s=1.5)


def fresh(tmp_path: Path, config: TournamentConfig | None = None) -> tuple[Store, list[ScheduledMatch]]:
    config = config or make_config()
    schedule = build_schedule(config)
    store = Store.open(tmp_path / "results.db")
    assert store.init_tournament(config, schedule) is False
    return store, schedule


def test_new_tournament_is_all_pending(tmp_path: Path) -> None:
    store, schedule = fresh(tmp_path)
    assert store.pending() == schedule  # rebuilt from the rows: same matches, seeds, seatings, jobs
    assert store.progress() == {"pending": 12, "running": 0, "done": 0, "aborted": 0, "total": 12}
    assert store.results() == []
    assert store.bots() == [(n, "python bots/greedy.py") for n in "abcde"]
    assert store.config()["seed"] == 7 and store.info()["name"] == "t"
    mode = sqlite3.connect(tmp_path / "results.db").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_record_stores_every_result_column(tmp_path: Path) -> None:
    store, schedule = fresh(tmp_path)
    m = schedule[1]
    store.mark_running(1)
    assert store.status(1) == "running"
    store.record(1, make_report(m, [2, 0, 3, 1], dq={1: "crash"}, faults={1: {"crash": 1}, 3: {"timeout": 2}}),
                 "replays/m1.jsonl")
    (r,) = store.results()
    assert (r.index, r.group, r.rotation, r.seed, r.bots, r.jobs) == (1, m.group, m.rotation, m.seed, m.bots, m.jobs)
    assert r.ranking == (2, 0, 3, 1) and r.winner == 2 and r.sessions_played == 2
    assert r.ceo_sessions == (0, 0, 2, 0)
    assert r.faults == (0, 1, 0, 2) and r.fault_kinds[3] == {"timeout": 2}
    assert r.disqualified == (1,) and r.dq_reasons == (None, "crash", None, None)
    assert r.replay == "replays/m1.jsonl" and r.duration_s == 1.5 and r.isolation == "none"
    assert r.started_at is not None and r.finished_at is not None and r.end_reason == "sessions"
    row = sqlite3.connect(tmp_path / "results.db").execute(
        "SELECT status, faults, disqualified FROM matches WHERE idx=1").fetchone()
    assert row[0] == "done" and json.loads(row[1])[3] == {"count": 2, "kinds": {"timeout": 2}}
    assert json.loads(row[2]) == [None, "crash", None, None]
    assert 1 not in [p.index for p in store.pending()]


def test_resume_keeps_done_matches(tmp_path: Path) -> None:
    store, schedule = fresh(tmp_path)
    for i in (0, 1, 5):
        store.record(i, make_report(schedule[i]), f"r{i}.jsonl")
    store.close()
    config = make_config(name="renamed", rating=make_config().rating.__class__(mu=30.0))  # outside the fingerprint
    again = Store.open(tmp_path / "results.db")
    assert again.init_tournament(config, build_schedule(config)) is True
    assert [r.index for r in again.results()] == [0, 1, 5]
    assert [m.index for m in again.pending()] == [i for i in range(12) if i not in (0, 1, 5)]
    assert again.progress()["done"] == 3
    assert again.config()["rating"]["mu"] == 30.0 and again.info()["name"] == "renamed"


@pytest.mark.parametrize(("change", "expected"), [
    (dict(seats=(5,)), "seats [4] -> [5]"),
    (dict(seed=8), "seed 7 -> 8"),
    (dict(matches=4), "matches 3 -> 4"),
    (dict(bots=tuple(BotEntry(n, "python bots/greedy.py") for n in "abcdf")), "bots (added f; removed e)"),
    (dict(bots=tuple(BotEntry(n, "python bots/low_first.py" if n == "c" else "python bots/greedy.py")
                     for n in "abcde")), "bots (changed the cmd of c)"),
])
def test_changed_file_is_refused(tmp_path: Path, change: dict, expected: str) -> None:
    store, schedule = fresh(tmp_path)
    store.record(0, make_report(schedule[0]), None)
    store.close()
    changed = make_config(**change)
    again = Store.open(tmp_path / "results.db")
    with pytest.raises(ScheduleMismatch) as info:
        again.init_tournament(changed, build_schedule(changed))
    message = str(info.value)
    assert expected in message and "revert the file" in message and "new --db" in message
    assert again.progress()["done"] == 1  # nothing was touched


def test_running_and_aborted_rows_come_back_as_pending(tmp_path: Path) -> None:
    store, schedule = fresh(tmp_path)
    store.mark_running(0)
    store.mark_running(1)
    store.mark_aborted(1, "worker died")
    store.mark_running(2)
    store.record(2, make_report(schedule[2]), None)
    assert store.progress() == {"pending": 9, "running": 1, "done": 1, "aborted": 1, "total": 12}
    store.close()  # as after a kill: 0 was running, 1 aborted
    again = Store.open(tmp_path / "results.db")
    again.init_tournament(make_config(), build_schedule(make_config()))
    pending = again.pending()
    assert [m.index for m in pending][:3] == [0, 1, 3] and len(pending) == 11
    assert pending[0] == schedule[0]


def test_results_in_schedule_order_whatever_the_recording_order(tmp_path: Path) -> None:
    store, schedule = fresh(tmp_path)
    order = list(range(12))
    random.Random(3).shuffle(order)
    for i in order:
        store.mark_running(i)
        store.record(i, make_report(schedule[i], ranking=[3, 2, 1, 0]), f"r{i}.jsonl")
    assert [r.index for r in store.results()] == list(range(12))
    df = store.results_frame()
    assert isinstance(df, pd.DataFrame) and list(df["index"]) == list(range(12))
    assert store.pending() == [] and store.progress()["done"] == 12


def test_done_matches_are_not_played_again(tmp_path: Path) -> None:
    store, schedule = fresh(tmp_path)
    store.record(0, make_report(schedule[0]), "r0.jsonl")
    with pytest.raises(StoreError, match="already done"):
        store.mark_running(0)
    assert store.mark_aborted(0, "late abort from a retried worker") is False
    assert store.status(0) == "done" and store.results()[0].replay == "r0.jsonl"
    assert store.mark_aborted(1, "boom") is True and store.status(1) == "aborted"


def test_a_report_for_other_bots_is_refused(tmp_path: Path) -> None:
    store, schedule = fresh(tmp_path)
    with pytest.raises(StoreError, match="scheduled for"):
        store.record(0, make_report(schedule[1] if schedule[1].bots != schedule[0].bots else schedule[4]), None)
    with pytest.raises(StoreError, match="not in the schedule"):
        store.mark_running(99)
    assert store.status(0) == "pending"


def test_sigkill_mid_writes_leaves_a_consistent_db(tmp_path: Path) -> None:
    """A writer killed at a random moment: every row is either fully done or not done at all."""
    db = tmp_path / "results.db"
    config = make_config(matches=2500)  # 10,000 matches: far more than can be written before the kill
    store = Store.open(db)
    store.init_tournament(config, build_schedule(config))
    store.close()
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r}); sys.path.insert(0, {str(ROOT / 'tests')!r})
        from test_store import make_config, make_report
        from arena.tournament.schedule import build_schedule
        from arena.tournament.store import Store
        config = make_config(matches=2500)
        schedule = build_schedule(config)
        store = Store.open({str(db)!r})
        store.init_tournament(config, schedule)
        print("ready", flush=True)
        for m in schedule:
            store.mark_running(m.index)
            store.record(m.index, make_report(m, ranking=[1, 0, 3, 2]), "r.jsonl")
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    time.sleep(random.uniform(0.2, 0.5))
    proc.kill()
    proc.wait()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    done = conn.execute("SELECT COUNT(*) FROM matches WHERE status='done'").fetchone()[0]
    half = conn.execute("SELECT COUNT(*) FROM matches WHERE status='done' AND (ranking IS NULL OR faults IS NULL "
                        "OR finished_at IS NULL)").fetchone()[0]
    assert half == 0
    running = conn.execute("SELECT COUNT(*) FROM matches WHERE status='running'").fetchone()[0]
    assert running <= 1
    again = Store.open(db)
    again.init_tournament(config, build_schedule(config))
    assert len(again.results()) == done and len(again.pending()) == 10_000 - done
    assert [r.index for r in again.results()] == list(range(done))
    assert 0 < done < 10_000  # the kill did land in the middle of the writes
