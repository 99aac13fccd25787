"""TrueSkill ratings from stored results (tournament.md, 'Ratings').

Free-for-all: each match is one game in which every bot is its own team, ranked by the match's
final ranking (R15); disqualified bots tie for last (R16). Matches are rated in schedule order
(their ``index``), never in completion order, so ratings do not depend on worker count or timing.
Matches that finished no session (empty ranking) are not rated and do not count.

The per-match loop uses plain lists and dicts; pandas is used once, for the final table.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from typing import Any, Callable

import pandas as pd
import trueskill

from .tables import FORMATS, render

__all__ = [
    "COLUMNS", "FORMATS", "rating_env", "match_ranks", "ratings_table", "ratings_from_store", "rating_history",
    "format_table",
]

COLUMNS = ("rank", "bot", "mu", "sigma", "conservative", "matches", "wins", "win_rate", "mean_place",
           "ceo_share", "faults", "disqualifications")
"""The columns of the rating table, in order (also the keys of every ``json`` row)."""
_FLOATS = ("mu", "sigma", "conservative", "win_rate", "mean_place", "ceo_share")


def rating_env(rating: Any = None) -> trueskill.TrueSkill:
    """A TrueSkill environment from a RatingConfig, a mapping with its keys, or None (defaults)."""
    defaults = {"mu": 25.0, "sigma": 8.333, "beta": 4.167, "tau": 0.083, "draw_probability": 0.0}
    if rating is None:
        params = defaults
    elif isinstance(rating, Mapping):
        params = {k: float(rating.get(k, v)) for k, v in defaults.items()}
    else:
        params = {k: float(getattr(rating, k)) for k in defaults}
    return trueskill.TrueSkill(mu=params["mu"], sigma=params["sigma"], beta=params["beta"], tau=params["tau"],
                               draw_probability=params["draw_probability"])


def match_ranks(result: Any) -> list[int]:
    """TrueSkill ranks (0 = best) per player id: ranking order, every disqualified bot tied last."""
    n = len(result.bots)
    dq = result.disqualified
    ranks: list[int | None] = [None] * n
    place = 0
    for p in result.ranking:
        if p not in dq:
            ranks[p] = place
            place += 1
    return [place if r is None else r for r in ranks]


def _rate(
    results: Iterable[Any], env: trueskill.TrueSkill, bots: Sequence[str] | None,
    after_match: Callable[[Any, dict[str, trueskill.Rating]], None] | None = None,
) -> tuple[dict[str, trueskill.Rating], dict[str, list[float]]]:
    """Rate every result in schedule order; ``stats[bot]`` = [matches, wins, place sum, CEO sessions,
    sessions, faults, disqualifications]."""
    ratings: dict[str, trueskill.Rating] = {}
    stats: dict[str, list[float]] = {}
    for name in bots or ():
        ratings[name] = env.create_rating()
        stats[name] = [0, 0, 0, 0, 0, 0, 0]
    rate = env.rate
    ordered = sorted(results, key=attrgetter("index"))
    # The stored results are long-lived: keep the cyclic GC from rescanning them at every
    # collection that trueskill's many short-lived objects trigger.
    gc.freeze()
    try:
        _rate_all(ordered, rate, env, ratings, stats, after_match)
    finally:
        gc.unfreeze()
    return ratings, stats


def _rate_all(ordered: list[Any], rate: Callable[..., Any], env: trueskill.TrueSkill,
              ratings: dict[str, trueskill.Rating], stats: dict[str, list[float]],
              after_match: Callable[[Any, dict[str, trueskill.Rating]], None] | None) -> None:
    for result in ordered:
        ranking = result.ranking
        if not ranking:
            continue
        names = result.bots
        for name in names:
            if name not in ratings:
                ratings[name] = env.create_rating()
                stats[name] = [0, 0, 0, 0, 0, 0, 0]
        ranks = match_ranks(result)
        new = rate([(ratings[name],) for name in names], ranks=ranks)
        winner = ranking[0]
        dq = result.disqualified
        sessions = result.sessions_played
        ceo = result.ceo_sessions
        faults = result.faults
        for p, name in enumerate(names):
            ratings[name] = new[p][0]
            s = stats[name]
            s[0] += 1
            if p == winner:
                s[1] += 1
            s[2] += ranks[p] + 1
            s[3] += ceo[p]
            s[4] += sessions
            s[5] += faults[p]
            if p in dq:
                s[6] += 1
        if after_match is not None:
            after_match(result, ratings)


def ratings_table(
    results: Iterable[Any], env: trueskill.TrueSkill | None = None, bots: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The rating table, one row per bot, sorted by conservative rating (mu - 3 sigma), best first.

    ``results`` are stored results (``Store.results()``: index, bots, ranking, disqualified,
    sessions_played, ceo_sessions, faults); ``bots`` lists bots to show even without a match.
    Columns: :data:`COLUMNS`. ``mean_place`` is 1-based (disqualified bots share the last place);
    ``ceo_share`` is sessions ended as CEO over sessions played; undefined values are NaN.
    """
    env = env if env is not None else rating_env()
    return _table(*_rate(results, env, bots))


def _table(ratings: dict[str, trueskill.Rating], stats: dict[str, list[float]]) -> pd.DataFrame:
    rows = []
    for name, r in ratings.items():
        matches, wins, places, ceo, sessions, faults, dqs = stats[name]
        rows.append((name, r.mu, r.sigma, r.mu - 3 * r.sigma, int(matches), int(wins),
                     wins / matches if matches else math.nan, places / matches if matches else math.nan,
                     ceo / sessions if sessions else math.nan, int(faults), int(dqs)))
    rows.sort(key=lambda row: (-row[3], row[0]))
    df = pd.DataFrame(rows, columns=list(COLUMNS[1:]))
    df.insert(0, "rank", range(1, len(df) + 1))
    return df


def rating_history(
    results: Iterable[Any], env: trueskill.TrueSkill | None = None, bots: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Conservative rating (mu - 3 sigma) of every bot after every rated match, in schedule order.

    One row per rated match (index: the match's schedule ``index``), one column per bot; a bot's
    value carries over through matches it did not play, and is its starting rating before its first.
    """
    return ratings_and_history(results, env, bots)[1]


def ratings_and_history(
    results: Iterable[Any], env: trueskill.TrueSkill | None = None, bots: Sequence[str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`ratings_table` and :func:`rating_history` from one pass of TrueSkill (for publishing)."""
    env = env if env is not None else rating_env()
    order: list[str] = list(bots or ())
    known = set(order)
    start = env.create_rating()
    current: dict[str, float] = dict.fromkeys(order, start.mu - 3 * start.sigma)
    index: list[int] = []
    rows: list[list[float]] = []

    def after_match(result: Any, ratings: dict[str, trueskill.Rating]) -> None:
        for name in result.bots:
            if name not in known:
                known.add(name)
                order.append(name)
            r = ratings[name]
            current[name] = r.mu - 3 * r.sigma
        index.append(result.index)
        rows.append([current[name] for name in order])

    ratings, stats = _rate(results, env, bots, after_match)
    width = len(order)
    initial = start.mu - 3 * start.sigma
    data = [row + [initial] * (width - len(row)) for row in rows]
    return _table(ratings, stats), pd.DataFrame(data, index=pd.Index(index, name="match"), columns=order)


def ratings_from_store(store: Any) -> pd.DataFrame:
    """The rating table of an open :class:`arena.tournament.store.Store`: its stored rating
    parameters, every bot of the file (even without a match) and its done matches."""
    return ratings_table(store.results(), rating_env(store.config().get("rating")),
                         [name for name, _ in store.bots()])


# --------------------------------------------------------------------------- output


def _records(df: pd.DataFrame, digits: int = 4) -> list[dict[str, Any]]:
    out = []
    for row in df[list(COLUMNS)].itertuples(index=False):
        record: dict[str, Any] = {}
        for key, value in zip(COLUMNS, row):
            if key in _FLOATS:
                value = None if value is None or math.isnan(value) else round(float(value), digits)
            elif key != "bot":
                value = int(value)
            record[key] = value
        out.append(record)
    return out


def _cell(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if key in ("win_rate", "ceo_share"):
        return f"{100 * value:.1f}%"
    if key in _FLOATS:
        return f"{value:.2f}"
    return str(value)


def format_table(df: pd.DataFrame, fmt: str = "table") -> str:
    """The rating table as text: ``table`` (aligned columns), ``csv``, ``md`` (Markdown) or ``json``
    (a list of row objects keyed by :data:`COLUMNS`)."""
    return render(_records(df), COLUMNS, fmt, cell=_cell)