"""Writes N MiB (argv[1], default 8) to stderr, then says {"done": true} on stdout and echoes."""
import json
import sys

mib = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 8
chunk = b"E" * 65535 + b"\n"
for _ in range(mib * 16):
    sys.stderr.buffer.write(chunk)
    sys.stderr.buffer.flush()
print(json.dumps({"done": True}), flush=True)
for line in sys.stdin:
    print(json.dumps({"echo": line.rstrip("\n")}), flush=True)
