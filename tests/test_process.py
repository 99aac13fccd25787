"""arena.process against real hostile bots (tests/hostile/), at every isolation level.

Every test runs each bot as a real process, checks the specific outcome, then
(through the ``pool`` fixture) that no process is left behind, no zombie child
remains, the bot's cgroup and uid are empty, and the arena's own peak memory
grew by less than ``RSS_BUDGET_KB``.

Levels: all of ``ISOLATION_LEVELS`` that work here; set ARENA_SANDBOX to one
level (e.g. ``process-group``) to run only that fallback.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from arena.limits import AS_FLOOR_MB, Limits
from arena.process import BotCommandError, BotPool, parse_command
from arena.sandbox import ENV_ISOLATION, ISOLATION_LEVELS, available_levels, processes_of_uid

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = "tests/hostile"
RSS_BUDGET_KB = 64 * 1024
_forced = os.environ.get(ENV_ISOLATION, "auto").strip().lower()
LEVELS = [_forced] if _forced in ISOLATION_LEVELS else list(ISOLATION_LEVELS)


# --------------------------------------------------------------------------- helpers


def procs_with(token: str) -> list[int]:
    """Live processes whose command line contains ``token``."""
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = Path(entry.path, "cmdline").read_bytes()
        except OSError:
            continue
        if token.encode() in cmdline:
            out.append(int(entry.name))
    return out


def zombie_children() -> list[int]:
    """Our own children that exited but were never reaped."""
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z" and int(fields[1]) == os.getpid():
            out.append(int(entry.name))
    return out


def maxrss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def soon(seconds: float) -> float:
    return time.monotonic() + seconds


class Harness:
    """Makes pools at one isolation level and checks, at the end, that nothing leaked."""

    def __init__(self, level: str, tmp_path: Path) -> None:
        self.level = level
        self.tmp_path = tmp_path
        self.token = f"tok-{uuid.uuid4().hex}"
        self.pools: list[BotPool] = []
        self.bots: list = []

    def pool(self, limits: Limits | None = None, **kw) -> BotPool:
        kw.setdefault("log_dir", self.tmp_path)
        p = BotPool(limits or Limits(), isolation=self.level, **kw)
        assert p.isolation == self.level
        self.pools.append(p)
        return p

    def start(self, pool: BotPool, script: str, *args: str, name: str = "bot"):
        prog = "node" if script.endswith(".js") else "sh" if script.endswith(".sh") else "python"
        cmd = " ".join([prog, f"{HOSTILE}/{script}", *args, self.token])
        bot = pool.start(name, cmd, ROOT)
        self.bots.append(bot)
        return bot

    def finish(self) -> None:
        for p in self.pools:
            p.close_all(grace_s=0.1)
        for bot in self.bots:
            assert bot.exit_info is not None and bot.exit_info.leftover_pids == ()
            if bot.uid is not None:
                assert processes_of_uid(bot.uid) == set()
            if bot.cgroup is not None:
                assert bot.cgroup.dirs == {}
            assert not bot.workdir.exists()
        assert procs_with(self.token) == [], "a bot process outlived its match"
        assert zombie_children() == []


@pytest.fixture(params=LEVELS)
def h(request, tmp_path):
    level = request.param
    if level not in available_levels():
        pytest.skip(f"isolation {level!r} does not work on this machine")
    harness = Harness(level, tmp_path)
    before = maxrss_kb()
    try:
        yield harness
    finally:
        harness.finish()
    assert maxrss_kb() - before < RSS_BUDGET_KB, "the arena's own memory grew"


# --------------------------------------------------------------------------- commands


def test_parse_command_python_and_relative_paths():
    argv = parse_command("python tests/hostile/echo.py --hello", ROOT)
    assert argv == [sys.executable, str(ROOT / HOSTILE / "echo.py"), "--hello"]
    assert parse_command("python3 -u tests/hostile/echo.py", ROOT)[0] == sys.executable
    assert parse_command("node 'tests/hostile/echo.js'", ROOT)[1] == str(ROOT / HOSTILE / "echo.js")


def test_parse_command_missing_program_names_the_command():
    with pytest.raises(BotCommandError, match="no-such-prog"):
        parse_command("no-such-prog --x", ROOT)
    with pytest.raises(BotCommandError, match="bots/nope/run"):
        parse_command("./bots/nope/run", ROOT)
    with pytest.raises(BotCommandError, match="missing.py"):
        parse_command("python missing.py", ROOT)
    with pytest.raises(BotCommandError, match="empty"):
        parse_command("   ", ROOT)


# --------------------------------------------------------------------------- talking


def test_echo_roundtrip_env_and_exit(h):
    pool = h.pool()
    bot = h.start(pool, "introspect.py")
    report = pool.wait_line(bot, soon(10))
    assert report.kind == "line"
    info = json.loads(report.text)
    assert set(info["env"]) - {"PYTHONPATH"} == {"PATH", "HOME", "LANG"}
    assert info["env"]["HOME"] == str(bot.workdir) == info["cwd"]
    assert info["env"]["LANG"] == "C.UTF-8"
    assert "PYTHONUNBUFFERED" not in info["env"]
    assert info["sdk"].endswith("__init__.py"), info["sdk"]
    assert info["cwd_files"] == []
    if os.geteuid() == 0 and h.level != "process-group":
        assert info["uid"] == bot.uid != 0 and info["groups"] == []
    for i in range(3):
        assert pool.send(bot, f"msg {i}").ok
        reply = pool.wait_line(bot, soon(5))
        assert reply.kind == "line" and json.loads(reply.text) == {"echo": f"msg {i}"}
        assert 0 <= reply.elapsed_s < 5
    end = pool.close(bot)
    assert (end.returncode, end.signal, end.killed) == (0, None, False)
    assert end.isolation == h.level
    assert end.cpu_s is not None and end.cpu_s > 0
    assert end.peak_memory_bytes is not None and end.peak_memory_bytes > 1 << 20


def test_node_bot_starts_under_rlimit_as(h):
    pool = h.pool(use_cgroups=False)  # memory falls back to RLIMIT_AS
    bot = h.start(pool, "echo.js")
    assert json.loads(pool.wait_line(bot, soon(10)).text) == {"hello": "node"}
    assert pool.send(bot, "hi").ok
    assert json.loads(pool.wait_line(bot, soon(5)).text) == {"echo": "hi"}
    assert pool.close(bot).returncode == 0


def test_hanging_bot_times_out_and_is_killed(h):
    pool = h.pool()
    bot = h.start(pool, "hang.py")
    assert pool.send(bot, "your move").ok
    t0 = time.monotonic()
    res = pool.wait_line(bot, soon(0.3))
    assert res.kind == "timeout"
    assert 0.25 <= res.elapsed_s < 1.0 and time.monotonic() - t0 < 1.0
    end = pool.close(bot, grace_s=0.2)
    assert end.killed and end.signal == 9


def test_bot_exiting_mid_conversation(h):
    pool = h.pool()
    bot = h.start(pool, "exit_mid.py")
    assert pool.send(bot, "one").ok
    assert json.loads(pool.wait_line(bot, soon(10)).text) == {"echo": "one"}
    assert pool.send(bot, "two").ok
    assert pool.wait_line(bot, soon(10)).kind == "eof"
    deadline = soon(5)
    while bot.returncode() is None and time.monotonic() < deadline:
        pool.pump(0.01)
    assert bot.returncode() == 3
    assert pool.send(bot, "three").kind == "closed"
    end = pool.close(bot)
    assert (end.returncode, end.signal, end.killed) == (3, None, False)


def test_garbage_is_delivered_as_lines_without_breaking_sync(h):
    pool = h.pool()
    bot = h.start(pool, "garbage.py")
    lines = [pool.wait_line(bot, soon(10)) for _ in range(5)]
    assert [r.kind for r in lines] == ["line"] * 5
    assert "\ufffd" in lines[0].text and "\x00" in lines[0].text
    assert lines[1].text == "{not json at all"  # the \r is stripped
    assert lines[2].text == ""
    assert json.loads(lines[4].text) == {"ok": True}
    assert pool.wait_line(bot, soon(0.1)).kind == "timeout"


def test_line_cap_is_exact(h):
    cap = 1000
    pool = h.pool(Limits(line_bytes=cap))
    bot = h.start(pool, "line_sizes.py", str(cap), str(cap + 1), "5")
    first = pool.wait_line(bot, soon(10))
    assert first.kind == "line" and len(first.text) == cap
    second = pool.wait_line(bot, soon(5))
    assert second.kind == "too_long" and second.text.startswith("yyy")
    assert pool.wait_line(bot, soon(5)).text == "yyyyy"
    assert json.loads(pool.wait_line(bot, soon(5)).text) == {"done": True}


def test_100mb_line_without_newline_is_cut_and_skipped(h):
    before = maxrss_kb()
    pool = h.pool()
    bot = h.start(pool, "long_line.py", "100")
    t0 = time.monotonic()
    res = pool.wait_line(bot, soon(20))
    assert res.kind == "too_long" and time.monotonic() - t0 < 5
    assert res.text.startswith("xxxx") and len(res.text) <= 200
    after = pool.wait_line(bot, soon(30))  # the rest of the line is discarded, not buffered
    assert after.kind == "line" and json.loads(after.text) == {"after": True}
    assert maxrss_kb() - before < 32 * 1024


def test_stderr_flood_is_capped_and_drained_while_waiting_on_others(h):
    cap = 64 * 1024
    pool = h.pool(Limits(stderr_bytes=cap))
    flood = h.start(pool, "stderr_flood.py", "8", name="flood")
    echo = h.start(pool, "echo.py", name="echo")
    t0 = time.monotonic()
    for i in range(20):  # only ever wait on the echo bot
        assert pool.send(echo, str(i)).ok
        assert pool.wait_line(echo, soon(10)).kind == "line"
    while time.monotonic() - t0 < 15 and not flood.pending:
        assert pool.wait_line(echo, soon(0.05)).kind == "timeout"
    done = pool.wait_line(flood, soon(1))
    assert done.kind == "line" and json.loads(done.text) == {"done": True}
    end = pool.close(flood)
    assert end.stderr_bytes == cap and end.stderr_dropped == 8 * (1 << 20) - cap
    assert flood.log_path.stat().st_size == cap


def test_unsolicited_lines_are_bounded_and_counted(h):
    pool = h.pool(queue_lines=8)
    bot = h.start(pool, "spam.py", "100")
    deadline = soon(10)
    while bot.lines_dropped < 92 and time.monotonic() < deadline:
        pool.pump(0.05)
    assert pool.send(bot, "now").ok
    assert json.loads(pool.wait_line(bot, soon(5)).text) == {"echo": "now"}
    assert [json.loads(t)["spam"] for t in bot.unsolicited] == list(range(92, 100))
    assert bot.lines_dropped == 92


def test_closed_stdout_is_eof_at_once(h):
    pool = h.pool()
    bot = h.start(pool, "close_stdout.py")
    t0 = time.monotonic()
    assert pool.wait_line(bot, soon(10)).kind == "eof"
    assert time.monotonic() - t0 < 5
    assert bot.returncode() is None  # still running: only its stdout is gone
    assert pool.close(bot, grace_s=0.1).killed


def test_bot_not_reading_stdin_cannot_block_the_arena(h):
    pool = h.pool()
    bot = h.start(pool, "no_read.py")
    assert pool.wait_line(bot, soon(10)).kind == "line"
    line = "p" * 16 * 1024
    t0 = time.monotonic()
    results = []
    for _ in range(200):
        results.append(pool.send(bot, line, deadline=soon(0.2)))
        if not results[-1].ok:
            break
    assert results[-1].kind == "timeout"
    assert len(results) < 100 and time.monotonic() - t0 < 2
    assert pool.send(bot, "again").kind == "timeout"  # out of sync: fails at once
    assert pool.close(bot, grace_s=0.1).killed


def test_children_that_setsid_and_ignore_sigterm_die_with_the_bot(h):
    pool = h.pool()
    bot = h.start(pool, "fork_escape.py")
    assert json.loads(pool.wait_line(bot, soon(10)).text) == {"forked": 3}
    assert len(procs_with(h.token)) >= 4  # the bot and its three daemons
    end = pool.close(bot, grace_s=0.2)
    assert end.killed and end.leftover_pids == ()
    assert procs_with(h.token) == []


def test_memory_limit_kills_or_fails_the_bot(h):
    pool = h.pool(Limits(memory_mb=256))
    bot = h.start(pool, "memory_hog.py", "3072")
    peak_reported = 0
    while True:
        res = pool.wait_line(bot, soon(20))
        if res.kind != "line":
            break
        msg = json.loads(res.text)
        assert "survived" not in msg
        peak_reported = max(peak_reported, msg.get("allocated_mb", 0))
    assert res.kind == "eof"
    end = pool.close(bot)
    if bot.cgroup is None:  # cgroups off ($ARENA_CGROUPS=0): RLIMIT_AS, never below its floor
        assert peak_reported < AS_FLOOR_MB and end.returncode == 1
        return
    assert peak_reported < 256
    assert end.oom_killed is True and end.signal == 9
    assert end.peak_memory_bytes is not None and end.peak_memory_bytes <= 256 << 20


def test_memory_limit_without_cgroup_uses_rlimit_as(h):
    pool = h.pool(Limits(memory_mb=256), use_cgroups=False)
    bot = h.start(pool, "memory_hog.py", "3072")
    last = {}
    while (res := pool.wait_line(bot, soon(20))).kind == "line":
        last = json.loads(res.text)
    assert res.kind == "eof" and last == {"memory_error_mb": 0}
    end = pool.close(bot)
    assert end.returncode == 1 and end.oom_killed is None


def test_file_size_limit(h):
    pool = h.pool(Limits(file_size_mb=4))
    bot = h.start(pool, "big_file.py")
    report = json.loads(pool.wait_line(bot, soon(10)).text)
    assert report["size"] <= 4 << 20 and report["written"] <= 4 << 20
    assert report["error"] == "File too large"


def test_cpu_limit(h):
    pool = h.pool(Limits(cpu_s=1))
    bot = h.start(pool, "cpu_spin.py")
    assert pool.wait_line(bot, soon(30)).kind == "line"
    assert pool.wait_line(bot, soon(30)).kind == "eof"  # SIGXCPU after 1 s of CPU (slow on a loaded machine)
    end = pool.close(bot)
    assert end.signal in (24, 9) and not end.killed
    assert end.cpu_s is not None and end.cpu_s >= 0.9


def test_process_limit(h):
    pool = h.pool(Limits(processes=16))
    if pool.use_cgroups is False:
        pytest.skip("needs the pids cgroup")
    bot = h.start(pool, "fork_many.py", "100")
    report = json.loads(pool.wait_line(bot, soon(20)).text)
    if bot.cgroup is None and bot.uid is None:
        pytest.skip("neither a pids cgroup nor a bot uid here")
    assert report["started"] < 16 and report["error"]
    assert len(procs_with(h.token)) <= 16
    assert pool.close(bot, grace_s=0.1).leftover_pids == ()


# --------------------------------------------------------------------------- isolation


@pytest.fixture
def secret(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    path = private / "results.sqlite"
    path.write_text("TOP-SECRET-RESULTS\n")
    return path


def test_cannot_read_arena_files_or_other_bots(h, secret):
    if os.geteuid() != 0:
        pytest.skip("needs root to run bots as another uid")
    pool = h.pool()
    other = h.start(pool, "echo.py", name="other")
    (other.workdir / "strategy.txt").write_text("MY-SECRET-STRATEGY")
    bot = h.start(pool, "read_secret.sh", str(secret), str(other.workdir), name="spy")
    lines = [pool.wait_line(bot, soon(10)) for _ in range(3)]
    out = {r.text.split(":", 1)[0]: r.text.split(":", 1)[1] for r in lines}
    assert "TOP-SECRET" not in out["secret"] and out["secret"]
    assert "strategy.txt" not in out["other"]
    assert int(out["uid"]) == bot.uid != 0


def test_python_bot_cannot_read_secret_or_use_network(h, secret):
    if h.level == "process-group":
        pytest.skip("process-group has neither a network nor a mount namespace")
    listener = socket.create_server(("127.0.0.1", 0))
    try:
        port = listener.getsockname()[1]
        pool = h.pool()
        bot = h.start(pool, "introspect.py", str(secret), str(port))
        info = json.loads(pool.wait_line(bot, soon(10)).text)
    finally:
        listener.close()
    assert info["secret"].startswith("error:")
    assert info["connect"].startswith("error:")
    assert ".bashrc" not in info["root"]  # /root is hidden or empty
    if h.level == "bubblewrap":
        # /tmp holds the bot's own directory, plus the project's folder when the checkout itself
        # lives under /tmp (it is mounted read-only so that `import sdk` works).
        project = ROOT.parts[2:3] if ROOT.parts[1:2] == ("tmp",) else ()
        assert info["pid"] == 2 and sorted(info["tmp"]) == sorted({bot.workdir.parts[2], *project})


def test_fallback_is_reported(h, monkeypatch):
    monkeypatch.setenv(ENV_ISOLATION, h.level)
    assert BotPool().isolation == h.level


def test_auto_falls_back_with_one_warning_when_bwrap_is_missing():
    code = (
        "import logging; logging.basicConfig(level=logging.WARNING)\n"
        "from arena.sandbox import select_isolation\n"
        "print(select_isolation()); print(select_isolation())\n"
    )
    env = {**os.environ, "ARENA_BWRAP": "/nonexistent/bwrap", ENV_ISOLATION: "auto"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    levels = out.stdout.split()
    assert levels[0] == levels[1] != "bubblewrap" and levels[0] in ISOLATION_LEVELS
    assert out.stderr.count("WARNING") == 1 and "bubblewrap" in out.stderr
    env[ENV_ISOLATION] = "bubblewrap"
    forced = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert forced.returncode != 0 and "does not work" in forced.stderr
