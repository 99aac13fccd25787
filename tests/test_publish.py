"""arena publish: rating files and the replays of a results database."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from arena.match import MatchReport, SeatReport
from arena.publish import publish
from arena.ratings import format_table, rating_env, ratings_table
from arena.tournament.config import BotEntry, RatingConfig, TournamentConfig
from arena.tournament.schedule import ScheduledMatch, build_schedule
from arena.tournament.store import Store


def make_report(m: ScheduledMatch, ranking: list[int]) -> MatchReport:
    final = [0] * m.seats
    for place, p in enumerate(ranking):
        final[p] = place + 1
    return MatchReport(match_id=m.match_id, seed=m.seed, rules="animal-poker", jobs=list(m.jobs), ranking=ranking,
                       winner=ranking[0], sessions_played=1, results=[final], reason="sessions",
                       seats=[SeatReport(name=b) for b in m.bots], isolation="none", duration_s=0.2)


@pytest.fixture
def db(tmp_path: Path) -> tuple[Path, TournamentConfig]:
    config = TournamentConfig(name="pub", bots=tuple(BotEntry(n, "python bots/greedy.py") for n in "abcde"),
                              seats=(4,), matches=2, seed=3, rating=RatingConfig(mu=30.0, sigma=10.0))
    schedule = build_schedule(config)
    path = tmp_path / "run" / "results.db"
    store = Store.open(path)
    store.init_tournament(config, schedule)
    for m in schedule[:6]:
        replay = tmp_path / "run" / "replays" / str(m.index) / "match.jsonl"  # same names, different folders
        replay.parent.mkdir(parents=True, exist_ok=True)
        replay.write_text(json.dumps({"event": "match_start", "match_id": m.match_id}) + "\n")
        store.record(m.index, make_report(m, [3, 2, 1, 0]), replay)
    m = schedule[6]
    store.record(m.index, make_report(m, [0, 1, 2, 3]), tmp_path / "gone.jsonl")  # a replay that was deleted
    m = schedule[7]
    (tmp_path / "run" / "rel.jsonl").write_text("{}\n")
    store.record(m.index, make_report(m, [0, 1, 2, 3]), "rel.jsonl")  # relative: found next to the database
    store.close()
    return path, config


def test_publish_writes_the_rating_files(db: tuple[Path, TournamentConfig], tmp_path: Path) -> None:
    path, config = db
    out = tmp_path / "site"
    result = publish(path, out)
    for name in ("ratings.csv", "ratings.md", "ratings.json", "matches.json"):
        assert (out / name).is_file()
    with Store.open(path) as store:
        df = ratings_table(store.results(), rating_env(config.rating), config.bot_names)
    assert (out / "ratings.json").read_text() == format_table(df, "json")
    assert (out / "ratings.md").read_text() == format_table(df, "md")
    assert list(pd.read_csv(out / "ratings.csv")["bot"]) == list(df["bot"])
    rows = json.loads((out / "ratings.json").read_text())
    assert {row["bot"] for row in rows} == set("abcde") and sum(row["matches"] for row in rows) == 32
    assert max(row["mu"] for row in rows) > 30.0  # the stored rating parameters were used (mu starts at 30)
    assert result.files[0] == out / "ratings.csv"


def test_publish_copies_replays_with_unique_names(db: tuple[Path, TournamentConfig], tmp_path: Path) -> None:
    path, _ = db
    out = tmp_path / "site"
    old = Path.cwd()
    os.chdir(tmp_path)  # relative replay paths fall back to the database's folder
    try:
        result = publish(path, out)
    finally:
        os.chdir(old)
    copies = sorted(p.name for p in (out / "replays").iterdir())
    assert len(copies) == len(set(copies)) == 7
    assert "match.jsonl" in copies and "rel.jsonl" in copies
    assert result.missing == {6: str(tmp_path / "gone.jsonl")}
    for index, copy in result.replays.items():
        if index < 6:
            assert json.loads(copy.read_text())["match_id"].startswith(f"m{index:05d}")
    matches = json.loads((out / "matches.json").read_text())["matches"]
    assert [m["index"] for m in matches] == list(range(8))
    assert matches[6]["replay"] is None and matches[7]["replay"] == "replays/rel.jsonl"
    assert all((out / m["replay"]).is_file() for m in matches if m["replay"])
    with Store.open(path) as store:  # two matches pointing to one file: copied once
        shared = tmp_path / "run" / "replays" / "0" / "match.jsonl"
        store.record(7, make_report(build_schedule(db[1])[7], [0, 1, 2, 3]), shared)
    result = publish(path, out)  # publishing again overwrites cleanly
    assert result.replays[7] == result.replays[0]
    assert len(list((out / "replays").iterdir())) == 7  # the old copy of rel.jsonl stays


def test_publish_needs_a_database(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        publish(tmp_path / "none.db", tmp_path / "out")
