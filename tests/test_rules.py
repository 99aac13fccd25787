"""Rule-by-rule tests of the engine against spec/rules.md (R1..R16 and the presets).

Every test names the rule it checks. Situations are hand-built (SessionState.start with explicit
count vectors and jobs) or stacked decks (deal() with a monkeypatched shuffle), so each assertion
pins one behaviour of the rules contract.
"""

from __future__ import annotations

import contextlib
import io
import random

import pytest

from engine_helpers import AP, H, M, play_random_session, stacked_deal, start
from sdk.bot import Bot
from sdk.cards import F, SIZE, counts_from_cards
from sdk.deal import deal, initial_jobs
from sdk.harness import play_match
from sdk.match import Match
from sdk.moves import PASS, Move, make_move, parse_move
from sdk.protocol import Out, Played, RoundEnd, SessionEnd
from sdk.referee import Referee, final_ranking
from sdk.rules import PRESETS, RuleViolation, get_rules
from sdk.session import ROUND_END, SESSION_END, WENT_OUT, SessionState

LAZY = get_rules("lazy-chaotic")
KARRIERE = get_rules("karriere-1988")
EQUAL = get_rules("equal-allowed")
ALL_PRESETS = sorted(PRESETS)
WITH_FREELANCERS = [name for name in ALL_PRESETS if get_rules(name).freelancers]


# --------------------------------------------------------------------------- helpers





def violation(state: SessionState, move: Move, player: int | None = None) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        state.check(move, player)
    return info.value


def wire(counts) -> list:
    """Wire cards of a count vector, ascending, freelancers last (independent of sdk.cards)."""
    out = []
    for index in range(1, SIZE):
        out += ["F" if index == F else index] * counts[index]
    return out


def by_job(jobs) -> dict[int, int]:
    return {job: player for player, job in enumerate(jobs)}




# 4 players, animal-poker: a stacked deck where every exchange rule shows.
STACK4 = [
    [5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8],  # CEO: lowest 5,5,5
    [8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11],  # rank 2: lowest 8,8
    [11, 11, 12, 12, 12, 12, 13, 13, 13, 13, "F", "F", "F"],  # rank 3: highest F,F (not 13s)
    [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4],  # Trainee (+ leftovers 4,4,4)
]
STACK4_LEFTOVERS = [4, 4, 4]



# --------------------------------------------------------------------------- R1


@pytest.mark.parametrize("preset", ALL_PRESETS)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 9, 10])
def test_r1_wrong_player_counts_are_rejected(preset, n):
    """R1: anything but 4..8 players is a configuration error naming R1."""
    rules = get_rules(preset)
    with pytest.raises(RuleViolation) as info:
        rules.check_players(n)
    assert info.value.rule == "R1"
    with pytest.raises(RuleViolation) as info:
        Match(preset, n, seed=1, sessions=1)
    assert info.value.rule == "R1"
    with pytest.raises(RuleViolation) as info:
        rules.deck(n)
    assert info.value.rule == "R1"


@pytest.mark.parametrize("n", [3, 9])
def test_r1_three_and_nine_players_rejected_by_session_start(n):
    """R1: SessionState.start refuses 3 and 9 players before anything is played."""
    with pytest.raises(RuleViolation) as info:
        SessionState.start(AP, list(range(1, n + 1)), [H(1)] * n)
    assert info.value.rule == "R1"
    assert str(info.value).startswith("R1")


@pytest.mark.parametrize("preset", ALL_PRESETS)
@pytest.mark.parametrize("n", range(4, 9))
def test_r1_four_to_eight_players_accepted(preset, n):
    """R1: 4..8 players are fine in every preset."""
    get_rules(preset).check_players(n)
    match = Match(preset, n, seed=3, sessions=1)
    state = match.start_session()
    assert state.n == n


# --------------------------------------------------------------------------- R2


@pytest.mark.parametrize("n", range(4, 9))
def test_r2_deck_is_13n_plus_3(n):
    """R2: one set of 1..13 per player plus exactly 3 freelancers = 13N + 3 cards."""
    for rules in (AP, EQUAL):
        deck = rules.deck(n)
        assert sum(deck) == 13 * n + 3
        assert deck[1:14] == [n] * 13
        assert deck[14] == 0
        assert deck[F] == 3
        assert deck[0] == 0


@pytest.mark.parametrize("n", range(4, 9))
def test_r2_lazy_chaotic_deck_is_107_cards(n):
    """R2 / lazy-chaotic: all 8 sets plus 3 freelancers, 107 cards whatever N is."""
    deck = LAZY.deck(n)
    assert sum(deck) == 107
    assert deck[1:14] == [8] * 13
    assert deck[F] == 3


@pytest.mark.parametrize("n,jokers", [(4, 2), (5, 2), (6, 3), (7, 3), (8, 4)])
def test_r2_karriere_deck_has_jokers_and_no_freelancers(n, jokers):
    """R2 / karriere-1988: 13N number cards plus 2/2/3/3/4 value-14 jokers, no freelancers."""
    deck = KARRIERE.deck(n)
    assert deck[1:14] == [n] * 13
    assert deck[14] == jokers
    assert deck[F] == 0
    assert sum(deck) == 13 * n + jokers
    assert KARRIERE.max_number == 14
    assert AP.max_number == 13


@pytest.mark.parametrize("preset", ALL_PRESETS)
@pytest.mark.parametrize("n", range(4, 9))
def test_r2_deal_uses_exactly_the_deck(preset, n):
    """R2: hands plus set-aside cards are the whole deck, before and after the exchange."""
    rules = get_rules(preset)
    for session in (1, 2):
        d = deal(rules, initial_jobs(7, n), 7, session)
        for hands in (d.dealt, d.hands):
            total = [sum(hand[i] for hand in hands) + d.set_aside[i] for i in range(SIZE)]
            assert total == rules.deck(n)


def test_r2_parse_move_rejects_more_copies_than_any_deck():
    """R2: no deck has more than 3 freelancers or 8 copies of a number."""
    for cards in (["F"] * 4, [5] * 9):
        with pytest.raises(RuleViolation) as info:
            parse_move(cards)
        assert info.value.rule == "R2"


# --------------------------------------------------------------------------- R3


@pytest.mark.parametrize("n", range(4, 9))
def test_r3_initial_jobs_are_a_seeded_permutation(n):
    """R3: the first session's jobs are the ranks 1..N once each, drawn from the match seed."""
    seen = set()
    for seed in range(60):
        jobs = initial_jobs(seed, n)
        assert sorted(jobs) == list(range(1, n + 1))
        assert initial_jobs(seed, n) == jobs  # same seed, same jobs
        assert Match("animal-poker", n, seed=seed).jobs == jobs
        seen.add(tuple(jobs))
    assert len(seen) > 10  # the seed matters: the jobs are not fixed
    # every player gets every job for some seed (random, not a fixed pattern)
    for player in range(n):
        assert {initial_jobs(seed, n)[player] for seed in range(300)} == set(range(1, n + 1))


@pytest.mark.parametrize("n", range(4, 9))
def test_r3_rotations_give_every_player_every_job(n):
    """R3: seat rotation shifts the seeded jobs cyclically, so each player holds each job once."""
    base = initial_jobs(11, n)
    for player in range(n):
        held = [initial_jobs(11, n, rotation)[player] for rotation in range(n)]
        assert sorted(held) == list(range(1, n + 1))
    for rotation in range(n):
        assert initial_jobs(11, n, rotation) == [base[(p + rotation) % n] for p in range(n)]


def test_r3_jobs_must_be_a_permutation():
    """R3: jobs that are not the ranks 1..N once each are refused."""
    for jobs in ([1, 1, 2, 3], [0, 1, 2, 3], [1, 2, 3, 5]):
        with pytest.raises(RuleViolation) as info:
            SessionState.start(AP, jobs, [H(1)] * 4)
        assert info.value.rule == "R3"
        with pytest.raises(RuleViolation) as info:
            Match("animal-poker", 4, jobs=jobs)
        assert info.value.rule == "R3"


# --------------------------------------------------------------------------- R4


def test_r4_seating_is_by_job_ceo_first():
    """R4: turn order is CEO, rank 2, ..., Trainee whatever the player ids are."""
    state = start([[1], [2], [3], [4]], jobs=[3, 1, 4, 2])
    assert state.order == (1, 3, 0, 2)
    assert state.to_move == 1  # the CEO leads (R8)
    assert [state.pos_of[p] for p in range(4)] == [2, 0, 3, 1]


def test_r4_play_goes_clockwise_in_job_order_and_wraps():
    """R4: after the CEO comes rank 2, then rank 3 ..., the Trainee, then back to the CEO."""
    jobs = [4, 2, 1, 3]  # order: player 2, 1, 3, 0
    state = start([[1, 9, 9], [2, 9, 9], [3, 9, 9], [4, 9, 9]], jobs=jobs)
    seen = [state.to_move]
    state.apply(M(3))  # player 2 (CEO) leads a 3
    seen.append(state.to_move)
    state.apply(M(9))  # player 1 (rank 2)
    seen.append(state.to_move)
    state.apply(PASS)  # player 3 (rank 3)
    seen.append(state.to_move)
    assert seen == [2, 1, 3, 0]
    flags = state.apply(PASS)  # the Trainee
    assert flags == ROUND_END  # the lap is over after the Trainee
    assert state.to_move == 1  # the 9 won


def test_r4_counterclockwise_is_the_previous_player_in_order():
    """R4/R11: 'counterclockwise from a player' is the player before them in turn order.

    The round winner (rank 3) goes out; the lead passes to rank 2 (before it), not to the
    Trainee (after it) nor back to the round's leader.
    """
    state = start([[1, 5], [2, 6], [3], [4, 7]])
    state.apply(M(1))
    state.apply(M(2))
    flags = state.apply(M(3))  # player 2 (rank 3) goes out with the highest play
    assert flags & WENT_OUT
    flags = state.apply(PASS)
    assert flags & ROUND_END
    assert state.last_winner == 2
    assert state.to_move == state.leader == 1


def test_r4_second_session_seats_by_the_new_jobs():
    """R4: at the start of every session players sit by (new) job, CEO first."""
    match = Match("animal-poker", 6, seed=5, sessions=3)
    rng = random.Random(5)
    for _ in range(3):
        state = match.start_session()
        assert list(state.jobs) == match.jobs
        assert list(state.order) == sorted(range(6), key=lambda p: match.jobs[p])
        play_random_session(state, rng)
    match.record_result()


# --------------------------------------------------------------------------- R5


@pytest.mark.parametrize("rules", [AP, EQUAL], ids=lambda r: r.name)
@pytest.mark.parametrize("n", range(4, 9))
def test_r5_trainee_dealt_16_others_13(rules, n):
    """R5: 13 cards each, the 3 leftovers to the Trainee (16 cards), nothing set aside."""
    for seed in range(5):
        jobs = initial_jobs(seed, n)
        d = deal(rules, jobs, seed, 1)
        sizes = [sum(hand) for hand in d.dealt]
        trainee = jobs.index(n)
        assert sizes[trainee] == 16
        assert all(size == 13 for p, size in enumerate(sizes) if p != trainee)
        assert sum(d.set_aside) == 0
        # the exchange swaps cards one for one: sizes are unchanged
        assert [sum(hand) for hand in d.hands] == sizes


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_r5_same_seed_and_session_same_deal(preset):
    """R5: the shuffle comes from the seed and the session number: reproducible, and it changes."""
    rules = get_rules(preset)
    jobs = initial_jobs(1, 6)
    a = deal(rules, jobs, "s", 2)
    b = deal(rules, jobs, "s", 2)
    assert a == b
    assert deal(rules, jobs, "s", 3).dealt != a.dealt
    assert deal(rules, jobs, "t", 2).dealt != a.dealt


@pytest.mark.parametrize("preset", ALL_PRESETS)
@pytest.mark.parametrize("n", range(4, 9))
def test_r5_deals_go_by_job(preset, n):
    """R5: the hand of job rank r is the same whoever holds that job (seat rotation)."""
    rules = get_rules(preset)
    for session in (1, 2):
        first = deal(rules, initial_jobs(9, n, 0), 9, session)
        for rotation in range(1, n):
            jobs = initial_jobs(9, n, rotation)
            other = deal(rules, jobs, 9, session)
            base_jobs = initial_jobs(9, n, 0)
            for rank in range(1, n + 1):
                p0, p1 = base_jobs.index(rank), jobs.index(rank)
                assert other.dealt[p1] == first.dealt[p0]
                assert other.hands[p1] == first.hands[p0]
            assert other.set_aside == first.set_aside


def test_r5_match_sessions_use_seed_and_session_number():
    """R5: a Match's deal of session s is deal(rules, jobs, seed, s)."""
    match = Match("animal-poker", 5, seed=42, sessions=2)
    rng = random.Random(0)
    for session in (1, 2):
        jobs = list(match.jobs)
        state = match.start_session()
        assert match.deal == deal(AP, jobs, 42, session)
        assert state.hands == match.deal.hands
        play_random_session(state, rng)
        match.record_result()


# --------------------------------------------------------------------------- R6


def test_r6_stacked_exchange_lowest_for_highest_simultaneously(monkeypatch):
    """R6: superiors give their K lowest, subordinates their K highest, chosen from the hands as
    dealt at the same moment (the Trainee gives 4,4,4, not the 5s it receives), freelancers highest
    (rank 3 gives F,F rather than its 13s)."""
    jobs = [1, 2, 3, 4]
    d = stacked_deal(monkeypatch, AP, jobs, STACK4, STACK4_LEFTOVERS)
    assert wire(d.dealt[3]) == [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4
    exchanges = {(e.superior, e.subordinate): e for e in d.exchanges}
    assert set(exchanges) == {(0, 3), (1, 2)}
    assert exchanges[0, 3].gave == [5, 5, 5]
    assert exchanges[0, 3].got == [4, 4, 4]
    assert exchanges[1, 2].gave == [8, 8]
    assert exchanges[1, 2].got == ["F", "F"]
    assert wire(d.hands[0]) == [4, 4, 4, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8]
    assert wire(d.hands[3]) == [1] * 4 + [2] * 4 + [3] * 4 + [4, 5, 5, 5]
    assert wire(d.hands[1]) == [8, 9, 9, 9, 9, 10, 10, 10, 10, 11, 11, "F", "F"]
    assert wire(d.hands[2]) == [8, 8, 11, 11, 12, 12, 12, 12, 13, 13, 13, 13, "F"]


def test_r6_stacked_exchange_follows_jobs_not_player_ids(monkeypatch):
    """R6: the pairs are by job (rank i with rank N+1-i), whatever the player ids."""
    jobs = [3, 4, 1, 2]
    d = stacked_deal(monkeypatch, AP, jobs, STACK4, STACK4_LEFTOVERS)
    ceo, second, third, trainee = 2, 3, 0, 1
    exchanges = {(e.superior, e.subordinate): e for e in d.exchanges}
    assert set(exchanges) == {(ceo, trainee), (second, third)}
    assert exchanges[ceo, trainee].got == [4, 4, 4]
    assert exchanges[second, third].got == ["F", "F"]


def _expected_exchange_pairs(n: int, ks) -> dict[tuple[int, int], int]:
    return {(i + 1, n - i): k for i, k in enumerate(ks)}


@pytest.mark.parametrize("rules", [AP, LAZY, EQUAL], ids=lambda r: r.name)
@pytest.mark.parametrize(
    "n,pairs",
    [
        (4, {(1, 4): 3, (2, 3): 2}),
        (5, {(1, 5): 3, (2, 4): 2}),  # rank 3 (the middle) is unpaired
        (6, {(1, 6): 3, (2, 5): 2, (3, 4): 1}),
        (7, {(1, 7): 3, (2, 6): 2, (3, 5): 1}),  # rank 4 (the middle) is unpaired
        (8, {(1, 8): 3, (2, 7): 2, (3, 6): 1}),  # ranks 4 and 5 are unpaired
    ],
)
def test_r6_exchange_amounts_and_unpaired_jobs(rules, n, pairs):
    """R6: K = 3/2/1 by pair; the middle job with 5 or 7 players and ranks 4, 5 with 8 never exchange;
    every session exchanges, the first included."""
    for seed in range(20):
        for session in (1, 2):
            jobs = initial_jobs(seed, n)
            d = deal(rules, jobs, seed, session)
            got_pairs = {}
            for e in d.exchanges:
                pair = (jobs[e.superior], jobs[e.subordinate])
                got_pairs[pair] = len(e.gave)
                assert len(e.got) == len(e.gave)
                # independent check of lowest / highest (freelancers count highest)
                sup = sorted(i for i in range(1, SIZE) for _ in range(d.dealt[e.superior][i]))
                sub = sorted(i for i in range(1, SIZE) for _ in range(d.dealt[e.subordinate][i]))
                k = len(e.gave)
                assert counts_from_cards(e.gave) == counts_from_cards(["F" if i == F else i for i in sup[:k]])
                assert counts_from_cards(e.got) == counts_from_cards(["F" if i == F else i for i in sub[-k:]])
            assert got_pairs == pairs
            paired = {p for pair in pairs for p in pair}
            for player, job in enumerate(jobs):
                if job not in paired:
                    assert d.hands[player] == d.dealt[player]


@pytest.mark.parametrize("n", range(4, 9))
def test_r6_exchanged_cards_come_from_the_hands_as_dealt(n):
    """R6: hands = dealt - given + received, and what is given was in the giver's dealt hand."""
    for seed in range(30):
        jobs = initial_jobs(seed, n)
        d = deal(AP, jobs, seed, 1)
        expected = [hand[:] for hand in d.dealt]
        for e in d.exchanges:
            gave, got = counts_from_cards(e.gave), counts_from_cards(e.got)
            for i in range(SIZE):
                assert gave[i] <= d.dealt[e.superior][i]
                assert got[i] <= d.dealt[e.subordinate][i]
                expected[e.superior][i] += got[i] - gave[i]
                expected[e.subordinate][i] += gave[i] - got[i]
        assert expected == d.hands


def test_r6_freelancers_count_highest_in_real_deals():
    """R6: a subordinate dealt a freelancer gives it up before any 13."""
    found = 0
    for seed in range(200):
        jobs = initial_jobs(seed, 4)
        d = deal(AP, jobs, seed, 1)
        trainee = jobs.index(4)
        ceo_ex = next(e for e in d.exchanges if e.subordinate == trainee)
        free = d.dealt[trainee][F]
        if free:
            found += 1
            assert ceo_ex.got.count("F") == min(free, 3)
            assert d.hands[trainee][F] == max(free - 3, 0)
    assert found > 0


# --------------------------------------------------------------------------- R7


def test_r7_play_values():
    """R7: a play's value is its number; freelancers with numbers take the number; alone 14."""
    assert M(5) == Move(5, 1, 0) and M(5).value == 5
    assert M(5, 5, "F").value == 5 and M(5, 5, "F").count == 3
    assert M("F", 7) == Move(7, 1, 1)  # order of the cards does not matter
    assert M("F").value == 14 and M("F", "F").value == 14 and M("F", "F").freelancers_alone
    assert M() == PASS and PASS.is_pass and PASS.count == 0
    assert make_move(0, 0, 0) is PASS


def test_r7_mixed_numbers_are_not_a_play():
    """R7: cards of two different numbers are rejected, naming R7."""
    for cards in ([5, 6], [5, "F", 6], [1, 13]):
        with pytest.raises(RuleViolation) as info:
            parse_move(cards)
        assert info.value.rule == "R7"
        assert str(info.value).startswith("R7")


def test_r7_freelancer_with_a_number_takes_the_number():
    """R7: 7+F is a pair of 7s: it loses to a pair of 8s and a pair of 6s cannot beat it."""
    state = start([[7, "F", 1], [6, 6, 8, 8], [9], [1]])
    state.apply(M(7, "F"))
    assert state.top == 7 and state.count == 2
    legal = state.legal_moves()
    assert M(8, 8) in legal
    assert M(6, 6) not in legal
    assert violation(state, M(6, 6)).rule == "R9"


def test_r7_freelancers_alone_beat_a_13():
    """R7: freelancers alone are worth 14, above a 13."""
    state = start([[13, 1], ["F", 2], [3], [1]])
    state.apply(M(13))
    assert M("F") in state.legal_moves()
    state.check(M("F"))
    state.apply(M("F"))
    assert state.top == 14


def test_r7_cards_not_held_are_rejected():
    """R7: a play of cards the player does not hold names R7 (leading and following)."""
    state = start([[1, 2], [3, 4], [5], [1]])
    err = violation(state, M(3))
    assert err.rule == "R7" and str(err).startswith("R7")
    assert violation(state, M(1, 1)).rule == "R7"
    assert violation(state, M("F")).rule == "R7"
    assert violation(state, M(2, "F")).rule == "R7"
    state.apply(M(1))
    assert violation(state, M(5)).rule == "R7"
    with pytest.raises(RuleViolation) as info:
        state.apply(M(5))
    assert info.value.rule == "R7"
    assert state.hands[1] == H(3, 4)  # a refused move changes nothing
    assert state.to_move == 1


def test_r7_malformed_moves_are_not_plays():
    """R7: a value that is not a number of the deck, or freelancers alone not worth 14, is refused."""
    state = start([[1, 2, "F"], [3, 4], [5], [1]])
    assert violation(state, Move(14, 1, 0)).rule == "R7"  # no 14 in animal-poker
    assert violation(state, Move(0, 1, 0)).rule == "R7"
    assert violation(state, Move(5, 0, 1)).rule == "R7"
    state.apply(M(1))
    assert violation(state, Move(3, 0, 0)).rule == "R7"  # a "pass" with a value


# --------------------------------------------------------------------------- R8


@pytest.mark.parametrize("preset", ["animal-poker", "lazy-chaotic", "equal-allowed"])
def test_r8_ceo_leads_the_first_round_of_every_session(preset):
    """R8: the CEO leads the first round of every session."""
    match = Match(preset, 5, seed=8, sessions=4)
    rng = random.Random(8)
    for _ in range(4):
        state = match.start_session()
        assert state.to_move == state.leader == match.jobs.index(1)
        assert state.leading and state.round == 1
        play_random_session(state, rng)


def test_r8_leader_must_play():
    """R8: the leader of a round may not pass (the error names R8)."""
    state = start([[1, 2], [3], [4], [1]])
    err = violation(state, PASS)
    assert err.rule == "R8" and str(err).startswith("R8")
    assert PASS not in state.legal_moves()
    assert not state.is_legal(PASS)


def test_r8_leader_may_play_any_count():
    """R8: the leader may play fewer than all copies of a number, with or without freelancers."""
    state = start([[5, 5, 5, "F", 9], [1], [2], [1]])
    legal = state.legal_moves()
    expected = {
        M(5), M(5, 5), M(5, 5, 5), M(5, "F"), M(5, 5, "F"), M(5, 5, 5, "F"),
        M(9), M(9, "F"), M("F"),
    }
    assert set(legal) == expected
    assert len(legal) == len(expected)
    for move in expected:
        state.check(move)
    state.apply(M(5))
    assert state.count == 1 and state.hands[0] == H(5, 5, "F", 9)


# --------------------------------------------------------------------------- R9


def test_r9_follow_must_match_count():
    """R9: a follower plays exactly as many cards as the leader (error names R9)."""
    state = start([[3, 3, 1], [7, 7, 7, 8], [9], [1]])
    state.apply(M(3, 3))
    err = violation(state, M(7))
    assert err.rule == "R9" and str(err).startswith("R9")
    assert violation(state, M(7, 7, 7)).rule == "R9"
    state.check(M(7, 7))
    assert set(state.legal_moves()) == {PASS, M(7, 7)}


def test_r9_follow_must_be_strictly_higher():
    """R9: equal or lower values cannot follow (animal-poker); higher can."""
    state = start([[6, 1], [4, 6, 7], [9], [1]])
    state.apply(M(6))
    assert violation(state, M(6)).rule == "R9"
    assert violation(state, M(4)).rule == "R9"
    state.check(M(7))
    assert set(state.legal_moves()) == {PASS, M(7)}


def test_r9_must_beat_the_highest_play_so_far():
    """R9: the value to beat is the highest play of the round, not the leader's."""
    state = start([[2, 1], [8, 9], [5, 9, 12], [1]])
    state.apply(M(2))
    state.apply(M(8))
    assert state.top == 8
    assert violation(state, M(5)).rule == "R9"
    assert set(state.legal_moves()) == {PASS, M(9), M(12)}


def test_r9_after_a_13_only_freelancers_alone():
    """R9: after a 13 only freelancers alone can follow; 13+F is a pair of 13s and cannot."""
    state = start([[13, 13, 1], [13, 13, "F", "F", 12], [13, "F", "F", "F"], [1]])
    state.apply(M(13, 13))
    assert set(state.legal_moves()) == {PASS, M("F", "F")}
    assert violation(state, M(13, "F")).rule == "R9"
    assert violation(state, M(13, 13)).rule == "R9"
    state.apply(M("F", "F"))
    # two freelancer-only plays never beat each other
    assert state.legal_moves() == [PASS]
    err = violation(state, M("F", "F"))
    assert err.rule == "R9"


def test_r9_freelancer_only_lead_cannot_be_beaten():
    """R9: two freelancer-only plays never beat each other (also against a freelancer lead)."""
    state = start([["F", 1], ["F", "F", 13], [2], [1]])
    state.apply(M("F"))
    assert state.top == 14
    assert state.legal_moves() == [PASS]
    assert violation(state, M("F")).rule == "R9"
    assert violation(state, M(13)).rule == "R9"


def test_r9_passing_is_always_allowed_even_when_able():
    """R9: a follower may pass although it could play."""
    state = start([[1, 2], [5, 6, "F"], [3], [1]])
    state.apply(M(1))
    legal = state.legal_moves()
    assert legal[0] == PASS
    assert len(legal) > 1
    state.check(PASS)
    state.apply(PASS)
    assert state.to_move == 2
    assert state.hands[1] == H(5, 6, "F")


def test_r9_follow_with_freelancers_fills_the_count():
    """R9/R7: a follower may complete a group with freelancers; legal follows are exactly these."""
    state = start([[4, 4, 4, 1], [5, 7, 7, "F", "F"], [3], [1]])
    state.apply(M(4, 4, 4))
    assert set(state.legal_moves()) == {PASS, M(5, "F", "F"), M(7, 7, "F"), M(7, "F", "F")}
    assert violation(state, M(5, "F")).rule == "R9"


def test_r9_equal_allowed_same_value_may_follow():
    """R9 / equal-allowed: 'same or higher'; a 13 may follow a 13; lower still refused."""
    state = start([[6, 1], [6, 5, 7], [13, 13], [13, "F"]], rules=EQUAL)
    state.apply(M(6))
    assert set(state.legal_moves()) == {PASS, M(6), M(7)}
    assert violation(state, M(5)).rule == "R9"
    state.apply(M(6))
    assert state.top == 6
    state.apply(M(13))
    assert M(13) in state.legal_moves()
    state.check(M(13))
    state.check(M("F"))


def test_r9_equal_allowed_freelancers_alone_never_beat_each_other():
    """R9 / equal-allowed (our ruling): two freelancer-only plays still never beat each other."""
    state = start([["F", 1], ["F", "F"], [2], [1]], rules=EQUAL)
    state.apply(M("F"))
    assert state.legal_moves() == [PASS]
    assert violation(state, M("F")).rule == "R9"


def test_r9_error_names_the_rule_for_an_illegal_follow():
    """R9: the error message of an illegal follow starts with the rule id."""
    state = start([[9, 1], [3, 4], [5], [1]])
    state.apply(M(9))
    err = violation(state, M(3))
    assert err.rule == "R9" and str(err).startswith("R9:")


# --------------------------------------------------------------------------- R10


def test_r10_a_round_is_one_lap():
    """R10: starting at the leader, every player holding cards moves exactly once, then the round ends."""
    state = start([[1, 9], [2, 9], [3, 9], [4, 9]])
    movers = []
    for move in (M(1), M(2), M(3), M(4)):
        movers.append(state.to_move)
        flags = state.apply(move)
    assert movers == [0, 1, 2, 3]
    assert flags == ROUND_END
    assert state.round == 2
    assert state.to_move == 3 and state.leading  # the 4 was the highest play (R11)
    assert state.round_plays == []


def test_r10_round_ends_after_last_seat_even_if_all_pass():
    """R10: a lap of passes is still one lap; the leader does not get a second turn in the round."""
    state = start([[1, 9], [2, 9], [3, 9], [4, 9]], jobs=[2, 3, 4, 1])  # player 3 is the CEO
    assert state.to_move == 3
    flags = [state.apply(M(4))]
    assert state.to_move == 0
    flags.append(state.apply(PASS))
    assert state.to_move == 1
    flags.append(state.apply(PASS))
    assert flags == [0, 0, 0]
    assert state.to_move == 2
    assert state.apply(PASS) == ROUND_END
    assert state.to_move == 3 and state.round == 2 and state.leading


def test_r10_players_out_are_skipped_and_the_round_still_completes():
    """R10: a player who goes out mid-round is skipped for the rest of the session, and the round
    still runs to the last seat before ending."""
    state = start([[1, 2, 3], [5], [4, 6], [7, 8]])
    state.apply(M(1))
    flags = state.apply(M(5))  # player 1 goes out mid-round
    assert flags == WENT_OUT  # no ROUND_END: the lap goes on
    assert state.to_move == 2
    assert state.apply(PASS) == 0
    assert state.to_move == 3
    flags = state.apply(PASS)
    assert flags == ROUND_END
    # round 2: the winner (player 1) is out, so the lead goes counterclockwise to player 0
    assert state.to_move == 0
    state.apply(M(2))
    assert state.to_move == 2  # player 1 is skipped
    state.apply(PASS)
    assert state.to_move == 3
    assert state.apply(PASS) == ROUND_END  # a lap of 3 turns: player 1 took none


def test_r10_out_of_turn_names_r10():
    """R10: a move by anyone but the player to move is refused, naming R10."""
    state = start([[1, 2], [3, 4], [5, 6], [1]])
    for player in (1, 2):
        err = violation(state, M(3 if player == 1 else 5), player=player)
        assert err.rule == "R10" and str(err).startswith("R10")
    state.check(M(1), player=0)
    state.apply(M(1))
    assert violation(state, M(5), player=2).rule == "R10"
    assert violation(state, PASS, player=0).rule == "R10"
    state.check(M(3), player=1)


def test_r10_leader_who_goes_out_by_leading_is_not_asked_again():
    """R10: the lap ends at the leader's seat even if the leader went out with the lead."""
    state = start([[5], [1, 9], [2, 9], [3, 9]])
    assert state.apply(M(5)) == WENT_OUT
    assert state.apply(M(9)) == 0
    assert state.apply(PASS) == 0
    assert state.apply(PASS) == ROUND_END
    assert state.to_move == 1  # the 9 won


# --------------------------------------------------------------------------- R11


def test_r11_highest_play_leads_next_round():
    """R11: the player who made the highest play of the round leads the next one."""
    state = start([[3, 1], [5, 1], [2, 1], [4, 1]])
    state.apply(M(3))
    state.apply(M(5))
    state.apply(PASS)
    assert state.apply(PASS) == ROUND_END
    assert state.last_winner == 1 and state.last_next == 1
    assert state.to_move == state.leader == 1 and state.leading


def test_r11_leader_leads_again_if_everyone_passed():
    """R11: if everyone passes, the leader leads again."""
    state = start([[13, 1], [5, 1], [2, 1], [4, 1]], jobs=[2, 1, 3, 4])
    assert state.to_move == 1
    state.apply(M(5))
    state.apply(PASS)
    state.apply(PASS)
    assert state.apply(PASS) == ROUND_END
    assert state.last_winner == 1
    assert state.to_move == 1


def test_r11_winner_out_lead_goes_counterclockwise_skipping_empty_hands():
    """R11: the round winner went out, the player just before it is out too, so the lead goes to the
    nearest earlier player who still holds cards (not clockwise to the next player)."""
    state = start([[1, 2, 3, 10], [5], [9], [6, 7], [6, 8]])
    state.apply(M(1))
    assert state.apply(M(5)) == WENT_OUT  # player 1 out first
    state.apply(PASS)
    state.apply(M(6))
    assert state.apply(PASS) == ROUND_END
    assert state.to_move == 3  # player 3's 6 won
    assert state.apply(M(7)) == WENT_OUT  # player 3 out second, by leading
    state.apply(M(8))  # player 4
    state.apply(PASS)  # player 0 (player 1 skipped)
    flags = state.apply(M(9))  # player 2 goes out third with the highest play
    assert flags == WENT_OUT | ROUND_END
    assert state.last_winner == 2
    # counterclockwise from player 2: player 1 (out), then player 0 -- clockwise would be player 4
    assert state.last_next == 0 and state.to_move == 0


# --------------------------------------------------------------------------- R12


def test_r12_jobs_in_order_of_going_out():
    """R12: first out takes the CEO job, second out rank 2, and so on (same round or not)."""
    state = start([[1, 5], [2], [3], [4, 6], [7, 8]], jobs=[1, 2, 3, 4, 5])
    state.apply(M(1))
    assert state.apply(M(2)) == WENT_OUT
    assert state.new_jobs[1] == 1
    assert state.apply(M(3)) == WENT_OUT  # second out in the same round
    assert state.new_jobs[2] == 2
    state.apply(M(4))
    state.apply(M(7))
    assert state.out == [1, 2]
    assert state.to_move == 4 and state.leading  # the 7 won
    state.apply(M(8))  # player 4 out third
    assert state.out == [1, 2, 4] and state.new_jobs[4] == 3
    assert state.sizes == [1, 0, 0, 1, 0]


# --------------------------------------------------------------------------- R13


def test_r13_session_ends_mid_round_when_one_player_holds_cards():
    """R13: the moment only one player holds cards the session ends, mid-round (player 0 would
    still have had a turn in this lap), without a round end; that player is the Trainee, and nobody
    may move afterwards."""
    state = start([[1, 2], [3], [4, 5], [6]])
    state.apply(M(1))
    assert state.apply(M(3)) == WENT_OUT  # player 1 out first
    state.apply(M(4))
    assert state.apply(PASS) == ROUND_END  # player 3 passes; player 2's 4 won
    assert state.to_move == 2
    assert state.apply(M(5)) == WENT_OUT  # player 2 out second, by leading
    assert state.to_move == 3
    flags = state.apply(M(6))  # player 3 out third: only player 0 holds cards
    assert flags == WENT_OUT | SESSION_END
    assert not flags & ROUND_END
    assert state.over
    assert state.result_jobs == [4, 1, 2, 3]
    assert state.last_player == 0
    assert state.out == [1, 2, 3]
    err = violation(state, M(2))
    assert err.rule == "R13"
    with pytest.raises(RuleViolation):
        state.apply(M(2))


def test_r13_result_jobs_before_the_end_name_r13():
    """R13: there is no result while two or more players hold cards."""
    state = start([[1], [2], [3], [4]])
    assert state.last_player is None
    with pytest.raises(RuleViolation) as info:
        state.result_jobs
    assert info.value.rule == "R13"


def test_r13_new_jobs_set_the_next_session():
    """R13: the new jobs set the seating, deal and exchange of the next session."""
    match = Match("animal-poker", 5, seed=13, sessions=2)
    state = match.start_session()
    play_random_session(state, random.Random(1))
    result = state.result_jobs
    nxt = match.start_session()
    assert match.results == [result]
    assert list(nxt.jobs) == result
    assert match.deal == deal(AP, result, 13, 2)


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_r11_r12_r13_referee_events_report_what_happened(preset):
    """R11/R12/R13 as the bots see them: an ``out`` event with the job taken in order of going out,
    ``round_end`` naming the winner and the next leader (the player then to move), and at the end
    ``session_end`` with the new jobs -- never a ``round_end`` with it (the session ends mid-round)."""
    for seed in range(6):
        match = Match(preset, 4 + seed % 5, seed=seed, sessions=2)
        referee = Referee(match, [str(p) for p in range(match.players)])
        rng = random.Random(seed)
        while not match.planned_sessions_done:
            referee.start_session()
            state = referee.state
            while not state.over:
                mover, rnd = state.to_move, state.round
                move = rng.choice(state.legal_moves())
                out_before = len(state.out)
                events = referee.play(move)
                kinds = [type(e) for e in events]
                assert kinds[0] is Played and events[0].player == mover and events[0].round == rnd
                assert events[0].cards == move.cards and events[0].fault is None
                if state.sizes[mover] == 0 and not move.is_pass:
                    out = events[1]
                    assert isinstance(out, Out) and out.player == mover and out.job == out_before + 1
                else:
                    assert Out not in kinds
                if state.over:
                    assert kinds[-1] is SessionEnd and RoundEnd not in kinds
                    assert events[-1].jobs == state.result_jobs == match.results[-1]
                elif state.round != rnd:
                    end = events[-1]
                    assert isinstance(end, RoundEnd) and end.round == rnd
                    assert end.next == state.to_move == state.leader
                    assert end.winner == state.last_winner
                else:
                    assert RoundEnd not in kinds and SessionEnd not in kinds


# --------------------------------------------------------------------------- R14


def test_r14_match_plays_the_configured_number_of_sessions():
    """R14: a match ends after the configured number of sessions."""
    match = Match("animal-poker", 4, seed=14, sessions=3)
    rng = random.Random(14)
    count = 0
    while not match.planned_sessions_done:
        state = match.start_session()
        count += 1
        assert state.session == count
        play_random_session(state, rng)
        match.record_result()
        match.record_result()  # idempotent
    assert count == 3 and len(match.results) == 3


def test_r14_started_session_is_always_finished():
    """R14: the next session cannot start before the current one is over; at least one session."""
    match = Match("animal-poker", 4, seed=14, sessions=None)
    match.start_session()
    with pytest.raises(RuleViolation) as info:
        match.start_session()
    assert info.value.rule == "R14"
    with pytest.raises(RuleViolation) as info:
        Match("animal-poker", 4, sessions=0)
    assert info.value.rule == "R14"


def test_r14_timed_mode_never_ends_by_itself():
    """R14: in timed mode (sessions=None) the caller decides; the match is never 'done' on its own."""
    match = Match("animal-poker", 4, seed=2, sessions=None)
    rng = random.Random(2)
    for _ in range(5):
        play_random_session(match.start_session(), rng)
        match.record_result()
        assert not match.planned_sessions_done
    assert len(match.results) == 5


# --------------------------------------------------------------------------- R15


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_r15_ranking_is_last_result_and_winner_its_ceo(preset):
    """R15: the ranking is the job order of the last result; the winner its CEO (most recent CEO)."""
    match = Match(preset, 6, seed=15, sessions=3)
    with pytest.raises(RuleViolation) as info:
        match.ranking
    assert info.value.rule == "R15"
    rng = random.Random(15)
    while not match.planned_sessions_done:
        play_random_session(match.start_session(), rng)
        match.record_result()
    last = match.results[-1]
    assert [last[p] for p in match.ranking] == [1, 2, 3, 4, 5, 6]
    assert match.winner == last.index(1)
    assert match.winner == match.ranking[0]


def test_r15_referee_match_end_uses_last_result():
    """R15: the referee's match_end ranking and winner come from the last session's jobs."""
    match = Match("animal-poker", 5, seed=3, sessions=2)
    referee = Referee(match, [f"b{i}" for i in range(5)])
    rng = random.Random(3)
    for _ in range(2):
        referee.start_session()
        while not referee.state.over:
            referee.play(rng.choice(referee.state.legal_moves()))
    end = referee.match_end()
    last = match.results[-1]
    assert end.ranking == sorted(range(5), key=lambda p: last[p])
    assert end.winner == last.index(1)


# --------------------------------------------------------------------------- R16


def test_r16_fallback_is_pass_when_following():
    """R16: the fallback when following is a pass."""
    state = start([[1, 2], [3, "F"], [5], [1]])
    state.apply(M(1))
    assert state.fallback_move() == PASS


def test_r16_fallback_leads_the_single_lowest_card():
    """R16: the fallback when leading is the single lowest card (a freelancer only if only freelancers)."""
    assert start([[7, 7, 3, 12, "F"], [1], [2], [3]]).fallback_move() == M(3)
    assert start([["F", "F"], [1], [2], [3]]).fallback_move() == M("F")
    assert start([[13, "F"], [1], [2], [3]]).fallback_move() == M(13)
    assert start([[14, 14, 9], [1], [2], [3]], rules=KARRIERE).fallback_move() == M(9)
    assert start([[14, 14], [1], [2], [3]], rules=KARRIERE).fallback_move() == M(14)
    for hand in ([7, 7, 3, 12, "F"], ["F", "F"], [13, "F"]):
        state = start([hand, [1], [2], [3]])
        state.check(state.fallback_move())


def test_r16_referee_turns_an_illegal_move_into_a_fault_with_the_fallback():
    """R16: an illegal move never stops the match; the referee plays the fallback, fault 'illegal'."""
    match = Match("animal-poker", 4, seed=16, sessions=1)
    referee = Referee(match, ["a", "b", "c", "d"])
    referee.start_session()
    state = referee.state
    leader = state.to_move
    hand = state.hands[leader][:]
    expected = state.fallback_move()
    lowest = min(i for i in range(1, SIZE) if hand[i])
    assert expected == (M(lowest) if lowest != F else M("F"))
    events = referee.play(PASS)  # a pass when leading is illegal (R8)
    assert isinstance(events[0], Played)
    assert events[0].fault == "illegal"
    assert events[0].player == leader
    assert events[0].cards == expected.cards
    hand[expected.value if expected.numbers else F] -= 1
    assert state.hands[leader] == hand
    # following: an illegal move becomes a pass
    follower = state.to_move
    before = state.hands[follower][:]
    events = referee.play(Move(13, 8, 0))  # cards not held
    assert events[0].fault == "illegal" and events[0].cards == []
    assert state.hands[follower] == before
    # a fault reported by the caller (timeout) also plays the fallback, even with a legal move given
    mover = state.to_move
    events = referee.play(state.legal_moves()[-1], fault="timeout")
    assert events[0].fault == "timeout" and events[0].cards == [] and events[0].player == mover
    # None (no answer) is illegal too
    while not state.leading:
        referee.play(PASS)
    events = referee.play(None)
    assert events[0].fault == "illegal" and len(events[0].cards) == 1


def test_r16_legal_moves_have_no_fault():
    """R16: a legal move is played as given, with no fault."""
    match = Match("animal-poker", 4, seed=16, sessions=1)
    referee = Referee(match, ["a", "b", "c", "d"])
    referee.start_session()
    move = referee.state.legal_moves()[-1]
    events = referee.play(move)
    assert events[0].fault is None and events[0].cards == move.cards


def test_r16_disqualified_players_are_ranked_last():
    """R16: disqualified bots rank below every bot that was not, in their job order."""
    match = Match("animal-poker", 5, seed=1, sessions=1)
    play_random_session(match.start_session(), random.Random(0))
    match.record_result()
    ranking = match.ranking
    assert final_ranking(match) == ranking
    dq = [ranking[0], ranking[2]]
    result = final_ranking(match, dq)
    assert result == [ranking[1], ranking[3], ranking[4], ranking[0], ranking[2]]
    referee = Referee(match, list("abcde"))
    end = referee.match_end(disqualified=dq)
    assert end.ranking == result and end.winner == ranking[1]


class _GarbageBot(Bot):
    name = "garbage"

    def play(self, turn):
        return [1, 2]  # never a legal play (R7), not even a pass


class _CrashBot(Bot):
    name = "crash"

    def play(self, turn):
        raise RuntimeError("boom")


def test_r16_faults_never_stop_a_match():
    """R16: a bot answering illegal moves faults every turn, and the match still completes."""
    from bots.random_bot import RandomBot

    turns = []
    log = io.StringIO()
    with contextlib.redirect_stderr(log):
        result = play_match(
            [_GarbageBot(), RandomBot(), RandomBot(), _CrashBot()], sessions=2, seed=4,
            on_message=lambda player, msg: turns.append(player) if type(msg).__name__ == "Turn" else None,
        )
    assert "play() raised" in log.getvalue()  # the crash was reported, then the fallback was sent
    assert result.sessions_played == 2
    assert result.faults[0] == turns.count(0) > 0
    assert result.faults[1] == result.faults[2] == 0


def test_r16_harness_counts_exceptions_in_play_as_errors_not_faults():
    """R16 / sdk.harness.MatchResult: an exception in play() is answered with the fallback move (so it
    is no fault, as in the arena), and counted in ``errors`` so a bot's unit tests can catch it."""
    from bots.random_bot import RandomBot

    turns = []
    with contextlib.redirect_stderr(io.StringIO()):
        result = play_match(
            [RandomBot(), RandomBot(), RandomBot(), _CrashBot()], sessions=1, seed=4,
            on_message=lambda player, msg: turns.append(player) if type(msg).__name__ == "Turn" else None,
        )
    assert result.errors[3] == turns.count(3) > 0
    assert result.faults == [0, 0, 0, 0] and result.errors[:3] == [0, 0, 0]


# --------------------------------------------------------------------------- presets


@pytest.mark.parametrize("n", range(4, 9))
def test_lazy_chaotic_sets_aside_the_rest(n):
    """lazy-chaotic: 13 each, 3 more to the Trainee, the other 107 - 13N - 3 cards set aside."""
    for seed in range(5):
        jobs = initial_jobs(seed, n)
        d = deal(LAZY, jobs, seed, 1)
        sizes = [sum(hand) for hand in d.dealt]
        assert sizes[jobs.index(n)] == 16
        assert sorted(sizes) == [13] * (n - 1) + [16]
        assert sum(d.set_aside) == 107 - 13 * n - 3
        assert len(d.exchanges) == len(LAZY.exchange[n])


@pytest.mark.parametrize("n,jokers", [(4, 2), (5, 2), (6, 3), (7, 3), (8, 4)])
def test_karriere_first_game_no_exchange_leftovers_aside(n, jokers):
    """karriere-1988: first game everyone gets 13, the 2-4 leftovers are set aside, no exchange."""
    for seed in range(5):
        jobs = initial_jobs(seed, n)
        d = deal(KARRIERE, jobs, seed, 1)
        assert [sum(hand) for hand in d.dealt] == [13] * n
        assert sum(d.set_aside) == jokers
        assert d.exchanges == []
        assert d.hands == d.dealt


@pytest.mark.parametrize(
    "n,ks", [(4, [2, 1]), (5, [2, 1]), (6, [3, 2, 1]), (7, [3, 2, 1]), (8, [4, 3, 2, 1])]
)
def test_karriere_later_games_leftovers_to_loser_and_exchange(n, ks):
    """karriere-1988: from the second game the leftovers go to the previous loser (the Trainee) and
    partners exchange by finishing position (8: 4/3/2/1, 6-7: 3/2/1, 4-5: 2/1)."""
    jokers = KARRIERE.jokers[n]
    for seed in range(5):
        jobs = initial_jobs(seed, n)
        d = deal(KARRIERE, jobs, seed, 2)
        sizes = [sum(hand) for hand in d.dealt]
        assert sizes[jobs.index(n)] == 13 + jokers
        assert sum(d.set_aside) == 0
        pairs = {(jobs[e.superior], jobs[e.subordinate]): len(e.gave) for e in d.exchanges}
        assert pairs == {(i + 1, n - i): k for i, k in enumerate(ks)}
        for e in d.exchanges:
            sup = sorted(i for i in range(1, SIZE) for _ in range(d.dealt[e.superior][i]))
            sub = sorted(i for i in range(1, SIZE) for _ in range(d.dealt[e.subordinate][i]))
            k = len(e.gave)
            assert e.gave == sup[:k] and e.got == sub[-k:]  # jokers (14) are the highest numbers


def test_karriere_random_first_leader_then_previous_winner():
    """karriere-1988: a random (seeded) player leads the first game; from the second game the
    previous winner (the CEO) leads the first trick."""
    leaders = set()
    for seed in range(40):
        match = Match("karriere-1988", 5, seed=seed, sessions=2)
        state = match.start_session()
        again = Match("karriere-1988", 5, seed=seed, sessions=2).start_session()
        assert again.to_move == state.to_move  # seed-determined
        leaders.add(match.jobs[state.to_move])
        rotated = Match("karriere-1988", 5, seed=seed, sessions=2, jobs=initial_jobs(seed, 5, 2)).start_session()
        assert rotated.jobs[rotated.to_move] == state.jobs[state.to_move]  # a job leads: rotation stays duplicate
        play_random_session(state, random.Random(seed))
        second = match.start_session()
        assert second.to_move == match.jobs.index(1) == match.results[-1].index(1)
    assert len(leaders) > 1  # not always the CEO: random


def test_karriere_jokers_are_ordinary_numbers():
    """karriere-1988 (ruling): value-14 jokers are number cards (index 14): pairs of 14s beat pairs
    of 13s, nothing beats a 14, 14s are not wild and cannot join another number."""
    state = start([[13, 13, 1], [14, 14, 5], [14, 14, 12], [1]], rules=KARRIERE)
    assert M(14) == Move(14, 1, 0)
    state.apply(M(13, 13))
    assert set(state.legal_moves()) == {PASS, M(14, 14)}
    state.apply(M(14, 14))
    assert state.top == 14
    assert state.legal_moves() == [PASS]
    assert violation(state, M(14, 14)).rule == "R9"
    with pytest.raises(RuleViolation):
        parse_move([5, 14])


def test_karriere_successor_by_previous_places():
    """karriere-1988 (c11): trick winner out -> the player one place better last game, else one
    place worse, else the best-placed player still holding cards (not counterclockwise)."""
    # jobs = last game's places; order: p0 (1st), p1 (2nd), p2 (3rd), p3 (4th), p4 (5th)
    jobs = [1, 2, 3, 4, 5]
    # p3 (4th) wins the trick and goes out: one place better = p2 (3rd) leads.
    state = start([[1, 9], [2, 9], [3, 9], [5], [4, 9]], jobs=jobs, rules=KARRIERE)
    for move in (M(1), M(2), M(3), M(5), PASS):
        flags = state.apply(move)
    assert flags == ROUND_END and state.last_winner == 3
    assert state.to_move == 2
    # p3 (4th) wins and goes out, p2 (3rd) already out: one place worse = p4 (5th),
    # where counterclockwise would give p1.
    state = start([[1, 9, 9], [2, 9, 9], [3], [5], [4, 9, 9]], jobs=jobs, rules=KARRIERE)
    for move in (M(1), M(2), M(3), M(5), PASS):
        state.apply(move)
    assert state.last_winner == 3 and state.to_move == 4
    # p1 (2nd) wins and goes out, p0 (1st) and p2 (3rd) already out: the best-placed player still
    # holding cards, p3 (4th), leads -- counterclockwise would give p4.
    state = start([[1], [2, 6], [3], [4, 9, 9], [5, 9, 9]], jobs=jobs, rules=KARRIERE)
    for move in (M(1), M(2), M(3), PASS, PASS):
        state.apply(move)
    assert state.out == [0, 2]
    assert state.last_winner == 2 and state.to_move == 1  # one place better than p2
    assert state.apply(M(6)) == WENT_OUT
    state.apply(PASS)
    assert state.apply(PASS) == ROUND_END
    assert state.last_winner == 1
    assert state.to_move == 3
