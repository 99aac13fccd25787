"""Prints garbage (invalid UTF-8, NULs, CRs, half JSON), then a valid line."""
import sys

out = sys.stdout.buffer
out.write(b"\x00\xff\xfe garbage \x80\x81\n")
out.write(b"{not json at all\r\n")
out.write(b"\n")
out.write(bytes(range(1, 10)) + b"\n")
out.write(b'{"ok": true}\n')
out.flush()
sys.stdin.readline()
