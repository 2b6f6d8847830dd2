"""Chance points: what the rules' dice are, as distributions, for exact odds (`warcodex odds`).

When a game runs, every die goes through `Context.roll`, which asks the state's RNG. For an exact
answer the odds enumerator (interpreter/odds.py) puts a *chance oracle* on the context instead
(`ctx.chance`): the rules run as written, and each chance point asks the oracle for its outcome.
The oracle replays a chosen branch (a prefix of outcomes) and, at the first point past it, raises
`Branch` with the point's distribution; the enumerator then runs each outcome in turn.

Two kinds of chance point are distributions rather than single dice:

* `count(u for u in L where ... and roll d6 <= u.attack)`: n independent dice, each hitting with
  its own probability. The count is one Poisson-binomial distribution over 0..n hits (by
  convolution), not 6^n branches: the exchangeable-dice grouping.
* `let x = count(...)` and `set x += count(...)` keep the count *pending* (a `Pending` value: a
  distribution not yet observed), and sums of independent pending counts are convolved; the value
  is observed (branched on) only when a rule reads it. "Hits at 1, then at 2, ... then at 4" thus
  branch once, on their total.

Randomness that does not go through these points (a blind draw, a shuffle) cannot be enumerated:
the state's RNG refuses it (`NotEnumerable`) and the odds command falls back to Monte Carlo.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

from warcodex.interpreter.values import RuleError

_COMPARE = {
    "<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b,
    ">": lambda a, b: a > b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
}


class NotEnumerable(RuleError):
    """The rules drew a random value the enumerator cannot follow exactly."""


class Branch(Exception):
    """Raised by the oracle at a chance point past the replayed prefix: its outcomes."""

    def __init__(self, outcomes: list[tuple[object, float]]) -> None:
        super().__init__("chance point")
        self.outcomes = outcomes


class RefusingRng(random.Random):
    """The RNG of a state being enumerated: any draw outside the oracle is not enumerable."""

    def __init__(self) -> None:
        super().__init__(0)

    def __deepcopy__(self, memo):
        return self

    def randint(self, a, b):
        raise NotEnumerable("the rules draw a random value outside a die roll (a blind draw, a shuffle...): "
                            "it cannot be enumerated exactly")

    def random(self):
        return self.randint(0, 1)

    def shuffle(self, x, random=None):
        self.randint(0, 1)


def dice_distribution(dice) -> dict[int, float]:
    """The distribution of the total of `dice` (`d6`, `2d6`, `3d6 keep highest 1`)."""
    faces = range(1, dice.sides + 1)
    if dice.keep is None:
        dist = {0: 1.0}
        for _ in range(dice.count):
            nxt: dict[int, float] = {}
            for total, p in dist.items():
                for f in faces:
                    nxt[total + f] = nxt.get(total + f, 0.0) + p / dice.sides
            dist = nxt
        return dist
    dist = {}
    weight = 1.0 / dice.sides ** dice.count
    for combo in itertools.product(faces, repeat=dice.count):
        total = sum(sorted(combo, reverse=dice.keep_highest)[: dice.keep])
        dist[total] = dist.get(total, 0.0) + weight
    return dist


def hit_probability(dice, op: str, threshold) -> float:
    """P(total of `dice` `op` threshold): one die's chance to hit (computed once per dice, test
    and threshold: the replays of a battle ask the same few again and again)."""
    if threshold is None:
        return 0.0
    key = (dice.count, dice.sides, dice.keep, dice.keep_highest, op, threshold)
    found = _HIT_PROBABILITIES.get(key)
    if found is None:
        test = _COMPARE[op]
        found = _HIT_PROBABILITIES[key] = sum(p for total, p in dice_distribution(dice).items()
                                              if test(total, threshold))
    return found


_HIT_PROBABILITIES: dict = {}  # (dice, op, threshold) -> probability: see hit_probability


def poisson_binomial(probabilities) -> list[float]:
    """The distribution of the number of successes of independent trials: index = count."""
    dist = [1.0]
    for p in probabilities:
        q = 1.0 - p
        nxt = [0.0] * (len(dist) + 1)
        for k, w in enumerate(dist):
            nxt[k] += w * q
            nxt[k + 1] += w * p
        dist = nxt
    return dist


class Pending:
    """A count of hits not observed yet: its distribution (index = value, an offset for sums with
    numbers), and the chance points it was made of (two pending values are added by convolution
    only when they come from different dice)."""

    __slots__ = ("dist", "offset", "sources", "_outcomes", "_sums")

    def __init__(self, dist: list[float], offset: int = 0, sources: frozenset = frozenset()) -> None:
        self.dist = dist
        self.offset = offset
        self.sources = sources
        self._outcomes = None
        self._sums = None  # other -> (other, self + other): see plus

    def plus(self, other) -> "Pending":
        """`self + other` (a pending count of other dice, or a number). Made once for a given
        `other` (the same object or number): a replay of a branch meets the same pending counts
        again (the enumerator's `known_count`) and adds them in the same order, and gets the very
        sums of the first run, not new convolutions. (Two sums of the same dice are then one
        value, observed once, as they must be.)"""
        sums = self._sums
        if sums is None:
            sums = self._sums = {}
        is_count = isinstance(other, Pending)
        k = id(other) if is_count else ("n", int(other))
        hit = sums.get(k)
        if hit is not None and (not is_count or hit[0] is other):
            return hit[1]
        if is_count:
            out = [0.0] * (len(self.dist) + len(other.dist) - 1)
            for i, p in enumerate(self.dist):
                if p:
                    for j, q in enumerate(other.dist):
                        out[i + j] += p * q
            total = Pending(out, self.offset + other.offset, self.sources | other.sources)
        else:
            total = Pending(self.dist, self.offset + int(other), self.sources)
        sums[k] = (other, total)  # (`other` kept: its id is not reused)
        return total

    def outcomes(self) -> list[tuple[int, float]]:
        """(value, probability) of each possible value (made once: a pending count is not changed)."""
        found = self._outcomes
        if found is None:
            found = self._outcomes = [(k + self.offset, p) for k, p in enumerate(self.dist) if p > 0.0]
        return found

    def __repr__(self) -> str:
        return f"Pending({self.outcomes()})"


def addable(a, b) -> bool:
    """Whether `a + b` may stay pending: integers and pending counts of different dice."""
    if isinstance(a, Pending) and isinstance(b, Pending):
        return not (a.sources & b.sources)
    return isinstance(a, Pending) and type(b) is int or isinstance(b, Pending) and type(a) is int


def as_exact(p: float) -> Fraction:
    return Fraction(p).limit_denominator(10**12)
