"""A three-valued partial evaluator of rule expressions: what a rule says when only some things are
known (the terrain of a row of a chart, the game turn, the scenario, the side whose player turn it
is, a phase's name) and everything else is UNKNOWN. `and`/`or`/`not` follow three-valued logic, so
`turn == 3 and transcaucasus_released` is UNKNOWN on Turn 3 and false on every other turn.

It reads the checked AST (declarations and their expressions) and the engine's constant data
(entities with their properties and tags, compiled tables); it never runs a compiled rule, so it
cannot change a game and it terminates (calls are followed to a fixed depth).

    Partial(engine, turn=3, scenario="fall_blau", active="axis").ev(expr)    # True / False / UNKNOWN / value
    Partial(engine, kind="terrain", row=engine.entities["forest"]).ev(expr)   # a chart row

A row of a chart that is not exclusive (hexside features, map features and markers combine) sees
its own tags as present and the other tags of its kind as UNKNOWN (`others="unknown"`, what the
feature does in any company) or as absent (`others="absent"`, the feature alone on a hexside).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from warcodex.dsl import ast
from warcodex.interpreter.values import Entity, Odds

DOMAIN_KINDS = ("terrain", "edge", "feature", "marker")


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


@dataclass(frozen=True)
class Bound:
    """A name bound to an expression (a `let`, a procedure's argument), evaluated where it is read,
    in the bindings it was written in."""
    expr: object
    env: dict


@dataclass(frozen=True)
class Each:
    """A `for` loop's name or an action's parameter: one of many values, none known."""
    source: object = None


@dataclass(frozen=True)
class Chosen:
    """A `choose` result: a value the deciding player picks from `source`. A choice that is not
    `optional` is taken to find a candidate (not `none`); where the rules provide for it finding
    none, that branch is the rules' own fallback."""
    source: object
    by: object
    optional: bool = False


class _Picked:
    def __repr__(self) -> str:
        return "PICKED"


PICKED = _Picked()  # the value of a non-optional choice: some element, never `none`


@dataclass(frozen=True)
class AtLeast:
    """A number known only from below (the features on a hexside of a chart's row: at least one)."""
    n: int


def _compare_at_least(a, op: str, c):
    """A comparison with a number known from below: decided when the bound decides it."""
    if isinstance(c, AtLeast):  # `0 < count(...)`: turn it round
        a, c = c, a
        op = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}[op]
    if not is_number(c):
        return UNKNOWN
    if op in (">", ">=", "!=") and (c < a.n if op in (">", "!=") else c <= a.n):
        return True
    if op in ("<", "<=", "==") and (c < a.n if op in ("<=", "==") else c <= a.n):
        return False
    return UNKNOWN


@dataclass(frozen=True)
class Slice:
    """A table row (or column) read for one known key (a terrain, a road), the other key unknown:
    each value of the other key with its cell. `table` names the table, whose provenance the
    values carry."""
    table: str
    parts: tuple[tuple[str, str], ...]  # (the other key as the table prints it, the cell)

    @property
    def text(self) -> str:
        return "; ".join(f"{key} {cell}" for key, cell in self.parts)


def truth(v):
    """True, False or UNKNOWN."""
    if v is UNKNOWN or isinstance(v, Slice):
        return UNKNOWN
    return bool(v)


def k_and(a, b):
    a, b = truth(a), truth(b)
    if a is False or b is False:
        return False
    if a is True and b is True:
        return True
    return UNKNOWN


def k_or(a, b):
    a, b = truth(a), truth(b)
    if a is True or b is True:
        return True
    if a is False and b is False:
        return False
    return UNKNOWN


def k_not(a):
    a = truth(a)
    return UNKNOWN if a is UNKNOWN else not a


def is_number(v) -> bool:
    return isinstance(v, (int, Fraction)) and not isinstance(v, bool)


def domain_tags(engine) -> dict[str, frozenset[str]]:
    """Every tag (name or flag) of the terrain, edges, features and markers: the names a chart
    row of that kind answers for. Cached with the engine."""
    cache = engine.derived_cache
    if "domain_tags" not in cache:
        out = {}
        for kind in DOMAIN_KINDS:
            tags: set[str] = set()
            for decl in engine.game.entities(kind):
                tags |= set(engine.entities[decl.name].tags)
            out[kind] = frozenset(tags)
        cache["domain_tags"] = out
    return cache["domain_tags"]


class Partial:
    """Evaluates one expression at a time knowing only what the constructor says.

    After an evaluation, `touched` says whether the row's domain was consulted, `own` whether one
    of the row's own tags was tested and found, `own_positive` whether it was found where it counts
    for the test (not under a `not`: a bridge in `not bridged(a, b)` only ever stops a rule), `used`
    the row's properties and tags read, `truncated` whether the depth limit cut it short."""

    MAX_DEPTH = 12

    def __init__(self, engine, kind: str | None = None, row: Entity | None = None, turn: int | None = None,
                 scenario: str | None = None, active: str | None = None, others: str = "unknown",
                 env: dict | None = None, store=None, own: str = "present") -> None:
        self.engine = engine
        self.store = store  # known values of variables (`store.var(name)`, `store.side_var(side, name)`,
        # `store.version` changing with them, `store.memo` for function values)
        self.game = engine.game
        self.kind = kind
        self.row = row
        self.turn = turn
        self.scenario = scenario
        self.active = active
        self.others = others
        self.own_tags = own  # "absent": the row's own tags read as absent (what the rule is without it)
        self.env = dict(env or {})
        self.touched = False
        self.own = False
        self.own_positive = False  # one of the row's own tags was found where it makes the test true
        self._negated = False
        self.used: set[str] = set()
        self.truncated = False  # the depth limit cut an evaluation: an UNKNOWN may hide a decided value
        self._domain = domain_tags(engine).get(kind, frozenset()) if kind else frozenset()

    def ev(self, e, env: dict | None = None, depth: int = 0):
        if e is None:
            return True
        env = env if env is not None else self.env
        if depth > self.MAX_DEPTH:
            self.truncated = True
            return UNKNOWN
        ev = lambda x, en=env: self.ev(x, en, depth + 1)  # noqa: E731
        if isinstance(e, (ast.Num, ast.Str, ast.Bool)):
            return e.value
        if isinstance(e, ast.NoneLit):
            return None
        if isinstance(e, ast.OddsLit):
            return Odds.ratio(e.attack, e.defense)
        if isinstance(e, ast.Name):
            return self._name(e.id, env, depth)
        if isinstance(e, ast.Attr):
            obj = ev(e.obj)
            if isinstance(obj, Entity):
                if obj.kind == "side" and e.name in self.engine.vars:
                    return self.store.side_var(obj.name, e.name) if self.store is not None else UNKNOWN
                if self.row is not None and obj is self.row:
                    self.used.add(e.name)
                if e.name in obj.props:
                    return obj.props[e.name]
                if obj.kind in DOMAIN_KINDS:
                    return None
            return UNKNOWN
        if isinstance(e, ast.Call):
            return self._call(e, env, depth)
        if isinstance(e, ast.Is):
            return self._is(e, env, depth)
        if isinstance(e, ast.Compare):
            a, c = ev(e.left), ev(e.right)
            if (a is PICKED or c is PICKED) and e.op in ("==", "!="):
                other = c if a is PICKED else a
                if other is None:
                    return e.op == "!="
                return UNKNOWN
            if a is PICKED or c is PICKED:
                return UNKNOWN
            if isinstance(a, AtLeast) or isinstance(c, AtLeast):
                return _compare_at_least(a, e.op, c)
            if a is UNKNOWN or c is UNKNOWN or isinstance(a, Slice) or isinstance(c, Slice):
                return UNKNOWN
            try:
                return {"==": lambda: a == c, "!=": lambda: a != c, "<": lambda: a < c, "<=": lambda: a <= c,
                        ">": lambda: a > c, ">=": lambda: a >= c}[e.op]()
            except TypeError:
                return UNKNOWN
        if isinstance(e, (ast.And, ast.Or)):  # both sides: a chart row records every tag a rule tests
            left, right = ev(e.left), ev(e.right)
            return k_and(left, right) if isinstance(e, ast.And) else k_or(left, right)
        if isinstance(e, ast.Not):
            self._negated = not self._negated
            try:
                return k_not(ev(e.operand))
            finally:
                self._negated = not self._negated
        if isinstance(e, ast.BinOp):
            a, c = ev(e.left), ev(e.right)
            if e.op == "+" and isinstance(a, str) and isinstance(c, str):  # text joined (a box's name)
                return a + c
            if not is_number(a) or not is_number(c):
                return UNKNOWN
            try:
                if e.op == "+":
                    return a + c
                if e.op == "-":
                    return a - c
                if e.op == "*":
                    return a * c
                if e.op == "/":
                    return Fraction(a) / Fraction(c)
                return a % c
            except (ZeroDivisionError, TypeError):
                return UNKNOWN
        if isinstance(e, ast.Neg):
            v = ev(e.operand)
            return -v if is_number(v) else UNKNOWN
        if isinstance(e, ast.Cond):
            t = truth(ev(e.test))
            a, c = ev(e.then), ev(e.orelse)
            if t is True:
                return a
            if t is False:
                return c
            return a if a == c and a is not UNKNOWN else UNKNOWN
        if isinstance(e, ast.Comprehension):
            inner = dict(env)
            inner[e.var] = UNKNOWN
            ev(e.source)
            where = self.ev(e.where, inner, depth + 1) if e.where is not None else True
            elem = self.ev(e.element, inner, depth + 1)
            if e.func == "any":
                return k_and(where, elem)
            if e.func == "all":
                return k_or(k_not(where), elem)
            return UNKNOWN
        if isinstance(e, ast.ListLit):
            items = [ev(i) for i in e.items]
            return UNKNOWN if any(i is UNKNOWN for i in items) else tuple(items)
        if isinstance(e, ast.In):
            item, coll = ev(e.item), ev(e.collection)
            if item is UNKNOWN or not isinstance(coll, tuple):
                return UNKNOWN
            found = item in coll
            return not found if getattr(e, "negated", False) else found
        if isinstance(e, ast.Index):
            return self._index(e, env, depth)
        return UNKNOWN

    def _name(self, name: str, env: dict, depth: int):
        if name in env:
            v = env[name]
            if isinstance(v, Bound):
                return self.ev(v.expr, v.env, depth + 1)
            if isinstance(v, Each):
                return UNKNOWN
            if isinstance(v, Chosen):
                return UNKNOWN if v.optional else PICKED
            return v
        if name == "turn":
            return self.turn if self.turn is not None else UNKNOWN
        if name == "scenario":
            return self.scenario if self.scenario is not None else UNKNOWN
        if name == "active":
            return self.engine.entities[self.active] if self.active is not None else UNKNOWN
        decl = self.game.names.get(name)
        if decl is None:
            phases = self.engine.phase_names()
            return name if name in phases else UNKNOWN
        if isinstance(decl, ast.VarDecl):
            return self.store.var(name) if self.store is not None and decl.scope == "var" else UNKNOWN
        if isinstance(decl, ast.Entity) and decl.kind == "option":
            return UNKNOWN
        return self.engine.entities.get(name, UNKNOWN)

    def _call(self, e: ast.Call, env: dict, depth: int):
        if e.func == "terrain":
            for a in e.args:
                self.ev(a, env, depth + 1)
            if self.kind == "terrain":
                self.touched = True
                return self.row
            return UNKNOWN
        if e.func == "number" and e.args:
            return self.ev(e.args[0], env, depth + 1)
        if e.func == "text" and len(e.args) == 1:  # a number or a name as text ("turn_" + text(3))
            v = self.ev(e.args[0], env, depth + 1)
            if isinstance(v, Entity):
                return v.name
            return str(v) if isinstance(v, (int, str)) and not isinstance(v, bool) else UNKNOWN
        if (e.func == "count" and len(e.args) == 1 and isinstance(e.args[0], ast.Call) and e.args[0].func == "edge"
                and self.kind == "edge" and self.own_tags == "present"):
            for a in e.args[0].args:
                self.ev(a, env, depth + 1)
            return AtLeast(1)  # a hexside of this row has at least the row's own feature
        decl = self.game.names.get(e.func)
        args = [self.ev(a, env, depth + 1) for a in e.args]
        if isinstance(decl, ast.Function):
            # a function is pure: its value depends on its arguments and on what this evaluator
            # knows, so a walk that asks the same again (a schedule, turn after turn) reads it back
            memo = key = None
            if self.store is not None and self.kind is None:
                memo = self.store.memo
                key = (id(decl), tuple(args), depth)
                if _reads_the_game(self.engine, decl):
                    key += (self.turn, self.scenario, self.active, self.store.version)
                try:
                    if key in memo:
                        return memo[key]
                except TypeError:  # an argument that cannot be a key (a list value)
                    memo = None
            inner = {p.name: (args[i] if i < len(args) else UNKNOWN) for i, p in enumerate(decl.params)}
            value = self.ev(decl.body, inner, depth + 1)
            if memo is not None:
                memo[key] = value
            return value
        return UNKNOWN

    def _is(self, e: ast.Is, env: dict, depth: int):
        tag = e.tag
        obj = e.obj
        result = UNKNOWN
        obj_domain = obj.func if isinstance(obj, ast.Call) and obj.func in ("terrain", "edge") else None
        if self.kind and tag in self._domain and obj_domain in (None, self.kind):
            if obj_domain == "terrain":
                self.ev(obj, env, depth + 1)
            self.touched = True
            has = tag in self.row.tags and self.own_tags == "present"
            if has:
                self.own = True
                self.used.add(tag)
                if self._negated == e.negated:
                    self.own_positive = True
            if self.kind == "terrain" or has or tag in self.row.tags:
                result = has
            else:
                result = False if self.others == "absent" else UNKNOWN
        else:
            value = self.ev(obj, env, depth + 1)
            if isinstance(value, Entity):
                result = tag in value.tags
        return k_not(result) if e.negated else result

    def _index(self, e: ast.Index, env: dict, depth: int):
        args = [self.ev(a, env, depth + 1) for a in e.args]
        if not isinstance(e.obj, ast.Name):
            return UNKNOWN
        table = self.engine.tables.get(e.obj.id)
        if table is None:
            return UNKNOWN
        # a key known by name: a terrain, or a name written in the rules (`tec[tec_column(u),
        # "primary_road"]`, a road's rate whichever unit moves)
        known = [(i, a.name if isinstance(a, Entity) else a) for i, a in enumerate(args)
                 if isinstance(a, Entity) or isinstance(a, str)]
        if len(args) == 2 and len(known) == 1:
            i, key = known[0]
            if i == 1:  # a row key: show the row, one value per column
                for low, _high, cells, _text in table.rows:
                    if low == key:
                        return Slice(e.obj.id, tuple((table.column_text[j], f"{c}") for j, c in enumerate(cells)))
            elif key in table.columns:
                j = table.columns.index(key)
                return Slice(e.obj.id, tuple((text, f"{cells[j]}") for _low, _high, cells, text in table.rows))
        return UNKNOWN


def residual(partial: "Partial", e, env: dict | None = None):
    """What is left of a condition once `partial` decides what it knows: the parts of an `and`
    it finds true and the parts of an `or` it finds false are dropped (`p == "initial" and active
    == axis and controlled_by(x, axis)` on the Axis Initial Phase leaves `controlled_by(x, axis)`);
    None when nothing is left (it is true). Equivalent to `e` under what `partial` knows."""
    if truth(partial.ev(e, env)) is True:
        return None
    if isinstance(e, ast.And):
        left, right = residual(partial, e.left, env), residual(partial, e.right, env)
        if left is None or right is None:
            return right if left is None else left
        return ast.And(left=left, right=right)
    if isinstance(e, ast.Or):
        if truth(partial.ev(e.left, env)) is False:
            return residual(partial, e.right, env)
        if truth(partial.ev(e.right, env)) is False:
            return residual(partial, e.left, env)
    return e


_GAME_NAMES = frozenset(("turn", "active", "scenario", "phase"))


def _reads_the_game(engine, decl: ast.Function, seen: frozenset = frozenset()) -> bool:
    """Whether a function's value can depend on more than its arguments: it reads the turn, the
    active side, the scenario, the phase or a variable, or calls a function that does. Cached."""
    cache = engine.derived_cache.setdefault("reads_the_game", {})
    if decl.name in cache:
        return cache[decl.name]
    game = engine.game
    found = False
    for n in _nodes(decl.body):
        if isinstance(n, ast.Name) and (n.id in _GAME_NAMES or isinstance(game.names.get(n.id), ast.VarDecl)):
            found = True
        elif isinstance(n, ast.Attr) and n.name in engine.vars:  # a side or unit variable
            found = True
        elif isinstance(n, ast.Call):
            callee = game.names.get(n.func)
            if isinstance(callee, ast.Function) and (callee.name in seen or _reads_the_game(engine, callee, seen | {decl.name})):
                found = True
        if found:
            break
    if not seen:  # a result found inside a cycle may be partial: keep only the outermost
        cache[decl.name] = found
    return found


def _nodes(node):
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Node):
            yield n
            stack.extend(getattr(n, f) for f in type(n).model_fields if f != "span")
        elif isinstance(n, (list, tuple)):
            stack.extend(n)
        elif isinstance(n, dict):
            stack.extend(n.values())


def constant(engine, expr):
    """The value of an expression that needs nothing from a game in progress, else UNKNOWN."""
    return Partial(engine).ev(expr)
