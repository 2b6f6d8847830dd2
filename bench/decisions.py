"""What the decision benches share (bench/mcts_decision.py, bench/plan_decision.py): the positions
an agent decides on, the CPU of its decisions, and the command line that sets them up.

The positions are decisions of one side in a random game (seed 1), every `--every`-th one. Each
agent decides once on each position (on a snapshot: the position is not changed), with a fresh
agent of the same seed, and the CPU time of its decisions (`time.process_time`, not wall time:
the machine is shared) is summed.
"""

from __future__ import annotations

import argparse
import sys
import time

from warcodex.dsl.checker import check_path
from warcodex.interpreter.agents import LegalActions, RandomAgent, make_agent
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import start


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


def positions_from_command_line(ap: argparse.ArgumentParser, game: str, scenario: str):
    """Parse a decision bench's command line: `ap` (with the bench's own options) gets the
    shared ones (--game, --scenario, --side, --positions, --every); the game is checked, its
    positions recorded and named on the first line of the output. Returns (args, engine, side,
    points)."""
    ap.add_argument("--game", default=game)
    ap.add_argument("--scenario", default=scenario)
    ap.add_argument("--side", default=None, help="the side that decides (default: the first)")
    ap.add_argument("--positions", type=int, default=12)
    ap.add_argument("--every", type=int, default=3)
    args = ap.parse_args()
    checked, diags = check_path(args.game)
    if diags.errors:
        sys.exit(f"{args.game} has errors")
    engine = Engine(checked).for_scenario(args.scenario)
    side = args.side or engine.side_entities[0].name
    points = positions(engine, args.scenario, side, args.positions, args.every)
    print(f"{args.game} {args.scenario}, {side}, {len(points)} positions")
    return args, engine, side, points


def compare_with_greedy(engine, points: list, specs: list[str], rounds: int, counted: str, what: str) -> None:
    """Print each agent spec's CPU a decision on `points` as a ratio to greedy's measured in the
    same round (greedy and the specs alternate, `rounds` times: the machine's load drifts), with
    the agent's `counted` attribute a decision (`what`), as a Markdown table."""
    print(f"| round | agent | CPU s a decision | vs greedy (same round) | {what} a decision |\n|---|---|---|---|---|")
    for r in range(1, rounds + 1):
        base, n = cost(engine, "greedy", points, counted)
        print(f"| {r} | greedy | {base:.3f} | 1.0x | {n:.1f} |")
        for spec in specs:
            cpu, n = cost(engine, spec, points, counted)
            print(f"| {r} | {spec} | {cpu:.3f} | {cpu / base:.1f}x | {n:.1f} |")
