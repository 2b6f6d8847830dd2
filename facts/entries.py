"""How units enter and leave play: every `place`, `place_in_box` and `to_box` the rules can run,
found by walking the rule bodies with the procedures they call inlined (so `arrive(panzer_division,
axis, "6th Panzer", a)` is a `place` of a panzer division for the Axis), and the walk itself.

The same walker serves two purposes:

* statically (nothing known): every site the rules contain, whoever and whenever, for the owners
  of each unit type (`owners.py`);
* turn by turn (turn, scenario, active side and phase known, variables followed from the set-up,
  see `schedule.py`): which sites fire on which turn, for certain or under a condition.

Nothing is executed: tests are evaluated by the partial evaluator, and a test it cannot decide
makes both branches possible (and the condition is kept to be shown).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.facts.partial import UNKNOWN, Bound, Chosen, Each, Partial, truth
from warcodex.facts.walk import walk
from warcodex.interpreter.values import Entity

ENTRY_CALLS = ("place", "place_in_box")
FROM_BOX = "move_to"  # a `move_to` of a unit taken from `units_in_box("...")` brings it into play
EXIT_CALLS = ("to_box",)


@dataclass(frozen=True)
class Origin:
    """Where a walk started: a scenario's set-up, a trigger, an action, a result, a phase's `do`."""
    kind: str  # setup, trigger, action, result, phase
    decl: object
    scenario: str | None = None  # the scenario whose own set-up or trigger this is

    @property
    def event(self) -> str | None:
        return self.decl.header.name if self.kind == "trigger" else None


@dataclass
class Site:
    """One call of `place`, `place_in_box` or `to_box`, reached along one path of the rules."""
    func: str
    call: ast.Call
    args: tuple  # Bound arguments (their expressions with the bindings they were written in)
    origin: Origin
    via: tuple  # the procedures called on the way, outermost first
    path: tuple = ()  # the calls on the way (ids of their nodes), outermost first
    loop: object = None  # inside a `for` loop: its source (Bound), the site runs once per element
    guards: list = field(default_factory=list)  # (test expr, env, wanted truth) left undecided on the way

    @property
    def repeated(self) -> bool:
        return self.loop is not None

    @property
    def key(self) -> tuple:
        return (id(self.call), self.path, id(self.origin.decl))

    @property
    def rule(self):
        """The declaration a player would name: the innermost labelled procedure, else the origin."""
        for proc in reversed(self.via):
            if proc.header.label:
                return proc
        return self.origin.decl


class Walker:
    """Walks statements, following procedure calls, deciding tests with a `Partial` evaluator made
    by `partial(env)`; calls `found(site, definite)` for each entry or exit site reached."""

    MAX_CALL_DEPTH = 16

    def __init__(self, engine, partial, found, store=None) -> None:
        self.engine = engine
        self.game = engine.game
        self.partial = partial
        self.found = found
        self.store = store  # a Store to follow `set` statements in, or None
        self._path: list[int] = []

    def run(self, stmts, origin: Origin, env: dict | None = None, guards: list | None = None) -> None:
        if not self._matters(stmts):
            return
        self._block(stmts, dict(env or {}), origin, (), list(guards or []), definite=not guards, loop=None)

    def _matters(self, stmts) -> bool:
        """Whether walking `stmts` can find anything: an entry or exit site, or (following a
        store) a `set` of a variable the store follows, in them or in a procedure they call. A
        body that can find nothing is not walked (a schedule asks again on every turn)."""
        tracked = self.store.tracked if self.store is not None else frozenset()
        cache = self.engine.derived_cache.setdefault("walk_matters", {})
        key = (id(stmts), tracked)
        if key not in cache:
            cache[key] = _reaches(self.game, stmts, tracked, set())
        return cache[key]

    # returns True when a `stop` is reached for certain
    def _block(self, stmts, env, origin, via, guards, definite, loop) -> bool:
        for s in stmts:
            if isinstance(s, ast.Let):
                env = {**env, s.name: Bound(s.value, env)}
                if isinstance(s.value, ast.Call):
                    self._call(s.value, env, origin, via, guards, definite, loop)
            elif isinstance(s, ast.If):
                t = truth(self.partial().ev(s.test, env))
                if t is True:
                    if self._block(s.body, env, origin, via, guards, definite, loop):
                        return True
                elif t is False:
                    if self._block(s.orelse, env, origin, via, guards, definite, loop):
                        return True
                else:
                    self._block(s.body, env, origin, via, guards + [(s.test, env, True)], False, loop)
                    self._block(s.orelse, env, origin, via, guards + [(s.test, env, False)], False, loop)
            elif isinstance(s, ast.For):
                inner = {**env, s.var: Each(Bound(s.source, env))}
                self._block(s.body, inner, origin, via, guards, definite, Bound(s.source, env))
            elif isinstance(s, ast.Choose):
                env = {**env, s.var: Chosen(Bound(s.source, env), Bound(s.by, env), s.optional)}
            elif isinstance(s, ast.Reroll):
                self._block(s.body, env, origin, via, guards, False, loop)
            elif isinstance(s, ast.Step):
                if self._block(s.body, env, origin, via, guards, definite, loop):
                    return True
            elif isinstance(s, ast.CallStmt):
                self._call(s.call, env, origin, via, guards, definite, loop)
            elif isinstance(s, ast.SetStmt):
                if self.store is not None:
                    self.store.assign(s, env, self.partial(), definite and loop is None)
            elif isinstance(s, ast.Stop):
                if definite:
                    return True
        return False

    def _call(self, call: ast.Call, env, origin, via, guards, definite, loop) -> None:
        if call.func in ENTRY_CALLS or call.func in EXIT_CALLS or (
                call.func == FROM_BOX and call.args and source_box(Bound(call.args[0], env), partial=self.partial()) is not None):
            site = Site(call.func, call, tuple(Bound(a, env) for a in call.args), origin, via, tuple(self._path),
                        loop, list(guards))
            self.found(site, definite)
            return
        decl = self.game.names.get(call.func)
        if not isinstance(decl, ast.Procedure) or any(decl is v for v in via) or len(via) >= self.MAX_CALL_DEPTH:
            return
        if not self._matters(decl.body):
            return
        inner = {p.name: (Bound(call.args[i], env) if i < len(call.args) else None) for i, p in enumerate(decl.params)}
        self._path.append(id(call))
        try:
            self._block(decl.body, inner, origin, via + (decl,), guards, definite, loop)
        finally:
            self._path.pop()


def _reaches(game, stmts, tracked, seen: set) -> bool:
    """An entry or exit call, or a `set` of one of `tracked`, in `stmts` or the procedures they
    call (a `move_to` counts: whether it takes a unit from a box is decided when it is walked)."""
    for n in walk(stmts):
        if isinstance(n, ast.Call):
            if n.func in ENTRY_CALLS or n.func in EXIT_CALLS or n.func == FROM_BOX:
                return True
            decl = game.names.get(n.func)
            if isinstance(decl, ast.Procedure) and id(decl) not in seen:
                seen.add(id(decl))
                if _reaches(game, decl.body, tracked, seen):
                    return True
        elif isinstance(n, ast.SetStmt) and tracked:
            t = n.target
            if (isinstance(t, ast.Name) and t.id in tracked) or (isinstance(t, ast.Attr) and t.name in tracked):
                return True
    return False


def roots(game) -> list[tuple[Origin, list, dict]]:
    """Every place a walk of the rules starts: (origin, statements, bindings of its parameters)."""
    out: list[tuple[Origin, list, dict]] = []
    for sc in game.scenarios.values():
        out.append((Origin("setup", sc, sc.name), sc.setup, {}))
        for trig in sc.triggers:
            out.append((Origin("trigger", trig, sc.name), trig.body, {p.name: Each() for p in trig.params}))
    for trig in game.triggers:
        out.append((Origin("trigger", trig), trig.body, {p.name: Each() for p in trig.params}))
    for decl in game.names.values():
        if isinstance(decl, ast.Action):
            out.append((Origin("action", decl), decl.body, {p.name: Each() for p in decl.params}))
        elif isinstance(decl, ast.Result):
            out.append((Origin("result", decl), decl.body, {p.name: Each() for p in decl.params}))
    if game.sequence is not None:
        from warcodex.interpreter.sequence import declared_phases

        for phase in declared_phases(game.sequence):
            for item in phase.items:
                if isinstance(item, ast.Do):
                    out.append((Origin("phase", phase), item.body, {}))
    return out


def all_sites(engine) -> list[tuple[Site, bool]]:
    """Every entry and exit site of the rules, walked with nothing known. Cached with the engine."""
    cache = engine.derived_cache
    if "entry_sites" not in cache:
        found: list[tuple[Site, bool]] = []
        walker = Walker(engine, lambda: Partial(engine), lambda site, definite: found.append((site, definite)))
        for origin, stmts, env in roots(engine.game):
            walker.run(stmts, origin, env)
        cache["entry_sites"] = found
    return cache["entry_sites"]


# ------------------------------------------------------------------ reading a site's arguments
def static_name(b, engine, depth: int = 0) -> str | None:
    """The declared name an argument stands for, followed through `let`s and procedure arguments;
    None when it is decided in play (a loop variable, a parameter, `active`...)."""
    if depth > 20 or not isinstance(b, Bound):
        return None
    e = b.expr
    if isinstance(e, ast.Name):
        if e.id in b.env:
            return static_name(b.env[e.id], engine, depth + 1)
        return e.id if e.id in engine.entities else None
    return None


def static_str(b, depth: int = 0) -> str | None:
    """A literal string argument (a location id, a box, a label), followed through bindings."""
    if depth > 20 or not isinstance(b, Bound):
        return None
    e = b.expr
    if isinstance(e, ast.Str):
        return e.value
    if isinstance(e, ast.Name) and e.id in b.env:
        return static_str(b.env[e.id], depth + 1)
    return None


def chosen(b, depth: int = 0) -> Chosen | None:
    """The `choose` an argument comes from, if it does."""
    if depth > 20 or not isinstance(b, Bound):
        return None
    e = b.expr
    if isinstance(e, ast.Name) and e.id in b.env:
        v = b.env[e.id]
        if isinstance(v, Chosen):
            return v
        return chosen(v, depth + 1)
    return None


def source_box(b, depth: int = 0, partial=None) -> str | None:
    """The box a unit argument is taken from, when it is chosen from (or runs over)
    `units_in_box(BOX)`, or a list of those (`list(v for v in units_in_box(...) where ...)`). BOX
    is a string, or (given a `partial` evaluator that knows the turn) an expression it decides:
    Stargard Solstice's `units_in_box(reinforcement_box(turn))`, "turn_3" on Turn 3."""
    if depth > 20 or not isinstance(b, Bound):
        return None
    e = b.expr
    if isinstance(e, ast.Call) and e.func == "units_in_box" and e.args:
        if isinstance(e.args[0], ast.Str):
            return e.args[0].value
        value = partial.ev(e.args[0], b.env) if partial is not None else None
        return value if isinstance(value, str) else None
    if isinstance(e, ast.Comprehension) and e.func in ("list", "first"):
        return source_box(Bound(e.source, b.env), depth + 1, partial)
    if isinstance(e, ast.Name) and e.id in b.env:
        v = b.env[e.id]
        if isinstance(v, Chosen):
            return source_box(v.source, depth + 1, partial)
        if isinstance(v, Each) and isinstance(v.source, Bound):
            return source_box(v.source, depth + 1, partial)
        return source_box(v, depth + 1, partial)
    return None


def inline(b, depth: int = 0):
    """The expression of a bound argument with the names bound on the way replaced by what they
    stand for (`ea` chosen from `a` = `axis_areas()`: the call `axis_areas()`), for showing."""
    if not isinstance(b, Bound):
        return None
    return _inline(b.expr, b.env, depth)


def _inline(e, env, depth):
    if depth > 8:
        return e
    if isinstance(e, ast.Name) and e.id in env:
        v = env[e.id]
        if isinstance(v, Bound):
            return _inline(v.expr, v.env, depth + 1)
        if isinstance(v, (Chosen, Each)) and isinstance(v.source, Bound):  # one element of its source
            return _inline(v.source.expr, v.source.env, depth + 1)
        return e
    if isinstance(e, ast.Comprehension):  # its own name is bound inside it
        inner = {k: v for k, v in env.items() if k != e.var}
        return e.model_copy(update={f: _inline(getattr(e, f), inner if f != "source" else env, depth + 1)
                                    for f in ("source", "element", "where") if getattr(e, f) is not None})
    if isinstance(e, ast.Expr):
        update = {}
        for f in type(e).model_fields:
            value = getattr(e, f)
            if isinstance(value, ast.Expr):
                update[f] = _inline(value, env, depth + 1)
            elif isinstance(value, list) and value and all(isinstance(x, ast.Expr) for x in value):
                update[f] = [_inline(x, env, depth + 1) for x in value]
        return e.model_copy(update=update) if update else e
    return e


def side_of(b, engine, partial) -> str | None:
    """The side an argument names, evaluated with what `partial` knows (`active` on a known side)."""
    v = partial.ev(b.expr, b.env) if isinstance(b, Bound) else UNKNOWN
    return v.name if isinstance(v, Entity) and v.kind == "side" else None
