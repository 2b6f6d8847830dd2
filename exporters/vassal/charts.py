"""Simple chart images of the game's tables (CRT, weather...) and a terrain effects chart, for the
module's chart window when the player-aid exporter (warcodex.exporters.aids) is not available."""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.dsl.formatter import format_cell
from warcodex.exporters.vassal.svg import FONT_CONDENSED, Svg, text_width

FS = 13.0
PAD = 8.0
ROW_H = 22.0


@dataclass
class Chart:
    name: str  # file stem
    title: str
    svg: bytes


def _grid_svg(title: str, header: list[str], rows: list[list[str]], notes: list[str], provisional: str | None) -> bytes:
    ncol = max([len(header)] + [len(r) for r in rows]) if (header or rows) else 1
    widths = [0.0] * ncol
    for r in [header] + rows:
        for i, c in enumerate(r):
            widths[i] = max(widths[i], text_width(c, FS, "bold") + 2 * PAD, 44)
    table_w = sum(widths)
    note_w = max([text_width(n, 11) for n in notes + ([provisional] if provisional else [])] + [0])
    width = max(table_w, text_width(title, 16, "bold"), note_w) + 24
    height = 40 + ROW_H * (len(rows) + (1 if header else 0)) + 16 * len(notes) + (18 if provisional else 0) + 14
    svg = Svg(width, height)
    svg.el(None, "rect", x=0, y=0, width=width, height=height, fill="#ffffff")
    svg.text(None, 12, 24, title, 16, anchor="start", weight="bold")
    y = 36.0
    x0 = 12.0
    if header:
        x = x0
        for i, c in enumerate(header):
            svg.el(None, "rect", x=x, y=y, width=widths[i], height=ROW_H, fill="#3c3c3c", stroke="#888")
            svg.text(None, x + widths[i] / 2, y + 15, c, FS, weight="bold", fill="#ffffff")
            x += widths[i]
        y += ROW_H
    for n, r in enumerate(rows):
        x = x0
        for i in range(ncol):
            c = r[i] if i < len(r) else ""
            fill = "#e8e8e8" if i == 0 else ("#f6f6f0" if n % 2 else "#ffffff")
            svg.el(None, "rect", x=x, y=y, width=widths[i], height=ROW_H, fill=fill, stroke="#888")
            svg.text(None, x + widths[i] / 2, y + 15, c, FS, weight="bold" if i == 0 else "normal")
            x += widths[i]
        y += ROW_H
    y += 14
    for n in notes:
        svg.text(None, 12, y, n, 11, anchor="start", family=FONT_CONDENSED)
        y += 16
    if provisional:
        svg.text(None, 12, y + 2, provisional, 11, anchor="start", fill="#b00020", weight="bold")
    return svg.tostring()


def _axis_title(axis: ast.Axis | None, default: str) -> str:
    if axis is None:
        return default
    if axis.kind == "roll" and axis.dice is not None:
        return f"roll {axis.dice.text()}"
    return {"odds": "odds", "diff": "difference"}.get(axis.kind, default)


def table_chart(game, table: ast.Table, compiled) -> Chart:
    """The chart of a table; `compiled` is the table as the game's facts hold it (its columns as
    the rulebook prints them: a differential table's as ranges, "-3 or less")."""
    cols = table.columns.keys if table.columns is not None else []
    header = [_axis_title(table.rows, "row")] + (compiled.column_range_texts() if cols else ["result"])
    rows = [[r.key.text()] + [format_cell(c) for c in r.cells] for r in table.table_rows]
    notes = []
    for b in table.beyond:
        what = {"use": f"use {b.use.text() if b.use else ''}", "result": f"result {format_cell(b.cell) if b.cell else ''}",
                "illegal": "not allowed"}[b.action]
        notes.append(f"{b.direction} {b.key.text()}: {what}" + (f" - {b.message}" if b.message else ""))
    codes = []
    for r in table.table_rows:
        for c in r.cells:
            for code in c.codes:
                if code.number is None and code.name not in codes:
                    codes.append(code.name)
    legend = []
    for code in codes:
        decl = game.names.get(code)
        if isinstance(decl, ast.Result) and decl.header.label:
            legend.append(f"{code} = {decl.header.label}")
    if legend:
        notes.append("; ".join(legend))
    cites = " ".join("§" + c for c in table.header.citations)
    prov = table.header.provenance
    provisional = f"PROVISIONAL: {prov.note or 'not the published values'}" if prov and prov.kind == "provisional" else None
    title = f"{table.header.title()} {cites}".strip()
    return Chart(f"table_{table.name}", table.header.title(), _grid_svg(title, header, rows, notes, provisional))


def tec_chart(game, engine) -> Chart | None:
    """Terrain effects chart: every terrain and every hexside/connection feature with the
    properties the rules give it."""
    rows: list[list[str]] = []
    keys: list[str] = []
    groups = [("terrain", game.entities("terrain")), ("edge", game.entities("edge"))]
    for _, ents in groups:
        for e in ents:
            for k in engine.entities[e.name].props:
                if k != "color" and k not in keys:
                    keys.append(k)
    for kind, ents in groups:
        for e in ents:
            props = engine.entities[e.name].props
            cells = []
            for k in keys:
                v = props.get(k)
                cells.append("" if v is None else "yes" if v is True else str(v))
            cite = " ".join("§" + c for c in e.header.citations)
            rows.append([e.header.title() + (" (hexside)" if kind == "edge" else "")] + cells + [cite])
    if not rows:
        return None
    header = ["terrain / feature"] + [k.replace("_", " ") for k in keys] + ["rule"]
    return Chart("tec", "Terrain Effects", _grid_svg("Terrain Effects Chart", header, rows, [], None))


def game_charts(game, engine) -> list[Chart]:
    charts = []
    tec = tec_chart(game, engine)
    if tec is not None:
        charts.append(tec)
    from warcodex.facts import facts_of

    compiled = {t.name: t.compiled for t in facts_of(engine).tables}
    charts += [table_chart(game, t, compiled[t.name]) for t in game.tables]
    return charts
