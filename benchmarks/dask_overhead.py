"""Overhead per match of the Dask executor against the local process pool.

Runs the same small tournament (4 bots, 4 seats, 2 sessions a match, real sandboxed bot processes,
through `arena tournament run` and its SQLite store) three ways, -j 2 each:

  local         the local process pool (--executor local)
  dask-local    --executor dask without --scheduler: a LocalCluster of 2 worker processes started
                by the run itself (its start-up is part of the run)
  dask-cluster  --executor dask --scheduler tcp://127.0.0.1:PORT: a scheduler and 2 workers
                (--nthreads 1 --resources cpus=1) started before the clock starts, like a real cluster

in rotating order, and prints for each executor: seconds per match over the whole command (wall /
matches) and over the matches only (first match started to last match finished, / matches), median
and best run, and their difference from the local pool; the mean time of one match inside its worker;
and the fixed cost per run (wall minus the matches: interpreter, cluster start, shutdown).
Needs `pip install -e '.[dask]'`. Run: python benchmarks/dask_overhead.py [--groups N] [--repeat R]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

TOURNAMENT = """
name: overhead
seats: 4
matches: {groups}
sessions: 2
rotation: true
seed: 11
bots:
  - {{name: random-a, cmd: python bots/random_bot.py}}
  - {{name: random-b, cmd: python bots/random_bot.py}}
  - {{name: greedy, cmd: python bots/greedy.py}}
  - {{name: low-first, cmd: python bots/low_first.py}}
"""


def run(file: Path, tmp: Path, label: str, extra: list[str]) -> dict[str, float]:
    """One `arena tournament run`: its wall seconds, the seconds from the first match's start to the last
    one's end (span), the mean time of a match inside the worker (match), the number of matches."""
    db = tmp / f"{label}.sqlite"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from arena.cli import main; main()", "tournament", "run", str(file),
                    "-j", "2", "--db", str(db), "--results", str(tmp / label), "--no-progress", *extra],
                   check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    wall = time.perf_counter() - start
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT started_at, finished_at, duration_s FROM matches WHERE status='done'").fetchall()
    stamp = lambda s: datetime.fromisoformat(s).timestamp()  # noqa: E731
    span = max(stamp(f) for _, f, _ in rows) - min(stamp(s) for s, _, _ in rows)
    return {"wall": wall, "span": span, "match": statistics.mean(d for _, _, d in rows), "matches": len(rows),
            "load": os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")}


class Cluster:
    """A scheduler and two workers on 127.0.0.1, as separate processes (what `dask scheduler`/`dask worker` start)."""

    def __init__(self, tmp: Path) -> None:
        self.procs: list[subprocess.Popen] = []
        try:
            self._launch(tmp)
        except BaseException:
            self.close()
            raise

    def _launch(self, tmp: Path) -> None:
        file = tmp / "scheduler.json"
        self._start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--dashboard-address",
                     "127.0.0.1:0", "--scheduler-file", str(file)], tmp)
        deadline = time.monotonic() + 60
        while True:
            try:
                self.address = json.loads(file.read_text())["address"]
                break
            except (OSError, ValueError, KeyError):
                if time.monotonic() > deadline:
                    raise RuntimeError("the scheduler did not start") from None
                time.sleep(0.1)
        for i in range(2):
            self._start(["worker", self.address, "--host", "127.0.0.1", "--nthreads", "1", "--resources", "cpus=1",
                         "--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--local-directory",
                         str(tmp / f"worker{i}"), "--name", f"w{i}"], tmp)
        from distributed import Client

        with Client(self.address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)

    def _start(self, args: list[str], tmp: Path) -> None:
        log = open(tmp / f"{args[0]}-{len(self.procs)}.log", "w")  # noqa: SIM115
        self.procs.append(subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=log, stderr=log,
                                           cwd=tmp, start_new_session=True))

    def close(self) -> None:
        """SIGTERM the workers, then the scheduler (both at once can hang a worker's close); SIGKILL laggards."""
        for group in (self.procs[1:], self.procs[:1]):
            for proc in group:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGTERM)
            for proc in group:
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--groups", type=int, default=5, help="match groups (x4 rotations = matches)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per executor (the median is printed)")
    args = parser.parse_args()
    if importlib.util.find_spec("distributed") is None:
        sys.exit("this benchmark needs the Dask extra: pip install -e '.[dask]'")
    labels = {"local": [], "dask-local": ["--executor", "dask"], "dask-cluster": ["--executor", "dask"]}
    results: dict[str, list[dict[str, float]]] = {label: [] for label in labels}
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        file = tmp / "overhead.yaml"
        file.write_text(TOURNAMENT.format(groups=args.groups))
        cluster = Cluster(tmp)
        labels["dask-cluster"] += ["--scheduler", cluster.address]
        try:
            for r in range(args.repeat):
                order = list(labels)[r % 3:] + list(labels)[:r % 3]  # rotate, so load drift hits all alike
                for label in order:
                    results[label].append(run(file, tmp, f"{label}{r}", labels[label]))
        finally:
            cluster.close()
    matches = int(results["local"][0]["matches"])
    loads = [x["load"] for runs in results.values() for x in runs]
    print(f"{matches} matches of 2 sessions, 4 bot processes each, -j 2, {os.cpu_count()} CPUs, {args.repeat} "
          f"run(s) each (load average {min(loads):.1f}-{max(loads):.1f}); seconds per match, median (best):")
    print(f"{'executor':<14}{'whole command':>17}{'vs local':>10}{'matches only':>17}{'vs local':>10}"
          f"{'in a match':>12}{'fixed s/run':>13}")

    def per_match(runs: list[dict[str, float]], key: str, pick=statistics.median) -> float:
        return pick(x[key] for x in runs) / matches

    base = {key: per_match(results["local"], key) for key in ("wall", "span")}
    for label, runs in results.items():
        wall, span = per_match(runs, "wall"), per_match(runs, "span")
        best_wall, best_span = per_match(runs, "wall", min), per_match(runs, "span", min)
        inside = statistics.median(x["match"] for x in runs)
        fixed = statistics.median(x["wall"] - x["span"] for x in runs)
        print(f"{label:<14}{wall:>9.3f} ({best_wall:.3f}){wall - base['wall']:>+10.3f}"
              f"{span:>9.3f} ({best_span:.3f}){span - base['span']:>+10.3f}{inside:>12.3f}{fixed:>13.2f}")
    print("whole command: wall time / matches; matches only: first match started to last match finished / "
          "matches;\nin a match: mean time of one match (its bots' play) on the worker; fixed: wall - matches "
          "only (start-up, cluster start, shutdown)")

if __name__ == "__main__":
    main()
