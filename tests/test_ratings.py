"""TrueSkill ratings from stored results (tournament.md, 'Ratings') and the table's four formats."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pandas as pd
import pytest

from arena.match import MatchReport, SeatReport
from arena.ratings import (
    COLUMNS, format_table, match_ranks, rating_env, rating_history, ratings_from_store, ratings_table,
)
from arena.tournament.config import BotEntry, RatingConfig, TournamentConfig
from arena.tournament.schedule import ScheduledMatch, build_schedule
from arena.tournament.store import MatchResult, Store

JSON_KEYS = ["rank", "bot", "mu", "sigma", "conservative", "matches", "wins", "win_rate", "mean_place", "ceo_share",
             "faults", "disqualifications"]


def make_config(names=("champ", "b", "c", "d", "e", "f"), matches: int = 20, rotation: bool = False
                ) -> TournamentConfig:
    return TournamentConfig(name="t", bots=tuple(BotEntry(n, "python bots/greedy.py") for n in names), seats=(4,),
                            matches=matches, rotation=rotation, seed=11, sessions=3)


def make_report(m: ScheduledMatch, ranking: list[int], dq: dict[int, str] | None = None,
                faults: dict[int, int] | None = None, ceo: list[int] | None = None, sessions: int = 3) -> MatchReport:
    n = m.seats
    results = []
    ceo = ceo if ceo is not None else [ranking[0]] * sessions  # CEO of every session
    for s in range(sessions):
        jobs = [0] * n
        order = [ceo[s]] + [p for p in range(n) if p != ceo[s]]
        for place, p in enumerate(order):
            jobs[p] = place + 1
        results.append(jobs)
    seats = [SeatReport(name=name, faults={"timeout": (faults or {}).get(p, 0)} if (faults or {}).get(p) else {},
                        disqualified=(dq or {}).get(p)) for p, name in enumerate(m.bots)]
    return MatchReport(match_id=m.match_id, seed=m.seed, rules="animal-poker", jobs=list(m.jobs), ranking=ranking,
                       winner=ranking[0], sessions_played=sessions, results=results, reason="sessions", seats=seats,
                       isolation="none", duration_s=0.1)


def random_ranking(m: ScheduledMatch, rng: random.Random, champion: str | None = None) -> list[int]:
    ranking = list(range(m.seats))
    rng.shuffle(ranking)
    if champion in m.bots:
        ranking.remove(m.bots.index(champion))
        ranking.insert(0, m.bots.index(champion))
    return ranking


def fill(tmp_path: Path, name: str, config: TournamentConfig, order: list[int], rankings: list[list[int]]) -> Store:
    schedule = build_schedule(config)
    store = Store.open(tmp_path / name)
    store.init_tournament(config, schedule)
    for i in order:
        store.mark_running(i)
        store.record(i, make_report(schedule[i], rankings[i]), None)
    return store


def test_ratings_do_not_depend_on_recording_order(tmp_path: Path) -> None:
    config = make_config(rotation=True, matches=8)
    schedule = build_schedule(config)
    rng = random.Random(5)
    rankings = [random_ranking(m, rng) for m in schedule]
    shuffled = list(range(len(schedule)))
    random.Random(9).shuffle(shuffled)
    in_order = fill(tmp_path, "a.db", config, list(range(len(schedule))), rankings).results()
    out_of_order = fill(tmp_path, "b.db", config, shuffled, rankings).results()
    env = rating_env(config.rating)
    a = ratings_table(in_order, env, config.bot_names)
    pd.testing.assert_frame_equal(a, ratings_table(out_of_order, env, config.bot_names))
    # ... and the results passed in any order are rated in schedule order
    mixed = list(in_order)
    random.Random(1).shuffle(mixed)
    pd.testing.assert_frame_equal(a, ratings_table(mixed, env, config.bot_names))
    assert rating_history(mixed, env).equals(rating_history(in_order, env))


def test_a_bot_that_always_wins_ends_on_top(tmp_path: Path) -> None:
    config = make_config()
    schedule = build_schedule(config)
    rng = random.Random(2)
    store = fill(tmp_path, "r.db", config, list(range(len(schedule))),
                 [random_ranking(m, rng, "champ") for m in schedule])
    df = ratings_table(store.results(), rating_env(config.rating), config.bot_names)
    top = df.iloc[0]
    assert top["bot"] == "champ" and top["rank"] == 1
    assert top["wins"] == top["matches"] > 0 and top["win_rate"] == 1.0 and top["mean_place"] == 1.0
    assert top["ceo_share"] == 1.0
    assert list(df["rank"]) == list(range(1, 7))
    assert list(df["conservative"]) == sorted(df["conservative"], reverse=True)
    assert (df["conservative"] - (df["mu"] - 3 * df["sigma"])).abs().max() < 1e-12
    assert df["matches"].sum() == 4 * len(schedule)


def test_disqualified_bots_tie_for_last() -> None:
    m = ScheduledMatch(index=0, group=0, rotation=0, seats=4, bots=("a", "b", "c", "d"), seed=1, jobs=(1, 2, 3, 4))
    report = make_report(m, [2, 0, 3, 1], dq={3: "crash", 1: "fault limit (3) reached"}, faults={1: 3})
    result = MatchResult(index=0, group=0, rotation=0, seed=1, bots=m.bots, jobs=m.jobs, ranking=(2, 0, 3, 1),
                         winner=2, sessions_played=3, ceo_sessions=(0, 0, 3, 0), faults=(0, 3, 0, 1),
                         fault_kinds=({}, {"timeout": 3}, {}, {"crash": 1}), disqualified=(1, 3),
                         dq_reasons=(None, "fault limit (3) reached", None, "crash"), replay=None, started_at=None,
                         finished_at=None, duration_s=0.1, isolation="none", end_reason="sessions")
    assert report.ranking == list(result.ranking)
    assert match_ranks(result) == [1, 2, 0, 2]
    env = rating_env()
    df = ratings_table([result], env).set_index("bot")
    # tied (TrueSkill's iterative message passing leaves differences of ~1e-6 between tied players)
    assert df.loc["b", "mu"] == pytest.approx(df.loc["d", "mu"], abs=1e-4)
    assert df.loc["b", "sigma"] == pytest.approx(df.loc["d", "sigma"], abs=1e-4)
    assert df.loc["c", "mu"] > df.loc["a", "mu"] > df.loc["b", "mu"]
    expected = env.rate([(env.create_rating(),) for _ in range(4)], ranks=[1, 2, 0, 2])
    assert (df.loc["b", "mu"], df.loc["d", "mu"]) == (expected[1][0].mu, expected[3][0].mu)
    assert df.loc["b", "mean_place"] == df.loc["d", "mean_place"] == 3.0  # they share the last place
    assert (df.loc["b", "disqualifications"], df.loc["b", "faults"], df.loc["a", "disqualifications"]) == (1, 3, 0)


def test_rating_parameters_are_used() -> None:
    env = rating_env(RatingConfig(mu=100.0, sigma=10.0, beta=5.0, tau=0.0, draw_probability=0.1))
    assert (env.mu, env.sigma, env.beta, env.tau, env.draw_probability) == (100.0, 10.0, 5.0, 0.0, 0.1)
    df = ratings_table([], env, ["x", "y"])
    assert list(df["mu"]) == [100.0, 100.0] and list(df["matches"]) == [0, 0]
    assert df["win_rate"].isna().all()
    assert rating_env({"mu": 30}).mu == 30.0


def test_stats_per_bot(tmp_path: Path) -> None:
    config = make_config(names=("a", "b", "c", "d"), matches=2)
    schedule = build_schedule(config)
    store = Store.open(tmp_path / "s.db")
    store.init_tournament(config, schedule)
    m0, m1 = schedule
    a0, a1 = m0.bots.index("a"), m1.bots.index("a")
    store.record(0, make_report(m0, [a0] + [p for p in range(4) if p != a0], ceo=[a0, (a0 + 1) % 4, a0]), None)
    store.record(1, make_report(m1, [p for p in range(4) if p != a1] + [a1], ceo=[a1, a1, (a1 + 1) % 4]), None)
    df = ratings_table(store.results(), rating_env(), config.bot_names)
    pd.testing.assert_frame_equal(df, ratings_from_store(store))
    row = df.set_index("bot").loc["a"]
    assert (row["matches"], row["wins"], row["win_rate"], row["mean_place"]) == (2, 1, 0.5, 2.5)
    assert row["ceo_share"] == pytest.approx(4 / 6)
    history = rating_history(store.results(), rating_env(), config.bot_names)
    assert list(history.index) == [0, 1] and list(history.columns) == list(config.bot_names)
    assert history.loc[1, "a"] == pytest.approx(row["conservative"])


def test_a_match_without_a_finished_session_is_not_rated() -> None:
    m = ScheduledMatch(index=0, group=0, rotation=0, seats=4, bots=("a", "b", "c", "d"), seed=1, jobs=(1, 2, 3, 4))
    empty = MatchResult(index=0, group=0, rotation=0, seed=1, bots=m.bots, jobs=m.jobs, ranking=(), winner=None,
                        sessions_played=0, ceo_sessions=(0, 0, 0, 0), faults=(0, 0, 0, 0), fault_kinds=({},) * 4,
                        disqualified=(), dq_reasons=(None,) * 4, replay=None, started_at=None, finished_at=None,
                        duration_s=0.0, isolation="none", end_reason="aborted")
    df = ratings_table([empty], rating_env(), m.bots)
    assert list(df["matches"]) == [0, 0, 0, 0] and (df["mu"] == 25.0).all()


@pytest.fixture
def table(tmp_path: Path) -> pd.DataFrame:
    config = make_config()
    schedule = build_schedule(config)
    rng = random.Random(4)
    store = fill(tmp_path, "f.db", config, list(range(len(schedule))),
                 [random_ranking(m, rng, "champ") for m in schedule])
    return ratings_table(store.results(), rating_env(), config.bot_names + ("newcomer",))


def test_json_keys_exactly_as_specified(table: pd.DataFrame) -> None:
    assert list(COLUMNS) == JSON_KEYS == list(table.columns)
    rows = json.loads(format_table(table, "json"))
    assert isinstance(rows, list) and len(rows) == 7
    assert all(list(row) == JSON_KEYS for row in rows)
    assert rows[0]["bot"] == "champ" and rows[0]["rank"] == 1 and isinstance(rows[0]["matches"], int)
    newcomer = next(row for row in rows if row["bot"] == "newcomer")
    assert newcomer["matches"] == 0 and newcomer["win_rate"] is None and newcomer["mean_place"] is None


def test_the_four_formats(table: pd.DataFrame) -> None:
    csv = pd.read_csv(io.StringIO(format_table(table, "csv")))
    assert list(csv.columns) == JSON_KEYS and list(csv["bot"]) == list(table["bot"])
    assert csv["mu"].round(4).equals(table["mu"].round(4))

    md = format_table(table, "md").splitlines()
    assert md[0] == "| " + " | ".join(JSON_KEYS) + " |" and set(md[1]) <= set("|-:")
    assert len(md) == 2 + 7 and md[2].startswith("| 1 | champ |")

    text = format_table(table, "table").splitlines()
    assert text[0].split() == JSON_KEYS and set(text[1]) <= {"-", " "}
    assert len(text) == 2 + 7 and text[2].split()[:2] == ["1", "champ"]
    bot_column = text[0].index("bot")
    assert all(line[bot_column:].split()[0] == bot for line, bot in zip(text[2:], table["bot"]))  # aligned
    assert "100.0%" in text[2]

    assert json.loads(format_table(table, "json"))[0]["bot"] == "champ"
    with pytest.raises(ValueError, match="unknown format"):
        format_table(table, "xml")
