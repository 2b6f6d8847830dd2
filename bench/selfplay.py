"""Self-play of the bundled games' scenarios to their end, many seeds, invariants checked.

    .venv/bin/python bench/selfplay.py stalingrad42 --seeds 20 [--scenario fall_blau ...]
        [--workers 2] [--no-invariants] [--out bench/selfplay-stalingrad42.json]

Every game is played by random agents (one seeded agent per side) from the scenario's set-up to
its end (last turn or sudden death), with the game's invariants checked after every action,
automatic step and phase end. Any rules error, engine exception or broken invariant is a failure,
reported with the seed that reproduces it (`warcodex play GAME --scenario S --seed N
--check-invariants`).

Timings: wall-clock seconds per game inside the worker (set-up included, engine build excluded),
and games per second of one worker. As the machines are shared and noisy, each worker also
plays Tiny Front's `meeting` scenario before and after its share, and the report gives each
scenario's time per game as a ratio to that reference measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: E402
from rich.table import Table  # noqa: E402

REFERENCE_GAMES = 5  # Tiny Front games per reference measurement

_engines: dict = {}


def _engine(game: str):
    if game not in _engines:
        from warcodex.dsl.checker import check_path
        from warcodex.interpreter.engine import Engine

        folder = Path(game) if Path(game).is_dir() else ROOT / "games" / game
        gamedef, diags = check_path(folder)
        if gamedef is None or diags.errors:
            raise SystemExit("\n".join(d.render() for d in diags.errors))
        from warcodex.interpreter.engine import settle_for_play

        _engines[game] = Engine(gamedef)
        settle_for_play(_engines[game])  # the rules live as long as the worker
    return _engines[game]


def _reference() -> float:
    """Seconds per Tiny Front game (seeds 1..REFERENCE_GAMES), the same-run baseline."""
    from warcodex.interpreter.play import play

    engine = _engine("tiny")
    play(engine, "meeting", seed=0, trace=False)  # warm-up
    t0 = time.perf_counter()
    for s in range(1, REFERENCE_GAMES + 1):
        play(engine, "meeting", seed=s, trace=False)
    return (time.perf_counter() - t0) / REFERENCE_GAMES


def final_scores(engine, scenario: str, state) -> dict:
    """How the game stands at its end, as numbers: its score variables (the numeric variables its
    evaluation reads, from the facts: `vp`, `baku_vp`, each side's `vp`; balance/runner.py) and each
    side's value of every term of its evaluation ("VP hexes held:axis", "production (IPC):ussr"),
    so a game whose score is a rule, not a variable (No Retreat!'s VP hexes), has one too."""
    from warcodex.balance.runner import as_number, score_variables, snapshot_series
    from warcodex.interpreter.context import Context

    out = snapshot_series(engine, state, score_variables(engine, scenario), None)
    ctx = Context(engine, state)
    for evaluation in engine.evaluations.values():
        for side in engine.side_entities:
            for label, _weight, value in evaluation.breakdown(ctx, side):
                out[f"{label}:{side.name}"] = as_number(value)
    return out


def play_one(game: str, scenario: str, seed: int, invariants: bool) -> dict:
    """One game to its end; never raises: a failure is part of the result."""
    import traceback

    from warcodex.interpreter.play import play
    from warcodex.interpreter.values import RuleError

    engine = _engine(game)
    ref_before = _reference()
    t0 = time.perf_counter()
    result = {"game": game, "scenario": scenario, "seed": seed}
    try:
        g = play(engine, scenario, seed, trace=False, check_invariants=invariants)
        s = g.summary()
        state = g.state
        result.update(ok=True, turn=s["turn"], over=s["over"], winner=s["winner"], reason=s["reason"],
                      actions=s["actions"], scores=final_scores(engine, scenario, state),
                      completed=bool(state.ended))
    except RuleError as exc:
        result.update(ok=False, error=f"{type(exc).__name__}: {exc}", where=str(getattr(exc, "span", "")))
    except Exception as exc:  # an engine bug: keep the traceback for the report
        result.update(ok=False, error=f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc(limit=8))
    result["seconds"] = time.perf_counter() - t0
    result["reference_s"] = (ref_before + _reference()) / 2
    return result


def default_report(game: str) -> Path:
    """bench/selfplay-NAME.json, NAME the game folder's own name: a game given by a path (even an
    absolute one, or with a trailing slash) never makes folders inside bench/."""
    name = Path(game.rstrip("/\\")).name or "game"
    return HERE / f"selfplay-{name}.json"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("game", help="a game folder, or the name of a folder under games/")
    ap.add_argument("--scenario", action="append", help="repeatable; default: every scenario")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--no-invariants", action="store_true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    console = Console(width=150)
    engine = _engine(args.game)
    scenarios = args.scenario or list(engine.game.scenarios)
    jobs = [(args.game, sc, seed, not args.no_invariants)
            for sc in scenarios for seed in range(args.first_seed, args.first_seed + args.seeds)]
    results = []
    t_start = time.perf_counter()
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console) as progress:
        task = progress.add_task(f"{args.game}: {len(scenarios)} scenario(s) x {args.seeds} seeds", total=len(jobs))
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            futures = [pool.submit(play_one, *job) for job in jobs]
            for fut in as_completed(futures):
                r = fut.result()
                results.append(r)
                mark = "ok" if r["ok"] else "FAILED"
                progress.console.print(f"  {r['scenario']} seed {r['seed']}: {mark} "
                                       f"{r.get('winner', '')} turn {r.get('turn', '?')} {r['seconds']:.1f} s")
                progress.advance(task)
    wall = time.perf_counter() - t_start
    results.sort(key=lambda r: (scenarios.index(r["scenario"]), r["seed"]))
    report = summarise(results, scenarios)
    report.update(game=args.game, seeds=args.seeds, workers=args.workers, wall_s=wall,
                  invariants=not args.no_invariants, results=results)
    show(console, report)
    out = args.out or default_report(args.game)
    from warcodex.outputs import write_atomic

    write_atomic(out, json.dumps(report, indent=1, default=str))
    console.print(f"written: {out}")
    return 0 if all(r["ok"] and r.get("completed") for r in results) else 1


def summarise(results: list[dict], scenarios: list[str]) -> dict:
    per = {}
    for sc in scenarios:
        rs = [r for r in results if r["scenario"] == sc]
        ok = [r for r in rs if r["ok"]]
        secs = [r["seconds"] for r in ok]
        refs = [r["reference_s"] for r in rs]
        winners: dict[str, int] = {}
        for r in ok:
            winners[str(r["winner"])] = winners.get(str(r["winner"]), 0) + 1
        per[sc] = {
            "games": len(rs), "ok": len(ok), "completed": sum(1 for r in ok if r.get("completed")),
            "failures": [{"seed": r["seed"], "error": r["error"]} for r in rs if not r["ok"]],
            "winners": winners,
            "median_s": statistics.median(secs) if secs else None,
            "games_per_s": len(secs) / sum(secs) if secs else None,
            "actions_per_game": statistics.mean(r["actions"] for r in ok) if ok else None,
            "turns": sorted({r["turn"] for r in ok}),
            "scores": _spread([r["scores"] for r in ok]),
            "ratio_to_tiny": (statistics.median(secs) / statistics.median(refs)) if secs and refs else None,
            "tiny_game_s": statistics.median(refs) if refs else None,
        }
    return {"scenarios": per}


def _spread(scores: list[dict]) -> dict:
    """Per score name, its median, lowest and highest value over the games that have it."""
    out = {}
    for name in sorted({k for s in scores for k in s}):
        values = [s[name] for s in scores if s.get(name) is not None]
        if values:
            out[name] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    return out


def show(console: Console, report: dict) -> None:
    t = Table(title=f"self-play of {report['game']}: {report['seeds']} seeds per scenario, "
                    f"invariants {'on' if report['invariants'] else 'off'}, {report['workers']} worker(s)")
    for col in ("scenario", "games", "completed", "failures", "winners", "median s/game", "games/s (1 worker)",
                "actions/game", "x Tiny Front game"):
        t.add_column(col)
    for sc, s in report["scenarios"].items():
        t.add_row(sc, str(s["games"]), str(s["completed"]), str(len(s["failures"])),
                  ", ".join(f"{k} {v}" for k, v in sorted(s["winners"].items())),
                  f"{s['median_s']:.1f}" if s["median_s"] else "-",
                  f"{s['games_per_s']:.3f}" if s["games_per_s"] else "-",
                  f"{s['actions_per_game']:.0f}" if s["actions_per_game"] else "-",
                  f"{s['ratio_to_tiny']:.0f}x" if s["ratio_to_tiny"] else "-")
    console.print(t)
    for sc, s in report["scenarios"].items():
        if s["scores"]:
            console.print(f"{sc}, at the end (median, min-max): " + "; ".join(
                f"{k} {v['median']:g} ({v['min']:g}-{v['max']:g})" for k, v in s["scores"].items()))
    for sc, s in report["scenarios"].items():
        for f in s["failures"]:
            console.print(f"[red]{sc} seed {f['seed']}[/]: {f['error']}")
    console.print(f"wall time {report['wall_s']:.0f} s")


if __name__ == "__main__":
    sys.exit(main())
