"""Allocates (and touches) 32 MiB at a time up to argv[1] MiB, reporting each step."""
import json
import sys

target = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 4096
held = []
try:
    while len(held) * 32 < target:
        held.append(b"\x01" * (32 << 20))
        print(json.dumps({"allocated_mb": len(held) * 32}), flush=True)
except MemoryError:
    held.clear()
    print(json.dumps({"memory_error_mb": 0}), flush=True)
    sys.exit(1)
print(json.dumps({"survived": True}), flush=True)
sys.stdin.readline()
