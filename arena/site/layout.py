"""The HTML shell every page of the site shares, and small formatting helpers."""

from __future__ import annotations

import math
import re
from html import escape
from importlib import resources
from typing import Any

__all__ = ["esc", "asset_text", "page", "slug", "number", "percent"]


def esc(value: Any) -> str:
    """``value`` as HTML text (quotes escaped too, so it is safe in attributes)."""
    return escape(str(value), quote=True)


def asset_text(name: str) -> str:
    """The text of a static asset shipped in ``arena/site/assets/``."""
    return resources.files("arena.site").joinpath("assets", name).read_text(encoding="utf-8")


def slug(name: str, used: set[str]) -> str:
    """A file-name-safe, unique (within ``used``) form of a bot name; added to ``used``."""
    base = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")[:60] or "bot"
    candidate, n = base, 2
    while candidate.lower() in used:
        candidate, n = f"{base}-{n}", n + 1
    used.add(candidate.lower())
    return candidate


def number(value: Any, digits: int = 2) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def percent(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{100 * value:.1f}%"


def page(title: str, body: str, *, root: str = "", heading: str = "", scripts: tuple[str, ...] = (),
         css: str | None = None, inline_scripts: tuple[str, ...] = ()) -> str:
    """A complete HTML document.

    ``root`` is the relative path from the page to the site root ("" or "../"); ``scripts`` are
    script paths relative to the root, loaded at the end of the body. A page that must stand alone
    passes ``css`` and ``inline_scripts`` (their text is inlined) and no ``root`` navigation.
    """
    if css is None:
        head_css = f'<link rel="stylesheet" href="{root}assets/site.css">'
        nav = (f'<nav class="top"><a class="brand" href="{root}index.html">{esc(heading) or "Animal Poker arena"}</a>'
               f'<a href="{root}index.html">Leaderboard</a><a href="{root}viewer.html">Replays</a></nav>')
    else:
        head_css = f"<style>\n{css}\n</style>"
        nav = f'<nav class="top"><span class="brand">{esc(heading) or "Animal Poker arena"}</span></nav>'
    tags = "".join(f'<script src="{root}{esc(src)}"></script>\n' for src in scripts)
    tags += "".join(f"<script>\n{text}\n</script>\n" for text in inline_scripts)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{esc(title)}</title>\n{head_css}\n</head>\n<body>\n{nav}\n<main>\n{body}\n</main>\n{tags}"
        "</body>\n</html>\n"
    )
