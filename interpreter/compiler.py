"""Compile the checked AST into Python closures, once.

Each expression becomes `f(fr) -> value` and each statement `s(fr) -> signal`, where `fr` is a
`Frame`: the local variables plus the running context (`fr.ctx`: engine, state, trace, decisions).
Names are resolved at compile time (local, constant, variable, declared name), so evaluation never
walks the tree or searches scopes. Evaluation is bounded: every statement and loop iteration
counts against a step limit and exceeding it raises a located RuleError.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

from warcodex.dsl import ast
from warcodex.dsl.composition import DEFAULT_ORDER, composed, stage_order
from warcodex.dsl.limits import MAX_LENGTH, MAX_MAGNITUDE
from warcodex.dsl.stdlib import BUILTINS, RANDOM_BUILTINS
from warcodex.dsl.walk import walk
from warcodex.interpreter.chance import Pending, addable
from warcodex.interpreter.narrowing import comprehension_condition, for_condition, narrowed, tagged_locations, tagged_units, walk_tagged_locations
from warcodex.interpreter.readlog import is_view
from warcodex.interpreter.values import CellValue, Derivation, Entity, Odds, RuleError, RuleRefusal, UnitRef

Fn = Callable[["Frame"], Any]
STOP = object()  # signal returned by `stop`
_UNBOUND = object()
_FAST_COMPARE = {"==": int.__eq__, "!=": int.__ne__, "<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__}
_EMPTY_AGGREGATE = {"sum": 0, "count": 0, "any": False, "all": True, "list": (), "first": None, "min": None, "max": None}


class Frame:
    """Local variables of one procedure/action/trigger invocation, and the running context."""

    __slots__ = ("vars", "ctx")

    def __init__(self, ctx, vars: dict | None = None) -> None:
        self.ctx = ctx
        self.vars = vars if vars is not None else {}


def _num(v):
    """Normalise exact fractions that are whole numbers back to int (keeps logs readable)."""
    if type(v) is int:  # the common case, without isinstance's abstract-class machinery
        return v
    if isinstance(v, Fraction) and v.denominator == 1:
        return v.numerator
    return v


def divide_rounded(a, b, how: str):
    """a / b rounded, in integers when both are integers (halving is frequent)."""
    if type(a) is int and type(b) is int and b > 0:
        if how == "up":
            return -(-a // b)
        if how == "down":
            return a // b
        return (2 * a + b) // (2 * b)
    return round_value(_arith("/", a, b, None), how)


def round_value(v, how: str | None):
    if how is None:
        return _num(v)
    if how == "up":
        return math.ceil(v)
    if how == "down":
        return math.floor(v)
    return int(Fraction(v) + Fraction(1, 2)) if v >= 0 else -int(-Fraction(v) + Fraction(1, 2))


def _arith(op: str, a, b, span):
    try:
        if op == "+":
            return bounded(a + b, span)
        if op == "-":
            return bounded(a - b, span)
        if op == "*":
            if isinstance(a, (str, tuple)) or isinstance(b, (str, tuple)):
                raise TypeError  # "ab" * 3: repetition is no rule arithmetic
            return bounded(a * b, span)
        if op == "/":
            if isinstance(a, int) and isinstance(b, int):
                return bounded(_num(Fraction(a, b)), span)
            return bounded(_num(Fraction(a) / Fraction(b)), span)
        if op == "%":
            return bounded(a % b, span)
    except ZeroDivisionError:
        raise RuleError("division by zero", span) from None
    except (TypeError, ValueError):
        raise RuleError(f"cannot compute {_show(a)} {op} {_show(b)}", span) from None
    raise RuleError(f"unknown operator {op}", span)


def bounded(v, span):
    """`v` if it is within the engine's bounds (`limits.py`); a located RuleError otherwise, so a
    rule that doubles a value in a loop stops with a message instead of exhausting memory."""
    t = type(v)
    if t is int:
        if -MAX_MAGNITUDE <= v <= MAX_MAGNITUDE:
            return v
    elif t is Fraction:
        if abs(v.numerator) <= MAX_MAGNITUDE and v.denominator <= MAX_MAGNITUDE:
            return v
    elif t is str or t is tuple:
        if len(v) <= MAX_LENGTH:
            return v
        raise RuleError(f"a value of more than {MAX_LENGTH:,} elements: a rule grows it without bound", span)
    else:
        return v
    raise RuleError(f"a number beyond {MAX_MAGNITUDE:.0e}: a rule grows it without bound", span)


# What a built-in raises when the rules give it values it cannot use (a string to range(), a list
# where a unit is expected): a located RuleError at the call, like every other rule error.
BUILTIN_MISUSE = (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError, OverflowError)


def misuse(name: str, exc: BaseException, span) -> RuleError:
    detail = str(exc) or type(exc).__name__
    return RuleError(f"{name}(): these arguments cannot be used ({detail})", span)


def _show(v) -> str:
    return "none" if v is None else str(v)


def _compare(op: str, a, b, span):
    if op == "==":
        return a == b if not isinstance(b, CellValue) else b == a
    if op == "!=":
        return not (a == b if not isinstance(b, CellValue) else b == a)
    try:
        if op == "<":
            return a < b
        if op == "<=":
            return a <= b
        if op == ">":
            return a > b
        if op == ">=":
            return a >= b
    except TypeError:
        raise RuleError(f"cannot compare {_show(a)} {op} {_show(b)}", span) from None
    raise RuleError(f"unknown comparison {op}", span)


class Compiler:
    """Turns AST nodes into closures against one engine (`warcodex.interpreter.engine.Engine`)."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self._procedure_body: list = []  # the statements of the procedure being compiled (`_s_For`)

    # functions of named arguments, `f(ctx, *args)` (a movement mode's properties)
    def value(self, e: ast.Expr, params: tuple):
        """`f(ctx, *args)`: the value of `e` with `params` bound to the arguments."""
        fn = self.expr(e, frozenset(params))

        def run(ctx, *args):
            return fn(Frame(ctx, dict(zip(params, args))))
        return run

    def predicate(self, exprs: list, params: tuple):
        """`f(ctx, *args)`: true when any of the conditions is (in order; a missing one, a bare
        flag, is true)."""
        fns = [self.expr(e, frozenset(params)) if e is not None else (lambda fr: True) for e in exprs]

        def run(ctx, *args):
            fr = Frame(ctx, dict(zip(params, args)))
            return any(f(fr) for f in fns)
        return run

    # the rules' entries, `run(ctx, args, span)` (the generated compiler has the same interface)
    def quantity(self, q: ast.Quantity):
        return compile_quantity(self, q)

    def function(self, f: ast.Function):
        return compile_function(self, f)

    def procedure(self, p: ast.Procedure):
        return compile_procedure(self, p)

    # ================================================================ expressions
    def expr(self, e: ast.Expr, scope: frozenset[str], dynamic: bool = False) -> Fn:
        method = getattr(self, "_e_" + type(e).__name__)
        return method(e, scope, dynamic)

    def _e_Num(self, e, scope, dyn):
        v = e.value
        return lambda fr: v

    _e_Str = _e_Num
    _e_Bool = _e_Num

    def _e_NoneLit(self, e, scope, dyn):
        return lambda fr: None

    def _e_OddsLit(self, e, scope, dyn):
        if e.attack < 1 or e.defense < 1:
            raise RuleError(f"odds {e.attack}:{e.defense} cannot be computed", e.span)
        v = Odds.ratio(e.attack, e.defense)
        return lambda fr: v

    def _e_Name(self, e, scope, dyn):
        name = e.id
        if name in scope:
            def local(fr):
                v = fr.vars[name]
                if type(v) is Pending:  # exact odds: a count of hits is observed when read
                    v = fr.vars[name] = fr.ctx.chance.force(v)
                return v
            return local
        found = self.engine.global_name(name, e.span)
        if found is not None:
            return _global_reader(name, *found)
        if dyn:  # result bodies see the names of the procedure applying them
            span = e.span

            def dynamic(fr):
                try:
                    return fr.vars[name]
                except KeyError:
                    raise RuleError(f"'{name}' is not defined where this result is applied", span) from None
            return dynamic
        raise RuleError(f"unknown name '{name}'", e.span)

    def _e_Attr(self, e, scope, dyn):
        obj = self.expr(e.obj, scope, dyn)
        name = e.name
        get = self.engine.attribute
        span = e.span
        # the unit fields read in hot loops get a direct path; anything else the general one
        if name in ("loc", "side"):
            entities = self.engine.entities

            def unit_field(fr):
                o = obj(fr)
                if type(o) is UnitRef:
                    unit = fr.ctx.state.units.get(o.id)
                    if unit is not None:
                        return unit.loc if name == "loc" else entities[unit.side]
                return get(fr.ctx, o, name, span)
            return unit_field

        # any other: the engine's reader specialised on the name (a unit variable, a unit type's
        # property), as generated code reads it; made at the first read (the engine is complete)
        engine = self.engine
        reader = None

        def attr(fr):
            nonlocal reader
            if reader is None:
                reader = engine.attribute_reader(name)
            return reader(fr.ctx, obj(fr), span)
        return attr

    def _e_Index(self, e, scope, dyn):
        obj = self.expr(e.obj, scope, dyn)
        args = [self.expr(a, scope, dyn) for a in e.args]
        lookup = self.engine.index
        span = e.span

        def index(fr):
            return lookup(fr.ctx, obj(fr), [a(fr) for a in args], span)
        return index

    def _e_Call(self, e, scope, dyn):
        return self.call(e, scope, dyn, statement=False)

    def call(self, e: ast.Call, scope, dyn, statement: bool) -> Fn:
        name = e.func
        if name == "emit" and e.args and isinstance(e.args[0], ast.Name) and e.args[0].id not in scope \
                and self.engine.global_name(e.args[0].id, e.args[0].span) is None:
            # `emit(card_event, ...)`: the first argument names an event, not a value
            event = e.args[0].id
            args = [(lambda fr, event=event: event)] + [self.expr(a, scope, dyn) for a in e.args[1:]]
        elif isinstance(self.engine.game.names.get(name), ast.Procedure):
            # a local passed to a procedure is passed as it is: a pending count of hits (exact
            # odds) is observed where the procedure reads it, or followed lazily by a loop
            # `for i in range(1, n)` (odds.py, Enumerator.count_loop)
            args = [(lambda fr, n=a.id: fr.vars[n]) if isinstance(a, ast.Name) and a.id in scope
                    else self.expr(a, scope, dyn) for a in e.args]
        else:
            args = [self.expr(a, scope, dyn) for a in e.args]
        span = e.span
        engine = self.engine
        if name in scope:
            raise RuleError(f"'{name}' is a local value, not a function", span)
        target = engine.callable(name)
        if target is None:
            raise RuleError(f"unknown function '{name}'", span)
        kind, impl = target
        if kind == "builtin":
            spec = BUILTINS[name]
            if spec.effect and not statement:
                raise RuleError(f"'{name}' changes the game and can only be used as a statement", span)
            if len(args) == 1:
                a0 = args[0]

                def builtin1(fr):
                    v0 = a0(fr)
                    try:
                        return impl(fr.ctx, span, v0)
                    except BUILTIN_MISUSE as exc:
                        raise misuse(name, exc, span) from None
                return builtin1
            if len(args) == 2:
                a0, a1 = args

                def builtin2(fr):
                    v0, v1 = a0(fr), a1(fr)
                    try:
                        return impl(fr.ctx, span, v0, v1)
                    except BUILTIN_MISUSE as exc:
                        raise misuse(name, exc, span) from None
                return builtin2

            def builtin(fr):
                values = [a(fr) for a in args]
                try:
                    return impl(fr.ctx, span, *values)
                except BUILTIN_MISUSE as exc:
                    raise misuse(name, exc, span) from None
            return builtin
        # quantities, functions and procedures take positional arguments
        if len(args) == 1:
            a0 = args[0]
            return lambda fr: impl(fr.ctx, (a0(fr),), span)
        if len(args) == 2:
            a0, a1 = args
            return lambda fr: impl(fr.ctx, (a0(fr), a1(fr)), span)
        return lambda fr: impl(fr.ctx, tuple(a(fr) for a in args), span)

    def scan_source(self, source, var: str, cond, scope, dyn, statement: bool = False):
        """The sequence a loop over `source` visits: the candidates of a tag test the loop's
        condition requires, for a scan of the whole map or of every unit (narrowing.py)."""
        found = narrowed(self.engine, source, var, cond)
        if found is None:
            return self.expr(source, scope, dyn)
        kind, tags = found
        run = (walk_tagged_locations if statement else tagged_locations) if kind == "locations" else tagged_units
        return lambda fr: run(fr.ctx, tags)

    def _e_Comprehension(self, e, scope, dyn, lazy: bool = False):
        """Aggregates compile to direct loops (no generators), with early exit for any/all and
        one step-limit tick per collection (collections are finite: the loop is bounded)."""
        inner = scope | {e.var}
        element = self.expr(e.element, inner, dyn)
        source = self.scan_source(e.source, e.var, comprehension_condition(e), scope, dyn)
        where = self.expr(e.where, inner, dyn) if e.where is not None else None
        var = e.var
        func = e.func
        span = e.span
        plain = isinstance(e.element, ast.Name) and e.element.id == var  # `x for x in ...`
        if func not in ("sum", "count", "any", "all", "list", "first", "min", "max"):
            raise RuleError(f"'{func}(... for ...)' is not an aggregate; use sum, count, min, max, any, all, list or first", span)

        grouped = self.grouped_count(e, scope, dyn, lazy) if func == "count" else None
        by_side = self.side_filter(e, scope, dyn)

        def run(fr):
            ctx = fr.ctx
            # the side filter's guard, as the generated code writes it (`SideFilter`)
            seq = by_side(fr) if by_side is not None and ctx.chance is not None and is_view(ctx.state) else None
            if seq is None:
                seq = source(fr)
            if not seq:
                return _EMPTY_AGGREGATE[func]
            if grouped is not None and ctx.chance is not None:
                return grouped(fr, seq)
            ctx.tick_many(len(seq), span)
            vars = fr.vars
            old = vars.get(var, _UNBOUND)
            try:
                if func == "count":
                    n = 0
                    for x in seq:
                        vars[var] = x
                        if where is None or where(fr):
                            if plain:
                                n += 1
                            else:
                                v = element(fr)
                                if v is not None and v is not False:
                                    n += 1
                    return n
                if func == "any":
                    for x in seq:
                        vars[var] = x
                        if (where is None or where(fr)) and element(fr):
                            return True
                    return False
                if func == "all":
                    for x in seq:
                        vars[var] = x
                        if (where is None or where(fr)) and not element(fr):
                            return False
                    return True
                if func == "first":
                    for x in seq:
                        vars[var] = x
                        if where is None or where(fr):
                            return element(fr)
                    return None
                values = []
                for x in seq:
                    vars[var] = x
                    if where is None or where(fr):
                        values.append(element(fr))
                if func == "list":
                    return tuple(values)
                if func == "sum":
                    return _num(sum(values))
                values = [v for v in values if v is not None]  # like count, min/max skip `none` (an unreachable distance)
                if not values:
                    return None
                return min(values) if func == "min" else max(values)
            finally:
                if old is _UNBOUND:
                    vars.pop(var, None)
                else:
                    vars[var] = old

        return run

    def side_filter(self, e: ast.Comprehension, scope, dyn):
        """`... for u in units_at(h) where SIDE_TEST and ...`, SIDE_TEST one of `is_enemy(u.side, x)`,
        `is_enemy(x, u.side)`, `u.side == x`, `u.side != x` (x a name): under exact odds, on a
        state recording its reads (readlog.py), a function giving the units at `h` that pass the
        side test, read as one value, *the units of those sides at h* (`readlog.side_filtered`),
        not as the whole stack and every unit's side. A unit failing the first test of a
        conjunction is skipped by the aggregate before anything else of it is read, so the
        aggregate depends on the stack only through that list: a casualty loop over a side's
        units at the battle is then served again whatever the other side's units there. None
        when the comprehension has not that shape (or the function returns None where the rules
        read otherwise: a side that is not a declared side). Called on a recording view only (the
        guard of `SideFilter`). The shape: `side_filter_shape`; the filter: `SideFilter` (the
        generated code of the exact odds engine uses both too)."""
        shape = side_filter_shape(e, scope, self.engine.game.names)
        if shape is None:
            return None
        kind, h, x, span = shape
        where_h = self.expr(h, scope, dyn)
        value_x = self.expr(x, scope, dyn)
        found = SideFilter(kind, span)

        def by_side(fr):
            return found(fr.ctx, where_h(fr), value_x(fr))
        return by_side

    def may_roll(self, node) -> bool:
        """Whether running `node` may roll dice, through the functions and procedures it calls."""
        memo = self.__dict__.setdefault("_may_roll", {})

        def walk(n) -> bool:
            if isinstance(n, ast.Roll):
                return True
            if isinstance(n, ast.Call):
                if n.func in RANDOM_BUILTINS:
                    return True
                decl = self.engine.game.names.get(n.func)
                if isinstance(decl, (ast.Function, ast.Quantity)) and self.engine.deps.rolls_dice(decl):
                    return True
                if isinstance(decl, ast.Procedure):
                    if n.func not in memo:
                        memo[n.func] = False  # a recursive call adds nothing
                        memo[n.func] = walk(decl.body)
                    if memo[n.func]:
                        return True
            if isinstance(n, ast.Node):
                return any(walk(getattr(n, f)) for f in type(n).model_fields)
            if isinstance(n, (list, tuple)):
                return any(walk(x) for x in n)
            if isinstance(n, dict):
                return any(walk(x) for x in n.values())
            return False
        return walk(node)

    def grouped_count(self, e, scope, dyn, lazy: bool):
        """`count(x for x in L where C and roll dN <= K)` (C without dice, the roll last) under an
        exact odds computation: the dice of the elements passing C are independent, so the count is
        one distribution over 0..n hits (chance.py), asked of the oracle once. None for any other
        count. `lazy`: the count may stay pending (the value of a `let` or `set +=`)."""
        where = e.where
        if where is None or not (isinstance(e.element, ast.Name) and e.element.id == e.var):
            return None
        last, rest = (where.right, where.left) if isinstance(where, ast.And) else (where, None)
        if not isinstance(last, ast.Compare):
            return None
        flip = {"<=": ">=", "<": ">", ">=": "<=", ">": "<", "==": "==", "!=": "!="}
        if isinstance(last.left, ast.Roll) and not self.may_roll(last.right):
            dice, op, bound = last.left.dice, last.op, last.right
        elif isinstance(last.right, ast.Roll) and not self.may_roll(last.left):
            dice, op, bound = last.right.dice, flip[last.op], last.left
        else:
            return None
        if rest is not None and self.may_roll(rest):
            return None
        inner = scope | {e.var}
        cond = self.expr(rest, inner, dyn) if rest is not None else None
        threshold = self.expr(bound, inner, dyn)
        var, span = e.var, e.span

        def grouped(fr, seq):
            ctx = fr.ctx
            known = ctx.chance.known_count(lazy)  # this count in an earlier replay of the branch
            if known is not None:
                return known
            ctx.tick_many(len(seq), span)
            vars = fr.vars
            old = vars.get(var, _UNBOUND)
            bounds = []
            try:
                for x in seq:
                    vars[var] = x
                    if cond is None or cond(fr):
                        bounds.append(threshold(fr))
            finally:
                if old is _UNBOUND:
                    vars.pop(var, None)
                else:
                    vars[var] = old
            return ctx.chance.count(dice, op, bounds, lazy)
        return grouped

    def _e_BinOp(self, e, scope, dyn):
        op, span = e.op, e.span
        if isinstance(e.left, ast.Num) and isinstance(e.right, ast.Num):  # `1/2`: fold once
            folded = _arith(op, e.left.value, e.right.value, span)
            return lambda fr: folded
        left = self.expr(e.left, scope, dyn)
        right = self.expr(e.right, scope, dyn)
        if op == "+":
            def add(fr):
                a, b = left(fr), right(fr)
                if type(a) is int and type(b) is int:
                    r = a + b
                    if -MAX_MAGNITUDE <= r <= MAX_MAGNITUDE:
                        return r
                return _arith("+", a, b, span)
            return add
        return lambda fr: _arith(op, left(fr), right(fr), span)

    def _e_Compare(self, e, scope, dyn):
        left = self.expr(e.left, scope, dyn)
        right = self.expr(e.right, scope, dyn)
        op, span = e.op, e.span
        # a literal on the right is the common case (`count(...) > 0`, `weather == mud`)
        if isinstance(e.right, ast.Num) and op in _FAST_COMPARE:
            const, test = e.right.value, _FAST_COMPARE[op]

            def compare_const(fr):
                a = left(fr)
                if type(a) is int:
                    return test(a, const)
                return _compare(op, a, const, span)
            return compare_const
        if op == "==":
            def eq(fr):
                b = right(fr)
                return left(fr) == b if type(b) is not CellValue else b == left(fr)
            return eq
        if op == "!=":
            def ne(fr):
                b = right(fr)
                return not (left(fr) == b if type(b) is not CellValue else b == left(fr))
            return ne
        return lambda fr: _compare(op, left(fr), right(fr), span)

    def _e_And(self, e, scope, dyn):
        left = self.expr(e.left, scope, dyn)
        right = self.expr(e.right, scope, dyn)
        return lambda fr: bool(left(fr)) and bool(right(fr))

    def _e_Or(self, e, scope, dyn):
        left = self.expr(e.left, scope, dyn)
        right = self.expr(e.right, scope, dyn)
        return lambda fr: bool(left(fr)) or bool(right(fr))

    def _e_Not(self, e, scope, dyn):
        operand = self.expr(e.operand, scope, dyn)
        return lambda fr: not operand(fr)

    def _e_Neg(self, e, scope, dyn):
        operand = self.expr(e.operand, scope, dyn)
        span = e.span

        def neg(fr):
            v = operand(fr)
            try:
                return -v
            except TypeError:
                raise RuleError(f"cannot negate {_show(v)}", span) from None
        return neg

    def _e_Is(self, e, scope, dyn):
        obj = self.expr(e.obj, scope, dyn)
        tag = e.tag
        has = self.engine.has_tag
        negated = e.negated

        def is_(fr):
            o = obj(fr)
            found = (tag in o) if type(o) is frozenset else has(fr.ctx, o, tag)  # hexside features: the hot case
            return not found if negated else found
        return is_

    def _e_In(self, e, scope, dyn):
        item = self.expr(e.item, scope, dyn)
        coll = self.expr(e.collection, scope, dyn)
        neg = e.negated

        def contains(fr):
            c = coll(fr)
            found = c is not None and item(fr) in c
            return not found if neg else found
        return contains

    def _e_Cond(self, e, scope, dyn):
        test = self.expr(e.test, scope, dyn)
        then = self.expr(e.then, scope, dyn)
        orelse = self.expr(e.orelse, scope, dyn)
        return lambda fr: then(fr) if test(fr) else orelse(fr)

    def _e_ListLit(self, e, scope, dyn):
        items = [self.expr(i, scope, dyn) for i in e.items]
        return lambda fr: tuple(i(fr) for i in items)

    def _e_Roll(self, e, scope, dyn):
        dice = e.dice
        span = e.span
        return lambda fr: fr.ctx.roll(dice, span)

    # ================================================================ statements
    def block(self, stmts: list[ast.Stmt], scope: set[str], dynamic: bool = False) -> Fn:
        """Compile statements; `scope` grows as let/for/choose bind names (function scope)."""
        compiled = [self.stmt(s, scope, dynamic) for s in stmts]
        # under exact odds the oracle's `tail_ok` says whether the statement running is the last
        # thing its run does (odds.py, Enumerator.count_loop): true for the last statement of a
        # block when it is one that passes it on (an `if`, a `step`, a loop, a call of one of the
        # game's procedures), false for the others (a built-in may run triggers, then go on) and
        # for every statement before the last
        last = stmts[-1] if stmts else None
        last_passes = isinstance(last, (ast.If, ast.Step, ast.For)) or isinstance(last, ast.CallStmt) \
            and isinstance(self.engine.game.names.get(last.call.func), ast.Procedure)
        if len(compiled) == 1:
            if last_passes:
                return compiled[0]
            only = compiled[0]

            def run_one(fr):
                chance = fr.ctx.chance
                if chance is None or not chance.tail_ok:
                    return only(fr)
                chance.tail_ok = False
                try:
                    return only(fr)
                finally:
                    chance.tail_ok = True
            return run_one
        if not compiled:
            return lambda fr: None
        init, last = compiled[:-1], compiled[-1]

        def run(fr):
            chance = fr.ctx.chance
            if chance is None or not chance.tail_ok:
                for s in compiled:
                    if s(fr) is STOP:
                        return STOP
                return None
            chance.tail_ok = False
            try:
                for s in init:
                    if s(fr) is STOP:
                        return STOP
            finally:
                chance.tail_ok = True
            if not last_passes:
                chance.tail_ok = False
                try:
                    return last(fr)
                finally:
                    chance.tail_ok = True
            return last(fr)
        return run

    def stmt(self, s: ast.Stmt, scope: set[str], dyn: bool) -> Fn:
        return getattr(self, "_s_" + type(s).__name__)(s, scope, dyn)

    def _value_maybe_pending(self, e, scope, dyn):
        """The value of a `let` or `set`: a count of dice hits may stay pending (exact odds)."""
        if isinstance(e, ast.Comprehension) and e.func == "count":
            return self._e_Comprehension(e, scope, dyn, lazy=True)
        return self.expr(e, scope, dyn)

    def _s_Let(self, s, scope, dyn):
        value = self._value_maybe_pending(s.value, frozenset(scope), dyn)
        name = s.name
        scope.add(name)
        span = s.span

        def let(fr):
            fr.vars[name] = value(fr)
        return let

    def _s_SetStmt(self, s, scope, dyn):
        value = self.expr(s.value, frozenset(scope), dyn)
        op = s.op
        span = s.span
        target = s.target
        engine = self.engine
        if isinstance(target, ast.Name) and target.id in scope:
            name = target.id
            value = self._value_maybe_pending(s.value, frozenset(scope), dyn)

            def set_local(fr):
                v = value(fr)
                if op != "=":
                    old = fr.vars[name]
                    if op == "+=" and addable(old, v):  # pending counts of different dice: convolved
                        v = v.plus(old) if type(v) is Pending else old.plus(v)
                    else:
                        if type(old) is Pending:
                            old = fr.ctx.chance.force(old)
                        if type(v) is Pending:
                            v = fr.ctx.chance.force(v)
                        v = _arith(op[0], old, v, span)
                fr.vars[name] = v
            return set_local
        if isinstance(target, ast.Name):
            name = target.id
            var = engine.var_decl(name)
            if var is None or var.scope != "var":
                raise RuleError(f"cannot set '{name}': it is not a global variable", span)
            coerce = engine.coercer(var.type)

            def set_global(fr):
                v = value(fr)
                state = fr.ctx.state
                if op != "=":
                    v = _arith(op[0], state.vars.get(name), v, span)
                engine.set_var(fr.ctx, name, coerce(v))
            return set_global
        if isinstance(target, ast.Attr):
            obj = self.expr(target.obj, frozenset(scope), dyn)
            name = target.name

            def set_attr(fr):
                o = obj(fr)
                v = value(fr)
                if op != "=":
                    v = _arith(op[0], engine.attribute(fr.ctx, o, name, span), v, span)
                engine.set_attribute(fr.ctx, o, name, v, span)
            return set_attr
        raise RuleError("this cannot be assigned to", span)

    def _s_If(self, s, scope, dyn):
        test = self.expr(s.test, frozenset(scope), dyn)
        body = self.block(s.body, scope, dyn)
        orelse = self.block(s.orelse, scope, dyn) if s.orelse else None
        span = s.span

        def if_(fr):
            if test(fr):
                return body(fr)
            if orelse is not None:
                return orelse(fr)
            return None
        return if_

    def _s_For(self, s, scope, dyn):
        outer = set(scope)
        var = s.var
        chain = markov_loop(s, outer) and self.may_roll(s.body)
        # a chained loop of exact odds needs its whole sequence: never narrowed
        source = self.scan_source(s.source, var, None if chain else for_condition(s), frozenset(scope), dyn, statement=True)
        scope.add(var)
        body = self.block(s.body, scope, dyn)
        span = s.span
        # `for i in range(LOW, n)` over a pending count n whose body rolls no dice and passes only
        # the game state on: under exact odds, iterated once for every value of n (count_loop)
        lazy = None
        src = s.source
        if isinstance(src, ast.Call) and src.func == "range" and len(src.args) == 2 and not src.kwargs \
                and isinstance(src.args[1], ast.Name) and src.args[1].id in outer \
                and markov_loop(s, outer) and not self.may_roll(s.body) \
                and not bound_and_read_after(s, self._procedure_body):
            lazy = (self.expr(src.args[0], frozenset(outer), dyn), src.args[1].id)

        def plain_loop(fr, seq):
            for x in (seq if seq is not None else ()):
                fr.ctx.tick(span)
                fr.vars[var] = x
                if body(fr) is STOP:
                    return STOP
            return None

        def for_(fr):
            chance = fr.ctx.chance
            if chance is None:
                return plain_loop(fr, source(fr))
            if lazy is not None and type(fr.vars.get(lazy[1])) is Pending:
                done, result = chance.count_loop(fr, lazy[0](fr), lazy[1], var, body, s)
                if done:
                    return result
            seq = source(fr)
            if chain and seq:
                done, result = chance.loop(fr, seq, var, body, s)
                if done:
                    return result
            saved, chance.tail_ok = chance.tail_ok, False  # iterations follow each iteration
            try:
                return plain_loop(fr, seq)
            finally:
                chance.tail_ok = saved
        return for_

    def _s_Choose(self, s, scope, dyn):
        fscope = frozenset(scope)
        source = self.expr(s.source, fscope, dyn)
        by = self.expr(s.by, fscope, dyn)
        otherwise = self.expr(s.otherwise, fscope, dyn) if s.otherwise is not None else None
        var = s.var
        where = self.expr(s.where, fscope | {var}, dyn) if s.where is not None else None
        scope.add(var)
        span = s.span
        subset, lo, hi, optional = s.subset, s.min, s.max, s.optional
        citations = tuple(s.citations)

        def choose(fr):
            ctx = fr.ctx
            options = []
            quiet = ctx.tracing
            if quiet:
                ctx.quiet_open()  # the explanation shows the decision, not each option's derivation
            try:
                seq = source(fr)
                for x in (seq if seq is not None else ()):
                    if where is not None:
                        fr.vars[var] = x
                        if not where(fr):
                            continue
                    options.append(x)
            finally:
                if quiet:
                    ctx.quiet_close()
            who = by(fr)
            if isinstance(who, (tuple, list)):
                value = ctx.decide_joint(tuple(who), otherwise(fr) if otherwise is not None else None, var,
                                         tuple(options), subset, optional, lo or 0, hi, citations, span)
            elif subset:
                value = ctx.decide_subset(who, var, tuple(options), lo or 0, hi, citations, span)
            else:
                value = ctx.decide(who, var, tuple(options), optional, citations, span)
            fr.vars[var] = value
        return choose

    def _s_Reroll(self, s, scope, dyn):
        """`reroll r = EXPR by SIDE when COND "label" §x { ... }`: the side sees the value of `r`
        and keeps it or re-rolls once; on a re-roll the body runs and `r` is EXPR afresh."""
        fscope = frozenset(scope)
        var = s.var
        value = self.expr(s.value, fscope, dyn)
        by = self.expr(s.by, fscope, dyn)
        when = self.expr(s.when, fscope, dyn) if s.when is not None else None
        body = self.block(s.body, scope, dyn) if s.body else None
        label = s.label or f"re-roll {var}"
        citations = tuple(s.citations)
        span = s.span

        def reroll(fr):
            ctx = fr.ctx
            if when is not None:
                quiet = ctx.tracing
                if quiet:
                    ctx.quiet_open()  # whether a re-roll is offered: a question, not a rule happening
                try:
                    offered = when(fr)
                finally:
                    if quiet:
                        ctx.quiet_close()
                if not offered:
                    return None
            seen = fr.vars.get(var)
            who = by(fr)
            if not ctx.decide_reroll(who, var, seen, label, citations, span):
                return None
            if body is not None and body(fr) is STOP:
                return STOP
            fr.vars[var] = value(fr)
            if ctx.tracing:
                ctx.note(f"{var} = {ctx.engine.describe(ctx, fr.vars[var])} after the re-roll (it stands)")
            return None
        return reroll

    def _s_Require(self, s, scope, dyn):
        test = self.expr(s.test, frozenset(scope), dyn)
        message = s.message or "requirement not met"
        citations = tuple(s.citations)
        span = s.span

        def require(fr):
            if not test(fr):
                cite = f" ({', '.join('§' + c for c in citations)})" if citations else ""
                raise RuleRefusal(f"{message}{cite}", span)
        return require

    def _s_Apply(self, s, scope, dyn):
        value = self.expr(s.value, frozenset(scope), dyn)
        span = s.span
        apply = self.engine.apply_result
        return lambda fr: apply(fr, value(fr), span)

    def _s_Step(self, s, scope, dyn):
        body = self.block(s.body, scope, dyn)
        label = s.label or "step"
        citations = tuple(s.citations)

        return lambda fr: fr.ctx.traced(label, citations, body, fr)

    def _s_Stop(self, s, scope, dyn):
        return lambda fr: STOP

    def _s_Log(self, s, scope, dyn):
        text = s.text
        return lambda fr: fr.ctx.note(text)

    def _s_CallStmt(self, s, scope, dyn):
        f = self.call(s.call, frozenset(scope), dyn, statement=True)
        span = s.span
        if isinstance(self.engine.game.names.get(s.call.func), ast.Procedure):
            def call_procedure(fr):
                chance = fr.ctx.chance
                if chance is not None:  # the procedure's body is in tail position if this call is
                    chance.tail_next = chance.tail_ok
                f(fr)
            return call_procedure

        def call(fr):
            f(fr)
        return call


def _global_reader(name: str, kind: str, value):
    """A closure reading a global name, by the kind `Engine.global_name` found."""
    if kind == "constant":
        return _CONSTANT_READERS[name]
    if kind == "var":
        return lambda fr: fr.ctx.state.vars.get(name)
    if kind == "option":
        return lambda fr: fr.ctx.state.options.get(name)
    if kind in ("entity", "cell"):
        return lambda fr: value
    if kind == "phase":  # a phase's name is its value as `phase` reads it: `phase == noncombat`
        return lambda fr: name
    raise AssertionError(kind)


_CONSTANT_READERS = {
    "turn": lambda fr: fr.ctx.state.position.turn,
    "active": lambda fr: fr.ctx.engine.entities.get(fr.ctx.state.active) if fr.ctx.state.active else None,
    "phase": lambda fr: fr.ctx.state.phase,
    "scenario": lambda fr: fr.ctx.state.scenario,
    "first_turn": lambda fr: fr.ctx.engine.first_turn(fr.ctx.state),
    "last_turn": lambda fr: fr.ctx.engine.last_turn(fr.ctx.state),
    "turn_order": lambda fr: tuple(fr.ctx.engine.entities[s] for s in fr.ctx.state.turn_order),
}


# ==================================================================== quantities
_CAP_ALIASES = {"at_most": "min", "at_least": "max"}  # `at_most 40` reads better than `min 40`


def compile_quantity(compiler: Compiler, q: ast.Quantity):
    """A quantity: base value, then modifiers by stage (replace, add, multiply, cap, unless the
    quantity declares `order:`), each stage in declaration order; in a `group` only the first
    applicable modifier counts. Returns `run(ctx, args, span)`."""
    names = [p.name for p in q.params]
    scope = frozenset(names)
    base = compiler.expr(q.base, scope) if q.base is not None else (lambda fr: 0)
    for stage in stage_order(q):
        if stage not in DEFAULT_ORDER:
            raise RuleError(f"unknown stage '{stage}' in order (use {', '.join(DEFAULT_ORDER)})", q.span)
    mods = []
    for _stage, m in composed(q):
        mods.append((
            m.label or m.op, _CAP_ALIASES.get(m.op, m.op), compiler.expr(m.value, scope),
            compiler.expr(m.when, scope) if m.when is not None else None,
            m.rounding, m.group, tuple(m.citations), m.span,
        ))
    title = q.header.label or q.name
    base_cites = tuple(q.base_citations) or tuple(q.header.citations)
    qname = q.name
    counted = qname in compiler.engine.counted
    nparams = len(names)
    pure = not compiler.engine.deps.rolls_dice(q) and not compiler.engine.deps.reads_hidden(q)
    level, key = cache_plan(compiler, q)

    def run(ctx, args, span):
        if len(args) != nparams:
            raise RuleError(f"{qname} takes {nparams} arguments, got {len(args)}", span)
        if counted:  # bounded recursion (bounds.py, context.py); the generated code counts the same rules
            ctx.enter(qname, span)
        try:
            if ctx.tracing:  # a trace needs the derivation: evaluate in full
                return evaluate(ctx, args)
            if cached is not None:
                return cached(ctx, args)
            if pure:
                memo = ctx.memo()
                key = (qname, args)
                try:
                    return memo[key]
                except KeyError:
                    value = memo[key] = fast(ctx, args)
                    return value
                except TypeError:
                    pass
            return fast(ctx, args)
        finally:
            if counted:
                ctx.depth -= 1

    # the untraced path: each modifier pre-specialised into (when, group, apply(fr, value))
    fast_mods = [(when, group, _modifier_applier(op, vf, rounding, mspan))
                 for label, op, vf, when, rounding, group, cites, mspan in mods]
    grouped = any(group is not None for _, group, _ in fast_mods)

    def fast(ctx, args):
        fr = Frame(ctx, dict(zip(names, args)))
        value = base(fr)
        if not grouped:
            for when, _, apply in fast_mods:
                if when is None or when(fr):
                    value = apply(fr, value)
            return _num(value)
        used = ()
        for when, group, apply in fast_mods:
            if group is not None and group in used:
                continue
            if when is not None and not when(fr):
                continue
            if group is not None:
                used += (group,)
            value = apply(fr, value)
        return _num(value)

    def evaluate(ctx, args):
        fr = Frame(ctx, dict(zip(names, args)))
        tracing = ctx.tracing
        value = base(fr)
        steps = [Derivation(f"base {value}", value, base_cites)] if tracing else None
        used_groups = set()
        for label, op, vf, when, rounding, group, cites, mspan in mods:
            if group is not None and group in used_groups:
                continue
            if when is not None and not when(fr):
                continue
            if group is not None:
                used_groups.add(group)
            amount = vf(fr)
            before = value
            value = modifier_step(op, value, amount, rounding, mspan)
            if tracing:
                steps.append(traced_modifier(label, op, before, amount, rounding, value, cites))
        value = _num(value)
        if tracing:
            ctx.trace_add(Derivation(f"{title} = {value}", value, tuple(q.header.citations), steps, "quantity", qname))
        return value

    cached = cached_call(level, key, fast, compiler.engine.static_cache)
    return run


def modifier_step(op: str, value, amount, rounding, span):
    """One modifier applied as a traced evaluation applies it (shared with generated code)."""
    if op == "=":
        return amount
    if op == "min":
        return amount if value is not None and amount < value else value
    if op == "max":
        return amount if value is not None and amount > value else value
    if op == "/" and rounding is not None:
        return divide_rounded(value, amount, rounding)
    return round_value(_arith(op, value, amount, span), rounding)


def traced_modifier(label, op: str, before, amount, rounding, value, citations) -> Derivation:
    """The derivation line of one applied modifier (shared with generated code: same text)."""
    shown = f"{op}{amount}" if op in "+-*/=" else f"{op} {amount}"
    rnd = f" round {rounding}" if rounding else ""
    effect = f"-> {value}" if value != before or op != "min" and op != "max" else "(within the limit)"
    return Derivation(f"{label}: {before} {shown}{rnd} {effect}", value, citations)


def _modifier_applier(op: str, vf, rounding, span):
    """One modifier as `apply(fr, value) -> value`, specialised on its operator."""
    if op == "=":
        return lambda fr, value: vf(fr)
    if op == "min":
        def at_most(fr, value):
            amount = vf(fr)
            return amount if value is not None and amount < value else value
        return at_most
    if op == "max":
        def at_least(fr, value):
            amount = vf(fr)
            return amount if value is not None and amount > value else value
        return at_least
    if op == "/" and rounding is not None:
        return lambda fr, value: divide_rounded(value, vf(fr), rounding)
    if op == "+" and rounding is None:
        def add(fr, value):
            amount = vf(fr)
            if type(value) is int and type(amount) is int:
                r = value + amount
                if -MAX_MAGNITUDE <= r <= MAX_MAGNITUDE:
                    return r
            return _arith("+", value, amount, span)
        return add
    return lambda fr, value: round_value(_arith(op, value, vf(fr), span), rounding)


def side_filter_shape(e: ast.Comprehension, scope, names):
    """(kind, h, x, span of the test) of a comprehension `... for u in units_at(h) where SIDE_TEST
    and ...` (`Compiler.side_filter`), or None: kind "enemy of" (`is_enemy(u.side, x)`), "enemy
    from" (`is_enemy(x, u.side)`), "==" or "!=" (`u.side == x` or `x == u.side`), x a name.

    Why this shape only: the side test must be the first condition (the whole `where`, or the
    leftmost operand of its `and`s), for a unit failing it is skipped before anything else of it
    is read: the units passing it are then all the aggregate reads of the stack. x must be a
    name other than the loop variable (a parameter, a local, `active`): one value for the whole
    comprehension, read once, where `v.side` or `u` could differ from one unit to the next.
    `units_at` and `is_enemy` must be the built-ins, not a local or a rule of that name. Every
    other shape (an `or`, a `not`, another comparison, another source) is read unit by unit as
    usual. tests/test_side_filter.py lists each shape taken and left."""
    src, var = e.source, e.var
    if not (isinstance(src, ast.Call) and src.func == "units_at" and len(src.args) == 1 and not src.kwargs
            and "units_at" not in scope and names.get("units_at") is None and e.where is not None):
        return None
    first = e.where
    while isinstance(first, ast.And):
        first = first.left  # evaluated first; when false, nothing else of the unit is read

    def is_side(x) -> bool:
        return isinstance(x, ast.Attr) and x.name == "side" and isinstance(x.obj, ast.Name) and x.obj.id == var

    def other(x) -> bool:
        return isinstance(x, ast.Name) and x.id != var

    if isinstance(first, ast.Call) and first.func == "is_enemy" and len(first.args) == 2 and not first.kwargs \
            and "is_enemy" not in scope and names.get("is_enemy") is None:
        a, b = first.args
        kind, x = ("enemy of", b) if is_side(a) and other(b) else ("enemy from", a) if is_side(b) and other(a) else (None, None)
    elif isinstance(first, ast.Compare) and first.op in ("==", "!="):
        a, b = first.left, first.right
        kind, x = (first.op, b) if is_side(a) and other(b) else (first.op, a) if is_side(b) and other(a) else (None, None)
    else:
        return None
    if kind is None:
        return None
    return kind, src.args[0], x, first.span


class SideFilter:
    """The units at a location passing a side test, read as one value on a recording view
    (`Compiler.side_filter`): called with the context, the location and the side x; None where
    the rules read the stack as usual (x not a side, a unit of an undeclared side there). The
    sides passing are found once per x (the engine's alliances).

    Both evaluators call it behind the same guard, before evaluating the location and x:
    `ctx.chance is not None and is_view(ctx.state)`. The view is what the filter needs: it
    changes what a recording view notes as read (readlog.py: `side_filtered` notes its one read
    in the view's log), not what the rules see, so on any other state the stack is read as usual.
    Only the exact odds engine installs recording views, while its oracle is `ctx.chance`: the
    oracle is tested first, a field read that keeps play and Monte Carlo (`Sampler`: an oracle,
    no view) from calling `is_view` (tests/test_side_filter.py runs both evaluators in each)."""

    __slots__ = ("kind", "span", "accepted", "known")

    def __init__(self, kind: str, span) -> None:
        self.kind, self.span = kind, span
        self.accepted: dict = {}  # side entity x -> the names of the sides passing the test
        self.known = None  # the names of the declared sides

    def __reduce__(self):  # a constant of generated code: cached without what it found
        return SideFilter, (self.kind, self.span)

    def __call__(self, ctx, h, x):
        from warcodex.interpreter.builtins import b_is_enemy
        from warcodex.interpreter.readlog import side_filtered

        if type(x) is not Entity or x.kind != "side":
            return None
        found = self.accepted.get(x)
        if found is None:
            sides, kind, span = ctx.engine.side_entities, self.kind, self.span
            if kind == "enemy of":
                found = frozenset(s.name for s in sides if b_is_enemy(ctx, span, s, x))
            elif kind == "enemy from":
                found = frozenset(s.name for s in sides if b_is_enemy(ctx, span, x, s))
            elif kind == "==":
                found = frozenset(s.name for s in sides if s == x)
            else:
                found = frozenset(s.name for s in sides if not s == x)
            self.accepted[x] = found
            self.known = frozenset(s.name for s in sides)
        return side_filtered(ctx.state, h, found, self.known)


def markov_loop(s: ast.For, outer: set) -> bool:
    """Whether an exact odds computation may run `for` loop `s` as a Markov chain over the game
    states between iterations (chance.py): its body does not read its loop variable (every
    iteration runs the same rules) and assigns no local of the enclosing code (the game state is
    all an iteration leaves behind)."""
    nodes = list(walk(s.body))
    names_read = {n.id for n in nodes if isinstance(n, ast.Name)}
    assigned = {n.target.id for n in nodes if isinstance(n, ast.SetStmt) and isinstance(n.target, ast.Name)}
    return s.var not in names_read and not (assigned & set(outer))


def bound_and_read_after(s: ast.For, body: list) -> bool:
    """Whether loop `s` binds a name (`let`, `choose`, a loop variable) that the procedure `body`
    it is in reads outside it: a lazy count loop's body runs as a function of its own, whose
    locals the code after the loop does not see (the language's locals are the procedure's)."""
    inner = {id(n) for n in walk(s.body)}
    bound = set()
    for n in walk(s.body):
        if isinstance(n, ast.Let):
            bound.add(n.name)
        elif isinstance(n, (ast.For, ast.Choose, ast.Reroll)):
            bound.add(n.var)
    return any(isinstance(n, ast.Name) and n.id in bound and id(n) not in inner for n in walk(body))


def sequence_steps(body: list[ast.Stmt], params) -> bool:
    """Whether an exact odds computation may run a procedure body statement by statement, as a
    chain over the game states between statements (odds.py, `Enumerator.call`): it has several
    statements and none of them binds a local (`let`, `choose`, `reroll`, a loop variable, `set` of
    a parameter or local) that a later one reads, so the game state (and the procedure's arguments)
    is all a statement leaves to the next. (`set` of a global changes the game state.)"""
    if len(body) < 2:
        return False
    local_names = set(params)
    bound = []  # the locals each statement binds (all of them known before reads are compared)
    for stmt in body:
        names: set[str] = set()
        for n in walk(stmt):
            if isinstance(n, ast.Let):
                names.add(n.name)
                local_names.add(n.name)
            elif isinstance(n, (ast.For, ast.Choose, ast.Reroll)):
                names.add(n.var)
                local_names.add(n.var)
            elif isinstance(n, ast.SetStmt) and isinstance(n.target, ast.Name):
                names.add(n.target.id)
        bound.append(names)
    later_reads: set[str] = set()
    for stmt, names in zip(reversed(body), reversed(bound)):
        if names & local_names & later_reads:
            return False
        later_reads |= {n.id for n in walk(stmt) if isinstance(n, ast.Name)}
    return True


def cache_plan(compiler: Compiler, decl):
    """How a quantity or function's values may be cached (see dependencies.py): returns
    (level, key function). `static`: the key normalises unit arguments to their type and side and
    is valid for the whole game; `positions`: the key keeps the units and is valid until a unit
    moves; `dynamic`: no key (memoized per state version by the caller, if pure)."""
    deps = compiler.engine.deps.of(decl)
    if deps.dynamic:
        return "dynamic", None
    reads = tuple(sorted(deps.reads))
    name = decl.name
    if deps.level == "positions":
        if not reads:
            return "positions", lambda ctx, args: (name, args)

        def pkey(ctx, args):
            state = ctx.state
            return (name, args, tuple(read_global(state, n) for n in reads))
        return "positions", pkey

    if not reads:
        def key(ctx, args):
            return (name, _unit_types_args(ctx.state, args))
        return "static", key

    def key(ctx, args):
        state = ctx.state
        return (name, _unit_types_args(state, args), tuple(read_global(state, n) for n in reads))
    return "static", key


def _unit_types_args(state, args: tuple):
    """`_unit_types` of an argument tuple; the common case (locations, sides, numbers) is the
    arguments themselves, found without building a new tuple."""
    for a in args:
        t = type(a)
        if t is UnitRef or t is tuple:
            return tuple(_unit_types(state, v) for v in args)
    return args


def _unit_types(state, value):
    """A cache key part where every unit, also inside lists, stands for its type and side: unit
    ids restart in each game, so an id in a whole-game key would leak values between games."""
    if type(value) is UnitRef:
        u = state.units.get(value.id)
        return ("unit", u.type, u.side) if u is not None else value
    if type(value) is tuple:
        return tuple(_unit_types(state, v) for v in value)
    return value


def cached_call(level: str, key, evaluate, static_cache: dict):
    """Wrap `evaluate(ctx, args)` with the cache its dependency level allows."""
    if level == "static":
        def static_run(ctx, args):
            try:
                k = key(ctx, args)
                return static_cache[k]
            except KeyError:
                value = static_cache[k] = evaluate(ctx, args)
                return value
            except TypeError:  # an unhashable argument
                return evaluate(ctx, args)
        return static_run
    if level == "positions":
        def positions_run(ctx, args):
            memo = ctx.positions_memo()
            try:
                k = key(ctx, args)
                return memo[k]
            except KeyError:
                value = memo[k] = evaluate(ctx, args)
                return value
            except TypeError:
                return evaluate(ctx, args)
        return positions_run
    return None


def read_global(state, name: str):
    """The current value of a global a cached value depends on (see dependencies.py)."""
    if name == "turn":
        return state.position.turn
    if name in ("active", "phase", "scenario"):
        return getattr(state, name)
    if name in state.options:
        return state.options[name]
    return state.vars.get(name)


def compile_function(compiler: Compiler, f: ast.Function):
    """A function is pure: its value depends on its arguments and the state only, so it is
    memoized per state version (the version changes with every change of state or phase)."""
    names = [p.name for p in f.params]
    body = compiler.expr(f.body, frozenset(names))
    fname = f.name
    counted = fname in compiler.engine.counted
    n = len(names)
    pure = not compiler.engine.deps.rolls_dice(f) and not compiler.engine.deps.reads_hidden(f)
    level, key = cache_plan(compiler, f)
    cached = cached_call(level, key, lambda ctx, args: body(Frame(ctx, dict(zip(names, args)))), compiler.engine.static_cache)

    def run(ctx, args, span):
        if len(args) != n:
            raise RuleError(f"{fname} takes {n} arguments, got {len(args)}", span)
        if counted:  # bounded recursion (bounds.py, context.py); the generated code counts the same rules
            ctx.enter(fname, span)
        try:
            if cached is not None and not ctx.tracing:
                # while explaining, values cached across games (static, positions) are not used: the
                # explanation would show a body's lookups only the first time in a process, and the
                # same game would give another log; the memo of this state version is deterministic
                return cached(ctx, args)
            if pure:
                memo = ctx.memo()
                key = (fname, args)
                try:
                    return memo[key]
                except KeyError:
                    value = memo[key] = body(Frame(ctx, dict(zip(names, args))))
                    return value
                except TypeError:  # an unhashable argument
                    pass
            return body(Frame(ctx, dict(zip(names, args))))
        finally:
            if counted:
                ctx.depth -= 1
    return run


def compile_procedure(compiler: Compiler, p: ast.Procedure):
    names = [x.name for x in p.params]
    # (a lazy count loop's body must bind nothing the procedure reads after it: `_s_For`)
    compiler._procedure_body = p.body
    try:
        body = compiler.block(p.body, set(names))
    finally:
        compiler._procedure_body = []
    pname = p.name
    counted = pname in compiler.engine.counted
    label = p.header.label or p.name
    citations = tuple(p.header.citations)
    n = len(names)
    rolls = compiler.may_roll(p.body)  # under exact odds, its end states are memoised (odds.py)
    # under exact odds, a body whose statements pass nothing but the game state to each other is
    # enumerated statement by statement (odds.py): each statement's own closure
    steps = None
    if rolls and sequence_steps(p.body, names) and pname not in compiler.engine.procedure_vars:
        scope = set(names)
        compiler._procedure_body = p.body
        try:
            steps = [(s, compiler.block([s], scope)) for s in p.body]
        finally:
            compiler._procedure_body = []

    def run(ctx, args, span):
        if len(args) != n:
            raise RuleError(f"{pname} takes {n} arguments, got {len(args)}", span)
        chance = ctx.chance
        if chance is not None:  # exact odds: whether its body is the end of the run (count_loop)
            tail, chance.tail_next = chance.tail_next, False
            saved, chance.tail_ok = chance.tail_ok, tail
        if counted:  # bounded recursion (bounds.py, context.py); the generated code counts the same rules
            ctx.enter(pname, span)
        try:
            if rolls and ctx.chance is not None:
                if any(type(a) is Pending for a in args):  # its memo is keyed on values
                    args = tuple(ctx.chance.force(a) if type(a) is Pending else a for a in args)
                ctx.chance.call(pname, args, lambda: body(Frame(ctx, dict(zip(names, args)))),
                                steps and (steps, lambda: Frame(ctx, dict(zip(names, args)))))
            else:
                ctx.traced_procedure(label, citations, body, Frame(ctx, dict(zip(names, args))))
        finally:
            if counted:
                ctx.depth -= 1
            if chance is not None:
                chance.tail_ok = saved
        return None

    if pname not in compiler.engine.procedure_vars:
        return run
    engine = compiler.engine

    def run_scoped(ctx, args, span):  # the procedure has `per` variables of its own
        saved = engine.enter_procedure(ctx, pname)
        try:
            return run(ctx, args, span)
        finally:
            engine.leave_procedure(ctx, pname, saved)
    return run_scoped


__all__ = ["Compiler", "Frame", "STOP", "compile_quantity", "compile_function", "compile_procedure",
           "round_value", "Entity", "UnitRef", "CellValue", "Odds"]
