"""What a greedy decision costs on a big scenario: one whole seeded turn, greedy on every side.

    .venv/bin/python bench/greedy_turn.py [--game games/stalingrad42] [--scenario fall_blau]
        [--turns 1] [--seed 1] [--agent greedy] [--json] [--no-search-memo]

Plays the first `--turns` turns of the scenario (from its first turn) with the same agent spec on
every side, or one a side (`--agent mcts:playouts=32:horizon=0,greedy`, in the rules' order of the
sides), and prints the CPU time
and, per side of a greedy agent, the decisions, the choices searched inside actions, the
lookaheads and their CPU time (`process_time`,
not wall time: the machine is shared), plus a digest of the log: two versions of the engine that
claim the same decisions must print the same digest.

To compare two versions of the code, run this file with each version's interpreter in the same
session, alternately (A B A B), and read the ratio of their CPU times (docs/balance.md, "What a
greedy decision costs"): the installed `warcodex` package is the one measured, not this folder's.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time

from warcodex.dsl.checker import check_path
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import agents_for, log_text, start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="games/stalingrad42")
    ap.add_argument("--scenario", default="fall_blau")
    ap.add_argument("--turns", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--agent", default="greedy", help="one agent spec for every side, or one a side, comma-separated")
    ap.add_argument("--json", action="store_true", help="one line of JSON instead of text")
    ap.add_argument("--no-search-memo", action="store_true",
                    help="run every movement search afresh (measures what search_memo.py saves)")
    args = ap.parse_args()
    if args.no_search_memo:
        from warcodex.interpreter.context import Context

        Context.search_memo = lambda self: None  # as the reference evaluator: no search remembered
    game, diags = check_path(args.game)
    if diags.errors:
        raise SystemExit(f"{args.game} has errors")
    engine = Engine(game).for_scenario(args.scenario)
    g = start(engine, args.scenario, args.seed, agents_for(engine, args.agent.split(","), args.seed), trace=False)
    t = time.process_time()
    g.run(until_turn=g.state.position.turn + args.turns)  # the scenario's first turn and the next ones
    cpu = time.process_time() - t
    sides = {name: agent.stats() for name, agent in g.agents.items() if hasattr(agent, "stats")}  # search agents
    decisions = sum(s["decisions"] + s["choices_searched"] for s in sides.values())
    out = {"cpu_s": round(cpu, 2), "decisions": decisions, "cpu_ms_per_decision": round(1000 * cpu / max(1, decisions), 1),
           "log_entries": len(g.log), "log_sha1": hashlib.sha1(log_text(g.log).encode()).hexdigest()[:12], "sides": sides}
    if args.json:
        print(json.dumps(out))
        return
    print(f"{args.game} {args.scenario}, {args.turns} turn(s), seed {args.seed}, {args.agent} ({'one a side' if ',' in args.agent else 'on every side'})")
    print(f"CPU {out['cpu_s']} s, {decisions} decisions (choices searched included), "
          f"{out['cpu_ms_per_decision']} ms a decision, log {out['log_entries']} entries sha1 {out['log_sha1']}")
    for name, s in sides.items():
        print(f"  {name}: {s}")


if __name__ == "__main__":
    main()
