"""The `warcodex` command line.

    warcodex check GAME            parse and check the rules (exit 0 ok, 1 errors, 2 usage)
    warcodex coverage GAME         which rulebook sections are encoded (text, --html, --json)
    warcodex fmt PATH [--check]    canonical layout of .wcx files
    warcodex info GAME             metadata, sides, scenarios, sections, provisional items
    warcodex play GAME ...         self-play with agents, progress bar, final report, log
    warcodex replay LOG            re-execute a log and verify it reproduces the same game
    warcodex explain LOG|SAVE      the derivation of each action, with rule citations
    warcodex demo GAME -o DIR      the main job: check, self-play with an explained combat, outputs
    warcodex schema                the JSON schema of save files

GAME is a game folder (games/tiny) or the name of a bundled game (tiny).
"""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from warcodex.dsl.diagnostics import Diagnostic, DiagnosticError, Diagnostics, Severity

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

LOG_FORMAT = "warcodex-log"


class UserError(Exception):
    """Bad input that is not located in a rules file (a missing log, a corrupt save...)."""


def bundled_games() -> Path | None:
    """Where the bundled games are: package data of an installed wheel, or the source tree's
    games/ folder for an editable install (whose finder does not expose data-only packages)."""
    try:
        return Path(str(resources.files("warcodex.games")))
    except ModuleNotFoundError:
        import warcodex

        tree = Path(warcodex.__file__).resolve().parent.parent / "games"
        return tree if tree.is_dir() else None


def resolve_game(arg: str) -> Path:
    path = Path(arg)
    if path.exists():
        return path
    root = bundled_games()
    if root is not None and (root / arg).is_dir():
        return root / arg
    known = sorted(p.name for p in root.iterdir() if p.is_dir()) if root is not None else []
    raise click.BadParameter(f"no game folder or bundled game named '{arg}'"
                             + (f" (bundled: {', '.join(known)})" if known else ""), param_hint="GAME")


def print_diagnostics(diags: list[Diagnostic]) -> None:
    for d in diags:
        err.print(d.render(), markup=False, style="red" if d.severity is Severity.ERROR else "yellow")


def load_checked(game_arg: str, overlays=(), show_warnings: bool = False):
    """Load and check a game; print errors and raise SystemExit(1) if there are any."""
    from warcodex.dsl.checker import check_path

    game, diags = check_path(resolve_game(game_arg), overlays)
    if diags.errors or game is None:
        print_diagnostics(diags.errors + (diags.warnings if show_warnings else []))
        err.print(f"{len(diags.errors)} error(s)", style="bold red")
        raise SystemExit(1)
    return game, diags


def build_engine(game_arg: str, overlays=()):
    from warcodex.interpreter.engine import Engine

    game, _ = load_checked(game_arg, overlays)
    return Engine(game)


# Commands that live with their feature (exporters, fuzzing) and are imported only when used, so
# heavy dependencies (WeasyPrint...) never slow down `check` or `play`: name -> "module:attribute".
LAZY_COMMANDS = {
    "aids": "warcodex.exporters.aids.command:aids",
    "vassal": "warcodex.exporters.vassal.command:vassal",
    "fuzz": "warcodex.interpreter.fuzzing:fuzz",
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
def cli() -> None:
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

    gamedef, diags = check_path(resolve_game(game), overlays)
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
    if diags.errors or gamedef is None:
        err.print(f"{len(diags.errors)} error(s), {len(warnings)} warning(s)", style="bold red")
        raise SystemExit(1)
    out.print(f"{gamedef.game.header.title()}: ok ({len(gamedef.decls)} declarations, {len(warnings)} warning(s))")


# ------------------------------------------------------------------ coverage
@cli.command(name="coverage")
@click.argument("game")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), help="Also write an HTML report here.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def coverage_cmd(game: str, html_path: str | None, as_json: bool) -> None:
    """Which rulebook sections GAME encodes, partly encodes, or not yet."""
    from warcodex.dsl.coverage import coverage, summary

    gamedef, _ = load_checked(game)
    report = coverage(gamedef)
    counts = summary(report)
    if as_json:
        out.print_json(json.dumps({"sections": [vars(c) for c in report], "summary": counts}))
    else:
        table = Table(title=f"Coverage: {gamedef.game.header.title()}", show_lines=False)
        table.add_column("§", no_wrap=True)
        table.add_column("section")
        table.add_column("status", no_wrap=True)
        table.add_column("cited by / note")
        style = {"encoded": "green", "partial": "yellow", "not_encoded": "red", "not_applicable": "dim"}
        for c in report:
            detail = c.note or ""
            if c.cited_by:
                shown = "; ".join(c.cited_by[:4]) + (f"; +{len(c.cited_by) - 4} more" if len(c.cited_by) > 4 else "")
                detail = f"{shown}" + (f" ({c.note})" if c.note else "")
            table.add_row("§" + c.number, "  " * c.depth + c.title, f"[{style[c.status]}]{c.status.replace('_', ' ')}[/]", detail)
        out.print(table)
        out.print(", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items()))
    if html_path:
        from warcodex.dsl.coverage_html import render_html
        from warcodex.interpreter.saves import write_atomic

        write_atomic(Path(html_path), render_html(gamedef, report))
        err.print(f"wrote {html_path}")


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
    out.print(f"[bold]{g.header.title()}[/] ({g.name})  " + " ".join(f"§{c}" for c in g.header.citations))
    edition = gamedef.prop("edition")
    if edition is not None:
        out.print(f"edition: {getattr(edition, 'value', edition)}")
    out.print("sides: " + ", ".join(f"{s.name} ({s.header.title()})" for s in gamedef.sides))
    table = Table(title="scenarios")
    for col in ("name", "title", "turns", "§"):
        table.add_column(col)
    for sc in gamedef.scenarios.values():
        props = {p.key: p.value for p in sc.props}
        turns = f"{getattr(props.get('first_turn'), 'value', '?')}-{getattr(props.get('last_turn'), 'value', '?')}"
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


def write_log(path: Path, engine, game, options: dict) -> None:
    from warcodex.interpreter.play import log_text
    from warcodex.interpreter.saves import write_atomic

    header = {"format": LOG_FORMAT, "version": 1, "game": engine.game.game.name, "game_dir": str(engine.game.root),
              "rules": engine.fingerprint, "scenario": game.state.scenario, "seed": game.state.seed, "options": options}
    write_atomic(path, json.dumps(header, sort_keys=True) + "\n" + log_text(game.log))


def read_log(path: Path) -> tuple[dict, list[dict]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        header = json.loads(lines[0]) if lines else {}
        entries = [json.loads(line) for line in lines[1:] if line.strip()]
    except json.JSONDecodeError as exc:
        raise UserError(f"{path} is not a Warcodex log: {exc.msg} at line {exc.lineno}") from None
    if header.get("format") != LOG_FORMAT:
        raise UserError(f"{path} is not a Warcodex log (no '{LOG_FORMAT}' header line)")
    return header, entries


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
    winner = s["winner"] or "none (draw)"
    out.print(f"winner: [bold]{winner}[/] ({s['reason']}); turns played: {min(s['turn'], engine.last_turn(game.state))}; "
              f"actions: {s['actions']}")


def first_combat(log: list[dict]) -> dict | None:
    """The first action whose trace contains a table lookup (a combat, usually)."""
    def has_lookup(trace):
        return any("column" in d["what"] or has_lookup(d.get("steps", [])) for d in trace)

    return next((e for e in log if e.get("k") == "action" and has_lookup(e.get("trace", []))), None)


def parse_options(pairs) -> dict:
    options = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        options[key] = {"true": True, "false": False}.get(value.lower(), int(value) if value.lstrip("-").isdigit() else value)
    return options


@cli.command()
@click.argument("game")
@click.option("--scenario", "-s", help="Scenario name (default: the first).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--agents", default="random", show_default=True, help="Comma-separated, one per side or one for all: random, first, human.")
@click.option("--until", "until_turn", type=int, help="Stop after this turn.")
@click.option("--option", "options", multiple=True, help="Scenario option NAME=VALUE (repeatable).")
@click.option("--log", "log_path", type=click.Path(dir_okay=False), help="Write the game log (JSON lines) here.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False), help="Save the final state here.")
@click.option("--load", "load_path", type=click.Path(dir_okay=False, exists=True), help="Continue a saved game.")
@click.option("--max-actions", type=int, help="Stop after this many actions (then --save to continue later).")
@click.option("--explain-combat", is_flag=True, help="Print the explanation of the first combat.")
@click.option("--check-invariants", is_flag=True, help="Check the game's invariants after every action.")
def play(game, scenario, seed, agents, until_turn, options, log_path, save_path, load_path, max_actions, explain_combat, check_invariants):
    """Play GAME with agents (self-play by default) and print the final report."""
    from warcodex.interpreter.play import Game, agents_for, start
    from warcodex.interpreter.saves import load_save, save_game

    engine = build_engine(game)
    opts = parse_options(options)
    if load_path:
        state, agent_objs, log = load_save(engine, load_path)
        g = Game(engine.for_scenario(state.scenario), state, agent_objs, log=log, check_invariants=check_invariants)
    else:
        g = start(engine, scenario, seed, agents_for(engine, agents.split(","), seed), options=opts,
                  check_invariants=check_invariants)
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
            out.print("\n[bold]An explained combat[/]")
            out.print(format_entry(entry), markup=False)
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
def replay(log: str, game_arg: str | None) -> None:
    """Re-execute LOG from its decisions and verify it reproduces the same game."""
    from warcodex.interpreter.play import log_text, replay as run_replay

    header, entries = read_log(Path(log))
    engine = build_engine(game_arg or header.get("game_dir") or header["game"])
    if header.get("rules") != engine.fingerprint:
        err.print(f"warning: the log was made with rules {header.get('rules')}, these are {engine.fingerprint}", style="yellow")
    g = run_replay(engine, header["scenario"], header["seed"], entries, options=header.get("options") or {})
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

    path = Path(record)
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("{\"format\": \"" + LOG_FORMAT) or text.startswith('{"format": "warcodex-log"'):
        _, entries = read_log(path)
    else:
        try:
            entries = json.loads(text).get("log", [])
        except (json.JSONDecodeError, AttributeError):
            raise UserError(f"{path} is neither a Warcodex log nor a save") from None
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
        out.print(format_entry(e), markup=False)


@cli.command()
def schema() -> None:
    """Print the JSON schema of save files."""
    from warcodex.interpreter.saves import SaveFile

    out.print_json(json.dumps(SaveFile.model_json_schema()))


# ------------------------------------------------------------------ demo (the main job)
@cli.command()
@click.argument("game")
@click.option("--scenario", "-s")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("-o", "--out", "out_dir", type=click.Path(file_okay=False), default="out", show_default=True)
def demo(game: str, scenario: str | None, seed: int, out_dir: str) -> None:
    """The main job on a game: check it, self-play one game with an explained combat, and write
    the log, a save and the coverage report (plus player aids and a VASSAL module where available)."""
    from warcodex.dsl.coverage import coverage, summary
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.explain import format_entry
    from warcodex.interpreter.play import agents_for, start
    from warcodex.interpreter.saves import save_game

    target = Path(out_dir)
    gamedef, diags = load_checked(game)
    out.print(f"[bold]1. check[/]: {gamedef.game.header.title()} ok, {len(diags.warnings)} warning(s) "
              f"({sum(1 for w in diags.warnings if w.code == 'W-provisional')} provisional item(s))")
    counts = summary(coverage(gamedef))
    out.print(f"[bold]2. coverage[/]: " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in counts.items()))
    engine = Engine(gamedef)
    g = start(engine, scenario, seed, agents_for(engine, ["random"], seed), check_invariants=True)
    with _progress(g.runner, g.state, engine):
        g.run()
    out.print("[bold]3. self-play[/] (random agents, invariants checked after every action)")
    print_report(engine, g)
    entry = first_combat(g.log)
    if entry:
        out.print("[bold]4. an explained combat[/]")
        out.print(format_entry(entry), markup=False)
    write_log(target / "game.log.jsonl", engine, g, {})
    save_game(engine, g, target / "final.save.json")
    from warcodex.dsl.coverage_html import render_html
    from warcodex.interpreter.saves import write_atomic

    write_atomic(target / "coverage.html", render_html(gamedef, coverage(gamedef)))
    made = ["game.log.jsonl (replay with `warcodex replay`)", "final.save.json", "coverage.html"]
    # the exporters: player aids (HTML, PDF, odds charts) and a VASSAL module of the scenario
    from warcodex.exporters.aids import write_aids
    from warcodex.exporters.vassal.module import ExportOptions, build_module

    result = write_aids(gamedef, target / "aids", scenario=g.state.scenario)
    out.print(f"[bold]5. player aids[/]: {result['pages']} page(s), {len(result['aid'].tables)} table(s), "
              f"{len(result['aid'].charts)} odds chart(s) in {target / 'aids'}/")
    module = build_module(gamedef, g.state.scenario, ExportOptions())
    vmod = target / f"{module.data.name}-{module.data.scenario}.vmod"
    module.write(vmod)
    out.print(f"[bold]6. VASSAL module[/]: {vmod} ({len(module.data.board)} locations, "
              f"{sum(len(u) for u in module.data.at_start.values())} units at start)")
    made += ["aids/ (aids.html, aids.pdf, SVG odds charts)", vmod.name]
    out.print(f"[bold]7. outputs[/] in {target}/: " + ", ".join(made))


def main() -> None:
    """Entry point: bad input ends with a located message and exit status 1, never a traceback."""
    from warcodex.interpreter.saves import SaveError
    from warcodex.interpreter.values import RuleError

    try:
        cli.main(standalone_mode=False)
    except click.exceptions.Abort:
        err.print("aborted")
        sys.exit(130)
    except click.ClickException as exc:  # usage errors: exit 2
        exc.show()
        sys.exit(2)
    except DiagnosticError as exc:
        print_diagnostics(exc.diagnostics)
        sys.exit(1)
    except RuleError as exc:
        print_diagnostics([exc.diagnostic()])
        sys.exit(1)
    except (SaveError, UserError) as exc:
        err.print(f"error: {exc}", markup=False, style="red")
        sys.exit(1)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
