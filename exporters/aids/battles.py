"""Odds of typical battles: for each battle the game declares (its scenes/ folder, read from the
facts' `battles`), the chance of each outcome as a bar, the chance of each CRT result for a CRT
attack (the column it is read in, the cells coloured as the table colours them), what the combat
most often does to the units, the expected losses of a battle of rounds, whether the odds are exact
or a Monte Carlo estimate (with its interval), and the provisional data they depend on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from warcodex.exporters.aids.odds import pct
from warcodex.exporters.aids.writer import Ref

OUTCOME_KEYS = {"attacker wins": "attacker_wins", "mutual destruction": "mutual_destruction",
                "both remain": "both_remain", "defender wins": "defender_wins"}  # in the bar's order
TOP_RESULTS = 5  # the likeliest results a battle of many shows, the rest summed on one line
ALL_RESULTS = 12  # a battle with at most this many results (a CRT attack, a second die) shows each


@dataclass
class Segment:
    """One part of a bar: its label, its chance in words, its width (0..1) and its colour key (an
    outcome, or a table's category index)."""

    label: str
    chance: str
    width: float
    colour: str | int


@dataclass
class BattleAid:
    name: str
    title: str
    refs: list[Ref]
    method: str  # in words: exact, or the Monte Carlo estimate with its interval and why
    exact: bool
    outcomes: list[Segment]
    crt_table: str | None  # the table a CRT attack's result is read on (its name)
    crt_caption: str | None  # "Combat Results Table, column 3-1"
    crt_results: list[Segment]
    crt_families: list[tuple[str, str]]  # (family, its chance) when the table groups its results
    results: list[tuple[str, str]]  # (chance, what the combat does to the units), most likely first
    losses: list[str]  # "attacker: Infantry 1.84, Tank 0.31"
    provisional: list[str] = field(default_factory=list)


def _families(table_aids, table: str, results: dict[str, float]) -> list[tuple[str, str]]:
    """The chance of each result family of the table (dsl/families.py), in the families' order."""
    for t in table_aids:
        if t.name == table and t.chart is not None and t.chart.families:
            total = [0.0] * len(t.chart.families)
            for c in t.categories:
                if c.family is not None:
                    total[c.family] += results.get(c.text, 0.0)
            return [(f.label, pct(Fraction(p).limit_denominator(10**9))) for f, p in zip(t.chart.families, total) if p > 1e-12]
    return []


def _category(table_aids, table: str, cell: str) -> int:
    for t in table_aids:
        if t.name == table:
            for i, c in enumerate(t.categories):
                if c.text == cell:
                    return i
    return -1


def battle_aids(w, table_aids) -> list[BattleAid]:
    out = []
    for b in w.facts.battles:
        if b.method == "exact":
            method = w.ui("battle_exact")
        else:
            method = w.ui("battle_mc", n=f"{b.battles:,}", hw=pct(Fraction(b.half_width).limit_denominator(100000)),
                          why=b.note)
        outcomes = [Segment(w.ui(key), pct(Fraction(b.outcomes[name]).limit_denominator(10**9)), b.outcomes[name], key)
                    for name, key in OUTCOME_KEYS.items() if b.outcomes.get(name, 0) > 1e-12]
        crt_results, crt_families, caption, table = [], [], None, None
        if b.crt is not None:
            table = b.crt.table
            caption = w.ui("battle_column", table=w.label(b.crt.table), columns=", ".join(b.crt.columns))
            crt_results = [Segment(cell, pct(Fraction(p).limit_denominator(10**9)), p, _category(table_aids, table, cell))
                           for cell, p in b.crt.results.items()]
            crt_families = _families(table_aids, table, b.crt.results)
            if crt_families:  # in the table's order of categories: each family one band, as in its chart
                crt_results.sort(key=lambda s: s.colour)
        top = len(b.results) if len(b.results) <= ALL_RESULTS else TOP_RESULTS
        results = [(pct(Fraction(p).limit_denominator(10**9)), text) for p, text in b.results[:top]]
        rest = sum(p for p, _ in b.results[top:])
        if rest > 0:
            results.append((pct(Fraction(rest).limit_denominator(10**9)),
                            w.ui("battle_other_results", n=len(b.results) - top)))
        losses = []
        if b.crt is None:  # a battle of rounds: what each side loses on average
            for role, types in b.expected_losses.items():
                parts = [f"{w.label(t)} {n:.2f}" for t, n in types.items()]
                losses.append(f"{w.ui('role_' + role)}: " + ", ".join(parts))
        out.append(BattleAid(b.name, b.label, w.refs(b.citations), method, b.method == "exact", outcomes, table,
                             caption, crt_results, crt_families, results, losses, list(b.provisional)))
    return out
