"""`warcodex view LOG_OR_SAVE -o replay.html` (imported lazily by warcodex.cli)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("record", type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--out", "out_path", type=click.Path(dir_okay=False),
              help="Output HTML file (default: the record's name with .html, in the current folder).")
@click.option("--game", "game_arg", help="Game folder or bundled game (default: the one the record names).")
@click.option("--hex-size", type=click.FloatRange(12, 200), default=44.0, show_default=True,
              help="Hex circumradius in board pixels.")
@click.option("--pin", "pins", multiple=True, metavar="VAR",
              help="Also show this global or side variable in the status bar (repeatable).")
def view(record: str, out_path: str | None, game_arg: str | None, hex_size: float, pins) -> None:
    """Write a replay page of a game: the board, every step the engine replays from the log, what
    each action did with its explanation. One HTML file that works offline."""
    from warcodex.console import UserError, err, out
    from warcodex.exporters.viewer import ReplayError, ViewOptions, build_page, load_record
    from warcodex.outputs import write_atomic

    source = Path(record)
    target = Path(out_path) if out_path else Path(source.name.split(".")[0] + ".html")
    if target.resolve() == source.resolve():
        raise click.BadParameter("the output would replace the record itself", param_hint="--out")
    try:
        rec, facts, what = load_record(source, game_arg, warn=lambda t: err.print(f"warning: {t}", markup=False,
                                                                                     style="yellow"))
    except ReplayError as exc:
        raise UserError(f"{source}: {exc}") from None
    known = {v.name for v in facts.variables if v.scope in ("var", "side_var")}
    for p in pins:
        if p not in known:
            raise click.BadParameter(f"no global or side variable '{p}' (have: {', '.join(sorted(known))})",
                                     param_hint="--pin")
    html = build_page(rec, facts, source=what, options=ViewOptions(hex_size=hex_size, pins=tuple(pins)))
    write_atomic(target, html)  # OutputError names the file and the reason
    out.print(f"wrote {target}: {facts.title}, {facts.scenario_label}, {len(rec.steps) - 1} steps "
              f"({sum(1 for s in rec.steps[1:] if s.entry.get('k') == 'action')} actions), "
              f"{len(html) // 1024} KB", markup=False)
