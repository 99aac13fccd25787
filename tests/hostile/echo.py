"""Echo bot: answers each stdin line with {"echo": line} and, with --hello, greets first."""
import json
import sys

if "--hello" in sys.argv:
    print(json.dumps({"hello": True}), flush=True)
for line in sys.stdin:
    print(json.dumps({"echo": line.rstrip("\n")}), flush=True)
