"""The session state machine (R4, R7-R13): steppable, cheap to copy, checked by default.

A :class:`SessionState` holds every hand, so it is the referee's view (and a search bot's view
after determinization). Player ids never change; ``order`` is the turn order of this session,
CEO first (R4). :meth:`SessionState.apply` returns flags telling what the move caused.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import F, FREELANCERS_ALONE, SIZE
from .moves import FOLLOW, FREELANCER_MOVES, LEAD, LEAD_FREELANCERS, PASS, Move
from .rules import Rules, RuleViolation

WENT_OUT = 1
"""Flag: the player who moved played their last card (R12)."""
ROUND_END = 2
"""Flag: the move completed the lap and a new round began (R10, R11)."""
SESSION_END = 4
"""Flag: only one player holds cards; the session is over (R13)."""


def legal_moves(hand: Sequence[int], count: int, top: int, lo_offset: int = 1, max_number: int = 13) -> list[Move]:
    """Every legal move with ``hand`` (a count vector) when ``count`` cards above ``top`` are to beat.

    ``count == 0`` means leading (R8); otherwise a pass comes first (R9). ``lo_offset`` is 1 for
    'strictly higher' and 0 for the equal-allowed preset.
    """
    free = hand[F]
    if not count:
        moves: list[Move] = []
        for value in range(1, max_number + 1):
            held = hand[value]
            if held:
                moves += LEAD[value][held][free]
        if free:
            moves += LEAD_FREELANCERS[free]
        return moves
    moves = [PASS]
    for value in range(top + lo_offset, max_number + 1):
        held = hand[value]
        if held:
            moves += FOLLOW[value][held][free][count]
    if free >= count and top < FREELANCERS_ALONE:
        moves.append(FREELANCER_MOVES[count])
    return moves


class SessionState:
    """One session in progress. Build it with :meth:`start` or :meth:`restore`."""

    __slots__ = (
        "rules", "session", "n", "jobs", "order", "pos_of", "lo_offset", "max_number",
        "hands", "sizes", "new_jobs", "out", "remaining",
        "round", "leader", "to_move", "pos", "steps", "count", "top", "best",
        "round_plays", "played", "over", "last_winner", "last_next",
    )

    rules: Rules
    session: int
    n: int
    jobs: tuple[int, ...]
    order: tuple[int, ...]
    pos_of: tuple[int, ...]
    hands: list[list[int]]
    sizes: list[int]
    new_jobs: list[int]
    out: list[int]
    remaining: int
    round: int
    leader: int
    to_move: int
    count: int
    top: int
    best: int
    round_plays: list[tuple[int, Move]]
    played: list[int]
    over: bool

    @classmethod
    def start(
        cls, rules: Rules, jobs: Sequence[int], hands: Sequence[Sequence[int]], session: int = 1,
        leader: int | None = None,
    ) -> SessionState:
        """A fresh session: seats by job (R4), the CEO (or ``leader``) leads round 1 (R8)."""
        n = len(jobs)
        rules.check_players(n)
        if sorted(jobs) != list(range(1, n + 1)):
            raise RuleViolation("R3", f"jobs must be the ranks 1..{n} once each, not {list(jobs)}")
        state = cls._blank(rules, session, jobs)
        state.hands = [list(hand) for hand in hands]
        state.sizes = [sum(hand) for hand in state.hands]
        state.new_jobs = [0] * n
        state.out = []
        state.remaining = sum(1 for size in state.sizes if size)
        state.round = 1
        state.played = [0] * SIZE
        state.over = False
        first = state.order[0] if leader is None else leader
        state._begin_round(first)
        return state

    @classmethod
    def restore(
        cls, rules: Rules, session: int, jobs: Sequence[int], hands: Sequence[Sequence[int]],
        round: int, leader: int, to_move: int, round_plays: Sequence[tuple[int, Move]],
        out: Sequence[int], played: Sequence[int],
    ) -> SessionState:
        """A session in progress, from its public history and (possibly sampled) hands."""
        state = cls._blank(rules, session, jobs)
        state.hands = [list(hand) for hand in hands]
        state.sizes = [sum(hand) for hand in state.hands]
        state.out = list(out)
        state.new_jobs = [0] * state.n
        for place, player in enumerate(state.out, start=1):
            state.new_jobs[player] = place
        state.remaining = state.n - len(state.out)
        state.round = round
        state.played = list(played)
        state.over = False
        state.leader = leader
        state.to_move = to_move
        state.pos = state.pos_of[to_move]
        state.steps = (state.pos - state.pos_of[leader]) % state.n
        state.round_plays = list(round_plays)
        state.count = state.top = 0
        state.best = leader
        for player, move in state.round_plays:
            if not move.is_pass:
                state.count = state.count or move.count
                state.top = move.value
                state.best = player
        state.last_winner = state.last_next = -1
        return state

    @classmethod
    def _blank(cls, rules: Rules, session: int, jobs: Sequence[int]) -> SessionState:
        state = cls.__new__(cls)
        state.rules = rules
        state.session = session
        state.n = n = len(jobs)
        state.jobs = tuple(jobs)
        order = sorted(range(n), key=lambda player: jobs[player])
        state.order = tuple(order)
        pos_of = [0] * n
        for pos, player in enumerate(order):
            pos_of[player] = pos
        state.pos_of = tuple(pos_of)
        state.lo_offset = 0 if rules.equal_allowed else 1
        state.max_number = rules.max_number
        state.last_winner = state.last_next = -1
        return state

    def copy(self) -> SessionState:
        """An independent copy (hands, history and counters are not shared)."""
        other = SessionState.__new__(SessionState)
        for name in SessionState.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = [hand[:] for hand in self.hands]
        other.sizes = self.sizes[:]
        other.new_jobs = self.new_jobs[:]
        other.out = self.out[:]
        other.round_plays = self.round_plays[:]
        other.played = self.played[:]
        return other

    # ---- what may be played -------------------------------------------------------------
    @property
    def leading(self) -> bool:
        """True when the player to move leads the round (no play yet, R8)."""
        return self.count == 0

    def legal_moves(self) -> list[Move]:
        """Every legal move of the player to move (R7-R9); a pass first when following."""
        return legal_moves(self.hands[self.to_move], self.count, self.top, self.lo_offset, self.max_number)

    def check(self, move: Move, player: int | None = None) -> None:
        """Raise RuleViolation naming the rule ``move`` breaks; return if it is legal."""
        value, numbers, free = move
        if self.over:
            raise RuleViolation("R13", "the session is over: nobody may move")
        if player is not None and player != self.to_move:
            raise RuleViolation("R10", f"it is player {self.to_move}'s turn, not player {player}'s")
        count = self.count
        if not numbers and not free:
            if not count:
                raise RuleViolation("R8", "the leader of a round must play; a pass is not allowed")
            if value:
                raise RuleViolation("R7", f"{move!r} is not a play")
            return
        hand = self.hands[self.to_move]
        if numbers:
            if not 1 <= value <= self.max_number or numbers < 0:
                raise RuleViolation("R7", f"there is no number {value} in this deck")
            if hand[value] < numbers:
                raise RuleViolation("R7", f"player {self.to_move} does not hold {move.cards}")
        elif value != FREELANCERS_ALONE:
            raise RuleViolation("R7", f"freelancers alone are worth {FREELANCERS_ALONE}, not {value}")
        if free:
            if free < 0:
                raise RuleViolation("R7", f"{move!r} is not a play")
            if hand[F] < free:
                raise RuleViolation("R7", f"player {self.to_move} does not hold {move.cards}")
        if not count:
            return
        top = self.top
        if numbers + free != count:
            raise RuleViolation("R9", f"must play exactly {count} card(s), not {numbers + free}")
        if value > top:
            return
        if not numbers and top >= FREELANCERS_ALONE:
            raise RuleViolation("R9", "two freelancer-only plays never beat each other")
        if value < top:
            raise RuleViolation("R9", f"{value} does not beat the {top} to beat")
        if not self.rules.equal_allowed:
            raise RuleViolation("R9", f"{value} does not beat {top}: a play must be strictly higher")

    def is_legal(self, move: Move) -> bool:
        try:
            self.check(move)
        except RuleViolation:
            return False
        return True

    def fallback_move(self) -> Move:
        """R16: pass, or when leading the single lowest card in hand."""
        if self.count:
            return PASS
        hand = self.hands[self.to_move]
        for value in range(1, self.max_number + 1):
            if hand[value]:
                return LEAD[value][1][0][0]
        return FREELANCER_MOVES[1]

    # ---- playing --------------------------------------------------------------------------
    def apply(self, move: Move, check: bool = True) -> int:
        """Play ``move`` for the player to move; returns WENT_OUT | ROUND_END | SESSION_END flags.

        With ``check=False`` the move is trusted (search bots applying moves from legal_moves()).
        """
        if check:
            self.check(move)
        player = self.to_move
        self.round_plays.append((player, move))
        value, numbers, free = move
        flags = 0
        if numbers or free:
            hand = self.hands[player]
            played = self.played
            if numbers:
                hand[value] -= numbers
                played[value] += numbers
            if free:
                hand[F] -= free
                played[F] += free
            if not self.count:
                self.count = numbers + free
            self.top = value
            self.best = player
            left = self.sizes[player] - numbers - free
            self.sizes[player] = left
            if not left:  # R12: out at once, highest job still free
                self.out.append(player)
                self.new_jobs[player] = len(self.out)
                self.remaining -= 1
                if self.remaining == 1:
                    self._finish()
                    return WENT_OUT | SESSION_END
                flags = WENT_OUT
        # R10: the lap goes on to the next seat that still holds cards.
        sizes = self.sizes
        order = self.order
        n = self.n
        pos = self.pos
        steps = self.steps
        while True:
            steps += 1
            if steps >= n:
                return flags | self._end_round()
            pos += 1
            if pos == n:
                pos = 0
            nxt = order[pos]
            if sizes[nxt]:
                break
        self.pos = pos
        self.steps = steps
        self.to_move = nxt
        return flags

    def _begin_round(self, leader: int) -> None:
        self.leader = self.to_move = leader
        self.pos = self.pos_of[leader]
        self.steps = 0
        self.count = self.top = 0
        self.best = leader
        self.round_plays = []

    def _end_round(self) -> int:
        winner = self.best
        nxt = winner if self.sizes[winner] else self._successor(winner)
        self.last_winner = winner
        self.last_next = nxt
        self.round += 1
        self._begin_round(nxt)
        return ROUND_END

    def _successor(self, winner: int) -> int:
        """Who leads when the round's winner has just gone out."""
        sizes = self.sizes
        if self.rules.previous_result_succession:
            # karriere-1988 (c11): one place better last game, else one worse, else the best placed.
            by_rank = {rank: player for player, rank in enumerate(self.jobs)}
            rank = self.jobs[winner]
            for candidate in (rank - 1, rank + 1):
                player = by_rank.get(candidate)
                if player is not None and sizes[player]:
                    return player
            return next(p for p in self.order if sizes[p])
        # R11: counterclockwise = the nearest player *before* the winner in turn order.
        pos = self.pos_of[winner]
        for back in range(1, self.n):
            player = self.order[(pos - back) % self.n]
            if sizes[player]:
                return player
        raise AssertionError("no player holds cards")  # unreachable: R13 ends the session first

    def _finish(self) -> None:
        """R13: the last player holding cards takes the Trainee job."""
        last = next(p for p in range(self.n) if self.sizes[p])
        self.new_jobs[last] = self.n
        self.over = True

    # ---- results ----------------------------------------------------------------------------
    @property
    def result_jobs(self) -> list[int]:
        """The new jobs (rank per player id) once the session is over (R12, R13)."""
        if not self.over:
            raise RuleViolation("R13", "the session is not over yet")
        return self.new_jobs[:]

    @property
    def last_player(self) -> int | None:
        """The player left holding cards when the session ended (R13)."""
        if not self.over:
            return None
        return self.new_jobs.index(self.n)

    def __repr__(self) -> str:
        return (
            f"SessionState(session={self.session}, round={self.round}, to_move={self.to_move}, "
            f"count={self.count}, top={self.top}, sizes={self.sizes}, out={self.out})"
        )
