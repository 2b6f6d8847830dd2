"""Stargard Solstice rules beyond the digest's worked examples (those are rule tests in the rules
language: games/stargard-solstice/tests/*.wcx, run by tests/test_game_rule_tests.py), each
asserting what its section says, with the REAL game rules (games/stargard-solstice) on a fragment of clear hexes or on the
game's own (provisional) board: the chit cup and special chits, Festung, Volkssturm, HQ capture,
the separate supply sources, the random events the text refers to, reinforcement entry, rail
movement, the optional rules and the provisional victory rules."""

from __future__ import annotations

from fractions import Fraction

import pytest
from test_stargard_support import Scene, ring

T = "08.07"
N, NE, SE, S, SW, NW = ring(T)


def dist(s, a, b):
    return s.engine.board.distance(a, b)


# ---------------------------------------------------------------- the chit cup (§1.4, §3.1, §7.2)
@pytest.mark.parametrize("chit,turns", [
    ("chit_11pz_aok", [2, 3]), ("chit_3pz_aok", [5, 6, 7, 8, 9, 10]), ("chit_47a", list(range(2, 11))),
    ("chit_1pol", list(range(3, 11))), ("chit_3sh", list(range(3, 11))), ("chit_1brf", list(range(4, 11))),
    ("chit_1gt", [8, 9, 10]), ("chit_3sspz", list(range(1, 11))),
])
def test_chits_are_usable_in_the_turns_the_digest_derives(chit, turns):
    # digest 15.3 "Chit availability derived from 15.3 + 7.2 + 3.1.5"
    s = Scene()
    assert [t for t in range(1, 11) if s.f("chit_available", s.e(chit), t)] == turns


class Passer:
    """Takes no action, answers every question with its first option."""

    def choose_action(self, ctx, side, legal):
        return None

    def choose(self, ctx, who, what, options, optional):
        return 0

    def choose_subset(self, ctx, who, what, options, lo, hi):
        return list(range(lo))


def test_a_game_starts_with_the_3rd_ss_panzer_corps_activation():
    # §2.3.1 exception (worked example A7): on turn 1 the first chit is the 3rd SS Panzer Corps',
    # whatever the seed; the sequence stops at the German movement segment of its activation
    from warcodex.interpreter.play import start
    from test_stargard_support import real_engine

    e = real_engine()
    for seed in (1, 2, 3):
        g = start(e, "solstice", seed, {"german": Passer(), "soviet": Passer()})
        g.run(max_actions=0)
        assert g.state.vars["current_chit"].name == "chit_3sspz"
        assert g.state.active == "german" and g.state.phase == "movement_segment"


def test_the_cup_at_the_start_holds_the_chits_of_the_hqs_on_the_map():
    s = Scene(real=True)
    assert sorted(s.pile("cup")) == ["chit_10ss", "chit_2gt", "chit_39pz", "chit_3sspz", "chit_61a", "chit_munzel", "chit_stell2"]
    assert len(s.pile("waiting")) == 8


def test_a_chit_of_a_side_at_its_allowance_is_set_aside():
    # §3.1.2: once a side has reached its limit, no further chit of that side can be activated
    s = Scene(turn=2, phase="command_segment")
    s.unit("g_stell_ii_hq", "german", "03.03")
    s.unit("s_61_hq", "soviet", "12.03")
    limit = s.f("chit_limit", s.e("german"))
    s.side_set("german", "chits_used", limit)
    for c in s.pile("cup"):
        if c not in ("chit_stell2", "chit_61a"):
            s.engine.move_card(s.ctx, "command_chits", s.e(c), "waiting", None)
    cup = s.pile("cup")
    s.dice(cup.index("chit_stell2") + 1, 1)
    s.run("draw_chit")
    assert "chit_stell2" in s.pile("set_aside") and s.var("current_chit") == "chit_61a"


def test_a_special_chit_activates_any_hq_of_its_side():
    # §3.1.5: the 11th Army chit may activate any one HQ on the map
    s = Scene(turn=2, phase="hq_activation", active="german")
    a = s.unit("g_stell_ii_hq", "german", "03.03")
    b = s.unit("g_munzel_hq", "german", "10.03")
    s.run("begin_chit", s.e("chit_11pz_aok"))
    assert set(s.f("activation_hqs")) == {a, b}
    s.agent.script = {"h": [b]}
    s.run("activate_formation")
    assert s.var("current_formation") == "munzel" and s.uvar(b, "activated")


def test_the_3rd_army_chit_also_moves_two_independent_units_anywhere():
    # §3.1.5: two independent units anywhere on the map, even out of command, by normal or rail movement
    s = Scene(turn=5, phase="hq_activation", active="german")
    hq = s.unit("g_stell_ii_hq", "german", "02.02")
    far = [s.unit("t_indep", "german", h) for h in ("14.12", "15.12", "16.12")]
    s.run("begin_chit", s.e("chit_3pz_aok"))
    s.agent.script = {"h": [hq], "far": [[far[0], far[2]]]}
    s.run("activate_formation")
    assert [s.uvar(u, "activated") for u in far] == [True, False, True]
    assert s.uvar(far[0], "anywhere") and not s.f("in_command_range", far[0], hq)


def test_zhukovs_report_sets_a_chit_aside_for_a_vp_and_plays_it_when_chosen():
    # §12.6 (reading a): on turns 8-9 one Soviet chit aside, -1 VP each use; played when he chooses
    s = Scene(turn=8, phase="withhold_segment", active="soviet")
    s.unit("s_61_hq", "soviet", "12.03")
    assert s.f("withholding_allowed")
    s.act("withhold_chit", c=s.e("chit_61a"))
    assert s.pile("withheld") == ["chit_61a"] and s.side_var("soviet", "withheld_turns") == (8,)
    assert not s.f("withholding_allowed")  # once a turn
    assert s.f("withheld_chit_owner") == s.e("soviet")
    s.act("play_withheld_chit", c=s.e("chit_61a"))
    s.run("command_segment")
    assert s.var("current_chit") == "chit_61a" and s.var("activated_side") == "soviet"
    assert s.f("soviet_vp_total") == -1
    s.option("withheld_chit_playable", False)  # reading b: simply withheld
    s.engine.move_card(s.ctx, "command_chits", s.e("chit_2gt"), "withheld", None)
    assert s.f("withheld_chit_owner") is None


def test_what_each_player_observes_of_the_cup_and_the_set_aside_chit():
    """§1.4: the chits are drawn blind from one cup; §12.6: the set-aside chit is "hidden from the
    German player". What an agent reads (`Engine.observation`) hides them so."""
    s = Scene(turn=8, phase="withhold_segment", active="soviet")
    s.act("withhold_chit", c=s.e("chit_61a"))
    cup = s.pile("cup")
    assert cup and "chit_61a" not in cup
    soviet, german = (s.engine.observation(s.state, side)["decks"]["command_chits"] for side in ("soviet", "german"))
    assert soviet["withheld"] == ["chit_61a"] and german["withheld"] == ["hidden"]  # he knows there is one
    assert soviet["cup"] == german["cup"] == ["hidden"] * len(cup)  # the cup's size only, to both
    assert sorted(german["waiting"]) == sorted(s.pile("waiting"))  # the chits still to arrive are public


def test_stavka_orders_only_with_the_optional_rule_on_turns_2_and_3():
    s = Scene(turn=2)
    assert not s.f("withholding_allowed")
    s.option("stavka_orders")
    assert s.f("withholding_allowed")
    s.at_turn(4)
    assert not s.f("withholding_allowed")


# ---------------------------------------------------------------- the explanation of a combat (§8)
def test_a_combat_explains_the_result_not_the_rules_own_tallies():
    """The result code is the line a player reads ('apply A1', §8.1); the tallies the result codes
    fill for apply_outcome (attacker_losses, defender_retreat...) are `bookkeeping`."""
    s = Scene(dice=[1], decline=True)
    s.unit("t_inf", "soviet", T)
    a, b = s.unit("t_inf", "german", ring(T)[0]), s.unit("t_inf", "german", ring(T)[1])
    lines = s.traced("resolve_combat", (a, b), T, (), ())
    assert "CRT column = 2-1" in lines and "apply A1 (Attacker loses steps)" in lines  # 8 against 4, roll 1
    assert s.steps(a) + s.steps(b) == 3 and s.var("attacker_losses") == 1
    assert not [x for x in lines if x.split(" = ")[0] in ("attacker_losses", "defender_losses", "attacker_retreat",
                                                           "defender_retreat", "defender_retreated")]


# ---------------------------------------------------------------- Festung (§12.3) and Volkssturm (§12.4)
def test_a_festung_ignores_retreats_and_the_unit_with_it_retreats():
    s = Scene('  location 08.01 { supply: "german" }', active="soviet")
    f = s.unit("g_festung_arnswalde", "german", T)
    v = s.unit("g_voigt", "german", T)
    s.set("defender_retreat", 2)
    s.run("defender_applies", (f, v), T)
    assert s.loc(f) == T and dist(s, T, s.loc(v)) == 2
    assert not s.f("may_move", f)


def test_a_festung_is_always_in_supply_and_supplies_the_german_unit_with_it():
    s = Scene('  location 01.01 { supply: "german" }', phase="supply_phase")
    f = s.unit("g_festung_bahn", "german", T)
    k = s.unit("g_kg_schmeling", "german", T)
    lone = s.unit("t_inf", "german", "10.10")
    for r in range(1, 15):
        s.unit("t_rifle", "soviet", f"05.{r:02d}")  # a wall between them and the source
    s.state.to_top(f.id)  # "as long as the Festung counter is on top of the stack" (§12.3)
    s.run("supply_phase")
    assert not (s.markers(f) | s.markers(k)) & {"out_of_supply", "isolated"}
    assert "out_of_supply" in s.markers(lone)


def test_a_festung_under_another_unit_gives_no_supply():
    s = Scene('  location 01.01 { supply: "german" }', phase="supply_phase")
    f = s.unit("g_festung_bahn", "german", T)
    k = s.unit("g_kg_schmeling", "german", T)  # entered last: on top
    for r in range(1, 15):
        s.unit("t_rifle", "soviet", f"05.{r:02d}")
    s.run("supply_phase")
    assert "out_of_supply" in s.markers(k) and not s.markers(f) & {"out_of_supply", "isolated"}


def test_a_player_sees_only_the_top_unit_of_an_enemy_stack():
    """§1.1.4: "He may see only the top unit of an enemy stack" (`hidden_stacks: true`): the
    German player's observation shows the Soviet units under the top one by side and place only;
    his own stacks and a lone enemy unit in full."""
    s = Scene()
    low = s.unit("t_rifle", "soviet", "05.05")
    top = s.unit("s_212_80", "soviet", "05.05")
    lone = s.unit("t_rifle", "soviet", "07.07")
    g1, g2 = s.unit("t_inf", "german", "09.09"), s.unit("t_inf", "german", "09.09")
    seen = {u["id"]: u for u in s.engine.observation(s.state, "german")["units"]}
    assert seen[low.id]["type"] == "hidden" and seen[low.id]["steps"] == "hidden" and seen[low.id]["loc"] == "05.05"
    assert seen[low.id]["side"] == "soviet"  # he sees that there is a stack of two
    assert seen[top.id]["type"] == "s_212_80" and seen[lone.id]["type"] == "t_rifle"
    assert seen[g1.id]["type"] == seen[g2.id]["type"] == "t_inf"
    soviet = {u["id"]: u for u in s.engine.observation(s.state, "soviet")["units"]}
    assert soviet[low.id]["type"] == "t_rifle" and soviet[g1.id]["type"] == "hidden"  # the other way round
    s.state.to_top(low.id)  # restacked: now the other unit is hidden
    seen = {u["id"]: u for u in s.engine.observation(s.state, "german")["units"]}
    assert seen[low.id]["type"] == "t_rifle" and seen[top.id]["type"] == "hidden"


def test_volkssturm_goes_to_its_box_and_deploys_five_hexes_from_the_soviets():
    # §12.4: lost in combat -> the Deutscher Volkssturm box; deployed in a German-controlled village,
    # town or city at least 5 hexes from Soviet units, alone (§2.5.2, reading: the union)
    s = Scene('  location 01.01 { supply: "german" }\n  feature village: 03.03 06.03 03.10\n  feature city: 14.12',
              phase="volkssturm_segment", active="german")
    vs = s.unit("g_pommern_vlkstm", "german", "02.02")
    s.run("lose_step", vs)
    assert s.box(vs) == "volkssturm" and s.side_var("german", "steps_lost") == 1
    for r in range(1, 15):
        s.unit("t_rifle", "soviet", f"09.{r:02d}")  # the Soviet front: 06.03 is three hexes away
    s.unit("t_inf", "german", "03.10")  # occupied: no stacking with German units
    sites = {a["h"] for a in s.legal("deploy_volkssturm")}
    assert "03.03" in sites and "06.03" not in sites and "03.10" not in sites
    assert "14.12" not in sites  # behind the Soviet front, cut off from German supply (reading)
    s.act("deploy_volkssturm", u=vs, h="03.03")
    assert s.loc(vs) == "03.03" and s.side_var("german", "steps_lost") == 0


# ---------------------------------------------------------------- HQs (§5.6, §12.2)
def test_a_lone_hq_is_captured_by_a_unit_entering_its_hex_and_reforms():
    s = Scene('  location 16.07 { supply: "soviet" }', active="german", phase="movement_segment")
    hq = s.unit("s_47_hq", "soviet", "06.07")
    tank = s.unit("t_mech", "german", "04.07", activated=True)
    assert "06.07" in s.reach(tank)  # entering the lone HQ's hex is allowed
    zero = s.unit("t_zero", "german", "04.08", activated=True)
    assert "06.07" not in s.reach(zero)  # not for a unit with attack 0
    s.act("move", u=tank, to="06.07")
    assert s.loc(tank) == "06.07" and s.loc(hq) != "06.07" and dist(s, "06.07", s.loc(hq)) >= 5


def test_an_hq_out_of_supply_at_the_end_of_the_supply_phase_reforms():
    s = Scene('  location 16.07 { supply: "soviet" }', phase="supply_phase")
    hq = s.unit("s_61_hq", "soviet", "03.07")
    for r in range(1, 15):
        s.unit("t_inf", "german", f"06.{r:02d}")
    s.unit("t_rifle", "soviet", "14.07")
    s.run("supply_phase")
    # §11.3.1, §12.2.2: out of supply, it reforms at the nearest hex 5 or more hexes away that is
    # outside EZOCs and traces supply: past the German line
    where = s.loc(hq)
    assert where is not None and dist(s, "03.07", where) == 5 and s.engine.board.coords(where)[0] >= 8
    assert where in s.f("supply_region", "soviet") and not (s.markers(hq) & {"out_of_supply", "isolated"})


def test_an_hq_that_cannot_reform_arrives_next_turn_at_a_supply_source():
    s = Scene('  location 16.07 { supply: "soviet" }', turn=4, phase="supply_phase")
    hq = s.unit("s_61_hq", "soviet", "03.07")
    for r in range(1, 15):
        s.unit("t_inf", "german", f"15.{r:02d}")  # every hex the source reaches is in a German ZOC
    s.run("reform_hq", hq)
    assert s.loc(hq) is None and s.box(hq) == "hq_reforming"
    for r in range(1, 15):
        s.engine.eliminate(s.ctx, s.f("units_with_command", "stell2")[0], None)
    s.at_turn(5)
    s.run("return_reformed_hqs", s.e("soviet"))
    assert s.loc(hq) == "16.07"


def test_two_hqs_may_not_share_a_hex():
    s = Scene(active="german", phase="movement_segment")
    s.unit("g_stell_ii_hq", "german", "05.05")
    other = s.unit("g_munzel_hq", "german", "05.07", activated=True)
    assert "05.05" in s.reach(other) and not s.f("may_stop", other, "05.05")


# ---------------------------------------------------------------- supply sources (§11.2)
def test_each_force_traces_to_its_own_sources():
    s = Scene('  location 01.01 { supply: "german" }\n  location 16.14 { supply: "kolberg" }\n'
              '  location 16.01 { supply: "soviet" }\n  location 01.14 { supply: "polish" }')
    groups = {t: s.f("supply_group", s.unit(t, side, h)) for t, side, h in [
        ("g_klein_den", "german", "03.03"), ("g_368_281", "german", "03.05"), ("g_pommern_tettau", "german", "03.07"),
        ("s_212_80", "soviet", "12.03"), ("s_4_pol", "soviet", "12.05")]}
    assert groups == {"g_klein_den": "german", "g_368_281": "kolberg", "g_pommern_tettau": "kolberg",
                      "s_212_80": "soviet", "s_4_pol": "polish"}


def test_friendly_units_negate_ezoc_for_supply_only():
    # §4.5: a supply path may pass an EZOC hex holding a friendly unit
    s = Scene('  location 01.07 { supply: "german" }')
    s.unit("t_rifle", "soviet", "04.05")
    s.unit("t_rifle", "soviet", "04.09")
    blocked = s.f("supply_region", "german")
    s.unit("t_inf", "german", "04.07")  # in the Soviet ZOC, on the way east
    opened = s.f("supply_region", "german")
    assert len(opened) >= len(blocked) and "04.07" in opened


# ---------------------------------------------------------------- random events (§19, provisional)
def test_corps_tettau_enters_once_with_the_2nd_guards_cavalry_corps_and_its_chit_next_turn():
    s = Scene(real=True, turn=3)
    s.boxed("g_tettau_hq", "german", "corps_tettau")
    tettau = [s.boxed(t, "german", "corps_tettau") for t in ("g_pommern_tettau", "g_holstein_tettau")]
    cav = s.boxed("s_3_gc_2gc", "soviet", "guards_cavalry_2")
    s.run("tettau_arrival")
    assert all(s.loc(u) is not None and s.uvar(u, "entered_by_event") == 3 for u in tettau)
    assert s.loc(cav) is not None  # reading a: immediately after Tettau
    assert not s.f("may_move_strategic", tettau[0])  # no strategic movement on entry (§5.4.1)
    assert not s.f("chit_available", s.e("chit_tettau"), 3) and s.f("chit_available", s.e("chit_tettau"), 4)
    where = {u: s.loc(u) for u in tettau}
    s.run("tettau_arrival")  # a second roll of the event: no effect
    assert {u: s.loc(u) for u in tettau} == where


def test_the_39th_panzer_corps_leaves_with_its_hq_chit_and_the_fg_and_fb_divisions():
    s = Scene(turn=5)
    hq = s.unit("g_39_pz_hq", "german", "05.05")
    fb = s.unit("g_102pz_fb", "german", "06.05")
    frundsberg = s.unit("g_22_10ss", "german", "07.05")
    s.run("withdraw_39pz")
    assert s.box(hq) == "removed" and s.box(fb) == "withdrawn" and s.loc(frundsberg) == "07.05"
    assert "chit_39pz" in s.pile("removed")
    assert not s.f("chit_available", s.e("chit_39pz"), 6)


def test_barrage_pins_the_target_and_one_attempt_a_target():
    # §8.5.1: BFT roll -> attempts; targets adjacent to a friendly combat unit, one attempt each;
    # P = pinned (§8.1.2): attacked one column to the right, may not move or attack
    s = Scene(active="german")
    a = s.unit("t_inf", "german", N)
    t1 = s.unit("t_rifle", "soviet", T, activated=True)
    s.unit("t_rifle", "soviet", "14.12")  # next to no German unit: never a target
    assert s.f("barrage_targets", s.e("german")) == (t1,)
    column = s.q("crt_column", (a,), T)
    s.dice(3, 4)  # BFT 3: two attempts; Barrage column 4: P
    s.run("barrage", s.e("german"))
    assert "pinned" in s.markers(t1)
    assert s.state.rng.used == 2  # the second attempt found no target left
    assert s.q("crt_column", (a,), T).rank == column.rank + 1
    assert not s.f("may_attack", t1)
    s.state.phase = "movement_segment"
    s.state.touch()
    assert not s.f("may_move", t1)


# ---------------------------------------------------------------- reinforcements (§7), rail (§5.5)
def test_a_blocked_edge_entry_shifts_along_the_same_edge():
    # §7.1.2: entry hex on the map edge held by the enemy or in an EZOC: within ten hexes along it
    s = Scene('  location 08.01 { entry: "D" }', turn=3, phase="reinforcement_segment", active="soviet")
    u = s.boxed("s_328_77", "soviet", "turn_3")
    s.state.put(s.state.units[u.id].with_var("arrival", 3).with_var("entry", "D"))
    assert s.f("entry_options", u) == ("08.01",)
    s.unit("t_inf", "german", "08.02")  # its ZOC covers 08.01
    options = s.f("entry_options", u)
    assert "08.01" not in options and options
    assert all(s.f("same_edge", h, "08.01") and dist(s, h, "08.01") <= 10 for h in options)


def test_reinforcements_may_be_placed_along_connected_rail():
    # §5.5.1: on any railway hex reached by a continuous rail path from the entry, unblocked
    s = Scene('  path rail: 08.01 08.02 08.03 08.04 08.05 08.06\n  location 08.01 { entry: "D" }', turn=3)
    u = s.boxed("s_328_77", "soviet", "turn_3")
    s.state.put(s.state.units[u.id].with_var("arrival", 3).with_var("entry", "D"))
    assert set(s.f("entry_options", u)) == {f"08.{r:02d}" for r in range(1, 7)}
    s.unit("t_inf", "german", "09.05")  # its ZOC on 08.05 and 08.06 blocks the rail path there
    assert set(s.f("entry_options", u)) == {"08.01", "08.02", "08.03", "08.04"}


def test_rail_movement_stops_on_entering_an_ezoc():
    s = Scene('  path rail: 02.05 03.05 04.05 05.05 06.05 07.05 08.05', turn=2, phase="reinforcement_segment", active="soviet")
    u = s.unit("t_rifle", "soviet", "02.05", arrived=2)
    assert "08.05" in s.reach(u, "rail_movement")
    s.unit("t_inf", "german", "06.06")  # its ZOC covers 05.05, 06.05 and 07.05
    r = s.reach(u, "rail_movement")
    assert "05.05" in r and "06.05" not in r  # stops in the first EZOC hex


# ---------------------------------------------------------------- optional rules, victory
def test_the_234th_takes_over_the_state_of_234_77():
    # §16.3: position, supply state and step losses carry over
    s = Scene(turn=7, phase="reinforcement_segment", active="soviet")
    old = s.unit("s_234_77", "soviet", "05.05", "out_of_supply", steps=1)
    new = s.boxed("s_234_80", "soviet", "optional_16_3")
    s.run("swap_234th")
    assert s.loc(new) == "05.05" and s.steps(new) == 1 and "out_of_supply" in s.markers(new)
    assert s.box(old) == "replaced" and s.engine.entities[s.state.units[new.id].type].props["command"] == "61a"


def test_vp_markers_flip_at_the_end_of_their_turn():
    s = Scene(real=True, turn=3)
    s.engine.set_attribute(s.ctx, "13.07", "controller", s.e("soviet"), None)  # Pyritz: 1 VP, flips on turn 3
    s.run("flip_vp_markers")
    assert s.side_var("soviet", "vp_banked") == 1
    s.run("flip_vp_markers")  # flipped once only
    assert s.side_var("soviet", "vp_banked") == 1


def test_german_sudden_victory_ends_the_game_or_gives_3_vp_with_16_2():
    s = Scene(real=True, turn=3)
    s.set("arnswalde_relieved", True)
    s.side_set("german", "exited", 3)
    s.run("check_sudden_victory")
    assert s.state.winner == "german" and s.state.over
    s2 = Scene(real=True, turn=3)
    s2.option("alternative_sudden_victory")
    s2.set("arnswalde_relieved", True)
    s2.side_set("german", "exited", 3)
    s2.run("check_sudden_victory")
    assert not s2.state.over and s2.f("soviet_vp_total") == -3


def test_fractional_vp_are_rounded_down_at_the_end():
    s = Scene(real=True, turn=10)
    s.side_set("soviet", "vp_banked", Fraction(7, 2))
    s.engine.fire(s.ctx, "game_end")
    assert s.side_var("soviet", "vp") == 3


# ---------------------------------------------------------------- one overlay replaces the stand-ins
OVERLAY = """
override table turn_track player_aid "Turn Track (printed), as a player copies it" {
  row 1: 4 | 1
  row 2: 4 | 2
}
override table crt player_aid "CRT card (printed)" {
  row 1: A2 | A2 | A1 | A1 | A1 | Dr1 | D1 | D1
}
override table bft player_aid "BFT (printed)" {
  row 1..2: 1
}
override unit g_44pz_233 player_aid "counter" { attack: 6 move: 9 command: "munzel" player_aid }
"""


def test_one_overlay_file_replaces_provisional_values(tmp_path):
    from pathlib import Path

    from warcodex.dsl.checker import check_path
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.play import agents_for, start

    game_dir = Path(__file__).resolve().parent.parent / "games" / "stargard-solstice"
    base, _ = check_path(game_dir)
    (tmp_path / "mine.wcx").write_text(OVERLAY, encoding="utf-8")
    game, diags = check_path(game_dir, [tmp_path / "mine.wcx"])
    assert not diags.errors, [d.render() for d in diags.errors]
    before = {what for what, _, _ in base.provisional_items()}
    after = {what for what, _, _ in game.provisional_items()}
    assert {w for w in before if "turn_track" in w or "crt" in w or "bft" in w or "g_44pz_233" in w}
    assert not {w for w in after if w.startswith("table turn_track") or w.startswith("table crt")
                or w.startswith("table bft") or w.startswith("unit g_44pz_233")}
    e = Engine(game)
    assert e.tables["turn_track"].lookup([e.entities["german"], 1], None).single() == 4
    assert e.tables["turn_track"].lookup([e.entities["soviet"], 5], None).single() == 4  # other rows kept
    assert e.entities["g_44pz_233"].props["attack"] == 6 and e.entities["g_44pz_233"].props["defense"] == 4
    g = start(e, "solstice", 4, agents_for(e, ["random"], 4), trace=False).run(until_turn=1)
    assert g.state.position.turn == 2


def test_on_turn_1_every_unit_is_in_command():
    # §3.3.3 "On turn 1 all units start in command" (§15): the range is not checked on turn 1
    s = Scene(turn=1, phase="hq_activation", active="german")
    hq = s.unit("t_hq10", "german", "01.01")
    far = s.unit("t_inf", "german", "16.14")
    assert s.engine.board.distance("01.01", "16.14") > 10
    s.set("activation_kind", "chit")
    s.set("current_chit", "chit_stell2")
    s.agent.script = {"h": [hq]}
    s.run("activate_formation")
    assert s.uvar(far, "activated") is True
    s.at_turn(2)
    assert not s.f("in_command_range", far, hq)


def test_strategic_movement_on_turn_10_costs_a_chit_of_the_same_turn():
    # §5.4.2: on turn 10 the reduction applies to the current turn: a German chit drawn after it,
    # once the lowered allowance is used, is set aside (self-play seed 3 met this)
    s = Scene(turn=10, phase="command_segment")
    s.unit("g_stell_ii_hq", "german", "03.03")
    german = s.e("german")
    limit = s.f("chit_limit", german)
    s.side_set("german", "chits_used", limit - 1)
    assert not s.f("at_limit", german)
    s.side_set("german", "strategic_turns", (10,))
    assert s.f("chit_limit", german) == limit - 1 and s.f("at_limit", german)
    for c in s.pile("cup"):
        if c != "chit_stell2":
            s.engine.move_card(s.ctx, "command_chits", s.e(c), "waiting", None)
    s.dice(1)
    s.run("draw_chit")
    assert "chit_stell2" in s.pile("set_aside") and s.var("current_chit") is None
