"""The search of a choice inside an action or an automatic step: `ChoiceSearch`.

A search agent chooses actions by looking ahead, but an action's procedure asks its side choices
on the way (the hexes of an advance after combat, the units that take the losses), and an
automatic step asks its side others (the HQ a chit activates). A procedure cannot be resumed from
a snapshot half-way, so such a choice is searched by playing again, from the position before it,
what the choice is made in: the *line* of each pick weighed is the action (or the step) played on
a snapshot of that position, with the choices already made in it as they were made, then the
pick, dice of its own from there on, then random choices. The pick whose line is worth most to
the side is made (docs/balance.md, "Choices inside procedures"):

- an action's line is judged right after the action;
- an automatic step's line goes on to the game's next decision, where what the choice changes
  shows (the HQ activated changes nothing the evaluation sees until its units move): there it is
  worth the best of the position and, when the decision is the side's own, of the actions the
  agent draws there, each judged one ply.

The greedy agent searches its own choices with it (in play, and in its lookaheads through
`FollowChooser`), and so does MCTS (in play, and while a playout applies a candidate): the lines
are played, judged and drawn by one greedy agent, `agent` (MCTS keeps one of its own for this),
whose evaluation, RNG, lookahead (`run_body`, `look`) and draw of candidates (`candidates`) are
used, and whose `follow` is how many picks a choice weighs.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable

from warcodex.interpreter.agents import RandomAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.search_support import (ChoiceReplay, NextDecision, StepReplay, kept_position, lookahead_failure,
                                                 private_snapshot, replay_context, value_in)
from warcodex.interpreter.values import RuleError, RuleRefusal, show


@dataclass(frozen=True)
class Line:
    """How the picks of one choice are weighed: each is played again from `before` (a kept
    position, `kept_position`) by a `replaying` agent (`ChoiceReplay` for an action,
    `StepReplay` for an automatic step), and the line judged by `judge(sim, side)`: its value
    to `side`, -inf when the rules refuse it."""

    before: Context
    replaying: type
    judge: Callable


class ChoiceSearch:
    """Searches the choices a side makes inside the action its agent chose, or in an automatic
    step, by the lines of their picks (see the module's docstring). Counts the choices it
    searched (`searched`) and, of them, those made in automatic steps (`in_steps`)."""

    def __init__(self, agent) -> None:
        self.agent = agent  # the greedy agent that plays, judges and draws the lines
        self.searched = 0
        self.in_steps = 0
        # (state, log length, kept position before it, the action): the action the agent chose,
        # until the next one; None before any or after a pass
        self._acting = None

    # ------------------------------------------------ the lines
    def chose(self, ctx, action) -> None:
        """The agent chose `action` (None: it passed) in the game of `ctx`: the position before
        it is kept, with the game's memos (which hold there: the game goes on meanwhile), so that
        a choice inside it can be searched by playing it again from there."""
        self._acting = (ctx.state, len(ctx.log), kept_position(ctx), action) if action is not None else None

    def line_in_game(self, ctx) -> Line | None:
        """The line of a choice being made in the game of `ctx`: inside the action the agent chose
        (being applied: its log entry is not written yet), or in an automatic step (the game keeps
        the position before it, `sequence.AutoStep`); None otherwise (another side's action):
        the choice is then made at random."""
        if self._acting is not None and ctx.choices is not None:
            state, log_length, before, action = self._acting
            if ctx.state is state and len(ctx.log) == log_length:
                return self.action_line(before, action)
        step = ctx.auto_step
        if step is not None and ctx.choices is not None:
            return Line(step.before, StepReplay, lambda sim, side: self._step_value(step, sim, side))
        return None

    def action_line(self, before, action) -> Line:
        """The line of a choice inside `action`, played again from `before`: judged by the
        position right after the action."""
        agent = self.agent

        def judge(sim, side: str) -> float:
            if not agent.run_body(sim.engine, sim, action):
                return -math.inf
            return value_in(sim, agent.evaluation_name, side)

        return Line(before, ChoiceReplay, judge)

    def _step_value(self, step, sim, side: str) -> float:
        """The value to `side` of a line that plays the automatic step `step` again on `sim`
        (AutoStep.play_again), -inf when the rules refuse it there. The line goes on to the game's
        next decision: what a choice in an automatic step changes (the HQ a chit activates) shows
        in what the side can do next, not in the position right after the step. When that
        decision is `side`'s own, the line is worth the best of the position there and of the
        actions a decision of the agent draws there, each judged as it judges them (one ply);
        another side's decision is judged as it stands."""
        agent = self.agent
        agent.lookaheads += 1
        try:
            step.play_again(sim)
            decision = None  # the game ended, or the turns allowed were over
        except NextDecision as reached:
            decision = reached
        except RuleRefusal:
            return -math.inf
        except RuleError as exc:
            raise lookahead_failure(f"after {step.label}", exc) from exc
        except RecursionError:
            raise lookahead_failure(f"after {step.label}", sim.too_deep()) from None
        value = value_in(sim, agent.evaluation_name, side)
        if decision is None or decision.side != side:
            return value
        for choice in agent.candidates(decision.legal):
            value = max(value, agent.look(sim, side, choice)[0])  # one ply (a plan's value_after extends plans)
        return value

    # ------------------------------------------------ the picks
    def picks(self, options, optional: bool) -> list:
        """The picks of a `choose`: every option's index, and -1 (none) when it is optional."""
        return list(range(len(options))) + ([-1] if optional else [])

    def subset_picks(self, options, lo: int, hi) -> list:
        """At most `follow` groups to weigh: the largest allowed (every option, or a random group
        of the largest size allowed: the strongest attack is often everything that may join it),
        then random groups of random sizes."""
        rng, follow = self.agent.rng, self.agent.follow
        top = len(options) if hi is None else min(hi, len(options))
        if lo > top:
            return []
        largest = tuple(range(top)) if top == len(options) else tuple(sorted(rng.sample(range(len(options)), top)))
        draws = (tuple(sorted(rng.sample(range(len(options)), rng.randint(lo, top))))
                 for _ in range(2 * follow))
        picks = list(dict.fromkeys(itertools.chain([largest], draws)))
        return picks[:max(1, follow)]

    def pick(self, ctx, side: str, picks: list, line: Line | None):
        """Among `picks` (option indices, -1 for none, or tuples of indices), the one whose line
        is worth most to `side`: each played again from `line.before` with the choices made so far
        in it and then that pick (at most `follow` picks, drawn at random), dice of its own from
        the pick on; None when the choice cannot be searched (no line, fewer than two picks, a
        replay that did not reach the choice, every line refused): it is then made at random."""
        if line is None or len(picks) < 2:
            return None
        agent = self.agent
        made = list(ctx.choices)
        if len(picks) > agent.follow:
            picks = agent.rng.sample(picks, agent.follow)
        scored = []
        try:
            for pick in picks:
                replay = line.replaying(agent.rng.getrandbits(32), made, pick, agent.rng)
                sim = replay_context(line.before, {s.name: replay for s in ctx.engine.side_entities})
                value = line.judge(sim, side)
                if replay.mismatch or replay.calls <= len(made):
                    return None  # the replay did not reach this choice: nothing to compare
                scored.append((value, pick))
        finally:
            self.searched += 1
            self.in_steps += line.replaying is StepReplay
        best = max(v for v, _ in scored)
        if best == -math.inf:
            return None
        return agent.rng.choice([o for v, o in scored if v == best])


class FollowChooser(RandomAgent):
    """In a lookahead, the searching side's choices inside the action looked at (an advance
    after combat...) are searched as the agent searches them in play, one level deep (the lines
    it plays to judge them choose at random); the other sides choose at random."""

    def __init__(self, seed: int, search: ChoiceSearch, side: str, game_ctx, dice_seed: int, action) -> None:
        super().__init__(seed)
        self.search, self.side, self.action = search, side, action
        self.game_ctx, self.dice_seed, self._kept = game_ctx, dice_seed, None

    @property
    def before(self):
        """The position before the action looked at, with the lookahead's dice as they were and
        the game's memos (the game does not move during a decision): made at the first choice
        searched, most actions have none."""
        if self._kept is None:
            before = private_snapshot(self.game_ctx.state, None, self.dice_seed)
            self._kept = kept_position(self.game_ctx, before)
        return self._kept

    def choose(self, ctx, who, what, options, optional):
        if show(who) == self.side:
            search = self.search
            found = search.pick(ctx, self.side, search.picks(options, optional), search.action_line(self.before, self.action))
            if found is not None:
                return None if found < 0 else found
        return super().choose(ctx, who, what, options, optional)

    def choose_subset(self, ctx, who, what, options, lo, hi):
        if show(who) == self.side:
            search = self.search
            found = search.pick(ctx, self.side, search.subset_picks(options, lo, hi), search.action_line(self.before, self.action))
            if found is not None:
                return list(found)
        return super().choose_subset(ctx, who, what, options, lo, hi)
