"""The canonical layout of .wcx files (`warcodex fmt`), and expression printing.

    format_text(text, path) -> str       parse, lay out, keep comments, verify the meaning is kept
    format_module(module) -> str         lay out a parsed module (comments are not in the AST)
    format_expr(expr) -> str             one expression, with the fewest parentheses
    format_cell(cell), format_code(code) a table cell or one result code, as written
    format_path(path, check) -> (changed, report)   the `fmt` command: files or folders, in place
    dump_ast(node)                       a span-free, class-tagged dump, to compare two parses

Canonical layout
----------------
* two-space indentation; `include` lines first (one per line), then one declaration per paragraph,
  paragraphs separated by one blank line;
* header pieces always in the order ``KIND name(params): type "Label" [ru: "..", pl: ".."] : classes
  §1.2 §3 provisional "note"``;
* property blocks inline (``{ a: 1 b: 2 }``) when they have at most 3 properties and the line fits
  in 100 columns, otherwise one property per line;
* statements one per line; the block of an `if`, `for` or `do` is written inline
  (``for u in xs { eliminate(u) }``) when it holds a single statement without a block of its own
  and the line fits, and ``else { if ... }`` is written ``else if ...``;
* parts of a declaration that the AST keeps in separate lists come out in a fixed order: table
  properties, columns, rows, beyond, rows of cells (cells padded to align columns, `` | ``
  between them); quantity base, modifiers, order; action params, properties, requires, `do`;
  scenario properties, `setup`, triggers, overrides; unit properties, then `at steps` blocks;
* long `function` bodies and long `where` clauses (of `choose` and action params) are broken
  before each top-level `and`/`or`; other long expressions stay on one line;
* parentheses the author wrote around an operation inside another one are kept (`(a and b) or c`
  stays so, for clarity); others go, and parentheses are added only where the meaning needs them;
* strings are re-escaped (``\\"``, ``\\\\``, ``\\n``, ``\\t``, ``\\r``, ``\\xNN`` for other control
  characters); decimals keep their point (``2.0``); a string-quoted table key is written bare
  when it is a plain name that is not a keyword of the language.

Comments
--------
The AST has no comments, so `format_text` recovers them from the original text (a `#` outside a
string, to the end of the line) and re-attaches them by line number to the item they belong to:
the declarations, and inside them the lines the layout writes on their own (statements,
properties, cards, table rows and axes, modifiers, action params, sequence items, test lines...).

* A comment line is kept just before the item that follows it in the same body (a run of comment
  lines between top-level declarations keeps one blank line before what follows, if it had one);
  comment lines after the last item of a body stay at the end of that body, before its `}`;
  comments after the last declaration stay at the end of the file.
* An end-of-line comment stays at the end of the line of the item it ended (two spaces before the
  `#`), or of the head line of a block (``if x {  # why``).
* A block holding a comment is never written inline (``{ a: 1 }``), so every comment keeps a line.
* An end-of-line comment on a line that holds no item (``} else {  # c``, ``do {  # c``, a
  quantity's ``base:  # c`` or ``order:`` line) stays at the end of the line the layout writes
  for that code (``base: u.attack  # c`` when the expression joins it).
* An end-of-line comment that cannot keep its line goes on a line of its own, keeping its order
  and its block: a second one inside an expression the layout joins onto one line goes just
  before that item; one whose code the layout does not end a line with goes before the next
  item, or at the end of the block.

So formatting twice gives the same text as formatting once. `format_module`, which sees only the
AST, writes no comments.

Safety
------
`format_text` re-parses its output and raises `DiagnosticError` (code ``E-format``) if the result
does not parse to the same AST (ignoring spans) or if a comment would be lost, so `fmt` never
silently changes what a file means. Formatting is idempotent: formatting the output again gives
the same text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from warcodex import inputs
from warcodex.dsl import ast
from warcodex.dsl.diagnostics import Diagnostic, DiagnosticError, Severity, Span, input_diagnostic
from warcodex.dsl.walk import children
from warcodex.outputs import write_atomic

MAX_WIDTH = 100
INDENT = "  "
MAX_INLINE_PROPS = 3

# Words that the grammar uses as keywords somewhere. A table key written as a string is printed
# bare only when it is a plain name outside this set (a bare keyword could lex as the keyword).
KEYWORDS = frozenset("""
    include override game sections terrain edge feature marker class side alliance option family unit at
    steps var side_var unit_var location_var table columns rows clamp beyond above below from upto
    use result illegal row quantity base modifier min max round up down nearest when group order
    function movement action param subset where do procedure on sequence turns player_turns player_turn repeat while phase
    allow limit until scenario setup invariant evaluation term weight deck pile face_down face_up owner_only card let set if else for in choose by otherwise optional reroll hidden per bookkeeping
    require apply step stop log then or and not is true false none roll keep highest lowest
    provisional rulebook player_aid derived partial not_encoded not_applicable at_most at_least
    test example map turn active dice answer expect legal marked count because without box offered asked same
    player
""".split())

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DICE_RE = re.compile(r"[0-9]*d[0-9]+\Z")
_INT_TEXT_RE = re.compile(r"[+-]?[0-9]+\Z")

# ---------------------------------------------------------------- expressions
# precedence levels, loosest first; a child printed where a tighter level is needed gets parens
_EXPR, _OR, _AND, _NOT, _CMP, _SUM, _PROD, _UNARY, _POSTFIX = range(9)


def format_expr(expr: ast.Expr) -> str:
    """One expression on one line, with the fewest parentheses that keep its meaning."""
    return _expr(expr, _EXPR)


def _level(e: ast.Expr) -> int:
    if isinstance(e, ast.Cond):
        return _EXPR
    if isinstance(e, ast.Or):
        return _OR
    if isinstance(e, ast.And):
        return _AND
    if isinstance(e, ast.Not):
        return _NOT
    if isinstance(e, (ast.Compare, ast.Is, ast.In)):
        return _CMP
    if isinstance(e, ast.BinOp):
        return _SUM if e.op in ("+", "-") else _PROD
    if isinstance(e, ast.Neg):
        return _UNARY
    if isinstance(e, ast.Num) and e.value < 0:
        return _UNARY  # printed as `-3`, which reads back as unary minus
    return _POSTFIX


def _expr(e: ast.Expr, need: int) -> str:
    text = _expr_text(e)
    return f"({text})" if _level(e) < need or _kept_parentheses(e, need) else text


def _kept_parentheses(e: ast.Expr, need: int) -> bool:
    """Parentheses the author wrote around an operation inside another one (`(a and b) or c`,
    `a == (b + c)`) are kept: they are there for clarity. Those around a name, a call or a whole
    argument, item or condition group nothing and go."""
    return e.parenthesized and need > _EXPR and _level(e) < _POSTFIX


def _args(args: list[ast.Expr], kwargs: dict[str, ast.Expr] | None = None) -> str:
    parts = [_expr(a, _EXPR) for a in args]
    parts += [f"{k}: {_expr(v, _EXPR)}" for k, v in (kwargs or {}).items()]
    return ", ".join(parts)


def _expr_text(e: ast.Expr) -> str:
    if isinstance(e, ast.Num):
        return _num(e.value)
    if isinstance(e, ast.Str):
        return quote(e.value)
    if isinstance(e, ast.Bool):
        return "true" if e.value else "false"
    if isinstance(e, ast.NoneLit):
        return "none"
    if isinstance(e, ast.OddsLit):
        return f"{e.attack}:{e.defense}"
    if isinstance(e, ast.Name):
        return e.id
    if isinstance(e, ast.Attr):
        # `1.x` could lex as a broken decimal, so a number before `.` always gets parentheses
        obj = f"({_expr_text(e.obj)})" if isinstance(e.obj, ast.Num) else _expr(e.obj, _POSTFIX)
        return f"{obj}.{e.name}"
    if isinstance(e, ast.Index):
        return f"{_expr(e.obj, _POSTFIX)}[{_args(e.args)}]"
    if isinstance(e, ast.Call):
        return f"{e.func}({_args(e.args, e.kwargs)})"
    if isinstance(e, ast.Comprehension):
        where = f" where {_expr(e.where, _EXPR)}" if e.where is not None else ""
        return f"{e.func}({_expr(e.element, _EXPR)} for {e.var} in {_expr(e.source, _EXPR)}{where})"
    if isinstance(e, ast.BinOp):
        lvl = _SUM if e.op in ("+", "-") else _PROD
        return f"{_expr(e.left, lvl)} {e.op} {_expr(e.right, lvl + 1)}"
    if isinstance(e, ast.Compare):
        return f"{_expr(e.left, _SUM)} {e.op} {_expr(e.right, _SUM)}"
    if isinstance(e, ast.And):
        return f"{_expr(e.left, _AND)} and {_expr(e.right, _NOT)}"
    if isinstance(e, ast.Or):
        return f"{_expr(e.left, _OR)} or {_expr(e.right, _AND)}"
    if isinstance(e, ast.Not):
        return f"not {_expr(e.operand, _NOT)}"
    if isinstance(e, ast.Neg):
        inner = _expr(e.operand, _UNARY)
        return f"- {inner}" if inner.startswith("-") else f"-{inner}"
    if isinstance(e, ast.Is):
        return f"{_expr(e.obj, _SUM)} is {'not ' if e.negated else ''}{e.tag}"
    if isinstance(e, ast.In):
        return f"{_expr(e.item, _SUM)} {'not in' if e.negated else 'in'} {_expr(e.collection, _SUM)}"
    if isinstance(e, ast.Cond):
        # a nested `if` in the test or `then` part parses without parentheses, but reads badly
        return f"if {_expr(e.test, _OR)} then {_expr(e.then, _OR)} else {_expr(e.orelse, _EXPR)}"
    if isinstance(e, ast.ListLit):
        return f"[{_args(e.items)}]"
    if isinstance(e, ast.Roll):
        return f"roll {e.dice.text()}"
    raise TypeError(f"cannot format expression node {type(e).__name__}")


def _num(value: int | Fraction) -> str:
    if not isinstance(value, Fraction):
        return str(value)
    sign = "-" if value < 0 else ""
    mag = abs(value)
    den, twos, fives = mag.denominator, 0, 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    if den != 1:  # not a finite decimal: never produced by the parser
        return f"({value.numerator} / {value.denominator})"
    places = max(twos, fives, 1)
    digits = str(mag.numerator * 10**places // mag.denominator).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def quote(text: str) -> str:
    """A string literal that the parser reads back as `text`."""
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


# ---------------------------------------------------------------- small pieces
def _cites(citations: list[str]) -> str:
    return "".join(f" §{c}" for c in citations)


def _prov(p: ast.Provenance | None) -> str:
    if p is None:
        return ""
    return f" {p.kind}" + (f" {quote(p.note)}" if p.note is not None else "")


def _meta(label: str | None = None, translations: dict[str, str] | None = None, citations: list[str] = (),
          provenance: ast.Provenance | None = None, classes: list[str] | None = None) -> str:
    s = f" {quote(label)}" if label is not None else ""
    if translations:
        s += " [" + ", ".join(f"{k}: {quote(v)}" for k, v in translations.items()) + "]"
    if classes:
        s += " : " + ", ".join(classes)
    return s + _cites(list(citations)) + _prov(provenance)


def _header_meta(h: ast.Header, classes: list[str] | None = None) -> str:
    return _meta(h.label, h.translations, h.citations, h.provenance, classes)


def _params(params: list[ast.Param]) -> str:
    return "(" + ", ".join(f"{p.name}: {p.type}" for p in params) + ")"


def _key(k: ast.Key) -> str:
    if k.kind == "int":
        return str(k.low)
    if k.kind == "range":
        return f"{k.low}..{k.high}"
    if k.kind == "odds":
        return f"{k.attack}:{k.defense}"
    name = k.name or ""
    if _NAME_RE.match(name) and name not in KEYWORDS and not _DICE_RE.match(name):
        return name
    return quote(name)


def format_code(c: ast.Code) -> str:
    """One result code of a table cell as written (`DR2`, `A1`, `DR(x + 1)`, `+3`)."""
    if c.number is not None:
        # keep the written form (`+3`, `03`): the parser stores it as the code's name
        if _INT_TEXT_RE.match(c.name) and int(c.name) == c.number:
            return c.name
        return str(c.number)
    if c.args:
        return f"{c.name}({_args(c.args)})"
    return c.name


def format_cell(c: ast.Cell) -> str:
    """A table cell as written: its codes joined by `/`, `-` for no effect."""
    return "/".join(format_code(code) for code in c.codes) if c.codes else "-"


def _prop(p: ast.Prop) -> str:
    s = p.key if p.value is None else f"{p.key}: {format_expr(p.value)}"
    return s + _cites(p.citations) + _prov(p.provenance)


def _prop_lines(p: ast.Prop, ind: str) -> list[str]:
    """A property on its own line(s): a long value is wrapped like a function body."""
    if p.value is None:
        return [f"{ind}{_prop(p)}"]
    return _wrap(f"{p.key}: ", p.value, ind, ind + INDENT, _cites(p.citations) + _prov(p.provenance))


def _fits(line: str) -> bool:
    return len(line) <= MAX_WIDTH


def _flatten_chain(e: ast.Expr) -> tuple[str, list[str]] | None:
    """`a and b and c` -> ("and", ["a", "b", "c"]); None if `e` is not an and/or chain."""
    if not isinstance(e, (ast.And, ast.Or)) or e.parenthesized:
        return None
    cls, word, lvl = (ast.And, "and", _AND) if isinstance(e, ast.And) else (ast.Or, "or", _OR)
    rights = []
    while isinstance(e, cls) and not e.parenthesized:
        rights.append(e.right)
        e = e.left
    rights.reverse()
    return word, [_expr(e, lvl)] + [_expr(r, lvl + 1) for r in rights]


def _wrap(prefix: str, e: ast.Expr, ind: str, cont: str, suffix: str = "") -> list[str]:
    """`prefix + expr + suffix` on one line if it fits; else an and/or chain is broken before each
    top-level `and`/`or` (continuation lines start with `cont`), and a list literal is broken
    after `[`, its items filled into lines one step deeper than `ind`, `]` back on `ind`."""
    one = f"{ind}{prefix}{format_expr(e)}{suffix}"
    if _fits(one):
        return [one]
    chain = _flatten_chain(e)
    if chain is not None:
        word, parts = chain
        lines = [f"{ind}{prefix}{parts[0]}"] + [f"{cont}{word} {p}" for p in parts[1:]]
        lines[-1] += suffix
        return lines
    if isinstance(e, ast.ListLit) and e.items:
        items = [_expr(x, _EXPR) for x in e.items]
        inner = ind + INDENT
        lines, cur = [f"{ind}{prefix}["], ""
        for i, item in enumerate(items):
            piece = item + ("," if i + 1 < len(items) else "")
            if cur and not _fits(f"{inner}{cur} {piece}"):
                lines.append(f"{inner}{cur}")
                cur = piece
            else:
                cur = f"{cur} {piece}" if cur else piece
        lines.append(f"{inner}{cur}")
        lines.append(f"{ind}]{suffix}")
        return lines
    return [one]


# ---------------------------------------------------------------- declarations and statements
class _Layout:
    """Turns AST nodes into lines of text (each line carries its own indentation).

    `places` says where the comments of the declaration being laid out go (see `_Places`); each
    item written on lines of its own passes through `_noted`, which adds its comments."""

    def __init__(self) -> None:
        self.places = _Places()

    def _noted(self, node: ast.Node, lines: list[str], ind: str) -> list[str]:
        n = self.places.notes.get(id(node))
        if n is None:
            return lines
        lines = list(lines)
        before, head = list(n.before), n.head
        if head is not None and n.end is not None and len(lines) == 1:
            before.append(head)  # one line cannot end with two comments
            head = None
        if head is not None:
            lines[0] += f"  {head}"
        if n.end is not None:
            lines[-1] += f"  {n.end}"
        if n.tail:
            if len(lines) > 1 and lines[-1].lstrip().startswith("}"):
                lines[-1:-1] = [ind + INDENT + t for t in n.tail]
            else:
                lines += [ind + t for t in n.tail]
        return [ind + t for t in before] + lines

    def _quiet(self, node: ast.Node | None) -> bool:
        """No comment inside `node` needs a line of its own: it may be written inline."""
        return node is None or id(node) not in self.places.busy

    # -- declarations
    def decl(self, d: ast.Decl, ind: str = "") -> list[str]:
        method = getattr(self, f"_{type(d).__name__.lower()}", None)
        if method is None:
            raise TypeError(f"cannot format declaration node {type(d).__name__}")
        lines = method(d, ind)
        if d.override:
            lines[0] = f"{ind}override {lines[0][len(ind):]}"
        return self._noted(d, lines, ind)

    def _props_block(self, head: str, props: list[ast.Prop], ind: str, owner: ast.Node,
                     required: bool = True) -> list[str]:
        if not props:
            return [f"{ind}{head} {{}}" if required else f"{ind}{head}"]
        texts = [_prop(p) for p in props]
        inline = f"{ind}{head} {{ {' '.join(texts)} }}"
        if len(props) <= MAX_INLINE_PROPS and _fits(inline) and self._quiet(owner):
            return [inline]
        return [f"{ind}{head} {{"] + self._prop_lines(props, ind + INDENT) + [f"{ind}}}"]

    def _prop_lines(self, props: list[ast.Prop], ind: str) -> list[str]:
        return [line for p in props for line in self._noted(p, _prop_lines(p, ind), ind)]

    def _body(self, head: str, inner: list[str], ind: str) -> list[str]:
        if not inner:
            return [f"{ind}{head} {{}}"]
        return [f"{ind}{head} {{"] + inner + [f"{ind}}}"]

    def _game(self, d: ast.Game, ind: str) -> list[str]:
        return self._props_block(f"game {d.name}{_header_meta(d.header)}", d.props, ind, d)

    def _sections(self, d: ast.Sections, ind: str) -> list[str]:
        inner = []
        for e in d.entries:
            status = f" {e.status}" if e.status is not None else ""
            note = f" {quote(e.note)}" if e.status is not None and e.note is not None else ""
            inner += self._noted(e, [f"{ind}{INDENT}§{e.number} {quote(e.title)}{status}{note}"], ind + INDENT)
        return self._body("sections", inner, ind)

    def _entity(self, d: ast.Entity, ind: str) -> list[str]:
        return self._props_block(f"{d.kind} {d.name}{_header_meta(d.header)}", d.props, ind, d, required=False)

    def _unit(self, d: ast.Unit, ind: str) -> list[str]:
        head = f"unit {d.name}{_header_meta(d.header, d.classes)}"
        if not d.step_values:
            return self._props_block(head, d.props, ind, d, required=False)
        inner = self._prop_lines(d.props, ind + INDENT)
        for sv in d.step_values:
            inner += self._noted(sv, self._props_block(f"at steps {sv.steps}", sv.props, ind + INDENT, sv), ind + INDENT)
        return self._body(head, inner, ind)

    def _vardecl(self, d: ast.VarDecl, ind: str) -> list[str]:
        default = f" = {format_expr(d.default)}" if d.default is not None else ""
        h = d.header
        hidden = " hidden" if d.hidden else ""
        per = f" per {d.per}" if d.per else ""
        bookkeeping = " bookkeeping" if d.bookkeeping else ""
        return [f"{ind}{d.scope} {d.name}: {d.type}{default}{hidden}{per}{bookkeeping}"
                f"{_meta(None, h.translations, h.citations, h.provenance)}"]

    def _table(self, d: ast.Table, ind: str) -> list[str]:
        i2 = ind + INDENT
        # table properties first: after a key list, a property name would be read as one more key
        inner = [line for p in d.props for line in self._noted(
            p, [f"{i2}{p.key}: {format_expr(p.value)}" if p.value is not None else f"{i2}{p.key}"], i2)]
        if d.columns is not None:
            kind = "" if d.columns.kind == "values" else f" {d.columns.kind}"
            inner += self._noted(d.columns, [f"{i2}columns{kind}: {' '.join(_key(k) for k in d.columns.keys)}"], i2)
        if d.rows is not None:
            r = d.rows
            kind = "" if r.kind == "values" else f" {r.kind}"
            dice = f" {r.dice.text()}" if r.dice is not None else ""
            clamp = " clamp" if r.clamp else ""
            inner += self._noted(r, [f"{i2}rows{kind}{dice}: {' '.join(_key(k) for k in r.keys)}{clamp}"], i2)
        if d.beyond:
            inner.append(f"{i2}beyond {{")
            for b in d.beyond:
                inner += self._noted(b, [f"{i2}{INDENT}{self._beyond(b)}"], i2 + INDENT)
            inner.append(f"{i2}}}")
        inner += self._rows(d.table_rows, i2)
        return self._body(f"table {d.name}{_header_meta(d.header)}", inner, ind)

    def _beyond(self, b: ast.Beyond) -> str:
        s = f"{b.direction} {_key(b.key)}"
        if b.action == "use":
            s += f" use {_key(b.use)}" if b.use is not None else " use"
        elif b.action == "result":
            s += f" result {format_cell(b.cell) if b.cell is not None else '-'}"
        else:
            s += " illegal"
        if b.action != "use" and b.message is not None:
            s += f" {quote(b.message)}"
        return s + _cites(b.citations)

    def _rows(self, rows: list[ast.Row], ind: str) -> list[str]:
        if not rows:
            return []
        keys = [f"row {_key(r.key)}:" for r in rows]
        cells = [[format_cell(c) for c in r.cells] for r in rows]
        key_w = max(len(k) for k in keys)
        widths: list[int] = []
        for row in cells:
            for j, text in enumerate(row):
                if j == len(widths):
                    widths.append(0)
                widths[j] = max(widths[j], len(text))
        out = []
        for r, key, row in zip(rows, keys, cells):
            padded = [t.ljust(widths[j]) if j < len(row) - 1 else t for j, t in enumerate(row)]
            out += self._noted(r, [f"{ind}{key.ljust(key_w)} {' | '.join(padded)}".rstrip()], ind)
        return out

    def _result(self, d: ast.Result, ind: str) -> list[str]:
        params = _params(d.params) if d.params else ""
        head = f"result {d.name}{params}{_header_meta(d.header)}"
        if not d.body:
            return [f"{ind}{head}"]
        return self._body(head, self.stmts(d.body, ind + INDENT), ind)

    def _quantity(self, d: ast.Quantity, ind: str) -> list[str]:
        i2 = ind + INDENT
        qtype = f": {d.type}" if d.type is not None else ""
        inner = []
        if d.base is not None:
            inner.append(f"{i2}base: {format_expr(d.base)}{_cites(d.base_citations)}")
        for m in d.modifiers:
            s = "modifier" + (f" {quote(m.label)}" if m.label is not None else "") + f" {m.op} {format_expr(m.value)}"
            if m.rounding is not None:
                s += f" round {m.rounding}"
            if m.when is not None:
                s += f" when {format_expr(m.when)}"
            if m.group is not None:
                s += f" group {m.group}"
            inner += self._noted(m, [f"{i2}{s}{_cites(m.citations)}{_prov(m.provenance)}"], i2)
        if d.order:
            inner.append(f"{i2}order: {', '.join(d.order)}")
        return self._body(f"quantity {d.name}{_params(d.params)}{qtype}{_header_meta(d.header)}", inner, ind)

    def _evaluation(self, d: ast.Evaluation, ind: str) -> list[str]:
        i2 = ind + INDENT
        inner = []
        for t in d.terms:
            weight = f" weight {format_expr(t.weight)}" if t.weight is not None else ""
            when = f" when {format_expr(t.when)}" if t.when is not None else ""
            inner.append(f"{i2}term {quote(t.label)}{weight}: {format_expr(t.value)}{when}{_cites(t.citations)}{_prov(t.provenance)}")
        return self._body(f"evaluation {d.name}{_params(d.params)}{_header_meta(d.header)}", inner, ind)

    def _function(self, d: ast.Function, ind: str) -> list[str]:
        ftype = f": {d.type}" if d.type is not None else ""
        head = f"{ind}function {d.name}{_params(d.params)}{ftype}{_header_meta(d.header)} ="
        one = f"{head} {format_expr(d.body)}"
        if _fits(one):
            return [one]
        return [head] + _wrap("", d.body, ind + INDENT, ind + INDENT)

    def _movement(self, d: ast.Movement, ind: str) -> list[str]:
        return self._props_block(f"movement {d.name}{_header_meta(d.header)}", d.props, ind, d)

    def _action(self, d: ast.Action, ind: str) -> list[str]:
        i2 = ind + INDENT
        inner = []
        for p in d.params:
            inner += self._noted(p, self._action_param(p, i2), i2)
        inner += self._prop_lines(d.props, i2)
        inner += [line for r in d.requires for line in self._noted(r, [f"{i2}{self._require(r)}"], i2)]
        if d.body:
            inner += self._block("do", d.body, i2, inline=True)
        return self._body(f"action {d.name}{_header_meta(d.header)}", inner, ind)

    def _action_param(self, p: ast.ActionParam, ind: str) -> list[str]:
        head = f"param {p.name}: {'subset ' if p.subset else ''}from {format_expr(p.source)}"
        tail = _size(p.min, p.max) + _cites(p.citations)
        where = f" where {format_expr(p.where)}" if p.where is not None else ""
        one = f"{ind}{head}{where}{tail}"
        if _fits(one) or p.where is None:
            return [one]
        lines = [f"{ind}{head}"] + _wrap("where ", p.where, ind + INDENT, ind + INDENT * 2)
        if tail:
            lines.append(f"{ind}{INDENT}{tail.lstrip()}")
        return lines

    def _procedure(self, d: ast.Procedure, ind: str) -> list[str]:
        head = f"procedure {d.name}{_params(d.params)}{_header_meta(d.header)}"
        return self._body(head, self.stmts(d.body, ind + INDENT), ind)

    def _trigger(self, d: ast.Trigger, ind: str) -> list[str]:
        params = _params(d.params) if d.params else ""
        when = f" when {format_expr(d.when)}" if d.when is not None else ""
        head = f"on {d.name}{params}{_header_meta(d.header)}{when}"
        return self._body(head, self.stmts(d.body, ind + INDENT), ind)

    def _sequence(self, d: ast.Sequence, ind: str) -> list[str]:
        return self._body(f"sequence{_header_meta(d.header)}", self._seq_items(d.items, ind + INDENT), ind)

    def _seq_items(self, items: list, ind: str) -> list[str]:
        out: list[str] = []
        for item in items:
            if isinstance(item, ast.Phase):
                out += self.decl(item, ind)
            else:
                out += self._noted(item, self._seq_item(item, ind), ind)
        return out

    def _seq_item(self, item, ind: str) -> list[str]:
        if isinstance(item, ast.TurnLoop):
            return self._body(f"turns{_meta(item.label, citations=item.citations)}", self._seq_items(item.items, ind + INDENT), ind)
        if isinstance(item, ast.PlayerTurns):
            head = f"player_turns {format_expr(item.sides)}{_meta(item.label, citations=item.citations)}"
            return self._body(head, self._seq_items(item.items, ind + INDENT), ind)
        if isinstance(item, ast.PlayerTurn):
            head = f"player_turn {format_expr(item.side)}{_meta(item.label, citations=item.citations)}"
            return self._body(head, self._seq_items(item.items, ind + INDENT), ind)
        if isinstance(item, ast.Repeat):
            head = f"repeat{_meta(item.label, citations=item.citations)} while {format_expr(item.test)}"
            return self._body(head, self._seq_items(item.items, ind + INDENT), ind)
        if isinstance(item, ast.Allow):
            limit = f" limit {item.limit}" if item.limit is not None else ""
            out = [f"{ind}allow {', '.join(item.actions)}{limit}"]
            for r in item.until:
                out += self._noted(r, [f"{ind}{INDENT}until{self._require(r)[len('require'):]}"], ind + INDENT)
            return out
        if isinstance(item, ast.Do):
            return self._block("do", item.body, ind, inline=True, owner=item)
        raise TypeError(f"cannot format sequence item {type(item).__name__}")

    def _phase(self, d: ast.Phase, ind: str) -> list[str]:
        when = f" when {format_expr(d.when)}" if d.when is not None else ""
        return self._body(f"phase {d.name}{_header_meta(d.header)}{when}", self._seq_items(d.items, ind + INDENT), ind)

    def _scenario(self, d: ast.Scenario, ind: str) -> list[str]:
        i2 = ind + INDENT
        inner = self._prop_lines(d.props, i2)
        if d.setup:
            inner += self._block("setup", d.setup, i2, inline=False)
        for t in d.triggers:
            inner += self.decl(t, i2)
        for o in d.overrides:
            inner += self.decl(o, i2)
        return self._body(f"scenario {d.name}{_header_meta(d.header)}", inner, ind)

    def _invariant(self, d: ast.Invariant, ind: str) -> list[str]:
        return self._props_block(f"invariant {d.name}{_header_meta(d.header)}", d.props, ind, d)

    def _deck(self, d: ast.Deck, ind: str) -> list[str]:
        inner = self._prop_lines(d.props, ind + INDENT)
        for pd in d.pile_decls:
            seen = f" {pd.visibility}" if pd.visibility is not None else ""
            line = f"{ind}{INDENT}pile {quote(pd.name)}{seen}{_meta(pd.label, pd.translations, pd.citations, pd.provenance)}"
            inner += self._noted(pd, [line], ind + INDENT)
        for c in d.cards:
            inner += self.decl(c, ind + INDENT)
        return self._body(f"deck {d.name}{_header_meta(d.header)}", inner, ind)

    def _card(self, d: ast.Card, ind: str) -> list[str]:
        return self._props_block(f"card {d.name}{_header_meta(d.header)}", d.props, ind, d, required=False)

    # -- rule tests (tests/*.wcx); map bodies are kept exactly as written
    def _mapfragment(self, d: ast.MapFragment, ind: str) -> list[str]:
        label = f" {quote(d.header.label)}" if d.header.label else ""
        return f"{ind}map {d.name}{label} {{{d.text}}}".split("\n")

    def _test(self, d: ast.Test, ind: str) -> list[str]:
        return self._body(f"{d.kind} {d.name}{_header_meta(d.header)}", self.stmts(d.body, ind + INDENT), ind)

    def _test_line(self, s: ast.Stmt) -> str | None:
        if isinstance(s, ast.TestMap):
            name = f" {s.base}" if s.base else ""
            return f"map{name}" + (f" {{{s.text}}}" if s.text is not None else "")
        if isinstance(s, ast.TestScenario):
            return f"scenario {s.name}" + ("" if s.setup else " without setup")
        if isinstance(s, ast.TestTurn):
            return f"turn {format_expr(s.value)}"
        if isinstance(s, ast.TestPhase):
            return f"phase {s.name}"
        if isinstance(s, ast.TestActive):
            return f"active {format_expr(s.value)}"
        if isinstance(s, ast.TestUnit):
            label = f" {quote(s.label)}" if s.label is not None else ""
            where = f"at {format_expr(s.at)}" if s.at is not None else f"in box {format_expr(s.box)}"
            text = f"unit {s.var}{label}: {s.type} {s.side} {where}"
            if s.steps is not None:
                text += f" steps {s.steps}"
            if s.markers:
                text += " marked " + ", ".join(s.markers)
            if s.count is not None:
                text += f" count {s.count}"
            return text
        if isinstance(s, ast.TestDice):
            return "dice " + ", ".join(map(str, s.rolls))
        if isinstance(s, ast.TestAnswer):
            what = s.what if _NAME_RE.match(s.what) and s.what not in KEYWORDS else quote(s.what)
            by = f" by {format_expr(s.by)}" if s.by is not None else ""
            if s.when is not None:
                when = f" when {format_expr(s.when)}"
            elif s.round_from is not None:
                when = f" in round {s.round_from}" if s.round_to == s.round_from else f" from round {s.round_from}"
            else:
                when = ""
            return f"answer {what}{when}{by}: " + ", ".join(format_expr(v) for v in s.values)
        if isinstance(s, ast.TestSamePlayer):
            return "same player " + ", ".join(s.sides)
        if isinstance(s, ast.TestDo):
            return f"do {format_expr(s.call)}"
        if isinstance(s, ast.TestOffered):
            what = s.what if _NAME_RE.match(s.what) and s.what not in KEYWORDS else quote(s.what)
            return f"let {s.var} = {'asked' if s.count else 'offered'} {what}"
        if isinstance(s, ast.Expect):
            if s.kind == "true":
                return f"expect {format_expr(s.test)}"
            because = f" because {quote(s.because)}" if s.because is not None else ""
            return f"expect {s.kind} {format_expr(s.call)}{because}"
        return None

    # -- statements
    def stmts(self, body: list[ast.Stmt], ind: str) -> list[str]:
        out: list[str] = []
        for s in body:
            out += self.stmt(s, ind)
        return out

    def _inline(self, body: list[ast.Stmt]) -> str | None:
        """`{}` or `{ stmt }` when the block can sit on its parent's line."""
        if not body:
            return "{}"
        if len(body) == 1 and not isinstance(body[0], (ast.If, ast.For, ast.Step, ast.Reroll)) \
                and self._quiet(body[0]) and id(body[0]) not in self.places.notes:
            return f"{{ {self.simple(body[0])} }}"
        return None

    def _block(self, head: str, body: list[ast.Stmt], ind: str, inline: bool, owner: ast.Node | None = None) -> list[str]:
        if inline and self._quiet(owner):
            one = self._inline(body)
            if one is not None and _fits(f"{ind}{head} {one}"):
                return [f"{ind}{head} {one}"]
        return self._body(head, self.stmts(body, ind + INDENT), ind)

    def stmt(self, s: ast.Stmt, ind: str) -> list[str]:
        return self._noted(s, self._stmt(s, ind), ind)

    def _stmt(self, s: ast.Stmt, ind: str) -> list[str]:
        test_line = self._test_line(s)
        if test_line is not None:
            return f"{ind}{test_line}".split("\n")
        if isinstance(s, ast.If):
            return self._if(s, ind)
        if isinstance(s, ast.For):
            return self._block(f"for {s.var} in {format_expr(s.source)}", s.body, ind, inline=True, owner=s)
        if isinstance(s, ast.Step):
            return self._block(f"step{_meta(s.label, citations=s.citations)}", s.body, ind, inline=False)
        if isinstance(s, ast.Choose):
            return self._choose(s, ind)
        if isinstance(s, ast.Reroll):
            head = f"reroll {s.var} = {format_expr(s.value)} by {format_expr(s.by)}"
            if s.when is not None:
                head += f" when {format_expr(s.when)}"
            head += (f" {quote(s.label)}" if s.label is not None else "") + _cites(s.citations)
            if not s.body:
                return [f"{ind}{head}"]
            return self._block(head, s.body, ind, inline=True, owner=s)
        return [f"{ind}{self.simple(s)}"]

    def _if(self, s: ast.If, ind: str) -> list[str]:
        head = f"if {format_expr(s.test)}"
        chain = len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If)
        if not chain and self._quiet(s):
            body = self._inline(s.body)
            orelse = self._inline(s.orelse) if s.orelse else ""
            if body is not None and orelse is not None:
                line = f"{ind}{head} {body}" + (f" else {orelse}" if s.orelse else "")
                if _fits(line):
                    return [line]
        lines = [f"{ind}{head} {{"] + self.stmts(s.body, ind + INDENT)
        cur = s
        while len(cur.orelse) == 1 and isinstance(cur.orelse[0], ast.If):
            # the comments of an `else if`: those before it end the previous block, one at the end
            # of its line stays there, those after its last statement end its block
            cur = cur.orelse[0]
            notes = self.places.notes.get(id(cur), _Notes())
            lines += [ind + INDENT + t for t in notes.before]
            lines.append(f"{ind}}} else if {format_expr(cur.test)} {{" + (f"  {notes.head}" if notes.head else ""))
            lines += self.stmts(cur.body, ind + INDENT)
            lines += [ind + INDENT + t for t in notes.tail]
        if cur.orelse:
            lines.append(f"{ind}}} else {{")
            lines += self.stmts(cur.orelse, ind + INDENT)
        lines.append(f"{ind}}}")
        return lines

    def _choose(self, s: ast.Choose, ind: str) -> list[str]:
        head = f"choose {'subset ' if s.subset else ''}{s.var} from {format_expr(s.source)}"
        other = f" otherwise {format_expr(s.otherwise)}" if s.otherwise is not None else ""
        tail = f"by {format_expr(s.by)}{other}{_size(s.min, s.max)}{' optional' if s.optional else ''}{_cites(s.citations)}"
        where = f" where {format_expr(s.where)}" if s.where is not None else ""
        one = f"{ind}{head}{where} {tail}"
        if _fits(one):
            return [one]
        lines = [f"{ind}{head}"]
        if s.where is not None:
            lines += _wrap("where ", s.where, ind + INDENT, ind + INDENT * 2)
        return lines + [f"{ind}{INDENT}{tail}"]

    def simple(self, s: ast.Stmt) -> str:
        """The one-line text of a statement (compound statements use their one-line form)."""
        if isinstance(s, ast.Let):
            return f"let {s.name} = {format_expr(s.value)}"
        if isinstance(s, ast.SetStmt):
            return f"set {_expr(s.target, _POSTFIX)} {s.op} {format_expr(s.value)}"
        if isinstance(s, ast.Require):
            return self._require(s)
        if isinstance(s, ast.Apply):
            return f"apply {format_expr(s.value)}"
        if isinstance(s, ast.Stop):
            return "stop"
        if isinstance(s, ast.Log):
            return f"log {quote(s.text)}"
        if isinstance(s, ast.CallStmt):
            return format_expr(s.call)
        if isinstance(s, ast.Choose):
            return " ".join(line.strip() for line in self._choose(s, ""))
        if isinstance(s, (ast.If, ast.For, ast.Step, ast.Reroll)):
            return " ".join(line.strip() for line in self._stmt(s, ""))
        raise TypeError(f"cannot format statement node {type(s).__name__}")

    def _require(self, r: ast.Require) -> str:
        msg = f" {quote(r.message)}" if r.message is not None else ""
        return f"require {format_expr(r.test)}{msg}{_cites(r.citations)}"


def _size(lo: int | None, hi: int | None) -> str:
    if lo is None:
        return ""  # the grammar has no way to write a maximum without a minimum
    return f" min {lo}" + (f" max {hi}" if hi is not None else "")


# ---------------------------------------------------------------- comments
def scan_comments(text: str) -> list[tuple[int, str]]:
    """(line, text) of every `#` comment outside string literals, trailing blanks removed."""
    found: list[tuple[int, str]] = []
    line, i, n = 1, 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            if ch == "\\" and i + 1 < n:
                if text[i + 1] == "\n":
                    line += 1
                    in_string = False
                i += 2
                continue
            if ch == '"':
                in_string = False
            elif ch == "\n":  # unterminated string: not valid text, but keep counting lines
                in_string = False
                line += 1
        elif ch == '"':
            in_string = True
        elif ch == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            found.append((line, text[i:end].rstrip()))
            i = end
            continue
        elif ch == "\n":
            line += 1
        i += 1
    return found


def _comments_outside_maps(text: str, module: ast.Module) -> list[tuple[int, str]]:
    """The comments of a file, except those inside map bodies (raw map text, kept as written)."""
    regions = []
    for decl in module.decls:
        nodes = [decl] if isinstance(decl, ast.MapFragment) else []
        if isinstance(decl, ast.Test):
            nodes += [s for s in decl.body if isinstance(s, ast.TestMap) and s.text is not None]
        regions += [n.span for n in nodes if n.span is not None and n.span.end_line is not None]
    if not regions:
        return scan_comments(text)
    starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            starts.append(i + 1)
    chars = list(text)
    for span in regions:
        begin = starts[span.line - 1] + span.column - 1
        end = starts[span.end_line - 1] + span.end_column - 1
        for i in range(begin, end):
            if chars[i] != "\n":
                chars[i] = " "
    return scan_comments("".join(chars))


def _start(node: ast.Node) -> int:
    return node.span.line if node.span is not None else 0


def _end(node: ast.Node) -> int:
    if node.span is None:
        return 0
    return node.span.end_line if node.span.end_line is not None else node.span.line


# The items the layout writes on lines of their own: a comment inside a declaration stays with one.
_ANCHORS = (ast.Decl, ast.Stmt, ast.TestLine, ast.Prop, ast.PileDecl, ast.SectionEntry, ast.StepValues, ast.Axis, ast.Beyond,
            ast.Row, ast.Modifier, ast.ActionParam, ast.Allow, ast.Do, ast.TurnLoop, ast.PlayerTurns,
            ast.PlayerTurn, ast.Repeat)


@dataclass
class _Notes:
    """The comments of one item: comment lines just before it, the end-of-line comment of its
    first line (`head`) and of its last line (`end`), and comment lines after its last inner item
    (`tail`, written before its closing `}`)."""

    before: list[str] = field(default_factory=list)
    head: str | None = None
    end: str | None = None
    tail: list[str] = field(default_factory=list)


class _Places:
    """Where each comment inside a declaration goes, found from line numbers alone: the innermost
    item whose lines hold the comment owns it; an end-of-line comment ends the outermost item
    ending on its line (or opens the block whose first line it is on), and a comment line goes
    before the next item of that block (or at the end of the block)."""

    def __init__(self) -> None:
        self.notes: dict[int, _Notes] = {}
        self.busy: set[int] = set()  # items that hold a comment needing a line: never inline
        self._extents: dict[int, tuple[int, int] | None] = {}
        self._anchors: dict[int, list[ast.Node]] = {}

    def extent(self, node: ast.Node) -> tuple[int, int] | None:
        """First and last source line of `node` and everything in it."""
        key = id(node)
        if key not in self._extents:
            lines = []
            if node.span is not None:
                lines += [node.span.line, node.span.end_line or node.span.line]
            for child in children(node):
                inner = self.extent(child)
                if inner is not None:
                    lines += inner
            start = node.span.line if node.span is not None else (min(lines) if lines else None)
            self._extents[key] = (start, max(lines)) if lines else None
        return self._extents[key]

    def anchors(self, node: ast.Node) -> list[ast.Node]:
        """The items directly inside `node` (not inside one another), in source order."""
        key = id(node)
        if key not in self._anchors:
            found: list[ast.Node] = []
            todo = list(children(node))
            while todo:
                child = todo.pop(0)
                if isinstance(child, _ANCHORS):
                    if self.extent(child) is not None:
                        found.append(child)
                else:
                    todo[:0] = list(children(child))
            self._anchors[key] = sorted(found, key=lambda n: self.extent(n))
        return self._anchors[key]

    def _note(self, path: list[ast.Node], node: ast.Node, itself: bool = False) -> _Notes:
        """The notes of `node`; every item around it (and `node` itself, if `itself`) becomes busy."""
        for around in path:
            if around is node:
                break
            self.busy.add(id(around))
        if itself:
            self.busy.add(id(node))
        return self.notes.setdefault(id(node), _Notes())

    def place(self, decl: ast.Decl, line: int, text: str, trailing: bool, code: str | None = None) -> None:
        """`code`: for an end-of-line comment, the code before it on its line; one on a line that
        holds no item (``} else {``, ``do {``, ``base:``) is written as a line of its own marked
        to go back to the end of the line the layout writes for that code (`_glue`)."""
        path = [decl]
        while True:
            inner = next((a for a in self.anchors(path[-1]) if self.extent(a)[0] <= line <= self.extent(a)[1]), None)
            if inner is None:
                break
            path.append(inner)
        node = path[-1]
        if trailing:
            ending = next((n for n in path if self.extent(n)[1] == line), None)
            if ending is not None and self.notes.get(id(ending), _Notes()).end is None:
                self._note(path, ending).end = text
                return
            if self.extent(node)[0] == line and self.notes.get(id(node), _Notes()).head is None:
                self._note(path, node, itself=bool(self.anchors(node))).head = text
                return
        # a comment line (or an end-of-line comment on a line that holds no item)
        if trailing and code:
            text = f"{_GLUE}{code}{_GLUE}{text}"
        kids = self.anchors(node)
        if not kids:
            self._note(path, node).before.append(text)
            return
        following = next((k for k in kids if self.extent(k)[0] > line), None)
        if following is not None:
            self._note(path + [following], following).before.append(text)
        else:
            self._note(path, node, itself=True).tail.append(text)


# marks an end-of-line comment laid out on a line of its own until `_glue` puts it back at the end
# of the line of its code: `<_GLUE>code<_GLUE># comment`
_GLUE = "\x00"


def _glue(lines: list[str]) -> list[str]:
    """Put each marked end-of-line comment back at the end of the line just before it when that line
    is the code it ended (``} else {``, ``do {``; ``base:`` now followed by its expression) and ends
    with no comment; else it stays a comment line of its own, in its place and block."""
    out: list[str] = []
    for line in lines:
        body = line.lstrip()
        if not body.startswith(_GLUE):
            out.append(line)
            continue
        code, text = body[1:].split(_GLUE, 1)
        prev = out[-1] if out else ""
        if prev.strip() and "".join(prev.split()).startswith("".join(code.split())) and not scan_comments(prev):
            out[-1] = f"{prev}  {text}"
        else:
            out.append(line[:len(line) - len(body)] + text)
    return out


def _comment_lines(start: int, comments: list[tuple[int, str]]) -> list[str]:
    """Comment lines to print before an item that starts on line `start`."""
    lead = [c for c in comments if c[0] < start]
    inner = [c for c in comments if c[0] >= start]
    out: list[str] = []
    for i, (line, text) in enumerate(lead):
        out.append(text)
        following = lead[i + 1][0] if i + 1 < len(lead) else start
        if following - line > 1:
            out.append("")
    out += [text for _, text in inner]
    return out


# ---------------------------------------------------------------- modules
def format_module(module: ast.Module, comments: list[tuple[int, str]] | None = None,
                  trailing: set[int] | frozenset[int] = frozenset(), code: dict[int, str] | None = None) -> str:
    """The canonical text of a module. `comments` are (line, text) pairs from `scan_comments` of
    the text the module was parsed from, `trailing` the lines where a comment ends a line of code
    (the others are comment lines), `code` that code by line; without `comments` no comments are
    written."""
    code = code or {}
    layout = _Layout()
    items: list[ast.Node] = [*module.includes, *module.decls]
    attached: dict[int, list[tuple[int, str]]] = {id(item): [] for item in items}
    after_all: list[tuple[int, str]] = []
    by_line = sorted(items, key=_start)
    for comment in comments or []:
        target = None
        for item in by_line:
            if _start(item) <= comment[0] <= _end(item) or _start(item) > comment[0]:
                target = item
                break
        if target is None:
            after_all.append(comment)
        else:
            attached[id(target)].append(comment)

    paragraphs: list[list[str]] = []
    if module.includes:
        para: list[str] = []
        for inc in module.includes:
            own = [c for c in attached[id(inc)] if c[0] == _start(inc) and c[0] in trailing]
            para += _comment_lines(_start(inc), [c for c in attached[id(inc)] if c not in own])
            para.append(f"include {quote(inc.path)}" + "".join(f"  {text}" for _, text in own))
        paragraphs.append(para)
    for decl in module.decls:
        comments_of = attached[id(decl)]
        before = [c for c in comments_of if c[0] < _start(decl)]
        inside = [c for c in comments_of if c[0] >= _start(decl)]
        layout.places = _Places()
        for line, text in inside:
            layout.places.place(decl, line, text, line in trailing, code.get(line))
        lines = _glue(layout.decl(decl))
        written = Counter(c for _, c in scan_comments("\n".join(lines)))  # map bodies' comments too
        if Counter(c for _, c in inside) - written:
            # a comment the layout could not place: all of this declaration's go before it
            layout.places = _Places()
            before, lines = comments_of, layout.decl(decl)
        paragraphs.append(_comment_lines(_start(decl), before) + lines)
    layout.places = _Places()
    if after_all:
        para = []
        for i, (line, text) in enumerate(after_all):
            para.append(text)
            if i + 1 < len(after_all) and after_all[i + 1][0] - line > 1:
                para.append("")
        paragraphs.append(para)
    if not paragraphs:
        return ""
    return "\n\n".join("\n".join(p) for p in paragraphs) + "\n"


def dump_ast(node):
    """A plain, span-free dump that names each node's class (so `a and b` and `a or b` differ,
    unlike `model_dump()`, which writes an `Expr` field by its declared type, as `{}`)."""
    if isinstance(node, ast.Node):
        # spans and the author's parentheses are layout, not meaning
        return (type(node).__name__, {name: dump_ast(getattr(node, name)) for name in type(node).model_fields
                                      if name not in ("span", "parenthesized") and not name.endswith("_span")})
    if isinstance(node, (list, tuple)):
        return [dump_ast(x) for x in node]
    if isinstance(node, dict):
        return {k: dump_ast(v) for k, v in node.items()}
    if isinstance(node, Fraction):
        return ("Fraction", node.numerator, node.denominator)
    return node


def format_text(text: str, path: str = "<text>") -> str:
    """Parse `text` and return its canonical layout, keeping its comments.

    Raises DiagnosticError on a syntax error, or (code E-format) if the formatted text would not
    parse back to the same AST or would lose a comment."""
    from warcodex.dsl.parser import parse_text

    text = text.replace("\r\n", "\n")
    module = parse_text(text, path)
    comments = _comments_outside_maps(text, module)
    lines = text.split("\n")
    trailing = {line for line, _ in comments if not lines[line - 1].lstrip().startswith("#")}
    code = {line: lines[line - 1].rstrip()[:-len(text)].strip() for line, text in comments if line in trailing}
    out = format_module(module, comments, trailing, code)
    _verify(module, comments, out, path)
    return out


def _verify(module: ast.Module, comments: list[tuple[int, str]], out: str, path: str) -> None:
    from warcodex.dsl.parser import parse_text

    where = Span(path, 1, 1)
    hint = "this is a formatter bug or information the parser cannot read back: please report it"
    try:
        again = parse_text(out, f"{path} (formatted)")
    except DiagnosticError as exc:
        detail = exc.diagnostics[0].message if exc.diagnostics else "syntax error"
        raise DiagnosticError([Diagnostic(
            Severity.ERROR, "E-format", f"the formatted text would not parse ({detail}); the file is left as it is",
            where, hint)]) from None
    if dump_ast(again.includes) != dump_ast(module.includes) or dump_ast(again.decls) != dump_ast(module.decls):
        raise DiagnosticError([Diagnostic(
            Severity.ERROR, "E-format", "formatting would change the meaning of this file; it is left as it is",
            where, hint)])
    if sorted(c for _, c in _comments_outside_maps(out, again)) != sorted(c for _, c in comments):
        raise DiagnosticError([Diagnostic(
            Severity.ERROR, "E-format", "formatting would lose a comment; the file is left as it is", where, hint)])


# ---------------------------------------------------------------- the fmt command
def _wcx_files(root: Path) -> list[Path]:
    found = []
    for p in root.rglob("*.wcx"):
        rel = p.relative_to(root)
        if p.is_file() and not any(part.startswith(".") for part in rel.parts[:-1]):
            found.append(p)
    return sorted(found)


def format_path(path: Path, check: bool = False) -> tuple[bool, str]:
    """Format one .wcx file, or every .wcx file under a folder, in place.

    Returns (changed, report): whether any file was (or, with `check=True`, would be) rewritten,
    and a human-readable report naming those files. With `check=True` nothing is written. Files
    are written atomically (a temporary file in the same folder, then `os.replace`). If any file
    cannot be read or parsed, nothing at all is written and DiagnosticError carries every problem.
    """
    path = Path(path)
    if path.is_dir():
        files = _wcx_files(path)
    elif path.exists():
        files = [path]
    else:
        raise DiagnosticError([Diagnostic(Severity.ERROR, "E-fmt", f"no such file or folder: {path}")])
    errors: list[Diagnostic] = []
    changes: list[tuple[Path, str]] = []
    for f in files:
        try:
            raw = inputs.read_text(f, inputs.MAX_RULES_BYTES, "rules file")
        except inputs.InputError as exc:
            errors.append(input_diagnostic(exc, "E-fmt", None))
            continue
        try:
            new = format_text(raw, str(f))
        except DiagnosticError as exc:
            errors.extend(exc.diagnostics)
            continue
        if new != raw:
            changes.append((f, new))
    if errors:
        raise DiagnosticError(errors)
    if not check:
        for f, new in changes:
            write_atomic(f.resolve(), new)  # through a symbolic link, the file it names; its mode is kept
    verb = "would reformat" if check else "reformatted"
    report = [f"{verb} {f}" for f, _ in changes]
    unchanged = len(files) - len(changes)
    summary = f"{len(changes)} file{'s' if len(changes) != 1 else ''} {verb}, {unchanged} unchanged"
    if not files:
        summary = f"no .wcx files under {path}"
    report.append(summary)
    return bool(changes), "\n".join(report)
