"""The unit chart: every unit type with its values (attack, defense, move, steps, cost, then any
other), per-step values as `8 / 4` (full strength, then each step lost), classes and flags, the
sides that field it (the facts' owners: where play decides, every side may), and provisional
values marked `†` with their notes.
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.exporters.aids.words import key_words
from warcodex.exporters.aids.writer import Ref

CANONICAL = ("attack", "defense", "move", "steps", "cost")


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

    def provisional_notes(self) -> list[tuple[str, list[str]]]:
        """Why values are provisional, each reason once with the units it concerns, in chart order:
        a counter mix with 150 HQ colours missing is one line, not 150 (Stargard Solstice)."""
        groups: dict[str, list[str]] = {}
        for r in self.rows:
            for reason in ([r.provisional] if r.provisional else []) + r.notes:
                groups.setdefault(reason, []).append(r.label)
        return list(groups.items())


def unit_chart(w) -> UnitChart | None:
    types = w.facts.unit_types
    if not types:
        return None
    keys: list[str] = []
    for ut in types:
        for vals in ut.values.values():
            keys += [k for k, v in vals.items() if v is not True and k not in keys]
    keys = [k for k in CANONICAL if k in keys] + [k for k in keys if k not in CANONICAL]
    rows = []
    max_steps_seen = 0
    for ut in types:
        values = []
        for k in keys:
            if k == "steps":
                values.append(str(ut.max_steps) if "steps" in ut.values[ut.max_steps] else "—")
                continue
            chain = [ut.values[s].get(k) for s in range(ut.max_steps, 0, -1)]
            marks = ["†" if (k, s) in ut.provisional_values else "" for s in range(ut.max_steps, 0, -1)]
            if all(c is None for c in chain):
                values.append("—")
            elif len(set(map(str, chain))) > 1:
                max_steps_seen = max(max_steps_seen, ut.max_steps)
                values.append(" / ".join(w.value(c) + m for c, m in zip(chain, marks)))
            else:
                values.append(w.value(chain[0]) + marks[0])
        notes = []
        for (k, s), note in ut.provisional_values.items():
            where = w.labels.prop(k) + (f" ({s})" if s != ut.max_steps else "")
            notes.append(f"† {where}: {note}")
        classes = [w.label(c) for c in ut.classes] + [key_words(f) for f in ut.flags]
        rows.append(UnitRow(ut.name, w.of(ut.decl), classes, values, _sides(w, ut), w.refs(ut.decl.header.citations),
                            ut.provisional_note, notes))
    steps_note = (w.ui("steps_note", steps=" / ".join(str(s) for s in range(max_steps_seen, 0, -1)))
                  if max_steps_seen else None)
    return UnitChart([w.labels.prop(k) for k in keys], rows, steps_note, any(r.classes for r in rows),
                     any(r.sides for r in rows))


def _sides(w, ut) -> list[str]:
    """The sides that may field a type (`Owners.may_field`): its owners, every side where play
    decides (a type any side may buy); none when no rule places it at all."""
    if not ut.owners.sides and not ut.owners.undecided:
        return []
    sides = [s.name for s in w.facts.sides if ut.owners.may_field(s.name)]
    if len(sides) > 2 and len(sides) == len(w.facts.sides):
        return [w.ui("every_side")]  # five powers in a row say less than this
    return [w.label(s) for s in sides]
