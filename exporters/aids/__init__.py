"""Player aids rendered from a game's facts (`warcodex.facts`): tables with their beyond-the-table
rules, result legends and the rules that feed them, effects charts, unit, production and hit
charts, the sequence of play, the set-up, reinforcements and turn track, and odds charts, as HTML,
PDF and SVG.

    aid = build_aid(game, scenario=None, lang="en", paper="a4")   # aid.py: plain data
    html = render_html(aid)                                         # render.py: jinja2 templates
    write_aids(game, out_dir, ...)                                  # all files, written atomically

The command is `warcodex aids GAME -o DIR` (command.py). WeasyPrint is imported only to write PDF.
"""

from __future__ import annotations

from pathlib import Path

from warcodex.exporters.aids.aid import Aid, build_aid
from warcodex.exporters.aids.render import chart_files, render_html

__all__ = ["Aid", "build_aid", "render_html", "chart_files", "write_aids"]


def write_aids(game, out_dir: str | Path, scenario: str | None = None, lang: str = "en", paper: str = "a4",
               pdf: bool = True, engine=None) -> dict:
    """Build the aid of a checked game and write DIR/aids.html, DIR/aids.pdf and the charts' SVG
    files as one set: DIR is replaced as a whole when every file is written, so an interrupted run
    never leaves new files beside old ones (`warcodex.outputs.output_folder`).
    Returns {"files": [...], "pages": N or None, "aid": Aid}."""
    from warcodex.outputs import output_folder, write_atomic

    target = Path(out_dir)
    aid = build_aid(game, scenario=scenario, lang=lang, paper=paper, engine=engine)
    html = render_html(aid)
    names = []
    pages = None
    with output_folder(target, "warcodex aids") as folder:
        for name, svg in chart_files(aid).items():
            write_atomic(folder / name, svg + "\n")
            names.append(name)
        write_atomic(folder / "aids.html", html)
        names.append("aids.html")
        if pdf:
            from warcodex.exporters.aids.pdf import write_pdf

            # relative links of the HTML resolve in the folder being written
            pages = write_pdf(html, folder / "aids.pdf", base_url=str(folder.resolve()))
            names.append("aids.pdf")
    return {"files": [target / n for n in names], "pages": pages, "aid": aid}
