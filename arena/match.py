"""Timed multi-session matches between bots behind channels (protocol.md, rules R14-R16).

The match loop is transport-agnostic: each seat is a :class:`Channel` (a real sandboxed process in
the arena, a scripted in-process bot in tests, as python-chess does with its transports). It owns
the clocks and the faults: ``timeout``, ``malformed``, ``illegal``, ``crash`` and ``no_hello``, each
replaced by the R16 fallback move, with disqualification at a crash or at the fault limit.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from sdk.match import Match
from sdk.moves import Move, parse_move
from sdk.protocol import (
    BOT_MESSAGE_TYPES, Clock, Message, MoveMsg, ProtocolError, Ready, TurnClock, decode,
)
from sdk.referee import Referee
from sdk.rules import RuleViolation, get_rules

from .replay import ReplayWriter

log = logging.getLogger(__name__)

FAULT_KINDS = ("timeout", "malformed", "illegal", "crash", "no_hello")


@dataclass
class Reply:
    """What a channel read: ``kind`` is ``line``, ``timeout``, ``eof`` or ``too_long``."""

    kind: str
    text: str = ""
    elapsed_s: float = 0.0
    """Seconds from the last send to this channel to the end of the reply line."""


@dataclass
class ChannelExit:
    """How a bot's process ended (for the results)."""

    status: str = "closed"
    peak_memory_kb: int | None = None
    cpu_s: float | None = None


class Channel(Protocol):
    """One bot's line-based connection."""

    isolation: str

    def send(self, line: str) -> bool:
        """Write one line (no newline); False if the bot is gone."""

    def receive(self, timeout_s: float) -> Reply:
        """The next line, waiting at most ``timeout_s`` seconds."""

    def close_input(self) -> None:
        """Close the bot's stdin: it sees EOF and should exit."""

    def close(self, grace_s: float = 1.0) -> ChannelExit:
        """End the bot: EOF, up to ``grace_s`` to exit, then kill everything it started."""


@dataclass(frozen=True)
class MatchConfig:
    """How one match is played."""

    rules: str = "animal-poker"
    sessions: int | None = 8
    duration_s: float | None = None
    """Timed mode (R14): stop after the session running when this many seconds have passed."""
    seed: int | str = 0
    clock: Clock = field(default_factory=Clock)
    fault_limit: int = 3
    jobs: tuple[int, ...] | None = None
    """First-session jobs (seat rotation); None draws them from the seed (R3)."""
    match_id: str = ""
    grace_s: float = 1.0


@dataclass
class SeatReport:
    """One bot's side of a match."""

    name: str
    cmd: str = ""
    faults: dict[str, int] = field(default_factory=dict)
    disqualified: str | None = None
    """The reason, if the bot was disqualified (R16)."""
    moves: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    bank_left_ms: float = 0.0
    isolation: str = ""
    """The sandbox level this bot ran under."""
    ready_name: str | None = None
    """The name the bot gave in its ``ready``."""
    version: str | None = None
    author: str | None = None
    exit: ChannelExit = field(default_factory=ChannelExit)

    @property
    def fault_count(self) -> int:
        return sum(self.faults.values())

    @property
    def time_used_ms(self) -> float:
        return sum(self.latencies_ms)


@dataclass
class MatchReport:
    """The result of a match (R15) with faults and time used per bot."""

    match_id: str
    seed: int | str
    rules: str
    jobs: list[int]
    ranking: list[int]
    winner: int | None
    sessions_played: int
    results: list[list[int]]
    reason: str
    seats: list[SeatReport]
    isolation: str
    duration_s: float

    def ceo_sessions(self, player: int) -> int:
        """How many sessions this player ended as CEO."""
        return sum(1 for jobs in self.results if jobs[player] == 1)


class _Seat:
    def __init__(self, channel: Channel, report: SeatReport, bank_ms: float) -> None:
        self.channel = channel
        self.report = report
        self.bank_ms = bank_ms
        self.legal = True
        self.live = True


def play_match(
    channels: Sequence[Channel], names: Sequence[str], config: MatchConfig,
    replay: ReplayWriter | None = None, cmds: Sequence[str] | None = None,
) -> MatchReport:
    """Play one match between the bots behind ``channels`` (player id = index)."""
    started = time.monotonic()
    rules = get_rules(config.rules)
    n = len(channels)
    match = Match(rules, n, seed=config.seed, sessions=config.sessions if config.duration_s is None else None,
                  jobs=config.jobs)
    if config.sessions is None and config.duration_s is None:
        raise RuleViolation("R14", "a match needs a number of sessions or a duration")
    referee = Referee(match, list(names), config.clock)
    cmds = list(cmds) if cmds is not None else [""] * n
    seats = [_Seat(ch, SeatReport(name, cmd, isolation=ch.isolation), config.clock.bank_ms)
             for ch, name, cmd in zip(channels, names, cmds)]
    isolation = ",".join(sorted({ch.isolation for ch in channels}))
    match_id = config.match_id or uuid.uuid4().hex[:12]
    writer = replay or ReplayWriter(None)
    writer.match_start(match_id, config.seed, rules.name, list(zip(names, cmds)), match.sessions,
                       config.duration_s, config.clock, isolation=isolation, jobs=list(match.jobs))
    reason = "aborted"
    first_jobs = list(match.jobs)
    try:
        _handshake(seats, referee, config, writer)
        while True:
            _play_session(seats, referee, match, config, writer)
            if config.duration_s is not None:
                if time.monotonic() - started >= config.duration_s:
                    reason = "time"
                    break
            elif match.planned_sessions_done:
                reason = "sessions"
                break
    finally:
        report = _finish(seats, referee, match, config, writer, reason, match_id, isolation, started, first_jobs)
    return report


def _handshake(seats: list[_Seat], referee: Referee, config: MatchConfig, writer: ReplayWriter) -> None:
    """hello/ready: every bot gets ``hello_ms`` from the moment its hello was sent."""
    for player, seat in enumerate(seats):
        if not seat.channel.send(referee.hello(player).to_json()):
            seat.live = False
    deadline = time.monotonic() + config.clock.hello_ms / 1000
    for player, seat in enumerate(seats):
        ready = None
        problem = "no ready in time"
        while seat.live and ready is None:
            left = deadline - time.monotonic()
            reply = seat.channel.receive(max(0.0, left))
            if reply.kind == "eof":
                problem = "exited before sending ready"
            if reply.kind != "line":
                break
            try:
                msg = decode(reply.text, types=BOT_MESSAGE_TYPES)
            except ProtocolError as error:
                problem = f"no valid ready in time (a line was rejected: {error})"
                log.warning("%s: ignoring a line before ready: %s", seat.report.name, error)
                continue  # only a ready counts; anything else before it is ignored
            if isinstance(msg, Ready):
                ready = msg
        if ready is None:
            seat.report.faults["no_hello"] = 1
            log.warning("%s disqualified: %s", seat.report.name, problem)
            _disqualify(seats, player, 0, "no_hello", writer, config, detail=problem)
            continue
        seat.legal = ready.legal
        seat.report.ready_name = ready.name
        seat.report.version, seat.report.author = ready.version, ready.author


def _play_session(
    seats: list[_Seat], referee: Referee, match: Match, config: MatchConfig, writer: ReplayWriter,
) -> None:
    for player, msg in enumerate(referee.start_session()):
        _send(seats[player], msg)
    writer.session_start(match)
    state = match.state
    assert state is not None
    move_ms = config.clock.move_ms
    while not state.over:
        player = state.to_move
        seat = seats[player]
        if seat.report.disqualified is not None:
            events = referee.play(None, "disqualified")
            writer.events(events, ms=None)
            _broadcast(seats, events)
            continue
        turn = referee.turn(TurnClock(move_ms=move_ms, bank_ms=int(seat.bank_ms)), legal=seat.legal)
        move, fault, elapsed_ms = _ask(seat, turn.to_json(), turn.id, move_ms)
        seat.report.moves += 1
        seat.report.latencies_ms.append(elapsed_ms)
        events = referee.play(move, fault)
        fault = events[0].fault  # the referee turns an illegal move into an 'illegal' fault
        writer.events(events, ms=round(elapsed_ms))
        _broadcast(seats, events)
        if fault is not None:
            seat.report.faults[fault] = seat.report.faults.get(fault, 0) + 1
            if fault == "crash":
                _disqualify(seats, player, state.session, "crash", writer, config)
            elif seat.report.fault_count >= config.fault_limit:
                _disqualify(seats, player, state.session, f"fault limit ({config.fault_limit}) reached",
                            writer, config)


def _ask(seat: _Seat, line: str, turn_id: int, move_ms: int) -> tuple[Move | None, str | None, float]:
    """Send a turn and wait for the reply within the move time plus the bank."""
    if not seat.live or not seat.channel.send(line):
        seat.live = False
        return None, "crash", 0.0
    allowed_s = (move_ms + seat.bank_ms) / 1000
    sent = time.monotonic()
    while True:
        reply = seat.channel.receive(max(0.0, allowed_s - (time.monotonic() - sent)))
        elapsed_ms = reply.elapsed_s * 1000 if reply.kind == "line" else (time.monotonic() - sent) * 1000
        if reply.kind == "timeout":
            seat.bank_ms = 0
            return None, "timeout", elapsed_ms
        if reply.kind == "eof":
            seat.live = False
            return None, "crash", elapsed_ms
        if reply.kind == "too_long":
            return None, "malformed", elapsed_ms
        try:
            msg: Message = decode(reply.text, types=BOT_MESSAGE_TYPES)
        except ProtocolError:
            return None, "malformed", elapsed_ms
        if isinstance(msg, MoveMsg) and msg.id < turn_id:
            continue  # a late reply to an earlier turn: discarded by its id
        if not isinstance(msg, MoveMsg) or msg.id != turn_id:
            return None, "malformed", elapsed_ms
        over = elapsed_ms - move_ms
        if over > 0:
            if over > seat.bank_ms:
                seat.bank_ms = 0
                return None, "timeout", elapsed_ms
            seat.bank_ms -= over
        try:
            return parse_move(msg.cards), None, elapsed_ms
        except (RuleViolation, ValueError):
            return None, "illegal", elapsed_ms


def _send(seat: _Seat, msg: Message) -> None:
    if seat.live and seat.report.disqualified is None:
        if not seat.channel.send(msg.to_json()):
            seat.live = False  # noticed as a crash at its next turn


def _broadcast(seats: list[_Seat], events: Sequence[Message]) -> None:
    for msg in events:
        line = msg.to_json()
        for seat in seats:
            if seat.live and seat.report.disqualified is None and not seat.channel.send(line):
                seat.live = False


def _disqualify(
    seats: list[_Seat], player: int, session: int, reason: str, writer: ReplayWriter, config: MatchConfig,
    detail: str | None = None,
) -> None:
    """R16: the fallback plays this seat to the end; its process is killed now."""
    seat = seats[player]
    seat.report.disqualified = reason if detail is None else f"{reason}: {detail}"
    writer.disqualified(session, player, reason)
    seat.live = False
    seat.report.exit = seat.channel.close(grace_s=0)


def _finish(
    seats: list[_Seat], referee: Referee, match: Match, config: MatchConfig, writer: ReplayWriter,
    reason: str, match_id: str, isolation: str, started: float, first_jobs: list[int],
) -> MatchReport:
    disqualified = [p for p, seat in enumerate(seats) if seat.report.disqualified is not None]
    ranking: list[int] = []
    winner = None
    if match.results:
        end = referee.match_end(disqualified)
        ranking, winner = end.ranking, end.winner
        for seat in seats:
            _send(seat, end)
    faults = [seat.report.fault_count for seat in seats]
    writer.match_end(len(match.results), ranking, winner, faults, disqualified, reason)
    writer.close()
    _close_all(seats, config.grace_s)
    for seat in seats:
        seat.report.bank_left_ms = seat.bank_ms
    return MatchReport(
        match_id=match_id, seed=config.seed, rules=match.rules.name,
        jobs=first_jobs,
        ranking=ranking, winner=winner, sessions_played=len(match.results), results=[r[:] for r in match.results],
        reason=reason, seats=[seat.report for seat in seats], isolation=isolation,
        duration_s=time.monotonic() - started,
    )


def _close_all(seats: list[_Seat], grace_s: float) -> None:
    """EOF to everyone at once, one shared grace period, then kill (no process outlives its match)."""
    open_seats = [seat for seat in seats if seat.report.disqualified is None]
    for seat in open_seats:
        seat.channel.close_input()
    deadline = time.monotonic() + grace_s
    for seat in open_seats:
        seat.report.exit = seat.channel.close(grace_s=max(0.0, deadline - time.monotonic()))
