"""The bot side of the protocol: subclass :class:`Bot`, override :meth:`Bot.play`, call :func:`run`.

The SDK answers ``hello``, echoes turn ids, ignores unknown messages, seeds ``self.rng`` from
``hello.seed``, tracks the session's public history, and exits on ``match_end`` or end of input.
An exception in :meth:`Bot.play` is written to stderr and answered with the R16 fallback move.
"""

from __future__ import annotations

import os
import random
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Union

from .cards import Card, counts_from_cards
from .determinize import Knowledge
from .moves import Move, parse_move
from .protocol import (
    Hello, MatchEnd, Message, MoveMsg, Played, ProtocolError, Ready, Session, Turn, UnknownMessage,
    decode_trusted,
)
from .rules import Rules, get_rules
from .session import SessionState, legal_moves

Answer = Union[Move, Sequence[Card]]
"""What :meth:`Bot.play` returns: a :class:`Move` or a list of wire cards (``[]`` passes)."""


@dataclass
class TurnView:
    """What a bot sees when it must move: the ``turn`` message plus SDK helpers."""

    message: Turn
    me: int
    rules: Rules
    knowledge: Knowledge
    history: list[Played] = field(default_factory=list)
    """Every ``played`` event of this session so far, in order (the public history)."""

    @property
    def hand(self) -> list[Card]:
        return self.message.hand

    @property
    def hand_counts(self) -> list[int]:
        """My hand as a count vector (see :mod:`sdk.cards`)."""
        return counts_from_cards(self.message.hand)

    @property
    def lead(self) -> bool:
        """True when I lead the round and must play (R8)."""
        return self.message.lead

    @property
    def count(self) -> int | None:
        """How many cards to play when following (None when leading)."""
        return self.message.count

    @property
    def top(self) -> int | None:
        """The value to beat (None when leading); 14 = freelancers alone."""
        return self.message.top

    @property
    def legal(self) -> list[list[Card]]:
        """Every legal move as wire cards (``[]`` = pass)."""
        if self.message.legal is not None:
            return self.message.legal
        return [m.cards for m in self.legal_moves]

    @property
    def legal_moves(self) -> list[Move]:
        """Every legal move as :class:`Move` objects (a pass first when following)."""
        offset = 0 if self.rules.equal_allowed else 1
        return legal_moves(self.hand_counts, self.count or 0, self.top or 0, offset, self.rules.max_number)

    @property
    def time_left_ms(self) -> int:
        """This move's allowance plus what is left in the bank."""
        return self.message.clock.move_ms + self.message.clock.bank_ms

    def determinize(self, rng: random.Random) -> SessionState:
        """A full game state consistent with what I know, for simulation (see :mod:`sdk.determinize`)."""
        msg = self.message
        played = [0] * 16
        for key, count in msg.played.items():
            played[15 if key == "F" else int(key)] = count
        hands = self.knowledge.sample_hands(self.hand_counts, msg.hand_sizes, played, rng)
        plays = [(p, parse_move(cards)) for p, cards in msg.round_plays]
        leader = plays[0][0] if plays else self.me
        return SessionState.restore(
            self.rules, msg.session, msg.jobs, hands, msg.round, leader, self.me, plays,
            [p for p, _ in msg.out], played,
        )


class Bot:
    """Base class of a bot. Override :meth:`play`; the hooks are optional."""

    name: str = "bot"
    version: str | None = None
    author: str | None = None
    want_legal: bool = True
    """Set False to ask the arena not to send ``legal`` (the SDK computes it when asked)."""

    def __init__(self) -> None:
        self.rng = random.Random()
        self.me = -1
        self.hello: Hello | None = None

    def play(self, turn: TurnView) -> Answer:
        """Choose a move: a list of cards from ``turn.legal`` (``[]`` passes) or a Move."""
        raise NotImplementedError

    def on_hello(self, hello: Hello) -> None:
        """The match starts (``self.rng`` is already seeded from ``hello.seed``)."""

    def on_session(self, session: Session) -> None:
        """A session starts: jobs, seating, my cards as dealt and my side of the exchange."""

    def on_event(self, event: Message) -> None:
        """Any other message: ``played``, ``out``, ``round_end``, ``session_end``."""

    def on_match_end(self, end: MatchEnd) -> None:
        """The match is over."""


def fallback(turn: Turn) -> list[Card]:
    """R16: pass, or when leading the single lowest card in hand."""
    return [turn.hand[0]] if turn.lead and turn.hand else []


class BotDriver:
    """Turns arena messages into calls on a :class:`Bot` and returns its replies (no I/O)."""

    def __init__(self, bot: Bot, log: IO[str] | None = None) -> None:
        self.bot = bot
        self.log = log if log is not None else sys.stderr
        self.rules: Rules = get_rules()
        self.knowledge: Knowledge | None = None
        self.history: list[Played] = []
        self.done = False
        self.errors = 0
        """How many times play() raised (each answered with the fallback move)."""

    def handle(self, msg: Message) -> Message | None:
        """React to one message; returns the reply to send, if any."""
        bot = self.bot
        if isinstance(msg, Turn):
            return self._turn(msg)
        if isinstance(msg, Played):
            self.history.append(msg)
            if self.knowledge is not None:
                self.knowledge.record_play(msg.player, msg.cards)
            bot.on_event(msg)
        elif isinstance(msg, Session):
            self.history = []
            self.knowledge = Knowledge.from_session(self.rules, bot.me, msg.jobs, msg.gave, msg.got)
            bot.on_session(msg)
        elif isinstance(msg, Hello):
            try:
                self.rules = get_rules(msg.rules)
            except ValueError:
                self._warn(f"unknown rules preset {msg.rules!r}; playing by the default rules")
            bot.me = msg.you
            bot.hello = msg
            bot.rng.seed(msg.seed)
            bot.on_hello(msg)
            return Ready(name=bot.name, version=bot.version, author=bot.author, legal=bot.want_legal)
        elif isinstance(msg, MatchEnd):
            self.done = True
            bot.on_match_end(msg)
        else:
            bot.on_event(msg)
        return None

    def _turn(self, turn: Turn) -> MoveMsg:
        knowledge = self.knowledge or Knowledge.from_session(self.rules, self.bot.me, turn.jobs)
        view = TurnView(turn, self.bot.me, self.rules, knowledge, self.history)
        try:
            answer = self.bot.play(view)
            cards = answer.cards if isinstance(answer, Move) else list(answer)
        except Exception:  # R16: a bug in the bot costs it a fallback move, not the match
            self.errors += 1
            self._warn(f"play() raised on turn {turn.id}; sending the fallback move\n{traceback.format_exc()}")
            cards = fallback(turn)
        return MoveMsg(id=turn.id, cards=cards)

    def _warn(self, text: str) -> None:
        print(f"[sdk] {text}", file=self.log, flush=True)


def _line_writer(stdout: IO[str] | None) -> Callable[[str], None]:
    """Write one line and flush it at once (never rely on PYTHONUNBUFFERED).

    On the real stdout, lines go straight to file descriptor 1 with os.write: one system call,
    no buffering layer in between.
    """
    if stdout is not None:
        def write_stream(text: str) -> None:
            stdout.write(text + "\n")
            stdout.flush()

        return write_stream
    sys.stdout.flush()
    fd = sys.stdout.fileno()

    def write_fd(text: str) -> None:
        data = (text + "\n").encode()
        while data:
            data = data[os.write(fd, data):]

    return write_fd


def run(bot: Bot, stdin: IO[bytes] | None = None, stdout: IO[str] | None = None) -> None:
    """The stdin/stdout loop: read JSON lines, answer them, exit on ``match_end`` or EOF."""
    source = stdin if stdin is not None else sys.stdin.buffer
    write = _line_writer(stdout)
    driver = BotDriver(bot)
    for line in source:
        if not line.strip():
            continue
        try:
            msg = decode_trusted(line)
        except UnknownMessage:
            continue  # future message types are ignored (protocol.md)
        except ProtocolError as error:
            driver._warn(f"ignoring a line the SDK could not read: {error}")
            continue
        reply = driver.handle(msg)
        if reply is not None:
            write(reply.to_json())
        if driver.done:
            break
