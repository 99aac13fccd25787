"""Writes a file in its working directory 1 MiB at a time until something stops it."""
import json
import os

written, error = 0, None
try:
    with open("big.bin", "wb", buffering=0) as f:
        chunk = b"z" * (1 << 20)
        for _ in range(1024):
            written += f.write(chunk)
except OSError as exc:
    error = exc.strerror
print(json.dumps({"written": written, "size": os.path.getsize("big.bin"), "error": error}), flush=True)
