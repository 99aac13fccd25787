"""A protocol-speaking bot that plays fairly until its Kth turn, then misbehaves as told.

Usage: python protocol_bot.py MODE [K] [TOKEN]. The TOKEN (ignored) lets tests find leftovers.
Modes: hang, exit, garbage, long_line, stderr_flood, memory, fork, close_stdout, stale, illegal,
huge_file, fine.
"""

import os
import signal
import sys
import time

from sdk.bot import Bot, TurnView, run

MODE = sys.argv[1]
AT = int(sys.argv[2]) if len(sys.argv) > 2 else 3


def out(text: str) -> None:
    os.write(1, (text + "\n").encode())


class Hostile(Bot):
    name = f"hostile-{MODE}"

    def __init__(self) -> None:
        super().__init__()
        self.turns = 0

    def play(self, turn: TurnView):
        self.turns += 1
        fair = turn.legal[-1] if turn.lead else turn.legal[0]
        if self.turns < AT:
            return fair
        if MODE == "hang":
            time.sleep(3600)
        elif MODE == "exit":
            os._exit(3)
        elif MODE == "garbage":
            out("\x00\xff garbage {{{ not json")  # read as the reply; the real move below comes late
        elif MODE == "long_line" and self.turns == AT:
            chunk = b"x" * (1 << 20)
            for _ in range(100):
                os.write(1, chunk)
            os.write(1, b"\n")
        elif MODE == "stderr_flood" and self.turns == AT:
            chunk = "e" * (1 << 20)
            for _ in range(50):
                sys.stderr.write(chunk)
            sys.stderr.flush()
        elif MODE == "memory":
            hog = []
            while True:
                hog.append(bytearray(64 << 20))
        elif MODE == "fork" and self.turns == AT:
            for _ in range(3):
                if os.fork() == 0:
                    os.setsid()
                    signal.signal(signal.SIGTERM, signal.SIG_IGN)
                    signal.signal(signal.SIGHUP, signal.SIG_IGN)
                    while True:
                        time.sleep(1)
        elif MODE == "close_stdout":
            os.close(1)
            time.sleep(30)
        elif MODE == "stale":
            out('{"type":"move","id":%d,"cards":[]}' % (turn.message.id - 1))
            time.sleep(30)  # only a stale reply: the turn times out
        elif MODE == "illegal":
            return [13, 13, 13, 13, 13]
        elif MODE == "huge_file" and self.turns == AT:
            try:
                with open("huge.bin", "wb") as file:
                    chunk = b"h" * (1 << 20)
                    for _ in range(1024):
                        file.write(chunk)
            except OSError as error:
                print(f"huge file stopped: {error}", file=sys.stderr, flush=True)
        return fair


if __name__ == "__main__":
    run(Hostile())
