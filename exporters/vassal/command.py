"""`warcodex vassal GAME --scenario S -o OUT.vmod` (imported lazily by warcodex.cli; its helpers are warcodex.console)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("game")
@click.option("--scenario", "-s", help="Scenario whose set-up the module starts from (default: the first).")
@click.option("-o", "--out", "out_path", type=click.Path(dir_okay=False), help="Output .vmod (default: GAME-SCENARIO.vmod).")
@click.option("--hex-size", type=click.FloatRange(12, 200), default=44.0, show_default=True,
              help="Hex circumradius in board pixels.")
@click.option("--counter-size", type=click.IntRange(24, 200), default=56, show_default=True, help="Counter size in pixels.")
@click.option("--no-aids", is_flag=True, help="Do not include the player aids exporter's output; draw the tables instead.")
def vassal(game: str, scenario: str | None, out_path: str | None, hex_size: float, counter_size: int, no_aids: bool) -> None:
    """Export GAME as a VASSAL 3.7 module (.vmod): map, counters, set-up, turn track, dice, charts."""
    from warcodex.console import err, load_checked, out
    from warcodex.exporters.vassal.module import ExportOptions, build_module

    gamedef, _ = load_checked(game)
    if scenario is not None and scenario not in gamedef.scenarios:
        raise click.BadParameter(f"no scenario '{scenario}' (have: {', '.join(gamedef.scenarios) or 'none'})",
                                 param_hint="--scenario")
    module = build_module(gamedef, scenario, ExportOptions(hex_size=hex_size, counter_size=counter_size,
                                                           include_aids=not no_aids))
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
