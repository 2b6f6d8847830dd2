"""The national production chart: each side's start value and income per turn of a number the
rules increase each turn by a function of the side (IPCs), from the facts' incomes."""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.exporters.aids.words import key_words
from warcodex.exporters.aids.writer import Ref


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


def production_chart(w) -> ProductionChart | None:
    if not w.facts.incomes:
        return None
    inc = w.facts.incomes[0]
    rows = [ProductionRow(w.label(s.side), w.value(s.start), w.value(s.income)) for s in inc.sides]
    return ProductionChart(key_words(inc.variable.name), w.of(inc.rule),
                           w.refs(list(inc.variable.header.citations) + list(inc.rule.header.citations)), rows)
