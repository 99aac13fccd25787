"""Moves (R7) and precomputed move tables for fast legal-move generation (R8, R9).

A :class:`Move` is ``(value, numbers, freelancers)``: the play's value (the number, or 14 for
freelancers alone, 0 for a pass), how many number cards and how many freelancers it uses.
Every possible move is interned once, so generating legal moves allocates nothing but a list.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .cards import F, FREELANCER, FREELANCERS_ALONE, MAX_NUMBER, Card, card_index
from .rules import RuleViolation

MAX_COPIES = 8
"""The most copies of one number a hand can hold (8 sets in lazy-chaotic)."""
MAX_FREELANCERS = 3
MAX_COUNT = MAX_COPIES + MAX_FREELANCERS


class Move(NamedTuple):
    """A play or a pass. Build moves with :func:`make_move`, :func:`parse_move` or the engine."""

    value: int
    """The play's value: its number, 14 for freelancers alone (R7), 0 for a pass."""
    numbers: int
    """How many number cards it plays."""
    freelancers: int
    """How many freelancers it plays."""

    @property
    def count(self) -> int:
        """How many cards it plays (0 for a pass)."""
        return self.numbers + self.freelancers

    @property
    def is_pass(self) -> bool:
        return self.numbers == 0 and self.freelancers == 0

    @property
    def freelancers_alone(self) -> bool:
        """True for a play of freelancers only (worth 14, R7)."""
        return self.numbers == 0 and self.freelancers > 0

    @property
    def cards(self) -> list[Card]:
        """The wire cards, ascending with freelancers last; ``[]`` for a pass."""
        return [self.value] * self.numbers + [FREELANCER] * self.freelancers

    def __repr__(self) -> str:
        return "Move(pass)" if self.is_pass else f"Move({self.cards})"


PASS = Move(0, 0, 0)

# _TABLE[value][numbers][freelancers]: the interned moves.
_TABLE: list[list[list[Move | None]]] = [
    [[None] * (MAX_FREELANCERS + 1) for _ in range(MAX_COPIES + 1)] for _ in range(MAX_NUMBER + 1)
]
for _v in range(1, MAX_NUMBER + 1):
    for _n in range(1, MAX_COPIES + 1):
        for _f in range(MAX_FREELANCERS + 1):
            _TABLE[_v][_n][_f] = Move(_v, _n, _f)
FREELANCER_MOVES: tuple[Move, ...] = tuple(Move(FREELANCERS_ALONE, 0, f) for f in range(MAX_FREELANCERS + 1))
"""FREELANCER_MOVES[f]: f freelancers alone (index 0 is unused)."""


def make_move(value: int, numbers: int, freelancers: int = 0) -> Move:
    """The interned move; ``make_move(0, 0, 0)`` is :data:`PASS`."""
    if numbers == 0:
        if freelancers == 0:
            return PASS
        return FREELANCER_MOVES[freelancers]
    return _TABLE[value][numbers][freelancers]  # type: ignore[return-value]


def parse_move(cards: Iterable[Card]) -> Move:
    """The move of a list of wire cards; raises RuleViolation(R7) if they are not one number."""
    number = 0
    numbers = freelancers = 0
    for card in cards:
        index = card_index(card)
        if index == F:
            freelancers += 1
            continue
        if number and index != number:
            raise RuleViolation("R7", f"a play is cards of one number (plus freelancers), not {list(cards)}")
        number = index
        numbers += 1
    if freelancers > MAX_FREELANCERS or numbers > MAX_COPIES:
        raise RuleViolation("R2", f"no deck holds the cards {list(cards)}")
    return make_move(number, numbers, freelancers)


def _lead_moves(value: int, held: int, free: int) -> tuple[Move, ...]:
    return tuple(_TABLE[value][n][f] for n in range(1, held + 1) for f in range(free + 1))  # type: ignore[misc]


def _follow_moves(value: int, held: int, free: int, count: int) -> tuple[Move, ...]:
    return tuple(
        _TABLE[value][n][count - n]  # type: ignore[misc]
        for n in range(max(1, count - free), min(held, count) + 1)
    )


LEAD: list[list[list[tuple[Move, ...]]]] = [
    [[_lead_moves(v, h, f) for f in range(MAX_FREELANCERS + 1)] for h in range(MAX_COPIES + 1)]
    for v in range(MAX_NUMBER + 1)
]
"""LEAD[value][held][freelancers held]: every lead using that number (R8)."""
FOLLOW: list[list[list[list[tuple[Move, ...]]]]] = [
    [
        [[_follow_moves(v, h, f, c) for c in range(MAX_COUNT + 1)] for f in range(MAX_FREELANCERS + 1)]
        for h in range(MAX_COPIES + 1)
    ]
    for v in range(MAX_NUMBER + 1)
]
"""FOLLOW[value][held][freelancers held][count]: every follow of ``count`` cards using that number (R9)."""
LEAD_FREELANCERS: tuple[tuple[Move, ...], ...] = tuple(
    tuple(FREELANCER_MOVES[f] for f in range(1, free + 1)) for free in range(MAX_FREELANCERS + 1)
)
"""LEAD_FREELANCERS[freelancers held]: every lead of freelancers alone."""


def holds(hand: Sequence[int], move: Move) -> bool:
    """True if the hand (a count vector) holds the cards of ``move``."""
    if move.numbers and hand[move.value] < move.numbers:
        return False
    return hand[F] >= move.freelancers
