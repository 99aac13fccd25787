"""Publishing speed: the static site of a 1,000-match tournament, from SQLite to the last page.

A few real 8-session matches are played in-process (greedy, random and low-first bots), then a
1,000-match results database is written through the Store, each match pointing to its own replay
file (a copy of one of the real replays, with the scheduled bots' names). Then ``publish`` is timed:
rating table and history, copying the replays, one JS data file per replay, the index, a page per
bot and the viewer. Prints the time and the size of what was written.
Wall and CPU time are both printed: on a shared machine the CPU time is the steadier figure.
Run: python benchmarks/site.py [--matches N] [--bots N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bots"))

from arena.match import MatchConfig, MatchReport, SeatReport, play_match  # noqa: E402
import arena.publish  # noqa: E402
from arena.publish import publish  # noqa: E402
from arena.replay import ReplayWriter  # noqa: E402
from arena.scripted import BotChannel  # noqa: E402
from arena.tournament.config import BotEntry, TournamentConfig  # noqa: E402
from arena.tournament.schedule import build_schedule  # noqa: E402
from arena.tournament.store import Store  # noqa: E402
from greedy import GreedyBot  # noqa: E402
from low_first import LowFirst  # noqa: E402
from random_bot import RandomBot  # noqa: E402
from sdk.protocol import Clock  # noqa: E402

TEMPLATES = 8


def play_templates(folder: Path, count: int) -> list[tuple[list[str], MatchReport]]:
    """``count`` real 4-player, 8-session matches: (replay lines, report) each."""
    out = []
    makers = [GreedyBot, RandomBot, LowFirst, GreedyBot]
    for i in range(count):
        path = folder / f"template{i}.jsonl"
        bots = [BotChannel(makers[(i + k) % 4]()) for k in range(4)]
        report = play_match(bots, ["a", "b", "c", "d"], MatchConfig(sessions=8, seed=100 + i, grace_s=0,
                                                                     clock=Clock(move_ms=200, bank_ms=1000)),
                            ReplayWriter(path))
        out.append((path.read_text().splitlines(), report))
    return out


def fill(folder: Path, matches: int, bots: int) -> Path:
    """A results database of ``matches`` 4-player matches, each with its own replay file."""
    templates = play_templates(folder, TEMPLATES)
    config = TournamentConfig(name="site bench", bots=tuple(BotEntry(f"bot{i}", "python bots/greedy.py")
                                                            for i in range(bots)),
                              seats=(4,), matches=matches // 4, rotation=True, sessions=8, seed=5)
    schedule = build_schedule(config)
    db = folder / "bench.db"
    store = Store.open(db)
    store.init_tournament(config, schedule)
    (folder / "replays").mkdir()
    for m in schedule:
        lines, report = templates[m.index % TEMPLATES]
        start = json.loads(lines[0])
        start["match_id"] = m.match_id
        start["players"] = [{"name": name, "cmd": "python bots/greedy.py"} for name in m.bots]
        replay = folder / "replays" / f"{m.match_id}.jsonl"
        replay.write_text("\n".join([json.dumps(start, separators=(",", ":")), *lines[1:]]) + "\n")
        seats = [SeatReport(name=name, faults=dict(s.faults), disqualified=s.disqualified)
                 for name, s in zip(m.bots, report.seats)]
        store.record(m.index, MatchReport(
            match_id=m.match_id, seed=m.seed, rules=report.rules, jobs=list(m.jobs), ranking=report.ranking,
            winner=report.winner, sessions_played=report.sessions_played, results=report.results,
            reason=report.reason, seats=seats, isolation="none", duration_s=report.duration_s), replay)
    store.close()
    return db


def size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--keep", type=Path, help="Also copy the published site here, to look at it.")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        db = fill(folder, args.matches, args.bots)
        print(f"made {args.matches} results with replays in {time.perf_counter() - start:.1f} s")
        out = folder / "site"
        spent: dict[str, list[float]] = {}

        def timed(name: str, fn):
            def wrapper(*a, **k):
                t = time.perf_counter()
                value = fn(*a, **k)
                spent.setdefault(name, []).append(time.perf_counter() - t)
                return value
            return wrapper

        for name in ("ratings_table", "rating_history", "build_site"):  # where publish spends its time
            setattr(arena.publish, name, timed(name, getattr(arena.publish, name)))
        start, cpu = time.perf_counter(), time.process_time()
        result = publish(db, out)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        files, total = size(out)
        data_files, data_bytes = size(out / "data" / "replays")
        ratings = spent["ratings_table"][0] + spent["rating_history"][0]
        site = spent["build_site"][0]
        print(f"publish, {len(result.replays)} replays: {elapsed:.2f} s wall, {cpu:.2f} s CPU")
        print(f"  ratings (table and history) {ratings:.2f} s, site {site:.2f} s, "
              f"the rest (reading the database, copying the replays, rating files) {elapsed - ratings - site:.2f} s")
        print(f"  wrote {files} files, {total / 1e6:.1f} MB: {data_files} replay data files of "
              f"{data_bytes / data_files / 1e3:.0f} kB")
        pages = {name: (out / name).stat().st_size for name in ("index.html", "viewer.html", "data/matches.js")}
        print("  " + ", ".join(f"{name} {n / 1e3:.0f} kB" for name, n in pages.items())
              + f", largest bot page {max(p.stat().st_size for p in (out / 'bots').iterdir()) / 1e3:.0f} kB")
        start = time.perf_counter()
        publish(db, out)
        print(f"publish again into the same folder: {time.perf_counter() - start:.2f} s, of which the site "
              f"{spent['build_site'][1]:.2f} s (unchanged replays are not converted again)")
        if args.keep:
            shutil.rmtree(args.keep, ignore_errors=True)
            shutil.copytree(out, args.keep)
            print(f"site copied to {args.keep}")


if __name__ == "__main__":
    main()
