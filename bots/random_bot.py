"""A bot that plays uniformly at random among its legal moves (passes included)."""

from sdk.bot import Bot, TurnView, run


class RandomBot(Bot):
    name = "random"

    def play(self, turn: TurnView) -> list:
        return self.rng.choice(turn.legal)


if __name__ == "__main__":
    run(RandomBot())
