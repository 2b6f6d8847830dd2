"""Tables as an aid prints them: the grid (columns as `1-2` or `+2`, rows as die rolls), cells
coloured by result, the chance of each row of a one-dimensional roll table, the beyond-the-table
rules in words (the columns each really reaches), the result codes' legend, the rules that feed
the table (`TableFacts.inputs`), the table's source, and its odds chart.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction

from warcodex.dsl import ast
from warcodex.exporters.aids.odds import Category, Family, OddsChart, odds_chart, pct
from warcodex.exporters.aids.rules import QuantityAid, quantity_aid
from warcodex.exporters.aids.words import key_words, num_text, signed
from warcodex.exporters.aids.writer import Ref, Source
from warcodex.facts import distribution
from warcodex.interpreter.values import CellValue, Odds


@dataclass
class Cell:
    value: str  # the cell as the engine reads it: "DR2", "A1/D1", "-"
    text: str  # as shown: the code, or the label of a value result ("Fair weather")
    category: int = -1  # index into the table's categories (chart colours)


@dataclass
class TableRow:
    key: str
    cells: list[Cell]
    chance: str | None = None  # one-dimensional roll tables: the chance of this row


@dataclass
class BeyondRule:
    when: str
    then: str
    refs: list[Ref]


@dataclass
class LegendEntry:
    code: str
    variants: list[str]
    label: str
    refs: list[Ref]
    category: int = -1


@dataclass
class TableAid:
    name: str
    title: str
    refs: list[Ref]
    source: Source
    column_kind: str | None  # odds, diff, values or None (one-dimensional)
    column_caption: str
    row_caption: str
    columns: list[str]
    rows: list[TableRow]
    beyond: list[BeyondRule]
    legend: list[LegendEntry]
    rules: list[QuantityAid]
    categories: list[Category]
    chart: OddsChart | None = None
    roll_note: str | None = None
    show_legend: bool = True  # False when the cells already show each result's label


def table_aids(w) -> list[TableAid]:
    return [table_aid(w, tf) for tf in w.facts.tables]


def table_aid(w, tf) -> TableAid:
    t = tf.compiled
    decl: ast.Table = tf.decl
    col_kind = decl.columns.kind if decl.columns is not None else None
    if col_kind == "diff":  # as the rulebook prints them: "−3 or less", "−2 to −1", "+8 or more"
        columns = t.column_range_texts(w.ui("or_less"), w.ui("or_more"), w.ui("to_range"), sign=signed)
    elif col_kind == "values" or col_kind is None:
        columns = [_key_label(w, c) for c in t.column_text]
    else:
        columns = list(t.column_text)
    dice = tf.dice
    row_caption = f"{w.ui('die_roll')} ({dice.text()})" if dice is not None else w.ui("row")
    col_caption = {"odds": w.ui("odds"), "diff": w.ui("difference")}.get(col_kind or "", "")
    families = [Family(f.name, w.of(f.decl), f.provenance == "provisional", f.note) for f in tf.families]
    categories, cat_index = _categories(w, t, tf)
    dist = distribution(dice) if dice is not None else None
    rows = []
    for low, high, cells, text in t.rows:
        chance = None
        if dist is not None and decl.columns is None and isinstance(low, int):
            chance = pct(sum((p for r, p in dist.items() if low <= r <= high), Fraction(0)))
        key = text.replace("-", "–") if isinstance(low, int) and low != high else _row_label(w, text)
        labelled = col_kind not in ("odds", "diff")
        rows.append(TableRow(key, [Cell(str(c), _cell_display(w, c) if labelled else str(c), cat_index.get(str(c), -1))
                                   for c in cells], chance))
    beyond = beyond_rules(w, t)
    chart = roll_note = None
    if dice is not None and decl.columns is not None:
        roll_note = w.ui("clamp") if t.clamp else None
        chart = odds_chart(w, tf, w.of(decl), categories, cat_index, list(zip(t.beyond, beyond)), families)
    show_legend = any(c.text == c.value for r in rows for c in r.cells)
    return TableAid(t.name, w.of(decl), w.refs(decl.header.citations), w.source(decl.header), col_kind, col_caption,
                    row_caption, columns, rows, beyond, _legend(w, t, cat_index), [quantity_aid(w, q) for q in tf.inputs],
                    categories, chart, roll_note, show_legend)


def _categories(w, t, tf) -> tuple[list[Category], dict[str, int]]:
    """Every distinct cell (and beyond result), ordered by its result family when the game groups
    the table's results (dsl/families.py: in the order declared, cells in no family last), then
    by where it sits in the rows: chart colours then follow the families, and the table from low
    rolls to high."""
    positions: dict[str, list[float]] = OrderedDict()
    sample: dict[str, CellValue] = {}
    for i, (_low, _high, cells, _text) in enumerate(t.rows):
        for c in cells:
            positions.setdefault(str(c), []).append(i)
            sample.setdefault(str(c), c)
    for b in t.beyond:
        if b.cell is not None:
            positions.setdefault(str(b.cell), []).append(len(t.rows) + 1)
            sample.setdefault(str(b.cell), b.cell)
    family = {text: tf.cell_family(sample[text]) for text in positions}
    last = len(tf.families)
    ordered = sorted(positions, key=lambda k: (family[k] if family[k] is not None else last,
                                               sum(positions[k]) / len(positions[k]), list(positions).index(k)))
    return ([Category(text, _cell_label(w, sample[text]), family[text]) for text in ordered],
            {text: i for i, text in enumerate(ordered)})


def _key_label(w, text: str) -> str:
    decl = w.game.names.get(text)
    return w.of(decl) if decl is not None else key_words(str(text))


def _row_label(w, text: str) -> str:
    """A row's key as a row heading: a declared name by its label, another name capitalised like
    them (the TEC's "Primary road" beside "Secondary road", a declared edge)."""
    label = _key_label(w, text)
    return label[:1].upper() + label[1:] if w.game.names.get(text) is None else label


def _cell_label(w, c: CellValue) -> str:
    """A cell in words for a chart legend: each code's result label, with its argument."""
    if not c.codes:
        return w.ui("no_effect")
    parts = []
    for code in c.codes:
        if code.number is not None:
            parts.append(str(code.number))
            continue
        decl = w.game.names.get(code.result.name)
        text = w.of(decl) if decl is not None else code.result.name
        if code.args:
            text += " " + ", ".join(num_text(a) if isinstance(a, (int, Fraction)) and not isinstance(a, bool) else str(a)
                                    for a in code.args)
        parts.append(text)
    return " + ".join(parts)


def _cell_display(w, c: CellValue) -> str:
    """The label of a value result (weather names...) in tables that are not combat tables;
    otherwise the code as printed."""
    if c.codes and all(code.number is None and not code.args for code in c.codes):
        decls = [w.game.names.get(code.result.name) for code in c.codes]
        if all(isinstance(d, ast.Result) and not d.params and d.header.label for d in decls):
            return " / ".join(w.of(d) for d in decls)
    return str(c)


def _column_text(t, v) -> str:
    if t.decl.columns is not None and t.decl.columns.kind == "odds":
        return str(Odds(v))
    if t.decl.columns is not None and t.decl.columns.kind == "diff":
        return signed(v)
    return str(v)


def beyond_rules(w, t) -> list[BeyondRule]:
    """The beyond-the-table rules in words, in the order the engine applies them, each with the
    columns it really reaches after the rules before it."""
    if not t.beyond:
        return []
    out = []
    numeric = [c for c in t.columns if isinstance(c, int)]
    reach: dict[int, list[int]] = {i: [] for i in range(len(t.beyond))}
    lo = hi = None
    if numeric:
        bounds = numeric + [b.bound for b in t.beyond if isinstance(b.bound, int)]
        lo, hi = min(bounds) - 12, max(bounds) + 12
        for v in range(lo, hi + 1):
            for i, rule in enumerate(t.beyond):
                if rule.matches(v):
                    reach[i].append(v)
                    break
    for i, rule in enumerate(t.beyond):
        values = reach[i]
        fmt = lambda v: _column_text(t, v)  # noqa: E731
        if not numeric:
            when = f"{rule.direction} {rule.bound}"
        elif not values:
            when = w.ui("never")
        elif values[-1] == hi:
            when = w.ui("or_more", k=fmt(values[0]))
        elif values[0] == lo:
            when = w.ui("below", k=fmt(values[-1] + 1))
        elif len(values) <= 4:
            when = ", ".join(fmt(v) for v in values)
        else:
            when = f"{fmt(values[0])} – {fmt(values[-1])}"
        if rule.action == "illegal":
            then = w.ui("not_allowed")
        elif rule.action == "result":
            then = w.ui("automatic", cell=str(rule.cell))
        else:
            then = w.ui("use_column", column=fmt(rule.use) if numeric else str(rule.use))
        out.append(BeyondRule(when, then, w.refs(rule.citations)))
    return out


def _legend(w, t, cat_index) -> list[LegendEntry]:
    entries: dict[str, LegendEntry] = OrderedDict()
    cells = [c for _l, _h, cs, _t in t.rows for c in cs] + [b.cell for b in t.beyond if b.cell is not None]
    for c in cells:
        for code in c.codes:
            if code.number is not None:
                continue
            decl = w.game.names.get(code.result.name)
            if not isinstance(decl, ast.Result):
                continue
            entry = entries.get(decl.name)
            if entry is None:
                shown = decl.name + (f"({', '.join(p.name for p in decl.params)})" if decl.params else "")
                entry = entries[decl.name] = LegendEntry(shown, [], w.of(decl), w.refs(decl.header.citations),
                                                         cat_index.get(str(c), -1) if len(c.codes) == 1 else -1)
            text = str(code)
            if decl.params and text not in entry.variants:
                entry.variants.append(text)
    return list(entries.values())
