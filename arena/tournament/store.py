"""Tournament results in SQLite (tournament.md, 'Running and storage'): one file per tournament.

WAL mode; every write is one transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``), so a SIGKILL at any
moment leaves the database as it was after the last committed write. A finished match is committed
in one transaction with all its result columns. Opening the same file again resumes: matches not
``done`` ('pending', 'running', 'aborted') are handed out again by :meth:`Store.pending`.
"""

from __future__ import annotations

import gc
import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from arena.match import MatchReport

from .config import TournamentConfig, config_fingerprint, fingerprint_fields
from .schedule import ScheduledMatch

__all__ = ["Store", "StoreError", "ScheduleMismatch", "MatchResult", "STATUSES"]

STATUSES = ("pending", "running", "done", "aborted")
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    config TEXT NOT NULL,
    created TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS bots (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    name TEXT NOT NULL,
    cmd TEXT NOT NULL,
    PRIMARY KEY (tournament_id, name)
);
CREATE TABLE IF NOT EXISTS matches (
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    idx INTEGER NOT NULL,
    grp INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    bots TEXT NOT NULL,
    jobs TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'aborted')),
    ranking TEXT,
    winner INTEGER,
    sessions_played INTEGER,
    ceo_sessions TEXT,
    faults TEXT,
    disqualified TEXT,
    replay TEXT,
    started_at TEXT,
    finished_at TEXT,
    duration_s REAL,
    isolation TEXT,
    end_reason TEXT,
    error TEXT,
    PRIMARY KEY (tournament_id, idx)
);
"""


class StoreError(Exception):
    """A results database that cannot be used as asked."""


class ScheduleMismatch(StoreError):
    """The database was made from a different tournament file (another fingerprint)."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One finished match as stored. Player id = position in ``bots``."""

    index: int
    group: int
    rotation: int
    seed: int
    bots: tuple[str, ...]
    jobs: tuple[int, ...]
    ranking: tuple[int, ...]
    """Player ids, winner first (R15), disqualified bots last (R16); empty if no session finished."""
    winner: int | None
    sessions_played: int
    ceo_sessions: tuple[int, ...]
    """Per player: sessions ended as CEO."""
    faults: tuple[int, ...]
    """Per player: fault count."""
    fault_kinds: tuple[dict[str, int], ...]
    """Per player: count per fault kind."""
    disqualified: tuple[int, ...]
    """Player ids that were disqualified."""
    dq_reasons: tuple[str | None, ...]
    """Per player: the disqualification reason, or None."""
    replay: str | None
    started_at: str | None
    finished_at: str | None
    duration_s: float | None
    isolation: str | None
    end_reason: str | None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class Store:
    """The results database of one tournament. Thread-safe (one connection behind a lock)."""

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self._conn = conn
        self.path = path
        self._lock = threading.RLock()
        self.tournament_id: int | None = None
        row = conn.execute("SELECT id FROM tournaments ORDER BY id").fetchall()
        if len(row) > 1:
            raise StoreError(f"{path} holds {len(row)} tournaments; a results database holds one")
        if row:
            self.tournament_id = row[0][0]

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | Path) -> Store:
        """Open (creating if needed) the database at ``path``; ``:memory:`` works for tests."""
        path = str(path)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: consistent after any crash
            conn.execute("PRAGMA foreign_keys=ON")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{path} was written by a newer arena (schema {version} > {SCHEMA_VERSION})")
            conn.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.close()
            raise
        return cls(conn, path)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: BEGIN IMMEDIATE ... COMMIT, rolled back on any error."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _tid(self) -> int:
        if self.tournament_id is None:
            raise StoreError(f"{self.path} holds no tournament yet: call init_tournament first")
        return self.tournament_id

    # ------------------------------------------------------------------ the tournament

    def init_tournament(self, config: TournamentConfig, schedule: Sequence[ScheduledMatch]) -> bool:
        """Create the tournament and its matches (all 'pending'), or resume it.

        Returns True when the database already held this tournament (same fingerprint): nothing is
        changed but the stored name and config (settings outside the fingerprint, such as the
        rating parameters, may change between runs). Raises :class:`ScheduleMismatch` when it holds
        a tournament made from a different file or a different schedule.
        """
        fingerprint = config_fingerprint(config)
        config_json = _dumps({"config": config.to_dict(), "fingerprint_fields": fingerprint_fields(config)})
        rows = [(m.index, m.group, m.rotation, m.seed, _dumps(list(m.bots)), _dumps(list(m.jobs))) for m in schedule]
        with self._transaction() as conn:
            existing = conn.execute("SELECT id, name, fingerprint, config FROM tournaments").fetchall()
            if existing:
                tid, name, stored_fp, stored_config = existing[0]
                if stored_fp != fingerprint:
                    raise ScheduleMismatch(self._mismatch_message(name, stored_config, config))
                stored_rows = conn.execute(
                    "SELECT idx, grp, rotation, seed, bots, jobs FROM matches WHERE tournament_id=? ORDER BY idx",
                    (tid,)).fetchall()
                if [tuple(r) for r in stored_rows] != rows:
                    raise ScheduleMismatch(
                        f"{self.path} holds tournament '{name}' from the same file, but its stored schedule differs "
                        f"from the one this arena builds (the scheduler changed between versions). Its results "
                        f"cannot be resumed: run with a new --db path, or use the arena version that made it.")
                conn.execute("UPDATE tournaments SET name=?, config=? WHERE id=?", (config.name, config_json, tid))
                self.tournament_id = tid
                return True
            cur = conn.execute("INSERT INTO tournaments (name, fingerprint, config, created) VALUES (?, ?, ?, ?)",
                               (config.name, fingerprint, config_json, _now()))
            tid = cur.lastrowid
            conn.executemany("INSERT INTO bots (tournament_id, name, cmd) VALUES (?, ?, ?)",
                             [(tid, b.name, b.cmd) for b in config.bots])
            conn.executemany(
                "INSERT INTO matches (tournament_id, idx, grp, rotation, seed, bots, jobs, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'pending')", [(tid, *r) for r in rows])
            self.tournament_id = tid
            return False

    def _mismatch_message(self, name: str, stored_config: str, config: TournamentConfig) -> str:
        try:
            old = json.loads(stored_config)["fingerprint_fields"]
        except (ValueError, KeyError, TypeError):
            old = {}
        new = fingerprint_fields(config)
        changes = []
        for key in new:
            if key not in old:
                changes.append(f"{key} (not recorded)")
            elif old[key] != new[key]:
                if key == "bots":
                    changes.append(_bots_change(old[key], new[key]))
                elif key == "fault_limit":
                    changes.append(f"limits.fault_limit {old[key]} -> {new[key]}")
                elif key == "clock":
                    changes.append(f"clock (hello_ms, move_ms, bank_ms) {tuple(old[key])} -> {tuple(new[key])}")
                else:
                    changes.append(f"{key} {_short(old[key])} -> {_short(new[key])}")
        what = "; ".join(changes) if changes else "settings that decide the schedule"
        return (f"{self.path} holds tournament '{name}' made from a different file: changed {what}. "
                f"Its finished matches belong to the old schedule and cannot be mixed with the new one. "
                f"To resume it, revert the file ({config.source}); to start the changed tournament, "
                f"run with a new --db path (or delete {self.path}).")

    def config(self) -> dict[str, Any]:
        """The stored tournament file, as a dict in the file's schema (see TournamentConfig.to_dict)."""
        with self._lock:
            row = self._conn.execute("SELECT config FROM tournaments WHERE id=?", (self._tid(),)).fetchone()
        return json.loads(row[0])["config"]

    def info(self) -> dict[str, Any]:
        """name, fingerprint, created."""
        with self._lock:
            row = self._conn.execute("SELECT name, fingerprint, created FROM tournaments WHERE id=?",
                                     (self._tid(),)).fetchone()
        return {"name": row[0], "fingerprint": row[1], "created": row[2]}

    def bots(self) -> list[tuple[str, str]]:
        """(name, cmd) of every bot, in file order."""
        with self._lock:
            return [tuple(r) for r in self._conn.execute(  # type: ignore[misc]
                "SELECT name, cmd FROM bots WHERE tournament_id=? ORDER BY rowid", (self._tid(),))]

    # ------------------------------------------------------------------ matches

    def pending(self) -> list[ScheduledMatch]:
        """Matches not done ('pending', 'running' or 'aborted': all get played again), in schedule order."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT idx, grp, rotation, seed, bots, jobs FROM matches WHERE tournament_id=? AND status != 'done' "
                "ORDER BY idx", (self._tid(),)).fetchall()
        out = []
        for idx, grp, rotation, seed, bots, jobs in rows:
            names = tuple(json.loads(bots))
            out.append(ScheduledMatch(index=idx, group=grp, rotation=rotation, seats=len(names), bots=names,
                                      seed=seed, jobs=tuple(json.loads(jobs))))
        return out

    def _status(self, conn: sqlite3.Connection, idx: int) -> str:
        row = conn.execute("SELECT status FROM matches WHERE tournament_id=? AND idx=?",
                           (self._tid(), idx)).fetchone()
        if row is None:
            raise StoreError(f"match {idx} is not in the schedule of {self.path}")
        return row[0]

    def mark_running(self, idx: int) -> None:
        """The match has started (it stays unfinished until recorded). A done match is refused."""
        with self._transaction() as conn:
            if self._status(conn, idx) == "done":
                raise StoreError(f"match {idx} is already done in {self.path}; it is not played again")
            conn.execute("UPDATE matches SET status='running', started_at=?, finished_at=NULL, error=NULL "
                         "WHERE tournament_id=? AND idx=?", (_now(), self._tid(), idx))

    def mark_aborted(self, idx: int, error: str) -> bool:
        """The match could not finish (it is played again on resume); ``error`` says why.

        A match that is already done keeps its result (a late abort is ignored): returns False then.
        """
        with self._transaction() as conn:
            if self._status(conn, idx) == "done":
                return False
            conn.execute("UPDATE matches SET status='aborted', error=?, finished_at=? "
                         "WHERE tournament_id=? AND idx=?", (str(error), _now(), self._tid(), idx))
            return True

    def record(self, idx: int, report: MatchReport, replay_path: str | Path | None) -> None:
        """Store a finished match: status 'done' and every result column, in one transaction."""
        seats = report.seats
        n = len(seats)
        ceo = [0] * n
        for jobs in report.results:
            for p, job in enumerate(jobs):
                if job == 1:
                    ceo[p] += 1
        faults = [{"count": s.fault_count, "kinds": dict(s.faults)} for s in seats]
        disqualified = [s.disqualified for s in seats]
        with self._transaction() as conn:
            self._status(conn, idx)
            names = json.loads(conn.execute("SELECT bots FROM matches WHERE tournament_id=? AND idx=?",
                                            (self._tid(), idx)).fetchone()[0])
            got = [s.name for s in seats]
            if got != names:
                raise StoreError(f"match {idx} was scheduled for {names}, but the report is for {got}")
            conn.execute(
                "UPDATE matches SET status='done', ranking=?, winner=?, sessions_played=?, ceo_sessions=?, faults=?, "
                "disqualified=?, replay=?, started_at=COALESCE(started_at, ?), finished_at=?, duration_s=?, "
                "isolation=?, end_reason=?, error=NULL WHERE tournament_id=? AND idx=?",
                (_dumps(list(report.ranking)), report.winner, report.sessions_played, _dumps(ceo), _dumps(faults),
                 _dumps(disqualified), str(replay_path) if replay_path is not None else None, _now(), _now(),
                 float(report.duration_s), report.isolation, report.reason, self._tid(), idx))

    def results(self) -> list[MatchResult]:
        """Every done match, in schedule order (never completion order)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT idx, grp, rotation, seed, winner, sessions_played, replay, started_at, finished_at, "
                "duration_s, isolation, end_reason, "
                "'[' || bots || ',' || jobs || ',' || ranking || ',' || ceo_sessions || ',' || faults || ',' "
                "|| disqualified || ']' "
                "FROM matches WHERE tournament_id=? AND status='done' ORDER BY idx", (self._tid(),)).fetchall()
        # The JSON columns of all rows are decoded in one call (most of the cost of json.loads is per
        # call), and the cyclic GC is paused while the (acyclic) results are built: it would otherwise
        # rescan the growing heap many times over.
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._build_results(rows)
        finally:
            if paused:
                gc.enable()

    @staticmethod
    def _build_results(rows: list[tuple]) -> list[MatchResult]:
        decoded = json.loads("[" + ",".join([row[12] for row in rows]) + "]")
        out: list[MatchResult] = []
        append = out.append
        for (idx, grp, rotation, seed, winner, sessions, replay, started, finished, duration, isolation, end_reason,
             _), (bots, jobs, ranking, ceo, faults, reasons) in zip(rows, decoded):
            append(MatchResult(
                idx, grp, rotation, seed, tuple(bots), tuple(jobs), tuple(ranking), winner, sessions, tuple(ceo),
                tuple([f["count"] for f in faults]), tuple([f["kinds"] for f in faults]),
                tuple([p for p, r in enumerate(reasons) if r is not None]), tuple(reasons),
                replay, started, finished, duration, isolation, end_reason,
            ))
        return out

    def results_frame(self) -> Any:
        """:meth:`results` as a pandas DataFrame (one row per done match, schedule order)."""
        import pandas as pd

        columns = list(MatchResult.__dataclass_fields__)
        return pd.DataFrame([[getattr(r, c) for c in columns] for r in self.results()], columns=columns)

    def progress(self) -> dict[str, int]:
        """Matches per status (every status present, 0 if none) and ``total``."""
        counts = dict.fromkeys(STATUSES, 0)
        with self._lock:
            for status, count in self._conn.execute(
                    "SELECT status, COUNT(*) FROM matches WHERE tournament_id=? GROUP BY status", (self._tid(),)):
                counts[status] = count
        counts["total"] = sum(counts[s] for s in STATUSES)
        return counts

    def aborted(self) -> list[tuple[int, str]]:
        """(index, error) of every aborted match, in schedule order."""
        with self._lock:
            return [(idx, error or "") for idx, error in self._conn.execute(
                "SELECT idx, error FROM matches WHERE tournament_id=? AND status='aborted' ORDER BY idx",
                (self._tid(),)).fetchall()]

    def status(self, idx: int) -> str:
        """'pending', 'running', 'done' or 'aborted'."""
        with self._lock:
            return self._status(self._conn, idx)


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _bots_change(old: list[list[str]], new: list[list[str]]) -> str:
    old_d, new_d = dict(map(tuple, old)), dict(map(tuple, new))
    parts = []
    added = [n for n in new_d if n not in old_d]
    removed = [n for n in old_d if n not in new_d]
    changed = [n for n in new_d if n in old_d and new_d[n] != old_d[n]]
    if added:
        parts.append("added " + ", ".join(added))
    if removed:
        parts.append("removed " + ", ".join(removed))
    if changed:
        parts.append("changed the cmd of " + ", ".join(changed))
    if not parts:
        parts.append("reordered")
    return "bots (" + "; ".join(parts) + ")"
