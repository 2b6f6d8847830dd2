"""The turn sequence as plain data: each game turn is a flat program of operations.

    turn_start, phase_start(weather), do(...), phase_end(weather),
    phase_start(movement, axis), do(...), allow(move), phase_end(movement, axis), ..., turn_end

The program is rebuilt from the `sequence` declaration at each turn (player turns expand over the
sides in `turn_order` as they stand then); the state's `position` (turn, operation index, actions
taken in the current `allow`) is all that is needed to resume a saved game exactly.

Two blocks are decided while the turn is played, not when the program is built:

- `repeat while TEST { ... }` is a `repeat` operation that tests TEST and jumps past its block
  when it is false, and a `repeat_end` that jumps back to it;
- `player_turn EXPR { ... }` is a `player_turn` operation that evaluates EXPR (a side, or none
  to skip the block) and records it in the position (`position.sides`, keyed by the operation's
  index); the operations of the block take their side from there (`Op.slot`).

So a loop of chit draws, each activating the side that owns the chit, is still one flat program,
and a game saved in the middle of an activation resumes exactly.

An automatic step (a `do` block, the triggers of a turn or phase boundary, the game's start and
end) may ask a side to `choose`. A search agent that wants to weigh such a choice
(`searches_automatic_steps`) is given the step being run (`Context.auto_step`, an `AutoStep`): the
position before it and how to play it again there, then on to the next decision (`play_again`).
The position is kept only when one of the game's agents asks for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.interpreter.compiler import Frame
from warcodex.interpreter.search_support import kept_position
from warcodex.interpreter.values import Derivation, Entity, RuleError, show

ALLOW_SAFETY_LIMIT = 10_000  # actions in one `allow` step without a declared limit
REPEAT_SAFETY_LIMIT = 1_000  # passes of one `repeat` block in one game turn


@dataclass
class Op:
    kind: str  # turn_start, phase_start, do, allow, phase_end, turn_end, repeat, repeat_end, player_turn
    phase: ast.Phase | None = None
    side: str | None = None
    run: object = None  # compiled `do` block, the Allow node, or a compiled player_turn side
    end: int = 0  # phase_start: index of the matching phase_end; repeat, player_turn: of the block's last op
    when: object = None  # compiled `when` condition of a phase, or the test of a repeat
    slot: int | None = None  # inside a player_turn: the index of its op, whose side is in the position
    block: object = None  # the Repeat or PlayerTurn node (its span locates errors)


class _Slot:
    """The side of the operations inside a `player_turn`: known only when the block starts."""

    def __init__(self, index: int) -> None:
        self.index = index


def declared_phases(sequence: ast.Sequence | None) -> list[ast.Phase]:
    """Every phase of a `sequence` declaration (sub-phases and the phases of player turns, repeats
    and turn loops included), in the order written."""
    return ast.phases_in(sequence.items) if sequence is not None else []


class TurnSequence:
    def __init__(self, engine) -> None:
        self.engine = engine
        seq = engine.game.sequence
        if seq is None:
            raise RuleError("the game has no `sequence`")
        items = seq.items
        if len(items) == 1 and isinstance(items[0], ast.TurnLoop):
            items = items[0].items
        self.items = items
        self._compiled: dict[int, object] = {}
        self.phases: list[ast.Phase] = []
        self._compile(items)

    def _compile(self, items) -> None:
        for item in items:
            if isinstance(item, ast.Phase):
                self.phases.append(item)
                if item.when is not None:
                    self._compiled[id(item.when)] = self.engine.compiler.expr(item.when, frozenset())
                for sub in item.items:
                    if isinstance(sub, ast.Do):
                        self._compiled[id(sub)] = self.engine.compiler.block(sub.body, set())
                    elif isinstance(sub, ast.Allow):
                        for a in sub.actions:
                            if a not in self.engine.actions:
                                raise RuleError(f"`allow {a}`: no action named '{a}'", sub.span)
                        for r in sub.until:
                            self._compiled[id(r)] = self.engine.compiler.expr(r.test, frozenset())
                self._compile([s for s in item.items if isinstance(s, (ast.Phase,) + ast.SEQUENCE_BLOCKS)])
            elif isinstance(item, ast.PlayerTurns):
                self._compiled[id(item)] = self.engine.compiler.expr(item.sides, frozenset())
                self._compile(item.items)
            elif isinstance(item, ast.PlayerTurn):
                self._compiled[id(item)] = self.engine.compiler.expr(item.side, frozenset())
                self._compile(item.items)
            elif isinstance(item, ast.Repeat):
                self._compiled[id(item)] = self.engine.compiler.expr(item.test, frozenset())
                self._compile(item.items)
            elif isinstance(item, ast.TurnLoop):
                self._compile(item.items)

    # ------------------------------------------------------------ program
    def program(self, ctx) -> list[Op]:
        ops: list[Op] = [Op("turn_start")]
        self._emit(ctx, self.items, None, ops)
        ops.append(Op("turn_end"))
        return ops

    def _emit(self, ctx, items, side, ops: list[Op]) -> None:
        """Append the operations of `items`; `side` is a side's name, None, or the _Slot of the
        player_turn the items are in."""

        def op(kind, phase=None, run=None, **kw) -> Op:
            if isinstance(side, _Slot):
                return Op(kind, phase, None, run, slot=side.index, **kw)
            return Op(kind, phase, side, run, **kw)

        for item in items:
            if isinstance(item, ast.Phase):
                start = op("phase_start", item, when=self._compiled.get(id(item.when)) if item.when is not None else None)
                ops.append(start)
                for sub in item.items:
                    if isinstance(sub, ast.Do):
                        ops.append(op("do", item, self._compiled[id(sub)]))
                    elif isinstance(sub, ast.Allow):
                        ops.append(op("allow", item, sub))
                    else:
                        self._emit(ctx, [sub], side, ops)
                start.end = len(ops)
                ops.append(op("phase_end", item))
            elif isinstance(item, ast.PlayerTurns):
                if isinstance(side, _Slot):
                    raise RuleError("`player_turns` cannot be inside a `player_turn`: the turn already has its side", item.span)
                sides = self._compiled[id(item)](Frame(ctx))
                for s in sides if isinstance(sides, tuple) else (sides,):
                    if not (isinstance(s, Entity) and s.kind == "side"):
                        raise RuleError(f"player turns need sides, got {show(s)}", item.span)
                    self._emit(ctx, item.items, s.name, ops)
            elif isinstance(item, ast.PlayerTurn):
                start = op("player_turn", run=self._compiled[id(item)], block=item)
                ops.append(start)
                self._emit(ctx, item.items, _Slot(len(ops) - 1), ops)
                start.end = len(ops) - 1
            elif isinstance(item, ast.Repeat):
                start = op("repeat", when=self._compiled[id(item)], block=item)
                ops.append(start)
                index = len(ops) - 1
                self._emit(ctx, item.items, side, ops)
                ops.append(op("repeat_end", block=item, end=index))
                start.end = len(ops) - 1
            elif isinstance(item, ast.TurnLoop):
                self._emit(ctx, item.items, side, ops)


class AutoStep:
    """An automatic step being run (`Runner._auto`), for an agent that searches a choice made in
    it: `before`, the position before the step (a context on a snapshot of the state, holding the
    game's memos of rule values there: `search_support.kept_position`), and how to play the step
    again from there. Never changed itself: each line plays on a snapshot of it
    (`search_support.replay_context`)."""

    def __init__(self, label: str, before, body, after: str) -> None:
        self.label = label
        self.before = before
        self.body = body  # the step's rules, on a context: body(ctx)
        self.after = after  # what the sequence does after it: "op" (next operation), "run" (go on), "end"

    def play_again(self, ctx, turns: int = 1) -> None:
        """Play the step again on `ctx` (a context on a snapshot of `before`, asking its agents),
        then the sequence on, untraced, until the game asks a side for an action (the agents'
        `choose_action` decides whether that stops the line: the searches raise there), the game
        ends, or `turns` more turns are over."""
        pos = ctx.state.position
        runner = Runner(ctx.engine, ctx, ctx.agents, trace=False)
        ctx.steps = 0
        ctx.hidden_owners = set()
        self.body(ctx)
        if self.after == "end":
            return  # the game's end: nothing follows
        if self.after == "op":
            pos.op += 1
        runner.run(until_turn=pos.turn + turns)


def obligation_text(r: ast.Require) -> str:
    cite = "".join(f" §{c}" for c in r.citations)
    return f"{r.message or 'an obligation is not met'}{cite}"


class Runner:
    """Plays a game from its state's position until it ends, a turn limit, or an action budget."""

    def __init__(self, engine, ctx, agents, check_invariants: bool = False, trace: bool = True) -> None:
        self.engine = engine
        self.ctx = ctx
        self.agents = agents
        self.check_invariants = check_invariants
        self.trace = trace
        self.actions_taken = 0
        self.checked_version = -1  # the state version the invariants were last checked at
        self.on_action = None  # optional callback(entry) after each logged action (progress bars)
        self.on_entry = None  # optional callback(entry) after each log entry, the state as it left it (watchers)
        self.passes: dict[tuple[int, int], int] = {}  # (turn, repeat op) -> passes made (a safety net)
        # an agent searches the choices made in automatic steps: the position before each is kept
        self.keep_steps = any(getattr(a, "searches_automatic_steps", False) for a in agents.values())

    def side_of(self, op: Op) -> str | None:
        """The side an operation is played by: its own, or its player_turn's, decided when that
        block started (kept in the position, so a save resumes with it)."""
        if op.slot is None:
            return op.side
        return self.ctx.state.position.sides.get(str(op.slot))

    def log(self, entry: dict) -> None:
        state = self.ctx.state
        entry = {"n": len(self.ctx.log), "turn": state.position.turn, **entry}
        self.ctx.log.append(entry)
        if self.on_entry is not None:
            self.on_entry(entry)
        return entry

    def _auto(self, label: str, fn, after: str = "op") -> None:
        """Run automatic rules (do blocks, triggers: `fn(ctx)`) and log what they did, if anything;
        `after` says what the sequence does next (AutoStep)."""
        ctx = self.ctx
        if self.keep_steps:
            ctx.auto_step = AutoStep(label, kept_position(ctx), fn, after)
        if self.trace:
            ctx.begin_trace()
        ctx.choices = []
        ctx.hidden_owners = set()
        ctx.steps = 0  # the step limit bounds one automatic step, not a whole game
        try:
            fn(ctx)
        except RecursionError:
            raise ctx.too_deep() from None
        finally:
            trace = ctx.end_trace() if self.trace else []
            choices, ctx.choices = ctx.choices, None
            ctx.auto_step = None
        if trace or choices:
            entry = {"k": "auto", "what": label, "phase": ctx.state.phase, "side": ctx.state.active}
            if ctx.hidden_owners:
                entry["hidden_from"] = self.engine.hidden_from(ctx.hidden_owners)
            if choices:
                entry["choices"] = choices
            if trace:
                entry["trace"] = [d.to_json() for d in trace]
            self.log(entry)
        if self.check_invariants and ctx.state.version != self.checked_version:
            # `always` means always: also after automatic rules, not only after actions; a step
            # that changed nothing since the last check is not checked again. Checked after the
            # step is logged, so a violation's log shows the step that broke it
            self.engine.check_invariants(ctx, "auto", label)
            self.checked_version = ctx.state.version

    def run(self, until_turn: int | None = None, max_actions: int | None = None) -> None:
        engine, ctx = self.engine, self.ctx
        state = ctx.state
        pos = state.position
        if not pos.started:
            pos.started = True
            self._auto("game start", lambda c: engine.fire(c, "game_start"), "run")
        last = engine.last_turn(state)
        while not state.over:
            if pos.turn > last or (until_turn is not None and pos.turn > until_turn):
                break
            program = engine.sequence.program(ctx)
            while pos.op < len(program) and not state.over:
                op = program[pos.op]
                if op.kind == "allow":
                    if max_actions is not None and self.actions_taken >= max_actions:
                        return
                    if self._allow_step(op):
                        continue  # took an action; ask again
                    pos.in_allow = 0
                    pos.op += 1
                    continue
                self._run_op(op, program)
            if state.over:
                break
            pos.turn += 1
            pos.op = 0
            pos.sides.clear()
            state.changed(("turn",))  # rules that read `turn` are memoized until it changes
        if not state.ended and (state.over or pos.turn > last):
            self.end_game()

    def end_game(self) -> None:
        engine, ctx, state = self.engine, self.ctx, self.ctx.state
        if state.ended:
            return
        was_over = state.over
        state.over = False  # game_end triggers may still compute VP and declare the winner
        self._auto("game end", lambda c: engine.fire(c, "game_end"), "end")
        state.over = True
        state.phase = None
        state.active = None
        self.log({"k": "end", "winner": state.winner, "reason": state.win_reason, "sudden_death": was_over,
                  "sides": {s: {k: engine.to_json(v) for k, v in sorted(vals.items())} for s, vals in sorted(state.side_vars.items())}})
        state.ended = True

    def _enter(self, phase: str | None, side: str | None) -> None:
        """Set the current phase and active side; a change invalidates memoized values."""
        state = self.ctx.state
        if state.phase != phase or state.active != side:
            kinds = tuple(k for k, old, new in (("phase", state.phase, phase), ("active", state.active, side)) if old != new)
            state.phase, state.active = phase, side
            state.changed(kinds)

    def _run_op(self, op: Op, program: list[Op]) -> None:
        engine, ctx = self.engine, self.ctx
        state = ctx.state
        pos = state.position
        if op.kind == "turn_start":
            self._enter(None, None)
            self._auto(f"turn {pos.turn} start", lambda c: engine.fire(c, "turn_start"))
            pos.op += 1
        elif op.kind == "turn_end":
            self._enter(None, None)
            self._auto(f"turn {pos.turn} end", lambda c: engine.fire(c, "turn_end"))
            pos.op += 1
        elif op.kind == "phase_start":
            self._enter(op.phase.name, self.side_of(op))
            if op.when is not None and not op.when(Frame(ctx)):
                pos.op = op.end + 1  # a conditional phase that does not happen this turn
                return
            self._auto(f"{op.phase.name} start", lambda c: engine.fire(c, "phase_start", (op.phase.name,)))
            pos.op += 1
        elif op.kind == "phase_end":
            self._enter(op.phase.name, self.side_of(op))
            self._auto(f"{op.phase.name} end", lambda c: engine.fire(c, "phase_end", (op.phase.name,)))
            if self.check_invariants:
                engine.check_invariants(ctx, "phase_end", op.phase.name)
            pos.op += 1
        elif op.kind == "do":
            self._enter(op.phase.name, self.side_of(op))
            self._auto(op.phase.header.label or op.phase.name, lambda c: op.run(Frame(c)))
            pos.op += 1
        elif op.kind == "repeat":
            self._repeat(op)
        elif op.kind == "repeat_end":
            pos.op = op.end  # back to the test
        elif op.kind == "player_turn":
            self._player_turn(op)

    def _repeat(self, op: Op) -> None:
        """Test a `repeat`: play its block once more, or go past it."""
        ctx, pos = self.ctx, self.ctx.state.position
        ctx.steps = 0
        if not op.when(Frame(ctx)):
            pos.op = op.end + 1
            return
        key = (pos.turn, pos.op)
        self.passes[key] = self.passes.get(key, 0) + 1
        if self.passes[key] > REPEAT_SAFETY_LIMIT:
            raise RuleError(f"more than {REPEAT_SAFETY_LIMIT} passes of a `repeat` block in turn {pos.turn}: "
                            "does its test ever become false?", op.block.span)
        pos.op += 1

    def _player_turn(self, op: Op) -> None:
        """Start a `player_turn`: decide its side now, or skip the block when there is none."""
        ctx, pos = self.ctx, self.ctx.state.position
        ctx.steps = 0
        value = op.run(Frame(ctx))
        if value is None:
            pos.sides.pop(str(pos.op), None)
            pos.op = op.end + 1
            return
        if not (isinstance(value, Entity) and value.kind == "side"):
            raise RuleError(f"a player turn needs a side, got {show(value)}", op.block.side.span)
        pos.sides[str(pos.op)] = value.name
        ctx.state.touch()
        pos.op += 1

    def _allow_step(self, op: Op) -> bool:
        """Ask the active side for one action; return False when the phase's actions are over."""
        engine, ctx = self.engine, self.ctx
        state = ctx.state
        ctx.steps = 0  # the step limit bounds one decision point (enumeration and action), not a game
        side = self.side_of(op)
        self._enter(op.phase.name, side)
        allow: ast.Allow = op.run
        limit = allow.limit if allow.limit is not None else ALLOW_SAFETY_LIMIT
        if state.position.in_allow >= limit:
            if allow.limit is None:
                raise RuleError(f"more than {ALLOW_SAFETY_LIMIT} actions in phase {op.phase.name}: does an action fail to use itself up?", allow.span)
            unmet = self.unmet_obligation(allow)
            if unmet is not None:
                raise RuleError(f"phase {op.phase.name} reached its limit of {allow.limit} actions, but "
                                f"{obligation_text(unmet)}", unmet.span)
            return False
        agent = self.agents.get(side)
        if agent is None:
            raise RuleError(f"no agent plays '{side}'")
        from warcodex.interpreter.agents import LegalActions

        legal = LegalActions(engine, ctx, allow.actions)
        try:
            choice = agent.choose_action(ctx, side, legal)
        except RecursionError:
            raise ctx.too_deep() from None
        if choice is None:
            unmet = self.unmet_obligation(allow)
            if unmet is not None:
                # an `until` obligation is not met: the side may not end the step while it can act
                reason = obligation_text(unmet)
                if legal.first() is None:
                    raise RuleError(f"phase {op.phase.name} cannot end: {reason}, and {side} has no legal "
                                    "action left to meet it", unmet.span)
                legal.may_pass = False
                legal.obligation = reason
                choice = agent.choose_action(ctx, side, legal)
                if choice is None:
                    raise RuleError(f"{side} may not end phase {op.phase.name} yet: {reason}", unmet.span)
            else:
                self.log({"k": "pass", "phase": op.phase.name, "side": side})
                return False
        self.apply(choice, op)
        state.position.in_allow += 1
        return True

    def unmet_obligation(self, allow: ast.Allow):
        """The first `until` obligation of an `allow` step that is false now, or None."""
        if not allow.until:
            return None
        ctx = self.ctx
        compiled = self.engine.sequence._compiled
        with ctx.untraced():
            for r in allow.until:
                if not compiled[id(r)](Frame(ctx)):
                    return r
        return None

    def apply(self, choice, op: Op) -> dict:
        engine, ctx = self.engine, self.ctx
        action = engine.actions.get(choice.action)
        if action is None or choice.action not in op.run.actions:
            raise RuleError(f"action '{choice.action}' is not allowed in phase {op.phase.name}")
        text = f"{choice.action}(" + ", ".join(f"{k}={engine.describe(ctx, v)}" for k, v in choice.args) + ")"
        if self.trace:
            ctx.begin_trace()
        ctx.choices = []
        ctx.hidden_owners = set()
        try:
            action.apply(ctx, choice)
        except RecursionError:
            raise ctx.too_deep() from None
        finally:
            trace = ctx.end_trace() if self.trace else []
            choices, ctx.choices = ctx.choices, None
        entry = {"k": "action", "phase": op.phase.name, "side": self.side_of(op), "action": choice.action,
                 "args": {k: engine.to_json(v) for k, v in choice.args}, "text": text}
        if ctx.hidden_owners:
            entry["hidden_from"] = engine.hidden_from(ctx.hidden_owners)
        if choices:
            entry["choices"] = choices
        if trace:
            entry["trace"] = [d.to_json() for d in trace]
        entry = self.log(entry)
        self.actions_taken += 1
        if self.check_invariants:
            engine.check_invariants(ctx, "after", choice.action)
        if self.on_action is not None:
            self.on_action(entry)
        return entry
