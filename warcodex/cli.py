"""The `warcodex` command line.

    warcodex check GAME            parse and check the rules (exit 0 ok, 1 errors, 2 usage)
    warcodex coverage GAME         which rulebook sections are encoded (text, --html, --json)
    warcodex test GAME [-k PAT]    run the game's rule tests (tests/*.wcx), pytest-like
    warcodex fmt PATH [--check]    canonical layout of .wcx files
    warcodex info GAME             metadata, sides, scenarios, sections, provisional items
    warcodex play GAME ...         self-play with agents, progress bar, final report, log
    warcodex replay LOG            re-execute a log and verify it reproduces the same game
    warcodex explain LOG|SAVE      the derivation of each action, with rule citations
    warcodex query LOG|SAVE EXPR   a rules expression's value in a position, with its derivation
    warcodex moves LOG|SAVE        the legal actions there, each move's path and step costs
    warcodex odds GAME --scene F   a combat's outcome distribution from the rules (exact or Monte Carlo)
    warcodex demo GAME -o DIR      the main job: check, self-play with an explained combat, outputs
    warcodex schema                the JSON schema of save files

GAME is a game folder (games/tiny) or the name of a bundled game (tiny).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from warcodex import console
from warcodex.console import (UserError, bold, build_engine, err, include_roots, load_checked, out, parse_options,
                              print_diagnostics, recorded_game, resolve_game, read_log, is_log, read_record, parse_agents)
from warcodex.dsl.diagnostics import Diagnostic, DiagnosticError, Diagnostics, Severity
from warcodex.interpreter.saves import write_log

# Commands that live with their feature (exporters, fuzzing) and are imported only when used, so
# heavy dependencies (WeasyPrint...) never slow down `check` or `play`: name -> "module:attribute".
LAZY_COMMANDS = {
    "aids": "warcodex.exporters.aids.command:aids",
    "vassal": "warcodex.exporters.vassal.command:vassal",
    "fuzz": "warcodex.fuzz_command:fuzz",
    "view": "warcodex.exporters.viewer.command:view",
    "balance": "warcodex.balance.command:balance",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx) -> list[str]:
        import importlib.util

        present = []
        for name, target in LAZY_COMMANDS.items():
            try:
                if importlib.util.find_spec(target.split(":")[0]) is not None:
                    present.append(name)
            except ModuleNotFoundError:
                pass
        return sorted(super().list_commands(ctx) + present)

    def get_command(self, ctx, name: str):
        if name in LAZY_COMMANDS and name not in self.commands:
            import importlib

            module, attr = LAZY_COMMANDS[name].split(":")
            try:
                return getattr(importlib.import_module(module), attr)
            except ModuleNotFoundError:
                return None
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="warcodex")
@click.option("--include-root", "include_roots", multiple=True, type=click.Path(file_okay=False),
              help="A folder outside the game's own that its includes and map may read (repeatable).")
def cli(include_roots) -> None:
    """Warcodex: wargame rules as data. Check, play, explain and export games."""


# ------------------------------------------------------------------ check
@cli.command()
@click.argument("game")
@click.option("--overlay", "overlays", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="A .wcx file loaded last, e.g. published table values (repeatable).")
@click.option("--quiet", is_flag=True, help="Only errors; do not list provisional data.")
def check(game: str, overlays, quiet: bool) -> None:
    """Parse and check the rules of GAME; list provisional data as warnings."""
    from warcodex.dsl.checker import check_path

    gamedef, diags = check_path(resolve_game(game), overlays, include_roots())
    print_diagnostics(diags.errors)
    warnings = diags.warnings
    if not quiet:
        provisional = [w for w in warnings if w.code == "W-provisional"]
        others = [w for w in warnings if w.code != "W-provisional"]
        print_diagnostics(others)
        if provisional:
            err.print(f"provisional data ({len(provisional)} item(s), stand-ins for values the rulebook does not print):",
                      style="yellow")
            for w in provisional:
                where = f"{w.span}: " if w.span else ""
                err.print(f"  {where}{w.message}", markup=False, style="yellow")
    tests = 0
    if gamedef is not None and not diags.errors:
        from warcodex.dsl.loader import test_files

        if test_files(gamedef.root):  # the rule tests check against the game, without joining it
            with_tests, test_diags = check_path(resolve_game(game), overlays, include_roots(), tests=True)
            seen = set(diags.items)
            new_errors = [d for d in test_diags.errors if d not in seen]
            print_diagnostics(new_errors)
            diags.extend(new_errors)
            # the tests' own warnings (a location a test's partial board leaves out...); their
            # provisional expectations are listed by `warcodex coverage`
            new_warnings = [d for d in test_diags.warnings if d not in seen and d.code != "W-provisional"]
            if not quiet:
                print_diagnostics(new_warnings)
            warnings = warnings + new_warnings
            tests = len(with_tests.tests) if with_tests is not None else 0
    if diags.errors or gamedef is None:
        err.print(f"{len(diags.errors)} error(s), {len(warnings)} warning(s)", style="bold red")
        raise SystemExit(1)
    tested = f", {tests} rule test(s)" if tests else ""
    out.print(f"{gamedef.game.header.title()}: ok ({len(gamedef.decls)} declarations{tested}, {len(warnings)} warning(s))")


# ------------------------------------------------------------------ coverage
@cli.command(name="coverage")
@click.argument("game")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="Also write an HTML report here.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def coverage_cmd(game: str, html_path: str | None, as_json: bool) -> None:
    """Which rulebook sections GAME encodes, partly encodes, or not yet."""
    from warcodex.dsl.coverage import coverage, summary, tested_count

    gamedef, _ = load_checked(game)
    report = coverage(gamedef, rule_tests(gamedef), game_board(gamedef))
    counts = summary(report)
    if as_json:
        out.print_json(json.dumps({"sections": [vars(c) for c in report], "summary": counts,
                                   "tested": tested_count(report)}))
    else:
        table = Table(title=f"Coverage: {gamedef.game.header.title()}", show_lines=False)
        table.add_column("§", no_wrap=True)
        table.add_column("section")
        table.add_column("status", no_wrap=True)
        table.add_column("tested", no_wrap=True)
        table.add_column("cited by / note")
        style = {"encoded": "green", "partial": "yellow", "not_encoded": "red", "not_applicable": "dim"}
        for c in report:
            detail = c.note or ""
            if c.cited_by:
                shown = "; ".join(c.cited_by[:4]) + (f"; +{len(c.cited_by) - 4} more" if len(c.cited_by) > 4 else "")
                detail = f"{shown}" + (f" ({c.note})" if c.note else "")
            tested = f"{len(c.tested_by)} test(s)" if c.tested_by else ""
            table.add_row("§" + c.number, "  " * c.depth + c.title, Text(c.status.replace('_', ' '), style=style[c.status]),
                          tested, detail)
        out.print(table)
        out.print(", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items())
                  + f"; {tested_count(report)} tested by a rule test")
    if html_path:
        from warcodex.dsl.coverage_html import render_html
        from warcodex.outputs import write_atomic

        write_atomic(Path(html_path), render_html(gamedef, report))
        err.print(f"wrote {html_path}")


# ------------------------------------------------------------------ test
@cli.command(name="test")
@click.argument("game")
@click.option("-k", "pattern", help="Only tests whose name, label, file or cited section matches: "
              "words with and/or/not, like pytest (-k 9.2, -k \"combat and not ex13\").")
@click.option("--junit", "junit_path", type=click.Path(dir_okay=False), help="Also write a JUnit XML report here.")
@click.option("-v", "--verbose", is_flag=True, help="One line per test.")
@click.option("-x", "--exitfirst", is_flag=True, help="Stop at the first failure.")
def test_cmd(game: str, pattern: str | None, junit_path: str | None, verbose: bool, exitfirst: bool) -> None:
    """Run the rule tests of GAME (its tests/*.wcx files): exit 0 all passed, 1 a test failed,
    2 usage, 5 no test selected."""
    import time

    from warcodex.dsl.checker import check_path
    from warcodex.interpreter.rule_test_report import PatternError, failure_lines, junit_xml, matches, summary_line, title
    from warcodex.interpreter.rule_tests import RuleTestRunner

    root = resolve_game(game)
    gamedef, diags = check_path(root, include_roots=include_roots(), tests=True)
    if diags.errors or gamedef is None:
        print_diagnostics(diags.errors)
        err.print(f"{len(diags.errors)} error(s): the rules or their tests do not check", style="bold red")
        raise SystemExit(1)
    tests = list(gamedef.tests.values())
    try:
        selected = [t for t in tests if pattern is None or matches(pattern, t)]
    except PatternError as exc:
        raise click.BadParameter(str(exc), param_hint="-k") from None
    files = sorted({t.header.span.file for t in selected if t.header.span})
    out.print(bold(gamedef.game.header.title(), f": {len(selected)} test(s) in {len(files)} file(s)"
                   + (f", {len(tests) - len(selected)} deselected by -k" if pattern else "")))
    if not selected:
        err.print("no test selected" if tests else f"no tests: write them in {root / 'tests'}/*.wcx (docs/testing-rules.md)")
        raise SystemExit(5)
    runner = RuleTestRunner(gamedef)
    start = time.perf_counter()
    outcomes = []
    mark = {"passed": ".", "failed": "F", "error": "E"}
    colour = {"passed": "green", "failed": "red", "error": "red"}
    done_in_file = {}
    by_file = {f: sum(1 for t in selected if t.header.span and t.header.span.file == f) for f in files}
    current = None
    width = min(out.width, 100)
    column = 0
    for test in selected:
        file = test.header.span.file if test.header.span else "?"
        if not verbose and file != current:
            if current is not None:
                out.print()
            current = file
            name = Path(file).name
            out.print(name + " ", end="")
            column = len(name) + 1
        outcome = runner.run(test)
        outcomes.append(outcome)
        done_in_file[file] = done_in_file.get(file, 0) + 1
        percent = f"[{100 * len(outcomes) // len(selected):3d}%]"
        if verbose:
            word = outcome.status.upper()
            line = f"{Path(file).name}::{test.name} "
            out.print(Text.assemble(line, (word, colour[outcome.status]),
                                    " " * max(1, width - len(line) - len(word) - len(percent)) + percent))
        else:
            out.print(Text(mark[outcome.status], style=colour[outcome.status]), end="")
            column += 1
            if done_in_file[file] == by_file.get(file):
                out.print(" " * max(1, width - column - len(percent)) + percent, end="")
        if exitfirst and outcome.status != "passed":
            break
    if not verbose:
        out.print()
    seconds = time.perf_counter() - start
    failed = [o for o in outcomes if o.status != "passed"]
    if failed:
        out.print()
        out.print(" FAILURES ".center(width, "="), style="bold red")
        for o in failed:
            out.print(f" {title(o)} ".center(width, "_"), style="red", markup=False)
            out.print("\n".join(failure_lines(o)), markup=False)
            out.print()
    summary = summary_line(outcomes, seconds, len(tests) - len(selected))
    out.print(f" {summary} ".center(width, "="), style="bold red" if failed else "bold green", markup=False)
    if junit_path:
        from warcodex.interpreter.saves import write_atomic

        write_atomic(Path(junit_path), junit_xml(gamedef.game.name, outcomes, seconds))
        err.print(f"wrote {junit_path}")
    if failed:
        raise SystemExit(1)


def game_board(gamedef):
    """The game's map, for the sections it cites (None when there is none to load)."""
    from warcodex.interpreter.engine import load_board

    try:
        return load_board(gamedef)
    except Exception:  # noqa: BLE001 - `check` reports a map that does not load; coverage goes on
        return None


def rule_tests(gamedef) -> list:
    """The rule tests of a checked game (its tests/*.wcx), for the "tested" column; none when the
    tests do not load (`warcodex check` and `warcodex test` report why)."""
    from warcodex.dsl.loader import load_game, test_files

    if not test_files(gamedef.root):
        return []
    try:
        return list(load_game(gamedef.root, tests=True).tests.values())
    except DiagnosticError:
        return []


# ------------------------------------------------------------------ fmt
@cli.command()
@click.argument("path", type=click.Path(exists=True))
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if a file would change.")
def fmt(path: str, check_only: bool) -> None:
    """Rewrite .wcx files in the canonical layout (a file, or every .wcx under a folder)."""
    from warcodex.dsl.formatter import format_path

    changed, report = format_path(Path(path), check_only)
    if report:
        out.print(report, markup=False)
    if check_only and changed:
        raise SystemExit(1)


# ------------------------------------------------------------------ lsp
@cli.command()
def lsp() -> None:
    """Run the language server on stdin/stdout, for editors (docs/editors.md)."""
    from warcodex.lsp.server import main as serve

    serve()


# ------------------------------------------------------------------ info
@cli.command()
@click.argument("game")
def info(game: str) -> None:
    """Metadata, sides, scenarios, sections and provisional items of GAME."""
    gamedef, diags = load_checked(game)
    g = gamedef.game
    out.print(bold(g.header.title(), f" ({g.name})  " + " ".join(f"§{c}" for c in g.header.citations)))
    edition = gamedef.prop("edition")
    if edition is not None:
        out.print(f"edition: {getattr(edition, 'value', edition)}")
    out.print("sides: " + ", ".join(f"{s.name} ({s.header.title()})" for s in gamedef.sides))
    table = Table(title="scenarios")
    for col in ("name", "title", "turns", "§"):
        table.add_column(col)
    for sc in gamedef.scenarios.values():
        props = {p.key: p.value for p in sc.props}
        first = getattr(props.get("first_turn"), "value", 1 if "turns" in props else "?")
        last = getattr(props.get("last_turn"), "value", None)
        if last is None and "turns" in props and isinstance(first, int):
            last = first + getattr(props["turns"], "value", 1) - 1
        turns = f"{first}-{last if last is not None else '?'}"
        table.add_row(sc.name, sc.header.title(), turns, " ".join("§" + c for c in sc.header.citations))
    out.print(table)
    from warcodex.dsl import ast

    actions = sum(1 for _ in gamedef.of_kind(ast.Action))
    out.print(f"sections: {len(gamedef.sections)}; tables: {len(gamedef.tables)}; unit types: {len(gamedef.units)}; "
              f"actions: {actions}")
    provisional = [w for w in diags.warnings if w.code == "W-provisional"]
    out.print(f"provisional items: {len(provisional)}")
    for w in provisional:
        out.print(f"  {w.message}", markup=False)


# ------------------------------------------------------------------ play
def _progress(runner, state, engine):
    first, last = engine.first_turn(state), engine.last_turn(state)
    progress = Progress(TextColumn("turn {task.fields[turn]}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[actions]} actions"), TimeElapsedColumn(), console=err, transient=True)
    task = progress.add_task("play", total=last - first + 1, turn=first, actions=0)

    def on_action(entry):
        progress.update(task, completed=state.position.turn - first, turn=state.position.turn, actions=runner.actions_taken)

    runner.on_action = on_action
    return progress


def read_dice(text: str | None, file: str | None) -> list[int] | None:
    """The fixed rolls of `--dice 3,5,1` and/or `--dice-file F` (the file's after the option's)."""
    from warcodex.interpreter.dice import parse_dice

    rolls: list[int] = []
    try:
        if text:
            rolls += parse_dice(text)
        if file:
            try:
                content = Path(file).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise UserError(f"cannot read {file}: {exc}") from None
            rolls += parse_dice(content, file)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--dice / --dice-file") from None
    return rolls or None


def print_report(engine, game) -> None:
    s = game.summary()
    table = Table(title=f"{engine.game.game.header.title()}: scenario {s['scenario']}, seed {s['seed']}")
    table.add_column("side")
    table.add_column("units on map")
    table.add_column("eliminated")
    table.add_column("variables")
    for side in engine.side_entities:
        variables = ", ".join(f"{k}={v}" for k, v in s["sides"].get(side.name, {}).items())
        table.add_row(side.label, str(s["units_on_map"][side.name]), str(s["eliminated"][side.name]), variables)
    out.print(table)
    played = game.turns_played()
    if game.stopped_early:
        pos = game.state.position
        where = f"after turn {pos.turn - 1}" if pos.op == 0 else f"during turn {pos.turn}"
        out.print(Text.assemble(("stopped early", "bold"), f" {where}: no result yet; turns played: {played}; "
                                f"actions: {s['actions']}"))
    elif s["winner"]:
        out.print(Text.assemble("winner: ", (s["winner"], "bold"), f" ({s['reason'] or 'no reason given'}); turns played: "
                                f"{played}; actions: {s['actions']}"))
    else:
        out.print(Text.assemble("result: ", ("a draw", "bold"), f" ({s['reason'] or 'the last turn ended with no winner'}); "
                                f"turns played: {played}; actions: {s['actions']}"))


def first_combat(log: list[dict]) -> dict | None:
    """The first action whose trace contains a table lookup (a combat, usually)."""
    def has_lookup(trace):
        return any("column" in d["what"] or has_lookup(d.get("steps", [])) for d in trace)

    return next((e for e in log if e.get("k") == "action" and has_lookup(e.get("trace", []))), None)


@cli.command()
@click.argument("game")
@click.option("--scenario", "-s", help="Scenario name (default: the first).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--agents", default="random", show_default=True, help="Comma-separated, one per side or one for all: random, first, human, greedy, plan, mcts "
                   "(options after colons: greedy:samples=16, mcts:playouts=32:horizon=20:rollout=greedy; docs/balance.md).")
@click.option("--until", "until_turn", type=int, help="Stop after this turn.")
@click.option("--option", "options", multiple=True, help="Scenario option NAME=VALUE (repeatable).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), help="Write the game log (JSON lines) here.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), help="Save the final state here.")
@click.option("--load", "load_path", type=click.Path(dir_okay=False, exists=True), help="Continue a saved game.")
@click.option("--force", is_flag=True, help="Continue a save made with other rules files (it is still checked against these).")
@click.option("--max-actions", type=int, help="Stop after this many actions (then --save to continue later).")
@click.option("--explain-combat", is_flag=True, help="Print the explanation of the first combat.")
@click.option("--check-invariants", is_flag=True, help="Check the game's invariants after every action.")
@click.option("--dice", "dice_text", help="The first die rolls, e.g. 3,5,1 (then the seed's dice).")
@click.option("--dice-file", type=click.Path(dir_okay=False, exists=True),
              help="A file of the first die rolls: numbers separated by commas, blanks or lines; # comments.")
def play(game, scenario, seed, agents, until_turn, options, log_path, save_path, load_path, force, max_actions, explain_combat,
         check_invariants, dice_text, dice_file):
    """Play GAME with agents (self-play by default) and print the final report."""
    from warcodex.interpreter.play import Game, agents_for, start
    from warcodex.interpreter.saves import load_save, save_game

    engine = build_engine(game)
    opts = parse_options(options)
    dice = read_dice(dice_text, dice_file)
    if load_path:
        if dice:
            raise click.UsageError("--dice and --dice-file start a game: a loaded game keeps the dice it was saved with")
        state, agent_objs, log = load_save(engine, load_path, force=force)
        g = Game(engine.for_scenario(state.scenario), state, agent_objs, log=log, check_invariants=check_invariants)
    else:
        g = start(engine, scenario, seed, parse_agents(engine, agents, seed), options=opts,
                  check_invariants=check_invariants, dice=dice)
    for note in g.state.setup_notes:
        out.print(f"set-up: {note}", markup=False)
    progress = _progress(g.runner, g.state, engine)
    try:
        with progress:
            g.run(until_turn=until_turn, max_actions=max_actions)
    except Exception:
        # a rules error or a broken invariant: keep the game up to that point, it is the report
        if log_path:
            write_log(Path(log_path), engine, g, opts)
            err.print(f"wrote the log up to the failure: {log_path} (`warcodex explain {log_path}` shows every step)")
        raise
    print_report(engine, g)
    if explain_combat:
        from warcodex.interpreter.explain import format_entry

        entry = first_combat(g.log)
        if entry:
            out.print(bold("\nAn explained combat"))
            out.print(format_entry(entry), markup=False)
    if dice:
        left = g.state.rng.remaining if hasattr(g.state.rng, "remaining") else []
        used = len(dice) - len(left)
        err.print(f"fixed dice: {used} of {len(dice)} rolled" + (f"; not rolled: {', '.join(map(str, left))}" if left else ""))
    if log_path:
        write_log(Path(log_path), engine, g, opts)
        err.print(f"wrote log {log_path}")
    if save_path:
        save_game(engine, g, save_path)
        err.print(f"wrote save {save_path}")


# ------------------------------------------------------------------ replay and explain
@cli.command()
@click.argument("log", type=click.Path(exists=True, dir_okay=False))
@click.option("--game", "game_arg", help="Game folder (default: the one recorded in the log).")
@click.option("--check-invariants", is_flag=True,
              help="Check the invariants while replaying: a log that ends at a broken invariant (a failure of "
                   "`warcodex balance`) is reproduced up to it, then the failure is shown (exit 1).")
@click.option("--force", is_flag=True, help="Replay a log made with other rules files (to see where they differ).")
def replay(log: str, game_arg: str | None, check_invariants: bool, force: bool) -> None:
    """Re-execute LOG from its decisions and verify it reproduces the same game (with the overlays
    the log names, if any)."""
    from warcodex.interpreter.consistency import check_log
    from warcodex.interpreter.play import log_text, replay as run_replay
    from warcodex.interpreter.values import RuleError

    header, entries = read_log(Path(log))
    overlays = [o for o in header.get("overlays") or () if Path(o).exists()]
    for missing in sorted(set(header.get("overlays") or ()) - set(overlays)):
        err.print(f"warning: the log was played with the overlay {missing}, which is not there", style="yellow")
    engine = build_engine(game_arg or recorded_game(header["game"], header.get("game_dir")), overlays)
    check_log(engine, header, entries, log, force=force)
    if header["rules"] != engine.fingerprint:
        err.print(f"warning: the log was made with rules {header['rules']}, these are {engine.fingerprint} (--force)",
                  style="yellow")
    try:
        g = run_replay(engine, header["scenario"], header["seed"], entries, options=header.get("options") or {},
                       dice=header.get("dice"), check_invariants=check_invariants)
    except RuleError as exc:
        g = getattr(exc, "replayed_game", None)
        if g is None or log_text(g.log) != log_text(entries):
            raise
        out.print(f"reproduced: {len(entries)} log entries identical, then the failure:")
        print_diagnostics([exc.diagnostic()])
        raise SystemExit(1)
    if log_text(g.log) == log_text(entries):
        out.print(f"reproduced: {len(entries)} log entries identical; winner {g.state.winner or 'none'}")
        return
    for i, (a, b) in enumerate(zip(g.log, entries)):
        if a != b:
            err.print(f"diverges at entry {i}:\n  log:    {json.dumps(b, sort_keys=True)[:300]}\n  replay: {json.dumps(a, sort_keys=True)[:300]}")
            break
    else:
        err.print(f"the replay has {len(g.log)} entries, the log {len(entries)}")
    raise SystemExit(1)


@cli.command()
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@click.option("--entry", "-n", "entry_no", type=int, help="Only this log entry.")
@click.option("--combat", is_flag=True, help="Only the first combat.")
@click.option("--all", "show_all", is_flag=True, help="Every entry, not only actions.")
def explain(record: str, entry_no: int | None, combat: bool, show_all: bool) -> None:
    """Show how each action of a log or save was resolved, with the rules that applied."""
    from warcodex.interpreter.explain import format_entry
    from warcodex.interpreter.saves import read_entries

    entries = read_entries(Path(record))
    if combat:
        e = first_combat(entries)
        entries = [e] if e else []
    elif entry_no is not None:
        entries = [e for e in entries if e.get("n") == entry_no]
    elif not show_all:
        entries = [e for e in entries if e.get("k") in ("action", "end")]
    if not entries:
        raise UserError("no matching entry")
    for e in entries:
        out.print(format_entry(e))


def open_position(record: str, at: int | None, game_arg: str | None):
    """The position of a log (after entry `at`, or at its end) or of a save."""
    from warcodex.interpreter.positions import Position, logged_position
    from warcodex.interpreter.saves import load_save

    from warcodex.interpreter.consistency import check_log
    from warcodex.interpreter.saves import is_log_text, read_record_text, read_save_file

    path = Path(record)
    text = read_record_text(path)
    if is_log_text(text):
        header, entries = read_log(path)
        engine = build_engine(game_arg or recorded_game(header["game"], header.get("game_dir")))
        check_log(engine, header, entries, record)
        return logged_position(engine, header, entries, at)
    data, _ = read_save_file(path, text)
    engine = build_engine(game_arg or recorded_game(data.game))
    state, _, log = load_save(engine, path)
    if at is not None:  # a save holds its log: replay it to that entry
        from warcodex.interpreter.positions import logged_position

        header = {"scenario": state.scenario, "seed": state.seed, "options": dict(state.options),
                  "dice": getattr(state.rng, "rolls", None)}
        return logged_position(engine, header, log, at)
    return Position(engine.for_scenario(state.scenario), state, "the saved position")


@cli.command()
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@click.argument("expression")
@click.option("--at", "at", type=int, help="The position after this log entry (default: the end).")
@click.option("--game", "game_arg", help="Game folder (default: the one recorded).")
def query(record: str, expression: str, at: int | None, game_arg: str | None) -> None:
    """Evaluate a rules EXPRESSION in a position of a log or save, with its derivation:
    warcodex query game.jsonl 'crt_column([unit_by_id(7)], "0606", 0, 0, 0)' --at 40"""
    from warcodex.interpreter.positions import parse_expression, query as evaluate
    from warcodex.interpreter.rule_tests import describe

    position = open_position(record, at, game_arg)
    expr = parse_expression(position.engine.game, expression)
    value, trace = evaluate(position, expr)
    out.print(f"position: {position.heading()}", markup=False)
    from warcodex.interpreter.context import Context

    ctx = Context(position.engine, position.state, {})
    out.print(f"{expression} = {describe(ctx, value)}", markup=False)
    for d in trace:
        out.print("\n".join(d.lines(1)), markup=False)


@cli.command()
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@click.option("--unit", "unit", help="Only actions involving this unit: its id (7) or part of its label.")
@click.option("--at", "at", type=int, help="The position after this log entry (default: the end).")
@click.option("--limit", type=int, default=20, show_default=True, help="Actions shown per kind of action (0: all).")
@click.option("--game", "game_arg", help="Game folder (default: the one recorded).")
def moves(record: str, unit: str | None, at: int | None, limit: int, game_arg: str | None) -> None:
    """The legal actions in a position of a log or save: each movement with its path and the cost
    of every step, term by term, with the sections."""
    from warcodex.interpreter.positions import legal_moves

    position, side, by_action, totals = legal_moves(open_position(record, at, game_arg), unit, limit or None)
    out.print(f"position: {position.heading()}", markup=False)
    if side is None:
        out.print("no side is to act here (the game is over, or no phase offers actions now)")
        return
    shown = sum(len(v) for v in by_action.values())
    out.print(f"{side} may take {sum(totals.values())} action(s)" + (f" involving '{unit}'" if unit else "")
              + ", or pass" + (f"; {shown} shown" if shown < sum(totals.values()) else ""), markup=False)
    for name, found in by_action.items():
        if not totals[name]:
            continue
        out.print(bold(f"\n{name}", f": {totals[name]}"))
        for m in found:
            out.print(f"  {m.text}", markup=False)
            for d in m.explanation:
                out.print("\n".join(d.lines(2)), markup=False)
        if totals[name] > len(found):
            out.print(f"  ... and {totals[name] - len(found)} more (--unit, --limit)")


@cli.command()
def schema() -> None:
    """Print the JSON schema of save files."""
    from warcodex.interpreter.saves import SaveFile

    out.print_json(json.dumps(SaveFile.model_json_schema()))


# ------------------------------------------------------------------ compile
@cli.command(name="compile")
@click.argument("game")
@click.option("--show", "names", multiple=True, metavar="NAME",
              help="Print the generated Python of a declaration (a quantity, function, procedure, action, "
                   "movement mode, trigger event, invariant...); repeatable.")
@click.option("--scenario", "-s", help="The rules as this scenario's special rules change them.")
@click.option("--overlay", "overlays", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="A .wcx file loaded last (repeatable).")
def compile_cmd(game: str, names, scenario: str | None, overlays) -> None:
    """Compile the rules of GAME to Python and say how much code they became; with --show NAME,
    print the code generated for NAME (docs/engine.md, "How rules become Python")."""
    import time

    from warcodex.interpreter.engine import Engine

    gamedef, _ = load_checked(game, overlays)
    t0 = time.perf_counter()
    engine = Engine(gamedef, evaluator="generated")
    if scenario is not None:
        engine = engine.for_scenario(scenario)
    seconds = time.perf_counter() - t0
    compiler = engine.compiler
    if not names:
        lines = compiler.source().count("\n")
        out.print(f"{gamedef.game.name}: {len(compiler.units)} generated units, {lines} lines of Python "
                  f"(engine built in {seconds:.2f} s{', from the cache' if compiler.from_cache else ''})")
        return
    for name in names:
        code = compiler.show(name)
        if not code:
            known = sorted({u.owner for u in compiler.units if u.owner})
            import difflib

            close = difflib.get_close_matches(name, known, n=3)
            raise UserError(f"no generated code belongs to '{name}'"
                            + (f" (did you mean {', '.join(close)}?)" if close else ""))
        out.print(code, markup=False, highlight=False)


# ------------------------------------------------------------------ demo (the main job)
@cli.command()
@click.argument("game")
@click.option("--scenario", "-s")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default="out", show_default=True)
def demo(game: str, scenario: str | None, seed: int, out_dir: str) -> None:
    """The main job on a game: check it, self-play one game with an explained combat, and write
    the log, a save and the coverage report (plus player aids and a VASSAL module where available)."""
    from warcodex.dsl.coverage import coverage, summary, tested_count
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.explain import format_entry
    from warcodex.interpreter.play import agents_for, start
    from warcodex.interpreter.saves import save_game
    from warcodex.dsl.coverage_html import render_html
    from warcodex.exporters.aids import write_aids
    from warcodex.exporters.vassal.module import ExportOptions, build_module
    from warcodex.outputs import output_folder, write_atomic

    target = Path(out_dir)
    gamedef, diags = load_checked(game)
    out.print(bold("1. check", f": {gamedef.game.header.title()} ok, {len(diags.warnings)} warning(s) "
                   f"({sum(1 for w in diags.warnings if w.code == 'W-provisional')} provisional item(s))"))
    tests = rule_tests(gamedef)
    report = coverage(gamedef, tests)
    counts = summary(report)
    out.print(bold("2. coverage", ": " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items())
                   + f"; {tested_count(report)} section(s) tested by a rule test"))
    if tests:  # the rulebook's worked examples, written in the rules language (tests/*.wcx)
        from warcodex.dsl.checker import check_path
        from warcodex.interpreter.rule_test_report import summary_line
        from warcodex.interpreter.rule_tests import RuleTestRunner

        import time

        with_tests, _ = check_path(gamedef.root, include_roots=include_roots(), tests=True)
        started = time.perf_counter()
        outcomes = RuleTestRunner(with_tests).run_all(list(with_tests.tests.values()))
        seconds = time.perf_counter() - started
        out.print(bold("2b. rule tests", f" (`warcodex test`): {summary_line(outcomes, seconds)}"))
    engine = Engine(gamedef)
    g = start(engine, scenario, seed, agents_for(engine, ["random"], seed), check_invariants=True)
    with _progress(g.runner, g.state, engine):
        g.run()
    out.print(bold("3. self-play", " (random agents, invariants checked after every action)"))
    print_report(engine, g)
    entry = first_combat(g.log)
    if entry:
        out.print(bold("4. an explained combat"))
        out.print(format_entry(entry))
    # every output is written into a fresh folder that then replaces the target as a whole
    with output_folder(target, "warcodex demo") as folder:
        write_log(folder / "game.log.jsonl", engine, g, {})
        save_game(engine, g, folder / "final.save.json")
        write_atomic(folder / "coverage.html", render_html(gamedef, coverage(gamedef, rule_tests(gamedef), engine.board)))
        made = ["game.log.jsonl (replay with `warcodex replay`)", "final.save.json", "coverage.html"]
        # the exporters: player aids (HTML, PDF, odds charts) and a VASSAL module of the scenario
        result = write_aids(gamedef, folder / "aids", scenario=g.state.scenario)
        out.print(bold("5. player aids", f": {result['pages']} page(s), {len(result['aid'].tables)} table(s), "
                                         f"{len(result['aid'].charts)} odds chart(s) in {target / 'aids'}/"))
        module = build_module(gamedef, g.state.scenario, ExportOptions())
        vmod = f"{module.data.name}-{module.data.scenario}.vmod"
        module.write(folder / vmod)
        out.print(bold("6. VASSAL module", f": {target / vmod} ({len(module.data.board)} locations, "
                                           f"{sum(len(u) for u in module.data.at_start.values())} units at start)"))
        made += ["aids/ (aids.html, aids.pdf, SVG odds charts)", vmod]
        # the replay page: the engine replays the log just written, step by step (docs/viewer.md)
        from warcodex.exporters.viewer import ViewOptions, build_page, load_record

        rec, facts, what = load_record(folder / "game.log.jsonl", str(gamedef.root), warn=lambda t: None)
        write_atomic(folder / "replay.html", build_page(rec, facts, source=what, options=ViewOptions()))
        out.print(bold("6b. replay page", f": {target / 'replay.html'} ({len(rec.steps) - 1} steps; open it in a browser)"))
        made.append("replay.html (`warcodex view`)")
    out.print(bold("7. outputs", f" in {target}/: " + ", ".join(made)))


# ------------------------------------------------------------------ odds
@cli.command(name="odds")
@click.argument("game")
@click.option("--scene", "scene_file", type=click.Path(dir_okay=False),
              help="A .wcx file with a test block: the position, its last line the combat to resolve.")
@click.option("--save", "save_file", type=click.Path(dir_okay=False),
              help="A save: its position (with --combat, the combat to resolve).")
@click.option("--combat", help="With --save: the combat, a procedure call (fight(\"karelia\", germany)).")
@click.option("--name", "scene_name", help="Which test block of the file (default: the first).")
@click.option("--casualties", type=click.Choice(["cheapest", "first"]), default="cheapest", show_default=True,
              help="Casualty policy: the unit of lowest `cost` first, or the first offered.")
@click.option("--mode", type=click.Choice(["auto", "exact", "mc"]), default="auto", show_default=True,
              help="exact enumeration, Monte Carlo, or exact with Monte Carlo where the dice do not allow it.")
@click.option("--precision", type=float, default=0.005, show_default=True,
              help="Monte Carlo: stop when every outcome's 95%% confidence interval is within P of it.")
@click.option("--workers", type=int, default=None, help="Monte Carlo worker processes (default: every core this process may use); the result does not depend on it.")
@click.option("--seed", type=int, default=1, show_default=True, help="Monte Carlo: the first seed.")
@click.option("--overlay", "overlays", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Published values replacing provisional data.")
@click.option("--attacker", help="With --save: the attacking side (default: the side active in the save).")
@click.option("--force", is_flag=True, help="With --save: read a save made with other rules files (or overlays) "
              "too; it is still checked against these.")
@click.option("--evaluator", type=click.Choice(["odds", "reference"]), default="odds", show_default=True,
              help="The engine the rules run on: odds (generated code for the rules that roll no dice) or "
              "reference (the closure compiler alone); the same odds (docs/odds.md).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def odds_cmd(game: str, scene_file: str | None, save_file: str | None, combat: str | None, scene_name: str | None,
             casualties: str, mode: str, precision: float, workers: int | None, seed: int, overlays: tuple,
             attacker: str | None, force: bool, evaluator: str, as_json: bool) -> None:
    """The outcome distribution of a combat, computed from the game's own combat rules: exactly
    where the dice allow it, else by Monte Carlo (docs/odds.md)."""
    from warcodex.interpreter.attack_report import attack_report
    from warcodex.interpreter.odds import SceneError, load_scene, resolve, scene_from_save

    if (scene_file is None) == (save_file is None):
        raise click.UsageError("give the position: --scene FILE, or --save FILE with --combat CALL")
    if save_file is not None and not combat:
        raise click.BadParameter("--save needs the combat to resolve: --combat 'fight(\"karelia\", germany)'",
                                 param_hint="--combat")
    if scene_file is not None and combat:
        raise click.BadParameter("--combat goes with --save; a scene's combat is its last line", param_hint="--combat")
    if save_file is not None and scene_name:
        raise click.BadParameter("--name picks a test block of a --scene file; with --save, give --combat",
                                 param_hint="--name")
    if scene_file is not None and attacker:
        raise click.BadParameter("--attacker goes with --save; a scene says `active SIDE`", param_hint="--attacker")
    if scene_file is not None and force:
        raise click.BadParameter("--force reads a save made with other rules files; a scene is checked with these",
                                 param_hint="--force")
    if not 0 < precision < 0.5:
        raise click.BadParameter("the precision is a probability between 0 and 0.5", param_hint="--precision")
    if workers is not None and workers < 1:
        raise click.BadParameter("at least 1 worker", param_hint="--workers")
    try:
        if save_file is not None:
            scene = scene_from_save(resolve_game(game), save_file, combat, casualties, overlays=overlays, force=force,
                                    attacker=attacker, evaluator=evaluator)
        else:
            scene = load_scene(resolve_game(game), scene_file, scene_name, casualties, overlays=overlays,
                               evaluator=evaluator)
        if scene.warnings:  # what the checker found wrong in the scene's own lines (an answer that never applies)
            print_diagnostics(scene.warnings)
        result = resolve(scene, mode, precision, workers, seed)
        # a CRT attack: its derivation and each die face, read off the rules' traces
        attack = attack_report(scene) if result.method == "exact" else None
    except SceneError as exc:
        print_diagnostics([Diagnostic(Severity.ERROR, "E-scene", exc.message, exc.span, exc.hint)])
        raise SystemExit(1) from None
    if as_json:
        out.print(json.dumps({**result.to_json(), "attack": attack.to_json() if attack else None}, indent=2))
        return
    if attack is not None:
        print_attack(attack)
    print_odds(result)


def print_attack(report) -> None:
    """A CRT attack as a player reads it: the derivation before the die, then each face."""
    source = (f"PROVISIONAL: {report.provenance_note or 'not the published table'}" if report.provenance == "provisional"
              else report.provenance.replace("_", " "))
    out.print(bold("Attack on the " + report.title, f" ({source})"))
    out.print("before the die (the rules' derivation; every column shift and modifier with its section):")
    for line in report.before:
        out.print("\n".join(line.lines(1)), highlight=False)
    out.print(Text.assemble("final column: ", (", ".join(report.columns) or "-", "bold")))
    faces = Table(title=f"each die roll on the {report.title}")
    for col in ("die", "probability", "row", "result", "what it does to the units"):
        faces.add_column(col, justify="right" if col in ("die", "probability", "row") else "left")
    for f in report.faces:
        dice = ", ".join(f"{d} {r}" for d, r in zip(f.dice, f.rolls))
        applied = "; ".join(a.lines()[0].strip() for a in f.applied)
        before = "\n".join(x for line in f.derivation for x in line.lines())
        later = "\n".join(x for line in f.later for x in line.lines())
        what = "\n".join(x for x in (before, applied, later, f.effects) if x)
        faces.add_row(dice, f"{f.probability:.4f}", f.row, f.result, what)
    out.print(faces)
    out.print(Text.assemble("results: ", ", ".join(f"{code} {p:.4f}" for code, p in report.results.items())))


def print_odds(result) -> None:
    how = ("exact" if result.method == "exact" else
           f"Monte Carlo, {result.battles:,} battles on {result.workers} worker(s), every outcome within "
           f"+-{result.half_width:.4f} at 95% confidence")
    out.print(bold("Combat odds", f" ({how}, {result.seconds:.2f} s); attacker: {result.attacker}"))
    if result.note:
        out.print(result.note, style="yellow")
    table = Table(title=None)
    table.add_column("outcome")
    table.add_column("probability", justify="right")
    if result.intervals:
        table.add_column("95% interval (Wilson)", justify="right")
    for name, p in result.outcomes.items():
        lo_hi = result.intervals.get(name)
        table.add_row(name, f"{p:.4f}", *([f"{lo_hi[0]:.4f} - {lo_hi[1]:.4f}"] if lo_hi else []))
    out.print(table)
    units = Table()
    for col in ("side", "unit type", "at start", "expected survivors", "expected losses"):
        units.add_column(col, justify="left" if col in ("side", "unit type") else "right")
    for role, types in result.survivors.items():
        for t, s in types.items():
            lost = result.losses[role][t]
            units.add_row(role, t, f"{s + lost:.0f}", f"{s:.3f}", f"{lost:.3f}")
    out.print(units)
    shown = [(r, p) for r, p in result.rounds.items() if p >= 0.0005]
    if len(result.rounds) > 1 or any(r for r in result.rounds):
        rounds = Table(title="rounds fought")
        rounds.add_column("rounds", justify="right")
        rounds.add_column("probability", justify="right")
        for r, p in shown:
            rounds.add_row(str(r), f"{p:.4f}")
        rest = sum(p for r, p in result.rounds.items() if p < 0.0005)
        if rest:
            rounds.add_row("other", f"{rest:.4f}")
        out.print(rounds)
    results = Table(title="results (most likely first)")
    results.add_column("probability", justify="right")
    results.add_column("what the combat does to the units")
    for p, text in result.effects[:12]:
        results.add_row(f"{p:.4f}" if p >= 0.00005 else f"{p:.1e}", text)
    if len(result.effects) > 12:
        results.add_row(f"{sum(p for p, _ in result.effects[12:]):.4f}", f"{len(result.effects) - 12} other results")
    out.print(results)
    if result.provisional:
        out.print(Text.assemble(("provisional data in these rules (not the published values): ", "yellow"),
                                "; ".join(result.provisional)))


INTERNAL_ERROR = 70  # exit status of a failure that is a bug in Warcodex, not bad input (EX_SOFTWARE)


def main(argv: list[str] | None = None) -> None:
    """Entry point: bad input ends with a message (located when it comes from a file) and exit
    status 1, a usage error with status 2, never a traceback. A failure that is not bad input is
    a bug: it is reported as an internal error (status 70), located at the rule that was running
    when generated code raised it, with the traceback only when WARCODEX_DEBUG=1."""
    import os

    from warcodex.inputs import InputError
    from warcodex.interpreter.saves import SaveError
    from warcodex.interpreter.values import RuleError
    from warcodex.outputs import OutputError

    console.single_job()  # this process runs one command: its engine may settle for play
    try:
        cli.main(args=argv, standalone_mode=False)
    except click.exceptions.Abort as exc:  # click's for a KeyboardInterrupt: Ctrl-C, or a SIGTERM
        code = getattr(exc.__cause__, "exit_code", 130)  # a command turned into one (balance)
        err.print("terminated" if code != 130 else "aborted")
        sys.exit(code)
    except click.ClickException as exc:  # usage errors: exit 2
        exc.show()
        sys.exit(2)
    except DiagnosticError as exc:
        print_diagnostics(exc.diagnostics)
        sys.exit(1)
    except RuleError as exc:
        print_diagnostics([exc.diagnostic()])
        sys.exit(1)
    except (SaveError, UserError, InputError, OutputError) as exc:
        err.print(f"error: {exc}", style="red")
        sys.exit(1)
    except OSError as exc:  # a file operation no writer or reader above turned into a message
        where = f"{exc.filename}: " if exc.filename else ""
        err.print(f"error: {where}{exc.strerror or exc}", style="red")
        sys.exit(1)
    except SystemExit:
        raise
    except KeyboardInterrupt as exc:
        sys.exit(getattr(exc, "exit_code", 130))
    except Exception as exc:  # noqa: BLE001 - a bug must still end with a message, not a traceback
        from warcodex.interpreter.generated import span_of_traceback

        if os.environ.get("WARCODEX_DEBUG"):
            raise
        span = span_of_traceback(exc.__traceback__)  # the rule that was running, in generated code
        if span is not None:
            print_diagnostics([Diagnostic(Severity.ERROR, "E-internal", f"internal error while running this rule: "
                                          f"{type(exc).__name__}: {exc}", span,
                                          "this is a bug in Warcodex; WARCODEX_DEBUG=1 shows the Python traceback")])
        else:
            err.print(f"internal error: {type(exc).__name__}: {exc}", style="red")
            err.print("this is a bug in Warcodex, not in your input; WARCODEX_DEBUG=1 shows where it happened")
        sys.exit(INTERNAL_ERROR)


if __name__ == "__main__":
    main()
