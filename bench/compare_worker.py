"""One side of bench/compare.py: run by a checkout's own Python, it builds that checkout's engine
once, then plays the games asked on stdin (one JSON object a line) and answers each with its
time and the hash of its log. It uses only the API both engines share (check_path, Engine, play,
log_text, RandomAgent), so it also drives an engine older than this file. It says whether its
random agents draw lazily (Warcodex after #14 milestone 2: other games than older engines for the
same seed) and, asked for `eager` draws, plays the older engines' games if it can."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time


def main() -> None:
    import inspect

    from warcodex.dsl.checker import check_path
    from warcodex.interpreter.agents import RandomAgent
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.play import log_text, play

    try:
        version = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                 check=False).stdout.strip() or "?"
    except OSError:
        version = "?"
    t0 = time.perf_counter()
    game, diags = check_path(sys.argv[1])
    if game is None or diags.errors:
        raise SystemExit("\n".join(d.render() for d in diags.errors))
    engine = Engine(game)
    import gc

    gc.collect()
    gc.freeze()  # the rules live as long as the worker (both sides alike, whatever their version)
    lazy = "eager_domains" in inspect.signature(RandomAgent).parameters
    print(json.dumps({"build_s": time.perf_counter() - t0, "version": version, "lazy": lazy}), flush=True)
    derived = {}
    for line in sys.stdin:
        job = json.loads(line)
        scenario = job["scenario"]
        if scenario not in derived:  # the scenario's own rules, built outside the timings
            derived[scenario] = engine.for_scenario(scenario)
            gc.collect()
            gc.freeze()
        t0, c0 = time.perf_counter(), time.process_time()
        error = None
        try:
            agents = None
            if job.get("eager") and lazy:  # the same games as an engine without lazy domains
                sides = derived[scenario].side_entities
                agents = {side.name: RandomAgent(job["seed"] * 1000 + i + 1, eager_domains=True)
                          for i, side in enumerate(sides)}
            g = play(derived[scenario], scenario, job["seed"], agents, trace=job["trace"], check_invariants=True)
            log = g.log
        except Exception as exc:  # noqa: BLE001 - reported, and the logs then differ
            error = f"{type(exc).__name__}: {exc}"
            log = []
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        text = log_text(log)
        print(json.dumps({"seconds": seconds, "cpu_s": cpu, "actions": sum(1 for e in log if e.get("k") == "action"),
                          "log_sha256": hashlib.sha256(text.encode()).hexdigest(), "error": error}), flush=True)


if __name__ == "__main__":
    main()
