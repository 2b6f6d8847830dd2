"""Run the rule tests of a game: the `test` and `example` blocks of its tests/*.wcx files.

A test runs on a fresh position: the game's map or a test board, a scenario (its rules, turn
order and, unless `without setup`, its set-up), the first side of the turn order active, and fixed
dice that are empty until the test gives some (a rule that rolls more dice than given fails the
test). Its lines run in order: set-up lines (`turn`, `phase`, `active`, `unit`, `set`, `mark(...)`,
...), `dice` and `answer` lines that fix what chance and the players will say, steps (`do ACTION`
or a procedure call), and expectations. The first expectation that does not hold fails the test,
with the values on both sides of a comparison and the explanation (derivation, with citations) of
the expectation and of the last step. Every step and expectation runs with explanations on.

The engine is compiled once per board; a test's own lines are compiled with the same compiler as
the rules, so a test reads exactly like rules do.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field, replace

from warcodex.dsl import ast
from warcodex.dsl.diagnostics import DiagnosticError, Span
from warcodex.dsl.model import GameDef
from warcodex.interpreter.actions import ActionChoice
from warcodex.interpreter.compiler import Frame
from warcodex.interpreter.context import Context
from warcodex.interpreter.dice import FixedDice
from warcodex.interpreter.invariants import InvariantViolation, check_action_invariants
from warcodex.interpreter.values import Derivation, Entity, RuleError, UnitRef, show


# ==================================================================== outcomes
@dataclass
class TestOutcome:
    test: ast.Test
    status: str  # passed | failed | error
    message: str = ""
    where: Span | None = None  # the line that failed
    details: list[str] = field(default_factory=list)  # expected/actual lines, explanations
    seconds: float = 0.0

    @property
    def name(self) -> str:
        return self.test.name

    @property
    def file(self) -> str:
        span = self.test.header.span
        return span.file if span else "?"


class TestFailure(Exception):
    """An expectation that does not hold (status `failed`) or a rules error (`error`)."""

    def __init__(self, message: str, where: Span | None, details: list[str] | None = None,
                 status: str = "failed") -> None:
        super().__init__(message)
        self.message = message
        self.where = where
        self.details = details or []
        self.status = status


# ==================================================================== the players' answers
@dataclass(frozen=True)
class Given:
    """One answer of an `answer` line: its value and when it applies. `rounds` (first, last or
    None): only in those rounds of the combat (the passes of its loop of rounds, `round_of`);
    `when`: a condition of the test's language, `when(ctx)` true or false at the choice; `span`:
    its `answer` line (an odds scene reports an answer by round that never applies there)."""

    value: object
    rounds: tuple[int, int | None] | None = None
    when: object = None
    span: object = field(default=None, compare=False)

    def holds(self, ctx) -> bool:
        if self.rounds is not None:
            r = round_of(ctx)
            first, last = self.rounds
            if r is None or r < first or (last is not None and r > last):
                return False
        return self.when is None or self.when(ctx) is True


def round_of(ctx) -> int | None:
    """The combat's round at this point: the pass of the outermost loop of rounds (a `for` loop
    run as a Markov chain, docs/odds.md) being run, from 1; None outside such a loop. Known when
    the context has a chance hook that follows loops (odds, or a rule test with rounds)."""
    return getattr(ctx.chance, "round", None) if ctx is not None else None


class AnswerBook:
    """The answers a test gives (`answer` lines) and the questions the rules asked, shared by the
    players of every side. An answer `by` a side is that side's only; others go to whichever
    side is asked first. The next answer to a choice is the first one left that applies (its
    rounds, its condition: `Given.holds`). A choice with no answer left takes the first option, or
    declines when it is optional (a player does something optional only when the test says so); a
    subset choice takes the fewest options allowed, the first ones."""

    def __init__(self) -> None:
        self.answers: dict[tuple[str | None, str], list[Given]] = {}  # (side or None, what) -> answers
        self.asked: list[str] = []
        self.offered: dict[str, tuple] = {}  # the options of the latest choice of each name
        self.times: dict[str, int] = {}  # how many times each choice was asked
        self.round_horizon = 0  # rounds from which the answers no longer change (see horizon)

    def give(self, side: str | None, what: str, values, rounds=None, when=None, span=None) -> None:
        self.answers.setdefault((side, what), []).extend(Given(v, rounds, when, span) for v in values)
        if rounds is not None:
            first, last = rounds
            self.round_horizon = max(self.round_horizon, last + 1 if last is not None else first)

    @property
    def by_rounds(self) -> bool:
        """Some answer applies only in some rounds: the round is part of the position."""
        return self.round_horizon > 0

    def phase(self, r: int | None) -> int | None:
        """The rounds the answers tell apart: from `round_horizon` on, every round is answered alike."""
        return None if r is None or not self.round_horizon else min(r, self.round_horizon)

    def unused(self) -> list[str]:
        return [f"{what}{f' by {side}' if side else ''}: {len(q)}" for (side, what), q in self.answers.items() if q]

    def standing(self, who, what: str) -> list[Given]:
        """Every answer given for this choice: the side's own first."""
        side = getattr(who, "name", who)
        return self.answers.get((side, what), []) + self.answers.get((None, what), [])

    def next(self, who, what: str, ctx=None):
        side = getattr(who, "name", who)
        for key in ((side, what), (None, what)):
            queue = self.answers.get(key)
            for i, given in enumerate(queue or ()):
                if given.holds(ctx):
                    return True, queue.pop(i).value
        return False, None

    def copy(self) -> "AnswerBook":
        twin = AnswerBook()
        twin.answers = {k: list(v) for k, v in self.answers.items()}
        twin.offered = dict(self.offered)
        twin.times = dict(self.times)
        twin.round_horizon = self.round_horizon
        return twin


class AnswerAgent:
    """One player: answers `choose` for its side(s) from the test's answer book. The test never
    takes actions through an agent, so `choose_action` passes."""

    def __init__(self, book: AnswerBook) -> None:
        self.book = book

    def _match(self, ctx, what: str, answer, options) -> int:
        for i, option in enumerate(options):
            if option == answer or (isinstance(answer, str) and str(option) == answer):
                return i
        if isinstance(answer, Entity):  # a unit type, class or marker: the first unit that is one
            for i, option in enumerate(options):
                if isinstance(option, UnitRef) and ctx.engine.has_tag(ctx, option, answer.name):
                    return i
        shown = ", ".join(describe(ctx, o) for o in options)
        raise TestFailure(f"the answer {describe(ctx, answer)} for {what} is not among the options: {shown}", None)

    def _asked(self, ctx, who, what, options, text: str) -> None:
        book = self.book
        book.asked.append(f"{show(who)} chooses {what}{text} among {', '.join(describe(ctx, o) for o in options)}")
        book.offered[what] = tuple(options)
        book.times[what] = book.times.get(what, 0) + 1

    def choose(self, ctx, who, what, options, optional):
        self._asked(ctx, who, what, options, "")
        found, answer = self.book.next(who, what, ctx)
        if not found:
            return None if optional else 0
        if what.startswith("re-roll ") and isinstance(answer, bool):
            return 1 if answer else 0
        if answer is None:
            if not optional:
                raise TestFailure(f"the answer `none` declines, but the choice of {what} is not optional", None)
            return None
        return self._match(ctx, what, answer, options)

    def choose_subset(self, ctx, who, what, options, lo, hi):
        self._asked(ctx, who, what, options, f" ({lo}..{hi if hi is not None else 'any'})")
        found, answer = self.book.next(who, what, ctx)
        if not found:
            return list(range(min(lo, len(options))))
        items = answer if isinstance(answer, tuple) else (answer,)
        picked: list[int] = []
        for a in items:
            i = self._match(ctx, what, a, [o if j not in picked else object() for j, o in enumerate(options)])
            picked.append(i)
        return sorted(picked)

    def choose_action(self, ctx, side, legal):
        return None


def describe(ctx, value) -> str:
    """A value as a test report shows it: units told apart by id and location."""
    if isinstance(value, UnitRef):
        unit = ctx.state.units.get(value.id)
        if unit is None:
            return str(value)
        where = unit.loc or (f"box {unit.box}" if unit.box else "off the map")
        return f"{unit.label} #{unit.id} ({unit.side}, {where})"
    if isinstance(value, tuple):
        return "[" + ", ".join(describe(ctx, v) for v in value) + "]"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(show(value))


# ==================================================================== running
class RuleTestRunner:
    """Runs the tests of one game loaded with its tests (`load_game(..., tests=True)`)."""

    def __init__(self, game: GameDef, evaluator: str | None = None) -> None:
        self.game = game
        self.evaluator = evaluator  # None: the default (generated); odds enumerates with "reference"
        self._engines: dict[tuple, object] = {}
        self._board = None

    # ------------------------------------------------------------ engines and positions
    def engine_for(self, test_map: ast.TestMap | None, scenario: str | None, evaluator: str | None = None):
        """The engine of a board (the game's map, or a test board) under a scenario's rules,
        compiled once and shared by every test on the same board and scenario (`evaluator`: the
        runner's unless given)."""
        from warcodex.dsl import test_boards
        from warcodex.interpreter.engine import Engine

        evaluator = evaluator or self.evaluator
        source = test_boards.test_board_source(self.game, test_map) if test_map is not None else None
        key = (source.text if source is not None else None, scenario, evaluator)
        if key not in self._engines:
            board = test_boards.load_board(source) if source is not None else self._game_board()
            self._engines[key] = Engine(self.game, board=board, scenario=scenario, evaluator=evaluator)
        return self._engines[key]

    def _game_board(self):
        if self._board is None:
            from warcodex.interpreter.engine import load_board

            self._board = load_board(self.game)
        return self._board

    def run(self, test: ast.Test) -> TestOutcome:
        start = time.perf_counter()
        run = _TestRun(self, test)
        try:
            run.execute()
            outcome = TestOutcome(test, "passed")
        except TestFailure as exc:
            outcome = TestOutcome(test, exc.status, exc.message, exc.where or run.current, exc.details)
        except DiagnosticError as exc:  # a test board that does not load
            d = exc.diagnostics[0]
            outcome = TestOutcome(test, "error", d.message, d.span, [x.render() for x in exc.diagnostics])
        except RuleError as exc:
            outcome = TestOutcome(test, "error", exc.message, exc.span or run.current,
                                  run.error_details(exc))
        except Exception as exc:  # noqa: BLE001 - an engine bug fails this test, not the whole run
            import traceback

            outcome = TestOutcome(test, "error", f"internal error: {type(exc).__name__}: {exc}", run.current,
                                  traceback.format_exc().splitlines()[-6:])
        outcome.seconds = time.perf_counter() - start
        return outcome

    def run_all(self, tests: list[ast.Test], on_result=None) -> list[TestOutcome]:
        outcomes = []
        for test in tests:
            outcome = self.run(test)
            outcomes.append(outcome)
            if on_result is not None:
                on_result(outcome)
        return outcomes


class _TestRun:
    """One run of one test: its position, its compiled lines, the last step's explanation."""

    def __init__(self, runner: RuleTestRunner, test: ast.Test) -> None:
        self.runner = runner
        self.test = test
        self.current: Span | None = test.header.span
        self.last_step: tuple[ast.Node, list[Derivation]] | None = None

    # ------------------------------------------------------------ set-up
    def execute(self) -> None:
        for item in self.begin():
            self.current = item.span
            self.line(item)
        self.finish()

    def begin(self) -> list:
        """Set up the test's board, scenario and players; returns its lines to run."""
        items = list(self.test.body)
        test_map = items.pop(0) if items and isinstance(items[0], ast.TestMap) else None
        scenario = items.pop(0) if items and isinstance(items[0], ast.TestScenario) else None
        sc_name = scenario.name if scenario is not None else None
        # answers given for some rounds only: the rounds are followed by the chance hook of the
        # closure compiler (the generated code of play does not call one; the exact odds engine
        # runs the loops of rounds, which roll, on the closure compiler)
        by_rounds = any(isinstance(i, ast.TestAnswer) and i.round_from is not None for i in items)
        hooked = "odds" if self.runner.evaluator == "odds" else "reference"
        engine = self.runner.engine_for(test_map, sc_name, hooked if by_rounds else None)
        self.engine = engine
        state = engine.new_game(sc_name, seed=0, setup=scenario is not None and scenario.setup)
        if scenario is None:  # the rules of the game, no scenario's special rules or triggers
            state.scenario = None
            order = engine.game.prop("turn_order")
            sides = engine.reference.expr(order, frozenset())(Frame(None)) if order is not None else engine.side_entities
            state.turn_order = tuple(s.name for s in sides)
            state.position.turn = 1
        state.rng = FixedDice([])
        state.active = state.turn_order[0] if state.turn_order else None
        self.book = AnswerBook()
        self.players = {s.name: AnswerAgent(self.book) for s in engine.side_entities}  # one player a side
        self.ctx = Context(engine, state, self.players)
        if by_rounds:
            from warcodex.interpreter.odds import Sampler

            self.ctx.chance = Sampler(self.ctx)
        self.fr = Frame(self.ctx, {})
        self.scope: set[str] = set()
        return items

    def finish(self) -> None:
        """Every die given was rolled and every answer given was asked for."""
        unused = self.unused_dice()
        if unused:
            raise TestFailure(f"{len(unused)} die roll(s) given were never rolled: {', '.join(map(str, unused))}",
                              self.test.header.span, ["every `dice` value must be rolled by the rules the test runs"])
        left = self.book.unused()
        if left:
            raise TestFailure(f"answers given were never asked for: {'; '.join(left)}", self.test.header.span,
                              ["every `answer` must answer a choice the rules ask"] + self.asked_lines())

    @property
    def state(self):
        return self.ctx.state

    def unused_dice(self) -> list[int]:
        rng = self.state.rng
        return rng.rolls[rng.used:] if isinstance(rng, FixedDice) else []

    def condition(self, e: ast.Expr | None):
        """An answer's `when` condition as a function of the context of the choice (the state then),
        evaluated with the test's names as they are now."""
        if e is None:
            return None
        test = self.engine.reference.expr(e, frozenset(self.scope))
        names = dict(self.fr.vars)
        return lambda ctx: test(Frame(ctx, dict(names)))

    def value(self, e: ast.Expr, fr: Frame | None = None):
        return self.engine.reference.expr(e, frozenset(self.scope))(fr if fr is not None else self.fr)

    # ------------------------------------------------------------ one line
    def line(self, item: ast.Node) -> None:
        e, state = self.engine, self.state
        if isinstance(item, (ast.TestMap, ast.TestScenario)):
            return  # the checker refuses these after the first lines
        if isinstance(item, ast.TestTurn):
            state.position.turn = int(self.value(item.value))
            state.touch()
        elif isinstance(item, ast.TestPhase):
            state.phase = item.name
            state.touch()
        elif isinstance(item, ast.TestActive):
            side = self.value(item.value)
            if not (isinstance(side, Entity) and side.kind == "side"):
                raise TestFailure(f"`active` needs a side, not {describe(self.ctx, side)}", item.span, status="error")
            state.active = side.name
            state.touch()
        elif isinstance(item, ast.TestUnit):
            self.units(item)
        elif isinstance(item, ast.TestDice):
            unused = self.unused_dice()
            if unused:
                raise TestFailure(f"new dice are given while {', '.join(map(str, unused))} were never rolled",
                                  item.span)
            state.rng = FixedDice(item.rolls)
        elif isinstance(item, ast.TestAnswer):
            side = None
            if item.by is not None:
                who = self.value(item.by)
                if not (isinstance(who, Entity) and who.kind == "side"):
                    raise TestFailure(f"`by` needs a side, not {describe(self.ctx, who)}", item.span, status="error")
                side = who.name
            rounds = (item.round_from, item.round_to) if item.round_from is not None else None
            self.book.give(side, item.what, [self.value(v) for v in item.values], rounds, self.condition(item.when),
                           item.span)
        elif isinstance(item, ast.TestSamePlayer):
            player = self.players[item.sides[0]]
            for name in item.sides:
                self.players[name] = player
            self.ctx.agents = dict(self.players)
        elif isinstance(item, ast.TestDo):
            self.step(item, lambda: self.apply_action(item.call, item.span))
        elif isinstance(item, ast.TestOffered):
            book = self.book
            self.fr.vars[item.var] = book.times.get(item.what, 0) if item.count else book.offered.get(item.what)
            self.scope.add(item.var)
        elif isinstance(item, ast.Expect):
            self.expect(item)
        elif isinstance(item, ast.SetStmt) and self.is_option(item.target):
            value = self.value(item.value)  # an optional rule switched on or off for this test
            if not isinstance(value, bool):
                raise TestFailure(f"option {item.target.id} is true or false, not {describe(self.ctx, value)}",
                                  item.span, status="error")
            state.options[item.target.id] = value
            state.touch()
        else:
            stmt = e.reference.stmt(item, self.scope, False)
            if isinstance(item, ast.CallStmt):
                self.step(item, lambda: stmt(self.fr))
            else:
                self.traced(lambda: stmt(self.fr))

    def is_option(self, target: ast.Expr) -> bool:
        if not isinstance(target, ast.Name) or target.id in self.scope:
            return False
        ent = self.engine.entities.get(target.id)
        return ent is not None and ent.kind == "option"

    def units(self, u: ast.TestUnit) -> None:
        e, ctx = self.engine, self.ctx
        type_, side = e.entities[u.type], e.entities[u.side]
        refs = []
        for _ in range(u.count or 1):
            if u.at is not None:
                loc = self.value(u.at)
                ref = e.place(ctx, type_, side, loc, u.label, u.span)
            else:
                from warcodex.interpreter.builtins import b_place_in_box

                ref = b_place_in_box(ctx, u.span, type_, side, self.value(u.box), u.label)
            if u.steps is not None:
                unit = self.state.units[ref.id]
                if not 1 <= u.steps <= unit.max_steps:
                    raise TestFailure(f"{unit.label} has 1 to {unit.max_steps} steps, not {u.steps}", u.span, status="error")
                self.state.put(replace(unit, steps=u.steps))
            for m in u.markers:
                e.set_marker(ctx, ref, m, True, u.span)
            refs.append(ref)
        self.fr.vars[u.var] = refs[0] if u.count is None else tuple(refs)
        self.scope.add(u.var)

    # ------------------------------------------------------------ steps
    def traced(self, run):
        ctx = self.ctx
        ctx.begin_trace()
        try:
            return run()
        finally:
            self._trace = ctx.end_trace()

    def step(self, item: ast.Node, run) -> None:
        self._trace = []
        try:
            self.traced(run)
        finally:
            self.last_step = (item, self._trace)

    def choice(self, call: ast.Call, fr: Frame | None = None) -> tuple[object, ActionChoice]:
        action = self.engine.actions[call.func]
        values = {}
        for p, a in zip(action.params, call.args):
            values[p.name] = self.value(a, fr)
        for k, a in call.kwargs.items():
            values[k] = self.value(a, fr)
        return action, ActionChoice(call.func, tuple((p.name, values[p.name]) for p in action.params))

    def phase_refusal(self, action: str, ctx: Context | None = None) -> RuleError | None:
        """A player may take only the actions the current phase allows (its `allow` lines); with
        no phase set, the test does not say where in the sequence it stands, and any is allowed."""
        phase = (ctx or self.ctx).state.phase
        if phase is None:
            return None
        allowed = phase_actions(self.engine, phase)
        if action in allowed:
            return None
        return RuleError(f"{action} is not allowed in the {phase} phase (it allows: {', '.join(sorted(allowed)) or 'none'})")

    def apply_action(self, call: ast.Call, span: Span | None) -> None:
        action, choice = self.choice(call)
        refusal = self.phase_refusal(call.func)
        if refusal is not None:
            raise TestFailure(f"the engine refuses {self.call_text(call)}: {refusal.message}", span)
        try:
            fr = action.validate(self.ctx, choice)
        except RuleError as exc:
            raise TestFailure(f"the engine refuses {self.call_text(call)}: {exc.message}", span,
                              self.rule_location(exc)) from None
        action.body(fr)
        # the invariants written for this action hold after it, as in a played game
        # (`warcodex play --check-invariants`): a test that reaches a position they forbid fails
        try:
            check_action_invariants(self.engine, self.ctx, call.func)
        except InvariantViolation as exc:
            raise TestFailure(f"after {self.call_text(call)}: {exc.message}", span,
                              self.rule_location(exc)) from None

    def call_text(self, call: ast.Call) -> str:
        from warcodex.dsl.formatter import format_expr

        return format_expr(call)

    def rule_location(self, exc: RuleError) -> list[str]:
        return [f"refused by {exc.span}"] if exc.span is not None else []

    # ------------------------------------------------------------ expectations
    def expect(self, item: ast.Expect) -> None:
        if item.kind == "true":
            return self.expect_true(item)
        call = item.call
        is_action = call.func in self.engine.actions
        if is_action and len(call.args) + len(call.kwargs) < len(self.engine.actions[call.func].params):
            return self.expect_some_instance(item)
        if item.kind == "legal":
            action, choice = self.choice(call)
            try:
                refusal = self.phase_refusal(call.func)
                if refusal is not None:
                    raise refusal
                action.validate(self.ctx, choice)
            except RuleError as exc:
                raise TestFailure(f"expected legal: {self.call_text(call)}", item.span,
                                  [f"the engine refuses it: {exc.message}"] + self.rule_location(exc)) from None
            return
        # illegal: the engine must refuse it, on a copy of the game (the test goes on unchanged)
        ctx, fr = self.copy()
        refusal = None
        try:
            if is_action:
                action, choice = self.choice(call, fr)
                phase_refusal = self.phase_refusal(call.func, ctx)
                if phase_refusal is not None:
                    raise phase_refusal
                action.validate(ctx, choice)
            else:
                args = tuple(self.value(a, fr) for a in call.args)
                self.engine.procedures[call.func](ctx, args, call.span)
        except RuleError as exc:
            refusal = exc
        except TestFailure as exc:
            refusal = RuleError(exc.message)
        if refusal is None:
            raise TestFailure(f"expected illegal, but the engine allows {self.call_text(call)}", item.span)
        if item.because is not None and item.because.lower() not in refusal.message.lower():
            raise TestFailure(f"{self.call_text(call)} is refused, but not because \"{item.because}\"", item.span,
                              [f"the engine says: {refusal.message}"] + self.rule_location(refusal))

    def expect_some_instance(self, item: ast.Expect) -> None:
        """`expect legal attack(target: "0606")`: some legal instance has these values (`illegal`:
        none has), among the instances the engine offers a player."""
        call = item.call
        action = self.engine.actions[call.func]
        given = {p.name: self.value(a) for p, a in zip(action.params, call.args)}
        given.update({k: self.value(a) for k, a in call.kwargs.items()})
        found = None
        instances = action.instances(self.ctx) if self.phase_refusal(call.func) is None else ()
        for choice in instances:
            args = dict(choice.args)
            if all(args[k] == v or (isinstance(v, tuple) and isinstance(args[k], tuple) and set(v) == set(args[k]))
                   for k, v in given.items()):
                found = choice
                break
        if item.kind == "legal" and found is None:
            raise TestFailure(f"expected legal: {self.call_text(call)}, but no legal instance has these values",
                              item.span)
        if item.kind == "illegal" and found is not None:
            shown = ", ".join(f"{k}={describe(self.ctx, v)}" for k, v in found.args)
            raise TestFailure(f"expected illegal: {self.call_text(call)}, but {call.func}({shown}) is legal", item.span)

    def copy(self) -> tuple[Context, Frame]:
        """A context on a copy of the position (same dice, same answers still to give): what a
        test tries without doing it. A context of its own, so memos never mix the two states."""
        book = self.book.copy()
        players = {}
        for name, agent in self.players.items():  # the same players, with a copy of the answers
            players[name] = next((p for n, p in players.items() if self.players[n] is agent), None) or AnswerAgent(book)
        ctx = Context(self.engine, self.state.snapshot(), players)
        return ctx, Frame(ctx, dict(self.fr.vars))

    def expect_true(self, item: ast.Expect) -> None:
        ctx, fr = self.copy()  # taken before: the sides of a failed comparison are shown from it
        ok = self.traced(lambda: self.value(item.test))
        if ok is True:
            return
        if ok is not False and ok is not None:
            raise TestFailure(f"an expectation must be true or false, but this one is {describe(self.ctx, ok)}",
                              item.span, status="error")
        raise TestFailure(f"expected: {self.call_text(item.test)}", item.span,
                          self.explain_false(item.test, ctx, fr, self._trace))

    def explain_false(self, test: ast.Expr, ctx: Context, fr: Frame, trace: list[Derivation]) -> list[str]:
        """Both sides of a comparison (evaluated on the position before the expectation, with the
        same dice), then the explanations of the expectation and of the last step."""
        lines = []
        sides = ()
        if isinstance(test, ast.Compare):
            sides = (("left", test.left), ("right", test.right))
        elif isinstance(test, ast.In):
            sides = (("item", test.item), ("list", test.collection))
        elif isinstance(test, ast.Is):
            sides = (("value", test.obj),)
        elif isinstance(test, ast.Not):
            sides = (("value", test.operand),)
        elif isinstance(test, ast.And):  # which of `a and b and c` does not hold
            parts: list[ast.Expr] = []
            e = test
            while isinstance(e, ast.And) and not e.parenthesized:
                parts.insert(0, e.right)
                e = e.left
            parts.insert(0, e)
            sides = tuple((f"part {i}", p) for i, p in enumerate(parts, 1))
        for word, e in sides:
            try:
                v = self.value(e, fr)
                lines.append(f"{word + ':':7} {self.call_text(e)} = {describe(ctx, v)}")
            except (RuleError, TestFailure) as exc:
                lines.append(f"{word + ':':7} {self.call_text(e)} fails: {exc.message}")
        if trace:
            lines.append("explain:")
            lines.extend(_trace_lines(trace, 1))
        lines.extend(self.step_explanation())
        return lines

    def step_explanation(self) -> list[str]:
        if self.last_step is None:
            return []
        item, trace = self.last_step
        where = f"line {item.span.line}" if item.span else "the last step"
        out = [f"explain the last step ({where}):"]
        out.extend(_trace_lines(trace, 1) or ["  (no rule did anything)"])
        return out

    def error_details(self, exc: RuleError) -> list[str]:
        lines = []
        if exc.span is not None:
            lines.append(f"raised at {exc.span}")
        if exc.hint:
            lines.append(f"hint: {exc.hint}")
        trace = getattr(self, "_trace", None)
        if trace:
            lines.append("explain (up to the error):")
            lines.extend(_trace_lines(trace, 1))
        return lines + self.asked_lines()

    def asked_lines(self) -> list[str]:
        book = getattr(self, "book", None)
        if book is None or not book.asked:
            return []
        return ["choices asked (the last ones):"] + ["  " + a for a in book.asked[-6:]]


def _trace_lines(trace: list[Derivation], indent: int) -> list[str]:
    out = []
    for d in trace:
        out.extend(d.lines(indent))
    return out


def phase_actions(engine, phase: str) -> frozenset:
    """The actions a phase's `allow` lines allow (not its sub-phases')."""
    cache = engine.__dict__.setdefault("_rule_test_phase_actions", {})
    if phase not in cache:
        found: set[str] = set()
        if engine.game.sequence is not None:
            for item in ast.phases_in(engine.game.sequence.items):  # inside player turns and repeats too
                if item.name == phase:
                    found.update(a for i in item.items if isinstance(i, ast.Allow) for a in i.actions)
        cache[phase] = frozenset(found)
    return cache[phase]
