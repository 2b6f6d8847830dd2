"""The coverage report: which rulebook sections the rules encode, partly encode, or not yet.

A section is *encoded* when some construct cites it (or all its subsections are encoded),
*partial* when the designer marks it so in `sections { }` (with the reason) or when only some of
its subsections are encoded, and *not encoded* otherwise. Every construct that cites a section is
listed under it, so a rules lawyer can go from the rulebook to the encoding and back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.dsl.formatter import format_cell
from warcodex.dsl.model import GameDef
from warcodex.dsl.walk import children


@dataclass
class SectionCoverage:
    number: str
    title: str
    status: str  # encoded | partial | not_encoded | not_applicable
    note: str | None = None
    cited_by: list[str] = field(default_factory=list)
    depth: int = 0
    tested_by: list[str] = field(default_factory=list)  # rule tests citing it (tests/*.wcx)


def citing_constructs(game: GameDef) -> dict[str, list[str]]:
    """Section number -> descriptions of the constructs that cite it."""
    found: dict[str, list[str]] = {}

    def add(cites, what: str) -> None:
        for c in cites:
            lst = found.setdefault(c, [])
            if what not in lst:
                lst.append(what)

    def visit(node, owner: str) -> None:  # the owner: the innermost declaration around node
        if isinstance(node, ast.Modifier):
            add(node.citations, f"{owner}: modifier '{node.label or node.op}'")
        elif isinstance(node, (ast.Require, ast.Choose, ast.Beyond, ast.ActionParam, ast.Prop)) and getattr(node, "citations", None):
            add(node.citations, f"{owner}: {_describe(node)}".rstrip())
        elif isinstance(node, ast.Step):
            add(node.citations, f"{owner}: step '{node.label}'")
        elif isinstance(node, ast.Reroll):
            add(node.citations, f"{owner}: reroll {node.var}" + (f" '{node.label}'" if node.label else ""))
        elif isinstance(node, ast.SEQUENCE_BLOCKS):
            add(node.citations, f"{owner}: {node.label or type(node).__name__}")
        if isinstance(node, ast.Decl) and node is not None:
            kind = getattr(node, "kind", None) or type(node).__name__.lower()
            what = f"{kind} {node.name}" + (f" \"{node.header.label}\"" if node.header.label else "")
            add(node.header.citations, what)
            add(getattr(node, "base_citations", []) or [], f"{what}: base")
            owner = what
        for child in children(node):
            visit(child, owner)

    for decl in game.decls:
        visit(decl, "")
    return found


def _describe(node) -> str:
    """A rule inside a declaration, in words (never a raw Python object)."""
    if isinstance(node, ast.Beyond):
        what = {"use": f"use {node.use.text()}" if node.use else "use", "illegal": "illegal",
                "result": f"result {format_cell(node.cell)}" if node.cell else "result"}[node.action]
        return f"beyond {node.direction} {node.key.text()} {what}"
    if isinstance(node, ast.Choose):
        return f"choose {node.var}"
    if isinstance(node, ast.ActionParam):
        return f"parameter {node.name}"
    if isinstance(node, ast.Prop):
        return f"prop {node.key}"
    return f"require {node.message or ''}".rstrip()


def _parent(number: str) -> str | None:
    return number.rsplit(".", 1)[0] if "." in number else None


def tests_citing(tests) -> dict[str, list[str]]:
    """Section number -> names of the rule tests that cite it."""
    found: dict[str, list[str]] = {}
    for test in tests:
        for c in test.header.citations:
            found.setdefault(c, []).append(test.name)
    return found


def coverage(game: GameDef, tests=(), board=None) -> list[SectionCoverage]:
    """The coverage of the game's rules (declarations of its tests folder never count: load the
    game without tests); `tests`, the game's rule tests, fill the "tested" column; `board`, the
    loaded map, adds the sections its statements cite."""
    cites = citing_constructs(game)
    for number, _span, what in getattr(board, "citations", ()):
        listed = cites.setdefault(number, [])
        if f"map: {what}" not in listed:
            listed.append(f"map: {what}")
    tested = tests_citing(tests)
    entries = list(game.sections.values())
    children: dict[str, list[str]] = {}
    for e in entries:
        p = _parent(e.number)
        if p in game.sections:
            children.setdefault(p, []).append(e.number)
    result: dict[str, SectionCoverage] = {}

    def status_of(number: str) -> SectionCoverage:
        if number in result:
            return result[number]
        e = game.sections[number]
        depth = number.count(".")
        cov = SectionCoverage(number, e.title, "not_encoded", e.note, cites.get(number, []), depth,
                              tested.get(number, []))
        kids = [status_of(k) for k in children.get(number, [])]
        if e.status:
            cov.status = e.status
        elif cov.cited_by:
            cov.status = "encoded"
            missing = [k.number for k in kids if k.status in ("not_encoded", "partial")]
            if missing:
                cov.status = "partial"
                cov.note = "subsections not fully encoded: " + ", ".join("§" + m for m in missing)
        elif kids:
            done = [k for k in kids if k.status in ("encoded", "not_applicable")]
            if len(done) == len(kids):
                cov.status = "encoded"
                cov.note = "through its subsections"
            elif any(k.status in ("encoded", "partial") for k in kids):
                cov.status = "partial"
                cov.note = "subsections not fully encoded: " + ", ".join("§" + k.number for k in kids if k not in done)
        result[number] = cov
        return cov

    return [status_of(e.number) for e in entries]


def summary(report: list[SectionCoverage]) -> dict[str, int]:
    out = {"encoded": 0, "partial": 0, "not_encoded": 0, "not_applicable": 0}
    for c in report:
        out[c.status] += 1
    return out


def tested_count(report: list[SectionCoverage]) -> int:
    """How many sections at least one rule test cites."""
    return sum(1 for c in report if c.tested_by)


def unknown_citations(game: GameDef) -> list[str]:
    return sorted(set(citing_constructs(game)) - set(game.sections))
