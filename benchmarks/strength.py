"""Strength bar: one bot against three copies of greedy, in-process, with seat rotation.

Every seed is played 4 times, the bot taking each starting job once (``jobs=initial_jobs(seed, 4, r)``),
so the deals are the same for every seat (a duplicate format). A match is 8 sessions; the winner is
the final CEO (R15). Prints the matches, the bot's wins as final CEO, the win rate with a 95%
confidence interval (Wilson score), its mean final place and faults. Chance is 25%.

    python benchmarks/strength.py heuristic --seeds 100            # 400 matches, about a minute
    python benchmarks/strength.py ismcts --seeds 50 -j 2           # the default 400 ms per move: hours
    python benchmarks/strength.py ismcts --iterations 1000 --seeds 50 -j 2   # a fixed budget, reproducible

The ismcts bot is timed by its own clock (default ``--time-ms 400``, capped at 40% of the 1000 ms move
time the harness announces); ``--iterations N`` gives it a fixed iteration count instead, which does
not depend on the machine's load. ``-j`` plays seeds in parallel worker processes.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bots"))
sys.path.insert(0, str(ROOT))

from sdk.deal import initial_jobs  # noqa: E402
from sdk.harness import play_match  # noqa: E402

PLAYERS = 4


def make_bot(name: str, time_ms: int | None, iterations: int | None):
    if name == "heuristic":
        from heuristic import HeuristicBot

        return HeuristicBot()
    if name == "ismcts":
        from ismcts import DEFAULT_TIME_MS, ISMCTSBot

        if iterations:  # a fixed iteration count: the clock is only a safety net
            return ISMCTSBot(time_ms=time_ms or 10**9, iterations=iterations)
        return ISMCTSBot(time_ms=time_ms or DEFAULT_TIME_MS)
    if name == "greedy":
        from greedy import GreedyBot

        return GreedyBot()
    if name == "random":
        from random_bot import RandomBot

        return RandomBot()
    raise SystemExit(f"unknown bot {name!r}: heuristic, ismcts, greedy or random")


def play_seed(args: tuple[str, int, int, int | None, int | None]) -> list[tuple[int, int, int]]:
    """The 4 rotations of one seed: (won, final place 1..4, faults) for the bot in each."""
    name, seed, sessions, time_ms, iterations = args
    from greedy import GreedyBot

    out = []
    for rotation in range(PLAYERS):
        bots = [make_bot(name, time_ms, iterations)] + [GreedyBot() for _ in range(PLAYERS - 1)]
        result = play_match(bots, sessions=sessions, seed=seed, jobs=initial_jobs(seed, PLAYERS, rotation))
        out.append((int(result.winner == 0), result.ranking.index(0) + 1, result.faults[0]))
    return out


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a binomial rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bot", choices=["heuristic", "ismcts", "greedy", "random"])
    parser.add_argument("--seeds", type=int, default=50, help="seeds; each is played in 4 rotations (default 50)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--time-ms", type=int, default=None, help="ismcts: search time per move")
    parser.add_argument("--iterations", type=int, default=None, help="ismcts: fixed iterations per move")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args()

    tasks = [(args.bot, seed, args.sessions, args.time_ms, args.iterations)
             for seed in range(args.first_seed, args.first_seed + args.seeds)]
    results: list[tuple[int, int, int]] = []
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for done, rows in enumerate(pool.map(play_seed, tasks), start=1):
            results += rows
            if not args.quiet:
                wins = sum(r[0] for r in results)
                print(f"  {done}/{len(tasks)} seeds: {wins}/{len(results)} wins "
                      f"({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    n = len(results)
    wins = sum(r[0] for r in results)
    lo, hi = wilson(wins, n)
    budget = ""
    if args.bot == "ismcts":
        budget = f" ({args.iterations} iterations per move)" if args.iterations else \
            f" ({args.time_ms or 'default'} ms per move)"
    print(f"{args.bot}{budget} vs 3 x greedy, {PLAYERS} players, {args.sessions} sessions per match, "
          f"seeds {args.first_seed}..{args.first_seed + args.seeds - 1} x {PLAYERS} rotations")
    print(f"matches:            {n}")
    print(f"wins as final CEO:  {wins}")
    print(f"win rate:           {wins / n:.1%}  (95% CI {lo:.1%} .. {hi:.1%}; chance 25%)")
    print(f"mean final place:   {sum(r[1] for r in results) / n:.2f}")
    print(f"faults:             {sum(r[2] for r in results)}")
    print(f"time:               {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
