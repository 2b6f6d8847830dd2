"""A Monte Carlo tree search (UCT) agent: MCTSAgent.

UCT over sampled candidate actions (and passing, when allowed): each playout picks a candidate by
UCB1 (unvisited ones first), plays it on a snapshot, then lets rollout agents (random, or greedy
with a small sample) play every side for `horizon` more actions, and scores the position reached
(a decided game counts as a win or a loss). Rewards are normalised by the range seen so far, so
the exploration constant means the same in every game. The action played most often is chosen.
The tree has one level: the candidates of the current decision; deeper decisions are the
rollouts' (this keeps every playout an ordinary, bounded run of the engine).

A decision's cost is bounded by a budget of engine actions (`budget`: candidates applied and
rollout actions together), never by time, so a seed plays the same game on any machine. Within
it: a forced decision is played without search; a candidate whose application is deterministic
(no die, no random choice) is applied once and its position reused by its later playouts (with no
rollout, `horizon=0`, its value too); progressive widening (`widen`) adds sampled candidates as
playouts grow; after `idle` actions in a row no better than passing, the agent passes.

Its own choices inside its own actions (the advance after combat, the units that take the losses,
a retreat hex) are searched as greedy searches them (`follow` options a choice, each judged by
playing the action again from the position before it): in play, and in each playout, while the
candidate is applied (one level deep: the lines played to judge a choice choose at random). Its
side's choices in automatic steps (the HQ a chit activates) are searched in play by the same
greedy judgement (since s9): the step played again from the position the game keeps before it,
on to the game's next decision, judged there by the best action greedy draws. Other choices
(another side's, the rollouts') are random. Before s8 all of them were random: an attack was
judged, and played, with a random advance and random losses.

It shares the greedy agent's ground rules and their code (search_support.py, and the search of a
choice, choice_search.py, with a greedy agent of its own to judge the lines): snapshots get dice of their own (never the game's), only the rules'
refusals make a line hopeless, and the same seed gives the same log.
"""

from __future__ import annotations

import math
import time
from itertools import islice

from warcodex.interpreter.agents import RandomAgent
from warcodex.interpreter.choice_search import FollowChooser
from warcodex.interpreter.search_agents import GreedyAgent
from warcodex.interpreter.search_support import (lookahead_failure, position_value, private_snapshot, sampled_candidates,
                                                 stratified_candidates)
from warcodex.interpreter.values import RuleError, RuleRefusal, show

PASS = None  # a candidate that ends the side's actions in the current step


class MCTSAgent(RandomAgent):
    """UCT over sampled candidate actions, with random or greedy rollouts to a horizon, within a
    budget of engine actions a decision (docs/balance.md, "What an MCTS decision costs")."""

    def __init__(self, seed: int = 0, playouts: int = 32, horizon: int = 20, rollout: str = "random",
                 candidates: int = 8, exploration: float = 1.4, evaluation: str | None = None,
                 budget: int | None = None, widen: float = 0.0, idle: int = 3, sampler: str = "kind",
                 follow: int = 3) -> None:
        super().__init__(seed)
        if sampler not in ("kind", "stratified"):
            raise ValueError(f"mcts sampler must be kind or stratified, not '{sampler}'")
        if rollout not in ("random", "greedy"):
            raise ValueError(f"mcts rollout must be random or greedy, not '{rollout}'")
        for name, value in (("playouts", playouts), ("candidates", candidates)):
            if value < 1:
                raise ValueError(f"mcts {name} must be at least 1, not {value}")
        if horizon < 0 or (budget is not None and budget < 1) or widen < 0 or idle < 0 or follow < 0:
            raise ValueError("mcts horizon, widen, idle and follow must not be negative, and a budget is at least 1")
        self.playouts = playouts
        self.horizon = horizon
        self.rollout = rollout
        self.candidates = candidates
        self.exploration = exploration
        self.evaluation_name = evaluation
        # engine actions a decision may play in its playouts (candidates and rollouts together)
        self.budget = budget if budget is not None else playouts * (horizon + 1)
        self.widen = widen  # 0: every candidate from the start; > 0: progressive widening
        self.idle = idle
        # "kind": candidates drawn a random kind first, lazily; "stratified": greedy's strata (one
        # kind and unit each, three instances a stratum): a side with many kinds of action gets its
        # moves weighed (docs/balance.md, fourth part)
        self.sampler = sampler
        # its own choices inside its own actions, searched as greedy searches them (the options
        # weighed, their lines played again from before the action, judged by the same
        # evaluation): the search of a greedy agent of its own, with its own RNG (seeded: the same
        # game again), that only judges those lines; 0: random choices, as before s8
        self.follow = follow
        self.choice_search = GreedyAgent(seed, evaluation=evaluation, follow=follow).choice_search if follow else None
        self._choice_cpu = 0.0  # CPU of its choices searched in play (the decisions' is `cpu`)
        self._streak: tuple = ((), 0)  # (the step, actions in a row there no better than passing)
        self.spent = 0  # engine actions the last decision's playouts played (for tests and figures)
        # the decisions' cost, as greedy counts it (balance records it per game): decisions, engine
        # actions played in playouts (the "lookaheads" of a batch's report), CPU seconds
        self.decisions = self.actions_played = 0
        self.cpu = 0.0

    def stats(self) -> dict:
        """What its decisions cost (balance records it per game, as GreedyAgent.stats)."""
        searched = self.choice_search.searched if self.choice_search else 0
        in_steps = self.choice_search.in_steps if self.choice_search else 0
        cpu = self.cpu + self._choice_cpu
        return {"decisions": self.decisions, "choices_searched": searched, "step_choices_searched": in_steps,
                "lookaheads": self.actions_played, "cpu_s": round(cpu, 3),
                "cpu_ms_per_decision": round(1000 * cpu / max(1, self.decisions + searched), 2)}

    @property
    def searches_automatic_steps(self) -> bool:
        """Whether the game keeps the position before each automatic step for this agent
        (sequence.AutoStep), as for greedy: with `follow`, its side's choices there are searched."""
        return self.follow > 0

    def _rollout_agents(self, engine) -> tuple:
        seed = self.rng.getrandbits(32)
        if self.rollout == "greedy":
            agent = GreedyAgent(seed, samples=3, evaluation=self.evaluation_name)
        else:
            agent = RandomAgent(seed)
        return agent, {s.name: agent for s in engine.side_entities}

    def _value(self, engine, state, side: str) -> float:
        return position_value(engine, state, self.evaluation_name, side)

    def playout(self, ctx, side: str, choice, after: dict | None = None, key=None,
                limit: int | None = None) -> tuple[float, int]:
        """Play `choice` (or pass) on a snapshot, then `horizon` actions by the rollout agents: the
        utility to `side` of where that leads, and the engine actions played (at most `limit`,
        the candidate's application included: the rollout stops short of the horizon to keep it).

        With no rollout (`horizon` 0) the position is judged right after the candidate (passing:
        the position as it is), as the greedy agent judges it.

        `after` keeps, by `key`, the position right after a candidate whose application rolled no
        die and drew nothing from the rollout agent (no random choice inside it): that position is
        the same in every playout, so later playouts of the candidate start from a copy of it
        instead of applying the candidate again; with no rollout (`horizon` 0) its value is exact and
        later playouts cost nothing. A candidate that rolls dice is applied afresh each time (each
        playout its own dice: its worth is the mean over rolls, not one roll's, as greedy's is)."""
        from warcodex.interpreter.play import Game

        engine = ctx.engine
        cached = after.get(key) if after is not None else None
        if cached is not None and self.horizon == 0:
            return cached[1], 0  # no rollout: the position after the candidate, already judged
        chooser, agents = self._rollout_agents(engine)
        searching = None  # the side's chooser while the candidate is applied, when it searches its choices
        if cached is None and choice is not PASS and self.choice_search is not None:
            # its choices inside the candidate are searched by playing it again from `before`
            # (the same dice up to each choice: the snapshot's), as greedy's lookahead searches them
            dice_seed = self.rng.getrandbits(64)
            snap = private_snapshot(ctx.state, self.rng, dice_seed)
            searching = _ApplyingChooser(agents[side], FollowChooser(self.rng.getrandbits(32), self.choice_search, side,
                                                                     ctx, dice_seed, choice))
            agents = {**agents, side: searching}
        else:
            snap = private_snapshot(cached[0] if cached is not None else ctx.state, self.rng)
        game = Game(engine, snap, agents, trace=False)
        # every RNG a choice may draw from: the rollouts', and while the candidate is applied, the
        # search of its choices (a choice searched weighs lines on dice of their own)
        judging = self.choice_search.agent if searching else None  # the greedy agent that plays its lines
        rngs = [chooser.rng] + ([searching.follow.rng, judging.rng] if searching else [])
        dice, draws = snap.rng.getstate(), [r.getstate() for r in rngs]
        replays = judging.lookaheads if searching else 0

        def unchanged():  # no die rolled, no random choice made since the playout began
            return after is not None and snap.rng.getstate() == dice and [r.getstate() for r in rngs] == draws

        played = 0
        try:
            if cached is None:
                pos = snap.position
                if choice is PASS:
                    pos.in_allow = 0
                    pos.op += 1
                else:
                    game.runner.apply(choice, engine.sequence.program(game.ctx)[pos.op])
                    pos.in_allow += 1
                    # the candidate, and the lines played again to search the choices inside it
                    played = 1 + (judging.lookaheads - replays if searching else 0)
                    if searching:
                        searching.applying = False  # the rollout's choices are the rollout agent's
                if self.horizon and unchanged():
                    after[key] = (snap.snapshot(), None)
            rollout = self.horizon if limit is None else max(0, min(self.horizon, limit - played))
            if rollout:
                before = game.runner.actions_taken
                game.runner.run(max_actions=before + rollout)
                played += game.runner.actions_taken - before
            # with no rollout the position is judged right after the candidate, as greedy judges
            # it, not after the automatic steps up to the next decision: passing would run those
            # (the end of a phase, the start of the next) and an action would not, and that
            # difference alone (Fall Blau: +0.25 for the Axis at the end of its Movement Phase)
            # made every one-hex advance look no better than passing
        except RuleRefusal:  # the rules' own no (a `require`, an illegal column): a losing line
            played = max(played, game.runner.actions_taken)
            return (-math.inf if choice is not PASS else self._value(engine, snap, side)), played
        except RuleError as exc:  # a fault, not a judgement: the game reports it with its log
            raise lookahead_failure(f"(MCTS playout) at {_describe(choice)}", exc) from exc
        except RecursionError:
            raise lookahead_failure(f"(MCTS playout) at {_describe(choice)}", game.ctx.too_deep()) from None
        value = self._value(engine, snap, side)
        if cached is None and not self.horizon and unchanged():
            after[key] = (None, value)
        return value, played

    def _candidates(self, legal):
        """Distinct sampled legal actions, one at a time (for progressive widening)."""
        if self.sampler == "stratified":
            return iter(stratified_candidates(legal, self.rng, self.candidates, 3))
        return sampled_candidates(legal, self.rng, self.candidates)

    def _allowed(self, n: int) -> int:
        """How many sampled actions the search may weigh after `n` playouts (progressive widening:
        ceil(widen * sqrt(n + 1)), at least 2; all `candidates` when widen is 0)."""
        if not self.widen:
            return self.candidates
        return max(2, min(self.candidates, math.ceil(self.widen * math.sqrt(n + 1))))

    def choose_action(self, ctx, side, legal):
        t0 = time.process_time()
        try:
            choice = self._choose_action(ctx, side, legal)
        finally:
            self.cpu += time.process_time() - t0
            self.decisions += 1
            self.actions_played += self.spent
        if self.follow:  # a choice inside it is searched by playing it again from before it (`choose`)
            self.choice_search.chose(ctx, choice)
        return choice

    # ------------------------------------------------ choices inside its own actions and automatic steps
    def _search_choice(self, ctx, who, picks):
        """The pick whose line is worth most to `who` (`ChoiceSearch.pick`): inside the action
        this agent chose, the action played again from before it with that pick; in an automatic
        step, the step played again and the game on to its next decision. None for a choice in
        another side's action, or one that cannot be searched (then made at random). The picks
        are drawn only for a choice that has a line (greedy draws them first)."""
        search = self.choice_search
        line = search.line_in_game(ctx)
        if line is None:
            return None
        t0 = time.process_time()
        try:
            return search.pick(ctx, show(who), picks(), line)
        finally:
            self._choice_cpu += time.process_time() - t0

    def choose(self, ctx, who, what, options, optional):
        if self.follow:
            found = self._search_choice(ctx, who, lambda: self.choice_search.picks(options, optional))
            if found is not None:
                return None if found < 0 else found
        return super().choose(ctx, who, what, options, optional)

    def choose_subset(self, ctx, who, what, options, lo, hi):
        if self.follow:
            found = self._search_choice(ctx, who, lambda: self.choice_search.subset_picks(options, lo, hi))
            if found is not None:
                return list(found)
        return super().choose_subset(ctx, who, what, options, lo, hi)

    def _choose_action(self, ctx, side, legal):
        sampler = self._candidates(legal)
        actions = list(islice(sampler, 2))  # two, to tell a forced decision apart
        may_pass = legal.may_pass and self._may_end_step(ctx)
        candidates = ([PASS] if may_pass else []) + actions
        self.spent = 0
        if not actions:
            return None
        if len(candidates) == 1:
            return candidates[0]  # forced: one legal action and no pass, nothing to compare
        visits = [0] * len(candidates)
        totals = [0.0] * len(candidates)
        after: dict = {}
        low, high = math.inf, -math.inf
        widening = True
        for n in range(self.playouts):
            if self.spent >= self.budget:
                break
            while widening and len(candidates) - may_pass < self._allowed(n):
                found = next(sampler, None)
                if found is None:
                    widening = False
                    break
                candidates.append(found)
                visits.append(0)
                totals.append(0.0)
            k = self._select(visits, totals, low, high, n)
            value, played = self.playout(ctx, side, candidates[k], after, k, self.budget - self.spent)
            self.spent += played
            if value == -math.inf:
                value = low if low != math.inf else -1e12  # a failed line is as bad as the worst seen
            low, high = min(low, value), max(high, value)
            visits[k] += 1
            totals[k] += value
        return self._decide(ctx, side, legal, candidates, visits, totals, may_pass)

    def _decide(self, ctx, side, legal, candidates, visits, totals, may_pass):
        """The candidate played most (equal visits: the better mean, then an action rather than
        passing, then at random); after `idle` actions in a row in one step whose mean was no
        better than passing's, a pass."""
        most = max(visits)
        means = [t / v if v else -math.inf for v, t in zip(visits, totals)]
        best = [i for i, v in enumerate(visits) if v == most]
        top = max(means[i] for i in best)
        tied = [i for i in best if means[i] == top]
        if may_pass and len(tied) > 1 and tied[0] == 0:
            # passing ends the side's step for good: on a tie an action is played, as greedy
            # plays one (the idle limit below ends a run of neutral ones)
            tied = tied[1:]
        k = self.rng.choice(tied)
        pick = candidates[k]
        pos = ctx.state.position
        step = (pos.turn, pos.op, side)
        streak = self._streak[1] if self._streak[0] == step else 0
        if pick is PASS or not may_pass:
            self._streak = (step, 0)
            return pick
        # An action judged no better than passing: as for the greedy agent, acting on without end
        # only churns (search_agents.py); at most `idle` such actions in a row in one step
        streak = 0 if means[k] > means[0] else streak + 1
        self._streak = (step, streak)
        return PASS if streak > self.idle else pick

    def _select(self, visits, totals, low, high, n) -> int:
        unvisited = [i for i, v in enumerate(visits) if v == 0]
        if unvisited:
            return unvisited[0]
        span = high - low if high > low else 1.0

        def ucb(i):
            mean = (totals[i] / visits[i] - low) / span
            return mean + self.exploration * math.sqrt(math.log(n) / visits[i])

        return max(range(len(visits)), key=ucb)

    def _may_end_step(self, ctx) -> bool:
        """Whether passing now would end the step (no `until` obligation is unmet)."""
        from warcodex.interpreter.sequence import Runner

        engine = ctx.engine
        op = engine.sequence.program(ctx)[ctx.state.position.op]
        if op.kind != "allow":
            return True
        return Runner(engine, ctx, {}).unmet_obligation(op.run) is None


class _ApplyingChooser:
    """The searching side's agent in a playout: while the candidate is applied, its choices are
    searched (greedy's `FollowChooser`); then (`applying` False) the rollout agent plays."""

    def __init__(self, rollout, follow: FollowChooser) -> None:
        self.rollout, self.follow = rollout, follow
        self.applying = True

    def choose_action(self, ctx, side, legal):
        return self.rollout.choose_action(ctx, side, legal)

    def choose(self, ctx, who, what, options, optional):
        return (self.follow if self.applying else self.rollout).choose(ctx, who, what, options, optional)

    def choose_subset(self, ctx, who, what, options, lo, hi):
        return (self.follow if self.applying else self.rollout).choose_subset(ctx, who, what, options, lo, hi)


def _describe(choice) -> str:
    return "passing" if choice is PASS else choice.action
