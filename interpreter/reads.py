"""What state a rule reads, and where: how long a memoized value stays true.

`dependencies.py` sorts rules into levels (static, positions, dynamic). A rule of the last two
levels was memoized for one state version: any change of the game (a unit marked `moved`, a
marker on a hex at the other end of the map) threw every value away. This analysis reads each
function and quantity (and what it calls) and says exactly which changes can alter its value:

- **kinds** of state (the journal's words, `state.py`): `positions` (where units are),
  `steps`, `marker:NAME` (on units or locations), `uvar:NAME`, `lvar:NAME`, `svar:NAME`,
  `var:NAME` (global variables and options), `turn`, `phase`, `active`, `turn_order`, `cards`,
  `*` (anything: a built-in this analysis does not know);
- **where**, for the kinds read through locations: a rule's location parameters and the
  locations of its unit parameters are its *anchors*; `units_at(n) for n in adjacent(h)` reads
  positions within 1 of anchor `h`. The result says, per anchor, the radius (in steps of the
  board's adjacency) within which the rule reads; a rule that reads a location found another way
  (`occupied()`, `locations()`, a trace) reads that kind *everywhere*;
- **which units**: the kinds read from the record of each unit parameter (`is_combat(u)` reads
  `u`'s steps and markers, nothing else).

It also records what a rule reads of the *type* of each unit parameter (`facts`: the tags it
tests, `tag:mechanized`, the properties it reads, `prop:move`, its `side` or `type`), or that it
uses the unit otherwise (`None`: compares it, passes it to a built-in...). A value cached for the
whole game is then keyed by those facts, not by the unit's type: `move_cost(u, from, to)` reads
only whether `u` is mechanized, so two unit types share their costs (generated.py).

Abstract values stand for what an expression can be: a location within `d` of an anchor, a unit
standing there (or exactly a unit parameter), a list of those, or anything (`TOP`). Everything
this analysis cannot place is read everywhere, so it errs only towards invalidating more: the
memo of `memo.py` drops a value when a change of a kind it reads happens within its radius of
one of its anchors, when a unit parameter's record changes in a kind read from it, or, for kinds
read everywhere, on any such change.
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.dsl.stdlib import BUILTINS, reading

# built-ins that read nothing of the state (the board and their arguments only), as each declares
# (`dsl/stdlib.py`, `Builtin.reads`); the others are placed in `_builtin` below or, if unknown,
# read everything. Some of them are placed before this set is asked, because of what their value
# is, a different fact from what they read: a location near their argument (`adjacent`), their
# argument itself (`list`) or an element of it (`first`)
_PURE = reading("nothing")
_PASS = frozenset({"list"})  # the value of its argument
_ELEMENT = frozenset({"first"})  # an element of its argument
# Placed here, not from `Builtin.reads`, because what they read is finer than its three words: a
# search reads the positions and whatever its movement mode's properties read (`mode_kinds`), and
# these read every unit's place, on the map or in an off-map box (the journal's `positions`)
_SEARCHES = frozenset({"reachable", "path_cost", "traceable", "trace_region", "trace_back"})
_ALL_UNITS = frozenset({"units_of", "all_units", "eliminated_units", "units_in_box"})
EVERYTHING = "*"


MAX_RADIUS = 6  # reads farther than this from an anchor count as everywhere (recursion widens)
# kinds of state that are one value each for the whole game: a rule of no parameters that reads
# only these is a *derived global* (see ReadAnalysis.derived)
_GLOBAL_PREFIXES = ("var:", "svar:", "fn:")
_GLOBAL_KINDS = frozenset({"turn", "phase", "active", "turn_order", "cards"})


def is_global_kind(kind: str) -> bool:
    return kind in _GLOBAL_KINDS or kind.startswith(_GLOBAL_PREFIXES)


# ==================================================================== abstract values
class V:
    """An abstract value. `kind`: "loc" (a location), "unit", "seq" (a list of `elem`), "item"
    (an element of list parameter `param`: a location or a unit, placed by the caller's
    argument), "other" (numbers, sides, names: nothing located), "top" (anything), "bottom"
    (nothing yet: a recursive rule's value while its fixpoint is computed). `near`: for a location
    or a unit, {anchor: d}, the value lies within d of each of these anchors (empty: anywhere).
    `param`: the index of the unit parameter a unit value is exactly."""

    __slots__ = ("kind", "near", "param", "elem")

    def __init__(self, kind: str, near: dict | None = None, param: int | None = None, elem: "V | None" = None):
        self.kind = kind
        self.near = {k: d for k, d in near.items() if d <= MAX_RADIUS} if near else {}
        self.param = param
        self.elem = elem

    def __eq__(self, other) -> bool:
        return (isinstance(other, V) and self.kind == other.kind and self.near == other.near
                and self.param == other.param and self.elem == other.elem)

    def __hash__(self) -> int:
        return hash((self.kind, self.param))

    def __repr__(self) -> str:  # for tests and debugging
        if self.kind == "seq":
            return f"[{self.elem!r}]"
        if self.kind in ("loc", "unit"):
            p = f"#{self.param}" if self.param is not None else ""
            return f"{self.kind}{p}{self.near}"
        return self.kind


TOP = V("top")
OTHER = V("other")
BOTTOM = V("bottom")


def loc(near: dict) -> V:
    return V("loc", dict(near))


def seq(elem: V) -> V:
    return V("seq", elem=elem)


def element(v: V) -> V:
    if v.kind == "bottom":
        return BOTTOM
    return v.elem if v.kind == "seq" else TOP


def _located(v: V) -> dict:
    """{anchor: d} of where a location or a unit is (a unit parameter is at its own anchor)."""
    if v.kind == "item" or (v.kind == "unit" and v.param is not None):
        return {**v.near, v.param: 0}
    return v.near if v.kind in ("loc", "unit") else {}


def join(a: V, b: V) -> V:
    """A value that is `a` or `b`: what both are."""
    if a.kind == "bottom":
        return b
    if b.kind == "bottom":
        return a
    if a.kind == "other" and b.kind == "other":
        return OTHER
    if a.kind == "seq" and b.kind == "seq":
        return seq(join(a.elem, b.elem))
    if a.kind in ("loc", "unit") and a.kind == b.kind:
        if a.kind == "unit" and a.param is not None and a.param == b.param:
            return a
        na, nb = _located(a), _located(b)
        return V(a.kind, {k: max(d, nb[k]) for k, d in na.items() if k in nb})
    if a.kind == "item" and b.kind == "item" and a.param == b.param:
        return a
    return TOP


# ==================================================================== what a rule reads
@dataclass(frozen=True)
class Reads:
    """What a rule reads (see the module's docstring)."""

    everywhere: frozenset  # kinds read anywhere: any change of one drops every value
    near: frozenset  # kinds read only near the anchors
    radius: tuple  # ((anchor parameter index, radius), ...)
    units: tuple  # ((unit parameter index, kinds read from its record), ...)
    result: V = TOP  # the value, in terms of the parameters (for callers)
    # ((unit parameter index, facts of its type read, or None: the unit itself is used), ...)
    facts: tuple = ()

    @property
    def kinds(self) -> frozenset:
        return self.everywhere | self.near | frozenset(k for _, ks in self.units for k in ks)


UNKNOWN = Reads(frozenset({EVERYTHING}), frozenset(), (), (), TOP, ())
NOTHING_YET = Reads(frozenset(), frozenset(), (), (), BOTTOM, ())


class _Acc:
    """The reads found so far in one rule."""

    def __init__(self, unit_params=()) -> None:
        self.unit_params = frozenset(unit_params)  # anchors that are a unit's location
        self.everywhere: set = set()
        self.near: set = set()
        self.radius: dict = {}
        self.units: dict = {}
        self.facts: dict = {}  # unit parameter -> facts of its type read, or None (used otherwise)

    def fact(self, param: int, fact: str | None) -> None:
        """A fact of unit parameter `param`'s type read (None: the unit itself is used)."""
        if fact is None:
            self.facts[param] = None
        elif self.facts.get(param, ()) is not None:
            self.facts.setdefault(param, set()).add(fact)

    def read(self, kinds, v: V) -> None:
        """`kinds` read from value v (a unit's record, a location's state)."""
        if not kinds or v.kind == "bottom":
            return
        if v.kind == "seq":  # `xs is marker` tests every element
            v = v.elem
        if (v.kind == "unit" and v.param is not None) or v.kind == "item":
            # a unit parameter's record, or whatever an element of a list parameter is (the
            # caller places it: a unit's record or a location's state)
            self.units.setdefault(v.param, set()).update(kinds)
            return
        self.around(kinds, v, 0)

    def around(self, kinds, v: V, r: int) -> None:
        """`kinds` read within r of where v is."""
        if not kinds or v.kind == "bottom":
            return
        near = _located(v)
        if not near:
            self.everywhere.update(kinds)
            return
        anchor = min(near, key=lambda k: (near[k], k))
        if anchor in self.unit_params:
            # near a unit parameter's location: the unit's moves must drop the value too
            self.units.setdefault(anchor, set()).add("positions")
        self.near.update(kinds)
        self.radius[anchor] = max(self.radius.get(anchor, 0), near[anchor] + r)

    def result(self, value: V) -> Reads:
        near, radius = self.near, self.radius
        if any(r > MAX_RADIUS for r in radius.values()):  # too far to be worth placing
            self.everywhere |= near
        near = near - self.everywhere  # read everywhere: nothing to place
        if not near:
            radius = {}
        if value.kind == "unit" and value.param is not None:
            self.fact(value.param, None)  # the unit itself is the value
        return Reads(frozenset(self.everywhere), frozenset(near), tuple(sorted(radius.items())),
                     tuple(sorted((k, frozenset(v)) for k, v in self.units.items())), value,
                     tuple(sorted((k, None if v is None else frozenset(v)) for k, v in self.facts.items())))


class ReadAnalysis:
    """`of(decl)`: the Reads of a function or quantity. Every rule is analysed when this is made,
    callees before callers (the strongly connected components of the call graph, in reverse
    topological order; a recursive component iterates to its fixpoint from "nothing yet")."""

    def __init__(self, game) -> None:
        self.game = game
        names = game.names
        self._done: dict[str, Reads] = {}
        self.markers = {n for n, d in names.items() if isinstance(d, ast.Entity) and d.kind == "marker"}
        self.scopes = {n: d.scope for n, d in names.items() if isinstance(d, ast.VarDecl)}
        self.options = {n for n, d in names.items() if isinstance(d, ast.Entity) and d.kind == "option"}
        # properties and tags that change with a unit's steps (`at steps 1 { attack: 4 }`)
        self.per_step = {p.key for d in names.values() if isinstance(d, ast.Unit) for sv in d.step_values for p in sv.props}
        self._modes: dict[str, frozenset] = {}
        self.derived: dict[str, frozenset] = {}  # derived global -> the kinds it reads
        rules = [d for d in names.values() if isinstance(d, (ast.Function, ast.Quantity))]
        for component in _components(rules, self._callees):
            self._settle(component)

    # ------------------------------------------------------------ rules
    def of(self, decl) -> Reads:
        found = self._done.get(decl.name)
        if found is None:  # a declaration outside the game's names (a test's)
            self._settle([decl])
            found = self._done[decl.name]
        return found

    def _settle(self, component: list) -> None:
        recursive = len(component) > 1 or component[0].name in self._callees(component[0])
        if not recursive:
            self._done[component[0].name] = self._summarize(component[0])
        else:
            for d in component:
                self._done[d.name] = NOTHING_YET
            for _ in range(50):
                changed = False
                for d in component:
                    new = self._summarize(d)
                    if new != self._done[d.name]:
                        self._done[d.name] = new
                        changed = True
                if not changed:
                    break
            else:  # no fixpoint in sight: read everything
                for d in component:
                    self._done[d.name] = UNKNOWN
        for d in component:
            self._note_derived(d)

    def _note_derived(self, decl) -> None:
        """A rule of no parameters that reads only global values (`winter() = turn >= 28`) is a
        derived global: its callers read *its value* (kind `fn:NAME`), which changes far less
        often than what it reads (the turn)."""
        r = self._done[decl.name]
        if (not decl.params and not r.near and not r.units and r.everywhere
                and all(is_global_kind(k) for k in r.everywhere)):
            self.derived[decl.name] = r.everywhere

    def _callees(self, decl) -> set:
        found = getattr(self, "_callee_cache", None)
        if found is None:
            found = self._callee_cache = {}
        out = found.get(decl.name)
        if out is None:
            out = found[decl.name] = set()
            names = self.game.names

            def walk(n):
                if isinstance(n, ast.Call):
                    target = names.get(n.func)
                    if isinstance(target, (ast.Function, ast.Quantity)):
                        out.add(target.name)
                    # a search evaluates its mode's properties: the rules they call come first
                    for a in n.args:
                        if isinstance(a, ast.Name) and isinstance(names.get(a.id), ast.Movement):
                            for prop in names[a.id].props:
                                walk(prop.value)
                if isinstance(n, ast.Node):
                    for f in type(n).model_fields:
                        if f != "span":
                            walk(getattr(n, f))
                elif isinstance(n, (list, tuple)):
                    for x in n:
                        walk(x)
            walk(decl)
        return out

    def expression(self, expr, params: list) -> Reads:
        """The Reads of an expression whose free names `params` ((name, type), ...) are bound by
        its caller, as if it were a rule of those parameters (a movement mode's property)."""
        decl = ast.Function(header=ast.Header(name="(expression)"), type=None, body=expr,
                            params=[ast.Param(name=n, type=t) for n, t in params])
        return self._summarize(decl)

    def _summarize(self, decl) -> Reads:
        acc = _Acc(i for i, p in enumerate(decl.params) if p.type == "unit")
        env = {}
        for i, p in enumerate(decl.params):
            if p.type == "location":
                env[p.name] = loc({i: 0})
            elif p.type == "unit":
                env[p.name] = V("unit", {}, i)
            elif p.type in ("int", "num", "bool", "str", "name", "side", "odds"):
                env[p.name] = OTHER
            elif p.type == "list":
                env[p.name] = seq(V("item", param=i))
            else:
                env[p.name] = TOP
        if isinstance(decl, ast.Function):
            value = self._walk(decl.body, env, acc)
        else:
            value = OTHER
            for e in [decl.base] + [x for m in decl.modifiers for x in (m.when, m.value)]:
                if e is not None:
                    self._walk(e, env, acc)
        return acc.result(value)

    def mode_kinds(self, name: str | None) -> frozenset:
        """Every kind a movement mode's properties read (a search reads them everywhere); None:
        every mode's."""
        if name is None:
            return frozenset().union(*(self.mode_kinds(m.name) for m in self.game.of_kind(ast.Movement)))
        found = self._modes.get(name)
        if found is None:
            decl = self.game.names.get(name)
            if not isinstance(decl, ast.Movement):
                return frozenset({EVERYTHING})
            acc = _Acc()
            env = {b: TOP for b in ("u", "s", "origin", "from", "to")}
            for prop in decl.props:
                if prop.value is not None:
                    self._walk(prop.value, env, acc)
            found = acc.result(TOP).kinds
            if not any(r is NOTHING_YET for r in self._done.values()):
                self._modes[name] = found  # not while a fixpoint is being computed
        return found

    # ------------------------------------------------------------ expressions
    def _walk(self, e, env: dict, acc: _Acc) -> V:
        method = getattr(self, "_w_" + type(e).__name__, None)
        if method is None:  # a node kind this analysis does not know: it may read anything
            acc.everywhere.add(EVERYTHING)
            return TOP
        return method(e, env, acc)

    def _w_Num(self, e, env, acc):
        return OTHER

    _w_Str = _w_Bool = _w_NoneLit = _w_OddsLit = _w_Num

    def _w_Roll(self, e, env, acc):  # never memoized (dice), but say it
        acc.everywhere.add(EVERYTHING)
        return OTHER

    def _w_Name(self, e, env, acc):
        n = e.id
        if n in env:
            v = env[n]
            if v.kind == "unit" and v.param is not None:
                acc.fact(v.param, None)  # used as a value (compared, passed to a built-in...)
            return v
        if n in ("turn", "phase", "active", "turn_order"):
            acc.everywhere.add(n)
            return OTHER if n != "turn_order" else seq(OTHER)
        if self.scopes.get(n) == "var" or n in self.options:
            acc.everywhere.add("var:" + n)
            return TOP
        return OTHER  # a declared name, a constant of the scenario

    def _unit_param(self, e, env) -> V | None:
        """The value of `e` if it is a unit parameter's name (read for a fact, not used)."""
        if isinstance(e, ast.Name):
            v = env.get(e.id)
            if v is not None and v.kind == "unit" and v.param is not None:
                return v
        return None

    def _w_Attr(self, e, env, acc):
        param = self._unit_param(e.obj, env)
        obj = param if param is not None else self._walk(e.obj, env, acc)
        name = e.name
        scope = self.scopes.get(name)
        if param is not None:
            if name in ("side", "type"):
                acc.fact(param.param, name)
            elif name in ("id", "label"):
                acc.fact(param.param, None)
            elif scope is None and name not in ("loc", "box", "steps", "max_steps") and name not in self.per_step:
                acc.fact(param.param, "prop:" + name)
        if name == "loc":
            acc.read(("positions",), obj)
            if obj.kind == "unit" and obj.param is not None:
                return loc({obj.param: 0})
            return loc(_located(obj))
        if name == "box":  # the holding box a unit is in: where it is, off the map
            acc.read(("positions",), obj)
            return OTHER
        if scope == "unit_var":
            acc.read(("uvar:" + name,), obj)
            return TOP
        if scope == "location_var":
            acc.read(("lvar:" + name,), obj)
            return TOP
        if scope == "side_var":
            acc.everywhere.add("svar:" + name)
            return TOP
        if name in ("steps", "max_steps") or name in self.per_step:
            acc.read(("steps",), obj)
            return OTHER
        return TOP  # a property of a type, a location's map attribute, a side's name...

    def _w_Is(self, e, env, acc):
        param = self._unit_param(e.obj, env)
        obj = param if param is not None else self._walk(e.obj, env, acc)
        if param is not None and e.tag not in self.markers and e.tag not in self.per_step:
            acc.fact(param.param, "tag:" + e.tag)
        if e.tag in self.markers:
            acc.read(("marker:" + e.tag,), obj)
        elif e.tag in self.per_step:
            acc.read(("steps",), obj)
        return OTHER

    def _w_Index(self, e, env, acc):
        obj = self._walk(e.obj, env, acc)
        for a in e.args:
            self._walk(a, env, acc)
        return element(obj) if obj.kind == "seq" else TOP

    def _w_BinOp(self, e, env, acc):
        left = self._walk(e.left, env, acc)
        right = self._walk(e.right, env, acc)
        if e.op == "+" and left.kind == "seq" and right.kind == "seq":
            return join(left, right)
        return OTHER if left.kind == "other" and right.kind == "other" else TOP

    def _w_Compare(self, e, env, acc):
        self._walk(e.left, env, acc)
        self._walk(e.right, env, acc)
        return OTHER

    def _w_And(self, e, env, acc):
        self._walk(e.left, env, acc)
        self._walk(e.right, env, acc)
        return OTHER  # true or false

    _w_Or = _w_And

    def _w_Not(self, e, env, acc):
        self._walk(e.operand, env, acc)
        return OTHER

    def _w_Neg(self, e, env, acc):
        self._walk(e.operand, env, acc)
        return OTHER

    def _w_In(self, e, env, acc):
        self._walk(e.item, env, acc)
        self._walk(e.collection, env, acc)
        return OTHER

    def _w_Cond(self, e, env, acc):
        self._walk(e.test, env, acc)
        return join(self._walk(e.then, env, acc), self._walk(e.orelse, env, acc))

    def _w_ListLit(self, e, env, acc):
        items = [self._walk(x, env, acc) for x in e.items]
        if not items:
            return seq(OTHER)
        value = items[0]
        for x in items[1:]:
            value = join(value, x)
        return seq(value)

    def _w_Comprehension(self, e, env, acc):
        source = self._walk(e.source, env, acc)
        inner = {**env, e.var: element(source)}
        if e.where is not None:
            self._walk(e.where, inner, acc)
        value = self._walk(e.element, inner, acc)
        if e.func == "list":
            return seq(value)
        if e.func == "first":
            return value
        return OTHER

    def _w_Call(self, e, env, acc):
        decl = self.game.names.get(e.func)
        rule = isinstance(decl, (ast.Function, ast.Quantity))
        args = []
        for a in e.args:  # a unit parameter passed to a rule: its facts are the callee's
            param = self._unit_param(a, env) if rule else None
            args.append(param if param is not None else self._walk(a, env, acc))
        for v in e.kwargs.values():
            self._walk(v, env, acc)
        if rule:
            if decl.name in self.derived:
                acc.everywhere.add("fn:" + decl.name)
                return self._done[decl.name].result
            return self._call(self._done.get(decl.name) or self.of(decl), args, acc, [p.type for p in decl.params])
        if isinstance(decl, ast.Procedure) or e.func not in BUILTINS:
            acc.everywhere.add(EVERYTHING)
            return TOP
        return self._builtin(e, args, acc)

    def _call(self, reads: Reads, args: list, acc: _Acc, types: list | None = None) -> V:
        """A call of a rule that reads `reads`, with these argument values (`types`: the
        callee's parameter types)."""
        acc.everywhere.update(reads.everywhere)
        given = {i: facts for i, facts in reads.facts}
        for i, arg in enumerate(args):
            if arg.kind == "unit" and arg.param is not None:
                if types is not None and (i >= len(types) or types[i] != "unit"):
                    acc.fact(arg.param, None)  # the callee does not take it as a unit: unknown use
                elif i in given:  # what the callee reads of it (nothing if it is not in `given`)
                    for f in (given[i] if given[i] is not None else (None,)):
                        acc.fact(arg.param, f)
        for i, kinds in reads.units:
            acc.read(kinds, _anchor(args, i))
        for i, r in reads.radius:
            acc.around(reads.near, _anchor(args, i), r)
        return _substitute(reads.result, args)

    def _builtin(self, e, args: list, acc: _Acc) -> V:
        f = e.func
        first = args[0] if args else TOP
        if f in _PASS:
            return first
        if f in _ELEMENT:
            return element(first)
        if f == "adjacent":
            return seq(loc({k: d + 1 for k, d in _located(first).items()}))
        if f == "common_neighbors":  # next to both
            a, b = _located(first), _located(args[1] if len(args) > 1 else TOP)
            near = {k: d + 1 for k, d in a.items()}
            for k, d in b.items():
                near[k] = min(near.get(k, d + 1), d + 1)
            return seq(loc(near))
        if f in ("locations", "locations_with"):
            return seq(loc({}))
        if f == "loc":
            return loc({})
        if f in _PURE:  # numbers, names, sides, or a list of them: nothing located
            return seq(OTHER) if BUILTINS[f].returns == "list" else OTHER
        if f == "units_at":
            acc.read(("positions",), first)
            return seq(V("unit", _located(first)))
        if f == "top_unit":
            acc.read(("positions",), first)
            return V("unit", _located(first))
        if f == "side_of_location":
            acc.read(("positions",), first)
            return OTHER
        if f in _ALL_UNITS:
            acc.everywhere.add("positions")
            return seq(V("unit"))
        if f == "occupied":
            acc.everywhere.add("positions")
            return seq(loc({}))
        if f in _SEARCHES:
            mode = next((a for a in e.args if isinstance(a, ast.Name) and isinstance(self.game.names.get(a.id), ast.Movement)), None)
            acc.everywhere.add("positions")
            acc.everywhere.update(self.mode_kinds(mode.id if mode is not None else None))
            return seq(loc({})) if f != "path_cost" and f != "traceable" else OTHER
        if f in ("hand", "deck_size"):
            acc.everywhere.add("cards")
            return seq(OTHER) if f == "hand" else OTHER
        acc.everywhere.add(EVERYTHING)  # a built-in this analysis does not know
        return TOP


def _components(rules: list, callees) -> list[list]:
    """The strongly connected components of the call graph (Tarjan's algorithm, iterative),
    callees' components first."""
    by_name = {d.name: d for d in rules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list] = []
    for root in rules:
        if root.name in index:
            continue
        work = [(root.name, iter(sorted(n for n in callees(root) if n in by_name)))]
        index[root.name] = low[root.name] = len(index)
        stack.append(root.name)
        on_stack.add(root.name)
        while work:
            name, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(n for n in callees(by_name[child]) if n in by_name))))
                elif child in on_stack:
                    low[name] = min(low[name], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[name])
            if low[name] == index[name]:
                component = []
                while True:
                    n = stack.pop()
                    on_stack.discard(n)
                    component.append(by_name[n])
                    if n == name:
                        break
                out.append(component)
    return out


def _anchor(args: list, i: int) -> V:
    """The caller's value for the callee's anchor i: the argument, or an element of it when it
    is a list (the callee's list parameter)."""
    v = args[i] if i < len(args) else TOP
    return v.elem if v.kind == "seq" else v


def _substitute(value: V, args: list) -> V:
    """A callee's result (in terms of its parameters) in terms of the caller's argument values."""
    if value.kind == "bottom":
        return BOTTOM
    if value.kind == "seq":
        return seq(_substitute(value.elem, args))
    if value.kind == "unit" and value.param is not None:
        return args[value.param] if value.param < len(args) else TOP
    if value.kind == "item":
        return _anchor(args, value.param)
    if value.kind in ("loc", "unit"):
        near: dict = {}
        for i, d in value.near.items():
            outer = _located(_anchor(args, i))
            for k, d2 in outer.items():  # within d of the argument, itself within d2 of anchor k
                near[k] = min(near.get(k, d + d2), d + d2)
        return V(value.kind, near)
    return value
