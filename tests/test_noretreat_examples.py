"""The worked examples of the No Retreat! digest (shared/rules/no-retreat.md, "Worked examples"):
A1-A13, the examples and explicit cases of the summary, and B1-B15, the derived rule checks, run
with the REAL game rules (games/no-retreat) on map fragments or the game's own map. Rolls come
from fixed dice and players' choices from a script; each test asserts the outcome the digest
gives. The numbers of the B checks are the digest's hypothetical inputs, not game data."""

from __future__ import annotations

import pytest
from test_noretreat_support import Scene

from warcodex.interpreter.values import RuleError, UnitRef


def ring(s: Scene, h: str) -> list[str]:
    """The six neighbours of a hex, in the board's direction order (N, NE, SE, S, SW, NW)."""
    return list(s.engine.board.neighbors(h))


# ================================================================ A1: Quick reorganisation
def _reorganisation(quick: bool, card: str):
    s = Scene(turn=3, active="soviet", phase="reorganisation", options={"quick_reorganisation": quick})
    a = s.unit("soviet_front", "soviet", "0804", "disorganized")
    b = s.unit("soviet_front", "soviet", "0806", "disorganized")
    s.hand("soviet", card)
    s.agent.script = {"v": [b]}
    s.act("reorganize", u=a, c=card)
    return s, a, b


def test_a1_quick_reorganisation_two_markers_for_a_card_with_the_initiative_symbol():
    # Rasputitsa (card 35): the Soviet event carries the German cross, the current initiative's
    s, a, b = _reorganisation(True, "c35")
    assert not s.marked(a, "disorganized") and not s.marked(b, "disorganized")
    assert s.state.hands["soviet"] == [] and s.state.decks["events"]["discard"][-1] == "c35"


def test_a1_without_the_symbol_or_the_option_one_marker_per_card():
    s, a, b = _reorganisation(True, "c01")  # Stavka: no initiative mark
    assert not s.marked(a, "disorganized") and s.marked(b, "disorganized")
    s, a, b = _reorganisation(False, "c35")
    assert not s.marked(a, "disorganized") and s.marked(b, "disorganized")


# ================================================================ A2: -1 card draw
def test_a2_axis_holding_moscow_costs_the_soviets_a_card():
    s = Scene(real_map=True, turn=5, active="soviet", phase="draw_step")
    assert s.f("draw_count", "soviet") == 4
    s.own("axis", s.f("moscow"))
    assert s.f("draw_count", "soviet") == 3
    s.own("axis", *s.f("caucasus_oilfields"))  # "and/or": still -1
    assert s.f("draw_count", "soviet") == 3


# ================================================================ A3: supply path length
def test_a3_four_hexes_from_the_map_edge_is_in_supply_five_is_not():
    s = Scene(active="soviet", phase="supply")
    near = s.unit("soviet_front", "soviet", "0804")  # 4 hexes from the Soviet edge (column 12)
    far = s.unit("soviet_front", "soviet", "0702")  # 5 hexes, and not next to `near`
    assert s.engine.board.distance("0804", "1204") == 4 and min(s.engine.board.distance("0702", f"12{r:02d}") for r in range(1, 9)) == 5
    s.run("check_supply", "soviet")
    assert not s.marked(near, "out_of_supply") and s.marked(far, "out_of_supply")


def test_a3_a_lake_on_the_path_does_not_block():
    s = Scene("  terrain lake: 0901-0908 1001-1008", active="soviet", phase="supply")
    near = s.unit("soviet_front", "soviet", "0804")
    s.run("check_supply", "soviet")
    assert not s.marked(near, "out_of_supply")


def test_a3_an_adjacent_supplied_unit_supplies_but_does_not_chain():
    s = Scene(active="soviet", phase="supply")
    s.unit("soviet_front", "soviet", "0804")
    next_to = s.unit("soviet_front", "soviet", "0704")
    beyond = s.unit("soviet_front", "soviet", "0604")
    s.run("check_supply", "soviet")
    assert not s.marked(next_to, "out_of_supply") and s.marked(beyond, "out_of_supply")


# ================================================================ A4: Long Winter
def test_a4_snow_two_turns_running_is_long_winter_with_its_effects():
    s = Scene(turn=3, phase="game_event")
    s.run("weather_phase")  # turn 3: mud on the provisional track
    s.state.position.turn = 4
    s.run("weather_phase")
    assert s.state.vars["weather"] is s.ent("w_snow") and not s.state.vars["long_winter"]
    s.state.position.turn = 5
    s.run("weather_phase")
    assert s.state.vars["long_winter"]  # the second snow turn
    assert s.f("target_limit", "axis") == 3  # the Axis may use only 3 target markers
    tank = s.unit("panzer_army", "axis", "0404")
    assert s.f("movement_allowance", tank) == 4
    assert s.f("advance_limit", tank) == 1
    target = "0504"
    s.unit("soviet_front", "soviet", target)
    assert not s.f("armour_bonus", [tank], s.at(target), target)


# ================================================================ A5: the turn-12 initiative change
def test_a5_initiative_change_in_order():
    s = Scene(real_map=True, turn=12, initiative="axis", phase="victory")
    s.own("axis", s.f("moscow"), s.f("leningrad"))
    s.set("event_vp", 3)
    german_vp = s.vp()
    assert german_vp == 5
    s.run("initiative_change")
    assert s.state.vars["high_tide"] == german_vp
    assert s.state.vars["event_vp"] == 0
    assert s.state.vars["initiative"] is s.ent("soviet")
    assert s.vp() == s.f("hex_vp", "soviet")
    assert not s.state.over  # the Soviet total is not above the track's number
    # star events are playable from now on, cross events are not
    assert s.f("initiative_allows", "c21", "soviet") and not s.f("initiative_allows", "c21", "axis")


# ================================================================ A6: Volkssturm with a fortified unit
def test_a6_volkssturm_dr_becomes_no_effect_and_the_volkssturm_leaves():
    s = Scene(turn=23, phase="battles", active="soviet", initiative="soviet", dice=[4])
    target = "0404"
    vs = s.unit("volkssturm", "axis", target)
    fort = s.unit("berlin_fortress", "axis", target)  # strengths 1 + 3 against 4 + 4: 2:1, a 4 is DR
    att = s.unit("soviet_front", "soviet", "0504")
    att2 = s.unit("soviet_front", "soviet", "0503")
    s.set("b_target", target)
    s.state.vars["b_defenders"] = (vs, fort)
    s.state.vars["b_attacker"] = s.ent("soviet")
    assert s.f("converted", s.ent("DR")) is None
    s.agent.script = {"m": [0]}
    s.state.vars["soviet_crt_forced"] = None
    s.run("battle", "soviet", (att, att2), target, (vs, fort), False, False)
    assert s.state.vars["b_result"] is s.ent("DR")
    assert s.u(vs).box == "removed" and s.u(fort).loc == target and s.u(fort).steps == 2
    assert s.u(att).loc == "0504" and s.u(att2).loc == "0503"  # no advance: the hex is not empty


# ================================================================ A7: cadre placement
def test_a7_a_kampfgruppe_replaces_a_unit_lost_to_an_ex_step_loss():
    s = Scene(turn=6, phase="battles")
    kg = s.unit("kampfgruppe", "axis", None, box="cadre")
    u = s.unit("hungarian_army", "axis", "0404")
    s.agent.script = {"c": [kg]}
    s.run("lose_step", u, "step_loss")
    assert s.u(u).box == "eliminated" and s.u(kg).loc == "0404"


def test_a7_no_cadre_after_a_failed_retreat_or_a_capture():
    s = Scene(turn=6, phase="battles")
    kg = s.unit("kampfgruppe", "axis", None, box="cadre")
    u = s.unit("hungarian_army", "axis", "0404")
    s.run("remove_unit", u, "no_retreat")
    v = s.unit("hungarian_army", "axis", "0405", "out_of_supply")
    s.run("lose_step", v, "step_loss")
    assert s.u(v).box == "captured" and s.u(kg).box == "cadre"


# ================================================================ A8: cadre recycling
def test_a8_a_shattered_cadre_goes_to_the_first_free_track_box():
    s = Scene(turn=9, phase="battles")
    waiting = s.unit("kampfgruppe", "axis", None, box="track")
    s.state.put(s.u(waiting).with_var("track_turn", 10))
    kg = s.unit("kampfgruppe", "axis", "0404")
    s.run("shatter", kg)
    assert s.u(kg).box == "track" and s.u(kg).var("track_turn") == 11
    s.state.position.turn = 11
    s.run("track_arrivals", "axis")
    assert s.u(kg).box == "cadre"  # it re-enters on that turn, into the Available Cadre box


# ================================================================ A9: Yugoslav overstack
def test_a9_a_yugoslav_army_with_no_legal_balkan_hex_is_removed_at_once():
    base = ('  location 0101..0208 { country: "w_balkans" }\n  location 0301..1208 { country: "ussr" }\n'
            '  location 1201-1208 { map_edge: "soviet" }\n')
    s = Scene(base=base, turn=20, phase="game_event")
    for h in [f"{c:02d}{r:02d}" for c in (1, 2) for r in range(1, 9)]:
        s.unit("german_army", "axis", h)  # the Axis leaves no Balkan hex free
    before = len(s.state.units)
    s.run("arrive", "yugoslav_army", "soviet", "1st Yugoslav Army", "yugoslavia")
    assert len(s.state.units) == before


# ================================================================ A10: reshuffle on one card left
def test_a10_nobody_draws_the_last_card_it_is_reshuffled():
    s = Scene(real_map=True, turn=2, active="soviet", phase="draw_step", dice=[])
    piles = s.state.decks["events"]
    cards = piles["draw"] + piles["discard"]
    piles["draw"], piles["discard"] = cards[:5], cards[5:]
    s.state.hands = {"soviet": [], "axis": []}
    s.engine.draw_cards(s.ctx, s.ent("soviet"), "events", 4, None)
    assert len(s.state.hands["soviet"]) == 4
    assert piles["discard"] == [] and len(piles["draw"]) == len(cards) - 4


# ================================================================ A11: the same card twice
def test_a11_okh_takes_back_a_played_card_which_may_not_be_played_again():
    s = Scene(real_map=True, turn=3, active="axis", phase="draw_step", initiative="axis")
    s.hand("axis", "c21", "c42")
    s.state.hands["soviet"] = []
    s.act("play_event", c="c42")  # Evacuation of industry (a random Soviet discard: none to make)
    s.agent.script = {"x": ["c42"]}
    s.act("play_event", c="c21")  # OKH: take a card from the played pile
    assert s.state.hands["axis"] == ["c42"]
    assert all(a.arg("c").name != "c42" for a in s.legal("play_event"))
    with pytest.raises(RuleError, match="not an eligible c"):
        s.act("play_event", c="c42")


# ================================================================ A12: turn 15, the 8th Italian Army
def _turn15(oos: bool):
    s = Scene(turn=15, phase="game_event")
    it = s.unit("italian_army", "axis", "0404", label="8th Italian Army")
    if oos:
        s.engine.set_marker(s.ctx, it, "out_of_supply", True, None)
    s.hand("axis", "c14", "c15")
    s.agent.script = {"c": ["c14"]}
    s.run("game_event")
    return s, it


def test_a12_a_supplied_8th_italian_army_is_removed_without_penalty():
    s, it = _turn15(False)
    assert s.u(it).box == "removed" and s.state.hands["axis"] == ["c14", "c15"]


def test_a12_out_of_supply_or_gone_the_german_player_discards_a_card():
    s, it = _turn15(True)
    assert s.u(it).box == "removed" and s.state.hands["axis"] == ["c15"]


def test_a12_turns_16_and_18_cost_a_card_draw_instead():
    s = Scene(real_map=True, turn=16, phase="game_event")
    s.run("game_event")  # the 2nd Panzer Army was never on the map: "removed earlier"
    assert s.state.side_vars["axis"]["draw_penalty"] == 1
    assert s.f("draw_count", "axis") == 3


# ================================================================ A13: rail on turns 1-2
def test_a13_no_german_rail_on_turn_1():
    s = Scene(turn=1, phase="movement", active="axis")
    s.unit("german_army", "axis", "0303")
    assert s.legal("rail_load") == [] and s.legal("rail_load_paid") == []


def test_a13_the_soviets_rail_one_unit_free_on_turn_2_but_pay_for_none():
    s = Scene(turn=2, phase="movement", active="soviet")
    a = s.unit("soviet_front", "soviet", "1004")
    s.unit("soviet_front", "soviet", "1006")
    s.hand("soviet", "c01", "c02")
    assert {x.arg("u") for x in s.legal("rail_load")} == set(s.at("1004") + s.at("1006"))
    s.act("rail_load", u=a)
    assert s.u(a).box == "rail"
    assert s.legal("rail_load") == [] and s.legal("rail_load_paid") == []


# ================================================================ B1-B2: movement allowance
def test_b1_weather_caps_movement():
    s = Scene(weather="w_mud")
    tank = s.unit("panzer_army", "axis", "0303")
    inf = s.unit("soviet_front", "soviet", "0808")
    assert s.f("movement_allowance", tank) == 3
    s.set("weather", "w_snow")
    assert s.f("movement_allowance", tank) == 4 and s.f("movement_allowance", inf) == 3


def test_b2_out_of_supply_moves_3_and_cannot_rail():
    s = Scene(turn=5, phase="movement")
    tank = s.unit("panzer_army", "axis", "0303", "out_of_supply")
    assert s.f("movement_allowance", tank) == 3 and not s.f("may_rail", tank)


# ================================================================ B3: the costs of returns
def test_b3_turn_7_soviet_returns_cost_five_cards_and_come_back_disorganised():
    body = '  location 1004 "Kursk" { city }\n  location 1006 "Orel" { city }\n  location 1107 "Tula" { city }\n'
    s = Scene(body + "  feature city: 1004 1006 1107\n", turn=7, active="soviet", phase="deployment")
    inf = s.unit("soviet_front", "soviet", None, box="eliminated", steps=0)
    shock = s.unit("shock_army", "soviet", None, box="eliminated", steps=0)
    cap = s.unit("soviet_front_33", "soviet", None, box="captured", steps=1)
    s.hand("soviet", "c01", "c02", "c03", "c04", "c05", "c06")
    assert [s.f("return_cost", u) for u in (inf, shock, cap)] == [1, 2, 2]
    for u, h in ((inf, "1004"), (shock, "1006"), (cap, "1107")):
        s.act("return_unit", u=u, h=h)
    assert len(s.state.hands["soviet"]) == 1  # 6 - (1 + 2 + 2)
    assert all(s.marked(u, "disorganized") for u in (inf, shock, cap))


# ================================================================ B4-B5: German returns
def test_b4_no_german_return_for_cards_on_turn_4_but_troop_transfer_is_free():
    body = '  feature city: 0303\n'
    s = Scene(body, turn=4, active="axis", phase="deployment", initiative="axis")
    u = s.unit("german_army", "axis", None, box="eliminated", steps=0)
    s.hand("axis", "c03", "c05")
    assert s.legal("return_unit") == []
    s.agent.script = {"u": [u], "h": ["0303"]}
    s.act("play_event", c="c03")
    assert s.u(u).loc == "0303" and s.marked(u, "disorganized")
    assert s.state.hands["axis"] == ["c05"]


def test_b5_a_returned_german_two_step_unit_comes_back_reduced_and_disorganised():
    s = Scene(turn=6, active="axis", phase="deployment")
    pz = s.unit("panzer_army", "axis", None, box="eliminated", steps=0)
    s.hand("axis", "c05")
    s.act("return_unit", u=pz, h="0303")
    assert s.u(pz).steps == 1 and s.marked(pz, "disorganized") and s.state.hands["axis"] == []


# ================================================================ B6: the armour bonus
def test_b6_one_armour_shift_for_two_tanks_none_in_mud_or_against_mechanised_infantry():
    s = Scene(turn=2)
    target = "0504"
    t1, t2, inf = s.unit("panzer_army", "axis", "0404"), s.unit("panzer_army", "axis", "0403"), s.unit("german_army", "axis", "0405")
    d = s.unit("soviet_front", "soviet", target)
    s.set("b_attacker", "axis")
    att = (t1, t2, inf)
    assert s.f("armour_bonus", att, (d,), target)
    assert s.f("crt_shift", att, (d,), target) == 1  # one shift, not two
    s.set("weather", "w_mud")
    assert not s.f("armour_bonus", att, (d,), target)
    s.set("weather", "w_clear")
    mech = s.unit("soviet_mech_front", "soviet", "0605")
    assert not s.f("armour_bonus", att, (mech,), "0605")


# ================================================================ B7: results against a fortified unit
def test_b7_fortified_units_convert_dr_ds_and_keep_de_defenders_in_place():
    s = Scene(turn=8, active="axis", dice=[])
    target = "0504"
    fort = s.unit("soviet_regional", "soviet", target)  # on its fortified side (2 steps)
    att = s.unit("german_army", "axis", "0404")
    s.set("b_target", target)
    s.state.vars["b_defenders"] = (fort,)
    s.state.vars["b_attackers"] = (att,)
    s.set("b_attacker", "axis")
    assert s.f("converted", s.ent("DR")) is None
    assert s.f("converted", s.ent("DS")) is s.ent("EX")
    assert s.f("converted", s.ent("DE")) is s.ent("DE")
    s.run("destroyed_result")
    assert s.u(fort).loc == target and s.u(fort).steps == 1  # a step lost, no retreat


# ================================================================ B8-B9: the multi-hex advance
def _advance(body: str, turn: int, side: str, weather: str = "w_clear"):
    s = Scene(body, turn=turn, weather=weather, active=side, initiative="axis" if turn < 12 else "soviet")
    tank = s.unit("panzer_army" if side == "axis" else "soviet_tank_army", side, "0304")
    s.set("b_target", "0404")
    s.state.vars["b_attackers"] = (tank,)
    s.set("b_attacker", side)
    return s, tank


def test_b8_a_german_tank_advances_three_hexes_in_clear_weather():
    s, tank = _advance("", 5, "axis")
    assert s.f("advance_limit", tank) == 3
    s.agent.script = {"adv": [[tank]], "h": ["0504", "0604"]}
    s.run("attacker_advance")
    assert s.u(tank).loc == "0604"


def test_b8_forest_in_the_first_or_second_hex_stops_the_advance():
    s, tank = _advance("  terrain forest: 0404", 5, "axis")
    s.agent.script = {"adv": [[tank]], "h": ["0504"]}
    s.run("attacker_advance")
    assert s.u(tank).loc == "0404"
    s, tank = _advance("  terrain forest: 0504", 5, "axis")
    s.agent.script = {"adv": [[tank]], "h": ["0504", "0604"]}
    s.run("attacker_advance")
    assert s.u(tank).loc == "0504"


def test_b8_soviet_tanks_advance_two_hexes_before_turn_11_three_after():
    s, tank = _advance("", 10, "soviet")
    assert s.f("advance_limit", tank) == 2
    s, tank = _advance("", 11, "soviet")
    assert s.f("advance_limit", tank) == 3


def test_b9_in_mud_only_the_vacated_hex():
    s, tank = _advance("", 6, "axis", "w_mud")
    s.agent.script = {"adv": [[tank]]}
    s.run("attacker_advance")
    assert s.u(tank).loc == "0404" and s.f("advance_limit", tank) == 1


# ================================================================ B10: target markers
def test_b10_german_target_markers_by_period():
    assert Scene(turn=19).f("target_limit", "axis") == 5
    assert Scene(turn=20).f("target_limit", "axis") == 3
    assert Scene(turn=26).f("target_limit", "axis") == 1


# ================================================================ B11: counterblows
def test_b11_two_counterblows_cost_two_cards_or_one_russian_bravery():
    def scene():
        s = Scene(turn=4, weather="w_snow", active="axis", phase="counterblows", initiative="axis")
        s.unit("german_army", "axis", "0404")
        s.unit("german_army", "axis", "0406")
        a, b = "0504", "0506"
        s.unit("soviet_front", "soviet", a)
        s.unit("soviet_front", "soviet", b)
        return s, a, b

    s, a, b = scene()
    s.hand("soviet", "c01", "c02", "c03")
    s.agent.script = {"h": [a, b, None], "c": ["c01", "c02"]}
    s.run("declare_counterblows", "axis")
    assert s.state.hands["soviet"] == ["c03"]
    assert "counterblow" in s.state.loc_markers[a] and "counterblow" in s.state.loc_markers[b]
    assert set(s.f("open_targets", "axis")) == {a, b}  # the German player must attack both
    s, a, b = scene()
    s.hand("soviet", "c32", "c03")
    s.agent.script = {"c": ["c32"], "h": [a, b, None]}
    s.run("declare_counterblows", "axis")
    assert s.state.hands["soviet"] == ["c03"]
    assert set(s.f("open_targets", "axis")) == {a, b}


def test_b11_counterblow_defenders_lose_terrain_shifts_but_not_weather():
    s = Scene("  terrain forest: 0504", turn=4, weather="w_snow", active="axis")
    att = s.unit("german_army", "axis", "0404")
    d = s.unit("soviet_front", "soviet", "0504")
    s.set("b_attacker", "axis")
    assert s.f("crt_shift", (att,), (d,), "0504") == -2  # forest -1, snow -1
    s.set("b_counterblow", True)
    assert s.f("crt_shift", (att,), (d,), "0504") == -1  # snow only


# ================================================================ B12: the snow penalty
def test_b12_axis_snow_penalty_two_on_turn_5_one_on_turn_4_none_for_finns():
    for turn, shift in ((5, -2), (4, -1)):
        s = Scene(turn=turn, weather="w_snow")
        att = s.unit("german_army", "axis", "0404")
        d = s.unit("soviet_front", "soviet", "0504")
        s.set("b_attacker", "axis")
        assert s.f("crt_shift", (att,), (d,), "0504") == shift
    s = Scene(turn=5, weather="w_snow")
    fin = s.unit("finnish_army", "axis", "0404")
    d = s.unit("soviet_front", "soviet", "0504")
    s.set("b_attacker", "axis")
    assert s.f("crt_shift", (fin,), (d,), "0504") == 0


# ================================================================ B13: card draws
def test_b13_draws_by_turn():
    assert Scene(real_map=True, turn=9).f("draw_count", "axis") == 5
    assert Scene(real_map=True, turn=23).f("draw_count", "axis") == 1
    s = Scene(real_map=True, turn=21)
    assert s.f("draw_count", "soviet") == 5
    s.own("axis", s.f("moscow"))
    assert s.f("draw_count", "soviet") == 4


# ================================================================ B14: capture at the Removal phase
def test_b14_a_unit_still_out_of_supply_is_captured_and_the_track_moves_one():
    s = Scene(turn=6, active="soviet", phase="removal", initiative="axis")
    u = s.unit("soviet_front", "soviet", "0604", "out_of_supply")
    before = s.state.vars["event_vp"]
    s.run("removal_phase", "soviet")
    assert s.u(u).box == "captured"
    assert s.state.vars["event_vp"] == before + 1  # one VP in the Germans' favour


# ================================================================ B15: two steps from turn 17
def test_b15_soviet_armies_have_two_steps_from_turn_17_but_not_ostatki_or_fortified_fronts():
    for turn, two in ((16, False), (17, True)):
        s = Scene(turn=turn)
        inf = s.unit("soviet_front", "soviet", "0604")
        assert s.f("two_steps", inf) == two
        s.run("lose_step", inf, "step_loss")
        assert (s.u(inf).loc == "0604") == two and (s.u(inf).steps == 1 if two else s.u(inf).box == "eliminated")
    s = Scene(turn=17)
    assert not s.f("two_steps", s.unit("ostatki", "soviet", "0604"))
    assert not s.f("two_steps", s.unit("fortified_front", "soviet", "0605"))
