"""Bot protocol, version 1: one dataclass per JSON Lines message.

This module is the single definition of the wire format shared by the arena and the
Python SDK (see ``spec/protocol.md``).  Standard library only.

* Every message class has a ``type`` class attribute (the wire ``"type"``), ``to_dict()``,
  ``to_json()`` (one compact line, no trailing newline) and a ``from_dict(d)`` classmethod.
* :func:`encode` / :func:`decode` convert between messages and lines; :data:`MESSAGE_TYPES`
  maps each wire type to its class.
* Anything malformed raises :class:`ProtocolError` (a ``ValueError``) with a precise
  message; an unknown ``type`` raises :class:`UnknownMessage` (a ``ProtocolError``) that
  carries the parsed object, so a bot can ignore it.  Unknown extra fields are ignored.
* Messages a bot sends (``ready``, ``move``) are validated strictly, because the arena
  parses them from untrusted output.  Messages the arena sends are trusted and only
  checked for shape (a missing field or a wrong structure still raises ``ProtocolError``).

Cards on the wire are the ints 1..13 (14 too in the ``karriere-1988`` preset) and the
string ``"F"`` (a freelancer); lists are sorted ascending with freelancers last.
``decode`` never reorders cards: what was sent is what you get (``sort_cards`` sorts).

Pairs (``Turn.round_plays``, ``Turn.out``) are tuples in Python and 2-element arrays on
the wire; constructing a ``Turn`` with lists instead normalises them to tuples.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Union

__all__ = [
    "PROTOCOL_VERSION",
    "MAX_LINE_BYTES",
    "FREELANCER",
    "Card",
    "ProtocolError",
    "UnknownMessage",
    "Clock",
    "TurnClock",
    "Hello",
    "Session",
    "Turn",
    "Played",
    "Out",
    "RoundEnd",
    "SessionEnd",
    "MatchEnd",
    "Ready",
    "MoveMsg",
    "Message",
    "MESSAGE_TYPES",
    "ARENA_MESSAGE_TYPES",
    "BOT_MESSAGE_TYPES",
    "parse_cards",
    "sort_cards",
    "encode",
    "decode",
    "decode_trusted",
]

PROTOCOL_VERSION = 1
#: A line longer than this (in UTF-8 bytes, not counting its line terminator) is malformed.
MAX_LINE_BYTES = 64 * 1024
#: The freelancer card on the wire.
FREELANCER = "F"
#: Highest number card that may appear on the wire (value-14 jokers of ``karriere-1988``).
MAX_CARD = 14

Card = Union[int, str]
"""A card on the wire: an int 1..14 or the string ``"F"``."""

_SEPARATORS = (",", ":")
_dumps = json.JSONEncoder(separators=_SEPARATORS).encode
_loads = json.loads


class ProtocolError(ValueError):
    """A line or object that is not a valid protocol message."""


class UnknownMessage(ProtocolError):
    """A well-formed JSON object whose ``type`` is not known; ``data`` holds the object."""

    def __init__(self, message: str, data: dict[str, Any]):
        super().__init__(message)
        self.data = data


def _short(value: Any) -> str:
    """repr() of an offending value, truncated so error messages stay small."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# --------------------------------------------------------------------------- cards


def parse_cards(obj: Any, field: str = "cards") -> list[Card]:
    """Validate a list of cards as received on the wire and return it (not copied, not sorted).

    Raises ProtocolError if ``obj`` is not a list, or holds anything other than ints
    1..14 (bools are not ints here) and the string ``"F"``.
    """
    if obj.__class__ is not list:
        raise ProtocolError(f"field {field!r} must be a list")
    for card in obj:
        if card.__class__ is int:
            if 0 < card <= MAX_CARD:
                continue
        elif card == FREELANCER and card.__class__ is str:
            continue
        raise ProtocolError(f"unknown card {_short(card)}")
    return obj


def sort_cards(cards: Iterable[Card]) -> list[Card]:
    """Return the cards as a new list in wire order: numbers ascending, then every ``"F"``."""
    if not isinstance(cards, (list, tuple)):
        cards = list(cards)
    numbers = [c for c in cards if c != FREELANCER]
    numbers.sort()
    freelancers = len(cards) - len(numbers)
    if freelancers:
        numbers.extend([FREELANCER] * freelancers)
    return numbers


# --------------------------------------------------------------------------- helpers


def _missing(err: KeyError) -> ProtocolError:
    return ProtocolError(f"missing field {_short(err.args[0]) if err.args else '?'}")


def _shape_error(type_: str, err: Exception) -> ProtocolError:
    return ProtocolError(f"malformed {type_!r} message: {err}")


def _pairs(items: Any) -> list[tuple[Any, Any]]:
    return [(a, b) for a, b in items]


# --------------------------------------------------------------------------- clocks


@dataclass(slots=True)
class Clock:
    """Time budget announced in ``hello`` (milliseconds)."""

    hello_ms: int = 10000
    move_ms: int = 1000
    bank_ms: int = 10000

    def to_dict(self) -> dict[str, Any]:
        return {"hello_ms": self.hello_ms, "move_ms": self.move_ms, "bank_ms": self.bank_ms}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Clock:
        return cls(d["hello_ms"], d["move_ms"], d["bank_ms"])


@dataclass(slots=True)
class TurnClock:
    """Time left for this move and in the bank, sent with every ``turn`` (milliseconds)."""

    move_ms: int
    bank_ms: int

    def to_dict(self) -> dict[str, Any]:
        return {"move_ms": self.move_ms, "bank_ms": self.bank_ms}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TurnClock:
        return cls(d["move_ms"], d["bank_ms"])


# --------------------------------------------------------------------------- arena -> bot


class _Msg:
    """Shared methods; subclasses are slotted dataclasses."""

    __slots__ = ()
    type: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover - overridden
        raise NotImplementedError

    def to_json(self) -> str:
        """One compact JSON line, without the trailing newline."""
        return _dumps(self.to_dict())


@dataclass(slots=True)
class Hello(_Msg):
    type: ClassVar[str] = "hello"

    protocol: int
    rules: str
    you: int
    players: int
    names: list[str]
    sessions: int | None
    clock: Clock
    seed: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "hello",
            "protocol": self.protocol,
            "rules": self.rules,
            "you": self.you,
            "players": self.players,
            "names": self.names,
            "sessions": self.sessions,
            "clock": self.clock.to_dict(),
            "seed": self.seed,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Hello:
        try:
            return cls(
                d["protocol"],
                d["rules"],
                d["you"],
                d["players"],
                d["names"],
                d["sessions"],
                Clock.from_dict(d["clock"]),
                d["seed"],
            )
        except KeyError as e:
            raise _missing(e) from None
        except (TypeError, ValueError, AttributeError, IndexError) as e:
            raise _shape_error(cls.type, e) from None


@dataclass(slots=True)
class Session(_Msg):
    type: ClassVar[str] = "session"

    session: int
    jobs: list[int]
    order: list[int]
    dealt: list[Card]
    gave: list[Card]
    got: list[Card]
    hand: list[Card]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "session",
            "session": self.session,
            "jobs": self.jobs,
            "order": self.order,
            "dealt": self.dealt,
            "gave": self.gave,
            "got": self.got,
            "hand": self.hand,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Session:
        try:
            return cls(d["session"], d["jobs"], d["order"], d["dealt"], d["gave"], d["got"], d["hand"])
        except KeyError as e:
            raise _missing(e) from None


@dataclass(slots=True)
class Turn(_Msg):
    type: ClassVar[str] = "turn"

    id: int
    session: int
    round: int
    hand: list[Card]
    lead: bool
    count: int | None
    top: int | None
    round_plays: list[tuple[int, list[Card]]]
    hand_sizes: list[int]
    jobs: list[int]
    out: list[tuple[int, int]]
    played: dict[str, int]
    clock: TurnClock
    legal: list[list[Card]] | None = None

    def __post_init__(self) -> None:
        self.round_plays = _pairs(self.round_plays)
        self.out = _pairs(self.out)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "type": "turn",
            "id": self.id,
            "session": self.session,
            "round": self.round,
            "hand": self.hand,
            "lead": self.lead,
            "count": self.count,
            "top": self.top,
            "round_plays": [[p, c] for p, c in self.round_plays],
            "hand_sizes": self.hand_sizes,
            "jobs": self.jobs,
            "out": [[p, j] for p, j in self.out],
            "played": self.played,
            "clock": self.clock.to_dict(),
        }
        if self.legal is not None:
            d["legal"] = self.legal
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Turn:
        try:
            return cls(
                d["id"],
                d["session"],
                d["round"],
                d["hand"],
                d["lead"],
                d["count"],
                d["top"],
                d["round_plays"],
                d["hand_sizes"],
                d["jobs"],
                d["out"],
                d["played"],
                TurnClock.from_dict(d["clock"]),
                d.get("legal"),
            )
        except KeyError as e:
            raise _missing(e) from None
        except (TypeError, ValueError, AttributeError, IndexError) as e:
            raise _shape_error(cls.type, e) from None


@dataclass(slots=True)
class Played(_Msg):
    type: ClassVar[str] = "played"

    session: int
    round: int
    player: int
    cards: list[Card]
    fault: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "played",
            "session": self.session,
            "round": self.round,
            "player": self.player,
            "cards": self.cards,
            "fault": self.fault,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Played:
        try:
            return cls(d["session"], d["round"], d["player"], d["cards"], d["fault"])
        except KeyError as e:
            raise _missing(e) from None


@dataclass(slots=True)
class Out(_Msg):
    type: ClassVar[str] = "out"

    session: int
    player: int
    job: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "out", "session": self.session, "player": self.player, "job": self.job}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Out:
        try:
            return cls(d["session"], d["player"], d["job"])
        except KeyError as e:
            raise _missing(e) from None


@dataclass(slots=True)
class RoundEnd(_Msg):
    type: ClassVar[str] = "round_end"

    session: int
    round: int
    winner: int
    next: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": "round_end",
            "session": self.session,
            "round": self.round,
            "winner": self.winner,
            "next": self.next,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RoundEnd:
        try:
            return cls(d["session"], d["round"], d["winner"], d["next"])
        except KeyError as e:
            raise _missing(e) from None


@dataclass(slots=True)
class SessionEnd(_Msg):
    type: ClassVar[str] = "session_end"

    session: int
    jobs: list[int]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "session_end", "session": self.session, "jobs": self.jobs}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SessionEnd:
        try:
            return cls(d["session"], d["jobs"])
        except KeyError as e:
            raise _missing(e) from None


@dataclass(slots=True)
class MatchEnd(_Msg):
    type: ClassVar[str] = "match_end"

    ranking: list[int]
    winner: int

    def to_dict(self) -> dict[str, Any]:
        return {"type": "match_end", "ranking": self.ranking, "winner": self.winner}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchEnd:
        try:
            return cls(d["ranking"], d["winner"])
        except KeyError as e:
            raise _missing(e) from None


# --------------------------------------------------------------------------- bot -> arena
# Parsed from untrusted bot output: every field is type-checked.


def _opt_str(d: dict[str, Any], field: str) -> str | None:
    """An optional informational string; a number (``"version": 2``) is taken as its text."""
    value = d.get(field)
    if value is None or value.__class__ is str:
        return value
    if value.__class__ in (int, float):
        return str(value)
    raise ProtocolError(f"field {field!r} must be a string")


@dataclass(slots=True)
class Ready(_Msg):
    """Reply to ``hello``.  ``legal=False`` asks the arena not to send ``legal`` in turns.

    On the wire ``version``/``author`` are omitted when None and ``legal`` is sent only
    when false; ``null`` for any of the optional fields is read as "absent".
    """

    type: ClassVar[str] = "ready"

    name: str
    version: str | None = None
    author: str | None = None
    legal: bool = True

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "ready", "name": self.name}
        if self.version is not None:
            d["version"] = self.version
        if self.author is not None:
            d["author"] = self.author
        if not self.legal:
            d["legal"] = False
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Ready:
        try:
            name = d["name"]
        except KeyError:
            raise ProtocolError("missing field 'name'") from None
        if name.__class__ is not str:
            raise ProtocolError("field 'name' must be a string")
        legal = d.get("legal")
        if legal is None:
            legal = True
        elif legal.__class__ is not bool:
            raise ProtocolError("field 'legal' must be a boolean")
        return cls(name, _opt_str(d, "version"), _opt_str(d, "author"), legal)


@dataclass(slots=True)
class MoveMsg(_Msg):
    """Reply to ``turn``: ``id`` repeats the turn's id, ``cards == []`` is a pass."""

    type: ClassVar[str] = "move"

    id: int
    cards: list[Card]

    def to_dict(self) -> dict[str, Any]:
        return {"type": "move", "id": self.id, "cards": self.cards}

    def to_json(self) -> str:
        """The hot path of every bot: formatted directly when the cards are plain (ints and "F")."""
        cards = self.cards
        if self.id.__class__ is int and all(c.__class__ is int or c == FREELANCER for c in cards):
            body = ",".join('"F"' if c == FREELANCER else str(c) for c in cards)
            return f'{{"type":"move","id":{self.id},"cards":[{body}]}}'
        return _dumps(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MoveMsg:
        try:
            id_ = d["id"]
            cards = d["cards"]
        except KeyError as e:
            raise _missing(e) from None
        if id_.__class__ is not int:
            raise ProtocolError("field 'id' must be an integer")
        return cls(id_, parse_cards(cards))


# --------------------------------------------------------------------------- registry

Message = Union[Hello, Session, Turn, Played, Out, RoundEnd, SessionEnd, MatchEnd, Ready, MoveMsg]

ARENA_MESSAGE_TYPES: dict[str, type] = {
    cls.type: cls for cls in (Hello, Session, Turn, Played, Out, RoundEnd, SessionEnd, MatchEnd)
}
"""Messages the arena sends (what a bot decodes)."""

BOT_MESSAGE_TYPES: dict[str, type] = {cls.type: cls for cls in (Ready, MoveMsg)}
"""Messages a bot sends (what the arena decodes): pass as ``decode(line, types=...)``."""

MESSAGE_TYPES: dict[str, type] = {**ARENA_MESSAGE_TYPES, **BOT_MESSAGE_TYPES}
"""Every message class by its wire ``type``."""


def decode_trusted(line: str | bytes) -> Message:
    """Decode a line from the arena (the SDK side): no length check, bytes parsed directly.

    Raises ProtocolError / UnknownMessage like :func:`decode` for anything it cannot read.
    """
    try:
        d = _loads(line)
    except (ValueError, RecursionError) as e:
        raise ProtocolError(f"not JSON: {e}") from None
    if d.__class__ is not dict:
        raise ProtocolError("not an object")
    cls = ARENA_MESSAGE_TYPES.get(d.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise UnknownMessage(f"unknown message type {d.get('type')!r}", d)
    return cls.from_dict(d)


def encode(msg: Message) -> str:
    """The message as one compact JSON line, without the trailing newline."""
    return _dumps(msg.to_dict())


def _too_long(line: str | bytes, limit: int) -> bool:
    """True if the line, minus its line terminator, is over ``limit`` UTF-8 bytes."""
    if isinstance(line, str):
        if len(line) * 4 <= limit:  # cannot be over, whatever the characters
            return False
        line = line.rstrip("\r\n").encode("utf-8", "surrogatepass")
    elif len(line) <= limit:
        return False
    else:
        line = line.rstrip(b"\r\n")
    return len(line) > limit


def decode(
    line: str | bytes | bytearray,
    *,
    types: dict[str, type] = MESSAGE_TYPES,
    max_bytes: int | None = MAX_LINE_BYTES,
) -> Message:
    """Parse one line (with or without its newline) into a message.

    Raises ProtocolError for anything malformed ("line too long", "not UTF-8",
    "not JSON", "not an object", "missing field 'id'", ...) and UnknownMessage (a
    ProtocolError) for a JSON object whose ``type`` is not in ``types``.  The arena
    passes ``types=BOT_MESSAGE_TYPES`` so that a bot can only send ``ready``/``move``;
    ``max_bytes=None`` disables the length check.
    """
    if not isinstance(line, (str, bytes)):
        line = bytes(line)  # bytearray, memoryview
    if max_bytes is not None and _too_long(line, max_bytes):
        raise ProtocolError(f"line too long (over {max_bytes} bytes)")
    if isinstance(line, bytes):
        try:
            line = str(line, "utf-8")
        except UnicodeDecodeError:
            raise ProtocolError("not UTF-8") from None
    try:
        d = _loads(line)
    except json.JSONDecodeError as e:
        raise ProtocolError(f"not JSON: {e.msg}") from None
    except RecursionError:
        raise ProtocolError("not JSON: nested too deeply") from None
    except ValueError as e:  # e.g. an integer with too many digits
        raise ProtocolError(f"not JSON: {e}") from None
    if d.__class__ is not dict:
        raise ProtocolError("not an object")
    try:
        type_ = d["type"]
    except KeyError:
        raise ProtocolError("missing field 'type'") from None
    if type_.__class__ is not str:
        raise ProtocolError("field 'type' must be a string")
    cls = types.get(type_)
    if cls is None:
        raise UnknownMessage(f"unknown message type {_short(type_)}", d)
    return cls.from_dict(d)
