"""The tournament file (tournament.md): defaults, the shipped examples, and one test per mistake."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from arena.tournament.config import (
    BotEntry, ConfigError, TournamentConfig, config_fingerprint, load_config, parse_duration,
)

ROOT = Path(__file__).resolve().parent.parent

BOTS4 = """\
bots:
  - {name: random, cmd: python bots/random_bot.py}
  - {name: greedy, cmd: python bots/greedy.py}
  - {name: low-first, cmd: python bots/low_first.py}
  - {name: greedy-2, cmd: python3 bots/greedy.py}
"""


def write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def load(tmp_path: Path, text: str) -> TournamentConfig:
    return load_config(write(tmp_path, text), base_dir=ROOT)


def refused(tmp_path: Path, text: str) -> ConfigError:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path, base_dir=ROOT)
    err = info.value
    assert str(path) in str(err), "the message names the file"
    assert "Fix:" in str(err), "the message says how to fix it"
    assert "\n" not in str(err), "one message, one line"
    return err


# ----------------------------------------------------------------------------- good files


@pytest.mark.parametrize("name", ["quickstart.yaml", "mixed-seats.yaml"])
def test_shipped_examples_load(name: str) -> None:
    config = load_config(ROOT / "tournaments" / name, base_dir=ROOT)
    assert config.name == name.removesuffix(".yaml")
    assert len(config.bots) >= config.max_seats
    assert all(bot.argv[0] == sys.executable for bot in config.bots)  # python = the arena's interpreter


def test_quickstart_settings() -> None:
    config = load_config(ROOT / "tournaments" / "quickstart.yaml", base_dir=ROOT)
    assert config.bot_names == ("random", "greedy", "low-first", "greedy-2")
    assert config.seats == (4,) and config.rotation and config.sessions == 8 and config.matches == 12
    assert config.bot("greedy-2").cmd == "python bots/greedy.py"
    mixed = load_config(ROOT / "tournaments" / "mixed-seats.yaml", base_dir=ROOT)
    assert mixed.seats == (4, 6) and len(mixed.bots) == 6 and mixed.matches == 6 and mixed.sessions == 4


def test_spec_example_and_defaults(tmp_path: Path) -> None:
    config = load(tmp_path, "name: t\n" + BOTS4)
    assert config == TournamentConfig(name="t", bots=config.bots)
    assert (config.rules, config.seats, config.matches, config.sessions, config.duration_s) == \
        ("animal-poker", (4,), 60, 8, None)
    assert (config.rotation, config.seed) == (True, 2026)
    assert (config.clock.hello_ms, config.clock.move_ms, config.clock.bank_ms) == (10000, 1000, 10000)
    assert (config.limits.memory_mb, config.limits.cpu_s, config.limits.fault_limit) == (1024, 120, 3)
    r = config.rating
    assert (r.mu, r.sigma, r.beta, r.tau, r.draw_probability) == (25.0, 8.333, 4.167, 0.083, 0.0)
    assert config.bots[0] == BotEntry("random", "python bots/random_bot.py")
    assert config.bots[0].argv == (sys.executable, str(ROOT / "bots" / "random_bot.py"))
    full = load(tmp_path, textwrap.dedent("""\
        name: quickstart
        rules: animal-poker
        seats: 4
        matches: 60
        sessions: 8
        rotation: true
        seed: 2026
        clock: {hello_ms: 10000, move_ms: 1000, bank_ms: 10000}
        limits: {memory_mb: 1024, cpu_s: 120, fault_limit: 3}
        rating: {mu: 25.0, sigma: 8.333, beta: 4.167, tau: 0.083, draw_probability: 0.0}
        """) + BOTS4)
    assert config_fingerprint(full) == config_fingerprint(config)


def test_duration_and_seat_lists(tmp_path: Path) -> None:
    config = load(tmp_path, "name: t\nduration: 1h30m\nseats: [4, 6]\nrotation: false\n" + BOTS4.replace(
        "bots:\n", "bots:\n  - {name: a, cmd: python bots/greedy.py}\n  - {name: b, cmd: python bots/greedy.py}\n"))
    assert config.sessions is None and config.duration_s == 5400.0
    assert config.seats == (4, 6) and config.total_matches() == 60
    assert [parse_duration(x) for x in ("90s", "2m", "1h", "1.5m", 45)] == [90, 120, 3600, 90, 45]


def test_fingerprint_covers_the_schedule(tmp_path: Path) -> None:
    base = "name: t\n" + BOTS4
    fp = config_fingerprint(load(tmp_path, base))
    assert fp == config_fingerprint(load(tmp_path, base.replace("name: t", "name: renamed")))
    assert fp == config_fingerprint(load(tmp_path, base + "rating: {mu: 30}\nlimits: {memory_mb: 512}\n"))
    for change in ("seed: 1", "matches: 3", "sessions: 2", "duration: 2m", "rotation: false", "rules: equal-allowed",
                   "clock: {move_ms: 500}", "limits: {fault_limit: 5}"):
        assert config_fingerprint(load(tmp_path, base + change + "\n")) != fp, change
    assert config_fingerprint(load(tmp_path, base.replace("greedy-2, cmd: python3 bots/greedy.py",
                                                          "greedy-2, cmd: python3 bots/low_first.py"))) != fp
    assert config_fingerprint(load(tmp_path, base.replace("name: greedy-2", "name: greedy-3"))) != fp


def test_relative_commands_resolve_against_base_dir(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text("")
    tool = tmp_path / "bots" / "tool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    text = "name: t\nbots:\n" + "".join(f"  - {{name: b{i}, cmd: {cmd}}}\n" for i, cmd in enumerate(
        ["python bots/mine.py", "python3 -u bots/mine.py --fast", "bots/tool", f"{sys.executable} -c pass"]))
    config = load_config(write(tmp_path, text), base_dir=tmp_path)
    assert config.bots[1].argv == (sys.executable, "-u", str(tmp_path / "bots" / "mine.py"), "--fast")
    assert config.bots[2].argv == (str(tool),)
    with pytest.raises(ConfigError, match=r"bots\[0\]\.cmd"):
        load_config(write(tmp_path, text), base_dir=ROOT)  # no bots/mine.py there


# ----------------------------------------------------------------------------- one test per mistake


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    err = refused(tmp_path, "name: t\nseats: [4, 6\nmatches: 3\n" + BOTS4)
    assert "YAML syntax error" in str(err) and "line " in str(err)
    err = refused(tmp_path, "name: t\nseed: 1\nseed: 2\n" + BOTS4)  # a key given twice is a mistake too
    assert "line 3" in str(err) and "given twice" in str(err)


@pytest.mark.parametrize("text", ["", "- name: t\n- seats: 4\n", "just a string\n"])
def test_top_level_not_a_mapping(tmp_path: Path, text: str) -> None:
    err = refused(tmp_path, text)
    assert err.key == "top level" and "must be a mapping" in str(err)


@pytest.mark.parametrize(("text", "key", "suggestion"), [
    ("name: t\nsesions: 3\n" + BOTS4, "sesions", "sessions"),
    ("name: t\nclock: {hello_ms: 100, mov_ms: 50}\n" + BOTS4, "clock.mov_ms", "move_ms"),
    ("name: t\nrating: {sigm: 3}\n" + BOTS4, "rating.sigm", "sigma"),
    ("name: t\n" + BOTS4.replace("cmd: python bots/greedy.py}", "command: python bots/greedy.py}"),
     "bots[1].command", "cmd"),
])
def test_unknown_key_suggests_the_closest(tmp_path: Path, text: str, key: str, suggestion: str) -> None:
    err = refused(tmp_path, text)
    assert err.key == key and f"unknown key '{key.split('.')[-1]}'" in str(err)
    assert f"did you mean '{suggestion}'?" in str(err)


@pytest.mark.parametrize(("line", "key", "got"), [
    ("matches: true", "matches", "a boolean"),
    ("seats: yes", "seats", "a boolean"),
    ("sessions: '8'", "sessions", "a string"),
    ("seed: 1.5", "seed", "a number"),
    ("rotation: 1", "rotation", "an integer"),
    ("clock: {move_ms: false}", "clock.move_ms", "a boolean"),
    ("clock: 1000", "clock", "an integer"),
    ("rating: {mu: high}", "rating.mu", "a string"),
    ("limits: {fault_limit: 2.5}", "limits.fault_limit", "a number"),
    ("bots: {name: a, cmd: b}", "bots", "a mapping"),
    ("name: [a]", "name", "a list"),
])
def test_wrong_type(tmp_path: Path, line: str, key: str, got: str) -> None:
    text = "name: t\n" + BOTS4
    field = line.split(":")[0]
    text = "\n".join(x for x in text.splitlines() if not x.startswith(field + ":")) if field in ("name", "bots") \
        else text
    if field == "bots":
        text = "name: t\n"
    if field == "name":
        text = BOTS4
    err = refused(tmp_path, text + "\n" + line + "\n")
    assert err.key == key and f"got {got}" in str(err)


@pytest.mark.parametrize(("line", "key"), [("seats: 3", "seats"), ("seats: 9", "seats"),
                                           ("seats: [4, 10]", "seats[1]"), ("seats: []", "seats")])
def test_seats_outside_4_to_8(tmp_path: Path, line: str, key: str) -> None:
    err = refused(tmp_path, "name: t\n" + line + "\n" + BOTS4)
    assert err.key == key and ("outside 4-8" in str(err) or "empty" in str(err))


def test_fewer_bots_than_the_largest_seat_count(tmp_path: Path) -> None:
    err = refused(tmp_path, "name: t\nseats: [4, 6]\n" + BOTS4)
    assert err.key == "bots" and "4 bot(s) but a match needs 6 players" in str(err) and "add 2 more" in str(err)


def test_duplicate_bot_name(tmp_path: Path) -> None:
    err = refused(tmp_path, "name: t\n" + BOTS4.replace("name: greedy-2", "name: greedy"))
    assert err.key == "bots[3].name" and "duplicate bot name 'greedy'" in str(err) and "bots[1]" in str(err)


@pytest.mark.parametrize(("text", "key"), [
    ("name: ''\n" + BOTS4, "name"),
    ("name: '  '\n" + BOTS4, "name"),
    ("name: t\n" + BOTS4.replace("name: low-first", "name: ''"), "bots[2].name"),
    ("name: t\n" + BOTS4.replace("{name: low-first, ", "{"), "bots[2].name"),
])
def test_empty_name(tmp_path: Path, text: str, key: str) -> None:
    err = refused(tmp_path, text)
    assert err.key == key and ("is empty" in str(err) or "is missing" in str(err))


@pytest.mark.parametrize(("cmd", "what"), [
    ("python bots/no_such_bot.py", "the script 'bots/no_such_bot.py' does not exist"),
    ("bots/no_such_program", "the program 'bots/no_such_program' does not exist"),
    ("no-such-program-anywhere --flag", "the program 'no-such-program-anywhere' is not on PATH"),
    ("python", "names no script"),
    ("python 'unbalanced", "cannot split"),
])
def test_bot_command_that_does_not_exist(tmp_path: Path, cmd: str, what: str) -> None:
    err = refused(tmp_path, "name: t\n" + BOTS4.replace("python bots/low_first.py", f'"{cmd}"'))
    assert err.key == "bots[2].cmd" and what in str(err)


def test_unknown_rules_preset(tmp_path: Path) -> None:
    err = refused(tmp_path, "name: t\nrules: poker\n" + BOTS4)
    assert err.key == "rules" and "unknown rules preset 'poker'" in str(err)
    for preset in ("animal-poker", "lazy-chaotic", "karriere-1988", "equal-allowed"):
        assert preset in str(err)


@pytest.mark.parametrize(("line", "key"), [
    ("matches: 0", "matches"), ("sessions: -2", "sessions"), ("clock: {move_ms: 0}", "clock.move_ms"),
    ("clock: {hello_ms: -5}", "clock.hello_ms"), ("clock: {bank_ms: -1}", "clock.bank_ms"),
    ("limits: {fault_limit: 0}", "limits.fault_limit"), ("rating: {sigma: 0}", "rating.sigma"),
])
def test_non_positive_values(tmp_path: Path, line: str, key: str) -> None:
    err = refused(tmp_path, "name: t\n" + line + "\n" + BOTS4)
    assert err.key == key and ("must be positive" in str(err) or "must be at least" in str(err))


@pytest.mark.parametrize("value", ["2 minutes", "m2", "0s", "-1m", "''", "true", "1h 2x"])
def test_bad_duration_string(tmp_path: Path, value: str) -> None:
    err = refused(tmp_path, f"name: t\nduration: {value}\n" + BOTS4)
    assert err.key == "duration" and "is not a positive duration" in str(err) and "'90s', '2m'" in str(err)


def test_sessions_and_duration_both_given(tmp_path: Path) -> None:
    err = refused(tmp_path, "name: t\nsessions: 8\nduration: 2m\n" + BOTS4)
    assert err.key == "duration" and "both 'sessions' and 'duration'" in str(err)


@pytest.mark.parametrize("missing", ["name", "bots"])
def test_required_key_missing(tmp_path: Path, missing: str) -> None:
    text = BOTS4 if missing == "name" else "name: t\n"
    err = refused(tmp_path, text)
    assert err.key == missing and "is missing" in str(err)


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
