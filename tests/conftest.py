"""Shared test helpers: make the example bots importable."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bots"))  # `from greedy import GreedyBot`
sys.path.insert(0, str(ROOT))  # `from bots.greedy import GreedyBot` (plain `pytest` does not add the cwd)
