"""Rule presets as data (rules.md, 'Variants') and the exception every rule breach raises.

The engine reads these parameters; there is one engine for every preset, not one copy per preset.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_PLAYERS = 4
MAX_PLAYERS = 8
HAND_SIZE = 13
"""R5: every player is dealt 13 cards."""


class RuleViolation(ValueError):
    """A rule of rules.md was broken; ``rule`` is its id (e.g. ``"R9"``)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.detail = message


@dataclass(frozen=True)
class Rules:
    """The parameters that tell the presets apart. Build one with :func:`get_rules`."""

    name: str
    number_sets: int | None = None
    """How many sets of 1..13 are in the deck: None = one per player (R2); 8 for lazy-chaotic."""
    freelancers: int = 3
    """R2: exactly 3 freelancers (0 in karriere-1988)."""
    jokers: tuple[int, ...] = (0,) * 9
    """Value-14 jokers by player count (karriere-1988: 2 for 4-5, 3 for 6-7, 4 for 8)."""
    trainee_extra: int | None = None
    """Cards the Trainee gets beyond 13: None = all leftovers (R5), else that many, the rest aside."""
    leftovers_aside_first_session: bool = False
    """karriere-1988: in the first game the leftovers are set aside unseen."""
    exchange: tuple[tuple[int, ...], ...] = ((), (), (), (), (3, 2), (3, 2), (3, 2, 1), (3, 2, 1), (3, 2, 1))
    """R6: cards exchanged by the pair (rank i, rank N+1-i), by player count."""
    exchange_first_session: bool = True
    """R6: the exchange happens in every session, the first included (not in karriere-1988)."""
    random_first_leader: bool = False
    """karriere-1988: a random player leads the first game (otherwise the CEO leads, R8)."""
    equal_allowed: bool = False
    """equal-allowed: R9 with 'same or higher' instead of 'strictly higher'."""
    previous_result_succession: bool = False
    """karriere-1988: when the trick winner is out, the lead goes by last game's places (not R11)."""

    def check_players(self, n: int) -> None:
        """R1: 4 to 8 players."""
        if not isinstance(n, int) or not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise RuleViolation("R1", f"Animal Poker needs 4 to 8 players, not {n}")

    def deck(self, n: int) -> list[int]:
        """R2: the deck for ``n`` players as a count vector."""
        from .cards import F, SIZE

        self.check_players(n)
        counts = [0] * SIZE
        sets = self.number_sets if self.number_sets is not None else n
        for value in range(1, 14):
            counts[value] = sets
        counts[14] = self.jokers[n]
        counts[F] = self.freelancers
        return counts

    @property
    def max_number(self) -> int:
        """The highest number card of this preset (13, or 14 with jokers)."""
        return 14 if any(self.jokers) else 13


ANIMAL_POKER = Rules(name="animal-poker")
LAZY_CHAOTIC = Rules(name="lazy-chaotic", number_sets=8, trainee_extra=3)
KARRIERE_1988 = Rules(
    name="karriere-1988",
    freelancers=0,
    jokers=(0, 0, 0, 0, 2, 2, 3, 3, 4),
    leftovers_aside_first_session=True,
    exchange=((), (), (), (), (2, 1), (2, 1), (3, 2, 1), (3, 2, 1), (4, 3, 2, 1)),
    exchange_first_session=False,
    random_first_leader=True,
    previous_result_succession=True,
)
EQUAL_ALLOWED = Rules(name="equal-allowed", equal_allowed=True)

PRESETS: dict[str, Rules] = {r.name: r for r in (ANIMAL_POKER, LAZY_CHAOTIC, KARRIERE_1988, EQUAL_ALLOWED)}
DEFAULT_PRESET = ANIMAL_POKER.name


def get_rules(name: str | Rules = DEFAULT_PRESET) -> Rules:
    """The preset called ``name``; raises ValueError naming the known presets otherwise."""
    if isinstance(name, Rules):
        return name
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise ValueError(f"unknown rules preset {name!r} (known: {known})") from None
