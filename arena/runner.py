"""Play a match between real bot processes: start them sandboxed, play, end them all.

This is where :mod:`arena.process` (effects) meets :mod:`arena.match` (the match loop).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .limits import Limits
from .match import ChannelExit, MatchConfig, MatchReport, Reply, play_match
from .process import Bot, BotPool
from .replay import ReplayWriter


@dataclass(frozen=True)
class BotSpec:
    """A bot in a match: its display name and the command that starts it."""

    name: str
    cmd: str


class ProcessChannel:
    """A bot process behind the :class:`~arena.match.Channel` interface."""

    def __init__(self, pool: BotPool, bot: Bot) -> None:
        self.pool = pool
        self.bot = bot
        self.isolation = bot.isolation

    def send(self, line: str) -> bool:
        return self.pool.send(self.bot, line).ok

    def receive(self, timeout_s: float) -> Reply:
        result = self.pool.wait_line(self.bot, time.monotonic() + timeout_s)
        return Reply(result.kind, result.text, result.elapsed_s)

    def close_input(self) -> None:
        self.pool.close_stdin(self.bot)

    def close(self, grace_s: float = 1.0) -> ChannelExit:
        info = self.pool.close(self.bot, grace_s=grace_s)
        if info.signal is not None:
            status = f"killed by signal {info.signal}" + (" after the grace period" if info.killed else "")
        else:
            status = f"exited {info.returncode}"
        if info.oom_killed:
            status += " (out of memory)"
        peak = info.peak_memory_bytes // 1024 if info.peak_memory_bytes else None
        return ChannelExit(status=status, peak_memory_kb=peak, cpu_s=info.cpu_s)


def safe_name(name: str) -> str:
    """A file-name-safe version of a bot name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40] or "bot"


def run_match(
    bots: Sequence[BotSpec],
    config: MatchConfig,
    *,
    replay_path: str | Path | None = None,
    base_dir: str | Path | None = None,
    limits: Limits | None = None,
    isolation: str | None = None,
    log_dir: str | Path | None = None,
) -> MatchReport:
    """Start every bot in its sandbox, play the match, and make sure no process outlives it.

    ``base_dir`` is where relative paths in bot commands resolve (default: the current directory);
    ``log_dir`` receives each bot's capped stderr log.
    """
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    logs = Path(log_dir) if log_dir is not None else None
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
    with BotPool(limits or Limits(), isolation=isolation, log_dir=logs) as pool:
        channels = []
        for player, spec in enumerate(bots):
            label = f"p{player}-{safe_name(spec.name)}"
            log_path = logs / f"{config.match_id or 'match'}-{label}.stderr.log" if logs is not None else None
            bot = pool.start(label, spec.cmd, base, log_path=log_path)
            channels.append(ProcessChannel(pool, bot))
        return play_match(channels, [b.name for b in bots], config, ReplayWriter(replay_path),
                          cmds=[b.cmd for b in bots])
