"""Semantic checks of a loaded game: every problem found in one pass, each with a located diagnostic.

`check_game(game)` runs one function per family of checks (names and calls, tables, declared
types, citations, the turn sequence, scenarios, invariants, provisional data, the map) and returns
a `Diagnostics`. `check_path(path)` loads a game first; the CLI calls it. Neither ever raises for
bad input: load errors become diagnostics, and an unexpected failure inside one family is reported
as `E-internal` so the other families still run.

Scoping, as the interpreter implements it:
  * global names: every declaration in `game.names`, the `stdlib.CONSTANTS`, phase names (the
    values of the `phase` constant) and scenario names (values of `scenario`); builtins are
    callable only;
  * a body (procedure, action, trigger, setup, phase `do`) has one flat scope like a Python
    function: `let`, `for` and `choose` bind a name from that point to the end of the body, even
    when written inside a nested block; a comprehension variable is visible inside it only;
  * result bodies are dynamically scoped: a name free in a result is looked up where the result
    is applied, so it is checked at each `apply` of a table that can produce the result.

The walker (`_Walker`) does every check that needs to know the scope (names, calls, `is` tags,
literal types, unit properties); the other families check declarations as wholes.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import string
from fractions import Fraction
from pathlib import Path

from warcodex.dsl import ast, limits, stdlib
from warcodex.dsl import diagnostics as _diagnostics_module
from warcodex.dsl.diagnostics import DiagnosticError, Diagnostics, Span, did_you_mean
from warcodex import inputs
from warcodex.dsl.diagnostics import input_diagnostic
from warcodex.dsl.loader import load_game
from warcodex.dsl.recursion import endless_recursion
from warcodex.dsl.model import GameDef

# Declarations that carry rules, so must say where in the rulebook they come from.
CITED_ENTITY_KINDS = ("terrain", "edge", "feature", "marker")
CITED_DECLS = (ast.Quantity, ast.Function, ast.Movement, ast.Action, ast.Procedure, ast.Trigger,
               ast.Result, ast.Table, ast.Invariant, ast.Phase, ast.Scenario, ast.Unit)

# Names a movement mode's properties see (the engine binds them while it searches paths).
MOVEMENT_NAMES: dict[str, str | None] = {"u": "unit", "from": "location", "to": "location",
                                         "origin": "location", "s": "side"}

# The forms of an invariant's `check:` (not rule names, so checked apart from the name walk).
INVARIANT_CHECKS = "always, after(ACTION) or phase_end(PHASE)"
# Where each built-in that moves cards puts them (interpreter/cards.py): (the pile, or the index of
# the argument naming it; the index of the card argument; the index of the deck argument), an
# index None where the call names none (`discard_random(s)`: any card of a hand).
CARD_DESTINATIONS = {
    "move_card": (2, 1, 0), "discard": ("discard", 1, None), "pay": ("discard", 1, None),
    "play": ("discard", 1, None), "discard_random": ("discard", None, None),
    "remove_card": ("removed", 0, None), "add_to_deck": ("draw", 0, None), "shuffle": ("draw", None, 0),
}
# the card properties that name its owners, those who see it in an owner_only pile (Cards.owners)
CARD_OWNER_KEYS = ("owner", "side", "sides")


def _card_has_owner(card: ast.Card) -> bool:
    """Whether a card declares an owner: `owner:`, `side:` or `sides:`, other than none or []."""
    return any(p.key in CARD_OWNER_KEYS and p.value is not None and not isinstance(p.value, ast.NoneLit)
               and not (isinstance(p.value, ast.ListLit) and not p.value.items) for p in card.props)


# ================================================================ public API
def check_path(path: str | Path, overlays=(), include_roots=(), tests: bool = False, scenes=()) -> tuple[GameDef | None, Diagnostics]:
    """Load a game (entry file or folder, plus overlays; with `tests`, its tests/*.wcx files) and
    check it. Never raises for bad input. The game reads files only inside its folder, the
    overlays' folders and `include_roots`."""
    diags = Diagnostics()
    try:
        game = load_game(path, list(overlays), diags, include_roots, tests=tests, scenes=list(scenes))
    except DiagnosticError as exc:
        out = Diagnostics()
        out.extend(exc.diagnostics)
        return None, out
    except Exception as exc:  # noqa: BLE001 - a loader bug must not become a traceback for a user
        out = Diagnostics()
        out.error("E-internal", f"internal error while loading {path}: {type(exc).__name__}: {exc}")
        return None, out
    out = Diagnostics()
    out.extend(game.diagnostics.items)  # the loader's warnings, if any
    out.extend(check_game(game).items)
    return game, out


def check_expression(game: GameDef, expr: ast.Expr, names: dict[str, str | None] | None = None) -> Diagnostics:
    """Check one expression against a game (names, calls, tags, properties): a query."""
    diags = Diagnostics()
    checker = _Checker(game, diags)
    checker.walker(names).expr(expr)
    return diags


def check_game(game: GameDef, map_loader=None, node_cache: dict | None = None) -> Diagnostics:
    """Run every semantic check on a loaded game; return all diagnostics, sorted by location.

    A caller that checks the same game again and again (the language server) passes
    `map_loader(path, warnings)`, one that caches the board (default: `mapfile.load_map`), and a
    `node_cache` dict kept between checks: the nodes of each declaration object are listed once
    and reused while the same object is checked again (it must not be changed in place)."""
    diags = Diagnostics()
    _Checker(game, diags, map_loader, node_cache).run()
    diags.items = list(dict.fromkeys(diags.items))  # a test board's problem is reported once
    diags.items.sort(key=lambda d: (d.span is None, d.span.file if d.span else "",
                                    d.span.line if d.span else 0, d.span.column if d.span else 0))
    return diags


_CODE_WITH_NUMBER = re.compile(r"^(.*[^0-9])([0-9]+)$")


def resolve_code(game: GameDef, code: ast.Code | str) -> tuple[ast.Result, list[ast.Expr]] | None:
    """The result a table cell code stands for, and its arguments.

    `DE` -> (result DE, []); `DR(2)` -> (result DR, [2]); `DR2` -> (result DR, [2]) when no result
    named `DR2` exists and `DR` takes exactly one parameter (how printed CRTs write parameters).
    None for numeric cells and for codes that name no result. The arguments are expressions (the
    interpreter evaluates them); a number glued to the code becomes an `ast.Num`."""
    if isinstance(code, str):
        code = ast.Code(name=code)
    if code.number is not None:
        return None
    decl = game.names.get(code.name)
    if isinstance(decl, ast.Result):
        return decl, list(code.args)
    m = _CODE_WITH_NUMBER.match(code.name)
    if m and not code.args:
        base = game.names.get(m.group(1))
        if isinstance(base, ast.Result) and len(base.params) == 1:
            return base, [ast.Num(value=int(m.group(2)), span=code.span)]
    return None


# ================================================================ small helpers
def _kind(decl: ast.Node) -> str:
    return getattr(decl, "kind", None) or type(decl).__name__.lower()


def _literal_type(e: ast.Expr | None) -> str | None:
    """The type of a literal expression, or None when `e` is not a literal."""
    if isinstance(e, ast.Bool):
        return "bool"
    if isinstance(e, ast.Num):
        return "int" if isinstance(e.value, int) else "num"
    if isinstance(e, ast.Str):
        return "str"
    if isinstance(e, ast.OddsLit):
        return "odds"
    if isinstance(e, ast.ListLit):
        return "list"
    if isinstance(e, ast.NoneLit):
        return "none"
    return None


def _literal_text(e: ast.Expr) -> str:
    if isinstance(e, ast.Bool):
        return "true" if e.value else "false"
    if isinstance(e, ast.Num):
        return str(e.value) if isinstance(e.value, int) else str(float(e.value))
    if isinstance(e, ast.Str):
        return f'"{e.value}"'
    if isinstance(e, ast.OddsLit):
        return f"{e.attack}:{e.defense}"
    if isinstance(e, ast.ListLit):
        return "[...]"
    return "none"


def _value_kind(e: ast.Expr | None) -> str | None:
    """The kind of a property value for comparing an override with what it replaces: a literal's
    type, `name` for a bare name, `flag` for a flag; None for an expression."""
    if e is None:
        return "flag"
    if isinstance(e, ast.Name):
        return "name"
    return _literal_type(e)


def _value_src_of(e: ast.Expr | None) -> str:
    if e is None:
        return "a flag"
    return e.id if isinstance(e, ast.Name) else _literal_text(e)


def _a(kind: str) -> str:
    return {"int": "a whole number", "num": "a number", "str": "a string", "bool": "true or false", "odds": "odds",
            "list": "a list", "none": "none", "name": "a name", "flag": "a flag"}[kind]


def _fits(declared: str, literal: str) -> bool:
    """Can a literal of type `literal` be stored in a variable declared `declared`? A location is
    written as its printed id, a string (`set start = "0606"`)."""
    return (declared == "any" or literal == "none" or literal == declared or (declared == "num" and literal == "int")
            or (declared == "location" and literal == "str"))


def _key_src(key: ast.Key) -> str:
    """A table key as the designer wrote it (Key.text() is the display form, `1-4`)."""
    if key.kind == "range":
        return f"{key.low}..{key.high}"
    if key.kind == "odds":
        return f"{key.attack}:{key.defense}"
    return key.text()


def _key_values(key: ast.Key) -> list:
    if key.kind == "int":
        return [key.low]
    if key.kind == "range":
        return list(range(key.low, key.high + 1))
    if key.kind == "odds":
        return [(key.attack, key.defense)]
    return [key.name]


def _value_src(v) -> str:
    return f"{v[0]}:{v[1]}" if isinstance(v, tuple) else str(v)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _arity_text(lo: int, hi: int | None) -> str:
    if hi is None:
        return f"at least {_plural(lo, 'argument')}"
    if lo == hi:
        return _plural(lo, "argument")
    return f"{lo} to {hi} arguments"


# -- narrowing a span to one token, by reading the source (citations and some names have no span)
def _source(file: str) -> str | None:
    try:
        return _diagnostics_module._read(file)
    except Exception:  # noqa: BLE001 - only used to sharpen a location
        return None


def _offset(text: str, line: int, column: int) -> int:
    pos = 0
    for _ in range(line - 1):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return pos + column - 1


def _find(span: Span | None, pattern: str, *, last: bool = False) -> Span | None:
    """Narrow `span` to the first (or last) match of regex `pattern` inside it (to its group 1 if
    the pattern has a group). Returns `span` itself when the source is not available or nothing
    matches."""
    if span is None or span.end_line is None or span.end_column is None:
        return span
    text = _source(span.file)
    if text is None:
        return span
    begin = _offset(text, span.line, span.column)
    end = _offset(text, span.end_line, span.end_column)
    matches = list(re.finditer(pattern, text[begin:end]))
    if not matches:
        return span
    m = matches[-1] if last else matches[0]
    group = 1 if m.re.groups else 0
    off = begin + m.start(group)
    line = text.count("\n", 0, off) + 1
    col = off - (text.rfind("\n", 0, off) + 1) + 1
    return Span(span.file, line, col, line, col + (m.end(group) - m.start(group)))


def _word(name: str) -> str:
    return rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])"


def _section_pattern(number: str) -> str:
    return "§" + re.escape(number) + r"(?![A-Za-z0-9]|[._\-][A-Za-z0-9])"


def _tail_span(span: Span | None, name: str) -> Span | None:
    """The span of the last token of a node that ends with `name` (`u.attack`, `x is forest`)."""
    if span is None or span.end_line is None or span.end_column is None:
        return span
    return Span(span.file, span.end_line, span.end_column - len(name), span.end_line, span.end_column)


def _header_region(decl: ast.Decl) -> Span | None:
    """From a declaration's name to its end: where its label, citations and body are."""
    h, d = decl.header.span, decl.span
    if h is None:
        return d
    if d is None or d.end_line is None:
        return h
    return Span(h.file, h.line, h.column, d.end_line, d.end_column)


_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    """The fields of an AST class that may hold nodes, in reverse order (read once per class:
    pydantic's `model_fields` is slow to ask for every node)."""
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in reversed(cls.model_fields) if f != "span")
    return fields


def _iter_nodes(node):
    """Every AST node under `node` (itself included), depth first."""
    stack = [node]
    node_type = ast.Node
    while stack:
        n = stack.pop()
        if isinstance(n, node_type):
            yield n
            for field in _child_fields(type(n)):
                value = getattr(n, field)
                if value is not None and not isinstance(value, (str, int, bool)):
                    stack.append(value)
        elif isinstance(n, (list, tuple)):
            stack.extend(reversed(n))
        elif isinstance(n, dict):
            stack.extend(reversed(list(n.values())))


def _rebinds(stmt, var: str) -> bool:
    """Whether statement `stmt` gives the local `var` a new value for the statements after it
    (locals are the procedure's: a `for` loop leaves its variable holding its last element)."""
    if isinstance(stmt, ast.Let):
        return stmt.name == var
    if isinstance(stmt, (ast.For, ast.Choose)):
        return stmt.var == var
    return isinstance(stmt, ast.SetStmt) and stmt.op == "=" and isinstance(stmt.target, ast.Name) and stmt.target.id == var


def _binding_nodes(var: str, node):
    """The nodes under `node` (a node, or a list of them) where the name `var` still means the
    value followed: not inside a loop, comprehension or `choose` that binds `var` again (a local
    shadowed by an inner loop variable), nor after a statement that gives `var` a new value in
    the same block (`_rebinds`). Depth first, in order (a stack, as `_iter_nodes`)."""
    stack = [node]
    node_type, stmt_type, binders = ast.Node, ast.Stmt, (ast.For, ast.Comprehension, ast.Choose)
    while stack:
        n = stack.pop()
        if isinstance(n, node_type):
            yield n
            if isinstance(n, binders) and n.var == var:
                fields = ("otherwise", "by", "source")  # what is read before the name is bound again
            elif isinstance(n, ast.Let) and n.name == var:
                fields = ("value",)
            else:
                fields = _child_fields(type(n))
            for field in fields:
                value = getattr(n, field, None)
                if value is not None and not isinstance(value, (str, int, bool)):
                    stack.append(value)
        elif isinstance(n, (list, tuple)):
            end = len(n)
            for i, item in enumerate(n):
                if isinstance(item, stmt_type) and _rebinds(item, var):
                    end = i + 1  # the statements after it read the new value
                    break
            stack.extend(reversed(n[:end]))
        elif isinstance(n, dict):
            stack.extend(reversed(list(n.values())))


# ================================================================ the checker
class _Checker:
    def __init__(self, game: GameDef, diags: Diagnostics, map_loader=None, node_cache: dict | None = None) -> None:
        self.game = game
        self.diags = diags
        self.map_loader = map_loader
        self.node_cache = node_cache if node_cache is not None else {}
        self.board = None  # the loaded map, when there is one
        self.map_prop: ast.Prop | None = None
        self.globals: set[str] = set(game.names) | set(stdlib.CONSTANTS)
        self.globals |= {p.name for p in self.phases()} | set(game.scenarios)
        self.callables = set(stdlib.BUILTINS) | {
            n for n, d in game.names.items() if isinstance(d, (ast.Quantity, ast.Function, ast.Procedure))}
        self.flags = self._flag_names()
        self.tags = {n for n, d in game.names.items()
                     if isinstance(d, (ast.Unit, ast.Result)) or (isinstance(d, ast.Entity)
                                                                  and d.kind not in ("alliance", "option", "family"))}
        self.tags |= self.flags
        units = [d for d in game.names.values() if isinstance(d, ast.Unit)]
        self.unit_props = set(stdlib.UNIT_FIELDS) | {p.key for u in units for p in u.props}
        self.unit_props |= {p.key for u in units for sv in u.step_values for p in sv.props}
        self.unit_props |= {n for n, d in game.names.items() if isinstance(d, ast.VarDecl) and d.scope == "unit_var"}
        self.terrain_props = {p.key for t in game.entities("terrain") for p in t.props}
        self.triggers = list(game.triggers) + [t for s in game.scenarios.values() for t in s.triggers]
        # filled while walking bodies, used by later families
        self.place_calls: list[ast.Call] = []
        # string literals the rules use as locations (`"0606".terrain`, `adjacent("0606")`), each with
        # what the rules do with it: checked against the map once it is loaded (_location_literals)
        self.loc_literals: list[tuple[ast.Str, str]] = []
        self._test_decl_literals: list[tuple[ast.Str, str]] = []  # those of test-only declarations
        self._on_map: set[int] = set()  # (ids of) those checked against the game's map
        self.loc_var_literals: set[int] = set()  # (ids of) those whose location variable is read or set
        self.on_board_literals: set[int] = set()  # (ids of) those a unit stands on (`place`), or `loc()`'s
        self._key_literals: dict[int, ast.Str] = {}  # a table key looked up by location, as the literal it is
        self._location_lists: dict[tuple[str, str], bool] = {}  # (rule, list parameter): holds locations?
        self.pile_calls: list[ast.Call] = []  # pile(D, "p"), move_card(D, c, "p"): checked against D's piles
        self.card_moves: list[ast.Call] = []  # every call that puts a card into a pile (CARD_DESTINATIONS)
        self.emitted: dict[str, ast.Expr] = {}
        self._free: dict[str, dict[str, Span | None] | None] = {}  # result name -> free names
        self._elements: dict[int, str | None] = {}  # id(function) -> the type of its list's elements
        # (callable, parameter) -> what a `list` parameter holds, when every call passes a list of
        # the same known type (infer_list_params); `_passed` collects the calls' lists meanwhile
        self.param_elements: dict[tuple[str, str], str] = {}
        self._passed: dict[tuple[str, str], set[str | None]] | None = None

    def run(self) -> None:
        # The map comes first: place()/loc() checks need its locations.
        for family in (self.check_map, self.check_names, self.check_tables, self.check_declared_types,
                       self.check_citations, self.check_sequence, self.check_scenarios, self.check_hidden_piles,
                       self.check_invariants, self.check_evaluations, self.check_provisional, self.check_tests,
                       self.check_values, self.check_recursion):
            try:
                family()
            except Exception as exc:  # noqa: BLE001 - a checker bug must not hide the other reports
                self.diags.error("E-internal", f"internal checker error in {family.__name__}: "
                                 f"{type(exc).__name__}: {exc}", self.game.games[0].header.span if self.game.games else None,
                                 hint="please report this; the other checks still ran")

    # ------------------------------------------------------------ shared queries
    def phases(self) -> list[ast.Phase]:
        return ast.phases_in(self.game.sequence.items) if self.game.sequence is not None else []

    def _flag_names(self) -> set[str]:
        """Bare flag properties (`elite`, `no_armor_shift`) written in any props block."""
        flags: set[str] = set()
        for decl in list(self.game.decls) + list(self.game.games):
            for node in self.nodes(decl):
                if isinstance(node, ast.Prop) and node.value is None:
                    flags.add(node.key)
        return flags

    def nodes(self, decl: ast.Node) -> list:
        """Every node of a declaration (`_iter_nodes`), listed once per declaration object."""
        hit = self.node_cache.get(id(decl))
        if hit is not None and hit[0] is decl:
            return hit[1]
        found = list(_iter_nodes(decl))
        self.node_cache[id(decl)] = (decl, found)  # holding `decl` keeps its id from being reused
        return found

    def walker(self, names: dict[str, str | None] | None = None, free: dict | None = None) -> "_Walker":
        return _Walker(self, dict(names or {}), free)

    def params_walker(self, decl: ast.Function | ast.Quantity | ast.Procedure) -> "_Walker":
        """A walker of a callable's body: its parameters, and what its `list` parameters hold."""
        w = self.walker({p.name: p.type for p in decl.params})
        for p in decl.params:
            held = self.param_elements.get((decl.name, p.name), NOT_YET if self._passed is not None else None)
            if held is not None and p.type == "list":
                w.lists[p.name] = held
        return w

    def infer_list_params(self, rounds: int = 6) -> None:
        """What each `list` parameter of a function, quantity or procedure holds, from its calls: the
        type of the elements every call's argument has (`units_at(h)`, an action's `subset from`
        units, a caller's own list parameter...). One call passing a list of unknown or other
        elements leaves the parameter unknown, so the property check never guesses. The bodies are
        walked with their reports set aside until nothing new is learnt (each round can only add
        a parameter: knowing one tells what its callers' calls pass)."""
        g = self.game
        takers = {n for n, d in g.names.items() if isinstance(d, (ast.Function, ast.Quantity, ast.Procedure))
                  and any(p.type == "list" for p in d.params)}
        takers |= {n for n, d in g.names.items() if isinstance(d, ast.VarDecl) and d.scope == "var" and d.type == "list"}
        # only the declarations that call one of them or set one tell anything (a large game's
        # other rules are not walked again)
        telling = {id(d) for d in g.names.values() if any(
            (isinstance(n, ast.Call) and n.func in takers) or (isinstance(n, ast.Name) and n.id in takers)
            or (isinstance(n, ast.VarDecl) and n.name in takers) for n in self.nodes(d))}
        kept = (self.diags, self.place_calls, self.loc_literals, self.pile_calls, self.emitted, self._free)
        try:
            for _ in range(rounds):
                self.diags, self.place_calls, self.loc_literals, self.pile_calls = Diagnostics(), [], [], []
                self.emitted, self._free, self._elements, self._passed = {}, {}, {}, {}
                self._walk_bodies(telling)
                learnt = {k: v.pop() if len(v) == 1 else None for k, v in self._passed.items() if v}
                if learnt == self.param_elements:
                    break
                self.param_elements = learnt
            self.param_elements = {k: v for k, v in self.param_elements.items() if v is not None}
        finally:
            self.diags, self.place_calls, self.loc_literals, self.pile_calls, self.emitted, self._free = kept
            self._elements, self._passed = {}, None

    def var_elements(self, name: str) -> str | None:
        """What a global `list` variable holds (`var b_attackers: list`), when every value the rules
        set it to is a list of the same known type (infer_list_params)."""
        decl = self.game.names.get(name)
        if not (isinstance(decl, ast.VarDecl) and decl.scope == "var" and decl.type == "list"):
            return None
        return self.param_elements.get(("var", name), NOT_YET if self._passed is not None else None)

    def assigned(self, name: str, value: ast.Expr, walker: "_Walker") -> None:
        """While inferring: what `set NAME = value` (or `+=`) puts in a global `list` variable."""
        decl = self.game.names.get(name)
        if isinstance(decl, ast.VarDecl) and decl.scope == "var" and decl.type == "list":
            held = walker.elements(value)
            if held != NOT_YET:
                self._passed.setdefault(("var", name), set()).add(held)

    def passed(self, decl: ast.Function | ast.Quantity | ast.Procedure, call: ast.Call, walker: "_Walker") -> None:
        """While inferring: what a call passes to each `list` parameter of `decl`."""
        for i, p in enumerate(decl.params):
            if p.type != "list":
                continue
            arg = call.args[i] if i < len(call.args) else call.kwargs.get(p.name)
            held = walker.elements(arg) if arg is not None else None
            if held != NOT_YET:
                self._passed.setdefault((decl.name, p.name), set()).add(held)

    def function_elements(self, decl: ast.Function) -> str | None:
        """What the list a function returns holds, read from its body (a declared type says only
        `list`); None when unknown, or while reading a recursive function's own body."""
        key = id(decl)
        if key not in self._elements:
            self._elements[key] = None
            if decl.type in (None, "list"):
                self._elements[key] = self.params_walker(decl).elements(decl.body)
        return self._elements[key]

    def free_names(self, result: ast.Result) -> dict[str, Span | None]:
        """Names a result body uses but neither declares nor gets as parameters (memoized)."""
        if result.name in self._free:
            return self._free[result.name] or {}  # None while in progress: a result applying itself
        self._free[result.name] = None
        free: dict[str, Span | None] = {}
        self.walker({p.name: p.type for p in result.params}, free).body(result.body)
        self._free[result.name] = free
        return free

    def applied_results(self, value: ast.Expr) -> list[ast.Result]:
        """The results an `apply` can run: every code of the table it indexes, or one result."""
        target = value.obj if isinstance(value, ast.Index) else value
        if not isinstance(target, ast.Name):
            return []
        decl = self.game.names.get(target.id)
        if isinstance(decl, ast.Result):
            return [decl]
        if not isinstance(decl, ast.Table):
            return []
        found: dict[str, ast.Result] = {}
        cells = [c for row in decl.table_rows for c in row.cells] + [b.cell for b in decl.beyond if b.cell]
        for cell in cells:
            for code in cell.codes:
                resolved = resolve_code(self.game, code)
                if resolved is not None:
                    found.setdefault(resolved[0].name, resolved[0])
        return list(found.values())

    # ------------------------------------------------------------ 1, 2, 3, 5: names, calls, tags, expression types
    def check_names(self) -> None:
        self.infer_list_params()
        self._walk_bodies()
        self._check_events()

    def _walk_bodies(self, only: set[int] | None = None) -> None:
        """Walk every body of the game (of the declarations `only` names, by id, if given)."""
        g = self.game
        for result in (d for d in g.names.values() if isinstance(d, ast.Result)):
            self.free_names(result)  # walks the body; free names are checked at apply sites
        for decl in g.names.values():
            if only is None or id(decl) in only:
                self._walk_decl(decl)
        for trigger in g.triggers:
            self._walk_trigger(trigger)
        for inv in g.invariants.values():
            w = self.walker()
            for p in inv.props:
                if p.key == "check":
                    continue  # `always`, `after(A)`, `phase_end(P)`: see check_invariants
                if p.key == "holds":
                    w.cond(p.value)
                elif p.value is not None:
                    w.expr(p.value)
        for ev in g.evaluations.values():
            w = self.walker({p.name: p.type for p in ev.params})
            for t in ev.terms:
                if t.weight is not None:
                    w.expr(t.weight)
                w.expr(t.value)
                if t.when is not None:
                    w.cond(t.when)
        for scenario in g.scenarios.values():
            w = self.walker()
            for p in scenario.props:
                if p.value is not None:
                    w.expr(p.value)
            self.walker().body(scenario.setup)
            for trigger in scenario.triggers:
                self._walk_trigger(trigger)
            for decl in scenario.overrides:
                self._walk_decl(decl)
        if g.sequence is not None:
            self._walk_sequence(g.sequence.items)
        if g.games:
            for p in g.game.props:  # only turn_order names rules; other game props are settings
                if p.key == "turn_order" and p.value is not None:
                    self.walker().expr(p.value)

    def _check_unit_sides(self, decl: ast.Unit) -> None:
        """`side: axis` or `sides: [germany, italy]` on a unit type states the side(s) that own
        it (what the facts model would otherwise infer from the rules that bring it into play)."""
        for p in decl.props:
            if p.key not in ("side", "sides"):
                continue
            items = p.value.items if isinstance(p.value, ast.ListLit) else [p.value]
            for item in items:
                target = self.game.names.get(item.id) if isinstance(item, ast.Name) else None
                if not (isinstance(target, ast.Entity) and target.kind == "side"):
                    span = item.span if item is not None else p.span
                    sides = ", ".join(s.name for s in self.game.sides) or "none declared"
                    what = f"'{item.id}'" if isinstance(item, ast.Name) else _literal_text(item)
                    self.diags.error("E-type", f"unit '{decl.name}': `{p.key}:` must name sides, not {what}", span,
                                     hint=f"the sides are: {sides}")

    DECK_PROPS = {"reshuffle_at": "the number of cards left in the draw pile at which the discards are shuffled back in",
                  "piles": "the deck's own piles, as a list of names in quotes: [\"cup\", \"drawn\"]",
                  "face": "the card properties printed on a card's face, in order: [\"event\", \"text\"]"}

    def _check_var_per(self, decl: ast.VarDecl) -> None:
        """`var NAME: TYPE = V per PROCEDURE`: a global variable of each call of a procedure."""
        span = decl.per_span or decl.span
        if decl.scope != "var":
            self.diags.error("E-per", f"{decl.scope} '{decl.name}' cannot be per {decl.per}: only a global `var` can "
                             "belong to each call of a procedure", span,
                             hint="a unit's or side's value per battle is a `var` holding a list or the unit")
        target = self.game.names.get(decl.per)
        if not isinstance(target, ast.Procedure):
            self.diags.error("E-per", f"'{decl.per}' is not a procedure: `per` names the procedure whose every call "
                             f"has its own '{decl.name}'", span,
                             hint=did_you_mean(decl.per, [d.name for d in self.game.decls if isinstance(d, ast.Procedure)]))

    def _check_deck_prop(self, deck: ast.Deck, p: ast.Prop) -> None:
        """A deck's own rules: known keys, `reshuffle_at` a whole number, `piles` a list of names
        (interpreter/cards.py)."""
        if p.key not in self.DECK_PROPS:
            self.diags.error("E-deck", f"deck '{deck.name}' has no property '{p.key}'", p.span,
                             hint=did_you_mean(p.key, self.DECK_PROPS) or "a deck's properties: " + ", ".join(self.DECK_PROPS))
        elif p.key in ("piles", "face"):
            if not (isinstance(p.value, ast.ListLit) and all(isinstance(i, ast.Str) for i in p.value.items)):
                self.diags.error("E-deck", f"deck '{deck.name}': {p.key} must be a list of names in quotes",
                                 p.value.span if p.value is not None else p.span, hint=f"{p.key}: {self.DECK_PROPS[p.key]}")
            elif p.key == "face":
                self._check_face(deck, p.value)
        elif not (isinstance(p.value, ast.Num) and isinstance(p.value.value, int) and p.value.value >= 0):
            self.diags.error("E-deck", f"deck '{deck.name}': {p.key} must be a whole number of cards (0 or more)",
                             p.value.span if p.value is not None else p.span,
                             hint=f"{p.key}: {self.DECK_PROPS[p.key]}")

    def _check_face(self, deck: ast.Deck, face: ast.ListLit) -> None:
        """`face: [...]` names properties the deck's cards have: a name no card has is a typo, and
        the face would silently lack it."""
        keys = {p.key for c in deck.cards for p in c.props}
        for item in face.items:
            if item.value not in keys:
                self.diags.error("E-deck", f"deck '{deck.name}': no card has a property '{item.value}' to print on its face",
                                 item.span, hint=did_you_mean(item.value, sorted(keys))
                                 or "the cards' properties: " + ", ".join(sorted(keys)))

    def _walk_decl(self, decl: ast.Decl) -> None:
        w = self.walker()
        if isinstance(decl, ast.Unit):
            self._check_unit_sides(decl)
        if isinstance(decl, (ast.Entity, ast.Unit, ast.Card)):
            for p in decl.props:
                if p.value is not None:
                    w.expr(p.value)
            for sv in getattr(decl, "step_values", []):
                for p in sv.props:
                    if p.value is not None:
                        w.expr(p.value)
        elif isinstance(decl, ast.Deck):
            for p in decl.props:
                w.expr(p.value)
                self._check_deck_prop(decl, p)
            self._check_pile_decls(decl)
            for card in decl.cards:
                self._walk_decl(card)
                start = next((p for p in card.props if p.key == "pile"), None)
                if start is not None:
                    self._pile_name(decl, start.value)
        elif isinstance(decl, ast.VarDecl):
            if decl.default is not None:
                w.expr(decl.default)
                if self._passed is not None:
                    self.assigned(decl.name, decl.default, w)
            if decl.hidden and decl.scope not in ("unit_var", "side_var"):
                self.diags.error("E-hidden", f"{decl.scope} '{decl.name}' cannot be hidden: only a unit_var (known to the "
                                 "unit's side) or a side_var (known to that side) has an owner", decl.span,
                                 hint="declare it as a unit_var or side_var of the side that knows it")
            if decl.per is not None:
                self._check_var_per(decl)
        elif isinstance(decl, ast.Table):
            for p in decl.props:
                if p.value is not None:
                    w.expr(p.value)
            cells = [c for row in decl.table_rows for c in row.cells] + [b.cell for b in decl.beyond if b.cell]
            for cell in cells:
                for code in cell.codes:
                    for arg in code.args:
                        w.expr(arg)
        elif isinstance(decl, ast.Quantity):
            w = self.params_walker(decl)
            if decl.base is not None:
                w.expr(decl.base)
            for m in decl.modifiers:
                w.expr(m.value)
                if m.when is not None:
                    w.cond(m.when)
        elif isinstance(decl, ast.Function):
            self.params_walker(decl).expr(decl.body)
            if decl.type == "location":  # `function capital(s: side): location = if ... then "0505" else ...`
                self.expect_location(decl.body, f"the value of function '{decl.name}', a location")
        elif isinstance(decl, ast.Movement):
            w = self.walker(MOVEMENT_NAMES)
            for p in decl.props:
                if p.value is not None:
                    w.expr(p.value)
        elif isinstance(decl, ast.Action):
            self._walk_action(decl)
        elif isinstance(decl, ast.Procedure):
            self.params_walker(decl).body(decl.body)
        elif isinstance(decl, ast.Trigger):
            self._walk_trigger(decl)
        elif isinstance(decl, ast.Result):
            pass  # walked once by free_names()

    def _walk_action(self, action: ast.Action) -> None:
        # Each param's source sees the earlier params; its `where` also sees the param itself.
        w = self.walker()
        for i, param in enumerate(action.params):
            w.expr(param.source)
            w.bind_element(param.name, param.source, param.subset)
            if not param.subset:
                w.locate(param.name, param.source, [param.where, action.params[i + 1:], action.props, action.requires,
                                                    action.body], each=True)
            if param.where is not None:
                w.cond(param.where)
        for p in action.props:
            if p.value is not None:
                w.expr(p.value)
        for req in action.requires:
            w.stmt(req)
        w.body(action.body)

    def _walk_trigger(self, trigger: ast.Trigger) -> None:
        w = self.walker({p.name: p.type for p in trigger.params})
        if trigger.when is not None:
            w.cond(trigger.when)
        w.body(trigger.body)

    def _walk_sequence(self, items) -> None:
        for item in items:
            if isinstance(item, ast.Phase):
                if item.when is not None:
                    self.walker().cond(item.when)
                for sub in item.items:
                    if isinstance(sub, ast.Do):
                        self.walker().body(sub.body)
                    elif isinstance(sub, ast.Allow):
                        for r in sub.until:
                            self.walker().cond(r.test)
                self._walk_sequence([i for i in item.items if isinstance(i, (ast.Phase,) + ast.SEQUENCE_BLOCKS)])
            elif isinstance(item, ast.PlayerTurns):
                self.walker().expr(item.sides)
                self._walk_sequence(item.items)
            elif isinstance(item, ast.PlayerTurn):
                self.walker().expr(item.side)
                self._walk_sequence(item.items)
            elif isinstance(item, ast.Repeat):
                self.walker().cond(item.test)
                self._walk_sequence(item.items)
            elif isinstance(item, ast.TurnLoop):
                self._walk_sequence(item.items)

    def _check_events(self) -> None:
        """`on EVENT(...)`: the event must be one the engine fires or one the rules `emit`, and a
        parameter list binds exactly the event's arguments."""
        handled = {t.name for t in self.triggers}
        for trigger in self.triggers:
            event = trigger.name
            if event in stdlib.EVENTS:
                expected = stdlib.EVENTS[event]
                if trigger.params and len(trigger.params) != len(expected):
                    self.diags.error("E-arity", f"event '{event}' has {_plural(len(expected), 'argument')}, "
                                     f"but this trigger binds {len(trigger.params)}", trigger.header.span,
                                     hint=f"write: on {event}({', '.join(expected)})" if expected else
                                     f"write: on {event} (no parameters)")
            elif event not in self.emitted:
                known = set(stdlib.EVENTS) | set(self.emitted)
                self.diags.error("E-undefined", f"unknown event '{event}'", trigger.header.span,
                                 hint=did_you_mean(event, known) or "the engine fires "
                                 + ", ".join(stdlib.EVENTS) + "; fire other events with emit(EVENT, ...)")
        for event, arg in self.emitted.items():
            if event not in stdlib.EVENTS and event not in handled:
                self.diags.error("E-undefined", f"unknown event '{event}'", arg.span,
                                 hint=did_you_mean(event, set(stdlib.EVENTS) | handled)
                                 or f"no `on {event}` trigger handles this event")

    # ------------------------------------------------------------ 4: tables
    def check_tables(self) -> None:
        for table in self.game.tables:
            self._table_shape(table)
            self._table_rows(table)
            self._table_columns(table)
            cells = [c for row in table.table_rows for c in row.cells] + [b.cell for b in table.beyond if b.cell]
            for cell in cells:
                for code in cell.codes:
                    self._table_code(code)
        self._result_families()

    def _result_families(self) -> None:
        """`family` declarations (dsl/families.py): a table, patterns of its result names; every
        result cell of a table with families is in one of them (a warning otherwise)."""
        from warcodex.dsl.families import declared_families, family_of

        families = declared_families(self.game)
        tables = {t.name: t for t in self.game.tables}
        results = sorted(n for n, d in self.game.names.items() if isinstance(d, ast.Result))
        for fam in families:
            props = {p.key: p for p in fam.decl.props}
            span = fam.decl.header.span
            for p in fam.decl.props:
                if p.key not in ("table", "results"):
                    self.diags.error("E-family", f"a family has a `table` and its `results`, not `{p.key}`", p.span)
            where = (props["table"].value or props["table"]).span if "table" in props else span
            if not fam.tables:
                self.diags.error("E-family", f"family {fam.name} needs the table it groups: `table: NAME`", where)
            for t in fam.tables:
                if t not in tables:
                    self.diags.error("E-family", f"family {fam.name} groups the results of a table, and "
                                     f"{repr(t) if t else 'this'} is not a table", where,
                                     hint=did_you_mean(t, tables) if t else "`table: crt` or `table: [crt_a, crt_b]`")
            if not fam.patterns:
                self.diags.error("E-family", f"family {fam.name} needs its results: `results: [\"A1\", \"A1/D1\"]` "
                                 "(result names, or several joined by /)", props["results"].span if "results" in props else span)
            for pattern, where in zip(fam.patterns, fam.spans):
                for code in pattern:
                    if code not in results:
                        self.diags.error("E-family", f"'{code}' in family {fam.name} is not a result of the rules", where,
                                         hint=did_you_mean(code, results))
        for name, table in tables.items():
            mine = [f for f in families if name in f.tables]
            if not mine:
                continue
            for row in table.table_rows:
                for cell in row.cells:
                    codes = [resolve_code(self.game, c) for c in cell.codes if c.number is None]
                    names = tuple(getattr(r[0] if isinstance(r, tuple) else r, "name", None) for r in codes if r is not None)
                    if names and family_of(mine, names) is None:
                        self.diags.warning("W-family", f"cell {'/'.join(c.name for c in cell.codes)} of table {name} is in "
                                           "none of its families", row.span,
                                           hint=f"add it to a family's results (families: {', '.join(f.name for f in mine)})")

    def _table_shape(self, t: ast.Table) -> None:
        n = len(t.columns.keys) if t.columns else 1
        for row in t.table_rows:
            if len(row.cells) != n:
                what = f"{_plural(n, 'column')}" if t.columns else "no columns, so each row has one cell"
                self.diags.error("E-table", f"row {_key_src(row.key)} of table {t.name} has "
                                 f"{_plural(len(row.cells), 'cell')}, but the table has {what}", row.span)

    def _table_rows(self, t: ast.Table) -> None:
        # Row keys (ranges expanded) must cover the declared rows exactly once.
        word = "roll" if t.rows is not None and t.rows.kind == "roll" else "row"
        seen: dict = {}
        for row in t.table_rows:
            if row.key.kind == "range" and row.key.low > row.key.high:
                self.diags.error("E-table", f"row range {_key_src(row.key)} runs backwards", row.key.span,
                                 hint=f"write {row.key.high}..{row.key.low}")
                continue
            overlap_reported = False  # once per row, but the row's other values still count as covered
            for v in _key_values(row.key):
                if v not in seen:
                    seen[v] = row
                elif not overlap_reported:
                    overlap_reported = True
                    self.diags.error("E-table", f"{word} {_value_src(v)} is covered twice in table {t.name}: "
                                     f"by row {_key_src(seen[v].key)} and by row {_key_src(row.key)}", row.key.span)
        if t.rows is None:
            return
        for key in t.rows.keys:
            if key.kind == "range" and key.low > key.high:
                self.diags.error("E-table", f"row range {_key_src(key)} runs backwards", key.span,
                                 hint=f"write {key.high}..{key.low}")
        declared = [v for k in t.rows.keys for v in _key_values(k)]
        declared_set = set(declared)
        for row in t.table_rows:
            outside = [v for v in _key_values(row.key) if v not in declared_set]
            if outside:
                self.diags.error("E-table", f"row {_key_src(row.key)} of table {t.name} is outside its rows "
                                 f"({' '.join(_key_src(k) for k in t.rows.keys)})", row.key.span)
        missing = [v for v in declared if v not in seen]
        if missing:
            self.diags.error("E-table", f"table {t.name} has no row for {word} "
                             f"{', '.join(_value_src(v) for v in missing)}", t.rows.span,
                             hint="every declared row needs exactly one `row` line (a range like 1..4 covers several)")
        if t.rows.dice is not None:
            dice = t.rows.dice
            uncovered = [v for v in range(dice.low, dice.high + 1) if v not in declared_set]
            if uncovered:
                # Keys beyond the dice range are allowed: they are for modified rolls.
                self.diags.error("E-table", f"the rows of table {t.name} do not cover every roll of {dice.text()} "
                                 f"({dice.low} to {dice.high}): {', '.join(map(str, uncovered))} missing",
                                 t.rows.span)

    def _table_columns(self, t: ast.Table) -> None:
        cols = t.columns
        if cols is None:
            if t.beyond:
                self.diags.error("E-table", f"table {t.name} has `beyond` rules but no columns", t.beyond[0].span)
            return
        if cols.kind == "odds":
            previous: ast.Key | None = None
            for key in cols.keys:
                if key.kind != "odds":
                    self.diags.error("E-table", f"column {_key_src(key)} of table {t.name} is not an odds ratio "
                                     "like 3:1", key.span)
                    continue
                if previous is not None and (Fraction(key.attack, key.defense)
                                             <= Fraction(previous.attack, previous.defense)):
                    self.diags.error("E-table", f"odds columns must increase: {_key_src(key)} comes after "
                                     f"{_key_src(previous)}", key.span)
                previous = key
        column_kind = {"odds": "odds", "diff": "int"}.get(cols.kind, cols.keys[0].kind if cols.keys else None)
        kind_words = {"odds": "an odds ratio", "int": "a number", "range": "a range", "name": "a name"}
        column_texts = {_key_src(k) for k in cols.keys}
        for rule in t.beyond:
            for key in (rule.key, rule.use):
                if key is None or column_kind is None:
                    continue
                kind = "int" if key.kind == "range" and column_kind == "int" else key.kind
                if kind != column_kind:
                    self.diags.error("E-table", f"beyond key {_key_src(key)} is {kind_words[key.kind]}, but the "
                                     f"columns of table {t.name} are {cols.kind} columns", key.span,
                                     hint=f"write it like the columns, e.g. {_key_src(cols.keys[0])}")
            if rule.use is not None and _key_src(rule.use) not in column_texts:
                self.diags.error("E-table", f"`use {_key_src(rule.use)}`: {_key_src(rule.use)} is not a column of "
                                 f"table {t.name}", rule.use.span, hint=did_you_mean(_key_src(rule.use), column_texts))

    def _table_code(self, code: ast.Code) -> None:
        if code.number is not None:
            return
        resolved = resolve_code(self.game, code)
        if resolved is None:
            decl = self.game.names.get(code.name)
            results = [n for n, d in self.game.names.items() if isinstance(d, ast.Result)]
            if decl is not None:
                message, hint = f"'{code.name}' is a {_kind(decl)}, not a result", None
            else:
                message = f"unknown result code '{code.name}'"
                hint = did_you_mean(code.name, results)
                m = _CODE_WITH_NUMBER.match(code.name)
                base = self.game.names.get(m.group(1)) if m else None
                if isinstance(base, ast.Result):
                    hint = (f"result {base.name} takes {_plural(len(base.params), 'parameter')}, so "
                            f"{code.name} cannot mean {base.name}({m.group(2)})")
                hint = hint or "declare it with: result NAME \"label\" §section { ... }"
            self.diags.error("E-unknown-result", message, code.span, hint=hint)
            return
        result, args = resolved
        if len(args) != len(result.params):
            self.diags.error("E-arity", f"result {result.name} takes {_plural(len(result.params), 'argument')}, "
                             f"but '{code.name}' gives {len(args)}", code.span,
                             hint=f"write {result.name}({', '.join(p.name for p in result.params)})"
                             if result.params else None)

    # ------------------------------------------------------------ 5: declared types
    def check_declared_types(self) -> None:
        def check(type_name: str | None, region: Span | None, pattern: str | None = None) -> None:
            if type_name is None or type_name in stdlib.TYPES:
                return
            span = _find(region, pattern or _word(type_name), last=pattern is None)
            self.diags.error("E-type", f"unknown type '{type_name}'", span,
                             hint=did_you_mean(type_name, stdlib.TYPES) or f"types are: {', '.join(stdlib.TYPES)}")

        decls = list(self.game.names.values()) + self.triggers + list(self.game.evaluations.values())
        for decl in decls:
            for p in getattr(decl, "params", []):
                if isinstance(p, ast.Param):
                    check(p.type, p.span)
            if isinstance(decl, (ast.Quantity, ast.Function)):
                check(decl.type, _header_region(decl), r"\)\s*:\s*(" + re.escape(decl.type or "") + r")\b")
            if isinstance(decl, ast.VarDecl):
                check(decl.type, _header_region(decl), r":\s*(" + re.escape(decl.type) + r")\b")
                lit = _literal_type(decl.default)
                if lit and decl.type in stdlib.TYPES and not _fits(decl.type, lit):
                    self.diags.error("E-type", f"{decl.scope} '{decl.name}' is {decl.type}, but its default is "
                                     f"the {lit} literal {_literal_text(decl.default)}", decl.default.span)
                elif decl.type == "location":
                    self.expect_location(decl.default, f"the default of {decl.scope} '{decl.name}'")
        self._check_faces()

    def _check_faces(self) -> None:
        """`face: "{command_range}-{move}"` on a unit type (or a class, for its unit types that
        declare none): what its counters print, a text in which each `{name}` is a value of the
        type. A name the type does not have would print as nothing: an error, with the closest."""
        units = [d for d in self.game.names.values() if isinstance(d, ast.Unit)]
        decls = units + [d for d in self.game.entities("class")]
        for decl in decls:
            face = next((p for p in decl.props if p.key == "face"), None)
            if face is None:
                continue
            if not isinstance(face.value, ast.Str):
                self.diags.error("E-face", f"`face:` of {_kind(decl)} '{decl.name}' must be a text in quotes naming "
                                 "values in braces", face.value.span if face.value is not None else face.span,
                                 hint='face: "{command_range}-{move}" prints an HQ counter\'s range and movement')
                continue
            try:
                fields = [(name, spec, conv) for _lit, name, spec, conv in string.Formatter().parse(face.value.value)
                          if name is not None]
            except ValueError as exc:
                self.diags.error("E-face", f"`face:` of {_kind(decl)} '{decl.name}': {exc}", face.value.span,
                                 hint="a value is written {name}; a brace printed as such is written {{ or }}")
                continue
            # the unit types printing this face: the type itself, or a class's types without a face
            users = [decl] if isinstance(decl, ast.Unit) else [
                u for u in units if decl.name in u.classes and not any(p.key == "face" for p in u.props)
                and next((c for c in u.classes if self._class_face(c) is not None), None) == decl.name]
            for name, spec, conv in fields:
                where = _find(face.value.span, re.escape("{" + name))
                if not name or spec or conv or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                    self.diags.error("E-face", f"`face:` of {_kind(decl)} '{decl.name}': "
                                     f"'{{{name}{'!' + conv if conv else ''}{':' + spec if spec else ''}}}' is not a value's name",
                                     where, hint="write a value of the unit type in braces, as it is: {move}")
                    continue
                for u in users:
                    keys = {p.key for p in u.props} | {p.key for sv in u.step_values for p in sv.props}
                    if name not in keys:
                        self.diags.error("E-face", f"`face:` of {_kind(decl)} '{decl.name}' prints '{name}', which unit "
                                         f"type '{u.name}' does not have", where,
                                         hint=did_you_mean(name, sorted(keys - {"face"}))
                                         or "its values: " + ", ".join(sorted(keys - {"face"})))
                        break

    def _class_face(self, name: str) -> ast.Prop | None:
        decl = self.game.names.get(name)
        return next((p for p in getattr(decl, "props", []) if p.key == "face"), None)

    # ------------------------------------------------------------ 6: citations
    def check_citations(self) -> None:
        g = self.game
        must_cite = [d for d in g.names.values()
                     if isinstance(d, CITED_DECLS) or (isinstance(d, ast.Entity) and d.kind in CITED_ENTITY_KINDS)]
        must_cite += self.triggers + list(g.invariants.values()) + list(g.scenarios.values()) + self.phases()
        must_cite += list(g.evaluations.values())
        must_cite += list(g.tests.values())  # a test says which sections it tests
        for decl in must_cite:
            if not decl.header.citations:
                self.diags.error("E-no-citation", f"{_kind(decl)} '{decl.name}' cites no rulebook section",
                                 decl.header.span, hint="add the section it comes from after its label, e.g. §7.2")
            for m in getattr(decl, "modifiers", []):
                if not m.citations:
                    what = f"modifier '{m.label}'" if m.label else "a modifier"
                    self.diags.error("E-no-citation", f"{what} of {_kind(decl)} '{decl.name}' cites no rulebook "
                                     "section", m.span, hint="every modifier is a rule: end it with its section, e.g. §7.4")
        for phase in self.phases():
            for item in phase.items:
                for r in getattr(item, "until", ()):
                    if not r.citations:
                        self.diags.error("E-no-citation", f"the `until` obligation of phase '{phase.name}' cites no "
                                         "rulebook section", r.span, hint="an obligation is a rule: end it with its section, e.g. §8.3")
        # Every citation anywhere must be a listed section. Citations are stored without spans, so
        # the location is found by searching the owner's source text.
        reported: set[tuple] = set()
        roots = list(g.decls) + [d for d in g.games if d not in g.decls] + list(g.tests.values())
        for root in roots:
            for node in self.nodes(root):
                if isinstance(node, ast.Decl):
                    self._cite(node.header.citations, _header_region(node), reported)
                    if isinstance(node, ast.Quantity):
                        self._cite(node.base_citations, _header_region(node), reported)
                elif isinstance(node, ast.Sections):
                    continue
                elif "citations" in type(node).__pydantic_fields__ and not isinstance(node, ast.Header):
                    self._cite(node.citations, node.span, reported)

    def _cite(self, citations: list[str], region: Span | None, reported: set) -> None:
        for number in citations:
            if number in self.game.sections:
                continue
            span = _find(region, _section_pattern(number))
            key = (span, number)
            if key in reported:
                continue
            reported.add(key)
            self.diags.error("E-unknown-section", f"unknown section §{number}", span, hint=self._section_hint(number))

    def _section_hint(self, number: str) -> str:
        close = did_you_mean(number, self.game.sections)  # "did you mean '7.4'?"
        if close:
            return close.replace("'", "'§", 1)
        # Section numbers are too short for spelling distance: offer the neighbours in the outline.
        parent = number.rsplit(".", 1)[0] if "." in number else None
        near = [n for n in self.game.sections if parent and (n == parent or n.startswith(parent + "."))]
        if near:
            return "known sections near it: " + ", ".join("§" + n for n in near[:6])
        return "list the rulebook's sections in `sections { ... }`"

    # ------------------------------------------------------------ 7: the turn sequence
    def check_sequence(self) -> None:
        g = self.game
        if g.sequence is None:
            self.diags.error("E-no-sequence", "the game has no `sequence` (turn sequence)",
                             g.game.header.span if g.games else None,
                             hint="add: sequence \"Sequence of play\" §N { turns { phase NAME { allow ACTION } } }")
            return
        actions = {n for n, d in g.names.items() if isinstance(d, ast.Action)}
        allowed: set[str] = set()
        first_phase: dict[str, ast.Phase] = {}
        for phase in self.phases():
            if phase.name in first_phase:
                other = first_phase[phase.name].header.span
                self.diags.error("E-duplicate", f"phase '{phase.name}' is declared twice"
                                 + (f" (first at {other})" if other else ""), phase.header.span,
                                 hint="phase names must be unique: they are the values of `phase`")
            else:
                first_phase[phase.name] = phase
            if isinstance(phase.when, ast.Bool) and phase.when.value is False:
                self.diags.warning("W-unreachable-phase", f"phase '{phase.name}' never runs: its condition is "
                                   "`false`", phase.when.span)
            for item in phase.items:
                if not isinstance(item, ast.Allow):
                    continue
                for name in item.actions:
                    allowed.add(name)
                    if name not in actions:
                        decl = g.names.get(name)
                        message = (f"'{name}' is a {_kind(decl)}, not an action" if decl is not None
                                   else f"unknown action '{name}'")
                        self.diags.error("E-undefined", message, _find(item.span, _word(name)),
                                         hint=did_you_mean(name, actions))
        for name in sorted(actions - allowed, key=lambda n: list(g.names).index(n)):
            decl = g.names[name]
            self.diags.warning("W-unused-action", f"action '{name}' is never allowed in any phase",
                               decl.header.span, hint=f"add `allow {name}` to the phase where players may do it")

    # ------------------------------------------------------------ 8: scenarios and place()
    def check_scenarios(self) -> None:
        for scenario in self.game.scenarios.values():
            self._scenario_turns(scenario)
        for call in self.place_calls:
            self._place(call)
        tests = self.game.test_files
        in_tests = [x for x in self.loc_literals if x[0].span is not None and x[0].span.file in tests]
        on_map = [x for x in self.loc_literals if not (x[0].span is not None and x[0].span.file in tests)]
        self._location_literals(on_map, self.board)
        self._on_map = {id(x[0]) for x in on_map}  # checked: a test that uses them again does not repeat it
        self._test_decl_literals = in_tests  # a test-only helper's: checked with the test boards (check_tests)
        for call in self.pile_calls:
            deck = self.game.names.get(call.args[0].id) if call.args and isinstance(call.args[0], ast.Name) else None
            if isinstance(deck, ast.Deck) and len(call.args) >= 2:
                self._pile_name(deck, call.args[-1])

    def _check_pile_decls(self, deck: ast.Deck) -> None:
        """`pile "p" VISIBILITY`: one declaration a pile; "play" holds a card only while its event
        resolves, in front of everybody."""
        seen: dict[str, ast.PileDecl] = {}
        for d in deck.pile_decls:
            if d.name in seen:
                self.diags.error("E-deck", f"deck '{deck.name}': pile \"{d.name}\" is declared twice", d.span,
                                 hint=f"keep one `pile \"{d.name}\" ...` line (the first is on line "
                                 f"{seen[d.name].span.line if seen[d.name].span else '?'})")
            elif d.name == "play" and d.visibility not in (None, "face_up"):
                self.diags.error("E-deck", f"deck '{deck.name}': the play pile is always face up (a card in play is "
                                 "being played in front of everybody)", d.span)
            seen.setdefault(d.name, d)

    def _pile_name(self, deck: ast.Deck, value) -> None:
        """A pile named by a string literal must be one of the deck's piles."""
        if isinstance(value, ast.Str) and value.value not in deck.piles():
            self.diags.error("E-undefined", f"deck '{deck.name}' has no pile \"{value.value}\"", value.span,
                             hint=did_you_mean(value.value, deck.piles())
                             or f"its piles are {', '.join(deck.piles())}; declare others with `piles: [...]`")

    # ------------------------------------------------------------ 8b: who sees an owner-only pile
    def check_hidden_piles(self) -> None:
        """An `owner_only` pile shows each card to its owners only, so a card that declares no owner
        is seen by nobody there (docs/language.md, "Who sees a pile"): the engine allows it (a
        face-down card in an owner-only pile), but it is most often a forgotten `owner:`. Warn
        wherever the game can put such a card there: where it starts, and at every call that may
        move it there."""
        for deck in self.game.of_kind(ast.Deck):
            hidden = {p for p, v in deck.visibility().items() if v == "owner_only"}
            for card in deck.cards:
                start = next((p for p in card.props if p.key == "pile"), None)
                pile = (start.value.value if start is not None and isinstance(start.value, ast.Str)
                        else "set_aside" if any(p.key == "set_aside" for p in card.props) else "draw")
                if pile in hidden and not _card_has_owner(card):
                    self._ownerless_warning(deck, [card], pile, start.value.span if start is not None else card.span,
                                            "starts in")
        for call in self.card_moves:
            self._card_move(call)

    def _card_move(self, call: ast.Call) -> None:
        """`move_card(D, c, "p")`, `discard(s, c)`, `remove_card(c)`...: the ownerless cards the call
        may put into an owner-only pile (a card, deck or pile not written as a literal may be any)."""
        pile_at, card_at, deck_at = CARD_DESTINATIONS[call.func]

        def named(i: int | None, kind: type):
            arg = call.args[i] if i is not None and i < len(call.args) else None
            decl = self.game.names.get(arg.id) if isinstance(arg, ast.Name) else None
            return decl if isinstance(decl, kind) else None

        card, deck = named(card_at, ast.Card), named(deck_at, ast.Deck)
        for d in self.game.of_kind(ast.Deck):
            if (deck is not None and d is not deck) or (card is not None and card not in d.cards):
                continue
            if isinstance(pile_at, int):
                value = call.args[pile_at] if pile_at < len(call.args) else None
                piles = [value.value] if isinstance(value, ast.Str) else d.piles()
            else:
                piles = [pile_at]
            hidden = [p for p in piles if d.visibility().get(p) == "owner_only"]
            ownerless = [c for c in ([card] if card is not None else d.cards) if not _card_has_owner(c)]
            if hidden and ownerless:
                self._ownerless_warning(d, ownerless, hidden[0], call.span, f"'{call.func}' may put")

    def _ownerless_warning(self, deck: ast.Deck, cards: list, pile: str, span, how: str) -> None:
        """`how` is "starts in" (a card's `pile:`) or "'move_card' may put" (a call)."""
        names = ", ".join(f"'{c.name}'" for c in cards[:3]) + (f" and {len(cards) - 3} more" if len(cards) > 3 else "")
        cards_text = (f"card {names}, which declares no owner," if len(cards) == 1
                      else f"cards {names}, which declare no owner,")
        where = f"the owner-only pile \"{pile}\" of deck '{deck.name}': nobody sees {'it' if len(cards) == 1 else 'them'} there"
        message = (f"{cards_text[0].upper()}{cards_text[1:]} {how} {where}" if how == "starts in"
                   else f"{how} {cards_text} into {where}")
        self.diags.warning("W-ownerless-card", message, span,
                           hint="give the card its owner (`owner: SIDE`, `side:` or `sides: [...]`); if nobody "
                           f"should see it, declare the pile `pile \"{pile}\" face_down`")

    def _scenario_turns(self, s: ast.Scenario) -> None:
        props = {p.key: p for p in s.props}

        def whole(key: str) -> int | None:
            p = props[key]
            if isinstance(p.value, ast.Num) and isinstance(p.value.value, int):
                return p.value.value
            self.diags.error("E-scenario", f"{key} of scenario '{s.name}' must be a whole number",
                             p.value.span if p.value is not None else p.span)
            return None

        if "first_turn" not in props and "last_turn" not in props:
            if "turns" in props:
                whole("turns")
                return
            self.diags.error("E-scenario", f"scenario '{s.name}' has no first_turn and last_turn", s.header.span,
                             hint="add `first_turn: 1` and `last_turn: N` (or `turns: N`)")
            return
        for key in ("first_turn", "last_turn"):
            if key not in props:
                self.diags.error("E-scenario", f"scenario '{s.name}' has no {key}", s.header.span,
                                 hint="a scenario needs both first_turn and last_turn")
                return
        first, last = whole("first_turn"), whole("last_turn")
        if first is not None and last is not None and first > last:
            self.diags.error("E-scenario", f"scenario '{s.name}' ends (last_turn {last}) before it starts "
                             f"(first_turn {first})", props["last_turn"].value.span)

    def _place(self, call: ast.Call) -> None:
        """place(TYPE, SIDE, "ID", ...): a unit type and a side (the location: _Walker.special_builtin)."""
        args = call.args
        for i, (want, ok) in enumerate((("unit type", lambda d: isinstance(d, ast.Unit)),
                                        ("side", lambda d: isinstance(d, ast.Entity) and d.kind == "side"))):
            if i >= len(args) or not isinstance(args[i], ast.Name):
                continue
            decl = self.game.names.get(args[i].id)
            if decl is not None and not ok(decl):  # undefined names are reported by check_names
                self.diags.error("E-type", f"place(): '{args[i].id}' is a {_kind(decl)}, not a {want}", args[i].span)

    def expect_location(self, e: ast.Expr | None, doing: str, on_board: bool = False) -> None:
        """`e` is used where the rules expect a location: a string literal there must name one, or
        the run stops on it. The one place that decides it, whatever the construct (a map
        attribute or location variable of a string, a `location` parameter or variable, an
        element of a list of locations, a comparison with a location, a table's key looked up by
        location, a unit placed or standing there, `loc()`): `doing` says which, for the message.
        `on_board`: a unit stands there, or `loc()` finds it: on a rule test's partial board, a
        location the board leaves out is an error, not a warning. _location_literals checks them
        against the map once it is loaded."""
        if isinstance(e, ast.Str):
            self.loc_literals.append((e, doing))
            if on_board:
                self.on_board_literals.add(id(e))
        elif isinstance(e, ast.Cond):
            self.expect_location(e.then, doing, on_board)
            self.expect_location(e.orelse, doing, on_board)

    def table_keys_are_locations(self, table: ast.Table, axis: str) -> None:
        """`table[..., h]` with h a location: the keys of that axis (`"row"` or `"column"`) name
        locations (Stargard's VP markers, one row per hex)."""
        printed = table.rows if axis == "row" else table.columns
        keys = list(printed.keys) if printed is not None else []
        if axis == "row":
            keys += [row.key for row in table.table_rows]
        for key in keys:
            if key.kind == "name":  # a number or a range is no location id: a name or a "string" is
                lit = self._key_literals.setdefault(id(key), ast.Str(value=key.name, span=key.span))
                self.expect_location(lit, f"a {axis} of table '{table.name}', looked up by location")

    def location_list_param(self, decl: ast.Function | ast.Quantity | ast.Procedure, name: str) -> bool:
        """Whether the rule `decl` uses its `list` parameter `name` as a list of locations: a loop
        over it (`for`, a comprehension, `choose`) whose variable it uses as a location, a
        location parameter of its looked for in it (`h in hexes`), or it passes it on as a
        built-in's or a rule's list of locations (`traceable(m, h, hexes, s)`). A literal list a
        call passes there is then a list of locations (`objective_count(["0101", "0202"])`)."""
        key = (decl.name, name)
        found = self._location_lists.get(key)
        if found is not None:
            return found
        self._location_lists[key] = False  # a rule passing it back to itself adds nothing
        located = {p.name for p in decl.params if p.type == "location"}
        w = self.walker()

        def is_it(e) -> bool:
            return isinstance(e, ast.Name) and e.id == name

        body = [decl.base, decl.modifiers] if isinstance(decl, ast.Quantity) else [decl.body]
        for n in _iter_nodes(body):
            if isinstance(n, ast.For) and is_it(n.source):
                found = w.used_as_location(n.var, n.body) is not None
            elif isinstance(n, ast.Comprehension) and is_it(n.source):
                found = w.used_as_location(n.var, [n.element, n.where]) is not None
            elif isinstance(n, ast.Choose) and is_it(n.source) and not n.subset:
                found = w.used_as_location(n.var, body) is not None  # the rest of the body: all of it, roughly
            elif isinstance(n, ast.In) and is_it(n.collection):
                found = isinstance(n.item, ast.Name) and n.item.id in located
            elif isinstance(n, ast.Call):
                builtin = stdlib.BUILTINS.get(n.func)
                callee = self.game.names.get(n.func)
                found = any(is_it(arg) and ((builtin is not None and pname in builtin.location_lists) or (
                    builtin is None and isinstance(callee, (ast.Function, ast.Quantity, ast.Procedure))
                    and type_ == "list" and self.location_list_param(callee, pname)))
                    for pname, type_, arg in _typed_args(n, builtin, callee))
            if found:
                break
        self._location_lists[key] = bool(found)
        return bool(found)

    def is_location_var(self, name: str) -> bool:
        decl = self.game.names.get(name)
        return isinstance(decl, ast.VarDecl) and decl.scope == "location_var"

    def _location_literals(self, literals: list[tuple[ast.Str, str]], board, test: bool = False,
                           elsewhere: frozenset = frozenset()) -> None:
        """A string literal the rules use as a location (`"0110x".terrain`, `adjacent("0110x")`)
        must name a location of `board`, or the run would stop on it ("no location '0110x' on
        the map"): an error with the closest id. In a rule test (`test`), `board` is the test's
        own, often a fragment: a location it leaves out that the game's map (or another test
        board, `elsewhere`) has is fine for its location variables (they read their defaults
        there and can be set, as Stargard's tests read objective hexes their fragment leaves
        out) and only a warning otherwise (its map attributes are not on this board: reading
        one stops the test); a string that is a location of none of them is a
        typo, an error."""
        if board is None:
            return
        known = board.index
        game_map = self.board.index if test and self.board is not None else {}
        seen: set[int] = set()
        for lit, doing in literals:
            if id(lit) in seen or lit.value in known:
                continue
            seen.add(id(lit))
            if lit.value in game_map or lit.value in elsewhere:
                if id(lit) in self.loc_var_literals:
                    continue
                where = "the game's map" if lit.value in game_map else "another test board"
                # a unit stands there (or `loc()` finds it): an error; otherwise only a warning
                stands = id(lit) in self.on_board_literals
                report, code = (self.diags.error, "E-unknown-location") if stands else \
                    (self.diags.warning, "W-location-off-board")
                report(code,
                       f"location \"{lit.value}\" ({doing}) is not on this test's board, only on {where}", lit.span,
                       hint="this board has no terrain or map attribute for it (reading one stops the test) and no "
                       "unit can stand there: add it to the test's board, or name a location of the board")
                continue
            candidates = set(known) | set(game_map) | set(elsewhere)
            self.diags.error("E-unknown-location", f"unknown location \"{lit.value}\" ({doing})", lit.span,
                             hint=did_you_mean(lit.value, candidates)
                             or f"the map {board.name!r} has no location with this id")

    # ------------------------------------------------------------ 9: invariants
    def check_invariants(self) -> None:
        actions = {n for n, d in self.game.names.items() if isinstance(d, ast.Action)}
        phases = {p.name for p in self.phases()}
        for inv in self.game.invariants.values():
            props = {p.key: p for p in inv.props}
            if "check" not in props:
                self.diags.error("E-invariant", f"invariant '{inv.name}' has no `check:`", inv.header.span,
                                 hint=f"say when it is checked: check: {INVARIANT_CHECKS}")
            else:
                self._invariant_check(inv, props["check"], actions, phases)
            if "holds" not in props or props["holds"].value is None:
                self.diags.error("E-invariant", f"invariant '{inv.name}' has no `holds:` condition", inv.header.span,
                                 hint="add `holds: CONDITION`, the statement that must stay true")

    def _invariant_check(self, inv: ast.Invariant, prop: ast.Prop, actions: set, phases: set) -> None:
        v = prop.value
        if isinstance(v, ast.Name) and v.id == "always":
            return
        if isinstance(v, ast.Call) and v.func in ("after", "phase_end") and len(v.args) == 1 and not v.kwargs \
                and isinstance(v.args[0], ast.Name):
            name = v.args[0].id
            known, what = (actions, "an action") if v.func == "after" else (phases, "a phase")
            if name not in known:
                self.diags.error("E-invariant", f"invariant '{inv.name}' is checked at {v.func}({name}), but "
                                 f"'{name}' is not {what}", v.args[0].span, hint=did_you_mean(name, known))
            return
        self.diags.error("E-invariant", f"`check:` of invariant '{inv.name}' must be {INVARIANT_CHECKS}",
                         v.span if v is not None else prop.span)

    # ------------------------------------------------------------ 9b: evaluations
    def check_evaluations(self) -> None:
        for ev in self.game.evaluations.values():
            if len(ev.params) != 1 or ev.params[0].type != "side":
                self.diags.error("E-evaluation", f"evaluation '{ev.name}' must take one parameter, the side it judges",
                                 ev.params[0].span if ev.params else ev.header.span,
                                 hint=f"write `evaluation {ev.name}(s: side) ...`")
            if not ev.terms:
                self.diags.error("E-evaluation", f"evaluation '{ev.name}' has no term", ev.header.span,
                                 hint='add `term "LABEL" weight W: EXPRESSION §N`')
            seen: dict[str, ast.Term] = {}
            for t in ev.terms:
                if t.label in seen:
                    self.diags.error("E-evaluation", f"evaluation '{ev.name}' has two terms labelled \"{t.label}\"",
                                     t.span, hint="labels name the terms an overlay reweighs: make them distinct")
                seen[t.label] = t

    # ------------------------------------------------------------ 10: provisional data
    def check_provisional(self) -> None:
        for item, node, prov in self.game.provisional_items():
            span = node.header.span if isinstance(node, ast.Decl) else node.span
            note = f": {prov.note}" if prov.note else " (no note says why)"
            self.diags.warning("W-provisional", f"{item} is provisional{note}", span)
        if self.board is not None and self.board.provenance.kind == "provisional":
            note = f": {self.board.provenance.note}" if self.board.provenance.note else ""
            self.diags.warning("W-provisional", f"map '{self.board.name}' is provisional{note}",
                               self.map_prop.span if self.map_prop else None)

    # ------------------------------------------------------------ 12: values with a meaning
    def check_values(self) -> None:
        """Values whose meaning the engine and the exporters know: odds and dice that can be
        computed, unit steps and scenario turns within the bounds the exporters draw
        (`limits.py`), turn orders of distinct sides; and overrides (an overlay's published
        values) that keep the kind of value they replace."""
        g = self.game
        roots = list(g.decls) + [d for d in g.games if d not in g.decls]
        seen: set[int] = set()  # an override's nodes are also in the declaration it merged into
        for root in roots:
            for node in self.nodes(root):
                if id(node) in seen:
                    continue
                seen.add(id(node))
                if isinstance(node, ast.OddsLit) or (isinstance(node, ast.Key) and node.kind == "odds"):
                    if node.attack < 1 or node.defense < 1:
                        self.diags.error("E-value", f"odds {node.attack}:{node.defense} cannot be computed: both "
                                         "sides of odds are at least 1", node.span, hint="e.g. 1:2, 3:1")
                elif isinstance(node, ast.Roll):
                    self._dice(node.dice, node.span)
                elif isinstance(node, ast.Axis) and node.dice is not None:
                    self._dice(node.dice, node.span)
        if g.games:
            dice = next((p for p in g.game.props if p.key == "dice"), None)
            if dice is not None:
                self._game_dice(dice)
            for p in g.game.props:
                if p.key == "turn_order":
                    self._turn_order(p)
        for s in g.scenarios.values():
            for p in s.props:
                if p.key == "turn_order":
                    self._turn_order(p)
            self._scenario_bounds(s)
        for u in g.units:
            self._unit_steps(u)
        for decl, old, new in g.replaced:
            self._replaced_value(decl, old, new)

    def _dice(self, dice: ast.Dice, span: Span | None) -> None:
        problem = None
        if not 1 <= dice.sides <= limits.MAX_FACES:
            problem = f"a die has 1 to {limits.MAX_FACES} faces"
        elif not 1 <= dice.count <= limits.MAX_DICE:
            problem = f"a roll has 1 to {limits.MAX_DICE} dice"
        elif dice.keep is not None and not 1 <= dice.keep <= dice.count:
            problem = f"a roll keeps 1 to {dice.count} of its dice"
        if problem:
            self.diags.error("E-value", f"cannot roll {dice.text()}: {problem}", span)

    def _game_dice(self, prop: ast.Prop) -> None:
        m = re.fullmatch(r"([0-9]*)d([0-9]+)", prop.value.id) if isinstance(prop.value, ast.Name) else None
        if m is None:
            self.diags.error("E-value", "`dice:` names the game's dice, like d6 or 2d6", prop.value.span if prop.value else prop.span)
            return
        self._dice(ast.Dice(count=int(m.group(1) or 1), sides=int(m.group(2))), prop.value.span)

    def _turn_order(self, prop: ast.Prop) -> None:
        value = prop.value
        if value is None or (_literal_type(value) is not None and not isinstance(value, ast.ListLit)):
            self.diags.error("E-type", "turn_order is a list of sides, like [axis, soviet]",
                             value.span if value is not None else prop.span)
            return
        if not isinstance(value, ast.ListLit):
            return  # a computed turn order is checked when the game plays
        for item in value.items:
            if not isinstance(item, ast.Name):
                self.diags.error("E-type", f"turn_order lists sides; {_literal_text(item) if _literal_type(item) else 'this'} "
                                 "is not a side", item.span)
        if not value.items:
            self.diags.error("E-value", "an empty turn_order: no side would ever play", value.span,
                             hint="list the sides in the order they take their player turns")
        names = [i.id for i in value.items if isinstance(i, ast.Name)]
        for name in sorted({n for n in names if names.count(n) > 1}):
            self.diags.error("E-value", f"'{name}' is listed twice in turn_order", value.span,
                             hint="a side takes one player turn per game turn")

    def _scenario_bounds(self, s: ast.Scenario) -> None:
        props = {p.key: p.value for p in s.props}
        first, last, turns = (props.get(k) for k in ("first_turn", "last_turn", "turns"))
        whole = {k: v.value for k, v in (("first_turn", first), ("last_turn", last), ("turns", turns))
                 if isinstance(v, ast.Num) and isinstance(v.value, int)}
        for key in ("first_turn", "last_turn", "turns"):
            if key in whole and whole[key] < 0:
                self.diags.error("E-value", f"{key} of scenario '{s.name}' is negative", props[key].span)
                return
        length = whole.get("turns")
        if "first_turn" in whole and "last_turn" in whole:
            length = whole["last_turn"] - whole["first_turn"] + 1
        if length is not None and length > limits.MAX_TURNS:
            where = props["last_turn"] if "last_turn" in whole else props["turns"]
            self.diags.error("E-value", f"scenario '{s.name}' has {length:,} turns, more than the {limits.MAX_TURNS} "
                             "a turn track can show", where.span, hint="check the scenario's last turn")

    def _unit_steps(self, u: ast.Unit) -> None:
        prop = next((p for p in u.props if p.key == "steps"), None)
        steps = 1
        if prop is not None:
            v = prop.value
            if not (isinstance(v, ast.Num) and isinstance(v.value, int)):
                self.diags.error("E-type", f"steps of unit '{u.name}' must be a whole number", v.span if v else prop.span)
                return
            if not 1 <= v.value <= limits.MAX_STEPS:
                self.diags.error("E-value", f"unit '{u.name}' has {v.value:,} steps: a unit has 1 to {limits.MAX_STEPS}",
                                 v.span, hint="a unit with no step left is eliminated, so it has at least 1")
                return
            steps = v.value
        for sv in u.step_values:
            if not 1 <= sv.steps <= steps:
                self.diags.error("E-value", f"`at steps {sv.steps}` of unit '{u.name}': the unit has 1 to {steps} "
                                 "step(s)", sv.span)

    def _replaced_value(self, decl: ast.Decl, old: ast.Prop, new: ast.Prop) -> None:
        """An override keeps the kind of each value it replaces: its type, and its sign."""
        was, now = _value_kind(old.value), _value_kind(new.value)
        if was is None or now is None:
            return  # an expression: its type is the walker's business
        what = f"{old.key} of {_kind(decl)} '{decl.name}'"
        shown = _literal_text(new.value) if _literal_type(new.value) else new.value.id
        if was != now and not (was == "num" and now == "int") and not (was == "int" and now == "num"):
            self.diags.error("E-type", f"{what} is {_a(was)} ({_value_src_of(old.value)}); the override gives {_a(now)} "
                             f"{shown}", new.value.span, hint=f"write {_a(was)}, like the value it replaces")
        elif isinstance(old.value, ast.Num) and isinstance(new.value, ast.Num) and old.value.value >= 0 > new.value.value:
            self.diags.error("E-value", f"{what} is never negative in the rules ({_value_src_of(old.value)}); the "
                             f"override gives {shown}", new.value.span)

    # ------------------------------------------------------------ 13: recursion that never ends
    def check_recursion(self) -> None:
        """Rules that reach themselves on every path can never finish (`recursion.py`); other
        recursion is bounded at run time with a located error."""
        for cycle in endless_recursion(self.game):
            chain = " -> ".join(cycle.nodes)
            self.diags.error("E-recursion", f"{cycle.nodes[0]} reaches itself on every path ({chain}): it can never "
                             "finish", cycle.span,
                             hint="make the call depend on a condition that eventually stops it (`if ...`)")
    # ------------------------------------------------------------ 12: rule tests (tests/*.wcx)
    def check_tests(self) -> None:
        g = self.game
        if not g.tests and not g.maps:
            return
        from warcodex.dsl import test_boards

        declared: set[str] = set()  # the locations of the declared test boards
        for fragment in g.maps.values():  # every declared board loads, used or not
            src = test_boards.board_source(fragment.name, [(fragment.text, fragment.text_span)])
            try:
                loaded = test_boards.load_board(src)
                self._map_names(loaded, fragment.text_span.file)
                declared |= set(loaded.index)
            except DiagnosticError as exc:
                self.diags.extend(exc.diagnostics)
        declared = frozenset(declared)
        choices = self._choice_names()
        reached: list[tuple[ast.Str, str]] = []  # literals of declarations a test's lines use (`vp_hexes()`)
        for test in g.tests.values():
            board = self.board
            items = list(test.body)
            if items and isinstance(items[0], ast.TestMap):
                try:
                    board = test_boards.load_board(test_boards.test_board_source(g, items[0]))
                    if items[0].text is not None:
                        self._map_names(board, items[0].text_span.file)
                except DiagnosticError as exc:
                    if not (items[0].text is None and items[0].base in g.maps):
                        self.diags.extend(exc.diagnostics)  # a declared board's errors are reported once
                    board = None
                items.pop(0)
            if items and isinstance(items[0], ast.TestScenario):
                sc = items.pop(0)
                if sc.name not in g.scenarios:
                    self.diags.error("E-undefined", f"unknown scenario '{sc.name}'", sc.span,
                                     hint=did_you_mean(sc.name, g.scenarios) or
                                     f"scenarios: {', '.join(g.scenarios) or 'none'}")
            for item in items:
                if isinstance(item, (ast.TestMap, ast.TestScenario)):
                    word = "map" if isinstance(item, ast.TestMap) else "scenario"
                    self.diags.error("E-test", f"`{word}` must come first in a test (`map`, then `scenario`)",
                                     item.span, hint="the board and the scenario are where the test starts")
            saved = self.place_calls, self.loc_literals
            self.place_calls, self.loc_literals = [], []
            try:
                self._walk_test(items, choices)
                own = [x for x in self.loc_literals if _within(x[0].span, test.span)]
                reached += [x for x in self.loc_literals if not _within(x[0].span, test.span)]
                self._location_literals(own, board, test=True, elsewhere=declared)
            finally:
                self.place_calls, self.loc_literals = saved
        # a declaration's literal is the same for every test that uses it: the game's are on the
        # game's map, a test-only helper's on some board
        tests = g.test_files
        self._location_literals([x for x in reached if x[0].span is not None and x[0].span.file not in tests
                                 and id(x[0]) not in self._on_map], self.board)
        self._test_decl_literals += [x for x in reached if x[0].span is not None and x[0].span.file in tests]
        self._test_helper_literals(declared)

    def _test_helper_literals(self, test_boards: set[str]) -> None:
        """A test-only declaration (a helper function of tests/*.wcx) may name a location of any
        test board or of the game's map: only a string that is a location of none is an error."""
        known = set(test_boards) | (set(self.board.index) if self.board is not None else set())
        if not known:
            return
        for lit, doing in {id(x[0]): x for x in self._test_decl_literals}.values():
            if lit.value not in known:
                self.diags.error("E-unknown-location", f"unknown location \"{lit.value}\" ({doing})", lit.span,
                                 hint=did_you_mean(lit.value, known)
                                 or "neither the game's map nor a test board has a location with this id")

    def _choice_names(self) -> set[str]:
        """The names `answer` may give: every `choose` variable and `re-roll X` of the rules."""
        names: set[str] = set()
        roots = list(self.game.decls) + [t for s in self.game.scenarios.values() for t in s.triggers]
        for root in roots:
            for node in _iter_nodes(root):
                if isinstance(node, ast.Choose):
                    names.add(node.var)
                elif isinstance(node, ast.Reroll):
                    names.add(f"re-roll {node.var}")
        return names

    def _walk_test(self, items: list, choices: set[str]) -> None:
        g = self.game
        w = self.walker()
        phases = {p.name for p in self.phases()}
        for item in items:
            if isinstance(item, (ast.TestMap, ast.TestScenario)):
                continue
            if isinstance(item, ast.TestTurn):
                w.expr(item.value)
            elif isinstance(item, ast.TestActive):
                w.expr(item.value)
            elif isinstance(item, ast.TestPhase):
                if item.name not in phases:
                    self.diags.error("E-undefined", f"unknown phase '{item.name}'", _find(item.span, _word(item.name)),
                                     hint=did_you_mean(item.name, phases) or f"phases: {', '.join(sorted(phases))}")
            elif isinstance(item, ast.TestUnit):
                self._test_unit(item, w)
            elif isinstance(item, ast.TestDice):
                for r in item.rolls:
                    if r < 1:
                        self.diags.error("E-test", f"a die roll is at least 1, not {r}", item.span)
            elif isinstance(item, ast.TestAnswer):
                for v in item.values:
                    w.expr(v)
                if item.by is not None:
                    w.expr(item.by)
                if item.when is not None:
                    w.cond(item.when)
                if item.round_from is not None and item.round_from < 1:
                    self.diags.error("E-test", f"rounds are counted from 1, not {item.round_from}",
                                     _find(item.span, r"round\s+(\d+)"),
                                     hint="`in round 1` is the combat's first round")
                if item.what not in choices:
                    self.diags.error("E-undefined", f"no `choose` of the rules is named '{item.what}'", item.span,
                                     hint=did_you_mean(item.what, choices)
                                     or "answer the name a `choose` binds (choose h from ...: answer h: ...)")
                elif item.round_from is not None and item.round_from >= 1:
                    self._answer_rounds(item, items[next(i for i, x in enumerate(items) if x is item) + 1:])
            elif isinstance(item, ast.TestSamePlayer):
                sides = {d.name for d in g.sides}
                for name in item.sides:
                    if name not in sides:
                        self.diags.error("E-undefined", f"unknown side '{name}'", _find(item.span, _word(name)),
                                         hint=did_you_mean(name, sides))
            elif isinstance(item, ast.TestDo):
                self._test_call(item.call, w, actions_only=True)
            elif isinstance(item, ast.TestOffered):
                if item.what not in choices:
                    self.diags.error("E-undefined", f"no `choose` of the rules is named '{item.what}'", item.span,
                                     hint=did_you_mean(item.what, choices))
                w.locals[item.var] = "int" if item.count else "list"
            elif isinstance(item, ast.Expect):
                if item.kind == "true":
                    w.cond(item.test)
                else:
                    self._test_call(item.call, w, actions_only=item.kind == "legal", partial=True)
                    decl = g.names.get(item.call.func)
                    given = len(item.call.args) + len(item.call.kwargs)
                    if item.because and isinstance(decl, ast.Action) and given < len(decl.params):
                        self.diags.error("E-test", "`because` needs the whole action: with some parameters left "
                                         "out, no single refusal says why", item.span,
                                         hint="give every parameter, or leave out `because`")
            else:
                w.stmt(item)
        for call in self.place_calls:
            self._place(call)

    def _answer_rounds(self, item: ast.TestAnswer, later: list) -> None:
        """An answer by round that no later line of the test can reach a loop of rounds with never
        applies (dsl/rounds.py): a warning, since the rules' text says so."""
        from warcodex.dsl.rounds import may_run_rounds

        if may_run_rounds(self.game, later):
            return
        when = f"in round {item.round_from}" if item.round_to == item.round_from else f"from round {item.round_from}"
        self.diags.warning("W-answer-rounds", f"`answer {item.what} {when}` never applies: no line after it runs "
                           "a loop of rounds (a `for` loop whose body may roll dice and does not read its "
                           "variable, docs/odds.md), so no round is ever counted", item.span,
                           hint=f"a CRT attack is resolved in one go: drop `{when}` to answer `{item.what}` "
                           "every time it is asked, or say when with `when CONDITION`")

    def _test_unit(self, u: ast.TestUnit, w: "_Walker") -> None:
        g = self.game
        for name, want, ok in ((u.type, "unit type", lambda d: isinstance(d, ast.Unit)),
                               (u.side, "side", lambda d: isinstance(d, ast.Entity) and d.kind == "side")):
            decl = g.names.get(name)
            if decl is None or not ok(decl):
                known = [n for n, d in g.names.items() if ok(d)]
                message = f"'{name}' is a {_kind(decl)}, not a {want}" if decl is not None else f"unknown {want} '{name}'"
                self.diags.error("E-undefined" if decl is None else "E-type", message, _find(u.span, _word(name)),
                                 hint=did_you_mean(name, known))
        if u.at is not None:
            w.expr(u.at)
            self.expect_location(u.at, f"where unit '{u.var}' stands", on_board=True)
        if u.box is not None:
            w.expr(u.box)
        markers = {m.name for m in g.entities("marker")}
        for m in u.markers:
            if m not in markers:
                self.diags.error("E-undefined", f"unknown marker '{m}'", _find(u.span, _word(m), last=True),
                                 hint=did_you_mean(m, markers))
        w.locals[u.var] = "list" if u.count else "unit"

    def _test_call(self, call: ast.Call, w: "_Walker", actions_only: bool, partial: bool = False) -> None:
        """`do A(...)`, `expect legal A(...)`: an action with its parameters (by name, or in
        order); `expect illegal X(...)`: an action or a procedure (what the engine refuses)."""
        g = self.game
        decl = g.names.get(call.func)
        for a in list(call.args) + list(call.kwargs.values()):
            w.expr(a)
        if isinstance(decl, ast.Action):
            params = [p.name for p in decl.params]
            for key in call.kwargs:
                if key not in params:
                    self.diags.error("E-undefined", f"action '{call.func}' has no parameter '{key}'",
                                     _find(call.span, _word(key)),
                                     hint=did_you_mean(key, params) or f"its parameters: {', '.join(params) or 'none'}")
            given = params[:len(call.args)] + list(call.kwargs)
            missing = [p for p in params if p not in given]
            if len(call.args) > len(params):
                self.diags.error("E-arity", f"action '{call.func}' has {_plural(len(params), 'parameter')}, "
                                 f"but {len(call.args)} are given", call.span)
            elif missing and not partial:
                self.diags.error("E-arity", f"action '{call.func}' needs {', '.join(missing)}", call.span,
                                 hint=f"write: {call.func}({', '.join(p + ': ...' for p in params)})")
            return
        if not actions_only and isinstance(decl, ast.Procedure):
            if call.kwargs:
                self.diags.error("E-syntax", f"procedure '{call.func}' takes its arguments in order, not by name",
                                 call.span)
            elif len(call.args) != len(decl.params):
                w.arity(call, f"procedure '{call.func}'", len(decl.params), len(decl.params), len(call.args))
            return
        actions = [n for n, d in g.names.items() if isinstance(d, ast.Action)]
        want = "an action" if actions_only else "an action or a procedure"
        message = f"'{call.func}' is a {_kind(decl)}, not {want}" if decl is not None else f"unknown action '{call.func}'"
        self.diags.error("E-undefined", message, call.span, hint=did_you_mean(call.func, actions))

    # ------------------------------------------------------------ 11: the map
    def check_map(self) -> None:
        if not self.game.games:
            return
        prop = next((p for p in self.game.game.props if p.key == "map"), None)
        if prop is None:
            return
        from warcodex.dsl import mapfile

        self.map_prop = prop
        if not isinstance(prop.value, ast.Str):
            self.diags.error("E-type", "`map:` must be the file name of the map, in quotes", prop.span,
                             hint='e.g. map: "map.wcmap"')
            return
        try:
            path = self.game.map_file()
        except inputs.InputError as exc:
            self.diags.items.append(input_diagnostic(exc, "E-map-read", prop.value.span))
            return
        warnings = Diagnostics()
        try:
            board = (self.map_loader or mapfile.load_map)(path, warnings)
        except DiagnosticError as exc:
            for d in exc.diagnostics:  # a map that cannot be read is reported at `map:`
                self.diags.items.append(d if d.span is not None else dataclasses.replace(d, span=prop.value.span))
            return
        self.diags.extend(warnings.items)
        self.board = self.game.board = board  # the engine plays on the board checked here
        # the features the board adds by itself (edge_north...) are tags rules may test
        declared = board.declared_names()
        self.tags |= set(declared.builtin_location_features) | set(declared.builtin_edge_features)
        self._map_names(board, str(path))
        for number, span, _what in getattr(board, "citations", ()):  # `§5.5.2` after a map statement
            if number not in self.game.sections:
                self.diags.error("E-unknown-section", f"unknown section §{number}", span,
                                 hint=self._section_hint(number))

    def _map_names(self, board, map_file: str) -> None:
        """Names the map uses must be declared by the rules, or `terrain(h) is X` can never match."""
        declared = board.declared_names()
        kinds = {kind: {e.name for e in self.game.entities(kind)} for kind in ("terrain", "edge", "feature", "marker")}
        checks = [
            ("terrain", declared.terrains, kinds["terrain"] | kinds["marker"]),
            ("edge feature", declared.edge_features, kinds["edge"] | kinds["marker"]),
            # `path road: ...` puts `road` on the hexes too, so an edge name is a valid location feature.
            ("location feature", declared.location_features, kinds["feature"] | kinds["edge"] | kinds["marker"]),
        ]
        decl_word = {"terrain": "terrain", "edge feature": "edge", "location feature": "feature"}
        text = _source(map_file) or ""
        for what, used, known in checks:
            for name in sorted(used - known):
                self.diags.error("E-undeclared-map-name", f"the map uses {what} '{name}', which the rules do not "
                                 "declare", self._map_span(map_file, text, name),
                                 hint=did_you_mean(name, known)
                                 or f"declare it: {decl_word[what]} {name} \"Label\" §section")

    def _map_span(self, map_file: str, text: str, name: str) -> Span | None:
        """The first use of `name` in the map file (the Board keeps no spans); else the map prop."""
        for i, line in enumerate(text.splitlines(), 1):
            # blank out strings (same length, so columns stay right), then drop the comment
            code = re.sub(r'"([^"\\\n]|\\.)*"', lambda m: " " * len(m.group(0)), line).split("#", 1)[0]
            m = re.search(_word(name), code)
            if m:
                return Span(map_file, i, m.start() + 1, i, m.end() + 1)
        return self.map_prop.span if self.map_prop else None


# ================================================================ the scope-walking visitor
# While `infer_list_params` works, a `list` parameter no call has told anything about yet holds
# NOT_YET: it adds nothing to what a call passes (so a procedure and the one it calls back, such
# as a combat and its Breakthrough Combat, can learn from the action that starts them)
NOT_YET = "\x00not yet"


def _join(a: str | None, b: str | None) -> str | None:
    """Two things a value may be: the same type, else unknown (None); NOT_YET yields to the other."""
    if a == NOT_YET:
        return b
    if b == NOT_YET:
        return a
    return a if a == b else None


def _within(span: Span | None, outer: Span | None) -> bool:
    """Whether `span` lies inside `outer` (a literal inside a test block)."""
    if span is None or outer is None or span.file != outer.file:
        return False
    end = (span.end_line or span.line, span.end_column or span.column)
    outer_end = (outer.end_line, outer.end_column or 0) if outer.end_line is not None else (outer.line + 1, 0)
    return (outer.line, outer.column) <= (span.line, span.column) and end <= outer_end


@functools.lru_cache(maxsize=None)
def _builtin_params(name: str) -> tuple[tuple[str, str], ...]:
    """(name, type) of each parameter of a built-in, from its "name: type" text (stdlib.py)."""
    return tuple((p.split(":")[0].lstrip("*").rstrip("?").strip(), p.split(":")[1].strip().rstrip("?"))
                 for p in stdlib.BUILTINS[name].params)


def _typed_args(call: ast.Call, builtin, decl) -> list[tuple[str, str, ast.Expr]]:
    """(parameter name, its type, the argument) for each argument a call gives, positional or
    named, of a built-in (`stdlib`) or a rule (function, quantity, procedure)."""
    if builtin is not None:
        params = _builtin_params(builtin.name)
    elif isinstance(decl, (ast.Quantity, ast.Function, ast.Procedure)):
        params = [(p.name, p.type) for p in decl.params]
    else:
        return []
    given = list(zip(params, call.args)) + [(p, call.kwargs[p[0]]) for p in params if p[0] in call.kwargs]
    return [(name, type_, arg) for (name, type_), arg in given]


class _Walker:
    """Walks one body (or one expression context) in order, tracking local names.

    `locals` maps each local name to its declared type (None when unknown). A `let`, `for` or
    `choose` adds to it for the rest of the body (function scope). With `free` given (result
    bodies), names defined nowhere are collected there instead of reported."""

    def __init__(self, checker: _Checker, locals_: dict[str, str | None], free: dict | None) -> None:
        self.c = checker
        self.game = checker.game
        self.diags = checker.diags
        self.locals = locals_
        self.declared = dict(locals_)  # the parameters' declared types, while no `let` or loop rebinds them
        self.lists: dict[str, str] = {}  # local lists whose elements' type is known
        self.held: dict[str, ast.Expr] = {}  # what a `let` put in a local, for the literals it holds
        self.free = free
        # where a statement being walked stands: each enclosing block and where its rest begins,
        # innermost last, and the bodies of the enclosing loops (what runs after a `set` of a local)
        self.after: list[tuple[list[ast.Stmt], int]] = []
        self.loops: list[list[ast.Stmt]] = []

    # ------------------------------------------------------------ what is known of a value's type
    def bind(self, name: str, type_: str | None, elements: str | None = None) -> None:
        """A local name (re)defined: its type, and for a list the type of its elements."""
        self.locals[name] = type_
        self.held.pop(name, None)
        if elements is None:
            self.lists.pop(name, None)
        else:
            self.lists[name] = elements

    def bind_element(self, name: str, source: ast.Expr, subset: bool = False) -> None:
        """`for x in SOURCE`, `choose x from SOURCE` (a `subset` is a list of its elements)."""
        self.declared.pop(name, None)
        if subset:
            self.bind(name, "list", self.elements(source))
        else:
            self.bind(name, self.elements(source))

    def elements(self, e: ast.Expr | None) -> str | None:
        """The type of the elements of the list `e` computes, when it is known: a built-in's
        (`units_at(h)`: units), a function's (from its body), a local list's, `list(...)` of one."""
        if isinstance(e, ast.Name):
            if e.id in self.locals:
                return self.lists.get(e.id)
            return self.c.var_elements(e.id)
        if isinstance(e, ast.Call):
            builtin = stdlib.BUILTINS.get(e.func)
            if e.func == "list" and len(e.args) == 1 and not e.kwargs:
                return self.elements(e.args[0])
            if builtin is not None:
                return builtin.elements
            decl = self.game.names.get(e.func)
            return self.c.function_elements(decl) if isinstance(decl, ast.Function) else None
        if isinstance(e, ast.Comprehension) and e.func == "list":
            return self._element_of(e)
        if isinstance(e, ast.ListLit):  # `[u]`, `[a, b]`: what its items are, if all alike; `[]`: anything
            types = [self.value_type(x) for x in e.items] or [NOT_YET]
            found = types[0]
            for other in types[1:]:
                found = _join(found, other)
            return found
        if isinstance(e, ast.Cond) or (isinstance(e, ast.BinOp) and e.op == "+"):
            a, b = (e.then, e.orelse) if isinstance(e, ast.Cond) else (e.left, e.right)
            return _join(self.elements(a), self.elements(b))
        return None

    def value_type(self, e: ast.Expr | None) -> str | None:
        """The type of a value, when it is known (a local's, `first(u for u in UNITS ...)`...)."""
        if isinstance(e, ast.Name):
            return self.locals.get(e.id)
        if isinstance(e, ast.Comprehension) and e.func == "first":
            return self._element_of(e)
        if isinstance(e, ast.Call) and e.func in ("first", "pick_random") and len(e.args) == 1 and not e.kwargs:
            return self.elements(e.args[0])
        if isinstance(e, ast.Index) and len(e.args) == 1:  # `group[i]`: an element of a known list
            return self.elements(e.obj)
        if isinstance(e, ast.Call):  # `unit_by_id(7)`, a function declared `: unit`
            builtin = stdlib.BUILTINS.get(e.func)
            decl = self.game.names.get(e.func) if builtin is None else None
            declared = builtin.returns if builtin is not None else getattr(decl, "type", None)
            if isinstance(decl, (ast.Function, type(None))) and declared in ("unit", "location", "side"):
                return declared
        if isinstance(e, ast.Attr) and e.name == "loc" and self.value_type(e.obj) == "unit":
            return "location"  # `u.loc`
        if isinstance(e, ast.Cond):
            return _join(self.value_type(e.then), self.value_type(e.orelse))
        return None

    def _element_of(self, e: ast.Comprehension) -> str | None:
        """`list(x for x in SOURCE ...)`, `first(...)`: the elements of SOURCE, when it yields x."""
        if isinstance(e.element, ast.Name) and e.element.id == e.var:
            return self.elements(e.source)
        return None

    def defined(self, name: str) -> bool:
        # `DR2`: a result code with its number, the way a table cell holds it
        return name in self.locals or name in self.c.globals or resolve_code(self.game, name) is not None

    # ------------------------------------------------------------ statements
    def body(self, stmts: list[ast.Stmt]) -> None:
        after = self.after
        for i, s in enumerate(stmts):
            after.append((stmts, i + 1))
            self.stmt(s)
            after.pop()
            if isinstance(s, ast.Let):  # a local is seen by the rest of the body
                self.held[s.name] = s.value
                self.locate(s.name, s.value, stmts[i + 1:], each=False)
            elif isinstance(s, ast.Choose) and not s.subset:
                self.locate(s.var, s.source, stmts[i + 1:], each=True)

    def stmt(self, s: ast.Stmt) -> None:
        if isinstance(s, ast.Let):
            self.expr(s.value)
            self.declared.pop(s.name, None)
            self.bind(s.name, self.value_type(s.value), self.elements(s.value))
        elif isinstance(s, ast.SetStmt):
            self.target(s.target)
            self.expr(s.value)
            self.set_type(s)
            name = s.target.id if isinstance(s.target, ast.Name) else None
            if name is not None and name not in self.locals and self.c._passed is not None:
                self.c.assigned(name, s.value, self)
            if name in self.locals:  # a local set again: what it holds now is what both values have in common
                if s.op == "=":
                    self.locate_set(name, s.value)
                held = _join(self.lists[name], self.elements(s.value)) if name in self.lists and s.op == "=" else None
                literals = self.held.get(name)
                self.bind(name, _join(self.locals[name], self.value_type(s.value)) if s.op == "=" else self.locals[name],
                          held)
                if literals is not None and s.op == "=":  # the literals of both values, for a list used as locations
                    self.held[name] = ast.BinOp(op="+", left=literals, right=s.value, span=s.value.span)
        elif isinstance(s, ast.If):
            self.cond(s.test)
            self.body(s.body)
            self.body(s.orelse)
        elif isinstance(s, ast.For):
            self.expr(s.source)
            self.bind_element(s.var, s.source)
            self.locate(s.var, s.source, s.body, each=True)
            self.loops.append(s.body)
            try:
                self.body(s.body)
            finally:
                self.loops.pop()
        elif isinstance(s, ast.Choose):
            self.expr(s.source)
            self.bind_element(s.var, s.source, s.subset)
            if s.where is not None:
                self.cond(s.where)
            self.expr(s.by)
            if s.otherwise is not None:
                self.expr(s.otherwise)
        elif isinstance(s, ast.Reroll):
            if s.var not in self.locals:
                self.diags.error("E-undefined", f"reroll: '{s.var}' is not a local name holding a roll", s.span,
                                 hint=f"name the roll first: let {s.var} = roll d6")
            self.expr(s.value)
            self.expr(s.by)
            if s.when is not None:
                self.cond(s.when)
            self.body(s.body)
        elif isinstance(s, ast.Require):
            self.cond(s.test)
        elif isinstance(s, ast.Apply):
            self.expr(s.value)
            self.apply(s)
        elif isinstance(s, ast.Step):
            self.body(s.body)
        elif isinstance(s, ast.CallStmt):
            self.call(s.call, statement=True)

    def target(self, t: ast.Expr) -> None:
        if isinstance(t, ast.Name):
            self.name(t)
        elif isinstance(t, ast.Attr):
            self.attribute(t, "setting")
        elif isinstance(t, ast.Index):
            self.expr(t.obj)
            for a in t.args:
                self.expr(a)

    def attribute(self, e: ast.Attr, doing: str) -> None:
        """`x.name` read or set (`doing`): a string has no attribute, so a string literal there
        names a location (`"0110".terrain`, `set "0805".controller = ...`); one whose location
        variable is read or set may lie off a rule test's partial board (`loc_var_literals`)."""
        self.expr(e.obj)
        self.attr_name(e)
        if isinstance(e.obj, ast.Str):
            self.c.expect_location(e.obj, f"{doing} its '{e.name}'")
            if self.c.is_location_var(e.name):
                self.c.loc_var_literals.add(id(e.obj))

    def set_type(self, s: ast.SetStmt) -> None:
        """`set x = LITERAL`: the literal must fit the variable's declared type."""
        lit = _literal_type(s.value)
        if lit is None:
            return
        t = s.target
        var = None
        if isinstance(t, ast.Name) and t.id not in self.locals:
            var = self.game.names.get(t.id)
        elif isinstance(t, ast.Attr):
            var = self.game.names.get(t.name)
            if isinstance(var, ast.VarDecl) and var.scope == "var":
                var = None  # `x.weather` is not the global variable
        if not isinstance(var, ast.VarDecl) or var.type not in stdlib.TYPES:
            return
        if s.op != "=" and lit not in ("int", "num"):
            self.diags.error("E-type", f"`{s.op}` needs a number, not the {lit} literal {_literal_text(s.value)}",
                             s.value.span)
        elif not _fits(var.type, lit):
            self.diags.error("E-type", f"{var.scope} '{var.name}' is {var.type}, but is set to the {lit} literal "
                             f"{_literal_text(s.value)}", s.value.span)
        elif var.type == "location":
            self.c.expect_location(s.value, f"the value of {var.scope} '{var.name}'")

    def apply(self, s: ast.Apply) -> None:
        # Result bodies see the names of the place that applies them: check those names here.
        for result in self.c.applied_results(s.value):
            for name in self.c.free_names(result):
                if self.defined(name):
                    continue
                if self.free is not None:  # an apply inside a result: the outer apply site decides
                    self.free.setdefault(name, s.span)
                    continue
                candidates = set(self.locals) | self.c.globals
                self.diags.error("E-undefined", f"result {result.name} uses '{name}', which is not defined where "
                                 "the result is applied", s.span,
                                 hint=did_you_mean(name, candidates)
                                 or f"a result sees the names of the body that applies it: define '{name}' "
                                 "before this `apply`")

    # ------------------------------------------------------------ expressions
    def cond(self, e: ast.Expr | None) -> None:
        """A condition (`if`, `when`, `where`, `require`, `holds`): a literal must be a bool."""
        if e is None:
            return
        lit = _literal_type(e)
        if lit is not None and lit != "bool":
            self.diags.error("E-type", f"a condition must be true or false, not the {lit} literal "
                             f"{_literal_text(e)}", e.span)
        self.expr(e)

    def expr(self, e: ast.Expr | None) -> None:
        if e is None:
            return
        if isinstance(e, ast.Name):
            self.name(e)
        elif isinstance(e, ast.Call):
            self.call(e, statement=False)
        elif isinstance(e, ast.Comprehension):
            self.comprehension(e)
        elif isinstance(e, ast.Attr):
            self.attribute(e, "reading")
        elif isinstance(e, ast.Index):
            self.expr(e.obj)
            for a in e.args:
                self.expr(a)
            self.table_lookup(e)
        elif isinstance(e, ast.BinOp):
            for operand, other in ((e.left, e.right), (e.right, e.left)):
                lit = _literal_type(operand)
                # `+` also joins text: a text literal is wrong only with another operator or a number
                if lit == "bool" or (lit == "str" and (e.op != "+" or _literal_type(other) in ("int", "num", "odds", "bool"))):
                    self.diags.error("E-type", f"`{e.op}` needs numbers, not the {lit} literal "
                                     f"{_literal_text(operand)}", operand.span)
            self.expr(e.left)
            self.expr(e.right)
        elif isinstance(e, (ast.Compare, ast.And, ast.Or)):
            self.expr(e.left)
            self.expr(e.right)
            if isinstance(e, ast.Compare) and e.op in ("==", "!="):
                for one, other in ((e.left, e.right), (e.right, e.left)):
                    if self.value_type(one) == "location":
                        self.c.expect_location(other, "compared with a location")
        elif isinstance(e, ast.Neg):
            lit = _literal_type(e.operand)
            if lit in ("bool", "str"):
                self.diags.error("E-type", f"`-` needs a number, not the {lit} literal {_literal_text(e.operand)}",
                                 e.operand.span)
            self.expr(e.operand)
        elif isinstance(e, ast.Not):
            self.expr(e.operand)
        elif isinstance(e, ast.Is):
            self.expr(e.obj)
            if e.tag not in self.c.tags:
                self.diags.error("E-unknown-tag", f"unknown tag '{e.tag}'", _tail_span(e.span, e.tag),
                                 hint=did_you_mean(e.tag, self.c.tags) or "`is` tests a declared terrain, edge, "
                                 "feature, marker, class, unit type, side or result, or a flag property")
        elif isinstance(e, ast.In):
            self.expr(e.item)
            self.expr(e.collection)
            self.membership(e.item, e.collection)
        elif isinstance(e, ast.Cond):
            self.cond(e.test)
            self.expr(e.then)
            self.expr(e.orelse)
        elif isinstance(e, ast.ListLit):
            for item in e.items:
                self.expr(item)
        # literals and rolls have nothing to check

    def name(self, e: ast.Name) -> None:
        if self.defined(e.id):
            return
        if e.id in stdlib.BUILTINS:
            self.diags.error("E-undefined", f"'{e.id}' is a built-in function, not a value", e.span,
                             hint=f"call it: {e.id}(...)")
            return
        if self.free is not None:
            self.free.setdefault(e.id, e.span)
            return
        self.diags.error("E-undefined", f"unknown name '{e.id}'", e.span,
                         hint=did_you_mean(e.id, set(self.locals) | self.c.globals))

    def attr_name(self, e: ast.Attr) -> None:
        """`u.X` for a unit parameter and `terrain(h).X`: X must be a property somewhere."""
        obj = e.obj
        if isinstance(obj, ast.Name) and obj.id in self.locals and self.locals[obj.id] == "unit":
            if e.name not in self.c.unit_props:
                self.diags.error("E-unknown-property", f"units have no property '{e.name}'", _tail_span(e.span, e.name),
                                 hint=did_you_mean(e.name, self.c.unit_props)
                                 or "unit properties are the built-in fields, unit type properties and unit_vars")
        elif isinstance(obj, ast.Call) and obj.func == "terrain":
            if e.name not in self.c.terrain_props:
                self.diags.error("E-unknown-property", f"no terrain has a property '{e.name}'",
                                 _tail_span(e.span, e.name), hint=did_you_mean(e.name, self.c.terrain_props))

    def call(self, call: ast.Call, statement: bool) -> None:
        func = call.func
        n_args = len(call.args) + len(call.kwargs)
        builtin = stdlib.BUILTINS.get(func)
        decl = self.game.names.get(func)
        if builtin is not None:
            lo, hi = builtin.min_args, builtin.max_args
            if n_args < lo or (hi is not None and n_args > hi):
                self.arity(call, f"'{func}'", lo, hi, n_args)
            if builtin.effect and not statement:
                self.diags.error("E-effect-in-expression", f"'{func}' changes the game state, so it can only be "
                                 "used as a statement", call.span, hint="call it on a line of its own")
            self.special_builtin(call)
        elif isinstance(decl, (ast.Quantity, ast.Function, ast.Procedure)):
            n = len(decl.params)
            if n_args != n:
                self.arity(call, f"{_kind(decl)} '{func}'", n, n, n_args)
            elif self.c._passed is not None:
                self.c.passed(decl, call, self)
            if isinstance(decl, ast.Procedure) and not statement:
                self.diags.error("E-effect-in-expression", f"procedure '{func}' can only be called as a statement",
                                 call.span, hint="procedures change the game state; use a function for a value")
            if not isinstance(decl, ast.Procedure) and statement:
                self.diags.error("E-not-a-statement", f"{_kind(decl)} '{func}' computes a value, which is "
                                 "thrown away here", call.span, hint=f"use it: let x = {func}(...)")
        elif decl is not None:
            self.diags.error("E-undefined", f"'{func}' is a {_kind(decl)}, not a function", call.span,
                             hint=did_you_mean(func, self.c.callables))
        else:
            self.diags.error("E-undefined", f"unknown function '{func}'", call.span,
                             hint=did_you_mean(func, self.c.callables))
        typed = _typed_args(call, builtin, decl)
        self.location_args(call, builtin, decl, typed)
        self.table_args(call, typed)
        args = call.args
        if func == "emit" and args and isinstance(args[0], ast.Name) and args[0].id not in self.locals:
            self.c.emitted.setdefault(args[0].id, args[0])  # an event name, checked in _check_events
            args = args[1:]
        for a in args:
            self.expr(a)
        for a in call.kwargs.values():
            self.expr(a)

    def location_args(self, call: ast.Call, builtin, decl, typed: list) -> None:
        """The arguments a call passes to a `location` parameter, a built-in's or a rule's
        (`adjacent("0606")`, `attack_strength(u, "0606")`), or to a built-in's list of locations
        (`traceable(m, h, ["0606"], s)`); `contains(xs, x)` is `x in xs`. `place` is checked on
        its own (_place)."""
        if call.func == "contains" and builtin is not None and len(call.args) == 2:
            self.membership(call.args[1], call.args[0])
        for name, type_, arg in typed:
            if type_ == "location" and call.func != "place":
                self.c.expect_location(arg, f"the `{name}` of {call.func}()")
            elif (builtin is not None and name in builtin.location_lists) or (
                    builtin is None and type_ == "list" and self.c.location_list_param(decl, name)):
                self.expect_locations(arg, f"in the `{name}` of {call.func}()")

    def table_args(self, call: ast.Call, typed: list) -> None:
        """An argument passed to a `table` parameter (`rolls(crt)`, `allowed(crt, c)`) must name a
        declared table: a name declared as something else, a literal or a local of another known
        type is an error here, not a stop in the middle of a game."""
        given = [(name, arg) for name, type_, arg in typed if type_ == "table"]
        if not given:
            return
        tables = [t.name for t in self.game.tables]
        for name, arg in given:
            what = None
            if isinstance(arg, ast.Name):
                if arg.id in self.locals:
                    known = self.locals[arg.id]
                    what = f"the local '{arg.id}', a {known}" if known not in (None, "table", "any") else None
                else:
                    found = self.game.names.get(arg.id)
                    what = f"'{arg.id}', a {_kind(found)}" if found is not None and not isinstance(found, ast.Table) else None
                    if call.func == "rolls" and isinstance(found, ast.Table) and (found.rows is None or found.rows.kind != "roll"):
                        self.diags.error("E-type", f"rolls(): the rows of table '{arg.id}' are not a die roll", arg.span,
                                         hint=f"rolls() reads a `rows roll d6: 1..6` line; rows({arg.id}) gives its printed rows")
                hint = did_you_mean(arg.id, tables)
            else:
                known = _literal_type(arg) or self.value_type(arg)
                what = f"{'an' if known and known[0] in 'aeiou' else 'a'} {known}" if known not in (None, "table", "any") else None
                hint = None
            if what is not None:
                self.diags.error("E-type", f"the `{name}` of {call.func}() must be a table, not {what}", arg.span,
                                 hint=hint or (f"the tables: {', '.join(tables)}" if 0 < len(tables) <= 8
                                               else None if tables else "declare one with `table NAME { ... }`"))

    # ------------------------------------------------------------ string literals used as locations
    def expect_locations(self, e: ast.Expr | None, doing: str, seen: frozenset = frozenset(),
                         scoped: bool = True) -> None:
        """`e` is used where a list of locations is expected: each string literal it is made of
        must name one (_Checker.expect_location). A list literal, either branch of `if`, both
        sides of `+`, `list(...)`, what a local's `let` or a global list's default holds, and
        the body of a function returning it (`vp_hexes()`: a list of hex ids), followed once
        each (`seen`); inside a function's body (`scoped` False) a name is not this body's."""
        if isinstance(e, ast.ListLit):
            for item in e.items:
                self.c.expect_location(item, doing)
        elif isinstance(e, ast.Cond):
            self.expect_locations(e.then, doing, seen, scoped)
            self.expect_locations(e.orelse, doing, seen, scoped)
        elif isinstance(e, ast.BinOp) and e.op == "+":
            self.expect_locations(e.left, doing, seen, scoped)
            self.expect_locations(e.right, doing, seen, scoped)
        elif isinstance(e, ast.Call) and e.func == "list" and len(e.args) == 1:
            self.expect_locations(e.args[0], doing, seen, scoped)
        elif isinstance(e, ast.Call) and e.func not in seen and e.func not in stdlib.BUILTINS:
            decl = self.game.names.get(e.func)
            if isinstance(decl, ast.Function):  # its parameters are no global name
                self.expect_locations(decl.body, doing, seen | {e.func} | {p.name for p in decl.params}, scoped=False)
        elif isinstance(e, ast.Name) and e.id not in seen:
            if scoped and e.id in self.locals:
                self.expect_locations(self.held.get(e.id), doing, seen | {e.id}, scoped)
            else:
                decl = self.game.names.get(e.id)
                if isinstance(decl, ast.VarDecl) and decl.scope == "var":
                    self.expect_locations(decl.default, doing, seen | {e.id}, scoped=False)

    def membership(self, item: ast.Expr, collection: ast.Expr) -> None:
        """`item in collection`: a location looked for in a list makes it a list of locations, and
        what is looked for in a list of locations is one (`"26.08" in supply_region(g)`)."""
        if self.value_type(item) == "location":
            self.expect_locations(collection, "in a list a location is looked for in")
        elif self.elements(collection) == "location":
            self.c.expect_location(item, "looked for in a list of locations")

    def table_lookup(self, e: ast.Index) -> None:
        """`table[column, row]` (`table[row]` for a table of rows only): a location looked up
        makes that axis's keys locations."""
        table = self.game.names.get(e.obj.id) if isinstance(e.obj, ast.Name) and e.obj.id not in self.locals else None
        if not isinstance(table, ast.Table):
            return
        axes = ("column", "row") if table.columns is not None else ("row",)
        for axis, arg in zip(axes, e.args):
            if self.value_type(arg) == "location":
                self.c.table_keys_are_locations(table, axis)

    def locate_set(self, name: str, value: ast.Expr) -> None:
        """`set h = "0606"` of a local: the value is a location when the local is a `location`
        parameter, or when what runs after the `set` uses the local as one: the rest of each
        enclosing block and, inside a loop, its whole body (the next pass), as for a `let`
        (`locate`). A local the rules used as a location before may hold a label afterwards."""
        if self.declared.get(name) == "location":
            self.c.expect_location(value, f"the value set to '{name}', a location parameter")
            return
        scope = [*self.loops, *(stmts[i:] for stmts, i in reversed(self.after))]
        typed, self.locals[name] = self.locals.get(name), None  # what it held before does not type this value
        self.locate(name, value, scope, each=False, doing=f"the value set to '{name}', used as a location")
        if self.locals[name] is None:
            self.locals[name] = typed

    def locate(self, var: str, source: ast.Expr, scope: list, each: bool, doing: str | None = None) -> None:
        """A local of unknown type (`for h in vp_hexes()`, `let h = "0606"`, `choose h from
        [...]`) that its scope uses as a location is one: its loop's list is a list of
        locations (each=True), or its value is a location; and the local is typed a location
        for what follows (a table looked up by it, a comparison). An inner loop's variable of
        the same name is another local (`used_as_location`)."""
        if self.locals.get(var) is not None:
            return
        kept, self.c.loc_literals = self.c.loc_literals, []
        try:  # the literals the source holds, if any: most hold none, and then the scope is not read
            if each:
                self.expect_locations(source, f"in a list whose elements, '{var}', are used as locations")
            else:
                self.c.expect_location(source, doing or f"the value of '{var}', used as a location")
        finally:
            found, self.c.loc_literals = self.c.loc_literals, kept
        use = self.used_as_location(var, scope) if found else None
        if use is not None:
            self.c.loc_literals.extend(found)
            if use == "variable":  # like `"0606".controller`: fine off a test's partial board
                self.c.loc_var_literals.update(id(lit) for lit, _ in found)
            self.locals[var] = "location"

    def used_as_location(self, var: str, scope: list) -> str | None:
        """How `scope` uses the local `var` as a location: "location" when it passes it to a
        `location` parameter (`adjacent(h)`), else "variable" when it only reads or sets its
        location variables (`h.controller`), compares it with a location (`h == u.loc`) or looks
        for it in a list of locations (`h in adjacent(x)`): nothing there stops on a location a
        test's partial board leaves out; else None. A use of an inner loop's variable of the
        same name, or after `var` is given another value, is not a use of this one
        (`_binding_nodes`)."""
        def is_it(e) -> bool:
            return isinstance(e, ast.Name) and e.id == var

        use = None
        for n in _binding_nodes(var, scope):
            if isinstance(n, ast.Attr) and is_it(n.obj) and self.c.is_location_var(n.name):
                use = "variable"
            elif isinstance(n, ast.Compare) and n.op in ("==", "!=") and any(
                    is_it(one) and self.value_type(other) == "location" for one, other in ((n.left, n.right), (n.right, n.left))):
                use = "variable"
            elif isinstance(n, ast.In) and is_it(n.item) and self.elements(n.collection) == "location":
                use = "variable"
            elif isinstance(n, ast.Call) and any(type_ == "location" and isinstance(arg, ast.Name) and arg.id == var
                                                 for _, type_, arg in _typed_args(n, stdlib.BUILTINS.get(n.func),
                                                                                  self.game.names.get(n.func))):
                return "location"
        return use

    def special_builtin(self, call: ast.Call) -> None:
        if call.func == "place":
            self.c.place_calls.append(call)
            if len(call.args) >= 3:
                self.c.expect_location(call.args[2], "placing a unit", on_board=True)
        elif call.func == "loc":
            if call.args:
                self.c.expect_location(call.args[0], "the `id` of loc()", on_board=True)
        elif call.func in ("pile", "move_card"):
            self.c.pile_calls.append(call)
        if call.func in CARD_DESTINATIONS:
            self.c.card_moves.append(call)

    def arity(self, call: ast.Call, what: str, lo: int, hi: int | None, given: int) -> None:
        self.diags.error("E-arity", f"{what} takes {_arity_text(lo, hi)}, but {given} "
                         f"{'is' if given == 1 else 'are'} given", call.span)

    def comprehension(self, e: ast.Comprehension) -> None:
        builtin = stdlib.BUILTINS.get(e.func)
        if builtin is None:
            self.diags.error("E-undefined", f"unknown function '{e.func}'", e.span,
                             hint=did_you_mean(e.func, stdlib.BUILTINS))
        elif builtin.effect:
            self.diags.error("E-effect-in-expression", f"'{e.func}' changes the game state, so it can only be "
                             "used as a statement", e.span)
        self.expr(e.source)
        # The variable is visible inside the comprehension only.
        saved = self.locals, self.lists, self.held
        self.locals, self.lists, self.held = dict(saved[0]), dict(saved[1]), dict(saved[2])
        self.bind_element(e.var, e.source)
        self.locate(e.var, e.source, [e.element, e.where], each=True)
        self.expr(e.element)
        if e.where is not None:
            self.cond(e.where)
        self.locals, self.lists, self.held = saved
