"""The side(s) that own each unit type, from every way a unit enters play.

A unit type's owners are, in this order of authority:

1. declared: the unit's `side: NAME` or `sides: [A, B]` property (the language's way to state it
   where the rules cannot show it, e.g. a type that is only bought);
2. inferred: every `place`/`place_in_box` the rules can run (set-ups, reinforcement and
   replacement procedures, `arrive(...)`-style procedures, triggers, actions, results, cards),
   with the procedures on the way inlined, whose type and side are both named.

Where a site's side (or type) is decided in play (`place(t, active, ...)` in a purchase), the
owners are not certain (`uncertain`: the sides found may be only some of them), and the model says
so instead of guessing; such a type may be fielded by any side (`may_field`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.facts.entries import ENTRY_CALLS, Site, all_sites, static_name
from warcodex.interpreter.values import Entity


@dataclass
class Owners:
    sides: tuple[str, ...]  # in the order the sides are declared
    declared: bool  # stated by the unit's `side:`/`sides:` property
    certain: bool  # declared, or every site that places this type names its side
    sites: list[Site] = field(default_factory=list)  # the sites that place this type
    undecided: list[Site] = field(default_factory=list)  # sites whose side, or type, is decided in play
    conflicts: list[str] = field(default_factory=list)  # sites placing it for a side it is not declared for

    def may_field(self, side: str) -> bool:
        """Whether `side` may have units of this type: one of its owners, or any side when play
        decides (a type bought in play, or one no rule places)."""
        return side in self.sides or (not self.declared and (bool(self.undecided) or not self.sides))

    @property
    def status(self) -> str:
        """declared, inferred, uncertain (some sides known, others decided in play), unknown."""
        if self.declared:
            return "declared"
        if self.sides and self.certain:
            return "inferred"
        return "uncertain" if self.sides else "unknown"


def owners(engine) -> dict[str, Owners]:
    """The owners of every unit type, by type name. Cached with the engine."""
    cache = engine.derived_cache
    if "owners" in cache:
        return cache["owners"]
    order = [s.name for s in engine.game.sides]
    placed: dict[str, list[tuple[Site, str | None]]] = {}
    any_type: list[Site] = []
    seen: set[tuple] = set()
    for site, _definite in all_sites(engine):
        if site.func not in ENTRY_CALLS or not site.args:
            continue
        if site.key in seen:
            continue
        seen.add(site.key)
        t = static_name(site.args[0], engine)
        s = static_name(site.args[1], engine) if len(site.args) > 1 else None
        if s is not None and engine.entities[s].kind != "side":
            s = None
        if t is None or engine.entities[t].kind != "unit":
            any_type.append(site)
            continue
        placed.setdefault(t, []).append((site, s))
    out: dict[str, Owners] = {}
    for u in engine.game.units:
        sites = placed.get(u.name, [])
        inferred = {s for _site, s in sites if s is not None}
        undecided = [site for site, s in sites if s is None] + any_type
        declared = _declared(engine, u)
        if declared is not None:
            conflicts = [f"{_where(site)} places it for {s}" for site, s in sites if s is not None and s not in declared]
            out[u.name] = Owners(tuple(x for x in order if x in declared), True, True, [x for x, _ in sites],
                                 undecided, conflicts)
        else:
            # a site whose side (or type) play decides may place this type for any side: the
            # sides found are then some of its owners, not all (A&A: any power buys bombers)
            certain = bool(inferred) and not undecided
            out[u.name] = Owners(tuple(x for x in order if x in inferred), False, certain, [x for x, _ in sites],
                                 undecided)
    cache["owners"] = out
    return out


def _declared(engine, u: ast.Unit) -> set[str] | None:
    props = engine.entities[u.name].props
    for key in ("sides", "side"):
        v = props.get(key)
        if isinstance(v, Entity):
            return {v.name}
        if isinstance(v, tuple):
            return {x.name for x in v if isinstance(x, Entity)}
    return None


def _where(site: Site) -> str:
    rule = site.rule
    label = rule.header.label or rule.header.name
    span = site.call.span
    return f"{label} ({span.file}:{span.line})" if span is not None else label
