"""Warcodex benchmark suite: movement range, combat resolution, self-play, and the interpreted
rules against a hand-written Python baseline of the same mechanics (bench/baseline.py).

    .venv/bin/python bench/run.py [--quick] [--profile] [--seed N] [--out bench/results.json]

Prints tables with rich and writes bench/results.json. Timings use time.perf_counter with the
garbage collector paused around each timed section (as timeit does), after a warm-up; each figure
is a median over repetitions. Definitions:

* movement, cold: `ctx.cache = {}`, `engine.static_cache.clear()`, state and positions versions bumped
  before each call: nothing cached (first search of a game, or right after a weather change);
* movement, warm: `ctx.cache = {}`, state and positions versions bumped, static cache filled:
  the normal case during play, e.g. the first search after any move;
* movement, hot memo: only `ctx.cache = {}`: same state and positions, so the memo of
  rule functions (in_enemy_zoc...) is still filled; an upper bound, shown for information;
* combat, fresh memo: a version bump before each combat, so nothing computed for one combat is
  reused by the next (as in play, where every combat changes the state); shared memo: no bump.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from bench import baseline as bl  # noqa: E402
from bench import fixtures as fx  # noqa: E402
from warcodex.interpreter.engine import Engine  # noqa: E402
from warcodex.interpreter.play import play  # noqa: E402

MOVE_TARGET_MS = 5.0
RATIO_TARGET = {"warm": 2.0, "cold": 3.0, "combat": 2.0}  # issue #14: of the hand-written baseline
BOARD = 50

FULL = {"positions": 60, "reps": 9, "combats": 10_000, "combat_reps": 5, "games": 60,
        "eq_units": 50, "eq_combats": 1000}
QUICK = {"positions": 12, "reps": 5, "combats": 10_000, "combat_reps": 2, "games": 6,
         "eq_units": 50, "eq_combats": 1000}

console = Console(width=None if sys.stdout.isatty() else 150)
perf = time.perf_counter


def forget(state) -> None:
    """Invalidate every per-state memo, as a unit moving does: the state version and the
    positions version (rules that read unit positions, like zones of control, are memoized on
    it)."""
    state.touch()
    state.positions_version += 1


def machine_info() -> dict:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        usable = None
    return {"python": sys.version.split()[0], "implementation": platform.python_implementation(),
            "platform": platform.platform(), "machine": platform.machine(), "processor": platform.processor() or None,
            "cpu_count": os.cpu_count(), "cpus_usable": usable}


class paused_gc:
    def __enter__(self):
        gc.collect()
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was:
            gc.enable()


def pct(values, p: float) -> float:
    """The p-th percentile (nearest rank) of a list."""
    s = sorted(values)
    return s[max(0, min(len(s) - 1, math.ceil(p / 100 * len(s)) - 1))]


# ================================================================ 1 + 4: movement
def bench_movement(cfg: dict, seed: int) -> dict:
    w = fx.make_world(BOARD, seed)
    fx.populate_movement(w)
    fx.set_weather(w.engine, w.state, "fair")
    mode = w.engine.modes["ground"]
    rng = random.Random(seed)
    positions = rng.sample(fx.free_hexes(w, "axis"), cfg["positions"])
    reps = cfg["reps"]
    out = {"board": f"{BOARD}x{BOARD}", "hexes": len(w.engine.board), "enemy_units": 40, "friendly_units": 20,
           "positions": len(positions), "reps_per_position": reps, "units": {}}
    for type_ in ("panzer", "infantry"):
        ref = fx.mover(w, type_, "axis", positions[0])
        series = {"cold": [], "warm": [], "hot_memo": [], "baseline": []}
        best = {k: [] for k in series}  # per start hex: the fastest of the reps (robust to load bursts)
        sizes = []
        # warm-up: every position once, engine and baseline
        for loc in positions:
            fx.mover(w, type_, "axis", loc)
            fx.engine_reachable(w, ref, cold=True)
            bl.reachable(w.bb, w.state, ref.id, "fair")
        for loc in positions:
            fx.mover(w, type_, "axis", loc)
            times = {k: [] for k in series}
            state, bb, uid, ctx, static = w.state, w.bb, ref.id, w.ctx, w.engine.static_cache
            with paused_gc():
                for _ in range(reps):  # the four cases interleaved, so load bursts hit all alike
                    ctx.cache = {}  # cold: nothing cached
                    static.clear()
                    forget(state)
                    t0 = perf()
                    r = mode.reachable(ctx, ref)
                    times["cold"].append(perf() - t0)
                    ctx.cache = {}  # warm: the cold search just filled the static cache
                    forget(state)
                    t0 = perf()
                    mode.reachable(ctx, ref)
                    times["warm"].append(perf() - t0)
                    ctx.cache = {}  # hot memo: same state version, reachable cache only cleared
                    t0 = perf()
                    mode.reachable(ctx, ref)
                    times["hot_memo"].append(perf() - t0)
                    t0 = perf()
                    bl.reachable(bb, state, uid, "fair")
                    times["baseline"].append(perf() - t0)
            sizes.append(len(r))
            for k in series:
                series[k].append(statistics.median(times[k]))
                best[k].append(min(times[k]))
        fx.park(w, ref)
        u = {"allowance_mp": bl.MOVE[type_], "mechanized": type_ in bl.MECHANIZED,
             "mean_hexes_reached": statistics.mean(sizes), "max_hexes_reached": max(sizes)}
        for k, v in series.items():
            u[k] = {"median_ms": statistics.median(v) * 1e3, "p90_ms": pct(v, 90) * 1e3,
                    "best_ms": statistics.median(best[k]) * 1e3, "total_ms": sum(v) * 1e3}
        for k in ("cold", "warm", "hot_memo"):
            u[f"ratio_{k}_vs_baseline"] = sum(series[k]) / sum(series["baseline"])
            u[f"ratio_{k}_vs_baseline_best"] = sum(best[k]) / sum(best["baseline"])
        out["units"][type_] = u
    return out


# ================================================================ 2 + 4: combat
def bench_combat(cfg: dict, seed: int) -> dict:
    w = fx.make_world(BOARD, seed + 1)
    fx.populate_combat(w)
    fx.set_weather(w.engine, w.state, "fair")
    combats = fx.random_combats(w, cfg["combats"], seed)
    engine, ctx, state, bb = w.engine, w.ctx, w.state, w.bb
    q = engine.quantities["crt_column"]
    crt = engine.tables["crt"]
    allowed, lookup = crt.allowed, crt.lookup
    b_column, b_allowed, b_result = bl.crt_column, bl.allowed, bl.crt_result
    inputs = [(c.attackers, c.target, c.roll) for c in combats]

    chunks = [inputs[i:i + 250] for i in range(0, len(inputs), 250)]
    chunk_best_e = [float("inf")] * len(chunks)
    chunk_best_b = [float("inf")] * len(chunks)
    def touch() -> None:
        forget(state)

    def run_interleaved() -> tuple[float, float]:
        """Fresh-memo engine and baseline, alternating by chunks of 250 combats (so a burst of
        load from other processes hits both alike); returns the two summed times."""
        t_engine = t_base = 0.0
        with paused_gc():
            for i, chunk in enumerate(chunks):
                t0 = perf()
                for attackers, target, roll in chunk:
                    touch()
                    col = q(ctx, (attackers, target), None)
                    if allowed(col):
                        codes = tuple(str(c) for c in lookup([col, roll], None).codes)
                t1 = perf()
                for attackers, target, roll in chunk:
                    rank = b_column(bb, state, attackers, target, "fair")
                    if b_allowed(rank):
                        codes = b_result(rank, roll)  # noqa: F841
                t2 = perf()
                t_engine += t1 - t0
                t_base += t2 - t1
                chunk_best_e[i] = min(chunk_best_e[i], t1 - t0)
                chunk_best_b[i] = min(chunk_best_b[i], t2 - t1)
        return t_engine, t_base

    def run_shared() -> float:
        with paused_gc():
            touch()
            t0 = perf()
            for attackers, target, roll in inputs:
                col = q(ctx, (attackers, target), None)
                if allowed(col):
                    codes = tuple(str(c) for c in lookup([col, roll], None).codes)  # noqa: F841
            return perf() - t0

    # warm-up
    for attackers, target, roll in inputs[:500]:
        touch()
        q(ctx, (attackers, target), None)
        b_column(bb, state, attackers, target, "fair")
    fresh, shared, base = [], [], []
    for _ in range(cfg["combat_reps"]):
        e, b = run_interleaved()
        fresh.append(e)
        base.append(b)
        shared.append(run_shared())
    n = len(inputs)
    legal = sum(1 for a, t, r in inputs if bl.allowed(b_column(bb, state, a, t, "fair")))

    def fig(v):
        return {"total_s": statistics.median(v), "per_combat_us": statistics.median(v) / n * 1e6}

    distinct = len({(a, t) for a, t, r in inputs})
    return {"combats": n, "distinct_queries": distinct, "allowed": legal, "reps": cfg["combat_reps"],
            "best_per_combat_us": {"engine_fresh_memo": sum(chunk_best_e) / n * 1e6, "baseline": sum(chunk_best_b) / n * 1e6},
            "ratio_fresh_vs_baseline_best": sum(chunk_best_e) / sum(chunk_best_b),
            "engine_fresh_memo": fig(fresh),
            "engine_shared_memo": fig(shared), "baseline": fig(base),
            "ratio_fresh_vs_baseline": statistics.median([e / b for e, b in zip(fresh, base)]),
            "ratio_shared_vs_baseline": statistics.median(shared) / statistics.median(base)}


# ================================================================ 3: self-play
def bench_selfplay(cfg: dict) -> dict:
    engine = Engine(fx.tiny_game())
    t0 = perf()
    first = play(engine, "meeting", seed=0, trace=False)  # warm-up (fills the static cache)
    first_s = perf() - t0
    times, actions, winners = [], [], {}
    for s in range(1, cfg["games"] + 1):
        with paused_gc():
            t0 = perf()
            g = play(engine, "meeting", seed=s, trace=False)
            times.append(perf() - t0)
        summary = g.summary()
        actions.append(summary["actions"])
        winners[str(summary["winner"])] = winners.get(str(summary["winner"]), 0) + 1
    total = sum(times)
    # a separate pass: the share of game time spent inside ground-movement searches (the
    # mode's bound method is wrapped on the instance; the timed games above ran unwrapped)
    mode = engine.modes["ground"]
    inner = mode.search
    spent = [0.0, 0]

    def timed_search(*a, **k):
        t0 = perf()
        try:
            return inner(*a, **k)
        finally:
            spent[0] += perf() - t0
            spent[1] += 1

    mode.search = timed_search
    try:
        n_share = min(10, cfg["games"])
        with paused_gc():
            t0 = perf()
            for s in range(1, n_share + 1):
                play(engine, "meeting", seed=s, trace=False)
            share_total = perf() - t0
    finally:
        del mode.search
    return {"search_share": spent[0] / share_total, "searches_per_game": spent[1] / n_share,
            "ms_per_search": spent[0] / max(1, spent[1]) * 1e3,
            "games": len(times), "first_game_s": first_s, "first_game_actions": first.summary()["actions"],
            "total_s": total, "games_per_s": len(times) / total, "actions": sum(actions),
            "actions_per_game": statistics.mean(actions), "actions_per_s": sum(actions) / total,
            "median_game_ms": statistics.median(times) * 1e3, "p90_game_ms": pct(times, 90) * 1e3, "winners": winners}


# ================================================================ profiles
def profile_all(cfg: dict, seed: int, top: int = 14) -> dict:
    import cProfile
    import pstats

    out = {}
    w = fx.make_world(BOARD, seed)
    fx.populate_movement(w)
    positions = random.Random(seed).sample(fx.free_hexes(w, "axis"), cfg["positions"])
    ref = fx.mover(w, "panzer", "axis", positions[0])
    for loc in positions:
        fx.mover(w, "panzer", "axis", loc)
        fx.engine_reachable(w, ref, cold=False)

    def movement(cold: bool):
        for _ in range(3):
            for loc in positions:
                fx.mover(w, "panzer", "axis", loc)
                fx.engine_reachable(w, ref, cold=cold)

    wc = fx.make_world(BOARD, seed + 1)
    fx.populate_combat(wc)
    combats = fx.random_combats(wc, 3000, seed)

    def combat():
        for c in combats:
            wc.state.touch()
            fx.engine_combat(wc, c)

    engine = Engine(fx.tiny_game())
    play(engine, "meeting", seed=0, trace=False)

    def selfplay():
        for s in range(1, 6):
            play(engine, "meeting", seed=s, trace=False)

    for name, fn in (("movement warm (panzer)", lambda: movement(False)), ("movement cold (panzer)", lambda: movement(True)),
                     ("combat (fresh memo)", combat), ("self-play", selfplay)):
        prof = cProfile.Profile()
        prof.enable()
        fn()
        prof.disable()
        st = pstats.Stats(prof)
        total = st.total_tt
        rows = []
        for (file, line, func), (cc, nc, tt, ct, _callers) in sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:top]:
            where = f"{Path(file).parent.name}/{Path(file).name}:{line}" if file != "~" else "builtin"
            rows.append({"function": func, "where": where, "calls": nc, "tottime_s": round(tt, 4),
                         "tottime_pct": round(100 * tt / total, 1), "cumtime_s": round(ct, 4)})
        out[name] = {"total_s": round(total, 3), "top_by_tottime": rows}
    return out


def breakdown(seed: int) -> list[dict]:
    """Per-call cost of the pieces of a search and of a combat, interpreted vs hand-written
    (best of 5 passes, fresh per-version memo for each call, as in the benchmarks)."""
    from fractions import Fraction

    from warcodex.interpreter.builtins import b_units_at
    from warcodex.interpreter.values import UnitRef

    w = fx.make_world(BOARD, seed)
    fx.populate_movement(w)
    fx.set_weather(w.engine, w.state, "fair")
    engine, ctx, state, bb = w.engine, w.ctx, w.state, w.bb
    mode = engine.modes["ground"]
    locs = w.region(0.2, 0.8)[:400]
    ref = fx.mover(w, "panzer", "axis", fx.free_hexes(w, "axis")[0])
    axis = engine.entities["axis"]
    origin = locs[0]
    pairs = [(a, b) for a in locs for b in engine.board.neighbors(a)][:400]
    units, at, nb = state.units, state.at, bb.neighbors
    rows = []

    def run(label, items, fn, per="call", base=None):
        best = float("inf")
        with paused_gc():
            for _ in range(5):
                t0 = perf()
                for x in items:
                    fn(x)
                best = min(best, perf() - t0)
        rows.append({"piece": label, "per": per, "us": best / len(items) * 1e6, "baseline_of": base})

    touch = state.touch
    run("(overhead: state.touch per call)", locs, lambda h: touch())

    def cond(fn):
        def f(h):
            touch()
            fn(ctx, ref, axis, origin, origin, h)
        return f

    # each per-location condition alone, compiled as the movement mode compiles its groups
    from warcodex.interpreter.movement import PARAMS
    from warcodex.dsl.formatter import format_expr

    for prop in mode.decl.props:
        if prop.key in ("prohibited", "stop") and prop.value is not None and "from" not in format_expr(prop.value):
            fn = engine.compiler.value(prop.value, PARAMS)
            run(f"search, per hex: {prop.key}: {format_expr(prop.value)}", locs, cond(fn))

    def base_hex(h):
        ids = at.get(h, ())
        if len(ids) >= 2 or any(units[i].side != "axis" for i in ids):
            return
        for n in nb[h]:
            for i in at.get(n, ()):
                if units[i].side != "axis":
                    return

    run("baseline, per hex: both prohibitions + ZOC", locs, base_hex, base="search, per hex")

    def cost_cold(p):
        engine.static_cache.clear()
        mode.cost(ctx, ref, axis, origin, p[0], p[1])

    def cost_hit(p):
        mode.cost(ctx, ref, axis, origin, p[0], p[1])

    run("search, per edge: cost move_cost(u, from, to), cold", pairs, cost_cold)
    run("search, per edge: cost move_cost(u, from, to), static-cache hit", pairs, cost_hit)
    edges, tc = bb.edges, bb.terrain_cost2

    def base_cost(p):
        e = edges.get(p)
        step = tc[p[1]] if e is None else (bl.ROAD_COST2 if "road" in e else tc[p[1]])
        if e is not None and "bridge" not in e:
            step += bl.MINOR_RIVER2 * ("minor_river" in e) + bl.MAJOR_RIVER2 * ("major_river" in e)
        return step

    run("baseline, per edge: cost", pairs, base_cost, base="search, per edge")
    run("primitive: builtin units_at(h) (builds UnitRefs)", locs, lambda h: b_units_at(ctx, None, h))
    run("primitive: UnitRef(id)", locs, lambda h: UnitRef(5))
    r5 = UnitRef(5)
    run("primitive: hash(UnitRef) (frozen dataclass)", locs, lambda h: hash(r5))
    run("primitive: ctx.tick", locs, lambda h: ctx.tick(None))
    run("primitive: math.ceil(Fraction(7, 2)) (halving round up)", locs, lambda h: math.ceil(Fraction(7, 2)))

    wc = fx.make_world(BOARD, seed + 1)
    fx.populate_combat(wc)
    combats = fx.random_combats(wc, 2000, seed)
    q, f, c_ctx, c_touch = wc.engine.quantities, wc.engine.functions, wc.ctx, wc.state.touch

    def comb(fn):
        def g(c):
            c_touch()
            fn(c)
        return g

    run("combat: crt_column(attackers, target)", combats, comb(lambda c: q["crt_column"](c_ctx, (c.attackers, c.target), None)), "combat")
    run("combat:   total_attack", combats, comb(lambda c: q["total_attack"](c_ctx, (c.attackers, c.target), None)), "combat")
    run("combat:   total_defense", combats, comb(lambda c: q["total_defense"](c_ctx, (c.attackers, c.target), None)), "combat")
    run("combat:   armor_shift", combats, comb(lambda c: f["armor_shift"](c_ctx, (c.attackers, c.target), None)), "combat")
    run("combat:   attack_strength of one unit", combats,
        comb(lambda c: q["attack_strength"](c_ctx, (c.attackers[0], c.target), None)), "combat")
    run("baseline: crt_column", combats, lambda c: bl.crt_column(wc.bb, wc.state, c.attackers, c.target, "fair"), "combat",
        base="combat: crt_column")
    return rows


# ================================================================ output
def status(ok: bool) -> str:
    return "[green]ok[/]" if ok else "[red]over[/]"


def print_report(res: dict) -> None:
    m = res["machine"]
    console.print(f"[bold]Warcodex benchmarks[/] ({res['mode']}, seed {res['seed']}) on Python {m['python']} "
                  f"({m['implementation']}), {m['cpu_count']} CPUs ({m['cpus_usable']} usable), {m['platform']}")
    load = res["load_average_start"][0]
    console.print(f"load average at start {load:.2f}, at end {res['load_average_end'][0]:.2f}"
                  + (" [yellow](other processes compete for the CPUs: absolute times are noisy; the interleaved ratios less so)[/]"
                     if max(load, res["load_average_end"][0]) > 0.75 * (m["cpus_usable"] or m["cpu_count"] or 1) else ""))

    mv = res["movement"]
    t = Table(title=f"1. Movement range: ground.reachable() on {mv['board']} ({mv['hexes']} hexes), "
                    f"{mv['enemy_units']} enemy + {mv['friendly_units']} friendly units, {mv['positions']} start hexes "
                    f"x {mv['reps_per_position']} reps (per start: median and best of the reps; then median and p90 over starts)")
    for col in ("unit", "MP", "hexes reached (mean)", "case", "median ms", "p90 ms", "x baseline", "best ms",
                "x baseline (best)", f"median <{MOVE_TARGET_MS:g} ms"):
        t.add_column(col, justify="right" if col not in ("unit", "case") else "left")
    for name, u in mv["units"].items():
        for k, label in (("cold", "interpreted, cold"), ("warm", "interpreted, warm"), ("hot_memo", "interpreted, hot memo"),
                         ("baseline", "hand-written baseline")):
            ratio = f"{u[f'ratio_{k}_vs_baseline']:.1f}" if k != "baseline" else "1.0"
            ratio_best = f"{u[f'ratio_{k}_vs_baseline_best']:.1f}" if k != "baseline" else "1.0"
            ok = status(u[k]["median_ms"] < MOVE_TARGET_MS) if k in ("cold", "warm") else ""
            t.add_row(name if k == "cold" else "", str(u["allowance_mp"]) if k == "cold" else "",
                      f"{u['mean_hexes_reached']:.0f}" if k == "cold" else "", label,
                      f"{u[k]['median_ms']:.3f}", f"{u[k]['p90_ms']:.3f}", ratio, f"{u[k]['best_ms']:.3f}", ratio_best, ok)
    console.print(t)

    cb = res["combat"]
    t = Table(title=f"2. Combat: {cb['combats']:,} resolutions (crt_column + allowed + CRT lookup + codes; "
                    f"{cb['allowed']:,} allowed), median of {cb['reps']} passes")
    for col in ("implementation", "total s", "µs / combat", "x baseline", "best µs / combat", "x baseline (best)"):
        t.add_column(col, justify="left" if col == "implementation" else "right")
    bst = cb["best_per_combat_us"]
    t.add_row("interpreted, fresh memo per combat", f"{cb['engine_fresh_memo']['total_s']:.3f}",
              f"{cb['engine_fresh_memo']['per_combat_us']:.1f}", f"{cb['ratio_fresh_vs_baseline']:.1f}",
              f"{bst['engine_fresh_memo']:.1f}", f"{cb['ratio_fresh_vs_baseline_best']:.1f}")
    t.add_row(f"interpreted, shared memo ({cb['distinct_queries']:,} distinct queries: repeats hit the memo)",
              f"{cb['engine_shared_memo']['total_s']:.3f}", f"{cb['engine_shared_memo']['per_combat_us']:.1f}",
              f"{cb['ratio_shared_vs_baseline']:.1f}", "", "")
    t.add_row("hand-written baseline", f"{cb['baseline']['total_s']:.4f}", f"{cb['baseline']['per_combat_us']:.1f}", "1.0",
              f"{bst['baseline']:.1f}", "1.0")
    console.print(t)

    sp = res["selfplay"]
    t = Table(title=f"3. Random self-play of Tiny Front 'meeting' (12x10 map), {sp['games']} seeds, trace off")
    for col in ("games/s", "actions/s", "actions/game", "median game ms", "p90 game ms", "first game s (cold)"):
        t.add_column(col, justify="right")
    t.add_row(f"{sp['games_per_s']:.2f}", f"{sp['actions_per_s']:.0f}", f"{sp['actions_per_game']:.1f}",
              f"{sp['median_game_ms']:.0f}", f"{sp['p90_game_ms']:.0f}", f"{sp['first_game_s']:.2f}")
    console.print(t)
    console.print(f"   {sp['search_share'] * 100:.0f}% of self-play time is spent in ground-movement searches "
                  f"({sp['searches_per_game']:.0f} searches per game, {sp['ms_per_search']:.2f} ms each on the 120-hex map)")

    eq = res["equivalence"]
    t = Table(title=f"4. Engine vs hand-written baseline: equivalence (generated {eq['board']} board; "
                    f"fuzz {eq['fuzz_board']} board with random hexside feature combinations)")
    for col in ("board", "check", "identical", "rules exercised (cases)"):
        t.add_column(col)
    for label, mvq, cbq in (("generated", eq["movement"], eq["combat"]), ("fuzz", eq["fuzz_movement"], eq["fuzz_combat"])):
        t.add_row(label, "reachable: hex sets", f"{mvq['identical_sets']}/{mvq['cases']}",
                  ", ".join(f"{k} {v}" for k, v in sorted(mvq["rules_hit"].items())))
        t.add_row("", "reachable: costs", f"{mvq['identical_costs']}/{mvq['cases']}", f"{mvq['hexes_compared']:,} hexes compared")
        t.add_row("", "reachable: must-stop flags", f"{mvq['identical_must_stop']}/{mvq['cases']}", "")
        t.add_row("", "reachable: paths (prev hex)", f"{mvq['identical_prev']}/{mvq['cases']}", "")
        t.add_row("", "reachable: cold == warm cache", f"{mvq['cold_equals_warm']}/{mvq['cases']}", "")
        t.add_row("", "crt_column (odds + shifts)", f"{cbq['identical_columns']}/{cbq['cases']}",
                  ", ".join(f"{k} {v}" for k, v in sorted(cbq["rules_hit"].items())))
        t.add_row("", "allowed + CRT cell codes", f"{cbq['identical_results']}/{cbq['cases']}", "a third each in fair, rain and mud",
                  end_section=True)
        for part in (mvq, cbq):
            for mm in part["mismatches"][:5]:
                console.print(f"[red]mismatch ({label})[/] {mm}")
    console.print(t)

    t = Table(title="Targets")
    for col in ("target", "measured", ""):
        t.add_column(col)
    for name, u in mv["units"].items():
        for k in ("cold", "warm"):
            t.add_row(f"reachable {name} {k} < {MOVE_TARGET_MS:g} ms (median)", f"{u[k]['median_ms']:.2f} ms",
                      status(u[k]["median_ms"] < MOVE_TARGET_MS))
    for name, u in mv["units"].items():
        for k in ("warm", "cold"):
            r = u[f"ratio_{k}_vs_baseline"]
            t.add_row(f"movement {name} {k}: interpreted <= {RATIO_TARGET[k]:g}x baseline",
                      f"{r:.1f}x (best {u[f'ratio_{k}_vs_baseline_best']:.1f}x)", status(r <= RATIO_TARGET[k]))
    r = cb["ratio_fresh_vs_baseline"]
    t.add_row(f"combat: interpreted <= {RATIO_TARGET['combat']:g}x baseline", f"{r:.1f}x (best {cb['ratio_fresh_vs_baseline_best']:.1f}x)",
              status(r <= RATIO_TARGET["combat"]))
    same = fx.all_identical(eq)
    t.add_row("equivalence engine == baseline", "identical" if same else "DIFFERENT", status(same))
    console.print(t)

    if "breakdown" in res:
        t = Table(title="Where the time goes: per-call cost of the pieces (fresh memo; best of 5 passes)")
        for col in ("piece", "µs", "per"):
            t.add_column(col, justify="right" if col == "µs" else "left")
        for row in res["breakdown"]:
            t.add_row(row["piece"], f"{row['us']:.2f}", row["per"])
        console.print(t)
    for name, p in res.get("profiles", {}).items():
        t = Table(title=f"cProfile: {name} (total {p['total_s']} s, by own time)")
        for col in ("function", "where", "calls", "own s", "own %", "cum s"):
            t.add_column(col, justify="left" if col in ("function", "where") else "right")
        for row in p["top_by_tottime"]:
            t.add_row(row["function"], row["where"], f"{row['calls']:,}", f"{row['tottime_s']:.3f}",
                      f"{row['tottime_pct']:.1f}", f"{row['cumtime_s']:.3f}")
        console.print(t)
    console.print(f"elapsed {res['elapsed_s']:.1f} s; results written to {res['out']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer positions, passes and games (under ~30 s)")
    ap.add_argument("--profile", action="store_true", help="also run cProfile on each benchmark and show the hotspots")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=HERE / "results.json")
    args = ap.parse_args(argv)
    cfg = QUICK if args.quick else FULL
    start = perf()
    res = {"mode": "quick" if args.quick else "full", "seed": args.seed, "config": cfg, "machine": machine_info(),
           "load_average_start": os.getloadavg(),
           "definitions": {
               "movement cold": "ctx.cache={}, engine.static_cache.clear(), state and positions versions bumped before each call",
               "movement warm": "ctx.cache={}, state and positions versions bumped (as after a move); static cache (edge costs) filled",
               "movement hot_memo": "ctx.cache={} only: same state version, per-version memo of rule functions kept",
               "ratio": "sum over start hexes of per-start medians, interpreted / baseline (the four cases interleaved rep by rep)",
               "best": "per start hex (movement) or chunk of 250 combats: the fastest repetition; robust to load from other processes",
               "combat fresh memo": "state and positions versions bumped before each combat (nothing reused between combats)",
               "combat shared memo": "no bump: memoized sub-values reused across combats (upper bound)"}}
    with console.status("equivalence check..."):
        res["equivalence"] = fx.equivalence(BOARD, args.seed, cfg["eq_units"], cfg["eq_combats"])
    with console.status("movement..."):
        res["movement"] = bench_movement(cfg, args.seed)
    with console.status("combat..."):
        res["combat"] = bench_combat(cfg, args.seed)
    with console.status("self-play..."):
        res["selfplay"] = bench_selfplay(cfg)
    if args.profile:
        with console.status("profiling..."):
            res["profiles"] = profile_all(cfg, args.seed)
            res["breakdown"] = breakdown(args.seed)
    res["elapsed_s"] = perf() - start
    res["load_average_end"] = os.getloadavg()
    res["out"] = str(args.out)
    args.out.write_text(json.dumps(res, indent=2, default=str) + "\n")
    print_report(res)
    return 0 if fx.all_identical(res["equivalence"]) else 1


if __name__ == "__main__":
    sys.exit(main())
