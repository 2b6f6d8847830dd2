"""What an MCTS decision costs against a greedy one, on the same positions, in one run.

    .venv/bin/python bench/mcts_decision.py [--game games/stalingrad42] [--scenario fall_blau]
        [--positions 12] [--rounds 1] [--mcts mcts:playouts=8:horizon=4:candidates=4 ...]

The positions and the timing are bench/decisions.py's: the first decisions of one side in a
random game (seed 1), every `--every`-th one, each agent deciding once on each on a snapshot, its
CPU time summed. The figure to read is each MCTS budget's CPU a decision as a ratio to greedy's
(`samples=8`) measured in the same round, and the engine actions its playouts played
(deterministic for the seed: `MCTSAgent.spent`; none for greedy).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.decisions import compare_with_greedy, positions_from_command_line  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--mcts", nargs="*", default=["mcts:playouts=8:horizon=4:candidates=4",
                                                    "mcts:playouts=8:horizon=1:candidates=4",
                                                    "mcts:budget=16:horizon=2:candidates=6:widen=1"])
    args, engine, _, points = positions_from_command_line(ap, "games/stalingrad42", "fall_blau")
    compare_with_greedy(engine, points, args.mcts, args.rounds, "spent", "engine actions")


if __name__ == "__main__":
    main()
