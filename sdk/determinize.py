"""Determinization for search bots: sample the hidden hands consistent with what one player knows.

What a player knows in a session (all public except its own exchange): its own hand, every card
played and by whom, every hand size, and the exchange it took part in (R6):
- the cards it *gave* its partner are in the partner's hand, unless the partner has since played
  cards of that number;
- a superior receives its subordinate's K *highest* cards, so the subordinate kept nothing higher
  than the lowest of them; a subordinate receives its superior's K *lowest* cards, so the superior
  kept nothing lower than the highest of them (freelancers count highest, R6).
Cards set aside unseen (lazy-chaotic, the first karriere-1988 game) are part of the unknown pool.

Sampling is uniform over the deals that satisfy these constraints: cards are distinct objects, the
constrained partner draws first from the cards it may hold, and the others share the rest.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from .cards import SIZE, Card, counts_from_cards
from .rules import Rules


@dataclass
class Knowledge:
    """One player's private information about the session in progress."""

    rules: Rules
    me: int
    jobs: list[int]
    gave: list[int] = field(default_factory=lambda: [0] * SIZE)
    """What I gave my exchange partner (count vector)."""
    got: list[int] = field(default_factory=lambda: [0] * SIZE)
    """What my exchange partner gave me (count vector)."""
    partner: int | None = None
    partner_is_subordinate: bool = False
    partner_played: list[int] = field(default_factory=lambda: [0] * SIZE)
    """What my partner has played this session (count vector)."""
    _deck: list[int] = field(default_factory=list, repr=False)

    @classmethod
    def from_session(
        cls, rules: Rules, me: int, jobs: Sequence[int], gave: Sequence[Card] = (), got: Sequence[Card] = (),
    ) -> Knowledge:
        """Knowledge at the start of a session, from the protocol's ``session`` message."""
        n = len(jobs)
        know = cls(rules, me, list(jobs), counts_from_cards(gave), counts_from_cards(got))
        if gave or got:
            by_job = {job: player for player, job in enumerate(jobs)}
            partner_job = n + 1 - jobs[me]
            know.partner = by_job[partner_job]
            know.partner_is_subordinate = jobs[me] < partner_job
        return know

    def record_play(self, player: int, cards: Sequence[Card]) -> None:
        """Note a play seen in a ``played`` message."""
        if player == self.partner and cards:
            for index, count in enumerate(counts_from_cards(cards)):
                self.partner_played[index] += count

    def partner_range(self) -> range:
        """Card indexes my partner may hold beyond my gift, by what it gave me (R6)."""
        received = [i for i in range(1, SIZE) if self.got[i]]
        if not received:
            return range(1, SIZE)
        if self.partner_is_subordinate:
            return range(1, received[0] + 1)  # it gave me its highest cards
        return range(received[-1], SIZE)  # it gave me its lowest cards

    def sample_hands(
        self, hand: Sequence[int], hand_sizes: Sequence[int], played: Sequence[int], rng: random.Random,
    ) -> list[list[int]]:
        """Hands for every player (``hand`` is mine), uniform over the consistent deals.

        ``hand`` and ``played`` are count vectors (my hand; every card played this session).
        """
        n = len(self.jobs)
        deck = self._deck
        if not deck:
            deck = self._deck = self.rules.deck(n)
        pool = [deck[i] - hand[i] - played[i] for i in range(SIZE)]
        pool[0] = 0
        hands = [[0] * SIZE for _ in range(n)]
        hands[self.me] = list(hand)
        need = list(hand_sizes)
        need[self.me] = 0
        partner = self.partner
        if partner is not None and need[partner]:
            mine = hands[partner]
            for index in range(1, SIZE):
                known = min(self.gave[index] - self.partner_played[index], need[partner], pool[index])
                if known > 0:
                    mine[index] += known
                    pool[index] -= known
                    need[partner] -= known
            if need[partner]:
                eligible = [i for i in self.partner_range() for _ in range(pool[i])]
                for index in rng.sample(eligible, min(need[partner], len(eligible))):
                    mine[index] += 1
                    pool[index] -= 1
                    need[partner] -= 1
        rest = [i for i in range(1, SIZE) if pool[i] for _ in range(pool[i])]
        rng.shuffle(rest)
        at = 0
        for player in range(n):
            k = need[player]
            if k:
                target = hands[player]
                for index in rest[at : at + k]:
                    target[index] += 1
                at += k
        return hands
