"""The worked examples of the Stargard Solstice rulebook (digest "Worked examples": A1-A9 from the
rulebook, B1-B16 derived checks), each asserting the rulebook's outcome with the REAL game rules
(games/stargard-solstice). The numbers of the B checks are the digest's "hypothetical test
inputs" (test-only units in tests/data/stargard_test_units.wcx), on a fragment of clear hexes;
A9 uses the game's own (provisional) board. Rolls come from fixed dice, choices from a script."""

from __future__ import annotations

from fractions import Fraction

import pytest
from test_stargard_support import Scene, ring

from warcodex.interpreter.values import Odds, UnitRef

T = "08.07"  # the usual combat hex of the fragment
N, NE, SE, S, SW, NW = ring(T)


def dist(s: Scene, a: str, b: str) -> int:
    return s.engine.board.distance(a, b)


def column_text(s: Scene, odds) -> str:
    table = s.engine.tables["crt"]
    return table.column_text[table.column_index(odds, None)].replace("-", ":")


# ================================================================ A: examples of the rulebook
def test_a1_cumulative_modifiers_quarter_the_unit_and_keep_the_fraction():
    # §1.1.2: halved for a river and halved out of supply: quartered; fractions kept until the end
    s = Scene(f"  edge minor_river: {T}/{N}")
    a = s.unit("t_mech", "german", N, "out_of_supply")  # attack 6
    s.unit("t_one", "soviet", T)  # defense 1
    assert s.q("attack_strength", a, T) == Fraction(3, 2)  # 6 x 1/2 x 1/2, not 1 (rounded) x ...
    assert s.q("crt_column", (a,), T) == Odds.of(Fraction(3, 2), 1)  # 3/2 : 1, rounded only now
    assert column_text(s, s.q("crt_column", (a,), T)) == "1:1"


def test_a2_stacked_units_are_added_first_then_halved_then_rounded_down():
    # §1.1.3: two stacked attack-3 units, both halved: (3 + 3) / 2 = 3, not 1 + 1 = 2
    s = Scene()
    a1 = s.unit("t_rifle", "soviet", N, "out_of_supply")
    a2 = s.unit("t_rifle", "soviet", N, "out_of_supply")
    s.unit("t_one", "german", T)  # defense 1
    assert s.q("total_attack", (a1, a2), T) == 3
    assert column_text(s, s.q("crt_column", (a1, a2), T)) == "3:1"  # halving each first would give 2:1


def test_a2_the_two_rounding_readings_of_8_4():
    # attack 2 + 3/2 = 7/2 against defense 1 + 1/2 = 3/2: reading b (default) rounds only the ratio
    # (7/3: 2:1), reading a rounds each total first (3 : 1: 3:1)
    s = Scene()
    a1 = s.unit("t_inf", "german", N, "out_of_supply")  # 4 -> 2
    a2 = s.unit("t_mech", "german", NE, "out_of_supply", steps=1)  # reduced 3 -> 3/2
    s.unit("t_zero", "soviet", T, "out_of_supply")  # defense 2 -> 1
    s.unit("t_one", "soviet", T, "out_of_supply")  # defense 1 -> 1/2
    assert s.q("total_attack", (a1, a2), T) == Fraction(7, 2)
    assert s.q("total_defense", T) == Fraction(3, 2)
    assert column_text(s, s.q("crt_column", (a1, a2), T)) == "2:1"
    s.option("round_totals_first")
    assert column_text(s, s.q("crt_column", (a1, a2), T)) == "3:1"


def far_hexes(s: Scene, origin: str, d: int) -> list[str]:
    return [h for h in s.engine.board.locations if dist(s, origin, h) == d]


def test_a3_command_range_10_reaches_ten_hexes_not_eleven():
    # §3.3.3: range 10 = nine hexes in between; the unit's hex counts, the HQ's does not
    s = Scene(active="german", phase="hq_activation")
    hq = s.unit("t_hq10", "german", "01.07")
    at10 = s.unit("t_inf", "german", far_hexes(s, "01.07", 10)[0])
    at11 = s.unit("t_inf", "german", far_hexes(s, "01.07", 11)[0])
    assert s.f("in_command_range", at10, hq) and not s.f("in_command_range", at11, hq)
    s.set("activation_kind", "chit")
    s.set("current_chit", "chit_stell2")
    s.agent.script = {"h": [hq]}
    s.run("activate_formation")
    assert s.uvar(at10, "activated") is True and s.uvar(at11, "activated") is False


@pytest.mark.parametrize("side,hq,own,other,chit", [
    ("german", "g_stell_ii_hq", ["g_klein_den", "g_engel_den"], "g_22_10ss", "chit_stell2"),  # white units
    ("soviet", "s_61_hq", ["s_212_80", "s_356_80"], "s_48gt_12gt", "chit_61a"),  # yellow units
])
def test_a4_an_hq_activates_its_colour_and_two_independent_units(side, hq, own, other, chit):
    # §3.3.1, §3.3.2: all units of the HQ's colour within range, plus up to two independent units
    s = Scene(active=side, phase="hq_activation")
    h = s.unit(hq, side, "05.07")
    mine = [s.unit(t, side, at) for t, at in zip(own, ["06.07", "07.07"])]
    far = s.unit(own[0], side, far_hexes(s, "05.07", s.engine.entities[hq].props["command_range"] + 1)[0])
    stranger = s.unit(other, side, "04.07")
    inds = [s.unit("t_indep", side, at) for at in ["05.09", "05.10", "05.11"]]
    s.set("activation_kind", "chit")
    s.set("current_chit", chit)
    s.agent.script = {"h": [h], "extra": [[inds[0], inds[2]]]}
    s.run("activate_formation")
    assert all(s.uvar(u, "activated") for u in mine)
    assert not s.uvar(far, "activated") and not s.uvar(stranger, "activated")
    assert [s.uvar(u, "activated") for u in inds] == [True, False, True]
    offered = dict(s.agent.asked)["extra"]
    assert set(offered) == set(inds)  # the three independents in range were offered; two were taken


def road_scene(*extra: str):
    s = Scene("  path road: 03.05 04.05 05.05 06.05 07.05 08.05 09.05", active="german", phase="movement_segment")
    mover = s.unit("t_mech", "german", "03.05", activated=True)
    return s, mover


def test_a5_strategic_movement_never_passes_a_full_road_hex():
    # §5.4.1: not through a road hex already holding two friendly units
    s, mover = road_scene()
    assert "09.05" in s.reach(mover, "strategic")
    s.unit("t_inf", "german", "06.05")
    s.unit("t_inf", "german", "06.05")
    r = s.reach(mover, "strategic")
    assert "05.05" in r and "06.05" not in r and "09.05" not in r


def test_a5_hqs_in_passing_count_only_under_reading_a():
    # "two friendly units (including HQs)": reading b (default) keeps 6.3, HQs do not count
    s, mover = road_scene()
    s.unit("t_inf", "german", "06.05")
    s.unit("t_hq10", "german", "06.05")
    assert "09.05" in s.reach(mover, "strategic")
    s.option("hq_counts_in_strategic_stacking")
    assert "09.05" not in s.reach(mover, "strategic")


def test_a6_each_retreat_hex_is_farther_from_the_combat_hex():
    # §9.2: the first hex at distance 1, the second at distance 2
    s = Scene('  location 08.01 { supply: "soviet" }', active="german")
    d = s.unit("t_rifle", "soviet", T)
    path = s.moves("retreat_stack", (d,), 2, T)
    assert [dist(s, T, b) for a, b in path] == [1, 2]
    # whatever the owner picks, every hex offered at the second step is two hexes away
    first = path[0][1]
    assert all(dist(s, T, h) == 2 for h in s.f("retreat_candidates", d, first, T))


def test_a7_turn_1_the_3rd_ss_panzer_corps_chit_is_drawn_first():
    # §2.3.1 exception: on turn 1 the first chit is automatically the 3rd SS Panzer Corps'
    from warcodex.interpreter.play import start
    from test_stargard_support import real_engine

    e = real_engine()
    for seed in (1, 2, 3):
        g = start(e, "solstice", seed, {"german": Scene_passer(), "soviet": Scene_passer()})
        g.run(max_actions=0)
        assert g.state.vars["current_chit"].name == "chit_3sspz"
        assert g.state.active == "german" and g.state.phase == "movement_segment"


class Scene_passer:
    def choose_action(self, ctx, side, legal):
        return None

    def choose(self, ctx, who, what, options, optional):
        return 0

    def choose_subset(self, ctx, who, what, options, lo, hi):
        return list(range(lo))


def turn1_scene():
    s = Scene(turn=1, active="german", phase="activation_end")
    s.unit("s_61_hq", "soviet", "12.03")
    s.unit("s_2gt_hq", "soviet", "14.03")
    y = s.unit("s_212_80", "soviet", "10.05")  # 61st Army
    g = s.unit("s_48gt_12gt", "soviet", "10.07")  # 2nd Guards Tank Army
    return s, y, g


def test_a7_the_attacked_armies_react_in_the_order_first_attacked():
    s, y, g = turn1_scene()
    s.engine.move_card(s.ctx, "command_chits", s.e("chit_3sspz"), "active", None)
    s.set("current_chit", "chit_3sspz")
    s.set("current_formation", "3sspz")
    s.set("activation_kind", "chit")
    s.set("activated_side", "german")
    s.run("note_attacked_armies", (y,), s.e("german"))  # the 61st Army's units attacked first
    s.run("note_attacked_armies", (g,), s.e("german"))
    s.run("note_attacked_armies", (y,), s.e("german"))
    s.run("end_activation")
    # 1. when the 3rd SS Panzer Corps' activation ends, the 61st Army, then the 2nd Guards Tank Army
    assert list(s.state.vars["pending"]) == ["61a", "2gt"]
    s.run("command_segment")
    assert (s.var("activation_kind"), s.var("current_formation"), s.var("activated_side")) == ("reaction", "61a", "soviet")
    s.state.active = "soviet"
    s.run("activate_formation")
    assert s.var("activated_hq") is not None and s.uvar(y, "activated")
    s.run("end_activation")
    s.run("command_segment")
    assert (s.var("activation_kind"), s.var("current_formation")) == ("reaction", "2gt")
    s.run("activate_formation")
    s.run("end_activation")
    # 2. the reactions are extra: the Soviet player still has his one chit ([1*], reading: not counted)
    assert s.side_var("soviet", "chits_used") in (None, 0)
    assert not s.f("at_limit", s.e("soviet"))
    # 3. the 61st Army's or 2nd Guards Tank Army's chit drawn later in turn 1 is set aside unused
    assert not s.f("chit_can_activate", s.e("chit_61a")) and not s.f("chit_can_activate", s.e("chit_2gt"))
    for c in s.pile("cup"):
        if c not in ("chit_61a", "chit_2gt"):
            s.engine.move_card(s.ctx, "command_chits", s.e(c), "waiting", None)
    cup = s.pile("cup")
    s.dice(cup.index("chit_61a") + 1, 1)  # draw the 61st Army's chit, then the 2GT's
    s.run("draw_chit")
    assert "chit_61a" in s.pile("set_aside") and "chit_2gt" in s.pile("set_aside")


def test_a8_39th_panzer_corps_never_withdrawn_gives_three_vp():
    # §16.4: 1/2 VP at the start of each of turns 5-10, 3 VP in all, rounded at the end
    s = Scene(phase=None)
    s.option("delayed_withdrawal_39pz")
    for turn in range(1, 11):
        s.at_turn(turn)
        s.engine.fire(s.ctx, "turn_start")
        if turn == 5:
            assert s.side_var("soviet", "vp_banked") == Fraction(1, 2)
    assert s.side_var("soviet", "vp_banked") == 3
    # withdrawn on turn 7: 1/2 for turns 5 and 6 only
    s2 = Scene(phase=None)
    s2.option("delayed_withdrawal_39pz")
    for turn in range(1, 11):
        s2.at_turn(turn)
        if turn == 7:
            s2.set("withdrawn_39pz", True)
        s2.engine.fire(s2.ctx, "turn_start")
    assert s2.side_var("soviet", "vp_banked") == 1


def test_a9_the_oder_transit_hexes_let_a_few_german_units_stop_a_crossing():
    # §5.2.5 and its historical note: transit hexes cannot be stopped in; the grey islands are
    # entered only along lines; so German units on the west-bank landing hexes stop the crossing
    s = Scene(real=True, active="soviet", phase="movement_segment", turn=3)
    board = s.engine.board
    transit = [h for h in board.locations if "transit" in board.features(h)]
    assert sorted(transit) == ["02.12", "03.14", "04.16", "04.17", "05.16", "05.17"]
    tank = s.unit("s_219t_1m", "soviet", "06.16", activated=True)  # at Altdamm, MA 10
    reach = s.reach(tank)
    assert all(not s.f("may_stop", tank, h) for h in transit)
    restricted = [h for h in board.locations if board.terrain(h) == "restricted"]
    off_line = [h for h in restricted if not any(s.f("along_line", n, h) for n in board.neighbors(h))]
    assert off_line and not any(h in reach for h in off_line)  # grey hexes off the lines: never
    # the west bank: the land reached from Stettin's supply source without crossing the Oder
    west, todo = {"01.18"}, ["01.18"]
    while todo:
        h = todo.pop()
        for n in board.neighbors(h):
            if n not in west and board.terrain(n) not in ("water", "restricted") and "major_river" not in board.edge(h, n):
                west.add(n)
                todo.append(n)
    landings = sorted(h for h in reach if h in west)
    assert landings, "the Soviet tank can cross the Oder when nobody guards it"
    for h in {h for h in west if any(n in transit for n in board.neighbors(h))}:
        s.unit("t_inf", "german", h)  # a few units on the hexes next to the transit hexes
    reach = s.reach(tank)
    assert not any(h in west for h in reach), "a west-bank hex is still open"
    assert not any(s.f("may_stop", tank, h) for h in reach if h in restricted and h in transit)


# ================================================================ B: derived rule checks
def test_b1_ezoc_costs_two_to_enter_and_two_to_leave():
    # §4.1: MA 6; into an EZOC hex of cost 1: 1 + 2 = 3; on into another: 1 + 2 + 2 = 5; 8 > 6
    s = Scene(active="german", phase="movement_segment")
    u = s.unit("t_inf", "german", "03.05", activated=True)
    s.unit("t_rifle", "soviet", "05.04")
    german = s.e("german")
    assert s.f("in_ezoc", "04.05", german) and s.f("in_ezoc", "05.05", german) and not s.f("in_ezoc", "03.05", german)
    step1 = s.q("move_cost", "03.05", "04.05") + s.f("ezoc_cost", "03.05", "04.05", german)
    step2 = s.q("move_cost", "04.05", "05.05") + s.f("ezoc_cost", "04.05", "05.05", german)
    assert (step1, step2) == (3, 5) and step1 + step2 > s.q("movement_allowance", u) == 6
    assert s.reach(u)["04.05"] == 3


def test_b2_a_stack_loses_one_step_per_ezoc_hex_entered_not_one_per_unit():
    # §4.4, §9.2.2: two units retreat two hexes, both hexes in EZOC: 2 steps in all, not 4
    s = Scene('  location 08.01 { supply: "german" }', active="soviet")
    a = s.unit("t_inf", "german", T)
    b = s.unit("t_inf", "german", T)
    for h in ("07.05", "09.05"):  # their ZOCs cover every hex of the way north
        s.unit("t_rifle", "soviet", h)
    german = s.e("german")
    s.agent.script = {"h": [lambda h: True, lambda h: True]}
    path = s.moves("retreat_stack", (a, b), 2, T)
    hexes = [to for frm, to in path][::2]  # the two units move together, hex by hex
    assert len(hexes) == 2 and all(s.f("in_ezoc", h, german) for h in hexes)
    lost = (2 - s.steps(a)) + (2 - s.steps(b))
    assert lost == 2


def test_b3_the_first_step_comes_from_the_strongest_defender_the_second_as_the_owner_wishes():
    # §8.6.1, §8.6.2: defense 4 and 6 lose 2 steps: the first from the defense-6 unit
    s = Scene(active="german")
    d4 = s.unit("t_def4", "soviet", T)
    d6 = s.unit("t_def6", "soviet", T)
    s.agent.script = {"v": [d4]}
    s.run("lose_steps", (d4, d6), 2, False)
    asked = [opts for what, opts in s.agent.asked if what == "v"]
    assert len(asked) == 1  # the first step has no choice: the defense-6 unit
    assert set(asked[0]) == {d4, d6}  # the second is free
    assert (s.steps(d6), s.steps(d4)) == (1, 1)


@pytest.mark.parametrize("settlement,steps,hexes", [("city", 2, 1), ("village", 1, 1), (None, 1, 2)])
def test_b4_a_city_ignores_the_first_loss_and_the_first_retreat_hex(settlement, steps, hexes):
    # §8.7 + §9.5: 1 step and a 2-hex retreat: in a city, no loss and 1 hex; in a village, 1 step
    # and 1 hex; in the open, 1 step and 2 hexes
    body = f"  feature {settlement}: {T}" if settlement else ""
    s = Scene(body + '\n  location 08.01 { supply: "soviet" }', active="german")
    d = s.unit("t_rifle", "soviet", T)
    s.set("defender_losses", 1)
    s.set("defender_retreat", 2)
    s.run("defender_applies", (d,), T)
    assert s.steps(d) == steps and dist(s, T, s.loc(d)) == hexes


def test_b5_an_attacker_in_a_city_retreats_the_full_distance():
    # §9.5.1: the attacker gets no benefit from the village or city rule
    s = Scene(f'  feature city: {N}\n  location 08.01 {{ supply: "german" }}', active="german")
    a = s.unit("t_inf", "german", N)
    s.unit("t_rifle", "soviet", T)
    s.set("attacker_retreat", 2)
    s.run("attacker_applies", (a,), T)
    assert dist(s, N, s.loc(a)) == 2 and s.steps(a) == 2


def test_b6_odds_of_9_to_1_use_the_7_to_1_column():
    # §1.1.3: above 7:1 use 7:1+
    s = Scene()
    assert column_text(s, Odds.of(9, 1)) == "7:1"
    atk = [s.unit("t_inf", "german", N), s.unit("t_inf", "german", N), s.unit("t_one", "german", NE)]
    s.unit("t_one", "soviet", T)  # defense 1; 4 + 4 + 3 = 11:1
    assert column_text(s, s.q("crt_column", tuple(atk), T)) == "7:1"


def test_b7_an_attack_at_1_to_3_without_air_support_is_cancelled():
    # §1.1.3: below 1:2 the attack is cancelled; air shifts may raise the odds to 1:2
    s = Scene(active="german", phase="combat_segment")
    s.unit("t_def4", "german", N, activated=True)  # attack 2
    s.unit("t_def6", "soviet", T)  # defense 6: 2:6 = 1:3
    assert s.legal("attack") == []
    s.boxed("g_1_jg", "german", "luftflotte_6")
    legal = s.legal("attack")
    assert legal and all(len(a["air"]) == 1 for a in legal)  # only with the air unit: 1:3 + 1 = 1:2


def test_b8_four_air_points_used_ground_both_units_for_two_air_phases():
    # §13, §13.1.1, §2.1: +2 and +2: 4 points, no more air support this turn; both to Grounded,
    # to Refit in the next Air Phase, back in the Luftflotte 6 box in the one after
    s = Scene(active="german", phase="combat_segment")
    jg1 = s.boxed("g_1_jg", "german", "luftflotte_6")
    rudel = s.boxed("g_rudel", "german", "luftflotte_6")
    jg2 = s.boxed("g_2_jg", "german", "luftflotte_6")
    s.run("commit_air", (jg1,), (jg1,), s.e("german"))
    s.run("commit_air", (rudel,), (rudel,), s.e("german"))
    assert s.side_var("german", "air_points_used") == 4
    s.unit("t_inf", "german", N, activated=True)
    s.unit("t_one", "soviet", T)
    assert s.legal("attack") and all(a["air"] == () for a in s.legal("attack"))  # 2 JG stays home
    assert (s.box(jg1), s.box(rudel), s.box(jg2)) == ("grounded", "grounded", "luftflotte_6")
    s.run("return_refitted_air")
    s.run("refit_grounded_air")  # next turn's Air Phase
    assert (s.box(jg1), s.box(rudel)) == ("refit", "refit")
    s.run("return_refitted_air")  # the Air Phase after that
    s.run("refit_grounded_air")
    assert (s.box(jg1), s.box(rudel)) == ("luftflotte_6", "luftflotte_6")


def test_b8_a_normal_attack_is_back_the_next_turn():
    s = Scene(active="german")
    jg = s.boxed("g_1_jg", "german", "luftflotte_6")
    s.run("commit_air", (jg,), (), s.e("german"))
    assert s.box(jg) == "refit" and s.side_var("german", "air_points_used") == 1
    s.run("return_refitted_air")
    assert s.box(jg) == "luftflotte_6"


def test_b9_at_most_two_air_units_support_one_attack():
    # §13.1: three air units on one attack is illegal
    s = Scene(active="german", phase="combat_segment")
    for t in ("g_1_jg", "g_rudel", "g_2_jg", "g_3_jg"):
        s.boxed(t, "german", "luftflotte_6")
    s.unit("t_inf", "german", N, activated=True)
    s.unit("t_one", "soviet", T)
    legal = s.legal("attack")
    assert max(len(a["air"]) for a in legal) == 2
    assert all(s.f("air_points", a["air"], a["strong"]) <= 4 for a in legal)


def test_b10_german_strategic_movement_costs_one_chit_the_next_turn():
    # §5.4.2: used on turn 4: one fewer chit on turn 5, however often; on turn 10, turn 10's own
    s = Scene(turn=4, active="german", phase="movement_segment")
    german = s.e("german")
    base = {t: s.engine.tables["turn_track"].lookup([german, t], None).single() for t in (4, 5, 10)}
    s.at_turn(5)
    assert s.f("chit_limit", german) == base[5]
    s.side_set("german", "strategic_turns", (4,))
    assert s.f("chit_limit", german) == base[5] - 1
    s.at_turn(4)
    assert s.f("chit_limit", german) == base[4]  # not the turn it was used
    # twice on turn 4: still one turn recorded, one chit
    s2, mover = road_scene()
    s2.at_turn(4)
    s2.act("strategic_move", u=mover, to="05.05")
    other = s2.unit("t_mech", "german", "03.05", activated=True)
    s2.act("strategic_move", u=other, to="06.05")
    assert s2.side_var("german", "strategic_turns") == (4,)
    s2.at_turn(5)
    assert s2.f("chit_limit", s2.e("german")) == base[5] - 1
    s.at_turn(10)
    s.side_set("german", "strategic_turns", (10,))
    assert s.f("chit_limit", german) == base[10] - 1
    s.side_set("german", "strategic_turns", (9, 10))
    assert s.f("chit_limit", german) == base[10] - 1  # at most one a turn


def test_b11_soviet_replacements_rebuild_a_unit_and_restore_a_step():
    # §7.3.1: turn 5, 3 points: a destroyed two-step non-mechanized unit back at full strength for 2,
    # in or next to its HQ, not in an EZOC; the last point restores a step of a supplied reduced unit
    s = Scene(turn=5, active="soviet", phase="replacement_segment")
    hq = s.unit("s_61_hq", "soviet", "05.05")
    dead = s.unit("t_rifle", "soviet", "05.06")
    s.engine.eliminate(s.ctx, dead, None)
    reduced = s.unit("t_rifle", "soviet", "09.09", steps=1)
    s.unit("t_inf", "german", "05.03")  # its ZOC covers 05.04 and two hexes next to it
    s.run("start_replacements")
    assert s.side_var("soviet", "rp_left") == 3
    sites = {a["h"] for a in s.legal("rebuild_unit") if a["u"] == dead}
    assert sites and all(dist(s, "05.05", h) <= 1 for h in sites)
    assert not any(s.f("in_ezoc", h, s.e("soviet")) for h in sites)
    s.act("rebuild_unit", u=dead, h="05.06")
    assert s.loc(dead) == "05.06" and s.steps(dead) == 2 and s.side_var("soviet", "rp_left") == 1
    s.act("replace_step", u=reduced)
    assert s.steps(reduced) == 2 and s.side_var("soviet", "rp_left") == 0
    s.run("end_reinforcement_phase")  # unspent points are lost
    assert s.side_var("soviet", "rp_left") == 0


def test_b11_mechanized_units_regain_one_step_a_turn_for_two_points():
    s = Scene(turn=5, active="soviet", phase="replacement_segment")
    tank = s.unit("t_mech", "soviet", "09.09", steps=1)
    s.side_set("soviet", "rp_left", 1)
    assert s.legal("replace_step") == []  # 2 points needed
    s.side_set("soviet", "rp_left", 4)
    s.act("replace_step", u=tank)
    assert s.steps(tank) == 2 and s.side_var("soviet", "rp_left") == 2


def test_b12_out_of_supply_then_isolated_then_back_in_supply():
    # §11: fails on turn 3: Out of Supply; again on turn 4: Isolated (attack, defense, MA halved);
    # traces on turn 5: the marker goes
    s = Scene('  location 01.07 { supply: "german" }', turn=3, phase="supply_phase")
    u = s.unit("t_inf", "german", "08.07")
    wall = [s.unit("t_rifle", "soviet", f"05.{r:02d}") for r in range(1, 15)]  # enemy units across the map
    s.run("supply_phase")
    assert "out_of_supply" in s.markers(u)
    s.at_turn(4)
    s.run("supply_phase")
    assert s.markers(u) >= {"isolated"} and "out_of_supply" not in s.markers(u)
    assert s.q("attack_strength", u, "09.07") == 2 and s.q("defense_strength", u) == 2
    assert s.q("movement_allowance", u) == 3
    for w in wall:
        s.engine.eliminate(s.ctx, w, None)
    s.at_turn(5)
    s.run("supply_phase")
    assert not (s.markers(u) & {"out_of_supply", "isolated"})


def test_b13_an_hq_whose_only_unit_is_destroyed_reforms_five_hexes_away():
    # §12.2.1, §12.2.2: at the shortest distance at least 5 hexes away, not in an EZOC, tracing supply
    s = Scene('  location 16.07 { supply: "soviet" }', active="german", phase="combat_segment")
    hq = s.unit("s_61_hq", "soviet", T)
    s.unit("t_one", "soviet", T)  # one step, defense 1
    a = s.unit("t_inf", "german", N, activated=True)
    b = s.unit("t_inf", "german", NE, activated=True)
    s.dice(5)  # 8:1 -> 7:1, row 5: D3
    s.agent.script = {}
    s.run("resolve_combat", (a, b), T, (), ())
    where = s.loc(hq)
    assert where is not None and dist(s, T, where) == 5
    assert not s.f("in_ezoc", where, s.e("soviet"))
    assert where in s.f("supply_region", "soviet")


def test_b14_a_zero_attack_unit_takes_the_whole_stacks_zoc_away():
    # §6.3.1: a 0-attack unit and a 3-attack unit stacked: the hex exerts no ZOC
    s = Scene()
    s.unit("t_one", "soviet", T)  # attack 3
    assert s.f("in_ezoc", N, s.e("german"))
    s.unit("t_zero", "soviet", T)
    assert not s.f("stack_zoc", T, s.e("soviet")) and not s.f("in_ezoc", N, s.e("german"))


@pytest.mark.parametrize("body,marker,two", [
    ("", None, True),  # clear, no river: one hex more
    (f"  feature village: {T}", None, False),  # stops in a village
    (f"  edge minor_river: {N}/{T}", None, False),  # entered across an unbridged minor river
    (f"  edge minor_river: {N}/{T}\n  edge bridge: {N}/{T}", None, True),  # a bridge cancels it
    ("", "out_of_supply", False),  # out of supply: one hex (§11.3.3)
])
def test_b15_a_mechanized_unit_advances_two_hexes_unless_terrain_or_supply_stops_it(body, marker, two):
    # §10.3, §10.3.1, §11.3.3: after the defender retreated
    s = Scene(body, active="german")
    markers = (marker,) if marker else ()
    m = s.unit("t_mech", "german", N, *markers)
    s.set("defender_retreated", True)
    assert bool(s.f("second_hex_allowed", m, T, N)) is two
    s.agent.script = {"movers": [[m]], "n": [lambda h: dist(s, N, h) == 2]}
    s.run("advance_after_combat", (m,), T, s.e("german"))
    assert dist(s, N, s.loc(m)) == (2 if two else 1)


def test_b15_non_mechanized_units_advance_one_hex():
    s = Scene(active="german")
    i = s.unit("t_inf", "german", N)
    s.set("defender_retreated", True)
    assert not s.f("second_hex_allowed", i, T, N)


def test_b16_after_1_brf_chose_the_61st_army_its_chit_goes_back_into_the_cup():
    # §3.1.3: 1 BRF activates the 61st Army HQ (then the 2nd Guards Cavalry Corps); the next chit
    # drawn is the 61st Army's: it goes back into the cup and a new chit is drawn
    s = Scene(turn=4, active="soviet", phase="hq_activation")
    hq61 = s.unit("s_61_hq", "soviet", "05.05")
    s.unit("s_2gt_hq", "soviet", "12.05")
    cav = s.unit("s_3_gc_2gc", "soviet", "10.10")
    s.engine.move_card(s.ctx, "command_chits", s.e("chit_1brf"), "cup", None)
    s.engine.move_card(s.ctx, "command_chits", s.e("chit_1brf"), "active", None)
    s.run("begin_chit", s.e("chit_1brf"))
    s.agent.script = {"h": [hq61]}
    s.run("activate_formation")
    assert s.var("current_formation") == "61a"
    s.run("end_activation")
    assert list(s.state.vars["pending"]) == ["2gc"]
    s.run("command_segment")  # the 2nd Guards Cavalry Corps' activation, part of the 1 BRF's
    s.run("activate_formation")
    assert s.uvar(cav, "activated") is True
    s.run("end_activation")
    # the cup: the 61st Army's chit and the 2nd Guards Tank Army's; the dice draw the 61st's first
    cup = s.pile("cup")
    assert "chit_61a" in cup and "chit_2gt" in cup
    others = [c for c in cup if c != "chit_61a"]
    s.dice(cup.index("chit_61a") + 1, others.index("chit_2gt") + 1)
    s.run("command_segment")
    assert s.var("current_chit") == "chit_2gt"
    assert "chit_61a" in s.pile("cup")  # back in the cup, usable later but not now
