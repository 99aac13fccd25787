"""Tries to start argv[1] sleeping children (a bounded fork bomb) and reports how many it got."""
import json
import os
import sys
import time

want = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 100
started, error = 0, None
for _ in range(want):
    try:
        pid = os.fork()
    except OSError as exc:
        error = exc.strerror
        break
    if pid == 0:
        time.sleep(600)
        os._exit(0)
    started += 1
print(json.dumps({"started": started, "error": error}), flush=True)
sys.stdin.readline()
