"""Play a whole match between :class:`~sdk.bot.Bot` objects in one process, no subprocesses.

The bots receive exactly the protocol messages the arena would send (built by the same
:class:`~sdk.referee.Referee`), so a bot behaves the same here and as a process. Use it in a bot's
unit tests and in search bots that simulate opponents.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .bot import Bot, BotDriver
from .match import Match
from .moves import Move, parse_move
from .protocol import Clock, Message, MoveMsg, Ready, Turn, TurnClock, decode, encode
from .referee import Referee
from .rules import Rules, RuleViolation


@dataclass
class MatchResult:
    """The outcome of an in-process match (R15)."""

    ranking: list[int]
    winner: int
    results: list[list[int]]
    """The jobs after every session (rank per player id)."""
    faults: list[int]
    """Faults per player id: illegal or malformed moves (what the arena would count)."""
    errors: list[int] = field(default_factory=list)
    """Exceptions raised by each bot's play(); the SDK answered each with the fallback move, as it
    does in the arena (where they are not faults), so assert on this in a bot's unit tests."""
    turns: int = 0
    names: list[str] = field(default_factory=list)

    @property
    def sessions_played(self) -> int:
        return len(self.results)


def play_match(
    bots: Sequence[Bot],
    rules: Rules | str = "animal-poker",
    sessions: int = 8,
    seed: int | str = 0,
    jobs: Sequence[int] | None = None,
    wire: bool = False,
    on_message: Callable[[int | None, Message], None] | None = None,
) -> MatchResult:
    """Play ``sessions`` sessions between ``bots`` (player id = position in the list).

    ``jobs`` fixes the first session's jobs (seat rotation); ``wire=True`` sends every message
    through its JSON encoding, as the arena would; ``on_message(player, msg)`` sees every message
    sent (player None = broadcast) and every reply.
    """
    match = Match(rules, len(bots), seed=seed, sessions=sessions, jobs=jobs)
    drivers = [BotDriver(bot) for bot in bots]
    names = [bot.name for bot in bots]
    referee = Referee(match, names, Clock())
    clock = TurnClock(move_ms=Clock().move_ms, bank_ms=Clock().bank_ms)
    faults = [0] * len(bots)

    def send(player: int, msg: Message) -> Message | None:
        if wire:
            msg = decode(encode(msg))
        if on_message is not None:
            on_message(player, msg)
        reply = drivers[player].handle(msg)
        if reply is not None and wire:
            reply = decode(encode(reply))
        if reply is not None and on_message is not None:
            on_message(player, reply)
        return reply

    def broadcast(messages: Sequence[Message]) -> None:
        for msg in messages:
            for player in range(len(bots)):
                send(player, msg)

    wants_legal = []
    for player in range(len(bots)):
        ready = send(player, referee.hello(player))
        wants_legal.append(ready.legal if isinstance(ready, Ready) else True)
    turns = 0
    while not match.planned_sessions_done:
        for player, msg in enumerate(referee.start_session()):
            send(player, msg)
        state = match.state
        assert state is not None
        while not state.over:
            player = state.to_move
            turn = referee.turn(clock, legal=wants_legal[player])
            move, fault = _read_move(send(player, turn), turn)
            if fault is not None:
                faults[player] += 1
            events = referee.play(move, fault)
            if events[0].fault == "illegal" and fault is None:
                faults[player] += 1
            broadcast(events)
            turns += 1
    end = referee.match_end()
    broadcast([end])
    errors = [driver.errors for driver in drivers]
    return MatchResult(end.ranking, end.winner, [r[:] for r in match.results], faults, errors, turns, names)


def _read_move(reply: Message | None, turn: Turn) -> tuple[Move | None, str | None]:
    if not isinstance(reply, MoveMsg) or reply.id != turn.id:
        return None, "malformed"
    try:
        return parse_move(reply.cards), None
    except (RuleViolation, ValueError):
        return None, "illegal"
