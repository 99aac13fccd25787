#!/usr/bin/env node
// js-greedy: an Animal Poker bot written from docs/protocol.md alone (protocol v1).
// No npm packages: only node built-ins. Run: node bots/js/greedy.js
//
// Strategy: leading -> all copies of the lowest number (no freelancers), or all freelancers
// if only freelancers are left. Following -> the legal play with the fewest freelancers,
// then the lowest value; otherwise pass. Legality is computed here (rules R7-R9); the
// `legal` field, when the arena sends it, is only used as a cross-check.
'use strict';

const readline = require('readline');

const NAME = 'js-greedy';
const F = 'F';
const FREELANCERS_ALONE = 14; // R7: freelancers alone are worth 14 (above a 13)

let rules = 'animal-poker';
let done = false;

function log(msg) {
  try { process.stderr.write(`[${NAME}] ${msg}\n`); } catch (_) { /* log is best effort */ }
}

function send(obj) {
  if (done) return;
  try {
    process.stdout.write(JSON.stringify(obj) + '\n');
  } catch (_) {
    finish(0); // stdout closed: nothing more to say
  }
}

function finish(code) {
  if (done) return;
  done = true;
  // Let whatever is still queued on stdout drain, then leave (well within the 1 s allowed).
  process.stdout.write('', () => process.exit(code));
  setTimeout(() => process.exit(code), 200).unref();
}

// --- cards -----------------------------------------------------------------------------

function isF(c) { return c === F; }

function sortCards(cards) {
  const nums = cards.filter((c) => !isF(c)).sort((a, b) => a - b);
  const fs = cards.filter(isF);
  return nums.concat(fs);
}

// Value of a play (R7): its number, or 14 for freelancers alone; null for a pass/invalid play.
function playValue(cards) {
  if (!cards || cards.length === 0) return null;
  const nums = cards.filter((c) => !isF(c));
  if (nums.length === 0) return FREELANCERS_ALONE;
  if (nums.some((n) => n !== nums[0])) return null;
  return nums[0];
}

function counts(hand) {
  const byNumber = new Map();
  let freelancers = 0;
  for (const c of hand) {
    if (isF(c)) freelancers += 1;
    else byNumber.set(c, (byNumber.get(c) || 0) + 1);
  }
  return { byNumber, freelancers };
}

// The highest play so far in this round, from round_plays (the last non-pass play,
// since every later play has to beat it). Null if there is none.
function highestPlay(roundPlays) {
  if (!Array.isArray(roundPlays)) return null;
  for (let i = roundPlays.length - 1; i >= 0; i--) {
    const entry = roundPlays[i];
    if (Array.isArray(entry) && Array.isArray(entry[1]) && entry[1].length > 0) return entry[1];
  }
  return null;
}

// Does a play of value `value` (freelancersOnly: whether it is freelancers alone) beat `top`?
// R9: strictly higher; after a 13 only freelancers alone; two freelancer-only plays never
// beat each other. The `equal-allowed` preset accepts the same value too.
function beats(value, freelancersOnly, top, topIsFreelancersOnly) {
  if (freelancersOnly && (topIsFreelancersOnly || top >= FREELANCERS_ALONE)) return false;
  if (rules === 'equal-allowed') return value >= top;
  return value > top;
}

// --- choosing a move -------------------------------------------------------------------

function leadMove(hand) {
  const { byNumber, freelancers } = counts(hand);
  if (byNumber.size === 0) return Array(freelancers).fill(F); // only freelancers left
  const lowest = Math.min(...byNumber.keys());
  return Array(byNumber.get(lowest)).fill(lowest);
}

// Every legal non-pass play when following (the fewest freelancers for each value).
function followCandidates(hand, count, top, topIsFreelancersOnly) {
  const { byNumber, freelancers } = counts(hand);
  const out = [];
  for (const [n, have] of byNumber) {
    const useNumbers = Math.min(have, count);
    const useF = count - useNumbers;
    if (useF > freelancers) continue;
    if (!beats(n, false, top, topIsFreelancersOnly)) continue;
    out.push({ f: useF, value: n, cards: Array(useNumbers).fill(n).concat(Array(useF).fill(F)) });
  }
  if (freelancers >= count && beats(FREELANCERS_ALONE, true, top, topIsFreelancersOnly)) {
    out.push({ f: count, value: FREELANCERS_ALONE, cards: Array(count).fill(F) });
  }
  out.sort((a, b) => a.f - b.f || a.value - b.value);
  return out;
}

function followMove(msg) {
  const hand = msg.hand;
  const count = msg.count;
  let top = msg.top;
  const high = highestPlay(msg.round_plays);
  let topIsFreelancersOnly = high !== null && high.every(isF);
  if (top === F) { top = FREELANCERS_ALONE; topIsFreelancersOnly = true; } // defensive
  if (typeof top !== 'number') top = high !== null ? playValue(high) : 0;
  if (typeof count !== 'number' || count < 1) return [];
  // Without round_plays, a top of 14 in the default deck can only be freelancers alone.
  if (high === null && top >= FREELANCERS_ALONE) topIsFreelancersOnly = true;
  const cands = followCandidates(hand, count, top, topIsFreelancersOnly);
  return cands.length > 0 ? cands[0].cards : [];
}

function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const sa = sortCards(a);
  const sb = sortCards(b);
  return sa.every((c, i) => c === sb[i]);
}

function chooseMove(msg) {
  const hand = Array.isArray(msg.hand) ? msg.hand : [];
  let move;
  if (msg.lead) move = leadMove(hand);
  else move = followMove(msg);
  move = sortCards(move);

  // Cross-check with `legal` when the arena sent it; never rely on it.
  if (Array.isArray(msg.legal)) {
    const ok = msg.legal.some((m) => Array.isArray(m) && sameCards(m, move));
    if (!ok) {
      log(`LEGAL-MISMATCH turn ${msg.id}: computed ${JSON.stringify(move)} not in legal ` +
          `${JSON.stringify(msg.legal)} (hand ${JSON.stringify(hand)}, count ${msg.count}, top ${msg.top})`);
      // Fall back to a safe choice that the arena says is legal.
      const pass = msg.legal.find((m) => Array.isArray(m) && m.length === 0);
      if (pass) move = [];
      else if (msg.legal.length > 0 && Array.isArray(msg.legal[0])) move = sortCards(msg.legal[0]);
    }
  }
  return move;
}

// --- message loop ----------------------------------------------------------------------

function handle(msg) {
  switch (msg.type) {
    case 'hello':
      if (typeof msg.rules === 'string') rules = msg.rules;
      send({ type: 'ready', name: NAME, version: '1' });
      break;
    case 'turn': {
      let cards;
      try {
        cards = chooseMove(msg);
      } catch (err) {
        log(`error choosing a move for turn ${msg.id}: ${err && err.stack ? err.stack : err}`);
        cards = msg.lead ? leadMove(Array.isArray(msg.hand) ? msg.hand : []) : [];
      }
      send({ type: 'move', id: msg.id, cards });
      break;
    }
    case 'match_end':
      finish(0);
      break;
    default:
      break; // session, played, out, round_end, session_end, and anything unknown: no reply
  }
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
rl.on('line', (line) => {
  if (done || line.trim() === '') return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (_) {
    log(`ignoring a line that is not JSON: ${line.slice(0, 200)}`);
    return;
  }
  if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) return;
  handle(msg);
});
rl.on('close', () => finish(0));
process.stdout.on('error', () => finish(0)); // EPIPE: the arena is gone
