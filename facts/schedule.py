"""The reinforcement and withdrawal schedule of a scenario: which units enter (and which leave
for an off-map box) on which turn, for certain or under a condition the rules leave to play.

The turn sequence is walked turn by turn from the scenario's first turn to its last: at each
turn start, phase start and end (for each side's player turn) and turn end, the triggers on that
event are walked (`entries.Walker`) with the turn, the scenario, the active side and the phase
known. Variables are followed from the set-up position where only these triggers assign them
(Tiny Front's `reinforced` flag); a variable that actions, results or other events assign is
unknown once play begins. A site reached with every test decided is a scheduled arrival on that
turn; one reached through an undecided test (a box that must not be empty, a variable play sets,
an optional rule) is a conditional arrival, with the undecided tests kept as its condition.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.facts.entries import (ENTRY_CALLS, FROM_BOX, Origin, Site, Walker, chosen, inline, roots, side_of,
                                    source_box, static_name, static_str)
from warcodex.facts.partial import PICKED, UNKNOWN, Partial, Slice, residual, truth
from warcodex.interpreter.values import Entity

TURN_EVENTS = ("turn_start", "turn_end", "phase_start", "phase_end")


@dataclass
class Condition:
    """A test left undecided on the way to an arrival, with the value it must have."""
    expr: ast.Expr  # with the names bound on the way replaced by what they stand for
    holds: bool  # True: the test must be true; False: it must be false (an `else` branch)


@dataclass
class Movement:
    """A unit that enters play (an arrival) or leaves the map for a box (a withdrawal)."""
    kind: str  # arrival, withdrawal
    turn: int | None  # the turn it happens for certain; None for a conditional one
    turns: tuple[int, ...]  # every turn it may happen
    side: str | None
    unit_type: str | None  # None: decided in play (withdrawals name the rule, not the unit)
    label: str | None  # the unit's own name ("384th Infantry")
    location: str | None  # a printed location id where the rules name one
    box: str | None  # the off-map box it enters or leaves for
    choice: ast.Expr | None  # the list the owner chooses the location from (`axis_areas()`)
    where: ast.Expr | None  # the location expression otherwise (`first(free)`)
    phase: str | None  # the phase whose start or end brings it, None at a turn's start or end
    event: str  # turn_start, phase_start...
    rule: object  # the declaration a player would name (the procedure or trigger)
    site: Site
    conditions: list[Condition] = field(default_factory=list)
    repeated: bool = False  # inside a loop: once per element (a number decided in play)
    each: ast.Expr | None = None  # the list a repeated one runs over (`units_of(axis)` where wiking)
    likely_location: str | None = None  # where `where` puts it in the set-up position (nothing moved)
    expected_turn: int | None = None  # a conditional one: the turn its rule is due for certain
    # (the condition is the rule's own fallback, e.g. "no free entry hex: try again next turn")

    @property
    def certain(self) -> bool:
        return self.turn is not None

    @property
    def rules(self) -> tuple:
        """The declarations that bring it, outermost first: where the walk started (a trigger, a
        phase, a scenario's set-up) and each labelled procedure on the way (the Reinforcement
        Display, then `arrive`): together they cite every section a player would look up."""
        return (self.site.origin.decl,) + tuple(p for p in self.site.via if p.header.label)

    @property
    def provisional(self) -> str | None:
        """Why it is provisional, when a declaration on the way is (a Reinforcement Display the
        rulebook does not print): a schedule built on stand-in data is never shown as published."""
        for decl in (self.site.origin.decl,) + tuple(self.site.via):
            prov = decl.header.provenance
            if prov is not None and prov.kind == "provisional":
                return prov.note or "provisional"
        return None


class Store:
    """Values of the variables that only turn and phase triggers assign, as the walk changes them
    (`set axis.reinforced = true` on a certain path); anything undecided forgets the value."""

    def __init__(self, engine, state, tracked: set[str]) -> None:
        from warcodex.interpreter.context import Context

        ctx = Context(engine, state)
        self.tracked = frozenset(tracked)
        self.version = 0  # changes with any value, so values computed from them are read again
        self.memo: dict = {}  # function values the partial evaluator computed, by arguments and version
        self.vars = {n: v for n, v in state.vars.items() if n in tracked}
        self.sides: dict[tuple[str, str], object] = {}
        for name, decl in engine.vars.items():
            if decl.scope == "side_var" and name in tracked:
                for s in engine.side_entities:
                    self.sides[(s.name, name)] = engine.attribute(ctx, s, name, None)

    def var(self, name: str):
        return self.vars.get(name, UNKNOWN)

    def side_var(self, side: str, name: str):
        return self.sides.get((side, name), UNKNOWN)

    def assign(self, s: ast.SetStmt, env: dict, partial: Partial, definite: bool) -> None:
        key = None
        if isinstance(s.target, ast.Name) and s.target.id in self.vars:
            key = ("var", s.target.id)
        elif isinstance(s.target, ast.Attr):
            obj = partial.ev(s.target.obj, env)
            if isinstance(obj, Entity) and obj.kind == "side":
                key = ("side", (obj.name, s.target.name))
            else:  # a side decided in play: every side's value may change
                for k in [k for k in self.sides if k[1] == s.target.name]:
                    if self.sides[k] is not UNKNOWN:
                        self.sides[k] = UNKNOWN
                        self.version += 1
                return
        if key is None:
            return
        table = self.vars if key[0] == "var" else self.sides
        if key[1] not in table:
            return
        value = partial.ev(s.value, env)
        old = table[key[1]]
        known = definite and value is not UNKNOWN and value is not PICKED and not isinstance(value, Slice)
        if known and s.op != "=":
            known = old is not UNKNOWN and isinstance(old, (int, float)) and isinstance(value, (int, float))
            if known:
                value = old + value if s.op == "+=" else old - value
        new = value if known else UNKNOWN
        if new is not old:
            table[key[1]] = new
            self.version += 1


def tracked_variables(engine) -> set[str]:
    """Variables assigned only in scenario set-ups and turn/phase triggers (and the procedures they
    call): the schedule can follow them from the set-up. Cached with the engine."""
    cache = engine.derived_cache
    if "tracked_vars" not in cache:
        game = engine.game
        inside: set[str] = set()
        outside: set[str] = set()
        for origin, stmts, _env in roots(game):
            names = _assigned(game, stmts, set())
            if origin.kind == "setup" or (origin.kind == "trigger" and origin.event in TURN_EVENTS):
                inside |= names
            else:
                outside |= names
        cache["tracked_vars"] = {n for n in inside if n not in outside}
    return cache["tracked_vars"]


def _assigned(game, node, seen: set[int]) -> set[str]:
    from warcodex.facts.walk import walk

    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, ast.SetStmt):
            t = n.target
            if isinstance(t, ast.Name):
                out.add(t.id)
            elif isinstance(t, ast.Attr):
                out.add(t.name)
        elif isinstance(n, ast.Call):
            decl = game.names.get(n.func)
            if isinstance(decl, ast.Procedure) and id(decl) not in seen:
                seen.add(id(decl))
                out |= _assigned(game, decl.body, seen)
    return out


def schedule(engine, scenario: str, first: int, last: int) -> list[Movement]:
    """Arrivals and withdrawals of `scenario` from turn `first` to `last`, in turn order."""
    from warcodex.interpreter.context import Context

    state = engine.new_game(scenario)
    ops = engine.sequence.program(Context(engine, state.snapshot()))
    store = Store(engine, state, tracked_variables(engine))
    game = engine.game
    sc_triggers = list(game.scenarios[scenario].triggers)
    triggers = [(t, None) for t in game.triggers] + [(t, scenario) for t in sc_triggers]
    reached: dict[tuple, dict[int, list]] = {}  # site key -> turn -> [(site, definite, op, event)]

    for turn in range(first, last + 1):
        for op in ops:
            if op.kind not in TURN_EVENTS and op.kind != "do":
                continue
            knowns = dict(turn=turn, scenario=scenario, active=op.side, store=store)
            phase_guard: list = []
            if op.phase is not None and op.phase.when is not None:
                pw = truth(Partial(engine, **knowns).ev(op.phase.when))
                if pw is False:
                    continue
                if pw is UNKNOWN:
                    phase_guard = [(op.phase.when, {}, True)]
            event = op.kind

            current = {"initial": 0}  # how many of a site's guards are its rule's own `when`s

            def found(site: Site, definite: bool, _t=turn, _op=op, _e=event, _k=knowns, _c=current) -> None:
                due = len(site.guards) > 0 and _c["initial"] == 0
                key = site.key
                if site.func == FROM_BOX:  # one rule bringing units from a box named by the turn: a movement per box and side
                    key += (source_box(site.args[0], partial=Partial(engine, **_k)), _op.side)
                reached.setdefault(key, {}).setdefault(_t, []).append((site, definite, _op, _e, _k, due))

            walker = Walker(engine, lambda k=knowns: Partial(engine, **k), found, store)
            if op.kind == "do":
                continue  # `do` blocks are walked with their phase's start below
            if op.kind == "phase_start":
                current["initial"] = len(phase_guard)
                for item in op.phase.items:
                    if isinstance(item, ast.Do):
                        walker.run(item.body, Origin("phase", op.phase), {}, phase_guard)
            for trig, sc in triggers:
                if trig.header.name != event:
                    continue
                env = {}
                if event in ("phase_start", "phase_end") and trig.params:
                    env[trig.params[0].name] = op.phase.name
                w = truth(Partial(engine, **knowns).ev(trig.when, env)) if trig.when is not None else True
                if w is False:
                    continue
                guards = list(phase_guard) + ([] if w is True else [(trig.when, env, True)])
                current["initial"] = len(guards)
                walker.run(trig.body, Origin("trigger", trig, sc), env, guards)

    out: list[Movement] = []
    for _key, by_turn in reached.items():
        certain = {t: hits for t, hits in by_turn.items() if any(d for _s, d, *_ in hits)}
        maybe = {t: hits for t, hits in by_turn.items() if t not in certain}
        for t, hits in sorted(certain.items()):
            site, _d, op, event, knowns, _due = next(h for h in hits if h[1])
            out.append(_movement(engine, site, t, (t,), op, event, knowns, []))
        if maybe:
            t0 = min(maybe)
            site, _d, op, event, knowns, due = maybe[t0][0]
            partial = Partial(engine, **knowns)
            conditions = []
            for expr, env, holds in site.guards:
                left = residual(partial, expr, env)
                if left is not None:
                    conditions.append(Condition(inline_expr(left, env), holds))
            m = _movement(engine, site, None, tuple(sorted(maybe)), op, event, knowns, conditions)
            # "due" only for a rule that starts being tried on a later turn (Tiny's reinforcements
            # from Turn 3, retried while no entry hex is free); a rule tried from the first turn
            # on with a condition inside (a stacking check) is no arrival due then
            m.expected_turn = t0 if due and t0 > first else None
            out.append(m)
    for m in out:
        if m.where is not None and m.kind == "arrival":
            m.likely_location = _likely_location(engine, state, m)
        if m.site.loop is not None:
            m.each = inline(m.site.loop)
    # a `place` of a type chosen in play (units bought and mobilized) is no schedule: the model
    # keeps it with the owners (`Owners.undecided`), not here
    out = [m for m in out if not (m.kind == "arrival" and m.unit_type is None and m.box is None)]
    # a unit moved from one off-map box to another (No Retreat!'s track box to the cadre box) does
    # not leave the map: no withdrawal
    out = [m for m in out if not (m.kind == "withdrawal" and m.site.args and source_box(
        m.site.args[0], partial=Partial(engine, turn=m.turns[0] if m.turns else None, scenario=scenario)) is not None)]
    out.sort(key=lambda m: (m.turn if m.turn is not None else (m.turns[0] if m.turns else 0), m.turn is None))
    return out


def _likely_location(engine, state, m: Movement) -> str | None:
    """Where the location expression of an arrival puts it if nothing has moved since the set-up
    (Tiny Front's `first(free)`: the first free hex of the entry area); None when that cannot be
    evaluated without play (it reads a choice or a loop's element)."""
    from warcodex.interpreter.values import RuleError

    sim = state.snapshot()
    sim.position.turn = m.turn if m.turn is not None else (m.turns[0] if m.turns else sim.position.turn)
    sim.active = m.side
    try:
        v = engine.evaluate(m.where, sim)
    except (RuleError, KeyError, TypeError, ValueError):
        return None
    return v if isinstance(v, str) and v in engine.board.locations else None


def inline_expr(expr, env):
    from warcodex.facts.entries import _inline

    return _inline(expr, env, 0)


def _movement(engine, site: Site, turn, turns, op, event, knowns, conditions) -> Movement:
    p = Partial(engine, **knowns)
    args = site.args
    if site.func in ENTRY_CALLS:
        utype = static_name(args[0], engine) if args else None
        if utype is None and args:
            v = p.ev(args[0].expr, args[0].env)
            utype = v.name if isinstance(v, Entity) and v.kind == "unit" else None
        side = side_of(args[1], engine, p) if len(args) > 1 else None
        label = static_str(args[3]) if len(args) > 3 else None
        location = box = choice = where = None
        if len(args) > 2:
            if site.func == "place_in_box":
                box = static_str(args[2])
            else:
                location = static_str(args[2])
                if location is None:
                    c = chosen(args[2])
                    if c is not None:
                        choice = inline(c.source)
                    else:
                        where = inline(args[2])
        return Movement("arrival", turn, turns, side, utype, label, location, box, choice, where,
                        op.phase.name if op.phase is not None else None, event, site.rule, site, conditions,
                        site.repeated)
    if site.func == FROM_BOX:
        location = static_str(args[1]) if len(args) > 1 else None
        c = chosen(args[1]) if len(args) > 1 and location is None else None
        return Movement("arrival", turn, turns, op.side, None, None, location, source_box(args[0], partial=p),
                        inline(c.source) if c is not None else None,
                        inline(args[1]) if c is None and location is None and len(args) > 1 else None,
                        op.phase.name if op.phase is not None else None, event, site.rule, site, conditions,
                        site.repeated)
    box = static_str(args[1]) if len(args) > 1 else None
    side = op.side
    return Movement("withdrawal", turn, turns, side, None, None, None, box, None, inline(args[0]) if args else None,
                    op.phase.name if op.phase is not None else None, event, site.rule, site, conditions, site.repeated)
