"""`warcodex fuzz GAME`: property-test a game's rules by legal play (interpreter/fuzzing.py does
it; this is the command: its options, progress bar and report).

    warcodex fuzz games/tiny --examples 200 --seed 1
    warcodex fuzz games/tiny -s meeting --examples 50 --max-actions 40 --save-counterexample bug.jsonl
"""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich.text import Text

from warcodex.interpreter.fuzzing import (DEFAULT_MAX_ACTIONS, DEFAULT_SHRINK_LIMIT, fuzz_game, print_failure,
                                          save_counterexample)


@click.command()
@click.argument("game")
@click.option("--scenario", "-s", help="Scenario name (default: the first).")
@click.option("--examples", "-n", type=click.IntRange(min=1), default=100, show_default=True,
              help="How many games hypothesis plays (before shrinking).")
@click.option("--seed", type=int, default=1, show_default=True, help="The dice seed of every game, and hypothesis's seed.")
@click.option("--max-actions", type=click.IntRange(min=0), default=DEFAULT_MAX_ACTIONS, show_default=True,
              help="Stop each game after this many actions.")
@click.option("--shrink-limit", type=click.IntRange(min=0), default=DEFAULT_SHRINK_LIMIT, show_default=True,
              help="Stop shrinking a failure after this many more games.")
@click.option("--option", "options", multiple=True, help="Scenario option NAME=VALUE (repeatable).")
@click.option("--save-counterexample", "save_path", type=click.Path(dir_okay=False),
              help="Write the shrunk failing game here, as a log `warcodex replay` reproduces "
                   "(several failures: FILE, then FILE-2...).")
@click.option("--rule-coverage", "coverage_path", type=click.Path(dir_okay=False),
              help="Write which rules the generated games fired, and which never, to FILE.json and FILE.html.")
@click.option("--steer-coverage", is_flag=True,
              help="Steer hypothesis towards games that fire more distinct rules (hypothesis.target).")
def fuzz(game, scenario, examples, seed, max_actions, shrink_limit, options, save_path, coverage_path, steer_coverage):
    """Property-test GAME: play hypothesis-chosen legal games, check invariants, shrink failures.

    Exit status 1 when an invariant is broken (or a rule fails), 0 otherwise."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from warcodex.console import build_engine, err, out, parse_options

    engine = build_engine(game)
    opts = parse_options(options)
    invariants = ", ".join(inv.name for inv in engine.for_scenario(scenario).invariants) or "none"
    out.print(f"fuzzing {engine.game.game.header.title()}: scenario {engine.scenario(scenario).name}, seed {seed}, "
              f"{examples} examples of at most {max_actions} actions; invariants: {invariants}", highlight=False)
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[status]}"), TimeElapsedColumn(), console=err, transient=True)
    task = progress.add_task("examples", total=examples, status="")

    started = time.perf_counter()

    def on_example(report, shrinking):
        if shrinking:
            progress.update(task, description="shrinking", status=f"{report.shrink_calls} games")
        else:
            rate = report.examples / max(time.perf_counter() - started, 1e-9)
            progress.update(task, completed=min(report.examples, examples),
                            status=f"{report.actions} actions, {rate:.3g} examples/s")
    counter = index = None
    if coverage_path or steer_coverage:
        from warcodex.interpreter.rule_coverage import RuleCounter, rule_index

        from warcodex.facts import reach_of

        name = engine.scenario(scenario).name
        index = rule_index(engine, name, reach_of(engine, name))
        counter = RuleCounter(index)
    with progress:
        report = fuzz_game(engine, scenario, examples, seed, max_actions, opts, on_example,
                           shrink_limit, counter, steer_coverage)
    if coverage_path:
        from warcodex.interpreter.rule_coverage import coverage_report, write_coverage

        cov = coverage_report(index, report.rule_counts, report.examples,
                              f"Rule coverage: fuzzing {engine.game.game.header.title()}, {report.scenario}, "
                              f"{report.examples} examples of at most {max_actions} actions (seed {seed})")
        paths = write_coverage(coverage_path, cov)
        never = sum(k["never_fired"] for k in cov["kinds"].values())
        unreachable = sum(k.get("out_of_reach", 0) for k in cov["kinds"].values())
        out.print(f"rule coverage: {never} rule(s) never fired, {unreachable} out of reach in this scenario; "
                  f"written to {paths[0]} and {paths[1]}", highlight=False)
    rate = f"{report.examples} examples in {report.seconds:.1f} s ({report.examples_per_second:.3g} examples/s, " \
           f"{report.actions} actions)"
    if not report.failures:
        out.print(Text.assemble(("ok", "green"), f": {rate}; every invariant held"), highlight=False)
        return
    stopped = " (interrupted)" if report.interrupted else " (stopped by --shrink-limit)" if report.shrink_limited else ""
    out.print(f"{rate}; then shrinking: {report.shrink_calls} games in {report.shrink_seconds:.1f} s{stopped}\n",
              highlight=False)
    for i, failure in enumerate(report.failures):
        if i:
            out.print()
        print_failure(out, failure, report)
        if save_path:
            path = Path(save_path)
            if i:
                path = path.with_name(f"{path.stem}-{i + 1}{path.suffix}")
            exact = save_counterexample(path, engine, failure, opts)
            note = ("`warcodex replay` reproduces it exactly" if exact else
                    "the game stops at the failing rule, so `warcodex replay` stops there too")
            out.print(f"\ncounterexample saved to {path} ({note}; `warcodex explain {path}` shows every step)",
                      highlight=False)
    raise SystemExit(1)
