"""The content of a player aid, built from a game's rules as plain data (dataclasses of strings,
numbers and lists), in one language. Nothing here is specific to a game: every table, chart and
list is read from the declarations and the compiled engine.

    build_aid(game, scenario=None, lang="en", paper="a4", engine=None) -> Aid

What is read from where:
  * tables: the engine's compiled tables (columns, rows, resolved cells, beyond rules), the result
    declarations for the legend, and the quantities that feed each lookup: every rule body is
    searched for `T[column, row]` and `allowed(T, column)`, `let` names are followed back, and the
    quantities called (and the quantities those call) are the table's rules;
  * odds charts: the table's dice, its rows and `clamp`, and the die-roll modifiers the rules add
    to the roll (or -2..+2 when they add none);
  * effects charts (terrain, hexside features, map features, markers): every quantity base and
    modifier and every movement restriction is evaluated for each terrain (or feature...) with a
    three-valued partial evaluator (true / false / depends on something else);
  * units: unit declarations (per-step values), sides from the scenarios' `place` calls;
  * production: a per-side number variable that a rule increases by a function of the side;
  * hit chart: `roll dN <= u.PROP` comparisons (units that each roll a die and hit);
  * sequence of play, turn track, reinforcements and set-up: the `sequence`, the triggers and the
    chosen scenario (turn conditions evaluated turn by turn).
"""

from __future__ import annotations

import itertools
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from fractions import Fraction

from warcodex.dsl import ast
from warcodex.dsl.model import GameDef
from warcodex.exporters.aids.words import LANG_NAMES, Labels, Words, key_words, num_text, signed
from warcodex.facts import facts_of
from warcodex.facts.partial import UNKNOWN, Slice, constant, is_number, truth
from warcodex.facts.tables import table_facts
from warcodex.interpreter.values import CellValue, Entity, Odds, RuleError

OFF_TABLE = "off"  # chart category of a modified roll that falls off a table without `clamp`


# ======================================================================== plain data
@dataclass
class Ref:
    """A citation of a rulebook section."""
    number: str
    title: str


@dataclass
class Source:
    """Where a table's numbers come from: rulebook, player aid, provisional (with why), derived."""
    kind: str
    label: str
    note: str | None = None
    refs: list[Ref] = field(default_factory=list)

    @property
    def provisional(self) -> bool:
        return self.kind == "provisional"


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
class ModifierAid:
    label: str
    effect: str
    condition: str | None
    refs: list[Ref]
    group: str | None = None
    provisional: str | None = None


@dataclass
class QuantityAid:
    name: str
    label: str
    base: str
    base_refs: list[Ref]
    refs: list[Ref]
    modifiers: list[ModifierAid]
    order: str | None = None


@dataclass
class ChartBar:
    drm: int
    label: str
    segments: list[tuple[int, Fraction]]  # (category index, probability), summing to 1


@dataclass
class ChartPanel:
    column: str
    automatic: bool
    bars: list[ChartBar]


@dataclass
class Category:
    text: str
    label: str


@dataclass
class OddsChart:
    table: str
    title: str
    dice: str
    drms: list[int]
    drm_reason: str
    categories: list[Category]
    panels: list[ChartPanel]
    intro: str


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


@dataclass
class EffectNote:
    rule: str
    condition: str | None
    refs: list[Ref]
    provisional: str | None = None


@dataclass
class EffectColumn:
    label: str
    rule: str  # the quantities or movement modes it belongs to
    notes: list[EffectNote]  # the condition of each rule merged into this column


@dataclass
class EffectRow:
    name: str
    label: str
    refs: list[Ref]
    properties: list[tuple[str, list[Ref]]]
    cells: list[str]


@dataclass
class EffectsChart:
    kind: str
    title: str
    row_caption: str
    columns: list[EffectColumn]
    rows: list[EffectRow]
    show_properties: bool
    groups: list[list[int]] = field(default_factory=list)  # column indices per printed table


@dataclass
class UnitRow:
    name: str
    label: str
    classes: list[str]
    values: list[str]
    sides: list[str]
    refs: list[Ref]
    provisional: str | None
    notes: list[str]


@dataclass
class UnitChart:
    columns: list[str]
    rows: list[UnitRow]
    steps_note: str | None
    show_classes: bool = True
    show_sides: bool = True


@dataclass
class ProductionRow:
    side: str
    start: str
    income: str


@dataclass
class ProductionChart:
    variable: str
    income_rule: str
    refs: list[Ref]
    rows: list[ProductionRow]


@dataclass
class HitRow:
    unit: str
    values: list[tuple[str, str, str]]  # (value, chance, hits per 10 cost) per rolled property
    bars: list[ChartBar]


@dataclass
class HitChart:
    dice: str
    props: list[str]
    note: str
    refs: list[Ref]
    rows: list[HitRow]
    categories: list[Category]
    has_cost: bool


@dataclass
class SequenceItem:
    kind: str  # turn, player_turns, player_turn, repeat, phase
    label: str
    refs: list[Ref]
    condition: str | None = None
    sides: str | None = None
    actions: list[tuple[str, list[Ref], str | None]] = field(default_factory=list)
    automatic: list[tuple[str, list[Ref]]] = field(default_factory=list)
    children: list["SequenceItem"] = field(default_factory=list)


@dataclass
class StandingRule:
    when: str
    label: str
    refs: list[Ref]
    condition: str | None


@dataclass
class TurnBox:
    turn: int
    notes: list[str]


@dataclass
class Arrival:
    turns: str
    side: str
    unit: str
    name: str
    where: str
    refs: list[Ref]
    condition: str | None


@dataclass
class SetupRow:
    side: str
    unit: str
    name: str
    where: str
    condition: str | None


@dataclass
class CardAid:
    """One card of a deck: its label and its properties as printed (text, numbers, flags)."""
    name: str
    label: str
    refs: list[Ref]
    fields: list[tuple[str, str]]  # (property label, value) for valued properties
    flags: list[str]  # labels of the card's true flags (marks such as "Removed 1945")
    provisional: str | None = None


@dataclass
class DeckAid:
    """A deck: its own rules (reshuffle...) and its cards, in declaration order."""
    name: str
    title: str
    refs: list[Ref]
    rules: list[str]
    cards: list[CardAid]


@dataclass
class ProvisionalItem:
    what: str
    note: str


@dataclass
class Aid:
    lang: str
    lang_name: str
    paper: str
    game: str
    game_name: str
    edition: str | None
    scenario: str | None
    scenario_turns: str | None
    fingerprint: str
    tables: list[TableAid]
    effects: list[EffectsChart]
    units: UnitChart | None
    production: ProductionChart | None
    hits: HitChart | None
    sequence: list[SequenceItem]
    standing: list[StandingRule]
    turn_track: list[TurnBox]
    arrivals: list[Arrival]
    setup: list[SetupRow]
    provisional: list[ProvisionalItem]
    sections: list[Ref]
    language_note: str | None
    labels_translated: int
    labels_total: int
    ui: dict[str, str] = field(default_factory=dict)
    decks: list[DeckAid] = field(default_factory=list)

    @property
    def charts(self) -> list[OddsChart]:
        return [t.chart for t in self.tables if t.chart is not None]


# ======================================================================== helpers
def walk(node):
    """Every AST node under `node` (itself included), depth first."""
    if isinstance(node, list):
        for x in node:
            yield from walk(x)
        return
    if not isinstance(node, ast.Node):
        return
    yield node
    for name in type(node).model_fields:
        if name == "span":
            continue
        value = getattr(node, name)
        if isinstance(value, ast.Node):
            yield from walk(value)
        elif isinstance(value, list):
            for x in value:
                if isinstance(x, ast.Node):
                    yield from walk(x)
        elif isinstance(value, dict):
            for x in value.values():
                if isinstance(x, ast.Node):
                    yield from walk(x)


def section_key(number: str):
    """Natural order of section numbers: 2 < 2.1 < 10; letters (TEC, S3.3) after numbers."""
    parts = re.split(r"[.]", number)
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts]


def dice_distribution(d: ast.Dice) -> dict[int, Fraction]:
    """The exact distribution of a roll (`2d6`, `3d6 keep highest 1`)."""
    if d.keep is None and d.count > 4:
        dist = {0: Fraction(1)}
        for _ in range(d.count):
            nxt: dict[int, Fraction] = {}
            for total, p in dist.items():
                for face in range(1, d.sides + 1):
                    nxt[total + face] = nxt.get(total + face, Fraction(0)) + p / d.sides
            dist = nxt
        return dict(sorted(dist.items()))
    outcomes = d.sides ** d.count
    dist: dict[int, Fraction] = {}
    for faces in itertools.product(range(1, d.sides + 1), repeat=d.count):
        kept = sorted(faces, reverse=d.keep_highest)[: d.keep] if d.keep is not None else faces
        total = sum(kept)
        dist[total] = dist.get(total, Fraction(0)) + Fraction(1, outcomes)
    return dict(sorted(dist.items()))


def pct(p: Fraction) -> str:
    value = float(p) * 100
    if value == 0:
        return "0%"
    if value < 1:
        return "<1%"
    if abs(value - round(value)) < 0.05 or value >= 10:
        return f"{round(value)}%"
    return f"{value:.1f}%"


def _is_number(v) -> bool:
    return is_number(v)


# ======================================================================== the builder
class _Builder:
    def __init__(self, game: GameDef, engine, scenario: str | None, lang: str, paper: str) -> None:
        self.base_game = game
        self.engine = engine
        self.game: GameDef = engine.game
        self.scenario = engine.scenario(scenario) if self.game.scenarios else None
        self.labels = Labels(self.game, lang)
        self.words = Words(self.game, self.labels)
        self.paper = paper
        self.cited: dict[str, Ref] = {}
        self.facts = facts_of(engine, self.scenario.name if self.scenario is not None else None) if self.game.scenarios else None

    # ------------------------------------------------------------ small pieces
    def refs(self, citations) -> list[Ref]:
        out = []
        for c in OrderedDict.fromkeys(citations or ()):
            entry = self.game.sections.get(c)
            ref = Ref(c, entry.title if entry is not None else "")
            self.cited.setdefault(c, ref)
            out.append(ref)
        return out

    def source(self, header: ast.Header) -> Source:
        prov = header.provenance
        kind = prov.kind if prov is not None else "rulebook"
        return Source(kind, self.labels.ui("src_" + kind), prov.note if prov is not None else None,
                      self.refs(header.citations))

    def label(self, name: str) -> str:
        return self.labels.name(name)

    def cond(self, e) -> str | None:
        return self.words(e) if e is not None else None

    def quantity_decl(self, name: str) -> ast.Quantity | None:
        d = self.game.names.get(name)
        return d if isinstance(d, ast.Quantity) else None

    # ------------------------------------------------------------ rule bodies
    def owners(self):
        """Every declaration or block that holds rule expressions, as (node, its let-bindings)."""
        from warcodex.facts.tables import rule_bodies

        return rule_bodies(self.game)

    # ------------------------------------------------------------ quantities in words
    def effect(self, q: ast.Quantity, op: str, value, rounding=None, known=UNKNOWN) -> str:
        v = known if known is not UNKNOWN else constant(self.engine, value)
        is_num = _is_number(v)
        if isinstance(v, Slice):
            text = v.text
        else:
            text = num_text(v) if is_num else self.words(value)
        odds = q.type == "odds"
        if op in ("+", "-"):
            if is_num:
                n = v if op == "+" else -v
                if odds:
                    unit = self.labels.ui("column") if abs(n) == 1 else self.labels.ui("columns")
                    return f"{signed(n)} {unit}"
                return signed(n)
            sign = "+" if op == "+" else "−"
            return f"{sign} {text}" + (f" ({self.labels.ui('columns')})" if odds else "")
        if op == "*":
            out = f"×{text}"
        elif op == "/":
            out = f"÷{text}"
        elif op == "=":
            return f"= {text}"
        elif op in ("min", "at_most"):
            return self.labels.ui("at_most", n=text)
        else:
            return f"≥ {text}"
        if rounding:
            out += f" ({self.labels.ui('round_' + rounding)})"
        return out

    def quantity_aid(self, name: str) -> QuantityAid:
        q = self.quantity_decl(name)
        mods = []
        for m in q.modifiers:
            prov = m.provenance.note or m.provenance.kind if m.provenance is not None and m.provenance.kind == "provisional" else None
            mods.append(ModifierAid(m.label or "", self.effect(q, m.op, m.value, m.rounding), self.cond(m.when),
                                    self.refs(m.citations), self.labels.ui("group", group=m.group) if m.group else None, prov))
        base = self.words(q.base) if q.base is not None else ""
        order = ", ".join(q.order) if q.order else None
        return QuantityAid(q.name, self.labels.of(q), base, self.refs(q.base_citations), self.refs(q.header.citations),
                           mods, self.labels.ui("stage_order", order=order) if order else None)

    # ------------------------------------------------------------ tables
    def tables(self) -> list[TableAid]:
        return [self.table(t) for t in self.engine.tables.values()]

    def table(self, t) -> TableAid:
        decl: ast.Table = t.decl
        col_kind = decl.columns.kind if decl.columns is not None else None
        if col_kind == "diff":  # as the rulebook prints them: "−3 or less", "−2 to −1", "+8 or more"
            columns = t.column_range_texts(self.labels.ui("or_less"), self.labels.ui("or_more"),
                                           self.labels.ui("to_range"), sign=signed)
        elif col_kind == "values" or col_kind is None:
            columns = [self._key_label(c) for c in t.column_text]
        else:
            columns = list(t.column_text)
        roll = decl.rows is not None and decl.rows.kind == "roll" and decl.rows.dice is not None
        row_caption = (f"{self.labels.ui('die_roll')} ({decl.rows.dice.text()})" if roll
                       else self.labels.ui("row"))
        col_caption = {"odds": self.labels.ui("odds"), "diff": self.labels.ui("difference")}.get(col_kind or "", "")
        # categories: every distinct cell (and beyond result), ordered by where they sit in the rows
        cells_all: list[tuple[str, float]] = []
        for i, (_low, _high, cells, _text) in enumerate(t.rows):
            for c in cells:
                cells_all.append((str(c), i))
        for b in t.beyond:
            if b.cell is not None:
                cells_all.append((str(b.cell), len(t.rows) + 1))
        positions: dict[str, list[float]] = OrderedDict()
        sample: dict[str, CellValue] = {}
        for text, i in cells_all:
            positions.setdefault(text, []).append(i)
        for _low, _high, cells, _text in t.rows:
            for c in cells:
                sample.setdefault(str(c), c)
        for b in t.beyond:
            if b.cell is not None:
                sample.setdefault(str(b.cell), b.cell)
        ordered = sorted(positions, key=lambda k: (sum(positions[k]) / len(positions[k]), list(positions).index(k)))
        cat_index = {text: i for i, text in enumerate(ordered)}
        categories = [Category(text, self._cell_label(sample[text])) for text in ordered]
        dist = dice_distribution(decl.rows.dice) if roll else None
        rows = []
        for low, high, cells, text in t.rows:
            chance = None
            if dist is not None and decl.columns is None and isinstance(low, int):
                chance = pct(sum((p for r, p in dist.items() if low <= r <= high), Fraction(0)))
            key = text.replace("-", "–") if isinstance(low, int) and low != high else self._key_label(text)
            labelled = col_kind not in ("odds", "diff")
            rows.append(TableRow(key, [Cell(str(c), self._cell_display(c) if labelled else str(c), cat_index.get(str(c), -1))
                                       for c in cells], chance))
        beyond = self.beyond(t)
        legend = self.legend(t, cat_index)
        feed, drm_quantities, drm_values = self.table_rules(t)
        chart = None
        roll_note = None
        if roll and decl.columns is not None:
            roll_note = self.labels.ui("clamp") if t.clamp else None
            chart = self.odds_chart(t, dist, drm_quantities, drm_values, categories, cat_index)
        show_legend = any(c.text == c.value for r in rows for c in r.cells)
        return TableAid(t.name, self.labels.of(decl), self.refs(decl.header.citations), self.source(decl.header),
                        col_kind, col_caption, row_caption, columns, rows, beyond, legend,
                        [self.quantity_aid(q) for q in feed], categories, chart, roll_note, show_legend)

    def _key_label(self, text: str) -> str:
        decl = self.game.names.get(text)
        return self.labels.of(decl) if decl is not None else key_words(str(text))

    def _cell_label(self, c: CellValue) -> str:
        """A cell in words for a chart legend: each code's result label, with its argument."""
        if not c.codes:
            return self.labels.ui("no_effect")
        parts = []
        for code in c.codes:
            if code.number is not None:
                parts.append(str(code.number))
                continue
            decl = self.game.names.get(code.result.name)
            text = self.labels.of(decl) if decl is not None else code.result.name
            if code.args:
                text += " " + ", ".join(num_text(a) if _is_number(a) else str(a) for a in code.args)
            parts.append(text)
        return " + ".join(parts)

    def _cell_display(self, c: CellValue) -> str:
        """The label of a value result (weather names...) in tables that are not combat tables;
        otherwise the code as printed."""
        if c.codes and all(code.number is None and not code.args for code in c.codes):
            decls = [self.game.names.get(code.result.name) for code in c.codes]
            if all(isinstance(d, ast.Result) and not d.params and d.header.label for d in decls):
                return " / ".join(self.labels.of(d) for d in decls)
        return str(c)

    def _column_text(self, t, v) -> str:
        if t.decl.columns is not None and t.decl.columns.kind == "odds":
            return str(Odds(v))
        if t.decl.columns is not None and t.decl.columns.kind == "diff":
            return signed(v)
        return str(v)

    def beyond(self, t) -> list[BeyondRule]:
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
            fmt = lambda v: self._column_text(t, v)  # noqa: E731
            if not numeric:
                when = f"{rule.direction} {rule.bound}"
            elif not values:
                when = self.labels.ui("never")
            elif values[-1] == hi:
                when = self.labels.ui("or_more", k=fmt(values[0]))
            elif values[0] == lo:
                when = self.labels.ui("below", k=fmt(values[-1] + 1))
            elif len(values) <= 4:
                when = ", ".join(fmt(v) for v in values)
            else:
                when = f"{fmt(values[0])} – {fmt(values[-1])}"
            if rule.action == "illegal":
                then = self.labels.ui("not_allowed")
            elif rule.action == "result":
                then = self.labels.ui("automatic", cell=str(rule.cell))
            else:
                then = self.labels.ui("use_column", column=fmt(rule.use) if numeric else str(rule.use))
            out.append(BeyondRule(when, then, self.refs(rule.citations)))
        return out

    def legend(self, t, cat_index) -> list[LegendEntry]:
        entries: dict[str, LegendEntry] = OrderedDict()
        cells = [c for _l, _h, cs, _t in t.rows for c in cs] + [b.cell for b in t.beyond if b.cell is not None]
        for c in cells:
            for code in c.codes:
                if code.number is not None:
                    continue
                decl = self.game.names.get(code.result.name)
                if not isinstance(decl, ast.Result):
                    continue
                entry = entries.get(decl.name)
                if entry is None:
                    shown = decl.name + (f"({', '.join(p.name for p in decl.params)})" if decl.params else "")
                    entry = entries[decl.name] = LegendEntry(shown, [], self.labels.of(decl), self.refs(decl.header.citations),
                                                             cat_index.get(str(c), -1) if len(c.codes) == 1 else -1)
                text = str(code)
                if decl.params and text not in entry.variants:
                    entry.variants.append(text)
        return list(entries.values())

    def table_rules(self, t):
        """The quantities feeding a table's lookups; the die-roll modifier quantities and values
        (from the game's facts)."""
        tf = next(x for x in table_facts(self.engine) if x.name == t.name)
        return tf.inputs, tf.drm_quantities, tf.drm_values

    def odds_chart(self, t, dist, drm_quantities, drm_values, categories, cat_index) -> OddsChart:
        decl = t.decl
        categories = list(categories)
        if drm_quantities and drm_values:
            drms = sorted(drm_values | {0})
            reason = self.labels.ui("drm_rules")
        elif t.clamp and decl.columns.kind in ("odds", "diff"):
            drms = [-2, -1, 0, 1, 2]
            reason = self.labels.ui("drm_default")
        else:
            drms = [0]
            reason = self.labels.ui("drm_none" if decl.columns.kind in ("odds", "diff") else "drm_unmodified")
        off_index = None
        panels = []
        for j, column in enumerate(t.column_text):
            bars = []
            for m in drms:
                acc: dict[int, Fraction] = OrderedDict()
                for r, p in dist.items():
                    v = r + m
                    if t.clamp and t.row_min is not None:
                        v = max(t.row_min, min(t.row_max, v))
                    cells = None
                    for low, high, cs, _text in t.rows:
                        if isinstance(low, int) and low <= v <= high:
                            cells = cs
                            break
                    if cells is None:
                        if off_index is None:
                            off_index = len(categories)
                            categories.append(Category(OFF_TABLE, self.labels.ui("off_table")))
                        k = off_index
                    else:
                        k = cat_index[str(cells[j])]
                    acc[k] = acc.get(k, Fraction(0)) + p
                segments = sorted(acc.items())
                bars.append(ChartBar(m, signed(m) if m else "0", segments))
            label = t.column_text[j] if decl.columns.kind != "diff" else signed(t.columns[j])
            panels.append(ChartPanel(label, False, bars))
        for rule, words in zip(t.beyond, self.beyond(t)):
            if rule.action == "result" and rule.cell is not None:
                k = cat_index[str(rule.cell)]
                panels.append(ChartPanel(words.when, True, [ChartBar(0, self.labels.ui("no_roll"), [(k, Fraction(1))])]))
        drm_text = ", ".join(signed(m) if m else "0" for m in drms)
        intro = self.labels.ui("charts_intro", drms=drm_text, why=reason)
        return OddsChart(t.name, self.labels.of(decl), decl.rows.dice.text(), drms, reason, categories, panels, intro)

    # ------------------------------------------------------------ effects charts
    def effects(self) -> list[EffectsChart]:
        """Terrain effects chart, hexside features, map features and markers, rendered from the
        game's effects facts (`warcodex.facts.effects`): one row per declared name, one column per
        rule that depends on it. A cell reads: the effect where the row brings the rule, or allows
        it when no row brings it outright (the armor shift "allowed" in clear terrain); `no` where
        one of the row's own names or flags stops it; `—` where the row has no bearing on it.
        Columns with the same label and cells (one limit in several movement modes) are merged."""
        from warcodex.facts.effects import effects as effects_facts

        charts = []
        titles = {"terrain": ("tec", "terrain"), "edge": ("edges", "edge"), "feature": ("features", "feature"),
                  "marker": ("markers", "marker")}
        for chart in effects_facts(self.engine):
            kind = chart.kind
            title_key, caption_key = titles[kind]
            decls = chart.rows
            used_by_row = chart.used
            kept = []
            for rule, fcells in chart.columns:
                cand = self._candidate(rule)
                cells = []
                for c in fcells:
                    if c.status == "value":
                        cells.append(("value", c.value.text if isinstance(c.value, Slice) else num_text(c.value)))
                    elif c.status in ("true", "unknown"):
                        text = (self.effect(cand["q"], cand["op"], cand["value"], cand["rounding"], known=c.value)
                                if cand["kind"] == "modifier" else cand["label"])
                        cells.append((c.status, text))
                    else:
                        cells.append((c.status, ""))
                kept.append((cand, cells))
            columns: list[EffectColumn] = []
            shown: list[list[str]] = []
            merged: dict[tuple, int] = {}
            for cand, cells in kept:
                has_true = any(st == "true" for st, _ in cells)
                col = []
                for st, text in cells:
                    if st in ("value", "true") or (st == "unknown" and not has_true):
                        col.append(text)
                    elif st == "false_own":
                        col.append(self.labels.ui("no"))
                    else:
                        col.append("—")
                note = EffectNote(cand["rule"], self.cond(cand["when"]), self.refs(cand["refs"]), cand["prov"])
                key = (cand["label"], tuple(col))
                if key in merged:  # the same effect of several rules (one limit in several movement modes)
                    column = columns[merged[key]]
                    if cand["rule"] not in column.rule.split(", "):
                        column.rule += ", " + cand["rule"]
                    same = next((n for n in column.notes if n.condition == note.condition), None)
                    if same is not None:
                        if cand["rule"] not in same.rule.split(", "):
                            same.rule += ", " + cand["rule"]
                        same.refs += [r for r in note.refs if r not in same.refs]
                    else:
                        column.notes.append(note)
                    continue
                merged[key] = len(columns)
                columns.append(EffectColumn(cand["label"], cand["rule"], [note]))
                shown.append(col)
            rows = []
            any_props = False
            for i, decl in enumerate(decls):
                props = []
                for p in decl.props:
                    if p.key in used_by_row[i]:
                        continue
                    if p.value is None:
                        text = key_words(p.key)
                    else:
                        value = self.engine.entities[decl.name].props.get(p.key)
                        text = f"{self.labels.prop(p.key)}: {self._value_text(value)}"
                    props.append((text, self.refs(p.citations)))
                any_props = any_props or bool(props)
                rows.append(EffectRow(decl.name, self.labels.of(decl), self.refs(decl.header.citations), props,
                                      [col[i] for col in shown]))
            if not columns and (kind == "marker" or not any_props):
                continue
            charts.append(EffectsChart(kind, self.labels.ui(title_key), self.labels.ui(caption_key), columns, rows, any_props,
                                       _column_groups(columns, 5 if any_props else 6)))
        return charts

    def _candidate(self, rule) -> dict:
        """An effects-chart rule in the words of this aid."""
        if rule.kind == "base":
            return dict(kind="base", q=rule.quantity, label=self.labels.of(rule.quantity), rule=self.labels.ui("base"),
                        when=None, value=rule.value, op=None, rounding=None, refs=rule.citations, prov=None)
        if rule.kind == "modifier":
            return dict(kind="modifier", q=rule.quantity, label=rule.label or "", rule=self.labels.of(rule.quantity),
                        when=rule.when, value=rule.value, op=rule.op, rounding=rule.rounding, refs=rule.citations,
                        prov=rule.provisional)
        return dict(kind=rule.kind, q=None, label=self.labels.ui("prohibited" if rule.kind == "prohibited" else "must_stop"),
                    rule=self.labels.of(rule.mode), when=rule.when, value=None, op=None, rounding=None,
                    refs=rule.citations, prov=None)

    def _value_text(self, v) -> str:
        if isinstance(v, Entity):
            return self.labels.name(v.name)
        if isinstance(v, tuple):
            return ", ".join(self._value_text(x) for x in v)
        if isinstance(v, str):
            return v
        if v is None:
            return "—"
        return num_text(v)

    # ------------------------------------------------------------ units
    def place_calls(self):
        """(call, condition, trigger) for every `place` in the scenario setups and triggers."""
        out = []

        def visit(stmts, cond, trigger):
            for s in stmts:
                if isinstance(s, ast.If):
                    visit(s.body, s.test if cond is None else ast.And(left=cond, right=s.test), trigger)
                    visit(s.orelse, ast.Not(operand=s.test) if cond is None else ast.And(left=cond, right=ast.Not(operand=s.test)), trigger)
                elif isinstance(s, (ast.For, ast.Step)):
                    visit(s.body, cond, trigger)
                elif isinstance(s, ast.CallStmt) and s.call.func == "place":
                    out.append((s.call, cond, trigger))
                elif isinstance(s, ast.Let) and isinstance(s.value, ast.Call) and s.value.func == "place":
                    out.append((s.value, cond, trigger))

        for sc in self.game.scenarios.values():
            visit(sc.setup, None, ("setup", sc))
            for trig in sc.triggers:
                visit(trig.body, None, ("trigger", trig, sc))
        for trig in self.game.triggers:
            visit(trig.body, None, ("trigger", trig, None))
        return out

    def units(self) -> UnitChart | None:
        units = self.game.units
        if not units:
            return None
        canonical = ["attack", "defense", "move", "steps", "cost"]
        keys: list[str] = []
        for u in units:
            for p in u.props:
                if p.value is not None and p.key not in keys:
                    keys.append(p.key)
            for sv in u.step_values:
                for p in sv.props:
                    if p.value is not None and p.key not in keys:
                        keys.append(p.key)
        keys = [k for k in canonical if k in keys] + [k for k in keys if k not in canonical]
        from warcodex.facts.owners import owners

        sides = {name: list(o.sides) for name, o in owners(self.engine).items()}
        rows = []
        any_steps = False
        max_steps_seen = 1
        for u in units:
            ent = self.engine.entities[u.name]
            props = ent.props
            by_steps = props.get("_by_steps", {})
            max_steps = int(props.get("steps", 1) or 1)
            values = []
            notes = []
            prov_props = {p.key: p.provenance for p in u.props if p.provenance is not None and p.provenance.kind == "provisional"}
            for sv in u.step_values:
                for p in sv.props:
                    if p.provenance is not None and p.provenance.kind == "provisional":
                        prov_props.setdefault(f"{p.key}@{sv.steps}", p.provenance)
            for k in keys:
                if k == "steps":
                    values.append(str(max_steps) if "steps" in props else "—")
                    continue
                full = props.get(k)
                chain = [full]
                for s in range(max_steps - 1, 0, -1):
                    chain.append(by_steps.get(s, {}).get(k, chain[-1]))
                marks = ["†" if (k in prov_props and i == 0) or f"{k}@{max_steps - i}" in prov_props else "" for i in range(len(chain))]
                if full is None and all(c is None for c in chain):
                    values.append("—")
                    continue
                if len(set(map(str, chain))) > 1:
                    any_steps = True
                    max_steps_seen = max(max_steps_seen, max_steps)
                    values.append(" / ".join(self._value_text(c) + m for c, m in zip(chain, marks)))
                else:
                    values.append(self._value_text(full) + marks[0])
            for key, prov in prov_props.items():
                k, _, s = key.partition("@")
                where = f"{self.labels.prop(k)}" + (f" ({s})" if s else "")
                notes.append(f"† {where}: {prov.note or prov.kind}")
            flags = [key_words(p.key) for p in u.props if p.value is None]
            classes = [self.label(c) for c in u.classes] + flags
            prov = u.header.provenance
            provisional = (prov.note or prov.kind) if prov is not None and prov.kind == "provisional" else None
            rows.append(UnitRow(u.name, self.labels.of(u), classes, values,
                                [self.label(s) for s in sides.get(u.name, [])], self.refs(u.header.citations), provisional, notes))
        steps_note = self.labels.ui("steps_note", steps=" / ".join(str(s) for s in range(max_steps_seen, 0, -1))) if any_steps else None
        return UnitChart([self.labels.prop(k) for k in keys], rows, steps_note,
                         any(r.classes for r in rows), any(r.sides for r in rows))

    # ------------------------------------------------------------ the running game: production
    def start_state(self):
        if self.scenario is None:
            return None
        try:
            from warcodex.interpreter.context import Context

            state = self.engine.new_game(self.scenario.name, seed=0)
            return Context(self.engine, state)
        except (RuleError, Exception):  # noqa: BLE001 - the aid is still useful without it
            return None

    def production(self, ctx) -> ProductionChart | None:
        side_vars = {d.name: d for d in self.game.names.values()
                     if isinstance(d, ast.VarDecl) and d.scope == "side_var" and d.type in ("int", "num")}
        if not side_vars:
            return None
        for node, env in self.owners():
            for n in walk(node):
                if not (isinstance(n, ast.SetStmt) and n.op == "+=" and isinstance(n.target, ast.Attr)
                        and n.target.name in side_vars):
                    continue
                for call in walk(n.value):
                    if not isinstance(call, ast.Call):
                        continue
                    decl = self.game.names.get(call.func)
                    if isinstance(decl, (ast.Function, ast.Quantity)) and len(decl.params) == 1 and decl.params[0].type == "side":
                        return self._production(side_vars[n.target.name], decl, ctx)
        return None

    def _production(self, var: ast.VarDecl, rule, ctx) -> ProductionChart:
        rows = []
        order = []
        if ctx is not None:
            order = [self.engine.entities[s] for s in ctx.state.turn_order]
        order += [e for e in self.engine.side_entities if e not in order]
        registry = self.engine.functions if isinstance(rule, ast.Function) else self.engine.quantities
        for side in order:
            start = income = "—"
            if ctx is not None:
                try:
                    start = self._value_text(self.engine.attribute(ctx, side, var.name, None))
                    income = self._value_text(registry[rule.name](ctx, (side,), None))
                except RuleError:
                    pass
            rows.append(ProductionRow(self.label(side.name), start, income))
        return ProductionChart(key_words(var.name), self.labels.of(rule), self.refs(list(var.header.citations) + list(rule.header.citations)), rows)

    # ------------------------------------------------------------ hit chart (a die per unit)
    def hits(self) -> HitChart | None:
        found: OrderedDict[str, tuple] = OrderedDict()
        for node, _env in self.owners():
            for n in walk(node):
                if not isinstance(n, ast.Compare):
                    continue
                roll, attr, op = None, None, n.op
                if isinstance(n.left, ast.Roll) and isinstance(n.right, ast.Attr):
                    roll, attr = n.left, n.right
                elif isinstance(n.right, ast.Roll) and isinstance(n.left, ast.Attr):
                    roll, attr = n.right, n.left
                    op = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}[op]
                if roll is None or not any(any(p.key == attr.name for p in u.props) for u in self.game.units):
                    continue
                found.setdefault(attr.name, (roll.dice, op, getattr(node, "header", None)))
        if not found:
            return None
        props = list(found)
        dice, op, header = found[props[0]]
        refs = self.refs(header.citations) if header is not None else []
        categories = [Category("hit", self.labels.ui("attack_hit")), Category("miss", "—")]
        has_cost = any(any(p.key == "cost" for p in u.props) for u in self.game.units)
        rows = []
        for u in self.game.units:
            ent = self.engine.entities[u.name]
            values, bars = [], []
            cost = ent.props.get("cost")
            for prop in props:
                v = ent.props.get(prop)
                d, o, _h = found[prop]
                if not _is_number(v):
                    values.append(("—", "—", "—"))
                    continue
                dd = dice_distribution(d)
                p = sum((q for r, q in dd.items() if _compare(r, o, v)), Fraction(0))
                per_cost = f"{float(p * 10 / cost):.2f}" if _is_number(cost) and cost else "—"
                values.append((num_text(v), pct(p), per_cost))
                bars.append(ChartBar(0, self.labels.prop(prop), [(0, p), (1, 1 - p)]))
            rows.append(HitRow(self.labels.of(u), values, bars))
        op_words = {"<=": "≤", "<": "<", ">=": "≥", ">": ">", "==": "=", "!=": "≠"}[op]
        note = self.labels.ui("hit_note", dice=dice.text(), op=op_words)
        return HitChart(dice.text(), [self.labels.prop(p) for p in props], note, refs, rows, categories, has_cost)

    # ------------------------------------------------------------ sequence of play
    def sequence(self) -> tuple[list[SequenceItem], list[StandingRule]]:
        seq = self.game.sequence
        if seq is None:
            return [], []
        triggers = list(self.game.triggers) + (list(self.scenario.triggers) if self.scenario is not None else [])
        items = self._seq_items(seq.items, triggers)
        top = SequenceItem("sequence", self.labels.of(seq), self.refs(seq.header.citations), children=items)
        standing = []
        for trig in triggers:
            event = trig.header.name
            if event in ("phase_start", "phase_end", "turn_start", "turn_end"):
                continue
            key = f"event_{event}"
            when = self.labels.ui(key) if key in _EVENT_KEYS else event.replace("_", " ")
            standing.append(StandingRule(when, self.labels.of(trig) if trig.header.label else event,
                                         self.refs(trig.header.citations), self.cond(trig.when)))
        return [top], standing

    def _seq_items(self, items, triggers) -> list[SequenceItem]:
        out = []
        for item in items:
            if isinstance(item, ast.TurnLoop):
                node = SequenceItem("turn", item.label or self.labels.ui("turn"), self.refs(item.citations))
                for trig in triggers:
                    if trig.header.name == "turn_start":
                        node.automatic.append((self._trigger_text(trig), self.refs(trig.header.citations)))
                node.children = self._seq_items(item.items, triggers)
                for trig in triggers:
                    if trig.header.name == "turn_end":
                        node.automatic.append((self._trigger_text(trig), self.refs(trig.header.citations)))
                out.append(node)
            elif isinstance(item, ast.PlayerTurns):
                node = SequenceItem("player_turns", item.label or self.labels.ui("side"), self.refs(item.citations),
                                    sides=self.labels.ui("for_each_side", sides=self._sides_text(item.sides)))
                node.children = self._seq_items(item.items, triggers)
                out.append(node)
            elif isinstance(item, ast.PlayerTurn):
                node = SequenceItem("player_turn", item.label or self.labels.ui("side"), self.refs(item.citations),
                                    sides=self.labels.ui("played_by", side=self.words(item.side)))
                node.children = self._seq_items(item.items, triggers)
                out.append(node)
            elif isinstance(item, ast.Repeat):
                node = SequenceItem("repeat", item.label or self.labels.ui("repeat"), self.refs(item.citations),
                                    sides=self.labels.ui("repeat_while", cond=self.words(item.test)))
                node.children = self._seq_items(item.items, triggers)
                out.append(node)
            elif isinstance(item, ast.Phase):
                node = SequenceItem("phase", self.labels.of(item), self.refs(item.header.citations),
                                    condition=self.cond(item.when))
                for sub in item.items:
                    if isinstance(sub, ast.Allow):
                        for a in sub.actions:
                            decl = self.game.names.get(a)
                            limit = self.labels.ui("at_most", n=sub.limit) if sub.limit is not None else None
                            node.actions.append((self.label(a), self.refs(decl.header.citations) if decl is not None else [], limit))
                    elif isinstance(sub, ast.Do):
                        for text, refs in self._automatic(sub.body):
                            node.automatic.append((text, refs))
                for trig in triggers:
                    if trig.header.name in ("phase_start", "phase_end") and self._about_phase(trig, item.name):
                        when = self.labels.ui("at_phase_start" if trig.header.name == "phase_start" else "at_phase_end")
                        node.automatic.append((f"{when}: {self._trigger_text(trig, with_condition=False)}", self.refs(trig.header.citations)))
                node.children = self._seq_items([s for s in item.items if isinstance(s, (ast.Phase,) + ast.SEQUENCE_BLOCKS)], triggers)
                out.append(node)
        return out

    def _trigger_text(self, trig: ast.Trigger, with_condition: bool = True) -> str:
        text = self.labels.of(trig) if trig.header.label else trig.header.name.replace("_", " ")
        if with_condition and trig.when is not None:
            text += f" ({self.labels.ui('when')} {self.words(trig.when)})"
        return text

    def _about_phase(self, trig: ast.Trigger, phase: str) -> bool:
        if trig.when is None:
            return False
        return any(isinstance(n, ast.Compare) and n.op == "==" and
                   ((isinstance(n.right, ast.Name) and n.right.id == phase) or (isinstance(n.left, ast.Name) and n.left.id == phase))
                   for n in walk(trig.when))

    def _sides_text(self, e) -> str:
        if isinstance(e, ast.Name) and e.id == "turn_order":
            order = None
            if self.scenario is not None:
                order = next((p.value for p in self.scenario.props if p.key == "turn_order"), None)
            order = order or self.game.prop("turn_order")
            if isinstance(order, ast.ListLit):
                return ", ".join(self.words(i) for i in order.items)
        return self.words(e)

    def _automatic(self, stmts) -> list[tuple[str, list[Ref]]]:
        """What a `do` block does, in short: procedures run, tables rolled, markers, cards, units."""
        out: list[tuple[str, list[Ref]]] = []
        for n in walk(stmts):
            if isinstance(n, ast.CallStmt):
                call = n.call
                decl = self.game.names.get(call.func)
                if isinstance(decl, ast.Procedure):
                    out.append((self.labels.of(decl), self.refs(decl.header.citations)))
                elif call.func in ("mark", "unmark") and len(call.args) == 2 and isinstance(call.args[1], ast.Name):
                    verb = "remove" if call.func == "unmark" else "place"
                    out.append((f"{verb} {self.label(call.args[1].id)}", []))
                elif call.func == "draw" and len(call.args) >= 2 and isinstance(call.args[1], ast.Name):
                    out.append((f"draw from {self.label(call.args[1].id)}", []))
                elif call.func in ("win",):
                    out.append(("check victory", []))
            elif isinstance(n, ast.SetStmt):
                tables = [i for i in walk(n.value) if isinstance(i, ast.Index) and isinstance(i.obj, ast.Name)
                          and i.obj.id in self.engine.tables]
                funcs = [c for c in walk(n.value) if isinstance(c, ast.Call) and isinstance(self.game.names.get(c.func), (ast.Function, ast.Quantity))]
                target = self.words(n.target)
                if tables:
                    t = self.game.names[tables[0].obj.id]
                    out.append((f"{target}: {self.labels.of(t)}", self.refs(t.header.citations)))
                elif funcs:
                    f = self.game.names[funcs[0].func]
                    op = {"+=": "+", "-=": "−", "=": "="}[n.op]
                    out.append((f"{target} {op} {self.labels.of(f)}", self.refs(f.header.citations)))
        seen = set()
        unique = []
        for text, refs in out:
            if text not in seen:
                seen.add(text)
                unique.append((text, refs))
        return unique

    # ------------------------------------------------------------ turn track, arrivals, set-up
    def turns(self) -> tuple[int, int] | None:
        if self.scenario is None:
            return None
        props = {p.key: p.value for p in self.scenario.props}
        if "first_turn" in props or "last_turn" in props:
            first = props.get("first_turn")
            last = props.get("last_turn")
            if isinstance(first, ast.Num) and isinstance(last, ast.Num):
                return int(first.value), int(last.value)
            return None
        turns = props.get("turns")
        if isinstance(turns, ast.Num):
            return 1, int(turns.value)
        return None

    def turn_status(self, when, first: int, last: int) -> list[int] | None:
        """The turns on which a condition can hold, or None when it does not depend on the turn."""
        if when is None:
            return None
        uses_turn = any(isinstance(n, ast.Name) and n.id == "turn" for n in walk(when))
        if not uses_turn:
            return None
        from warcodex.facts.partial import Partial

        return [t for t in range(first, last + 1) if truth(Partial(self.engine, turn=t).ev(when)) is not False]

    def turns_text(self, turns: list[int] | None, first: int, last: int) -> str:
        if turns is None:
            return ""
        if not turns:
            return self.labels.ui("never")
        if turns == list(range(turns[0], turns[-1] + 1)):
            if len(turns) == 1:
                return self.labels.ui("turn_n", t=turns[0])
            if turns[-1] == last:
                return self.labels.ui("from_turn", t=turns[0])
            return self.labels.ui("turns_range", a=turns[0], b=turns[-1])
        return ", ".join(str(t) for t in turns)

    def turn_track(self) -> list[TurnBox]:
        span = self.turns()
        if span is None:
            return []
        first, last = span
        if last - first > 80:
            return []
        boxes = {t: TurnBox(t, []) for t in range(first, last + 1)}
        seq = self.game.sequence

        for ph in ast.phases_in(seq.items if seq is not None else []):
            turns = self.turn_status(ph.when, first, last)
            self._mark(boxes, turns, self.labels.of(ph), first, last)
        triggers = list(self.game.triggers) + (list(self.scenario.triggers) if self.scenario is not None else [])
        for trig in triggers:
            if trig.header.name != "turn_start":
                continue
            turns = self.turn_status(trig.when, first, last)
            self._mark(boxes, turns, self.labels.of(trig) if trig.header.label else "turn start", first, last)
        boxes[last].notes.append(self.labels.ui("game_end"))
        return list(boxes.values())

    def _mark(self, boxes, turns, label, first, last) -> None:
        if turns is None or not turns:
            return
        if turns == list(range(turns[0], turns[-1] + 1)):
            if turns[0] == first and turns[-1] == last:
                return
            boxes[turns[0]].notes.append(label + (" →" if turns[-1] == last and len(turns) > 1 else ""))
            return
        for t in turns:
            boxes[t].notes.append(label)

    def arrivals(self) -> tuple[list[Arrival], list[SetupRow]]:
        span = self.turns() or (1, 1)
        first, last = span
        arrivals, setup = [], []
        for call, cond, origin in self.place_calls():
            args = call.args
            unit = self.words(args[0]) if args else "?"
            side = self.words(args[1]) if len(args) > 1 else "?"
            where = ""
            if len(args) > 2:
                where = args[2].value if isinstance(args[2], ast.Str) else self.words(self._inline_lets(args[2], origin))
            name = args[3].value if len(args) > 3 and isinstance(args[3], ast.Str) else ""
            if origin[0] == "setup":
                if self.scenario is None or origin[1] is not self.scenario:
                    continue
                setup.append(SetupRow(side, unit, name, where, self.cond(cond)))
                continue
            trig, sc = origin[1], origin[2]
            if sc is not None and sc is not self.scenario:
                continue
            if trig.header.name != "turn_start":
                continue
            turns = self.turn_status(trig.when, first, last)
            text = self.turns_text(turns, first, last) if turns is not None else self.labels.ui("event_turn_start")
            condition = self.cond(trig.when)
            arrivals.append(Arrival(text, side, unit, name, where, self.refs(trig.header.citations), condition))
        # units the set-up keeps off the map (reinforcements waiting on their player sheet, air
        # units in their boxes, forces held until an event), by box, as the facts find them
        for box, units in (self.facts.boxes.items() if self.facts is not None else ()):
            title = self.labels.ui("off_map_box", box=box.replace("_", " ").capitalize())
            for u in units:
                unit = self.labels.name(u.type)
                setup.append(SetupRow(self.labels.name(u.side), unit, u.label if u.label != unit else "", title, None))
        return arrivals, setup

    def _inline_lets(self, e: ast.Expr, origin) -> ast.Expr:
        """`first(free)` with `let free = list(...)` earlier in the same body: the list itself."""
        body = origin[1].setup if origin[0] == "setup" else origin[1].body
        env = {n.name: n.value for n in walk(body) if isinstance(n, ast.Let)}

        def sub(x, depth=0):
            if depth > 4:
                return x
            if isinstance(x, ast.Name) and x.id in env:
                return sub(env[x.id], depth + 1)
            if isinstance(x, ast.Call):
                return x.model_copy(update={"args": [sub(a, depth + 1) for a in x.args]})
            return x

        return sub(e)

    # ------------------------------------------------------------ the whole aid
    def build(self) -> Aid:
        g = self.game.game
        edition = self.game.prop("edition")
        edition_text = edition.value if isinstance(edition, ast.Str) else None
        self.refs(g.header.citations)
        tables = self.tables()
        effects = self.effects()
        units = self.units()
        ctx = self.start_state()
        production = self.production(ctx)
        hits = self.hits()
        sequence, standing = self.sequence()
        arrivals, setup = self.arrivals()
        track = self.turn_track()
        decks = self.decks()
        provisional = []
        for what, _node, prov in self.game.provisional_items():
            provisional.append(ProvisionalItem(what, prov.note or ""))
        span = self.turns()
        sc_turns = (self.labels.ui("turns_range", a=span[0], b=span[1]) if span and span[0] != span[1]
                    else (self.labels.ui("turn_n", t=span[0]) if span else None))
        sections = sorted(self.cited.values(), key=lambda r: section_key(r.number))
        game_label = self.labels.of(g)
        scenario = self.labels.of(self.scenario) if self.scenario is not None else None
        ui_keys = ["player_aids", "scenario", "edition", "no_edition", "sheet_tables", "sheet_terrain", "sheet_charts",
                   "sheet_units", "sheet_sequence", "sheet_sources", "beyond", "legend", "rules_apply", "base", "source",
                   "badge_provisional", "provisional_warning", "properties", "notes", "unit", "classes", "used_by",
                   "production", "side", "at_start", "income", "hits", "per_cost", "sequence", "allowed_actions",
                   "automatic_steps", "standing_rules", "turn_track", "turn", "reinforcements", "arrives", "where",
                   "name", "setup", "sources", "sections", "conditions_english", "provisional_items", "chance",
                   "units", "when", "drm", "only_when", "table_index", "result", "no", "sheet_cards", "cards_count"]
        ui = {k: self.labels.ui(k) for k in ui_keys}
        ui["generated"] = self.labels.ui("generated", fp=self.engine.fingerprint, paper={"a4": "A4", "letter": "US Letter"}[self.paper])
        # last: every label has been asked for by now, so the counts are those of the whole aid
        total = len(self.labels.translated) + len(self.labels.fallback)
        lang = self.labels.lang
        if lang == "en":
            note = None
        elif self.labels.fallback:
            note = self.labels.ui("language_note", lang=LANG_NAMES[lang], n=len(self.labels.translated), total=total)
        else:
            note = self.labels.ui("language_note_all", lang=LANG_NAMES[lang])
        return Aid(lang, LANG_NAMES[lang], self.paper, g.name, game_label, edition_text, scenario, sc_turns,
                   self.engine.fingerprint, tables, effects, units, production, hits, sequence, standing, track,
                   arrivals, setup, provisional, sections, note, len(self.labels.translated), total, ui, decks)

    def decks(self) -> list[DeckAid]:
        """Every deck with its cards: each card's valued properties (the texts, numbers, marks)
        and its flags, read from the declarations; the deck's own properties as its rules."""
        out = []
        for deck in self.game.of_kind(ast.Deck):
            rules = []
            for p in deck.props:
                value = self.engine.entities[deck.name].props.get(p.key)
                rules.append(f"{self.labels.prop(p.key)}: {value}")
            cards = []
            for c in deck.cards:
                ent = self.engine.entities[c.name]
                fields, flags = [], []
                for p in c.props:
                    if p.value is None:
                        flags.append(self.labels.prop(p.key))
                    else:
                        value = ent.props.get(p.key)
                        fields.append((self.labels.prop(p.key), str(value) if value is not None else ""))
                prov = [p.provenance.note or "" for p in c.props if p.provenance is not None and p.provenance.kind == "provisional"]
                if c.header.provenance is not None and c.header.provenance.kind == "provisional":
                    prov.insert(0, c.header.provenance.note or "")
                cards.append(CardAid(c.name, self.labels.of(c), self.refs(c.header.citations), fields, flags,
                                     "; ".join(prov) if prov else None))
            out.append(DeckAid(deck.name, self.labels.of(deck), self.refs(deck.header.citations), rules, cards))
        return out


def _column_groups(columns: list[EffectColumn], first: int, size: int = 7) -> list[list[int]]:
    """Split a wide effects chart into printed tables that fit a page: columns of the same rule
    stay together where possible; the first table also carries the properties column."""
    order = sorted(range(len(columns)), key=lambda i: (min(j for j, c in enumerate(columns) if c.rule == columns[i].rule), i))
    groups: list[list[int]] = [[]]
    for i in order:
        limit = first if len(groups) == 1 else size
        if len(groups[-1]) >= limit:
            groups.append([])
        groups[-1].append(i)
    return groups


_EVENT_KEYS = {"event_game_start", "event_turn_start", "event_turn_end", "event_enter", "event_eliminated", "event_game_end"}


def _compare(a, op, b) -> bool:
    return {"<=": a <= b, "<": a < b, ">=": a >= b, ">": a > b, "==": a == b, "!=": a != b}[op]


def build_aid(game: GameDef, scenario: str | None = None, lang: str = "en", paper: str = "a4", engine=None) -> Aid:
    """The player aid of a checked game, in one language, for one scenario (default: the first).

    `engine` may be given (an `Engine` already compiled, e.g. with a board built by a test);
    otherwise one is compiled with the scenario's rules."""
    from warcodex.interpreter.engine import Engine

    if engine is None:
        engine = Engine(game, scenario=scenario)
    elif scenario is not None:
        engine = engine.for_scenario(scenario)
    return _Builder(game, engine, scenario, lang, paper).build()
