"""`warcodex vassal GAME --scenario S -o OUT.vmod`, and `--from SAVE_OR_LOG` (imported lazily by
warcodex.cli; its helpers are warcodex.console)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("game")
@click.option("--scenario", "-s", help="Scenario whose set-up the module starts from (default: the first).")
@click.option("-o", "--out", "out_path", type=click.Path(dir_okay=False),
              help="Output .vmod (default: GAME-SCENARIO.vmod); with --from, the .vsav or .vlog to write.")
@click.option("--from", "record", type=click.Path(exists=True, dir_okay=False),
              help="A Warcodex save or log: write a VASSAL saved game of its position (.vsav), or a VASSAL "
                   "log stepping through the logged game (.vlog, the default for a log), and the module "
                   "beside it (same name, .vmod).")
@click.option("--hex-size", type=click.FloatRange(12, 200), default=44.0, show_default=True,
              help="Hex circumradius in board pixels.")
@click.option("--counter-size", type=click.IntRange(24, 200), default=56, show_default=True, help="Counter size in pixels.")
@click.option("--no-aids", is_flag=True, help="Do not include the player aids exporter's output; draw the tables instead.")
def vassal(game: str, scenario: str | None, out_path: str | None, record: str | None, hex_size: float,
           counter_size: int, no_aids: bool) -> None:
    """Export GAME as a VASSAL 3.7 module (.vmod): map, counters, set-up, turn track, dice, charts;
    with --from, a saved game or a log of a Warcodex game to watch in VASSAL."""
    from warcodex.console import err, load_checked, out
    from warcodex.exporters.vassal.module import ExportOptions, build_module

    gamedef, _ = load_checked(game)
    options = ExportOptions(hex_size=hex_size, counter_size=counter_size, include_aids=not no_aids)
    if record is not None:
        _from_record(gamedef, Path(record), scenario, Path(out_path) if out_path else None, options)
        return
    if scenario is not None and scenario not in gamedef.scenarios:
        raise click.BadParameter(f"no scenario '{scenario}' (have: {', '.join(gamedef.scenarios) or 'none'})",
                                 param_hint="--scenario")
    module = build_module(gamedef, scenario, options)
    data = module.data
    path = Path(out_path) if out_path else Path(f"{data.name}-{data.scenario}.vmod")
    module.write(path)
    plan = module.plan
    units = sum(len(u) for u in data.at_start.values())
    images = sum(1 for n in module.files if n.startswith("images/"))
    out.print(f"wrote {path}: {data.title}, scenario {data.scenario_label}; board {data.board.kind} "
              f"({len(data.board)} locations), {units} units at start, {len(data.reinforcements)} reinforcements, "
              f"{len(plan.prototypes)} prototypes, {len(plan.all_slots())} piece slots, {images} images, "
              f"{len(plan.charts)} charts", markup=False)
    for w in module.warnings:
        err.print(f"note: {w}", markup=False, style="yellow")


def _from_record(gamedef, record: Path, scenario: str | None, out_path: Path | None, options) -> None:
    """A .vsav of the position of a save or of the end of a log, or a .vlog stepping through a log,
    with the module it opens in written beside it."""
    from dataclasses import replace

    from warcodex.console import UserError, err, is_log as is_log_file, out, read_log
    from warcodex.exporters.vassal import savegame
    from warcodex.exporters.vassal.module import build_module
    from warcodex.interpreter.engine import Engine
    from warcodex.outputs import write_atomic

    engine = Engine(gamedef)
    is_log = is_log_file(record)
    states: list[tuple[dict | None, object]] = []  # (log entry, the state it left), in order
    if is_log:
        from warcodex.interpreter.play import replay

        from warcodex.interpreter.consistency import check_log

        header, entries = read_log(record)
        # the game, scenario, options and entries checked as `warcodex replay` checks them; other
        # rules files are allowed with a warning (the replay then says where it stops matching)
        check_log(engine, header, entries, str(record), force=True)
        if header.get("rules") != engine.fingerprint:
            err.print(f"warning: the log was made with rules {header.get('rules')}, these are {engine.fingerprint}",
                      style="yellow", markup=False)
        game_options, dice = header.get("options") or {}, header.get("dice")  # as `warcodex replay` replays it
        first = engine.for_scenario(header["scenario"]).new_game(header["scenario"], header["seed"], game_options,
                                                                 dice=dice)
        states.append((None, first))
        game = replay(engine, header["scenario"], header["seed"], entries, options=game_options, dice=dice,
                      on_entry=lambda g, entry: states.append((entry, g.state.snapshot())))
        if len(states) - 1 != len(entries):
            err.print(f"note: the replay made {len(states) - 1} log entries, the log has {len(entries)}",
                      style="yellow", markup=False)
        final = game.state
    else:
        from warcodex.interpreter.saves import SaveError, load_save

        try:
            final, _agents, _log = load_save(engine, record)
        except SaveError as exc:
            raise UserError(str(exc)) from None
        states.append((None, final))
    scenario_name = final.scenario
    if scenario is not None and scenario != scenario_name:
        raise click.BadParameter(f"{record} is a game of scenario '{scenario_name}', not '{scenario}'",
                                 param_hint="--scenario")
    kind = ".vlog" if is_log else ".vsav"
    path = out_path or Path(f"{gamedef.game.name}-{scenario_name}{kind}")
    if path.suffix not in (".vsav", ".vlog"):
        raise click.BadParameter(f"{path}: name the output .vsav (a position) or .vlog (a log)", param_hint="-o")
    if path.suffix == ".vlog" and not is_log:
        raise UserError(f"{record} is a save: it has one position; write a .vsav")
    boxes = sorted({u.box for _, s in states for u in s.units.values() if u.loc is None and u.box})
    module = build_module(gamedef, scenario_name, replace(options, boxes=tuple(boxes)))
    try:
        if path.suffix == ".vlog":
            start = savegame.position(module, states[0][1])
            steps = [savegame.Step(_entry_text(module, entry), savegame.position(module, s))
                     for entry, s in states[1:] if entry.get("k") in ("action", "auto", "end")]
            content = savegame.game_log(module, start, steps, f"{module.data.title}, {module.data.scenario_label}: "
                                        f"{record.name}, {len(steps)} steps (Warcodex log)")
        else:
            content = savegame.saved_game(module, final)
    except savegame.SaveError as exc:
        raise UserError(f"cannot show {record} in VASSAL: {exc}") from None
    vmod = path.with_suffix(".vmod")
    module.write(vmod)
    write_atomic(path, content)
    out.print(f"wrote {path} and the module it opens in, {vmod} (open the module in VASSAL, then "
              f"{'File > Open Game and the Step button' if path.suffix == '.vlog' else 'File > Open Game'})",
              markup=False)


def _entry_text(module, entry: dict) -> str:
    """A log entry as one chat line: the turn, the side and the action, or the automatic rule."""
    sides = {s.name: s.label for s in module.data.sides}
    where = f"Turn {entry.get('turn')}" + (f", {sides.get(entry.get('side'), entry.get('side'))}" if entry.get("side") else "")
    if entry.get("k") == "action":
        return f"{where}: {entry.get('text') or entry.get('action')}"
    if entry.get("k") == "end":
        return f"Game over: {entry.get('winner') or 'no winner'} ({entry.get('reason') or ''})"
    done = "; ".join(t.get("what", "") for t in (entry.get("trace") or [])[:3] if t.get("what"))
    return f"{where}: {entry.get('what') or 'automatic rules'}" + (f": {done}" if done else "")
