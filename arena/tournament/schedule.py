"""The schedule of a tournament (tournament.md, 'Schedule'): a pure function of the file.

A *group* is ``seats`` bots and a seed. With ``seats`` a list, group ``g`` has ``seats[g % len(seats)]``
players. With ``rotation: true`` each group is played once per cyclic rotation of the first-session
jobs (``sdk.deal.initial_jobs(seed, n, r)``), with the same seed: deals go by job, so every bot holds
every starting hand once (duplicate play). ``matches`` counts groups.

Drawing groups when there are more bots than seats: members are picked one at a time from the bots
that have played the fewest matches so far; among those, the ones that met the members already
picked the least; remaining ties are broken by an RNG seeded from the file's seed. Picking the least
played keeps the spread of matches played per bot within one group's worth (``seats`` matches with
rotation, 1 without); the second key makes opponents vary. Seat order (player ids) inside a group
is shuffled by the same RNG.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from arena.match import MatchConfig
from sdk.deal import initial_jobs

from .config import TournamentConfig

__all__ = ["ScheduledMatch", "build_schedule", "group_seed", "match_config"]


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of the schedule. Player id = position in ``bots``."""

    index: int
    """0-based position in schedule order (the order ratings use)."""
    group: int
    rotation: int
    """0..seats-1 with rotation, always 0 without."""
    seats: int
    bots: tuple[str, ...]
    seed: int
    jobs: tuple[int, ...]
    """First-session jobs (rank per player id): ``initial_jobs(seed, seats, rotation)``."""

    @property
    def match_id(self) -> str:
        return f"m{self.index:05d}-g{self.group}-r{self.rotation}"


def group_seed(seed: int, group: int) -> int:
    """The seed of group ``group``, derived from the file's seed (a 32-bit int)."""
    return random.Random(f"{seed}/group/{group}").getrandbits(32)


def build_schedule(config: TournamentConfig) -> list[ScheduledMatch]:
    """Every match of the tournament in schedule order. Same config, same schedule, always."""
    names = list(config.bot_names)
    rng = random.Random(f"{config.seed}/schedule")
    played = dict.fromkeys(names, 0)
    met = {b: dict.fromkeys(names, 0) for b in names}
    schedule: list[ScheduledMatch] = []
    for group in range(config.matches):
        k = config.seats[group % len(config.seats)]
        members = _draw_group(names, k, played, met, rng)
        rng.shuffle(members)
        seed = group_seed(config.seed, group)
        rotations = range(k) if config.rotation else range(1)
        bots = tuple(members)
        for r in rotations:
            schedule.append(ScheduledMatch(
                index=len(schedule), group=group, rotation=r, seats=k, bots=bots, seed=seed,
                jobs=tuple(initial_jobs(seed, k, r)),
            ))
        for b in members:
            played[b] += len(rotations)
            row = met[b]
            for c in members:
                if c != b:
                    row[c] += 1
    return schedule


def _draw_group(
    names: list[str], k: int, played: dict[str, int], met: dict[str, dict[str, int]], rng: random.Random,
) -> list[str]:
    chosen: list[str] = []
    remaining = list(names)  # file order, so the RNG's choices are reproducible
    while len(chosen) < k:
        best_key: tuple[int, int] | None = None
        best: list[str] = []
        for b in remaining:
            row = met[b]
            key = (played[b], sum(row[c] for c in chosen))
            if best_key is None or key < best_key:
                best_key, best = key, [b]
            elif key == best_key:
                best.append(b)
        pick = best[0] if len(best) == 1 else rng.choice(best)
        chosen.append(pick)
        remaining.remove(pick)
    return chosen


def match_config(config: TournamentConfig, match: ScheduledMatch, grace_s: float = 1.0) -> MatchConfig:
    """The :class:`arena.match.MatchConfig` that plays ``match`` of the tournament ``config``."""
    return MatchConfig(
        rules=config.rules, sessions=config.sessions, duration_s=config.duration_s, seed=match.seed,
        clock=config.clock.to_clock(), fault_limit=config.limits.fault_limit, jobs=match.jobs,
        match_id=match.match_id, grace_s=grace_s,
    )
