"""Reports what the bot can see about its sandbox as one JSON line, then echoes."""
import json
import os
import socket
import sys


def listdir(path):
    try:
        return sorted(os.listdir(path))
    except OSError as exc:
        return f"error: {exc.strerror}"


def can_read(path):
    try:
        with open(path, "rb") as f:
            return f.read(100).decode(errors="replace")
    except OSError as exc:
        return f"error: {exc.strerror}"


def connect(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return "connected"
    except OSError as exc:
        return f"error: {exc.strerror or exc}"


args = sys.argv[1:]
report = {
    "uid": os.getuid(),
    "gid": os.getgid(),
    "groups": os.getgroups(),
    "pid": os.getpid(),
    "cwd": os.getcwd(),
    "env": dict(os.environ),
    "root": listdir("/root"),
    "tmp": listdir("/tmp"),
    "cwd_files": listdir("."),
    "executable": sys.executable,
    "sdk": None,
}
try:
    import sdk

    report["sdk"] = sdk.__file__
except Exception as exc:  # noqa: BLE001
    report["sdk"] = f"error: {exc}"
if len(args) >= 1:
    report["secret"] = can_read(args[0])
if len(args) >= 2:
    report["connect"] = connect(int(args[1]))
if len(args) >= 3:
    report["other"] = listdir(args[2])
print(json.dumps(report), flush=True)
for line in sys.stdin:
    print(json.dumps({"echo": line.rstrip("\n")}), flush=True)
