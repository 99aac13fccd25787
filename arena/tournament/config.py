"""The tournament file (tournament.md): YAML checked strictly into frozen dataclasses.

Every mistake is refused before anything runs, with one :class:`ConfigError` whose message names
the file, the key (a dotted path such as ``clock.move_ms`` or ``bots[2].cmd``), what is wrong and
how to fix it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from sdk.protocol import Clock
from sdk.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS

__all__ = [
    "ConfigError", "BotEntry", "ClockConfig", "LimitsConfig", "RatingConfig", "TournamentConfig",
    "load_config", "parse_config", "parse_duration", "resolve_command", "config_fingerprint",
    "fingerprint_fields",
]


class ConfigError(ValueError):
    """A bad tournament file. ``str()`` is the one message: file, key, what is wrong, the fix."""

    def __init__(self, source: str, key: str | None, problem: str, fix: str = "") -> None:
        self.source = source
        self.key = key
        self.problem = problem
        self.fix = fix
        where = f"{source}: {key}" if key else source
        message = f"{where}: {problem}"
        if fix:
            message += f". Fix: {fix}"
        super().__init__(message)


# --------------------------------------------------------------------------- dataclasses


@dataclass(frozen=True)
class BotEntry:
    """One bot: its unique ``name`` and its command line ``cmd`` (as written in the file).

    ``argv`` is the command resolved when the file was loaded: ``python``/``python3`` replaced by
    the arena's interpreter and a relative script path made absolute against the base directory.
    """

    name: str
    cmd: str
    argv: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class ClockConfig:
    hello_ms: int = 10000
    move_ms: int = 1000
    bank_ms: int = 10000

    def to_clock(self) -> Clock:
        return Clock(self.hello_ms, self.move_ms, self.bank_ms)


@dataclass(frozen=True)
class LimitsConfig:
    memory_mb: int = 1024
    cpu_s: float = 120
    fault_limit: int = 3


@dataclass(frozen=True)
class RatingConfig:
    mu: float = 25.0
    sigma: float = 8.333
    beta: float = 4.167
    tau: float = 0.083
    draw_probability: float = 0.0


@dataclass(frozen=True)
class TournamentConfig:
    """A checked tournament file. ``seats`` is always a tuple (``seats: 4`` gives ``(4,)``).

    Exactly one of ``sessions`` and ``duration_s`` is set (R14).
    """

    name: str
    bots: tuple[BotEntry, ...]
    rules: str = "animal-poker"
    seats: tuple[int, ...] = (4,)
    matches: int = 60
    sessions: int | None = 8
    duration_s: float | None = None
    rotation: bool = True
    seed: int = 2026
    clock: ClockConfig = ClockConfig()
    limits: LimitsConfig = LimitsConfig()
    rating: RatingConfig = RatingConfig()
    source: str = field(default="<config>", compare=False)
    """The file it was read from (for messages)."""
    base_dir: str = field(default=".", compare=False)
    """The directory relative bot commands were resolved against."""

    @property
    def max_seats(self) -> int:
        return max(self.seats)

    @property
    def bot_names(self) -> tuple[str, ...]:
        return tuple(bot.name for bot in self.bots)

    def bot(self, name: str) -> BotEntry:
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise KeyError(name)

    def total_matches(self) -> int:
        """Matches in the schedule: ``matches`` groups, each played ``seats`` times with rotation."""
        if not self.rotation:
            return self.matches
        return sum(self.seats[g % len(self.seats)] for g in range(self.matches))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict in the file's schema (``seats`` an int when there is one size)."""
        return {
            "name": self.name,
            "rules": self.rules,
            "seats": self.seats[0] if len(self.seats) == 1 else list(self.seats),
            "matches": self.matches,
            "sessions": self.sessions,
            "duration_s": self.duration_s,
            "rotation": self.rotation,
            "seed": self.seed,
            "clock": {"hello_ms": self.clock.hello_ms, "move_ms": self.clock.move_ms,
                      "bank_ms": self.clock.bank_ms},
            "limits": {"memory_mb": self.limits.memory_mb, "cpu_s": self.limits.cpu_s,
                       "fault_limit": self.limits.fault_limit},
            "rating": {"mu": self.rating.mu, "sigma": self.rating.sigma, "beta": self.rating.beta,
                       "tau": self.rating.tau, "draw_probability": self.rating.draw_probability},
            "bots": [{"name": b.name, "cmd": b.cmd} for b in self.bots],
        }


# --------------------------------------------------------------------------- fingerprint


def fingerprint_fields(config: TournamentConfig) -> dict[str, Any]:
    """Everything that determines the schedule and how its matches are played."""
    return {
        "rules": config.rules,
        "seats": list(config.seats),
        "matches": config.matches,
        "sessions": config.sessions,
        "duration_s": config.duration_s,
        "rotation": config.rotation,
        "seed": config.seed,
        "bots": [[b.name, b.cmd] for b in config.bots],
        "clock": [config.clock.hello_ms, config.clock.move_ms, config.clock.bank_ms],
        "fault_limit": config.limits.fault_limit,
    }


def config_fingerprint(config: TournamentConfig) -> str:
    """A stable hash (hex SHA-256) of :func:`fingerprint_fields`, so a database can refuse a changed file."""
    canonical = json.dumps(fingerprint_fields(config), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


# --------------------------------------------------------------------------- durations

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)\s*(h|m|s)")
_DURATION = re.compile(r"\s*(?:(?:\d+(?:\.\d*)?|\.\d+)\s*(?:h|m|s)\s*)+")
_UNIT_S = {"h": 3600.0, "m": 60.0, "s": 1.0}


def parse_duration(value: str | int | float) -> float:
    """Seconds in ``90s``, ``2m``, ``1h``, ``1h30m``, ``1.5m`` (a bare number is seconds).

    Raises ValueError for anything else, or for a duration that is not positive.
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration")
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str) and _DURATION.fullmatch(value.strip().lower()):
        seconds = sum(float(n) * _UNIT_S[u] for n, u in _DURATION_PART.findall(value.lower()))
    else:
        raise ValueError(f"{value!r} is not a duration")
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"{value!r} is not a positive duration")
    return seconds


# --------------------------------------------------------------------------- commands

_PYTHON = re.compile(r"python(3(\.\d+)?)?")
_PY_OPTS_WITH_ARG = {"-W", "-X", "-Q"}


def resolve_command(cmd: str, base_dir: str | Path | None = None) -> list[str]:
    """The argv that runs ``cmd``: split with shlex; a leading ``python``/``python3`` means this
    interpreter (``sys.executable``); a relative script or program path resolves against
    ``base_dir`` (default: the current directory); a bare program name is looked up on PATH.

    Raises ValueError saying what is missing.
    """
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    try:
        argv = shlex.split(cmd)
    except ValueError as err:
        raise ValueError(f"cannot split the command {cmd!r}: {err}") from None
    if not argv:
        raise ValueError("the command is empty")
    program = argv[0]
    if _PYTHON.fullmatch(program):
        argv[0] = sys.executable
        i = 1
        while i < len(argv) and argv[i].startswith("-") and argv[i] not in ("-m", "-c", "-"):
            i += 2 if argv[i] in _PY_OPTS_WITH_ARG else 1
        if i >= len(argv):
            raise ValueError(f"{cmd!r} names no script for python to run")
        if argv[i] == "-m":
            if i + 1 >= len(argv):
                raise ValueError(f"{cmd!r}: -m needs a module name")
            _check_module(argv[i + 1], base)
        elif argv[i] not in ("-c", "-"):
            script = Path(argv[i]).expanduser()
            path = script if script.is_absolute() else base / script
            if not path.is_file():
                raise ValueError(f"the script {argv[i]!r} does not exist (looked for {path})")
            argv[i] = str(path.resolve())
        return argv
    if "/" in program or os.sep in program:
        path = Path(program).expanduser()
        path = path if path.is_absolute() else base / path
        if not path.is_file():
            raise ValueError(f"the program {program!r} does not exist (looked for {path})")
        if not os.access(path, os.X_OK):
            raise ValueError(f"the program {program!r} is not executable")
        argv[0] = str(path.resolve())
        return argv
    found = shutil.which(program)
    if found is None:
        raise ValueError(f"the program {program!r} is not on PATH")
    argv[0] = found
    return argv


def _check_module(module: str, base: Path) -> None:
    import importlib.util

    top = module.split(".")[0]
    if (base / top).is_dir() or (base / f"{top}.py").is_file():
        return
    try:
        if importlib.util.find_spec(top) is not None:
            return
    except (ImportError, ValueError):
        pass
    raise ValueError(f"the module {module!r} cannot be found (not in {base} nor importable)")


# --------------------------------------------------------------------------- loading


class _StrictLoader(yaml.SafeLoader):
    """``yaml.safe_load`` semantics, but a key given twice in one mapping is an error."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, Any] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, (str, int, float, bool)) or key is None:
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping", node.start_mark,
                    f"the key {key!r} is given twice (first on line {seen[key].line + 1})", key_node.start_mark)
            seen[key] = key_node.start_mark
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_config(path: str | Path, base_dir: str | Path | None = None) -> TournamentConfig:
    """Read and check the tournament file at ``path``.

    Bot commands with relative paths resolve against ``base_dir`` (default: the current directory).
    Raises :class:`ConfigError` (a ValueError) for any mistake.
    """
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(source, None, "the tournament file does not exist",
                          "check the path (tournament files live under tournaments/)") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(source, None, f"cannot read the file ({err})", "check the path and permissions") from None
    try:
        data = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "YAML"
        what = " ".join(str(x) for x in (err.context, err.problem) if x)
        raise ConfigError(source, where, f"YAML syntax error: {what}",
                          "correct the YAML there (indentation, quotes, a missing ':')") from None
    except yaml.YAMLError as err:
        raise ConfigError(source, None, f"YAML syntax error: {err}", "correct the YAML") from None
    return parse_config(data, source=source, base_dir=base_dir)


def parse_config(data: Any, source: str = "<config>", base_dir: str | Path | None = None) -> TournamentConfig:
    """Check already-parsed YAML (a dict) into a :class:`TournamentConfig`; see :func:`load_config`."""
    return _Checker(source, Path(base_dir) if base_dir is not None else Path.cwd()).config(data)


_TOP_KEYS = ("name", "rules", "seats", "matches", "sessions", "duration", "rotation", "seed",
             "clock", "limits", "rating", "bots")


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list",
            dict: "a mapping"}.get(type(value), type(value).__name__)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Checker:
    def __init__(self, source: str, base_dir: Path) -> None:
        self.source = source
        self.base_dir = base_dir

    def fail(self, key: str | None, problem: str, fix: str = "") -> ConfigError:
        return ConfigError(self.source, key, problem, fix)

    # ---- generic checks

    def known_keys(self, mapping: dict, known: tuple[str, ...], prefix: str, what: str) -> None:
        for key in mapping:
            if not isinstance(key, str):
                raise self.fail(f"{prefix}{key!r}", f"keys must be strings, not {_type_name(key)}",
                                f"the keys of {what} are: {', '.join(known)}")
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1, cutoff=0.5)
                fix = f"did you mean '{close[0]}'?" if close else f"the keys of {what} are: {', '.join(known)}"
                raise self.fail(f"{prefix}{key}", f"unknown key '{key}' in {what}", fix)

    def integer(self, value: Any, key: str, minimum: int | None = 1, fix: str = "") -> int:
        if type(value) is not int:
            hint = " (true/false is not a number)" if isinstance(value, bool) else ""
            raise self.fail(key, f"must be an integer, got {_type_name(value)} {_show(value)}{hint}",
                            fix or "write a whole number without quotes")
        if minimum is not None and value < minimum:
            need = "positive" if minimum == 1 else f"at least {minimum}"
            raise self.fail(key, f"must be {need}, got {value}", fix or f"use a value of {minimum} or more")
        return value

    def number(self, value: Any, key: str, check: Callable[[float], bool], need: str, fix: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            hint = " (true/false is not a number)" if isinstance(value, bool) else ""
            raise self.fail(key, f"must be a number, got {_type_name(value)} {_show(value)}{hint}", fix)
        if value != value or not check(float(value)):
            raise self.fail(key, f"must be {need}, got {value}", fix)
        return float(value)

    def string(self, value: Any, key: str, fix: str) -> str:
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, got {_type_name(value)} {_show(value)}", fix)
        if not value.strip():
            raise self.fail(key, "is empty", fix)
        return value

    def mapping(self, value: Any, key: str, fix: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(key, f"must be a mapping, got {_type_name(value)} {_show(value)}", fix)
        return value

    # ---- the file

    def config(self, data: Any) -> TournamentConfig:
        if not isinstance(data, dict):
            got = "an empty file" if data is None else _type_name(data)
            raise self.fail("top level", f"must be a mapping of settings, got {got}",
                            "start the file with 'name: ...' and 'bots:' (see tournaments/quickstart.yaml)")
        self.known_keys(data, _TOP_KEYS, "", "a tournament file")
        for required in ("name", "bots"):
            if required not in data:
                example = "name: my-tournament" if required == "name" else \
                    "bots: [{name: greedy, cmd: python bots/greedy.py}, ...]"
                raise self.fail(required, "is missing (it has no default)", f"add '{example}'")

        name = self.string(data["name"], "name", "give the tournament a name, e.g. 'name: my-tournament'")
        rules = data.get("rules", "animal-poker")
        known_rules = ", ".join(PRESETS)
        if not isinstance(rules, str):
            raise self.fail("rules", f"must be a string, got {_type_name(rules)} {_show(rules)}",
                            f"use one of: {known_rules}")
        if rules not in PRESETS:
            raise self.fail("rules", f"unknown rules preset '{rules}'", f"use one of: {known_rules}")

        seats = self.seats(data.get("seats", 4))
        matches = self.integer(data.get("matches", 60), "matches", fix="give the number of match groups, e.g. 60")
        sessions, duration_s = self.length(data)
        rotation = data.get("rotation", True)
        if not isinstance(rotation, bool):
            raise self.fail("rotation", f"must be true or false, got {_type_name(rotation)} {_show(rotation)}",
                            "write 'rotation: true' or 'rotation: false'")
        seed = self.integer(data.get("seed", 2026), "seed", minimum=None, fix="use a whole number, e.g. 'seed: 2026'")
        clock = self.clock(data.get("clock", {}))
        limits = self.limits(data.get("limits", {}))
        rating = self.rating(data.get("rating", {}))
        bots = self.bots(data["bots"], max(seats))
        return TournamentConfig(
            name=name, bots=bots, rules=rules, seats=seats, matches=matches, sessions=sessions,
            duration_s=duration_s, rotation=rotation, seed=seed, clock=clock, limits=limits, rating=rating,
            source=self.source, base_dir=str(self.base_dir),
        )

    def seats(self, value: Any) -> tuple[int, ...]:
        fix = f"players per match must be {MIN_PLAYERS} to {MAX_PLAYERS}: e.g. 'seats: 4' or 'seats: [4, 6, 8]'"
        if isinstance(value, list):
            if not value:
                raise self.fail("seats", "is an empty list", fix)
            items = [(f"seats[{i}]", v) for i, v in enumerate(value)]
        else:
            items = [("seats", value)]
        out = []
        for key, v in items:
            if type(v) is not int:
                hint = " (true/false is not a number)" if isinstance(v, bool) else ""
                raise self.fail(key, f"must be an integer or a list of integers, got {_type_name(v)} {_show(v)}{hint}",
                                fix)
            if not MIN_PLAYERS <= v <= MAX_PLAYERS:
                raise self.fail(key, f"{v} players is outside {MIN_PLAYERS}-{MAX_PLAYERS} (R1)", fix)
            out.append(v)
        return tuple(out)

    def length(self, data: dict) -> tuple[int | None, float | None]:
        if "sessions" in data and "duration" in data:
            raise self.fail("duration", "both 'sessions' and 'duration' are given (R14 takes one)",
                            "keep 'sessions: N' for a fixed number of sessions or 'duration: 2m' for timed matches")
        if "duration" in data:
            value = data["duration"]
            try:
                return None, parse_duration(value)
            except ValueError:
                raise self.fail("duration", f"{_show(value)} is not a positive duration",
                                "write a number with a unit: '90s', '2m', '1h' or '1h30m'") from None
        return self.integer(data.get("sessions", 8), "sessions", fix="give the sessions per match, e.g. 8"), None

    def section(self, value: Any, key: str, known: tuple[str, ...]) -> dict:
        example = ", ".join(f"{k}: ..." for k in known)
        value = self.mapping(value, key, f"write '{key}: {{{example}}}'")
        self.known_keys(value, known, f"{key}.", f"'{key}'")
        return value

    def clock(self, value: Any) -> ClockConfig:
        d = self.section(value, "clock", ("hello_ms", "move_ms", "bank_ms"))
        default = ClockConfig()
        return ClockConfig(
            hello_ms=self.integer(d.get("hello_ms", default.hello_ms), "clock.hello_ms",
                                  fix="give milliseconds as a positive whole number, e.g. 10000"),
            move_ms=self.integer(d.get("move_ms", default.move_ms), "clock.move_ms",
                                 fix="give milliseconds as a positive whole number, e.g. 1000"),
            # A bank of 0 is meaningful (no spare time), so only negative values are refused.
            bank_ms=self.integer(d.get("bank_ms", default.bank_ms), "clock.bank_ms", minimum=0,
                                 fix="give milliseconds as a whole number, 0 or more, e.g. 10000"),
        )

    def limits(self, value: Any) -> LimitsConfig:
        d = self.section(value, "limits", ("memory_mb", "cpu_s", "fault_limit"))
        default = LimitsConfig()
        return LimitsConfig(
            memory_mb=self.integer(d.get("memory_mb", default.memory_mb), "limits.memory_mb",
                                   fix="give megabytes as a positive whole number, e.g. 1024"),
            cpu_s=self.number(d.get("cpu_s", default.cpu_s), "limits.cpu_s", lambda x: 0 < x < float("inf"),
                              "positive", "give CPU seconds per bot and match, e.g. 120"),
            fault_limit=self.integer(d.get("fault_limit", default.fault_limit), "limits.fault_limit",
                                     fix="give the faults that disqualify a bot (R16), e.g. 3"),
        )

    def rating(self, value: Any) -> RatingConfig:
        d = self.section(value, "rating", ("mu", "sigma", "beta", "tau", "draw_probability"))
        default = RatingConfig()
        finite = lambda x: x not in (float("inf"), float("-inf"))  # noqa: E731
        positive = lambda x: 0 < x < float("inf")  # noqa: E731
        return RatingConfig(
            mu=self.number(d.get("mu", default.mu), "rating.mu", finite, "finite", "e.g. 25.0"),
            sigma=self.number(d.get("sigma", default.sigma), "rating.sigma", positive, "positive", "e.g. 8.333"),
            beta=self.number(d.get("beta", default.beta), "rating.beta", positive, "positive", "e.g. 4.167"),
            tau=self.number(d.get("tau", default.tau), "rating.tau", lambda x: 0 <= x < float("inf"),
                            "0 or more", "e.g. 0.083"),
            draw_probability=self.number(d.get("draw_probability", default.draw_probability),
                                         "rating.draw_probability", lambda x: 0 <= x < 1,
                                         "at least 0 and below 1", "e.g. 0.0"),
        )

    def bots(self, value: Any, max_seats: int) -> tuple[BotEntry, ...]:
        example = "bots: [{name: greedy, cmd: python bots/greedy.py}, ...]"
        if not isinstance(value, list):
            raise self.fail("bots", f"must be a list of {{name, cmd}} entries, got {_type_name(value)} {_show(value)}",
                            f"write '{example}'")
        bots: list[BotEntry] = []
        seen: dict[str, int] = {}
        for i, entry in enumerate(value):
            key = f"bots[{i}]"
            entry = self.mapping(entry, key, "write each bot as '{name: NAME, cmd: COMMAND}'")
            self.known_keys(entry, ("name", "cmd"), f"{key}.", "a bot entry")
            for required in ("name", "cmd"):
                if required not in entry:
                    raise self.fail(f"{key}.{required}", "is missing", "give every bot a 'name' and a 'cmd'")
            name = self.string(entry["name"], f"{key}.name",
                               "give the bot a non-empty name (quote it if it is a number)")
            if name != name.strip():
                raise self.fail(f"{key}.name", f"{name!r} starts or ends with spaces", "remove the spaces")
            if name in seen:
                raise self.fail(f"{key}.name", f"duplicate bot name '{name}' (bots[{seen[name]}] has it too)",
                                "give every bot its own name, e.g. add '-2' to one of them")
            seen[name] = i
            cmd = self.string(entry["cmd"], f"{key}.cmd", "give the command that starts the bot, e.g. "
                              "'python bots/greedy.py'")
            try:
                argv = resolve_command(cmd, self.base_dir)
            except ValueError as err:
                raise self.fail(f"{key}.cmd", str(err),
                                f"fix the path (relative paths are taken from {self.base_dir}) or install the program"
                                ) from None
            bots.append(BotEntry(name=name, cmd=cmd, argv=tuple(argv)))
        if len(bots) < max_seats:
            raise self.fail("bots", f"{len(bots)} bot(s) but a match needs {max_seats} players ('seats')",
                            f"add {max_seats - len(bots)} more bot(s) (the same command twice under two names is fine)"
                            f" or lower 'seats'")
        return tuple(bots)
