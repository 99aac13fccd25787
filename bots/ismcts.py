"""A determinized Monte Carlo search bot (single-observer information-set MCTS with a flat tree).

At every decision with more than one legal move it runs, until its time or iteration budget is
spent (Cowling, Powley & Whitehouse 2012, SO-ISMCTS, with the tree cut at the root):

1. **Determinize**: sample the hidden hands consistently with everything this player knows
   (``sdk.determinize``: its own hand, every card played, the hand sizes and its own exchange).
2. **Weigh** the samples by how well they explain what the opponents did this session (a belief, see
   below), and draw each iteration's determinization from them by weight.
3. **Select** a root move by UCB1 over the statistics gathered *across* determinizations (the root
   is the information set; every legal move is available in every determinization).
4. **Roll out** the session with cheap policies: ours is the heuristic bot's (bots/heuristic.py),
   each opponent's is the model that best explains its play so far. The rollout stops as soon as
   this player goes out: its job is then known.
5. **Reward**: the value of the job this player ends the session with. The job order of the last
   session decides the match (R15) and jobs set the next exchange (R6), so a job is worth the chance
   of being CEO at the end of the match from it, estimated from how jobs move between sessions
   (CEOs stay on top about two times in three, the two lowest jobs rarely climb to CEO).

The move played is the most visited one. With one legal move (a forced pass) it answers at once.

**Belief.** A pass or a play says a lot about a hand: a player that passes a single 6 while
following greedily holds no single card above 6. Each opponent is explained by a small set of
policy models: the greedy policy, the heuristic policy, and uniformly random play. For a sampled
deal, each past decision of an opponent is replayed on the hand it held then (its sampled hand plus
what it played since) and scored: a model that would have made the same move scores 1 - EPS, one
that would not scores EPS, random play scores 1 / (legal moves). A sample's weight is the product
over opponents of the mixture of their models' scores. The mixture's weights are a posterior over
the models, carried from session to session, so an opponent that plays like greedy is soon
simulated by greedy in the rollouts and one that plays at random by random play.

Time: each move gets ``min(--time-ms, 40% of the turn's move_ms)`` (the bank is never touched),
and ``--iterations`` caps the iterations per move (0 = no cap): a fixed cap makes a run
reproducible, whatever the machine's load.
"""

from __future__ import annotations

import argparse
import math
import time
from bisect import bisect
from collections.abc import Sequence
from itertools import accumulate

from heuristic import DANGER_CARDS, choose
from sdk.bot import Bot, TurnView, run
from sdk.cards import F, counts_from_cards
from sdk.moves import FREELANCER_MOVES, PASS, Move, make_move, parse_move
from sdk.protocol import Hello, Session
from sdk.session import SESSION_END, WENT_OUT, SessionState, legal_moves

DEFAULT_TIME_MS = 400
MOVE_SHARE = 0.4
"""The share of the turn's ``move_ms`` a search may use."""
EXPLORATION = 0.7
"""UCB1 exploration constant (rewards are in [0, 1])."""
BELIEF_SHARE = 0.3
"""The share of a move's budget spent sampling and weighing determinizations."""
MAX_PARTICLES = 400
EPS = 0.05
"""How often a policy model is allowed to disagree with the opponent it explains."""

HEURISTIC, GREEDY, RANDOM = 0, 1, 2
MODELS = (HEURISTIC, GREEDY, RANDOM)

# How jobs move from one session to the next among reasonable bots, 4 players (measured with
# greedy and heuristic self-play): TRANSITIONS[j][k] = P(job k+1 next | job j+1 now).
TRANSITIONS = (
    (0.68, 0.29, 0.02, 0.01),
    (0.29, 0.52, 0.13, 0.06),
    (0.015, 0.09, 0.30, 0.595),
    (0.01, 0.10, 0.55, 0.34),
)


def job_values(n: int, sessions_left: int | None) -> list[float]:
    """Reward (index = job, 1..n) for ending this session with a job, ``sessions_left`` to come.

    The chance of being the final CEO from that job, scaled to [0, 1]. For 4 players it uses the
    measured TRANSITIONS; for other sizes, and with the horizon unknown (timed matches), a job is
    worth linearly less the lower it is, with the CEO weighted more.
    """
    if n == 4 and sessions_left is not None:
        value = [1.0, 0.0, 0.0, 0.0]
        for _ in range(min(sessions_left, 30)):
            value = [sum(t * v for t, v in zip(row, value)) for row in TRANSITIONS]
    else:
        value = [1.0 if j == 0 else 0.5 * (n - 1 - j) / (n - 1) for j in range(n)]
    top, bottom = value[0], min(value)
    span = (top - bottom) or 1.0
    # A small bonus per place keeps the search playing for a better job when the CEO is out of reach.
    scaled = [(v - bottom) / span * 0.9 + 0.1 * (n - 1 - j) / (n - 1) for j, v in enumerate(value)]
    return [0.0] + scaled


def greedy_move(hand: Sequence[int], count: int, top: int, hi: int, offset: int) -> Move:
    """bots/greedy.py on count vectors: lead the lowest number, all copies; follow as cheaply as possible."""
    if not count:
        for v in range(1, hi + 1):
            if hand[v]:
                return make_move(v, hand[v], 0)
        return FREELANCER_MOVES[hand[F]]
    free = hand[F]
    best = 0
    need_best = 99
    for v in range(top + offset, hi + 1):
        h = hand[v]
        if h:
            need = count - h if h < count else 0
            if need < need_best and need <= free:
                need_best = need
                best = v
                if not need:
                    break
    if best:
        return make_move(best, count - need_best, need_best)
    if free >= count and top < 14:
        return FREELANCER_MOVES[count]
    return PASS


def danger_of(sizes: Sequence[int], p: int) -> int:
    """The heuristic's ``danger``: the fewest cards another player holds, if few enough."""
    low = 99
    for q, s in enumerate(sizes):
        if s and q != p and s < low:
            low = s
    return low if low <= DANGER_CARDS else 0


def rollout(
    state: SessionState, me: int, remaining: list[int], hi: int, offset: int, models: Sequence[int], rng,
) -> int:
    """Play the session on, each player by its model; my job (1 = CEO) once I am out or it ends.

    ``remaining`` is the deck minus the played cards (updated in place).
    """
    hands = state.hands
    sizes = state.sizes
    while True:
        p = state.to_move
        model = models[p]
        if model == HEURISTIC:
            move = choose(hands[p], state.count, state.top, remaining, danger_of(sizes, p), sizes[p], hi, offset)
        elif model == GREEDY:
            move = greedy_move(hands[p], state.count, state.top, hi, offset)
        else:
            move = rng.choice(state.legal_moves())
        if move.numbers:
            remaining[move.value] -= move.numbers
        if move.freelancers:
            remaining[F] -= move.freelancers
        flags = state.apply(move, False)
        if flags & WENT_OUT and p == me:
            return state.new_jobs[me]
        if flags & SESSION_END:
            return state.new_jobs[me]


class Decision:
    """One past decision of an opponent, with what it needs to be replayed on a sampled hand."""

    __slots__ = ("count", "top", "remaining", "danger", "left", "after", "move")

    def __init__(self, count, top, remaining, danger, left, after, move):
        self.count = count
        self.top = top
        self.remaining = remaining
        self.danger = danger
        self.left = left
        self.after = after
        """The cards the opponent has played since (this move included): its hand then = now + after."""
        self.move = move


def decisions(history, me: int, n: int, deck: Sequence[int], sizes_now: Sequence[int]) -> list[list[Decision]]:
    """Every opponent's decisions this session (faulted moves left out), by player id."""
    events = [(e.round, e.player, parse_move(e.cards), e.fault) for e in history]
    sizes = list(sizes_now)
    for _, p, move, _ in events:
        sizes[p] += move.count
    remaining = list(deck)
    after = [counts_from_cards([]) for _ in range(n)]
    for _, p, move, _ in events:  # after[p]: everything p played this session, for now
        after[p][move.value if move.numbers else F] += move.numbers
        after[p][F] += move.freelancers
    out: list[list[Decision]] = [[] for _ in range(n)]
    rnd = -1
    count = top = 0
    for r, p, move, fault in events:
        if r != rnd:
            rnd, count, top = r, 0, 0
        if p != me and fault is None:
            out[p].append(Decision(count, top, remaining[:], danger_of(sizes, p), sizes[p], after[p][:], move))
        if move.numbers or move.freelancers:
            if move.numbers:
                remaining[move.value] -= move.numbers
                after[p][move.value] -= move.numbers
            remaining[F] -= move.freelancers
            after[p][F] -= move.freelancers
            sizes[p] -= move.count
            if not count:
                count = move.count
            top = move.value
    return out


def model_scores(hand: Sequence[int], decided: Sequence[Decision], hi: int, offset: int) -> tuple[float, float, float]:
    """How well each model (heuristic, greedy, random) explains an opponent's decisions, given its hand now."""
    sh = sg = sr = 1.0
    ok, miss = 1.0 - EPS, EPS
    for d in decided:
        then = [a + b for a, b in zip(hand, d.after)]
        move = d.move
        sh *= ok if choose(then, d.count, d.top, d.remaining, d.danger, d.left, hi, offset) == move else miss
        sg *= ok if greedy_move(then, d.count, d.top, hi, offset) == move else miss
        sr /= len(legal_moves(then, d.count, d.top, offset, hi))
    return sh, sg, sr


class ISMCTSBot(Bot):
    name = "ismcts"

    def __init__(self, time_ms: int = DEFAULT_TIME_MS, iterations: int = 0, exploration: float = EXPLORATION,
                 belief: bool = True):
        super().__init__()
        self.time_ms = time_ms
        self.iterations = iterations
        self.exploration = exploration
        self.belief = belief
        self.sessions: int | None = None
        self.log_prior: list[list[float]] = []
        """Per player: log-probability of each model, from the sessions before this one."""
        self.evidence: list[list[float]] | None = None
        """Per player: this session's evidence for each model, as last estimated."""
        self.stats: list[int] = []
        """Iterations of every search (for benchmarks)."""

    def on_hello(self, hello: Hello) -> None:
        self.sessions = hello.sessions
        self.log_prior = [[math.log(1 / len(MODELS))] * len(MODELS) for _ in range(hello.players)]
        self.evidence = None

    def on_session(self, session: Session) -> None:
        if self.evidence is not None:  # fold last session's evidence into the prior
            for prior, ev in zip(self.log_prior, self.evidence):
                for m in MODELS:
                    prior[m] += math.log(max(ev[m], 1e-300))
                top = max(prior)
                total = math.log(sum(math.exp(x - top) for x in prior)) + top
                for m in MODELS:
                    prior[m] = max(prior[m] - total, -50.0)
        self.evidence = None

    def budget_s(self, turn: TurnView) -> float:
        """Seconds this move may search: the flag, capped by a share of the move time."""
        move_ms = turn.message.clock.move_ms
        return max(0.0, min(self.time_ms, MOVE_SHARE * move_ms)) / 1000.0

    def sampler(self, turn: TurnView):
        """The determinization: (my hand, hand sizes, played, rng) -> every player's hand."""
        return turn.knowledge.sample_hands

    def play(self, turn: TurnView) -> Move:
        start = time.perf_counter()
        moves = turn.legal_moves
        if len(moves) == 1:
            return moves[0]
        budget = self.budget_s(turn)
        deadline = start + budget
        msg = turn.message
        rules = turn.rules
        n = len(msg.jobs)
        hi = rules.max_number
        offset = 0 if rules.equal_allowed else 1
        sessions_left = None if self.sessions is None else max(0, self.sessions - msg.session)
        values = job_values(n, sessions_left)
        me = self.me
        rng = self.rng
        hand = turn.hand_counts
        played = [0] * 16
        for key, c in msg.played.items():
            played[F if key == "F" else int(key)] += c
        deck = rules.deck(n)
        remaining0 = [d - p for d, p in zip(deck, played)]
        plays = [(p, parse_move(cards)) for p, cards in msg.round_plays]
        leader = plays[0][0] if plays else me
        base = SessionState.restore(
            rules, msg.session, msg.jobs, [[0] * 16 for _ in range(n)], msg.round, leader, me, plays,
            [p for p, _ in msg.out], played,
        )
        sizes = msg.hand_sizes
        base.sizes = list(sizes)  # restore() counted the placeholder hands
        sample = self.sampler(turn)
        if len(self.log_prior) != n:
            self.log_prior = [[math.log(1 / len(MODELS))] * len(MODELS) for _ in range(n)]
        prior = [[math.exp(x) for x in row] for row in self.log_prior]

        # The belief: determinizations weighed by how well they explain the opponents' decisions.
        particles: list[list[list[int]]] = []
        cum: list[float] = []
        particle_models: list[list[list[float]]] = []
        if self.belief:
            decided = decisions(turn.history, me, n, deck, sizes)
            if self.evidence is None:
                self.evidence = [[1.0] * len(MODELS) for _ in range(n)]
            for p in range(n):
                if p != me and decided[p] and not sizes[p]:  # out: its whole hand is known
                    self.evidence[p] = list(model_scores([0] * 16, decided[p], hi, offset))
            watched = [p for p in range(n) if p != me and decided[p] and sizes[p]]
            if watched:
                belief_end = start + budget * BELIEF_SHARE
                evidence = [[0.0] * len(MODELS) for _ in range(n)]
                weights = []
                while len(particles) < MAX_PARTICLES and (not particles or time.perf_counter() < belief_end):
                    hands = sample(hand, sizes, played, rng)
                    w = 1.0
                    per_player = prior[:]
                    for p in watched:
                        scores = model_scores(hands[p], decided[p], hi, offset)
                        mix = [prior[p][m] * scores[m] for m in MODELS]
                        total = sum(mix)
                        w *= total
                        if total > 0:
                            per_player[p] = [x / total for x in mix]
                        ev = evidence[p]
                        for m in MODELS:
                            ev[m] += scores[m]
                    particles.append(hands)
                    weights.append(w)
                    particle_models.append(per_player)
                count = len(particles)
                for p in watched:
                    self.evidence[p] = [x / count for x in evidence[p]]
                if sum(weights) > 0:
                    cum = list(accumulate(weights))
                else:
                    particles = []
        # Rollout models without evidence this session: the prior's most likely model.
        default_models = [HEURISTIC if p == me else max(MODELS, key=lambda m: prior[p][m]) for p in range(n)]

        k = len(moves)
        visits = [0] * k
        totals = [0.0] * k
        c = self.exploration
        limit = self.iterations or 1 << 60
        it = 0
        while it < limit:
            if it & 7 == 0 and it and time.perf_counter() >= deadline:
                break
            it += 1
            # UCB1 at the root (unvisited moves first).
            if it <= k:
                i = it - 1
            else:
                log_n = math.log(it)
                best = -1.0
                i = 0
                for j in range(k):
                    score = totals[j] / visits[j] + c * math.sqrt(log_n / visits[j])
                    if score > best:
                        best = score
                        i = j
            state = base.copy()
            if particles:
                pick = bisect(cum, rng.random() * cum[-1])
                pick = min(pick, len(particles) - 1)
                state.hands = [h[:] for h in particles[pick]]
                models = default_models[:]
                for p, probs in enumerate(particle_models[pick]):
                    if p != me and probs[0] + probs[1] + probs[2] > 0:
                        x = rng.random() * (probs[0] + probs[1] + probs[2])
                        models[p] = HEURISTIC if x < probs[0] else GREEDY if x < probs[0] + probs[1] else RANDOM
            else:
                state.hands = sample(hand, sizes, played, rng)
                models = default_models
            remaining = remaining0[:]
            move = moves[i]
            if move.numbers:
                remaining[move.value] -= move.numbers
            if move.freelancers:
                remaining[F] -= move.freelancers
            flags = state.apply(move, False)
            if flags & (WENT_OUT | SESSION_END):
                job = state.new_jobs[me]
            else:
                job = rollout(state, me, remaining, hi, offset, models, rng)
            visits[i] += 1
            totals[i] += values[job]
        self.stats.append(it)
        best_i = max(range(k), key=lambda j: (visits[j], totals[j]))
        return moves[best_i]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Determinized Monte Carlo search bot for Animal Poker.")
    parser.add_argument("--time-ms", type=int, default=DEFAULT_TIME_MS,
                        help=f"search time per move in ms, capped at {MOVE_SHARE:.0%} of move_ms "
                             f"(default {DEFAULT_TIME_MS})")
    parser.add_argument("--iterations", type=int, default=0,
                        help="iterations per move (0 = as many as the time allows; default 0)")
    parser.add_argument("--exploration", type=float, default=EXPLORATION, help="UCB1 constant")
    parser.add_argument("--no-belief", dest="belief", action="store_false",
                        help="sample hidden hands uniformly (no inference from the opponents' play)")
    args = parser.parse_args(argv)
    run(ISMCTSBot(time_ms=args.time_ms, iterations=args.iterations, exploration=args.exploration,
                  belief=args.belief))


if __name__ == "__main__":
    main()
