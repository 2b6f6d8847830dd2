"""A Monte Carlo tree search (UCT) agent: MCTSAgent.

UCT over sampled candidate actions (and passing, when allowed): each playout picks a candidate by
UCB1 (unvisited ones first), plays it on a snapshot, then lets rollout agents (random, or greedy
with a small sample) play every side for `horizon` more actions, and scores the position reached
(a decided game counts as a win or a loss). Rewards are normalised by the range seen so far, so
the exploration constant means the same in every game. The action played most often is chosen.
The tree has one level: the candidates of the current decision; deeper decisions are the
rollouts' (this keeps every playout an ordinary, bounded run of the engine).

It shares the greedy agent's ground rules (search_agents.py): snapshots get dice of their own
(never the game's), choices inside procedures are random, and the same seed gives the same log.
"""

from __future__ import annotations

import math

from warcodex.interpreter.agents import RandomAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.evaluation import evaluation_named, utility
from warcodex.interpreter.search_agents import GreedyAgent, _fresh_dice, sample_candidates
from warcodex.interpreter.values import RuleError

PASS = None  # a candidate that ends the side's actions in the current step


class MCTSAgent(RandomAgent):
    """UCT over sampled candidate actions, with random or greedy rollouts to a horizon."""

    def __init__(self, seed: int = 0, playouts: int = 32, horizon: int = 20, rollout: str = "random",
                 candidates: int = 8, exploration: float = 1.4, evaluation: str | None = None) -> None:
        super().__init__(seed)
        if rollout not in ("random", "greedy"):
            raise ValueError(f"mcts rollout must be random or greedy, not '{rollout}'")
        self.playouts = playouts
        self.horizon = horizon
        self.rollout = rollout
        self.candidates = candidates
        self.exploration = exploration
        self.evaluation_name = evaluation

    def _rollout_agents(self, engine) -> dict:
        seed = self.rng.getrandbits(32)
        if self.rollout == "greedy":
            agent = GreedyAgent(seed, samples=3, evaluation=self.evaluation_name)
        else:
            agent = RandomAgent(seed)
        return {s.name: agent for s in engine.side_entities}

    def playout(self, ctx, side: str, choice) -> float:
        """Play `choice` (or pass) on a snapshot, then `horizon` actions by the rollout agents;
        the utility to `side` of where that leads."""
        from warcodex.interpreter.play import Game

        engine = ctx.engine
        snap = ctx.state.snapshot()
        _fresh_dice(snap, self.rng)
        game = Game(engine, snap, self._rollout_agents(engine), trace=False)
        pos = snap.position
        op = engine.sequence.program(game.ctx)[pos.op]
        try:
            if choice is PASS:
                pos.in_allow = 0
                pos.op += 1
            else:
                game.runner.apply(choice, op)
                pos.in_allow += 1
            game.runner.run(max_actions=self.horizon + 1)
        except RuleError:
            return -math.inf if choice is not PASS else utility(engine, Context(engine, snap),
                                                                evaluation_named(engine, self.evaluation_name), side)
        return utility(engine, Context(engine, snap), evaluation_named(engine, self.evaluation_name), side)

    def choose_action(self, ctx, side, legal):
        candidates = sample_candidates(legal, self.rng, self.candidates)
        if legal.may_pass and self._may_end_step(ctx):
            candidates.append(PASS)
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        visits = [0] * len(candidates)
        totals = [0.0] * len(candidates)
        low, high = math.inf, -math.inf
        for n in range(self.playouts):
            k = self._select(visits, totals, low, high, n)
            value = self.playout(ctx, side, candidates[k])
            if value == -math.inf:
                value = low if low != math.inf else -1e12  # a failed line is as bad as the worst seen
            low, high = min(low, value), max(high, value)
            visits[k] += 1
            totals[k] += value
        most = max(visits)
        best = [c for c, v, t in zip(candidates, visits, totals) if v == most]
        if len(best) > 1:  # equal visits: the better mean, then at random
            means = {id(c): t / v for c, v, t in zip(candidates, visits, totals) if v == most}
            top = max(means.values())
            best = [c for c in best if means[id(c)] == top]
        return self.rng.choice(best)

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
