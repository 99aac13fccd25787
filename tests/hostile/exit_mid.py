"""Answers the first line, then exits with status 3 on the second one without answering."""
import json
import sys

first = sys.stdin.readline()
print(json.dumps({"echo": first.rstrip("\n")}), flush=True)
sys.stdin.readline()
sys.exit(3)
