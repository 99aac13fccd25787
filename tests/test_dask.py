"""Tournaments on a Dask cluster: a real scheduler and workers on 127.0.0.1, as separate processes.

The same tiny tournament as tests/test_tournament_run.py (12 matches of 2 sessions), run from a
folder of its own whose bot files are shipped to the workers: ratings equal to the local pool's, a
worker SIGKILLed mid-run loses and duplicates no match, and the helpers (bundles, settings, exit codes).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install -e '.[dask]')")

from arena.replay import validate  # noqa: E402
from arena.tournament.dask_executor import (  # noqa: E402
    BundleError,
    DaskUnavailable,
    bot_paths,
    build_bundle,
    cpus_per_match_setting,
    unpack_bundle,
)

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-c", "from arena.cli import main; main()"]

TOURNAMENT = """
name: tiny
seats: 4
matches: 3
sessions: 2
rotation: true
seed: 11
bots:
  - {name: random-a, cmd: python bots/random_bot.py}
  - {name: random-b, cmd: python bots/random_bot.py}
  - {name: greedy, cmd: python bots/greedy_here.py}
  - {name: low-first, cmd: python bots/low_first.py}
"""

# greedy.py, saying on stderr where it runs from (its log comes back from the worker)
GREEDY_HERE = """
import runpy, sys
from pathlib import Path
here = Path(__file__).resolve()
print(f"running from {here}", file=sys.stderr, flush=True)
runpy.run_path(str(here.with_name("greedy.py")), run_name="__main__")
"""


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tournament folder of its own: tiny.yaml and a bots/ folder (copies of the example bots)."""
    folder = tmp_path_factory.mktemp("base")
    (folder / "bots").mkdir()
    for name in ("random_bot.py", "greedy.py", "low_first.py"):
        shutil.copy(ROOT / "bots" / name, folder / "bots" / name)
    (folder / "bots" / "greedy_here.py").write_text(GREEDY_HERE)
    (folder / "tiny.yaml").write_text(TOURNAMENT)
    return folder


def arena(base: Path, where: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, "tournament", "run", "tiny.yaml", "-j", "2", "--db", str(where / "t.sqlite"),
                           "--results", str(where / "results"), "--format", "json", "--no-progress", *extra],
                          cwd=base, capture_output=True, text=True, timeout=240, env=env)


@pytest.fixture(scope="module")
def reference(base: Path, tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The ratings of the tiny tournament run with the local pool."""
    result = arena(base, tmp_path_factory.mktemp("local"))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


class Cluster:
    """`dask scheduler` and `dask worker` processes on 127.0.0.1 (each in its own process group)."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.procs: list[subprocess.Popen] = []
        self.workers: list[subprocess.Popen] = []
        self.address = ""

    def _spawn(self, args: list[str], log: str) -> subprocess.Popen:
        with open(self.tmp / log, "w") as out:
            proc = subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=out, stderr=subprocess.STDOUT,
                                    cwd=self.tmp, start_new_session=True)
        self.procs.append(proc)
        return proc

    def start_scheduler(self) -> None:
        file = self.tmp / "scheduler.json"
        self._spawn(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                     "--dashboard-address", "127.0.0.1:0", "--scheduler-file", str(file)], "scheduler.log")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if file.exists():
                try:
                    self.address = json.loads(file.read_text())["address"]
                    return
                except (ValueError, KeyError):
                    pass
            time.sleep(0.05)
        raise AssertionError("the scheduler did not start:\n" + (self.tmp / "scheduler.log").read_text())

    def start_worker(self, resources: str | None = "cpus=1") -> subprocess.Popen:
        n = len(self.workers)
        args = ["worker", self.address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny", "--no-dashboard",
                "--dashboard-address", "127.0.0.1:0", "--local-directory", str(self.tmp / f"w{n}"), "--name", f"w{n}"]
        if resources:
            args += ["--resources", resources]
        proc = self._spawn(args, f"worker{n}.log")
        self.workers.append(proc)
        return proc

    def wait_for_workers(self, n: int) -> None:
        from distributed import Client

        with Client(self.address, timeout="30s") as client:
            client.wait_for_workers(n, timeout=60)

    def close(self) -> None:
        """SIGTERM the workers, then the scheduler (together they can hang a worker's close); SIGKILL laggards."""
        workers = [p for p in self.procs if p in self.workers]
        for group in (workers, [p for p in self.procs if p not in workers]):
            for proc in group:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGTERM)
            deadline = time.monotonic() + 5
            for proc in group:
                try:
                    proc.wait(max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()


@pytest.fixture()
def cluster(tmp_path: Path, request: pytest.FixtureRequest) -> Cluster:
    """A scheduler and two workers (--nthreads 1 --resources cpus=1), torn down after the test."""
    running = Cluster(tmp_path)
    request.addfinalizer(running.close)
    running.start_scheduler()
    running.start_worker()
    running.start_worker()
    running.wait_for_workers(2)
    return running


def statuses(db: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT idx, status FROM matches ORDER BY idx").fetchall()


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def runs_a_bot(pid: int) -> bool:
    for child in descendants(pid):
        try:
            if b"arena-bots" in Path(f"/proc/{child}/cmdline").read_bytes():
                return True
        except OSError:
            pass
    return False


def bots_under(folder: Path) -> list[int]:
    """Processes running a bot from a bundle unpacked under ``folder``."""
    needle = str(folder.resolve()).encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if needle in cmdline and b"arena-bots" in cmdline:
                pids.append(int(entry.name))
    return pids


def check_results(where: Path, worker_dirs: list[Path]) -> None:
    """12 complete replays, and bot logs showing the shipped greedy ran from a worker's bundle folder."""
    replays = sorted((where / "results" / "replays").iterdir())
    assert len(replays) == 12
    for replay in replays:
        assert validate(replay).complete
    logs = list((where / "results" / "logs").glob("*greedy*.stderr.log"))
    assert len(logs) == 12
    for log in logs:
        text = log.read_text()
        assert any(f"running from {d.resolve()}/" in text and "/arena-bots/" in text for d in worker_dirs), text


# --------------------------------------------------------------------------- end to end


def test_cluster_ratings_equal_the_local_pool(base: Path, reference: list[dict], cluster: Cluster,
                                              tmp_path: Path) -> None:
    result = arena(base, tmp_path / "dask", "--executor", "dask", "--scheduler", cluster.address)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == reference
    assert [row["matches"] for row in reference] == [12, 12, 12, 12]
    check_results(tmp_path / "dask", [tmp_path / "w0", tmp_path / "w1"])


def test_killed_worker_loses_and_duplicates_no_match(base: Path, reference: list[dict], cluster: Cluster,
                                                     tmp_path: Path) -> None:
    where = tmp_path / "killed"
    db = where / "t.sqlite"
    proc = subprocess.Popen([*CLI, "tournament", "run", "tiny.yaml", "-j", "2", "--db", str(db), "--results",
                             str(where / "results"), "--format", "json", "--no-progress", "--executor", "dask",
                             "--scheduler", cluster.address], cwd=base, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        victim = None
        deadline = time.monotonic() + 120
        while victim is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                done = sum(1 for _, status in statuses(db) if status == "done") if db.exists() else 0
            except sqlite3.OperationalError:
                done = 0
            if done >= 3:
                victim = next((w for w in cluster.workers if runs_a_bot(w.pid)), None)
            time.sleep(0.02)
        assert victim is not None, "no worker was caught playing a match"
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait()
        killed_dir = tmp_path / f"w{cluster.workers.index(victim)}"
        orphans = time.monotonic() + 10  # its bots die with it
        while bots_under(killed_dir) and time.monotonic() < orphans:
            time.sleep(0.1)
        assert bots_under(killed_dir) == []
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode in (0, 1), err
    if proc.returncode != 0:  # the lost match was given up on: the resume plays it
        assert proc.returncode == 1, err
        again = arena(base, where, "--executor", "dask", "--scheduler", cluster.address)
        assert again.returncode == 0, again.stderr
        out = again.stdout
    final = statuses(db)
    assert [idx for idx, _ in final] == list(range(12))  # each match exactly once
    assert all(status == "done" for _, status in final)
    assert json.loads(out) == reference
    check_results(where, [tmp_path / "w0", tmp_path / "w1"])


@pytest.mark.slow
def test_local_cluster_ratings_equal_the_local_pool(base: Path, reference: list[dict], tmp_path: Path) -> None:
    """--executor dask without --scheduler: a LocalCluster of -j worker processes."""
    result = arena(base, tmp_path / "lc", "--executor", "dask")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == reference
    replays = list((tmp_path / "lc" / "results" / "replays").iterdir())
    assert len(replays) == 12 and all(validate(r).complete for r in replays)


def test_workers_without_the_cpus_resource_fail_fast(base: Path, tmp_path: Path,
                                                     request: pytest.FixtureRequest) -> None:
    running = Cluster(tmp_path)
    request.addfinalizer(running.close)
    running.start_scheduler()
    running.start_worker(resources=None)
    running.wait_for_workers(1)
    result = arena(base, tmp_path / "run", "--executor", "dask", "--scheduler", running.address)
    assert result.returncode == 1
    assert "--resources cpus=1" in result.stderr
    assert all(status == "aborted" for _, status in statuses(tmp_path / "run" / "t.sqlite"))


def test_without_distributed_the_dask_executor_exits_2(base: Path, tmp_path: Path) -> None:
    code = "import sys; sys.modules['distributed'] = None; from arena.cli import main; main()"
    result = subprocess.run([sys.executable, "-c", code, "tournament", "run", "tiny.yaml", "--db",
                             str(tmp_path / "t.sqlite"), "--executor", "dask"],
                            cwd=base, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "pip install -e '.[dask]'" in result.stderr


# --------------------------------------------------------------------------- helpers


def test_bundle_ships_each_bots_folder_and_unpacks_atomically(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "bots" / "deep" / "__pycache__").mkdir(parents=True)
    (src / "bots" / "a.py").write_text("print('a')")
    (src / "bots" / "model.bin").write_bytes(b"\0\1")
    (src / "bots" / "deep" / "run.sh").write_text("#!/bin/sh\n")
    (src / "bots" / "deep" / "run.sh").chmod(0o755)
    (src / "bots" / "deep" / "__pycache__" / "x.pyc").write_bytes(b"")
    (src / "bots" / ".secret").write_text("no")
    (src / "top.py").write_text("")
    (src / "results").mkdir()
    (src / "results" / "big.sqlite").write_bytes(b"x" * 1000)
    bundle = build_bundle([("python bots/a.py --depth 3", str(src)), ("./bots/deep/run.sh", str(src)),
                           ("python top.py", str(src)), ("python /abs/elsewhere.py", str(src))])
    assert bundle.files == ("bots/a.py", "bots/deep/run.sh", "bots/model.bin", "top.py")
    assert build_bundle([("python top.py", str(src))]).files == ("top.py",)
    again = build_bundle([("./bots/deep/run.sh", str(src)), ("python bots/a.py --depth 3", str(src)),
                          ("python top.py", str(src))])
    assert again.id == bundle.id and again.data == bundle.data  # content-addressed, reproducible
    folder = unpack_bundle(bundle.id, bundle.data, tmp_path / "worker")
    assert folder == tmp_path / "worker" / bundle.id
    assert (folder / "bots" / "model.bin").read_bytes() == b"\0\1"
    assert os.access(folder / "bots" / "deep" / "run.sh", os.X_OK)
    assert unpack_bundle(bundle.id, b"not even a tarball", tmp_path / "worker") == folder  # already there
    assert [p.name for p in (tmp_path / "worker").iterdir()] == [bundle.id]  # no staging left behind


def test_bundle_refuses_paths_outside_the_base_and_bad_entries(tmp_path: Path) -> None:
    (tmp_path / "outside.py").write_text("")
    (tmp_path / "base").mkdir()
    with pytest.raises(BundleError, match="outside the base directory"):
        bot_paths("python ../outside.py", tmp_path / "base")
    evil = io.BytesIO()
    with tarfile.open(fileobj=evil, mode="w:gz") as tar:
        info = tarfile.TarInfo("../escape.py")
        info.size = 0
        tar.addfile(info, io.BytesIO(b""))
    with pytest.raises(BundleError, match="refusing"):
        unpack_bundle("evil", evil.getvalue(), tmp_path / "worker")
    assert not (tmp_path / "escape.py").exists() and not (tmp_path / "worker" / "evil").exists()


def test_cpus_per_match_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_DASK_CPUS_PER_MATCH", raising=False)
    assert cpus_per_match_setting() == 1
    monkeypatch.setenv("ARENA_DASK_CPUS_PER_MATCH", "seats")
    assert cpus_per_match_setting() == "seats"
    monkeypatch.setenv("ARENA_DASK_CPUS_PER_MATCH", "2")
    assert cpus_per_match_setting() == 2
    assert cpus_per_match_setting("0.5") == 0.5
    for bad in ("0", "-1", "many", "inf"):
        with pytest.raises(DaskUnavailable) as error:
            cpus_per_match_setting(bad)
        assert error.value.exit_code == 2
