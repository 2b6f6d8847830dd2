"""Render a player aid (`model.Aid`) to one self-contained HTML page, with print CSS for A4 or US
Letter, and its charts to SVG. The same templates serve every game: nothing here knows one."""

from __future__ import annotations

import re
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup, escape

from warcodex.exporters.aids.charts import hits_chart_svg, odds_chart_svg, palette, tint
from warcodex.exporters.aids.aid import Aid

TEMPLATES = Path(__file__).parent / "templates"
# a typical battle's outcome bar: the attacker's wins blue, the defender's red, the rest grey
OUTCOME_COLOURS = {"attacker_wins": "#1f5fa8", "mutual_destruction": "#555555", "both_remain": "#9e9e9e",
                   "defender_wins": "#b71c1c"}


def _environment() -> Environment:
    env = Environment(loader=FileSystemLoader(str(TEMPLATES)), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=False, lstrip_blocks=False, keep_trailing_newline=True)
    env.filters["breakable"] = _breakable
    env.filters["balance"] = balance
    return env


def _weight(item) -> int:
    """Roughly how many lines an item takes (a quantity: its head, base and modifiers)."""
    modifiers = getattr(item, "modifiers", None)
    if modifiers is not None:
        return 3 + sum(2 if m.condition else 1 for m in modifiers)
    return 1


def balance(items, n: int = 2) -> list[list]:
    """Split items, in order, into n columns of about the same height."""
    items = list(items)
    total = sum(_weight(i) for i in items)
    columns: list[list] = [[] for _ in range(n)]
    acc = 0
    k = 0
    for item in items:
        w = _weight(item)
        if k < n - 1 and columns[k] and acc + w / 2 > total * (k + 1) / n:
            k += 1
        columns[k].append(item)
        acc += w
    return [c for c in columns if c]


def _breakable(text: str) -> Markup:
    """Let a long cell such as `A1/D1/Adv2` wrap after each `/` (an invisible <wbr>)."""
    return Markup("/<wbr>").join(escape(part) for part in str(text).split("/"))


def chart_svgs(aid: Aid) -> dict[str, str]:
    """The charts as SVG documents, by key: a table's name for its odds chart, `hits` for the
    hit chart."""
    out = {c.table: odds_chart_svg(c) for c in aid.charts}
    if aid.hits is not None:
        out["hits"] = hits_chart_svg(aid.hits)
    return out


def chart_files(aid: Aid) -> dict[str, str]:
    """File name -> SVG text, for the charts written next to the aid."""
    return {(f"odds-{key}.svg" if key != "hits" else "hits.svg"): svg for key, svg in chart_svgs(aid).items()}


# Usable page area (mm) for a chart: the page less its margins, a card's padding and a heading.
_CHART_BOX = {"a4": (183.0, 215.0), "letter": (189.0, 200.0)}


def _chart_width(svg: str, paper: str, share: float = 1.0) -> str:
    """A CSS width that keeps a chart within one page (so it is never split or pushed off alone)."""
    m = re.search(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"', svg)
    box_w, box_h = _CHART_BOX.get(paper, _CHART_BOX["a4"])
    box_w *= share
    if m is None:
        return f"{box_w:.0f}mm"
    w, h = float(m.group(1)), float(m.group(2))
    return f"{min(box_w, box_h * w / h):.1f}mm"


def render_html(aid: Aid) -> str:
    env = _environment()
    css = env.get_template("aids.css.j2").render(paper=aid.paper)
    colours = {t.name: [tint(c) for c in palette(t.categories)] if t.chart is not None else None for t in aid.tables}
    svgs = chart_svgs(aid)
    widths = {k: _chart_width(v, aid.paper, 0.7 if k == "hits" else 1.0) for k, v in svgs.items()}
    return env.get_template("aids.html.j2").render(
        aid=aid, ui=aid.ui, css=css, svgs=svgs, widths=widths, colours=colours, outcome_colours=OUTCOME_COLOURS,
        table_refs={t.name: t.refs for t in aid.tables},
        provisional_tables={t.name: t.source.provisional for t in aid.tables})
