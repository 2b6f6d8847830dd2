"""`warcodex balance`: many seeded games of a scenario, a report of who wins and which rules decide.

    warcodex balance tiny --games 1000 --agents greedy,random --workers 2 -o out/balance/tiny
    warcodex balance stalingrad42 -s fall_blau --games 100 --ray local --rule-coverage fb-coverage

See docs/balance.md.
"""

from __future__ import annotations

import signal
import statistics
import threading
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import click

from warcodex.balance.runner import BatchConfig, Results, RunMismatch, run_local, run_ray
from warcodex.balance.stats import aggregate


def run_batch(game: str, scenario: str | None = None, games: int = 100, agents: str = "random", workers: int = 2,
              ray: str | None = None, out_dir: str | Path | None = None, first_seed: int = 1, options: dict | None = None,
              overlays=(), rule_coverage: str | None = None, check_invariants: bool = True, console=None,
              logs: bool = False) -> dict:
    """Play (or continue) a batch and write its report; returns the report (report.json's content).
    `logs`: also write every game's log to DIR/logs/seed-N.jsonl (not part of the batch's identity:
    the games are the same with or without their logs)."""
    from warcodex.console import UserError, load_checked, parse_agents, resolve_game
    from warcodex.facts import facts_of
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.rule_coverage import coverage_report, parse_counts_key, rule_index, write_coverage

    from warcodex.balance.report import write_report

    gamedef, _ = load_checked(game, overlays)
    engine = Engine(gamedef)
    sc = engine.scenario(scenario)
    engine = engine.for_scenario(sc.name)
    specs = [a.strip() for a in agents.split(",")]
    parse_agents(engine, agents, 0)  # a usage error now, not in every worker
    sides = [s.name for s in engine.side_entities]
    if len(specs) == 1:
        specs = specs * len(sides)
    config = BatchConfig(game=gamedef.game.name, game_dir=str(resolve_game(game).resolve()),
                         overlays=[str(Path(o).resolve()) for o in overlays], scenario=sc.name, agents=specs,
                         options=dict(options or {}), fingerprint=engine.fingerprint, check_invariants=check_invariants,
                         keep_logs=logs)
    out = Path(out_dir) if out_dir is not None else Path("out") / "balance" / f"{gamedef.game.name}-{sc.name}-{'-'.join(specs)}"
    results = Results(out, config)
    try:
        results.open()
    except RunMismatch as exc:
        raise UserError(str(exc)) from None
    seeds = list(range(first_seed, first_seed + games))
    todo = [s for s in seeds if s not in results.records]
    say = console.print if console is not None else (lambda *a, **k: None)
    if results.dropped_partial:
        say(f"{out / 'games.jsonl'}: its last line was half-written when the run stopped; that game is played again")
    if len(todo) < len(seeds):
        say(f"continuing the batch in {out}: {len(seeds) - len(todo)} of {len(seeds)} games already played")
    backend = f"ray ({ray})" if ray else ("local processes" if workers > 1 else "this process")
    interrupted = None
    started = time.perf_counter()
    try:
        with _Progress(console, len(seeds), len(seeds) - len(todo), sides) as on_record, _terminate_as_interrupt():
            def record(r):
                results.add(r)
                on_record(r)

            if ray:
                run_ray(config, todo, ray, workers, record)
            else:
                run_local(config, todo, workers, record)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (`Terminated`)
        interrupted = exc
    finally:
        results.close()
    wall = time.perf_counter() - started
    records = [results.records[s] for s in seeds if s in results.records]
    if not records:
        raise UserError("no game was played")
    facts = facts_of(engine, sc.name)
    report = {
        "run": {"title": gamedef.game.header.title(), "game": gamedef.game.name, "scenario": sc.name,
                "scenario_label": sc.header.title(), "rules": engine.fingerprint, "agents": specs,
                "sides": [{"name": s.name, "label": s.label, "color": s.color} for s in facts.sides],
                # who wins a game an alliance won (A&A: `win(allies, ...)`), so that batches can be
                # pooled from their games.jsonl afterwards (bench/balance_table.py --stands)
                "alliances": [{"name": a.name, "label": a.label, "members": list(a.members)} for a in facts.alliances],
                "options": config.options, "check_invariants": check_invariants, "first_seed": first_seed,
                "games_asked": games, "complete": len(records) == len(seeds) and interrupted is None,
                "provisional": len(gamedef.provisional_items())},
        "aggregate": aggregate(records, sides, {s: engine.alliance_of(s) for s in sides if engine.alliance_of(s)}),
        "performance": _performance(records, backend, workers, wall, len(todo)),
    }
    from warcodex.facts import reach_of

    index = rule_index(engine, sc.name, reach_of(engine, sc.name))
    counts: Counter = Counter()
    for r in records:
        for text, n in r.get("rules", {}).items():
            counts[parse_counts_key(text)] += n
    coverage = coverage_report(index, counts, len(records), f"Rule coverage: {report['run']['title']}, "
                               f"{sc.header.title()}, {len(records)} games ({', '.join(specs)})")
    report["coverage"] = {kind: {k: v[k] for k in ("total", "fired", "never_fired", "out_of_reach")}
                          for kind, v in coverage["kinds"].items()}
    written = write_report(out, report, coverage)
    if rule_coverage:
        written += write_coverage(rule_coverage, coverage)
    say(f"wrote {', '.join(str(p) for p in written[:2])}" + (f" and {len(written) - 2} more" if len(written) > 2 else ""))
    if interrupted is not None:
        how = "terminated" if isinstance(interrupted, Terminated) else "interrupted"
        say(f"{how}: {len(records)} of {len(seeds)} games in the report; run the same command to continue")
        raise interrupted
    return report


class Terminated(KeyboardInterrupt):
    """SIGTERM stopped the batch: handled as Ctrl-C (the games finished are kept and reported, the
    batch stays resumable); the command exits with 128 + SIGTERM, as a process the signal ended."""

    exit_code = 128 + signal.SIGTERM


@contextmanager
def _terminate_as_interrupt():
    """While the games are played, SIGTERM stops the batch as Ctrl-C does. A run started in the
    background (`&`) ignores SIGINT, so `kill PID` (SIGTERM) is how it is stopped; by default
    that ends the process at once, without the report of the games it finished. The first SIGTERM
    raises `Terminated`; a second one ends the process at once (every file is written
    atomically: the batch stays resumable, only the report waits for the next run)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread: a caller elsewhere keeps its own
        return

    def stop(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _performance(records: list[dict], backend: str, workers: int, wall: float, played_now: int) -> dict:
    secs = [r["seconds"] for r in records]
    refs = [r["reference_s"] for r in records]
    return {
        "backend": backend, "workers": workers, "games_played_now": played_now,
        "wall_seconds_now": wall,
        "games_per_second_per_worker": len(secs) / sum(secs) if sum(secs) else 0.0,
        "seconds_per_game_median": statistics.median(secs),
        "reference_s": statistics.median(refs),
        "ratio_to_reference": statistics.median(secs) / statistics.median(refs),
        "search_agents": _search_cost(records),
    }


def _search_cost(records: list[dict]) -> dict:
    """What the search agents' decisions cost, per side over the batch: decisions, lookaheads
    and CPU seconds (process time, so a busy machine does not inflate them), and the CPU per
    decision (choices searched inside its own actions count as decisions)."""
    total: dict[str, Counter] = {}
    for r in records:
        for side, stats in (r.get("agents") or {}).items():
            c = total.setdefault(side, Counter())
            for key in ("decisions", "choices_searched", "lookaheads", "cpu_s"):
                c[key] += stats.get(key, 0)
    return {side: {**c, "cpu_ms_per_decision": 1000 * c["cpu_s"] / max(1, c["decisions"] + c["choices_searched"])}
            for side, c in sorted(total.items())}


class _Progress:
    """A rich progress bar (games done, wins so far, games/s), or nothing without a console."""

    def __init__(self, console, total: int, done: int, sides: list[str]) -> None:
        self.console, self.total, self.done, self.sides = console, total, done, sides
        self.wins: Counter = Counter()
        self.failed = 0
        self.started = time.perf_counter()
        self.played = 0

    def __enter__(self):
        if self.console is None:
            return lambda r: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.bar = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[status]}"),
                            TimeElapsedColumn(), TimeRemainingColumn(), console=self.console, transient=False)
        self.task = self.bar.add_task("games", total=self.total, completed=self.done, status="")
        self.bar.__enter__()

        def on_record(r):
            self.played += 1
            if r["ok"]:
                self.wins[r["winner"]] += 1
            else:
                self.failed += 1
            rate = self.played / max(time.perf_counter() - self.started, 1e-9)
            wins = " ".join(f"{w or 'draw'} {n}" for w, n in sorted(self.wins.items(), key=lambda x: str(x[0])))
            failed = f" [red]failed {self.failed}[/]" if self.failed else ""
            self.bar.update(self.task, advance=1, status=f"{wins}{failed} {rate:.3g} games/s")
        return on_record

    def __exit__(self, *exc):
        if self.console is not None:
            self.bar.__exit__(*exc)
        return False


@click.command()
@click.argument("game")
@click.option("--scenario", "-s", help="Scenario name (default: the first).")
@click.option("--games", "-n", type=click.IntRange(min=1), default=100, show_default=True, help="How many games (seeds).")
@click.option("--seed", "first_seed", type=int, default=1, show_default=True, help="The first seed; games use seeds SEED.. SEED+N-1.")
@click.option("--agents", default="random", show_default=True,
              help="One per side (in the order the rules declare the sides) or one for all: random, first, greedy, plan, "
                   "mcts, with options after colons (greedy:samples=16, mcts:playouts=32:horizon=20:rollout=greedy).")
@click.option("--workers", "-w", type=click.IntRange(min=1), default=2, show_default=True,
              help="Local worker processes (with --ray local: the CPUs of the local Ray instance).")
@click.option("--ray", "ray_address", metavar="ADDRESS",
              help="Run the games as Ray tasks: 'local' starts Ray on this machine, 'auto' joins a running cluster, "
                   "or a cluster address (ray://HOST:10001). Needs pip install 'warcodex[ray]'.")
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False),
              help="Output folder (default: out/balance/GAME-SCENARIO-AGENTS); a batch there is continued.")
@click.option("--option", "options", multiple=True, help="Scenario option NAME=VALUE (repeatable).")
@click.option("--overlay", "overlays", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="A .wcx file loaded last, e.g. published table values (repeatable).")
@click.option("--rule-coverage", "rule_coverage", type=click.Path(dir_okay=False),
              help="Also write the batch's rule coverage to FILE.json and FILE.html.")
@click.option("--no-invariants", is_flag=True, help="Do not check the game's invariants (faster).")
@click.option("--logs", is_flag=True, help="Also write every game's log to DIR/logs/seed-N.jsonl (for replay and view).")
def balance(game, scenario, games, first_seed, agents, workers, ray_address, out_dir, options, overlays, rule_coverage,
            no_invariants, logs):
    """Play N seeded games of GAME in parallel and report win rates, lengths, score variables by turn,
    the most decisive rules, rule coverage and failures (DIR/report.html, DIR/report.json)."""
    from warcodex.console import err, out, parse_options

    report = run_batch(game, scenario, games, agents, workers, ray_address, out_dir, first_seed, parse_options(options),
                       overlays, rule_coverage, not no_invariants, console=err, logs=logs)
    agg = report["aggregate"]

    def shown(w):
        if w["rate"] is None:
            return "-"
        return f"{w['rate']:.1%} [{w['ci95'][0]:.1%}-{w['ci95'][1]:.1%}]"

    rates = ", ".join(f"{s['label']} ({a}) {shown(agg['win_rates'][s['name']])}"
                      for s, a in zip(report["run"]["sides"], report["run"]["agents"]))
    out.print(f"{report['run']['title']}, {report['run']['scenario_label']}: {agg['completed']} games: {rates}, "
              f"draws {shown(agg['win_rates']['draw'])}; {agg['failed']} failed; "
              f"{report['performance']['games_per_second_per_worker']:.3g} games/s per worker", highlight=False)
    if agg["failed"]:
        raise SystemExit(1)
