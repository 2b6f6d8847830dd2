"""The abstract syntax tree of the rules language, as typed pydantic models with source spans.

Every node records where it came from (`span`), so the checker, the interpreter's `explain`
traces and the coverage report can point back at the file and the rulebook. Declarations share a
`Header` (name, label, translations, citations, provenance).
"""

from __future__ import annotations

from fractions import Fraction
from typing import ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from warcodex.dsl.diagnostics import Span


class Node(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=False, extra="forbid")
    span: Span | None = Field(default=None, repr=False, exclude=True)


# ---------------------------------------------------------------- provenance and citations
ProvenanceKind = Literal["rulebook", "player_aid", "provisional", "derived"]


class Provenance(Node):
    """Where a number comes from. `provisional` marks a stand-in for a value the rulebook does not
    print; the checker lists every one, and exporters show it visibly."""

    kind: ProvenanceKind
    note: str | None = None


class Header(Node):
    name: str
    label: str | None = None
    translations: dict[str, str] = Field(default_factory=dict)
    citations: list[str] = Field(default_factory=list)
    provenance: Provenance | None = None

    def title(self, lang: str | None = None) -> str:
        if lang and lang in self.translations:
            return self.translations[lang]
        return self.label or self.name


# ---------------------------------------------------------------- expressions
class Expr(Node):
    # written in parentheses by the author: `fmt` keeps them (they are there for clarity)
    parenthesized: bool = False


class Num(Expr):
    value: int | Fraction


class Str(Expr):
    value: str


class Bool(Expr):
    value: bool


class NoneLit(Expr):
    pass


class OddsLit(Expr):
    attack: int
    defense: int


class Name(Expr):
    id: str


class Attr(Expr):
    obj: Expr
    name: str


class Index(Expr):
    obj: Expr
    args: list[Expr]


class Call(Expr):
    func: str
    args: list[Expr] = Field(default_factory=list)
    kwargs: dict[str, Expr] = Field(default_factory=dict)


class Comprehension(Expr):
    """`sum(strength(u) for u in attackers where not u.disrupted)`"""

    func: str
    element: Expr
    var: str
    source: Expr
    where: Expr | None = None


class BinOp(Expr):
    op: Literal["+", "-", "*", "/", "%"]
    left: Expr
    right: Expr


class Compare(Expr):
    op: Literal["==", "!=", "<", "<=", ">", ">="]
    left: Expr
    right: Expr


class And(Expr):
    left: Expr
    right: Expr


class Or(Expr):
    left: Expr
    right: Expr


class Not(Expr):
    operand: Expr


class Neg(Expr):
    operand: Expr


class Is(Expr):
    """`u is mechanized`, `edge(a, b) is minor_river`, `terrain(h) is forest`: a tag test."""

    obj: Expr
    tag: str
    negated: bool = False


class In(Expr):
    item: Expr
    collection: Expr
    negated: bool = False


class Cond(Expr):
    test: Expr
    then: Expr
    orelse: Expr


class ListLit(Expr):
    items: list[Expr]


class Dice(Node):
    """`d6`, `2d6`, `3d6 keep highest 1`."""

    count: int = 1
    sides: int = 6
    keep: int | None = None
    keep_highest: bool = True

    def text(self) -> str:
        s = f"{self.count if self.count != 1 else ''}d{self.sides}"
        if self.keep is not None:
            s += f" keep {'highest' if self.keep_highest else 'lowest'} {self.keep}"
        return s

    @property
    def low(self) -> int:
        return self.keep if self.keep is not None else self.count

    @property
    def high(self) -> int:
        return (self.keep if self.keep is not None else self.count) * self.sides


class Roll(Expr):
    dice: Dice


# ---------------------------------------------------------------- statements
class Stmt(Node):
    pass


class Let(Stmt):
    name: str
    value: Expr


class SetStmt(Stmt):
    target: Expr  # Name, Attr or Index
    op: Literal["=", "+=", "-="]
    value: Expr


class If(Stmt):
    test: Expr
    body: list[Stmt]
    orelse: list[Stmt] = Field(default_factory=list)


class For(Stmt):
    var: str
    source: Expr
    body: list[Stmt]


class Choose(Stmt):
    """A decision made by a player during a procedure (defender picks a retreat hex...)."""

    subset: bool = False
    var: str
    source: Expr
    where: Expr | None = None
    by: Expr
    # `by` a list of sides is a joint choice; `otherwise` decides when they disagree
    otherwise: Expr | None = None
    min: int | None = None
    max: int | None = None
    optional: bool = False
    citations: list[str] = Field(default_factory=list)


class Reroll(Stmt):
    """A side may re-roll a die roll after seeing it: `reroll r = EXPR by SIDE when COND "label" §x
    { effects of using the re-roll }`. The local `r` must hold the roll; if `when` holds, the side
    is asked (seeing the value) whether to keep it or re-roll; on a re-roll the body runs, then `r`
    becomes EXPR evaluated afresh, and the new value stands (at most one re-roll per statement)."""

    var: str
    value: Expr
    by: Expr
    when: Expr | None = None
    label: str | None = None
    citations: list[str] = Field(default_factory=list)
    body: list[Stmt] = Field(default_factory=list)


class Require(Stmt):
    test: Expr
    message: str | None = None
    citations: list[str] = Field(default_factory=list)


class Apply(Stmt):
    """Apply a table result (its codes' effects) in the current scope."""

    value: Expr


class Step(Stmt):
    label: str | None = None
    citations: list[str] = Field(default_factory=list)
    body: list[Stmt]


class Stop(Stmt):
    pass


class Log(Stmt):
    text: str


class CallStmt(Stmt):
    call: Call


# ---------------------------------------------------------------- declarations
class Decl(Node):
    header: Header
    override: bool = False

    @property
    def name(self) -> str:
        return self.header.name


class Prop(Node):
    key: str
    value: Expr | None  # None for a bare flag
    citations: list[str] = Field(default_factory=list)
    provenance: Provenance | None = None


class Game(Decl):
    props: list[Prop]


class SectionEntry(Node):
    number: str  # without the § sign, e.g. "8.4.1"
    title: str
    status: Literal["partial", "not_encoded", "not_applicable"] | None = None
    note: str | None = None


class Sections(Decl):
    entries: list[SectionEntry]


EntityKind = Literal["terrain", "edge", "feature", "marker", "class", "side", "alliance", "option", "family"]


class Entity(Decl):
    kind: EntityKind
    props: list[Prop] = Field(default_factory=list)


class StepValues(Node):
    steps: int
    props: list[Prop]


class Unit(Decl):
    classes: list[str] = Field(default_factory=list)
    props: list[Prop] = Field(default_factory=list)
    step_values: list[StepValues] = Field(default_factory=list)


class VarDecl(Decl):
    scope: Literal["var", "side_var", "unit_var", "location_var"]
    type: str
    default: Expr | None = None
    # hidden information: the value is known only to its owner (the unit's side for a unit_var,
    # the side for a side_var); its enemies may not observe it
    hidden: bool = False
    # `per PROCEDURE`: one value for each call of that procedure (a battle's own state, read by the
    # triggers and functions the call runs): its initial value when the call starts, the value it
    # had before when the call ends
    per: str | None = None
    per_span: Span | None = Field(default=None, repr=False, exclude=True)
    # `bookkeeping`: the rules' own records; explanations do not show its assignments
    bookkeeping: bool = False


# tables
class Key(Node):
    """A row or column key: an integer, a range, an odds ratio or a name."""

    kind: Literal["int", "range", "odds", "name"]
    low: int | None = None
    high: int | None = None
    attack: int | None = None
    defense: int | None = None
    name: str | None = None

    def text(self) -> str:
        if self.kind == "int":
            return str(self.low)
        if self.kind == "range":
            return f"{self.low}-{self.high}"
        if self.kind == "odds":
            return f"{self.attack}-{self.defense}"
        return str(self.name)


class Code(Node):
    """One result code in a cell: `DR2`, `A1`, `DS`, or a number (as written: `formatter.format_code`)."""

    name: str
    args: list[Expr] = Field(default_factory=list)
    number: int | None = None  # for numeric cells


class Cell(Node):
    """A table cell (as written: `formatter.format_cell`)."""
    codes: list[Code] = Field(default_factory=list)  # empty: no effect ("-")


class Axis(Node):
    """`columns odds: 1:3 ... 7:1` or `rows roll d6: 1..6 clamp`."""

    kind: Literal["odds", "diff", "values", "roll"] = "values"
    dice: Dice | None = None
    keys: list[Key]
    clamp: bool = False


class Beyond(Node):
    direction: Literal["above", "below", "from", "upto"]
    key: Key
    action: Literal["use", "result", "illegal"]
    use: Key | None = None
    cell: Cell | None = None
    message: str | None = None
    citations: list[str] = Field(default_factory=list)


class Row(Node):
    key: Key
    cells: list[Cell]


class Table(Decl):
    columns: Axis | None = None
    rows: Axis | None = None
    beyond: list[Beyond] = Field(default_factory=list)
    table_rows: list[Row] = Field(default_factory=list)
    props: list[Prop] = Field(default_factory=list)


class Param(Node):
    name: str
    type: str


class Result(Decl):
    params: list[Param] = Field(default_factory=list)
    body: list[Stmt] = Field(default_factory=list)


class Modifier(Node):
    label: str | None = None
    op: Literal["+", "-", "*", "/", "=", "min", "max", "at_most", "at_least"]
    value: Expr
    rounding: Literal["up", "down", "nearest"] | None = None
    when: Expr | None = None
    group: str | None = None
    citations: list[str] = Field(default_factory=list)
    provenance: Provenance | None = None


class Quantity(Decl):
    params: list[Param]
    type: str | None = None
    base: Expr | None = None
    base_citations: list[str] = Field(default_factory=list)
    modifiers: list[Modifier] = Field(default_factory=list)
    order: list[str] = Field(default_factory=list)


class Function(Decl):
    params: list[Param]
    type: str | None = None
    body: Expr


class Movement(Decl):
    props: list[Prop]


class ActionParam(Node):
    name: str
    subset: bool = False
    source: Expr
    where: Expr | None = None
    min: int | None = None
    max: int | None = None
    citations: list[str] = Field(default_factory=list)


class Action(Decl):
    params: list[ActionParam] = Field(default_factory=list)
    requires: list[Require] = Field(default_factory=list)
    body: list[Stmt] = Field(default_factory=list)
    props: list[Prop] = Field(default_factory=list)


class Procedure(Decl):
    params: list[Param] = Field(default_factory=list)
    body: list[Stmt]


class Trigger(Decl):
    """`on enter(u: unit, loc: location) when ... { ... }`. The header name is the event."""

    params: list[Param] = Field(default_factory=list)
    when: Expr | None = None
    body: list[Stmt]


# turn sequence
class Allow(Node):
    actions: list[str]
    limit: int | None = None
    # obligations: the side may not end the step (pass) while one of these tests is false
    until: list[Require] = Field(default_factory=list)


class Do(Node):
    body: list[Stmt]


class Phase(Decl):
    when: Expr | None = None
    items: list[Union["Allow", "Do", "Phase", "PlayerTurns", "PlayerTurn", "Repeat"]]


class PlayerTurns(Node):
    sides: Expr
    label: str | None = None
    citations: list[str] = Field(default_factory=list)
    items: list[Union["Phase", "PlayerTurns", "PlayerTurn", "Repeat", "TurnLoop"]]


class PlayerTurn(Node):
    """`player_turn EXPR { ... }`: the block is played once with `active` set to the side EXPR
    names when the block starts (a side chosen by the rules: the owner of a drawn chit)."""

    side: Expr
    label: str | None = None
    citations: list[str] = Field(default_factory=list)
    items: list[Union["Phase", "PlayerTurns", "PlayerTurn", "Repeat", "TurnLoop"]]


class Repeat(Node):
    """`repeat while TEST { ... }`: the block is played again and again while TEST holds (tested
    before each pass)."""

    test: Expr
    label: str | None = None
    citations: list[str] = Field(default_factory=list)
    items: list[Union["Phase", "PlayerTurns", "PlayerTurn", "Repeat", "TurnLoop"]]


class TurnLoop(Node):
    label: str | None = None
    citations: list[str] = Field(default_factory=list)
    items: list[Union["Phase", "PlayerTurns", "PlayerTurn", "Repeat", "TurnLoop"]]


class Sequence(Decl):
    items: list[Union[Phase, PlayerTurns, PlayerTurn, Repeat, TurnLoop]]


# blocks of the sequence whose items are themselves sequence items (phases and blocks)
SEQUENCE_BLOCKS = (PlayerTurns, PlayerTurn, Repeat, TurnLoop)


def phases_in(items) -> list[Phase]:
    """Every phase of a sequence's items, outermost first, in written order (nested phases and
    the phases inside player turns, repeats and turn loops included)."""
    found: list[Phase] = []
    for item in items:
        if isinstance(item, Phase):
            found.append(item)
            found += phases_in([i for i in item.items if isinstance(i, (Phase,) + SEQUENCE_BLOCKS)])
        elif isinstance(item, SEQUENCE_BLOCKS):
            found += phases_in(item.items)
    return found


class Scenario(Decl):
    props: list[Prop] = Field(default_factory=list)
    setup: list[Stmt] = Field(default_factory=list)
    triggers: list[Trigger] = Field(default_factory=list)
    overrides: list[Decl] = Field(default_factory=list)


class Invariant(Decl):
    props: list[Prop]


class Term(Node):
    """One weighted term of an `evaluation`: `term "victory points" weight 10: s.vp §10`."""

    label: str
    weight: Expr | None = None  # 1 when not written
    value: Expr
    when: Expr | None = None
    citations: list[str] = Field(default_factory=list)
    provenance: Provenance | None = None


class Evaluation(Decl):
    """How well a side stands, as the weighted sum of its terms: what search agents maximise
    (interpreter/evaluation.py). One parameter, the side being judged."""

    params: list[Param]
    terms: list[Term] = Field(default_factory=list)


class Card(Decl):
    props: list[Prop] = Field(default_factory=list)


class PileDecl(Node):
    """`pile "cup" face_down "The cup" §1.4`: who may see the cards of one pile of a deck, and what
    the players call it (both optional)."""
    name: str
    visibility: str | None = None  # one of PILE_VISIBILITIES; None: the pile's default
    label: str | None = None  # the pile's title for players ("Set aside this turn")
    translations: dict[str, str] = Field(default_factory=dict)
    citations: list[str] = Field(default_factory=list)
    provenance: Provenance | None = None


# who may see a pile's cards: nobody (its size is public), everybody, or each card's owners
PILE_VISIBILITIES = ("face_down", "face_up", "owner_only")


class Deck(Decl):
    cards: list[Card]
    props: list[Prop] = Field(default_factory=list)  # the deck's own rules: reshuffle_at, piles
    pile_decls: list[PileDecl] = Field(default_factory=list)  # `pile "cup" face_down`

    # the piles every deck has (interpreter/cards.py); a deck may add its own with `piles: [...]`
    BUILTIN_PILES: ClassVar[tuple[str, ...]] = ("draw", "discard", "removed", "set_aside", "play")
    # who sees a built-in pile unless the deck says otherwise: the draw pile is face down (its
    # size is public), the others face up
    BUILTIN_VISIBILITY: ClassVar[dict[str, str]] = {"draw": "face_down"}

    def piles(self) -> list[str]:
        """The deck's piles: the built-in ones, then those its `piles:` property and its `pile`
        declarations add."""
        out = list(self.BUILTIN_PILES)
        for p in self.props:
            if p.key == "piles" and isinstance(p.value, ListLit):
                out += [i.value for i in p.value.items if isinstance(i, Str) and i.value not in out]
        out += [d.name for d in self.pile_decls if d.name not in out]
        return out

    def visibility(self) -> dict[str, str]:
        """Every pile's visibility: face_down, face_up or owner_only (the last declaration wins)."""
        out = {p: self.BUILTIN_VISIBILITY.get(p, "face_up") for p in self.piles()}
        out.update({d.name: d.visibility for d in self.pile_decls if d.visibility is not None})
        return out

    def face_keys(self) -> list[str] | None:
        """The card properties printed on a card's face, in the order they are printed (`face:
        ["event", "text"]`); None when the deck does not say (then every property is)."""
        for p in self.props:
            if p.key == "face" and isinstance(p.value, ListLit):
                return [i.value for i in p.value.items if isinstance(i, Str)]
        return None

    def pile_labels(self) -> dict[str, PileDecl]:
        """The piles the deck gives a title (`pile "set_aside" "Set aside this turn"`): pile -> its
        declaration (the last one that has a label wins)."""
        return {d.name: d for d in self.pile_decls if d.label is not None}


# ---------------------------------------------------------------- rule tests (tests/*.wcx only)
class TestLine(Node):
    """A line only a rule test has (`unit`, `dice`, `expect`...): run by the rule-test runner,
    never by the compilers of the rules (a test's other lines are rule statements)."""


class MapFragment(Decl):
    """`map NAME "Label" { ... }`: a board for tests, written as the statements of a .wcmap file
    (kept as raw text; the map loader parses it). Tests start from it and may add statements."""

    text: str  # the statements between the braces
    text_span: Span | None = Field(default=None, repr=False, exclude=True)  # where `text` starts


class TestMap(TestLine):
    """`map NAME` (a declared fragment), `map NAME { more }` or `map { ... }`: the test's board."""

    base: str | None = None
    text: str | None = None
    text_span: Span | None = Field(default=None, repr=False, exclude=True)


class TestScenario(TestLine):
    """`scenario NAME [without setup]`: the scenario whose rules, turn order and set-up apply."""

    name: str
    setup: bool = True


class TestTurn(TestLine):
    value: Expr


class TestPhase(TestLine):
    name: str


class TestActive(TestLine):
    value: Expr


class TestUnit(TestLine):
    """`unit a "Label": TYPE SIDE at LOC [steps N] [marked m, ...] [count N]`: place units (a list
    of `count` units when given) and name them."""

    var: str
    label: str | None = None
    type: str
    side: str
    at: Expr | None = None
    box: Expr | None = None
    steps: int | None = None
    markers: list[str] = Field(default_factory=list)
    count: int | None = None


class TestDice(TestLine):
    """`dice 3, 5, 1`: the next die rolls (replacing any not used yet)."""

    rolls: list[int]


class TestAnswer(TestLine):
    """`answer h: "1003", none`: the answers to the next choices named `h` (`none` declines);
    `answer v by united_states: tank`: only that side's. Qualified answers apply only in some
    rounds of the combat's loop of rounds (`answer decision from round 2: "retreat"`: rounds
    `round_from`..`round_to`, None open-ended) or while a condition holds (`when`)."""

    what: str
    values: list[Expr]
    by: Expr | None = None
    round_from: int | None = None
    round_to: int | None = None
    when: Expr | None = None


class TestSamePlayer(TestLine):
    """`same player united_kingdom, united_states`: one player plays these sides."""

    sides: list[str]


class TestDo(TestLine):
    """`do ACTION(param: value, ...)`: take an action as a player would (validated first)."""

    call: Call


class TestOffered(TestLine):
    """`let o = offered h`: the options of the latest choice named `h` (none if not asked);
    `let n = asked h`: how many times a choice named `h` was asked."""

    var: str
    what: str
    count: bool = False


class Expect(TestLine):
    """`expect COND`, `expect legal ACTION(...)`, `expect illegal CALL(...) because "..."`. An
    action given only some of its parameters: some instance with those values is legal (none is)."""

    kind: Literal["true", "legal", "illegal"]
    test: Expr | None = None
    call: Call | None = None
    because: str | None = None


class Test(Decl):
    """`test NAME "Label" §x { ... }` (or `example`): a worked example run by `warcodex test`."""

    kind: Literal["test", "example"] = "test"
    body: list[Union[TestLine, Stmt]] = Field(default_factory=list)


class Include(Node):
    path: str


Phase.model_rebuild()
PlayerTurns.model_rebuild()
PlayerTurn.model_rebuild()
Repeat.model_rebuild()
TurnLoop.model_rebuild()
Sequence.model_rebuild()


class Module(Node):
    """One parsed file."""

    path: str
    includes: list[Include] = Field(default_factory=list)
    decls: list[Decl] = Field(default_factory=list)
