"""Tables as facts: each compiled table (columns, rows, resolved cells, beyond-the-table rules)
with its provenance, and the rules that feed it, found by searching every rule body for lookups
`T[column, row]`, `T[row]` and `allowed(T, column)`, following `let` names back to their values:

* `inputs`: the quantities that compute a lookup's column or row, and every quantity those (or
  the functions they call) call, in the order found;
* `drm_quantities`: the quantities added to a lookup's row (die-roll modifiers), and
  `drm_values` the whole numbers their bases and `+`/`-` modifiers can add.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from fractions import Fraction

from warcodex.dsl import ast
from warcodex.facts.dice import distribution
from warcodex.dsl.families import cell_results, families_of, family_of
from warcodex.facts.partial import constant, is_number
from warcodex.facts.walk import rule_bodies, walk


@dataclass
class TableFacts:
    name: str
    decl: ast.Table
    compiled: object  # the engine's CompiledTable: columns, rows, cells, beyond rules
    provenance: str  # rulebook, player_aid, provisional, derived
    note: str | None  # the provenance's note (why it is provisional)
    inputs: list[str]  # quantity names
    drm_quantities: list[str]
    drm_values: set[int]
    families: list = field(default_factory=list)  # its result families, as declared (dsl/families.py)

    def cell_family(self, cell) -> int | None:
        """The index in `families` of a cell's family (a compiled cell), None when in none."""
        return family_of(self.families, cell_results(cell)) if self.families else None

    @property
    def provisional(self) -> bool:
        return self.provenance == "provisional"

    @property
    def dice(self) -> ast.Dice | None:
        """The dice its rows are rolled with (`rows roll 2d6`), None for a table that is not rolled."""
        rows = self.decl.rows
        return rows.dice if rows is not None and rows.kind == "roll" else None

    def outcomes(self, column: int | None = None, drm: int = 0) -> dict[str | None, Fraction]:
        """The chance of each cell (by its text, `DR2`) of a rolled table in one column (None: a
        table without columns) with a die-roll modifier, the rows clamped as the engine clamps
        them; None is the chance of a modified roll falling off a table that does not clamp."""
        t = self.compiled
        out: dict[str | None, Fraction] = OrderedDict()
        for roll, p in distribution(self.dice).items():
            v = roll + drm
            if t.clamp and t.row_min is not None:
                v = max(t.row_min, min(t.row_max, v))
            cells = next((cs for low, high, cs, _text in t.rows if isinstance(low, int) and low <= v <= high), None)
            key = None if cells is None else str(cells[column if column is not None else 0])
            out[key] = out.get(key, Fraction(0)) + p
        return out


def lookups(engine) -> list[tuple[str, object, object, dict]]:
    """(table, column expr or None, row expr or None, let bindings) for each lookup in the rules."""
    cache = engine.derived_cache
    if "lookups" not in cache:
        found = []
        for node, env in rule_bodies(engine.game):
            for n in walk(node):
                if isinstance(n, ast.Index) and isinstance(n.obj, ast.Name) and n.obj.id in engine.tables:
                    if len(n.args) == 2:
                        found.append((n.obj.id, n.args[0], n.args[1], env))
                    elif len(n.args) == 1:
                        found.append((n.obj.id, None, n.args[0], env))
                elif (isinstance(n, ast.Call) and n.func == "allowed" and len(n.args) == 2
                      and isinstance(n.args[0], ast.Name) and n.args[0].id in engine.tables):
                    found.append((n.args[0].id, n.args[1], None, env))
        cache["lookups"] = found
    return cache["lookups"]


def calls(expr, env, seen=None) -> list[str]:
    """The rules called by an expression, following `let` names back to their values."""
    seen = seen if seen is not None else set()
    out: list[str] = []
    for n in walk(expr):
        if isinstance(n, ast.Call):
            out.append(n.func)
        elif isinstance(n, ast.Name) and n.id in env and n.id not in seen:
            seen.add(n.id)
            for v in env[n.id]:
                out.extend(calls(v, env, seen))
    return out


def quantity_closure(game, names: list[str]) -> list[str]:
    """The quantities among `names` and every quantity they (or functions they call) call."""
    order: list[str] = []
    queue = list(names)
    seen: set[str] = set()
    while queue:
        name = queue.pop(0)
        if name in seen:
            continue
        seen.add(name)
        decl = game.names.get(name)
        if isinstance(decl, ast.Quantity):
            order.append(name)
            parts = [decl.base] + [m.value for m in decl.modifiers] + [m.when for m in decl.modifiers]
            for p in parts:
                if p is not None:
                    queue.extend(n.func for n in walk(p) if isinstance(n, ast.Call))
        elif isinstance(decl, ast.Function):
            queue.extend(n.func for n in walk(decl.body) if isinstance(n, ast.Call))
    return order


def table_facts(engine) -> list[TableFacts]:
    cache = engine.derived_cache
    if "tables" in cache:
        return cache["tables"]
    game = engine.game
    out = []
    for t in engine.tables.values():
        direct: list[str] = []
        drm_q: list[str] = []
        for name, col, row, env in lookups(engine):
            if name != t.name:
                continue
            if col is not None:
                direct.extend(calls(col, env))
            if row is not None:
                drm_q.extend(c for c in calls(row, env) if isinstance(game.names.get(c), ast.Quantity))
        feed = quantity_closure(game, direct + drm_q)
        drm_names = list(OrderedDict.fromkeys(drm_q))
        values: set[int] = set()
        for name in drm_names:
            q = game.names[name]
            base = constant(engine, q.base) if q.base is not None else None
            if is_number(base) and base != 0:
                values.add(int(base))
            for m in q.modifiers:
                v = constant(engine, m.value)
                if is_number(v) and m.op in ("+", "-"):
                    values.add(int(v if m.op == "+" else -v))
        prov = t.decl.header.provenance
        out.append(TableFacts(t.name, t.decl, t, prov.kind if prov is not None else "rulebook",
                              prov.note if prov is not None else None, feed, drm_names, values,
                              families_of(game, t.name)))
    cache["tables"] = out
    return out
