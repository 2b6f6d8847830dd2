"""What an MCTS decision costs against a greedy one, on the same positions, in one run.

    .venv/bin/python bench/mcts_decision.py [--game games/stalingrad42] [--scenario fall_blau]
        [--positions 12] [--mcts mcts:playouts=8:horizon=4:candidates=4 ...]

The positions are the first decisions of one side in a random game (seed 1), every `--every`-th
one. Each agent decides once on each position (on a snapshot: the position is not changed), with
a fresh agent of the same seed, and the CPU time of its decisions (`time.process_time`, not wall
time: the machine is shared) is summed. The figure to read is each MCTS budget's CPU a decision
as a ratio to greedy's (`samples=8`) measured in the same run, and the engine actions its
playouts played (deterministic for the seed: `MCTSAgent.spent`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from warcodex.dsl.checker import check_path  # noqa: E402
from warcodex.interpreter.agents import LegalActions, RandomAgent, make_agent  # noqa: E402
from warcodex.interpreter.context import Context  # noqa: E402
from warcodex.interpreter.engine import Engine  # noqa: E402
from warcodex.interpreter.play import start  # noqa: E402


class _Recorder(RandomAgent):
    """Random play that keeps a snapshot of every decision point of one side."""

    def __init__(self, seed, keep):
        super().__init__(seed)
        self.keep = keep

    def choose_action(self, ctx, side, legal):
        self.keep.append((ctx.state.snapshot(), side, list(legal.names), legal.may_pass))
        return super().choose_action(ctx, side, legal)


def positions(engine, scenario: str, side: str, count: int, every: int) -> list:
    kept: list = []
    agents = {s.name: (_Recorder(1000 + i, kept) if s.name == side else RandomAgent(1000 + i))
              for i, s in enumerate(engine.side_entities)}
    game = start(engine, scenario, 1, agents, trace=False)
    while len(kept) < count * every and not game.state.over:
        game.run(max_actions=game.runner.actions_taken + 1)
    return kept[::every][:count]


def cost(engine, spec: str, points: list, counted: str = "spent") -> tuple[float, float]:
    """CPU seconds a decision, and the agent's `counted` attribute a decision, over `points`
    (MCTS's `spent`: engine actions of its budget, 0 for greedy; bench/plan_decision.py counts
    `lookaheads`, the actions played on snapshots)."""
    cpu = spent = 0.0
    for i, (state, side, names, may_pass) in enumerate(points):
        agent = make_agent(spec, 7 + i)
        agents = {s.name: agent for s in engine.side_entities}
        ctx = Context(engine, state.snapshot(), agents)
        legal = LegalActions(engine, ctx, names)
        legal.may_pass = may_pass
        t = time.process_time()
        agent.choose_action(ctx, side, legal)
        cpu += time.process_time() - t
        spent += getattr(agent, counted, 0)
    return cpu / len(points), spent / len(points)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="games/stalingrad42")
    ap.add_argument("--scenario", default="fall_blau")
    ap.add_argument("--side", default=None, help="the side that decides (default: the first)")
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--mcts", nargs="*", default=["mcts:playouts=8:horizon=4:candidates=4",
                                                    "mcts:playouts=8:horizon=1:candidates=4",
                                                    "mcts:budget=16:horizon=2:candidates=6:widen=1"])
    args = ap.parse_args()
    game, diags = check_path(args.game)
    if diags.errors:
        sys.exit(f"{args.game} has errors")
    engine = Engine(game).for_scenario(args.scenario)
    side = args.side or engine.side_entities[0].name
    points = positions(engine, args.scenario, side, args.positions, args.every)
    base, _ = cost(engine, "greedy", points)
    print(f"{args.game} {args.scenario}, {side}, {len(points)} positions")
    print(f"| agent | CPU s a decision | vs greedy | engine actions a decision |\n|---|---|---|---|")
    print(f"| greedy | {base:.3f} | 1.0x | - |")
    for spec in args.mcts:
        cpu, spent = cost(engine, spec, points)
        print(f"| {spec} | {cpu:.3f} | {cpu / base:.1f}x | {spent:.1f} |")


if __name__ == "__main__":
    main()
