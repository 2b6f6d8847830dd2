"""What a plan decision costs against a greedy one, on the same positions, in one run.

    .venv/bin/python bench/plan_decision.py [--game games/stargard-solstice] [--scenario solstice]
        [--side soviet] [--positions 12] [--every 3] [--rounds 2] [--plan plan plan:depth=3 ...]

The positions and the timing are bench/decisions.py's: decisions of one side in a random game
(seed 1), every `--every`-th one; each agent decides once on each position (on a snapshot), a
fresh agent of the same seed each time, its CPU time summed. Greedy and each plan spec are run
alternately `--rounds` times, so that each ratio is to a greedy measured next to it; the actions
played on snapshots (`lookaheads`, plan extensions included) are deterministic for the seed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.decisions import compare_with_greedy, positions_from_command_line  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--plan", nargs="*", default=["plan", "plan:depth=3:width=2"])
    args, engine, _, points = positions_from_command_line(ap, "games/stargard-solstice", "solstice")
    compare_with_greedy(engine, points, args.plan, args.rounds, "lookaheads", "actions looked at")


if __name__ == "__main__":
    main()
