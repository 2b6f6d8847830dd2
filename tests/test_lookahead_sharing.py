"""What a lookahead shares with the game it looks ahead from, and what it must not (docs/balance.md,
"A greedy turn made cheaper again"): a snapshot's location and side variables are copied on
write, a lookahead finds the movement searches the game's context made at the same version, and
a context keeps the searches of one version only (it used to keep every search it ever made)."""

from __future__ import annotations

import gc

import pytest

from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import agents_for, start
from warcodex.interpreter.search_agents import GreedyAgent
from warcodex.interpreter.values import UnitRef
from game_scene import checked


@pytest.fixture(scope="module")
def tiny():
    return Engine(checked("games/tiny")).for_scenario("meeting")


def test_a_snapshots_location_and_side_variables_are_its_own(tiny):
    state = tiny.new_game("meeting", 1)
    axis, soviet = tiny.entities["axis"], tiny.entities["soviet"]
    state.set_loc_var("0305", "controller", axis)
    snap = state.snapshot()
    again = snap.snapshot()
    # the snapshot writes: the state and the snapshot's own snapshot do not see it
    snap.set_loc_var("0305", "controller", soviet)
    snap.set_side_var("axis", "vp", 3)
    assert state.loc_vars["0305"]["controller"] is axis and again.loc_vars["0305"]["controller"] is axis
    assert "vp" not in state.side_vars.get("axis", {}) and "vp" not in again.side_vars.get("axis", {})
    # the state writes after the snapshot (as the game goes on while a kept position waits)
    state.set_loc_var("0305", "controller", None)
    state.set_loc_var("0306", "controller", soviet)
    assert snap.loc_vars["0305"]["controller"] is soviet and again.loc_vars["0305"]["controller"] is axis
    assert "0306" not in snap.loc_vars and "0306" not in again.loc_vars
    # and the engine's own `set` (Engine.set_attribute) writes the same way
    later = state.snapshot()
    tiny.set_attribute(Context(tiny, later), "0305", "controller", axis, None)
    assert later.loc_vars["0305"]["controller"] is axis and state.loc_vars["0305"]["controller"] is None


def _mover(engine, ctx):
    """A unit of the side to move with somewhere to go, and the mode it moves by."""
    mode = next(iter(engine.modes.values()))
    for u in ctx.state.units.values():
        if u.loc is not None and mode.reachable(ctx, UnitRef(u.id)):
            return UnitRef(u.id), mode
    raise AssertionError("no unit can move")


def test_a_lookahead_finds_the_games_searches_of_its_version_and_keeps_its_own_after(tiny):
    game = start(tiny, "meeting", 1, agents_for(tiny, ["random"], 1), trace=False)
    ctx = game.ctx
    ctx.sync_memos()
    unit, mode = _mover(tiny, ctx)
    reach = mode.reachable(ctx, unit)
    sim = Context(tiny, ctx.state.snapshot())
    sim.carry_memos(ctx)
    assert mode.reachable(sim, unit) is reach  # the game's search, not a search again
    # the lookahead moves the unit: its searches are its own from then on, the game's untouched
    dest = next(iter(reach))
    sim.state.put(sim.state.units[unit.id].but(loc=dest))
    after = mode.reachable(sim, unit)
    assert ctx.cache["reach"][0] == ctx.state.version and ctx.cache["reach"][1][(mode.name, unit.id)] is reach
    assert sim.cache["reach"] is not ctx.cache["reach"] and after is not reach
    # a search of a snapshot that is not at the game's version is not carried
    moved = sim.state.snapshot()
    other = Context(tiny, moved)
    other.carry_memos(ctx)
    assert "reach" not in other.cache


def test_a_context_keeps_the_searches_of_one_version_only(tiny):
    """The game's context used to keep every movement search of every version to the game's
    end (a key a version): a long game's memory grew with every action."""
    game = start(tiny, "meeting", 2, agents_for(tiny, ["greedy:samples=4"], 2), trace=False)
    game.run(max_actions=40)
    ctx = game.ctx
    assert len(game.log) > 20
    assert not [k for k in ctx.cache if isinstance(k, tuple) and k and k[0] == "reach"]
    assert set(ctx.cache.get("reach", (ctx.state.version, {}))[1]) <= {(m, u) for m in tiny.modes for u in ctx.state.units}


def test_a_greedy_decision_leaves_no_garbage_for_the_cycle_collector(tiny):
    """The collector is paused during a decision (search_agents.py): what a decision drops must
    be freed by reference counting, or it waits for the next collection. Greedy decisions of a
    whole Tiny Front game leave no reference cycle behind."""
    game = start(tiny, "meeting", 3, {s: GreedyAgent(3, samples=6, follow=2, rolls=2) for s in ("axis", "soviet")},
                 trace=False)
    game.run(max_actions=5)  # warm: rules compiled, tables made
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        game.run(max_actions=60)
        found = gc.collect()
    finally:
        if was:
            gc.enable()
    assert len(game.log) > 40
    assert found == 0


@pytest.fixture(scope="module")
def fall_blau():
    return Engine(checked("games/stalingrad42")).for_scenario("fall_blau")


def test_a_lookaheads_traces_of_one_version_share_their_conditions(fall_blau, monkeypatch):
    """A lookahead remembers no searches (Context.carry_memos), and its evaluation traces a LOS
    from every unit's hex (Stalingrad '42's "combat steps out of supply", §16.3.2): the traces of
    one side at one state version share the conditions of the hexes they enter (they read `to`
    and `s` only), each evaluated once, with the answers of traces that evaluate their own; a
    change of the state starts a new table."""
    engine = fall_blau
    game = Context(engine, engine.new_game("fall_blau", seed=1))
    game.sync_memos()
    sim = Context(engine, game.state.snapshot())
    sim.carry_memos(game)
    assert sim.search_memo() is None  # a lookahead's context: no searches remembered
    mode, axis = engine.modes["supply_overland"], engine.entities["axis"]
    assert mode.at_shared
    net = engine.functions["supply_network"](sim, (axis,), None)
    on_the_map = engine.functions["on_the_map"]
    hexes = sorted({u.loc for u in sim.state.units.values() if u.side == "axis" and on_the_map(sim, (u.loc,), None)
                    and u.loc not in net})
    assert len(hexes) > 10
    calls: list = []
    at = mode._at

    def counted(ctx, u, s, origin, from_, loc, blocked):
        calls.append((ctx, loc))
        return at(ctx, u, s, origin, from_, loc, blocked)

    monkeypatch.setattr(mode, "_at", counted)
    shared = [mode.traceable(sim, h, net, axis) for h in hexes]
    entered = [loc for ctx, loc in calls if ctx is sim]
    assert len(entered) > len(hexes)  # the traces entered hexes beyond their starts
    assert len(entered) == len(set(entered))  # each hex's conditions evaluated once for all of them
    # a trace with a table of its own (a new context for each) answers the same
    alone = []
    for h in hexes:
        own = Context(engine, sim.state.snapshot())
        own.carry_memos(game)
        alone.append(mode.traceable(own, h, net, axis))
    assert alone == shared and True in shared
    # a change of the state (a unit moved next to a traced hex): the next trace starts a table
    table = sim.cache[("at", "supply_overland", "axis")][2]
    unit = next(u for u in sim.state.units.values() if u.side == "axis" and u.loc == hexes[0])
    sim.state.put(unit.but(loc=engine.board.neighbors(hexes[0])[0]))
    calls.clear()
    mode.traceable(sim, hexes[0], engine.functions["supply_network"](sim, (axis,), None), axis)
    assert sim.cache[("at", "supply_overland", "axis")][2] is not table
    assert any(loc in engine.board.neighbors(hexes[0]) for ctx, loc in calls if ctx is sim)
