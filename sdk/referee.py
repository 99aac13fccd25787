"""The referee: turns a :class:`~sdk.match.Match` into protocol messages (protocol.md).

Pure code shared by the in-process harness and the arena, so a bot sees exactly the same
messages in both. The caller owns transport, clocks and faults: it asks for a ``turn``, obtains a
move (or a fault), and hands it to :meth:`Referee.play`, which applies the move (or the R16
fallback) and returns the events to broadcast to every bot.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from .cards import FREELANCER, cards_from_counts
from .match import Match
from .moves import Move
from .protocol import (
    PROTOCOL_VERSION, Clock, Hello, MatchEnd, Message, Out, Played, RoundEnd, Session, SessionEnd,
    Turn, TurnClock,
)
from .rules import RuleViolation
from .session import ROUND_END, SESSION_END, WENT_OUT, SessionState

FAULTS = ("timeout", "malformed", "illegal", "crash", "disqualified")
"""Fault kinds a replaced move can carry (replay.md); ``no_hello`` disqualifies before play."""


def bot_seed(match_seed: int | str, player: int) -> int:
    """The ``hello.seed`` of a player: derived from the match seed, so matches replay exactly."""
    return random.Random(f"animal-poker/{match_seed}/bot/{player}").randrange(2**31)


def played_counts(state: SessionState) -> dict[str, int]:
    """The ``played`` field of a turn: how many of each value were played this session."""
    counts = {str(value): state.played[value] for value in range(1, state.max_number + 1)}
    if state.rules.freelancers:
        counts[FREELANCER] = state.played[-1]
    return counts


@dataclass
class Referee:
    """Produces the messages of one match, session by session and move by move."""

    match: Match
    names: list[str]
    clock: Clock = field(default_factory=Clock)
    turn_id: int = 0

    @property
    def state(self) -> SessionState:
        if self.match.state is None:
            raise RuleViolation("R14", "no session has started")
        return self.match.state

    def hello(self, player: int) -> Hello:
        match = self.match
        return Hello(
            protocol=PROTOCOL_VERSION, rules=match.rules.name, you=player, players=match.players,
            names=list(self.names), sessions=match.sessions, clock=self.clock,
            seed=bot_seed(match.seed, player),
        )

    def start_session(self) -> list[Session]:
        """Start the next session; one ``session`` message per player id."""
        match = self.match
        state = match.start_session()
        deal = match.deal
        assert deal is not None
        gave: list[list] = [[] for _ in range(match.players)]
        got: list[list] = [[] for _ in range(match.players)]
        for ex in deal.exchanges:
            gave[ex.superior], got[ex.superior] = ex.gave, ex.got
            gave[ex.subordinate], got[ex.subordinate] = ex.got, ex.gave
        return [
            Session(
                session=state.session, jobs=list(state.jobs), order=list(state.order),
                dealt=cards_from_counts(deal.dealt[p]), gave=gave[p], got=got[p],
                hand=cards_from_counts(deal.hands[p]),
            )
            for p in range(match.players)
        ]

    def turn(self, clock: TurnClock, legal: bool = True) -> Turn:
        """The ``turn`` message for the player to move (a new, unique ``id``)."""
        state = self.state
        self.turn_id += 1
        player = state.to_move
        leading = state.leading
        return Turn(
            id=self.turn_id, session=state.session, round=state.round,
            hand=cards_from_counts(state.hands[player]), lead=leading,
            count=None if leading else state.count, top=None if leading else state.top,
            round_plays=[(p, m.cards) for p, m in state.round_plays],
            hand_sizes=state.sizes[:], jobs=list(state.jobs),
            out=[(p, state.new_jobs[p]) for p in state.out], played=played_counts(state),
            clock=clock, legal=[m.cards for m in state.legal_moves()] if legal else None,
        )

    def play(self, move: Move | None, fault: str | None = None) -> list[Message]:
        """Apply the mover's ``move``, or the R16 fallback when ``fault`` is set or the move is illegal.

        Returns the events for every bot: ``played``, then ``out``, ``round_end`` or
        ``session_end`` as they happened. An illegal move becomes an ``illegal`` fault.
        """
        state = self.state
        player = state.to_move
        if fault is None and (move is None or not state.is_legal(move)):
            fault = "illegal"
        if fault is not None:
            move = state.fallback_move()
        assert move is not None
        session, rnd = state.session, state.round
        flags = state.apply(move, check=False)
        events: list[Message] = [Played(session=session, round=rnd, player=player, cards=move.cards, fault=fault)]
        if flags & WENT_OUT:
            events.append(Out(session=session, player=player, job=state.new_jobs[player]))
        if flags & ROUND_END:
            events.append(RoundEnd(session=session, round=rnd, winner=state.last_winner, next=state.last_next))
        if flags & SESSION_END:
            jobs = self.match.record_result()
            events.append(SessionEnd(session=session, jobs=list(jobs)))
        return events

    def match_end(self, disqualified: Sequence[int] = ()) -> MatchEnd:
        """R15 (and R16: disqualified bots rank below everyone else, in their job order)."""
        ranking = final_ranking(self.match, disqualified)
        return MatchEnd(ranking=ranking, winner=ranking[0])


def final_ranking(match: Match, disqualified: Sequence[int] = ()) -> list[int]:
    """R15 ranking with R16 applied: every disqualified bot below every bot that was not."""
    out = set(disqualified)
    ranking = match.ranking
    return [p for p in ranking if p not in out] + [p for p in ranking if p in out]
