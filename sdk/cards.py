"""Cards and hands.

On the wire (protocol.md) a card is an int ``1..13`` (``14`` for the value-14 jokers of the
``karriere-1988`` preset) or the string ``"F"`` for a freelancer. Inside the engine a hand is a
*count vector*: a list of 16 ints where index ``v`` (1..14) counts the number cards of value ``v``
and index :data:`F` (15) counts freelancers. Index 0 is unused. Count vectors are cheap to copy
and compare, which is what search bots need.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Union

Card = Union[int, str]

FREELANCER = "F"
F = 15
"""Index of the freelancers in a count vector (they sort last: 'freelancers count highest', R6)."""
SIZE = 16
"""Length of a count vector."""
MAX_NUMBER = 14
"""The highest number any preset uses (14 only for the karriere-1988 jokers)."""
FREELANCERS_ALONE = 14
"""R7: a play of freelancers alone is worth 14 (above a 13)."""
CARD_INDEXES = tuple(range(1, SIZE))
"""Every valid count-vector index, lowest card first, freelancers last."""


def card_index(card: Card) -> int:
    """The count-vector index of a wire card; raises ValueError for anything else."""
    if card == FREELANCER:
        return F
    if type(card) is int and 1 <= card <= MAX_NUMBER:
        return card
    raise ValueError(f"unknown card {card!r}: cards are 1..{MAX_NUMBER} or 'F'")


def index_card(index: int) -> Card:
    """The wire card of a count-vector index."""
    return FREELANCER if index == F else index


def empty_counts() -> list[int]:
    """A count vector with no cards."""
    return [0] * SIZE


def counts_from_cards(cards: Iterable[Card]) -> list[int]:
    """The count vector of a list of wire cards."""
    counts = [0] * SIZE
    for card in cards:
        counts[card_index(card)] += 1
    return counts


def cards_from_counts(counts: Sequence[int]) -> list[Card]:
    """Wire cards of a count vector, sorted ascending with freelancers last (protocol.md)."""
    cards: list[Card] = []
    for index in range(1, F):
        if counts[index]:
            cards.extend([index] * counts[index])
    if counts[F]:
        cards.extend([FREELANCER] * counts[F])
    return cards


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Wire cards sorted as protocol.md wants them: ascending numbers, freelancers last."""
    return cards_from_counts(counts_from_cards(cards))


def lowest(counts: Sequence[int], k: int) -> list[int]:
    """The indexes of the ``k`` lowest cards in a count vector (freelancers count highest, R6)."""
    picked: list[int] = []
    for index in range(1, SIZE):
        take = min(counts[index], k - len(picked))
        picked.extend([index] * take)
        if len(picked) == k:
            break
    return picked


def highest(counts: Sequence[int], k: int) -> list[int]:
    """The indexes of the ``k`` highest cards in a count vector (freelancers count highest, R6)."""
    picked: list[int] = []
    for index in range(SIZE - 1, 0, -1):
        take = min(counts[index], k - len(picked))
        picked.extend([index] * take)
        if len(picked) == k:
            break
    return picked
