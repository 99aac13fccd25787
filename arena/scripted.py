"""In-process channels for tests and quick runs: a :class:`~sdk.bot.Bot` behind the line interface.

Like python-chess's scripted transports: the match loop cannot tell these from processes, so its
clock, fault and replay logic is testable without starting anything.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable

from sdk.bot import Bot, BotDriver
from sdk.protocol import decode

from .match import ChannelExit, Reply


class BotChannel:
    """A Python bot object answering through JSON lines, in this process."""

    isolation = "in-process"

    def __init__(self, bot: Bot) -> None:
        self.driver = BotDriver(bot)
        self.outbox: deque[str] = deque()

    def send(self, line: str) -> bool:
        reply = self.driver.handle(decode(line))
        if reply is not None:
            self.outbox.append(reply.to_json())
        return True

    def receive(self, timeout_s: float) -> Reply:
        if self.outbox:
            return Reply("line", self.outbox.popleft(), 0.0)
        return Reply("timeout", elapsed_s=timeout_s)

    def close_input(self) -> None:
        pass

    def close(self, grace_s: float = 1.0) -> ChannelExit:
        return ChannelExit("closed")


class ScriptChannel:
    """Answers each message with whatever ``respond(message_dict)`` returns (lines, or None).

    A response of ``"<eof>"`` simulates the bot closing its stdout.
    """

    isolation = "in-process"

    def __init__(self, respond: Callable[[dict], list[str] | None]) -> None:
        self.respond = respond
        self.outbox: deque[str] = deque()
        self.closed = False

    def send(self, line: str) -> bool:
        if self.closed:
            return False
        self.outbox.extend(self.respond(json.loads(line)) or [])
        return True

    def receive(self, timeout_s: float) -> Reply:
        if self.outbox:
            line = self.outbox.popleft()
            if line == "<eof>":
                self.closed = True
                return Reply("eof")
            return Reply("line", line, 0.0)
        return Reply("timeout", elapsed_s=timeout_s)

    def close_input(self) -> None:
        pass

    def close(self, grace_s: float = 1.0) -> ChannelExit:
        self.closed = True
        return ChannelExit("closed")
