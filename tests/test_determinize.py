"""Tests of sdk/determinize.py (Knowledge.sample_hands) and TurnView.determinize (sdk/bot.py).

Positions come from real random games: the referee produces the same ``session`` / ``played``
messages a bot sees, a BotDriver turns them into the bot's Knowledge, and at every turn the
samples are checked against what that player can know (R6 exchange inference) and against the
true hands held by the referee.
"""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdk.bot import Bot, BotDriver, TurnView
from sdk.cards import F, SIZE, counts_from_cards
from sdk.determinize import Knowledge
from sdk.match import Match
from sdk.moves import parse_move
from sdk.protocol import Clock, TurnClock
from sdk.referee import Referee
from sdk.rules import PRESETS, get_rules
from sdk.session import SessionState

PRESET_NAMES = sorted(PRESETS)
CLOCK = TurnClock(move_ms=1000, bank_ms=10000)


# --------------------------------------------------------------------------- checks


def partner_threshold(know: Knowledge):
    """(index, is_subordinate) from the cards the partner gave me, or None without an exchange."""
    got = [i for i in range(1, SIZE) for _ in range(know.got[i])]
    if know.partner is None or not got:
        return None
    return (min(got), True) if know.partner_is_subordinate else (max(got), False)


def check_sample(know: Knowledge, hands, my_hand, sizes, played, deck, set_aside_possible: bool) -> None:
    """Everything a sample must satisfy, from the point of view of ``know.me``."""
    n = len(sizes)
    me = know.me
    assert hands[me] == list(my_hand)  # my hand is kept
    assert [sum(hand) for hand in hands] == list(sizes)  # every hand has the right size
    for hand in hands:
        assert hand[0] == 0 and all(c >= 0 for c in hand)
    for i in range(1, SIZE):
        total = sum(hand[i] for hand in hands) + played[i]
        if set_aside_possible:
            assert total <= deck[i]
        else:
            assert total == deck[i]  # conservation (nothing is set aside in this deal)
        unknown = deck[i] - played[i] - my_hand[i]
        if unknown == 0:  # entirely played or in my hand: no opponent holds it
            assert all(hands[p][i] == 0 for p in range(n) if p != me)
    partner = know.partner
    if partner is None:
        return
    held = hands[partner]
    for i in range(1, SIZE):
        still = know.gave[i] - know.partner_played[i]
        if sizes[partner] and still > 0:
            assert held[i] >= still  # the cards I gave it are still there
    threshold = partner_threshold(know)
    if threshold is None:
        return
    value, subordinate = threshold
    for i in range(1, SIZE):
        forbidden = i > value if subordinate else i < value
        if forbidden:
            # anything it holds beyond the bound must be a card I gave it
            assert held[i] <= max(know.gave[i] - know.partner_played[i], 0), (i, threshold)


def knowledge_from_deal(rules, deal, jobs, me) -> Knowledge:
    """Knowledge built directly from the true Deal's exchanges (no protocol)."""
    gave, got = [], []
    for e in deal.exchanges:
        if e.superior == me:
            gave, got = e.gave, e.got
        elif e.subordinate == me:
            gave, got = e.got, e.gave
    return Knowledge.from_session(rules, me, jobs, gave, got)


class ProbeBot(Bot):
    """Checks sample_hands and determinize at every turn against the referee's true state."""

    name = "probe"

    def __init__(self, referee_box, samples: int = 3) -> None:
        super().__init__()
        self.referee_box = referee_box
        self.samples = samples
        self.turns = 0
        self.errors: list[BaseException] = []

    def play(self, view: TurnView):
        # BotDriver turns any exception in play() into the R16 fallback: keep failures for the test.
        try:
            return self._probe(view)
        except BaseException as error:
            self.errors.append(error)
            raise

    def _probe(self, view: TurnView):
        referee = self.referee_box[0]
        truth: SessionState = referee.state
        match = referee.match
        assert truth.to_move == self.me
        rules = view.rules
        msg = view.message
        played = [0] * SIZE
        for key, count in msg.played.items():
            played[F if key == "F" else int(key)] += count
        assert played == truth.played
        deck = rules.deck(match.players)
        set_aside = any(match.deal.set_aside)
        know = view.knowledge
        # the knowledge the driver built from the protocol equals the one from the true deal
        direct = knowledge_from_deal(rules, match.deal, list(truth.jobs), self.me)
        assert (know.gave, know.got, know.partner, know.partner_is_subordinate) == (
            direct.gave, direct.got, direct.partner, direct.partner_is_subordinate
        )
        # the true hands satisfy every constraint we check samples against (the checks are sound)
        check_sample(know, truth.hands, view.hand_counts, truth.sizes, played, deck, set_aside)
        rng = random.Random(self.rng.random())
        for _ in range(self.samples):
            hands = know.sample_hands(view.hand_counts, msg.hand_sizes, played, rng)
            check_sample(know, hands, view.hand_counts, msg.hand_sizes, played, deck, set_aside)
        state = view.determinize(rng)
        assert state.to_move == truth.to_move
        assert state.hands[self.me] == truth.hands[self.me]
        assert state.legal_moves() == truth.legal_moves()
        for name in ("leader", "count", "top", "round", "sizes", "out", "new_jobs", "played", "leading"):
            assert getattr(state, name) == getattr(truth, name), name
        # a determinized state is playable to the end
        sim = state.copy()
        while not sim.over:
            sim.apply(rng.choice(sim.legal_moves()))
        assert sorted(sim.result_jobs) == list(range(1, match.players + 1))
        self.turns += 1
        return self.rng.choice(view.legal)


def play_probed(preset: str, n: int, seed: int, sessions: int, samples: int = 3) -> int:
    """Drive a match through the referee with probe bots for every player."""
    match = Match(preset, n, seed=seed, sessions=sessions)
    referee = Referee(match, [f"p{i}" for i in range(n)], Clock())
    box = [referee]
    bots = [ProbeBot(box, samples) for _ in range(n)]
    drivers = [BotDriver(bot, log=io.StringIO()) for bot in bots]
    turns = 0
    for p in range(n):
        drivers[p].handle(referee.hello(p))
    while not match.planned_sessions_done:
        for p, msg in enumerate(referee.start_session()):
            drivers[p].handle(msg)
        state = match.state
        while not state.over:
            player = state.to_move
            reply = drivers[player].handle(referee.turn(CLOCK))
            turns += 1
            if bots[player].errors:
                raise bots[player].errors[0]
            events = referee.play(parse_move(reply.cards))
            assert events[0].fault is None
            for event in events:
                for driver in drivers:
                    driver.handle(event)
    assert sum(bot.turns for bot in bots) == turns  # every turn was probed
    return turns


# --------------------------------------------------------------------------- tests


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(PRESET_NAMES), st.integers(min_value=4, max_value=8), st.integers(0, 2**32))
def test_samples_and_determinize_in_real_games(preset, n, seed):
    """At every turn of real games, every sample keeps my hand, sizes and cards, keeps what I gave
    my partner, respects the exchange inference, and determinize() matches the true legal moves."""
    assert play_probed(preset, n, seed, sessions=2, samples=2) > 0


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("n", range(4, 9))
def test_samples_every_preset_and_size(preset, n):
    """The same checks on fixed seeds for every preset and player count."""
    assert play_probed(preset, n, seed=n * 31, sessions=2, samples=2) > 0


def test_partner_constraints_are_actually_exercised():
    """The exchange constraints bind in real positions: some sample would break them if the
    sampler ignored the knowledge (guards the checks above against being vacuous)."""
    rules = get_rules("animal-poker")
    binding = 0
    for seed in range(40):
        match = Match(rules, 4, seed=seed, sessions=1)
        match.start_session()
        ceo = match.jobs.index(1)
        know = knowledge_from_deal(rules, match.deal, match.jobs, ceo)
        assert know.partner == match.jobs.index(4) and know.partner_is_subordinate
        state = match.state
        rng = random.Random(seed)
        blind = Knowledge.from_session(rules, ceo, match.jobs)  # knows nothing about the exchange
        for _ in range(20):
            hands = blind.sample_hands(state.hands[ceo], state.sizes, state.played, rng)
            try:
                check_sample(know, hands, state.hands[ceo], state.sizes, state.played, rules.deck(4), False)
            except AssertionError:
                binding += 1
    assert binding > 100


def test_partner_keeps_given_cards_unless_it_played_that_number():
    """The cards I gave my partner stay in its hand in every sample, until it plays that number."""
    rules = get_rules("animal-poker")
    jobs = [1, 2, 3, 4]
    # I am the CEO (player 0); I gave the Trainee (player 3) 2, 2, 5 and got 12, 13, F.
    know = Knowledge.from_session(rules, 0, jobs, gave=[2, 2, 5], got=[12, 13, "F"])
    assert know.partner == 3 and know.partner_is_subordinate
    my_hand = counts_from_cards([5, 6, 7, 8, 9, 10, 11, 12, 12, 13, 13, 13, "F"])
    played = [0] * SIZE
    rng = random.Random(1)
    for _ in range(200):
        hands = know.sample_hands(my_hand, [13, 13, 13, 16], played, rng)
        assert hands[3][2] >= 2 and hands[3][5] >= 1
        assert all(hands[3][i] <= (know.gave[i]) for i in range(13, SIZE))  # nothing above 12 but mine
    # the Trainee plays a 2: one given 2 may be gone, the 5 is still known
    know.record_play(3, [2])
    played[2] = 1
    seen_without = 0
    for _ in range(300):
        hands = know.sample_hands(my_hand, [13, 13, 13, 15], played, rng)
        assert hands[3][2] >= 1 and hands[3][5] >= 1
        seen_without += hands[3][2] == 1
    assert seen_without > 0
    # plays by others do not count as the partner's
    know.record_play(1, [5])
    assert know.partner_played[5] == 0


def test_superior_partner_holds_nothing_below_what_it_gave():
    """Exchange inference for a subordinate: the superior kept nothing below the highest card it
    gave me (it gave its lowest), except the cards I gave it."""
    rules = get_rules("animal-poker")
    jobs = [4, 3, 2, 1]  # I am player 0, the Trainee; the CEO is player 3
    know = Knowledge.from_session(rules, 0, jobs, gave=[13, "F", "F"], got=[3, 4, 4])
    assert know.partner == 3 and not know.partner_is_subordinate
    my_hand = counts_from_cards([1, 1, 1, 2, 2, 3, 4, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    rng = random.Random(2)
    for _ in range(300):
        hands = know.sample_hands(my_hand, [16, 13, 13, 13], [0] * SIZE, rng)
        ceo = hands[3]
        assert ceo[13] >= 1 and ceo[F] >= 2
        assert all(ceo[i] == 0 for i in range(1, 4))  # nothing below 4 (it gave 3, 4, 4)


def test_uniform_for_an_unconstrained_position():
    """With no exchange information (the unpaired middle job of 5 players) each unknown card lands
    with each opponent in proportion to its hand size (loose tolerance over 2000 samples)."""
    rules = get_rules("animal-poker")
    match = Match(rules, 5, seed=3, sessions=1)
    state = match.start_session()
    me = match.jobs.index(3)
    know = knowledge_from_deal(rules, match.deal, match.jobs, me)
    assert know.partner is None
    deck = rules.deck(5)
    my_hand = state.hands[me]
    pool = [deck[i] - my_hand[i] for i in range(SIZE)]
    pool[0] = 0
    unknown = sum(pool)
    rng = random.Random(5)
    counts = [[0] * SIZE for _ in range(5)]
    samples = 2000
    for _ in range(samples):
        hands = know.sample_hands(my_hand, state.sizes, state.played, rng)
        for p in range(5):
            for i in range(1, SIZE):
                counts[p][i] += hands[p][i]
    for p in range(5):
        if p == me:
            continue
        share = state.sizes[p] / unknown
        for i in range(1, SIZE):
            expected = samples * pool[i] * share
            if expected:
                assert abs(counts[p][i] - expected) < 0.12 * expected + 20, (p, i, counts[p][i], expected)
            else:
                assert counts[p][i] == 0


def test_uniform_including_the_set_aside_cards():
    """lazy-chaotic: the unseen set-aside cards are part of the pool: an unknown card is with an
    opponent in proportion to its hand size over all unknown cards, set-aside included."""
    rules = get_rules("lazy-chaotic")
    match = Match(rules, 5, seed=4, sessions=1)
    state = match.start_session()
    me = match.jobs.index(3)  # the unpaired middle job
    know = knowledge_from_deal(rules, match.deal, match.jobs, me)
    assert know.partner is None
    deck = rules.deck(5)
    my_hand = state.hands[me]
    unknown = sum(deck) - sum(my_hand)
    aside = 107 - 13 * 5 - 3
    assert sum(match.deal.set_aside) == aside
    rng = random.Random(6)
    thirteens = [0] * 5
    samples = 2000
    for _ in range(samples):
        hands = know.sample_hands(my_hand, state.sizes, state.played, rng)
        for p in range(5):
            thirteens[p] += hands[p][13]
    left = deck[13] - my_hand[13]
    for p in range(5):
        if p == me:
            continue
        expected = samples * left * state.sizes[p] / unknown
        assert abs(thirteens[p] - expected) < 0.12 * expected + 20, (p, thirteens[p], expected)
    expected_aside = samples * left * aside / unknown
    observed_aside = samples * left - sum(thirteens) + thirteens[me]
    assert abs(observed_aside - expected_aside) < 0.12 * expected_aside + 20
