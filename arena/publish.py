"""Publishing a tournament from its results database (tournament.md, 'Publishing').

Writes ``ratings.csv``, ``ratings.md``, ``ratings.json`` and ``matches.json`` (every rated match with
the path of its copied replay), copies the replays the database points to into ``replays/``, and
writes the static site (``index.html``, a page per bot, the replay viewer: see :mod:`arena.site`).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .ratings import format_table, rating_env, ratings_and_history
from .site import build_site
from .tournament.store import Store

__all__ = ["PublishResult", "publish"]

log = logging.getLogger(__name__)


@dataclass
class PublishResult:
    out_dir: Path
    files: list[Path] = field(default_factory=list)
    replays: dict[int, Path] = field(default_factory=dict)
    """Copied replay per match index."""
    missing: dict[int, str] = field(default_factory=dict)
    """Replays the database points to that were not found (match index -> stored path)."""


def _find_replay(stored: str, db_path: Path) -> Path | None:
    path = Path(stored)
    if path.is_absolute():
        return path if path.is_file() else None
    for base in (Path.cwd(), db_path.parent):
        if (base / path).is_file():
            return base / path
    return None


def _unique_name(name: str, index: int, used: set[str]) -> str:
    if name not in used:
        return name
    stem, dot, suffix = name.partition(".")
    candidate = f"{stem}-m{index:05d}{dot}{suffix}"
    n = 2
    while candidate in used:
        candidate = f"{stem}-m{index:05d}-{n}{dot}{suffix}"
        n += 1
    return candidate


def _write(path: Path, text: str) -> None:
    """Write atomically: a reader never sees half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def publish(db_path: str | Path, out_dir: str | Path) -> PublishResult:
    """Write the rating table (csv, md, json), ``matches.json``, the replays of ``db_path`` and the
    static site to ``out_dir``."""
    db_path = Path(db_path)
    if not db_path.is_file():
        raise FileNotFoundError(f"no results database at {db_path}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    result = PublishResult(out_dir=out)
    with Store.open(db_path) as store:
        config = store.config()
        bots = [name for name, _ in store.bots()]
        results = store.results()
        progress = store.progress()
    env = rating_env(config.get("rating"))
    df, history = ratings_and_history(results, env, bots)
    for fmt, name in (("csv", "ratings.csv"), ("md", "ratings.md"), ("json", "ratings.json")):
        path = out / name
        _write(path, format_table(df, fmt))
        result.files.append(path)

    replay_dir = out / "replays"
    used: set[str] = set()
    copied_as: dict[Path, str] = {}
    matches = []
    for r in results:
        copied = None
        if r.replay:
            source = _find_replay(r.replay, db_path)
            if source is None:
                result.missing[r.index] = r.replay
                log.warning("replay of match %d not found: %s", r.index, r.replay)
            else:
                key = source.resolve()
                name = copied_as.get(key)
                if name is None:  # several matches may point to one file: copy it once
                    replay_dir.mkdir(exist_ok=True)
                    name = _unique_name(source.name, r.index, used)
                    used.add(name)
                    copied_as[key] = name
                    shutil.copy2(source, replay_dir / name)
                result.replays[r.index] = replay_dir / name
                copied = f"replays/{name}"
        matches.append({
            "index": r.index, "group": r.group, "rotation": r.rotation, "seed": r.seed, "bots": list(r.bots),
            "jobs": list(r.jobs), "ranking": list(r.ranking), "winner": r.winner,
            "sessions_played": r.sessions_played, "faults": list(r.faults),
            "disqualified": list(r.disqualified), "replay": copied,
        })
    path = out / "matches.json"
    _write(path, json.dumps({"tournament": config.get("name"), "matches": matches}, indent=1) + "\n")
    result.files.append(path)

    start = env.create_rating()
    result.files.extend(build_site(
        out, config=config, bots=bots, table=df, history=history, results=results,
        replays=result.replays, progress=progress, start_rating=start.mu - 3 * start.sigma))
    return result
