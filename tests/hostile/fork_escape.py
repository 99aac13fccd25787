"""Starts daemons that call setsid, ignore SIGTERM/SIGHUP and are orphaned; then waits."""
import json
import os
import signal
import sys
import time

N = 3
for _ in range(N):
    if os.fork() == 0:
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        if os.fork() == 0:  # the grandchild is orphaned: reparented away from the bot
            os.close(1)
            while True:
                time.sleep(60)
        os._exit(0)
    os.wait()
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print(json.dumps({"forked": N}), flush=True)
sys.stdin.readline()
while True:  # even after stdin EOF, refuse to leave
    time.sleep(60)
