"""Protocol round trip: the arena and a minimal SDK bot, next to the floor of a raw pipe echo.

Prints the median and p99 round trip of a turn (from writing the turn line to reading the whole
reply line, as the arena's clock measures it) between the arena's BotPool and a minimal SDK bot
(sandboxed as in a real match), and the floor: the same number of round trips of a raw line echo
over pipes between two Python processes in the same run, carrying the same turn lines (for
reference also a short line both ways). Then full-match throughput: 4 greedy bot processes,
20 sessions. Run: python benchmarks/protocol.py [--turns N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MINIMAL_BOT = """
from sdk.bot import Bot, run

class Minimal(Bot):
    name = "minimal"
    def play(self, turn):
        return turn.legal[0]

run(Minimal())
"""

ECHO = """
import sys
out = sys.stdout
for line in sys.stdin:
    out.write(line)
    out.flush()
"""


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q / 100 * len(values)))]


def turn_lines(count: int) -> list[str]:
    """Real turn messages from a real game, so the bot decodes what it would in a match."""
    from sdk.match import Match
    from sdk.protocol import Clock, TurnClock
    from sdk.referee import Referee

    lines: list[str] = []
    session = 0
    while len(lines) < count:
        session += 1
        match = Match("animal-poker", 4, seed=session, sessions=1)
        referee = Referee(match, ["a", "b", "c", "d"], Clock())
        referee.start_session()
        state = match.state
        while not state.over and len(lines) < count:
            turn = referee.turn(TurnClock(1000, 10000))
            turn.id = len(lines) + 1
            lines.append(turn.to_json())
            referee.play(state.fallback_move())
    return lines


def arena_round_trips(turns: list[str], isolation: str | None) -> tuple[list[float], str]:
    from arena.process import BotPool
    from sdk.protocol import Clock, Hello

    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "minimal_bot.py"
        script.write_text(MINIMAL_BOT)
        os.chmod(tmp, 0o755)
        os.chmod(script, 0o644)
        with BotPool(isolation=isolation) as pool:
            bot = pool.start("minimal", f"python {script}", ROOT)
            hello = Hello(1, "animal-poker", 0, 4, ["a", "b", "c", "d"], None, Clock(), 1)
            pool.send(bot, hello.to_json())
            assert pool.wait_line(bot, time.monotonic() + 10).kind == "line"
            times = []
            for line in turns:
                start = time.perf_counter()
                pool.send(bot, line)
                reply = pool.wait_line(bot, time.monotonic() + 5)
                times.append(time.perf_counter() - start)
                assert reply.kind == "line", reply
            return times, pool.isolation


def echo_round_trips(lines: list[str]) -> list[float]:
    """Round trips of a raw line echo: each line goes to a Python process and comes back."""
    proc = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env={"PATH": os.environ.get("PATH", "")})
    assert proc.stdin and proc.stdout
    times = []
    for line in lines:
        data = (line + "\n").encode()
        start = time.perf_counter()
        proc.stdin.write(data)
        proc.stdin.flush()
        proc.stdout.readline()
        times.append(time.perf_counter() - start)
    proc.stdin.close()
    proc.wait()
    return times


def match_throughput(sessions: int) -> tuple[float, str]:
    from arena.match import MatchConfig
    from arena.runner import BotSpec, run_match

    bots = [BotSpec(f"greedy{i}", f"python {ROOT / 'bots' / 'greedy.py'}") for i in range(4)]
    start = time.perf_counter()
    report = run_match(bots, MatchConfig(sessions=sessions, seed=1))
    return sessions / (time.perf_counter() - start), report.isolation


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=5000)
    parser.add_argument("--isolation", default=None, help="force a sandbox level (default: the strongest)")
    args = parser.parse_args()
    turns = turn_lines(args.turns)
    arena, isolation = arena_round_trips(turns, args.isolation)
    floor = echo_round_trips(turns)
    short = echo_round_trips(['{"type":"move","id":1,"cards":[3]}'] * len(turns))
    a50, a99 = statistics.median(arena) * 1e6, percentile(arena, 99) * 1e6
    f50, f99 = statistics.median(floor) * 1e6, percentile(floor, 99) * 1e6
    s50, s99 = statistics.median(short) * 1e6, percentile(short, 99) * 1e6
    print(f"{len(turns)} round trips each (isolation: {isolation})")
    print(f"arena <-> SDK bot, turn/move   : median {a50:7.1f} us   p99 {a99:7.1f} us")
    print(f"floor: echo of the turn lines  : median {f50:7.1f} us   p99 {f99:7.1f} us")
    print(f"  (echo of a short move line   : median {s50:7.1f} us   p99 {s99:7.1f} us)")
    print(f"ratio of medians to the floor  : {a50 / f50:.2f}x (bar: at most 2x)")
    rate, isolation = match_throughput(20)
    print(f"full match, 4 greedy processes, 20 sessions: {rate:.1f} sessions/s (isolation: {isolation})")


if __name__ == "__main__":
    main()
