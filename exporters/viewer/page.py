"""The replay page: one self-contained HTML file (no server, no network) that shows a recorded game
on its board, step by step.

Everything is inlined: the board image (the shared board renderer's SVG, gzipped: a large map's
image is megabytes of text; the page inflates it with the browser's DecompressionStream), the
counter art as SVG
symbols, the page's data as JSON (`data.py`), the style sheet and the script (`static/`, plain
JavaScript without a build step). The script only applies the recorded steps in order.
"""

from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass
from importlib import resources

from jinja2 import Environment

from warcodex.exporters.viewer.board import board_view
from warcodex.exporters.viewer.data import page_data
from warcodex.exporters.viewer.symbols import Symbols

COUNTER_ART = 56  # counter art is drawn at the VASSAL counters' size; the page scales it


@dataclass
class ViewOptions:
    hex_size: float = 44.0  # hex circumradius in board pixels (the VASSAL export's default)
    pins: tuple[str, ...] = ()  # variables to show in the status bar, beside the default ones


def _static(name: str) -> str:
    return resources.files("warcodex.exporters.viewer").joinpath("static", name).read_text(encoding="utf-8")


def build_page(rec, facts, *, source: str, options: ViewOptions | None = None) -> str:
    """The page of a recorded game (`record.record`) with the facts of its game and scenario."""
    from warcodex import __version__

    options = options or ViewOptions()
    engine = rec.engine
    title = facts.title
    board = board_view(engine, f"{title}: {facts.scenario_label}", options.hex_size,
                       {s.name: s.color for s in facts.sides})
    symbols = Symbols(engine, facts, COUNTER_ART)
    data = page_data(rec, facts, board, symbols, title=title, source=source, pins=options.pins)
    env = Environment(autoescape=True)
    template = env.from_string(_static("viewer.html.j2"))
    subtitle = f"{facts.scenario_label} · seed {rec.seed}" + ("" if rec.complete else " · stopped early")
    from markupsafe import Markup

    return template.render(
        version=__version__, title=title, subtitle=subtitle, width=board.width, height=board.height,
        board=base64.b64encode(gzip.compress(board.svg, 9, mtime=0)).decode("ascii"), symbols=Markup(symbols.svg_defs()),
        css=Markup(_static("viewer.css")), js=Markup(_static("viewer.js")), data=Markup(_script_json(data)),
        source_note=f"{source}, replayed by the engine (rules {facts.fingerprint}).")


def _script_json(data: dict) -> str:
    """JSON that is safe inside a <script> element: no "</" or "<!--" can end or open anything."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
