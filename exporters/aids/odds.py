"""Odds charts: for each column of a rolled table (a CRT), one stacked bar per die-roll modifier
with the chance of each result, from the table's facts (`TableFacts.outcomes`). The modifiers
are those the rules add to the roll, or −2..+2 for a CRT that clamps its rows when the rules add
none; a column decided beyond the table (`7-1 or more: DE`) gets its own bar.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from warcodex.exporters.aids.words import signed

OFF_TABLE = "off"  # chart category of a modified roll that falls off a table without `clamp`


@dataclass
class Category:
    """A result as a chart colours it: the cell's text, its meaning in words, and the index of its
    result family (`Family`, dsl/families.py) when the game groups the table's results."""
    text: str
    label: str
    family: int | None = None


@dataclass
class Family:
    """A group of a table's results as the game declares it (dsl/families.py), in the aid's words."""
    name: str
    label: str
    provisional: bool
    note: str | None


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
class OddsChart:
    table: str
    title: str
    dice: str
    drms: list[int]
    drm_reason: str
    categories: list[Category]
    panels: list[ChartPanel]
    intro: str
    families: list[Family]  # the table's result families, in order (empty: none declared)
    other_label: str = ""  # the legend's name for the cells in no family


def pct(p: Fraction) -> str:
    """A chance as a percentage a player reads at a glance (`17%`, `2.8%`, `<1%`)."""
    value = float(p) * 100
    if value == 0:
        return "0%"
    if value < 1:
        return "<1%"
    if abs(value - round(value)) < 0.05 or value >= 10:
        return f"{round(value)}%"
    return f"{value:.1f}%"


def odds_chart(w, tf, title: str, categories: list[Category], cat_index: dict[str, int], beyond,
               families: list[Family]) -> OddsChart:
    """The chart of a rolled table with columns. `beyond` are the table's beyond rules in words,
    paired with the compiled rules (a column decided beyond the table gets its own bar)."""
    t = tf.compiled
    kind = tf.decl.columns.kind
    categories = list(categories)
    if tf.drm_quantities and tf.drm_values:
        drms = sorted(tf.drm_values | {0})
        reason = w.ui("drm_rules")
    elif t.clamp and kind in ("odds", "diff"):
        drms = [-2, -1, 0, 1, 2]
        reason = w.ui("drm_default")
    else:
        drms = [0]
        reason = w.ui("drm_none" if kind in ("odds", "diff") else "drm_unmodified")
    off_index = None
    panels = []
    for j, column in enumerate(t.column_text):
        bars = []
        for m in drms:
            segments: dict[int, Fraction] = {}
            for cell, p in tf.outcomes(j, m).items():
                if cell is None:
                    if off_index is None:
                        off_index = len(categories)
                        categories.append(Category(OFF_TABLE, w.ui("off_table")))
                    k = off_index
                else:
                    k = cat_index[cell]
                segments[k] = segments.get(k, Fraction(0)) + p
            bars.append(ChartBar(m, signed(m) if m else "0", sorted(segments.items())))
        panels.append(ChartPanel(column if kind != "diff" else signed(t.columns[j]), False, bars))
    for rule, words in beyond:
        if rule.action == "result" and rule.cell is not None:
            panels.append(ChartPanel(words.when, True, [ChartBar(0, w.ui("no_roll"), [(cat_index[str(rule.cell)], Fraction(1))])]))
    drm_text = ", ".join(signed(m) if m else "0" for m in drms)
    return OddsChart(t.name, title, tf.dice.text(), drms, reason, categories, panels,
                     w.ui("charts_intro", drms=drm_text, why=reason), families, w.ui("family_other"))
