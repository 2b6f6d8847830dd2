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


def _traced_hexes(engine, ctx, side):
    """The hexes of the map where units of `side` stand, off its road network: each a LOS trace
    of the overland part (§16.3.2), as the evaluation's "combat steps out of supply" makes them."""
    net = engine.functions["supply_network"](ctx, (side,), None)
    on_the_map = engine.functions["on_the_map"]
    hexes = sorted({u.loc for u in ctx.state.units.values() if u.side == side.name and on_the_map(ctx, (u.loc,), None)
                    and u.loc not in net})
    return net, hexes


def test_a_lookahead_finds_the_games_traces_its_move_left_alone_and_shares_its_own(stalingrad, monkeypatch):
    """A lookahead remembers no searches (Context.carry_memos); it finds the game's traces and
    supply network that its own changes could not alter (`Context.inherited_search`), runs the
    others again, and gives the game those of its traces that hold there too (`share_search`):
    every answer the one a search afresh finds."""
    engine = stalingrad
    axis = engine.entities["axis"]
    mode = engine.modes["supply_overland"]
    game = Context(engine, engine.new_game("fall_blau", seed=1))
    net, hexes = _traced_hexes(engine, game, axis)
    assert len(hexes) > 10
    answers = {h: mode.traceable(game, h, net, axis) for h in hexes}
    memo = game.search_memo()
    assert all(("trace", "supply_overland", h, "axis", net) in memo.entries for h in hexes)
    # a lookahead moves the unit of the first hex traced one hex on
    sim = Context(engine, game.state.snapshot())
    sim.carry_memos(game)
    moved = next(u for u in sim.state.units.values() if u.side == "axis" and u.loc == hexes[0])
    dest = next(h for h in engine.board.neighbors(hexes[0]) if h not in sim.state.at and h not in net)
    sim.state.put(moved.but(loc=dest))
    searched: list = []
    search = mode.search

    def counted(ctx, start, *args, **kw):
        searched.append((ctx, start))
        return search(ctx, start, *args, **kw)

    monkeypatch.setattr(mode, "search", counted)
    sim_net = engine.functions["supply_network"](sim, (axis,), None)
    watched = {h: memo.entries[("trace", "supply_overland", h, "axis", net)].watched for h in hexes}
    far = [h for h in hexes if hexes[0] not in watched[h] and dest not in watched[h]]
    near = [h for h in hexes if h not in far and h != hexes[0]]
    assert far and near
    seen = {h: mode.traceable(sim, h, sim_net, axis) for h in hexes if h != hexes[0]}
    again = {start for ctx, start in searched if ctx is sim}
    assert sim_net == net  # the same road network (§16.3.3), traced again or not: the move is near roads
    assert not again & set(far) and set(near) <= again  # the traces far from the move are the game's
    # every answer is the one a context of its own (no memo carried) finds afresh
    fresh = Context(engine, sim.state.snapshot())
    fresh.remember_searches = False
    assert seen == {h: mode.traceable(fresh, h, engine.functions["supply_network"](fresh, (axis,), None), axis) for h in seen}
    assert {h: seen[h] for h in far} == {h: answers[h] for h in far}
    # a trace the game never made, from a hex far from the move, is given to the game; one from
    # next to the move is not (the game's position differs there)
    other = next(h for h in engine.board.locations if h not in net and h not in sim.state.at and on_map(engine, sim, h)
                 and engine.board.distance(h, dest) > 8 and ("trace", "supply_overland", h, "axis", sim_net) not in memo.entries)
    beside = next(h for h in engine.board.neighbors(dest) if h not in net and h not in sim.state.at and on_map(engine, sim, h)
                  and ("trace", "supply_overland", h, "axis", sim_net) not in memo.entries)
    mode.traceable(sim, other, sim_net, axis)
    mode.traceable(sim, beside, sim_net, axis)
    assert ("trace", "supply_overland", other, "axis", net) in memo.entries
    assert ("trace", "supply_overland", beside, "axis", sim_net) not in memo.entries
    # once the game has moved on, a lookahead of the old position inherits nothing
    unit = next(u for u in game.state.units.values() if u.side == "axis" and u.loc == hexes[-1])
    game.state.put(unit.but(loc=next(h for h in engine.board.neighbors(hexes[-1]) if h not in game.state.at)))
    game.sync_memos()
    key = ("trace", "supply_overland", far[0], "axis", net)
    assert key in memo.entries and sim.inherited_search(key, memo.entries[key].allowance) is None


def on_map(engine, ctx, h):
    """A playable hex of the scenario's map."""
    return engine.functions["on_the_map"](ctx, (h,), None) and not engine.functions["unplayable"](ctx, (h,), None)
