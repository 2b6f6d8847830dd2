"""Lazy filtered domains (interpreter/actions.py) and the random agent's distribution
(docs/engine.md, "Actions and agents"), on Tiny Front:

- a domain written as a filter (`list(v for v in units_of(active) where not v.has_moved)`, §5) is
  enumerated from its source, the test applied to the candidates looked at only, in the same
  order as the whole domain;
- validating a value tests that value: a unit that has moved is refused with the rule's citation;
- the random agent's distribution over legal moves is what the documentation says: each unmoved
  unit equally likely, then each hex it can reach (a chi-square test over many draws);
- `eager_domains` draws as the engine did before: the same game as lazy draws where no domain
  is filtered, another one otherwise, both legal.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from warcodex.dsl.loader import load_game
from warcodex.interpreter.actions import ActionChoice
from warcodex.interpreter.agents import LegalActions
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.values import RuleError, UnitRef


@pytest.fixture(scope="module")
def engine():
    return Engine(load_game("games/tiny"))


def _movement(engine, moved=2):
    """Turn 1, the Axis movement phase, with the first `moved` Axis units marked as moved."""
    state = engine.new_game("meeting", seed=1)
    ctx = Context(engine, state)
    state.active, state.phase = "axis", "movement"
    state.touch()
    axis = sorted(u.id for u in state.units.values() if u.side == "axis")
    for uid in axis[:moved]:
        engine.set_attribute(ctx, UnitRef(uid), "has_moved", True, None)
    return ctx, state, axis


def test_a_filtered_domain_is_its_source_tested_lazily(engine):
    move = engine.actions["move"]
    u = move.params[0]
    assert len(u.parts) == 1 and u.parts[0].test is not None  # units_of(active) where not has_moved
    assert move.params[1].parts[0].test is None  # reachable(u, ground): no filter
    attack = engine.actions["attack"]
    assert attack.params[0].parts[0].test is not None  # occupied() where enemy units are there (§7.1)
    ctx, state, axis = _movement(engine)
    from warcodex.interpreter.compiler import Frame

    fr = Frame(ctx)
    candidates = move._candidates(fr, u)
    assert [x for _, _, x in candidates] == [UnitRef(i) for i in axis]  # every Axis unit
    assert list(move._values(Frame(ctx), u)) == [UnitRef(i) for i in axis[2:]]  # the unmoved ones


def test_validating_a_value_tests_that_value(engine):
    ctx, state, axis = _movement(engine)
    move = engine.actions["move"]
    moved, fresh = UnitRef(axis[0]), UnitRef(axis[2])
    to = next(iter(engine.modes["ground"].reachable(ctx, fresh)))
    move.validate(ctx, ActionChoice("move", (("u", fresh), ("to", to))))
    with pytest.raises(RuleError, match=r"is not an eligible u §5"):
        move.validate(ctx, ActionChoice("move", (("u", moved), ("to", to))))


def test_the_random_agent_draws_each_legal_move_as_documented(engine):
    """Each unmoved unit with 1/2, then each hex it reaches with 1/|reach|: chi-square over 1200
    draws (fixed seeds: the test is deterministic) below the 0.1% critical value."""
    ctx, state, axis = _movement(engine)
    legal = LegalActions(engine, ctx, ["move"])
    fresh = [UnitRef(i) for i in axis[2:]]
    reach = {u: set(engine.modes["ground"].reachable(ctx, u)) for u in fresh}
    expected = {(u, h): 1 / len(fresh) / len(reach[u]) for u in fresh for h in reach[u]}
    draws = 1200
    seen = Counter()
    for seed in range(draws):
        choice = legal.sample(random.Random(seed))
        seen[(choice.arg("u"), choice.arg("to"))] += 1
    assert set(seen) <= set(expected)  # only legal moves, of unmoved units
    chi2 = sum((seen[k] - draws * p) ** 2 / (draws * p) for k, p in expected.items())
    dof = len(expected) - 1
    # the 0.1% critical value of chi-square, by the Wilson-Hilferty approximation
    critical = dof * (1 - 2 / (9 * dof) + 3.09 * (2 / (9 * dof)) ** 0.5) ** 3
    assert chi2 < critical, (chi2, critical, dof)


def test_eager_draws_are_the_older_engines(engine):
    """Where no domain is filtered (nobody has moved yet: every candidate passes), lazy and eager
    draws are the same; once units have moved, the same seed draws differently, both legal."""
    ctx, state, axis = _movement(engine, moved=0)
    legal = LegalActions(engine, ctx, ["move"])
    for seed in range(20):
        assert legal.sample(random.Random(seed)) == legal.sample(random.Random(seed), eager=True)
    ctx, state, axis = _movement(engine, moved=2)
    legal = LegalActions(engine, ctx, ["move"])
    pairs = [(legal.sample(random.Random(s)), legal.sample(random.Random(s), eager=True)) for s in range(20)]
    assert any(a != b for a, b in pairs)
    for a, b in pairs:
        for choice in (a, b):
            engine.actions["move"].validate(ctx, choice)
