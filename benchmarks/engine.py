"""Engine speed: random play in-process at 4 and 8 players, the bot harness, determinizations.

Prints sessions/s and turns/s. "Engine" is the loop a search bot runs (legal_moves, a uniform
random choice, apply with the legality check on); "harness" plays Bot objects through the full
protocol message path of sdk.harness. Run: python benchmarks/engine.py [--sessions N]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bots"))

from sdk import Match  # noqa: E402
from sdk.determinize import Knowledge  # noqa: E402
from sdk.harness import play_match  # noqa: E402


def engine_random_play(players: int, sessions: int, seed: int = 1) -> tuple[float, float]:
    """Seconds and turns for ``sessions`` sessions of uniform random play (checked moves)."""
    rng = random.Random(seed)
    match = Match("animal-poker", players, seed=seed, sessions=sessions)
    turns = 0
    start = time.perf_counter()
    for _ in range(sessions):
        state = match.start_session()
        while not state.over:
            state.apply(rng.choice(state.legal_moves()))
            turns += 1
    return time.perf_counter() - start, turns


def harness_random_play(players: int, sessions: int) -> tuple[float, float]:
    from random_bot import RandomBot

    start = time.perf_counter()
    result = play_match([RandomBot() for _ in range(players)], sessions=sessions, seed=1)
    return time.perf_counter() - start, result.turns


def determinizations(samples: int) -> float:
    """Determinizations per second from mid-session positions of a 4-player game."""
    rng = random.Random(2)
    match = Match("animal-poker", 4, seed=2, sessions=1)
    state = match.start_session()
    for _ in range(12):
        state.apply(rng.choice(state.legal_moves()))
    me = state.to_move
    deal = match.deal
    assert deal is not None
    gave: list = []
    got: list = []
    for ex in deal.exchanges:
        if me == ex.superior:
            gave, got = ex.gave, ex.got
        elif me == ex.subordinate:
            gave, got = ex.got, ex.gave
    know = Knowledge.from_session(match.rules, me, list(state.jobs), gave, got)
    hand, sizes, played = state.hands[me], state.sizes, state.played
    start = time.perf_counter()
    for _ in range(samples):
        know.sample_hands(hand, sizes, played, rng)
    return samples / (time.perf_counter() - start)


def best_of(runs: int, fn, *args) -> tuple[float, float]:
    results = [fn(*args) for _ in range(runs)]
    return min(results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, one process, best of {args.repeat}")
    for players in (4, 8):
        seconds, turns = best_of(args.repeat, engine_random_play, players, args.sessions)
        print(f"engine  random play  {players} players: {args.sessions / seconds:10,.0f} sessions/s "
              f"{turns / seconds:12,.0f} turns/s")
    for players in (4, 8):
        sessions = max(1, args.sessions // 10)
        seconds, turns = best_of(args.repeat, harness_random_play, players, sessions)
        print(f"harness random bots  {players} players: {sessions / seconds:10,.0f} sessions/s "
              f"{turns / seconds:12,.0f} turns/s")
    print(f"determinizations (4 players, mid-session): {determinizations(20000):,.0f} /s")


if __name__ == "__main__":
    main()
