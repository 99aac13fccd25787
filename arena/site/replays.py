"""Replays for the browser: one small JS data file per replay, and the self-contained viewer page.

A page opened from disk (file://) may not fetch() local JSON, but it may load a script. So each
replay becomes ``data/replays/<name>.js``, a single call ``arenaReplay("<key>", [events...])`` that
the viewer (``assets/viewer.js``) loads on demand with a ``<script>`` tag when the match is picked.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .layout import asset_text, esc, page

__all__ = ["replay_events_json", "write_replay_data", "write_replay_html"]


def replay_events_json(path: str | Path) -> tuple[str, int]:
    """The events of a replay as a JSON array (text), and how many lines were skipped.

    The JSON Lines are kept as written (no re-encoding); a line that is not a JSON object with an
    ``event`` is skipped, so a damaged replay still shows what it can.
    """
    with open(path, encoding="utf-8") as file:
        lines = [line for line in map(str.strip, file) if line]
    text = "[" + ",".join(lines) + "]"
    try:  # the usual case, checked in one parse
        records = json.loads(text)
        if len(records) == len(lines) and all(isinstance(r, dict) and "event" in r for r in records):
            return text, 0
    except ValueError:
        pass
    kept: list[str] = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and "event" in record:
            kept.append(line)
    return "[" + ",".join(kept) + "]", len(lines) - len(kept)


def write_replay_data(replay_path: str | Path, out_path: Path, key: str) -> None:
    """Write the JS data file of one replay; ``key`` is the path the viewer loads it by."""
    events, _ = replay_events_json(replay_path)
    tmp = out_path.with_name(f".{out_path.name}.tmp")
    tmp.write_text(f"arenaReplay({json.dumps(key)}, {events});\n", encoding="utf-8")
    os.replace(tmp, out_path)


def _inline_json(text: str) -> str:
    """JSON made safe inside an HTML <script> element ('<' only occurs inside JSON strings)."""
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def write_replay_html(replay_path: str | Path, out_path: str | Path) -> Path:
    """Write one self-contained HTML page (styles, script and the replay inlined) to view a replay."""
    replay_path, out_path = Path(replay_path), Path(out_path)
    events, _ = replay_events_json(replay_path)
    title = f"Replay {replay_path.name}"
    start = next((e for e in json.loads(events) if e.get("event") == "match_start"), None)
    if start is not None:
        players = ", ".join(str(p.get("name", "?")) for p in start.get("players", []))
        title = f"Replay {start.get('match_id') or replay_path.stem}: {players}"
    data = f"window.ARENA_STANDALONE = {{\"title\": {json.dumps(title)}, \"events\": {events}}};"
    body = f'<h1>{esc(title)}</h1>\n<div id="viewer" class="viewer"></div>'
    html = page(title, body, heading="Animal Poker replay", css=asset_text("site.css"),
                inline_scripts=(_inline_json(data), asset_text("viewer.js")))
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(html, encoding="utf-8")
    return out_path
