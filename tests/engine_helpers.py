"""Helpers shared by the engine tests: hands from wire cards, hand-built sessions, stacked decks."""

from __future__ import annotations

import importlib
import random

from sdk.cards import card_index, counts_from_cards
from sdk.deal import Deal, deal
from sdk.moves import Move, parse_move
from sdk.rules import Rules, get_rules
from sdk.session import SessionState

DEAL_MODULE = importlib.import_module("sdk.deal")  # `sdk.deal` is shadowed by the function
AP = get_rules("animal-poker")


def H(*cards) -> list[int]:
    """A count vector from wire cards."""
    return counts_from_cards(cards)


def M(*cards) -> Move:
    """A move from wire cards (no cards = pass)."""
    return parse_move(list(cards))


def start(hands, jobs=None, rules: Rules = AP, leader=None) -> SessionState:
    """A session with explicit hands (lists of wire cards); jobs default to rank = id + 1."""
    jobs = list(jobs) if jobs is not None else list(range(1, len(hands) + 1))
    return SessionState.start(rules, jobs, [H(*hand) for hand in hands], leader=leader)


class _Stacked:
    """A stand-in for the session rng whose shuffle lays the deck out in a chosen order."""

    def __init__(self, order):
        self.order = order

    def shuffle(self, deck):
        assert sorted(deck) == sorted(self.order), "the stacked deck must be a permutation of the deck"
        deck[:] = self.order


def stacked_deal(monkeypatch, rules, jobs, hands_by_rank, leftovers=(), session=1) -> Deal:
    """deal() with the deck stacked: rank r is dealt hands_by_rank[r - 1], then the leftovers."""
    order = [card_index(c) for hand in hands_by_rank for c in hand] + [card_index(c) for c in leftovers]
    monkeypatch.setattr(DEAL_MODULE, "session_rng", lambda seed, session: _Stacked(order))
    return deal(rules, list(jobs), 0, session)


def play_random_session(state: SessionState, rng: random.Random) -> None:
    """Play uniformly random legal moves to the end of the session."""
    while not state.over:
        state.apply(rng.choice(state.legal_moves()))
