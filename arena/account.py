"""A readable account of a replay, session by session and round by round (``arena replay``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .replay import read_replay


def _job(rank: int, n: int) -> str:
    return "CEO" if rank == 1 else "Trainee" if rank == n else f"rank {rank}"


def _cards(cards: list[Any]) -> str:
    return " ".join(str(c) for c in cards) if cards else "pass"


def account(path: str | Path) -> Iterator[str]:
    """Lines of text describing the match in the replay at ``path``."""
    names: list[str] = []
    n = 0
    current_round = 0
    line_parts: list[str] = []

    def flush_round() -> Iterator[str]:
        if line_parts:
            yield f"    round {current_round}: " + " · ".join(line_parts)
            line_parts.clear()

    for _, ev in read_replay(path):
        kind = ev["event"]
        if kind == "match_start":
            names = [p["name"] for p in ev["players"]]
            n = len(names)
            length = f"{ev['sessions']} sessions" if ev.get("sessions") else f"timed, {ev.get('time_limit_s')} s"
            yield f"Match {ev['match_id']} · {ev['rules']} · seed {ev['seed']} · {length}"
            yield "Players: " + ", ".join(f"{i}={name}" for i, name in enumerate(names))
        elif kind == "session_start":
            current_round = 0
            yield ""
            yield f"Session {ev['session']}: " + ", ".join(
                f"{names[p]} ({_job(ev['jobs'][p], n)})" for p in ev["order"])
            for ex in ev["exchanges"]:
                yield (f"  exchange: {names[ex['superior']]} gave {_cards(ex['gave'])} to "
                       f"{names[ex['subordinate']]}, got {_cards(ex['got'])}")
            for p in ev["order"]:
                yield f"  {names[p]:>12}: {_cards(ev['hands'][p])}"
        elif kind == "play":
            if ev["round"] != current_round:
                yield from flush_round()
                current_round = ev["round"]
            fault = f" [{ev['fault']}]" if ev.get("fault") else ""
            line_parts.append(f"{names[ev['player']]} {_cards(ev['cards'])}{fault}")
        elif kind == "out":
            line_parts.append(f"{names[ev['player']]} OUT as {_job(ev['job'], n)}")
        elif kind == "round_end":
            line_parts.append(f"won by {names[ev['winner']]}, {names[ev['next']]} leads")
            yield from flush_round()
        elif kind == "session_end":
            yield from flush_round()
            ranking = sorted(range(n), key=lambda p: ev["jobs"][p])
            yield "  new jobs: " + ", ".join(f"{names[p]} {_job(ev['jobs'][p], n)}" for p in ranking)
        elif kind == "disqualified":
            yield from flush_round()
            yield f"  ** {names[ev['player']]} disqualified in session {ev['session']}: {ev['reason']}"
        elif kind == "match_end":
            yield from flush_round()
            yield ""
            yield f"Match over after {ev['sessions_played']} session(s) ({ev['reason']})."
            for place, p in enumerate(ev["ranking"], start=1):
                extra = []
                if ev["faults"][p]:
                    extra.append(f"{ev['faults'][p]} fault(s)")
                if p in ev["disqualified"]:
                    extra.append("disqualified")
                yield f"  {place}. {names[p]}" + (f" ({', '.join(extra)})" if extra else "")
    yield from flush_round()
