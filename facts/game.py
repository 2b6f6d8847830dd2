"""GameFacts: one read-only model of a compiled game and one of its scenarios, assembled once from
the parts of this package and cached with the engine (`facts_of`).

Every exporter and tool reads a game's facts from here instead of inferring them from the rules
itself: sides and alliances, unit types with their owners, the set-up, the reinforcement and
withdrawal schedule, the sequence of play, tables and the rules feeding them, effects charts,
dice, variables and provisional items. Where a fact cannot be inferred with certainty, the model
says so (`Owners.status`, `Movement.certain`, `Movement.conditions`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warcodex.dsl import ast
from warcodex.facts.battles import BattleFacts, battle_facts
from warcodex.facts.cards import DeckFacts, deck_facts
from warcodex.facts.dice import HitRoll, dice_of, hit_rolls
from warcodex.facts.economy import IncomeFacts, incomes
from warcodex.facts.effects import EffectsFacts, effects
from warcodex.facts.owners import Owners, owners
from warcodex.facts.quantities import QuantityFacts, quantity_facts
from warcodex.facts.schedule import Movement, schedule
from warcodex.facts.sequence import SequenceFacts, sequence_facts
from warcodex.facts.setup import PlacedUnit, setup
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
    values: dict[int, dict[str, Any]]  # steps -> property values at that many steps (not its sides)
    flags: list[str]  # true flags (elite...)
    provisional: bool  # the type or one of its values is provisional
    owners: Owners
    decl: ast.Unit
    # (property, steps) -> why it is provisional: a value the rulebook does not print, at the
    # number of steps it is declared for (the full-strength values at max_steps)
    provisional_values: dict[tuple[str, int], str] = field(default_factory=dict)
    # what its counters print, `face: "{command_range}-{move}"` of the type or of its first class
    # that declares one (each `{name}` one of its values); None: the usual attack-defense-move
    face: str | None = None

    @property
    def provisional_note(self) -> str | None:
        """Why the type itself is provisional (a counter the rulebook does not describe)."""
        prov = self.decl.header.provenance
        return (prov.note or "provisional") if prov is not None and prov.kind == "provisional" else None


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
    scenario: str | None  # None: a game without scenarios (its tables and charts only)
    scenario_label: str | None
    first_turn: int
    last_turn: int | None
    last_turn_provisional: str | None  # why the scenario's last turn is provisional (A&A sets no round limit)
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
    sequence: SequenceFacts  # the sequence of play as a tree, triggers, standing rules
    dice: list[ast.Dice]
    variables: list[VariableFacts]
    incomes: list[IncomeFacts]
    decks: list[DeckFacts]  # decks and cards: composition, owners, events, where each starts
    provisional: list[ProvisionalFacts]
    warnings: list[str] = field(default_factory=list)

    # ---------------------------------------------------------------- lookups
    def side(self, name: str) -> SideFacts:
        return next(s for s in self.sides if s.name == name)

    def unit_type(self, name: str) -> UnitTypeFacts:
        return next(u for u in self.unit_types if u.name == name)

    def card(self, name: str):
        return next(c for d in self.decks for c in d.cards if c.name == name)

    @property
    def arrivals(self) -> list[Movement]:
        return [m for m in self.movements if m.kind == "arrival"]

    @property
    def withdrawals(self) -> list[Movement]:
        return [m for m in self.movements if m.kind == "withdrawal"]

    def palette(self, side: str) -> list[str]:
        """The unit types a side's counter tray holds: those it may field (`Owners.may_field`: its
        own, and for every side a type whose owners play decides, bought or built in play)."""
        return [u.name for u in self.unit_types if u.owners.may_field(side)]

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
    def battles(self) -> list[BattleFacts]:
        """The typical battles the game declares (its scenes/ folder), with their odds."""
        return battle_facts(self.engine)

    @property
    def effects(self) -> list[EffectsFacts]:
        return effects(self.engine)

    @property
    def hit_rolls(self) -> list[HitRoll]:
        return hit_rolls(self.engine)

    def quantity(self, name: str) -> QuantityFacts:
        return quantity_facts(self.engine)[name]

    @property
    def turns(self) -> tuple[int, ...]:
        """The scenario's game turns, first to last (empty when it has no last turn)."""
        return tuple(range(self.first_turn, self.last_turn + 1)) if self.last_turn is not None else ()

    def location_label(self, loc: str) -> str:
        """A location as a player finds it: a hex by its number and name (`0305 Millerovo`), an
        area or box by its name."""
        board = self.engine.board
        name = board.attrs(loc).get("name") if loc in board else None
        if not isinstance(name, str) or not name:
            return loc
        return f"{loc} {name}" if board.kind == "hex" and not board.is_box(loc) else name

    @property
    def sections(self) -> dict[str, str]:
        """The rulebook's numbered sections, as the rules' `sections` block lists them: number
        (without the §) -> title. Citations (`§7.3`) name these numbers."""
        return {number: entry.title for number, entry in self.game.sections.items()}


def facts_of(engine, scenario: str | None = None) -> GameFacts:
    """The facts of `scenario` (default: the engine's own scenario, else the first), computed once
    and cached with the engine that plays that scenario."""
    if scenario is None:
        scenario = engine.rules_scenario
    if scenario is None and engine.game.scenarios:
        scenario = next(iter(engine.game.scenarios))
    if scenario is not None:
        engine = engine.for_scenario(scenario)
    cache = engine.derived_cache.setdefault("facts", {})
    if scenario not in cache:
        cache[scenario] = _build(engine, scenario)
    return cache[scenario]


# ==================================================================== assembly
def _build(engine, scenario: str | None) -> GameFacts:
    game = engine.game
    sc = engine.scenario(scenario) if scenario is not None else None
    g = game.game
    state = engine.new_game(sc.name) if sc is not None else None
    first = engine.first_turn(state) if state is not None else 1
    last: int | None = None
    if state is not None:
        try:
            last = engine.last_turn(state)
        except RuleError:
            pass
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
    at_start, boxes = setup(engine, sc.name, state) if sc is not None else ({}, {})
    end = last if last is not None else first + 20
    movements = schedule(engine, sc.name, first, end) if sc is not None else []
    edition = game.prop("edition")
    version = game.prop("version")
    return GameFacts(
        engine=engine, game=game, name=g.name, title=g.header.title(),
        edition=edition.value if isinstance(edition, ast.Str) else None,
        version=str(getattr(version, "value", version)) if version is not None else None,
        fingerprint=engine.fingerprint, scenario=sc.name if sc is not None else None,
        scenario_label=sc.header.title() if sc is not None else None,
        first_turn=first, last_turn=last, last_turn_provisional=_provisional_prop(sc, "last_turn") if sc is not None else None,
        turn_order=tuple(state.turn_order) if state is not None else (),
        sides=sides, alliances=alliances, unit_types=unit_types,
        markers=[(m.name, m.header.title()) for m in game.entities("marker")],
        at_start=at_start, location_markers={loc: tuple(sorted(ms)) for loc, ms in state.loc_markers.items() if ms} if state is not None else {},
        boxes=boxes, movements=movements,
        steps=_steps(engine, state, first, end) if state is not None else [],
        sequence=sequence_facts(engine, scenario, state, first, end),
        dice=dice_of(game), variables=_variables(engine, state), incomes=incomes(engine, state),
        decks=deck_facts(engine, state),
        provisional=[ProvisionalFacts(what, prov.note or "", node) for what, node, prov in game.provisional_items()],
        warnings=warnings)


OWNER_KEYS = ("side", "sides")  # a unit type's declared owners: facts of ownership, not counter values
FACE_KEY = "face"  # how a unit type's counters are printed: not a value of the type


def _unit_type(engine, u: ast.Unit, own: Owners) -> UnitTypeFacts:
    ent = engine.entities[u.name]
    props = {k: v for k, v in ent.props.items() if not k.startswith("_") and k not in OWNER_KEYS and k != FACE_KEY}
    max_steps = int(props.get("steps", 1) or 1)
    values: dict[int, dict[str, Any]] = {}
    for s in range(max_steps, 0, -1):
        vals = dict(props)
        vals.update(ent.props.get("_by_steps", {}).get(s, {}))
        values[s] = vals
    marked: dict[tuple[str, int], str] = {}
    for p in u.props:
        if p.provenance is not None and p.provenance.kind == "provisional":
            marked[(p.key, max_steps)] = p.provenance.note or "provisional"
    for sv in u.step_values:
        for p in sv.props:
            if p.provenance is not None and p.provenance.kind == "provisional":
                marked.setdefault((p.key, sv.steps), p.provenance.note or "provisional")
    provisional = (u.header.provenance is not None and u.header.provenance.kind == "provisional") or bool(marked)
    flags = [k for k, v in props.items() if v is True]
    face = ent.props.get(FACE_KEY)
    if face is None:
        face = next((engine.entities[c].props[FACE_KEY] for c in u.classes
                     if c in engine.entities and FACE_KEY in engine.entities[c].props), None)
    return UnitTypeFacts(u.name, u.header.title(), list(u.classes), ent.tags, max_steps, values, flags, provisional, own, u,
                         marked, face)


def _provisional_prop(sc: ast.Scenario, key: str) -> str | None:
    prov = next((p.provenance for p in sc.props if p.key == key and p.provenance is not None), None)
    return (prov.note or "provisional") if prov is not None and prov.kind == "provisional" else None


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


def _variables(engine, state) -> list[VariableFacts]:
    from warcodex.interpreter.context import Context

    if state is None:
        return []
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
