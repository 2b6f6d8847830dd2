"""The worked examples of the Stalingrad '42 rulebook (digest "Worked examples" EX-01..EX-28, EX-31,
EX-32 and the derived cases DT-1..DT-4, DT-6, DT-7), run with the REAL game rules
(games/stalingrad42) on constructed map fragments. Examples that depend on a diagram not printed in
the text ([U] in the digest) are reproduced on a fragment built to show the situation the text
describes. Rolls come from fixed dice; players' choices from a script (test_stalingrad_support)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from test_stalingrad_support import Scene, ring

from warcodex.interpreter.tables import IllegalColumn
from warcodex.interpreter.values import CellValue, Code, Odds, UnitRef

T = "0606"  # the usual centre / target hex
N, NE, SE, S, SW, NW = ring(T)  # 0605 0705 0706 0607 0506 0505


def cell(scene: Scene, *codes: str) -> CellValue:
    """A CRT cell made of result codes, e.g. cell(s, "D1", "Adv2")."""
    return CellValue(tuple(Code(scene.engine.entities[c]) for c in codes), "crt")


def units_at(s: Scene, h: str) -> tuple:
    return tuple(UnitRef(i) for i in s.state.units_at(h))


def carry_out(s: Scene, codes, attackers, target: str) -> None:
    """Apply a CRT result to a combat, as the combat procedure does after the roll (§8.3 step 3)."""
    defenders = units_at(s, target)
    for a in attackers:
        s.state.put(s.state.units[a.id].with_var("attacked", True))
    att_side = s.engine.entities[s.state.units[attackers[0].id].side]
    def_side = s.engine.entities[s.state.units[defenders[0].id].side]
    s.run("carry_out", cell(s, *codes), tuple(attackers), target, defenders, att_side, def_side)


def mode(s: Scene, name: str):
    return s.engine.entities[name]


# ================================================================ EX-01..EX-06: movement and bonds
def test_ex01_a_moves_three_clear_hexes_for_three_mp():
    s = Scene(phase="movement")
    a = s.unit("test_infantry", "axis", "0606")  # MA 3
    r = s.reach(a)
    assert r["0603"] == 3 and "0602" not in r


def test_ex01_b_extended_movement_adds_3_mp_and_never_enters_an_ezoc():
    s = Scene(phase="movement")
    b = s.unit("test_infantry", "axis", "0107")  # MA 3 + 3
    assert s.reach(b, "extended")["0707"] == 6
    assert "0807" not in s.reach(b, "extended")
    s.unit("test_rifle", "soviet", "0905")
    assert "0805" in s.reach(b, "normal") or s.f("in_ezoc", "0805", s.engine.entities["axis"])
    assert "0805" not in s.reach(b, "extended")  # 0805 is in the Soviet unit's ZOC


def test_ex01_c_mechanized_units_pay_half_an_mp_along_a_road():
    path = " ".join(f"{c:02d}06" for c in range(1, 13))
    s = Scene(f"  path road: {path}", phase="movement")
    c = s.unit("test_panzer", "axis", "0106")  # MA 6
    r = s.reach(c)
    assert r["0206"] == Fraction(1, 2)
    assert r["1206"] == Fraction(11, 2)  # eleven road hexes


def test_ex01_d_pays_2_to_leave_an_ezoc_then_moves_9_with_extended_movement():
    s = Scene(phase="movement")
    d = s.unit("test_motorized", "axis", "0306")  # MA 6, 9 with Extended Movement
    s.unit("test_rifle", "soviet", "0206")  # D starts in its ZOC
    r = s.reach(d, "extended")
    assert r["1006"] == 9  # +2 to leave the EZOC, then 7 clear hexes: the budget exactly spent
    assert "1106" not in r
    assert s.f("exit_cost", d, "0306", "0306") == 2


def test_ex01_e_tactical_movement_is_one_or_two_hexes_without_mp():
    s = Scene("  terrain swamp: 0605 0604", phase="movement")
    e = s.unit("test_infantry", "axis", "0606")
    r = s.reach(e, "tactical")
    assert r["0604"] == 2 and "0603" not in r  # two swamp hexes, no MP accounting


def test_ex01_f_cannot_cross_a_major_river_without_starting_adjacent():
    s = Scene("  edge major_river: cols 6/7 rows 1..12", phase="movement")
    f = s.unit("test_infantry", "axis", "0406")  # two hexes from the river
    assert not any(h[:2] in ("07", "08", "09") for h in s.reach(f))
    g = s.unit("test_infantry", "axis", "0606")  # starts adjacent: crosses for +2 MP
    assert s.reach(g)["0706"] == 3


def test_ex02_pontoon_bridges():
    s = Scene("  edge major_river: cols 6/7 rows 1..12", phase="movement")
    # 1. A starts adjacent to the river and crosses (+3 MP for a mechanized unit)
    a = s.unit("test_motorized", "axis", "0606")
    assert s.reach(a)["0706"] == 4
    s.act("move", u=a, mode=mode(s, "normal"), to="0706")
    assert s.loc(a) == "0706"
    # 2. B, one hex back, uses Tactical Movement: a pontoon exists into A's hex...
    b = s.unit("test_infantry", "axis", "0506")
    assert "0706" in s.reach(b, "tactical")
    assert "0707" not in s.reach(b, "tactical")  # ...but nowhere else
    # 3./4. C stands on the far bank; D spends 6 MP to reach the river and cross into C's hex
    s.unit("test_infantry", "axis", "0708")
    d = s.unit("test_panzer", "axis", "0408")  # MA 6
    r = s.reach(d)
    assert r["0708"] == 6  # 0508, 0608 (2 MP), then 1 + 3 for the crossing
    assert "0709" not in r


def test_ex03_neutralising_a_hexside_bond_lets_a_unit_cross_it():
    # Soviet units N and SE of T bond along the hexside T|NE; Axis B stands in NE
    s = Scene(phase="movement")
    s.unit("test_rifle", "soviet", N)
    s.unit("test_rifle", "soviet", SE)
    soviet = s.engine.entities["soviet"]
    b = s.unit("test_infantry", "axis", NE)
    assert s.f("hexside_bond", T, NE, soviet) is True
    assert T not in s.reach(b)  # crossing the bond is prohibited
    a = s.unit("test_infantry", "axis", "0407")
    s.act("move", u=a, mode=mode(s, "normal"), to=T)  # A moves into T, next to B
    assert s.f("hexside_bond", T, NE, soviet) is False  # enemy units on both sides: neutralised
    assert T in s.reach(b)  # B may now move into A's hex


def test_ex04_neutralisation_minor_rivers_and_crossing_bonds():
    soviet_bonds = Scene("  edge minor_river: 0605/0606 0606/0607")
    s = soviet_bonds
    soviet, axis = s.engine.entities["soviet"], s.engine.entities["axis"]
    # C-D: a hex bond through T crossing two minor-river hexsides is not broken
    s.unit("test_rifle", "soviet", N)
    s.unit("test_rifle", "soviet", S)
    assert s.f("hex_bond", T, soviet) is True
    # E-F: a hex bond is neutralised by an enemy unit in the intervening hex
    s.unit("test_infantry", "axis", T)
    assert s.f("hex_bond", T, soviet) is False
    # D-E: a hexside bond is neutralised by enemy units on both sides of the hexside
    s2 = Scene()
    s2.unit("test_rifle", "soviet", N)
    s2.unit("test_rifle", "soviet", SE)
    soviet = s2.engine.entities["soviet"]
    s2.unit("test_infantry", "axis", T)
    assert s2.f("hexside_bond", T, NE, soviet) is True  # one side only: the bond holds
    s2.unit("test_infantry", "axis", NE)
    assert s2.f("hexside_bond", T, NE, soviet) is False
    # F-G: bonds of both sides crossing each other both stand (§7.4)
    s3 = Scene()
    s3.unit("test_rifle", "soviet", N)
    s3.unit("test_rifle", "soviet", S)  # Soviet hex bond through T
    s3.unit("test_infantry", "axis", NW)
    s3.unit("test_infantry", "axis", SE)  # Axis hexside bond along T|NE? no: NW-SE are opposite
    assert s3.f("hex_bond", T, s3.engine.entities["soviet"]) is True
    assert s3.f("hex_bond", T, s3.engine.entities["axis"]) is True
    assert s3.f("enemy_bond", NE, T, s3.engine.entities["axis"]) is True
    assert s3.f("enemy_bond", NE, T, s3.engine.entities["soviet"]) is True
    assert axis


def test_ex04_bond_with_the_friendly_map_edge_but_not_the_coast():
    # G one hex in from a friendly map edge forms a hexside bond with it; not with a coastline
    s = Scene("  feature friendly_edge_soviet: 0101-0112")
    soviet = s.engine.entities["soviet"]
    s.unit("test_rifle", "soviet", "0206")
    m1, m2 = [h for h in s.engine.board.neighbors("0206") if h.startswith("01")]
    assert s.f("hexside_bond", m1, m2, soviet) is True
    c = Scene("  edge coast: 0101/0102 0102/0103 0103/0104 0104/0105 0105/0106 0106/0107")
    c.unit("test_rifle", "soviet", "0206")
    m1, m2 = [h for h in c.engine.board.neighbors("0206") if h.startswith("01")]
    assert c.f("hexside_bond", m1, m2, c.engine.entities["soviet"]) is False


def test_ex05_major_rivers_and_the_push_rule():
    soviet_of = lambda s: s.engine.entities["soviet"]  # noqa: E731
    # A-B: a hex bond crossing two major-river hexsides is broken
    s = Scene(f"  edge major_river: {N}/{T} {T}/{S}")
    s.unit("test_rifle", "soviet", N)
    s.unit("test_rifle", "soviet", S)
    assert s.f("hex_bond", T, soviet_of(s)) is False
    # B-C: one major-river hexside does not break it
    s = Scene(f"  edge major_river: {N}/{T}")
    s.unit("test_rifle", "soviet", N)
    s.unit("test_rifle", "soviet", S)
    assert s.f("hex_bond", T, soviet_of(s)) is True
    # C-D: no river
    s = Scene()
    s.unit("test_rifle", "soviet", N)
    s.unit("test_rifle", "soviet", S)
    assert s.f("hex_bond", T, soviet_of(s)) is True
    # D-E: a hexside bond along T|NE between N and SE; pushed to T it crosses two major rivers,
    # pushed to NE none: it holds, until an enemy unit in NE forbids that push
    s = Scene(f"  edge major_river: {N}/{T} {T}/{SE}")
    s.unit("test_rifle", "soviet", N)
    s.unit("test_rifle", "soviet", SE)
    assert s.f("hexside_bond", T, NE, soviet_of(s)) is True
    s.unit("test_infantry", "axis", NE)
    assert s.f("hexside_bond", T, NE, soviet_of(s)) is False


def test_ex06_entering_the_map_through_an_enemy_bond_and_a_trapping_edge_bond():
    box = '  box EA_A "Entry Area A" { entry_area: "A" } adjacent_to: 0101-0112\n  terrain entry_area: EA_A'
    s = Scene(box, active="soviet", phase="movement")
    soviet = s.engine.entities["soviet"]
    # Axis A and B form a hex bond through 0106 (0105 and 0107): Soviet units may not enter there
    s.unit("test_infantry", "axis", "0105")
    s.unit("test_infantry", "axis", "0107")
    r = s.unit("test_rifle", "soviet", "EA_A")
    assert "0106" not in s.reach(r)
    assert "0110" in s.reach(r)  # elsewhere the edge is open (entering into an EZOC is allowed)
    # Soviet C, one hex in from its friendly edge, bonds with it and traps German division B
    s2 = Scene(box, phase="movement")
    s2.unit("test_rifle", "soviet", "0206")
    b = s2.unit("test_infantry", "axis", "0105")
    m1, m2 = [h for h in s2.engine.board.neighbors("0206") if h[:2] == "01"]
    assert s2.f("hexside_bond", m1, m2, s2.engine.entities["soviet"]) is True
    assert not any(h[:2] == "01" and int(h[2:]) > 6 for h in s2.reach(b))  # cannot slip past along the edge
    assert soviet


# ================================================================ EX-07..EX-16: odds, shifts, strengths
@pytest.mark.parametrize("attack, defense, column", [(7, 2, "3-1"), (9, 4, "2-1"), (6, 4, "1-1"), (5, 6, "1-2")])
def test_ex07_odds_round_down_to_a_printed_column(attack, defense, column):
    s = Scene()
    table = s.engine.tables["crt"]
    assert table.column_text[table.column_index(Odds.of(attack, defense), None)] == column


def test_ex08_shifts_count_from_the_virtual_column_then_the_limits_apply():
    # raw 8-1 with one left shift for a fortification: 7-1, not 6-1
    s = Scene()
    s.mark_hex(T, "fortification_built")
    s.unit("test_rifle", "soviet", T)  # 5
    four = [s.unit("test_panzer", "axis", h) for h in (N, NE, SE, S)]  # 40; no armor shift (fortified)
    assert s.q("total_attack", tuple(four), T) == 40
    assert str(s.q("crt_column", tuple(four), T, 0, 0, 0)) == "7-1"
    assert s.column(four, T) == "7-1"
    # raw 7-1 with one right shift: the virtual 8-1, resolved on 7-1
    s2 = Scene()
    s2.unit("test_rifle", "soviet", T)
    att = [s2.unit("test_infantry", "axis", h) for h in (N, NE, SE, S, SW)] + [s2.unit("test_inf5", "axis", NW)]
    assert s2.q("total_attack", tuple(att), T) == 35
    assert str(s2.q("crt_column", tuple(att), T, 1, 0, 0)) == "8-1"
    assert s2.column(att, T, air=1) == "7-1"


def test_ex09_six_panzer_divisions_attacking_a_city_use_40():
    s = Scene(f"  terrain major_city: {T}")
    s.unit("test_rifle", "soviet", T)
    attackers = [s.unit("test_panzer", "axis", h) for h in (N, NE, SE, S, SW, NW)]
    assert sum(s.q("attack_strength", a, T) for a in attackers) == 60
    assert s.q("total_attack", tuple(attackers), T) == 40


def test_ex10_two_defense_6_units_in_a_city_defend_with_20():
    s = Scene(f"  terrain major_city: {T}")
    defenders = [s.unit("test_rifle6", "soviet", T) for _ in range(2)]
    attackers = (s.unit("test_inf5", "axis", N),)
    assert [s.q("defense_strength", d, attackers) for d in defenders] == [12, 12]
    assert s.q("total_defense", attackers, T) == 20


def test_ex11_auto_ds_with_the_armor_shifts_then_a_unit_moves_through_the_gap():
    s = Scene(active="axis", phase="movement")
    x = s.unit("test_rifle", "soviet", T, steps=1)  # defence 3, one step left
    group = [s.unit("test_panzer", "axis", N), s.unit("test_infantry", "axis", NE),
             s.unit("test_infantry", "axis", SE), s.unit("test_cavalry", "axis", S)]  # 10 + 6 + 6 + 3
    assert s.q("total_attack", tuple(group), T) == 25 and s.q("total_defense", tuple(group), T) == 3
    assert str(Odds.of(25, 3)) == "8-1"
    assert str(s.f("auto_ds_column", tuple(group), T)) == "10-1"  # armor +1R, elite +1R
    assert T in s.f("auto_ds_targets", s.engine.entities["axis"])
    s.act("declare_auto_ds", target=T, attackers=tuple(group))
    assert s.loc(x) is None  # X suffers the DS and, with one step, is destroyed
    assert all("auto_ds" in s.markers(g) for g in group)
    assert not any(s.f("may_move", g) for g in group)  # they may move no further
    assert not any(s.f("may_attack", g) for g in group)  # nor take part in normal combat
    # German B moves through the gap and attacks Y at 10 : 3 -> 3-1, two right shifts -> 5-1
    b = s.unit("test_panzer", "axis", "0404")
    y = s.unit("test_rifle", "soviet", "0707", steps=1)
    assert T in s.reach(b)
    s.act("move", u=b, mode=mode(s, "normal"), to=T)
    s.state.phase = "combat"
    assert s.column([b], "0707") == "5-1"
    assert y


def test_ex12_halving_and_doubling():
    s = Scene(f"  edge major_river: {N}/{T} {NE}/{T}")
    s.unit("test_rifle", "soviet", T)
    two = (s.unit("test_inf5", "axis", N), s.unit("test_inf5", "axis", NE))
    assert [s.q("attack_strength", a, T) for a in two] == [3, 3]
    assert s.q("total_attack", two, T) == 6  # not 10 / 2 = 5
    s2 = Scene(f"  terrain major_city: {T}\n  edge minor_river: {N}/{T}")
    d = s2.unit("test_inf5", "soviet", T)
    assert s2.q("defense_strength", d, (s2.unit("test_inf5", "axis", N),)) == 10  # doubled once
    s3 = Scene(f"  edge major_river: {N}/{T}")
    s3.unit("test_rifle", "soviet", T)
    nine = s3.unit("test_inf9", "axis", N, "out_of_supply")
    assert s3.q("attack_strength", nine, T) == 3  # 9 -> 5 -> 3 (each halving rounds up)


def test_ex13_red_dot_panzer_shifts():
    s = Scene()
    s.unit("test_rifle", "soviet", T)
    pz = s.unit("test_panzer", "axis", N)
    assert str(Odds.of(10, 5)) == "2-1"
    assert s.column([pz], T) == "4-1"
    s2 = Scene()
    s2.unit("test_tank_corps", "soviet", T)
    assert s2.column([s2.unit("test_panzer", "axis", N)], T) == "3-1"  # only the elite shift


def test_ex14_armor_attacking_armor_across_a_river_gives_no_shift_to_either_side():
    s = Scene(f"  edge minor_river: {N}/{T}")
    s.unit("test_tank_corps", "soviet", T)  # 5, doubled by the river: 10
    pz = s.unit("test_panzer_plain", "axis", N)
    assert s.column([pz], T) == "1-1"
    assert s.f("attacker_armor_shift", (pz,), T) is False
    assert s.f("defender_armor_shift", (pz,), T) is False


def test_ex15_all_attackers_across_rivers_double_the_defender():
    s = Scene(f"  edge major_river: {N}/{T} {NE}/{T}\n  edge minor_river: {SE}/{T}")
    s.unit("test_inf5", "soviet", T)
    att = (s.unit("test_inf5", "axis", N), s.unit("test_inf5", "axis", NE), s.unit("test_inf5", "axis", SE))
    assert s.q("total_attack", att, T) == 11 and s.q("total_defense", att, T) == 10
    assert s.column(att, T) == "1-1"
    s2 = Scene(f"  edge major_river: {N}/{T} {NE}/{T}")
    s2.unit("test_inf5", "soviet", T)
    att = (s2.unit("test_inf5", "axis", N), s2.unit("test_inf5", "axis", NE), s2.unit("test_inf5", "axis", S))
    assert s2.q("total_attack", att, T) == 11 and s2.q("total_defense", att, T) == 5
    assert s2.column(att, T) == "2-1"


def test_ex16_major_river_and_swamp_attack_without_armor_shift():
    s = Scene(f"  terrain swamp: {S}\n  edge major_river: {N}/{T}")
    s.unit("test_inf5", "soviet", T)
    a = s.unit("test_inf5", "axis", N)  # 5 halved: 3
    b = s.unit("test_panzer_plain", "axis", S)  # 10, from a swamp: no armor shift
    assert s.q("total_attack", (a, b), T) == 13 and s.q("total_defense", (a, b), T) == 10
    assert s.column([a, b], T) == "1-1"


def test_dt1_antitank_defender_negates_the_basic_shift_not_the_elite_one():
    s = Scene()
    s.unit("test_antitank", "soviet", T)  # defence 5
    assert s.column([s.unit("test_panzer", "axis", N)], T) == "3-1"


def test_dt2_fortified_rough_hex_attacked_across_a_minor_river():
    s = Scene(f"  terrain rough: {T}\n  edge minor_river: {N}/{T}")
    s.mark_hex(T, "fortification_built")
    s.unit("test_inf5", "soviet", T)
    pz = s.unit("test_panzer", "axis", N)
    assert s.q("total_defense", (pz,), T) == 10  # doubled (all across a river)
    assert s.column([pz], T) == "1-3"  # 1-1, fortification 1L, rough 1L, no armor shifts


def test_dt7_odds_below_1_3_are_not_allowed():
    s = Scene()
    table = s.engine.tables["crt"]
    assert not table.allowed(Odds.of(3, 10)) and table.allowed(Odds.of(4, 10))
    with pytest.raises(IllegalColumn):
        table.column_index(Odds.of(3, 10), None)
    s.unit("test_rifle6", "soviet", T, steps=2)
    s.unit("test_rifle6", "soviet", T)
    s.unit("test_cavalry", "axis", N, steps=1)  # 1 : 12
    assert s.legal("attack") == []


# ================================================================ EX-17, EX-18: Determined Defense
def test_ex17_desperate_defense_costs_three_steps():
    # an Elite and a regular division in a Forest hex with no retreat (enemy units all round);
    # the CRT gives D1; DD rolls 2 then 4
    s = Scene(f"  terrain forest: {T}", turn=10, active="soviet", dice=[2, 4])
    elite = s.unit("test_elite_infantry", "axis", T)
    regular = s.unit("test_infantry", "axis", T)
    attackers = [s.unit("test_rifle", "soviet", h) for h in (N, NE, SE, S, SW, NW)]
    s.agent.script = {"v": [regular], "use": ["determined defense"], "lead": [elite, elite], "support": ["none"]}
    assert s.f("desperate_defense", T, 3) is True
    carry_out(s, ["D1", "Adv2"], attackers, T)
    # roll 2 + 1 (Elite) = 3: F -/- (a failure: the lead loses a step, roll again);
    # roll 4 + 1 = 5: S -/1 (the retreat is cancelled, the lead loses another step)
    assert s.var("dd_outcome") == "success"
    assert s.loc(elite) == T and s.loc(regular) == T
    assert (3 - s.steps(regular)) + (3 - s.steps(elite)) == 3
    assert s.steps(elite) == 1 and s.steps(regular) == 2
    assert s.state.rng.used == 2


def test_ex17_the_two_dd_cells_the_text_gives():
    s = Scene()
    table = s.engine.tables["dd_table"]
    assert str(table.lookup(["other", 3], None)) == "DD_F"  # F -/-
    assert str(table.lookup(["other", 5], None)) == "DD_S/Def1"  # S -/1


def test_ex18_partial_success_outside_a_major_city_is_a_delay():
    s = Scene(turn=10, active="soviet", dice=[4])  # Clear column, roll 4: Partial success
    d = s.unit("test_infantry", "axis", T)
    a = s.unit("test_rifle", "soviet", N)
    s.agent.script = {"use": ["determined defense"], "delay_hexes": [2], "to": [T]}
    carry_out(s, ["DR2", "Adv3"], [a], T)
    assert s.var("dd_outcome") == "delay"
    assert s.loc(d) != T and s.engine.board.distance(s.loc(d), T) in (1, 2)
    assert "disrupted" in s.markers(d)
    assert s.loc(a) == T  # the attacker advances one hex, in any direction
    assert not any(what == "group" for what, _ in s.agent.asked)  # no Breakthrough


def test_ex18_partial_success_in_a_major_city_is_city_battle_1():
    s = Scene(f"  terrain major_city: {T}", turn=10, active="soviet", dice=[1])  # German in a City: Elite +1 -> 2
    d = s.unit("test_infantry", "axis", T)
    a = s.unit("test_rifle", "soviet", N)
    s.agent.script = {"use": ["determined defense"]}
    carry_out(s, ["DR2", "Adv3"], [a], T)
    assert s.var("dd_outcome") == "city"
    assert T in s.state.loc_markers and "city_battle_1" in s.state.loc_markers[T]
    assert s.loc(d) == T and s.loc(a) == N  # no retreat, no advance


# ================================================================ EX-21..EX-25: advance, Breakthrough
def test_ex21_advance_rates():
    s = Scene()
    mech, cav, inf = s.unit("test_motorized", "axis", N), s.unit("test_cavalry", "axis", NE), s.unit("test_infantry", "axis", NW)
    assert [s.f("advance_rate", u) for u in (mech, cav, inf)] == [4, 3, 2]
    oos = s.unit("test_motorized", "axis", SE, "out_of_supply")
    assert s.f("advance_rate", oos) == 2


def test_ex21_three_units_advance_4_3_and_2_hexes_after_ds_adv4():
    s = Scene(active="axis", decline=True)
    s.unit("test_rifle", "soviet", T, steps=1)
    mech, cav, inf = s.unit("test_motorized", "axis", N), s.unit("test_cavalry", "axis", SW), s.unit("test_infantry", "axis", S)
    s.agent.script = {"group": [[]], "to": ["0609", "0509", "0609"]}
    carry_out(s, ["DS", "Adv4"], [mech, cav, inf], T)
    d = s.engine.board.distance
    offered = [opts for what, opts in s.agent.asked if what == "to"]
    starts = [N, SW, S]
    assert [max(d(h, start) for h in opts) for opts, start in zip(offered, starts)] == [4, 3, 2]
    assert (s.loc(mech), s.loc(cav), s.loc(inf)) == ("0609", "0509", "0609")


def test_ex22_advance_stops_in_an_ezoc_except_the_vacated_hex_and_bonds_only_there():
    s = Scene(active="axis")
    s.unit("test_rifle", "soviet", "0609")  # its ZOC covers 0608
    a = s.unit("test_motorized", "axis", N)
    s.set("vacated_hex", T)
    s.state.put(s.state.units[a.id].with_var("adv_left", 4))
    r = s.reach(a, "advance")
    assert T in r and not s.engine.modes["advance"].reachable(s.ctx, a)[T][2]  # no stop in the vacated hex
    assert "0607" in r and "0608" in r and s.engine.modes["advance"].reachable(s.ctx, a)["0608"][2]  # stops in the EZOC
    # a Soviet hex bond through T may be entered only because T is the vacated hex
    s.unit("test_rifle", "soviet", NE)
    s.unit("test_rifle", "soviet", SW)
    assert s.f("hex_bond", T, s.engine.entities["soviet"]) is True
    assert T in s.reach(a, "advance")
    s.set("vacated_hex", "0101")
    assert T not in s.reach(a, "advance")


def test_ex23_breakthrough_group_loses_a_hex_when_it_does_not_enter_the_vacated_hex():
    def run(via, moves):
        s = Scene(active="axis", decline=True)
        s.unit("test_rifle", "soviet", T, steps=1)
        g = s.unit("test_motorized", "axis", N)
        s.agent.script = {"group": [[g]], "via": [via], "to": list(moves)}
        carry_out(s, ["DS", "Adv3"], [g], T)
        return s, g
    # not through the vacated hex: 3 - 1 = 2 hexes
    s, g = run("do not enter the vacated hex", ["0604", "0603", "0602"])
    assert s.loc(g) == "0603"
    # through the vacated hex: 3 hexes (T, then two more)
    s, g = run("enter the vacated hex", ["0607", "0608", "0609"])
    assert s.loc(g) == "0608"


def test_ex24_form_the_group_then_two_hexes_and_a_breakthrough_at_7_1():
    y = "0609"
    s = Scene(active="axis", decline=True, dice=[3])
    s.unit("test_rifle", "soviet", T, steps=1)  # X: destroyed by the DS
    yy = s.unit("test_rifle", "soviet", y)  # Y: defence 5
    pz, pz2, mot = s.unit("test_panzer", "axis", N), s.unit("test_panzer_plain", "axis", NW), s.unit("test_motorized", "axis", NE)
    c = s.unit("test_infantry", "axis", "0604")
    c2 = s.unit("test_infantry", "axis", SW)
    group = [pz, pz2, mot]
    s.agent.script = {"group": [group], "via": ["enter the vacated hex"], "to": ["0607", "0608", "0607"],
                      "t": [y], "go": ["enter the vacated hex"]}
    carry_out(s, ["DS", "Adv4"], group + [c2], T)
    # the breakthrough on Y: 26 : 5 = 5-1, armor and elite shifts: 7-1
    combat_rolls = s.state.rng.used
    assert combat_rolls == 1
    assert all(s.loc(g) == y for g in group)  # entered Y for free after its retreat
    assert s.loc(yy) != y
    assert s.loc(c2) == "0607"  # C, outside the group, then advances (2 hexes: T, 0607)
    assert c


def test_ex24_breakthrough_column():
    s = Scene()
    s.unit("test_rifle", "soviet", "0609")
    group = [s.unit("test_panzer", "axis", "0608"), s.unit("test_panzer_plain", "axis", "0608"), s.unit("test_motorized", "axis", "0608")]
    assert s.q("total_attack", tuple(group), "0609") == 26
    assert s.column(group, "0609") == "7-1"  # 5-1 and two shifts


def test_ex25_four_hexes_and_three_breakthrough_combats():
    x, y, z = SE, SW, "0507"  # X and Y next to the vacated hex T, Z next to Y only
    s = Scene(active="axis", decline=True, dice=[3, 3, 3])
    s.unit("test_rifle", "soviet", T, steps=1)
    for h in (x, y, z):
        s.unit("test_rifle", "soviet", h, steps=1)
    group = [s.unit("test_panzer", "axis", N), s.unit("test_panzer", "axis", NE)]
    s.agent.script = {"group": [group], "via": ["enter the vacated hex"], "t": [x, y, z],
                      "go": ["stay", "enter the vacated hex", "enter the vacated hex"]}
    carry_out(s, ["DS", "Adv4"], group, T)
    assert s.state.rng.used == 3  # three Breakthrough Combats
    assert all(s.loc(g) == z for g in group)  # form (1), X (2), Y (3, entered free), Z (4, entered)
    assert not s.state.units_at(x)


# ================================================================ EX-19, EX-20: retreats
def corridor(open_hexes) -> str:
    """Sea everywhere near T except the listed hexes: a retreat corridor."""
    from test_stalingrad_support import GRID
    sea = [GRID.hex_id(c, r) for c in range(1, 13) for r in range(1, 13)
           if GRID.hex_id(c, r) not in open_hexes and max(abs(c - 6), abs(r - 6)) <= 4]
    return "  terrain sea: " + " ".join(sea)


def test_ex19_the_only_retreat_ends_on_a_friendly_unit_that_negates_the_ezoc():
    body = corridor([T, N, "0607", "0608", "0609"])
    s = Scene(body, active="axis")
    a = s.unit("test_rifle", "soviet", T)
    s.unit("test_infantry", "axis", N)  # the attacker
    s.unit("test_infantry", "axis", "0609")  # its ZOC covers 0608
    c = s.unit("test_rifle", "soviet", "0608")
    soviet = s.engine.entities["soviet"]
    s.run("retreat_unit", a, 2, T, "disrupt", soviet)
    assert s.loc(a) == "0608" and "disrupted" in s.markers(a)  # the one legal path, into C's hex
    # without C the same retreat ends in a vacant EZOC hex with no hex to save it: eliminated
    s2 = Scene(body, active="axis")
    a2 = s2.unit("test_rifle", "soviet", T)
    s2.unit("test_infantry", "axis", N)
    s2.unit("test_infantry", "axis", "0609")
    s2.run("retreat_unit", a2, 2, T, "disrupt", s2.engine.entities["soviet"])
    assert s2.loc(a2) is None
    assert c


def test_ex19_in_the_open_the_owner_chooses_among_several_retreat_hexes():
    s = Scene(active="axis")
    b = s.unit("test_rifle", "soviet", T)
    s.unit("test_infantry", "axis", N)
    s.run("retreat_unit", b, 2, T, "disrupt", s.engine.entities["soviet"])
    first, second = [opts for what, opts in s.agent.asked if what == "h"][:2]
    assert len(first) >= 3 and len(second) >= 2
    assert s.engine.board.distance(s.loc(b), T) == 2


def test_ex20_two_consecutive_ezoc_hexes_eliminate_and_one_extra_hex_saves():
    body = corridor([T, N, "0607", "0608", "0609", "0707"])
    s = Scene(body, active="axis")
    a = s.unit("test_rifle", "soviet", T)
    s.unit("test_infantry", "axis", N)
    s.unit("test_infantry", "axis", "0707")  # its ZOC covers 0607 and 0608
    s.run("retreat_unit", a, 2, T, "disrupt", s.engine.entities["soviet"])
    assert s.loc(a) is None  # its only path runs through two consecutive vacant EZOC hexes
    s2 = Scene(body, active="axis")
    b = s2.unit("test_rifle", "soviet", T)
    s2.unit("test_infantry", "axis", N)
    s2.unit("test_infantry", "axis", "0707")
    s2.unit("test_rifle", "soviet", "0607")  # C negates the EZOC in its hex
    s2.run("retreat_unit", b, 2, T, "disrupt", s2.engine.entities["soviet"])
    assert s2.loc(b) == "0609"  # through C's hex, into 0608 (an EZOC), then one extra hex


def test_retreating_again_in_the_same_phase_eliminates_and_adds_no_defence():
    s = Scene()
    u = s.unit("test_rifle", "soviet", T)
    s.state.put(s.state.units[u.id].with_var("retreated", True))
    assert s.q("defense_strength", u, ()) == 0  # §12.4
    s.run("retreat_unit", u, 2, T, "disrupt", s.engine.entities["soviet"])
    assert s.loc(u) is None


# ================================================================ EX-26..EX-28: supply, attrition, range
def test_ex26_lines_of_supply_avoid_bonds_and_two_consecutive_ezoc_hexes():
    src = "  feature supply_source: 1201-1212\n  location 1201-1212 { side: \"soviet\" }"
    s = Scene(src, active="soviet")
    soviet = s.engine.entities["soviet"]
    a = s.unit("test_rifle", "soviet", "0806")
    s.unit("test_infantry", "axis", "0905")  # one EZOC hex on the way is allowed
    assert s.f("supplied_hex", s.loc(a), soviet) is True
    # an Axis hex bond across every route east cuts the LOS
    s2 = Scene(src, active="soviet")
    b = s2.unit("test_rifle", "soviet", "0606")
    for r in range(1, 13, 2):
        s2.unit("test_infantry", "axis", f"09{r:02d}")
    assert s2.f("supplied_hex", "0606", s2.engine.entities["soviet"]) is False
    s2.run("supply_phase", s2.engine.entities["soviet"])
    assert "out_of_supply" in s2.markers(b) and "isolated" in s2.markers(b)
    # a 5-hex overland part (3 in Rain or Mud) then a road to the source
    s3 = Scene(src + "\n  path road: 0806 0906 1006 1106 1206", active="soviet")
    soviet = s3.engine.entities["soviet"]
    assert s3.f("supplied_hex", "0306", soviet) is True  # 5 hexes overland to 0806, then the road
    assert s3.f("supplied_hex", "0206", soviet) is False  # 6 hexes
    s3.set("weather", "rain")
    assert s3.f("supplied_hex", "0506", soviet) is True and s3.f("supplied_hex", "0406", soviet) is False


def pocket_scene(weather="clear_weather"):
    """An isolated Axis pocket around the City 0606: Soviet units on every hex two away from it."""
    body = ('  terrain major_city: 0606\n'
            '  feature supply_source: 1201-1212\n  location 1201-1212 { side: "soviet" }\n'
            '  feature supply_source: 0101-0112\n  location 0101-0112 { side: "axis" }')
    s = Scene(body, weather=weather, active="axis")
    u = s.unit("test_infantry", "axis", N)  # next to the Soviet ring
    s.unit("test_asu", "axis", S)  # the Army HQ
    board = s.engine.board
    for h in board.locations:
        if board.distance(h, T) == 2:
            s.unit("test_rifle", "soviet", h)
    return s, u


def test_ex27_the_stalingrad_pocket_has_the_maximum_drm_of_4():
    s, u = pocket_scene()
    axis = s.engine.entities["axis"]
    assert s.f("isolated_from", N, axis, s.f("supply_network", axis)) is True
    # the City hex 0606 is the pocket's airfield (Clear, Town or City, not next to the enemy)
    assert s.f("airfield_reachable", u) and s.f("city_reachable", u) and s.f("hq_reachable", u)
    assert s.q("attrition_drm", u) == 4  # airfield +2, HQ +1, City +1: the maximum
    s.dice(1)
    s.run("supply_phase", axis)  # only the unit next to the enemy rolls: 1 + 4 = 5, no effect
    assert s.steps(u) == 3 and "isolated" in s.markers(u) and "out_of_supply" in s.markers(u)


def test_ex27_in_snow_the_axis_airfield_gives_only_1():
    s, u = pocket_scene("snow")
    assert s.q("attrition_drm", u) == 3
    s.dice(1)
    s.run("supply_phase", s.engine.entities["axis"])
    assert s.steps(u) == 2  # 1 + 3 = 4: one step lost


def test_ex28_asu_range_path_may_enter_one_ezoc_hex():
    s = Scene()
    hq = s.unit("test_asu", "axis", "0601")  # range 5
    s.unit("test_rifle", "soviet", "0705")  # its ZOC covers 0605 (and the friendly-held 0606)
    target_unit = s.unit("test_infantry", "axis", "0606")
    assert s.engine.board.distance("0601", "0606") == 5
    assert s.f("asu_reaches", hq, "0606") is True
    # two consecutive EZOC hexes on every path: out of range
    s.unit("test_rifle", "soviet", "0703")  # now 0603, 0604 and 0605 are EZOC hexes in a row
    assert s.f("asu_reaches", hq, "0606") is False
    assert target_unit


# ================================================================ EX-31, EX-32: weather, victory
def test_ex31_rain_places_the_mud_marker_and_mud_follows_when_the_rain_stops():
    s = Scene(turn=20, dice=[1])
    s.set("weather", "clear_weather")
    s.run("roll_weather")
    assert s.var("weather") == "rain" and s.var("mud_marker_turn") == 21
    # turn 21 rolls Rain again (1, +1 after rain = 2): the marker moves to 22
    s.state.position.turn = 21
    s.dice(1)
    s.run("roll_weather")
    assert s.var("weather") == "rain" and s.var("mud_marker_turn") == 22
    # turn 22 rolls Clear (4 + 1 = 5): it is a Mud turn
    s.state.position.turn = 22
    s.dice(4)
    s.run("roll_weather")
    assert s.var("weather") == "mud"
    assert s.var("underlying_weather") == "clear_weather"  # Mud does not affect air units
    assert s.f("german_air_available") == 2


def test_ex32_automatic_victory_at_benchmark_plus_or_minus_6():
    s = Scene()
    winner = lambda v: s.f("automatic_winner", v, 8)  # noqa: E731
    assert str(winner(14)) == "axis" and winner(13) is None
    assert str(winner(2)) == "soviet" and winner(3) is None


# ================================================================ DT-3, DT-4, DT-6
def test_dt3_rain_and_mud_halve_the_advance_rounding_up():
    s = Scene(weather="rain")
    assert [s.f("weather_adv", n) for n in (2, 3, 4)] == [1, 2, 2]
    s.set("weather", "mud")
    assert s.f("weather_adv", 4) == 2


def test_dt3_limited_advance_is_unaffected_by_rain():
    s = Scene(weather="rain", active="axis")
    d = s.unit("test_rifle", "soviet", T, steps=1)
    a = s.unit("test_infantry", "axis", N)
    s.agent.script = {"v": [a, d], "enter": ["enter the vacated hex"]}
    carry_out(s, ["EX"], [a], T)
    assert s.loc(d) is None and s.loc(a) == T  # Limited Advance into the vacated hex


def test_dt4_snow_takes_one_hex_off_never_below_one_even_with_the_deviation_penalty():
    s = Scene(weather="snow", active="axis", decline=True)
    assert s.f("weather_adv", 2) == 1 and s.f("weather_adv", 3) == 2
    s.unit("test_rifle", "soviet", T, steps=1)
    g = s.unit("test_motorized", "axis", N)
    s.agent.script = {"group": [[g]], "via": ["do not enter the vacated hex"], "to": ["0604", "0603"]}
    carry_out(s, ["DS", "Adv3"], [g], T)  # Adv 3 in Snow: 2; not entering the vacated hex: 1
    assert s.loc(g) == "0604"


def test_dt6_a_lone_full_retreat_unit_withdraws_two_hexes_when_an_enemy_moves_adjacent():
    s = Scene(active="axis", phase="movement")
    fr = s.unit("test_rifle", "soviet", "0609", "full_retreat")
    pz = s.unit("test_panzer", "axis", "0605")
    s.act("move", u=pz, mode=s.engine.entities["normal"], to="0608")
    assert "0609" in s.engine.board.neighbors(s.loc(pz))
    assert s.engine.board.distance(s.loc(fr), "0609") == 2  # retreated 2 hexes at once
    # the path was chosen by the active player (RU)
    assert any(what == "h" for what, _ in s.agent.asked)
    # stacked with a non-Full-Retreat combat unit it stays
    s2 = Scene(active="axis", phase="movement")
    fr2 = s2.unit("test_rifle", "soviet", "0609", "full_retreat")
    s2.unit("test_rifle", "soviet", "0609")
    pz2 = s2.unit("test_panzer", "axis", "0605")
    s2.act("move", u=pz2, mode=s2.engine.entities["normal"], to="0608")
    assert s2.loc(fr2) == "0609"
