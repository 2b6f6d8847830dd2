"""The Engine: a checked game compiled once, ready to set up and run games.

It owns the declared names as runtime `Entity`s, the compiled quantities, functions, procedures,
results, tables, movement modes, actions, triggers and invariants, and the board. It knows no
particular game: everything game-specific comes from the rules files.
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path
from typing import Any

from warcodex.dsl import ast
from warcodex.dsl.checker import resolve_code
from warcodex.dsl.limits import MAX_UNITS
from warcodex.dsl.model import GameDef
from warcodex.dsl.stdlib import BUILTINS, CONSTANTS, UNIT_FIELDS
from warcodex.interpreter.actions import CompiledAction
from warcodex.interpreter.builtins import IMPLEMENTATIONS
from warcodex.interpreter.compiler import Compiler, Frame, read_global
from warcodex.interpreter.bounds import counted_rules
from warcodex.interpreter.dependencies import DependencyAnalysis
from warcodex.interpreter.reads import EVERYTHING, ReadAnalysis
from warcodex.interpreter.movement import MovementMode
from warcodex.interpreter.state import GameState
from warcodex.interpreter.tables import CompiledTable
from warcodex.interpreter.values import CellValue, Code, Derivation, Entity, Odds, RuleError, UnitRef, show

ENTITY_DECLS = (ast.Entity, ast.Unit, ast.Result, ast.Table, ast.Movement, ast.Card, ast.Deck, ast.Action,
                ast.Procedure, ast.Quantity, ast.Function)


EVALUATORS = ("generated", "reference")


def default_evaluator() -> str:
    """How rules run unless said otherwise: generated Python (`generated.py`), or the closure
    compiler kept as the reference it is tested against (`WARCODEX_EVALUATOR=reference`)."""
    value = os.environ.get("WARCODEX_EVALUATOR") or "generated"
    if value not in EVALUATORS:
        raise RuleError(f"WARCODEX_EVALUATOR must be one of {', '.join(EVALUATORS)}, not '{value}'")
    return value


class Engine:
    def __init__(self, game: GameDef, board=None, scenario: str | None = None, evaluator: str | None = None) -> None:
        """Compile `game`; with `scenario`, the rules as that scenario's special rules change them.
        `evaluator`: "generated" (rules compiled to Python source, the default) or "reference"
        (the closure compiler)."""
        self.evaluator = evaluator or default_evaluator()
        if self.evaluator not in EVALUATORS:
            raise ValueError(f"unknown evaluator '{self.evaluator}' ({', '.join(EVALUATORS)})")
        self.base_game = game
        if scenario is not None and scenario in game.scenarios:
            game = game.for_scenario(scenario)
        self.rules_scenario = scenario
        self._derived: dict[str, "Engine"] = {}
        self.game = game
        self.board = board if board is not None else load_board(game)
        self.fingerprint = _fingerprint(game)
        self._locations_with: dict[str, tuple[str, ...]] = {}
        # the closure compiler evaluates constant data (properties, table cells) once, and is the
        # reference the generated code is tested against; `compiler` compiles the rules
        self.reference = Compiler(self)
        self.entities: dict[str, Entity] = {}
        self.vars: dict[str, ast.VarDecl] = {}
        self._build_entities()
        # hidden information: unit_vars and side_vars only their owner may observe
        self.hidden_vars = frozenset(n for n, d in self.vars.items() if d.hidden)
        # `per PROCEDURE`: the variables each call of a procedure has for itself; `bookkeeping`:
        # variables whose assignments explanations do not show (docs/language.md section 7)
        self.procedure_vars: dict[str, tuple[str, ...]] = {}
        for n, d in self.vars.items():
            if d.per is not None:
                self.procedure_vars[d.per] = self.procedure_vars.get(d.per, ()) + (n,)
        self.bookkeeping_vars = frozenset(n for n, d in self.vars.items() if d.bookkeeping)
        self.side_entities = tuple(self.entities[s.name] for s in game.sides)
        self._alliance_of = self._alliances()
        self._enemies: dict = {}
        self._allies: dict = {}
        self._cell_cache: dict = {}
        self.tables = {t.name: CompiledTable(t, self._resolve_cell) for t in game.tables}
        self.deps = DependencyAnalysis(game)
        # the rules that count a call level and a step when entered (bounds.py)
        self.counted = counted_rules(game)
        # rules the engine makes of the game's own (an invariant's element: invariants.py), by name
        from warcodex.interpreter.invariants import element_rule

        self.synthetic_rules = {r.name: r for r in map(element_rule, game.invariants.values()) if r is not None}
        # what each rule reads, and where, and the plans of the memos built from it (memo.py)
        self.reads = ReadAnalysis(game)
        self.memo_plans: list = []
        self.static_cache: dict = {}  # values that depend only on the board, unit types and globals
        # what other layers compute once from these compiled rules (the facts model), kept as long
        # as the engine and dropped with it; the engine never reads it
        self.derived_cache: dict = {}
        self._defaults: dict = {}  # compiled default values of variables
        if self.evaluator == "generated":
            from warcodex.interpreter.generated import GeneratedCompiler

            self.compiler = GeneratedCompiler(self)
        else:
            self.compiler = self.reference
        # registries first, filled in place: rules call each other in any order (late binding)
        self.quantities: dict = {}
        self.functions: dict = {}
        self.procedures: dict = {}
        for q in game.of_kind(ast.Quantity):
            self.quantities[q.name] = self.compiler.quantity(q)
        for f in game.of_kind(ast.Function):
            self.functions[f.name] = self.compiler.function(f)
        for p in game.of_kind(ast.Procedure):
            self.procedures[p.name] = self.compiler.procedure(p)
        self.modes = {m.name: MovementMode(self.compiler, m, self.entities[m.name]) for m in game.of_kind(ast.Movement)}
        self.results = {r.name: self._compile_result(r) for r in game.of_kind(ast.Result)}
        self.actions = {a.name: CompiledAction(self.compiler, a) for a in game.of_kind(ast.Action)}
        self.triggers = self._compile_triggers(game.triggers)
        self.scenario_triggers = {name: self._compile_triggers(s.triggers) for name, s in game.scenarios.items()}
        self._handlers: dict[tuple, tuple] = {}  # (event, scenario) -> the triggers `fire` runs
        from warcodex.interpreter.cards import Cards
        from warcodex.interpreter.sequence import TurnSequence

        self.cards = Cards(self)

        self.sequence = TurnSequence(self)
        self.invariants = self._compile_invariants()
        from warcodex.interpreter.evaluation import compile_evaluation

        self.evaluations = {name: compile_evaluation(self, ev) for name, ev in game.evaluations.items()}
        for name, decl in self.vars.items():  # compiled now, so that they are cached with the rest
            if decl.default is None:
                continue
            if isinstance(decl.default, _LITERALS) or (isinstance(decl.default, ast.Name) and decl.default.id in self.entities
                                                        and self.entities[decl.default.id].kind != "option"):
                # a literal or a declared name: the same value every time it is read
                self._defaults[name] = _Constant(self.reference.expr(decl.default, frozenset())(Frame(None)))
            else:
                self._defaults[name] = self.compiler.expr(decl.default, frozenset())
        if self.compiler is not self.reference:
            self.compiler.finish()  # the generated code is complete: cache it

    # ============================================================ names
    def _build_entities(self) -> None:
        for decl in self.game.names.values():
            if isinstance(decl, ast.VarDecl):
                self.vars[decl.name] = decl
                continue
            kind = getattr(decl, "kind", None) or type(decl).__name__.lower()
            ent = Entity(kind, decl.name, decl, decl.header.label)
            self.entities[decl.name] = ent
        # properties and tags need every entity to exist first (a property may name another)
        for ent in self.entities.values():
            decl = ent.decl
            # only data declarations carry constant properties; movement modes and actions
            # have rule expressions in theirs, compiled elsewhere
            props = decl.props if isinstance(decl, (ast.Entity, ast.Unit, ast.Card, ast.Deck)) else []
            tags = {ent.name}
            fr = Frame(None, {})
            for p in props:
                if p.value is None:
                    ent.props[p.key] = True
                    tags.add(p.key)
                else:
                    ent.props[p.key] = self.reference.expr(p.value, frozenset())(fr)
                    if ent.props[p.key] is True:
                        tags.add(p.key)
            if isinstance(decl, ast.Unit):
                tags.update(decl.classes)
                for cls in decl.classes:
                    parent = self.game.names.get(cls)
                    if parent is not None and getattr(parent, "props", None):
                        tags.update(p.key for p in parent.props if p.value is None)
                ent.props.setdefault("steps", 1)
                ent.props["_by_steps"] = {
                    sv.steps: {p.key: (True if p.value is None else self.reference.expr(p.value, frozenset())(fr)) for p in sv.props}
                    for sv in decl.step_values
                }
            ent.tags = frozenset(tags)

    def _alliances(self) -> dict[str, str]:
        alliance_of = {}
        for al in self.game.entities("alliance"):
            members = self.entities[al.name].props.get("members", ())
            for m in members if isinstance(members, tuple) else (members,):
                if isinstance(m, Entity):
                    alliance_of[m.name] = al.name
        return alliance_of

    def alliance_of(self, side: str) -> str | None:
        """The name of the alliance `side` belongs to, or None."""
        return self._alliance_of.get(side)

    def enemies_of(self, side: Entity) -> tuple[Entity, ...]:
        found = self._enemies.get(side.name)
        if found is None:  # alliances are fixed for the game: found once per side
            mine = self._alliance_of.get(side.name, side.name)
            found = self._enemies[side.name] = tuple(
                s for s in self.side_entities if self._alliance_of.get(s.name, s.name) != mine)
        return found

    def allies_of(self, side: Entity) -> tuple[Entity, ...]:
        found = self._allies.get(side.name)
        if found is None:
            mine = self._alliance_of.get(side.name, side.name)
            found = self._allies[side.name] = tuple(
                s for s in self.side_entities if self._alliance_of.get(s.name, s.name) == mine)
        return found

    def global_name(self, name: str, span):
        """What a global name is, as (kind, value): ("constant", None) for the language's
        constants (turn, active...), ("var", None) a global variable, ("option", None) an option,
        ("entity", Entity) any other declared name, ("phase", None) a phase's name (its value as
        `phase` reads it: `phase == noncombat`), ("cell", CellValue) a result code with its number
        (`DR2`, as a table cell holds it); None if the name is not global. Both compilers resolve
        names through here."""
        if name in CONSTANTS:
            return ("constant", None)
        if name in self.vars:
            decl = self.vars[name]
            if decl.scope == "var":
                return ("var", None)
            raise RuleError(f"'{name}' is a {decl.scope}: read it from its owner, e.g. x.{name}", span)
        ent = self.entities.get(name)
        if ent is not None:
            if ent.kind == "option":
                return ("option", None)
            return ("entity", ent)
        if name in self.phase_names():
            return ("phase", None)
        resolved = resolve_code(self.game, name)
        if resolved is not None:  # `DL1`, `DR2`: a result code with its number, as a table cell holds it
            decl, args = resolved
            return ("cell", CellValue((Code(self.entities[decl.name], tuple(a.value for a in args)),)))
        return None

    def phase_names(self) -> frozenset:
        """The names of the declared phases (asked of the turn sequence's declaration: names are
        resolved while the rules compile, before the `TurnSequence` itself exists)."""
        names = getattr(self, "_phase_name_set", None)
        if names is None:
            from warcodex.interpreter.sequence import declared_phases

            names = self._phase_name_set = frozenset(p.name for p in declared_phases(self.game.sequence))
        return names

    def observation(self, state, side: str) -> dict:
        """What `side` may observe of the state: everything, except the hidden variables of the
        other sides' units and of the other sides (shown as "hidden"), the cards in the other
        sides' hands and the order of the draw piles (shown as as many "hidden"). The state itself
        stays complete; an agent that reads the game should read this view."""
        from warcodex.interpreter.saves import state_to_data

        data = state_to_data(self, state).model_dump()
        data.pop("rng", None)
        for u in data["units"]:
            if u["side"] != side:
                for name in self.hidden_vars & set(u["vars"]):
                    u["vars"][name] = "hidden"
        for s, values in data["side_vars"].items():
            if s != side:
                for name in self.hidden_vars & set(values):
                    values[name] = "hidden"
        self.cards.observe(data, side)
        if "_hidden_stacks" not in self.__dict__:  # the game's setting, read once
            self._hidden_stacks = bool(self._game_prop("hidden_stacks"))
        if self._hidden_stacks:
            self._hide_stacks(state, data, side)
        return data

    # what a side may not see of a unit under the top of an enemy stack (its side and place stay)
    _STACK_HIDDEN = ("type", "label", "steps", "max_steps", "markers", "vars")

    def _hide_stacks(self, state, data: dict, side: str) -> None:
        """`hidden_stacks: true` (a game's fog of war): a side sees only the top unit of an enemy
        stack; the units under it show their side and location, everything else "hidden"."""
        enemies = {e.name for e in self.enemies_of(self.entities[side])}
        under = {uid for ids in state.at.values() if len(ids) > 1 for uid in ids[:-1]
                 if state.units[uid].side in enemies}
        for u in data["units"]:
            if u["id"] in under:
                u.update({k: "hidden" for k in self._STACK_HIDDEN})

    def hidden_from(self, owners) -> list[str]:
        """The sides that may not observe information owned by `owners` (their enemies)."""
        out = set()
        for o in owners:
            if o is not None and o in self.entities:
                out |= {e.name for e in self.enemies_of(self.entities[o])}
        return sorted(out)

    def global_value(self, ctx, kind: str):
        """The current value of a global kind of state (reads.py): a variable or option, the turn,
        phase, active side or scenario, or a derived global's value (`fn:winter`)."""
        if kind.startswith("fn:"):
            name = kind[3:]
            registry = self.functions if name in self.functions else self.quantities
            return registry[name](ctx, (), None)
        return read_global(ctx.state, kind[4:] if kind.startswith("var:") else kind)

    def new_memos(self):
        """The memos of one game's rules (memo.py), on the engine's layout (made once): the
        plans of the generated code, and the derived globals they read with the way to evaluate
        them."""
        from warcodex.interpreter.memo import Layout, Memos

        layout = self.__dict__.get("_memo_layout")
        if layout is None or layout.plans is not self.memo_plans or len(layout.plans) != layout.size:
            derived = {}
            if hasattr(self.compiler, "plain"):
                for name, kinds in self.reads.derived.items():
                    decl = self.game.names[name]
                    if not self.deps.reads_hidden(decl) and EVERYTHING not in kinds:
                        derived[name] = (kinds, self.compiler.plain(name))
            layout = self._memo_layout = Layout(self.memo_plans, self.board, derived)
        return Memos(layout)

    def var_decl(self, name: str) -> ast.VarDecl | None:
        return self.vars.get(name)

    def callable(self, name: str):
        decl = self.game.names.get(name)
        registry = {ast.Quantity: self.quantities, ast.Function: self.functions, ast.Procedure: self.procedures}.get(type(decl))
        if registry is not None:
            def late(ctx, args, span, registry=registry):
                return registry[name](ctx, args, span)
            return (type(decl).__name__.lower(), late)
        if name in BUILTINS:
            return ("builtin", IMPLEMENTATIONS[name])
        return None

    def coercer(self, type_name: str):
        """How a value is stored in a variable of a type: a one-code table cell stands for its
        result name or number in `name` and `int` variables."""
        if type_name in ("name", "int"):
            return single_value
        return _same

    # ============================================================ values
    def unit_name(self, ctx, u: UnitRef) -> str:
        """A unit as explanations and logs name it: its label, its id and where it is, so two
        "Rifle division (soviet)" are told apart: `Rifle division #5 (soviet, 0805)`."""
        unit = ctx.state.units.get(u.id)
        if unit is None:
            return str(u)
        where = f", {unit.loc}" if unit.loc is not None else (f", box {unit.box}" if unit.box else "")
        return f"{unit.label} #{unit.id} ({unit.side}{where})"

    def describe(self, ctx, value) -> str:
        if isinstance(value, UnitRef):
            return self.unit_name(ctx, value)
        if isinstance(value, tuple):
            return ", ".join(self.describe(ctx, v) for v in value) or "none"
        if type(value) is Entity and value.kind == "card":
            return value.label or value.name  # "05 Experienced commanders / Cavalry raid", not "c05"
        return str(show(value)) if value is not None else "none"

    def unit_prop(self, unit, name: str):
        ent = self.entities[unit.type]
        by_steps = ent.props["_by_steps"].get(unit.steps)
        if by_steps is not None and name in by_steps:
            return by_steps[name]
        return ent.props.get(name)

    def attribute(self, ctx, obj, name: str, span):
        if type(obj) is Entity and not (obj.kind == "side" and name in self.vars):  # terrain(h).move_cost...
            if name in obj.props:
                return obj.props[name]
            if name == "name":
                return obj.name
            if name == "label":
                return obj.label
            return None
        if isinstance(obj, UnitRef):
            unit = ctx.state.units.get(obj.id)
            if unit is None:
                raise RuleError(f"no unit {obj}", span)
            if name == "loc":
                return unit.loc
            if name == "side":
                return self.entities[unit.side]
            if name == "steps":
                return unit.steps
            if name in self.vars and self.vars[name].scope == "unit_var":
                if name in self.hidden_vars:
                    ctx.saw_hidden(unit.side)
                v = unit.var(name, _MISSING)
                return self._var_default(ctx, name) if v is _MISSING else v
            if name == "type":
                return self.entities[unit.type]
            if name == "max_steps":
                return unit.max_steps
            if name == "label":
                return unit.label
            if name == "id":
                return unit.id
            if name == "box":
                return unit.box
            value = self.unit_prop(unit, name)
            if value is None and name not in self.entities[unit.type].props:
                return None
            return value
        if isinstance(obj, str):  # a location
            if name in self.vars and self.vars[name].scope == "location_var":
                values = ctx.state.loc_vars.get(obj)
                if values is not None and name in values:
                    return values[name]
                if obj not in self.board.index and not self.off_board(obj):
                    raise self.no_location(obj, name, span)
                return self._var_default(ctx, name)
            if obj not in self.board.index:
                raise self.no_location(obj, name, span)
            if name == "terrain":
                t = self.board.terrain(obj)
                return self.entities.get(t) if t else None
            return self.board.attrs(obj).get(name)
        if isinstance(obj, Entity):
            if obj.kind == "side" and name in self.vars and self.vars[name].scope == "side_var":
                if name in self.hidden_vars:
                    ctx.saw_hidden(obj.name)
                values = ctx.state.side_vars.get(obj.name, {})
                return values[name] if name in values else self._var_default(ctx, name)
            if name == "name":
                return obj.name
            if name == "label":
                return obj.label
            return obj.props.get(name)
        if isinstance(obj, CellValue):
            if name == "codes":
                return tuple(str(c) for c in obj.codes)
        if obj is None:
            raise RuleError(f"cannot read '.{name}' of none", span)
        raise RuleError(f"{show(obj)} has no property '{name}'", span)

    def off_board(self, text: str) -> bool:
        """Whether `text` is a location of the game's map that this engine's board leaves out (a
        rule test's or a scene's partial board): its location variables read as their defaults
        there, where a string that is no location of the game at all is an error (a typo must
        not pass as a default). The game's map is loaded on the first such question only."""
        ids = self.__dict__.get("_game_map_ids")
        if ids is None:
            try:
                board = load_board(self.base_game)
                ids = frozenset(board.index) if board is not self.board else frozenset()
            except Exception:  # noqa: BLE001 - no map of its own (a game of test boards): nothing is off the board
                ids = frozenset()
            self._game_map_ids = ids
        return text in ids

    def no_location(self, text: str, name: str, span, doing: str = "reading") -> RuleError:
        """The error of reading or setting `name` of a string that is no location of the map (a
        misspelt literal, a string built by the rules): located, never a bare KeyError."""
        from warcodex.dsl.diagnostics import did_you_mean

        return RuleError(f"no location '{text}' on the map ({doing} its '{name}')", span,
                         did_you_mean(text, self.board.index))

    def attribute_reader(self, name: str):
        """`read(ctx, obj, span)`: `attribute(ctx, obj, name, span)` specialised on the name, the
        unit case first (a unit variable or a unit type's property: the reads in hot loops)."""
        readers = self.__dict__.setdefault("_attribute_readers", {})
        found = readers.get(name)
        if found is not None:
            return found
        general = self.attribute
        decl = self.vars.get(name)
        if name in _UNIT_FIELDS or name in self.hidden_vars:
            def read(ctx, obj, span):
                return general(ctx, obj, name, span)
        elif decl is not None and decl.scope == "unit_var":
            default = self._var_default
            constant = []  # [the default], once it is known to be the same at every read
            defaults = self._defaults

            def read(ctx, obj, span):
                if type(obj) is UnitRef:
                    unit = ctx.state.units.get(obj.id)
                    if unit is not None:
                        value = unit.vd.get(name, _MISSING)
                        if value is not _MISSING:
                            return value
                        if constant:
                            return constant[0]
                        value = default(ctx, name)
                        if decl.default is None or type(defaults.get(name)) is _Constant:
                            constant.append(value)
                        return value
                return general(ctx, obj, name, span)
        else:
            entities = self.entities
            fixed = {}  # unit type -> the property's value, for types whose steps do not change it
            # a location's attribute from the map (h.region, h.vp): the board never changes
            board_attrs = self.board._attrs if decl is None and name != "terrain" else {}

            def read(ctx, obj, span):
                if type(obj) is str:
                    attrs = board_attrs.get(obj)
                    if attrs is not None:
                        return attrs.get(name)
                    return general(ctx, obj, name, span)
                if type(obj) is UnitRef:
                    unit = ctx.state.units.get(obj.id)
                    if unit is not None:  # a property of the unit's type, per step if it varies
                        try:
                            return fixed[unit.type]
                        except KeyError:
                            pass
                        props = entities[unit.type].props
                        by_steps = props["_by_steps"]
                        if not any(name in values for values in by_steps.values()):
                            fixed[unit.type] = props.get(name)
                        at = by_steps.get(unit.steps)
                        if at is not None and name in at:
                            return at[name]
                        return props.get(name)
                return general(ctx, obj, name, span)
            read.fixed = fixed  # generated code looks a unit's type up in it inline (codegen._e_Attr)
        readers[name] = read
        return read

    def _var_default(self, ctx, name: str):
        fn = self._defaults.get(name)
        if fn is None:
            decl = self.vars[name]
            if decl.default is None:
                return None
            fn = self._defaults[name] = self.compiler.expr(decl.default, frozenset())
        if type(fn) is _Constant:
            return fn.value
        return fn(Frame(ctx))

    def set_attribute(self, ctx, obj, name: str, value, span) -> None:
        decl = self.vars.get(name)
        state = ctx.state
        if decl is not None and decl.hidden:
            ctx.saw_hidden(state.units[obj.id].side if isinstance(obj, UnitRef) else getattr(obj, "name", None))
        if isinstance(obj, UnitRef):
            if decl is None or decl.scope != "unit_var":
                raise RuleError(f"cannot set '{name}' of a unit: declare it with `unit_var {name}: TYPE`", span)
            state.put(state.units[obj.id].with_var(name, self.coercer(decl.type)(value)))
        elif isinstance(obj, str):
            if decl is None or decl.scope != "location_var":
                raise RuleError(f"cannot set '{name}' of a location: declare it with `location_var {name}: TYPE`", span)
            if obj not in self.board.index and not self.off_board(obj):
                raise self.no_location(obj, name, span, "setting")
            state.loc_vars.setdefault(obj, {})[name] = self.coercer(decl.type)(value)
            state.changed(("lvar:" + name,), (obj,))
        elif isinstance(obj, Entity) and obj.kind == "side":
            if decl is None or decl.scope != "side_var":
                raise RuleError(f"cannot set '{name}' of a side: declare it with `side_var {name}: TYPE`", span)
            state.side_vars.setdefault(obj.name, {})[name] = self.coercer(decl.type)(value)
            state.changed(("svar:" + name,))
        else:
            raise RuleError(f"cannot set '{name}' of {show(obj)}", span)

    def attribute_setter(self, name: str):
        """`set(ctx, obj, value, span)`: `set_attribute(ctx, obj, name, value, span)` specialised on
        the name: a unit's variable (not hidden) is stored with `GameState.put_var`, which knows
        the change is that variable alone; anything else takes the general path."""
        setters = self.__dict__.setdefault("_attribute_setters", {})
        found = setters.get(name)
        if found is not None:
            return found
        general = self.set_attribute
        decl = self.vars.get(name)
        if decl is None or decl.scope != "unit_var" or decl.hidden:
            def set_(ctx, obj, value, span):
                general(ctx, obj, name, value, span)
        else:
            coerce = self.coercer(decl.type)
            plain = coerce is _same

            def set_(ctx, obj, value, span):
                if type(obj) is UnitRef:
                    state = ctx.state
                    unit = state.units.get(obj.id)
                    if unit is not None:
                        state.put_var(unit, name, value if plain else coerce(value))
                        return
                general(ctx, obj, name, value, span)
        setters[name] = set_
        return set_

    def set_var(self, ctx, name: str, value) -> None:
        ctx.state.vars[name] = value
        ctx.state.changed(("var:" + name,))
        if ctx.tracing and name not in self.bookkeeping_vars:
            ctx.trace_add(Derivation(f"{name} = {show(value)}", value))

    def enter_procedure(self, ctx, name: str) -> tuple:
        """A call of procedure `name` starts: its `per` variables take their initial values (not
        an explanation line: no rule sets them); returns what they held, for `leave_procedure`."""
        names = self.procedure_vars[name]
        values = ctx.state.vars
        saved = tuple(values.get(n, _MISSING) for n in names)
        for n in names:
            values[n] = self._var_default(ctx, n)
        ctx.state.changed(tuple("var:" + n for n in names))  # memos that read them, only
        return saved

    def leave_procedure(self, ctx, name: str, saved: tuple) -> None:
        """The call ends (or fails): its `per` variables get back the values of the caller's call."""
        values = ctx.state.vars
        for n, v in zip(self.procedure_vars[name], saved):
            if v is _MISSING:
                values.pop(n, None)
            else:
                values[n] = v
        ctx.state.changed(tuple("var:" + n for n in self.procedure_vars[name]))

    def has_tag(self, ctx, obj, tag: str) -> bool:
        if type(obj) is Entity:
            return tag in obj.tags
        if isinstance(obj, UnitRef):
            unit = ctx.state.units.get(obj.id)
            if unit is None:
                return False
            if tag in unit.markers:
                return True
            ent = self.entities[unit.type]
            if tag in ent.tags:
                by_steps = ent.props["_by_steps"].get(unit.steps)
                if by_steps is not None and by_steps.get(tag) is False:
                    return False
                return True
            return tag == unit.side
        if isinstance(obj, frozenset):
            return tag in obj
        if isinstance(obj, str):
            board = self.board
            return board.terrain(obj) == tag or tag in board.features(obj) or tag in ctx.state.loc_markers.get(obj, ())
        if isinstance(obj, Entity):
            return tag in obj.tags
        if isinstance(obj, CellValue):
            return any(c.result.name == tag for c in obj.codes)
        if isinstance(obj, tuple):
            return any(self.has_tag(ctx, x, tag) for x in obj)
        return False

    def tag_tester(self, tag: str):
        """`test(ctx, obj)`: `has_tag(ctx, obj, tag)` specialised on the tag, units first."""
        testers = self.__dict__.setdefault("_tag_testers", {})
        found = testers.get(tag)
        if found is not None:
            return found
        general, entities = self.has_tag, self.entities
        # a location has the tag if its terrain or a feature is the tag (the board never
        # changes: the set is found once) or a marker put on it is
        board_has = frozenset(self.locations_with(tag))
        on_board = self.board.index

        fixed = {}  # unit type -> whether its units have the tag, for types whose steps do not change it

        def test(ctx, obj):
            if type(obj) is UnitRef:
                unit = ctx.state.units.get(obj.id)
                if unit is None:
                    return False
                if tag in unit.markers:
                    return True
                try:
                    return fixed[unit.type] or tag == unit.side
                except KeyError:
                    pass
                ent = entities[unit.type]
                if tag not in ent.tags or not any(tag in values for values in ent.props["_by_steps"].values()):
                    fixed[unit.type] = tag in ent.tags
                if tag in ent.tags:
                    by_steps = ent.props["_by_steps"].get(unit.steps)
                    return by_steps is None or by_steps.get(tag) is not False
                return tag == unit.side
            if type(obj) is frozenset:  # hexside features
                return tag in obj
            if type(obj) is str and obj in on_board:  # a location
                if obj in board_has:
                    return True
                markers = ctx.state.loc_markers.get(obj)
                return markers is not None and tag in markers
            if type(obj) is Entity:
                return tag in obj.tags
            return general(ctx, obj, tag)
        test.fixed = fixed  # generated code looks a unit's type up in it inline (codegen._e_Is)
        testers[tag] = test
        return test

    def locations_with(self, tag: str) -> tuple[str, ...]:
        found = self._locations_with.get(tag)
        if found is None:
            board = self.board
            found = tuple(h for h in board.locations if board.terrain(h) == tag or tag in board.features(h))
            self._locations_with[tag] = found
        return found

    def locations_with_any(self, tags: tuple) -> tuple[str, ...]:
        """The locations whose terrain or features include one of `tags`, in board order."""
        found = self._locations_with.get(tags)
        if found is None:
            static = set().union(*(self.locations_with(t) for t in tags))
            found = self._locations_with[tags] = tuple(h for h in self.board.locations if h in static)
        return found

    def unit_types_with_any(self, tags: tuple) -> frozenset:
        """The unit types that have one of `tags` (themselves, a class, a flag)."""
        cache = self.__dict__.setdefault("_types_with", {})
        found = cache.get(tags)
        if found is None:
            found = cache[tags] = frozenset(name for name, ent in self.entities.items() if not ent.tags.isdisjoint(tags))
        return found

    def index(self, ctx, obj, args: list, span):
        if isinstance(obj, Entity) and obj.kind == "table":
            if ctx.chance is not None:  # odds say which tables (a provisional CRT) the result came from
                ctx.chance.tables_read.add(obj.name)
            return self.tables[obj.name].lookup(args, span, ctx.trace_sink())
        if isinstance(obj, tuple) and len(args) == 1 and isinstance(args[0], int):
            i = args[0]
            return obj[i] if -len(obj) <= i < len(obj) else None
        raise RuleError(f"{show(obj)} cannot be looked up with [...]", span)

    # ============================================================ results
    def _resolve_cell(self, cell: ast.Cell, table: str, row: str, column: str) -> CellValue:
        codes = []
        for code in cell.codes:
            if code.number is not None:
                codes.append(Code(self._number_result(), (), code.number))
                continue
            resolved = resolve_code(self.game, code)
            if resolved is None:
                raise RuleError(f"unknown result '{code.name}' in table {table}", code.span)
            decl, args = resolved
            values = tuple(self.reference.expr(a, frozenset())(Frame(None)) if isinstance(a, ast.Expr) else a for a in args)
            codes.append(Code(self.entities[decl.name], values))
        return CellValue(tuple(codes), table, column, row)

    def _number_result(self) -> Entity:
        ent = self.entities.get("_number")
        if ent is None:
            ent = Entity("result", "_number")
            self.entities["_number"] = ent
        return ent

    def _compile_result(self, r: ast.Result):
        names = [p.name for p in r.params]
        body = self.compiler.block(r.body, set(names), dynamic=True) if r.body else None
        return names, body, r

    def apply_result(self, fr: Frame, value, span) -> None:
        if value is None:
            return
        if isinstance(value, Entity) and value.kind == "result":
            value = CellValue((Code(value),))
        if not isinstance(value, CellValue):
            raise RuleError(f"cannot apply {show(value)}: it is not a table result", span)
        ctx = fr.ctx
        for code in value.codes:
            if code.number is not None:
                continue
            names, body, decl = self.results[code.result.name]
            if ctx.tracing:
                ctx.trace_add(Derivation(f"apply {code} ({decl.header.label or decl.name})", None, code.result.citations,
                                        kind="apply", ref=code.result.name))
            if body is None:
                continue
            inner = Frame(ctx, dict(fr.vars))
            inner.vars.update(zip(names, code.args))
            ctx.enter(f"result {code}", span)
            try:
                body(inner)
            finally:
                ctx.depth -= 1

    # ============================================================ triggers and invariants
    def _compile_triggers(self, triggers: list[ast.Trigger]) -> dict[str, list]:
        out: dict[str, list] = {}
        for t in triggers:
            names = [p.name for p in t.params]
            when = self.compiler.expr(t.when, frozenset(names)) if t.when is not None else None
            body = self.compiler.block(t.body, set(names))
            out.setdefault(t.name, []).append((names, when, body, t))
        return out

    def fire(self, ctx, event: str, args: tuple = ()) -> None:
        key = (event, ctx.state.scenario)
        handlers = self._handlers.get(key)
        if handlers is None:  # the game's triggers of the event, then the scenario's: found once
            handlers = self._handlers[key] = tuple(self.triggers.get(event, ())) + tuple(
                self.scenario_triggers.get(ctx.state.scenario, {}).get(event, ()))
        for names, when, body, decl in handlers:
            fr = Frame(ctx, dict(zip(names, args)))
            if when is not None and not when(fr):
                continue
            ctx.tick(decl.span)
            ctx.enter(f"on {event}", decl.span)  # a trigger that fires itself stops here
            try:
                ctx.traced(decl.header.label or f"on {event}", decl.header.citations, body, fr)
            finally:
                ctx.depth -= 1

    def _compile_invariants(self):
        from warcodex.interpreter.invariants import compile_invariant

        return [compile_invariant(self, inv) for inv in self.game.invariants.values()]

    def check_invariants(self, ctx, event: str, name: str | None = None) -> None:
        from warcodex.interpreter.invariants import check_invariants

        check_invariants(self, ctx, event, name)

    # ============================================================ effects
    def place(self, ctx, type_, side: Entity, loc: str, label, span) -> UnitRef:
        if not (isinstance(type_, Entity) and type_.kind == "unit"):
            raise RuleError(f"{show(type_)} is not a unit type", span)
        steps = int(type_.props.get("steps", 1))
        if ctx.state.next_unit_id > MAX_UNITS:
            raise RuleError(f"more than {MAX_UNITS:,} units in one game: a rule creates units without end", span)
        unit = ctx.state.new_unit(type_.name, side.name, None, steps, str(label) if label else type_.label)
        ref = UnitRef(unit.id)
        if ctx.tracing:
            ctx.trace_add(Derivation(f"place {unit.label} ({side.name}) at {loc}"))
        ctx.state.put(ctx.state.units[unit.id].but(loc=loc, box=None))
        self.fire(ctx, "placed", (ref, loc))  # not `enter`: setting up is not entering a hex
        return ref

    def move_unit(self, ctx, u: UnitRef, loc: str, span, trace: bool = True) -> None:
        state = ctx.state
        unit = state.units.get(u.id) if isinstance(u, UnitRef) else None
        if unit is None:
            raise RuleError(f"expected a unit, got {show(u)}", span)
        if trace:
            if ctx.tracing:
                ctx.trace_add(Derivation(f"{self.unit_name(ctx, u)} moves {unit.loc or 'onto the map'} -> {loc}"))
        state.put(unit.but(loc=loc, box=None))
        self.fire(ctx, "enter", (u, loc))

    def eliminate(self, ctx, u: UnitRef, span) -> None:
        state = ctx.state
        unit = state.units.get(u.id) if isinstance(u, UnitRef) else None
        if unit is None:
            raise RuleError(f"expected a unit, got {show(u)}", span)
        if unit.box == "eliminated" or (unit.loc is None and unit.box is None):
            return  # already eliminated, or not in play
        if ctx.tracing:
            ctx.trace_add(Derivation(f"{self.unit_name(ctx, u)} is eliminated"))
        state.put(unit.but(loc=None, box="eliminated", steps=0))
        self.fire(ctx, "eliminated", (u,))

    def set_marker(self, ctx, x, marker, on: bool, span) -> None:
        name = marker.name if isinstance(marker, Entity) else str(marker)
        state = ctx.state
        if isinstance(x, UnitRef):
            unit = state.units[x.id]
            markers = unit.markers | {name} if on else unit.markers - {name}
            if markers != unit.markers:
                state.put(unit.but(markers=frozenset(markers)))
                if ctx.tracing:
                    ctx.trace_add(Derivation(f"{self.unit_name(ctx, x)} {'is marked' if on else 'loses marker'} {name}"))
        elif isinstance(x, str):
            current = state.loc_markers.get(x, frozenset())
            state.loc_markers[x] = current | {name} if on else current - {name}
            state.changed(("marker:" + name,), (x,))
        else:
            raise RuleError(f"cannot mark {show(x)}", span)

    # -- cards (interpreter/cards.py)
    def pile(self, ctx, deck, pile: str, span) -> list[str]:
        """A pile of a deck, bottom card first (`pile()` in the rules gives it top card first)."""
        return self.cards.read_pile(ctx, self.cards.deck_name(deck, span), pile, span)

    def move_card(self, ctx, deck, card, to: str, span) -> None:
        name = self.cards.card_name(card, span)
        d = self.cards.deck_name(deck, span)
        if self.cards.deck_of[name] != d:
            raise RuleError(f"card {name} is not a card of deck {d}", span)
        self.cards.move(ctx, name, to, span)

    def draw_cards(self, ctx, side: Entity, deck, n: int, span) -> None:
        self.cards.draw(ctx, side, self.cards.deck_name(deck, span), n, span)

    def discard_card(self, ctx, side: Entity, card, span) -> None:
        self.cards.discard(ctx, side, self.cards.card_name(card, span), span)

    def shuffle_deck(self, ctx, deck, span) -> None:
        self.cards.reshuffle(ctx, self.cards.deck_name(deck, span), span)

    # ============================================================ JSON
    def to_json(self, value) -> Any:
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, UnitRef):
            return {"unit": value.id}
        if isinstance(value, Entity):
            return {"name": value.name}
        if isinstance(value, Odds):
            return {"odds": value.rank}
        if isinstance(value, Fraction):
            return {"frac": str(value)}
        if isinstance(value, CellValue):
            return {"cell": str(value), "table": value.table}
        if isinstance(value, (tuple, list)):
            return [self.to_json(v) for v in value]
        if isinstance(value, frozenset):
            return {"set": sorted(str(v) for v in value)}
        raise TypeError(f"cannot serialise {value!r}")

    def from_json(self, data) -> Any:
        if data is None or isinstance(data, (bool, int, str)):
            return data
        if isinstance(data, list):
            return tuple(self.from_json(v) for v in data)
        if isinstance(data, dict):
            if "unit" in data:
                return UnitRef(int(data["unit"]))
            if "name" in data:
                ent = self.entities.get(data["name"])
                if ent is None:
                    raise ValueError(f"unknown name '{data['name']}'")
                return ent
            if "odds" in data:
                return Odds(int(data["odds"]))
            if "frac" in data:
                return Fraction(data["frac"])
            if "set" in data:
                return frozenset(data["set"])
        raise ValueError(f"cannot read value {data!r}")

    # ============================================================ games
    def scenario(self, name: str | None) -> ast.Scenario:
        if name is None:
            if not self.game.scenarios:
                raise RuleError("the game has no scenario")
            return next(iter(self.game.scenarios.values()))
        sc = self.game.scenarios.get(name)
        if sc is None:
            raise RuleError(f"no scenario '{name}' (have: {', '.join(self.game.scenarios) or 'none'})")
        return sc

    def scenario_prop(self, sc: ast.Scenario, key: str, default=None):
        for p in sc.props:
            if p.key == key:
                return self.reference.expr(p.value, frozenset())(Frame(None)) if p.value is not None else True
        return default

    def new_game(self, scenario: str | None = None, seed: int = 0, options: dict | None = None, setup: bool = True,
                 dice=None):
        """A fresh state with the scenario set up (setup statements run, game not started).
        With setup=False the board is empty (tests and analysis place their own units). With
        `dice`, these rolls come first, then the seed's (interpreter/dice.py)."""
        import random

        from warcodex.interpreter.context import Context
        from warcodex.interpreter.dice import FixedDice

        sc = self.scenario(scenario)
        rng = FixedDice(dice, seed) if dice else random.Random(seed)
        state = GameState(scenario=sc.name, seed=seed, rng=rng)
        for opt in self.game.entities("option"):
            state.options[opt.name] = self.entities[opt.name].props.get("default", False)
        for k, v in (options or {}).items():
            if k not in state.options:
                raise RuleError(f"no option '{k}' (have: {', '.join(state.options) or 'none'})")
            state.options[k] = v
        ctx = Context(self, state)
        for name, decl in self.vars.items():
            if decl.scope == "var":
                state.vars[name] = self._var_default(ctx, name)
        order = self.scenario_prop(sc, "turn_order") or self._game_prop("turn_order") or self.side_entities
        order = order if isinstance(order, tuple) else (order,)
        if not all(isinstance(s, Entity) and s.kind == "side" for s in order):
            raise RuleError(f"turn_order must list sides, not {show(order)}", sc.span)
        state.turn_order = tuple(s.name for s in order)
        state.position.turn = int(self.scenario_prop(sc, "first_turn", 1))
        if setup:
            ctx.notes = []  # the set-up's `log` lines: the game's log records them (play.Game)
            try:
                self.compiler.block(sc.setup, set())(Frame(ctx))
            except RecursionError:
                raise ctx.too_deep() from None
            state.setup_notes = tuple(ctx.notes)
        return state

    def _game_prop(self, key: str):
        value = self.game.prop(key)
        return self.reference.expr(value, frozenset())(Frame(None)) if value is not None else None

    def first_turn(self, state) -> int:
        return int(self.scenario_prop(self.scenario(state.scenario), "first_turn", 1))

    def last_turn(self, state) -> int:
        """The scenario's `last_turn`, or with `turns: N` (turns 1 to N) the N-th turn."""
        sc = self.scenario(state.scenario)
        last = self.scenario_prop(sc, "last_turn")
        if last is None:
            turns = self.scenario_prop(sc, "turns")
            if turns is not None:
                return int(self.scenario_prop(sc, "first_turn", 1)) + int(turns) - 1
            raise RuleError(f"scenario '{sc.name}' has no last_turn (or turns)", sc.span)
        return int(last)

    def for_scenario(self, name: str | None) -> "Engine":
        """The engine to play `name` with: this one, or one compiled with the scenario's overrides."""
        sc = self.scenario(name)
        if not sc.overrides or self.rules_scenario == sc.name:
            return self
        if sc.name not in self._derived:
            derived = self._derived[sc.name] = Engine(self.base_game, self.board, sc.name, self.evaluator)
            if getattr(self, "settled", False):
                settle_for_play(derived)
        return self._derived[sc.name]

    def evaluate(self, expr: ast.Expr, state, names: dict | None = None):
        """The value of a checked expression in `state`, with `names` bound (the public way for
        tools to evaluate a rule expression; an expression with effects changes the state, so
        give it a snapshot)."""
        from warcodex.interpreter.context import Context

        names = dict(names or {})
        # a one-off evaluation: the closure compiler (the same semantics as the generated code,
        # without generating and compiling a unit for each expression asked)
        return self.reference.expr(expr, frozenset(names))(Frame(Context(self, state), names))

    def legal_actions(self, ctx, names: list[str], rng=None):
        """Lazily generate the legal instances of the allowed actions (shuffled with rng)."""
        for name in names:
            yield from self.actions[name].instances(ctx, rng)


def settle_for_play(engine=None) -> None:
    """For a process that builds its engine and then plays (a command, a benchmark worker): the
    compiled rules (syntax trees, generated code, tables) live as long as the process, so the
    cyclic garbage collector is told not to scan them again at each full collection (a tenth of a
    Stalingrad game's time); the engines a settled `engine` derives for scenarios are settled
    too. Not for a process that builds many engines and drops them (tests)."""
    import gc

    if engine is not None:
        engine.settled = True
    gc.collect()
    gc.freeze()


_MISSING = object()
_LITERALS = (ast.Num, ast.Str, ast.Bool, ast.NoneLit, ast.OddsLit)


class _Constant:
    """A variable's default that is a literal or a declared name: evaluated once."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value
_UNIT_FIELDS = frozenset({"loc", "side", "steps", "type", "max_steps", "label", "id", "box"})  # read from the record


def single_value(v):
    return v.single() if isinstance(v, CellValue) else v


def _same(v):
    return v


def _fingerprint(game: GameDef) -> str:
    """The rules' fingerprint extended with the map file's text."""
    import hashlib

    from warcodex import inputs

    digest = hashlib.sha256(game.fingerprint.encode())
    try:
        path = game.map_file()
        if path is not None:
            digest.update(inputs.read_bytes(path, inputs.MAX_MAP_BYTES, "map file"))
    except inputs.InputError:
        pass  # no map to read: loading the board says why
    return digest.hexdigest()[:16]


def load_board(game: GameDef):
    """The board of the game's `map:` file (the one the checker loaded, if it did)."""
    from warcodex import inputs
    from warcodex.dsl.mapfile import load_map

    if game.board is not None:
        return game.board
    value = game.prop("map")
    if value is None:
        raise RuleError("the game has no `map:` property", game.game.span)
    if not isinstance(value, ast.Str):
        raise RuleError("`map:` must be a file name in quotes", value.span)
    try:
        path = game.map_file()
    except inputs.InputError as exc:
        raise RuleError(f"{exc.path}: {exc.message}", value.span, hint=exc.hint) from None
    return load_map(path)
