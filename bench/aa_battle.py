"""One Axis & Allies 1941 land battle simulated through the rules, many times.

    .venv/bin/python bench/aa_battle.py [--battles 200] [--base /path/to/old/checkout]

The battle (issue #14): 8 infantry, 3 tanks, 2 fighters and a bomber (Germany) against 9
infantry, 2 tanks and 2 fighters (Soviet Union) in Russia, fought by the rules' `fight` procedure
(Steps 1-7 of §7.2) to its end with random dice (one seed per battle) and agents that always
press the attack and take the first casualty offered. Each battle starts from the same position
(a snapshot); the time is the procedure's alone. Reported: median and mean milliseconds per
battle for the generated rules and for the reference (closure) evaluator, measured in
alternation in this process; with `--base`, also the engine of another checkout (its own
`.venv`), run by the same script in a subprocess in the same run.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
GAME = HERE.parent / "games" / "axis-allies-1941"
ATTACK = {"infantry": 8, "tank": 3, "fighter": 2, "bomber": 1}
DEFEND = {"infantry": 9, "tank": 2, "fighter": 2}
WHERE = "russia"


def _position(engine):
    """The empty 1941 board with its starting control, the battle's units placed, Germany's
    Combat Phase: the state to copy before each battle."""
    from warcodex.interpreter.agents import FirstAgent
    from warcodex.interpreter.context import Context

    class PressOn(FirstAgent):
        def choose(self, ctx, who, what, options, optional):
            if "press attack" in options:
                return options.index("press attack")
            return None if optional else 0

    state = engine.new_game("world_1941", seed=0, setup=False)
    agents = {s.name: PressOn() for s in engine.side_entities}
    ctx = Context(engine, state, agents)
    engine.procedures["start_positions"](ctx, (), None)
    germany = engine.entities["germany"]
    state.active, state.phase = "germany", "start_of_turn"
    engine.procedures["begin_turn"](ctx, (germany,), None)
    state.phase = "combat"
    for side, units in (("germany", ATTACK), ("soviet_union", DEFEND)):
        for type_, n in units.items():
            for _ in range(n):
                engine.place(ctx, engine.entities[type_], engine.entities[side], WHERE, None, None)
    state.touch()
    return state, agents, germany


def measure(engines: dict, battles: int) -> dict:
    """Seconds per battle for each engine, battles interleaved engine by engine."""
    from warcodex.interpreter.context import Context

    positions = {name: _position(e) for name, e in engines.items()}
    times = {name: [] for name in engines}
    survivors = {name: [] for name in engines}
    for seed in range(battles + 5):
        for name, engine in engines.items():
            base, agents, germany = positions[name]
            state = base.snapshot()
            state.rng = random.Random(seed)
            ctx = Context(engine, state, agents)
            fight = engine.procedures["fight"]
            t0 = time.process_time()
            fight(ctx, (WHERE, germany), None)
            dt = time.process_time() - t0
            if seed >= 5:  # the first battles warm the caches up
                times[name].append(dt)
                survivors[name].append(sorted(u.type + "/" + u.side for u in state.units.values() if u.loc == WHERE))
    out = {}
    for name in engines:
        out[name] = {"median_ms": statistics.median(times[name]) * 1e3, "mean_ms": statistics.mean(times[name]) * 1e3,
                     "battles": len(times[name])}
    names = list(engines)
    out["same_outcomes"] = all(survivors[n] == survivors[names[0]] for n in names)
    return out


def worker(battles: int) -> None:
    """Run by another checkout's Python: its default engine only (the API both share)."""
    from warcodex.dsl.checker import check_path
    from warcodex.interpreter.engine import Engine

    game, _ = check_path(GAME)
    print(json.dumps(measure({"engine": Engine(game)}, battles)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--battles", type=int, default=200)
    ap.add_argument("--base", type=Path, help="another checkout with its own .venv, measured in the same run")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.battles)
        return 0
    sys.path.insert(0, str(HERE.parent))
    from warcodex.dsl.checker import check_path
    from warcodex.interpreter.engine import Engine

    game, _ = check_path(GAME)
    engines = {"generated": Engine(game, evaluator="generated"), "reference": Engine(game, evaluator="reference")}
    result = measure(engines, args.battles)
    if args.base is not None:
        python = args.base.resolve() / ".venv" / "bin" / "python"
        done = subprocess.run([str(python), str(Path(__file__).resolve()), "--worker", "--battles", str(args.battles)],
                              cwd=args.base, capture_output=True, text=True, check=True)
        result["base"] = json.loads(done.stdout.strip().splitlines()[-1])["engine"]
    for name in ("generated", "reference", "base"):
        if name in result:
            r = result[name]
            print(f"{name:10} median {r['median_ms']:.2f} ms, mean {r['mean_ms']:.2f} ms per battle ({r['battles']} battles)")
    print(f"generated and reference reach the same outcomes: {result['same_outcomes']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
