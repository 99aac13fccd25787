"""Replays (spec/replay.md): writing them as a match runs, reading them back, and checking them.

A replay is JSON Lines, one event per line, flushed after every session, so a killed match leaves
a valid prefix. :func:`validate` re-plays a replay with the engine and names the first rule broken.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sdk.cards import cards_from_counts
from sdk.match import Match
from sdk.moves import parse_move
from sdk.protocol import Clock, Message, Out, Played, RoundEnd, SessionEnd
from sdk.rules import RuleViolation
from sdk.session import SessionState

REPLAY_VERSION = 1


class ReplayWriter:
    """Writes one match's replay, line by line; flushes at every session end and at match end."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path is not None else None
        self._file: IO[str] | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "w", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(json.dumps(record, separators=(",", ":")) + "\n")

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.flush()
            self._file.close()
            self._file = None

    def match_start(
        self, match_id: str, seed: int | str, rules: str, players: Sequence[tuple[str, str]],
        sessions: int | None, time_limit_s: float | None, clock: Clock, **extra: Any,
    ) -> None:
        self.write({
            "event": "match_start", "version": REPLAY_VERSION, "match_id": match_id, "seed": seed,
            "rules": rules, "players": [{"name": name, "cmd": cmd} for name, cmd in players],
            "sessions": sessions, "time_limit_s": time_limit_s, "clock": clock.to_dict(), **extra,
        })
        self.flush()

    def session_start(self, match: Match) -> None:
        state, deal = match.state, match.deal
        assert state is not None and deal is not None
        self.write({
            "event": "session_start", "session": state.session, "jobs": list(state.jobs),
            "order": list(state.order), "dealt": [cards_from_counts(h) for h in deal.dealt],
            "exchanges": [
                {"superior": e.superior, "subordinate": e.subordinate, "gave": e.gave, "got": e.got}
                for e in deal.exchanges
            ],
            "hands": [cards_from_counts(h) for h in deal.hands],
            "set_aside": cards_from_counts(deal.set_aside),
        })

    def events(self, messages: Iterable[Message], ms: int | None = None) -> None:
        """Record the referee's events for one move (``ms``: the time the bot took)."""
        for msg in messages:
            if isinstance(msg, Played):
                self.write({"event": "play", "session": msg.session, "round": msg.round, "player": msg.player,
                            "cards": msg.cards, "fault": msg.fault, "ms": ms})
            elif isinstance(msg, Out):
                self.write({"event": "out", "session": msg.session, "player": msg.player, "job": msg.job})
            elif isinstance(msg, RoundEnd):
                self.write({"event": "round_end", "session": msg.session, "round": msg.round,
                            "winner": msg.winner, "next": msg.next})
            elif isinstance(msg, SessionEnd):
                self.write({"event": "session_end", "session": msg.session, "jobs": msg.jobs})
                self.flush()

    def disqualified(self, session: int, player: int, reason: str) -> None:
        self.write({"event": "disqualified", "session": session, "player": player, "reason": reason})
        self.flush()

    def match_end(
        self, sessions_played: int, ranking: list[int], winner: int | None, faults: list[int],
        disqualified: list[int], reason: str, **extra: Any,
    ) -> None:
        self.write({
            "event": "match_end", "sessions_played": sessions_played, "ranking": ranking, "winner": winner,
            "faults": faults, "disqualified": disqualified, "reason": reason, **extra,
        })
        self.flush()


def read_replay(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, event) pairs; raises ReplayError on a line that is not a JSON object."""
    with open(path, encoding="utf-8") as file:
        for number, line in enumerate(file, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ReplayError(number, "format", f"not JSON: {error.msg}") from None
            if not isinstance(record, dict) or "event" not in record:
                raise ReplayError(number, "format", "not an event object")
            yield number, record


@dataclass
class ReplayError(Exception):
    """A replay breaks a rule (``rule`` is its id, or ``format`` for replay.md itself)."""

    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.rule}: {self.message}"


@dataclass
class ReplaySummary:
    """What a valid replay holds."""

    sessions: int
    plays: int
    complete: bool
    """True if the replay ends with match_end (a killed match leaves a valid prefix)."""
    ranking: list[int] | None


def _expect(line: int, rule: str, condition: bool, message: str) -> None:
    if not condition:
        raise ReplayError(line, rule, message)


def validate(path: str | Path) -> ReplaySummary:
    """Re-check a replay against the rules with the engine; raise ReplayError at the first breach."""
    match: Match | None = None
    state: SessionState | None = None
    plays = 0
    disqualified: list[int] = []
    faults: list[int] = []
    complete = False
    ranking = None
    start: dict[str, Any] | None = None
    for line, ev in read_replay(path):
        kind = ev["event"]
        try:
            if kind == "match_start":
                _expect(line, "format", start is None, "a second match_start")
                _expect(line, "format", ev.get("version") == REPLAY_VERSION, f"unknown version {ev.get('version')}")
                start = ev
                faults = [0] * len(ev["players"])
                continue
            _expect(line, "format", start is not None, "the replay must begin with match_start")
            assert start is not None
            _expect(line, "format", not complete, "events after match_end")
            if kind == "disqualified" and match is None:  # no_hello: before the first session
                disqualified.append(ev["player"])
                faults[ev["player"]] += ev.get("reason") == "no_hello"
                continue
            if kind == "session_start":
                if match is None:
                    match = Match(start["rules"], len(start["players"]), seed=start["seed"],
                                  sessions=start["sessions"], jobs=ev["jobs"])
                _expect(line, "R14", state is None or state.over, "a session started before the last one ended")
                state = match.start_session()
                deal = match.deal
                assert deal is not None
                _expect(line, "R13", ev["session"] == state.session and ev["jobs"] == list(state.jobs),
                        f"session {ev['session']} should start with jobs {list(state.jobs)}")
                _expect(line, "R4", ev["order"] == list(state.order), "seating is not by job")
                _expect(line, "R5", ev["dealt"] == [cards_from_counts(h) for h in deal.dealt],
                        "the deal is not the one the seed gives")
                _expect(line, "R6", ev["hands"] == [cards_from_counts(h) for h in deal.hands]
                        and len(ev["exchanges"]) == len(deal.exchanges), "the exchange is wrong")
                _expect(line, "R5", ev.get("set_aside", []) == cards_from_counts(deal.set_aside),
                        "the cards set aside are wrong")
                continue
            _expect(line, "format", state is not None, f"{kind} before any session_start")
            assert state is not None and match is not None
            if kind == "play":
                _expect(line, "R13", not state.over, "a play after the session ended")
                _expect(line, "R10", ev["player"] == state.to_move,
                        f"player {ev['player']} played out of turn (player {state.to_move} was to move)")
                _expect(line, "format", ev["session"] == state.session and ev["round"] == state.round,
                        f"session/round should be {state.session}/{state.round}")
                move = parse_move(ev["cards"])
                fault = ev.get("fault")
                if fault is None:
                    state.check(move)
                else:
                    _expect(line, "R16", move == state.fallback_move(),
                            f"a {fault} fault must play the fallback {state.fallback_move().cards}")
                    if fault != "disqualified":
                        faults[ev["player"]] += 1
                state.apply(move, check=False)
                plays += 1
            elif kind == "out":
                _expect(line, "R12", state.new_jobs[ev["player"]] == ev["job"] and ev["player"] in state.out,
                        f"player {ev['player']} did not go out as job {ev['job']}")
            elif kind == "round_end":
                _expect(line, "R11", (ev["winner"], ev["next"]) == (state.last_winner, state.last_next)
                        and ev["round"] == state.round - 1,
                        f"round {state.round - 1} was won by {state.last_winner}, next leader {state.last_next}")
            elif kind == "session_end":
                _expect(line, "R13", state.over, "session_end before one player alone holds cards")
                _expect(line, "R13", ev["jobs"] == state.result_jobs, f"the new jobs are {state.result_jobs}")
                match.record_result()
            elif kind == "disqualified":
                disqualified.append(ev["player"])
                if ev.get("reason") == "no_hello":
                    faults[ev["player"]] += 1
            elif kind == "match_end":
                complete = True
                if match.results or (state is not None and state.over):
                    if state.over:
                        match.record_result()
                    from sdk.referee import final_ranking

                    expected = final_ranking(match, ev["disqualified"])
                    _expect(line, "R15", ev["ranking"] == expected, f"the ranking should be {expected}")
                    _expect(line, "R15", ev["winner"] == expected[0], f"the winner should be {expected[0]}")
                _expect(line, "R16", sorted(ev["disqualified"]) == sorted(disqualified),
                        "match_end's disqualified list differs from the disqualified events")
                _expect(line, "R16", ev["faults"] == faults, f"fault counts should be {faults}")
                ranking = ev["ranking"]
        except RuleViolation as error:
            raise ReplayError(line, error.rule, error.detail) from None
        except (KeyError, TypeError, ValueError) as error:
            raise ReplayError(line, "format", f"malformed {kind} event: {error!r}") from None
    _expect(0, "format", start is not None, "empty replay")
    return ReplaySummary(sessions=len(match.results) if match else 0, plays=plays, complete=complete, ranking=ranking)
