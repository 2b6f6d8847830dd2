"""What the search agents share: the greedy agent (search_agents.py) and MCTS (mcts.py).

- **Candidates**: which legal actions a decision weighs. `stratified_candidates` (greedy: one
  stratum per action kind and unit, docs/balance.md "Stratified candidates") and
  `sampled_candidates` (MCTS: drawn as the random agent draws one, lazily, for progressive
  widening); `candidate_key` says when two draws are the same candidate.
- **Private dice**: every position a search looks at gets dice of its own, drawn from the agent's
  RNG, never the game's (`fresh_dice`, `private_snapshot`): lookahead cannot peek at the rolls the
  game will make.
- **Replaying an action or an automatic step** from the position before it with one of its
  choices fixed (`kept_position`, `replay_context`, `ChoiceReplay`; `StepReplay` plays on to the
  next decision after an automatic step): how greedy searches a choice its side makes inside its
  own action or in an automatic step.
- **Judging and failing**: the utility of a position for a side (`position_value`, `value_in`
  a lookahead's context with its memos), and what a
  lookahead reports when it meets an error that is not the rules' refusal (`LookaheadFailure`,
  `lookahead_failure`).

Everything here is deterministic for the RNG's state: a seed plays the same game.
"""

from __future__ import annotations

import itertools
import random

from warcodex.interpreter.agents import RandomAgent, recorded_proposers
from warcodex.interpreter.compiler import Frame
from warcodex.interpreter.context import Context
from warcodex.interpreter.evaluation import evaluation_named, utility
from warcodex.interpreter.values import RuleError


# ------------------------------------------------------------------------------- candidates
def candidate_key(choice) -> tuple:
    """What makes two sampled actions the same candidate: the action and its arguments."""
    return choice.action, tuple((k, repr(v)) for k, v in choice.args)


def sampled_candidates(legal, rng: random.Random, limit: int):
    """Distinct legal actions drawn as RandomAgent draws one (a random kind, then a random
    instance), one at a time (a generator: a search may take only what it needs); at most
    `limit`, each found in at most 3 draws past the last one found."""
    seen = set()
    misses = 0
    while len(seen) < limit and misses < 3:
        choice = legal.sample(rng)
        if choice is None:
            return
        key = candidate_key(choice)
        if key in seen:
            misses += 1
            continue
        seen.add(key)
        misses = 0
        yield choice


class Draw(list):
    """The candidates of one draw (a list), and whether the draw looked at every stratum there
    was (`exhaustive`): an empty exhaustive draw means no stratum has a legal instance, so
    drawing again would find nothing either."""

    exhaustive = False


STRATA_LOOKED = 16  # x limit: the strata a draw looks at, at most, failing ones included


def stratified_candidates(legal, rng: random.Random, limit: int, breadth: int = 1, focus=None, scan: int = 24,
                          strata: int | None = None, largest: bool = False) -> Draw:
    """Up to `limit` distinct legal actions, at most one from each stratum, the strata drawn
    uniformly without replacement. A stratum is an action kind and the value of its first
    parameter (the unit that moves, the hex attacked, the card played...); a kind without
    parameters, or whose first parameter is a subset, is one stratum. Drawing a kind first gives
    a side with seven kinds of action one move in seven, however many units it could move;
    drawing per kind and unit gives every unit the same chance. Each stratum drawn is tested
    lazily (its first value must pass its `where` and lead to a legal instance), then up to
    `breadth` of its instances are drawn at random (a unit's move judged by a single random
    destination is mostly a move sideways); when the stratum's next parameter is a subset (the
    attackers of a hex attacked), the first of them, with `breadth` 2 or more, is the whole
    eligible group (`_whole_group`), the others random groups. The strata are looked at until
    `limit` candidates are found: a stratum that fails (its `where`, a requirement) does not take the place of one
    that passes, so a kind with many failing raw candidates (a filter over a big source, options
    that are off) does not crowd the others out; at most `16 x limit` strata are looked at,
    failing ones included, so a decision's cost is bounded whatever the number of units (looking
    at a failing stratum costs a `where`, a lookahead thousands of them). The draw tells whether
    it looked at every stratum (`Draw.exhaustive`). Deterministic for the rng's state.

    `focus` (a predicate on an action's place, `Focus` in plan_agent.py) keeps only the instances
    whose place (their first location argument) it accepts: the instances of a stratum are drawn
    until `breadth` are kept or `scan` were looked at, and a stratum whose first value is a place
    it refuses is skipped untested; `strata` (default `16 x limit`) bounds the strata looked at;
    `largest` draws a subset parameter's groups largest first (`CompiledAction.candidates`).
    Without them, the draws are exactly those above."""
    ctx, engine = legal.ctx, legal.engine
    looked = STRATA_LOOKED * limit if strata is None else strata
    strata = []  # (action, its first parameter or None, part, part frame, value)
    with ctx.untraced():
        for name in legal.names:
            action = engine.actions[name]
            fr = Frame(ctx)
            if not action.requirements_hold(fr, 0):
                continue
            if not action.params or action.params[0].subset:
                strata.append((action, None, None, None, None))
                continue
            p = action.params[0]
            strata.extend((action, p, part, pfr, value) for part, pfr, value in action._candidates(fr, p))
        rng.shuffle(strata)
        found, seen = Draw(), set()
        found.exhaustive = looked >= len(strata)
        for action, p, part, pfr, value in strata[:looked]:
            if p is None:
                drawn = action.instances(ctx, rng, largest=largest)
                if breadth > 1 and not largest:
                    drawn = itertools.chain(_whole_group(action, Frame(ctx), 0, rng), drawn)
            else:
                if focus is not None and not focus.admits_first(value):
                    continue  # its place is away from the focus: no instance of it would be kept
                fr = Frame(ctx)
                if not action._passes(fr, p, part, pfr, value):
                    continue
                fr.vars[p.name] = value
                if not action.requirements_hold(fr, 1):
                    continue
                drawn = action.completions(fr, 1, rng, largest=largest)
                if breadth > 1 and not largest:
                    drawn = itertools.chain(_whole_group(action, fr, 1, rng), drawn)
            if focus is not None:
                drawn = (c for c in itertools.islice(drawn, scan) if focus.admits(c))
            drawn = itertools.islice(drawn, breadth)
            for choice in drawn:
                key = candidate_key(choice)
                if key not in seen:
                    seen.add(key)
                    found.append(choice)
            if len(found) >= limit:
                found.exhaustive = False  # (it stopped there)
                break
    del found[limit:]
    return found


def _whole_group(action, fr: Frame, i: int, rng: random.Random):
    """The instance (at most one) whose parameter `i`, a subset, is the largest group allowed:
    every eligible value (a random group of the largest size its `max` allows, when that is
    fewer), the parameters before it as bound in `fr`, the later ones drawn at random. A random
    subset has a random size, so the strongest attack, often "every unit next to the target",
    would come up in few draws; this gives it a place in every draw of the stratum. One test of
    the requirements: an instance whose whole group the rules refuse is not looked for further."""
    if i >= len(action.params) or not action.params[i].subset:
        return
    p = action.params[i]
    wf = Frame(fr.ctx, dict(fr.vars))
    items = list(action._values(wf, p))
    top = len(items) if p.max is None else min(p.max, len(items))
    if top < max(p.min, 1):
        return
    wf.vars[p.name] = tuple(items) if top == len(items) else tuple(rng.sample(items, top))
    if action.requirements_hold(wf, i + 1):
        yield from itertools.islice(action.completions(wf, i + 1, rng), 1)


# ------------------------------------------------------------------------------ private dice
def fresh_dice(state, rng: random.Random) -> None:
    """Give a snapshot dice of its own, so that search does not know the game's coming rolls."""
    state.rng = random.Random(rng.getrandbits(64))


def private_snapshot(state, rng: random.Random, seed: int | None = None):
    """A snapshot of `state` to look ahead on, with dice of its own drawn from `rng` (as
    `fresh_dice`; the state's own are not copied), or seeded with `seed` (drawn from `rng`
    before: the same position again, with the same dice)."""
    return state.snapshot(dice=random.Random(rng.getrandbits(64) if seed is None else seed))


def kept_position(ctx, state=None) -> Context:
    """A context on `state` (by default a snapshot of `ctx.state`; a snapshot of it at the same
    version), holding a copy of `ctx`'s memos of rule values, which hold for it: the lines played
    again from it (`ChoiceReplay`) start from those memos (`Context.carry_memos`) instead of
    evaluating every rule afresh, however far the game has gone on since. Never changed itself:
    each line plays on a snapshot of its state."""
    kept = Context(ctx.engine, ctx.state.snapshot() if state is None else state)
    kept.carry_memos(ctx)
    return kept


def replay_context(kept: Context, agents: dict) -> Context:
    """A context to play a line again from `kept` (`kept_position`), on a snapshot of its state
    (the dice as they were: the rolls made already repeat), starting from its memos."""
    sim = Context(kept.engine, kept.state.snapshot(), agents)
    sim.carry_memos(kept)
    return sim


class ChoiceReplay(RandomAgent):
    """Plays an action again from the position before it: the choices already made in it (by
    any side) as they were made, then `option` for the choice being searched, with dice of its
    own from that moment (the dice before it were rolled already, the ones after it are not
    known), then random choices. `mismatch` tells when the replay took another path (the value
    of its line then means nothing); `calls` how many choices it was asked."""

    def __init__(self, seed: int, made: list, option, dice_rng: random.Random) -> None:
        super().__init__(seed)
        self.made = made
        self.option = option
        self.dice_rng = dice_rng
        self.calls = 0
        self.mismatch = False

    def _next(self, ctx, what: str):
        n = self.calls
        self.calls += 1
        if n < len(self.made):
            entry = self.made[n]
            if entry.get("choice") != what:
                self.mismatch = True  # not the same path: the value of this line means nothing
            return entry
        if n == len(self.made):
            fresh_dice(ctx.state, self.dice_rng)
            return {"option": self.option}
        return None

    def joint_players(self, sides: list, what: str) -> list:
        """The sides asked in a joint choice of `what` (`Context.decide_joint`): one agent plays
        every side in a replay, but the game it replays had one agent a side, and asked each for a
        proposal; the line must ask as that game asked, or the choices it repeats fall out of
        step with the ones recorded (a power's casualties chosen from another power's options).
        The recorded choices of `what` coming next by distinct sides among `sides`; when the
        record ends inside the joint choice (the choice searched is one of its proposals), the
        sides not asked yet follow, in order. None when the record ended before it: one player
        then chooses for all, and the option searched is the choice."""
        found = recorded_proposers(self.made[self.calls:], sides, what)
        if not found:
            return None
        if self.calls + len(found) < len(self.made):  # the record goes on after the joint choice
            return found
        return found + [s for s in sides if s not in found]

    def _valid(self, index, options) -> bool:
        """A recorded index out of range means the line took another path (mismatch): the line
        is worth nothing, and a random option keeps it playing instead of failing the rules."""
        if index is not None and index >= len(options):
            self.mismatch = True
            return False
        return True

    def choose(self, ctx, who, what, options, optional):
        entry = self._next(ctx, what)
        if entry is None:
            return super().choose(ctx, who, what, options, optional)
        if "option" in entry:
            index = None if entry["option"] < 0 else entry["option"]
        else:
            index = entry.get("index", 0)
            index = None if index < 0 else index
        return index if self._valid(index, options) else super().choose(ctx, who, what, options, optional)

    def choose_subset(self, ctx, who, what, options, lo, hi):
        entry = self._next(ctx, what)
        if entry is None:
            return super().choose_subset(ctx, who, what, options, lo, hi)
        indices = list(entry["option"]) if "option" in entry else list(entry.get("indices", ()))
        if all(self._valid(i, options) for i in indices):
            return indices
        return super().choose_subset(ctx, who, what, options, lo, hi)


class NextDecision(Exception):
    """A line played on after an automatic step reached a decision: whose, and its legal
    actions (the line is judged there)."""

    def __init__(self, side: str, legal) -> None:
        super().__init__(side)
        self.side, self.legal = side, legal


class StepReplay(ChoiceReplay):
    """`ChoiceReplay` for an automatic step (`sequence.AutoStep.play_again`): the step's choices
    as they were made, the option searched, then random choices as the sequence goes on, which
    stops at the first action any side is asked for (`NextDecision`): the position where the
    game next waits for a player is the one judged."""

    def choose_action(self, ctx, side, legal):
        raise NextDecision(side, legal)


# ------------------------------------------------------------------------- judging, failing
def position_value(engine, state, evaluation: str | None, side: str) -> float:
    """The utility to `side` of `state`, by the game's evaluation named `evaluation` (its first
    when None), in a context of its own."""
    return utility(engine, Context(engine, state), evaluation_named(engine, evaluation), side)


def value_in(ctx, evaluation: str | None, side: str) -> float:
    """The utility to `side` of the position of `ctx`, a lookahead's context, with its memos (an
    evaluation judges the position: it is not traced)."""
    with ctx.untraced():
        return utility(ctx.engine, ctx, evaluation_named(ctx.engine, evaluation), side)


class LookaheadFailure(RuleError):
    """Looking ahead met an error that is not the rules refusing the action (a RuleRefusal): a
    fault of the rules or the engine, which the game reports (with its log) instead of the
    agent quietly judging the action worthless."""


def lookahead_failure(what: str, exc: RuleError) -> LookaheadFailure:
    """The failure to raise for `exc` met while looking ahead `what` ("at move(u=..., to=...)")."""
    return LookaheadFailure(f"looking ahead {what}: {exc.message}", exc.span, exc.hint)
