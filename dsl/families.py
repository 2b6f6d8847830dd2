"""Result families: how a game groups the results of a table so that a player can read its odds
(the declarations and their matching; the facts model gives each table its families,
`TableFacts.families` and `cell_family`).

A game declares them (docs/language.md, "Result families"), each with its provenance:

    family exchange "Both sides lose a step" §10.1 derived "the A1/D1, DRX and EX rows of §10.1" {
      table: crt
      results: ["EX", "DRX", "A1/D1"]
    }

`table` is the table grouped, or a list of tables printing the same codes (`table: [german_crt,
soviet_crt]`). `results` are *patterns*: a result name (`"EX"`: every cell with that code, `"DR"`: `DR1` and
`DR2`), or several joined by `/` (`"A1/D1"`: a cell with both codes). A cell belongs to the family
of its most specific matching pattern (the most codes), the first family declared on a tie; codes
in no pattern (`Adv2`, a colour code) do not count. The families of a table are listed in the
order declared: the aids order and colour a chart's results by it, from the attacker's worst to
the defender's worst.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.dsl import ast


@dataclass
class ResultFamily:
    name: str
    decl: ast.Entity
    tables: list[str]
    patterns: list[tuple[str, ...]]  # result names a cell must all have
    provenance: str  # rulebook, player_aid, derived, provisional
    note: str | None
    spans: list = field(default_factory=list)  # the span of each pattern (checker errors)


def declared_families(game) -> list[ResultFamily]:
    """Every `family` of the game, in the order declared (malformed ones as far as they go; the
    checker reports them)."""
    out = []
    for decl in game.entities("family"):
        props = {p.key: p for p in decl.props}
        table = props.get("table")
        named = table.value.items if table is not None and isinstance(table.value, ast.ListLit) else [table.value] if table else []
        tables = [t.id if isinstance(t, ast.Name) else "" for t in named]
        patterns, spans = [], []
        results = props.get("results")
        items = results.value.items if results is not None and isinstance(results.value, ast.ListLit) else []
        for item in items:
            if isinstance(item, ast.Str):
                patterns.append(tuple(code.strip() for code in item.value.split("/")))
                spans.append(item.span)
        prov = decl.header.provenance
        out.append(ResultFamily(decl.name, decl, tables, patterns, prov.kind if prov else "rulebook",
                                prov.note if prov else None, spans))
    return out


def families_of(game, table: str) -> list[ResultFamily]:
    return [f for f in declared_families(game) if table in f.tables]


def family_of(families: list[ResultFamily], codes) -> int | None:
    """The index of the family of a cell whose codes are the result names `codes`, or None."""
    have = set(codes)
    best, best_size = None, 0
    for i, fam in enumerate(families):
        for pattern in fam.patterns:
            if len(pattern) > best_size and have.issuperset(pattern):
                best, best_size = i, len(pattern)
    return best


def cell_results(cell) -> tuple[str, ...]:
    """The result names of a compiled cell (the engine's CellValue: codes resolved to results)."""
    return tuple(c.result.name for c in getattr(cell, "codes", ()) if getattr(c, "result", None) is not None)
