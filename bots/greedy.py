"""A greedy bot: leads its lowest number with all copies; follows with the cheapest legal play.

"Cheapest" means the fewest freelancers first, then the lowest value; freelancers alone come last.
"""

from sdk.bot import Bot, TurnView, run
from sdk.moves import Move


class GreedyBot(Bot):
    name = "greedy"

    def play(self, turn: TurnView) -> Move:
        moves = turn.legal_moves
        if turn.lead:
            numbers = [m for m in moves if m.numbers and not m.freelancers]
            if not numbers:  # only freelancers left: play them all
                return max(moves, key=lambda m: m.count)
            lowest = min(m.value for m in numbers)
            return max((m for m in numbers if m.value == lowest), key=lambda m: m.numbers)
        plays = [m for m in moves if not m.is_pass]
        if not plays:
            return moves[0]  # pass
        return min(plays, key=lambda m: (m.freelancers_alone, m.freelancers, m.value))


if __name__ == "__main__":
    run(GreedyBot())
