"""Agents that search: a greedy one-ply agent (here) and a Monte Carlo tree search agent (mcts.py).

Both judge positions with an `evaluation` the game declares (interpreter/evaluation.py) and look
ahead on state snapshots (`GameState.snapshot()` shares unit records, so copies are cheap):

- GreedyAgent: samples up to `samples` distinct legal actions, applies each to a snapshot and
  keeps the one whose position is worth most to its side (ties broken at random); it passes when
  every sampled action makes the position worse than passing, or after `idle` actions in a row
  that improved nothing (when the step lets it pass), and it plays a forced decision (one legal
  action, no pass) without looking ahead.
- MCTSAgent (interpreter/mcts.py): UCT over the same sampled candidates, with rollouts.

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


AGENT_OPTIONS = {
    "greedy": {"samples": int, "eval": str, "idle": int},
    "mcts": {"playouts": int, "horizon": int, "rollout": str, "candidates": int, "c": float, "eval": str,
             "budget": int, "widen": float, "idle": int},
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
    from warcodex.interpreter.mcts import MCTSAgent

    return MCTSAgent(seed, **values)
