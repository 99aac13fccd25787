"""Leads its lowest single card, follows with the lowest card that beats (docs/writing-a-bot.md)."""

from sdk.bot import Bot, TurnView, run


class LowFirst(Bot):
    name = "low-first"

    def play(self, turn: TurnView):
        singles = [m for m in turn.legal_moves if m.count == 1 and not m.freelancers]
        if turn.lead:
            return min(singles or turn.legal_moves, key=lambda m: m.value)
        beats = [m for m in turn.legal_moves if not m.is_pass and not m.freelancers]
        return min(beats, key=lambda m: m.value) if beats else []   # [] passes


if __name__ == "__main__":
    run(LowFirst())
