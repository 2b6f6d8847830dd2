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
  judges one); the agent plays the candidate of the best plan, and **keeps that plan**: at the
  next decision, the rest of the plan followed is judged again from the position reached (its
  actions played in turn on a snapshot, the first still legal here, or in the side's next step
  after passing: then the agent passes), and a fresh plan replaces it only if worth more. A plan
  found at one decision is not dropped at the next for greedy's own draws, whose fresh plans may
  not find it again (a fresh plan's focus holds only its own places). The plan is dropped when
  another side decides, at the end of the turn, or when its next action is no longer legal.

Deterministic for a seed; every position looked at has dice of its own (search_support.py); at
most `budget` actions a decision are played to judge the plan followed (first) and to extend
fresh plans (after that, candidates are judged one-ply). With `depth=1` or `budget=0` it is the
greedy agent: the same seed plays the same game.
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
        self._values: dict = {}  # candidate key -> its value (its plan's, if better), this decision
        self._rest: list = []  # the plan followed: its actions after the one played last
        self._rest_from = None  # (state, side, turn, log length) where it was last played
        self.plans = self.plan_actions = 0  # plans extended, actions played to extend or replay them
        self.plans_kept = self.plans_replaced = 0  # decisions where the plan followed was kept, replaced

    def stats(self) -> dict:
        return {**super().stats(), "plans": self.plans, "plan_actions": self.plan_actions,
                "plans_kept": self.plans_kept, "plans_replaced": self.plans_replaced}

    # ------------------------------------------------------------------ the decision
    def _choose_action(self, ctx, side, legal):
        self._spent = 0
        self._plans, self._values = {}, {}
        # the plan followed, judged first (its replay is on the budget, so it is always judged
        # when a budget is given), then greedy's decision over fresh candidates and their plans
        kept = self._kept(ctx, side, legal)
        choice = super()._choose_action(ctx, side, legal)
        if kept is not None:
            value, first, rest = kept
            if value >= self._fresh_value(ctx, side, legal, choice):
                # a fresh plan replaces the plan followed only when worth more: otherwise a combined
                # attack found at one decision would be dropped at the next for greedy's own draws
                self.plans_kept += 1
                self._follow(ctx, side, rest)
                return first
            self.plans_replaced += 1
        self._follow(ctx, side, self._plans.get(candidate_key(choice), []) if choice is not None else [])
        return choice

    def _fresh_value(self, ctx, side: str, legal, choice) -> float:
        """What greedy's decision `choice` is worth: its candidate's value (its plan's, if better),
        or the position's when it passes."""
        if choice is None:
            if not legal.may_pass:
                return -math.inf
            steps = ctx.steps  # judging is not the decision's rules: not on its step budget (as greedy's)
            value = value_in(ctx, self.evaluation_name, side)
            ctx.steps = steps
            return value
        key = candidate_key(choice)
        if key not in self._values:  # a forced action, or one drawn when nothing was found
            self.value_after(ctx, side, choice)
        return self._values[key]

    def _follow(self, ctx, side: str, rest: list) -> None:
        """Follow `rest` (the plan's actions after the one played now) from the next decision;
        where the game is now tells, then, whether the plan is still this activation's."""
        self._rest = list(rest)
        self._rest_from = (ctx.state, side, ctx.state.position.turn, len(ctx.log)) if rest else None

    def _still_followed(self, ctx, side: str) -> bool:
        """Whether the plan followed is still this activation's: the same game and turn, and no
        other side decided since (a plan is one side's actions in a row)."""
        if not self._rest or self._rest_from is None:
            return False
        state, own, turn, seen = self._rest_from
        if ctx.state is not state or own != side or ctx.state.position.turn != turn or len(ctx.log) < seen:
            return False
        return all(e.get("side") == side for e in ctx.log[seen:] if e.get("k") in ("action", "pass"))

    def _kept(self, ctx, side: str, legal):
        """The plan followed, re-judged from here: (its value, the action to play now, None to
        pass to the step where it goes on, the plan's actions after it), or None when there is
        no plan to follow: none, another activation's, its next action no longer legal here nor
        after passing, or no budget to judge it."""
        if self.depth < 2 or not self._still_followed(ctx, side) or self._spent >= self.budget:
            self._rest = []
            return None
        rest, self._rest = self._rest, []
        first = rest[0]
        if self._legal(legal, first):
            start, now = (ctx, legal), first
        elif legal.may_pass:
            node = Context(ctx.engine, private_snapshot(ctx.state, self.rng))
            node.carry_memos(ctx)
            start, now = self._after_pass(node, side), None
            if start is None or not self._legal(start[1], first):
                return None
        else:
            return None
        value, played = self._replay(start, side, rest)
        if not played:
            return None
        return value, now, played[1:] if now is not None else played

    def _replay(self, start, side: str, actions: list) -> tuple[float, list]:
        """`actions` played in turn from `start` (a context and its legal actions), each where the
        plan may go on (`_decisions`) and still legal there: the best value along them, and the
        actions up to that best position (none when the first is refused or no budget is left)."""
        base, legal = start
        best, upto, node = -math.inf, 0, None
        for i, choice in enumerate(actions):
            if self._spent >= self.budget:
                break
            if i > 0:
                base, legal = next(((b, lg) for b, lg in self._decisions(node, side) if self._legal(lg, choice)),
                                   (None, None))
                if base is None:
                    break
            value, node = self._play(base, side, choice)
            if node is None:
                break
            if value > best:
                best, upto = value, i + 1
        return best, actions[:upto]

    def _legal(self, legal, choice) -> bool:
        if choice.action not in legal.names:
            return False
        try:
            legal.engine.actions[choice.action].validate(legal.ctx, choice)
        except RuleError:
            return False
        return True

    def value_after(self, ctx, side: str, choice) -> float:
        value, sim = self.look(ctx, side, choice)
        key = candidate_key(choice)
        self._values[key] = value
        if sim is None or self.depth < 2 or self._spent >= self.budget:
            return value
        focus = Focus(ctx.engine.board, self.reach)
        focus.add(choice)
        if not focus.places:
            return value  # an action at no place (a purchase...): nothing to combine it with
        self.plans += 1
        best, rest = self._extend(sim, side, focus)
        if best > value:
            self._plans[key] = rest
            self._values[key] = best
        return self._values[key]

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
        if not self.run_body(engine, ctx, choice):
            return -math.inf, None
        ctx.state.position.in_allow += 1
        return value_in(ctx, self.evaluation_name, side), ctx



