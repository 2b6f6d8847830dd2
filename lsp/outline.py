"""The outline of the rules: document symbols grouped by the section each declaration cites first,
workspace symbols, and a code lens on each entry of the sections list (how far it is encoded)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as T

from warcodex.dsl import ast
from warcodex.dsl.coverage import SectionCoverage
from warcodex.lsp import names as N
from warcodex.lsp.describe import STATUS_WORDS, kind_of, signature

SYMBOL_KINDS = {
    "unit": T.SymbolKind.Class, "quantity": T.SymbolKind.Function, "function": T.SymbolKind.Function,
    "procedure": T.SymbolKind.Method, "action": T.SymbolKind.Event, "trigger": T.SymbolKind.Event,
    "table": T.SymbolKind.Struct, "result": T.SymbolKind.EnumMember, "movement": T.SymbolKind.Module,
    "vardecl": T.SymbolKind.Variable, "scenario": T.SymbolKind.Package, "invariant": T.SymbolKind.Boolean,
    "sequence": T.SymbolKind.Namespace, "phase": T.SymbolKind.Namespace, "game": T.SymbolKind.File,
    "deck": T.SymbolKind.Array, "card": T.SymbolKind.Object, "sections": T.SymbolKind.Namespace,
    "side": T.SymbolKind.Constant, "alliance": T.SymbolKind.Constant, "option": T.SymbolKind.Boolean, "family": T.SymbolKind.Enum,
    "terrain": T.SymbolKind.EnumMember, "edge": T.SymbolKind.EnumMember, "feature": T.SymbolKind.EnumMember,
    "marker": T.SymbolKind.EnumMember, "class": T.SymbolKind.Interface,
}


def _range(span, fallback: T.Range | None = None) -> T.Range:
    if span is None:
        return fallback or T.Range(T.Position(0, 0), T.Position(0, 0))
    end_line = (span.end_line or span.line) - 1
    end_col = (span.end_column or span.column + 1) - 1
    return T.Range(T.Position(span.line - 1, span.column - 1), T.Position(end_line, end_col))


def _decl_symbol(decl: ast.Decl) -> T.DocumentSymbol:
    whole = _range(decl.span)
    header = decl.header.span
    selection = _range(header, whole) if header is not None and header.end_line == header.line else whole
    if not (whole.start.line <= selection.start.line and selection.end.line <= whole.end.line):
        selection = whole
    children: list[T.DocumentSymbol] = []
    if isinstance(decl, ast.Quantity):
        for m in decl.modifiers:
            r = _range(m.span, whole)
            children.append(T.DocumentSymbol(name=m.label or m.op, kind=T.SymbolKind.Operator, range=r,
                                             selection_range=r, detail="modifier " + " ".join("§" + c for c in m.citations)))
    for child in _nested(decl):
        children.append(_decl_symbol(child))
    name = decl.name if not isinstance(decl, ast.Trigger) else f"on {decl.name}"
    return T.DocumentSymbol(name=name, kind=SYMBOL_KINDS.get(kind_of(decl), T.SymbolKind.Object), range=whole,
                            selection_range=selection, detail=decl.header.label or signature(decl),
                            children=children or None)


def _nested(decl: ast.Decl) -> list[ast.Decl]:
    """Declarations directly inside another (phases of a sequence, cards, scenario overrides)."""
    return [d for d in N.iter_decls(decl) if d is not decl and d.span is not None and _parent_of(decl, d)]


def _parent_of(parent: ast.Decl, child: ast.Decl) -> bool:
    # the nearest enclosing declaration: no other declaration of `parent` strictly contains `child`
    for other in N.iter_decls(parent):
        if other is parent or other is child or other.span is None:
            continue
        if _contains(other.span, child.span):
            return False
    return True


def _contains(outer, inner) -> bool:
    return (outer.line, outer.column) <= (inner.line, inner.column) and \
        ((inner.end_line or 0), (inner.end_column or 0)) <= ((outer.end_line or 0), (outer.end_column or 0))


def document_symbols(module: ast.Module, sections: dict) -> list[T.DocumentSymbol]:
    """Top-level declarations, grouped under the section each cites first (in file order)."""
    groups: dict[str, list[T.DocumentSymbol]] = {}
    order: list[str | None] = []
    out: list[T.DocumentSymbol | tuple] = []
    for decl in module.decls:
        if decl.span is None:
            continue
        sym = _decl_symbol(decl)
        cites = decl.header.citations
        if not cites or isinstance(decl, (ast.Sections, ast.Game)):
            out.append(sym)
            continue
        number = cites[0]
        if number not in groups:
            groups[number] = []
            out.append(("group", number))
        groups[number].append(sym)
    result = []
    for item in out:
        if isinstance(item, tuple):
            number = item[1]
            members = groups[number]
            entry = sections.get(number)
            title = f"§{number} {entry.title}" if entry else f"§{number}"
            r = T.Range(members[0].range.start, members[-1].range.end)
            result.append(T.DocumentSymbol(name=title, kind=T.SymbolKind.Namespace, range=r,
                                           selection_range=members[0].selection_range, children=members,
                                           detail=f"{len(members)} declaration(s)"))
        else:
            result.append(item)
    return result


def workspace_symbols(files: list[tuple[str, ast.Module]], query: str, uri_of) -> list[T.WorkspaceSymbol]:
    q = query.lower()
    out = []
    for path, module in files:
        for decl in N.iter_decls(module):
            if decl.span is None or decl.header.span is None or isinstance(decl, (ast.Sections, ast.Sequence)):
                continue
            name = decl.name if not isinstance(decl, ast.Trigger) else f"on {decl.name}"
            if q and not _fuzzy(q, name.lower()):
                continue
            out.append(T.WorkspaceSymbol(
                name=name, kind=SYMBOL_KINDS.get(kind_of(decl), T.SymbolKind.Object),
                location=T.Location(uri=uri_of(path), range=_range(decl.header.span)),
                container_name=f"{Path(path).name}" + (f" §{decl.header.citations[0]}" if decl.header.citations else "")))
    return out


def _fuzzy(query: str, name: str) -> bool:
    """Every character of the query, in order (`atst` finds `attack_strength`)."""
    it = iter(name)
    return all(ch in it for ch in query)


def section_lenses(module: ast.Module, coverage: dict[str, SectionCoverage], tests: dict[str, int] | None = None) -> list[T.CodeLens]:
    """Above each entry of a sections list: its coverage status and how many constructs cite it."""
    lenses = []
    for decl in module.decls:
        if not isinstance(decl, ast.Sections):
            continue
        for entry in decl.entries:
            c = coverage.get(entry.number)
            if c is None or entry.span is None:
                continue
            parts = [STATUS_WORDS.get(c.status, c.status)]
            parts.append(f"{len(c.cited_by)} construct" + ("" if len(c.cited_by) == 1 else "s"))
            if tests is not None:
                n = tests.get(entry.number, 0)
                parts.append(f"{n} test" + ("" if n == 1 else "s"))
            line = entry.span.line - 1
            lenses.append(T.CodeLens(range=T.Range(T.Position(line, 0), T.Position(line, 0)),
                                     command=T.Command(title=" · ".join(parts), command="")))
    return lenses
