"""Animal Poker: the rules engine and the bot SDK (standard library only)."""

from .cards import FREELANCER, Card, cards_from_counts, counts_from_cards, sort_cards
from .deal import Deal, Exchange, deal, initial_jobs
from .match import Match
from .moves import PASS, Move, make_move, parse_move
from .rules import PRESETS, Rules, RuleViolation, get_rules
from .session import ROUND_END, SESSION_END, WENT_OUT, SessionState

__all__ = [
    "FREELANCER", "Card", "cards_from_counts", "counts_from_cards", "sort_cards",
    "Deal", "Exchange", "deal", "initial_jobs", "Match", "PASS", "Move", "make_move", "parse_move",
    "PRESETS", "Rules", "RuleViolation", "get_rules",
    "ROUND_END", "SESSION_END", "WENT_OUT", "SessionState",
]
