"""The Node.js example bot (bots/js/greedy.js), written from spec/protocol.md alone.

(a) a pure protocol test: hand-written messages on its stdin, every reply checked;
(b) a whole 4-player, 3-session match where every seat is a separate ``node`` process,
    refereed in-process by :class:`sdk.referee.Referee` (no arena needed).
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from sdk.match import Match
from sdk.moves import parse_move
from sdk.protocol import Clock, TurnClock
from sdk.referee import Referee
from sdk.rules import RuleViolation

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bots" / "js" / "greedy.js"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node (Node.js) is not on PATH: cannot run bots/js/greedy.js")

REPLY_TIMEOUT_S = 5.0
EXIT_TIMEOUT_S = 1.0  # protocol.md: exit within 1 s after match_end


class NodeBot:
    """One ``node bots/js/greedy.js`` process, talked to in JSON Lines."""

    def __init__(self) -> None:
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [NODE, str(BOT)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
            cwd=tempfile.gettempdir(),
        )
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)
        self.buf = b""

    def send(self, msg: dict | str) -> None:
        line = msg if isinstance(msg, str) else json.dumps(msg, separators=(",", ":"))
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = REPLY_TIMEOUT_S) -> dict:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(left):
                raise AssertionError(f"no reply line within {timeout} s; stderr: {self.log()!r}")
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise AssertionError(f"bot closed stdout; stderr: {self.log()!r}")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        reply = json.loads(line)  # valid JSON, or the test fails here
        assert isinstance(reply, dict), line
        return reply

    def ask(self, msg: dict) -> dict:
        self.send(msg)
        return self.read()

    def wait_exit(self, timeout: float = EXIT_TIMEOUT_S) -> tuple[int, float]:
        start = time.monotonic()
        code = self.proc.wait(timeout=timeout)
        return code, time.monotonic() - start

    def unread(self) -> bytes:
        """Whatever the bot wrote to stdout that has not been read (after it exited)."""
        rest = self.proc.stdout.read() or b""
        return self.buf + rest

    def log(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.sel.close()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.stderr.close()


# --------------------------------------------------------------------------- (a) protocol


def _hello(you: int = 0) -> dict:
    return {
        "type": "hello", "protocol": 1, "rules": "animal-poker", "you": you, "players": 4,
        "names": ["js-greedy", "a", "b", "c"], "sessions": 1,
        "clock": {"hello_ms": 10000, "move_ms": 1000, "bank_ms": 10000}, "seed": 12345,
        "some_future_field": {"nested": [1, 2]},
    }


def _turn(id_: int, hand: list, lead: bool, count=None, top=None, round_plays=(), legal=None) -> dict:
    msg = {
        "type": "turn", "id": id_, "session": 1, "round": id_, "hand": hand, "lead": lead,
        "count": count, "top": top, "round_plays": [list(p) for p in round_plays],
        "hand_sizes": [len(hand), 13, 13, 13], "jobs": [1, 2, 3, 4], "out": [],
        "played": {**{str(v): 0 for v in range(1, 14)}, "F": 0},
        "clock": {"move_ms": 1000, "bank_ms": 10000},
    }
    if legal is not None:
        msg["legal"] = legal
    return msg


# (turn, expected cards)
TURNS = [
    # leading: all copies of the lowest number, no freelancers
    (_turn(101, [2, 2, 5, 9, "F"], lead=True), [2, 2]),
    # leading, only freelancers left: freelancers alone
    (_turn(102, ["F", "F"], lead=True), ["F", "F"]),
    # following a single 7: the lowest higher single, no freelancer
    (_turn(103, [3, 5, 8, 8, 11, "F"], lead=False, count=1, top=7, round_plays=[(1, [7])]), [8]),
    # following a pair of 9s: only a higher number plus a freelancer works (one F: no F F)
    (_turn(104, [4, 4, 8, 8, 10, 13, "F"], lead=False, count=2, top=9, round_plays=[(1, [9, 9])],
           legal=[[], [10, "F"], [13, "F"]]), [10, "F"]),
    # fewest freelancers before lowest value: 9 9 rather than 6 F
    (_turn(105, [6, 9, 9, "F"], lead=False, count=2, top=5, round_plays=[(1, [5, 5]), (2, [])]), [9, 9]),
    # following three 13s with 3 freelancers: only F F F
    (_turn(106, [2, 5, "F", "F", "F"], lead=False, count=3, top=13, round_plays=[(3, [13, 13, 13])]),
     ["F", "F", "F"]),
    # following three 13s with fewer freelancers: pass
    (_turn(107, [2, 5, 13, "F", "F"], lead=False, count=3, top=13, round_plays=[(3, [13, 13, 13])]), []),
    # after a single 13 only a freelancer alone
    (_turn(108, [12, "F"], lead=False, count=1, top=13, round_plays=[(0, [13])]), ["F"]),
    # freelancers alone are never beaten by freelancers alone (top 14): pass
    (_turn(109, [3, "F"], lead=False, count=1, top=14, round_plays=[(2, ["F"]), (0, [])], legal=[[]]), []),
    # nothing beats: pass
    (_turn(110, [2, 3, 4], lead=False, count=1, top=12, round_plays=[(1, [12])]), []),
]


def test_protocol_by_hand():
    bot = NodeBot()
    try:
        ready = bot.ask(_hello())
        assert ready["type"] == "ready" and ready["name"] == "js-greedy", ready
        # No reply to these; an unknown message type must be ignored too.
        bot.send({"type": "session", "session": 1, "jobs": [1, 2, 3, 4], "order": [0, 1, 2, 3],
                  "dealt": [1, 2, 2, 5, 9, 13, "F"], "gave": [1, 13, "F"], "got": [2, 5, 9],
                  "hand": [2, 2, 2, 5, 5, 9, 9]})
        bot.send({"type": "gossip", "text": "ignore me", "id": 999})
        bot.send({"type": "played", "session": 1, "round": 1, "player": 1, "cards": [7], "fault": None})
        for turn, expected in TURNS:
            reply = bot.ask(turn)  # the first line after each turn must be its move
            assert reply.get("type") == "move", reply
            assert reply.get("id") == turn["id"], (turn["id"], reply)
            assert reply.get("cards") == expected, (turn["hand"], turn["count"], turn["top"], reply)
            bot.send({"type": "round_end", "session": 1, "round": turn["id"], "winner": 0, "next": 0})
        assert "LEGAL-MISMATCH" not in bot.log()
        bot.send({"type": "match_end", "ranking": [0, 1, 2, 3], "winner": 0})
        # match_end alone (stdin still open) must make it exit
        code, took = bot.wait_exit()
        assert code == 0, bot.log()
        assert took < EXIT_TIMEOUT_S
        assert bot.unread().strip() == b"", "no reply to non-turn messages"
    finally:
        bot.close()


def test_exits_when_stdin_closes():
    bot = NodeBot()
    try:
        assert bot.ask(_hello())["type"] == "ready"
        bot.proc.stdin.close()
        code, _ = bot.wait_exit()
        assert code == 0, bot.log()
    finally:
        bot.close()


# --------------------------------------------------------------------------- (b) whole match


def _expected_greedy(state) -> list:
    """The js-greedy choice, from the engine's legal moves (an independent statement of the strategy)."""
    legal = state.legal_moves()
    if state.leading:
        numbered = [m for m in legal if m.numbers and not m.freelancers]
        if not numbered:
            return max(legal, key=lambda m: m.freelancers).cards
        low = min(m.value for m in numbered)
        return max((m for m in numbered if m.value == low), key=lambda m: m.numbers).cards
    plays = [m for m in legal if not m.is_pass]
    if not plays:
        return []
    return min(plays, key=lambda m: (m.freelancers, m.value)).cards


@pytest.mark.parametrize("rules, players", [
    ("animal-poker", 4),  # the match the brief asks for: 4 seats, 3 sessions
    ("equal-allowed", 5),
    ("karriere-1988", 6),  # number 14, no freelancers
    ("lazy-chaotic", 8),
])
def test_full_match_node_processes(rules, players):
    sessions = 3
    match = Match(rules, players, seed=7, sessions=sessions)
    referee = Referee(match, ["js-greedy"] * players, Clock())
    clock = TurnClock(move_ms=1000, bank_ms=10000)
    bots = [NodeBot() for _ in range(players)]
    # Even seats get no `legal` field (the bot's own legality only); odd seats get it.
    send_legal = [p % 2 == 1 for p in range(players)]
    turns = 0
    try:
        for p, bot in enumerate(bots):
            bot.send(referee.hello(p).to_json())
        for p, bot in enumerate(bots):
            ready = bot.read()
            assert ready == {"type": "ready", "name": "js-greedy", "version": "1"}, ready

        def broadcast(messages) -> None:
            for msg in messages:
                line = msg.to_json()
                for bot in bots:
                    bot.send(line)

        while not match.planned_sessions_done:
            for p, msg in enumerate(referee.start_session()):
                bots[p].send(msg.to_json())
            state = match.state
            while not state.over:
                p = state.to_move
                turn = referee.turn(clock, legal=send_legal[p])
                reply = bots[p].ask(json.loads(turn.to_json()))
                assert reply.get("type") == "move" and reply.get("id") == turn.id, reply
                cards = reply["cards"]
                try:
                    move = parse_move(cards)
                except (RuleViolation, ValueError) as e:
                    raise AssertionError(f"player {p}: unparsable move {cards}: {e}") from None
                assert state.is_legal(move), f"player {p}: illegal move {cards} for turn {turn.to_json()}"
                assert cards == move.cards, f"player {p}: cards not in wire order: {cards}"
                assert cards == _expected_greedy(state), (p, cards, turn.to_json())
                events = referee.play(move, None)
                assert events[0].fault is None
                broadcast(events)
                turns += 1
        broadcast([referee.match_end()])
        for bot in bots:
            bot.proc.stdin.close()  # as the arena does after match_end
        for p, bot in enumerate(bots):
            code, took = bot.wait_exit()
            assert code == 0, (p, bot.log())
            assert took < EXIT_TIMEOUT_S
            assert bot.unread().strip() == b"", p
            assert "LEGAL-MISMATCH" not in bot.log(), bot.log()
        assert len(match.results) == sessions
        assert turns > 3 * 20
    finally:
        for bot in bots:
            bot.close()


def test_equal_allowed_preset():
    """`rules` from hello: equal-allowed lets an equal value follow, but never F-only on F-only."""
    bot = NodeBot()
    try:
        assert bot.ask({**_hello(), "rules": "equal-allowed"})["type"] == "ready"
        same = bot.ask(_turn(1, [7, 9], lead=False, count=1, top=7, round_plays=[(1, [7])]))
        assert same["cards"] == [7], same
        ff = bot.ask(_turn(2, [3, "F"], lead=False, count=1, top=14, round_plays=[(1, ["F"])]))
        assert ff["cards"] == [], ff
        bot.send({"type": "match_end", "ranking": [0, 1, 2, 3], "winner": 0})
        assert bot.wait_exit()[0] == 0
    finally:
        bot.close()
