"""The bot side of the SDK: the stdin/stdout loop, the driver and the in-process harness."""

from __future__ import annotations

import io
import json

import pytest

from greedy import GreedyBot
from random_bot import RandomBot
from sdk.bot import Bot, BotDriver, TurnView, run
from sdk.harness import play_match
from sdk.protocol import Clock, Hello, MatchEnd, Turn, TurnClock, encode


def hello(you: int = 0, seed: int = 7) -> Hello:
    return Hello(protocol=1, rules="animal-poker", you=you, players=4, names=["a", "b", "c", "d"],
                 sessions=1, clock=Clock(), seed=seed)


def turn(id_: int = 5, hand=(2, 2, 9, "F"), lead: bool = True) -> Turn:
    return Turn(id=id_, session=1, round=1, hand=list(hand), lead=lead, count=None, top=None,
                round_plays=[], hand_sizes=[4, 13, 13, 16], jobs=[1, 2, 3, 4], out=[],
                played={str(v): 0 for v in range(1, 14)} | {"F": 0}, clock=TurnClock(1000, 10000))


def run_lines(bot: Bot, messages) -> list[dict]:
    stdin = io.BytesIO("".join(encode(m) + "\n" for m in messages).encode())
    stdout = io.StringIO()
    run(bot, stdin=stdin, stdout=stdout)
    return [json.loads(line) for line in stdout.getvalue().splitlines()]


def test_run_answers_hello_and_echoes_turn_ids() -> None:
    replies = run_lines(GreedyBot(), [hello(), turn(id_=41)])
    assert replies[0] == {"type": "ready", "name": "greedy"}
    assert replies[1] == {"type": "move", "id": 41, "cards": [2, 2]}


def test_run_ignores_unknown_messages_and_fields() -> None:
    stdin = io.BytesIO(
        (encode(hello()) + "\n" + '{"type": "gossip", "x": 1}\n' + "\n"
         + json.dumps(turn(id_=3).to_dict() | {"future_field": [1, 2]}) + "\n").encode()
    )
    stdout = io.StringIO()
    run(GreedyBot(), stdin=stdin, stdout=stdout)
    lines = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert [line["type"] for line in lines] == ["ready", "move"]
    assert lines[1]["id"] == 3


def test_run_exits_on_match_end_without_reading_further() -> None:
    replies = run_lines(GreedyBot(), [hello(), MatchEnd(ranking=[0, 1, 2, 3], winner=0), turn(id_=9)])
    assert [r["type"] for r in replies] == ["ready"]


class Crashy(Bot):
    name = "crashy"

    def play(self, turn: TurnView):
        raise RuntimeError("boom")


def test_exception_in_play_answers_the_fallback_and_logs(capsys: pytest.CaptureFixture[str]) -> None:
    """R16: a bug in the bot costs it the fallback move (lowest single card when leading)."""
    replies = run_lines(Crashy(), [hello(), turn(id_=2, lead=True), turn(id_=3, lead=False)])
    assert replies[1] == {"type": "move", "id": 2, "cards": [2]}
    assert replies[2] == {"type": "move", "id": 3, "cards": []}
    assert "RuntimeError: boom" in capsys.readouterr().err


class SeedRecorder(Bot):
    def play(self, turn: TurnView):
        return [turn.hand[0]]


def test_rng_is_seeded_from_hello() -> None:
    a, b = SeedRecorder(), SeedRecorder()
    BotDriver(a).handle(hello(seed=123))
    BotDriver(b).handle(hello(seed=123))
    assert a.rng.random() == b.rng.random()
    c = SeedRecorder()
    BotDriver(c).handle(hello(seed=124))
    assert c.rng.random() != b.rng.random()


def test_legal_is_computed_when_the_bot_opted_out() -> None:
    class NoLegal(Bot):
        want_legal = False

    driver = BotDriver(NoLegal())
    assert driver.handle(hello()).legal is False
    view = TurnView(turn(hand=(3, 3, "F")), 0, driver.rules, None)  # type: ignore[arg-type]
    assert view.legal == [[3], [3, "F"], [3, 3], [3, 3, "F"], ["F"]]


@pytest.mark.parametrize("players", [4, 5, 6, 7, 8])
def test_harness_plays_full_matches_without_faults(players: int) -> None:
    bots = [GreedyBot() if p % 2 else RandomBot() for p in range(players)]
    result = play_match(bots, sessions=6, seed=players)
    assert sorted(result.ranking) == list(range(players))
    assert result.ranking == sorted(range(players), key=lambda p: result.results[-1][p])  # R15
    assert result.faults == [0] * players
    assert result.sessions_played == 6


def test_harness_is_deterministic_given_the_seed() -> None:
    first = play_match([RandomBot() for _ in range(4)], sessions=5, seed=11)
    again = play_match([RandomBot() for _ in range(4)], sessions=5, seed=11)
    assert first.results == again.results and first.turns == again.turns


def test_harness_wire_mode_equals_in_memory_mode() -> None:
    direct = play_match([RandomBot(), GreedyBot(), RandomBot(), GreedyBot()], sessions=4, seed=5)
    wired = play_match([RandomBot(), GreedyBot(), RandomBot(), GreedyBot()], sessions=4, seed=5, wire=True)
    assert direct.results == wired.results


def test_harness_counts_illegal_moves_as_faults() -> None:
    class Cheater(Bot):
        def play(self, turn: TurnView):
            return [13, 13, 13, 13, 13]  # cards it does not hold

    result = play_match([Cheater(), GreedyBot(), GreedyBot(), GreedyBot()], sessions=1, seed=1)
    assert result.faults[0] > 0 and result.faults[1:] == [0, 0, 0]


def test_thousand_sessions_without_an_illegal_move() -> None:
    """Done-when of the engine issue: random and greedy play 1,000 sessions with no illegal move."""
    result = play_match([RandomBot(), GreedyBot(), RandomBot(), GreedyBot()], sessions=1000, seed=2026)
    assert result.faults == [0, 0, 0, 0]
    assert result.sessions_played == 1000


def test_tutorial_bot_runs_without_faults() -> None:
    """docs/writing-a-bot.md: the 20-line bot and its test."""
    from low_first import LowFirst

    result = play_match([LowFirst(), GreedyBot(), GreedyBot(), GreedyBot()], sessions=50, seed=3)
    assert result.faults == [0, 0, 0, 0]
