"""`warcodex aids GAME -o DIR`: player aids (HTML, PDF and SVG charts) generated from the rules."""

from __future__ import annotations

import click

from warcodex.exporters.aids.words import LANGS


@click.command()
@click.argument("game")
@click.option("--scenario", "-s", help="Scenario for the set-up, reinforcements and turn track (default: the first).")
@click.option("--lang", type=click.Choice(LANGS), default="en", show_default=True,
              help="Language of labels, where the rules give translations (others fall back to English).")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option("-o", "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output folder.")
@click.option("--overlay", "overlays", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="A .wcx file loaded last, e.g. the published CRT (repeatable).")
def aids(game: str, scenario: str | None, lang: str, paper: str, out_dir: str, overlays) -> None:
    """Write player aids for GAME: DIR/aids.html, DIR/aids.pdf and the odds charts as SVG."""
    from warcodex.console import err, load_checked, out
    from warcodex.exporters.aids import write_aids

    gamedef, _ = load_checked(game, overlays)
    if scenario is not None and scenario not in gamedef.scenarios:
        known = ", ".join(gamedef.scenarios) or "none"
        raise click.BadParameter(f"no scenario '{scenario}' (have: {known})", param_hint="--scenario")
    result = write_aids(gamedef, out_dir, scenario=scenario, lang=lang, paper=paper)
    aid = result["aid"]
    for path in result["files"]:
        err.print(f"wrote {path}", markup=False)
    provisional = sum(1 for t in aid.tables if t.source.provisional)
    out.print(f"{aid.game_name}: player aids in {out_dir}/ ({result['pages']} page(s) {paper.upper() if paper == 'a4' else 'US Letter'}, "
              f"{len(aid.tables)} table(s), {len(aid.charts)} odds chart(s)"
              + (f", {provisional} provisional table(s) marked" if provisional else "") + ")", markup=False)
