"""Movement searches remembered until a change they read (interpreter/search_memo.py).

- Tiny Front's ground movement (§5.1: enemy units block, two units a hex; §6: entering an enemy
  zone of control stops) reads the units within 1 of each hex a search looks at: a search
  survives a move far from everything it looked at, and is dropped by a move inside its area and
  by any change of its own unit;
- Stalingrad '42's rail modes judge a hex by what stands in and around it (§5.6.3, §17.4): those
  conditions are shared by every search of a side, dropped near a change only;
- every search and condition still remembered after any change of a real game equals one run
  afresh (`SearchMemo.audit`), in Tiny Front and Stalingrad '42 (Fall Blau, where the supply
  network is traced from every source after every action, §16.3.3).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memo_audit import Searches, audited_game
from warcodex.dsl.checker import check_path
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.values import UnitRef

ROOT = Path(__file__).resolve().parent.parent


def _engine(name, evaluator="generated"):
    game, diags = check_path(ROOT / "games" / name)
    assert game is not None and not diags.errors
    return Engine(game, evaluator=evaluator)


@pytest.fixture(scope="module")
def tiny():
    return _engine("tiny")


@pytest.fixture(scope="module")
def stalingrad():
    return _engine("stalingrad42").for_scenario("fall_blau")


def _remembered(ctx):
    memo = ctx.search_memo()
    return {key[2] for key in memo.entries if key[0] == "reach"}


def _unit(state, label):
    return UnitRef(next(u.id for u in state.units.values() if u.label == label))


def test_a_search_survives_a_move_far_away_and_not_one_where_it_looked(tiny):
    state = tiny.new_game("meeting", seed=1)
    ctx = Context(tiny, state)
    ground = tiny.modes["ground"]
    board = tiny.board
    infantry = UnitRef(next(u.id for u in state.units.values() if u.loc == "0204"))
    first = ground.reachable(ctx, infantry)
    assert first and infantry.id in _remembered(ctx)
    looked = set(first) | {"0204"}
    # the 4th Tank Corps (1005) moves to a hex as far from every hex the search looked at
    tanks = _unit(state, "4th Tank Corps")
    assert all(board.distance("1005", x) > 2 for x in looked)
    far = next(h for h in board.locations if h not in state.at and all(board.distance(h, x) > 2 for x in looked))
    tiny.move_unit(ctx, tanks, far, None)
    assert infantry.id in _remembered(ctx)
    assert ground.reachable(ctx, infantry) is first  # the remembered answer, not a new search
    # then next to the infantry's area: its zone of control stops moves there (§6)
    near = next(h for h in board.locations if h not in state.at and h not in looked
                and any(board.distance(h, x) == 1 for x in first))
    tiny.move_unit(ctx, tanks, near, None)
    assert infantry.id not in _remembered(ctx)
    again = ground.reachable(ctx, infantry)
    ctx.remember_searches = False
    fresh = ground.search(ctx, "0204", infantry, tiny.entities["axis"])
    assert again == {k: v for k, v in fresh.items() if k != "0204"}
    assert again != first  # the zone of control changed what the infantry reaches


def test_a_change_of_the_unit_itself_drops_its_searches(tiny):
    state = tiny.new_game("meeting", seed=1)
    ctx = Context(tiny, state)
    panzer = _unit(state, "11th Panzer")
    tiny.modes["ground"].reachable(ctx, panzer)
    assert panzer.id in _remembered(ctx)
    tiny.set_attribute(ctx, panzer, "has_moved", True, None)
    assert panzer.id not in _remembered(ctx)


def test_the_reference_evaluator_remembers_a_search_for_one_version_only():
    reference = _engine("tiny", evaluator="reference")
    ctx = Context(reference, reference.new_game("meeting", seed=1))
    assert ctx.search_memo() is None


def test_rail_conditions_are_shared_by_a_side_and_unit_conditions_are_not(stalingrad):
    """by_rail judges a hex by the enemy units in it, its Entry Area and the EZOC (§5.6.3, §22.4):
    `to` and `s` only, so every rail search of a side shares them; normal movement's
    `blocked_hex(u, to, s)` reads the unit (a Full Retreat unit may not enter an EZOC, §13.3.1)."""
    assert stalingrad.modes["by_rail"].at_shared
    assert stalingrad.modes["rail_connection"].at_shared
    assert not stalingrad.modes["normal"].at_shared
    state = stalingrad.new_game("fall_blau", seed=1)
    ctx = Context(stalingrad, state)
    axis = stalingrad.entities["axis"]
    network = stalingrad.functions["connected_rail_hexes"](ctx, (axis,), None)
    assert len(network) > 20
    memo = ctx.search_memo()
    assert len(memo.tables[("rail_connection", "axis")]) >= len(network)
    # the search itself is remembered: asked again at a later version with nothing it reads
    # changed (a variable no condition reads), it is the same object
    state.changed(("var:not_read_by_rail",), ())
    again = stalingrad.modes["rail_connection"].region(ctx, list(stalingrad.functions["supply_sources"](ctx, (axis,), None)), axis)
    assert again is network


@pytest.mark.parametrize("name,scenario,actions", [
    ("tiny", "meeting", None),
    ("stalingrad42", "fall_blau", 40),
])
def test_every_remembered_search_is_what_a_new_search_finds(name, scenario, actions, tiny, stalingrad):
    engine = tiny if name == "tiny" else stalingrad
    assert audited_game(engine, scenario, 5, Searches, actions).audits > 20
