"""Ratings speed: 20,000 stored 4-player results, from SQLite to the rating table.

Generates random results into a temporary database through the Store (one transaction per match,
as the runner writes them), then times (a) the whole ratings pipeline (open the database, read the
results, rate them in schedule order, build the pandas table) and (b) the time spent inside
``env.rate`` during it, and, for reference, (c) ``env.rate`` alone on the same games in a bare loop.
The rest of the pipeline should cost under 10% of (b).
Run: python benchmarks/ratings.py [--matches N] [--bots N]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.match import MatchReport, SeatReport  # noqa: E402
from arena.ratings import format_table, match_ranks, rating_env, ratings_table  # noqa: E402
from arena.tournament.config import BotEntry, TournamentConfig  # noqa: E402
from arena.tournament.schedule import build_schedule  # noqa: E402
from arena.tournament.store import Store  # noqa: E402


def fill(path: Path, matches: int, bots: int, seed: int = 1) -> TournamentConfig:
    config = TournamentConfig(name="bench", bots=tuple(BotEntry(f"bot{i}", "python bots/greedy.py")
                                                      for i in range(bots)),
                              seats=(4,), matches=matches // 4, rotation=True, sessions=8, seed=seed)
    schedule = build_schedule(config)
    rng = random.Random(seed)
    store = Store.open(path)
    store.init_tournament(config, schedule)
    for m in schedule:
        ranking = list(range(4))
        rng.shuffle(ranking)
        results = []
        for _ in range(8):
            jobs = list(range(1, 5))
            rng.shuffle(jobs)
            results.append(jobs)
        results[-1] = [ranking.index(p) + 1 for p in range(4)]
        seats = [SeatReport(name=b) for b in m.bots]
        if rng.random() < 0.02:  # a few faults and disqualifications
            p = rng.randrange(4)
            seats[p].faults["timeout"] = 3
            seats[p].disqualified = "fault limit (3) reached"
            ranking.remove(p)
            ranking.append(p)
        store.record(m.index, MatchReport(
            match_id=m.match_id, seed=m.seed, rules="animal-poker", jobs=list(m.jobs), ranking=ranking,
            winner=ranking[0], sessions_played=8, results=results, reason="sessions", seats=seats,
            isolation="none", duration_s=1.0), f"replays/{m.match_id}.jsonl")
    store.close()
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--bots", type=int, default=8)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        start = time.perf_counter()
        config = fill(path, args.matches, args.bots)
        print(f"wrote {args.matches} results through the Store in {time.perf_counter() - start:.2f} s")

        env = rating_env(config.rating)
        inside = 0.0
        rate = env.rate

        def timed_rate(*a, **k):
            nonlocal inside
            t = time.perf_counter()
            out = rate(*a, **k)
            inside += time.perf_counter() - t
            return out

        env.rate = timed_rate  # type: ignore[method-assign]
        start = time.perf_counter()
        with Store.open(path) as store:
            t_read = time.perf_counter()
            results = store.results()
            t_read = time.perf_counter() - t_read
            bots = [name for name, _ in store.bots()]
        df = ratings_table(results, env, bots)
        total = time.perf_counter() - start
        env.rate = rate  # type: ignore[method-assign]
        # (c) the trueskill package alone: the same games, inputs prepared beforehand, nothing else
        games = [(r.bots, match_ranks(r)) for r in results if r.ranking]
        rated = len(results)
        del results
        current = {name: env.create_rating() for name in bots}
        start = time.perf_counter()
        for names, ranks in games:
            new = rate([(current[n],) for n in names], ranks=ranks)
            for n, (r,) in zip(names, new):
                current[n] = r
        alone = time.perf_counter() - start
    overhead = total - inside
    print(f"(a) ratings pipeline, total:      {total:8.3f} s  ({rated} matches)")
    print(f"(b) inside env.rate:              {inside:8.3f} s")
    print(f"    everything else:              {overhead:8.3f} s  = {100 * overhead / inside:.1f}% of (b)"
          f"  (reading the database: {t_read:.3f} s)")
    print(f"(c) env.rate alone, same games:   {alone:8.3f} s  -> (a) is {100 * (total - alone) / alone:+.1f}% over it")
    print()
    print(format_table(df, "table"))


if __name__ == "__main__":
    main()
