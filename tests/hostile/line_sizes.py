"""Prints lines of the byte lengths given as arguments (numbers), then {"done": true}."""
import sys

out = sys.stdout.buffer
for arg in sys.argv[1:]:
    if arg.isdigit():
        out.write(b"y" * int(arg) + b"\n")
out.write(b'{"done": true}\n')
out.flush()
sys.stdin.readline()
