"""Tournament throughput at -j 1 and -j 2, and the cost of the ratings step.

Prints matches/minute for a 4-bot, 4-seat, 8-session greedy tournament (real sandboxed bot
processes, through the real runner and SQLite store) at -j 1 and -j 2, the speed-up, and the time
to compute ratings from 20,000 stored 4-player results (see benchmarks/ratings.py for the split
between the trueskill package and the rest). Run: python benchmarks/tournament.py [--matches N]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TOURNAMENT = """
name: bench
seats: 4
matches: {groups}
sessions: 8
rotation: true
seed: 7
bots:
  - {{name: greedy-a, cmd: python {root}/bots/greedy.py}}
  - {{name: greedy-b, cmd: python {root}/bots/greedy.py}}
  - {{name: greedy-c, cmd: python {root}/bots/greedy.py}}
  - {{name: greedy-d, cmd: python {root}/bots/greedy.py}}
"""


def run(jobs: int, groups: int) -> float:
    """Matches per minute for one run of `arena tournament run -j jobs`."""
    with tempfile.TemporaryDirectory() as tmp:
        file = Path(tmp) / "bench.yaml"
        file.write_text(TOURNAMENT.format(groups=groups, root=ROOT))
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", "tournament", "run", str(file),
                        "-j", str(jobs), "--db", f"{tmp}/bench.sqlite", "--results", f"{tmp}/results",
                        "--no-progress"], check=True, stdout=subprocess.DEVNULL, cwd=tmp)
        seconds = time.perf_counter() - start
    return groups * 4 / seconds * 60


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--groups", type=int, default=10, help="match groups (x4 rotations = matches)")
    parser.add_argument("--skip-ratings", action="store_true")
    args = parser.parse_args()
    one = run(1, args.groups)
    two = run(2, args.groups)
    print(f"{args.groups * 4} matches of 8 sessions, 4 greedy bot processes each")
    print(f"-j 1: {one:6.1f} matches/min")
    print(f"-j 2: {two:6.1f} matches/min")
    print(f"speed-up -j 2 / -j 1: {two / one:.2f}x (bar: at least 1.8x)")
    if not args.skip_ratings:
        subprocess.run([sys.executable, str(ROOT / "benchmarks" / "ratings.py")], check=True)


if __name__ == "__main__":
    main()
