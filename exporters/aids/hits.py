"""The hit chart, for games where each unit rolls its own die against one of its values (A&A):
each unit's chance to hit (= expected hits per round) and hits per 10 cost, from the facts' hit
rolls."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from warcodex.exporters.aids.odds import Category, ChartBar, pct
from warcodex.exporters.aids.words import num_text
from warcodex.exporters.aids.writer import Ref

_OP_WORDS = {"<=": "≤", "<": "<", ">=": "≥", ">": ">", "==": "=", "!=": "≠"}


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


def _number(v) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def hit_chart(w) -> HitChart | None:
    rolls = w.facts.hit_rolls
    if not rolls:
        return None
    first = rolls[0]
    refs = w.refs(first.rule.header.citations) if first.rule is not None else []
    categories = [Category("hit", w.ui("attack_hit")), Category("miss", "—")]
    types = w.facts.unit_types
    has_cost = any("cost" in ut.values[ut.max_steps] for ut in types)
    rows = []
    for ut in types:
        vals = ut.values[ut.max_steps]
        cost = vals.get("cost")
        values, bars = [], []
        for roll in rolls:
            v = vals.get(roll.prop)
            if not _number(v):
                values.append(("—", "—", "—"))
                continue
            p = roll.chance(v)
            per_cost = f"{float(p * 10 / cost):.2f}" if _number(cost) and cost else "—"
            values.append((num_text(v), pct(p), per_cost))
            bars.append(ChartBar(0, w.labels.prop(roll.prop), [(0, p), (1, 1 - p)]))
        rows.append(HitRow(w.of(ut.decl), values, bars))
    note = w.ui("hit_note", dice=first.dice.text(), op=_OP_WORDS[first.op])
    return HitChart(first.dice.text(), [w.labels.prop(r.prop) for r in rolls], note, refs, rows, categories, has_cost)
