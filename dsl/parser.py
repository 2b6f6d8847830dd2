"""Parse .wcx text into the AST (`warcodex.dsl.ast`).

The grammar lives in `warcodex.lark` (LALR(1), contextual lexer). Syntax errors become located
diagnostics that say what was expected in words, never a Lark traceback.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction
from importlib import resources

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from warcodex.collector import cycle_collection_paused
from warcodex.dsl import ast
from warcodex.dsl.limits import MAX_DIGITS, MAX_NESTING
from warcodex.dsl.diagnostics import Diagnostic, DiagnosticError, Severity, Span, remember_source


@functools.lru_cache(maxsize=1)
def grammar_parser() -> Lark:
    from warcodex.dsl.cache import lark_cache_file

    text = resources.files("warcodex.dsl").joinpath("warcodex.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr", propagate_positions=True, maybe_placeholders=False,
                cache=lark_cache_file("rules", text))


_NUMBER_TOKENS = frozenset({"INT", "SIGNED_INT", "DECIMAL", "ODDS", "DICE"})


def _check_limits(tree: Tree, path: str) -> None:
    """Refuse, at its location, a construct nested deeper than MAX_NESTING or a number of more
    than MAX_DIGITS digits (iteratively: the tree may be deeper than Python's recursion limit)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Token):
            if node.type in _NUMBER_TOKENS and max(len(run) for run in re.findall(r"[0-9]+", str(node)) or [""]) > MAX_DIGITS:
                raise DiagnosticError([Diagnostic(
                    Severity.ERROR, "E-number", f"a number of more than {MAX_DIGITS} digits", _tok_span(path, node),
                    "no rule needs numbers this large; check for a typo")])
            continue
        if depth > MAX_NESTING:
            span = _span(path, node.meta) or Span(path, 1, 1)
            raise DiagnosticError([Diagnostic(
                Severity.ERROR, "E-nesting", f"the rules nest more than {MAX_NESTING} levels deep here", span,
                "split the expression: name a part with `let`, or write a function")])
        stack.extend((child, depth + 1) for child in node.children)


def parse_text(text: str, path: str = "<text>") -> ast.Module:
    """Parse one file's text. Raises DiagnosticError (with a located syntax error) on bad input."""
    return parse_with_tree(text, path)[1]


def parse_with_tree(text: str, path: str = "<text>") -> tuple[Tree, ast.Module]:
    """Parse one file's text into Lark's parse tree and the AST built from it.

    The tree keeps every name token with its grammar rule, which the AST does not (the language
    server classifies names by it). Raises DiagnosticError like `parse_text`."""
    # (building a parse tree and its AST allocates millions of objects and frees none: time
    # quadratic in the file's size with the collector on)
    with cycle_collection_paused():
        return _parse(text, path)


def _parse(text: str, path: str) -> tuple[Tree, ast.Module]:
    remember_source(path, text)
    try:
        tree = grammar_parser().parse(text)
    except UnexpectedInput as exc:
        raise DiagnosticError([_syntax_diagnostic(exc, text, path)]) from None
    _check_limits(tree, path)
    try:
        return tree, _ToAst(path).transform(tree)
    except VisitError as exc:  # a malformed construct found while building the AST
        orig = exc.orig_exc
        if isinstance(orig, _BadInput):
            w = orig.where
            if isinstance(w, Token):
                span = Span(path, w.line, w.column, w.end_line, w.end_column)
            elif w is None:
                span = Span(path, 1, 1)
            else:
                span = _span(path, w) or Span(path, 1, 1)
            raise DiagnosticError([Diagnostic(Severity.ERROR, orig.code, orig.message, span, orig.hint)]) from None
        if isinstance(orig, DiagnosticError):
            raise orig from None
        raise


# ---------------------------------------------------------------- syntax errors
_TERMINAL_WORDS = {
    "NAME": "a name", "STRING": "a quoted string", "INT": "a whole number", "SECTION": "a section like §8.4",
    "ODDS": "odds like 3:1", "DICE": "dice like 2d6", "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('",
    "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COLON": "':'", "COMMA": "','", "EQUAL": "'='",
    "SIGNED_INT": "a signed number", "DECIMAL": "a decimal number", "VBAR": "'|'", "SLASH": "'/'",
    "PROVENANCE": "a provenance (provisional, rulebook, player_aid)", "$END": "end of file",
    "MOD_OP": "a modifier operation (+, -, *, /, =, at_most, at_least)", "ASSIGN_OP": "'=', '+=' or '-='",
    "COMP_OP": "a comparison (==, !=, <, <=, >, >=)", "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/' or '%'",
    "MAP_TEXT": "a map in braces: map NAME { ... }", "WS": "a blank", "COMMENT": "a comment",
}


def _describe(expected: set[str]) -> str:
    words = []
    for term in sorted(expected):
        if term in _TERMINAL_WORDS:
            words.append(_TERMINAL_WORDS[term])
        elif term.isupper() and term.startswith("__ANON"):
            continue
        elif term.isupper():
            pattern = grammar_parser().get_terminal(term).pattern
            value = getattr(pattern, "value", None)
            alternatives = re.match(r"\(([A-Za-z_|]+)\)\(\?!", value) if isinstance(value, str) else None
            if isinstance(value, str) and pattern.type == "str":
                words.append(f"'{value}'")
            elif alternatives:  # a keyword family (above|below|from|upto): its words, never the terminal's name
                words.extend(f"'{w}'" for w in alternatives.group(1).split("|"))
            else:
                words.append(term.lower().replace("_", " "))
        else:
            words.append(term)
    words = sorted(set(words))
    if len(words) > 8:
        words = words[:8] + ["..."]
    return ", ".join(words)


def _syntax_diagnostic(exc: UnexpectedInput, text: str, path: str) -> Diagnostic:
    line = getattr(exc, "line", None) or 1
    column = getattr(exc, "column", None) or 1
    hint = None
    if isinstance(exc, UnexpectedToken):
        token = exc.token
        if token.type == "$END":
            message = "unexpected end of file"
            lines = text.splitlines() or [""]
            line, column = len(lines), len(lines[-1]) + 1
            end = column + 1
            opened = _unclosed_brace(text)
            if opened is not None:
                return Diagnostic(Severity.ERROR, "E-syntax", message, Span(path, line, column, line, end),
                                  f"missing '}}' for the block opened at line {opened}")
        else:
            message = f"unexpected {token.type.lower() if token.type in _TERMINAL_WORDS else repr(str(token))}"
            end = column + max(1, len(str(token)))
        hint = f"expected {_describe(set(exc.expected))}"
    elif isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else "?"
        message = f"unexpected character {ch!r}"
        end = column + 1
        if ch == "'":
            hint = 'strings use double quotes: "like this"'
        elif exc.allowed:
            hint = f"expected {_describe(set(exc.allowed))}"
    elif isinstance(exc, UnexpectedEOF):
        message = "unexpected end of file"
        end = column + 1
        hint = f"expected {_describe(set(exc.expected))}"
    else:  # pragma: no cover - Lark has no other kinds today
        message = str(exc).splitlines()[0]
        end = column + 1
    return Diagnostic(Severity.ERROR, "E-syntax", message, Span(path, line, column, line, end), hint)


def _unclosed_brace(text: str) -> int | None:
    """The line of the innermost '{' never closed (outside strings and comments), if any."""
    stack: list[int] = []
    line, i, n = 1, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
        elif ch == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif ch == '"':
            i += 1
            while i < n and text[i] not in '"\n':
                i += 2 if text[i] == "\\" else 1
        elif ch == "{":
            stack.append(line)
        elif ch == "}" and stack:
            stack.pop()
        i += 1
    return stack[-1] if stack else None


# ---------------------------------------------------------------- tree -> AST
def _span(path: str, meta) -> Span | None:
    if getattr(meta, "empty", True):
        return None
    return Span(path, meta.line, meta.column, meta.end_line, meta.end_column)


def _tok_span(path: str, tok: Token) -> Span:
    return Span(path, tok.line, tok.column, tok.end_line, tok.end_column)


_ESCAPES = {'"': '"', "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "0": "\0"}


class _BadInput(Exception):
    """A malformed construct found while building the AST; becomes a located diagnostic."""

    def __init__(self, code: str, message: str, tok_or_meta, hint: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.where, self.hint = code, message, tok_or_meta, hint


def _unquote(tok: Token) -> str:
    """The text of a string literal. Escapes: \\" \\\\ \\n \\t \\r \\0 and \\u followed by four hex digits."""
    body = str(tok)[1:-1]
    if "\\" not in body:
        return body
    out, i = [], 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1] if i + 1 < len(body) else ""
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt == "u" and len(body) >= i + 6 and all(c in "0123456789abcdefABCDEF" for c in body[i + 2:i + 6]):
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        else:
            raise _BadInput("E-syntax", f"unknown escape '\\{nxt}' in a string", tok,
                            'use \\" \\\\ \\n \\t, or \\u and four hex digits such as \\u0444')
    return "".join(out)


class _Meta:
    """Collected header metadata (citations, provenance, translations)."""

    def __init__(self) -> None:
        self.citations: list[str] = []
        self.provenance: ast.Provenance | None = None
        self.translations: dict[str, str] = {}


class _SpanMeta:
    """Adapts a Span to the (line, column) shape of Lark's meta, for _BadInput."""

    empty = False

    def __init__(self, span: Span) -> None:
        self.line, self.column, self.end_line, self.end_column = span.line, span.column, span.end_line, span.end_column


def _meta_of(span: Span | None):
    return _SpanMeta(span) if span is not None else None


def _positional(args, meta, where: str) -> list:
    """Arguments that must all be positional (named ones only make sense in calls)."""
    for a in args or []:
        if isinstance(a, tuple):
            raise _BadInput("E-syntax", f"a named value ('{a[0]}: ...') cannot be used in {where}", meta,
                            "only function calls take named arguments")
    return list(args or [])


class _Params(list):
    """Marks a parameter list among a rule's children."""


class _VarPer:
    """`per PROCEDURE` of a variable declaration, while parsing."""

    def __init__(self, name: str, span) -> None:
        self.name, self.span = name, span


class _TypeRef(str):
    """Marks a type annotation among a rule's children (labels are plain str)."""


class _Classes(list):
    """Marks a unit's class list among a rule's children."""


AXIS_KINDS = ("odds", "diff", "values", "roll")

# a MAP_TEXT token (warcodex.lark): `map NAME? "Label"? { body }`
_MAP_TEXT = re.compile(r'map(?:\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*))?(?:\s+(?P<label>"(?:[^"\\\n]|\\.)*"))?\s*\{(?P<body>.*)\}\Z',
                       re.S)


def _axis_kind(tok: Token, allowed: tuple[str, ...]) -> str:
    if str(tok) not in allowed:
        raise _BadInput("E-syntax", f"unknown kind of axis '{tok}'", tok, f"use one of: {', '.join(allowed)}")
    return str(tok)


@functools.lru_cache(maxsize=1)
def _rule_methods() -> tuple[str, ...]:
    """The names of _ToAst's methods that Lark calls with `v_args` (one per grammar rule)."""
    return tuple(name for klass in _ToAst.__mro__ for name, attr in vars(klass).items()
                 if hasattr(attr, "visit_wrapper"))


def _parse_dice(tok: Token) -> ast.Dice:
    count, sides = str(tok).split("d")
    return ast.Dice(count=int(count) if count else 1, sides=int(sides))


@v_args(meta=True, inline=True)
class _ToAst(Transformer):
    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        # Lark's `v_args` wrapper makes a new wrapper (functools.update_wrapper) at every lookup
        # of a rule's method, that is for every node of the tree: looked up once per file here,
        # the per-node cost goes (about a tenth of a large file's parse, bench/scale.py)
        for name in _rule_methods():
            self.__dict__[name] = getattr(self, name)

    def sp(self, meta) -> Span | None:
        return _span(self.path, meta)

    # -- header pieces
    def citation(self, meta, tok):
        return ("citation", str(tok)[1:])

    def provenance(self, meta, kind, note=None):
        return ("provenance", ast.Provenance(kind=str(kind), note=_unquote(note) if note else None, span=self.sp(meta)))

    def translation(self, meta, lang, text):
        return (str(lang), _unquote(text))

    def translations(self, meta, *pairs):
        return ("translations", dict(pairs))

    def meta(self, meta, *items):
        m = _Meta()
        for kind, value in items:
            if kind == "citation":
                m.citations.append(value)
            elif kind == "provenance":
                m.provenance = value
            else:
                m.translations.update(value)
        return m

    cmeta = meta

    def label(self, meta, tok=None):
        return _unquote(tok) if tok is not None else None

    def header(self, meta, name: Token, label, m: _Meta) -> ast.Header:
        return ast.Header(
            name=str(name), label=label, translations=m.translations, citations=m.citations,
            provenance=m.provenance, span=_tok_span(self.path, name),
        )

    # -- file structure
    def start(self, meta, *items):
        module = ast.Module(path=self.path, span=self.sp(meta))
        for item in items:
            if isinstance(item, ast.Include):
                module.includes.append(item)
            else:
                module.decls.append(item)
        return module

    def include(self, meta, path):
        return ast.Include(path=_unquote(path), span=self.sp(meta))

    def override(self, meta, decl):
        decl.override = True
        return decl

    # -- props
    def prop_key(self, meta, tok):
        return tok

    def prop(self, meta, key, value, m):
        return ast.Prop(key=str(key), value=value, citations=m.citations, provenance=m.provenance, span=_tok_span(self.path, key))

    def deck_prop(self, meta, key, value, m):
        return self.prop(meta, key, value, m)

    def flag(self, meta, key, m):
        return ast.Prop(key=str(key), value=None, citations=m.citations, provenance=m.provenance, span=_tok_span(self.path, key))

    def props(self, meta, *items):
        return list(items)

    # -- declarations
    def game(self, meta, name, label, m, props):
        return ast.Game(header=self.header(meta, name, label, m), props=props, span=self.sp(meta))

    def section_entry(self, meta, sec, title, status=None, note=None):
        return ast.SectionEntry(number=str(sec)[1:], title=_unquote(title), status=str(status) if status else None,
                                note=_unquote(note) if note else None, span=self.sp(meta))

    def sections(self, meta, *entries):
        return ast.Sections(header=ast.Header(name="sections"), entries=list(entries), span=self.sp(meta))

    def entity(self, meta, kind, name, label, m, props=None):
        return ast.Entity(kind=str(kind), header=self.header(meta, name, label, m), props=props or [], span=self.sp(meta))

    def classes(self, meta, *names):
        return _Classes(str(n) for n in names)

    def step_values(self, meta, steps, props):
        return ast.StepValues(steps=int(steps), props=props, span=self.sp(meta))

    def unit_body(self, meta, *items):
        return list(items)

    def unit(self, meta, name, label, *rest):
        classes: list[str] = []
        body: list = []
        m = _Meta()
        metas = []
        for r in rest:
            if isinstance(r, _Classes):
                classes = list(r)
            elif isinstance(r, tuple):
                metas.append(r)
            elif isinstance(r, list):
                body = r
        m = self.meta(meta, *metas)
        return ast.Unit(
            header=self.header(meta, name, label, m), classes=classes,
            props=[b for b in body if isinstance(b, ast.Prop)],
            step_values=[b for b in body if isinstance(b, ast.StepValues)], span=self.sp(meta),
        )

    def type_ref(self, meta, name):
        return _TypeRef(str(name))

    def var_decl(self, meta, scope, name, type_ref, *rest):
        default = None
        hidden = bookkeeping = False
        per = None
        m = _Meta()
        for r in rest:
            if isinstance(r, _Meta):
                m = r
            elif isinstance(r, Token) and r.type == "HIDDEN":
                hidden = True
            elif isinstance(r, Token) and r.type == "BOOKKEEPING":
                bookkeeping = True
            elif isinstance(r, _VarPer):
                per = r
            else:
                default = r
        return ast.VarDecl(scope=str(scope), type=str(type_ref), default=default, hidden=hidden,
                           per=per.name if per else None, per_span=per.span if per else None,
                           bookkeeping=bookkeeping, header=self.header(meta, name, None, m), span=self.sp(meta))

    def var_per(self, meta, _per, name):
        return _VarPer(str(name), self.sp(meta))

    # -- tables
    def key_int(self, meta, tok):
        return ast.Key(kind="int", low=int(tok), high=int(tok), span=self.sp(meta))

    def key_range(self, meta, lo, hi):
        return ast.Key(kind="range", low=int(lo), high=int(hi), span=self.sp(meta))

    def key_odds(self, meta, tok):
        a, d = str(tok).split(":")
        return ast.Key(kind="odds", attack=int(a), defense=int(d), span=self.sp(meta))

    def key_name(self, meta, tok):
        name = _unquote(tok) if tok.type == "STRING" else str(tok)
        return ast.Key(kind="name", name=name, span=self.sp(meta))

    def code(self, meta, name, args=None):
        return ast.Code(name=str(name), args=_positional(args, meta, "a result code"), span=self.sp(meta))

    def int_code(self, meta, tok):
        return ast.Code(name=str(tok), number=int(tok), span=self.sp(meta))

    def cell(self, meta, *codes):
        return ast.Cell(codes=list(codes), span=self.sp(meta))

    def empty_cell(self, meta):
        return ast.Cell(codes=[], span=self.sp(meta))

    def columns(self, meta, *items):
        kind = "values"
        keys = list(items)
        if keys and isinstance(keys[0], Token):
            tok = keys.pop(0)
            kind = _axis_kind(tok, AXIS_KINDS)
        return ("columns", ast.Axis(kind=kind, keys=keys, span=self.sp(meta)))

    def rows(self, meta, *items):
        items = list(items)
        kind, dice, clamp = "values", None, False
        while items and isinstance(items[0], Token) and items[0].type != "CLAMP":
            tok = items.pop(0)
            if tok.type == "DICE":
                dice = _parse_dice(tok)
            else:
                kind = _axis_kind(tok, AXIS_KINDS)
        if items and isinstance(items[-1], Token) and items[-1].type == "CLAMP":
            clamp = True
            items.pop()
        return ("rows", ast.Axis(kind="roll" if dice or kind == "roll" else kind, dice=dice, keys=items, clamp=clamp, span=self.sp(meta)))

    def beyond_use(self, meta, direction, key, use, m):
        return ast.Beyond(direction=str(direction), key=key, action="use", use=use, citations=m.citations, span=self.sp(meta))

    def beyond_result(self, meta, direction, key, cell, *rest):
        msg = next((_unquote(r) for r in rest if isinstance(r, Token)), None)
        m = next(r for r in rest if isinstance(r, _Meta))
        return ast.Beyond(direction=str(direction), key=key, action="result", cell=cell, message=msg, citations=m.citations, span=self.sp(meta))

    def beyond_illegal(self, meta, direction, key, *rest):
        msg = next((_unquote(r) for r in rest if isinstance(r, Token)), None)
        m = next(r for r in rest if isinstance(r, _Meta))
        return ast.Beyond(direction=str(direction), key=key, action="illegal", message=msg, citations=m.citations, span=self.sp(meta))

    def beyond(self, meta, *rules):
        return ("beyond", list(rules))

    def row(self, meta, key, *cells):
        return ("row", ast.Row(key=key, cells=list(cells), span=self.sp(meta)))

    def table_prop(self, meta, key, value):
        return ("prop", ast.Prop(key=str(key), value=value, span=_tok_span(self.path, key)))

    def table(self, meta, name, label, m, *items):
        t = ast.Table(header=self.header(meta, name, label, m), span=self.sp(meta))
        for kind, value in items:
            if kind in ("columns", "rows") and getattr(t, kind) is not None:
                raise _BadInput("E-duplicate", f"table {t.name} declares its {kind} twice", value.span and _meta_of(value.span),
                                f"keep one `{kind}` line")
            if kind == "columns":
                t.columns = value
            elif kind == "rows":
                t.rows = value
            elif kind == "beyond":
                t.beyond.extend(value)
            elif kind == "row":
                t.table_rows.append(value)
            else:
                t.props.append(value)
        return t

    def result(self, meta, name, *rest):
        params, label, m, body = [], None, _Meta(), []
        rest = list(rest)
        if rest and isinstance(rest[0], _Params):
            params = list(rest.pop(0))
        label = rest.pop(0)
        m = rest.pop(0)
        if rest:
            body = rest.pop(0)
        return ast.Result(header=self.header(meta, name, label, m), params=params, body=body, span=self.sp(meta))

    # -- quantities and functions
    def param(self, meta, name, type_ref):
        return ast.Param(name=str(name), type=str(type_ref), span=self.sp(meta))

    def params(self, meta, *ps):
        return _Params(p for p in ps if p is not None)

    def base(self, meta, expr, m):
        return ("base", expr, m)

    def rounding(self, meta, tok):
        return ("rounding", str(tok))

    def condition(self, meta, expr):
        return ("when", expr)

    def group(self, meta, name):
        return ("group", str(name))

    def modifier(self, meta, *items):
        items = list(items)
        label = None
        if items[0].type == "STRING":
            label = _unquote(items.pop(0))
        op = str(items.pop(0))
        value = items.pop(0)
        mod = ast.Modifier(label=label, op=op, value=value, span=self.sp(meta))
        for item in items:
            if isinstance(item, _Meta):
                mod.citations = item.citations
                mod.provenance = item.provenance
            elif item[0] == "rounding":
                mod.rounding = item[1]
            elif item[0] == "when":
                mod.when = item[1]
            elif item[0] == "group":
                mod.group = item[1]
        return ("modifier", mod)

    def order(self, meta, *names):
        return ("order", [str(n) for n in names])

    def quantity(self, meta, name, params, *rest):
        rest = list(rest)
        qtype = str(rest.pop(0)) if isinstance(rest[0], _TypeRef) else None
        label = rest.pop(0)
        m = rest.pop(0)
        q = ast.Quantity(header=self.header(meta, name, label, m), params=params, type=qtype, span=self.sp(meta))
        for item in rest:
            if item[0] == "base" and q.base is not None:
                raise _BadInput("E-duplicate", f"quantity {q.name} has two `base` lines", _meta_of(item[1].span),
                                "a quantity has one base; use modifiers for the rest")
            if item[0] == "base":
                q.base = item[1]
                q.base_citations = item[2].citations
            elif item[0] == "modifier":
                q.modifiers.append(item[1])
            elif item[0] == "order":
                q.order = item[1]
        return q

    def function(self, meta, name, params, *rest):
        rest = list(rest)
        ftype = str(rest.pop(0)) if isinstance(rest[0], _TypeRef) else None
        label, m, body = rest
        return ast.Function(header=self.header(meta, name, label, m), params=params, type=ftype, body=body, span=self.sp(meta))

    # -- movement, actions, procedures, triggers
    def movement(self, meta, name, label, m, props):
        return ast.Movement(header=self.header(meta, name, label, m), props=props, span=self.sp(meta))

    def where(self, meta, expr):
        return ("where", expr)

    def otherwise(self, meta, expr):
        return ("otherwise", expr)

    def size(self, meta, lo, hi=None):
        return ("size", int(lo), int(hi) if hi is not None else None)

    def action_param(self, meta, name, *rest):
        p = ast.ActionParam(name=str(name), source=ast.NoneLit(), span=self.sp(meta))
        for item in rest:
            if isinstance(item, Token) and item.type == "PARAM_KIND":
                p.subset = True
            elif isinstance(item, _Meta):
                p.citations = item.citations
            elif isinstance(item, tuple) and item[0] == "where":
                p.where = item[1]
            elif isinstance(item, tuple) and item[0] == "otherwise":
                c.otherwise = item[1]
            elif isinstance(item, tuple) and item[0] == "size":
                p.min, p.max = item[1], item[2]
            elif isinstance(item, ast.Expr):
                p.source = item
        return ("param", p)

    def require_stmt(self, meta, test, *rest):
        msg = next((_unquote(r) for r in rest if isinstance(r, Token)), None)
        m = next(r for r in rest if isinstance(r, _Meta))
        return ast.Require(test=test, message=msg, citations=m.citations, span=self.sp(meta))

    def do_clause(self, meta, block):
        return ast.Do(body=block, span=self.sp(meta))

    def action_prop(self, meta, key, value, m):
        return ("prop", ast.Prop(key=str(key), value=value, citations=m.citations, span=_tok_span(self.path, key)))

    def action(self, meta, name, label, m, *items):
        a = ast.Action(header=self.header(meta, name, label, m), span=self.sp(meta))
        for item in items:
            if isinstance(item, ast.Require):
                a.requires.append(item)
            elif isinstance(item, ast.Do):
                a.body.extend(item.body)
            elif item[0] == "param":
                a.params.append(item[1])
            else:
                a.props.append(item[1])
        return a

    def procedure(self, meta, name, *rest):
        rest = list(rest)
        params = list(rest.pop(0)) if isinstance(rest[0], _Params) else []
        label, m, body = rest
        return ast.Procedure(header=self.header(meta, name, label, m), params=params, body=body, span=self.sp(meta))

    def trigger(self, meta, event, *rest):
        rest = list(rest)
        params = list(rest.pop(0)) if isinstance(rest[0], _Params) else []
        label = rest.pop(0)
        m = rest.pop(0)
        when = rest.pop(0) if len(rest) == 2 else None
        body = rest[0]
        return ast.Trigger(header=self.header(meta, event, label, m), params=params, when=when, body=body, span=self.sp(meta))

    # -- sequence
    def allow(self, meta, *items):
        tokens = [i for i in items if isinstance(i, Token)]
        names = [str(i) for i in tokens if i.type == "NAME"]
        limit = next((int(i) for i in tokens if i.type == "INT"), None)
        until = [i for i in items if isinstance(i, ast.Require)]
        return ast.Allow(actions=names, limit=limit, until=until, span=self.sp(meta))

    def allow_until(self, meta, test, *rest):
        return self.require_stmt(meta, test, *rest)

    def phase(self, meta, name, label, m, *items):
        items = list(items)
        when = items.pop(0) if items and isinstance(items[0], ast.Expr) else None
        return ast.Phase(header=self.header(meta, name, label, m), when=when, items=items, span=self.sp(meta))

    def player_turns(self, meta, sides, label, m, *items):
        return ast.PlayerTurns(sides=sides, label=label, citations=m.citations, items=list(items), span=self.sp(meta))

    def player_turn(self, meta, side, label, m, *items):
        return ast.PlayerTurn(side=side, label=label, citations=m.citations, items=list(items), span=self.sp(meta))

    def repeat(self, meta, label, m, test, *items):
        return ast.Repeat(test=test, label=label, citations=m.citations, items=list(items), span=self.sp(meta))

    def turn_loop(self, meta, label, m, *items):
        return ast.TurnLoop(label=label, citations=m.citations, items=list(items), span=self.sp(meta))

    def sequence(self, meta, label, m, *items):
        header = ast.Header(name="sequence", label=label, citations=m.citations, span=self.sp(meta))
        return ast.Sequence(header=header, items=list(items), span=self.sp(meta))

    # -- scenarios, invariants, decks
    def setup(self, meta, block):
        return ("setup", block)

    def scenario(self, meta, name, label, m, *items):
        s = ast.Scenario(header=self.header(meta, name, label, m), span=self.sp(meta))
        for item in items:
            if isinstance(item, ast.Prop):
                s.props.append(item)
            elif isinstance(item, ast.Trigger):
                s.triggers.append(item)
            elif isinstance(item, ast.Decl):
                s.overrides.append(item)
            else:
                s.setup.extend(item[1])
        return s

    def invariant(self, meta, name, label, m, props):
        return ast.Invariant(header=self.header(meta, name, label, m), props=props, span=self.sp(meta))

    def term(self, meta, label, *items):
        items = list(items)
        m = items.pop()
        when = items.pop()[1] if items and isinstance(items[-1], tuple) and items[-1][0] == "when" else None
        weight, value = (items[0], items[1]) if len(items) == 2 else (None, items[0])
        return ast.Term(label=_unquote(label), weight=weight, value=value, when=when, citations=m.citations,
                        provenance=m.provenance, span=self.sp(meta))

    def evaluation(self, meta, name, params, label, m, *terms):
        return ast.Evaluation(header=self.header(meta, name, label, m), params=params, terms=list(terms),
                              span=self.sp(meta))

    def card(self, meta, name, label, m, props=None):
        return ast.Card(header=self.header(meta, name, label, m), props=props or [], span=self.sp(meta))

    def deck(self, meta, name, label, m, *items):
        return ast.Deck(header=self.header(meta, name, label, m), cards=[i for i in items if isinstance(i, ast.Card)],
                        props=[i for i in items if isinstance(i, ast.Prop)],
                        pile_decls=[i for i in items if isinstance(i, ast.PileDecl)], span=self.sp(meta))

    def pile_decl(self, meta, name, *rest):
        visibility = str(rest[0]) if len(rest) == 3 else None  # `pile "p" "Label"`: the default visibility
        label, m = rest[-2], rest[-1]
        return ast.PileDecl(name=_unquote(name), visibility=visibility, label=label, translations=m.translations,
                            citations=m.citations, provenance=m.provenance, span=_tok_span(self.path, name))

    # -- rule tests (tests/*.wcx)
    def _at(self, tok: Token, offset: int) -> tuple[int, int]:
        """The line and column of a character of a (multi-line) token."""
        before = str(tok)[:offset]
        line = tok.line + before.count("\n")
        return line, (offset - before.rfind("\n")) if "\n" in before else tok.column + offset

    def _map_text(self, tok: Token) -> tuple[str | None, str | None, str, Span, Span | None]:
        """Split a MAP_TEXT token into (name, label, body text, where the body starts, the name)."""
        m = _MAP_TEXT.match(str(tok))
        name = m.group("name")
        label = _unquote(Token("STRING", m.group("label"))) if m.group("label") else None
        line, column = self._at(tok, m.start("body"))
        name_span = None
        if name is not None:
            nl, nc = self._at(tok, m.start("name"))
            name_span = Span(self.path, nl, nc, nl, nc + len(name))
        return name, label, m.group("body"), Span(self.path, line, column), name_span

    def map_fragment(self, meta, tok):
        name, label, text, where, name_span = self._map_text(tok)
        if name is None:
            raise _BadInput("E-syntax", "a map declared in a tests file needs a name", tok,
                            'write: map NAME "Label" { grid hex ... }; tests use it with `map NAME`')
        header = ast.Header(name=name, label=label, span=name_span)
        return ast.MapFragment(header=header, text=text, text_span=where, span=self.sp(meta))

    def test_map(self, meta, tok):
        if tok.type == "NAME":
            return ast.TestMap(base=str(tok), span=self.sp(meta))
        name, label, text, where, _ = self._map_text(tok)
        if label is not None:
            raise _BadInput("E-syntax", "a test's map has no label", tok,
                            "label the board where it is declared: map NAME \"Label\" { ... }")
        return ast.TestMap(base=name, text=text, text_span=where, span=self.sp(meta))

    def test_scenario(self, meta, name, *without):
        return ast.TestScenario(name=str(name), setup=not without, span=self.sp(meta))

    def test_turn(self, meta, value):
        return ast.TestTurn(value=value, span=self.sp(meta))

    def test_phase(self, meta, name):
        return ast.TestPhase(name=str(name), span=self.sp(meta))

    def test_active(self, meta, value):
        return ast.TestActive(value=value, span=self.sp(meta))

    def unit_at(self, meta, where):
        return ("at", where)

    def unit_in_box(self, meta, where):
        return ("box", where)

    def unit_steps(self, meta, n):
        return ("steps", int(n))

    def unit_marked(self, meta, *names):
        return ("markers", [str(n) for n in names])

    def unit_count(self, meta, n):
        if int(n) < 1:
            raise _BadInput("E-syntax", "`count` must be at least 1", n)
        return ("count", int(n))

    def test_unit(self, meta, var, label, type_, side, *options):
        u = ast.TestUnit(var=str(var), label=label, type=str(type_), side=str(side), span=self.sp(meta))
        for key, value in options:
            setattr(u, key, value)
        return u

    def test_dice(self, meta, *rolls):
        return ast.TestDice(rolls=[int(r) for r in rolls], span=self.sp(meta))

    def test_answer(self, meta, what, *values):
        text = _unquote(what) if what.type == "STRING" else str(what)
        values = list(values)
        qualifier = values.pop(0) if values and isinstance(values[0], tuple) and values[0][0] == "when" else None
        by = values.pop(0)[1] if values and isinstance(values[0], tuple) else None
        answer = ast.TestAnswer(what=text, values=values, by=by, span=self.sp(meta))
        if qualifier is not None:
            _, answer.round_from, answer.round_to, answer.when = qualifier
        return answer

    def answer_in_round(self, meta, n):
        return ("when", int(n), int(n), None)

    def answer_from_round(self, meta, n):
        return ("when", int(n), None, None)

    def answer_if(self, meta, cond):
        return ("when", None, None, cond)

    def answer_by(self, meta, side):
        return ("by", side)

    def test_same_player(self, meta, _same, *sides):
        return ast.TestSamePlayer(sides=[str(x) for x in sides], span=self.sp(meta))

    def test_do(self, meta, call):
        return ast.TestDo(call=self._plain_call(call, meta, "do"), span=self.sp(meta))

    def test_offered(self, meta, var, kind, what):
        text = _unquote(what) if what.type == "STRING" else str(what)
        return ast.TestOffered(var=str(var), what=text, count=str(kind) == "asked", span=self.sp(meta))

    def expect_true(self, meta, test):
        return ast.Expect(kind="true", test=test, span=self.sp(meta))

    def expect_legal(self, meta, call):
        return ast.Expect(kind="legal", call=self._plain_call(call, meta, "expect legal"), span=self.sp(meta))

    def expect_illegal(self, meta, call, because=None):
        return ast.Expect(kind="illegal", call=self._plain_call(call, meta, "expect illegal"),
                          because=_unquote(because) if because is not None else None, span=self.sp(meta))

    def _plain_call(self, call, meta, where: str) -> ast.Call:
        if not isinstance(call, ast.Call):
            raise _BadInput("E-syntax", f"`{where}` takes an action or a procedure call, not '{call.func}(... for ...)'",
                            meta)
        return call

    def test(self, meta, kind, name, label, m, *body):
        return ast.Test(kind=str(kind), header=self.header(meta, name, label, m), body=list(body), span=self.sp(meta))

    # -- statements
    def block(self, meta, *stmts):
        return list(stmts)

    def let_stmt(self, meta, name, value):
        return ast.Let(name=str(name), value=value, span=self.sp(meta))

    def set_stmt(self, meta, target, op, value):
        return ast.SetStmt(target=target, op=str(op), value=value, span=self.sp(meta))

    def if_stmt(self, meta, test, body, orelse=None):
        if isinstance(orelse, ast.If):
            orelse = [orelse]
        return ast.If(test=test, body=body, orelse=orelse or [], span=self.sp(meta))

    def for_stmt(self, meta, var, source, body):
        return ast.For(var=str(var), source=source, body=body, span=self.sp(meta))

    def choose_stmt(self, meta, *items):
        items = list(items)
        subset = False
        if isinstance(items[0], Token) and items[0].type == "CHOOSE_KIND":
            subset = True
            items.pop(0)
        var = str(items.pop(0))
        source = items.pop(0)
        c = ast.Choose(subset=subset, var=var, source=source, by=ast.NoneLit(), span=self.sp(meta))
        seen_by = False
        for item in items:
            if isinstance(item, tuple) and item[0] == "where":
                c.where = item[1]
            elif isinstance(item, tuple) and item[0] == "otherwise":
                c.otherwise = item[1]
            elif isinstance(item, tuple) and item[0] == "size":
                c.min, c.max = item[1], item[2]
            elif isinstance(item, Token) and item.type == "OPTIONAL":
                c.optional = True
            elif isinstance(item, _Meta):
                c.citations = item.citations
            elif isinstance(item, ast.Expr) and not seen_by:
                c.by = item
                seen_by = True
        return c

    def reroll_when(self, meta, test):
        return ("when", test)

    def reroll_stmt(self, meta, var, value, by, *items):
        r = ast.Reroll(var=str(var), value=value, by=by, span=self.sp(meta))
        for item in items:
            if isinstance(item, tuple) and item[0] == "when":
                r.when = item[1]
            elif isinstance(item, Token) and item.type == "STRING":
                r.label = _unquote(item)
            elif isinstance(item, _Meta):
                r.citations = item.citations
            elif isinstance(item, list):
                r.body = item
        return r

    def apply_stmt(self, meta, value):
        return ast.Apply(value=value, span=self.sp(meta))

    def step_stmt(self, meta, label, m, body):
        return ast.Step(label=label, citations=m.citations, body=body, span=self.sp(meta))

    def stop_stmt(self, meta):
        return ast.Stop(span=self.sp(meta))

    def log_stmt(self, meta, text):
        return ast.Log(text=_unquote(text), span=self.sp(meta))

    def call_stmt(self, meta, call):
        if not isinstance(call, ast.Call):
            raise _BadInput("E-syntax", f"'{call.func}(... for ...)' computes a value; it cannot be a statement", meta,
                            "use `for x in ... { ... }` to do something for each element")
        return ast.CallStmt(call=call, span=self.sp(meta))

    def target_name(self, meta, name):
        return ast.Name(id=str(name), span=self.sp(meta))

    def target_attr(self, meta, obj, name):
        return ast.Attr(obj=obj, name=str(name), span=self.sp(meta))

    def target_index(self, meta, obj, args):
        return ast.Index(obj=obj, args=_positional(args, meta, "a lookup"), span=self.sp(meta))

    # -- expressions
    def cond_expr(self, meta, test, then, orelse):
        return ast.Cond(test=test, then=then, orelse=orelse, span=self.sp(meta))

    def or_op(self, meta, left, right):
        return ast.Or(left=left, right=right, span=self.sp(meta))

    def and_op(self, meta, left, right):
        return ast.And(left=left, right=right, span=self.sp(meta))

    def not_op(self, meta, operand):
        return ast.Not(operand=operand, span=self.sp(meta))

    def compare(self, meta, left, op, right):
        return ast.Compare(op=str(op), left=left, right=right, span=self.sp(meta))

    def is_op(self, meta, obj, tag):
        return ast.Is(obj=obj, tag=str(tag), span=self.sp(meta))

    def is_not_op(self, meta, obj, tag):
        return ast.Is(obj=obj, tag=str(tag), negated=True, span=self.sp(meta))

    def in_op(self, meta, item, coll):
        return ast.In(item=item, collection=coll, span=self.sp(meta))

    def not_in_op(self, meta, item, coll):
        return ast.In(item=item, collection=coll, negated=True, span=self.sp(meta))

    def binop(self, meta, left, op, right):
        return ast.BinOp(op=str(op), left=left, right=right, span=self.sp(meta))

    def neg(self, meta, operand):
        if isinstance(operand, ast.Num):
            return ast.Num(value=-operand.value, span=self.sp(meta))
        return ast.Neg(operand=operand, span=self.sp(meta))

    def attr(self, meta, obj, name):
        return ast.Attr(obj=obj, name=str(name), span=self.sp(meta))

    def index(self, meta, obj, args):
        return ast.Index(obj=obj, args=_positional(args, meta, "a lookup"), span=self.sp(meta))

    def args(self, meta, *items):
        return list(items)

    def kwarg(self, meta, name, value):
        return (str(name), value)

    def call(self, meta, name, args=None):
        positional = [a for a in (args or []) if not isinstance(a, tuple)]
        kwargs = {k: v for k, v in (a for a in (args or []) if isinstance(a, tuple))}
        return ast.Call(func=str(name), args=positional, kwargs=kwargs, span=self.sp(meta))

    def comprehension(self, meta, func, element, var, source, where=None):
        return ast.Comprehension(func=str(func), element=element, var=str(var), source=source,
                                 where=where[1] if where else None, span=self.sp(meta))

    def paren(self, meta, e):
        e.parenthesized = True
        return e

    def int_lit(self, meta, tok):
        return ast.Num(value=int(tok), span=self.sp(meta))

    def decimal_lit(self, meta, tok):
        return ast.Num(value=Fraction(str(tok)), span=self.sp(meta))

    def string_lit(self, meta, tok):
        return ast.Str(value=_unquote(tok), span=self.sp(meta))

    def odds_lit(self, meta, tok):
        a, d = str(tok).split(":")
        return ast.OddsLit(attack=int(a), defense=int(d), span=self.sp(meta))

    def true_lit(self, meta):
        return ast.Bool(value=True, span=self.sp(meta))

    def false_lit(self, meta):
        return ast.Bool(value=False, span=self.sp(meta))

    def none_lit(self, meta):
        return ast.NoneLit(span=self.sp(meta))

    def name(self, meta, tok):
        return ast.Name(id=str(tok), span=self.sp(meta))

    def list_lit(self, meta, args=None):
        return ast.ListLit(items=_positional(args, meta, "a list"), span=self.sp(meta))

    def keep(self, meta, direction, n):
        return (str(direction) == "highest", int(n))

    def roll(self, meta, dice_tok, keep=None):
        dice = _parse_dice(dice_tok)
        if keep:
            dice.keep_highest, dice.keep = keep
        return ast.Roll(dice=dice, span=self.sp(meta))
