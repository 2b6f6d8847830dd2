"""One side of bench/compare.py: run by a checkout's own Python, it builds that checkout's engine
once, then plays the games asked on stdin (one JSON object a line) and answers each with its
time and the hash of its log. It uses only the API both engines share (check_path, Engine, play,
log_text, RandomAgent), so it also drives an engine older than this file. It says whether its
random agents draw lazily (Warcodex after #14 milestone 2: other games than older engines for the
same seed) and, asked for `eager` draws, plays the older engines' games if it can. Asked for
`log`, it sends the entries of the last game it played; asked to `inspect` a game, it plays it
again up to a decision and sends, for each decision, the action chosen, the legal actions in
their enumeration order, each action's first parameter's candidates in their order and the state
of the deciding agent's random generator (where
two engines' games part: bench/logdiff.py)."""

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
    last_log: list = []
    for line in sys.stdin:
        job = json.loads(line)
        if job.get("log"):
            print(json.dumps({"entries": last_log}), flush=True)
            continue
        scenario = job["scenario"]
        if scenario not in derived:  # the scenario's own rules, built outside the timings
            derived[scenario] = engine.for_scenario(scenario)
            gc.collect()
            gc.freeze()
        eager = job.get("eager") and lazy  # the same games as an engine without lazy domains

        def agents(agent_class=RandomAgent):
            sides = derived[scenario].side_entities
            return {side.name: agent_class(job["seed"] * 1000 + i + 1, **({"eager_domains": True} if eager else {}))
                    for i, side in enumerate(sides)}

        if "inspect" in job:
            print(json.dumps({"decisions": _inspect(derived[scenario], scenario, job["seed"], job["inspect"],
                                                    agents, RandomAgent, play)}), flush=True)
            continue
        t0, c0 = time.perf_counter(), time.process_time()
        error = None
        try:
            g = play(derived[scenario], scenario, job["seed"], agents() if eager else None, trace=job["trace"],
                     check_invariants=True)
            log = g.log
        except Exception as exc:  # noqa: BLE001 - reported, and the logs then differ
            error = f"{type(exc).__name__}: {exc}"
            log = []
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        text = log_text(log)
        last_log = [json.loads(x) for x in text.splitlines() if x.strip()]
        print(json.dumps({"seconds": seconds, "cpu_s": cpu, "actions": sum(1 for e in log if e.get("k") == "action"),
                          "log_sha256": hashlib.sha256(text.encode()).hexdigest(), "error": error}), flush=True)


class _Enough(Exception):
    """The inspected decision is reached: the game stops there."""


def _inspect(engine, scenario: str, seed: int, upto: int, agents, random_agent, play) -> list[dict]:
    """Play the game again, recording decisions 0..upto (see the module's docstring); only the
    API both engines share (LegalActions.all, the actions' parameters' `source`)."""
    from warcodex.interpreter.compiler import Frame

    found: list[dict] = []

    def key(a):
        return None if a is None else [a.action, [[k, repr(v)] for k, v in a.args]]

    def domains(ctx, names):
        out = {}
        for name in names:
            try:
                params = engine.actions[name].params
                out[name] = [repr(x) for x in params[0].source(Frame(ctx))][:300] if params else []
            except Exception:  # noqa: BLE001 - a domain that needs the engine's own scratch: not compared
                out[name] = None
        return out

    class Recording(random_agent):
        def choose_action(self, ctx, side, legal):
            # the agent's generator before it draws: two engines' agents that drew the same numbers so far agree
            rng = hashlib.sha256(repr(self.rng.getstate()).encode()).hexdigest()[:16]
            record = {"side": str(side), "rng": rng, "legal": [key(a) for a in legal.all(limit=300)],
                      "domains": domains(ctx, legal.names)}
            chosen = super().choose_action(ctx, side, legal)
            found.append({**record, "chosen": key(chosen)})
            if len(found) > upto:
                raise _Enough
            return chosen

    try:
        play(engine, scenario, seed, agents(Recording), trace=False, check_invariants=True)
    except _Enough:
        pass
    except Exception:  # noqa: BLE001 - the decisions recorded so far are what is asked
        pass
    return found


if __name__ == "__main__":
    main()
