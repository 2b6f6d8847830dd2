"""Runtime values of the rules language.

Plain Python values are used where they fit: int and Fraction (exact numbers), bool, str, None,
tuples (lists), and str location ids. Declared names become `Entity` objects (one per
declaration, compared by identity); odds ratios are `Odds` (a column rank, so shifts are +/-);
table lookups give `CellValue`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


class RuleError(Exception):
    """An error raised while running the rules, located at the construct that caused it."""

    def __init__(self, message: str, span=None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint

    def diagnostic(self):
        from warcodex.dsl.diagnostics import Diagnostic, Severity

        return Diagnostic(Severity.ERROR, "E-runtime", self.message, self.span, self.hint)


class RuleRefusal(RuleError):
    """The rules themselves refuse what is being done: a `require` statement that does not hold,
    or a table column an `illegal` beyond-the-table rule forbids (tables.IllegalColumn). Every
    other RuleError (a wrong type, a recursion or step limit, a card not in hand...) is a fault of
    the rules or the engine, not a verdict of the rules: a search may judge a refused line
    hopeless, never a faulty one (interpreter/search_agents.py)."""


class Entity:
    """A declared name: a terrain, edge, feature, marker, class, side, unit type, result, table,
    movement mode, option... `props` holds its evaluated properties; `tags` the names `is` accepts
    for it (itself, its classes, its true flags)."""

    __slots__ = ("kind", "name", "label", "decl", "props", "tags", "citations")

    def __init__(self, kind: str, name: str, decl=None, label: str | None = None) -> None:
        self.kind = kind
        self.name = name
        self.decl = decl
        self.label = label or name
        self.props: dict[str, Any] = {}
        self.tags: frozenset[str] = frozenset((name,))
        self.citations: tuple[str, ...] = tuple(decl.header.citations) if decl is not None else ()

    def __repr__(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.name


# Odds columns as ranks: 1-1 is 0, 2-1 is 1, n-1 is n-1; 1-2 is -1, 1-n is -(n-1).
# A shift is rank arithmetic, so a virtual 8-1 shifted left lands on 7-1 before any cap (§8.4.2
# of Stalingrad '42: "shift from the virtual column, then apply the cap").
class Odds:
    __slots__ = ("rank",)

    def __init__(self, rank: int) -> None:
        self.rank = rank

    @staticmethod
    def of(attack, defense) -> "Odds":
        """The ratio rounded down in the defender's favour: 7:2 -> 3-1, 5:6 -> 1-2 (exact, also
        for fractional strengths)."""
        if defense <= 0:
            return Odds(10**6)
        if attack <= 0:
            return Odds(-(10**6))
        if attack >= defense:
            return Odds(int(attack // defense) - 1)
        return Odds(-(int(-(-defense // attack)) - 1))

    @staticmethod
    def ratio(attack: int, defense: int) -> "Odds":
        """The rank of a printed column such as 3:1 or 1:2."""
        if attack >= defense:
            return Odds(attack // defense - 1)
        return Odds(-(defense // attack - 1))

    def __add__(self, shift) -> "Odds":
        if type(shift) is Odds:
            raise TypeError("cannot add two odds")
        return Odds(self.rank + int(shift))

    __radd__ = __add__

    def __sub__(self, shift) -> "Odds":
        return Odds(self.rank - int(shift))

    def __eq__(self, other) -> bool:
        return type(other) is Odds and other.rank == self.rank

    def __hash__(self) -> int:
        return hash(("odds", self.rank))

    def __lt__(self, other) -> bool:
        return self.rank < other.rank

    def __le__(self, other) -> bool:
        return self.rank <= other.rank

    def __gt__(self, other) -> bool:
        return self.rank > other.rank

    def __ge__(self, other) -> bool:
        return self.rank >= other.rank

    def __repr__(self) -> str:
        return f"Odds({self.rank})"

    def __str__(self) -> str:
        if self.rank >= 10**6:
            return "∞-1"
        if self.rank <= -(10**6):
            return "0-1"
        return f"{self.rank + 1}-1" if self.rank >= 0 else f"1-{-self.rank + 1}"


@dataclass(frozen=True)
class Code:
    """One code of a table cell, resolved to its result declaration: `DR2` -> (DR, (2,))."""

    result: Entity
    args: tuple = ()
    number: int | None = None

    def __str__(self) -> str:
        if self.number is not None:
            return str(self.number)
        return self.result.name + "".join(str(a) for a in self.args)


@dataclass(frozen=True)
class CellValue:
    """What a table lookup returns: the codes of one cell (empty: no effect)."""

    codes: tuple[Code, ...]
    table: str = ""
    column: str = ""
    row: str = ""

    def __str__(self) -> str:
        return "/".join(str(c) for c in self.codes) if self.codes else "-"

    def single(self):
        """A one-code cell without arguments stands for its result name (weather tables...)."""
        if len(self.codes) == 1 and not self.codes[0].args:
            c = self.codes[0]
            return c.number if c.number is not None else c.result
        return self

    def __eq__(self, other) -> bool:
        if isinstance(other, CellValue):
            return self.codes == other.codes
        single = self.single()
        if single is self:  # several codes, or an empty cell: only "-" equals none (no effect)
            return other is None and not self.codes
        return single is other or single == other

    def __hash__(self) -> int:
        return hash(self.codes)


class UnitRef:
    """A unit as a value: its id. Properties are read through the current state. Instances are
    interned (`UnitRef(3) is UnitRef(3)`), so comparing and hashing them is cheap."""

    __slots__ = ("id",)
    _interned: dict[int, "UnitRef"] = {}

    def __new__(cls, id: int) -> "UnitRef":
        ref = cls._interned.get(id)
        if ref is None:
            ref = object.__new__(cls)
            object.__setattr__(ref, "id", id)
            cls._interned[id] = ref
        return ref

    def __setattr__(self, name, value):
        raise AttributeError("UnitRef is immutable")

    def __eq__(self, other) -> bool:
        return self is other or (type(other) is UnitRef and other.id == self.id)

    def __hash__(self) -> int:
        return self.id

    def __reduce__(self):
        return (UnitRef, (self.id,))

    def __repr__(self) -> str:
        return f"UnitRef({self.id})"

    def __str__(self) -> str:
        return f"#{self.id}"


class Region(tuple):
    """A list of locations that a trace returned, in board order, with constant-time `in`: the
    supply region of a 5,000-hex board is asked "is this hex in it?" hundreds of times a turn."""

    def __new__(cls, locations):
        self = super().__new__(cls, locations)
        self._members = frozenset(self)
        self._hash = tuple.__hash__(self)  # regions are memo-key arguments: hash once
        return self

    def __hash__(self) -> int:
        return self._hash

    def __contains__(self, item) -> bool:
        try:
            return item in self._members
        except TypeError:  # an unhashable value is in no region
            return False


@dataclass
class Derivation:
    """How a value was computed, with the rules that contributed: the `explain` trace."""

    what: str
    value: Any = None
    citations: tuple[str, ...] = ()
    steps: list["Derivation"] = field(default_factory=list)
    # what kind of step it is, for readers that summarise a trace (the odds report): "quantity"
    # (ref: its name), "odds", "roll" (ref: the dice), "lookup" (ref: the table; value: the cell),
    # "beyond" (a result decided beyond a table), "apply" (ref: the result); "" for any other line
    kind: str = ""
    ref: str = ""

    def lines(self, indent: int = 0) -> list[str]:
        cite = f" ({', '.join('§' + c for c in self.citations)})" if self.citations else ""
        head = f"{'  ' * indent}{self.what}{cite}"
        out = [head]
        for s in self.steps:
            out.extend(s.lines(indent + 1))
        return out

    def text(self) -> str:
        return "\n".join(self.lines())

    def to_json(self) -> dict:
        return {"what": self.what, "value": show(self.value), "citations": list(self.citations),
                "steps": [s.to_json() for s in self.steps]}


def show(value) -> Any:
    """A JSON-friendly, human-readable rendering of a runtime value."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, Fraction):
        return str(value) if value.denominator != 1 else int(value)
    if isinstance(value, (tuple, list, frozenset, set)):
        return [show(v) for v in value]
    return str(value)
