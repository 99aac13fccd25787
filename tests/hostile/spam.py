"""Prints N unsolicited lines at start (argv[1]), then echoes."""
import json
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 100
for i in range(n):
    print(json.dumps({"spam": i}))
sys.stdout.flush()
for line in sys.stdin:
    print(json.dumps({"echo": line.rstrip("\n")}), flush=True)
