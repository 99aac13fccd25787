"""A hand-planning bot: it counts cards, keeps its groups whole and uses the lead to shed.

The ideas, in the order the code applies them (a hand is a count vector, see sdk/cards.py):

- **Groups.** A hand needs one lead per distinct number it holds (freelancers ride along with any
  play), so the number of groups is how far a hand is from going out. Following with a number whose
  copies we hold *exactly* removes a whole group without spending a lead: that is the best follow.
- **Counting cards.** Everything not in our hand and not yet played (``played`` in the turn message)
  is held by the others. A play of ``k`` cards of value ``v`` is a *boss* when no ``k`` of the
  unseen cards (freelancers included) can beat it: it wins the round for sure, so we lead again.
- **Using the lead.** When at most one group is not a boss, we go out in a chain: lead the bosses
  one by one (each keeps the lead) and the last group at the end. Otherwise we lead our lowest
  group, all copies (low cards can only be shed by leading), but a big group (3+ copies) first,
  because few opponents can follow three or four cards and it usually keeps the lead.
- **Breaking a pair** to follow costs a strong group for a weak play, so we only break a group for
  cards that are low anyway, or when the hand is nearly out.
- **Freelancers** are wild and, alone, worth 14 and unbeatable. We keep them for the end: to complete
  the follow that empties our hand, to turn the last groups into bosses, or to stop an opponent who
  is about to go out.
- **High cards** (a boss) are kept while the hand is long: they are what takes the lead back later.
- **Danger.** When an opponent is about to go out (few cards left), we avoid leading the count they
  could follow and play our strongest follow to take the round from them.

The job order of the last session decides the match (R15) and every session sets the exchange,
so the bot simply tries to go out as early as it can, every session.

The policy works on plain count vectors (:func:`choose`), so the search bot (bots/ismcts.py) uses
the same code in its rollouts; it is written for speed (no allocation on the common paths).
"""

from __future__ import annotations

from collections.abc import Sequence

from sdk.bot import Bot, TurnView, run
from sdk.cards import F
from sdk.moves import FREELANCER_MOVES, PASS, Move, make_move

FREELANCERS_ALONE = 14
DANGER_CARDS = 2
"""An opponent with this many cards or fewer is about to go out."""
BREAK_MAX = 7
"""The highest number we break a bigger group of to follow, while the hand is long."""
BIG_GROUP = 3
"""Lead a group of this many copies first (if its number is at most BIG_GROUP_MAX)."""
BIG_GROUP_MAX = 9
SHORT_HAND = 3
"""With this many groups or fewer the hand is short: spend bosses and freelancers freely."""


def beat_value(hand: Sequence[int], remaining: Sequence[int], k: int, hi: int) -> int:
    """The highest value the cards held by others could make with ``k`` cards (0 if none).

    ``remaining`` counts the cards not played yet (ours included), so ``remaining - hand`` is what
    the others hold between them. 14 means their freelancers alone could make ``k`` cards.
    """
    free = remaining[F] - hand[F]
    if free >= k:
        return FREELANCERS_ALONE
    for w in range(hi, 0, -1):
        u = remaining[w] - hand[w]
        if u and u + free >= k:
            return w
    return 0


def lead_move(hand: Sequence[int], remaining: Sequence[int], danger: int, hi: int, offset: int) -> Move:
    """What to lead. ``danger``: the fewest cards an opponent holds, 0 if nobody is close to out."""
    free = hand[F]
    groups = [v for v in range(1, hi + 1) if hand[v]]
    if not groups:
        return FREELANCER_MOVES[free]
    if len(groups) == 1:  # one play empties the hand
        v = groups[0]
        return make_move(v, hand[v], free)
    bosses = []
    losers = []
    beats: dict[int, int] = {}
    for v in groups:
        k = hand[v]
        b = beats.get(k)
        if b is None:
            b = beats[k] = beat_value(hand, remaining, k, hi)
        (bosses if b < v + offset else losers).append(v)
    # Chain out: every boss keeps the lead, the last group goes out (freelancers ride with it).
    if bosses and len(losers) <= 1:
        v = bosses[0]
        return make_move(v, hand[v], 0)
    # Two losers and freelancers: the freelancers make the higher one a boss, the other one goes last.
    if free and len(losers) == 2 and not bosses:
        v = losers[1]
        if beat_value(hand, remaining, hand[v] + free, hi) < v + offset:
            return make_move(v, hand[v], free)
    if danger:
        # An opponent with `danger` cards goes out by following a lead of exactly that many cards.
        for v in losers:
            if hand[v] > danger:
                return make_move(v, hand[v], 0)
        if bosses:
            v = bosses[0]
            return make_move(v, hand[v], 0)
        v = losers[-1]  # nothing safe: our highest loser is the hardest to beat
        return make_move(v, hand[v], 0)
    # A big low group first: it sheds many cards and usually keeps the lead.
    for v in losers:
        if v > BIG_GROUP_MAX:
            break
        if hand[v] >= BIG_GROUP:
            return make_move(v, hand[v], 0)
    v = losers[0]
    return make_move(v, hand[v], 0)


def follow_move(
    hand: Sequence[int], count: int, top: int, remaining: Sequence[int], danger: int, left: int,
    hi: int, offset: int,
) -> Move:
    """What to follow ``count`` cards above ``top`` with (PASS allowed); ``left``: cards in hand."""
    if top >= FREELANCERS_ALONE and top > hi:
        return PASS
    free = hand[F]
    lo = top + offset
    exact = 0  # lowest number we hold exactly `count` of
    bigger = 0  # lowest number we hold more than `count` of
    fill = 0  # lowest number freelancers can complete to `count`
    for v in range(lo, hi + 1):
        h = hand[v]
        if h:
            if h == count:
                if not exact:
                    exact = v
            elif h > count:
                if not bigger:
                    bigger = v
            elif h + free >= count and not fill:
                fill = v
    alone = free >= count and top < FREELANCERS_ALONE
    if not (exact or bigger or fill or alone):
        return PASS
    # Go out now if one play empties the hand.
    if left == count:
        if exact and not free:
            return make_move(exact, count, 0)
        if fill and hand[fill] + free == count:
            return make_move(fill, hand[fill], free)
        if alone and free == count:
            return FREELANCER_MOVES[free]
    n_groups = 0
    for v in range(1, hi + 1):
        if hand[v]:
            n_groups += 1
    short = n_groups <= SHORT_HAND
    # 1. Exact fit: a whole group, no freelancer, lowest first. Keep a boss while the hand is long.
    if exact:
        if short or danger or beat_value(hand, remaining, count, hi) >= exact + offset:
            return make_move(exact, count, 0)
    # 2. Freelancers complete a group (a whole group goes), late in the session.
    if fill and (short or danger):
        return make_move(fill, hand[fill], count - hand[fill])
    # 3. Break a bigger group, only with low cards or when the hand is nearly out.
    if bigger and (bigger <= BREAK_MAX or danger or n_groups <= 2):
        return make_move(bigger, count, 0)
    if exact and n_groups <= SHORT_HAND + 1:
        return make_move(exact, count, 0)
    # 4. Stop an opponent about to go out: our strongest play, freelancers included.
    if danger and danger <= count + 1:
        for v in range(hi, lo - 1, -1):
            if hand[v] and hand[v] + free >= count:
                n = min(hand[v], count)
                return make_move(v, n, count - n)
        if alone:
            return FREELANCER_MOVES[count]
    return PASS


def choose(
    hand: Sequence[int], count: int, top: int, remaining: Sequence[int], danger: int, left: int,
    hi: int = 13, offset: int = 1,
) -> Move:
    """The heuristic's move (``count == 0``: we lead). ``remaining``: the cards not played yet."""
    if not count:
        return lead_move(hand, remaining, danger, hi, offset)
    return follow_move(hand, count, top, remaining, danger, left, hi, offset)


class HeuristicBot(Bot):
    name = "heuristic"

    def play(self, turn: TurnView) -> Move:
        msg = turn.message
        hand = turn.hand_counts
        rules = turn.rules
        remaining = rules.deck(len(msg.jobs))
        for key, c in msg.played.items():
            remaining[F if key == "F" else int(key)] -= c
        others = [s for p, s in enumerate(msg.hand_sizes) if p != self.me and s]
        low = min(others) if others else 99
        danger = low if low <= DANGER_CARDS else 0
        offset = 0 if rules.equal_allowed else 1
        move = choose(hand, turn.count or 0, turn.top or 0, remaining, danger, sum(hand), rules.max_number, offset)
        legal = turn.legal_moves
        if move not in legal:  # never send an illegal move, whatever the rules preset
            move = legal[0] if not turn.lead else min(legal, key=lambda m: (m.value, -m.numbers))
        return move


if __name__ == "__main__":
    run(HeuristicBot())
