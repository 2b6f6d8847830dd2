"""Effects charts (terrain, hexside features, map features, markers), rendered from the game's
effects facts: one row per declared name, one column per rule that depends on it. A cell reads:
the effect where the row brings the rule, or allows it when no row brings it outright (the armor
shift "allowed" in clear terrain); for hexside and map features and markers, the effect and
`(depends)` where it brings it only under a further condition beside rows that bring it outright
(a lake hexside, unless frozen); `no` where
one of the row's own names or flags stops it; `—` where the row has no bearing on it. Columns with the same label and cells (one limit in several
movement modes) are merged; wide charts are split into tables that fit a page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.exporters.aids.rules import effect_text, provisional_slice, slice_text
from warcodex.exporters.aids.words import key_words, num_text
from warcodex.exporters.aids.writer import Ref
from warcodex.facts import Slice

_TITLES = {"terrain": ("tec", "terrain"), "edge": ("edges", "edge"), "feature": ("features", "feature"),
           "marker": ("markers", "marker")}


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


def effects_charts(w) -> list[EffectsChart]:
    charts = []
    for chart in w.facts.effects:
        kind = chart.kind
        title_key, caption_key = _TITLES[kind]
        kept = []
        for rule, fcells in chart.columns:
            cand = _candidate(w, rule)
            # values read from a provisional table (the TEC's rows) are said to be provisional
            cand["prov"] = cand["prov"] or next((p for c in fcells if (p := provisional_slice(w, c.value))), None)
            cells = []
            for c in fcells:
                if c.status == "value":
                    cells.append(("value", slice_text(w, c.value) if isinstance(c.value, Slice) else num_text(c.value)))
                elif c.status == "unknown" and cand["kind"] == "base":
                    text = w.ui("depends")  # a seasonal swamp's cost: play decides (the weather)
                    cells.append((c.status, text))
                    continue
                elif c.status in ("true", "unknown"):
                    text = (effect_text(w, cand["q"], cand["op"], cand["value"], c.value, cand["rounding"])
                            if cand["kind"] == "modifier" else cand["label"])
                    cells.append((c.status, text))
                else:
                    cells.append((c.status, ""))
            kept.append((cand, cells))
        columns: list[EffectColumn] = []
        shown: list[list[str]] = []
        merged: dict[tuple, int] = {}
        for cand, cells in kept:
            # where no row brings the rule outright, a row that allows it shows its effect plainly
            # (the armor shift in clear terrain); beside rows that bring it, a hexside feature,
            # map feature or marker that brings it only under a further condition says so (a lake
            # blocks unless frozen); a terrain that does not decide it shows nothing
            has_true = any(st == "true" for st, _ in cells)
            col = []
            for st, text in cells:
                if st in ("value", "true") or (st == "unknown" and not has_true):
                    col.append(text)
                elif st == "unknown" and kind != "terrain":
                    col.append(f"{text} ({w.ui('depends')})")
                elif st == "false_own":
                    col.append(w.ui("no"))
                else:
                    col.append("—")
            note = EffectNote(cand["rule"], w.cond(cand["when"]), w.refs(cand["refs"]), cand["prov"])
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
        for i, decl in enumerate(chart.rows):
            props = []
            for p in decl.props:
                if p.key in chart.used[i]:
                    continue
                if p.value is None:
                    text = key_words(p.key)
                else:
                    text = f"{w.labels.prop(p.key)}: {w.value(chart.values[i].get(p.key))}"
                props.append((text, w.refs(p.citations)))
            any_props = any_props or bool(props)
            rows.append(EffectRow(decl.name, w.of(decl), w.refs(decl.header.citations), props, [col[i] for col in shown]))
        if not columns and (kind == "marker" or not any_props):
            continue
        charts.append(EffectsChart(kind, w.ui(title_key), w.ui(caption_key), columns, rows, any_props,
                                   column_groups(columns, 5 if any_props else 6)))
    return charts


def _candidate(w, rule) -> dict:
    """An effects-chart rule in the words of this aid."""
    if rule.kind == "base":
        return dict(kind="base", q=rule.quantity, label=w.of(rule.quantity), rule=w.ui("base"),
                    when=None, value=rule.value, op=None, rounding=None, refs=rule.citations, prov=None)
    if rule.kind == "modifier":
        return dict(kind="modifier", q=rule.quantity, label=rule.label or "", rule=w.of(rule.quantity),
                    when=rule.when, value=rule.value, op=rule.op, rounding=rule.rounding, refs=rule.citations,
                    prov=rule.provisional)
    return dict(kind=rule.kind, q=None, label=w.ui("prohibited" if rule.kind == "prohibited" else "must_stop"),
                rule=w.of(rule.mode), when=rule.when, value=None, op=None, rounding=None, refs=rule.citations, prov=None)


def column_groups(columns: list[EffectColumn], first: int, size: int = 7) -> list[list[int]]:
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
