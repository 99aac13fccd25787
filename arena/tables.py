"""Rendering rows as text: an aligned table, CSV, Markdown or JSON (``--format``)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from typing import Any

FORMATS = ("table", "csv", "md", "json")


def _plain(key: str, value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def render(
    records: Sequence[dict[str, Any]], columns: Sequence[str], fmt: str = "table",
    cell: Callable[[str, Any], str] = _plain, left: Sequence[str] = ("bot", "name"),
) -> str:
    """``records`` (dicts keyed by ``columns``) as text in ``fmt``: table, csv, md or json."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    if fmt == "json":
        return json.dumps([{k: r[k] for k in columns} for r in records], indent=2) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(columns)
        for record in records:
            writer.writerow(["" if record[k] is None else record[k] for k in columns])
        return buf.getvalue()
    cells = [[cell(k, record[k]) for k in columns] for record in records]
    if fmt == "md":
        lines = ["| " + " | ".join(columns) + " |",
                 "|" + "|".join(":---" if k in left else "---:" for k in columns) + "|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
        return "\n".join(lines) + "\n"
    widths = [max([len(k)] + [len(row[i]) for row in cells]) for i, k in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        parts = [v.ljust(w) if k in left else v.rjust(w) for k, v, w in zip(columns, values, widths)]
        return "  ".join(parts).rstrip()

    out = [line(columns), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in cells]
    return "\n".join(out) + "\n"
