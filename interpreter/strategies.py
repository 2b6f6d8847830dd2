"""Hypothesis strategies for property tests of a game's rules: states reached by legal play, and
legal actions in a state. Every decision (which action or pass, each parameter, each `choose`
inside a procedure) is drawn from hypothesis, so a failing example shrinks to a short game.

    from hypothesis import given, settings, strategies as st
    from warcodex.interpreter.strategies import game_states, legal_actions, apply_action, load_engine

    engine = load_engine("games/tiny")

    @settings(max_examples=50, deadline=None)
    @given(data=st.data())
    def test_a_move_never_leaves_three_units_in_a_hex(data):
        state = data.draw(game_states(engine, "meeting", max_actions=20, with_legal=["move"]))
        action = data.draw(legal_actions(engine, state))
        after = apply_action(engine, state, action, data.draw)
        assert all(len(ids) <= 2 for ids in after.at.values())

How a decision is drawn (what shrinking works on): at an `allow` step, first whether to pass (0,
the simplest value, is a pass; about one decision in `PASS_ONE_IN` passes while generating), then
which kind of action, then each parameter in declaration order, among the values that still lead
to a legal action. Units and locations are drawn by key (unit id, position on the map), so a
recorded draw keeps meaning the same unit or hex when hypothesis deletes an earlier action; other
values by their position in the engine's deterministic order. A `choose` is drawn the same way
(0 first declines an `optional` one). Dice are never drawn: they come from the game's seeded RNG,
so a sequence of decisions with the same seed is the same game.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from hypothesis import assume
from hypothesis import strategies as st

from warcodex.interpreter.actions import ActionChoice, CompiledAction
from warcodex.interpreter.agents import Agent, FirstAgent
from warcodex.interpreter.compiler import Frame
from warcodex.interpreter.context import Context
from warcodex.interpreter.invariants import InvariantViolation
from warcodex.interpreter.play import Game, start
from warcodex.interpreter.sequence import Runner
from warcodex.interpreter.state import GameState
from warcodex.interpreter.values import UnitRef

PASS_ONE_IN = 10  # while generating, a decision passes about once in this many draws
SMALL_SUBSET = 6  # up to this many candidates, a subset is an index among all legal groups


def load_engine(path, overlays=()):
    """Load and check a game folder; raise DiagnosticError (with every located error) if it has errors."""
    from warcodex.dsl.checker import check_path
    from warcodex.dsl.diagnostics import DiagnosticError
    from warcodex.interpreter.engine import Engine

    game, diags = check_path(Path(path), overlays)
    if diags.errors or game is None:
        raise DiagnosticError(diags.errors)
    return Engine(game)


# ---------------------------------------------------------------- drawing one decision
def _bound(action: CompiledAction, fr: Frame, i: int, value) -> bool:
    """With parameters [0, i) bound in fr, does binding parameter i to value lead to a legal instance?"""
    trial = Frame(fr.ctx, dict(fr.vars))
    trial.vars[action.params[i].name] = value
    if not action.requirements_hold(trial, i + 1):
        return False
    return next(action.completions(trial, i + 1), None) is not None


def _keys(engine, values) -> list[int] | None:
    """Stable keys (unit ids, map positions) when every value is a unit or a location, else None."""
    index = engine.board.index
    keys = []
    for v in values:
        if isinstance(v, UnitRef):
            keys.append(v.id)
        elif isinstance(v, str) and v in index:
            keys.append(index[v])
        else:
            return None
    return keys if len(set(keys)) == len(keys) else None


def _locations(engine, values) -> bool:
    index = engine.board.index
    return all(isinstance(v, str) and v in index for v in values)


def pick(draw, engine, values: list, ok=None, state=None):
    """Draw one of `values` that satisfies `ok` (tested lazily), or None if none does.

    Units and locations are drawn by key (unit id, map position; the nearest candidate to the
    drawn key), other values by position: a recorded draw then still means the same unit or hex
    when earlier decisions change, which is what lets hypothesis delete unneeded actions.
    Locations where the action is (with units, or next to them: stacking, combat, zones of
    control) are favoured one time in three when `state` is given."""
    if not values:
        return None
    if len(values) > 1 and state is not None and _locations(engine, values):
        focus = draw(st.integers(0, 5))  # 0-3: anywhere (the simplest); 4: next to units; 5: with units
        if focus >= 4:
            at, board = state.at, engine.board
            near = [v for v in values if v in at or (focus == 4 and any(n in at for n in board.neighbors(v)))]
            values = near or values
    if len(values) == 1:
        order = values
    else:
        keys = _keys(engine, values)
        if keys is None:
            k = draw(st.integers(0, len(values) - 1))
            order = values[k:] + values[:k]
        else:
            k = draw(st.integers(min(keys), max(keys)))
            order = [values[i] for i in sorted(range(len(values)), key=lambda i: (abs(keys[i] - k), keys[i]))]
    return next((v for v in order if ok is None or ok(v)), None)


def _draw_subset(draw, action: CompiledAction, fr: Frame, i: int):
    p = action.params[i]
    items = list(p.source(fr) or ())
    fits = lambda group: _bound(action, fr, i, group)  # noqa: E731
    if len(items) <= SMALL_SUBSET:  # an index among the groups, in the engine's order (largest first)
        return pick(draw, fr.ctx.engine, list(action.candidates(fr, p)), fits, fr.ctx.state)
    # many candidates: one yes/no each; a group that breaks a limit or a requirement falls back
    # to the first legal group in the engine's order
    hi = len(items) if p.max is None else min(p.max, len(items))
    picked = tuple(x for x in items if draw(st.booleans()))
    if p.min <= len(picked) <= hi and fits(picked):
        return picked
    return next((g for g in action.candidates(fr, p) if fits(g)), None)


def draw_instance(draw, ctx, action: CompiledAction) -> ActionChoice | None:
    """A legal instance of one action, parameter by parameter, or None if it has none."""
    fr = Frame(ctx)
    with ctx.untraced():
        if not action.requirements_hold(fr, 0):
            return None
        for i, p in enumerate(action.params):
            if p.subset:
                value = _draw_subset(draw, action, fr, i)
            else:
                value = pick(draw, ctx.engine, list(action.candidates(fr, p)), lambda v: _bound(action, fr, i, v), ctx.state)
            if value is None:
                return None
            fr.vars[p.name] = value
        return ActionChoice(action.name, tuple((p.name, fr.vars[p.name]) for p in action.params))


def _plausible(action: CompiledAction, ctx) -> bool:
    """A cheap test that may be wrong only one way: an action with no candidate for its first
    parameter (or failing its parameterless requirements) has no legal instance."""
    fr = Frame(ctx)
    with ctx.untraced():
        if not action.requirements_hold(fr, 0):
            return False
        return not action.params or next(iter(action.candidates(fr, action.params[0])), None) is not None


def draw_action(draw, engine, ctx, names, allow_pass: bool = True) -> ActionChoice | None:
    """Pass (None) or a legal action among `names`, every decision drawn with `draw`: whether to
    pass, which kind of action, then its parameters (the next kind with a legal instance if the
    one drawn has none). When no action even has a candidate for its first parameter, it is a
    pass without a draw. (A full legality test before the first draw would cost a movement search
    at every decision, a third of the time of a game.)"""
    names = [n for n in names if _plausible(engine.actions[n], ctx)]
    if not names:
        return None
    if allow_pass and draw(st.integers(0, PASS_ONE_IN - 1)) == 0:
        return None
    k = 0 if len(names) == 1 else draw(st.integers(0, len(names) - 1))
    for name in names[k:] + names[:k]:
        choice = draw_instance(draw, ctx, engine.actions[name])
        if choice is not None:
            return choice
    return None


class DrawingAgent(Agent):
    """An agent whose every decision is drawn from hypothesis (`data.draw`, or a composite's `draw`)."""

    def __init__(self, draw) -> None:
        self.draw = draw

    def choose_action(self, ctx, side, legal):
        return draw_action(self.draw, legal.engine, ctx, legal.names, allow_pass=legal.may_pass)

    def choose(self, ctx, who, what, options, optional):
        if optional and self.draw(st.integers(0, len(options))) == 0:
            return None  # declining is the simplest choice
        return options.index(pick(self.draw, ctx.engine, list(options), state=ctx.state))

    def choose_subset(self, ctx, who, what, options, lo, hi):
        hi = len(options) if hi is None else min(hi, len(options))
        picked = [i for i in range(len(options)) if self.draw(st.booleans())]
        for i in range(len(options)):  # too few: add the first ones left out
            if len(picked) >= lo:
                break
            if i not in picked:
                picked.append(i)
        return sorted(picked)[:hi]


# ---------------------------------------------------------------- running drawn games
def start_game(engine, scenario, seed: int, agents: dict, options=None, check_invariants: bool = True,
               trace: bool = False) -> Game:
    """A game set up and ready to run; with check_invariants its Runner checks the invariants
    after every action, every automatic step and every phase end."""
    return start(engine, scenario, seed, agents, options=options, trace=trace, check_invariants=check_invariants)


def start_drawn(draw, engine, scenario, seed: int = 0, options=None, check_invariants: bool = True,
                trace: bool = False) -> Game:
    """A game whose every decision, for every side, is drawn with `draw`."""
    agent = DrawingAgent(draw)
    return start_game(engine, scenario, seed, {s.name: agent for s in engine.side_entities}, options,
                      check_invariants, trace)


class ReachedState(GameState):
    """A GameState reached by legal play; `log` is the game that reached it (shown on failure)."""

    log: list

    @classmethod
    def of(cls, game: Game) -> "ReachedState":
        state = cls(**{f.name: getattr(game.state, f.name) for f in dataclasses.fields(GameState)})
        state.log = list(game.log)
        return state

    def __repr__(self) -> str:
        actions = [e for e in self.log if e.get("k") == "action"]
        where = "game over" if self.over else f"turn {self.position.turn}, {self.phase or 'between phases'}"
        if self.active and not self.over:
            where += f" ({self.active})"
        shown = "; ".join(f"{e['side']}: {e.get('text', e.get('action'))}" for e in actions)
        return (f"<{self.scenario} seed {self.seed}, {where}, after {len(actions)} action(s)"
                + (f": {shown}" if shown else "") + ">")

    def _repr_pretty_(self, printer, cycle) -> None:  # how hypothesis prints a falsifying example
        printer.text(repr(self))


class _Arrived(Exception):
    """Raised by the agent to stop a game at the decision point a strategy wants."""


class _StoppingAgent(DrawingAgent):
    """Draws decisions until `budget` actions are taken, then stops the game at the first
    decision point where one of `wanted` (any action if None) has a legal instance."""

    def __init__(self, draw, budget: int, wanted) -> None:
        super().__init__(draw)
        self.budget = budget
        self.wanted = wanted
        self.taken = 0

    def choose_action(self, ctx, side, legal):
        if self.taken >= self.budget:
            if self.wanted is None:
                raise _Arrived
            names = [n for n in legal.names if n in self.wanted]
            if any(next(legal.engine.actions[n].instances(ctx), None) is not None for n in names):
                raise _Arrived
        choice = super().choose_action(ctx, side, legal)
        if choice is not None:
            self.taken += 1
        return choice


def game_states(engine, scenario: str | None = None, max_actions: int = 30, seed: int = 0, options=None,
                check_invariants: bool = False, with_legal=None):
    """States reached by legal play of `scenario` from its setup: up to `max_actions` actions
    (hypothesis picks how many, shrinking towards the set-up position), every decision drawn,
    stopped at a decision point (an `allow` step, before its side decides) or at the game's end.

    `with_legal=["attack"]`: only decision points where one of these actions is allowed and has a
    legal instance (the first one after the drawn number of actions, up to `max_actions` more);
    games that never reach one are rejected. Dice come from `seed`. The value is a ReachedState: a
    GameState whose repr lists the actions that reached it. With check_invariants, the game's
    invariants are checked on the way (an InvariantViolation fails the test)."""
    wanted = None if with_legal is None else set(with_legal)

    @st.composite
    def states(draw):
        budget = draw(st.integers(0, max_actions))
        agent = _StoppingAgent(draw, budget, wanted)
        game = start_game(engine, scenario, seed, {s.name: agent for s in engine.side_entities}, options,
                          check_invariants)
        try:
            game.run(max_actions=budget + max_actions)
        except _Arrived:
            return ReachedState.of(game)
        assume(wanted is None)  # the game ended (or ran out of actions) before such a decision
        return ReachedState.of(game)

    return states()


def allowed_now(engine, state) -> list[str] | None:
    """The actions of the `allow` step the state stands at, or None when it is not at one."""
    if state.over:
        return None
    ctx = Context(engine, state)
    program = engine.sequence.program(ctx)
    op = program[state.position.op] if state.position.op < len(program) else None
    return list(op.run.actions) if op is not None and op.kind == "allow" else None


def legal_actions(engine, state, actions: list[str] | None = None):
    """Legal actions (ActionChoice) in `state`: among `actions`, or the ones its current `allow`
    step allows (every declared action if it is not at one), for the side whose turn it is.
    States with none, and states outside a player turn (no active side, game over), are rejected."""

    @st.composite
    def choices(draw):
        assume(state.active is not None and not state.over)
        eng = engine.for_scenario(state.scenario)
        names = actions or allowed_now(eng, state) or list(eng.actions)
        choice = draw_action(draw, eng, Context(eng, state), names, allow_pass=False)
        assume(choice is not None)
        return choice

    return choices()


def apply_action(engine, state, choice: ActionChoice, draw=None) -> GameState:
    """The state after `choice`, on a copy (the state given is unchanged). The action's own
    `choose` decisions are drawn with `draw` (e.g. `data.draw`), or the first option without it.
    Only the action's effects: the turn sequence does not advance."""
    eng = engine.for_scenario(state.scenario)
    after = state.snapshot()
    agent = DrawingAgent(draw) if draw is not None else FirstAgent()
    ctx = Context(eng, after, {s.name: agent for s in eng.side_entities})
    eng.actions[choice.action].apply(ctx, choice)
    return after


def broken_invariants(engine, state, after: str | None = None) -> list[str]:
    """The game's invariants that do not hold in `state`: the `always` ones, and the
    `after(ACTION)` ones too when `after` names that action."""
    eng = engine.for_scenario(state.scenario)
    fr = Frame(Context(eng, state))
    return [inv.name for inv in eng.invariants
            if (inv.check == "always" or (inv.check == "after" and inv.target == after)) and not inv.holds(fr)]


__all__ = ["game_states", "legal_actions", "apply_action", "broken_invariants", "load_engine", "ReachedState",
           "DrawingAgent", "draw_action", "start_drawn", "start_game", "allowed_now"]
