"""The rating plot: every bot's conservative rating (mu - 3 sigma) over the matches rated, as inline SVG."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from .layout import esc

__all__ = ["PALETTE", "colors_for", "rating_plot"]

PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7",
           "#9c755f", "#7f7f7f")
"""Line colours (Tableau 10); past ten bots the colours repeat with a dash pattern."""
_DASHES = ("", "6 3", "2 3", "8 3 2 3")
MAX_POINTS = 1500
"""Most points drawn per bot: long tournaments are thinned evenly (the last point is always kept)."""

_W, _H = 900, 320
_LEFT, _RIGHT, _TOP, _BOTTOM = 48, 16, 12, 34


def colors_for(bots: Sequence[str]) -> dict[str, tuple[str, str]]:
    """(colour, dash pattern) per bot, in the given order."""
    return {bot: (PALETTE[i % len(PALETTE)], _DASHES[(i // len(PALETTE)) % len(_DASHES)])
            for i, bot in enumerate(bots)}


def _ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """About ``count`` round tick values covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step + 1e-9) + 1)]


def _points(values: Sequence[float]) -> list[tuple[int, float]]:
    """(x, value) where the value changes (a bot's rating only moves in its own matches), thinned."""
    points = [(0, values[0])]
    for x in range(1, len(values)):
        if values[x] != values[x - 1]:
            points.append((x, values[x]))
    if points[-1][0] != len(values) - 1:
        points.append((len(values) - 1, values[-1]))
    if len(points) > MAX_POINTS:
        step = len(points) / MAX_POINTS
        points = [points[int(i * step)] for i in range(MAX_POINTS - 1)] + [points[-1]]
    return points


def rating_plot(history: pd.DataFrame, start: float, colors: dict[str, tuple[str, str]],
                highlight: str | None = None, label: str = "Conservative rating over the matches rated") -> str:
    """An inline SVG of every column of ``history`` (rows: rated matches in schedule order).

    ``start`` is every bot's rating before its first match (drawn at x = 0). With ``highlight``, that
    bot is drawn bold on top and the others thin and grey.
    """
    bots = list(history.columns)
    n = len(history)
    if n == 0 or not bots:
        return '<p class="empty">No rated match yet: nothing to plot.</p>'
    series = {bot: [start] + [float(v) for v in history[bot].tolist()] for bot in bots}
    lo = min(min(v) for v in series.values())
    hi = max(max(v) for v in series.values())
    pad = (hi - lo) * 0.06 or 1.0
    lo, hi = lo - pad, hi + pad
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM

    def sx(x: float) -> float:
        return _LEFT + plot_w * x / n

    def sy(y: float) -> float:
        return _TOP + plot_h * (hi - y) / (hi - lo)

    parts = [f'<svg class="plot" viewBox="0 0 {_W} {_H}" role="img" aria-label="{esc(label)}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>{esc(label)}</title>']
    for t in _ticks(lo, hi):
        y = sy(t)
        parts.append(f'<line class="grid" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
                     f'<text class="tick" x="{_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{t:g}</text>')
    for t in _ticks(0, n, 8):
        if t == int(t) and t <= n:
            x = sx(t)
            bottom = _TOP + plot_h
            parts.append(f'<line class="axis" x1="{x:.1f}" x2="{x:.1f}" y1="{bottom}" y2="{bottom + 4}"/>'
                         f'<text class="tick" x="{x:.1f}" y="{bottom + 17}" text-anchor="middle">{int(t)}</text>')
    parts.append(f'<line class="axis" x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{_TOP + plot_h}" y2="{_TOP + plot_h}"/>')
    parts.append(f'<text class="axis-label" x="{_LEFT + plot_w / 2:.0f}" y="{_H - 2}" text-anchor="middle">'
                 f'matches rated</text>')
    order = [b for b in bots if b != highlight] + ([highlight] if highlight in series else [])
    for bot in order:
        values = series[bot]
        coords = " ".join(f"{sx(x):.1f},{sy(v):.1f}" for x, v in _points(values))
        color, dash = colors.get(bot, ("#888", ""))
        cls = "line"
        if highlight is not None:
            cls += " focus" if bot == highlight else " muted"
            color = color if bot == highlight else "#c8cdd3"
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<polyline class="{cls}" data-bot="{esc(bot)}" stroke="{color}"{dash_attr} points="{coords}">'
                     f'<title>{esc(bot)}: {values[-1]:.2f} after {n} rated match(es)</title></polyline>')
    parts.append("</svg>")
    return "".join(parts)
