"""The set-up of a scenario: the units on the map and in off-map boxes once its `setup` has run
(options at their defaults), each with the provenance of the rule that places it, so a set-up
card the rulebook does not print (the At-Start cards of Stalingrad '42, four of the five A&A
set-up cards) is never shown as published.

A unit is matched to the `place`/`place_in_box` calls the set-up can make (procedures inlined,
`entries.all_sites`) by what the call names: type, side, location and label; the call that names
the most of them decides. A unit no call can be matched to has no provenance of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.facts.entries import ENTRY_CALLS, all_sites, static_name, static_str


@dataclass(frozen=True)
class PlacedUnit:
    """A unit of the set-up (or of a schedule), as a counter shows it."""
    type: str
    side: str
    label: str
    steps: int
    max_steps: int
    markers: tuple[str, ...] = ()
    provisional: str | None = None  # why the rule that places it is provisional


def setup(engine, scenario: str, state) -> tuple[dict[str, list[PlacedUnit]], dict[str, list[PlacedUnit]]]:
    """(location -> units in stack order, off-map box -> units) at the start of `scenario`."""
    sites = _setup_sites(engine, scenario)
    at_start: dict[str, list[PlacedUnit]] = {}
    boxes: dict[str, list[PlacedUnit]] = {}
    for loc, ids in state.at.items():
        if ids:
            at_start[loc] = [_placed(state.units[i], loc, sites) for i in ids]
    for u in state.units.values():
        if u.loc is None:
            box = u.box or "off map"
            boxes.setdefault(box, []).append(_placed(u, box, sites))
    return at_start, boxes


def _setup_sites(engine, scenario: str) -> list[tuple[tuple, str | None]]:
    """(type, side, location or box, label) each None where play decides it, and the provenance
    note of each `place` the scenario's set-up can make."""
    out = []
    for site, _definite in all_sites(engine):
        if site.origin.kind != "setup" or site.origin.scenario != scenario or site.func not in ENTRY_CALLS:
            continue
        args = site.args
        key = (static_name(args[0], engine) if args else None, static_name(args[1], engine) if len(args) > 1 else None,
               static_str(args[2]) if len(args) > 2 else None, static_str(args[3]) if len(args) > 3 else None)
        note = None
        for decl in (site.origin.decl,) + tuple(site.via):
            prov = decl.header.provenance
            if prov is not None and prov.kind == "provisional":
                note = prov.note or "provisional"
                break
        out.append((key, note))
    return out


def _placed(unit, where: str, sites) -> PlacedUnit:
    want = (unit.type, unit.side, where, unit.label)
    best, best_score = None, -1
    for key, note in sites:
        if any(k is not None and k != w for k, w in zip(key, want)):
            continue
        score = sum(k is not None for k in key)
        if score > best_score:
            best, best_score = note, score
    if best_score < 0:  # moved after it was placed: match on what does not move
        for key, note in sites:
            if any(k is not None and k != w for k, w in zip(key[:2] + key[3:], want[:2] + want[3:])):
                continue
            score = sum(k is not None for k in key)
            if score > best_score:
                best, best_score = note, score
    return PlacedUnit(unit.type, unit.side, unit.label, max(unit.steps, 1), unit.max_steps, tuple(sorted(unit.markers)), best)
