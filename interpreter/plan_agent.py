"""A planning agent: greedy's one-ply search, each candidate judged as the first action of a plan.

A one-ply search judges every action alone. Some results need several actions of the same side
combined: a capital across the sea taken by many transports' assaults at once (the first one
alone, two units against twelve, is a loss), a defended hex attacked after the moves that bring
enough units next to it. `PlanAgent` judges a candidate by the best position a short plan
beginning with it reaches:

- the plan is the side's own actions in its current activation: the rest of the step, and the
  steps the side plays next in a row (passing the Movement segment leads to its Combat segment);
  it ends where another side would decide, at the end of the turn, or after `depth` actions;
- a plan is *focused*: each action after the first acts at a place (its first location argument:
  the hex moved to, the hex attacked, the sea zone an assault is launched from) within `reach` of
  a place the plan has acted at already; that is what a combined action is, and it keeps the
  plan's branching small;
- each extension is the best of up to `width` focused candidates (drawn as greedy draws them,
  with the focus), taken even when it is worse than where the plan stands: a combined assault is
  worse at every step until it is strong enough (committed, a greedy rollout would stop at once);
- the candidate's value is the best position along its plan (right after an action, as greedy
  judges one); the agent plays the candidate of the best plan, then plans again at the next
  decision, where the rest of that plan is among the candidates (when still legal).

Deterministic for a seed; every position looked at has dice of its own (search_support.py); at
most `budget` actions a decision are played to extend plans (after that, candidates are judged
one-ply). With `depth=1` it is the greedy agent: the same seed plays the same game.
"""

from __future__ import annotations

import math

from warcodex.interpreter.agents import LegalActions, RandomAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.search_agents import GreedyAgent
from warcodex.interpreter.search_support import (candidate_key, lookahead_failure, private_snapshot,
                                                 stratified_candidates, value_in)
from warcodex.interpreter.sequence import Runner
from warcodex.interpreter.values import RuleError, RuleRefusal


class Focus:
    """The places a plan has acted at; it admits an action whose place (its first location
    argument) lies within `reach` of one of them (board distance: hexes, or areas' hops)."""

    def __init__(self, board, reach: int) -> None:
        self.board, self.reach = board, reach
        self.places: list[str] = []

    def place_of(self, choice):
        """The action's place: its first argument that is a location, or None."""
        for _, value in choice.args:
            if self.is_place(value):
                return value
        return None

    def is_place(self, value) -> bool:
        return isinstance(value, str) and value in self.board.index

    def add(self, choice) -> None:
        place = self.place_of(choice)
        if place is not None and place not in self.places:
            self.places.append(place)

    def near(self, place: str) -> bool:
        for p in self.places:
            d = self.board.distance(p, place)
            if d is not None and d <= self.reach:
                return True
        return False

    def admits_first(self, value) -> bool:
        """Whether an action whose first argument is `value` may be admitted (a place must be near)."""
        return not self.is_place(value) or self.near(value)

    def admits(self, choice) -> bool:
        place = self.place_of(choice)
        return place is not None and self.near(place)


class _AtDecision(Exception):
    """A plan's run of the sequence reached a decision: whose, and its legal actions."""

    def __init__(self, side: str, legal) -> None:
        super().__init__(side)
        self.side, self.legal = side, legal


class _Stop(RandomAgent):
    """In a plan: stops the run of the sequence at the next decision (`_AtDecision`); the choices
    inside procedures are made at random."""

    def choose_action(self, ctx, side, legal):
        raise _AtDecision(side, legal)


class PlanAgent(GreedyAgent):
    """Greedy's search, each candidate judged by the best position of a focused plan of the
    side's own actions beginning with it (module docstring; docs/balance.md, "The plan agent")."""

    def __init__(self, seed: int = 0, depth: int = 4, width: int = 3, reach: int = 2, budget: int | None = None,
                 **greedy) -> None:
        super().__init__(seed, **greedy)
        if depth < 1 or width < 1 or reach < 0 or (budget is not None and budget < 0):
            raise ValueError("plan depth and width must be at least 1, reach and budget not negative")
        self.depth, self.width, self.reach = depth, width, reach
        # actions played on snapshots to extend plans, a decision (then candidates are one-ply)
        self.budget = budget if budget is not None else 8 * self.samples * self.width
        self._spent = 0
        self._plans: dict = {}  # candidate key -> the rest of its best plan, this decision
        self._rest: list = []  # the rest of the plan of the action chosen last
        self.plans = self.plan_actions = 0  # plans extended, actions played to extend them

    def stats(self) -> dict:
        return {**super().stats(), "plans": self.plans, "plan_actions": self.plan_actions}

    # ------------------------------------------------------------------ the decision
    def candidates(self, legal) -> list:
        found = super().candidates(legal)
        if self.depth > 1 and self._rest:
            # the first action of the plan followed that is legal here (the plan's actions in this
            # step, or in the step after it)
            keys = {candidate_key(c) for c in found}
            nxt = next((c for c in self._rest if self._legal(legal, c)), None)
            if nxt is not None and candidate_key(nxt) not in keys:
                found.append(nxt)
        return found

    def _legal(self, legal, choice) -> bool:
        if choice.action not in legal.names:
            return False
        try:
            legal.engine.actions[choice.action].validate(legal.ctx, choice)
        except RuleError:
            return False
        return True

    def _choose_action(self, ctx, side, legal):
        self._spent = 0
        self._plans = {}
        choice = super()._choose_action(ctx, side, legal)
        if choice is not None:
            self._rest = self._plans.get(candidate_key(choice), [])
        # passing keeps the plan followed: its rest may be in the side's next step (the attack
        # the moves prepared, in the Combat segment after the Movement segment)
        return choice

    def value_after(self, ctx, side: str, choice) -> float:
        value, sim = self.look(ctx, side, choice)
        if sim is None or self.depth < 2 or self._spent >= self.budget:
            return value
        focus = Focus(ctx.engine.board, self.reach)
        focus.add(choice)
        if not focus.places:
            return value  # an action at no place (a purchase...): nothing to combine it with
        self.plans += 1
        best, rest = self._extend(sim, side, focus)
        if best > value:
            self._plans[candidate_key(choice)] = rest
            return best
        return value

    # ------------------------------------------------------------------ plans
    def _extend(self, node: Context, side: str, focus: Focus) -> tuple[float, list]:
        """The best value along the focused plan that goes on from `node` (the position right
        after the plan's first action), and the plan's actions up to that best position."""
        node.state.position.in_allow += 1  # the action played counts in its step, as in the game
        best, path, rest = -math.inf, [], []
        for _ in range(self.depth - 1):
            scored = []
            for base, legal in self._decisions(node, side):
                for c in self._focused(legal, focus):
                    if self._spent >= self.budget:
                        break
                    value, after = self._play(base, side, c)
                    if after is not None:
                        scored.append((value, c, after))
            if not scored:
                break
            top = max(v for v, _, _ in scored)
            value, choice, node = self.rng.choice([s for s in scored if s[0] == top])
            path.append(choice)
            focus.add(choice)
            if value > best:
                best, rest = value, list(path)
        return best, rest

    def _focused(self, legal, focus: Focus) -> list:
        # as many strata tested as greedy's draw tests (most are away from the focus; a stratum
        # whose first value is a place away from it costs nothing); a combined action commits
        # every unit it can: the subsets (the attackers...) are drawn largest first
        return stratified_candidates(legal, self.rng, self.width, self.breadth, focus=focus, strata=4 * self.samples,
                                     largest=True)

    def _decisions(self, node: Context, side: str) -> list:
        """Where the plan may go on from `node`: (context, legal actions) of the side's decision
        in the same step, and of its next decision after passing, if the side decides next."""

        engine = node.engine
        pos = node.state.position
        if node.state.over or node.state.winner is not None:
            return []
        program = engine.sequence.program(node)
        if pos.op >= len(program) or program[pos.op].kind != "allow":
            return []
        op = program[pos.op]
        runner = Runner(engine, node, {}, trace=False)
        if runner.side_of(op) != side:
            return []
        out = []
        limit = op.run.limit
        if limit is None or pos.in_allow < limit:
            out.append((node, LegalActions(engine, node, op.run.actions)))
        if runner.unmet_obligation(op.run) is None:
            after = self._after_pass(node, side)
            if after is not None:
                out.append(after)
        return out

    def _after_pass(self, node: Context, side: str):
        """(the context, legal actions) of `side`'s next decision after it passes at `node`,
        when that decision is the next one of the game, in the same turn; else None."""
        engine = node.engine
        stop = _Stop(self.rng.getrandbits(32))
        agents = {s.name: stop for s in engine.side_entities}
        ctx = Context(engine, node.state.snapshot(), agents)
        ctx.carry_memos(node)
        pos = ctx.state.position
        pos.in_allow = 0
        pos.op += 1
        try:
            Runner(engine, ctx, agents, trace=False).run(until_turn=pos.turn)
        except _AtDecision as d:
            return (ctx, d.legal) if d.side == side else None
        except RuleRefusal:
            return None
        except RuleError as exc:
            raise lookahead_failure("(a plan, passing)", exc) from exc
        except RecursionError:
            raise lookahead_failure("(a plan, passing)", ctx.too_deep()) from None
        return None

    def _play(self, base: Context, side: str, choice) -> tuple[float, Context | None]:
        """`choice` played on a snapshot of `base` with dice of its own: (its value, the context
        after it), or (-inf, None) when the rules refuse it there."""
        engine = base.engine
        self._spent += 1
        self.plan_actions += 1
        stop = _Stop(self.rng.getrandbits(32))
        ctx = Context(engine, private_snapshot(base.state, self.rng), {s.name: stop for s in engine.side_entities})
        ctx.carry_memos(base)
        ctx.choices = []
        if not self._run_body(engine, ctx, choice):
            return -math.inf, None
        ctx.state.position.in_allow += 1
        return value_in(ctx, self.evaluation_name, side), ctx



