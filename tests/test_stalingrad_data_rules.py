"""Stalingrad '42 data-side rules on constructed map fragments (test_stalingrad_support): rail
repair (§17), Resource Points and Supply Points (§18), non-combat units (§19), special units
(§20), replacements (§21), advanced rules (§25-29) and the campaign rules (§30-34)."""

from __future__ import annotations

from dataclasses import replace

from test_stalingrad_support import Scene, ring

T = "0606"
N, NE, SE, S, SW, NW = ring(T)
GREEN = "  path rail: 0106 0206 0306 0406 0506 0606 0706 0806\n  path green_rail: 0306 0406 0506 0606 0706 0806\n"


def fire(s: Scene, event: str, *args) -> None:
    s.engine.fire(s.ctx, event, tuple(args))


def hex_markers(s: Scene, h: str) -> set:
    return set(s.state.loc_markers.get(h, ()))


def set_var(s: Scene, u, name, value) -> None:
    s.state.put(s.state.units[u.id].with_var(name, value))


# ---------------------------------------------------------------- §17 rail repair
def test_railheads_advance_two_hexes_along_green_rail_and_repair_them():
    s = Scene(GREEN + '  location 0106..0206 { west_of_start_line: true }\n  box EA_X "X" { entry_area: "X" } adjacent_to: 0106\n  terrain entry_area: EA_X\n  path rail: EA_X 0106\n',
              turn=2, active="axis", phase="supply")
    s.run("place_railhead", "0306")
    s.state.set_loc_var("0306", "railhead_placed", 1)
    s.run("advance_railheads")
    assert "railhead" in hex_markers(s, "0506") and "railhead" not in hex_markers(s, "0306")
    assert s.f("axis_repaired", "0406") and s.f("axis_repaired", "0506") and not s.f("axis_repaired", "0606")
    assert s.f("rail_open", "0406", "0506", s.engine.entities["axis"])
    assert not s.f("rail_open", "0506", "0606", s.engine.entities["axis"])
    assert s.f("rail_open", "0506", "0606", s.engine.entities["soviet"])  # the Soviets need no repair


def test_a_railhead_may_not_enter_an_enemy_zoc_and_is_pushed_back():
    s = Scene(GREEN + '  location 0106..0206 { west_of_start_line: true }\n  box EA_X "X" { entry_area: "X" } adjacent_to: 0106\n  terrain entry_area: EA_X\n  path rail: EA_X 0106\n',
              turn=2, active="soviet", phase="movement")
    for h in ("0306", "0406", "0506"):
        s.run("place_railhead", h)
        s.engine.set_marker(s.ctx, h, "railhead", False, None)
    s.engine.set_marker(s.ctx, "0506", "railhead", True, None)
    # a Soviet unit moves next to the Railhead: it goes back west until clear of the ZOC
    u = s.unit("rifle_division", "soviet", "0706")
    s.engine.move_unit(s.ctx, u, "0606", None)
    assert "railhead" in hex_markers(s, "0406") or "railhead" in hex_markers(s, "0306")
    assert "railhead" not in hex_markers(s, "0506")
    assert s.f("axis_repaired", "0506")  # Soviet units never destroy track (§17.3)


def test_non_green_lines_are_repaired_when_both_ends_are():
    body = ("  path rail: 0306 0406 0506 0606\n  location 0406-0506 { rail_end_a: \"0306\" rail_end_b: \"0606\" }\n")
    s = Scene(body)
    assert not s.f("axis_repaired", "0406")
    s.run("place_railhead", "0306")
    assert not s.f("axis_repaired", "0406")
    s.run("place_railhead", "0606")
    assert s.f("axis_repaired", "0406") and s.f("axis_repaired", "0506")


def test_unfinished_railroads_open_on_their_turn():
    body = '  path unfinished_rail: 0306 0406 0506\n  location 0406 { unfinished_line: "ilovlya_saratov" }\n'
    s = Scene(body, turn=11)
    assert not s.f("rail_side", "0306", "0406")
    s.state.position.turn = 12
    s.state.touch()
    assert s.f("rail_side", "0306", "0406") and s.f("rail_side", "0406", "0506")


# ---------------------------------------------------------------- §18 resources
def test_two_resource_points_each_initial_phase_lost_if_unused():
    s = Scene(active="soviet", phase="initial")
    fire(s, "phase_start", "initial")
    assert s.state.side_vars["soviet"]["rp"] == 2
    fire(s, "phase_end", "initial")
    assert s.state.side_vars["soviet"]["rp"] == 0
    s.state.scenario = "caucasus"
    s.state.position.turn = 10
    assert s.q("rp_per_turn", s.engine.entities["axis"]) == 0  # S2: no Axis RP on the first turn
    assert s.q("rp_per_turn", s.engine.entities["soviet"]) == 1


def test_a_supply_point_beyond_the_mobile_limit_is_immobile():
    s = Scene('  box EA_A "A" { entry_area: "A" } adjacent_to: 1201-1212\n  terrain entry_area: EA_A\n', active="soviet", phase="initial")
    for h in ("0303", "0304", "0305", "0306"):
        s.unit("soviet_supply_point", "soviet", h)
    s.state.set_side_var("soviet", "rp", 1)
    kinds = {c["kind"] for c in s.legal("rp_place_sp")}
    assert kinds == {"immobile"}  # four mobile Soviet SPs already (§18.6.8)


def test_an_asu_moving_more_than_two_hexes_is_disrupted():
    s = Scene(active="axis", phase="movement")
    hq = s.unit("army_hq", "axis", "0101")
    fire(s, "phase_start", "movement")
    for h in ("0102", "0103", "0104"):
        s.engine.move_unit(s.ctx, hq, h, None)
    fire(s, "phase_end", "movement")
    assert "disrupted" in s.markers(hq)


def test_a_massed_barrage_gives_two_shifts_and_removes_the_artillery():
    s = Scene(active="soviet", phase="combat")
    art = s.unit("artillery_div", "soviet", "0303")
    front = s.unit("front_hq_unit", "soviet", "0303")
    s.act("declare_massed_barrage", art=art, partner=front)
    assert s.f("arty_shift", art) == 2
    s.run("spend_asu", art)
    assert s.box(art) == "permanently_removed" and "used" in s.markers(front)


# ---------------------------------------------------------------- §20 special units
def test_a_garrison_stays_until_an_enemy_comes_within_five_hexes():
    s = Scene(active="soviet", phase="movement")
    g = s.unit("nkvd_garrison", "soviet", "0101")
    assert not s.f("may_move", g)
    a = s.unit("infantry_division", "axis", "0606")
    s.engine.move_unit(s.ctx, a, "0505", None)  # moves to 6 hexes away
    assert not s.f("may_move", g)
    s.engine.move_unit(s.ctx, a, "0404", None)  # moves within 5
    assert s.f("may_move", g)


def test_the_north_caucasus_front_waits_for_the_don_crossing():
    s = Scene('  location 0909..1212 { south_of_don: true }\n', active="axis", phase="movement")
    s.state.scenario = "campaign"
    nc = s.unit("rifle_division", "soviet", "1111")
    set_var(s, nc, "nc_frozen", True)
    assert not s.f("may_move", nc)
    s.enters("infantry_division", "axis", "0909")  # an Axis combat unit crosses the lower Don
    assert s.state.vars["north_caucasus_released"] is True and s.f("may_move", nc)


def test_linden_doubles_against_cities():
    s = Scene(f"  terrain major_city: {T}\n")
    linden = s.unit("linden_engineers", "axis", N)
    s.unit("rifle_division", "soviet", T)
    assert s.q("attack_strength", linden, T) == 6


# ---------------------------------------------------------------- §21 replacements
def test_replacement_types():
    s = Scene()
    inf = s.unit("infantry_division", "axis", "0101", steps=2)
    nkvd = s.unit("nkvd_division", "soviet", "0102", steps=1)
    rom = s.unit("romanian_infantry_division", "axis", "0103", steps=1)
    cav = s.unit("cavalry_corps", "soviet", "0104", steps=1)
    assert s.f("fits", "infantry", inf) and s.f("fits", "special", inf) and not s.f("fits", "armor", inf)
    assert not s.f("fits", "infantry", nkvd) and s.f("fits", "special", nkvd)
    assert s.f("fits", "allied", rom) and not s.f("fits", "infantry", rom)
    assert s.f("fits", "cavalry", cav) and not s.f("fits", "special", cav)


def test_a_replacement_restores_a_step_and_marks_the_unit():
    s = Scene('  box EA_X "X" { entry_area: "X" side: "axis" supply_source } adjacent_to: 0101-0112\n  terrain entry_area: EA_X\n',
              active="axis", phase="initial")
    u = s.unit("infantry_division", "axis", "0103", steps=2)
    s.state.set_side_var("axis", "repl_infantry", 1)
    s.act("use_replacement", kind="infantry", u=u, h="0103")
    assert s.steps(u) == 3 and "replacement" in s.markers(u)
    assert s.f("one_hex_only", u) and [m.name for m in s.f("movement_modes", u)] == ["one_hex"]
    fire(s, "phase_start", "recovery")
    assert "replacement" not in s.markers(u)


def test_eliminated_units_wait_a_full_turn_and_garrisons_never_return():
    s = Scene(turn=5, active="axis", phase="initial")
    u = s.unit("infantry_division", "axis", "0103")
    g = s.unit("fortified_region", "soviet", "0909")
    s.engine.eliminate(s.ctx, u, None)
    s.engine.eliminate(s.ctx, g, None)
    axis, soviet = s.engine.entities["axis"], s.engine.entities["soviet"]
    assert u not in s.f("box_candidates", axis, "infantry")
    s.state.position.turn = 7
    s.state.touch()
    assert u in s.f("box_candidates", axis, "infantry")
    assert g not in s.f("box_candidates", soviet, "infantry")


# ---------------------------------------------------------------- §25-27
def test_a_planned_offensive_rolls_two_dice_and_keeps_the_better():
    s = Scene(active="axis", phase="combat", dice=[2, 5])
    s.state.options["planned_offensive"] = True
    hq = s.unit("army_hq", "axis", "0404")
    set_var(s, hq, "po_ready", 1)
    s.unit("infantry_division", "axis", N)
    s.unit("rifle_division", "soviet", T)
    s.act("commit_planned_offensive", hq=hq, target=T, n=1)
    assert s.f("crt_roll", (), T) == 5
    assert s.state.units[hq.id].var("po_ready") == 0


def test_reserve_markers_stop_movement_until_activated():
    s = Scene(active="axis", phase="movement")
    s.state.options["reserves"] = True
    u = s.unit("infantry_division", "axis", "0303")
    fire(s, "phase_start", "movement")
    s.act("designate_reserve", u=u)
    assert not s.f("may_move", u)
    s.state.phase = "combat"
    s.act("activate_reserve", h="0303", to="0305")
    assert s.loc(u) == "0305" and "reserve" not in s.markers(u)


# ---------------------------------------------------------------- §31-33 campaign
def test_wiking_becomes_a_four_step_unit_on_turn_13():
    s = Scene(turn=13, active="axis", phase="initial")
    full = s.unit("wiking", "axis", "0303")
    s.run("upgrade_wiking")
    new = [u for u in s.state.units.values() if u.type == "wiking_4"]
    assert s.box(full) == "upgraded" and len(new) == 1 and new[0].steps == 4 and new[0].loc == "0303"
    assert (s.engine.entities["wiking_4"].props["attack"], s.engine.entities["wiking_4"].props["defense"]) == (8, 10)


def test_a_reduced_wiking_gains_one_step():
    s = Scene(turn=13, active="axis", phase="initial")
    s.unit("wiking", "axis", "0303", steps=2)
    s.run("upgrade_wiking")
    new = [u for u in s.state.units.values() if u.type == "wiking_4"]
    assert new[0].steps == 3


def test_michalik_becomes_the_27th_panzer():
    s = Scene(turn=20, active="axis", phase="initial")
    m = s.unit("kg_michalik", "axis", "0505")
    s.run("upgrade_michalik")
    new = [u for u in s.state.units.values() if u.type == "panzer_27"]
    assert s.box(m) == "upgraded" and new and new[0].loc == "0505" and new[0].steps == 2


def test_the_winter_offensive_puts_the_soviets_first_from_the_next_turn():
    s = Scene(turn=25, active="soviet", phase="initial")
    s.state.scenario = "campaign"
    s.state.turn_order = ("axis", "soviet")
    s.unit("front_hq_unit", "soviet", "0909")
    s.act("declare_winter_offensive")
    assert s.state.turn_order == ("soviet", "axis")
    assert s.state.vars["interim_turn_pending"] is True and s.state.vars["winter_offensive"] is True
    assert any(u.type == "soviet_supply_point" for u in s.state.units.values())


def test_frozen_reserve_armies_are_released_one_a_turn():
    s = Scene(turn=2, active="soviet", phase="initial")
    s.state.scenario = "campaign"
    a = s.unit("rifle_division", "soviet", "0303")
    b = s.unit("rifle_division", "soviet", "0909")
    set_var(s, a, "frozen_army", 5)
    set_var(s, b, "frozen_army", 8)
    assert not s.f("may_move", a)
    fire(s, "phase_start", "initial")
    assert s.f("may_move", a) and not s.f("may_move", b)  # the 8th waits for Turn 15
    s.state.position.turn = 15
    fire(s, "phase_start", "initial")
    assert s.f("may_move", b)


def test_the_transcaucasus_front_arrives_once_the_axis_is_south_of_row_40():
    s = Scene('  box EA_H "H" { entry_area: "H" } adjacent_to: 1201\n  terrain entry_area: EA_H\n', active="axis", phase="movement")
    s.state.scenario = "campaign"
    s.run("fill_transcaucasus_box")
    pool = [u for u in s.state.units.values() if u.box == "transcaucasus"]
    assert len(pool) == 8 and all(u.side == "soviet" and u.loc is None for u in pool)
    s.unit("infantry_division", "axis", "0505")
    assert not s.state.vars.get("transcaucasus_released")  # rows 1-12 only: nobody south of xx40
    s.state.set_var("transcaucasus_released", True)
    s.state.active = "soviet"
    fire(s, "phase_start", "initial")
    assert len([u for u in s.state.units.values() if u.box == "transcaucasus"]) == 7
    assert any(u.loc == "EA_H" for u in s.state.units.values())
