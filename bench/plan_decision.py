"""What a plan decision costs against a greedy one, on the same positions, in one run.

    .venv/bin/python bench/plan_decision.py [--game games/stargard-solstice] [--scenario solstice]
        [--side soviet] [--positions 12] [--every 3] [--rounds 2] [--plan plan plan:depth=3 ...]

The positions are decisions of one side in a random game (seed 1, bench/mcts_decision.py's
`positions`), every `--every`-th one. Each agent decides once on each position (on a snapshot),
a fresh agent of the same seed each time; the CPU time of its decisions (`time.process_time`: the
machine is shared) is summed. Greedy and each plan spec are run alternately `--rounds` times, so
that each ratio is to a greedy measured next to it; the actions played on snapshots (lookaheads,
plan extensions included) are deterministic for the seed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.mcts_decision import cost as decision_cost  # noqa: E402
from bench.mcts_decision import positions  # noqa: E402
from warcodex.dsl.checker import check_path  # noqa: E402
from warcodex.interpreter.engine import Engine  # noqa: E402


def cost(engine, spec: str, points: list) -> tuple[float, float]:
    """CPU seconds a decision, and actions played on snapshots a decision, over `points`."""
    return decision_cost(engine, spec, points, counted="lookaheads")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="games/stargard-solstice")
    ap.add_argument("--scenario", default="solstice")
    ap.add_argument("--side", default=None, help="the side that decides (default: the first)")
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--plan", nargs="*", default=["plan", "plan:depth=3:width=2"])
    args = ap.parse_args()
    game, diags = check_path(args.game)
    if diags.errors:
        sys.exit(f"{args.game} has errors")
    engine = Engine(game).for_scenario(args.scenario)
    side = args.side or engine.side_entities[0].name
    points = positions(engine, args.scenario, side, args.positions, args.every)
    print(f"{args.game} {args.scenario}, {side}, {len(points)} positions")
    print("| round | agent | CPU s a decision | vs greedy (same round) | actions looked at a decision |\n|---|---|---|---|---|")
    for r in range(1, args.rounds + 1):
        base, n = cost(engine, "greedy", points)
        print(f"| {r} | greedy | {base:.3f} | 1.0x | {n:.1f} |")
        for spec in args.plan:
            cpu, n = cost(engine, spec, points)
            print(f"| {r} | {spec} | {cpu:.3f} | {cpu / base:.1f}x | {n:.1f} |")


if __name__ == "__main__":
    main()
