"""Completion: section numbers after `§` (with titles), fields after `.`, otherwise the names in
scope (the game's declarations and the locals of the enclosing declaration), the standard
library's functions with their signatures, its constants, and the grammar's keywords."""

from __future__ import annotations

import re

from lsprotocol import types as T

from warcodex.dsl import ast, stdlib
from warcodex.lsp.describe import STATUS_WORDS, builtin_signature, kind_of, signature
from warcodex.lsp.keywords import keywords
from warcodex.lsp.project import ParsedFile
from warcodex.lsp.resolve import GameIndex

_SECTION_BEFORE = re.compile(r"§([A-Za-z0-9._\-]*)$")
_FIELD_BEFORE = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)?$")
_WORD_BEFORE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_TYPE_BEFORE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\s*:\s*([A-Za-z_][A-Za-z0-9_]*)?$")

KINDS = {
    "unit": T.CompletionItemKind.Class, "terrain": T.CompletionItemKind.EnumMember,
    "edge": T.CompletionItemKind.EnumMember, "feature": T.CompletionItemKind.EnumMember,
    "marker": T.CompletionItemKind.EnumMember, "class": T.CompletionItemKind.Interface,
    "side": T.CompletionItemKind.Constant, "alliance": T.CompletionItemKind.Constant,
    "option": T.CompletionItemKind.Constant, "family": T.CompletionItemKind.Enum, "quantity": T.CompletionItemKind.Function,
    "function": T.CompletionItemKind.Function, "procedure": T.CompletionItemKind.Method,
    "action": T.CompletionItemKind.Event, "result": T.CompletionItemKind.EnumMember,
    "table": T.CompletionItemKind.Struct, "movement": T.CompletionItemKind.Module,
    "vardecl": T.CompletionItemKind.Variable, "scenario": T.CompletionItemKind.Module,
    "invariant": T.CompletionItemKind.Module, "phase": T.CompletionItemKind.Module,
    "deck": T.CompletionItemKind.Struct, "card": T.CompletionItemKind.Value,
}


def complete(index: GameIndex | None, pf: ParsedFile | None, line_text: str, line: int, col: int) -> list[T.CompletionItem]:
    before = line_text[:col]
    game = index.game if index is not None else None
    m = _SECTION_BEFORE.search(before)
    if m:
        return _sections(game, line, col - len(m.group(1)), col)
    m = _FIELD_BEFORE.search(before)
    if m and not re.search(r"[0-9]\.$", before[: len(before) - len(m.group(1) or "")]):
        return _fields(index)
    m = _TYPE_BEFORE.search(before)
    if m and re.search(r"\(|\b(?:var|side_var|unit_var|location_var)\b", before):
        return [T.CompletionItem(label=t, kind=T.CompletionItemKind.TypeParameter, detail="type") for t in stdlib.TYPES]
    return _names(index, pf, line)


def _sections(game, line: int, start: int, end: int) -> list[T.CompletionItem]:
    if game is None:
        return []
    from warcodex.dsl.coverage import coverage

    status = {c.number: c.status for c in coverage(game)}
    items = []
    for i, (number, entry) in enumerate(game.sections.items()):
        items.append(T.CompletionItem(
            label=number, kind=T.CompletionItemKind.Reference, detail=entry.title,
            label_details=T.CompletionItemLabelDetails(detail=f"  {entry.title}",
                                                       description=STATUS_WORDS.get(status.get(number, ""), "")),
            sort_text=f"{i:05d}", filter_text=number,
            text_edit=T.TextEdit(range=T.Range(T.Position(line, start), T.Position(line, end)), new_text=number)))
    return items


def _fields(index: GameIndex | None) -> list[T.CompletionItem]:
    items = {name: T.CompletionItem(label=name, kind=T.CompletionItemKind.Field, detail=f"{typ} — {doc}")
             for name, (typ, doc) in stdlib.UNIT_FIELDS.items()}
    game = index.game if index is not None else None
    if game is not None:
        for decl in game.names.values():
            if isinstance(decl, ast.VarDecl) and decl.scope != "var":
                items.setdefault(decl.name, T.CompletionItem(label=decl.name, kind=T.CompletionItemKind.Variable,
                                                             detail=signature(decl)))
        for u in game.units:
            for p in list(u.props) + [p for sv in u.step_values for p in sv.props]:
                items.setdefault(p.key, T.CompletionItem(label=p.key, kind=T.CompletionItemKind.Property,
                                                         detail="unit property"))
        for t in game.entities("terrain"):
            for p in t.props:
                items.setdefault(p.key, T.CompletionItem(label=p.key, kind=T.CompletionItemKind.Property,
                                                         detail="terrain property"))
    return list(items.values())


def _names(index: GameIndex | None, pf: ParsedFile | None, line: int) -> list[T.CompletionItem]:
    items: dict[str, T.CompletionItem] = {}
    if pf is not None and pf.names is not None:
        scope = pf.names.scope_at(line)
        for name, occ in pf.names.locals.get(scope, {}).items():
            items[name] = T.CompletionItem(label=name, kind=T.CompletionItemKind.Variable, detail="local",
                                           sort_text="0" + name)
    if index is not None:
        for name, decls in index.decls.items():
            decl = decls[0][1]
            kind = kind_of(decl)
            items.setdefault(name, T.CompletionItem(
                label=name, kind=KINDS.get(kind, T.CompletionItemKind.Text), detail=signature(decl),
                documentation=decl.header.label, sort_text="1" + name))
    for b in stdlib.BUILTINS.values():
        items.setdefault(b.name, T.CompletionItem(
            label=b.name, kind=T.CompletionItemKind.Function, detail=builtin_signature(b),
            documentation=T.MarkupContent(kind=T.MarkupKind.Markdown, value=b.doc),
            insert_text=f"{b.name}($1)", insert_text_format=T.InsertTextFormat.Snippet, sort_text="2" + b.name))
    for name, (typ, doc) in stdlib.CONSTANTS.items():
        items.setdefault(name, T.CompletionItem(label=name, kind=T.CompletionItemKind.Constant,
                                                detail=f"{name}: {typ}", documentation=doc, sort_text="2" + name))
    for word in keywords():
        items.setdefault(word, T.CompletionItem(label=word, kind=T.CompletionItemKind.Keyword, sort_text="3" + word))
    return list(items.values())
