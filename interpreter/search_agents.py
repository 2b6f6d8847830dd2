"""Agents that search: a greedy one-ply agent and a Monte Carlo tree search (UCT) agent.

Both judge positions with an `evaluation` the game declares (interpreter/evaluation.py) and look
ahead on state snapshots (`GameState.snapshot()` shares unit records, so copies are cheap):

- GreedyAgent: samples up to `samples` distinct legal actions, applies each to a snapshot and
  keeps the one whose position is worth most to its side (ties broken at random); it passes when
  every sampled action makes the position worse than passing, or after `idle` actions in a row
  that improved nothing (when the step lets it pass), and it plays a forced decision (one legal
  action, no pass) without looking ahead.
- MCTSAgent: UCT over the same sampled candidates (and passing, when allowed): each playout picks
  a candidate by UCB1 (unvisited ones first), plays it on a snapshot, then lets rollout agents
  (random, or greedy with a small sample) play every side for `horizon` more actions, and scores
  the position reached (a decided game counts as a win or a loss). Rewards are normalised by the
  range seen so far, so the exploration constant means the same in every game. The action played
  most often is chosen. The tree has one level: the candidates of the current decision; deeper
  decisions are the rollouts' (this keeps every playout an ordinary, bounded run of the engine).

What the agents cannot foresee, they do not: every snapshot gets dice of its own, drawn from the
agent's RNG (never the game's), so lookahead cannot peek at the rolls the game will make. Choices
inside procedures (`choose` retreat hexes, step losses...) are made at random, as RandomAgent
does: a procedure cannot be resumed from a snapshot half-way, so these choices are not searched.
Agents read the whole state, hidden information included (documented in docs/balance.md).

Both are deterministic for a seed: the same seed, game and opponents give the same log.
"""

from __future__ import annotations

import math
import random

from warcodex.interpreter.agents import RandomAgent
from warcodex.interpreter.compiler import Frame
from warcodex.interpreter.context import Context
from warcodex.interpreter.evaluation import evaluation_named, utility
from warcodex.interpreter.values import RuleError

PASS = None  # a candidate that ends the side's actions in the current step


def _fresh_dice(state, rng: random.Random) -> None:
    """Give a snapshot dice of its own, so that search does not know the game's coming rolls."""
    state.rng = random.Random(rng.getrandbits(64))


def sample_candidates(legal, rng: random.Random, limit: int) -> list:
    """Up to `limit` distinct legal actions, drawn as RandomAgent draws one (a random kind, then a
    random instance), with a bounded number of tries."""
    found, seen = [], set()
    for _ in range(limit * 3):
        choice = legal.sample(rng)
        if choice is None:
            break
        key = (choice.action, tuple((k, repr(v)) for k, v in choice.args))
        if key not in seen:
            seen.add(key)
            found.append(choice)
            if len(found) >= limit:
                break
    return found


class _Chooser(RandomAgent):
    """Random choices inside procedures, for every side, during lookahead."""


class GreedyAgent(RandomAgent):
    """One-ply lookahead over sampled actions, judged by the game's evaluation."""

    def __init__(self, seed: int = 0, samples: int = 8, evaluation: str | None = None, idle: int = 3) -> None:
        super().__init__(seed)
        self.samples = samples
        self.evaluation_name = evaluation
        self.idle = idle
        self._streak: tuple = ((), 0)  # (the step, actions in a row there that improved nothing)

    def value_after(self, ctx, side: str, choice) -> float:
        """The utility to `side` of the position after `choice`, played on a snapshot."""
        engine = ctx.engine
        snap = ctx.state.snapshot()
        _fresh_dice(snap, self.rng)
        chooser = _Chooser(self.rng.getrandbits(32))
        sim = Context(engine, snap, {s.name: chooser for s in engine.side_entities})
        try:
            # the candidate came from the legal enumeration of this very state: its effects are run
            # without validating it again (the game validates the one chosen when it applies it)
            engine.actions[choice.action].body(Frame(sim, dict(choice.args)))
        except RuleError:
            return -math.inf  # an action whose effects fail here is no better than an illegal one
        return utility(engine, Context(engine, snap), evaluation_named(engine, self.evaluation_name), side)

    def choose_action(self, ctx, side, legal):
        candidates = sample_candidates(legal, self.rng, self.samples)
        if not candidates:
            return None
        if len(candidates) == 1 and not legal.may_pass:
            return candidates[0]  # forced: nothing to compare it with
        engine = ctx.engine
        here = utility(engine, Context(engine, ctx.state), evaluation_named(engine, self.evaluation_name), side)
        scored = [(self.value_after(ctx, side, c), c) for c in candidates]
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


AGENT_OPTIONS = {
    "greedy": {"samples": int, "eval": str, "idle": int},
    "mcts": {"playouts": int, "horizon": int, "rollout": str, "candidates": int, "c": float, "eval": str},
}


def make_search_agent(kind: str, options: dict, seed: int):
    """`greedy` or `mcts` with options from an agent spec (`mcts:playouts=16:rollout=greedy`)."""
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
        return GreedyAgent(seed, **values)
    if "c" in values:
        values["exploration"] = values.pop("c")
    return MCTSAgent(seed, **values)
