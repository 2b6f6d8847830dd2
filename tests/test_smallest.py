"""`smallest(n, xs)` (dsl/stdlib.py, interpreter/builtins.py): the n smallest numbers of a list,
"the k nearest units" of an evaluation (Stalingrad '42's objectives each pull their own nearest
units, games/stalingrad42/evaluation.wcx). Run through both evaluators on Tiny Front's board and
units, with rules of the test only written here."""

from __future__ import annotations

import pytest

from tiny_copy import tiny_engines
from warcodex.interpreter.context import Context
from warcodex.interpreter.dependencies import BOARD_STATIC
from warcodex.interpreter.values import RuleError

RULES = '''function three_smallest(xs: list): list "the three smallest" §9 = smallest(3, xs)
function none_of(xs: list): list "none of them" §9 = smallest(0, xs)
function nearest_distances(h: location, k: int): list "how far the k nearest units are" §9 =
  smallest(k, list(distance(u.loc, h) for u in all_units() where u.loc != none))
function nearest_pull(h: location, k: int): num "the distance of the k nearest units" §9 =
  sum(smallest(k, list(distance(u.loc, h) for u in all_units() where u.loc != none)))
function smallest_of(n: any, xs: list): list "any n" §9 = smallest(n, xs)
'''


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    return tiny_engines(tmp_path_factory.mktemp("smallest"), RULES)


def _ctx(engine):
    return Context(engine, engine.new_game("meeting", seed=0), agents={})


def _call(engine, name, *args, ctx=None):
    return engine.functions[name](ctx or _ctx(engine), args, None)


@pytest.mark.parametrize("evaluator", [0, 1], ids=["reference", "generated"])
def test_the_n_smallest_numbers_smallest_first(engines, evaluator):
    from fractions import Fraction

    engine = engines[evaluator]
    assert _call(engine, "three_smallest", (5, 1, Fraction(1, 2), 4, 1)) == (Fraction(1, 2), 1, 1)  # a tie kept twice
    assert _call(engine, "three_smallest", (7, None, 2)) == (2, 7)  # fewer than n: all, none skipped
    assert _call(engine, "three_smallest", ()) == ()
    assert _call(engine, "none_of", (3, 2)) == ()


@pytest.mark.parametrize("evaluator", [0, 1], ids=["reference", "generated"])
def test_the_distances_of_the_nearest_units_on_the_board(engines, evaluator):
    engine = engines[evaluator]
    ctx = _ctx(engine)
    units = [u for u in ctx.state.units.values() if u.loc is not None]
    assert len(units) >= 4
    h = units[0].loc
    every = sorted(engine.board.distance(u.loc, h) for u in units)
    for k in (1, 2, 4, len(units) + 3):
        assert _call(engine, "nearest_distances", h, k, ctx=ctx) == tuple(every[:k])
        assert _call(engine, "nearest_pull", h, k, ctx=ctx) == sum(every[:k])


@pytest.mark.parametrize("evaluator", [0, 1], ids=["reference", "generated"])
def test_smallest_refuses_what_it_cannot_order(engines, evaluator):
    engine = engines[evaluator]
    with pytest.raises(RuleError, match="whole number"):
        _call(engine, "smallest_of", -1, (1, 2))
    with pytest.raises(RuleError, match="orders numbers"):
        _call(engine, "smallest_of", 1, ("a", "b"))


def test_smallest_is_a_pure_function_of_its_arguments():
    assert "smallest" in BOARD_STATIC  # the dependency analysis may cache it like min and sum
