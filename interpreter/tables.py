"""Tables at run time: find the column and row for a lookup, apply beyond-the-table rules.

Column keys are compared as numbers: an odds column by its rank (1-1 = 0, 2-1 = 1, 1-2 = -1), a
differential column by its value, a values column by name. A lookup value that falls between
printed columns rounds down (in the defender's favour) to the nearest printed column; `beyond`
rules are checked first, in their declared order.
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.interpreter.values import CellValue, Code, Derivation, Entity, Odds, RuleError, RuleRefusal


def key_value(key: ast.Key):
    """The comparable value of a printed key."""
    if key.kind == "odds":
        return Odds.ratio(key.attack, key.defense).rank
    if key.kind in ("int", "range"):
        return key.low
    return key.name


def lookup_value(v):
    if isinstance(v, Odds):
        return v.rank
    if isinstance(v, Entity):
        return v.name
    return v


class IllegalColumn(RuleRefusal):
    """A column an `illegal` beyond-the-table rule forbids: the rules refuse it."""


@dataclass
class Beyond:
    direction: str
    bound: object
    action: str
    use: object = None
    cell: CellValue | None = None
    message: str | None = None
    citations: tuple[str, ...] = ()

    def matches(self, v) -> bool:
        try:
            if self.direction == "above":
                return v > self.bound
            if self.direction == "below":
                return v < self.bound
            if self.direction == "from":
                return v >= self.bound
            return v <= self.bound  # upto
        except TypeError:
            return False


class CompiledTable:
    def __init__(self, decl: ast.Table, resolve_cell) -> None:
        self.decl = decl
        self.name = decl.name
        self.title = decl.header.label or decl.name
        self.citations = tuple(decl.header.citations)
        self.columns: list = []  # comparable values, in printed order
        self.column_text: list[str] = []
        self.numeric_columns = False
        if decl.columns is not None:
            self.columns = [key_value(k) for k in decl.columns.keys]
            self.column_text = [k.text() for k in decl.columns.keys]
            self.numeric_columns = decl.columns.kind in ("odds", "diff") or all(isinstance(c, int) for c in self.columns)
        self.clamp = bool(decl.rows and decl.rows.clamp)
        # rows: (low, high, cells)
        self.rows: list[tuple[object, object, list[CellValue], str]] = []
        for row in decl.table_rows:
            cells = [resolve_cell(c, self.name, row.key.text(), self.column_text[i] if i < len(self.column_text) else "")
                     for i, c in enumerate(row.cells)]
            if row.key.kind in ("int", "range"):
                self.rows.append((row.key.low, row.key.high, cells, row.key.text()))
            else:
                v = key_value(row.key)
                self.rows.append((v, v, cells, row.key.text()))
        numeric_rows = [r for r in self.rows if isinstance(r[0], int)]
        self.row_min = min((r[0] for r in numeric_rows), default=None)
        self.row_max = max((r[1] for r in numeric_rows), default=None)
        self.beyond = [
            Beyond(b.direction, key_value(b.key), b.action,
                   key_value(b.use) if b.use is not None else None,
                   resolve_cell(b.cell, self.name, b.key.text(), "") if b.cell is not None else None,
                   b.message, tuple(b.citations))
            for b in decl.beyond
        ]

    # ------------------------------------------------------------ columns
    def column_index(self, value, span, trace: list | None = None):
        """Return a column index, or a CellValue when a beyond rule gives a result directly."""
        v = lookup_value(value)
        for rule in self.beyond:
            if rule.matches(v):
                if rule.action == "illegal":
                    raise IllegalColumn(rule.message or f"{value} is not allowed on the {self.title}", span)
                if rule.action == "result":
                    if trace is not None:
                        trace.append(Derivation(f"{_show(value)} is beyond the table: {rule.message or 'automatic result'} -> {rule.cell}",
                                                 rule.cell, rule.citations, kind="beyond", ref=self.name))
                    return rule.cell
                if trace is not None:
                    trace.append(Derivation(f"{_show(value)} is resolved on the {_col_text(self, rule.use)} column", None, rule.citations,
                                            kind="beyond", ref=self.name))
                v = rule.use
                break
        if v in self.columns:
            return self.columns.index(v)
        if self.numeric_columns and isinstance(v, int):
            below = [i for i, c in enumerate(self.columns) if c <= v]
            if below:
                return max(below, key=lambda i: self.columns[i])
            raise IllegalColumn(f"{_show(value)} is below the first column of the {self.title}", span)
        raise RuleError(f"the {self.title} has no column {_show(value)}", span)

    def column_ranges(self) -> list[tuple[int | None, int | None]]:
        """What each printed column of a numeric (differential) table covers, as the lookup
        resolves values: from its key to just below the next one; the last column open above,
        the first open below when a beyond rule resolves lower values on it (`upto -4 use -3`).
        (None, None) for a column that is not numeric."""
        if not self.numeric_columns or not all(isinstance(c, int) for c in self.columns):
            return [(None, None)] * len(self.columns)
        out = []
        for i, c in enumerate(self.columns):
            hi = self.columns[i + 1] - 1 if i + 1 < len(self.columns) else None
            lo = c
            if i == 0 and any(r.action == "use" and r.use == c and r.direction in ("below", "upto") for r in self.beyond):
                lo = None
            if hi is None and any(r.action != "use" and r.direction in ("above", "from") for r in self.beyond):
                first_out = min(r.bound + (1 if r.direction == "above" else 0) for r in self.beyond
                                if r.action != "use" and r.direction in ("above", "from"))
                hi = first_out - 1 if first_out - 1 >= c else c
            out.append((lo, hi))
        return out

    def column_range_texts(self, less: str = "{0} or less", more: str = "{0} or more", span: str = "{0} to {1}",
                           sign=None) -> list[str]:
        """The columns of a differential table as a rulebook prints them: "-3 or less", "-2 to -1",
        "0", "+8 or more" (`sign` writes one number: +2); other tables' columns as written."""
        if self.decl.columns is None or self.decl.columns.kind != "diff":
            return list(self.column_text)
        if sign is None:
            def sign(v: int) -> str:
                return f"+{v}" if v > 0 else str(v)

        out = []
        for (lo, hi), text in zip(self.column_ranges(), self.column_text):
            if lo is None and hi is None:
                out.append(text)
            elif lo is None:
                out.append(less.format(sign(hi)))
            elif hi is None:
                out.append(more.format(sign(lo)))
            elif lo == hi:
                out.append(sign(lo))
            else:
                out.append(span.format(sign(lo), sign(hi)))
        return out

    def allowed(self, value) -> bool:
        v = lookup_value(value)
        for rule in self.beyond:
            if rule.matches(v):
                return rule.action != "illegal"
        if v in self.columns or not self.columns:
            return True
        if self.numeric_columns and isinstance(v, int):
            return any(c <= v for c in self.columns)
        return False

    # ------------------------------------------------------------ rows
    def rolls(self) -> tuple[int, ...] | None:
        """Every roll the rows are read with (`rows roll d6: 1..6` gives 1 to 6), in order: the
        declared axis, not the printed rows (a weather table's `row 1..2` is two rolls). None
        when the rows are not a die roll."""
        axis = self.decl.rows
        if axis is None or axis.kind != "roll":
            return None
        out: list[int] = []
        for key in axis.keys:
            if key.kind in ("int", "range"):
                out.extend(range(key.low, (key.high if key.high is not None else key.low) + 1))
        return tuple(out)

    def row_for(self, value, span):
        v = lookup_value(value)
        if isinstance(v, int) and self.clamp and self.row_min is not None:
            v = max(self.row_min, min(self.row_max, v))
        for low, high, cells, text in self.rows:
            if isinstance(low, int) and isinstance(v, int):
                if low <= v <= high:
                    return cells, text
            elif low == v:
                return cells, text
        raise RuleError(f"the {self.title} has no row for {_show(value)}", span)

    def lookup(self, args: list, span, trace: list | None = None) -> CellValue:
        if self.decl.columns is None:
            if len(args) != 1:
                raise RuleError(f"the {self.title} has only rows: look it up with one value", span)
            cells, text = self.row_for(args[0], span)
            result = cells[0]
            if trace is not None:
                trace.append(Derivation(f"{self.title}: row {text} -> {result}", result, self.citations, kind="lookup", ref=self.name))
            return result
        if len(args) != 2:
            raise RuleError(f"the {self.title} is looked up with a column and a row: {self.name}[column, row]", span)
        col = self.column_index(args[0], span, trace)
        if isinstance(col, CellValue):
            return col
        cells, text = self.row_for(args[1], span)
        result = cells[col]
        if trace is not None:
            trace.append(Derivation(f"{self.title}: column {self.column_text[col]}, row {text} -> {result}", result, self.citations,
                                    kind="lookup", ref=self.name))
        return result


def _show(v) -> str:
    return str(v)


def _col_text(table: CompiledTable, v) -> str:
    if v in table.columns:
        return table.column_text[table.columns.index(v)]
    return str(v)
