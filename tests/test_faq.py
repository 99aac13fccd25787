"""One test per question of the FAQ ("Preguntas frecuentes y casos límite") at the end of
shared/rules-sources/000_bbefc89be5965b09.txt. Each docstring quotes the question it answers."""

from __future__ import annotations

import random

import pytest

from sdk.cards import F, SIZE, card_index, counts_from_cards
from sdk.deal import deal, initial_jobs
from sdk.match import Match
from sdk.moves import PASS
from sdk.protocol import TurnClock
from sdk.referee import Referee
from sdk.rules import RuleViolation, get_rules
from engine_helpers import AP, M, stacked_deal, start
from sdk.session import ROUND_END, WENT_OUT

FREELANCER_PRESETS = ["animal-poker", "lazy-chaotic", "equal-allowed"]
CLOCK = TurnClock(move_ms=1000, bank_ms=10000)







# --------------------------------------------------------------------------- FAQ 1


@pytest.mark.parametrize("preset", FREELANCER_PRESETS)
def test_faq_freelancer_value_with_numbers_takes_the_number(preset):
    """FAQ: 'What value does a freelancer have -- is it always the highest card?' -- played with
    number cards it takes their number: 6+F is a pair of 6s, beaten by a pair of 7s, and it cannot
    beat a pair of 6s (or, in equal-allowed, a pair of 7s)."""
    rules = get_rules(preset)
    state = start([[6, "F", 1], [7, 7, 5, 5], [6, "F"], [1]], rules=rules)
    state.apply(M(6, "F"))
    assert (state.top, state.count) == (6, 2)
    legal = state.legal_moves()
    assert M(7, 7) in legal and M(5, 5) not in legal
    state.apply(M(7, 7))
    assert state.top == 7
    assert state.legal_moves() == [PASS]  # 6+F is worth 6, not 14
    with pytest.raises(RuleViolation) as info:
        state.check(M(6, "F"))
    assert info.value.rule == "R9"


@pytest.mark.parametrize("preset", FREELANCER_PRESETS)
def test_faq_freelancer_value_alone_beats_a_13(preset):
    """FAQ: 'What value does a freelancer have?' -- played alone it counts as the highest number
    in play, beating even a 13 (worth 14 in every preset that has freelancers)."""
    rules = get_rules(preset)
    state = start([[13, 1], ["F", 2], ["F", "F", 3], [1]], rules=rules)
    state.apply(M(13))
    assert M("F") in state.legal_moves()
    state.apply(M("F"))
    assert state.top == 14
    # and nothing, not even another freelancer, beats freelancers alone
    assert state.legal_moves() == [PASS]
    # leading freelancers alone: worth 14, no number can follow
    state = start([["F", 1], [13, 13], [2], [3]], rules=rules)
    state.apply(M("F"))
    assert state.top == 14 and state.legal_moves() == [PASS]


def test_faq_freelancer_value_in_the_exchange_is_highest(monkeypatch):
    """FAQ: 'What value does a freelancer have?' -- in the Superiors Cash In phase freelancers always
    count as the highest card: a Trainee holding 13s and a freelancer gives the freelancer first, and
    a CEO holding a freelancer never gives it as one of its lowest."""
    ceo_hand = [1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, "F"]  # gives 1,2,2 -- never the F
    trainee_hand = [2, 3, 4, 5, 11, 11, 11, 12, 12, 12, 12, 13, 13]
    leftovers = [13, 13, "F"]  # the Trainee's 16: highest are F, 13, 13
    rest = AP.deck(4)
    for card in ceo_hand + trainee_hand + leftovers:
        rest[card_index(card)] -= 1
    middle = ["F" if i == F else i for i in range(1, SIZE) for _ in range(rest[i])]
    assert len(middle) == 26
    hands = [ceo_hand, middle[:13], middle[13:], trainee_hand]
    d = stacked_deal(monkeypatch, AP, [1, 2, 3, 4], hands, leftovers)
    ceo = next(e for e in d.exchanges if e.superior == 0)
    assert ceo.subordinate == 3
    assert ceo.got == [13, 13, "F"]
    assert ceo.gave == [1, 2, 2]
    assert d.hands[0][F] == 2 and d.hands[3][F] == 0
    assert d.hands[3][13] == 2


# --------------------------------------------------------------------------- FAQ 2


def test_faq_winner_just_went_out_next_counterclockwise_leads():
    """FAQ: 'The player who played the highest cards this round just used their last card. Who starts
    next round?' -- the next player counterclockwise from them who still has cards."""
    # order (clockwise): p0 CEO, p1, p2, p3, p4. p3 wins the round with its last card.
    state = start([[1, 9], [2, 9], [3, 9], [8], [4, 9]])
    for move in (M(1), M(2), M(3)):
        state.apply(move)
    assert state.apply(M(8)) == WENT_OUT
    assert state.apply(PASS) == ROUND_END
    assert state.last_winner == 3
    assert state.to_move == 2  # counterclockwise = before p3; clockwise would have been p4


def test_faq_winner_out_counterclockwise_skips_players_without_cards():
    """FAQ: 'Who starts next round?' -- the next counterclockwise player *who still has cards*: a
    player already out is skipped, wrapping around from the CEO to the Trainee."""
    # p1 goes out first; later p0 (CEO) wins a round with its last card: counterclockwise from the
    # CEO is the Trainee p3 (wrap-around), not p1.
    state = start([[1, 9], [2], [3, 9, 9], [4, 9, 9]])
    state.apply(M(1))
    assert state.apply(M(2)) == WENT_OUT
    state.apply(PASS)
    assert state.apply(PASS) == ROUND_END
    assert state.to_move == 0  # p1 is out: counterclockwise from p1 is p0
    assert state.apply(M(9)) == WENT_OUT  # p0 leads its last card
    state.apply(PASS)
    assert state.apply(PASS) == ROUND_END
    assert state.last_winner == 0
    assert state.to_move == 3


# --------------------------------------------------------------------------- FAQ 3


@pytest.mark.parametrize("n", range(4, 9))
def test_faq_trainee_16_cards_gives_3_highest(n):
    """FAQ: 'The Trainee starts with 16 cards and must also give 3 of their best cards to the CEO.
    How does this interact?' -- dealt 16, gives its 3 highest, receives the CEO's 3 lowest, and ends
    up with 16 cards."""
    for seed in range(10):
        jobs = initial_jobs(seed, n)
        d = deal(AP, jobs, seed, 1)
        trainee, ceo = jobs.index(n), jobs.index(1)
        assert sum(d.dealt[trainee]) == 16
        ex = next(e for e in d.exchanges if e.subordinate == trainee)
        assert ex.superior == ceo
        dealt = sorted(i for i in range(1, SIZE) for _ in range(d.dealt[trainee][i]))
        ceo_dealt = sorted(i for i in range(1, SIZE) for _ in range(d.dealt[ceo][i]))
        assert counts_from_cards(ex.got) == counts_from_cards(["F" if i == F else i for i in dealt[-3:]])
        assert counts_from_cards(ex.gave) == counts_from_cards(["F" if i == F else i for i in ceo_dealt[:3]])
        assert sum(d.hands[trainee]) == 16 and sum(d.hands[ceo]) == 13


# --------------------------------------------------------------------------- FAQ 4


def test_faq_five_players_middle_job_does_not_exchange():
    """FAQ: 'In a 5-player game, does the middle-ranked player exchange cards?' -- No."""
    for seed in range(30):
        jobs = initial_jobs(seed, 5)
        d = deal(AP, jobs, seed, 1 + seed % 3)
        middle = jobs.index(3)
        assert d.hands[middle] == d.dealt[middle]
        assert all(middle not in (e.superior, e.subordinate) for e in d.exchanges)
        assert len(d.exchanges) == 2
    # the referee tells the middle player it gave and got nothing
    match = Match("animal-poker", 5, seed=2, sessions=1)
    messages = Referee(match, list("abcde")).start_session()
    middle = match.jobs.index(3)
    assert messages[middle].gave == [] and messages[middle].got == []
    assert messages[middle].hand == messages[middle].dealt
    assert all(messages[p].gave and messages[p].got for p in range(5) if p != middle)


# --------------------------------------------------------------------------- FAQ 5


def test_faq_three_13s_only_three_freelancers():
    """FAQ: 'The previous player played three 13s. Can I play any card?' -- the only legal play is
    three freelancers."""
    state = start([[13, 13, 13, 1], [13, "F", "F", "F", 12, 12, 12], [2], [3]])
    state.apply(M(13, 13, 13))
    assert set(state.legal_moves()) == {PASS, M("F", "F", "F")}
    for bad in (M(13, "F", "F"), M(12, 12, 12), M(12, "F", "F"), M("F")):
        with pytest.raises(RuleViolation):
            state.check(bad)
    state.apply(M("F", "F", "F"))
    assert state.top == 14


def test_faq_three_13s_fewer_than_three_freelancers_must_pass():
    """FAQ: 'The previous player played three 13s. Can I play any card?' -- with fewer than three
    freelancers you must pass."""
    state = start([[13, 13, 13, 1], [13, 13, 13, 13, "F", "F"], [2], [3]])
    state.apply(M(13, 13, 13))
    assert state.legal_moves() == [PASS]
    with pytest.raises(RuleViolation) as info:
        state.check(M(13, "F", "F"))
    assert info.value.rule == "R9"


# --------------------------------------------------------------------------- FAQ 6


def test_faq_two_players_out_earlier_gets_better_job_same_round():
    """FAQ: 'Two players play their last cards in the same session -- who gets the better job?' --
    the one who plays its last card first, here earlier in the same round's turn order."""
    state = start([[1, 9], [3], [2, 9], [4], [9, 9]], jobs=[2, 4, 1, 5, 3])
    # order: p2 (CEO), p0, p4, p1, p3
    assert state.order == (2, 0, 4, 1, 3)
    state.apply(M(2))  # p2
    state.apply(PASS)  # p0
    state.apply(PASS)  # p4
    assert state.apply(M(3)) == WENT_OUT  # p1: last card, earlier in turn order
    assert state.apply(M(4)) == WENT_OUT | ROUND_END  # p3: last card, later in the same round
    assert state.new_jobs[1] == 1 and state.new_jobs[3] == 2


def test_faq_two_players_out_earlier_round_gets_better_job():
    """FAQ: 'Two players play their last cards in the same session -- who gets the better job?' --
    going out in an earlier round beats going out later, even from a seat earlier in turn order."""
    state = start([[1, 7, 8], [5, 9], [6], [3, 4, 9]])
    state.apply(M(1))
    state.apply(M(5))
    assert state.apply(M(6)) == WENT_OUT  # p2 out in round 1 (after p1 in turn order)
    assert state.apply(PASS) == ROUND_END
    assert state.to_move == 1  # counterclockwise from p2
    assert state.apply(M(9)) == WENT_OUT  # p1 out in round 2
    state.apply(PASS)  # p3
    assert state.apply(PASS) == ROUND_END  # p0
    assert state.new_jobs[2] == 1 and state.new_jobs[1] == 2
    assert state.out == [2, 1]


# --------------------------------------------------------------------------- FAQ 7


def test_faq_discard_pile_played_cards_leave_hands_and_are_counted():
    """FAQ: 'Who owns the discard pile and manages played cards?' -- played cards leave the hands for
    the discard pile for the rest of the session: the engine counts them in ``played`` (and the
    referee reports them in every turn), across rounds, never returning them."""
    match = Match("animal-poker", 5, seed=77, sessions=1)
    referee = Referee(match, list("abcde"))
    referee.start_session()
    state = referee.state
    deck = AP.deck(5)
    rng = random.Random(77)
    expected_played = [0] * SIZE
    rounds_seen = set()
    while not state.over:
        turn = referee.turn(CLOCK)
        assert turn.played == {**{str(v): expected_played[v] for v in range(1, 14)}, "F": expected_played[F]}
        mover = state.to_move
        before = state.hands[mover][:]
        move = rng.choice(state.legal_moves())
        rounds_seen.add(state.round)
        referee.play(move)
        if move.numbers:
            expected_played[move.value] += move.numbers
        expected_played[F] += move.freelancers
        assert state.played == expected_played
        after = state.hands[mover]
        if move.numbers:
            assert after[move.value] == before[move.value] - move.numbers
        assert after[F] == before[F] - move.freelancers
        in_hands = [sum(hand[i] for hand in state.hands) for i in range(SIZE)]
        assert [in_hands[i] + state.played[i] for i in range(SIZE)] == deck
    assert len(rounds_seen) > 1


# --------------------------------------------------------------------------- FAQ 8


def test_faq_ceo_only_leads_the_first_round():
    """FAQ: 'Does the CEO always go first, even after the first round?' -- only the first round; from
    the second round the player who played the highest cards leads."""
    state = start([[1, 2, 9], [5, 9], [3, 9], [4, 9]], jobs=[1, 2, 3, 4])
    assert state.to_move == 0
    state.apply(M(1))
    state.apply(M(5))
    state.apply(PASS)
    assert state.apply(PASS) == ROUND_END
    assert state.round == 2 and state.to_move == 1 and state.leading


def test_faq_ceo_leads_first_round_of_every_session_in_a_match():
    """FAQ: 'Does the CEO always go first, even after the first round?' -- in a real match the CEO
    leads round 1 of every session, and later rounds are led by the previous round's winner."""
    match = Match("animal-poker", 6, seed=8, sessions=3)
    rng = random.Random(8)
    not_ceo = 0
    for _ in range(3):
        state = match.start_session()
        ceo = match.jobs.index(1)
        assert state.to_move == ceo
        while not state.over:
            if state.leading and state.round > 1:
                assert state.to_move == state.last_next
                winner = state.last_winner
                assert state.to_move == winner or state.sizes[winner] == 0
                not_ceo += state.to_move != ceo
            state.apply(rng.choice(state.legal_moves()))
        match.record_result()
    assert not_ceo > 0
