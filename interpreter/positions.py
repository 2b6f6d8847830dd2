"""Looking at a position of a recorded game: `warcodex query` and `warcodex moves`.

A position is a save's state, or the state of a logged game after one of its entries (the log is
replayed from its decisions up to that entry, then on through the automatic steps that follow,
up to the next decision). There, a rules expression can be evaluated with its derivation, and the
legal actions listed, each movement with its path and the cost of every step, term by term.
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.dsl.diagnostics import Diagnostic, DiagnosticError, Severity, Span
from warcodex.interpreter.compiler import Frame
from warcodex.interpreter.context import Context
from warcodex.interpreter.values import Derivation, RuleError, UnitRef


@dataclass
class Position:
    engine: object
    state: object
    where: str  # "after log entry 17", "the save"

    def heading(self) -> str:
        state = self.state
        phase = f", {state.phase} phase" if state.phase else ""
        side = f", {state.active} to act" if state.active else ""
        over = " (the game is over)" if state.over else ""
        return f"turn {state.position.turn}{phase}{side}{over}: {self.where}"


def logged_position(engine, header: dict, entries: list[dict], at: int | None) -> Position:
    """The position after log entry `at` (the last one when None)."""
    from warcodex.interpreter.play import replay

    if at is not None:
        numbers = [e.get("n") for e in entries]
        if at not in numbers:
            raise RuleError(f"the log has no entry {at} (entries {numbers[0]} to {numbers[-1]})" if numbers
                            else "the log has no entries")
        entries = entries[:numbers.index(at) + 1]
    game = replay(engine, header["scenario"], header["seed"], entries, options=header.get("options") or {},
                  dice=header.get("dice"), trace=False)
    where = f"after log entry {at}" if at is not None else "at the end of the log"
    return Position(game.engine, game.state, where)


# ==================================================================== query
_QUERY_PREFIX = "function __query() = "


def parse_expression(game, text: str, source: str = "<query>") -> ast.Expr:
    """Parse and check one rules expression; DiagnosticError (located in `text`) if it is wrong."""
    from warcodex.dsl.checker import check_expression
    from warcodex.dsl.diagnostics import remember_source
    from warcodex.dsl.parser import parse_text

    if "\n" in text:
        raise DiagnosticError([Diagnostic(Severity.ERROR, "E-syntax", "a query is one line", Span(source, 1, 1))])
    remember_source(source, text)
    try:
        module = parse_text(_QUERY_PREFIX + text, source + " ")
    except DiagnosticError as exc:
        raise DiagnosticError([_unprefixed(d, source) for d in exc.diagnostics]) from None
    expr = module.decls[0].body
    diags = check_expression(game, expr)
    if diags.errors:
        raise DiagnosticError([_unprefixed(d, source) for d in diags.errors])
    return expr


def _unprefixed(d: Diagnostic, source: str) -> Diagnostic:
    from dataclasses import replace

    if d.span is None:
        return replace(d, span=Span(source, 1, 1))
    n = len(_QUERY_PREFIX)
    start = max(1, d.span.column - n)
    end = max(start + 1, d.span.end_column - n) if d.span.end_column is not None else None
    return replace(d, span=Span(source, 1, start, 1, end))


def query(position: Position, expr: ast.Expr) -> tuple[object, list[Derivation]]:
    """The value of an expression in a position, and its derivation (on a copy of the position,
    so a query that rolls dice changes nothing)."""
    engine = position.engine
    ctx = Context(engine, position.state.snapshot(), {})
    fn = engine.reference.expr(expr, frozenset())  # a one-off expression: the closure compiler
    return ctx.collect(lambda: fn(Frame(ctx)))


# ==================================================================== moves
@dataclass
class LegalMove:
    text: str
    choice: object
    explanation: list[Derivation]  # the movements it makes (path and step costs), when explained


class _AtDecision(Exception):
    pass


class _StopAtDecision:
    """Runs the automatic steps of a position up to the next decision of a player; choices inside
    them take the first option (a sample)."""

    def choose_action(self, ctx, side, legal):
        raise _AtDecision()

    def choose(self, ctx, who, what, options, optional):
        return 0

    def choose_subset(self, ctx, who, what, options, lo, hi):
        return list(range(lo))


def at_next_decision(position: Position) -> Position:
    """A save taken between two steps (at a turn's end) moves on, on a copy, through the automatic
    steps that follow, up to the next decision: where a player has moves."""
    from warcodex.interpreter.play import Game

    engine, state = position.engine, position.state
    if state.over:
        return position
    agent = _StopAtDecision()
    game = Game(engine, state.snapshot(), {s.name: agent for s in engine.side_entities}, trace=False)
    try:
        game.run()
    except _AtDecision:
        pass
    return Position(engine, game.state, position.where + ", then up to the next decision")


def allowed_now(engine, state) -> tuple[str | None, list[str]]:
    """The side to act and the actions its current `allow` step offers (none outside one)."""
    ctx = Context(engine, state, {})
    program = engine.sequence.program(ctx)
    pos = state.position
    if state.over or pos.op >= len(program) or program[pos.op].kind != "allow":
        return None, []
    op = program[pos.op]
    return op.side, list(op.run.actions)


def legal_moves(position: Position, unit: str | None = None, limit: int | None = 20,
                explain: bool = True) -> tuple[Position, str | None, dict[str, list[LegalMove]], dict[str, int]]:
    """The legal actions of the side to act (at the next decision, if the position is between
    steps): per action, its instances (those involving `unit`, an id or a part of a label, when
    given), the first `limit` of them explained, and how many there are in all."""
    engine, state = position.engine, position.state
    side, names = allowed_now(engine, state)
    if side is None and not state.over:
        position = at_next_decision(position)
        state = position.state
        side, names = allowed_now(engine, state)
    ctx = Context(engine, state.snapshot(), {})
    out: dict[str, list[LegalMove]] = {}
    totals: dict[str, int] = {}
    for name in names:
        moves, total = [], 0
        for choice in engine.actions[name].instances(ctx):
            if unit is not None and not _involves(ctx, choice, unit):
                continue
            total += 1
            if limit is not None and len(moves) >= limit:
                continue
            text = f"{name}(" + ", ".join(f"{k}={engine.describe(ctx, v)}" for k, v in choice.args) + ")"
            moves.append(LegalMove(text, choice, _movements(engine, state, choice) if explain else []))
        out[name], totals[name] = moves, total
    return position, side, out, totals


def _involves(ctx, choice, unit: str) -> bool:
    for _, v in choice.args:
        for x in (v if isinstance(v, tuple) else (v,)):
            if isinstance(x, UnitRef):
                u = ctx.state.units.get(x.id)
                if u is not None and (unit == str(u.id) or unit.lower() in u.label.lower()):
                    return True
    return False


def _movements(engine, state, choice) -> list[Derivation]:
    """The movements an action makes (`X moves A -> B ... for N`, with each step's cost terms),
    found by taking it on a copy of the position with explanations on (dice and choices of the
    copy are a sample: the first option)."""
    from warcodex.interpreter.agents import FirstAgent

    ctx = Context(engine, state.snapshot(), {s.name: FirstAgent() for s in engine.side_entities})
    try:
        _, trace = ctx.collect(lambda: engine.actions[choice.action].apply(ctx, choice))
    except RuleError:
        return []
    found: list[Derivation] = []

    def visit(ds) -> None:
        for d in ds:
            if " moves " in d.what and d.steps and " -> " in d.steps[0].what:
                found.append(d)
            else:
                visit(d.steps)

    visit(trace)
    return found
