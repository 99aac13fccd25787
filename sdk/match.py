"""A match: sessions in sequence (R14), the final ranking and winner (R15)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from .deal import Deal, deal, initial_jobs
from .rules import Rules, RuleViolation, get_rules
from .session import SessionState


class Match:
    """Sessions of one match, each prepared from the previous one's jobs (R13).

    ``sessions`` is the planned count (None in timed mode: the caller decides when to stop,
    R14). ``jobs`` overrides the random first jobs (R3), which seat rotation uses.
    """

    def __init__(
        self, rules: Rules | str, players: int, seed: int | str = 0, sessions: int | None = None,
        jobs: Sequence[int] | None = None,
    ) -> None:
        self.rules = get_rules(rules)
        self.rules.check_players(players)
        if sessions is not None and sessions < 1:
            raise RuleViolation("R14", f"a match has at least one session, not {sessions}")
        self.players = players
        self.seed = seed
        self.sessions = sessions
        self.jobs: list[int] = list(jobs) if jobs is not None else initial_jobs(seed, players)
        if sorted(self.jobs) != list(range(1, players + 1)):
            raise RuleViolation("R3", f"jobs must be the ranks 1..{players} once each, not {self.jobs}")
        self.session_no = 0
        self.state: SessionState | None = None
        self.deal: Deal | None = None
        self.results: list[list[int]] = []
        """The new jobs at the end of every finished session."""

    @property
    def planned_sessions_done(self) -> bool:
        """True once the configured number of sessions has been played (R14)."""
        return self.sessions is not None and len(self.results) >= self.sessions

    def start_session(self) -> SessionState:
        """Seat by job (R4), deal (R5), exchange (R6) and start the next session."""
        if self.state is not None and not self.state.over:
            raise RuleViolation("R14", "a started session is always finished before the next one")
        if self.state is not None:
            self.record_result()
        self.session_no += 1
        self.deal = deal(self.rules, self.jobs, self.seed, self.session_no)
        leader = None
        if self.session_no == 1 and self.rules.random_first_leader:
            # A random *job* leads, so seat rotation still gives every bot every position (duplicate).
            rank = random.Random(f"animal-poker/{self.seed}/first-leader").randrange(1, self.players + 1)
            leader = self.jobs.index(rank)
        self.state = SessionState.start(self.rules, self.jobs, self.deal.hands, self.session_no, leader)
        return self.state

    def record_result(self) -> list[int]:
        """Take the finished session's jobs as the match's current jobs (idempotent)."""
        state = self.state
        if state is None or not state.over:
            raise RuleViolation("R13", "the session is not over yet")
        if len(self.results) < self.session_no:
            self.jobs = state.result_jobs
            self.results.append(self.jobs[:])
        return self.jobs

    @property
    def ranking(self) -> list[int]:
        """R15: player ids in the job order of the last result, CEO (the winner) first."""
        if not self.results:
            raise RuleViolation("R15", "no session has finished yet")
        jobs = self.results[-1]
        return sorted(range(self.players), key=lambda player: jobs[player])

    @property
    def winner(self) -> int:
        """R15: the player who most recently claimed the CEO job."""
        return self.ranking[0]
