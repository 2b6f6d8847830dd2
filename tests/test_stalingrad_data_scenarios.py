"""The four Stalingrad '42 scenarios on the provisional campaign board (§S1-S4): turns, turn order,
maps in play, Entry Areas, set-ups (provisional), starting VP and a short self-play of each."""

from __future__ import annotations

from functools import lru_cache

import pytest
from test_stalingrad_support import game

from warcodex.interpreter.agents import FirstAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import Game
from warcodex.interpreter.values import UnitRef

SCENARIOS = {"fall_blau": (1, 8, ("axis", "soviet"), {"A"}),
             "caucasus": (10, 27, ("axis", "soviet"), {"C1", "C2"}),
             "uranus": (28, 36, ("soviet", "axis"), {"A", "B"}),
             "campaign": (1, 36, ("axis", "soviet"), {"A", "B", "C1", "C2"})}


@lru_cache(maxsize=None)
def base_engine() -> Engine:
    return Engine(game())


@lru_cache(maxsize=None)
def engine(name: str) -> Engine:
    return base_engine().for_scenario(name)


def set_up(name: str):
    e = engine(name)
    state = e.new_game(name, seed=1)
    return e, state, Context(e, state, {"axis": FirstAgent(), "soviet": FirstAgent()})


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_turns_order_and_maps(name):
    first, last, order, sheets = SCENARIOS[name]
    e, state, ctx = set_up(name)
    assert (e.first_turn(state), e.last_turn(state), state.turn_order) == (first, last, order)
    board = e.board
    for h in ("0101", "4301", "3050", "5050"):
        playable = board.sheet(h) in sheets
        assert e.functions["unplayable"](ctx, (h,), None) is (not playable), (name, h)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_set_ups_place_units_on_playable_hexes_without_enemies_sharing(name):
    e, state, ctx = set_up(name)
    units = [u for u in state.units.values() if u.loc is not None]
    assert len([u for u in units if u.side == "axis"]) >= 20 and len([u for u in units if u.side == "soviet"]) >= 20
    by_hex: dict[str, set] = {}
    for u in units:
        assert not e.functions["unplayable"](ctx, (u.loc,), None), (u.label, u.loc)
        by_hex.setdefault(u.loc, set()).add(u.side)
    assert all(len(sides) == 1 for sides in by_hex.values())


def test_fall_blau_entry_areas_and_frozen_units():
    e, state, ctx = set_up("fall_blau")
    side = lambda box: e.functions["entry_area_side"](ctx, (box,), None)
    assert side("EA_M").name == "soviet" and side("EA_R").name == "soviet" and side("EA_X").name == "axis"
    assert side("EA_C") is None and side("EA_G") is None  # maps B and C are not in play
    # the 6th Reserve Army: four units in 3806, frozen until Turn 2 (§S1.2)
    sixth = [u for u in state.units.values() if u.loc == "3806"]
    assert len(sixth) == 4 and all(u.var("frozen_army") == 6 for u in sixth)
    # the North Caucasus units south of xx36 are frozen once the game starts (§20.6)
    e.fire(ctx, "game_start")
    nc = [u for u in state.units.values() if u.side == "soviet" and u.loc and not e.board.is_box(u.loc) and e.board.coords(u.loc)[1] > 36]
    assert nc and all(u.var("nc_frozen") for u in state.units.values() if u.id in {x.id for x in nc})
    # Plan Blücher units in Crimea, railheads on the start line
    assert len([u for u in state.units.values() if u.loc == "EA_W"]) == 5
    assert sum(1 for h in e.board.locations if "railhead" in state.loc_markers.get(h, ())) == 4


def test_uranus_starts_at_15_vp_in_overcast_with_contested_cities():
    e, state, ctx = set_up("uranus")
    assert state.vars["vp"] == 15
    assert state.vars["weather"].name == "overcast"
    assert state.options["contested_cities"] is True
    axis = e.entities["axis"]
    held = [h for h in e.board.locations if "objective" in e.board.features(h)
            and e.functions["controlled_by"](ctx, (h, axis), None) and e.board.sheet(h) in ("A", "B")]
    assert sum(e.board.attr(h, "vp") for h in held) == 15
    assert e.functions["automatic_victory_used"](ctx, (), None) is False


def test_caucasus_north_edge_is_an_axis_entry_area_on_its_turns():
    e, state, ctx = set_up("caucasus")
    side = lambda box: e.functions["entry_area_side"](ctx, (box,), None)
    assert side("EA_CN").name == "axis" and side("EA_CN_WIDE") is None
    state.position.turn = 11
    state.touch()
    # the wider edge (2140-4740) contains the first one (2740-4240): units that stayed in EA_CN
    # are still in a friendly Entry Area
    assert side("EA_CN").name == "axis" and side("EA_CN_WIDE").name == "axis"
    assert len([u for u in state.units.values() if u.loc == "EA_CN"]) == 2  # the Turn 10 reinforcements
    assert e.functions["friendly_entry_area"](ctx, ("EA_CN", e.entities["axis"]), None)


def test_campaign_set_up_and_the_transcaucasus_box():
    e, state, ctx = set_up("campaign")
    assert len([u for u in state.units.values() if u.box == "transcaucasus"]) == 8
    assert {u.var("frozen_army") for u in state.units.values()} >= {5, 6, 7, 8}
    garrisons = [u for u in state.units.values() if u.loc and "garrison" in e.entities[u.type].tags]
    assert len(garrisons) == 10  # §20.4: ten Soviet garrison units


@pytest.mark.parametrize("name", ["fall_blau", "uranus"])
def test_a_short_self_play_runs(name):
    e = engine(name)
    state = e.new_game(name, seed=3)
    g = Game(e, state, {"axis": FirstAgent(), "soviet": FirstAgent()}, trace=False)
    g.run(max_actions=25)
    assert state.position.turn >= e.first_turn(state)


@pytest.mark.parametrize("name", ["fall_blau", "caucasus"])
def test_the_backward_los_region_equals_a_forward_trace_from_each_hex(name):
    """`trace_back` answers "can this hex trace a LOS?" for every hex at once (§16.3.1); it must
    give exactly the answer of one forward overland trace per hex, on the real board, for both
    sides, including hexes next to enemy units (ZOC and bond rules read `from` and `to`)."""
    e, state, ctx = set_up(name)
    f = e.functions
    board = e.board
    for side in ("axis", "soviet"):
        s = e.entities[side]
        net = f["supply_network"](ctx, (s,), None)
        region = f["los_region"](ctx, (s, net), None)
        near_units = {n for u in state.units.values() if u.loc is not None and u.loc in board.index
                      for n in (u.loc, *board.neighbors(u.loc))}
        sample = sorted(near_units)[::3] + list(board.index)[::97]
        forward = {h for h in sample if f["traceable_to_network"](ctx, (h, s, net), None)}
        backward = {h for h in sample if h in region}
        assert forward == backward, (side, sorted(forward ^ backward)[:10])
        assert 0 < len(forward) < len(sample)  # a real test: some hexes in, some out


def test_no_kerch_crossing_when_taman_is_off_the_maps_in_play():
    """Found by `warcodex fuzz` (invariant units_on_playable_hexes): in Fall Blau (map A only) a Blü
    unit in Entry Area W could cross the Kerch Strait to Taman, a hex of map C2, not in play
    (§2.2.3, §5.7.2). In the campaign, Taman is in play and the crossing is offered."""
    e, state, ctx = set_up("fall_blau")
    state.phase, state.active = "movement", "axis"
    state.touch()
    assert [u for u in state.units.values() if u.loc == "EA_W" and u.side == "axis"]  # Blü units wait in W
    assert e.functions["unplayable"](ctx, ("1549",), None)
    assert list(e.actions["kerch_crossing"].instances(ctx)) == []
    e, state, ctx = set_up("campaign")
    assert not e.functions["unplayable"](ctx, ("1549",), None)


def test_a_fall_blau_game_replays_exactly_from_its_log():
    """A scenario whose rules override the base game's (Fall Blau's `tactical_only`) is replayed
    with its own engine: recorded arguments (movement modes...) are decoded as that engine's names.
    Games stopped early replay too: at the end of the last logged turn (`--until`), or where the
    next decision would have been asked (`--max-actions`)."""
    from warcodex.interpreter.play import agents_for, log_text, replay, start

    base = base_engine()
    g = start(base, "fall_blau", 2, agents_for(base, ["random"], 2), trace=True)
    g.run(until_turn=1)
    assert any(e.get("action") == "move" for e in g.log)
    again = replay(base, "fall_blau", 2, g.log)
    assert log_text(again.log) == log_text(g.log)
    g = start(base, "fall_blau", 3, agents_for(base, ["random"], 3), trace=True)
    g.run(max_actions=12)
    again = replay(base, "fall_blau", 3, g.log)
    assert log_text(again.log) == log_text(g.log)


def test_returning_units_are_placed_only_on_the_sheets_in_play():
    """Found by `warcodex fuzz` (invariant units_on_playable_hexes, after use_replacement): in Fall
    Blau (map A only) an eliminated unit could return to a friendly Major City of another sheet
    (§21.3.1, §2.2.3)."""
    e, state, ctx = set_up("fall_blau")
    f = e.functions
    for side in ("axis", "soviet"):
        u = next(UnitRef(x.id) for x in state.units.values() if x.side == side and x.loc is not None)
        sites = f["return_sites"](ctx, (u,), None)
        assert sites, side
        assert [h for h in sites if f["unplayable"](ctx, (h,), None)] == [], side


def _fall_blau_victory_phase(e, state, ctx) -> None:
    """The Victory Determination Phase as the sequence plays it: the phase's procedure, then the
    phase-end triggers, then the `phase_end(victory)` invariants (a broken one raises)."""
    state.phase, state.active = "victory", None
    state.touch()
    e.procedures["victory_phase"](ctx, (), None)
    e.fire(ctx, "phase_end", ("victory",))
    e.check_invariants(ctx, "phase_end", "victory")


def test_the_fall_blau_bonus_is_one_of_the_vp_sources():
    """Found by the balance batch (fb-greedy-random, Fall Blau seed 1, Turn 7): §24.1 counted 3 VP,
    then the §S1.3 bonus (+1, a German combat unit south of the Don below hexrow xx31) made 4, and
    the invariant `vp_is_the_sum_of_its_sources` had no term for a scenario's bonus. The bonus is
    part of the VP total of each Victory Determination Phase (§S1.3: "in addition to the map VPs",
    its conditions judged in that phase), recomputed from scratch: counted each phase it applies,
    never accumulated from one phase to the next."""
    e, state, ctx = set_up("fall_blau")
    f = e.functions
    state.position.turn = 7
    _fall_blau_victory_phase(e, state, ctx)
    base = state.vars["vp"]
    assert f["fall_blau_bonus"](ctx, (), None) == 0  # nobody is south of the Don yet
    german = next(UnitRef(u.id) for u in state.units.values()
                  if u.side == "axis" and u.loc is not None and e.entities[u.type].props.get("nationality") == "german"
                  and f["is_combat"](ctx, (UnitRef(u.id),), None))
    below = "3735"  # south bank of the Don, hexrow 35 > 31, on map A (map.wcmap: south_of_don)
    assert not [u for u in state.units.values() if u.loc == below]
    e.move_unit(ctx, german, below, None)
    assert f["fall_blau_bonus"](ctx, (), None) == 1
    _fall_blau_victory_phase(e, state, ctx)  # the invariants hold with the bonus in the total
    assert state.vars["vp"] == base + 1
    assert f["scenario_bonus_vp"](ctx, (), None) == 1  # the §24.1 hook Fall Blau fills
    state.set_var("vp", 0)
    e.procedures["compute_vp"](ctx, (), None)  # the count itself has the bonus, so the automatic
    assert state.vars["vp"] == base + 1        # victory check (§24.2) that follows it sees it too
    _fall_blau_victory_phase(e, state, ctx)  # the next phase: +1 again on a recounted total, not +2
    assert state.vars["vp"] == base + 1
