"""Everything the module needs from a game, read once from the rules and the engine.

The exporter is generic: it reads declarations (sides, unit types, markers, terrain, tables, the
sequence of play, variables, dice) and runs the engine to set up the scenario. Nothing here knows a
particular game; names are matched only where the language leaves a choice to the designer (the
NATO symbol of a unit type is guessed from its class and type names, see counters.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from warcodex.dsl import ast
from warcodex.dsl.formatter import format_expr
from warcodex.dsl.model import GameDef
from warcodex.interpreter.values import Entity, RuleError, UnitRef, show

DEFAULT_SIDE_COLORS = ("#5b6b7a", "#b03a2e", "#4f7a28", "#c9a227", "#e07b39", "#3b6ea8", "#7d4e9f", "#8a6d3b")
FACTOR_KEYS = ("attack", "defense", "move")


@dataclass
class SideInfo:
    name: str
    label: str
    color: str


@dataclass
class UnitType:
    name: str
    label: str
    classes: list[str]
    tags: frozenset[str]
    max_steps: int
    values: dict[int, dict[str, Any]]  # steps -> property values at that many steps
    provisional: bool
    flags: list[str]  # true flags worth printing (elite...)

    def factors(self, steps: int) -> str:
        """Attack-defense-move as printed on the counter (only the keys the type has)."""
        vals = self.values.get(steps) or self.values[self.max_steps]
        shown = [vals[k] for k in FACTOR_KEYS if k in vals]
        return "-".join(_num(v) for v in shown)


@dataclass
class PlacedUnit:
    type: str
    side: str
    label: str
    steps: int
    max_steps: int
    markers: tuple[str, ...] = ()


@dataclass
class Reinforcement:
    turn: int | None  # None: conditional, not found by simulation
    unit: PlacedUnit
    location: str | None  # where the rules place it (simulated from the set-up position)
    rule: str  # the trigger's label


@dataclass
class StateVar:
    name: str
    type: str
    initial: str
    values: list[str]  # possible values of a `name` variable (weather...), labels in `labels`
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class SideVar:
    name: str
    type: str
    initial: dict[str, str]


@dataclass
class Step:
    """One step of the flattened sequence of play (a phase, for one side where it applies)."""

    label: str
    side: str | None
    condition: str | None


@dataclass
class GameData:
    game: GameDef
    engine: Any
    title: str
    name: str
    edition: str | None
    version: str
    scenario: str
    scenario_label: str
    first_turn: int
    last_turn: int | None
    sides: list[SideInfo]
    unit_types: list[UnitType]
    markers: list[tuple[str, str]]  # marker entities: (name, label)
    palette: dict[str, list[str]]  # side -> unit type names for its palette tab
    at_start: dict[str, list[PlacedUnit]]  # location -> units (stack order)
    boxes: dict[str, list[PlacedUnit]]  # off-map holding box -> units at start
    reinforcements: list[Reinforcement]
    state_vars: list[StateVar]
    side_vars: list[SideVar]
    dice: list[ast.Dice]
    steps: list[Step]
    board: Any
    warnings: list[str] = field(default_factory=list)

    def side(self, name: str) -> SideInfo:
        return next(s for s in self.sides if s.name == name)

    def unit_type(self, name: str) -> UnitType:
        return next(u for u in self.unit_types if u.name == name)


def _num(v: Any) -> str:
    if isinstance(v, Fraction):
        return str(v) if v.denominator != 1 else str(v.numerator)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Entity):
        return v.label or v.name
    return str(show(v))


def value_text(v: Any) -> str:
    """A runtime value as the text of a VASSAL property."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Entity):
        return v.name
    if isinstance(v, UnitRef):
        return f"unit {v.id}"
    if isinstance(v, (tuple, list)):
        return ",".join(value_text(x) for x in v)
    return _num(v)


def load(game_path: str | Path | GameDef, scenario: str | None = None) -> GameData:
    from warcodex.interpreter.engine import Engine

    if isinstance(game_path, GameDef):
        gamedef = game_path
    else:
        from warcodex.dsl.checker import check_path

        gamedef, diags = check_path(Path(game_path))
        if gamedef is None or diags.errors:
            raise RuleError(f"{game_path} does not check clean ({len(diags.errors)} error(s))")
    if scenario is None:
        if not gamedef.scenarios:
            raise RuleError("the game has no scenario")
        scenario = next(iter(gamedef.scenarios))
    if scenario not in gamedef.scenarios:
        raise RuleError(f"no scenario '{scenario}' (have: {', '.join(gamedef.scenarios) or 'none'})")
    engine = Engine(gamedef, scenario=scenario)  # compiled once, with the scenario's special rules
    sc = engine.scenario(scenario)
    game = engine.game
    g = game.game
    warnings: list[str] = []

    sides = []
    for i, s in enumerate(game.sides):
        color = engine.entities[s.name].props.get("color")
        sides.append(SideInfo(s.name, s.header.title(), color if isinstance(color, str) and color.startswith("#")
                              else DEFAULT_SIDE_COLORS[i % len(DEFAULT_SIDE_COLORS)]))

    unit_types = [_unit_type(engine, u) for u in game.units]
    markers = [(m.name, m.header.title()) for m in game.entities("marker")]

    state = engine.new_game(sc.name)
    at_start: dict[str, list[PlacedUnit]] = {}
    for loc, ids in state.at.items():
        if ids:
            at_start[loc] = [_placed(state.units[i]) for i in ids]
    boxes: dict[str, list[PlacedUnit]] = {}
    for u in state.units.values():
        if u.loc is None:
            boxes.setdefault(u.box or "off map", []).append(_placed(u))

    first = engine.first_turn(state)
    try:
        last: int | None = engine.last_turn(state)
    except RuleError:
        last = None
    reinforcements = _reinforcements(engine, state, first, last, warnings)

    palette = _palette(game, sides, unit_types, at_start, boxes, reinforcements)
    edition = game.prop("edition")
    version = game.prop("version")
    return GameData(
        game=game, engine=engine, title=g.header.title(), name=g.name,
        edition=getattr(edition, "value", None) if edition is not None else None,
        version=str(getattr(version, "value", version)) if version is not None else f"1.0-{engine.fingerprint[:8]}",
        scenario=sc.name, scenario_label=sc.header.title(), first_turn=first, last_turn=last,
        sides=sides, unit_types=unit_types, markers=markers, palette=palette,
        at_start=at_start, boxes=boxes, reinforcements=reinforcements,
        state_vars=_state_vars(engine, state), side_vars=_side_vars(engine, state),
        dice=_dice(game), steps=_steps(engine, state), board=engine.board, warnings=warnings,
    )


def _unit_type(engine, u: ast.Unit) -> UnitType:
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
    return UnitType(u.name, u.header.title(), list(u.classes), ent.tags, max_steps, values, provisional, flags)


def _placed(unit) -> PlacedUnit:
    return PlacedUnit(unit.type, unit.side, unit.label, max(unit.steps, 1), unit.max_steps, tuple(sorted(unit.markers)))


def _reinforcements(engine, state, first: int, last: int | None, warnings: list[str]) -> list[Reinforcement]:
    """Units the scenario's (and the game's) `turn_start` triggers bring in, found by running those
    triggers turn by turn on a copy of the set-up position (nothing moves in between, so a rule
    that depends on play is resolved as if nothing happened). A trigger that cannot run that way
    (it asks a player, or reads something only play sets) is listed from its `place` calls instead,
    without a turn."""
    from warcodex.interpreter.compiler import Frame
    from warcodex.interpreter.context import Context

    handlers = list(engine.scenario_triggers.get(state.scenario, {}).get("turn_start", ())) + \
        list(engine.triggers.get("turn_start", ()))
    if not handlers:
        return []
    sim = state.snapshot()
    ctx = Context(engine, sim, step_limit=200_000)
    out: list[Reinforcement] = []
    failed: dict[int, ast.Trigger] = {}
    end = last if last is not None else first + 20
    for turn in range(first, end + 1):
        sim.position.turn = turn
        for names, when, body, decl in handlers:
            if id(decl) in failed:
                continue
            before = {i: (u.loc, u.box) for i, u in sim.units.items()}
            try:
                fr = Frame(ctx, {})
                if when is not None and not when(fr):
                    continue
                body(fr)
            except Exception as exc:  # noqa: BLE001 - any failure means "cannot simulate this rule"
                failed[id(decl)] = decl
                warnings.append(f"reinforcement rule '{decl.header.title()}' could not be simulated: {exc}")
                continue
            for i, u in sim.units.items():
                was = before.get(i)
                if u.loc is not None and (was is None or was[0] is None):
                    out.append(Reinforcement(turn, _placed(u), u.loc, decl.header.label or "turn start"))
    for decl in failed.values():
        for call in _place_calls(decl.body):
            t, s, label = call
            ut = engine.entities.get(t)
            if ut is None or s not in engine.entities:
                continue
            steps = int(ut.props.get("steps", 1) or 1)
            out.append(Reinforcement(None, PlacedUnit(t, s, label or ut.label or t, steps, steps), None,
                                     decl.header.label or "turn start"))
    return out


def _place_calls(node) -> list[tuple[str, str, str | None]]:
    """Static `place(type, side, loc[, "label"])` calls with literal type and side names."""
    found: list[tuple[str, str, str | None]] = []

    def walk(n) -> None:
        if isinstance(n, ast.Call) and n.func == "place" and len(n.args) >= 2:
            t, s = n.args[0], n.args[1]
            if isinstance(t, ast.Name) and isinstance(s, ast.Name):
                label = n.args[3].value if len(n.args) > 3 and isinstance(n.args[3], ast.Str) else None
                found.append((t.id, s.id, label))
        if isinstance(n, ast.Node):
            for f in type(n).model_fields:
                if f != "span":
                    walk(getattr(n, f))
        elif isinstance(n, (list, tuple)):
            for x in n:
                walk(x)
    walk(node)
    return found


def _palette(game: GameDef, sides, unit_types, at_start, boxes, reinforcements) -> dict[str, list[str]]:
    """Unit types per side: those the scenarios place for that side; a type no rule places for
    anyone (bought or built during play) goes to every side."""
    pairs: set[tuple[str, str]] = set()
    for sc in game.scenarios.values():
        for t, s, _ in _place_calls(sc.setup) + _place_calls(sc.triggers):
            pairs.add((t, s))
    for t in game.triggers:
        for ty, s, _ in _place_calls(t.body):
            pairs.add((ty, s))
    for units in list(at_start.values()) + list(boxes.values()):
        pairs.update((u.type, u.side) for u in units)
    pairs.update((r.unit.type, r.unit.side) for r in reinforcements)
    placed_types = {t for t, _ in pairs}
    out: dict[str, list[str]] = {}
    for s in sides:
        out[s.name] = [u.name for u in unit_types if (u.name, s.name) in pairs or u.name not in placed_types]
    return out


def _state_vars(engine, state) -> list[StateVar]:
    out = []
    for name, decl in engine.vars.items():
        if decl.scope != "var":
            continue
        initial = state.vars.get(name)
        values: list[str] = []
        labels: dict[str, str] = {}
        if decl.type == "name":
            for v in [initial] + _assigned_values(engine.game, name, engine):
                text = value_text(v) if not isinstance(v, str) else v
                if text and text not in values:
                    values.append(text)
            for v in values:
                ent = engine.entities.get(v)
                labels[v] = ent.label if ent is not None and ent.label else v
        out.append(StateVar(name, decl.type, value_text(initial), values, labels))
    return out


def _assigned_values(game: GameDef, var: str, engine, seen_vars: set[str] | None = None) -> list[str]:
    """Names a `name` variable can take: every `set VAR = X` in the rules, where X is a declared
    name, a table lookup (every code of that table) or a conditional of those."""
    found: list[str] = []
    seen_vars = seen_vars if seen_vars is not None else set()
    seen_vars.add(var)
    lets = _let_bindings(game)
    seen_lets: set[str] = set()

    def values_of(e) -> None:
        if isinstance(e, ast.Name):
            decl = game.names.get(e.id)
            if decl is None and e.id in lets and e.id not in seen_lets:  # `let rolled = table[...]`
                seen_lets.add(e.id)
                for bound in lets[e.id]:
                    values_of(bound)
                return
            if isinstance(decl, ast.VarDecl):  # `set previous_weather = weather`: any value of weather
                if e.id not in seen_vars:
                    seen_vars.add(e.id)
                    if decl.default is not None:
                        values_of(decl.default)
                    found.extend(_assigned_values(game, e.id, engine, seen_vars))
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

    def walk(n) -> None:
        if isinstance(n, ast.SetStmt) and isinstance(n.target, ast.Name) and n.target.id == var and n.op == "=":
            values_of(n.value)
        if isinstance(n, ast.Node):
            for f in type(n).model_fields:
                if f != "span":
                    walk(getattr(n, f))
        elif isinstance(n, (list, tuple)):
            for x in n:
                walk(x)

    walk(game.decls)
    walk(list(game.scenarios.values()))
    return found


def _let_bindings(game: GameDef) -> dict[str, list]:
    """Every `let NAME = EXPR` in the rules, by name (flow-insensitive: good enough to list the
    values a variable can take)."""
    out: dict[str, list] = {}

    def walk(n) -> None:
        if isinstance(n, ast.Let):
            out.setdefault(n.name, []).append(n.value)
        if isinstance(n, ast.Node):
            for f in type(n).model_fields:
                if f != "span":
                    walk(getattr(n, f))
        elif isinstance(n, (list, tuple)):
            for x in n:
                walk(x)

    walk(game.decls)
    walk(list(game.scenarios.values()))
    return out


def _side_vars(engine, state) -> list[SideVar]:
    from warcodex.interpreter.context import Context

    ctx = Context(engine, state)
    out = []
    for name, decl in engine.vars.items():
        if decl.scope != "side_var":
            continue
        default = engine._var_default(ctx, name)
        initial = {s.name: value_text(state.side_vars.get(s.name, {}).get(name, default)) for s in engine.game.sides}
        out.append(SideVar(name, decl.type, initial))
    return out


def _dice(game: GameDef) -> list[ast.Dice]:
    """The game's `dice:` first, then every other kind of dice its rules and tables roll."""
    seen: dict[str, ast.Dice] = {}
    value = game.prop("dice")
    if isinstance(value, ast.Name):
        d = _parse_dice(value.id)
        if d is not None:
            seen[d.text()] = d

    def walk(n) -> None:
        if isinstance(n, ast.Dice):
            seen.setdefault(n.text(), n)
        if isinstance(n, ast.Node):
            for f in type(n).model_fields:
                if f != "span":
                    walk(getattr(n, f))
        elif isinstance(n, (list, tuple)):
            for x in n:
                walk(x)

    walk(game.decls)
    walk(list(game.scenarios.values()))
    return list(seen.values())


def _parse_dice(text: str) -> ast.Dice | None:
    import re

    m = re.fullmatch(r"(\d*)d(\d+)", text)
    if not m:
        return None
    return ast.Dice(count=int(m.group(1) or 1), sides=int(m.group(2)))


def _steps(engine, state) -> list[Step]:
    """The sequence of play of one game turn, flattened: one step per phase (per side inside
    player turns), sub-phases as "Phase / Sub-phase"."""
    from warcodex.interpreter.context import Context

    try:
        ops = engine.sequence.program(Context(engine, state.snapshot()))
    except RuleError:
        return []
    steps: list[Step] = []
    stack: list[str] = []
    labels = {s.name: s.header.title() for s in engine.game.sides}
    for op in ops:
        if op.kind == "phase_start":
            stack.append(op.phase.header.title())
            cond = format_expr(op.phase.when) if op.phase.when is not None else None
            steps.append(Step(" / ".join(stack), labels.get(op.side) if op.side else None, cond))
        elif op.kind == "phase_end":
            stack.pop()
    return steps
