"""Stalingrad '42 core rules (games/stalingrad42) rule by rule, beyond the rulebook's worked examples:
stacking, ZOC, movement modes and restrictions, combat strengths, results and step losses,
Determined Defense gates, recovery, supply, weather, victory, fortifications. Real rules on
constructed fragments (test_stalingrad_support.Scene)."""

from __future__ import annotations

from test_stalingrad_support import Scene, ring

from warcodex.interpreter.values import CellValue, Code, UnitRef

T = "0606"
N, NE, SE, S, SW, NW = ring(T)


def ent(s: Scene, name: str):
    return s.engine.entities[name]


def cell(s: Scene, *codes):
    return CellValue(tuple(Code(s.engine.entities[c]) for c in codes), "crt")


def carry_out(s: Scene, codes, attackers, target: str) -> None:
    defenders = tuple(UnitRef(i) for i in s.state.units_at(target))
    att_side = ent(s, s.state.units[attackers[0].id].side)
    def_side = ent(s, s.state.units[defenders[0].id].side)
    s.run("carry_out", cell(s, *codes), tuple(attackers), target, defenders, att_side, def_side)


# ================================================================ stacking (§4)
def test_stacking_limits_by_side_free_stacking_and_asus():
    s = Scene()
    axis, soviet = ent(s, "axis"), ent(s, "soviet")
    for _ in range(3):
        s.unit("test_infantry", "axis", T)
    assert not s.f("overstacked", T, axis)
    s.unit("test_asu", "axis", T)  # ASUs have no stacking value (§4.2)
    assert not s.f("overstacked", T, axis)
    s.unit("test_infantry", "axis", T)
    assert s.f("overstacked", T, axis)
    for _ in range(2):
        s.unit("test_rifle", "soviet", "0909")
    s.unit("test_tank_brigade", "soviet", "0909")  # one free-stacking unit is free
    assert not s.f("overstacked", "0909", soviet)
    s.unit("test_antitank", "soviet", "0909")  # a second one counts
    assert s.f("overstacked", "0909", soviet)
    s.unit("test_army_hq", "soviet", "0909")  # a Soviet Army HQ: 3 + 1 (§4.3)
    assert not s.f("overstacked", "0909", soviet)


def test_stacking_is_enforced_at_the_end_of_the_movement_phase():
    s = Scene(phase="movement")
    units = [s.unit("test_infantry", "axis", T) for _ in range(4)]
    s.run("enforce_stacking", ent(s, "axis"))
    assert sum(1 for u in units if s.loc(u) == T) == 3


def test_stacking_is_enforced_on_a_stack_far_over_the_limit():
    # random moves and retreats (§12.1.4) can pile ten units in a hex: all but two go (§4.4), not
    # a fixed number of them (Fall Blau seed 3, greedy Axis against random, s10: a stack left over
    # the limit after six removals)
    s = Scene(phase="movement")
    units = [s.unit("test_rifle", "soviet", T) for _ in range(10)]
    s.run("enforce_stacking", ent(s, "soviet"))
    assert sum(1 for u in units if s.loc(u) == T) == 2
    assert not s.f("overstacked", T, ent(s, "soviet"))


# ================================================================ ZOC (§6)
def test_zoc_does_not_cross_the_volga_impassable_hexsides_or_from_a_train():
    s = Scene(f"  edge volga: {N}/{T}\n  edge impassable: {NE}/{T}")
    axis = ent(s, "axis")
    s.unit("test_rifle", "soviet", N)
    s.unit("test_rifle", "soviet", NE)
    assert not s.f("in_ezoc", T, axis)
    s.unit("test_rifle", "soviet", S, "train")
    assert not s.f("in_ezoc", T, axis)
    s.unit("test_army_hq", "soviet", SW)  # non-combat units have no ZOC
    assert not s.f("in_ezoc", T, axis)
    s.unit("test_rifle", "soviet", SE, "disrupted")  # disrupted units keep their ZOC (§13.2.2)
    assert s.f("in_ezoc", T, axis)


def test_disrupted_units_keep_their_zoc_but_form_no_bond():
    s = Scene()
    soviet = ent(s, "soviet")
    s.unit("test_rifle", "soviet", N, "disrupted")
    s.unit("test_rifle", "soviet", S)
    assert s.f("hex_bond", T, soviet) is False
    s2 = Scene()
    s2.unit("test_tank_brigade", "soviet", N)
    s2.unit("test_rifle", "soviet", S)
    assert s2.f("hex_bond", T, ent(s2, "soviet")) is False  # one free-stacking unit alone
    s2.unit("test_antitank", "soviet", N)
    assert s2.f("hex_bond", T, ent(s2, "soviet")) is True  # two free-stacking units together


# ================================================================ movement (§5)
def test_entering_an_ezoc_stops_and_leaving_costs_two():
    s = Scene(phase="movement")
    u = s.unit("test_motorized", "axis", "0306")
    s.unit("test_rifle", "soviet", "0606")
    r = s.engine.modes["normal"].reachable(s.ctx, u)
    assert r["0506"][2] is True  # must stop in the EZOC
    assert r["0506"][0] == 2


def test_disrupted_and_out_of_supply_mechanized_units_use_tactical_movement_only():
    s = Scene(phase="movement")
    d = s.unit("test_infantry", "axis", "0303", "disrupted")
    m = s.unit("test_motorized", "axis", "0305", "out_of_supply")
    i = s.unit("test_infantry", "axis", "0307", "out_of_supply")
    assert [x.name for x in s.f("movement_modes", d)] == ["tactical"]
    assert [x.name for x in s.f("movement_modes", m)] == ["tactical"]
    assert [x.name for x in s.f("movement_modes", i)] == ["normal", "extended", "tactical"]
    asu = s.unit("test_asu", "axis", "0309")
    assert [x.name for x in s.f("movement_modes", asu)] == ["normal", "tactical"]  # no Extended (§5.3, §18.2.2)


def test_minor_rivers_cost_one_more_in_rain_and_mud():
    s = Scene(f"  edge minor_river: {T}/{N}")
    u = s.unit("test_infantry", "axis", T)
    assert s.q("move_cost", u, T, N) == 1
    s.set("weather", "rain")
    assert s.q("move_cost", u, T, N) == 2
    s.set("weather", "mud")
    assert s.q("move_cost", u, T, N) == 2


def test_bridges_rail_bridges_and_frozen_rivers():
    body = f"  edge major_river: {T}/{N} {T}/{NE} {T}/{SE}\n  edge rail: {T}/{NE}\n  edge road: {T}/{SE}"
    s = Scene(body)
    inf, mech = s.unit("test_infantry", "axis", T), s.unit("test_motorized", "axis", T)
    assert (s.q("move_cost", inf, T, N), s.q("move_cost", mech, T, N)) == (3, 4)  # +2 / +3
    assert (s.q("move_cost", inf, T, NE), s.q("move_cost", mech, T, NE)) == (2, 3)  # rail bridge +1 / +2
    assert s.q("move_cost", mech, T, SE) == 0.5  # a road bridge: the road rate
    w = Scene(body, turn=28)
    inf = w.unit("test_infantry", "axis", T)
    mech = w.unit("test_motorized", "axis", T)
    assert (w.q("move_cost", inf, T, N), w.q("move_cost", mech, T, N)) == (2, 3)  # frozen: +1 / +2


def test_a_frozen_major_river_may_be_crossed_without_starting_adjacent():
    body = "  edge major_river: cols 6/7 rows 1..12"
    s = Scene(body, turn=20, phase="movement")
    u = s.unit("test_infantry", "axis", "0506")
    assert "0706" not in s.reach(u, "tactical")
    w = Scene(body, turn=28, phase="movement")
    u = w.unit("test_infantry", "axis", "0506")
    assert "0706" in w.reach(u, "tactical")


def test_the_volga_axis_only_at_ferries_soviet_also_at_the_rail_bridge():
    body = f"  edge volga: cols 6/7 rows 1..12\n  edge ferry: 0603/0703\n  edge rail_bridge: 0606/0706"
    s = Scene(body, phase="movement")
    a = s.unit("test_infantry", "axis", T)
    assert "0706" not in s.reach(a, "tactical")
    b = s.unit("test_infantry", "axis", "0603")
    assert "0703" in s.reach(b, "tactical")
    s2 = Scene(body, active="soviet", phase="movement")
    r = s2.unit("test_rifle", "soviet", T)
    assert "0706" in s2.reach(r, "tactical")


def test_secondary_roads_in_rain_cost_mechanized_units_one_mp():
    s = Scene(f"  path secondary_road: {T} {N}")
    m = s.unit("test_motorized", "axis", T)
    assert s.q("move_cost", m, T, N) == 0.5
    s.set("weather", "rain")
    assert s.q("move_cost", m, T, N) == 1


def test_snow_takes_one_mp_off_every_ma():
    s = Scene(weather="snow")
    u = s.unit("test_infantry", "axis", T)
    assert s.q("movement_allowance", u) == 2 and s.q("extended_allowance", u) == 5


def test_entry_areas_cost_one_mp_stop_the_unit_and_hold_it_until_a_later_phase():
    box = '  box EA_A "Entry Area A" { entry_area: "A" } adjacent_to: 0101-0112\n  terrain entry_area: EA_A'
    s = Scene(box, active="soviet", phase="movement")
    r = s.unit("test_rifle", "soviet", "0205")
    reach = s.engine.modes["normal"].reachable(s.ctx, r)
    assert reach["EA_A"][0] == 2 and reach["EA_A"][2] is True  # 1 + 1, then stop
    s.act("move", u=r, mode=ent(s, "normal"), to="EA_A")
    assert s.f("may_move", r) is False
    a = s.unit("test_infantry", "axis", "0305")
    assert "EA_A" not in s.reach(a)  # enemy Entry Areas may not be entered (§22.4)


def test_full_retreat_units_enter_an_ezoc_only_with_a_friendly_good_order_unit():
    s = Scene(phase="movement")
    fr = s.unit("test_infantry", "axis", "0303", "full_retreat")
    s.unit("test_rifle", "soviet", "0306")
    assert "0305" not in s.reach(fr)
    s.unit("test_infantry", "axis", "0305")
    assert "0305" in s.reach(fr)


def test_voluntary_full_retreat_ignores_the_ezoc_exit_cost():
    s = Scene(phase="movement")
    u = s.unit("test_infantry", "axis", "0305")
    s.unit("test_rifle", "soviet", "0306")
    assert s.f("exit_cost", u, "0305", "0305") == 2
    s.act("voluntary_full_retreat", u=u)
    assert "full_retreat" in s.markers(u) and s.f("exit_cost", u, "0305", "0305") == 0


# ================================================================ combat strengths (§9, §13, §16, §23)
def test_defender_states_disrupted_full_retreat_and_train():
    s = Scene(f"  terrain major_city: {T}")
    att = (s.unit("test_inf5", "axis", N),)
    d = s.unit("test_rifle", "soviet", T, "disrupted")
    assert s.q("defense_strength", d, att) == 6  # 5 halved = 3, doubled in the City = 6
    fr = s.unit("test_rifle", "soviet", T, "full_retreat")
    assert s.q("defense_strength", fr, att) == 0
    tr = s.unit("test_rifle", "soviet", T, "train")
    assert s.q("defense_strength", tr, att) == 1  # 1 and never doubled


def test_winter_penalties_north_of_xx43():
    s = Scene(turn=28)
    inf = s.unit("test_infantry", "axis", N)  # 6-7-3
    weak = s.unit("test_cavalry", "axis", NE, steps=1)  # attack 1, defence 2
    s.unit("test_rifle", "soviet", T)
    assert s.q("attack_strength", inf, T) == 5 and s.q("attack_strength", weak, T) == 1
    assert s.q("defense_strength", inf, ()) == 6 and s.q("defense_strength", weak, ()) == 2
    sov = s.unit("test_rifle", "soviet", "0909")
    assert s.q("attack_strength", sov, "0908") == 3  # Soviet units are not affected
    c = Scene(f"  terrain town: {N}", turn=28)
    u = c.unit("test_infantry", "axis", N)
    assert c.q("defense_strength", u, ()) == 7  # exempt in a town


def test_an_axis_mountain_unit_doubles_its_attack_into_a_mountain():
    s = Scene(f"  terrain mountain: {T}")
    s.unit("test_rifle", "soviet", T)
    u = s.unit("test_mountain", "axis", N)
    assert s.q("attack_strength", u, T) == 8


def test_rough_and_wooded_rough_shift_one_column_left():
    s = Scene(f"  terrain wooded_rough: {T}")
    s.unit("test_rifle", "soviet", T)
    pz = s.unit("test_panzer", "axis", N)
    assert s.column([pz], T) == "1-1"  # 10 : 5 = 2-1, 1L, and no armor shift in wooded rough


def test_printed_fortifications_never_help_the_axis():
    s = Scene("  feature fortification: 0606")
    s.unit("test_inf5", "axis", T)
    att = s.unit("test_rifle", "soviet", N)
    assert s.f("fortified", T) is False
    s2 = Scene("  feature fortification: 0606")
    s2.unit("test_rifle", "soviet", T)
    s2.unit("test_inf5", "axis", N)
    assert s2.f("fortified", T) is True
    assert att


# ================================================================ results and step losses (§10)
def test_ds_the_attacker_picks_the_defending_unit_that_loses_a_step():
    s = Scene(active="axis", decline=True)
    a, b = s.unit("test_rifle", "soviet", T), s.unit("test_rifle6", "soviet", T)
    att = s.unit("test_panzer", "axis", N)
    s.agent.script = {"v": [b], "group": [[]]}
    carry_out(s, ["DS", "Adv4"], [att], T)
    assert s.steps(b) == 1 and s.steps(a) == 2
    assert "full_retreat" in s.markers(a) and s.loc(a) != T
    who = [w for w, opts in s.agent.asked if w == "v"]
    assert who  # the step loss was a choice


def test_exchange_both_sides_lose_a_step_and_nobody_retreats():
    s = Scene(active="axis", decline=True)
    d = s.unit("test_rifle", "soviet", T)
    a = s.unit("test_infantry", "axis", N)
    carry_out(s, ["EX"], [a], T)
    assert s.steps(d) == 1 and s.steps(a) == 2 and s.loc(d) == T and s.loc(a) == N


def test_a1_only_the_attacker_loses_a_step():
    s = Scene(active="axis")
    d = s.unit("test_rifle", "soviet", T)
    a = s.unit("test_infantry", "axis", N)
    carry_out(s, ["A1"], [a], T)
    assert s.steps(a) == 2 and s.steps(d) == 2 and s.loc(d) == T


def test_a_three_step_unit_becomes_a_remnant_then_is_permanently_removed():
    s = Scene()
    u = s.unit("test_infantry", "axis", T)
    s.run("take_step_loss", u)
    s.run("take_step_loss", u)  # the second loss: a Remnant (the owner's default choice)
    assert s.steps(u) == 1 and s.loc(u) == T
    s.run("take_step_loss", u)
    assert s.loc(u) is None and s.box(u) == "permanently_removed"
    s2 = Scene(script={"how": ["eliminated box"]})
    v = s2.unit("test_infantry", "axis", T, steps=2)
    s2.run("take_step_loss", v)
    assert s2.box(v) == "eliminated"


def test_dr2_and_d1_retreat_lengths_and_disruption():
    s = Scene(active="axis", decline=True)
    d = s.unit("test_rifle", "soviet", T)
    a = s.unit("test_infantry", "axis", N)
    s.agent.script = {"use": ["retreat"]}
    carry_out(s, ["D1", "Adv2"], [a], T)
    assert s.steps(d) == 1 and s.engine.board.distance(s.loc(d), T) == 3 and "disrupted" in s.markers(d)
    assert s.f("retreat_length", cell(s, "A1", "D1")) == 2 and s.f("retreat_length", cell(s, "DR4")) == 4


def test_the_explanation_of_a_result_shows_the_advance_not_the_rules_own_records():
    """`combat_adv` (the result's Adv N after the weather, §14.2.1) and `advance_kind` (§14.2) are
    what a player reads off the result; `last_result_adv` (the raw Adv N, kept for §15.2.7) and
    `vacated_hex` (kept for the advance's own rules, §14.3) are the rules' records (`bookkeeping`)."""
    s = Scene(active="axis", decline=True, weather="snow")
    d = s.unit("test_rifle", "soviet", T)
    a = s.unit("test_infantry", "axis", N)
    s.agent.script = {"use": ["retreat"]}
    lines = s.traced("carry_out", cell(s, "D1", "Adv2"), (a,), T, (d,), ent(s, "axis"), ent(s, "soviet"))
    assert "combat_adv = 1" in lines  # Snow takes one hex off (§14.2.2)
    assert "advance_kind = full" in lines
    assert s.var("last_result_adv") == 2 and s.var("vacated_hex") == T  # kept, not shown
    assert not [x for x in lines if x.startswith(("last_result_adv =", "vacated_hex =", "breakthrough_air =",
                                                    "city_battle_placed ="))]
    e = s.engine
    assert {"vacated_hex", "last_result_adv"} <= e.bookkeeping_vars
    assert not {"combat_adv", "advance_kind", "dd_outcome"} & e.bookkeeping_vars


def test_a_disrupted_unit_forced_to_retreat_goes_into_full_retreat():
    s = Scene(active="axis", decline=True)
    d = s.unit("test_rifle", "soviet", T, "disrupted")
    a = s.unit("test_infantry", "axis", N)
    s.agent.script = {"use": ["retreat"]}
    carry_out(s, ["DR2", "Adv2"], [a], T)
    assert "full_retreat" in s.markers(d) and "disrupted" not in s.markers(d)


def test_a_full_attack_resolves_on_the_crt_with_fixed_dice():
    s = Scene(active="axis", dice=[6], decline=True)
    d = s.unit("test_rifle", "soviet", T, steps=1)
    a = s.unit("test_panzer", "axis", N)
    assert T in s.f("attack_targets", ent(s, "axis"))
    s.act("attack", target=T, attackers=(a,), air="none", asu=None)  # 10 : 3 -> 3-1, +2 -> 5-1
    assert s.loc(d) is None  # 5-1, roll 6: DS
    assert s.state.units[a.id].var("attacked") is True
    assert T not in s.f("attack_targets", ent(s, "axis"))


# ================================================================ Determined Defense gates (§11)
def test_no_dd_on_ds_or_dr4_or_a_no_dd_cell():
    s = Scene(turn=10)
    d = s.unit("test_infantry", "axis", T)
    att = (s.unit("test_rifle", "soviet", N),)
    for codes in (("DS",), ("DR4",), ("D1", "No_DD")):
        assert s.f("dd_allowed", cell(s, *codes), T, (d,), att) is False
    assert s.f("dd_allowed", cell(s, "D1"), T, (d,), att) is True


def test_not_a_step_back_before_turn_8():
    s = Scene(turn=5)
    d = s.unit("test_rifle", "soviet", T)
    att = (s.unit("test_infantry", "axis", N),)
    assert s.f("dd_allowed", cell(s, "DR2"), T, (d,), att) is False  # open terrain, no doubling
    nk = Scene(turn=5)
    n = nk.unit("test_nkvd", "soviet", T)
    assert nk.f("dd_allowed", cell(nk, "DR2"), T, (n,), (nk.unit("test_infantry", "axis", N),)) is True
    city = Scene(f"  terrain minor_city: {T}", turn=5)
    c = city.unit("test_rifle", "soviet", T)
    assert city.f("dd_allowed", cell(city, "DR2"), T, (c,), (city.unit("test_infantry", "axis", N),)) is True
    late = Scene(turn=8)
    l8 = late.unit("test_rifle", "soviet", T)
    assert late.f("dd_allowed", cell(late, "DR2"), T, (l8,), (late.unit("test_infantry", "axis", N),)) is True


def test_light_orange_cells_need_a_vp_hex_and_cost_one():
    s = Scene(turn=10)
    d = s.unit("test_infantry", "axis", T)
    att = (s.unit("test_rifle", "soviet", N),)
    assert s.f("dd_allowed", cell(s, "DR2", "DD_minus"), T, (d,), att) is False
    v = Scene("  feature objective: 0606\n  location 0606 { vp: 2 }", turn=10)
    d = v.unit("test_infantry", "axis", T)
    assert v.f("dd_allowed", cell(v, "DR2", "DD_minus"), T, (d,), (v.unit("test_rifle", "soviet", N),)) is True
    assert v.q("dd_drm", d, False, True) == -1


def test_hitler_forces_dd_in_a_major_city_from_turn_18():
    s = Scene(f"  terrain major_city: {T}", turn=18, dice=[6])
    s.unit("test_infantry", "axis", T)
    assert s.f("dd_forced", T) is True
    early = Scene(f"  terrain major_city: {T}", turn=17)
    early.unit("test_infantry", "axis", T)
    assert early.f("dd_forced", T) is False


def test_dd_modifiers_tq_and_german_units_in_cities_count_as_elite():
    s = Scene(f"  terrain minor_city: {T}")
    g = s.unit("test_infantry", "axis", T)
    r = s.unit("test_romanian", "axis", "0909")
    e = s.unit("test_guards_rifle", "soviet", "0303")
    assert s.q("dd_drm", g, False, False) == 1  # German in a City: Elite
    assert s.q("dd_drm", r, True, False) == 0  # Low -1, support +1
    assert s.q("dd_drm", e, False, False) == 1  # Guards are Elite


# ================================================================ recovery (§13.4, §13.5)
def test_recovery_outside_an_ezoc_and_the_rally_table_inside_one():
    s = Scene(active="soviet", dice=[4, 5])
    free = s.unit("test_rifle", "soviet", "0303", "full_retreat")
    near1 = s.unit("test_rifle", "soviet", "0606", "disrupted")
    near2 = s.unit("test_guards_rifle", "soviet", "0606", "disrupted")
    s.unit("test_infantry", "axis", N)
    s.run("recovery", ent(s, "soviet"))
    assert s.markers(free) == {"disrupted"}  # one level: Full Retreat -> Disrupted
    assert "disrupted" in s.markers(near1)  # roll 4: stays
    assert "disrupted" not in s.markers(near2)  # roll 5 (+1 Elite): recovers
    assert s.state.rng.used == 2


def test_rally_table_clamps_the_modified_roll():
    s = Scene()
    t = s.engine.tables["rally_table"]
    assert str(t.lookup([0], None)) == "rally_none" and str(t.lookup([7], None)) == "rally_recover"


# ================================================================ supply (§16)
def test_out_of_supply_penalties_halve_the_attack_and_cap_the_advance():
    s = Scene()
    u = s.unit("test_infantry", "axis", N, "out_of_supply")
    s.unit("test_rifle", "soviet", T)
    assert s.q("attack_strength", u, T) == 3 and s.f("advance_rate", u) == 2
    assert s.q("defense_strength", u, ()) == 7  # full defence


def test_supply_markers_are_removed_when_a_line_can_be_traced_again():
    src = '  feature supply_source: 0101-0112\n  location 0101-0112 { side: "axis" }'
    s = Scene(src)
    u = s.unit("test_infantry", "axis", "0404", "out_of_supply", "isolated")
    s.run("supply_phase", ent(s, "axis"))
    assert "out_of_supply" not in s.markers(u) and "isolated" not in s.markers(u)


def test_an_enemy_controlled_city_blocks_the_road_part():
    body = ('  feature supply_source: 1201-1212\n  location 1201-1212 { side: "soviet" }\n'
            "  path road: 0106 0206 0306 0406 0506 0606 0706 0806 0906 1006 1106 1206\n  terrain minor_city: 0906")
    s = Scene(body)
    soviet = ent(s, "soviet")
    assert s.f("supplied_hex", "0106", soviet) is True
    s.mark_hex("0906", "control_axis")
    assert s.f("supplied_hex", "0106", soviet) is False


# ================================================================ weather (§23)
def test_the_weather_table_columns_and_the_drm_after_rain_or_snow():
    s = Scene(turn=30, dice=[2])
    s.run("roll_weather")
    assert s.var("weather") == "snow"
    s.dice(2)  # 2 + 1 after Snow = 3: Overcast-W
    s.run("roll_weather")
    assert s.var("weather") == "overcast_w"
    early = Scene(turn=17, dice=[1])
    early.run("roll_weather")
    assert early.var("weather") == "overcast"  # the September column (provisional band)


def test_the_first_rain_turns_seasonal_swamps_into_swamps():
    s = Scene(f"  terrain seasonal_swamp: {T}", turn=20, dice=[1])
    u = s.unit("test_infantry", "axis", N)
    assert s.q("move_cost", u, N, T) == 1 and not s.f("is_swamp", T)
    s.run("roll_weather")
    assert s.var("weather") == "rain" and s.f("is_swamp", T) and s.q("move_cost", u, N, T) == 3


def test_axis_air_units_by_weather_and_turn():
    s = Scene(turn=10)
    assert s.f("german_air_available") == 2
    s.set("weather", "overcast")
    assert s.f("german_air_available") == 1
    s.set("weather", "snow")
    assert s.f("german_air_available") == 0
    late = Scene(turn=27)
    assert late.f("german_air_available") == 1


# ================================================================ victory (§24)
def test_vp_count_supplied_axis_objectives_and_deductions():
    body = ('  feature supply_source: 0101-0112\n  location 0101-0112 { side: "axis" }\n'
            "  feature objective: 0505 0402 0909\n  location 0505 { vp: 3 }\n  location 0402 { vp: 2 }\n  location 0909 { vp: 5 }\n"
            "  terrain town: 0303\n  location 0303 { west_of_start_line: true }")
    s = Scene(body)
    s.unit("test_infantry", "axis", "0505")  # control by entering
    s.unit("test_infantry", "axis", "0402")
    s.unit("test_infantry", "axis", "0909")  # too far from a source: no LOS, no VP (§24.1.1)
    s.unit("test_rifle", "soviet", "0303")
    s.run("compute_vp")
    assert s.var("vp") == 3 + 2 - 1


def test_elbrus_counts_for_automatic_victory_only():
    s = Scene()
    s.set("elbrus_reached", True)
    assert s.f("automatic_winner", 13 + 1, 8).name == "axis"


# ================================================================ fortifications (§9.7)
def test_building_completing_and_losing_a_fortification():
    src = '  feature supply_source: 0101-0112\n  location 0101-0112 { side: "axis" }'
    s = Scene(src, phase="initial")
    s.state.set_side_var("axis", "rp", 1)
    u = s.unit("test_infantry", "axis", "0404")
    s.act("build_fortification", h="0404")
    assert "fortification_building" in s.state.loc_markers["0404"] and s.state.side_vars["axis"]["rp"] == 0
    assert not s.f("may_attack", u)  # no attack from a hex under construction (§9.7.2)
    s.run("complete_fortifications", ent(s, "axis"))
    assert "fortification_built" in s.state.loc_markers["0404"]
    s.engine.move_unit(s.ctx, u, "0303", None)
    s.enters("test_rifle", "soviet", "0404")  # an enemy enters: removed (§9.7.5)
    assert "fortification_built" not in s.state.loc_markers["0404"]


def test_units_stacked_with_the_attackers_may_advance_too():
    s = Scene(active="axis", decline=True)
    s.unit("test_rifle", "soviet", T, steps=1)
    a = s.unit("test_infantry", "axis", N)
    mate = s.unit("test_infantry", "axis", N)  # stacked with the attacker, did not attack (§14.1)
    s.agent.script = {"group": [[]], "to": [T, T]}
    carry_out(s, ["DS", "Adv2"], [a], T)
    assert s.loc(a) == T and s.loc(mate) == T


def test_full_retreat_units_left_alone_after_losses_withdraw():
    s = Scene(active="axis", decline=True)
    good = s.unit("test_rifle", "soviet", T, steps=1)
    fr = s.unit("test_rifle", "soviet", T, "full_retreat")
    a = s.unit("test_infantry", "axis", N)
    s.agent.script = {"v": [good, a]}
    carry_out(s, ["EX"], [a], T)  # the Good Order unit dies; the Full Retreat unit is left alone
    assert s.loc(good) is None and s.loc(fr) != T and s.engine.board.distance(s.loc(fr), T) == 2


BOXES = ('  box EA_A "A" { entry_area: "A" } adjacent_to: 0101-0106\n  box EA_B "B" { entry_area: "B" } adjacent_to: 0107-0112\n'
         '  box EA_G "G" { entry_area: "G" } adjacent_to: 1201-1206\n  box EA_F "F" { entry_area: "F" }\n'
         '  terrain entry_area: EA_A EA_B EA_G EA_F')


def test_moving_between_entry_areas():
    s = Scene(BOXES, active="soviet", phase="movement", turn=5)
    r = s.unit("test_rifle", "soviet", "EA_A")
    assert sorted(s.f("ea_destinations", r)) == ["EA_B", "EA_F"]  # north of the Caspian, or the transit box
    g = s.unit("test_rifle", "soviet", "EA_G")
    assert s.f("ea_destinations", g) == ("EA_F",)
    s.unit("test_rifle", "soviet", "EA_F")
    s.unit("test_rifle", "soviet", "EA_F")
    assert s.f("ea_destinations", g) == ()  # at most 2 combat units in F
    s.act("shift_entry_area", u=r, to="EA_B")
    assert s.loc(r) == "EA_B" and not s.f("may_move", r)
    s.state.phase = "combat"
    assert not s.f("may_attack", r)  # no attack onto the map until the next game turn
