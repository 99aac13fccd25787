"""The published static site and the replay viewer, checked in a real headless Chromium.

A small tournament is played in-process (a few seconds), published, and its pages are opened from
disk (file://). Chromium is driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages separated by NUL bytes), with the standard library only. The browser tests are skipped
when no Chromium is installed (``apt-get install chromium``; or set ARENA_CHROMIUM to a binary).
Screenshots go to ``test-artifacts/`` under the repository, or to the folder in ARENA_ARTIFACTS.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.match import MatchConfig, play_match
from arena.publish import publish
from arena.replay import ReplayWriter
from arena.scripted import BotChannel, ScriptChannel
from arena.site import write_replay_html
from arena.tournament.config import BotEntry, TournamentConfig
from arena.tournament.schedule import build_schedule
from arena.tournament.store import Store
from greedy import GreedyBot
from low_first import LowFirst
from random_bot import RandomBot
from sdk.protocol import Clock

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("ARENA_ARTIFACTS") or ROOT / "test-artifacts")
CHROMIUM = os.environ.get("ARENA_CHROMIUM") or next(
    (path for name in ("chromium", "chromium-browser", "google-chrome") if (path := shutil.which(name))), None)
FAULTY = "faulty & <co>"  # a name that needs escaping in HTML and a slug as a file name


# ------------------------------------------------------------------------------------ browser


class Chromium:
    """Headless Chromium on the DevTools protocol over a pipe: navigate, evaluate, click, type, screenshot.

    Console errors, uncaught exceptions and failed loads of the current page collect in ``errors``.
    """

    def __init__(self, binary: str, width: int = 1280, height: int = 900) -> None:
        self.profile = tempfile.mkdtemp(prefix="arena-chromium-")
        self.errors: list[str] = []
        self._buffer = b""
        self._id = 0
        self._loaded = False
        self.session: str | None = None
        # Chromium reads commands from fd 3 and writes replies to fd 4. Keep our ends above 9 so the
        # child's dup2 onto 3 and 4 cannot clobber them.
        commands_r, commands_w = os.pipe()
        replies_r, replies_w = os.pipe()
        child_r = fcntl.fcntl(commands_r, fcntl.F_DUPFD_CLOEXEC, 10)
        child_w = fcntl.fcntl(replies_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(commands_r)
        os.close(replies_w)
        self._out, self._in = commands_w, replies_r

        def child_fds() -> None:
            os.dup2(child_r, 3)
            os.dup2(child_w, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-extensions", "--mute-audio", "--hide-scrollbars", "--remote-debugging-pipe",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, close_fds=False)  # our fds are non-inheritable; only 3 and 4 are passed
        os.close(child_r)
        os.close(child_w)
        try:
            target = self.send("Target.createTarget", {"url": "about:blank"}, browser=True)["targetId"]
            self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                     browser=True)["sessionId"]
            for method in ("Page.enable", "Runtime.enable", "Log.enable"):
                self.send(method)
            self.send("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        except BaseException:
            self.close()
            raise

    # -- the protocol

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            if select.select([self._in], [], [], left)[0]:
                chunk = os.read(self._in, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed its DevTools pipe")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def _event(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Page.loadEventFired":
            self._loaded = True
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.errors.append(details.get("exception", {}).get("description") or details.get("text", "exception"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            self.errors.append(f"{params['entry']['text']} {params['entry'].get('url', '')}".strip())

    def send(self, method: str, params: dict[str, Any] | None = None, browser: bool = False,
             timeout: float = 20.0) -> dict[str, Any]:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if not browser and self.session:
            message["sessionId"] = self.session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._out, data):]
        deadline = time.monotonic() + timeout
        while True:
            reply = self._receive(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._event(reply)

    # -- what tests use

    def open(self, url: str, timeout: float = 20.0) -> None:
        """Load ``url`` and wait for its load event; ``errors`` then holds this page's errors only."""
        self.errors.clear()
        self._loaded = False
        result = self.send("Page.navigate", {"url": url})
        assert not result.get("errorText"), f"{url}: {result['errorText']}"
        deadline = time.monotonic() + timeout
        while result.get("loaderId") and not self._loaded:  # no loaderId: a same-document (hash) navigation
            self._event(self._receive(deadline))

    def eval(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise AssertionError(f"{expression}: {result['exceptionDetails'].get('exception', {}).get('description')}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 10.0) -> Any:
        deadline = time.monotonic() + timeout
        while not (value := self.eval(expression)):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {expression}; page errors: {self.errors}")
            time.sleep(0.05)
        return value

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element."""
        x, y = self.eval(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
                         "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
                         "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    KEYS = {"ArrowRight": 39, "ArrowLeft": 37, "Home": 36, "End": 35, "PageUp": 33, "PageDown": 34}

    def press(self, key: str) -> None:
        for kind in ("rawKeyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": key,
                                                 "windowsVirtualKeyCode": self.KEYS[key]})

    def screenshot(self, path: Path) -> None:
        """The whole page as PNG."""
        size = self.send("Page.getLayoutMetrics")["cssContentSize"]
        shot = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": {
            "x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 4000), "scale": 1}})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        try:
            if self.proc.poll() is None:
                self.send("Browser.close", browser=True, timeout=5)
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._out)
        os.close(self._in)
        shutil.rmtree(self.profile, ignore_errors=True)


# ------------------------------------------------------------------------------------ the site


def faulty_channel() -> ScriptChannel:
    """A weak bot that answers garbage every fourth turn (a 'malformed' fault), else the fallback move."""
    turns = [0]

    def respond(msg: dict) -> list[str] | None:
        if msg["type"] == "hello":
            return ['{"type":"ready","name":"faulty"}']
        if msg["type"] != "turn":
            return None
        turns[0] += 1
        if turns[0] % 4 == 0:
            return ["this is not json"]
        cards = [msg["hand"][0]] if msg["lead"] else []
        return [json.dumps({"type": "move", "id": msg["id"], "cards": cards})]

    return ScriptChannel(respond)


BOTS = {"greedy": lambda: BotChannel(GreedyBot()), "random": lambda: BotChannel(RandomBot()),
        "low-first": lambda: BotChannel(LowFirst()), FAULTY: faulty_channel}


@dataclass
class Site:
    out: Path
    db: Path
    config: TournamentConfig
    matches: list[dict[str, Any]]
    ratings: list[dict[str, Any]]

    def url(self, page: str) -> str:
        page, _, fragment = page.partition("#")
        return (self.out / page).resolve().as_uri() + (f"#{fragment}" if fragment else "")

    def events(self, match: dict[str, Any]) -> list[dict[str, Any]]:
        return [json.loads(line) for line in (self.out / match["replay"]).read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """8 matches of 3 sessions between 4 bots (one of them faulty), played in-process and published."""
    tmp = tmp_path_factory.mktemp("site")
    config = TournamentConfig(name="Site test", bots=tuple(BotEntry(n, "python bots/greedy.py") for n in BOTS),
                              seats=(4,), matches=2, sessions=3, seed=11)
    store = Store.open(tmp / "results.db")
    store.init_tournament(config, build_schedule(config))
    for m in build_schedule(config):
        replay = tmp / "replays" / f"{m.match_id}.jsonl"
        report = play_match([BOTS[name]() for name in m.bots], list(m.bots),
                            MatchConfig(sessions=3, seed=m.seed, jobs=m.jobs, match_id=m.match_id, grace_s=0,
                                        clock=Clock(hello_ms=500, move_ms=100, bank_ms=200)), ReplayWriter(replay))
        store.record(m.index, report, replay)
    store.close()
    out = tmp / "out"
    publish(tmp / "results.db", out)
    return Site(out, tmp / "results.db", config, json.loads((out / "matches.json").read_text())["matches"],
                json.loads((out / "ratings.json").read_text()))


@pytest.fixture(scope="module")
def browser() -> Any:
    if CHROMIUM is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set ARENA_CHROMIUM): "
                    "the site is tested in a real headless browser")
    chromium = Chromium(CHROMIUM)
    yield chromium
    chromium.close()


def hands_after(events: list[dict[str, Any]], session: int, rnd: int) -> list[list[Any]]:
    """Every hand in ``session`` after the plays of round ``rnd`` (0: as dealt and exchanged)."""
    hands: list[list[Any]] = []
    for ev in events:
        if ev["event"] == "session_start" and ev["session"] == session:
            hands = [list(h) for h in ev["hands"]]
        elif ev["event"] == "play" and ev["session"] == session and ev["round"] <= rnd:
            for card in ev["cards"]:
                hands[ev["player"]].remove(card)
    return hands


READY = "document.getElementById('viewer').dataset.state === 'ready'"
SHOWN_HANDS = """[...document.querySelectorAll('#board .seat')].sort((a, b) => a.dataset.player - b.dataset.player)
  .map(s => [...s.querySelectorAll('.hand .card')].map(c => c.dataset.card === 'F' ? 'F' : Number(c.dataset.card)))"""


def shown_step(browser: Chromium) -> tuple[int, str]:
    return int(browser.eval("document.getElementById('viewer').dataset.step")), browser.eval(
        "document.getElementById('step-label').textContent")


# ------------------------------------------------------------------------------------ tests


def test_publish_writes_the_site(site: Site) -> None:
    out = site.out
    for name in ("index.html", "viewer.html", "assets/site.css", "assets/site.js", "assets/viewer.js",
                 "data/matches.js"):
        assert (out / name).is_file(), name
    assert len(list((out / "bots").glob("*.html"))) == 4
    assert len(list((out / "data" / "replays").glob("*.js"))) == len(site.matches) == 8
    viewer = (out / "viewer.html").read_text()
    assert '"event"' not in viewer and len(viewer) < 5000  # replays are loaded on demand, not inlined
    for asset in (out / "assets").iterdir():
        assert "fetch(" not in asset.read_text()  # file:// pages cannot fetch local files
    assert "faulty &amp; &lt;co&gt;" in (out / "index.html").read_text()


def test_publish_again_converts_changed_replays_only(site: Site, tmp_path: Path) -> None:
    with Store.open(site.db) as store:
        source = Path(store.results()[-1].replay)
    original = source.read_text()
    out = tmp_path / "out"
    publish(site.db, out)
    data = {p.name: p.stat().st_mtime_ns for p in (out / "data" / "replays").iterdir()}
    changed = out / "data" / "replays" / f"{source.name}.js"
    try:
        source.write_text("".join(original.splitlines(keepends=True)[:20]))  # the match was played again
        publish(site.db, out)
    finally:
        source.write_text(original)
    assert changed.read_text().count('"event"') == 20
    assert {p.name: p.stat().st_mtime_ns for p in changed.parent.iterdir() if p != changed} == {
        name: mtime for name, mtime in data.items() if name != changed.name}


def test_index_table_sorts_and_plots(browser: Chromium, site: Site) -> None:
    browser.open(site.url("index.html"))
    bots = "[...document.querySelectorAll('#ratings tbody tr')].map(r => r.cells[1].textContent)"
    assert browser.eval(bots) == [row["bot"] for row in site.ratings]  # ranked, one row per bot
    assert browser.eval("document.querySelectorAll('svg.plot polyline').length") == len(site.ratings)

    browser.click('#ratings th[data-key="bot"]')
    names = sorted((row["bot"] for row in site.ratings), key=str.lower)
    assert browser.eval(bots) == names
    assert browser.eval("document.querySelector('#ratings th[data-key=bot]').getAttribute('aria-sort')") == "ascending"
    browser.click('#ratings th[data-key="bot"]')
    assert browser.eval(bots) == names[::-1]
    browser.click('#ratings th[data-key="mu"]')
    assert browser.eval(bots) == [row["bot"] for row in sorted(site.ratings, key=lambda r: r["mu"])]
    browser.click('#ratings th[data-key="rank"]')
    assert browser.eval(bots) == [row["bot"] for row in site.ratings]
    browser.screenshot(ARTIFACTS / "index.png")
    assert browser.errors == []


def test_bot_page_lists_its_matches(browser: Chromium, site: Site) -> None:
    browser.open(site.url("index.html"))
    href = browser.eval("[...document.querySelectorAll('#ratings tbody a')]"
                        f".find(a => a.textContent === {json.dumps(FAULTY)}).href")
    browser.open(href)
    played = [m for m in site.matches if FAULTY in m["bots"]]
    assert browser.eval("document.querySelectorAll('#bot-matches tbody tr').length") == len(played)
    assert browser.eval("document.querySelector('h1').textContent") == FAULTY
    assert browser.eval("document.querySelectorAll('svg.plot polyline.focus').length") == 1
    faults = sum(m["faults"][m["bots"].index(FAULTY)] for m in played)
    shown = browser.eval("[...document.querySelectorAll('#bot-matches tbody tr')]"
                         ".map(r => parseInt(r.cells[6].textContent))")
    assert sum(shown) == faults > 0
    browser.screenshot(ARTIFACTS / "bot.png")
    assert browser.errors == []


def test_viewer_steps_through_rounds_and_shows_the_hands(browser: Chromium, site: Site) -> None:
    match = site.matches[0]
    events = site.events(match)
    browser.open(site.url(f"viewer.html#match={match['index']}"))
    browser.wait_for(READY)
    first = next(ev for ev in events if ev["event"] == "session_start")
    assert shown_step(browser)[0] == 0
    assert browser.eval(SHOWN_HANDS) == first["hands"]  # as the replay says after the exchange

    browser.press("ArrowRight")
    step, label = shown_step(browser)
    assert step == 1 and "round 1" in label
    assert browser.eval(SHOWN_HANDS) == hands_after(events, 1, 1)
    plays = [ev for ev in events if ev["event"] == "play" and ev["session"] == 1 and ev["round"] == 1]
    assert browser.eval("document.querySelectorAll('#panel li.play').length") == len(plays)

    browser.click("#next")
    assert shown_step(browser)[0] == 2
    assert browser.eval(SHOWN_HANDS) == hands_after(events, 1, 2)
    browser.press("ArrowLeft")
    assert shown_step(browser)[0] == 1
    assert browser.eval(SHOWN_HANDS) == hands_after(events, 1, 1)

    browser.press("PageDown")  # next session: its deal, as the replay says
    second = next(ev for ev in events if ev["event"] == "session_start" and ev["session"] == 2)
    assert "Session 2" in shown_step(browser)[1] and browser.eval(SHOWN_HANDS) == second["hands"]
    browser.press("ArrowLeft")
    assert browser.eval("document.getElementById('viewer').dataset.kind") == "session_end"
    browser.press("Home")
    assert shown_step(browser)[0] == 0
    browser.press("ArrowRight")
    browser.press("ArrowRight")
    browser.screenshot(ARTIFACTS / "viewer.png")
    browser.press("End")
    assert browser.eval("document.getElementById('viewer').dataset.kind") == "end"
    assert browser.errors == []


def test_viewer_shows_faults_and_loads_replays_on_demand(browser: Chromium, site: Site) -> None:
    match = next(m for m in site.matches if sum(m["faults"]) > 0)
    events = site.events(match)
    fault = next(ev for ev in events if ev["event"] == "play" and ev["fault"])
    browser.open(site.url("viewer.html"))
    browser.wait_for(READY)
    browser.eval(f"(() => {{ const s = document.getElementById('match-select'); s.value = '{match['index']}'; "
                 "s.dispatchEvent(new Event('change')); })()")
    browser.wait_for(f"arenaViewer.match === {match['index']} && {READY}")
    step = browser.eval("arenaViewer.steps.findIndex(s => s.kind === 'round' && "
                        f"s.session === {fault['session']} && s.round === {fault['round']})")
    browser.eval(f"arenaViewer.show({step})")
    kinds = browser.eval("[...document.querySelectorAll('#panel li.fault .fault-kind')].map(e => e.textContent)")
    assert kinds[0] == fault["fault"]
    player = fault["player"]
    assert browser.eval(f"!!document.querySelector('#board .seat[data-player=\"{player}\"] .badge.faults')")
    assert browser.eval(SHOWN_HANDS) == hands_after(events, fault["session"], fault["round"])
    browser.screenshot(ARTIFACTS / "viewer-fault.png")
    shown = {site.matches[0]["replay"], match["replay"]}  # the first match (opened by default) and the picked one
    assert sorted(browser.eval("arenaViewer.loaded")) == sorted(f"data/{r}.js" for r in shown)
    assert browser.errors == []


def test_standalone_replay_page(browser: Chromium, site: Site, tmp_path: Path) -> None:
    match = site.matches[3]
    events = site.events(match)
    page = write_replay_html(site.out / match["replay"], tmp_path / "one.html")
    browser.open(page.resolve().as_uri())
    browser.wait_for(READY)
    assert "src=" not in page.read_text() and "<link" not in page.read_text()  # everything inlined
    browser.press("ArrowRight")
    browser.press("ArrowRight")
    browser.press("ArrowRight")
    assert browser.eval(SHOWN_HANDS) == hands_after(events, 1, 3)
    browser.press("ArrowLeft")
    assert browser.eval(SHOWN_HANDS) == hands_after(events, 1, 2)
    assert browser.errors == []


def test_viewer_shows_what_a_cut_replay_holds(browser: Chromium, site: Site, tmp_path: Path) -> None:
    """A killed match leaves a prefix, perhaps with half a line: the viewer shows what is there."""
    lines = (site.out / site.matches[1]["replay"]).read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:30]) + "\n" + lines[30][:25])
    browser.open(write_replay_html(cut, tmp_path / "cut.html").resolve().as_uri())
    browser.wait_for(READY)
    assert "incomplete replay" in browser.eval("document.getElementById('match-summary').textContent")
    browser.press("End")
    assert browser.eval("document.getElementById('viewer').dataset.kind") == "round"
    assert browser.errors == []
