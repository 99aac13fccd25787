"""The reference bots (bots/random_bot.py, greedy.py, heuristic.py, ismcts.py): legal play and clocks.

Each bot plays 200 sessions in-process with no fault; the search bot keeps to a small move clock
when driven through the SDK with hand-made turn clocks; the scripts answer the protocol as processes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from greedy import GreedyBot
from heuristic import HeuristicBot
from ismcts import ISMCTSBot
from random_bot import RandomBot
from sdk.bot import BotDriver
from sdk.deal import initial_jobs
from sdk.harness import play_match
from sdk.match import Match
from sdk.protocol import Clock, Hello, MoveMsg, Ready, Turn, TurnClock
from sdk.referee import Referee

ROOT = Path(__file__).resolve().parent.parent
SESSIONS = 200


def fast_ismcts() -> ISMCTSBot:
    """The search bot with a small fixed budget, so 200 sessions take seconds."""
    return ISMCTSBot(iterations=12, time_ms=10)


def sessions_without_faults(make, sessions: int = SESSIONS, per_match: int = 8, players: int = 4,
                            rules: str = "animal-poker") -> int:
    """Play ``sessions`` sessions with the bot in every seat in turn; returns the sessions played."""
    played = 0
    seed = 0
    while played < sessions:
        seat = seed % players
        bots = [make() if p == seat else GreedyBot() for p in range(players)]
        if seed % 3 == 1:
            bots[(seat + 1) % players] = RandomBot()
        result = play_match(bots, rules=rules, sessions=per_match, seed=f"ref/{seed}",
                            jobs=initial_jobs(seed, players, seed))
        assert result.faults == [0] * players, (make, seed, result.faults)
        assert sorted(result.ranking) == list(range(players))
        played += result.sessions_played
        seed += 1
    return played


@pytest.mark.parametrize("make", [RandomBot, GreedyBot, HeuristicBot, fast_ismcts],
                         ids=["random", "greedy", "heuristic", "ismcts"])
def test_bot_plays_200_sessions_without_a_fault(make) -> None:
    assert sessions_without_faults(make) >= SESSIONS


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["lazy-chaotic", "karriere-1988", "equal-allowed"])
@pytest.mark.parametrize("players", [4, 6])
@pytest.mark.parametrize("make", [HeuristicBot, fast_ismcts], ids=["heuristic", "ismcts"])
def test_bot_plays_legally_with_every_preset_and_table_size(make, rules: str, players: int) -> None:
    sessions_without_faults(make, sessions=6, per_match=3, players=players, rules=rules)


def test_heuristic_beats_random_play() -> None:
    """A sanity check of strength (the bar itself is measured by benchmarks/strength.py)."""
    wins = 0
    for seed in range(10):
        bots = [HeuristicBot(), RandomBot(), RandomBot(), RandomBot()]
        wins += play_match(bots, sessions=4, seed=seed, jobs=initial_jobs(seed, 4, seed)).winner == 0
    assert wins >= 8


def drive_timed(bot, move_ms: int, bank_ms: int, sessions: int, seed: int = 7) -> list[float]:
    """Play a match through BotDriver with the given turn clock; the seconds of each of ``bot``'s answers.

    ``bot`` sits in seat 0 against greedy bots; every message is built by the referee, as in the arena.
    """
    players = 4
    match = Match("animal-poker", players, seed=seed, sessions=sessions)
    referee = Referee(match, ["under-test"] + ["greedy"] * (players - 1), Clock(hello_ms=1000, move_ms=move_ms,
                                                                                bank_ms=bank_ms))
    drivers = [BotDriver(bot)] + [BotDriver(GreedyBot()) for _ in range(players - 1)]
    for player, driver in enumerate(drivers):
        assert isinstance(driver.handle(referee.hello(player)), Ready)
    times: list[float] = []
    while not match.planned_sessions_done:
        for player, msg in enumerate(referee.start_session()):
            drivers[player].handle(msg)
        state = match.state
        while not state.over:
            player = state.to_move
            turn = referee.turn(TurnClock(move_ms=move_ms, bank_ms=bank_ms))
            start = time.perf_counter()
            reply = drivers[player].handle(turn)
            elapsed = time.perf_counter() - start
            if player == 0:
                times.append(elapsed)
            assert isinstance(reply, MoveMsg) and reply.id == turn.id
            for event in referee.play(_move(reply)):
                for driver in drivers:
                    driver.handle(event)
    return times


def _move(reply: MoveMsg):
    from sdk.moves import parse_move

    return parse_move(reply.cards)


def test_ismcts_keeps_to_a_50_ms_move_clock() -> None:
    """With move_ms = 50 it searches at most 40% of it: every answer well inside the clock."""
    bot = ISMCTSBot()  # the default --time-ms; the turn clock caps it
    times = drive_timed(bot, move_ms=50, bank_ms=0, sessions=2)
    assert len(times) > 10
    assert max(times) < 0.050 + 0.030, sorted(times)[-5:]
    assert max(bot.stats) > 1  # it did search


def test_ismcts_time_flag_caps_the_search() -> None:
    bot = ISMCTSBot(time_ms=10)
    times = drive_timed(bot, move_ms=1000, bank_ms=10000, sessions=1)
    assert max(times) < 0.010 + 0.030, sorted(times)[-5:]


def test_ismcts_answers_a_forced_move_at_once() -> None:
    """One legal move (a pass) is answered without searching."""
    bot = ISMCTSBot(time_ms=1000)
    driver = BotDriver(bot)
    driver.handle(Hello(protocol=1, rules="animal-poker", you=0, players=4, names=["a", "b", "c", "d"],
                        sessions=8, clock=Clock(), seed=1))
    turn = Turn(id=5, session=1, round=2, hand=[2, 3, 5], lead=False, count=1, top=13,
                round_plays=[(3, [13])], hand_sizes=[3, 10, 9, 11], jobs=[1, 2, 3, 4], out=[],
                played={str(v): 0 for v in range(1, 14)} | {"13": 1, "F": 0},
                clock=TurnClock(move_ms=1000, bank_ms=10000))
    start = time.perf_counter()
    reply = driver.handle(turn)
    assert time.perf_counter() - start < 0.01
    assert reply == MoveMsg(id=5, cards=[])


def _talk(script: str, *args: str) -> list[dict]:
    """Run a bot script as a process with a hello, a session and one turn; its replies."""
    hello = {"type": "hello", "protocol": 1, "rules": "animal-poker", "you": 0, "players": 4,
             "names": ["me", "b", "c", "d"], "sessions": 8,
             "clock": {"hello_ms": 10000, "move_ms": 200, "bank_ms": 1000}, "seed": 3}
    hand = [1, 1, 4, 5, 5, 7, 9, 10, 11, 12, 13, 13, "F"]
    session = {"type": "session", "session": 1, "jobs": [1, 2, 3, 4], "order": [0, 1, 2, 3],
               "dealt": hand, "gave": [], "got": [], "hand": hand}
    turn = {"type": "turn", "id": 1, "session": 1, "round": 1, "hand": hand, "lead": True, "count": None,
            "top": None, "round_plays": [], "hand_sizes": [13, 13, 13, 16], "jobs": [1, 2, 3, 4], "out": [],
            "played": {**{str(v): 0 for v in range(1, 14)}, "F": 0},
            "clock": {"move_ms": 200, "bank_ms": 1000}}
    end = {"type": "match_end", "sessions": 1, "ranking": [0, 1, 2, 3], "winner": 0}
    lines = "".join(json.dumps(m) + "\n" for m in (hello, session, turn, end))
    out = subprocess.run([sys.executable, str(ROOT / "bots" / script), *args], input=lines, text=True,
                         capture_output=True, timeout=30, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


@pytest.mark.parametrize("script,args", [("heuristic.py", ()), ("ismcts.py", ("--time-ms", "50")),
                                         ("ismcts.py", ("--iterations", "20"))])
def test_script_speaks_the_protocol(script: str, args: tuple[str, ...]) -> None:
    ready, move = _talk(script, *args)
    assert ready["type"] == "ready"
    assert move["type"] == "move" and move["id"] == 1 and move["cards"]
