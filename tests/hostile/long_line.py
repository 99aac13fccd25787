"""Writes one line of N MiB (argv[1], default 100) without a newline, then a newline and a valid line."""
import sys

mib = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 100
out = sys.stdout.buffer
chunk = b"x" * (1 << 20)
for _ in range(mib):
    out.write(chunk)
out.write(b'\n{"after": true}\n')
out.flush()
sys.stdin.readline()
