"""Where each name of a file occurs, and in what role, read from Lark's parse tree.

The AST drops the positions of most names (a tag after `is`, a table code, an `allow` list...),
so the language server reads them from the parse tree, where every NAME token sits in a grammar
rule. A NAME's role follows from its rule, with the rules that are *not* plain uses of a name
listed below; any other rule (a construct added to the grammar later included) is taken to use
names, which is what nearly every new construct does. Declared names are found from the AST
(each declaration's header span), so a new kind of declaration needs no change here either.

Positions are 0-based lines and 0-based columns in code points (Lark counts characters).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from lark import Token, Tree

from warcodex.dsl import ast

# Rules whose NAME children bind a local name, and which of their NAME children does
# (`sum(x for u in xs)`: the second NAME of `comprehension` is the variable).
BINDERS = {"let_stmt": 0, "for_stmt": 0, "choose_stmt": 0, "reroll_stmt": 0, "action_param": 0, "param": 0,
           "comprehension": 1}
# Rules whose NAME children are keys of the construct, never uses of a declared name.
KEYS = {"prop_key": None, "translation": None, "kwarg": 0, "table_prop": 0, "action_prop": 0, "columns": None,
        "rows": None}
# `x.NAME`: a field of a value (a unit's property, a unit_var...).
FIELDS = {"attr", "target_attr"}
# A type annotation (`u: unit`).
TYPES = {"type_ref"}
# A section number: cited (`§7.3`) or listed in a `sections` block.
SECTION_LIST = "section_entry"

# roles
DECL = "decl"        # the name a declaration introduces
EVENT = "event"      # the event of a trigger (`on enter(...)`): the trigger's header name
BINDER = "binder"    # a local binding: parameter, let, for, choose, comprehension variable
USE = "use"          # a use of a name: global, local, builtin or unknown (resolved by the caller)
FIELD = "field"      # after a dot
KEY = "key"          # a property key, a keyword argument, a language code, an axis kind
TYPE = "type"
CITATION = "citation"  # §N in a citation
SECTION = "section"    # §N where the sections block lists it


@dataclass(frozen=True)
class Occurrence:
    name: str     # the token's text (a section number without its §)
    role: str
    line: int
    col: int
    end: int      # exclusive end column, on the same line
    rule: str     # the grammar rule the token sits in
    scope: int    # the top-level item of the file it belongs to (locals resolve within it)

    def contains(self, line: int, col: int) -> bool:
        return self.line == line and self.col <= col <= self.end


@dataclass
class FileNames:
    """Every name token of one file, in file order, with the local bindings of each scope."""

    occurrences: list[Occurrence] = field(default_factory=list)
    # scope -> local name -> its first binding
    locals: dict[int, dict[str, Occurrence]] = field(default_factory=dict)
    # scope -> the top-level item's line range (first, last), 0-based, inclusive
    scopes: list[tuple[int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._keys = [(o.line, o.col) for o in self.occurrences]

    def at(self, line: int, col: int) -> Occurrence | None:
        """The name token under (or just after) the cursor."""
        i = bisect.bisect_right(self._keys, (line, col)) - 1
        for j in (i, i + 1):
            if 0 <= j < len(self.occurrences) and self.occurrences[j].contains(line, col):
                return self.occurrences[j]
        return None

    def scope_at(self, line: int) -> int | None:
        for i, (first, last) in enumerate(self.scopes):
            if first <= line <= last:
                return i
        return None

    def is_local(self, occ: Occurrence) -> bool:
        return occ.role == BINDER or (occ.role == USE and occ.name in self.locals.get(occ.scope, {}))

    def local_binding(self, occ: Occurrence) -> Occurrence | None:
        return self.locals.get(occ.scope, {}).get(occ.name)


def declared_spans(module: ast.Module) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """The (line, col) of every declaration's name token, and of every trigger's event name."""
    decls: set[tuple[int, int]] = set()
    events: set[tuple[int, int]] = set()
    for decl in iter_decls(module):
        span = decl.header.span
        if span is None or span.end_line != span.line or span.end_column - span.column != len(decl.name):
            continue  # `sections`, `sequence`: no name token of their own
        (events if isinstance(decl, ast.Trigger) else decls).add((span.line - 1, span.column - 1))
    return decls, events


def iter_decls(node):
    """Every declaration in an AST (nested ones included: phases, cards, scenario overrides)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.Node):
            if isinstance(n, ast.Decl):
                yield n
            if isinstance(n, (ast.Expr, ast.Header)):
                continue  # no declaration lives inside these
            for key in type(n).__pydantic_fields__:
                if key != "span":
                    stack.append(getattr(n, key))
        elif isinstance(n, (list, tuple)):
            stack.extend(reversed(n))


def _map_name(tok: Token, rule: str, scope: int, decls) -> Occurrence | None:
    """The board name in a MAP_TEXT token (a test board of a tests file, `map fragment { ... }`):
    declared by `map NAME "Label" {`, used by a test's `map NAME { more }`."""
    import re

    m = re.match(r"map\s+([A-Za-z_][A-Za-z0-9_]*)", str(tok))
    if m is None:
        return None
    before = str(tok)[:m.start(1)]
    line = tok.line - 1 + before.count("\n")
    col = (m.start(1) - before.rfind("\n") - 1) if "\n" in before else tok.column - 1 + m.start(1)
    role = DECL if (line, col) in decls else USE
    return Occurrence(m.group(1), role, line, col, col + len(m.group(1)), rule, scope)


def index_file(tree: Tree, module: ast.Module) -> FileNames:
    decls, events = declared_spans(module)
    occurrences: list[Occurrence] = []
    scopes: list[tuple[int, int]] = []
    local_maps: dict[int, dict[str, Occurrence]] = {}

    def token(tok: Token, role: str, rule: str, scope: int) -> Occurrence:
        text = str(tok)
        name = text[1:] if tok.type == "SECTION" else text
        return Occurrence(name, role, tok.line - 1, tok.column - 1, tok.column - 1 + len(text), rule, scope)

    def visit(tree: Tree, scope: int) -> None:
        rule = str(tree.data)
        names = 0
        for child in tree.children:
            if isinstance(child, Tree):
                visit(child, scope)
                continue
            if not isinstance(child, Token):
                continue
            if child.type == "SECTION":
                occurrences.append(token(child, SECTION if rule == SECTION_LIST else CITATION, rule, scope))
                continue
            if child.type == "MAP_TEXT":  # `map NAME { ... }` of a tests file: one token; its name
                occ = _map_name(child, rule, scope, decls)
                if occ is not None:
                    occurrences.append(occ)
                continue
            if child.type != "NAME" and rule != "prop_key":
                continue
            index, names = names, names + 1
            where = (child.line - 1, child.column - 1)
            if where in decls:
                role = DECL
            elif where in events:
                role = EVENT
            elif rule in BINDERS and BINDERS[rule] == index:
                role = BINDER
            elif rule in KEYS and KEYS[rule] in (None, index):
                role = KEY
            elif rule in FIELDS:
                role = FIELD
            elif rule in TYPES:
                role = TYPE
            else:
                role = USE
            occ = token(child, role, rule, scope)
            occurrences.append(occ)
            if role == BINDER:
                local_maps.setdefault(scope, {}).setdefault(occ.name, occ)

    for i, item in enumerate(tree.children):
        if isinstance(item, Tree):
            meta = item.meta
            scopes.append((meta.line - 1, meta.end_line - 1) if not meta.empty else (-1, -1))
            visit(item, i)
        else:
            scopes.append((-1, -1))
    occurrences.sort(key=lambda o: (o.line, o.col))
    result = FileNames(occurrences=occurrences, locals=local_maps, scopes=scopes)
    return result
