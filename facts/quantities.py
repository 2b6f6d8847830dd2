"""Quantities as facts: each quantity's base and modifiers with the value each has without a game
in progress (a number, a table slice, or UNKNOWN when it reads the position), and which
modifiers are provisional, so a renderer writes `+1 column` or `×2` without evaluating rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.facts.partial import UNKNOWN, constant


@dataclass(frozen=True)
class ModifierFacts:
    decl: ast.Modifier
    value: object  # the modifier's value when it needs nothing from a game in progress, else UNKNOWN
    provisional: str | None  # the note of a provisional modifier


@dataclass(frozen=True)
class QuantityFacts:
    name: str
    decl: ast.Quantity
    base: object  # the base's value when it needs nothing from a game, else UNKNOWN (None: no base)
    modifiers: tuple[ModifierFacts, ...]


def quantity_facts(engine) -> dict[str, QuantityFacts]:
    """Every quantity of the game, by name. Cached with the engine."""
    cache = engine.derived_cache
    if "quantities" not in cache:
        out = {}
        for q in engine.game.of_kind(ast.Quantity):
            mods = tuple(ModifierFacts(m, constant(engine, m.value), _provisional(m.provenance)) for m in q.modifiers)
            base = constant(engine, q.base) if q.base is not None else None
            out[q.name] = QuantityFacts(q.name, q, base, mods)
        cache["quantities"] = out
    return cache["quantities"]


def _provisional(prov) -> str | None:
    if prov is None or prov.kind != "provisional":
        return None
    return prov.note or "provisional"


__all__ = ["ModifierFacts", "QuantityFacts", "UNKNOWN", "quantity_facts"]
