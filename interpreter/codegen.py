"""Generate Python source from the checked AST: each rule becomes a plain Python function.

This is how the rules run (see `generated.py` for compiling, loading and caching the source, and
docs/engine.md, "How rules become Python"). Like a template engine that compiles templates, the
generator writes Python text from the checked AST only:

- no user text becomes code: every name is mangled into a fixed-prefix Python identifier
  (`l_` locals, `R_` rules; a name that is not a plain ASCII identifier gets a numbered symbol),
  every literal is written with `repr` or kept in the module's constants (`K3`), and every
  source span, entity, odds, fraction and dice value the code needs is a constant (`S12`, `E4`);
- a DSL local is a Python local; a call to a quantity, function or procedure is a direct call of
  its generated entry (`R_attack_strength(ctx, l_u)`), which keeps the caching the dependency
  analysis allows; numbers folded at generation time;
- evaluation stays bounded: loops, aggregates and the rules that can be entered again
  (`bounds.py`) count steps and call levels as the closure compiler does (`compiler.py`, kept as
  the reference the generated code is tested against), with the same located error when a limit
  is exceeded; built-ins are called directly, their misuse located by one handler a function;
- each generated line remembers the span of the construct it came from (`Unit.lines`), so an
  unexpected error inside generated code is reported at the `.wcx` line and column.

One method per node kind: `_e_<Node>` returns a Python expression, `_s_<Node>` emits statement
lines. A node kind without its method is refused at generation time with a located error (and
the test `test_codegen.py` checks every AST node kind has one).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.dsl.stdlib import BUILTINS, CONSTANTS
from warcodex.dsl.walk import walk
from warcodex.interpreter.compiler import SideFilter, bound_and_read_after, markov_loop, side_filter_shape
from warcodex.interpreter.narrowing import comprehension_condition, for_condition, narrowed
from warcodex.interpreter.values import Entity, Odds, RuleError

import re

# an argument that can stand for a parameter of an inlined function as it is: a Python local or
# temporary, a constant, a literal (evaluating it again has no effect and gives the same value)
_PLAIN_ARGUMENT = re.compile(r"l_\w+|_\w+|K\d+|S\d+|True|False|None|\(?-?\d+\)?|'[^'\\]*'")

_FAST_COMPARE = ("==", "!=", "<", "<=", ">", ">=")
AGGREGATES = ("sum", "count", "any", "all", "list", "first", "min", "max")


def symbol(prefix: str, name: str, taken: dict) -> str:
    """A Python identifier for a DSL name: `prefix + name` when the name is a plain ASCII
    identifier (readable generated code), else a numbered one. Never user text otherwise."""
    key = (prefix, name)
    sym = taken.get(key)
    if sym is None:
        if name.isascii() and name.isidentifier():
            sym = prefix + name
        else:
            sym = f"{prefix}{len(taken)}_"
        taken[key] = sym
    return sym


@dataclass
class Unit:
    """One generated piece of source: a function (or a few) with its line -> span map."""

    name: str  # the Python name of its main function
    owner: str  # the declaration it belongs to (for `warcodex compile --show NAME`)
    role: str  # what it is: "quantity", "action move: requirement 2"...
    lines: list[tuple[str, object]] = field(default_factory=list)  # (text, span or None)

    @property
    def source(self) -> str:
        return "".join(text + "\n" for text, _ in self.lines)


class _Body:
    """The function being written: its lines, locals, temporaries and nested helpers."""

    def __init__(self, gen: "Generator", parent: "_Body | None", fr: bool) -> None:
        self.gen = gen
        self.parent = parent
        self.lines: list[tuple[int, str, object]] = []  # (indent, text, span)
        self.defs: list[tuple[int, str, object]] = []  # nested helper functions, placed first
        self.fr = fr  # an entry taking a Frame (dynamic names are read from fr.vars)
        self.read: set[str] = set()  # DSL locals read (an entry loads them from fr.vars)
        self.binds: set[str] = set()  # DSL locals this body binds itself (an aggregate's variable)
        self.calls_builtin = False  # it (or a helper nested in it) calls a built-in directly

    def root(self) -> "_Body":
        b = self
        while b.parent is not None:
            b = b.parent
        return b


class Generator:
    """Writes the Python source of rules for one engine (names resolve through it)."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.constants: list = []  # value of K<i>
        self._const_index: dict = {}
        self.spans: list = []  # value of S<i>
        self._span_index: dict = {}
        self.symbols: dict = {}
        self.readers: dict = {}  # A_<name> -> the attribute name its reader reads
        self.testers: dict = {}  # IS_<tag> -> the tag its tester tests
        self.setters: dict = {}  # SET_<name> -> the attribute name its setter sets
        self._temp = 0
        self._body: _Body | None = None
        self._indent = 0
        self._span = None
        self._dynamic = False
        self._trivial: dict[str, bool] = {}  # function name -> whether `trivial`
        self._subst: dict[str, str] | None = None  # an inlined trivial function's parameters -> their code
        self._records: dict[str, str] = {}  # an aggregate's variable (Python local) -> its unit record's
        # exact odds (`Engine(evaluator="odds")`, docs/odds.md): procedures that roll no dice are
        # generated with the chance oracle's constructs they may hold (a lazy count loop, a
        # pending count read, the tail position); `_tails`: the statements of the procedure being
        # written that are the last thing it does (None outside such a procedure's own body)
        self.odds = False
        self._tails: set[int] | None = None
        self._unit: Unit | None = None  # the unit being written (a lazy loop's body goes into it)
        self._procedure_body: list = []  # the statements of the procedure being written

    # ================================================================ constants and names
    def const(self, value) -> str:
        """A module constant holding `value` (entities, odds, fractions, dice, tuples...)."""
        try:
            key = (type(value), value) if not isinstance(value, (Entity, ast.Node)) else (type(value), id(value))
            hash(key)
        except TypeError:
            key = (type(value), id(value))
        i = self._const_index.get(key)
        if i is None:
            i = self._const_index[key] = len(self.constants)
            self.constants.append(value)
        return f"K{i}"

    def span(self, span) -> str:
        if span is None:
            return "None"
        i = self._span_index.get(span)
        if i is None:
            i = self._span_index[span] = len(self.spans)
            self.spans.append(span)
        return f"S{i}"

    def local(self, name: str) -> str:
        return symbol("l_", name, self.symbols)

    def rule(self, name: str) -> str:
        return symbol("R_", name, self.symbols)

    def temp(self, hint: str = "t") -> str:
        self._temp += 1
        return f"_{hint}{self._temp}"

    # ================================================================ writing lines
    def emit(self, text: str, span=None) -> None:
        self._body.lines.append((self._indent, text, span if span is not None else self._span))

    class _Indented:
        def __init__(self, gen):
            self.gen = gen

        def __enter__(self):
            self.gen._indent += 1

        def __exit__(self, *exc):
            self.gen._indent -= 1

    def indented(self):
        return Generator._Indented(self)

    # ================================================================ functions
    def function(self, unit: Unit, header: str, params: list[str], scope_names, body, *, fr: bool,
                 dynamic: bool = False, docline: str | None = None) -> None:
        """Write `def header(...)` whose body is produced by `body()` (which emits lines and
        returns nothing). For an entry taking a Frame (`fr=True`), the DSL locals in `scope_names`
        that the body reads are loaded from `fr.vars` first."""
        outer = self._body, self._indent, self._dynamic
        b = self._body = _Body(self, None, fr)
        self._indent = 1
        self._dynamic = dynamic
        try:
            body()
        finally:
            self._body, self._indent, self._dynamic = outer
        lines = unit.lines
        lines.append((f"def {header}({', '.join(params)}):", self._span))
        if docline:
            lines.append((f"    # {docline}", self._span))
        if fr:
            lines.append(("    ctx = fr.ctx", self._span))
            loads = [n for n in scope_names if n in b.read]
            if loads or dynamic:
                lines.append(("    _vars = fr.vars", self._span))
            for n in loads:
                lines.append((f"    {self.local(n)} = _vars[{n!r}]", self._span))
                if self.odds:  # a count of hits still pending (exact odds) is observed when read
                    lines.append((f"    if type({self.local(n)}) is PENDING: {self.local(n)} = _vars[{n!r}] = "
                                  f"ctx.chance.force({self.local(n)})", self._span))
        for indent, text, span in b.defs:
            lines.append(("    " * indent + text, span))
        if not b.lines:
            lines.append(("    return None", self._span))
        elif b.calls_builtin:
            # built-ins are called directly; one handler gives a misuse its located error
            # (generated._misuse_at), free until something raises
            lines.append(("    try:", self._span))
            for indent, text, span in b.lines:
                lines.append(("    " * (indent + 1) + text, span))
            lines.append(("    except BUILTIN_MISUSE as exc:", self._span))
            lines.append(("        raise MISUSE_AT(exc) from None", self._span))
        else:
            for indent, text, span in b.lines:
                lines.append(("    " * indent + text, span))
        lines.append(("", None))

    # ================================================================ expressions
    def expr(self, e: ast.Expr, scope: frozenset) -> str:
        method = getattr(self, "_e_" + type(e).__name__, None)
        if method is None:
            raise RuleError(f"the code generator has no rule for {type(e).__name__} expressions", e.span)
        was = self._span
        if e.span is not None:
            self._span = e.span
        try:
            return method(e, scope)
        finally:
            self._span = was

    def _e_Num(self, e, scope):
        v = e.value
        if type(v) is int:
            return repr(v) if v >= 0 else f"({v!r})"
        return self.const(v)

    def _e_Str(self, e, scope):
        return repr(e.value)

    def _e_Bool(self, e, scope):
        return "True" if e.value else "False"

    def _e_NoneLit(self, e, scope):
        return "None"

    def _e_OddsLit(self, e, scope):
        return self.const(Odds.ratio(e.attack, e.defense))

    def _e_Name(self, e, scope):
        name = e.id
        if self._subst is not None:  # inside an inlined trivial function: its parameters
            found = self._subst.get(name)
            if found is not None:
                return found
        if name in scope:
            self._mark_read(name)
            return self.local(name)
        found = self.engine.global_name(name, e.span)
        if found is not None:
            kind, value = found
            if kind == "constant":
                return _CONSTANT_CODE[name]
            if kind == "var":
                return f"ctx.state.vars.get({name!r})"
            if kind == "option":
                return f"ctx.state.options.get({name!r})"
            if kind in ("entity", "cell"):  # a declared name, or a result code with its number (DR2)
                return self.const(value)
            if kind == "phase":
                return repr(name)
            raise AssertionError(kind)
        if self._dynamic:  # result bodies see the names of the procedure applying them
            return f"DYNAMIC(fr.vars, {name!r}, {self.span(e.span)})"
        raise RuleError(f"unknown name '{name}'", e.span)

    def _mark_read(self, name: str) -> None:
        b = self._body
        while b is not None:
            b.read.add(name)
            if name in b.binds:
                return
            b = b.parent

    def _e_Attr(self, e, scope):
        obj = self.expr(e.obj, scope)
        name = e.name
        s = self.span(e.span)
        o, u = self.temp("o"), self.temp("u")
        unit = f"type({o} := {obj}) is UnitRef and ({u} := ctx.state.units.get({o}.id)) is not None"
        rec = self._records.get(obj)
        if rec is not None:  # an aggregate's element: its record, read at the top of the iteration
            o, u, unit = obj, rec, f"{rec} is not None"
        if name in ("loc", "side", "steps"):
            # the unit fields read in hot loops: inline, the general path otherwise
            field_ = f"ENTITIES[{u}.side]" if name == "side" else f"{u}.{name}"
            return f"({field_} if {unit} else ATTRIBUTE(ctx, {o}, {name!r}, {s}))"
        # a reader specialised on the name (Engine.attribute_reader): units first
        reader = symbol("A_", name, self.symbols)
        self.readers[reader] = name
        from warcodex.interpreter.engine import _UNIT_FIELDS

        engine = self.engine
        decl = engine.vars.get(name)
        if name in _UNIT_FIELDS or name in engine.hidden_vars:  # the reader's general path
            return f"{reader}(ctx, {obj}, {s})"
        v = self.temp("v")
        if decl is not None and decl.scope == "unit_var":
            # a unit's variable, read inline from its record (`Unit.vd`); unset, its default:
            # written here when it is a literal, else the reader's
            default = _literal_code(decl.default)
            if default is not None:
                return f"({u}.vd.get({name!r}, {default}) if {unit} else {reader}(ctx, {o}, {s}))"
            return f"({v} if {unit} and ({v} := {u}.vd.get({name!r}, MISSING)) is not MISSING else {reader}(ctx, {o}, {s}))"
        # a property of the unit's type (attack, defense): the reader's table of the types whose
        # steps do not change it (`read.fixed`, filled by the reader), inline
        fixed = "AF" + reader[1:]
        return (f"({v} if {unit} and ({v} := {fixed}.get({u}.type, MISSING)) is not MISSING "
                f"else {reader}(ctx, {o}, {s}))")

    def _e_Index(self, e, scope):
        obj = self.expr(e.obj, scope)
        args = ", ".join(self.expr(a, scope) for a in e.args)
        return f"INDEX(ctx, {obj}, [{args}], {self.span(e.span)})"

    def _e_Call(self, e, scope):
        return self.call(e, scope, statement=False)

    def call(self, e: ast.Call, scope, statement: bool) -> str:
        name = e.func
        s = self.span(e.span)
        if name in scope:
            raise RuleError(f"'{name}' is a local value, not a function", e.span)
        if name == "emit" and e.args and isinstance(e.args[0], ast.Name) and e.args[0].id not in scope \
                and self.engine.global_name(e.args[0].id, e.args[0].span) is None:
            # `emit(card_event, ...)`: the first argument names an event, not a value
            args = [repr(e.args[0].id)] + [self.expr(a, scope) for a in e.args[1:]]
        else:
            args = [self.expr(a, scope) for a in e.args]
        decl = self.engine.game.names.get(name)
        if isinstance(decl, (ast.Quantity, ast.Function, ast.Procedure)):
            if len(args) != len(decl.params):
                # the same error as the closure compiler's, raised when the call is evaluated
                return f"ARITY_ERROR({name!r}, {len(decl.params)}, ({''.join(a + ', ' for a in args)}), {s})"
            if isinstance(decl, ast.Function) and self.trivial(decl):
                # cheaper to evaluate than to look up in a memo, or to call: its body, inline
                return self._inline_trivial(decl, args)
            return f"{self.rule(name)}(ctx{''.join(', ' + a for a in args)})"
        if name in BUILTINS:
            if BUILTINS[name].effect and not statement:
                raise RuleError(f"'{name}' changes the game and can only be used as a statement", e.span)
            self._body.root().calls_builtin = True
            call = f"{symbol('B_', name, self.symbols)}(ctx, {s}{''.join(', ' + a for a in args)})"
            inline = _INLINE_BUILTINS.get(name)
            if inline is not None and len(args) == inline[0]:
                # its common case inline, the built-in itself otherwise (on the same values)
                temps = [self.temp("x") for _ in args]
                call = f"{symbol('B_', name, self.symbols)}(ctx, {s}{''.join(', ' + t for t in temps)})"
                return inline[1](args, temps, call)
            return call
        raise RuleError(f"unknown function '{name}'", e.span)

    def _inline_trivial(self, f: ast.Function, args: list[str]) -> str:
        """The body of trivial function `f` as an expression, its parameters bound to the
        arguments: a plain value (a local, a literal) stands for its parameter; another argument
        is evaluated once, first, in order, into a temporary (as a call would)."""
        subst, binds = {}, []
        for p, a in zip(f.params, args):
            if _PLAIN_ARGUMENT.fullmatch(a):
                subst[p.name] = a
            else:
                t = self.temp("p")
                binds.append(f"({t} := {a})")
                subst[p.name] = t
        outer = self._subst, self._dynamic
        self._subst, self._dynamic = subst, False
        try:
            body = self.expr(f.body, frozenset(subst))
        finally:
            self._subst, self._dynamic = outer
        if binds:
            return f"({body} if ({', '.join(binds)},) else None)"
        return f"({body})"

    _TRIVIAL_NODES = (ast.Num, ast.Str, ast.Bool, ast.NoneLit, ast.OddsLit, ast.Name, ast.Attr, ast.Compare, ast.And,
                      ast.Or, ast.Not, ast.Is, ast.Cond, ast.ListLit)

    def trivial(self, f: ast.Function) -> bool:
        """A function whose body only reads attributes and tags, compares, and calls other such
        functions (`may_take_hit(v, kind, dd)`, `is_land(h)`): evaluating it costs less than the
        key of its memo, and it records nothing in a trace, so callers call its plain body
        (`B_name`) directly. Its value is the same either way (functions are pure); its entry
        `R_name`, with the memo, serves the engine's other callers."""
        found = self._trivial.get(f.name)
        if found is None:
            self._trivial[f.name] = False  # while deciding (a cycle is never trivial)
            found = f.name not in self.engine.counted and self._trivial_expr(f.body)
            self._trivial[f.name] = found
        return found

    def _trivial_expr(self, e) -> bool:
        if isinstance(e, ast.Call):
            target = self.engine.game.names.get(e.func)
            return (isinstance(target, ast.Function) and not e.kwargs and len(e.args) == len(target.params)
                    and self.trivial(target) and all(self._trivial_expr(a) for a in e.args))
        if not isinstance(e, self._TRIVIAL_NODES):
            return False
        for f in type(e).model_fields:
            if f == "span":
                continue
            v = getattr(e, f)
            if isinstance(v, ast.Node) and not self._trivial_expr(v):
                return False
            if isinstance(v, list) and not all(self._trivial_expr(x) for x in v):
                return False
        return True

    def _e_Comprehension(self, e, scope):
        """An aggregate becomes a nested helper function with a plain loop (early exit for
        any/all/first), one step-limit tick per collection, like the closure compiler."""
        if e.func not in AGGREGATES:
            raise RuleError(f"'{e.func}(... for ...)' is not an aggregate; use sum, count, min, max, any, all, list or first", e.span)
        source = self.comprehension_source(e, scope)
        helper = self.temp("agg")
        outer_body, outer_indent = self._body, self._indent
        b = self._body = _Body(self, outer_body, outer_body.fr)
        b.binds.add(e.var)
        self._indent = 1
        try:
            self.aggregate(e, scope, "seq", None)
        finally:
            self._body, self._indent = outer_body, outer_indent
        defs = [(0, f"def {helper}(seq):", e.span)]
        defs += [(indent, text, span) for indent, text, span in b.defs + b.lines]
        self._body.defs.extend((indent + 1, text, span) for indent, text, span in defs)
        return f"{helper}({source})"

    def comprehension_source(self, e: ast.Comprehension, scope) -> str:
        """The sequence an aggregate visits (`scan_source`); in the exact odds engine, the units at
        a location passing a side test read as one value on a recording view, as the closure
        compiler reads them (`Compiler.side_filter`, `SideFilter`)."""
        source = self.scan_source(e.source, e.var, comprehension_condition(e), scope)
        shape = side_filter_shape(e, scope, self.engine.game.names) if self.odds else None
        if shape is None:
            return source
        kind, h, x, span = shape
        found, t = self.const(SideFilter(kind, span)), self.temp("sf")
        # the side filter's guard, as the closure compiler writes it (`SideFilter`)
        return (f"({t} if ctx.chance is not None and IS_VIEW(ctx.state) and "
                f"({t} := {found}(ctx, {self.expr(h, scope)}, {self.expr(x, scope)})) is not None else {source})")

    def scan_source(self, source: ast.Expr, var: str, cond, scope, statement: bool = False) -> str:
        """The sequence a loop over `source` visits: the candidates of a tag test the loop's
        condition requires, for a scan of the whole map or of every unit (narrowing.py)."""
        found = narrowed(self.engine, source, var, cond)
        if found is None:
            return self.expr(source, scope)
        kind, tags = found
        runner = ("WALK_TAGGED_LOCATIONS" if statement else "TAGGED_LOCATIONS") if kind == "locations" else "TAGGED_UNITS"
        return f"{runner}(ctx, {tags!r})"

    def inline_aggregate(self, e, scope) -> bool:
        """True if aggregate `e` may be written inline as statements of the function being
        written: its variable is no local there (the loop may then bind it without hiding one)."""
        return isinstance(e, ast.Comprehension) and e.func in AGGREGATES and e.var not in scope

    def aggregate(self, e: ast.Comprehension, scope, seq: str, target: str | None) -> None:
        """Emit the loop of aggregate `e` over the sequence in Python variable `seq`: with
        `target` None, it returns the result (the body of a helper, or of a rule that is one
        aggregate); else it assigns the result to `target` and goes on. The semantics are the
        closure compiler's: an empty or none sequence gives the empty value, one tick per
        collection, `where` then the element for each item, early exit for any/all/first."""
        x = self.local(e.var)
        # the record of the element (a unit), read once an iteration: the state does not change
        # while an expression is evaluated, and the conditions read several fields of it
        rec = self.temp("rec") if _reads_fields(e.where) or _reads_fields(e.element) else None
        outer = self._records.get(x)
        if rec is not None:
            self._records[x] = rec
        else:
            self._records.pop(x, None)
        try:
            self._aggregate(e, scope, seq, target, x, rec)
        finally:
            if outer is not None:
                self._records[x] = outer
            else:
                self._records.pop(x, None)

    def _aggregate(self, e, scope, seq, target, x, rec) -> None:
        func = e.func
        inner = scope | {e.var}
        s = self.span(e.span)
        where = self.expr(e.where, inner) if e.where is not None and not self.inline_aggregate(e.where, inner) else None
        plain = isinstance(e.element, ast.Name) and e.element.id == e.var
        empty = {"sum": "0", "count": "0", "any": "False", "all": "True", "list": "()", "first": "None",
                 "min": "None", "max": "None"}[func]
        result = target or self.temp("r")

        def done(value: str) -> list[str]:  # leave the loop with a value
            return [f"return {value}"] if target is None else [f"{result} = {value}", "break"]

        if target is None:
            self.emit(f"if not {seq}: return {empty}")
        else:
            self.emit(f"{result} = {empty}")
            self.emit(f"if {seq}:")
            self._indent += 1
        self.emit(f"ctx.steps += len({seq})")  # Context.tick_many, inline: one step an element
        self.emit(f"if ctx.steps > ctx.step_limit: ctx.tick({s})")
        if func == "count":
            self.emit("n = 0" if target is None else f"{result} = 0")
        elif func in ("list", "sum", "min", "max"):
            values = self.temp("values")
            self.emit(f"{values} = []")
        self.emit(f"for {x} in {seq}:")
        with self.indented():
            if rec is not None:
                self.emit(f"{rec} = ctx.state.units.get({x}.id) if type({x}) is UnitRef else None")
            if e.where is not None:
                if where is None:  # the condition is itself an aggregate: its loop goes here
                    w = self.temp("w")
                    self._aggregate_value(e.where, inner, w)
                    where = w
                self.emit(f"if not {where}: continue")
            if plain:
                element = x
            elif self.inline_aggregate(e.element, inner):
                element = self.temp("e")
                self._aggregate_value(e.element, inner, element)
            else:
                element = self.expr(e.element, inner)
            if func == "count":
                counter = "n" if target is None else result
                if plain:
                    self.emit(f"{counter} += 1")
                else:
                    v = self.temp("v")
                    self.emit(f"{v} = {element}")
                    self.emit(f"if {v} is not None and {v} is not False: {counter} += 1")
            elif func == "any":
                self.emit(f"if {element}:")
                with self.indented():
                    for line in done("True"):
                        self.emit(line)
            elif func == "all":
                self.emit(f"if not {element}:")
                with self.indented():
                    for line in done("False"):
                        self.emit(line)
            elif func == "first":
                for line in done(element):
                    self.emit(line)
            else:
                self.emit(f"{values}.append({element})")
        final = {"count": "n", "any": "False", "all": "True", "first": "None"}.get(func)
        if func == "list":
            final = f"tuple({values})"
        elif func == "sum":
            final = f"NUM(sum({values}))"
        elif func in ("min", "max"):
            self.emit(f"{values} = [v for v in {values} if v is not None]")  # min/max skip `none`, as the reference does
            final = f"({func}({values}) if {values} else None)"
        if target is None:
            self.emit(f"return {final}")
        else:
            if func in ("list", "sum", "min", "max"):
                self.emit(f"{result} = {final}")
            elif func != "count":
                # any/all/first: the loop's `break` set the result; no break leaves the default
                pass
            self._indent -= 1

    def _aggregate_value(self, e, scope, target: str) -> None:
        """Emit aggregate `e` inline, its value in `target` (the caller checked it may be)."""
        seq = self.temp("seq")
        self.emit(f"{seq} = {self.comprehension_source(e, scope)}")
        self.aggregate(e, scope, seq, target)

    def _pair(self, left: str, right: str) -> tuple[str, str, str]:
        """Evaluate two operands once, left then right, inside an expression: returns the test
        prefix binding them and their temporaries."""
        a, b = self.temp("a"), self.temp("b")
        return f"(({a} := {left}), ({b} := {right}))", a, b

    def _e_BinOp(self, e, scope):
        op, s = e.op, self.span(e.span)
        if isinstance(e.left, ast.Num) and isinstance(e.right, ast.Num):  # `1/2`: folded once
            from warcodex.interpreter.compiler import _arith

            return self._value(_arith(op, e.left.value, e.right.value, e.span))
        left = self.expr(e.left, scope)
        right = self.expr(e.right, scope)
        if op in ("+", "-", "*"):
            both, a, b = self._pair(left, right)
            r = self.temp("r")
            # whole numbers the fast way while within the engine's bound (limits.MAX_MAGNITUDE);
            # ARITH gives the located error beyond it
            return (f"({r} if {both} and type({a}) is int and type({b}) is int and -MAXM <= ({r} := {a} {op} {b}) <= MAXM "
                    f"else ARITH({op!r}, {a}, {b}, {s}))")
        return f"ARITH({op!r}, {left}, {right}, {s})"

    def _value(self, v) -> str:
        if type(v) is int:
            return repr(v) if v >= 0 else f"({v!r})"
        return self.const(v)

    def _e_Compare(self, e, scope):
        op, s = e.op, self.span(e.span)
        left = self.expr(e.left, scope)
        right = self.expr(e.right, scope)
        if isinstance(e.right, ast.Num) and type(e.right.value) is int and op in _FAST_COMPARE:
            # a literal on the right is the common case (`count(...) > 0`)
            if op in ("==", "!="):
                return f"({left} {op} {right})"
            a = self.temp("a")
            return f"({a} {op} {right} if type({a} := {left}) is int else COMPARE({op!r}, {a}, {right}, {s}))"
        if op in ("==", "!="):
            if self._plain_value(e.right, scope):
                # a constant that is not a table cell on the right: Python's own == is the rule
                return f"({left} {op} {right})"
            if isinstance(e.right, ast.Name) and e.right.id in scope:
                # a local on the right: reading it first or last is the same
                eq = f"({left} == {right} if type({right}) is not CellValue else {right} == {left})"
                return eq if op == "==" else f"(not {eq})"
            # the right operand first (a cell compares by its single code), as the closure does
            a, b = self.temp("a"), self.temp("b")
            eq = f"(({a} == {b}) if (({b} := {right}), ({a} := {left})) and type({b}) is not CellValue else ({b} == {a}))"
            return eq if op == "==" else f"(not {eq})"
        both, a, b = self._pair(left, right)
        return f"({a} {op} {b} if {both} and type({a}) is int and type({b}) is int else COMPARE({op!r}, {a}, {b}, {s}))"

    def _plain_value(self, e, scope) -> bool:
        """A literal or a declared entity: never a table cell, evaluated without effects."""
        if isinstance(e, (ast.Num, ast.Str, ast.Bool, ast.NoneLit, ast.OddsLit)):
            return True
        if isinstance(e, ast.Name) and e.id not in scope:
            found = self.engine.global_name(e.id, e.span)
            return found is not None and found[0] in ("entity", "phase")
        return False

    def _e_And(self, e, scope):
        return f"(True if {self.expr(e.left, scope)} and {self.expr(e.right, scope)} else False)"

    def _e_Or(self, e, scope):
        return f"(True if {self.expr(e.left, scope)} or {self.expr(e.right, scope)} else False)"

    def _e_Not(self, e, scope):
        return f"(not {self.expr(e.operand, scope)})"

    def _e_Neg(self, e, scope):
        a = self.temp("a")
        return f"(-{a} if type({a} := {self.expr(e.operand, scope)}) is int else NEGATE({a}, {self.span(e.span)}))"

    def _e_Is(self, e, scope):
        tester = symbol("IS_", e.tag, self.symbols)  # Engine.tag_tester(tag)
        self.testers[tester] = e.tag
        # a unit without markers whose type's tags do not vary with its steps: the tester's table
        # (`test.fixed`, filled by the tester), inline; anything else asks the tester
        o, u, t = self.temp("o"), self.temp("u"), self.temp("t")
        obj = self.expr(e.obj, scope)
        rec = self._records.get(obj)
        if rec is not None:  # an aggregate's element: its record, read at the top of the iteration
            o, u, unit = obj, rec, f"{rec} is not None"
        else:
            unit = f"type({o} := {obj}) is UnitRef and ({u} := ctx.state.units.get({o}.id)) is not None"
        test = (f"(({t} or {u}.side == {e.tag!r}) if {unit} and not {u}.markers "
                f"and ({t} := ISF{tester[2:]}.get({u}.type)) is not None "
                f"else {e.tag!r} in {o} if type({o}) is frozenset else {tester}(ctx, {o}))")  # a hexside's features
        return f"(not {test})" if e.negated else test

    def _e_In(self, e, scope):
        c = self.temp("c")
        test = f"(({c} := {self.expr(e.collection, scope)}) is not None and {self.expr(e.item, scope)} in {c})"
        return f"(not {test})" if e.negated else test

    def _e_Cond(self, e, scope):
        return f"({self.expr(e.then, scope)} if {self.expr(e.test, scope)} else {self.expr(e.orelse, scope)})"

    def _e_ListLit(self, e, scope):
        items = [self.expr(i, scope) for i in e.items]
        if not items:
            return "()"
        return "(" + ", ".join(items) + ",)"

    def _e_Roll(self, e, scope):
        return f"ctx.roll({self.const(e.dice)}, {self.span(e.span)})"

    # ================================================================ statements
    def block(self, stmts: list, scope: set) -> None:
        """Emit statements; `scope` grows as let/for/choose bind names (function scope)."""
        if not stmts:
            self.emit("pass")
        for s in stmts:
            self.stmt(s, scope)

    def stmt(self, s: ast.Stmt, scope: set) -> None:
        method = getattr(self, "_s_" + type(s).__name__, None)
        if method is None:
            raise RuleError(f"the code generator has no rule for {type(s).__name__} statements", s.span)
        was = self._span
        if s.span is not None:
            self._span = s.span
        try:
            method(s, scope)
        finally:
            self._span = was

    def _s_Let(self, s, scope):
        fscope = frozenset(scope)
        if self.inline_aggregate(s.value, fscope):
            scope.add(s.name)
            r = self.temp("r")
            self._aggregate_value(s.value, fscope, r)
            self.emit(f"{self.local(s.name)} = {r}")
            return
        value = self.expr(s.value, fscope)
        scope.add(s.name)
        self.emit(f"{self.local(s.name)} = {value}")

    def returns(self, e: ast.Expr, scope) -> None:
        """Emit `return <e>`; an aggregate is written as the function's own loop."""
        if isinstance(e, ast.Comprehension) and e.func in AGGREGATES:
            seq = self.temp("seq")
            self.emit(f"{seq} = {self.comprehension_source(e, scope)}")
            self.aggregate(e, scope, seq, None)
            return
        self.emit(f"return {self.expr(e, scope)}")

    def _s_SetStmt(self, s, scope):
        value = self.expr(s.value, frozenset(scope))
        op, sp, target = s.op, self.span(s.span), s.target
        if isinstance(target, ast.Name) and target.id in scope:
            name = self.local(target.id)
            self._mark_read(target.id)
            if op == "=":
                self.emit(f"{name} = {value}")
            else:
                v = self.temp("v")
                self.emit(f"{v} = {value}")
                if op[0] in "+-*":  # whole numbers the fast way, as in _e_BinOp
                    r = self.temp("r")
                    self.emit(f"{name} = ({r} if type({name}) is int and type({v}) is int and -MAXM <= ({r} := {name} {op[0]} {v}) <= MAXM "
                              f"else ARITH({op[0]!r}, {name}, {v}, {sp}))")
                else:
                    self.emit(f"{name} = ARITH({op[0]!r}, {name}, {v}, {sp})")
            return
        if isinstance(target, ast.Name):
            var = self.engine.var_decl(target.id)
            if var is None or var.scope != "var":
                raise RuleError(f"cannot set '{target.id}': it is not a global variable", s.span)
            from warcodex.interpreter.engine import single_value

            coerce = "SINGLE" if self.engine.coercer(var.type) is single_value else ""
            v = self.temp("v")
            self.emit(f"{v} = {value}")
            if op != "=":
                self.emit(f"{v} = ARITH({op[0]!r}, ctx.state.vars.get({target.id!r}), {v}, {sp})")
            self.emit(f"SET_VAR(ctx, {target.id!r}, {coerce}({v}))")
            return
        if isinstance(target, ast.Attr):
            obj = self.expr(target.obj, frozenset(scope))
            o, v = self.temp("o"), self.temp("v")
            self.emit(f"{o} = {obj}")
            self.emit(f"{v} = {value}")
            if op != "=":
                self.emit(f"{v} = ARITH({op[0]!r}, ATTRIBUTE(ctx, {o}, {target.name!r}, {sp}), {v}, {sp})")
            setter = symbol("SET_", target.name, self.symbols)  # Engine.attribute_setter(name)
            self.setters[setter] = target.name
            self.emit(f"{setter}(ctx, {o}, {v}, {sp})")
            return
        raise RuleError("this cannot be assigned to", s.span)

    def _s_If(self, s, scope):
        test = self.expr(s.test, frozenset(scope))
        self.emit(f"if {test}:")
        with self.indented():
            self.block(s.body, scope)
        if s.orelse:
            self.emit("else:")
            with self.indented():
                self.block(s.orelse, scope)

    def _s_For(self, s, scope):
        lazy = self.odds and self._unit is not None and lazy_count_loop(s, scope) \
            and not bound_and_read_after(s, self._procedure_body)
        if lazy:
            self._lazy_count_loop(s, scope)
        source = self.scan_source(s.source, s.var, for_condition(s), frozenset(scope), statement=True)
        scope.add(s.var)
        seq = self.temp("seq")
        if lazy:  # (the oracle did not take it: a plain loop, its count observed)
            self.emit(f"if not {self._lazy_done}:")
            self._indent += 1
        elif self.odds and isinstance(s.source, ast.Call) and s.source.func == "range" and len(s.source.args) == 2 \
                and isinstance(s.source.args[1], ast.Name) and s.source.args[1].id in scope:
            n = self.local(s.source.args[1].id)  # a count of hits passed pending, observed (pending_reads)
            self.emit(f"if type({n}) is PENDING: {n} = ctx.chance.force({n})")
        self.emit(f"{seq} = {source}")
        self.emit(f"for {self.local(s.var)} in ({seq} if {seq} is not None else ()):")
        with self.indented():
            self.emit(f"ctx.tick({self.span(s.span)})", s.span)  # one step an iteration (bounds.py)
            self.block(s.body, scope)
        if lazy:
            self._indent -= 1

    def _lazy_count_loop(self, s, scope) -> None:
        """Exact odds: `for i in range(LOW, n)` over a count of hits `n` still pending (a
        distribution, chance.py), its body rolling no dice and passing only the game state on,
        is handed to the oracle (`Enumerator.count_loop`, as compiler `_s_For` does): its body
        becomes a function of a Frame, written into the same unit, and the locals bound so far
        its frame. Sets `_lazy_done` to the Python name saying whether the oracle ran the loop."""
        low, count = s.source.args[0], s.source.args[1].id
        fscope = frozenset(scope)
        low_code = self.expr(low, fscope)
        body_name = self.temp(f"loop_{self._unit.name}_")
        inner = set(scope) | {s.var}
        outer = self._body, self._indent, self._dynamic, self._tails, self._stop, self._records
        self._tails, self._stop, self._records = set(), "return STOP", {}
        try:
            self.function(self._unit, body_name, ["fr"], sorted(inner), lambda: self.block(s.body, set(inner)), fr=True,
                          docline=f"the body of the loop at line {s.span.line if s.span else '?'}, under exact odds")
        finally:
            self._body, self._indent, self._dynamic, self._tails, self._stop, self._records = outer
        done, result, frame, saved = self.temp("done"), self.temp("result"), self.temp("fr"), self.temp("saved")
        n, var = self.local(count), self.local(s.var)
        self._mark_read(count)
        names = self.const(tuple((self.local(x), x) for x in sorted(scope)))
        tail = "_tail" if id(s) in (self._tails or ()) else "False"
        self.emit(f"{done} = False")
        self.emit(f"if type({n}) is PENDING:")
        with self.indented():
            self.emit(f"{frame} = Frame(ctx, DSL_LOCALS(locals(), {names}, None))")
            self.emit(f"{saved} = ctx.chance.tail_ok")
            self.emit(f"ctx.chance.tail_ok = {tail}")
            self.emit("try:")
            self.emit(f"    {done}, {result} = ctx.chance.count_loop({frame}, {low_code}, {count!r}, {s.var!r}, {body_name}, "
                      f"{self.const(LoopSite(s.span))})")
            self.emit("finally:")
            self.emit(f"    ctx.chance.tail_ok = {saved}")
            self.emit(f"{n} = {frame}.vars[{count!r}]")
            self.emit(f"if {done}:")
            with self.indented():
                self.emit(f"if {s.var!r} in {frame}.vars: {var} = {frame}.vars[{s.var!r}]")
                self.emit(f"if {result} is STOP: {self._stop}")
            self.emit(f"elif type({n}) is PENDING:")
            self.emit(f"    {n} = ctx.chance.force({n})")
        self._lazy_done = done

    def _s_Choose(self, s, scope):
        fscope = frozenset(scope)
        source = self.expr(s.source, fscope)
        by = self.expr(s.by, fscope)
        otherwise = self.expr(s.otherwise, fscope) if s.otherwise is not None else "None"
        where = self.expr(s.where, fscope | {s.var}) if s.where is not None else None
        scope.add(s.var)
        x = self.local(s.var)
        sp = self.span(s.span)
        cites = self.const(tuple(s.citations))
        options, seq, who, quiet = self.temp("options"), self.temp("seq"), self.temp("who"), self.temp("quiet")
        # the explanation shows the decision, not each option's derivation (compiler._s_Choose)
        self.emit(f"{quiet} = ctx.tracing")
        self.emit(f"if {quiet}: ctx.quiet_open()")
        self.emit("try:")
        with self.indented():
            self.emit(f"{seq} = {source}")
            if where is None:
                self.emit(f"{options} = tuple({seq}) if {seq} is not None else ()")
            else:
                self.emit(f"{options} = []")
                self.emit(f"for {x} in ({seq} if {seq} is not None else ()):")
                with self.indented():
                    self.emit(f"if {where}: {options}.append({x})")
                self.emit(f"{options} = tuple({options})")
        self.emit("finally:")
        self.emit(f"    if {quiet}: ctx.quiet_close()")
        self.emit(f"{who} = {by}")
        lo = s.min or 0
        self.emit(f"if isinstance({who}, (tuple, list)):")
        with self.indented():
            self.emit(f"{x} = ctx.decide_joint(tuple({who}), {otherwise if s.otherwise is not None else 'None'}, {s.var!r}, "
                      f"{options}, {s.subset!r}, {s.optional!r}, {lo!r}, {s.max!r}, {cites}, {sp})")
        self.emit("else:")
        with self.indented():
            if s.subset:
                self.emit(f"{x} = ctx.decide_subset({who}, {s.var!r}, {options}, {lo!r}, {s.max!r}, {cites}, {sp})")
            else:
                self.emit(f"{x} = ctx.decide({who}, {s.var!r}, {options}, {s.optional!r}, {cites}, {sp})")

    def _s_Reroll(self, s, scope):
        fscope = frozenset(scope)
        value = self.expr(s.value, fscope)
        by = self.expr(s.by, fscope)
        when = self.expr(s.when, fscope) if s.when is not None else None
        x = self.local(s.var)
        sp = self.span(s.span)
        label = s.label or f"re-roll {s.var}"
        self._mark_read(s.var)
        cond = ""
        if when is not None:  # whether a re-roll is offered is not explained (compiler._s_Reroll)
            offered, quiet = self.temp("offered"), self.temp("quiet")
            self.emit(f"{quiet} = ctx.tracing")
            self.emit(f"if {quiet}: ctx.quiet_open()")
            self.emit("try:")
            self.emit(f"    {offered} = ({when})")
            self.emit("finally:")
            self.emit(f"    if {quiet}: ctx.quiet_close()")
            cond = f"{offered} and "
        seen = self.temp("seen")
        # the local must hold the roll (as in the closure compiler, a missing one reads none)
        self.emit(f"{seen} = {x} if {x!r} in locals() else None")
        self.emit(f"if {cond}ctx.decide_reroll({by}, {s.var!r}, {seen}, {label!r}, {self.const(tuple(s.citations))}, {sp}):")
        with self.indented():
            if s.body:
                self.block(s.body, scope)
            self.emit(f"{x} = {value}")
            self.emit("if ctx.tracing:")
            with self.indented():
                self.emit(f"ctx.note({s.var!r} + ' = ' + str(ctx.engine.describe(ctx, {x})) + ' after the re-roll (it stands)')")

    def _s_Require(self, s, scope):
        test = self.expr(s.test, frozenset(scope))
        message = s.message or "requirement not met"
        cite = f" ({', '.join('§' + c for c in s.citations)})" if s.citations else ""
        self.emit(f"if not {test}: raise RuleRefusal({message + cite!r}, {self.span(s.span)})")

    def _s_Apply(self, s, scope):
        value = self.expr(s.value, frozenset(scope))
        # a result's body sees the names of the rule applying it (dynamic scope): its locals
        names = self.const(tuple((self.local(n), n) for n in sorted(scope)))
        outer = "fr.vars" if self._dynamic else "None"  # a result applied from a result: its caller's too
        self.emit(f"APPLY_RESULT(Frame(ctx, DSL_LOCALS(locals(), {names}, {outer})), {value}, {self.span(s.span)})")

    def _s_Step(self, s, scope):
        label = s.label or "step"
        traced = self.temp("traced")
        self.emit(f"{traced} = ctx.tracing")
        self.emit(f"if {traced}: ctx.trace_open({label!r}, {self.const(tuple(s.citations))})")
        self.emit("try:")
        with self.indented():
            self.block(s.body, scope)
        self.emit("finally:")
        with self.indented():
            self.emit(f"if {traced}: ctx.trace_close()")

    def _s_Stop(self, s, scope):
        self.emit(self._stop)

    _stop = "return STOP"  # a procedure's body returns None: its caller never sees the signal

    def _s_Log(self, s, scope):
        self.emit(f"ctx.note({s.text!r})")

    def _s_CallStmt(self, s, scope):
        call = self.call(s.call, frozenset(scope), statement=True)
        if self.odds and isinstance(self.engine.game.names.get(s.call.func), ast.Procedure):
            # exact odds: the procedure's body is the last thing of the run if this call is
            # (compiler `_s_CallStmt`); a count loop in it may then give its outcomes as leaves
            tail = "_tail" if id(s) in (self._tails or ()) else "False"
            self.emit(f"if ctx.chance is not None: ctx.chance.tail_next = {tail}")
        self.emit(call)


class LoopSite:
    """Where a loop handed to the odds oracle is (a constant of generated code): the oracle keys
    its work on the site's identity and ticks the step limit at its span."""

    __slots__ = ("span",)

    def __init__(self, span) -> None:
        self.span = span

    def __reduce__(self):
        return LoopSite, (self.span,)


def tail_statements(stmts: list, engine) -> set[int]:
    """The statements of a procedure body that are the last thing it does, as the closure
    compiler's `block` keeps the oracle's `tail_ok`: the last statement of the body when it is an
    `if`, a `step`, a loop or a call of one of the game's procedures, and, within an `if` or a
    `step` in that place, their own last statements by the same rule (never inside a loop)."""
    out: set[int] = set()
    if not stmts:
        return out
    last = stmts[-1]
    if isinstance(last, ast.CallStmt):
        if isinstance(engine.game.names.get(last.call.func), ast.Procedure):
            out.add(id(last))
    elif isinstance(last, ast.For):
        out.add(id(last))
    elif isinstance(last, ast.If):
        out.add(id(last))
        out |= tail_statements(last.body, engine) | tail_statements(last.orelse or [], engine)
    elif isinstance(last, ast.Step):
        out.add(id(last))
        out |= tail_statements(last.body, engine)
    return out


def pending_reads(p: ast.Procedure, engine) -> list[str]:
    """The parameters of procedure `p` (rolling no dice) that exact odds must observe on entry if
    a count of hits is passed to them pending: those read otherwise than as the bound of a lazy
    count loop or as an argument passed on to a procedure as it is (the closure compiler
    observes a count where it is read: the same values, branched on a little earlier)."""
    params = [x.name for x in p.params]
    passed: set[int] = set()  # the Name nodes read without observing
    for n in walk(p.body):
        if isinstance(n, ast.For) and lazy_count_loop(n, set(params)):
            passed.add(id(n.source.args[1]))  # (a loop the generator finds not lazy observes it: _s_For)
        elif isinstance(n, ast.CallStmt) and isinstance(engine.game.names.get(n.call.func), ast.Procedure):
            passed.update(id(a) for a in n.call.args if isinstance(a, ast.Name))
    read = {n.id for n in walk(p.body) if isinstance(n, ast.Name) and id(n) not in passed}
    return [x for x in params if x in read]


def lazy_count_loop(s: ast.For, scope) -> bool:
    """Whether `for i in range(LOW, n)` may be a lazy count loop of exact odds (compiler `_s_For`:
    `n` a local, the body not reading `i` nor assigning a local of the code around it; the caller
    knows the body rolls no dice, and that it binds nothing read after it: `bound_and_read_after`)."""
    src = s.source
    return (isinstance(src, ast.Call) and src.func == "range" and len(src.args) == 2 and not src.kwargs
            and isinstance(src.args[1], ast.Name) and src.args[1].id in scope and markov_loop(s, set(scope)))


def _reads_fields(e) -> bool:
    """Whether expression `e` may read fields of a unit: an attribute, a tag, a call."""
    if isinstance(e, (ast.Attr, ast.Is, ast.Call)):
        return True
    if not isinstance(e, ast.Node):
        return False
    for f in type(e).model_fields:
        v = getattr(e, f)
        if isinstance(v, ast.Node) and _reads_fields(v):
            return True
        if isinstance(v, list) and any(_reads_fields(x) for x in v):
            return True
    return False


def _inline_count(args, t, call):
    # count(xs) of a list (a tuple): its length
    return f"(len({t[0]}) if type({t[0]} := {args[0]}) is tuple else {call})"


def _inline_is_enemy(args, t, call):
    # is_enemy(a, b) of two sides: b among a's enemies (alliances are fixed for a game: ENEMIES
    # holds every side's, Engine.enemies_of)
    e = t[0] + "e"
    # both arguments first, in order (as the call evaluates them), then the test
    return (f"({t[1]} in {e} if (({t[0]} := {args[0]}), ({t[1]} := {args[1]})) and type({t[0]}) is Entity "
            f"and type({t[1]}) is Entity "
            f"and {t[0]}.kind == 'side' and {t[1]}.kind == 'side' and ({e} := ENEMIES.get({t[0]}.name)) is not None "
            f"else {call})")


# built-ins whose common case generated code writes inline: name -> (arity, writer(argument
# code, temporaries, the built-in's call on the temporaries))
_INLINE_BUILTINS = {"count": (1, _inline_count), "is_enemy": (2, _inline_is_enemy)}


def _literal_code(e) -> str | None:
    """The Python code of a literal default value (`false`, `0`, `"none"`, `none`), else None."""
    if isinstance(e, ast.Bool):
        return "True" if e.value else "False"
    if isinstance(e, ast.NoneLit):
        return "None"
    if isinstance(e, ast.Str):
        return repr(e.value)
    if isinstance(e, ast.Num) and type(e.value) is int:
        return repr(e.value) if e.value >= 0 else f"({e.value!r})"
    return None


_CONSTANT_CODE = {
    "turn": "ctx.state.position.turn",
    "active": "(ENTITIES.get(ctx.state.active) if ctx.state.active else None)",
    "phase": "ctx.state.phase",
    "scenario": "ctx.state.scenario",
    "first_turn": "ctx.engine.first_turn(ctx.state)",
    "last_turn": "ctx.engine.last_turn(ctx.state)",
    "turn_order": "tuple(ENTITIES[_s] for _s in ctx.state.turn_order)",
}
assert set(_CONSTANT_CODE) == set(CONSTANTS), "every language constant needs its generated code"
