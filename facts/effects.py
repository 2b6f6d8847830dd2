"""Effects charts: what each terrain, hexside feature, map feature and marker does to every rule
that may depend on it (quantity bases and modifiers, movement prohibitions and stops), found by
the partial evaluator with only the row known.

A terrain is exclusive (a location has one), so a test of another terrain is false for it. Hexside
features, map features and markers combine, so a row knows only its own names and flags (the
others are unknown). A row *cancels* a rule when the rule cannot apply with it (a bridge over a
river: `and not edge(a, b) is bridge`); it *brings* the rule's effect only where its own name
counts for the rule (a minor river's +1 MP), never where it only appears under a `not` (a bridge
or ferry in `not bridged(a, b)`): a bridge is never shown as prohibiting or stopping movement.

Cell statuses: `value` (a base read for the row), `true` (the rule applies), `unknown` (it may,
under a condition not about the row; a base the row bears on whose value play decides), `false_own` (the row's own name or flag stops it), `false`
(it does not apply), `irrelevant` (the row has no bearing on it). A chart keeps the rules some
row brings, and for features and markers also those a row only cancels (a fortification denies
the armor shift).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.facts.partial import DOMAIN_KINDS, UNKNOWN, Partial, Slice, truth


@dataclass
class EffectRule:
    """A rule that may depend on a chart's rows: a quantity's base or modifier, or a movement
    mode's `prohibited`/`stop` condition."""
    kind: str  # base, modifier, prohibited, stop
    quantity: ast.Quantity | None
    mode: ast.Movement | None
    label: str | None  # the modifier's label
    when: ast.Expr | None
    value: ast.Expr | None
    op: str | None
    rounding: str | None
    citations: list[str]
    provisional: str | None = None


@dataclass
class EffectCell:
    status: str
    value: object = UNKNOWN  # the rule's value with the row known (a number, a table slice...)
    truncated: bool = False  # the evaluator's depth limit cut it short: `irrelevant` is not sure


@dataclass
class EffectsFacts:
    kind: str  # terrain, edge, feature, marker
    rows: list  # the declarations, in declaration order
    columns: list[tuple[EffectRule, list[EffectCell]]]
    used: list[set[str]] = field(default_factory=list)  # per row: its properties and tags the kept rules read
    values: list[dict] = field(default_factory=list)  # per row: its property values (`cost: 2`, `vp: 3`)


def effect_rules(game) -> list[EffectRule]:
    out = []
    for q in game.of_kind(ast.Quantity):
        if q.base is not None:
            out.append(EffectRule("base", q, None, None, None, q.base, None, None, q.base_citations or q.header.citations))
        for m in q.modifiers:
            prov = (m.provenance.note or "provisional") if m.provenance is not None and m.provenance.kind == "provisional" else None
            out.append(EffectRule("modifier", q, None, m.label or "", m.when, m.value, m.op, m.rounding, m.citations, prov))
    for mode in game.of_kind(ast.Movement):
        for p in mode.props:
            if p.key in ("prohibited", "stop") and p.value is not None:
                out.append(EffectRule(p.key, None, mode, None, p.value, None, None, None, p.citations or mode.header.citations))
    return out


def effects(engine) -> list[EffectsFacts]:
    """One chart per kind that has declarations, with the rules that depend on its rows."""
    cache = engine.derived_cache
    if "effects" in cache:
        return cache["effects"]
    rules = effect_rules(engine.game)
    charts = []
    for kind in DOMAIN_KINDS:
        decls = engine.game.entities(kind)
        if not decls:
            continue
        rows = [engine.entities[d.name] for d in decls]
        exclusive = kind == "terrain"
        kept = []
        used_by_row: list[set[str]] = [set() for _ in decls]
        for rule in rules:
            cells, used = [], []
            for row in rows:
                cell, u = (_exclusive_cell if exclusive else _combining_cell)(engine, kind, row, rule)
                cells.append(cell)
                used.append(u)
            statuses = {c.status for c in cells}
            # a feature or marker that only cancels a rule still matters to it (Full Retreat and
            # train markers deny the defender's armor shift, Stalingrad §13.3.2, §5.6.4), unless
            # an evaluation was cut short (then another row's "no bearing" is not sure); a rule
            # no terrain brings is one terrain never lets apply
            cancelled_only = not exclusive and "false_own" in statuses and not any(c.truncated for c in cells)
            if not statuses & {"value", "true", "unknown"} and not cancelled_only:
                continue
            if exclusive and len({(c.status, _text_key(c.value)) for c in cells}) == 1:
                continue  # the same for every terrain: the terrain does not matter
            kept.append((rule, cells))
            for i, u in enumerate(used):
                used_by_row[i] |= u
        charts.append(EffectsFacts(kind, decls, kept, used_by_row, [dict(r.props) for r in rows]))
    cache["effects"] = charts
    return charts


def _text_key(v):
    return v.text if isinstance(v, Slice) else repr(v)


def _exclusive_cell(engine, kind, row, rule) -> tuple[EffectCell, set[str]]:
    pe = Partial(engine, kind, row)
    if rule.kind == "base":
        v = pe.ev(rule.value)
        if pe.touched and v is not UNKNOWN and v is not None:
            return _cut(pe, EffectCell("value", v)), pe.used
        if pe.touched and v is UNKNOWN:  # the terrain counts, with something play decides (a seasonal swamp's weather)
            return _cut(pe, EffectCell("unknown")), pe.used
        return _cut(pe, EffectCell("irrelevant")), pe.used
    w = truth(pe.ev(rule.when))
    v = pe.ev(rule.value) if rule.value is not None else UNKNOWN
    if not pe.touched:
        return _cut(pe, EffectCell("irrelevant")), pe.used
    if w is False:
        return _cut(pe, EffectCell("false_own" if pe.own else "false")), pe.used
    return _cut(pe, EffectCell("true" if w is True else "unknown", v)), pe.used


def _combining_cell(engine, kind, row, rule) -> tuple[EffectCell, set[str]]:
    pe = Partial(engine, kind, row)
    if rule.kind == "base":
        v = pe.ev(rule.value)
        if pe.own and v is not UNKNOWN and v is not None:
            return _cut(pe, EffectCell("value", v)), pe.used
        return _cut(pe, EffectCell("irrelevant")), pe.used
    w = truth(pe.ev(rule.when))
    v = pe.ev(rule.value) if rule.value is not None else UNKNOWN
    if not pe.own:
        return _cut(pe, EffectCell("irrelevant")), pe.used
    if w is False:
        return _cut(pe, EffectCell("false_own")), pe.used
    if not pe.own_positive:  # the row's names only ever stop this rule: it cannot bring its effect
        return _cut(pe, EffectCell("irrelevant")), pe.used
    return _cut(pe, EffectCell("true" if w is True else "unknown", v)), pe.used


def _cut(pe: Partial, cell: EffectCell) -> EffectCell:
    cell.truncated = pe.truncated
    return cell
