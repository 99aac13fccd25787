/* Replay viewer (spec/replay.md events): step through a match session by session, round by round.
 *
 * Site mode: data/matches.js sets window.ARENA_MATCHES; each match's replay is a data file
 * (data/replays/<name>.js) loaded on demand with a <script> tag, which calls arenaReplay(key, events).
 * Standalone mode (arena replay --html): window.ARENA_STANDALONE = {title, events} is inlined.
 * The URL hash holds the position: #match=<index>&step=<n> (standalone: #step=<n>).
 * Keys: ←/→ step, PageUp/PageDown (or Shift+←/→) session, Home/End first/last step.
 */
(function () {
  "use strict";

  const root = document.getElementById("viewer");
  if (!root) return;

  // ------------------------------------------------------------------ small helpers

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function jobName(rank, n) {
    if (rank === undefined || rank === null) return "";
    return rank === 1 ? "CEO" : rank === n ? "Trainee" : "Rank " + rank;
  }

  function cardValue(card) { return card === "F" ? 15 : Number(card); }

  function cardEl(card, extraClass) {
    const free = card === "F";
    const value = cardValue(card);
    const hue = free ? 45 : Math.round(215 - (Math.min(value, 13) - 1) * 215 / 12);
    const text = free ? "★" : String(card);
    return el("span", {
      class: "card" + (free ? " free" : "") + (extraClass ? " " + extraClass : ""),
      "data-card": String(card), style: "--hue:" + hue, title: free ? "freelancer" : "number " + card,
    }, text);
  }

  function cardsEl(cards, extraClass) {
    if (!cards || !cards.length) return el("span", { class: "pass" }, "pass");
    return el("span", { class: "cards" }, cards.map((c) => cardEl(c, extraClass)));
  }

  /** A hand as groups of equal cards; ``marked`` counts cards (by value) to highlight. */
  function handEl(cards, marked) {
    const left = Object.assign({}, marked || {});
    const hand = el("div", { class: "hand" });
    let group = null;
    let last = null;
    for (const card of cards) {
      if (group === null || card !== last) {
        group = el("span", { class: "group" });
        hand.append(group);
        last = card;
      }
      let mark = "";
      if (left[card] > 0) { left[card] -= 1; mark = "got"; }
      group.append(cardEl(card, mark));
    }
    if (!cards.length) hand.append(el("span", { class: "empty-hand" }, "no cards"));
    return hand;
  }

  function removeCards(hand, cards) {
    for (const card of cards || []) {
      const i = hand.indexOf(card);
      if (i >= 0) hand.splice(i, 1);
    }
  }

  // ------------------------------------------------------------------ events -> steps

  /** Every step of the match: a session's deal, each of its rounds, its end; then the match end.
   * A step holds the state after it: hands, jobs, who is out, faults and disqualifications so far. */
  function buildSteps(events) {
    let start = null;
    let end = null;
    let names = [];
    const steps = [];
    let hands = null;
    let jobs = null;
    let order = null;
    let session = 0;
    let round = 0;
    let out = {};
    let faults = [];
    const dq = {};
    let items = [];

    function snapshot(fields) {
      steps.push(Object.assign({
        session: session, round: round, jobs: jobs, order: order,
        hands: hands ? hands.map((h) => h.slice()) : null,
        out: Object.assign({}, out), faults: faults.slice(), dq: Object.assign({}, dq), items: [],
      }, fields));
    }
    function flushRound(fields) {
      if (!items.length) return;
      snapshot(Object.assign({ kind: "round", items: items }, fields || {}));
      items = [];
    }

    for (const ev of events) {
      switch (ev.event) {
        case "match_start":
          start = ev;
          names = (ev.players || []).map((p, i) => (p && p.name) || "player " + i);
          faults = names.map(() => 0);
          break;
        case "session_start": {
          const early = session === 0 ? items : [];  // e.g. no_hello disqualifications
          if (session !== 0) flushRound();
          items = [];
          session = ev.session;
          round = 0;
          hands = (ev.hands || []).map((h) => h.slice());
          jobs = ev.jobs || null;
          order = ev.order || null;
          out = {};
          snapshot({ kind: "deal", dealt: ev.dealt, exchanges: ev.exchanges || [], items: early });
          break;
        }
        case "play":
          if (ev.round !== round) { flushRound(); round = ev.round; }
          items.push({ type: "play", player: ev.player, cards: ev.cards || [], fault: ev.fault, ms: ev.ms });
          if (hands && hands[ev.player]) removeCards(hands[ev.player], ev.cards);
          if (ev.fault && ev.fault !== "disqualified" && ev.player < faults.length) faults[ev.player] += 1;
          break;
        case "out":
          out[ev.player] = ev.job;
          items.push({ type: "out", player: ev.player, job: ev.job });
          break;
        case "round_end":
          flushRound({ winner: ev.winner, next: ev.next });
          break;
        case "session_end":
          flushRound({ last: true });
          snapshot({ kind: "session_end", newJobs: ev.jobs });
          break;
        case "disqualified":
          dq[ev.player] = ev.reason;
          if (ev.reason === "no_hello" && ev.player < faults.length) faults[ev.player] += 1;
          items.push({ type: "dq", player: ev.player, reason: ev.reason });
          break;
        case "match_end":
          flushRound();
          end = ev;
          snapshot({ kind: "end" });
          break;
        default:
          break;  // fields and events beyond replay.md are allowed and ignored
      }
    }
    flushRound();
    if (!steps.length) snapshot({ kind: "empty", items: items });
    return { start: start, end: end, names: names, n: names.length, steps: steps,
             sessions: steps.reduce((m, s) => Math.max(m, s.session), 0) };
  }

  // ------------------------------------------------------------------ loading replays on demand

  const loaded = {};
  const waiting = {};
  window.arenaReplay = function (key, events) {
    loaded[key] = events;
    if (waiting[key]) { waiting[key].resolve(events); delete waiting[key]; }
  };

  function loadReplay(key) {
    if (loaded[key]) return Promise.resolve(loaded[key]);
    return new Promise((resolve, reject) => {
      waiting[key] = { resolve: resolve, reject: reject };
      const script = el("script", { src: key });
      script.onload = () => {
        script.remove();
        if (waiting[key]) { delete waiting[key]; reject(new Error(key + " did not hold replay data")); }
      };
      script.onerror = () => { script.remove(); delete waiting[key]; reject(new Error("cannot load " + key)); };
      document.head.append(script);
    });
  }

  // ------------------------------------------------------------------ the page

  const site = window.ARENA_MATCHES || null;
  const standalone = window.ARENA_STANDALONE || null;
  const matches = site ? site.matches : [];
  const byIndex = {};
  matches.forEach((m) => { byIndex[m.index] = m; });

  const view = { match: null, model: null, step: 0, token: 0 };

  const select = el("select", { id: "match-select", "aria-label": "Match" });
  matches.forEach((m) => {
    const winner = m.winner === null || m.winner === undefined ? "" : " · won by " + m.bots[m.winner];
    select.append(el("option", { value: m.index, disabled: !m.data },
      "#" + m.index + " · group " + m.group + "·" + m.rotation + " · " + m.bots.join(", ") + winner +
      (m.data ? "" : " (no replay)")));
  });
  select.addEventListener("change", () => { openMatch(Number(select.value), 0); select.blur(); });

  function button(id, label, title, action) {
    return el("button", { id: id, type: "button", title: title, "aria-label": title, onclick: action }, label);
  }
  const range = el("input", { id: "step-range", type: "range", min: 0, max: 0, value: 0, "aria-label": "Step" });
  range.addEventListener("input", () => show(Number(range.value)));
  const label = el("span", { id: "step-label", class: "step-label" });
  const toolbar = el("div", { class: "toolbar" },
    site ? el("label", { class: "picker" }, "Match ", select) : null,
    el("div", { class: "controls" },
      button("first", "Start", "First step (Home)", () => show(0)),
      button("prev-session", "« Session", "Previous session (PageUp, Shift+←)", () => jumpSession(-1)),
      button("prev", "◀ Back", "Previous step (←)", () => show(view.step - 1)),
      button("next", "Next ▶", "Next step (→)", () => show(view.step + 1)),
      button("next-session", "Session »", "Next session (PageDown, Shift+→)", () => jumpSession(1)),
      button("last", "End", "Last step (End)", () => show(Infinity))),
    range, label);
  const summary = el("div", { class: "match-summary", id: "match-summary" });
  const board = el("div", { class: "board", id: "board" });
  const panel = el("div", { class: "panel", id: "panel" });
  const message = el("p", { class: "message", id: "message" });
  root.append(toolbar, message, summary, el("div", { class: "stage" }, board, panel));

  function setState(state, text) {
    root.setAttribute("data-state", state);
    message.textContent = text || "";
    message.hidden = !text;
  }

  function openMatch(index, step) {
    const match = byIndex[index];
    if (!match || !match.data) { setState("error", "Match #" + index + " has no stored replay."); return; }
    const token = ++view.token;
    view.match = match;
    select.value = String(index);
    setState("loading", "Loading match #" + index + "…");
    loadReplay(match.data).then((events) => {
      if (token !== view.token) return;  // another match was picked meanwhile
      useModel(buildSteps(events), step);
    }, (error) => {
      if (token !== view.token) return;
      setState("error", "Cannot show match #" + index + ": " + error.message);
    });
  }

  function useModel(model, step) {
    view.model = model;
    range.max = String(model.steps.length - 1);
    renderSummary();
    setState("ready", "");
    show(step || 0);
  }

  function jumpSession(delta) {
    const steps = view.model ? view.model.steps : [];
    const current = steps[view.step];
    if (!current) return;
    const target = current.session + delta;
    let i = steps.findIndex((s) => s.session === target && s.kind === "deal");
    if (i < 0) i = delta < 0 ? 0 : steps.length - 1;
    show(i);
  }

  // ------------------------------------------------------------------ rendering

  function nameOf(p) {
    const names = view.model.names;
    return p !== null && p !== undefined && names[p] !== undefined ? names[p] : "player " + p;
  }

  function who(p) { return el("span", { class: "who", "data-player": p }, nameOf(p)); }

  function renderSummary() {
    const m = view.model;
    const start = m.start || {};
    const end = m.end;
    const timed = start.time_limit_s ? "timed, " + start.time_limit_s + " s" : "";
    const length = start.sessions ? start.sessions + " sessions" : timed;
    const facts = [start.match_id ? "match " + start.match_id : null, start.rules, length,
                   start.seed !== undefined ? "seed " + start.seed : null].filter(Boolean);
    const ranking = end && end.ranking && end.ranking.length ? end.ranking : m.names.map((_, p) => p);
    const players = ranking.map((p, i) => {
      const dq = end && (end.disqualified || []).includes(p);
      return el("li", { class: end && i === 0 && end.ranking.length ? "winner" : dq ? "dq" : "" },
        end && end.ranking.length ? el("span", { class: "place" }, i + 1 + ".") : null, nameOf(p),
        dq ? el("span", { class: "badge bad" }, "DQ") : null);
    });
    summary.replaceChildren(el("span", { class: "facts" }, facts.join(" · ")),
      el("span", { class: "facts" }, end ? "result:" : "players:"), el("ol", { class: "players" }, players));
    if (!end) summary.append(el("span", { class: "badge warn" }, "incomplete replay: the match did not finish"));
  }

  function describe(s, m) {
    const of = m.sessions ? " of " + m.sessions : "";
    switch (s.kind) {
      case "deal": return "Session " + s.session + of + " · deal and exchange";
      case "round": return "Session " + s.session + of + " · round " + s.round;
      case "session_end": return "Session " + s.session + of + " · over";
      case "end": return "Match over";
      default: return "No session played";
    }
  }

  function received(s) {
    const marks = {};
    for (const e of s.exchanges || []) {
      marks[e.subordinate] = marks[e.subordinate] || {};
      marks[e.superior] = marks[e.superior] || {};
      for (const c of e.gave || []) marks[e.subordinate][c] = (marks[e.subordinate][c] || 0) + 1;
      for (const c of e.got || []) marks[e.superior][c] = (marks[e.superior][c] || 0) + 1;
    }
    return marks;
  }

  function plural(count, word) { return count + " " + word + (count === 1 ? "" : "s"); }

  function badge(kind, text, title) { return el("span", { class: "badge " + kind, title: title }, text); }

  function faultBadge(fault) {
    return el("span", { class: "badge bad fault-kind", title: "a fault: the fallback move was played" }, fault);
  }

  function jobBadge(rank, n) {
    const kind = rank === 1 ? "ceo" : rank === n ? "trainee" : "mid";
    return el("span", { class: "job job-" + kind }, jobName(rank, n));
  }

  function seatEl(p, s, m, marks, play) {
    const hand = s.hands ? s.hands[p] || [] : [];
    const isOut = s.out[p] !== undefined;
    const isDq = s.dq[p] !== undefined;
    const classes = ["seat", isOut ? "out" : "", isDq ? "dq" : "", s.kind === "round" && s.winner === p ? "won" : ""];
    const status = isOut ? "out · next job " + jobName(s.out[p], m.n) : plural(hand.length, "card");
    return el("section", { class: classes.filter(Boolean).join(" "), "data-player": p },
      el("header", { class: "seat-head" },
        el("span", { class: "name" }, nameOf(p)),
        s.jobs ? jobBadge(s.jobs[p], m.n) : null,
        el("span", { class: "status" }, status),
        s.faults[p] ? badge("warn faults", "⚠ " + plural(s.faults[p], "fault"), "faults so far") : null,
        isDq ? badge("bad", "disqualified", s.dq[p]) : null),
      handEl(hand, marks),
      play ? el("div", { class: "last-play" + (play.fault ? " fault" : "") },
        "played ", cardsEl(play.cards, "small"), play.fault ? faultBadge(play.fault) : null) : null);
  }

  function renderBoard(s, m) {
    const seats = s.order || m.names.map((_, p) => p);
    const marks = s.kind === "deal" ? received(s) : {};
    const plays = {};
    for (const item of s.items) if (item.type === "play") plays[item.player] = item;
    board.replaceChildren(...seats.map((p) => seatEl(p, s, m, marks[p], plays[p])));
  }

  function itemEl(item, m) {
    if (item.type === "play") {
      return el("li", { class: "play" + (item.fault ? " fault" : "") },
        who(item.player), cardsEl(item.cards, "small"), item.fault ? faultBadge(item.fault) : null,
        item.ms !== null && item.ms !== undefined ? el("span", { class: "ms" }, item.ms + " ms") : null);
    }
    if (item.type === "out") {
      return el("li", { class: "out" }, who(item.player), " goes out → ", el("b", {}, jobName(item.job, m.n)));
    }
    return el("li", { class: "dq" }, who(item.player), " is disqualified: ", el("b", {}, item.reason || "?"));
  }

  /** An ordered list of players, each followed by a note (a job, a badge...). */
  function playerList(cls, players, note) {
    return el("ol", { class: cls }, players.map((p) => el("li", {}, who(p), " ", note(p))));
  }

  const REASONS = { sessions: "all sessions played", time: "time limit reached", aborted: "aborted" };

  function renderPanel(s, m) {
    const parts = [];
    const items = () => el("ul", { class: "plays" }, s.items.map((i) => itemEl(i, m)));
    if (s.kind === "deal") {
      parts.push(el("h3", {}, "Session " + s.session + ": seating by job"),
        playerList("order", s.order || [], (p) => el("span", { class: "muted" }, jobName(s.jobs[p], m.n))),
        el("h3", {}, "Exchange"));
      if (!s.exchanges.length) parts.push(el("p", { class: "muted" }, "No exchange."));
      parts.push(el("ul", { class: "exchanges" }, s.exchanges.flatMap((e) => [
        el("li", {}, who(e.superior), "→", who(e.subordinate), cardsEl(e.gave, "small")),
        el("li", {}, who(e.subordinate), "→", who(e.superior), cardsEl(e.got, "small"))])));
      if (s.exchanges.length) {
        parts.push(el("p", { class: "note" }, "Cards received in the exchange are ringed in green."));
      }
      if (s.items.length) parts.push(items());
    } else if (s.kind === "round") {
      parts.push(el("h3", {}, "Round " + s.round), items());
      if (s.winner !== undefined) {
        const next = s.next !== s.winner ? [" · ", who(s.next), " leads next"] : " · leads next";
        parts.push(el("p", { class: "result" }, "Won by ", who(s.winner), next));
      } else if (s.last) {
        parts.push(el("p", { class: "result" }, "Only one player holds cards: the session is over."));
      }
    } else if (s.kind === "session_end") {
      const ranked = m.names.map((_, p) => p).sort((a, b) => s.newJobs[a] - s.newJobs[b]);
      parts.push(el("h3", {}, "Session " + s.session + " over: new jobs"),
        playerList("order", ranked, (p) => el("b", {}, jobName(s.newJobs[p], m.n))));
    } else if (s.kind === "end") {
      const end = m.end;
      const ranking = end.ranking || [];
      const why = REASONS[end.reason] || end.reason;
      parts.push(el("h3", {}, "Match over after " + end.sessions_played + " session(s): " + why),
        playerList("ranking", ranking, (p) => [
          end.faults && end.faults[p] ? badge("warn", plural(end.faults[p], "fault")) : null,
          (end.disqualified || []).includes(p) ? badge("bad", "disqualified") : null]));
      if (!ranking.length) parts.push(el("p", { class: "muted" }, "No session finished: no ranking."));
    } else {
      parts.push(el("p", { class: "muted" }, "This replay holds no session."));
      if (s.items.length) parts.push(items());
    }
    panel.replaceChildren(...parts);
  }

  function show(step) {
    const m = view.model;
    if (!m) return;
    const last = m.steps.length - 1;
    view.step = Math.max(0, Math.min(last, Number.isFinite(step) ? Math.trunc(step) : step > 0 ? last : 0));
    const s = m.steps[view.step];
    range.value = String(view.step);
    label.textContent = describe(s, m) + " — step " + (view.step + 1) + " / " + m.steps.length;
    root.setAttribute("data-step", String(view.step));
    root.setAttribute("data-kind", s.kind);
    renderBoard(s, m);
    renderPanel(s, m);
    for (const id of ["first", "prev", "prev-session"]) document.getElementById(id).disabled = view.step === 0;
    for (const id of ["next", "next-session", "last"]) document.getElementById(id).disabled = view.step === last;
    const hash = (view.match ? "#match=" + view.match.index + "&" : "#") + "step=" + view.step;
    if (location.hash !== hash) location.replace(hash);
  }

  // ------------------------------------------------------------------ keyboard, URL, start

  document.addEventListener("keydown", (event) => {
    const tag = event.target && event.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") return;  // they use the arrow keys
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const keys = {
      ArrowRight: () => (event.shiftKey ? jumpSession(1) : show(view.step + 1)),
      ArrowLeft: () => (event.shiftKey ? jumpSession(-1) : show(view.step - 1)),
      PageDown: () => jumpSession(1), PageUp: () => jumpSession(-1),
      Home: () => show(0), End: () => show(Infinity),
    };
    if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
  });

  function readHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    const match = params.has("match") ? Number(params.get("match")) : null;
    const step = params.has("step") ? Number(params.get("step")) : 0;
    return { match: match, step: Number.isFinite(step) ? step : 0 };
  }

  window.addEventListener("hashchange", () => {
    const want = readHash();
    const otherMatch = site && want.match !== null && (!view.match || want.match !== view.match.index);
    if (otherMatch) openMatch(want.match, want.step);
    else if (want.step !== view.step) show(want.step);
  });

  window.arenaViewer = {  // for tests and the console
    get steps() { return view.model ? view.model.steps : []; },
    get step() { return view.step; },
    get match() { return view.match ? view.match.index : null; },
    get loaded() { return Object.keys(loaded); },
    show: show, openMatch: openMatch, buildSteps: buildSteps,
  };

  const want = readHash();
  if (standalone) {
    useModel(buildSteps(standalone.events || []), want.step);
  } else if (!matches.length) {
    setState("error", "No match has been played yet.");
  } else {
    const first = matches.find((m) => m.data);
    const index = want.match !== null && byIndex[want.match] ? want.match : first ? first.index : matches[0].index;
    openMatch(index, want.step);
  }
})();
