"""The arena's match loop (protocol.md faults, R14-R16) with in-process channels, and replays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.match import MatchConfig, play_match
from arena.replay import ReplayError, ReplayWriter, validate
from arena.scripted import BotChannel, ScriptChannel
from greedy import GreedyBot
from random_bot import RandomBot
from sdk.protocol import Clock

FAST = Clock(hello_ms=200, move_ms=50, bank_ms=100)


def script(on_turn, ready: bool = True):
    """A scripted bot: answers hello with ready (if ``ready``) and turns with ``on_turn(msg)``."""

    def respond(msg: dict):
        if msg["type"] == "hello":
            return ['{"type":"ready","name":"script"}'] if ready else None
        if msg["type"] == "turn":
            return on_turn(msg)
        return None

    return ScriptChannel(respond)


def fallback_line(msg: dict) -> list[str]:
    cards = [msg["hand"][0]] if msg["lead"] else []
    return [json.dumps({"type": "move", "id": msg["id"], "cards": cards})]


def run(first, tmp_path: Path, sessions: int = 3, **config) -> tuple:
    channels = [first, BotChannel(GreedyBot()), BotChannel(RandomBot()), BotChannel(GreedyBot())]
    replay = tmp_path / "r.jsonl"
    report = play_match(channels, ["x", "g1", "r", "g2"],
                        MatchConfig(sessions=sessions, seed=4, clock=FAST, **config), ReplayWriter(replay))
    return report, validate(replay), replay


def test_clean_match_validates(tmp_path: Path) -> None:
    report, summary, _ = run(BotChannel(GreedyBot()), tmp_path)
    assert report.reason == "sessions" and report.sessions_played == 3
    assert summary.complete and summary.ranking == report.ranking
    assert all(seat.fault_count == 0 for seat in report.seats)
    assert report.winner == report.ranking[0] == report.results[-1].index(1)  # R15


@pytest.mark.parametrize(
    ("on_turn", "fault"),
    [
        (lambda m: None, "timeout"),
        (lambda m: ["this is not json"], "malformed"),
        (lambda m: ['{"type":"move","id":"7","cards":[]}'], "malformed"),
        (lambda m: [json.dumps({"type": "move", "id": m["id"] + 5, "cards": []})], "malformed"),
        (lambda m: [json.dumps({"type": "move", "id": m["id"], "cards": [99]})], "malformed"),
        (lambda m: [json.dumps({"type": "move", "id": m["id"], "cards": [2, 3]})], "illegal"),
        (lambda m: [json.dumps({"type": "move", "id": m["id"], "cards": ["F", "F", "F", "F"]})], "illegal"),
    ],
)
def test_faults_get_the_fallback_and_disqualify_at_the_limit(on_turn, fault: str, tmp_path: Path) -> None:
    """R16: each fault plays the fallback; the third one disqualifies; the match still completes."""
    report, summary, replay = run(script(on_turn), tmp_path)
    seat = report.seats[0]
    assert seat.faults == {fault: 3}
    assert seat.disqualified == "fault limit (3) reached"
    assert report.ranking[-1] == 0  # ranked below every bot that was not disqualified
    assert all(other.fault_count == 0 for other in report.seats[1:])
    assert summary.complete
    events = [json.loads(line) for line in replay.read_text().splitlines()]
    assert sum(1 for e in events if e["event"] == "play" and e["fault"] == fault) == 3
    assert any(e["event"] == "play" and e["fault"] == "disqualified" for e in events)


def test_stale_replies_are_discarded_by_id(tmp_path: Path) -> None:
    """A reply with an older id arrived too late: discarded, and the current one counts."""

    def late_then_right(msg: dict) -> list[str]:
        stale = json.dumps({"type": "move", "id": msg["id"] - 1, "cards": []})
        return [stale, *fallback_line(msg)]

    report, summary, _ = run(script(late_then_right), tmp_path)
    assert report.seats[0].fault_count == 0 and summary.complete


def test_crash_disqualifies_at_once(tmp_path: Path) -> None:
    report, summary, _ = run(script(lambda m: ["<eof>"]), tmp_path)
    assert report.seats[0].faults == {"crash": 1}
    assert report.seats[0].disqualified == "crash"
    assert report.ranking[-1] == 0 and summary.complete


def test_no_hello_disqualifies_before_the_first_session(tmp_path: Path) -> None:
    report, summary, replay = run(script(fallback_line, ready=False), tmp_path)
    assert report.seats[0].faults == {"no_hello": 1}
    assert report.seats[0].disqualified == "no_hello: no ready in time"
    events = [json.loads(line) for line in replay.read_text().splitlines()]
    assert events[1]["event"] == "disqualified" and events[1]["reason"] == "no_hello"
    assert summary.complete and report.ranking[-1] == 0


def test_fault_limit_is_configurable(tmp_path: Path) -> None:
    report, _, _ = run(script(lambda m: None), tmp_path, fault_limit=1)
    assert report.seats[0].faults == {"timeout": 1}


def test_timed_match_finishes_the_running_session(tmp_path: Path) -> None:
    """R14: in timed mode the session running when time expires is finished."""
    report, summary, _ = run(BotChannel(GreedyBot()), tmp_path, sessions=None, duration_s=0.0)
    assert report.reason == "time" and report.sessions_played == 1 and summary.complete


def test_validate_names_the_rule_a_tampered_replay_breaks(tmp_path: Path) -> None:
    _, _, replay = run(BotChannel(GreedyBot()), tmp_path)
    lines = replay.read_text().splitlines()
    last_round = None
    for number, line in enumerate(lines):
        event = json.loads(line)
        if event["event"] != "play":
            continue
        follower = (event["session"], event["round"]) == last_round
        last_round = (event["session"], event["round"])
        if follower and event["cards"]:  # a follow can never be a 1 (R9), held or not (R7)
            event["cards"] = [1] * len(event["cards"])
            lines[number] = json.dumps(event)
            break
    replay.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayError) as error:
        validate(replay)
    assert error.value.rule in {"R7", "R9", "R8"}
    assert error.value.line == number + 1


def test_validate_rejects_a_wrong_deal(tmp_path: Path) -> None:
    _, _, replay = run(BotChannel(GreedyBot()), tmp_path)
    lines = replay.read_text().splitlines()
    start = json.loads(lines[1])
    start["dealt"][0], start["dealt"][1] = start["dealt"][1], start["dealt"][0]
    lines[1] = json.dumps(start)
    replay.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReplayError, match="R5"):
        validate(replay)


def test_a_killed_match_leaves_a_valid_prefix(tmp_path: Path) -> None:
    _, _, replay = run(BotChannel(GreedyBot()), tmp_path)
    lines = replay.read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if '"session_end"' in line)
    replay.write_text("\n".join(lines[: cut + 1]) + "\n")
    summary = validate(replay)
    assert not summary.complete and summary.sessions == 1


def test_a_rejected_ready_is_named_in_the_disqualification(tmp_path: Path) -> None:
    """A bot whose ready is malformed is told why it got no_hello (the culprit is named)."""

    def respond(msg: dict):
        return ['{"type":"ready","name":7}'] if msg["type"] == "hello" else None

    report, _, _ = run(ScriptChannel(respond), tmp_path)
    assert report.seats[0].disqualified == (
        "no_hello: no valid ready in time (a line was rejected: field 'name' must be a string)")
