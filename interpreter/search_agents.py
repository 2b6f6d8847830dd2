"""Agents that search: a greedy one-ply agent (here) and a Monte Carlo tree search agent (mcts.py).

Both judge positions with an `evaluation` the game declares (interpreter/evaluation.py) and look
ahead on state snapshots (`GameState.snapshot()` shares unit records, so copies are cheap):

- GreedyAgent: samples up to `samples` distinct legal actions, applies each to a snapshot and
  keeps the one whose position is worth most to its side (ties broken at random); an action that
  rolls dice is judged by the mean of `rolls` lookaheads, each on dice of its own, and a candidate
  drawn again in one decision keeps its first value; it passes when every sampled action makes
  the position worse than passing, or after `idle` actions in a row that improved nothing (when
  the step lets it pass), and it plays a forced decision (one legal action, no pass) without
  looking ahead.
- MCTSAgent (interpreter/mcts.py): UCT over the same sampled candidates, with rollouts.

What the two share (the candidate samplers, dice of their own for every snapshot, replaying an
action with one of its choices fixed, the value of a position, lookahead failures) lives in
search_support.py; the search of a choice inside an action or an automatic step, which both use,
in choice_search.py. What the agents cannot foresee, they do not: every snapshot gets dice of its
own, drawn from the agent's RNG (never the game's), so lookahead cannot peek at the rolls the game
will make. Choices inside procedures (`choose` retreat hexes, step losses...) are made at random
by MCTS, and by greedy except its side's inside its own actions and in automatic steps (`follow`,
below: a step's choice is judged at the game's next decision, by the best action it draws there).
Agents read the whole state, hidden information included (documented in docs/balance.md).

Both are deterministic for a seed: the same seed, game and opponents give the same log.
"""

from __future__ import annotations

import math
import time

from warcodex.collector import cycle_collection_paused
from warcodex.interpreter.agents import RandomAgent
from warcodex.interpreter.compiler import Frame
from warcodex.interpreter.context import Context
from warcodex.interpreter.evaluation import evaluation_named, utility
from warcodex.interpreter.choice_search import ChoiceSearch, FollowChooser
from warcodex.interpreter.search_support import (candidate_key, lookahead_failure, private_snapshot, stratified_candidates,
                                                 value_in)
from warcodex.interpreter.values import RuleError, RuleRefusal, show


class _Chooser(RandomAgent):
    """Random choices inside procedures, for every side, during lookahead."""


class GreedyAgent(RandomAgent):
    """One-ply lookahead over stratified samples of the legal actions, judged by the game's
    evaluation; with `follow`, its own choices inside its actions (an advance after combat, the
    units that take the losses) are searched too, by playing the action again from before it,
    and its side's choices in automatic steps (the HQ a chit activates), by playing the step
    again from before it and the game on to its next decision (sequence.AutoStep)."""

    def __init__(self, seed: int = 0, samples: int = 8, evaluation: str | None = None, idle: int = 3,
                 follow: int = 0, breadth: int = 1, rolls: int = 1) -> None:
        super().__init__(seed)
        if rolls < 1:
            raise ValueError("greedy rolls must be at least 1")
        self.samples = samples
        self.rolls = rolls  # lookaheads of a candidate that rolls dice, each on dice of its own: judged by their mean
        self.evaluation_name = evaluation
        self.idle = idle
        self.breadth = breadth  # instances drawn from each stratum (a unit's destinations...)
        self.follow = follow  # options of a choice inside its own action searched (0: random choices)
        self._streak: tuple = ((), 0)  # (the step, actions in a row there that improved nothing)
        # its side's choices inside its actions and in automatic steps, searched with `follow`
        # (it counts the choices searched, and those of them in automatic steps)
        self.choice_search = ChoiceSearch(self)
        # the decision budget, measured: decisions, lookaheads (actions played on snapshots), CPU s
        self.decisions = self.lookaheads = 0
        self.cpu = 0.0

    def stats(self) -> dict:
        """What its decisions cost (balance records it per game)."""
        n = max(1, self.decisions + self.choices_searched)
        return {"decisions": self.decisions, "choices_searched": self.choices_searched,
                "step_choices_searched": self.step_choices_searched, "lookaheads": self.lookaheads,
                "cpu_s": round(self.cpu, 3), "cpu_ms_per_decision": round(1000 * self.cpu / n, 2)}

    def run_body(self, engine, sim, choice) -> bool:
        """The action's effects on the snapshot of `sim`; False when the rules refuse them there."""
        self.lookaheads += 1
        try:
            # the candidate came from the legal enumeration of this very state: its effects are run
            # without validating it again (the game validates the one chosen when it applies it)
            engine.actions[choice.action].body(Frame(sim, dict(choice.args)))
        except RuleRefusal:
            return False  # a `require` or an `illegal` column: the rules' own no
        except RuleError as exc:
            raise lookahead_failure(f"at {choice.action}{_args(engine, sim, choice)}", exc) from exc
        except RecursionError:
            raise lookahead_failure(f"at {choice.action}{_args(engine, sim, choice)}", sim.too_deep()) from None
        return True

    def value_after(self, ctx, side: str, choice) -> float:
        """The utility to `side` of the position after `choice`, played on a snapshot."""
        return self.look(ctx, side, choice)[0]

    def look(self, ctx, side: str, choice) -> tuple[float, Context | None]:
        """(the utility to `side` of the position after `choice`, the lookahead's context there;
        None when the rules refuse the action there): played on a snapshot, as `value_after`.
        An action whose lookahead rolled dice (a combat) is played `rolls` times, each time on
        dice of its own, and judged by the mean of the values: one lucky roll must not make a
        1-3 attack look good. The context returned is the first lookahead's. An action that rolled
        no die is played once (its choices inside, made at random, are not averaged)."""
        value, sim, rolled = self._look_once(ctx, side, choice)
        if sim is None or not rolled or self.rolls < 2:
            return value, sim
        values = [value]
        for _ in range(self.rolls - 1):
            again, other, _ = self._look_once(ctx, side, choice)
            if other is None:
                return -math.inf, None  # refused on other dice: no better than an illegal action
            values.append(again)
        return sum(values) / len(values), sim

    def _look_once(self, ctx, side: str, choice) -> tuple[float, Context | None, bool]:
        """One lookahead of `look`: (the value, the context, whether it rolled its dice)."""
        engine = ctx.engine
        seed = self.rng.getrandbits(64)  # the lookahead's own dice (private_snapshot)
        snap = private_snapshot(ctx.state, self.rng, seed)
        if self.follow:
            # the position before the action, with the same dice, made only when a choice in it is
            # searched (most actions have none): a second snapshot a lookahead was a tenth of one
            chooser = FollowChooser(self.rng.getrandbits(32), self.choice_search, side, ctx, seed, choice)
        else:
            chooser = _Chooser(self.rng.getrandbits(32))
        sim = Context(engine, snap, {s.name: chooser for s in engine.side_entities})
        sim.carry_memos(ctx)  # the game's memos of rule values, valid for the snapshot
        sim.choices = []  # the choices made in it, for the lines that search one of them
        dice = snap.rng.getstate()
        if not self.run_body(engine, sim, choice):
            return -math.inf, None, False  # refused here: no better than an illegal action
        return value_in(sim, self.evaluation_name, side), sim, sim.state.rng.getstate() != dice

    def choose_action(self, ctx, side, legal):
        t0 = time.process_time()
        try:
            with cycle_collection_paused():  # a decision's lookaheads make no cycles worth a scan (DECISION_GC)
                choice = self._choose_action(ctx, side, legal)
        finally:
            self.cpu += time.process_time() - t0
            self.decisions += 1
        if self.follow:  # a choice inside it is searched by playing it again from before it (`choose`)
            self.choice_search.chose(ctx, choice)
        return choice

    def candidates(self, legal) -> list:
        """One draw of the candidate actions a decision weighs."""
        return stratified_candidates(legal, self.rng, self.samples, self.breadth)

    def _choose_action(self, ctx, side, legal):
        engine = ctx.engine
        here = None
        scored: list = []
        judged: set = set()  # the candidates' keys
        # A sample that finds nothing better than the position, or no candidate at all, is drawn
        # again (other strata, other instances) up to `idle` more times before the agent gives up
        # the step: passing ends the step for good, and one unlucky draw of strata must not end a
        # Combat Phase with attacks left (an unlucky roll is answered by `rolls`, in `look`). A
        # draw that looked at every stratum and found nothing is not drawn again: nothing else
        # is there to find.
        for _ in range(1 + self.idle):
            candidates = self.candidates(legal)
            if not candidates:
                if getattr(candidates, "exhaustive", False):
                    break
                continue
            if len(candidates) == 1 and not legal.may_pass and not scored:
                return candidates[0]  # forced: nothing to compare it with
            if here is None:
                steps = ctx.steps  # the agent's judging is not the decision's rules: not on its step budget
                with ctx.untraced():  # the game's own memos: what the enumeration computed is reused
                    here = utility(engine, ctx, evaluation_named(engine, self.evaluation_name), side)
                ctx.steps = steps
            # a candidate judged already in this decision keeps its value: judged again on other
            # dice, the best of its judgements would be kept, and a bad attack redrawn often
            # enough would look good on one of them
            fresh = [c for c in candidates if candidate_key(c) not in judged]
            judged.update(candidate_key(c) for c in fresh)
            scored += [(self.value_after(ctx, side, c), c) for c in fresh]
            if scored and max(v for v, _ in scored) > here:
                break
        if not scored:
            # the sample found nothing; a side that may not pass (an `until` obligation of the
            # step is unmet) must act: any legal action, drawn as the random agent draws one
            return None if legal.may_pass else legal.sample(self.rng)
        best = max(v for v, _ in scored)
        if legal.may_pass and best < here:
            return None  # every sampled action makes things worse than ending the step
        # An action no better than passing: passing ends the side's step for good, though another
        # sample might have found a better action; acting on without end only churns (a marker
        # flipped back and forth, a unit the evaluation does not see shuffled), a lookahead each.
        # So at most `idle` such actions in a row in one step, then the agent passes.
        pos = ctx.state.position
        step = (pos.turn, pos.op, side)
        streak = self._streak[1] if self._streak[0] == step else 0
        streak = 0 if best > here else streak + 1
        self._streak = (step, streak)
        if legal.may_pass and streak > self.idle:
            return None
        return self.rng.choice([c for v, c in scored if v == best])

    # ------------------------------------------------ choices inside its actions and automatic steps
    @property
    def searches_automatic_steps(self) -> bool:
        """Whether the game keeps the position before each automatic step for this agent
        (sequence.AutoStep): with `follow`, the choices its side makes there are searched."""
        return self.follow > 0

    @property
    def choices_searched(self) -> int:
        return self.choice_search.searched

    @property
    def step_choices_searched(self) -> int:
        return self.choice_search.in_steps

    def choose(self, ctx, who, what, options, optional):
        if self.follow:
            t0 = time.process_time()
            try:
                with cycle_collection_paused():  # as a decision (choose_action)
                    search = self.choice_search
                    found = search.pick(ctx, show(who), search.picks(options, optional), search.line_in_game(ctx))
            finally:
                self.cpu += time.process_time() - t0
            if found is not None:
                return None if found < 0 else found
        return super().choose(ctx, who, what, options, optional)

    def choose_subset(self, ctx, who, what, options, lo, hi):
        if self.follow:
            t0 = time.process_time()
            try:
                with cycle_collection_paused():  # as a decision (choose_action)
                    search = self.choice_search
                    found = search.pick(ctx, show(who), search.subset_picks(options, lo, hi), search.line_in_game(ctx))
            finally:
                self.cpu += time.process_time() - t0
            if found is not None:
                return list(found)
        return super().choose_subset(ctx, who, what, options, lo, hi)


def _args(engine, ctx, choice) -> str:
    return "(" + ", ".join(f"{k}={engine.describe(ctx, v)}" for k, v in choice.args) + ")"


GREEDY_DEFAULTS = {"samples": 12, "breadth": 3, "follow": 3, "rolls": 3}  # of the `greedy` agent spec, unless given

AGENT_OPTIONS = {
    "greedy": {"samples": int, "eval": str, "idle": int, "follow": int, "breadth": int, "rolls": int},
    "plan": {"samples": int, "eval": str, "idle": int, "follow": int, "breadth": int, "rolls": int,
             "depth": int, "width": int, "reach": int, "budget": int},
    "mcts": {"playouts": int, "horizon": int, "rollout": str, "candidates": int, "c": float, "eval": str,
             "budget": int, "widen": float, "idle": int, "sampler": str, "follow": int},
}


def make_search_agent(kind: str, options: dict, seed: int):
    """`greedy`, `plan` or `mcts` with options from an agent spec (`mcts:playouts=16:rollout=greedy`)."""
    allowed = AGENT_OPTIONS[kind]
    values = {}
    for key, text in options.items():
        if key not in allowed:
            raise ValueError(f"unknown option '{key}' of agent {kind} (have: {', '.join(allowed)})")
        try:
            values[key] = allowed[key](text)
        except ValueError:
            raise ValueError(f"agent {kind}: {key}={text} is not a {allowed[key].__name__}") from None
    if "eval" in values:
        values["evaluation"] = values.pop("eval")
    if kind == "greedy":
        # the agent named `greedy` draws 3 instances a stratum and searches its choices inside its
        # actions; the greedy rollouts of MCTS, built directly, keep the cheaper constructor's
        # defaults (one instance a stratum, random choices)
        return GreedyAgent(seed, **{**GREEDY_DEFAULTS, **values})
    if kind == "plan":
        from warcodex.interpreter.plan_agent import PlanAgent

        return PlanAgent(seed, **{**GREEDY_DEFAULTS, **values})
    if "c" in values:
        values["exploration"] = values.pop("c")
    from warcodex.interpreter.mcts import MCTSAgent

    return MCTSAgent(seed, **values)
