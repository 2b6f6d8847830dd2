"""GameFacts: one read-only model of a compiled game and one of its scenarios, assembled once from
the parts of this package and cached with the engine (`facts_of`).

Every exporter and tool reads a game's facts from here instead of inferring them from the rules
itself: sides and alliances, unit types with their owners, the set-up, the reinforcement and
withdrawal schedule, the sequence of play, tables and the rules feeding them, effects charts,
dice, variables and provisional items. Where a fact cannot be inferred with certainty, the model
says so (`Owners.status`, `Movement.certain`, `Movement.conditions`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from warcodex.dsl import ast
from warcodex.facts.effects import EffectsFacts, effects
from warcodex.facts.owners import Owners, owners
from warcodex.facts.schedule import Movement, schedule
from warcodex.facts.tables import TableFacts, table_facts
from warcodex.facts.walk import walk
from warcodex.interpreter.values import Entity, RuleError

DEFAULT_SIDE_COLORS = ("#5b6b7a", "#b03a2e", "#4f7a28", "#c9a227", "#e07b39", "#3b6ea8", "#7d4e9f", "#8a6d3b")


@dataclass(frozen=True)
class SideFacts:
    name: str
    label: str
    color: str  # the side's `color:`, else one of a fixed palette by declaration order
    alliance: str | None
    decl: ast.Entity


@dataclass(frozen=True)
class AllianceFacts:
    name: str
    label: str
    members: tuple[str, ...]


@dataclass
class UnitTypeFacts:
    name: str
    label: str
    classes: list[str]
    tags: frozenset[str]
    max_steps: int
    values: dict[int, dict[str, Any]]  # steps -> property values at that many steps
    flags: list[str]  # true flags (elite...)
    provisional: bool  # the type or one of its values is provisional
    owners: Owners
    decl: ast.Unit


@dataclass(frozen=True)
class PlacedUnit:
    """A unit of the set-up (or of a schedule), as a counter shows it."""
    type: str
    side: str
    label: str
    steps: int
    max_steps: int
    markers: tuple[str, ...] = ()


@dataclass(frozen=True)
class PhaseStep:
    """One phase of a game turn, for one side inside player turns; sub-phases as a path.

    The steps of all the scenario's turns, in sequence order: a phase some turns leave out (a
    condition on the turn, a player turn a scenario's first turn skips) is a step with the turns
    it is played on."""
    name: str
    labels: tuple[str, ...]  # the phase's label and its enclosing phases' ("Combat Phase", "Attack")
    side: str | None
    when: ast.Expr | None  # the phase's condition, if any (`turn >= 17`)
    turns: tuple[int, ...] | None  # the scenario's turns on which it can be played; None: every turn
    decl: ast.Phase
    # turns on which whether it is played depends on play (its condition reads the game's state,
    # `when interim_turn_pending`): it may be played, a player's sequence says "if applicable"
    maybe_turns: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        """The phase as a player reads it: its label (with the enclosing phases'), no condition."""
        return " / ".join(self.labels)


@dataclass(frozen=True)
class VariableFacts:
    name: str
    scope: str  # var, side_var, unit_var, location_var
    type: str
    hidden: bool
    initial: Any  # var: the value at set-up; side_var: {side: value}; others: the default
    values: tuple[str, ...] = ()  # a `name` variable's possible values (the weather), in rule order
    decl: ast.VarDecl | None = None


@dataclass(frozen=True)
class ProvisionalFacts:
    what: str
    note: str
    node: ast.Node


@dataclass
class GameFacts:
    engine: Any
    game: Any  # the GameDef as the scenario's rules change it
    name: str
    title: str
    edition: str | None
    version: str | None
    fingerprint: str
    scenario: str
    scenario_label: str
    first_turn: int
    last_turn: int | None
    turn_order: tuple[str, ...]
    sides: list[SideFacts]
    alliances: list[AllianceFacts]
    unit_types: list[UnitTypeFacts]
    markers: list[tuple[str, str]]  # (name, label)
    at_start: dict[str, list[PlacedUnit]]  # location -> units, in stack order
    location_markers: dict[str, tuple[str, ...]]  # location -> the markers the set-up puts on it (control...)
    boxes: dict[str, list[PlacedUnit]]  # off-map box -> units at the start
    movements: list[Movement]  # arrivals and withdrawals, in turn order
    steps: list[PhaseStep]
    dice: list[ast.Dice]
    variables: list[VariableFacts]
    provisional: list[ProvisionalFacts]
    warnings: list[str] = field(default_factory=list)

    # ---------------------------------------------------------------- lookups
    def side(self, name: str) -> SideFacts:
        return next(s for s in self.sides if s.name == name)

    def unit_type(self, name: str) -> UnitTypeFacts:
        return next(u for u in self.unit_types if u.name == name)

    @property
    def arrivals(self) -> list[Movement]:
        return [m for m in self.movements if m.kind == "arrival"]

    @property
    def withdrawals(self) -> list[Movement]:
        return [m for m in self.movements if m.kind == "withdrawal"]

    def palette(self, side: str) -> list[str]:
        """The unit types a side's counter tray holds: those it owns; a type whose owners cannot
        be known (only bought or built in play) for every side."""
        return [u.name for u in self.unit_types if side in u.owners.sides or not u.owners.sides]

    # computed on first use: they need more of the engine than the rest
    @property
    def box_names(self) -> list[str]:
        """Every off-map box the rules name: the set-up's, then each `place_in_box` and `to_box`
        whose box is written in the rules (a box computed in play is not known here)."""
        from warcodex.facts.entries import all_sites, static_str

        names = list(self.boxes)
        for site, _definite in all_sites(self.engine):
            index = {"place_in_box": 2, "to_box": 1}.get(site.func)
            if index is not None and len(site.args) > index:
                box = static_str(site.args[index])
                if box and box not in names:
                    names.append(box)
        return names

    @property
    def tables(self) -> list[TableFacts]:
        return table_facts(self.engine)

    @property
    def effects(self) -> list[EffectsFacts]:
        return effects(self.engine)


def facts_of(engine, scenario: str | None = None) -> GameFacts:
    """The facts of `scenario` (default: the engine's own scenario, else the first), computed once
    and cached with the engine that plays that scenario."""
    if scenario is None:
        scenario = engine.rules_scenario
    if scenario is None:
        if not engine.game.scenarios:
            raise RuleError("the game has no scenario")
        scenario = next(iter(engine.game.scenarios))
    engine = engine.for_scenario(scenario)
    cache = engine.derived_cache.setdefault("facts", {})
    if scenario not in cache:
        cache[scenario] = _build(engine, scenario)
    return cache[scenario]


# ==================================================================== assembly
def _build(engine, scenario: str) -> GameFacts:
    game = engine.game
    sc = engine.scenario(scenario)
    g = game.game
    state = engine.new_game(sc.name)
    first = engine.first_turn(state)
    try:
        last: int | None = engine.last_turn(state)
    except RuleError:
        last = None
    warnings: list[str] = []
    alliance_of = {}
    alliances = []
    for al in game.entities("alliance"):
        members = engine.entities[al.name].props.get("members", ())
        names = tuple(m.name for m in (members if isinstance(members, tuple) else (members,)) if isinstance(m, Entity))
        alliances.append(AllianceFacts(al.name, al.header.title(), names))
        for m in names:
            alliance_of[m] = al.name
    sides = []
    for i, s in enumerate(game.sides):
        color = engine.entities[s.name].props.get("color")
        sides.append(SideFacts(s.name, s.header.title(),
                               color if isinstance(color, str) and color.startswith("#") else DEFAULT_SIDE_COLORS[i % len(DEFAULT_SIDE_COLORS)],
                               alliance_of.get(s.name), s))
    own = owners(engine)
    unit_types = [_unit_type(engine, u, own[u.name]) for u in game.units]
    for ut in unit_types:
        warnings += [f"unit type '{ut.name}': {c}" for c in ut.owners.conflicts]
    at_start: dict[str, list[PlacedUnit]] = {}
    for loc, ids in state.at.items():
        if ids:
            at_start[loc] = [_placed(state.units[i]) for i in ids]
    boxes: dict[str, list[PlacedUnit]] = {}
    for u in state.units.values():
        if u.loc is None:
            boxes.setdefault(u.box or "off map", []).append(_placed(u))
    end = last if last is not None else first + 20
    movements = schedule(engine, sc.name, first, end)
    edition = game.prop("edition")
    version = game.prop("version")
    return GameFacts(
        engine=engine, game=game, name=g.name, title=g.header.title(),
        edition=edition.value if isinstance(edition, ast.Str) else None,
        version=str(getattr(version, "value", version)) if version is not None else None,
        fingerprint=engine.fingerprint, scenario=sc.name, scenario_label=sc.header.title(),
        first_turn=first, last_turn=last, turn_order=tuple(state.turn_order),
        sides=sides, alliances=alliances, unit_types=unit_types,
        markers=[(m.name, m.header.title()) for m in game.entities("marker")],
        at_start=at_start, location_markers={loc: tuple(sorted(ms)) for loc, ms in state.loc_markers.items() if ms},
        boxes=boxes, movements=movements, steps=_steps(engine, state, first, end),
        dice=_dice(game), variables=_variables(engine, state),
        provisional=[ProvisionalFacts(what, prov.note or "", node) for what, node, prov in game.provisional_items()],
        warnings=warnings)


def _unit_type(engine, u: ast.Unit, own: Owners) -> UnitTypeFacts:
    ent = engine.entities[u.name]
    props = {k: v for k, v in ent.props.items() if not k.startswith("_")}
    max_steps = int(props.get("steps", 1) or 1)
    values: dict[int, dict[str, Any]] = {}
    for s in range(max_steps, 0, -1):
        vals = dict(props)
        vals.update(ent.props.get("_by_steps", {}).get(s, {}))
        values[s] = vals
    provisional = (u.header.provenance is not None and u.header.provenance.kind == "provisional") or any(
        p.provenance is not None and p.provenance.kind == "provisional" for p in u.props)
    flags = [k for k, v in props.items() if v is True]
    return UnitTypeFacts(u.name, u.header.title(), list(u.classes), ent.tags, max_steps, values, flags, provisional, own, u)


def _placed(unit) -> PlacedUnit:
    return PlacedUnit(unit.type, unit.side, unit.label, max(unit.steps, 1), unit.max_steps, tuple(sorted(unit.markers)))


def _steps(engine, state, first: int, last: int) -> list[PhaseStep]:
    """The phases of every turn from `first` to `last`, merged in sequence order. Each turn's
    sequence is expanded on the set-up position with that turn number (the player turns a rule
    gives, `player_turns player_turn_order()`), and each phase's condition is evaluated for that
    turn and side by the partial evaluator: false (not played), true, or depending on play."""
    from warcodex.facts.partial import Partial, truth
    from warcodex.interpreter.context import Context

    Key = tuple  # (phase name, side, labels): one step
    order: list[Key] = []  # the merged sequence
    played: dict[Key, dict[int, bool]] = {}  # step -> turn -> certainly played (False: maybe)
    first_seen: dict[Key, tuple] = {}
    for t in range(first, last + 1):
        snapshot = state.snapshot()
        snapshot.position.turn = t
        try:
            ops = engine.sequence.program(Context(engine, snapshot))
        except RuleError:
            if t == first:
                return []
            continue
        turn_keys: list[Key] = []
        stack: list[tuple[str, bool | None]] = []  # (label, played) of the open phases
        for op in ops:
            if op.kind == "phase_start":
                outer = stack[-1][1] if stack else True
                here = True if op.phase.when is None else truth(
                    Partial(engine, turn=t, scenario=state.scenario, active=op.side).ev(op.phase.when))
                now = False if outer is False or here is False else (True if outer is True and here is True else None)
                stack.append((op.phase.header.title(), now))
                key = (op.phase.name, op.side, tuple(label for label, _ in stack))
                first_seen.setdefault(key, (op, key[2]))
                turn_keys.append(key)
                if now is not False:
                    played.setdefault(key, {})[t] = now is True
            elif op.kind == "phase_end":
                stack.pop()
        _merge(order, turn_keys)
    span = set(range(first, last + 1))
    steps = []
    for key in order:
        op, labels = first_seen[key]
        on = played.get(key, {})
        turns = None if set(on) == span else tuple(sorted(on))
        steps.append(PhaseStep(key[0], labels, key[1], op.phase.when, turns, op.phase,
                               tuple(sorted(t for t, sure in on.items() if not sure))))
    return steps


def _merge(order: list, seq: list) -> None:
    """Add the items of `seq` missing from `order`, each right after the item before it in `seq`
    (at the front if it is the first), so both sequences' orders hold where they can."""
    for i, item in enumerate(seq):
        if item in order:
            continue
        if i == 0:
            order.insert(0, item)
        else:
            order.insert(order.index(seq[i - 1]) + 1, item)


def _dice(game) -> list[ast.Dice]:
    """The game's `dice:` first, then every other kind of dice its rules and tables roll."""
    seen: dict[str, ast.Dice] = {}
    value = game.prop("dice")
    if isinstance(value, ast.Name):
        m = re.fullmatch(r"(\d*)d(\d+)", value.id)
        if m:
            d = ast.Dice(count=int(m.group(1) or 1), sides=int(m.group(2)))
            seen[d.text()] = d
    for n in walk(list(game.decls) + list(game.scenarios.values())):
        if isinstance(n, ast.Dice):
            seen.setdefault(n.text(), n)
    return list(seen.values())


def _variables(engine, state) -> list[VariableFacts]:
    from warcodex.interpreter.context import Context

    ctx = Context(engine, state)
    out = []
    for name, decl in engine.vars.items():
        if decl.scope == "var":
            initial = state.vars.get(name)
            values: tuple[str, ...] = ()
            if decl.type == "name":
                found: list[str] = []
                for v in [initial] + _assigned_values(engine.game, name):
                    text = v.name if isinstance(v, Entity) else v
                    if isinstance(text, str) and text and text not in found:
                        found.append(text)
                values = tuple(found)
            out.append(VariableFacts(name, "var", decl.type, decl.hidden, initial, values, decl))
        elif decl.scope == "side_var":
            initial = {s.name: engine.attribute(ctx, s, name, None) for s in engine.side_entities}
            out.append(VariableFacts(name, "side_var", decl.type, decl.hidden, initial, (), decl))
        else:
            default = None
            if decl.default is not None:
                from warcodex.facts.partial import constant

                default = constant(engine, decl.default)
            out.append(VariableFacts(name, decl.scope, decl.type, decl.hidden, default, (), decl))
    return out


def _assigned_values(game, var: str, seen_vars: set[str] | None = None) -> list[str]:
    """Names a `name` variable can take: every `set VAR = X` in the rules, where X is a declared
    name, a table lookup (every code of that table), a conditional of those, or another variable
    (any of its values); `let` names are followed back (flow-insensitively)."""
    found: list[str] = []
    seen_vars = seen_vars if seen_vars is not None else set()
    seen_vars.add(var)
    everything = list(game.decls) + list(game.scenarios.values())
    lets: dict[str, list] = {}
    for n in walk(everything):
        if isinstance(n, ast.Let):
            lets.setdefault(n.name, []).append(n.value)
    seen_lets: set[str] = set()

    def values_of(e) -> None:
        if isinstance(e, ast.Name):
            decl = game.names.get(e.id)
            if decl is None and e.id in lets and e.id not in seen_lets:
                seen_lets.add(e.id)
                for bound in lets[e.id]:
                    values_of(bound)
                return
            if isinstance(decl, ast.VarDecl):
                if e.id not in seen_vars:
                    seen_vars.add(e.id)
                    if decl.default is not None:
                        values_of(decl.default)
                    found.extend(_assigned_values(game, e.id, seen_vars))
            elif decl is not None:
                found.append(e.id)
        elif isinstance(e, ast.Index) and isinstance(e.obj, ast.Name):
            table = game.names.get(e.obj.id)
            if isinstance(table, ast.Table):
                for row in table.table_rows:
                    for cell in row.cells:
                        for code in cell.codes:
                            if code.number is None and code.name in game.names:
                                found.append(code.name)
        elif isinstance(e, ast.Cond):
            values_of(e.then)
            values_of(e.orelse)

    for n in walk(everything):
        if isinstance(n, ast.SetStmt) and isinstance(n.target, ast.Name) and n.target.id == var and n.op == "=":
            values_of(n.value)
    return found
