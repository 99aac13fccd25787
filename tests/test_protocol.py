"""Tests for sdk/protocol.py: exact JSON round trips and strict parsing of bot output."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdk.protocol import (
    ARENA_MESSAGE_TYPES,
    BOT_MESSAGE_TYPES,
    MAX_LINE_BYTES,
    MESSAGE_TYPES,
    Clock,
    Hello,
    MatchEnd,
    MoveMsg,
    Out,
    Played,
    ProtocolError,
    Ready,
    RoundEnd,
    Session,
    SessionEnd,
    Turn,
    TurnClock,
    UnknownMessage,
    decode,
    encode,
    parse_cards,
    sort_cards,
)

PLAYED = {str(v): 0 for v in range(1, 14)} | {"F": 0}
PLAYED["8"] = 2
PLAYED["F"] = 1


def make_turn(**changes):
    fields = dict(
        id=17,
        session=2,
        round=3,
        hand=[1, 4, 4, 8, 8, 12, "F"],
        lead=False,
        count=2,
        top=7,
        round_plays=[(3, [7, 7]), (0, [])],
        hand_sizes=[10, 9, 7, 8],
        jobs=[2, 1, 4, 3],
        out=[],
        played=dict(PLAYED),
        clock=TurnClock(move_ms=1000, bank_ms=9500),
        legal=[[], [8, 8], [12, "F"], [4, 4]],
    )
    fields.update(changes)
    return Turn(**fields)


SAMPLES = [
    Hello(
        protocol=1,
        rules="animal-poker",
        you=2,
        players=4,
        names=["a", "b", "c", "Zoë"],
        sessions=10,
        clock=Clock(10000, 1000, 10000),
        seed=123456789,
    ),
    Hello(1, "animal-poker", 0, 4, ["a", "b", "c", "d"], None, Clock(), 0),
    Session(
        session=1,
        jobs=[1, 2, 3, 4],
        order=[0, 1, 2, 3],
        dealt=[1, 2, 3, 13, "F"],
        gave=[1, 2, 3],
        got=[13, 13, "F"],
        hand=[13, 13, 13, "F", "F"],
    ),
    Session(2, [4, 3, 2, 1], [3, 2, 1, 0], [5, 6], [], [], [5, 6]),
    make_turn(),
    make_turn(lead=True, count=None, top=None, round_plays=[], legal=None),
    make_turn(out=[(1, 1), (2, 2)], played=dict(PLAYED, **{"14": 2})),
    Played(session=1, round=1, player=0, cards=[5, 5, "F"], fault=None),
    Played(1, 4, 3, [], "timeout"),
    Out(session=1, player=2, job=1),
    RoundEnd(session=1, round=5, winner=2, next=3),
    SessionEnd(session=1, jobs=[3, 1, 2, 4]),
    MatchEnd(ranking=[1, 0, 3, 2], winner=1),
    Ready("my-bot"),
    Ready("my-bot", version="1.2", author="me", legal=False),
    MoveMsg(17, [8, 8]),
    MoveMsg(18, []),
    MoveMsg(19, [14, 14, "F"]),
]


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("msg", SAMPLES, ids=lambda m: type(m).__name__)
def test_round_trip(msg):
    line = encode(msg)
    assert "\n" not in line
    assert line == msg.to_json()
    assert decode(line) == msg
    assert decode(line.encode()) == msg
    assert decode(line + "\n") == msg
    assert type(msg).from_dict(json.loads(line)) == msg
    # to_dict is exactly what the line holds, with "type" first
    d = msg.to_dict()
    assert json.loads(line) == d
    assert next(iter(d)) == "type" and d["type"] == type(msg).type


def test_every_message_type_is_sampled_and_registered():
    assert {type(m) for m in SAMPLES} == set(MESSAGE_TYPES.values())
    assert set(MESSAGE_TYPES) == {
        "hello", "session", "turn", "played", "out", "round_end", "session_end", "match_end",
        "ready", "move",
    }
    assert set(ARENA_MESSAGE_TYPES) | set(BOT_MESSAGE_TYPES) == set(MESSAGE_TYPES)
    for name, cls in MESSAGE_TYPES.items():
        assert cls.type == name
        assert hasattr(cls, "__slots__")


def test_spec_move_example_exact():
    assert encode(MoveMsg(17, [8, 8])) == '{"type":"move","id":17,"cards":[8,8]}'
    assert decode('{"type": "move", "id": 17, "cards": [8, 8]}') == MoveMsg(17, [8, 8])
    assert decode('{"type": "move", "id": 18, "cards": []}') == MoveMsg(18, [])


def test_ready_wire_forms():
    assert encode(Ready("my-bot")) == '{"type":"ready","name":"my-bot"}'
    assert decode('{"type": "ready", "name": "my-bot"}') == Ready("my-bot", None, None, True)
    assert (
        encode(Ready("b", version="2", author="x", legal=False))
        == '{"type":"ready","name":"b","version":"2","author":"x","legal":false}'
    )
    assert decode('{"type":"ready","name":"b","legal":false}').legal is False
    assert decode('{"type":"ready","name":"b","legal":true}').legal is True
    # null for an optional field means "absent"
    assert decode('{"type":"ready","name":"b","version":null,"legal":null}') == Ready("b")


def test_exact_lines_for_arena_messages():
    assert (
        encode(Played(1, 2, 3, [5, "F"], None))
        == '{"type":"played","session":1,"round":2,"player":3,"cards":[5,"F"],"fault":null}'
    )
    assert (
        encode(RoundEnd(1, 5, 2, 3)) == '{"type":"round_end","session":1,"round":5,"winner":2,"next":3}'
    )
    assert encode(MatchEnd([1, 0], 1)) == '{"type":"match_end","ranking":[1,0],"winner":1}'
    hello = Hello(1, "animal-poker", 0, 4, ["a", "b", "c", "d"], None, Clock(), 7)
    assert encode(hello) == (
        '{"type":"hello","protocol":1,"rules":"animal-poker","you":0,"players":4,'
        '"names":["a","b","c","d"],"sessions":null,'
        '"clock":{"hello_ms":10000,"move_ms":1000,"bank_ms":10000},"seed":7}'
    )


def test_turn_field_order_and_exact_line():
    turn = make_turn(
        hand=[8, "F"], round_plays=[(1, [7])], out=[(0, 1)], played={"8": 1}, legal=[[], [8]],
        count=1,
    )
    assert list(turn.to_dict()) == [
        "type", "id", "session", "round", "hand", "lead", "count", "top", "round_plays",
        "hand_sizes", "jobs", "out", "played", "clock", "legal",
    ]
    assert encode(turn) == (
        '{"type":"turn","id":17,"session":2,"round":3,"hand":[8,"F"],"lead":false,"count":1,'
        '"top":7,"round_plays":[[1,[7]]],"hand_sizes":[10,9,7,8],"jobs":[2,1,4,3],"out":[[0,1]],'
        '"played":{"8":1},"clock":{"move_ms":1000,"bank_ms":9500},"legal":[[],[8]]}'
    )


def test_turn_legal_omitted_when_none():
    turn = make_turn(legal=None)
    d = turn.to_dict()
    assert "legal" not in d
    assert '"legal"' not in encode(turn)
    assert decode(encode(turn)).legal is None
    # an empty list is not the same as opting out
    assert decode(encode(make_turn(legal=[[]]))).legal == [[]]


def test_turn_pairs_are_tuples_either_way():
    with_lists = make_turn(round_plays=[[3, [7, 7]], [0, []]], out=[[1, 1]])
    with_tuples = make_turn(round_plays=[(3, [7, 7]), (0, [])], out=[(1, 1)])
    assert with_lists == with_tuples
    assert decode(encode(with_lists)) == with_tuples
    assert with_lists.round_plays[0] == (3, [7, 7])


def test_to_json_is_compact_single_line():
    line = encode(Hello(1, "x", 0, 4, ["a\nb", "é"], 1, Clock(), 1))
    assert "\n" not in line and ": " not in line and ", " not in line
    assert line.isascii()  # non-ASCII escaped: safe to write whatever a bot called itself
    assert decode(line).names == ["a\nb", "é"]


# --------------------------------------------------------------------------- forward compatibility


def test_unknown_fields_ignored():
    assert decode('{"type":"move","id":3,"cards":[1],"comment":"hi","x":{"y":[1]}}') == MoveMsg(3, [1])
    assert decode('{"type":"ready","name":"b","language":"rust","legal":false}') == Ready("b", legal=False)
    d = make_turn().to_dict()
    d["future_field"] = [1, 2, 3]
    d["clock"]["future_clock"] = 5
    assert decode(json.dumps(d)) == make_turn()
    d = Out(1, 2, 3).to_dict() | {"extra": None}
    assert decode(json.dumps(d)) == Out(1, 2, 3)


def test_unknown_type_raises_unknown_message_with_data():
    with pytest.raises(UnknownMessage, match="unknown message type 'chat'") as info:
        decode('{"type":"chat","text":"hello"}')
    assert info.value.data == {"type": "chat", "text": "hello"}
    assert isinstance(info.value, ProtocolError) and isinstance(info.value, ValueError)


def test_types_restricts_what_a_bot_may_send():
    line = encode(Out(1, 2, 3))
    with pytest.raises(UnknownMessage):
        decode(line, types=BOT_MESSAGE_TYPES)
    assert decode(encode(MoveMsg(1, [2])), types=BOT_MESSAGE_TYPES) == MoveMsg(1, [2])
    with pytest.raises(UnknownMessage):
        decode(encode(MoveMsg(1, [2])), types=ARENA_MESSAGE_TYPES)


# --------------------------------------------------------------------------- malformed input


def malformed(line, match):
    with pytest.raises(ProtocolError, match=match) as info:
        decode(line)
    assert not isinstance(info.value, UnknownMessage)
    return info.value


def test_not_json():
    malformed("{type: move}", "^not JSON")
    malformed("", "^not JSON")
    malformed('{"type":"move","id":1,"cards":[1]', "^not JSON")
    malformed("NaN-ish garbage", "^not JSON")


def test_not_json_deeply_nested():
    malformed("[" * 60000, "^not JSON")


def test_not_json_huge_integer():
    malformed('{"type":"move","id":' + "9" * 5000 + ',"cards":[]}', "^not JSON")


def test_array_instead_of_object():
    malformed('[{"type":"move","id":1,"cards":[]}]', "^not an object$")


@pytest.mark.parametrize("line", ['"move"', "17", "null", "true"])
def test_scalar_instead_of_object(line):
    malformed(line, "^not an object$")


def test_missing_type():
    malformed('{"id":1,"cards":[]}', "^missing field 'type'$")


def test_type_not_a_string():
    malformed('{"type":["move"],"id":1,"cards":[]}', "^field 'type' must be a string$")


def test_missing_id():
    malformed('{"type":"move","cards":[8]}', "^missing field 'id'$")


def test_missing_cards():
    malformed('{"type":"move","id":1}', "^missing field 'cards'$")


def test_bool_id():
    malformed('{"type":"move","id":true,"cards":[8]}', "^field 'id' must be an integer$")


def test_string_id():
    malformed('{"type":"move","id":"17","cards":[8]}', "^field 'id' must be an integer$")


def test_float_id():
    malformed('{"type":"move","id":17.0,"cards":[8]}', "^field 'id' must be an integer$")


def test_null_id():
    malformed('{"type":"move","id":null,"cards":[8]}', "^field 'id' must be an integer$")


def test_cards_not_a_list():
    malformed('{"type":"move","id":1,"cards":8}', "^field 'cards' must be a list$")
    malformed('{"type":"move","id":1,"cards":"88"}', "^field 'cards' must be a list$")
    malformed('{"type":"move","id":1,"cards":{"8":2}}', "^field 'cards' must be a list$")
    malformed('{"type":"move","id":1,"cards":null}', "^field 'cards' must be a list$")


def test_unknown_card_zero():
    malformed('{"type":"move","id":1,"cards":[0]}', r"^unknown card 0$")


def test_unknown_card_fifteen():
    malformed('{"type":"move","id":1,"cards":[8,15]}', r"^unknown card 15$")


def test_unknown_card_string():
    malformed('{"type":"move","id":1,"cards":["X"]}', r"^unknown card 'X'$")
    malformed('{"type":"move","id":1,"cards":["f"]}', r"^unknown card 'f'$")
    malformed('{"type":"move","id":1,"cards":["8"]}', r"^unknown card '8'$")


def test_unknown_card_bool():
    malformed('{"type":"move","id":1,"cards":[true]}', r"^unknown card True$")


def test_unknown_card_other_types():
    malformed('{"type":"move","id":1,"cards":[8.0]}', r"^unknown card 8\.0$")
    malformed('{"type":"move","id":1,"cards":[-1]}', r"^unknown card -1$")
    malformed('{"type":"move","id":1,"cards":[null]}', r"^unknown card None$")
    malformed('{"type":"move","id":1,"cards":[[8]]}', r"^unknown card \[8\]$")


def test_unknown_card_message_is_short():
    err = malformed('{"type":"move","id":1,"cards":["' + "X" * 10000 + '"]}', "^unknown card 'XXX")
    assert len(str(err)) < 80


def test_bytes_not_utf8():
    malformed(b'{"type":"move","id":1,"cards":["\xff"]}', "^not UTF-8$")
    malformed(b"\xc3\x28", "^not UTF-8$")
    malformed(bytearray(b"\xff"), "^not UTF-8$")
    assert decode(bytearray(b'{"type":"move","id":1,"cards":[]}')) == MoveMsg(1, [])
    assert decode(memoryview(b'{"type":"move","id":1,"cards":[]}')) == MoveMsg(1, [])


def test_utf16_bytes_rejected():
    # json.loads alone would auto-detect UTF-16; the protocol is UTF-8 only
    malformed('{"type":"move","id":1,"cards":[]}'.encode("utf-16"), "^not UTF-8$")


def test_line_too_long():
    padding = " " * MAX_LINE_BYTES
    malformed('{"type":"move","id":1,"cards":[]' + padding + "}", "^line too long")
    malformed(('{"type":"move","id":1,"cards":[]' + padding + "}").encode(), "^line too long")


def test_line_length_counts_utf8_bytes_not_terminator():
    body = '{"type":"ready","name":"'
    tail = '"}'
    # exactly at the limit, in multi-byte characters: accepted, also with "\r\n"
    n = (MAX_LINE_BYTES - len(body) - len(tail)) // 2
    line = body + "é" * n + tail
    assert len(line.encode()) <= MAX_LINE_BYTES < len(line) * 4
    assert decode(line + "\r\n").name == "é" * n
    assert decode((line + "\n").encode()).name == "é" * n
    # one more two-byte character: over the limit, though shorter in characters than the limit
    line = body + "é" * (n + 1) + tail
    assert len(line) < MAX_LINE_BYTES
    malformed(line, "^line too long")
    assert decode(line, max_bytes=None).name == "é" * (n + 1)


def test_ready_malformed():
    malformed('{"type":"ready"}', "^missing field 'name'$")
    malformed('{"type":"ready","name":7}', "^field 'name' must be a string$")
    malformed('{"type":"ready","name":"b","legal":"no"}', "^field 'legal' must be a boolean$")
    malformed('{"type":"ready","name":"b","legal":0}', "^field 'legal' must be a boolean$")
    malformed('{"type":"ready","name":"b","version":[2]}', "^field 'version' must be a string$")
    malformed('{"type":"ready","name":"b","author":["x"]}', "^field 'author' must be a string$")


def test_ready_takes_a_numeric_version_as_text():
    """A common slip ("version": 2) must not cost a bot its match (no_hello)."""
    assert decode('{"type":"ready","name":"b","version":2}').version == "2"
    assert decode('{"type":"ready","name":"b","version":1.5}').version == "1.5"


def test_arena_message_missing_field():
    d = make_turn().to_dict()
    del d["hand_sizes"]
    malformed(json.dumps(d), "^missing field 'hand_sizes'$")
    malformed('{"type":"out","session":1,"player":2}', "^missing field 'job'$")
    malformed('{"type":"played","session":1,"round":1,"player":0,"cards":[]}', "^missing field 'fault'$")


def test_arena_message_bad_shape():
    d = make_turn().to_dict()
    d["clock"] = 5
    malformed(json.dumps(d), "^malformed 'turn' message")
    d = make_turn().to_dict()
    d["round_plays"] = [[1, [2], 3]]
    malformed(json.dumps(d), "^malformed 'turn' message")
    d = Hello(1, "x", 0, 4, ["a"], 1, Clock(), 1).to_dict()
    del d["clock"]["bank_ms"]
    malformed(json.dumps(d), "^missing field 'bank_ms'$")


# --------------------------------------------------------------------------- card helpers


def test_parse_cards():
    cards = [1, 13, 14, "F"]
    assert parse_cards(cards) == [1, 13, 14, "F"]
    assert parse_cards([]) == []
    with pytest.raises(ProtocolError, match="^field 'cards' must be a list$"):
        parse_cards((1, 2))
    with pytest.raises(ProtocolError, match="^field 'hand' must be a list$"):
        parse_cards("F", field="hand")
    with pytest.raises(ProtocolError, match="^unknown card False$"):
        parse_cards([False])


def test_decode_keeps_card_order():
    # the arena checks legality itself; decode neither sorts nor dedups
    assert decode('{"type":"move","id":1,"cards":["F",8,8]}').cards == ["F", 8, 8]


def test_sort_cards():
    assert sort_cards(["F", 13, 1, "F", 14, 2]) == [1, 2, 13, 14, "F", "F"]
    assert sort_cards([]) == []
    assert sort_cards(iter([3, "F", 2])) == [2, 3, "F"]
    assert sort_cards((5, 4)) == [4, 5]
    cards = ["F", 1]
    assert sort_cards(cards) == [1, "F"] and cards == ["F", 1]  # a new list


# --------------------------------------------------------------------------- properties

cards_st = st.lists(st.one_of(st.integers(1, 14), st.just("F")), max_size=16).map(sort_cards)
player_st = st.integers(0, 7)
small_st = st.integers(0, 1000)
opt_int_st = st.none() | st.integers(1, 14)
played_st = st.fixed_dictionaries(
    {**{str(v): st.integers(0, 24) for v in range(1, 14)}, "F": st.integers(0, 3)},
    optional={"14": st.integers(0, 4)},
)


@st.composite
def turns(draw):
    return Turn(
        id=draw(st.integers(0, 2**63)),
        session=draw(small_st),
        round=draw(small_st),
        hand=draw(cards_st),
        lead=draw(st.booleans()),
        count=draw(opt_int_st),
        top=draw(opt_int_st),
        round_plays=draw(st.lists(st.tuples(player_st, cards_st), max_size=8)),
        hand_sizes=draw(st.lists(st.integers(0, 16), min_size=4, max_size=8)),
        jobs=draw(st.permutations(list(range(1, 5)))),
        out=draw(st.lists(st.tuples(player_st, st.integers(1, 8)), max_size=8)),
        played=draw(played_st),
        clock=TurnClock(draw(st.integers(0, 10**6)), draw(st.integers(0, 10**7))),
        legal=draw(st.none() | st.lists(cards_st, max_size=10)),
    )


playeds = st.builds(
    Played,
    session=small_st,
    round=small_st,
    player=player_st,
    cards=cards_st,
    fault=st.none() | st.sampled_from(["timeout", "malformed", "illegal", "crash", "disqualified"]),
)

sessions = st.builds(
    Session,
    session=small_st,
    jobs=st.lists(st.integers(1, 8), min_size=4, max_size=8),
    order=st.lists(player_st, min_size=4, max_size=8),
    dealt=cards_st,
    gave=cards_st,
    got=cards_st,
    hand=cards_st,
)


@settings(max_examples=200, deadline=None)
@given(st.one_of(turns(), playeds, sessions))
def test_property_round_trip(msg):
    line = encode(msg)
    assert decode(line) == msg
    assert decode(line.encode()) == msg
    assert encode(decode(line)) == line
    assert json.loads(line) == msg.to_dict()


@settings(max_examples=200, deadline=None)
@given(st.integers(-(2**70), 2**70), cards_st)
def test_property_move_round_trip(id_, cards):
    msg = MoveMsg(id_, cards)
    assert decode(encode(msg), types=BOT_MESSAGE_TYPES) == msg


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200)))
def test_property_garbage_only_raises_protocol_error(line):
    try:
        decode(line, types=BOT_MESSAGE_TYPES)
    except ProtocolError:
        pass


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=10,
)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(sorted(MESSAGE_TYPES)),
    st.dictionaries(
        st.sampled_from(["id", "cards", "name", "legal", "version", "session", "clock", "round_plays",
                         "out", "jobs", "played", "round", "player", "fault", "x"]),
        json_values,
    ),
)
def test_property_wrong_shapes_only_raise_protocol_error(type_, fields):
    """Whatever a bot puts in the fields, decode returns a message or raises ProtocolError."""
    try:
        decode(json.dumps({"type": type_, **fields}))
    except ProtocolError:
        pass
