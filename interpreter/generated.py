"""Rules as generated Python: the engine's compiler (`Engine.compiler`) in its normal mode.

`GeneratedCompiler` has the interface of the closure compiler (`compiler.Compiler`: `expr`,
`block`, `quantity`, `function`, `procedure`), so the engine's parts ask it for what they run,
but each answer is a function generated as Python source by `codegen.Generator`, compiled with
`compile()` and run in one namespace per engine, where rules call each other directly by name.

- Quantities, functions and procedures become `R_<name>(ctx, <params>)`: the entry with the
  caching their dependency level allows (dependencies.py), `B_<name>` the plain evaluation and,
  for a quantity, `T_<name>` the traced one that builds the derivation `explain` shows.
- What the other parts run with a `Frame` (an action's parameter domains and requirements, a
  movement mode's costs, trigger and `do` bodies, invariants...) becomes `X<n>(fr)`, which loads
  the DSL locals it reads from `fr.vars` once and then uses Python locals.
- `show(name)` gives the generated code of a declaration (`warcodex compile GAME --show NAME`);
  `span_of(filename, line)` maps a generated line back to its `.wcx` span.
- The generated source is cached on disk (`$WARCODEX_CACHE_DIR`, as the parse cache), keyed by
  the rules' fingerprint and the generator's own source.
"""

from __future__ import annotations

import hashlib
import linecache
import marshal
import os
import pickle
import tempfile
from fractions import Fraction
from importlib import resources

from warcodex.dsl import ast
from warcodex.dsl.cache import cache_dir
from warcodex.dsl.composition import DEFAULT_ORDER, composed, stage_order
from warcodex.interpreter.chance import Pending
from warcodex.interpreter.codegen import Generator, Unit, pending_reads, symbol, tail_statements
from warcodex.dsl.limits import MAX_MAGNITUDE
from warcodex.interpreter.memo import plan_of
from warcodex.interpreter.reads import is_global_kind
from warcodex.interpreter.compiler import (
    BUILTIN_MISUSE, STOP, Frame, _CAP_ALIASES, _arith, _compare, _num, _unit_types, _unit_types_args, cache_plan,
    divide_rounded, misuse, modifier_step, read_global, round_value, traced_modifier,
)
from warcodex.interpreter.values import CellValue, Derivation, Entity, RuleError, RuleRefusal, UnitRef, show as show_value

_MISSING = object()  # a value not found in a dict, in generated code
_FILES: dict[str, list] = {}  # generated file name -> its lines (text, span), for span_of


# ==================================================================== helpers the generated code calls
def _negate(v, span):
    try:
        return -v
    except TypeError:
        raise RuleError(f"cannot negate {'none' if v is None else v}", span) from None


def _dynamic(vars: dict, name: str, span):
    try:
        return vars[name]
    except KeyError:
        raise RuleError(f"'{name}' is not defined where this result is applied", span) from None


def _dsl_locals(found: dict, names: tuple, outer: dict | None) -> dict:
    """The DSL locals bound now (what a result applied here sees), from Python's `locals()`."""
    out = dict(outer) if outer is not None else {}
    for py, dsl in names:
        if py in found:
            out[dsl] = found[py]
    return out


def _arity_error(name: str, n: int, args: tuple, span):
    raise RuleError(f"{name} takes {n} arguments, got {len(args)}", span)


def _registry_entry(fn, n: int, name: str):
    """The `run(ctx, args, span)` interface of a rule (engine registries, benchmarks, tests)."""
    def run(ctx, args, span):
        if len(args) != n:
            raise RuleError(f"{name} takes {n} arguments, got {len(args)}", span)
        return fn(ctx, *args)
    run.generated = fn
    return run


def namespace(engine) -> dict:
    """The globals of one engine's generated code: helpers, built-ins, the engine's methods."""
    from warcodex.interpreter.builtins import IMPLEMENTATIONS
    from warcodex.interpreter.engine import single_value
    from warcodex.interpreter.narrowing import tagged_locations, tagged_units, walk_tagged_locations

    ns = {
        "__builtins__": __builtins__, "UnitRef": UnitRef, "CellValue": CellValue, "RuleError": RuleError, "RuleRefusal": RuleRefusal,
        "Frame": Frame, "STOP": STOP, "Derivation": Derivation, "Fraction": Fraction,
        "ARITH": _arith, "COMPARE": _compare, "NEGATE": _negate, "NUM": _num, "DYNAMIC": _dynamic,
        "DSL_LOCALS": _dsl_locals, "ARITY_ERROR": _arity_error, "SINGLE": single_value,
        "DIVIDE_ROUNDED": divide_rounded, "ROUND": round_value, "MODIFIER_STEP": modifier_step,
        "TRACED_MODIFIER": traced_modifier, "UNIT_TYPES_ARGS": _unit_types_args, "UNIT_TYPES": _unit_types,
        "READ_GLOBAL": read_global, "MAXM": MAX_MAGNITUDE, "MISSING": _MISSING,
        "ENTITIES": engine.entities, "STATIC": engine.static_cache, "Entity": Entity,
        "ENEMIES": {s.name: engine.enemies_of(s) for s in engine.side_entities},
        "ATTRIBUTE": engine.attribute, "INDEX": engine.index, "HAS_TAG": engine.has_tag,
        "SET_VAR": engine.set_var, "SET_ATTRIBUTE": engine.set_attribute, "APPLY_RESULT": engine.apply_result,
        "ENTER_PROCEDURE": engine.enter_procedure, "LEAVE_PROCEDURE": engine.leave_procedure,
        "BUILTIN_MISUSE": BUILTIN_MISUSE, "MISUSE_AT": _misuse_at, "PENDING": Pending,
    }
    ns.update(TAGGED_LOCATIONS=tagged_locations, WALK_TAGGED_LOCATIONS=walk_tagged_locations, TAGGED_UNITS=tagged_units)
    from warcodex.interpreter.readlog import is_view

    ns["IS_VIEW"] = is_view  # (the exact odds engine's side filter: codegen.comprehension_source)
    for name, impl in IMPLEMENTATIONS.items():
        ns["B_" + name] = impl  # called directly: a misuse is caught where the rule was entered
    return ns


_BUILTIN_NAMES = {}  # a built-in's code object -> its name, to recognise its frame in a traceback


def _misuse_at(exc: BaseException) -> BaseException:
    """The located error for a built-in given values it cannot use (a string to range()), as the
    closure compiler raises it at the call (`compiler.misuse`). Generated code calls built-ins
    directly and catches these errors once, around the body of each function that calls one:
    the traceback says which built-in the generated code called last (the innermost call from
    generated code into a built-in) and its frame holds the call's span. An error raised
    elsewhere (not inside a built-in) is returned as it is."""
    if not _BUILTIN_NAMES:
        from warcodex.interpreter.builtins import IMPLEMENTATIONS

        _BUILTIN_NAMES.update({impl.__code__: name for name, impl in IMPLEMENTATIONS.items() if hasattr(impl, "__code__")})
    found = None
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        inner = tb.tb_next
        code = inner.tb_frame.f_code
        name = _BUILTIN_NAMES.get(code)
        if name is not None and tb.tb_frame.f_code.co_filename.startswith("<warcodex "):
            found = name, inner.tb_frame.f_locals.get(code.co_varnames[1])
        tb = inner
    if found is None:
        return exc
    return misuse(found[0], exc, found[1])


# ==================================================================== the compiler
class GeneratedCompiler:
    """Compiles the engine's rules to generated Python, one unit per request, into one namespace."""

    def __init__(self, engine, odds: bool = False) -> None:
        """`odds`: the generated code of an exact odds engine (`Engine(evaluator="odds")`): its
        procedures keep the chance oracle's constructs (codegen `Generator.odds`); cached apart."""
        self.engine = engine
        self.odds = odds
        self.gen = Generator(engine)
        self.gen.odds = odds
        self.ns = namespace(engine)
        self.units: list[Unit] = []
        self._entries = 0
        self._owners = _owner_index(engine.game)
        # the cache: the units of an earlier build of the same rules, served in request order
        self._cache_file = _cache_entry(engine, odds)
        self._cached = _read_cache(self._cache_file, engine)
        self.from_cache = self._cached is not None
        self._written = False
        self._plan_ids: dict[str, int] = {}  # rule name -> its memo's number (memo.py)
        if self._cached is not None:
            gen = self.gen
            (gen.constants, gen.spans, gen.symbols, gen._temp, self._entries, gen.readers,
             gen.testers, gen.setters, plans) = self._cached["state"]
            gen._const_index = {}  # a cached build does not generate: no new constants to share
            gen._span_index = {}
            for name in plans:  # the memo numbers the cached code uses
                self._memo_plan(engine.game.names.get(name) or engine.synthetic_rules[name])
        self._file = f"<warcodex {engine.game.game.name if engine.game.games else 'rules'} {id(self):x}>"
        self._bound = [0, 0]  # constants and spans already in the namespace
        self._codes: list = []
        self._requests: list = []

    # ------------------------------------------------------------ the closure compiler's interface
    def expr(self, e: ast.Expr, scope, dynamic: bool = False):
        scope = frozenset(scope)
        hit = self._from_cache(("expr", type(e).__name__, e.span, tuple(sorted(scope)), dynamic))
        if hit is not None:
            return hit
        name = self._entry_name()
        unit = Unit(name, self._owner(e.span), "expression")
        gen = self.gen
        gen._span = e.span

        gen.function(unit, name, ["fr"], sorted(scope), lambda: gen.returns(e, scope), fr=True, dynamic=dynamic)
        return self._load(unit)

    def block(self, stmts: list, scope, dynamic: bool = False):
        scope = set(scope)
        initial = sorted(scope)
        hit = self._from_cache(("block", tuple(s.span for s in stmts), tuple(initial), dynamic))
        if hit is not None:
            return hit
        name = self._entry_name()
        unit = Unit(name, self._owner(stmts[0].span if stmts else None), "statements")
        gen = self.gen
        gen._span = stmts[0].span if stmts else None

        def body():
            gen.block(stmts, scope)
        gen.function(unit, name, ["fr"], initial, body, fr=True, dynamic=dynamic)
        return self._load(unit)

    def value(self, e: ast.Expr, params: tuple):
        """`f(ctx, *args)`: the value of `e` with `params` bound to the arguments."""
        params = tuple(params)
        hit = self._from_cache(("value", type(e).__name__, e.span, params))
        if hit is not None:
            return hit
        gen = self.gen
        name = self._entry_name()
        unit = Unit(name, self._owner(e.span), "value")
        gen._span = e.span
        scope = frozenset(params)
        gen.function(unit, name, ["ctx"] + [gen.local(p) for p in params], (), lambda: gen.returns(e, scope), fr=False)
        return self._load(unit)

    def predicate(self, exprs: list, params: tuple):
        """`f(ctx, *args)`: true when any of the conditions is, in order (a bare flag is true)."""
        params = tuple(params)
        hit = self._from_cache(("predicate", tuple(e.span if e is not None else None for e in exprs), params))
        if hit is not None:
            return hit
        gen = self.gen
        name = self._entry_name()
        first = next((e.span for e in exprs if e is not None), None)
        unit = Unit(name, self._owner(first), "conditions")
        gen._span = first
        scope = frozenset(params)

        def body():
            parts = [gen.expr(e, scope) if e is not None else "True" for e in exprs]
            gen.emit(f"return True if {' or '.join(parts)} else False")
        gen.function(unit, name, ["ctx"] + [gen.local(p) for p in params], (), body, fr=False)
        return self._load(unit)

    # ------------------------------------------------------------ rules
    def quantity(self, q: ast.Quantity):
        hit = self._from_cache(("quantity", q.name, q.span))
        if hit is not None:
            return _registry_entry(hit, len(q.params), q.name)
        gen, engine = self.gen, self.engine
        names = [p.name for p in q.params]
        params = ["ctx"] + [gen.local(n) for n in names]
        scope = frozenset(names)
        for stage in stage_order(q):
            if stage not in DEFAULT_ORDER:
                raise RuleError(f"unknown stage '{stage}' in order (use {', '.join(DEFAULT_ORDER)})", q.span)
        mods = [m for _, m in composed(q)]  # the composition order (dsl/composition.py)
        groups = {m.group: gen.temp("group") for m in mods if m.group is not None}
        rule = gen.rule(q.name)
        unit = Unit(rule, q.name, "quantity")
        gen._span = q.span
        args = ", ".join(params)

        def plain():  # mirrors compiler.compile_quantity's `fast`
            gen.emit(f"v = {gen.expr(q.base, scope) if q.base is not None else '0'}", q.base.span if q.base else q.span)
            for g in groups.values():
                gen.emit(f"{g} = False")
            for m in mods:
                op = _CAP_ALIASES.get(m.op, m.op)
                gen._span = m.span
                test = self._modifier_test(m, scope, groups)
                amount = gen.expr(m.value, scope)
                if op == "=":
                    apply = [f"v = {amount}"]
                elif op in ("min", "max"):
                    cmp = "<" if op == "min" else ">"
                    apply = [f"a = {amount}", f"v = a if v is not None and a {cmp} v else v"]
                elif op == "/" and m.rounding is not None:
                    apply = [f"v = DIVIDE_ROUNDED(v, {amount}, {m.rounding!r})"]
                elif op == "+" and m.rounding is None:
                    apply = [f"a = {amount}", f"v = v + a if type(v) is int and type(a) is int and -MAXM <= v + a <= MAXM "
                                              f"else ARITH('+', v, a, {gen.span(m.span)})"]
                else:
                    apply = [f"v = ROUND(ARITH({op!r}, v, {amount}, {gen.span(m.span)}), {m.rounding!r})"]
                self._guarded(test, m, groups, apply)
            gen.emit("return v if type(v) is int else NUM(v)")

        def traced():  # mirrors compiler.compile_quantity's `evaluate`
            base_cites = gen.const(tuple(q.base_citations) or tuple(q.header.citations))
            gen.emit(f"v = {gen.expr(q.base, scope) if q.base is not None else '0'}", q.base.span if q.base else q.span)
            gen.emit(f"steps = [Derivation(f'base {{v}}', v, {base_cites})]")
            for g in groups.values():
                gen.emit(f"{g} = False")
            for m in mods:
                op = _CAP_ALIASES.get(m.op, m.op)
                gen._span = m.span
                test = self._modifier_test(m, scope, groups)
                amount = gen.expr(m.value, scope)
                label = m.label or m.op
                apply = [f"a = {amount}", "before = v",
                         f"v = MODIFIER_STEP({op!r}, v, a, {m.rounding!r}, {gen.span(m.span)})",
                         f"steps.append(TRACED_MODIFIER({label!r}, {op!r}, before, a, {m.rounding!r}, v, "
                         f"{gen.const(tuple(m.citations))}))"]
                self._guarded(test, m, groups, apply)
            gen._span = q.span
            gen.emit("v = NUM(v)")
            title = q.header.label or q.name
            gen.emit(f"ctx.trace_add(Derivation({title!r} + ' = ' + str(v), v, {gen.const(tuple(q.header.citations))}, steps, "
                     f"'quantity', {q.name!r}))")
            gen.emit("return v")

        gen.function(unit, "B" + rule[1:], params, (), plain, fr=False, docline=f"quantity {q.name}, untraced")
        gen.function(unit, "T" + rule[1:], params, (), traced, fr=False, docline=f"quantity {q.name}, traced for explain")
        pure = not engine.deps.rolls_dice(q) and not engine.deps.reads_hidden(q)
        level, _ = cache_plan(engine.compiler, q)

        by_list = level in ("positions", "dynamic") and any(p.type.startswith("list") for p in q.params)

        def entry():
            gen.emit(f"if ctx.tracing: return T{rule[1:]}({args})")
            if self.odds:
                self._odds_cached_call(q, level, pure, "B" + rule[1:], args, names)
                return
            if by_list:  # as a function of a list (below): evaluated each time, not looked up
                if pure:
                    self._memo_plan(q)
                gen.emit(f"return B{rule[1:]}({args})")
                return
            self._cached_call(q, level, pure, "B" + rule[1:], args, names)
        gen.function(unit, rule, params, (), self._depth_counted(q, entry), fr=False,
                     docline=f"quantity {q.name}: cache, then B (or T when tracing)")
        fn = self._load(unit)
        return _registry_entry(fn, len(names), q.name)

    def _modifier_test(self, m, scope, groups) -> str | None:
        gen = self.gen
        parts = []
        if m.group is not None:
            parts.append(f"not {groups[m.group]}")
        if m.when is not None:
            parts.append(gen.expr(m.when, scope))
        return " and ".join(parts) if parts else None

    def _guarded(self, test, m, groups, apply: list[str]) -> None:
        gen = self.gen
        lines = ([f"{groups[m.group]} = True"] if m.group is not None else []) + apply
        if test is None:
            for line in lines:
                gen.emit(line, m.span)
            return
        gen.emit(f"if {test}:", m.span)
        with gen.indented():
            for line in lines:
                gen.emit(line, m.span)

    def _cached_call(self, decl, level: str, pure: bool, body: str, args: str, names: list) -> None:
        """The caching of compiler.cached_call and the memo of the closures' `run`, inlined; the
        per-state memo replaced by one that survives the changes the rule does not read
        (memo.py), except while tracing (`traced`: the per-version memo, as before)."""
        gen, engine = self.gen, self.engine
        key_args = "(" + "".join(gen.local(n) + ", " for n in names) + ")"
        deps = engine.deps.of(decl)
        reads = tuple(sorted(deps.reads))
        read_code = "(" + "".join(f"READ_GLOBAL(state, {n!r}), " for n in reads) + ")"
        name = repr(decl.name)
        if level == "static":
            # compiler._unit_types_args, argument by argument: a unit stands for its type and side,
            # or for the facts of its type the rule reads (reads.py: `move_cost` reads whether
            # the unit is mechanized); the globals it reads, derived globals by their value
            types = {p.name: p.type for p in decl.params}
            found = engine.reads.of(decl)
            by_facts = not found.near and not found.units and all(is_global_kind(k) for k in found.everywhere)
            facts = dict(found.facts) if by_facts else {}
            if by_facts:
                kinds = sorted(found.everywhere) + (["var:scenario"] if "scenario" in deps.reads else [])
                read_code = "(" + "".join(self._global_code(k) + ", " for k in kinds) + ")"
                reads = tuple(kinds)
            parts = []
            for i, n in enumerate(names):
                x = gen.local(n)
                if types.get(n) == "unit" and by_facts and facts.get(i, ()) is not None:
                    u = gen.temp("u")
                    values = "".join(self._fact_code(f, x, u) + ", " for f in sorted(facts.get(i, ())))
                    parts.append(f"(({values}) if type({x}) is UnitRef and ({u} := state.units.get({x}.id)) is not None "
                                 f"else UNIT_TYPES(state, {x}))")
                elif types.get(n) == "unit":
                    u = gen.temp("u")
                    parts.append(f"(('unit', {u}.type, {u}.side) if type({x}) is UnitRef and "
                                 f"({u} := state.units.get({x}.id)) is not None else UNIT_TYPES(state, {x}))")
                else:
                    parts.append(f"({x} if type({x}) is not UnitRef and type({x}) is not tuple else UNIT_TYPES(state, {x}))")
            typed = "(" + "".join(part + ", " for part in parts) + ")"
            key = f"({name}, {typed}" + (f", {read_code})" if reads else ")")
            self._memo_lines("STATIC", key, body, args, state=True)
        elif level == "traced":
            # while tracing: the per-version memo of traced values (a value computed at an earlier
            # version, or untraced, is evaluated again, so the trace shows what it did)
            gen.emit("memo = ctx._traced_memo if ctx._memo_version == ctx.state.version else ctx.memo()")
            gen.emit(f"k = ({name}, {key_args})")
            gen.emit("try:")
            gen.emit(f"    return memo[k]")
            gen.emit("except KeyError:")
            gen.emit(f"    v = memo[k] = {body}({args})")
            gen.emit("    return v")
            gen.emit("except TypeError:  # an unhashable argument")
            gen.emit("    pass")
            gen.emit(f"return {body}({args})")
        elif pure:
            # level "positions" (never traced here) or "dynamic" (also while tracing: a value
            # is then used only if computed while tracing at this version, as ctx.memo() does;
            # an entry computed untraced is tagged -1: reusing it would make an explanation
            # depend on whether an agent's enumeration or a search evaluated the rule first)
            i, plan = self._memo_plan(decl)
            traced_tag = level == "dynamic" and isinstance(decl, ast.Function)
            if traced_tag:
                hit = ["if not ctx.tracing or e[1] == ctx.state.version:", "    return e[0]"]
            else:
                hit = ["return e[0]"]
            plain = f"return {body}({args})"
            gen.emit(f"memo = ctx.memo_values[{i}] if ctx.memo_version == ctx.state.version else ctx.sync_memos()[{i}]")
            # the shape of the rule's memo (memo.Plan.shape): by one argument, by one anchor and
            # then the others, or by the arguments' tuple (indexed by the anchors if several)
            if plan.shape == "nested":
                slot = gen.local(names[plan.slots[0]])
                rest = [gen.local(n) for j, n in enumerate(names) if j != plan.slots[0]]
                inner_key = rest[0] if len(rest) == 1 else "(" + "".join(r + ", " for r in rest) + ")"
                gen.emit("try:")
                gen.emit(f"    inner = memo[{slot}]")
                gen.emit("except KeyError:")
                gen.emit(f"    inner = memo[{slot}] = {{}}")
                gen.emit("except TypeError:  # an unhashable argument")
                gen.emit(f"    {plain}")
                key, store = inner_key, "inner"
            else:
                key = gen.local(names[0]) if plan.shape == "single" else key_args
                store = "memo"
            gen.emit("try:")
            gen.emit(f"    e = {store}[{key}]")
            gen.emit("except KeyError:")
            gen.emit("    pass")
            gen.emit("except TypeError:  # an unhashable argument")
            gen.emit(f"    {plain}")
            gen.emit("else:")
            for line in hit:
                gen.emit("    " + line)
            tag = "(ctx.memo_version if ctx.tracing else -1)" if traced_tag else "ctx.memo_version"
            gen.emit(f"v = {store}[{key}] = ({body}({args}), {tag})")
            if plan.shape == "indexed":  # indexed by the anchors and unit parameters, for invalidation
                gen.emit(f"ix = ctx.memo_index[{i}]")
                # a tuple, replaced rather than appended to: a lookahead's copy of the memos
                # (Memos.copy) then shares the game's tuples instead of copying every list
                for j, p in enumerate(plan.slots):
                    a = gen.local(names[p])
                    gen.emit(f"ix[{j}][{a}] = ix[{j}].get({a}, ()) + ({key},)")
            gen.emit("return v[0]")
        else:
            gen.emit(f"return {body}({args})")

    def _odds_cached_call(self, decl, level: str, pure: bool, body: str, args: str, names: list) -> None:
        """The caching of the closure compiler (compiler.compile_function), for the exact odds
        engine: a value kept for the whole game (`static`), until a unit moves (`positions`), or
        for the state version (`ctx.memo()`, which the odds enumerator keeps for every replay
        from the same state). Not the memos that survive changes (memo.py): the enumerator
        installs another state for every branch, and they would start afresh each time."""
        gen, engine = self.gen, self.engine
        key_args = "(" + "".join(gen.local(n) + ", " for n in names) + ")"
        name = repr(decl.name)
        if level == "static":
            gen.emit("if not ctx.tracing:")
            with gen.indented():
                self._cached_call(decl, "static", pure, body, args, names)
        elif level == "positions":
            reads = tuple(sorted(engine.deps.of(decl).reads))
            read_code = "(" + "".join(f"READ_GLOBAL(ctx.state, {n!r}), " for n in reads) + ")"
            gen.emit("if not ctx.tracing:")
            with gen.indented():
                gen.emit("memo = ctx.positions_memo()")
                key = f"({name}, {key_args}, {read_code})" if reads else f"({name}, {key_args})"
                self._memo_lines("memo", key, body, args, state=False)
        if pure:
            gen.emit("memo = ctx.memo()")
            self._memo_lines("memo", f"({name}, {key_args})", body, args, state=False)
        else:
            gen.emit(f"return {body}({args})")

    def _global_code(self, kind: str) -> str:
        """The current value of a global kind of state, in a cache key (reads.py)."""
        if kind.startswith("fn:"):  # a derived global: its value
            return f"{self.gen.rule(kind[3:])}(ctx)"
        name = kind[4:] if kind.startswith("var:") else kind
        return f"READ_GLOBAL(state, {name!r})"

    def _fact_code(self, fact: str, x: str, u: str) -> str:
        """The value of a fact of unit `x`'s type (record `u`), in a cache key."""
        if fact in ("side", "type"):
            return f"{u}.{fact}"
        kind, name = fact.split(":", 1)
        if kind == "tag":
            tester = symbol("IS_", name, self.gen.symbols)
            self.gen.testers[tester] = name
            return f"{tester}(ctx, {x})"
        reader = symbol("A_", name, self.gen.symbols)
        self.gen.readers[reader] = name
        return f"{reader}(ctx, {x}, None)"

    def _memo_plan(self, decl):
        """The number and plan of a rule's surviving memo (memo.py), made once per rule."""
        engine = self.engine
        found = self._plan_ids.get(decl.name)
        if found is None:
            found = self._plan_ids[decl.name] = len(engine.memo_plans)
            engine.memo_plans.append(plan_of(decl, engine.reads.of(decl)))
        return found, engine.memo_plans[found]

    def _memo_lines(self, memo: str, key: str, body: str, args: str, state: bool) -> None:
        gen = self.gen
        if state:
            gen.emit("state = ctx.state")
        gen.emit("try:")
        gen.emit(f"    k = {key}")
        gen.emit(f"    return {memo}[k]")
        gen.emit("except KeyError:")
        gen.emit(f"    v = {memo}[k] = {body}({args})")
        gen.emit("    return v")
        gen.emit("except TypeError:  # an unhashable argument")
        gen.emit(f"    return {body}({args})")

    def function(self, f: ast.Function):
        hit = self._from_cache(("function", f.name, f.span))
        if hit is not None:
            return _registry_entry(hit, len(f.params), f.name)
        gen, engine = self.gen, self.engine
        names = [p.name for p in f.params]
        params = ["ctx"] + [gen.local(n) for n in names]
        args = ", ".join(params)
        rule = gen.rule(f.name)
        unit = Unit(rule, f.name, "function")
        gen._span = f.span
        scope = frozenset(names)
        gen._span = f.body.span
        gen.function(unit, "B" + rule[1:], params, (), lambda: gen.returns(f.body, scope), fr=False,
                     docline=f"function {f.name}")
        pure = not engine.deps.rolls_dice(f) and not engine.deps.reads_hidden(f)
        level, _ = cache_plan(engine.compiler, f)

        # a list argument (`hit_targets(pool, kind, dd)`): its key costs a hash of every element,
        # about what evaluating the rule costs, and a list is seldom asked for again unchanged:
        # evaluated each time (while tracing, the per-version memo, so explanations are the same)
        by_list = level in ("positions", "dynamic") and any(p.type.startswith("list") for p in f.params)

        def entry():
            if self.odds:
                self._odds_cached_call(f, level, pure, "B" + rule[1:], args, names)
                return
            if by_list:
                if pure:
                    self._memo_plan(f)  # what it reads is still known (tests, audits), its memo unused
                gen.emit("if not ctx.tracing:")
                gen.emit(f"    return B{rule[1:]}({args})")
                if pure:
                    self._cached_call(f, "traced", pure, "B" + rule[1:], args, names)
                else:
                    gen.emit(f"return B{rule[1:]}({args})")
            elif level in ("static", "positions"):
                # while explaining, values cached across games are not used (see compiler.py)
                gen.emit("if not ctx.tracing:")
                with gen.indented():
                    self._cached_call(f, level, pure, "B" + rule[1:], args, names)
                if pure:
                    self._cached_call(f, "traced", pure, "B" + rule[1:], args, names)
                else:
                    gen.emit(f"return B{rule[1:]}({args})")
            else:
                self._cached_call(f, "dynamic", pure, "B" + rule[1:], args, names)
        gen.function(unit, rule, params, (), self._depth_counted(f, entry), fr=False,
                     docline=f"function {f.name}: cache, then B")
        fn = self._load(unit)
        return _registry_entry(fn, len(names), f.name)

    def procedure(self, p: ast.Procedure):
        hit = self._from_cache(("procedure", p.name, p.span))
        if hit is not None:
            return _registry_entry(hit, len(p.params), p.name)
        gen = self.gen
        names = [x.name for x in p.params]
        params = ["ctx"] + [gen.local(n) for n in names]
        rule = gen.rule(p.name)
        unit = Unit(rule, p.name, "procedure")
        gen._span = p.span
        label = p.header.label or p.name
        cites = gen.const(tuple(p.header.citations))

        scoped = p.name in self.engine.procedure_vars  # its `per` variables: see Engine.enter_procedure
        odds = self.odds

        def body():
            if odds:
                # exact odds (compiler.compile_procedure): a count of hits passed pending is
                # observed where it is read, but for the bound of a count loop and an argument
                # passed on to a procedure (first: observing it may end the run, `Branch`)
                for n in pending_reads(p, self.engine):
                    gen.emit(f"if type({gen.local(n)}) is PENDING: {gen.local(n)} = ctx.chance.force({gen.local(n)})")
            if scoped:
                gen.emit(f"saved = ENTER_PROCEDURE(ctx, {p.name!r})")
            if odds:
                # whether the body is the last thing of the run comes from the call (`tail_next`),
                # and no statement of it is, but those `tail_statements` says
                gen.emit("_chance, _tail = ctx.chance, False")
                gen.emit("if _chance is not None:")
                gen.emit("    _tail, _chance.tail_next, _tail_ok, _chance.tail_ok = _chance.tail_next, False, _chance.tail_ok, False")
            gen.emit("traced = ctx.tracing")
            gen.emit(f"if traced: ctx.trace_open({label!r}, {cites})")
            gen.emit("try:")
            with gen.indented():
                gen.block(p.body, set(names))
            gen.emit("finally:")
            gen.emit("    if traced: ctx.trace_close_procedure()")
            if odds:
                gen.emit("    if _chance is not None: _chance.tail_ok = _tail_ok")
            if scoped:
                gen.emit(f"    LEAVE_PROCEDURE(ctx, {p.name!r}, saved)")
            gen.emit("return None")
        gen._stop = "return None"
        if odds:
            gen._tails, gen._unit, gen._procedure_body = tail_statements(p.body, self.engine), unit, p.body
        try:
            gen.function(unit, rule, params, (), self._depth_counted(p, body), fr=False, docline=f"procedure {p.name}")
        finally:
            del gen._stop
            gen._tails = gen._unit = None
            gen._procedure_body = []
        fn = self._load(unit)
        return _registry_entry(fn, len(names), p.name)

    def _depth_counted(self, decl, emit_body):
        """Emit `emit_body` inside the context's call accounting (`Context.enter`, MAX_CALL_DEPTH)
        if the rule may be entered again before it returns (bounds.py): rules calling rules stop
        at the bound with a located error, at the rule entered. Other rules count nothing."""
        gen = self.gen
        if decl.name not in self.engine.counted:  # it cannot be entered again before it returns
            return emit_body

        def emit():
            gen.emit(f"ctx.enter({decl.name!r}, {gen.span(decl.header.span or decl.span)})")
            gen.emit("try:")
            with gen.indented():
                emit_body()
            gen.emit("finally:")
            gen.emit("    ctx.depth -= 1")
        return emit

    # ------------------------------------------------------------ compiling, loading, showing
    def _entry_name(self) -> str:
        self._entries += 1
        return f"X{self._entries}"

    def _owner(self, span) -> str:
        if span is None:
            return ""
        for file, first, last, name in self._owners:
            if file == span.file and first <= span.line <= last:
                return name
        return ""

    def _load(self, unit: Unit, code=None):
        """Compile one unit into the engine's namespace and return its main function."""
        self._bind_constants()
        filename = f"{self._file[:-1]} {unit.name}>"
        source = unit.source
        if code is None:
            code = compile(source, filename, "exec")
        exec(code, self.ns)
        self.units.append(unit)
        self._codes.append(code)
        self._requests.append(self._request)
        _FILES[filename] = unit.lines
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        return self.ns[unit.name]

    _request = None

    def _from_cache(self, request: tuple):
        """The function of the next cached unit, if the cache has one for this request."""
        self._request = request
        cached = self._cached
        if cached is None:
            return None
        units = cached["units"]
        i = len(self.units)
        if i >= len(units) or units[i][0] != request:
            self._cached = None  # the rules asked for something else: generate from here on
            return None
        _, name, owner, role, lines, code = units[i]
        unit = Unit(name, owner, role, lines)
        return self._load(unit, marshal.loads(code))

    def finish(self) -> None:
        """The engine is built: write the cache entry, if this build generated code."""
        if self.from_cache and self._cached is not None or self._written or self._cache_file is None:
            return
        self._written = True
        gen = self.gen
        units = [(req, u.name, u.owner, u.role, u.lines, marshal.dumps(code))
                 for req, u, code in zip(self._requests, self.units, self._codes)]
        data = {"units": units,
                "state": ([_freeze(c) for c in gen.constants], gen.spans, gen.symbols, gen._temp, self._entries,
                          gen.readers, gen.testers, gen.setters, [p.name for p in self.engine.memo_plans])}
        _write_cache(self._cache_file, data)

    def _bind_constants(self) -> None:
        gen, ns, bound = self.gen, self.ns, self._bound
        for i in range(bound[0], len(gen.constants)):
            ns[f"K{i}"] = gen.constants[i]
        for i in range(bound[1], len(gen.spans)):
            ns[f"S{i}"] = gen.spans[i]
        for symbol_, name in gen.readers.items():
            if symbol_ not in ns:
                reader = ns[symbol_] = self.engine.attribute_reader(name)
                ns["AF" + symbol_[1:]] = getattr(reader, "fixed", {})  # read inline (codegen._e_Attr)
        for symbol_, tag in gen.testers.items():
            if symbol_ not in ns:
                tester = ns[symbol_] = self.engine.tag_tester(tag)
                ns["ISF" + symbol_[2:]] = tester.fixed  # read inline (codegen._e_Is)
        for symbol_, name in gen.setters.items():
            if symbol_ not in ns:
                ns[symbol_] = self.engine.attribute_setter(name)
        bound[:] = [len(gen.constants), len(gen.spans)]

    def source(self) -> str:
        return "".join(u.source for u in self.units)

    def plain(self, name: str):
        """The plain evaluation `B_name(ctx, *args)` of a function or quantity."""
        return self.ns["B" + self.gen.rule(name)[1:]]

    def bodies(self) -> dict:
        """{rule name: its plain evaluation `B_name(ctx, *args)`} of the rules with a surviving
        memo (memo.Memos.audit re-evaluates their remembered values with these)."""
        return {p.name: self.ns["B" + self.gen.rule(p.name)[1:]] for p in self.engine.memo_plans}

    def show(self, name: str) -> str:
        """The generated code of a declaration (every unit it owns), or '' if none."""
        return "".join(u.source for u in self.units if u.owner == name)


# ==================================================================== the generated-source cache
def _toolchain() -> bytes:
    """What generated code depends on besides the rules: the generator and the engine's sources,
    the parser's, and the Python version (code objects are version-specific)."""
    import sys

    from warcodex.dsl.cache import _toolchain_key

    digest = hashlib.sha256(_toolchain_key() + sys.version.encode())
    for name in ("codegen.py", "generated.py", "compiler.py", "dependencies.py", "engine.py", "builtins.py", "reads.py",
                 "memo.py", "context.py", "narrowing.py"):
        digest.update(resources.files("warcodex.interpreter").joinpath(name).read_bytes())
    digest.update(resources.files("warcodex.dsl").joinpath("limits.py").read_bytes())  # bounds written into the code
    return digest.digest()


def _cache_entry(engine, odds: bool = False):
    folder = cache_dir()
    if folder is None or not engine.game.fingerprint:
        return None
    key = _toolchain() + engine.fingerprint.encode() + b"\0" + (engine.rules_scenario or "").encode()
    if odds:  # the exact odds engine's code: other units, in another order (never play's entries)
        key += b"\0odds"
    return folder / f"{hashlib.sha256(key).hexdigest()}.rules"


def _freeze(value):
    return ("entity", value.name) if isinstance(value, Entity) else ("value", value)


def _read_cache(path, engine) -> dict | None:
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            data = pickle.load(f)
        constants, spans, symbols, temp, entries, readers, testers, setters, plans = data["state"]
        thawed = []
        for kind, value in constants:
            thawed.append(engine.entities[value] if kind == "entity" else value)
        data["state"] = (thawed, spans, symbols, temp, entries, readers, testers, setters, plans)
        return data
    except Exception:  # noqa: BLE001 - a missing or bad cache entry is a cache miss
        return None


def _write_cache(path, data: dict) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except Exception:  # noqa: BLE001 - an unwritable cache is no cache
        pass


def _owner_index(game) -> list:
    """(file, first line, last line, name) of every declaration, to say what a unit belongs to."""
    out = []
    decls = list(game.decls) + [t for sc in game.scenarios.values() for t in sc.triggers]
    for d in decls:
        span = getattr(d, "span", None)
        if span is None or not isinstance(d, ast.Decl):
            continue
        out.append((span.file, span.line, span.end_line or span.line, d.name))
    # innermost first: a scenario's trigger is inside the scenario
    out.sort(key=lambda x: x[2] - x[1])
    return out


def span_of(filename: str, line: int):
    """The `.wcx` span of a line of generated code (for errors raised inside it), or None."""
    lines = _FILES.get(filename)
    if lines is None or not 1 <= line <= len(lines):
        return None
    return lines[line - 1][1]


def span_of_traceback(tb):
    """The span of the innermost generated line in a traceback, or None."""
    found = None
    while tb is not None:
        span = span_of(tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        if span is not None:
            found = span
        tb = tb.tb_next
    return found
