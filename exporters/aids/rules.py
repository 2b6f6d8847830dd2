"""Quantities in words: a quantity's base and each modifier with its effect (`+1 column`, `×2`,
`at most 30`), condition and sections, as the "rules that apply" under a table show them; and a
single modifier's effect, as an effects chart's cell shows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from warcodex.exporters.aids.writer import Ref
from warcodex.exporters.aids.words import num_text, signed
from warcodex.facts import Slice


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


def slice_text(w, s: Slice) -> str:
    """A table's row or column read for a known key, in words: `non mech 1; mech 1/2`."""
    return "; ".join(f"{w.label(key)} {cell}" for key, cell in s.parts)


def provisional_slice(w, value) -> str | None:
    """Why a value read from a table is provisional (the table's note), or None."""
    if not isinstance(value, Slice):
        return None
    table = next((t for t in w.facts.tables if t.name == value.table), None)
    return (table.note or "provisional") if table is not None and table.provisional else None


def effect_text(w, q, op: str, value, known, rounding=None) -> str:
    """What a modifier of quantity `q` does: `known` is its value from the facts (a number, a
    table slice, or UNKNOWN: then the expression `value` is read out in words)."""
    is_num = _number(known)
    if isinstance(known, Slice):
        text = slice_text(w, known)
    else:
        text = num_text(known) if is_num else w.words(value)
    odds = q.type == "odds"
    if op in ("+", "-"):
        if is_num:
            n = known if op == "+" else -known
            if odds:
                unit = w.ui("column") if abs(n) == 1 else w.ui("columns")
                return f"{signed(n)} {unit}"
            return signed(n)
        sign = "+" if op == "+" else "−"
        return f"{sign} {text}" + (f" ({w.ui('columns')})" if odds else "")
    if op == "*":
        out = f"×{text}"
    elif op == "/":
        out = f"÷{text}"
    elif op == "=":
        return f"= {text}"
    elif op in ("min", "at_most"):
        return w.ui("at_most", n=text)
    else:
        return f"≥ {text}"
    if rounding:
        out += f" ({w.ui('round_' + rounding)})"
    return out


def _number(v) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def quantity_aid(w, name: str) -> QuantityAid:
    qf = w.facts.quantity(name)
    q = qf.decl
    mods = []
    for mf in qf.modifiers:
        m = mf.decl
        mods.append(ModifierAid(m.label or "", effect_text(w, q, m.op, m.value, mf.value, m.rounding), w.cond(m.when),
                                w.refs(m.citations), w.ui("group", group=m.group) if m.group else None, mf.provisional))
    base = w.words(q.base) if q.base is not None else ""
    order = ", ".join(q.order) if q.order else None
    return QuantityAid(q.name, w.of(q), base, w.refs(q.base_citations), w.refs(q.header.citations), mods,
                       w.ui("stage_order", order=order) if order else None)
