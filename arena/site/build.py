"""Writing the static site: ``index.html``, one page per bot, the replay viewer and their data files.

Layout of the output folder (everything opens from disk, no server)::

    index.html              rating table (sortable), rating plot, tournament settings
    bots/<bot>.html         one bot: its matches, finishing places, faults, rating plot
    viewer.html             replay viewer (#match=<index>&step=<n> picks a match and a step)
    assets/                 site.css, site.js (table sorting), viewer.js
    data/matches.js         every match, for the viewer's match picker
    data/replays/<name>.js  one replay each, loaded by the viewer only when its match is picked
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .layout import asset_text, esc, number, page, percent, slug
from .plot import colors_for, rating_plot
from .replays import write_replay_data

__all__ = ["ASSETS", "build_site"]

ASSETS = ("site.css", "site.js", "viewer.js")
LEFT = ' class="left"'

# (column of the rating table, header, tooltip, formatter)
_TABLE = (
    ("rank", "#", "Rank by conservative rating", str),
    ("bot", "Bot", "Bot name", str),
    ("mu", "μ", "TrueSkill mean", number),
    ("sigma", "σ", "TrueSkill uncertainty", number),
    ("conservative", "Rating", "Conservative rating μ − 3σ (the sort key)", number),
    ("matches", "Matches", "Rated matches played", str),
    ("wins", "Wins", "Matches won (CEO of the final session)", str),
    ("win_rate", "Win rate", "Wins / matches", percent),
    ("mean_place", "Mean place", "Mean finishing place (1 = winner)", number),
    ("ceo_share", "CEO share", "Share of all sessions ended as CEO", percent),
    ("faults", "Faults", "Faults (timeouts, crashes, malformed or illegal moves)", str),
    ("disqualifications", "DQs", "Disqualifications", str),
)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _job(rank: int, n: int) -> str:
    return "CEO" if rank == 1 else "Trainee" if rank == n else f"rank {rank}"


def _value(value: Any) -> str:
    """A table cell's sort key (``data-value``): empty for undefined numbers."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


_TEXT = object()


def _td(html: str, value: Any = _TEXT, cls: str = "", title: str = "") -> str:
    """A table cell: ``html`` shown, ``value`` its sort key (None: undefined, sorts last; default: the text)."""
    attrs = f' data-value="{_value(value)}"' if value is not _TEXT else ""
    attrs += f' class="{cls}"' if cls else ""
    attrs += f' title="{esc(title)}"' if title else ""
    return f"<td{attrs}>{html}</td>"


def _plot_block(plot: str, bots: Sequence[str], colors: Mapping[str, tuple[str, str]], links: Mapping[str, str],
                root: str) -> str:
    legend = "".join(
        f'<li><span class="swatch" style="background:{colors[b][0]}"></span>'
        f'<a href="{root}bots/{links[b]}.html">{esc(b)}</a></li>' for b in bots)
    return f'<figure class="plot-box">{plot}<figcaption><ul class="legend">{legend}</ul></figcaption></figure>'


# ---------------------------------------------------------------------------------- index


def _ratings_table(table: pd.DataFrame, colors: Mapping[str, tuple[str, str]], links: Mapping[str, str]) -> str:
    head = "".join(
        f'<th scope="col" data-key="{key}" data-type="{"text" if key == "bot" else "number"}" title="{esc(tip)}"'
        f'{LEFT if key == "bot" else ""}>{esc(label)}</th>' for key, label, tip, _ in _TABLE)
    rows = []
    for record in table.to_dict("records"):
        cells = []
        for key, _, _, fmt in _TABLE:
            value = record[key]
            if key == "bot":
                cells.append(f'<td class="left" data-value="{esc(value)}"><span class="swatch" style="background:'
                             f'{colors[value][0]}"></span><a href="bots/{links[value]}.html">{esc(value)}</a></td>')
            else:
                cells.append(f'<td data-value="{_value(value)}">{esc(fmt(value))}</td>')
        rows.append(f'<tr data-bot="{esc(record["bot"])}">{"".join(cells)}</tr>')
    return (f'<table id="ratings" class="sortable data"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _settings(config: Mapping[str, Any], progress: Mapping[str, int] | None, rated: int) -> str:
    def row(label: str, value: Any) -> str:
        return f"<tr><th scope=\"row\">{esc(label)}</th><td>{esc(value)}</td></tr>"

    rows = [row("Rules", config.get("rules", "?"))]
    seats = config.get("seats")
    rows.append(row("Players per match", ", ".join(map(str, seats)) if isinstance(seats, list) else seats))
    groups = config.get("matches")
    if groups is not None:
        rotation = "each played once per rotation of the starting jobs" if config.get("rotation") else "no rotation"
        rows.append(row("Match groups", f"{groups} ({rotation})"))
    if config.get("duration_s"):
        rows.append(row("Match length", f"timed, {config['duration_s']:g} s"))
    elif config.get("sessions"):
        rows.append(row("Match length", f"{config['sessions']} sessions"))
    if progress:
        rows.append(row("Matches played", f"{progress.get('done', 0)} of {progress.get('total', 0)} ({rated} rated)"))
    if "seed" in config:
        rows.append(row("Seed", config["seed"]))
    clock = config.get("clock") or {}
    if clock:
        rows.append(row("Clock", f"hello {clock.get('hello_ms')} ms, move {clock.get('move_ms')} ms, "
                                 f"bank {clock.get('bank_ms')} ms"))
    limits = config.get("limits") or {}
    if limits:
        rows.append(row("Limits", f"memory {limits.get('memory_mb')} MB, CPU {limits.get('cpu_s')} s, "
                                  f"fault limit {limits.get('fault_limit')}"))
    rating = config.get("rating") or {}
    if rating:
        rows.append(row("TrueSkill", ", ".join(f"{k} {v}" for k, v in rating.items())))
    bots = "".join(f"<tr><td>{esc(b.get('name'))}</td><td><code>{esc(b.get('cmd'))}</code></td></tr>"
                   for b in config.get("bots") or [])
    bot_table = (f'<table class="data compact"><thead><tr><th>Bot</th><th>Command</th></tr></thead>'
                 f"<tbody>{bots}</tbody></table>") if bots else ""
    return f'<table class="settings"><tbody>{"".join(rows)}</tbody></table>{bot_table}'


# ---------------------------------------------------------------------------------- bot pages


def _bot_page(bot: str, *, cmd: str, record: Mapping[str, Any] | None, results: Sequence[Any],
              ratings_after: Mapping[int, float], start: float, history: pd.DataFrame, colors: Any,
              links: Mapping[str, str], data_keys: Mapping[int, str], title: str) -> str:
    played = [(r, r.bots.index(bot)) for r in results if bot in r.bots]
    seats = max((len(r.bots) for r, _ in played), default=0)
    places = [0] * seats
    rows = []
    previous = start
    for r, p in played:
        n = len(r.bots)
        place = r.ranking.index(p) + 1 if p in r.ranking else None
        if place is not None:
            places[place - 1] += 1
        dq = p in r.disqualified
        after = ratings_after.get(r.index)
        delta = None if after is None else after - previous
        if after is not None:
            previous = after
        opponents = ", ".join(f'<a href="{links[o]}.html">{esc(o)}</a>' if o in links else esc(o)
                              for o in r.bots if o != bot)
        kinds = r.fault_kinds[p] if p < len(r.fault_kinds) else {}
        fault_tip = ", ".join(f"{k} ×{v}" for k, v in sorted(kinds.items()))
        faults = str(r.faults[p])
        if dq:
            reason = r.dq_reasons[p] if p < len(r.dq_reasons) else None
            faults += f' <span class="badge bad" title="{esc(reason or "disqualified")}">DQ</span>'
        match_link = (f'<a href="../viewer.html#match={r.index}">#{r.index}</a>' if r.index in data_keys
                      else f"#{r.index}")
        change = "" if delta is None else "up" if delta > 0 else "down" if delta < 0 else ""
        cells = (
            _td(match_link, r.index),
            _td(f"{r.group}·{r.rotation}", r.group * 1000 + r.rotation),
            _td(esc(_job(r.jobs[p], n)), r.jobs[p]),
            _td(opponents, cls="left wrap"),
            _td("–" if place is None else f"{place} / {n}", place),
            _td(f"{r.ceo_sessions[p]} / {r.sessions_played}", r.ceo_sessions[p]),
            _td(faults, r.faults[p] + 1000 * dq, title=fault_tip),  # disqualified sorts above any fault count
            _td(number(after), after),
            _td("–" if delta is None else f"{delta:+.2f}", delta, cls=change),
        )
        row_class = ' class="win"' if place == 1 else ' class="faulty"' if r.faults[p] or dq else ""
        rows.append(f"<tr{row_class}>{''.join(cells)}</tr>")
    total = sum(places) or 1
    bars = "".join(
        f'<div class="bar-row"><span class="bar-label">{i + 1}.</span><span class="bar" style="width:'
        f'{100 * c / total:.1f}%"></span><span class="bar-count">{c}</span></div>' for i, c in enumerate(places))
    stats = ""
    if record is not None:
        items = (("Rank", record["rank"]), ("Rating", number(record["conservative"])),
                 ("μ / σ", f"{number(record['mu'])} / {number(record['sigma'])}"), ("Matches", record["matches"]),
                 ("Wins", f"{record['wins']} ({percent(record['win_rate'])})"),
                 ("Mean place", number(record["mean_place"])), ("CEO share", percent(record["ceo_share"])),
                 ("Faults", record["faults"]), ("DQs", record["disqualifications"]))
        stats = '<dl class="stats">' + "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>"
                                               for k, v in items) + "</dl>"
    plot = rating_plot(history, start, colors, highlight=bot, label=f"Conservative rating of {bot}")
    head = ("<th data-type=\"number\">Match</th><th data-type=\"number\">Group·rot</th>"
            "<th data-type=\"number\">Start job</th><th data-type=\"text\" class=\"left\">Opponents</th>"
            "<th data-type=\"number\">Place</th><th data-type=\"number\">CEO sessions</th>"
            "<th data-type=\"number\">Faults</th><th data-type=\"number\">Rating after</th>"
            "<th data-type=\"number\">Change</th>")
    matches = (f'<table id="bot-matches" class="sortable data"><thead><tr>{head}</tr></thead>'
               f'<tbody>{"".join(rows)}</tbody></table>') if rows else '<p class="empty">No match played.</p>'
    body = (f'<h1><span class="swatch big" style="background:{colors[bot][0]}"></span>{esc(bot)}</h1>'
            f'<p class="sub"><code>{esc(cmd)}</code></p>{stats}'
            f'<section><h2>Rating over the tournament</h2><figure class="plot-box">{plot}</figure></section>'
            f'<section class="two"><div><h2>Finishing places</h2><div class="bars">{bars}</div></div></section>'
            f"<section><h2>Matches ({len(played)})</h2>{matches}</section>")
    return page(f"{bot} · {title}", body, root="../", heading=title, scripts=("assets/site.js",))


# ---------------------------------------------------------------------------------- the site


def build_site(
    out_dir: str | Path, *, config: Mapping[str, Any], bots: Sequence[str], table: pd.DataFrame,
    history: pd.DataFrame, results: Sequence[Any], replays: Mapping[int, Path],
    progress: Mapping[str, int] | None = None, start_rating: float | None = None,
) -> list[Path]:
    """Write the static site into ``out_dir``; returns the pages and data files written
    (not the per-replay data files).

    ``table`` is :func:`arena.ratings.ratings_table`, ``history`` :func:`arena.ratings.rating_history`,
    ``results`` the stored results (``Store.results()``) and ``replays`` the copied replay of each
    match index (files inside ``out_dir``). ``start_rating`` is the conservative rating before any match.
    """
    out = Path(out_dir)
    title = str(config.get("name") or "Tournament")
    written: list[Path] = []
    for name in ASSETS:
        path = out / "assets" / name
        _write(path, asset_text(name))
        written.append(path)

    names = list(dict.fromkeys([*bots, *table["bot"].tolist(), *history.columns]))
    colors = colors_for(names)
    used: set[str] = set()
    links = {b: slug(b, used) for b in names}
    if start_rating is None:
        rating = config.get("rating") or {}
        start_rating = float(rating.get("mu", 25.0)) - 3 * float(rating.get("sigma", 8.333))
    history = history.reindex(columns=names, fill_value=start_rating)

    # replay data: one JS file per distinct copied replay. A data file carries its replay's mtime, and
    # is kept while they match: a site published again as the tournament runs converts new replays only.
    data_keys: dict[int, str] = {}
    done: set[str] = set()
    (out / "data" / "replays").mkdir(parents=True, exist_ok=True)
    for index, path in sorted(replays.items()):
        key = f"data/replays/{path.name}.js"
        if key not in done:
            target = out / key
            mtime = path.stat().st_mtime_ns
            if not (target.is_file() and target.stat().st_mtime_ns == mtime):
                write_replay_data(path, target, key)
                os.utime(target, ns=(mtime, mtime))
            done.add(key)
        data_keys[index] = key
    matches = [{
        "index": r.index, "group": r.group, "rotation": r.rotation, "bots": list(r.bots), "jobs": list(r.jobs),
        "ranking": list(r.ranking), "winner": r.winner, "sessions": r.sessions_played, "faults": list(r.faults),
        "disqualified": list(r.disqualified), "data": data_keys.get(r.index),
    } for r in results]
    path = out / "data" / "matches.js"
    _write(path, "window.ARENA_MATCHES = " + json.dumps({"tournament": title, "matches": matches},
                                                        separators=(",", ":")) + ";\n")
    written.append(path)

    # index.html
    rated = len(history)
    plot = rating_plot(history, start_rating, colors)
    summary = f"{len(results)} match(es) played, {rated} rated · {len(names)} bots · rules {config.get('rules', '?')}"
    body = (f"<h1>{esc(title)}</h1><p class=\"sub\">{esc(summary)}</p>"
            f"<section><h2>Ratings</h2><p class=\"hint\">Click a column header to sort.</p>"
            f"{_ratings_table(table, colors, links)}</section>"
            f"<section><h2>Conservative rating (μ − 3σ) over the tournament</h2>"
            f"{_plot_block(plot, names, colors, links, '')}</section>"
            f"<section><h2>Settings</h2>{_settings(config, progress, rated)}</section>"
            f'<p><a class="button" href="viewer.html">Watch the replays →</a></p>')
    path = out / "index.html"
    _write(path, page(title, body, heading=title, scripts=("assets/site.js",)))
    written.append(path)

    # one page per bot
    cmds = {b.get("name"): b.get("cmd", "") for b in config.get("bots") or []}
    records = {rec["bot"]: rec for rec in table.to_dict("records")}
    for bot in names:
        column = history[bot]
        after = dict(zip(history.index.tolist(), column.tolist()))
        path = out / "bots" / f"{links[bot]}.html"
        _write(path, _bot_page(bot, cmd=cmds.get(bot, ""), record=records.get(bot), results=results,
                               ratings_after=after, start=start_rating, history=history, colors=colors,
                               links=links, data_keys=data_keys, title=title))
        written.append(path)

    # the viewer
    body = '<div id="viewer" class="viewer"></div>'
    path = out / "viewer.html"
    _write(path, page(f"Replays · {title}", body, heading=title, scripts=("data/matches.js", "assets/viewer.js")))
    written.append(path)
    return written
