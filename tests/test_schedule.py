"""The schedule (tournament.md, 'Schedule'): balanced, varied, rotated, deterministic."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.tournament.config import BotEntry, TournamentConfig
from arena.tournament.schedule import ScheduledMatch, build_schedule, group_seed, match_config
from sdk.deal import initial_jobs


def make(n_bots: int, seats=(4,), matches: int = 10, rotation: bool = True, seed: int = 2026) -> TournamentConfig:
    bots = tuple(BotEntry(f"bot{i}", "python bots/greedy.py") for i in range(n_bots))
    return TournamentConfig(name="t", bots=bots, seats=tuple(seats), matches=matches, rotation=rotation, seed=seed)


@st.composite
def configs(draw) -> TournamentConfig:
    n_bots = draw(st.integers(4, 12))
    sizes = st.integers(4, min(8, n_bots))
    seats = draw(st.lists(sizes, min_size=1, max_size=3))
    return make(n_bots, seats, draw(st.integers(1, 30)), draw(st.booleans()), draw(st.integers(-10**9, 10**9)))


def groups(schedule: list[ScheduledMatch]) -> dict[int, list[ScheduledMatch]]:
    out: dict[int, list[ScheduledMatch]] = {}
    for m in schedule:
        out.setdefault(m.group, []).append(m)
    return out


@settings(max_examples=60, deadline=None)
@given(configs())
def test_shape_and_seat_lists(config: TournamentConfig) -> None:
    schedule = build_schedule(config)
    assert [m.index for m in schedule] == list(range(len(schedule)))
    assert len(schedule) == config.total_matches()
    by_group = groups(schedule)
    assert sorted(by_group) == list(range(config.matches))
    for g, matches in by_group.items():
        k = config.seats[g % len(config.seats)]  # seats lists cycle by group
        assert all(m.seats == k == len(m.bots) == len(set(m.bots)) for m in matches)
        assert set(matches[0].bots) <= set(config.bot_names)


@settings(max_examples=60, deadline=None)
@given(configs())
def test_games_per_bot_stay_balanced(config: TournamentConfig) -> None:
    schedule = build_schedule(config)
    played = Counter({name: 0 for name in config.bot_names})
    played.update(b for m in schedule for b in m.bots)
    # Matches played differ by at most one group's worth: a group is `seats` matches with rotation.
    worth = max(config.seats) if config.rotation else 1
    assert max(played.values()) - min(played.values()) <= worth
    if len(set(config.seats)) == 1:  # one group size: groups played per bot differ by at most 1
        in_groups = Counter({name: 0 for name in config.bot_names})
        in_groups.update(b for ms in groups(schedule).values() for b in ms[0].bots)
        assert max(in_groups.values()) - min(in_groups.values()) <= 1


@settings(max_examples=25, deadline=None)
@given(st.integers(-10**9, 10**9))
def test_opponents_vary(seed: int) -> None:
    config = make(8, (4,), matches=40, rotation=False, seed=seed)
    met = Counter()
    for m in build_schedule(config):
        met.update(frozenset(pair) for pair in combinations(m.bots, 2))
    assert all(met[frozenset(pair)] >= 1 for pair in combinations(config.bot_names, 2))
    # ... and fairly evenly: 40 groups x 6 pairs over 28 pairs is about 8.6 meetings each
    assert max(met.values()) - min(met.values()) <= 2


@settings(max_examples=40, deadline=None)
@given(configs())
def test_rotation_gives_every_bot_every_starting_job(config: TournamentConfig) -> None:
    schedule = build_schedule(config)
    for g, matches in groups(schedule).items():
        k = matches[0].seats
        if not config.rotation:
            assert len(matches) == 1 and matches[0].rotation == 0
            assert matches[0].jobs == tuple(initial_jobs(matches[0].seed, k, 0))
            continue
        assert [m.rotation for m in matches] == list(range(k))
        assert len({m.seed for m in matches}) == 1 and matches[0].seed == group_seed(config.seed, g)
        assert len({m.bots for m in matches}) == 1
        for m in matches:
            assert m.jobs == tuple(initial_jobs(m.seed, k, m.rotation))
        for player in range(k):  # every bot holds every starting job (so every starting hand) once
            assert sorted(m.jobs[player] for m in matches) == list(range(1, k + 1))


@settings(max_examples=30, deadline=None)
@given(configs())
def test_deterministic(config: TournamentConfig) -> None:
    assert build_schedule(config) == build_schedule(config)


def test_seed_changes_the_schedule() -> None:
    a, b = build_schedule(make(8, seed=1)), build_schedule(make(8, seed=2))
    assert [m.seed for m in a] != [m.seed for m in b]
    assert [m.bots for m in a] != [m.bots for m in b]


def test_exactly_seats_bots_play_every_group() -> None:
    config = make(6, (6,), matches=12, rotation=False)
    schedule = build_schedule(config)
    assert all(set(m.bots) == set(config.bot_names) for m in schedule)
    assert len({m.bots for m in schedule}) > 1  # seating order is shuffled per group
    assert len({m.seed for m in schedule}) == 12


def test_mixed_seats_with_more_bots_than_seats() -> None:
    config = make(6, (4, 6), matches=6, rotation=True)
    schedule = build_schedule(config)
    assert [len(ms) for ms in groups(schedule).values()] == [4, 6, 4, 6, 4, 6]
    played = Counter(b for m in schedule for b in m.bots)
    assert set(played.values()) == {26}


def test_match_config_plays_the_scheduled_match() -> None:
    config = make(5, (4,), matches=2)
    m = build_schedule(config)[3]
    mc = match_config(config, m)
    assert (mc.seed, mc.jobs, mc.sessions, mc.rules, mc.fault_limit) == (m.seed, m.jobs, 8, "animal-poker", 3)
    assert mc.clock.move_ms == 1000 and mc.match_id == m.match_id
