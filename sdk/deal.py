"""Preparing a session: the deal (R5) and the automatic exchange (R6).

Deals go *by job*: the shuffle depends only on the match seed and the session number, and the
hand dealt to job rank ``r`` is the same whoever holds that job. That is what makes seat
rotation a duplicate format: every bot holds every starting hand once.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import SIZE, Card, cards_from_counts, highest, lowest
from .rules import HAND_SIZE, Rules


@dataclass(frozen=True)
class Exchange:
    """One pair's exchange (R6): ``gave`` went from superior to subordinate, ``got`` the other way."""

    superior: int
    subordinate: int
    gave: list[Card]
    got: list[Card]


@dataclass(frozen=True)
class Deal:
    """Everything that happened before the first play of a session (count vectors per player id)."""

    dealt: list[list[int]]
    exchanges: list[Exchange]
    hands: list[list[int]]
    set_aside: list[int]


def session_rng(seed: int | str, session: int) -> random.Random:
    """R5: the shuffle of a session comes from the match seed and the session number."""
    return random.Random(f"animal-poker/{seed}/session/{session}")


def initial_jobs(seed: int | str, n: int, rotation: int = 0) -> list[int]:
    """R3: the first session's jobs (rank per player id), drawn from the match seed.

    ``rotation`` shifts them cyclically: player ``p`` gets the job player ``p + rotation`` has in
    rotation 0, so rotations ``0..n-1`` give every player every starting job once.
    """
    ranks = list(range(1, n + 1))
    random.Random(f"animal-poker/{seed}/jobs").shuffle(ranks)
    return [ranks[(p + rotation) % n] for p in range(n)]


def deal(rules: Rules, jobs: list[int], seed: int | str, session: int) -> Deal:
    """Shuffle, deal 13 per player by job, give the leftovers (R5) and exchange (R6)."""
    n = len(jobs)
    deck_counts = rules.deck(n)
    deck = [index for index in range(1, SIZE) for _ in range(deck_counts[index])]
    session_rng(seed, session).shuffle(deck)
    by_job = [0] * (n + 1)
    for player, job in enumerate(jobs):
        by_job[job] = player
    dealt = [[0] * SIZE for _ in range(n)]
    for rank in range(1, n + 1):
        hand = dealt[by_job[rank]]
        for index in deck[(rank - 1) * HAND_SIZE : rank * HAND_SIZE]:
            hand[index] += 1
    leftovers = deck[n * HAND_SIZE :]
    if session == 1 and rules.leftovers_aside_first_session:
        to_trainee, aside = [], leftovers
    elif rules.trainee_extra is None:
        to_trainee, aside = leftovers, []
    else:
        to_trainee, aside = leftovers[: rules.trainee_extra], leftovers[rules.trainee_extra :]
    for index in to_trainee:
        dealt[by_job[n]][index] += 1
    set_aside = [0] * SIZE
    for index in aside:
        set_aside[index] += 1

    hands = [hand[:] for hand in dealt]
    exchanges: list[Exchange] = []
    if session > 1 or rules.exchange_first_session:
        for pair, k in enumerate(rules.exchange[n]):
            superior, subordinate = by_job[pair + 1], by_job[n - pair]
            # Both sides choose from their hands as dealt, at the same moment (R6).
            gave = lowest(dealt[superior], k)
            got = highest(dealt[subordinate], k)
            for index in gave:
                hands[superior][index] -= 1
                hands[subordinate][index] += 1
            for index in got:
                hands[subordinate][index] -= 1
                hands[superior][index] += 1
            exchanges.append(Exchange(superior, subordinate, _cards(gave), _cards(got)))
    return Deal(dealt=dealt, exchanges=exchanges, hands=hands, set_aside=set_aside)


def _cards(indexes: list[int]) -> list[Card]:
    counts = [0] * SIZE
    for index in indexes:
        counts[index] += 1
    return cards_from_counts(counts)
