"""Semantic tokens: each name coloured by what it denotes (a unit type, a quantity, a local, a
built-in...), plus citations, provenance, literals, keyword terminals and comments.

Keywords written as plain strings in the grammar (`quantity`, `when`...) do not reach the parse
tree; editors colour them with the TextMate grammar (`editors/vscode/syntaxes`), which semantic
tokens refine.
"""

from __future__ import annotations

from lark import Token, Tree

from warcodex.dsl.formatter import scan_comments
from warcodex.lsp import names as N
from warcodex.lsp.keywords import grammar_words
from warcodex.lsp.project import ParsedFile
from warcodex.lsp.resolve import GameIndex

TOKEN_TYPES = ["namespace", "type", "class", "enum", "interface", "struct", "parameter", "variable", "property",
               "enumMember", "event", "function", "method", "macro", "keyword", "comment", "string", "number",
               "operator", "decorator"]
TOKEN_MODIFIERS = ["declaration", "readonly", "defaultLibrary", "modification"]

_DECL_TYPES = {"unit": "class", "class": "interface", "terrain": "enumMember", "edge": "enumMember",
               "feature": "enumMember", "marker": "enumMember", "side": "enum", "alliance": "enum", "option": "variable", "family": "enum",
               "quantity": "function", "function": "function", "procedure": "method", "action": "event",
               "result": "enumMember", "table": "struct", "movement": "namespace", "vardecl": "variable",
               "scenario": "namespace", "invariant": "namespace", "phase": "namespace", "deck": "struct",
               "card": "enumMember", "game": "namespace"}
_LITERALS = {"STRING": "string", "INT": "number", "SIGNED_INT": "number", "DECIMAL": "number", "ODDS": "number",
             "DICE": "number", "PROVENANCE": "decorator"}


def _type_of(index: GameIndex, pf: ParsedFile, occ: N.Occurrence) -> tuple[str, int] | None:
    from warcodex.lsp.describe import kind_of

    if occ.role in (N.CITATION, N.SECTION):
        return "macro", 0
    if occ.role == N.KEY:
        return "property", 0
    target = index.resolve(pf, occ)
    decl_bit = 1 if occ.role in (N.DECL, N.BINDER) else 0
    if target.kind == "decl":
        return _DECL_TYPES.get(kind_of(target.decls[0][1]), "variable"), decl_bit
    if target.kind == "local":
        return "parameter", decl_bit
    if target.kind == "builtin":
        return "function", 4
    if target.kind == "constant":
        return "variable", 2 | 4
    if target.kind == "event":
        return "event", 0
    if target.kind in ("field", "property"):
        return "property", 0
    if target.kind == "type":
        return "type", 4
    return None


def semantic_tokens(index: GameIndex, pf: ParsedFile, to_client=lambda line, col: col) -> list[int]:
    """The LSP's relative encoding: (delta line, delta start, length, type, modifiers) per token.
    `to_client(line, col)` converts a column in code points to the client's units (UTF-16...)."""
    if pf.tree is None or pf.names is None or pf.stale:
        return []
    found: list[tuple[int, int, int, int, int]] = []
    for occ in pf.names.occurrences:
        typed = _type_of(index, pf, occ)
        if typed is not None:
            found.append((occ.line, occ.col, occ.end - occ.col, TOKEN_TYPES.index(typed[0]), typed[1]))
    seen = {(t[0], t[1]) for t in found}
    keyword_terminals = set(grammar_words())
    for tok in _tokens(pf.tree):
        where = (tok.line - 1, tok.column - 1)
        if where in seen or tok.end_line != tok.line:
            continue
        kind = _LITERALS.get(tok.type) or ("keyword" if tok.type in keyword_terminals else None)
        if kind is not None:
            found.append((where[0], where[1], len(str(tok)), TOKEN_TYPES.index(kind), 0))
    lines = pf.text.split("\n")
    for line, comment in scan_comments(pf.text):
        text = lines[line - 1].rstrip()
        found.append((line - 1, len(text) - len(comment), len(comment), TOKEN_TYPES.index("comment"), 0))
    found.sort()
    data: list[int] = []
    prev_line = prev_col = 0
    for line, col, length, typ, mods in found:
        start, end = to_client(line, col), to_client(line, col + length)
        col, length = start, end - start
        data += [line - prev_line, col - prev_col if line == prev_line else col, length, typ, mods]
        prev_line, prev_col = line, col
    return data


def _tokens(tree: Tree):
    stack = [tree]
    while stack:
        t = stack.pop()
        for child in t.children:
            if isinstance(child, Tree):
                stack.append(child)
            elif isinstance(child, Token):
                yield child
