"""Stalingrad '42 worked examples of the data-side rules (§17-21, §24.1.2, §25-34, S3), run with
the REAL game rules (games/stalingrad42) on constructed map fragments (test_stalingrad_support):
EX-29 (§18.6.5), EX-30 (§19.4), EX-33 (§S3.5), EX-34 (§27), EX-35 (§32.1), EX-36 (§29.1.3) and
DT-5 (§24.1.2). Rolls come from fixed dice; players' choices from a script."""

from __future__ import annotations

from fractions import Fraction

from test_stalingrad_support import Scene, ring

from warcodex.interpreter.values import UnitRef

T = "0606"
N, NE, SE, S, SW, NW = ring(T)


def label_is(scene: Scene, label: str):
    return lambda o: isinstance(o, UnitRef) and scene.state.units[o.id].label == label


def named(scene: Scene, t: str, side: str, at: str, label: str, *markers: str, steps: int | None = None) -> UnitRef:
    u = scene.unit(t, side, at, *markers, steps=steps)
    from dataclasses import replace
    scene.state.put(replace(scene.state.units[u.id], label=label))
    return u


def fire(scene: Scene, event: str, *args) -> None:
    scene.engine.fire(scene.ctx, event, tuple(args))


# ---------------------------------------------------------------- EX-29 (§18.6.5)
def test_ex29_an_army_hq_and_the_sp_under_it_shift_two_combats():
    """The 6th Army HQ (Ready) with a Ready SP under it, two Axis attacks in range: combat A gets
    +1R from the HQ, which flips to Used; combat B gets +1R from the SP, which is removed."""
    s = Scene(active="axis", phase="combat")
    hq = named(s, "army_hq", "axis", "0303", "6th Army HQ")
    sp = s.unit("axis_supply_point", "axis", "0303", "sp_ready")
    a_att = s.unit("infantry_division", "axis", "0505")
    s.unit("rifle_division", "soviet", "0506")  # target of combat A
    b_att = s.unit("infantry_division", "axis", "0704")
    s.unit("rifle_division", "soviet", "0804")  # target of combat B

    options_a = s.f("asu_options", s.engine.entities["axis"], (a_att,), "0506")
    assert hq in options_a and sp in options_a
    assert s.f("arty_shift", hq) == 1
    base_a = s.column((a_att,), "0506")
    assert s.column((a_att,), "0506", arty=s.f("arty_shift", hq)) != base_a  # one column right
    s.run("spend_asu", hq)
    assert "used" in s.markers(hq)

    options_b = s.f("asu_options", s.engine.entities["axis"], (b_att,), "0804")
    assert hq not in options_b and sp in options_b  # the HQ is Used; the SP under it still shifts
    assert s.f("arty_shift", sp) == 1
    s.run("spend_asu", sp)
    assert s.box(sp) == "spent" and s.loc(sp) is None


def test_ex29_the_ru_literal_reading_needs_a_ready_asu():
    s = Scene(active="axis", phase="combat")
    s.state.options["ru_sp_shift_needs_ready_asu"] = True
    hq = s.unit("army_hq", "axis", "0303", "used")
    sp = s.unit("axis_supply_point", "axis", "0303", "sp_ready")
    a = s.unit("infantry_division", "axis", "0505")
    s.unit("rifle_division", "soviet", "0506")
    assert sp not in s.f("asu_options", s.engine.entities["axis"], (a,), "0506")
    assert hq not in s.f("asu_options", s.engine.entities["axis"], (a,), "0506")


# ---------------------------------------------------------------- EX-30 (§19.4)
ENTRY = 'box EA_A "Entry Area A" { entry_area: "A" } adjacent_to: 1201-1212\n  terrain entry_area: EA_A\n'


def test_ex30_a_leader_removed_on_turn_3_returns_on_turn_5():
    s = Scene(ENTRY, turn=3, active="soviet", phase="combat")
    chuikov = named(s, "leader_chuikov", "soviet", "0808", "Chuikov")
    s.engine.eliminate(s.ctx, chuikov, None)
    assert s.loc(chuikov) is None
    for turn, back in ((4, False), (5, True)):
        s.state.position.turn = turn
        s.state.phase = "initial"
        fire(s, "phase_start", "initial")
        assert (s.loc(chuikov) == "EA_A") is back, f"turn {turn}"
    assert s.steps(chuikov) == 1


def test_supply_points_do_not_come_back_by_themselves():
    s = Scene(ENTRY, turn=3, active="soviet")
    sp = s.unit("soviet_supply_point", "soviet", "0808")
    s.engine.eliminate(s.ctx, sp, None)
    s.state.position.turn = 5
    fire(s, "phase_start", "initial")
    assert s.loc(sp) is None  # SPs return only through Resource Points (§18.1)


# ---------------------------------------------------------------- EX-33 (§S3.5)
def test_ex33_uranus_victory_needs_stalingrad_on_turn_34_and_11_vp_on_turn_36():
    s = Scene()
    # the Axis starts with 15 VP and may lose 4 of them
    assert s.f("uranus_axis_wins", 15 - 4, True) is True
    assert s.f("uranus_axis_wins", 15 - 5, True) is False
    assert s.f("uranus_axis_wins", 15, False) is False  # no Stalingrad hex at the start of Turn 34


# ---------------------------------------------------------------- EX-34 (§27)
def test_ex34_disengagement_yes_no_and_a_step_loss():
    """A, B and C are next to the enemy and attempt to disengage: 4-6 Yes (retreat 1-2 hexes,
    Disrupted), 3 Yes with a step loss, 1-2 No. A Disrupted unit rolls at -1."""
    s = Scene(active="axis", phase="combat", dice=[5, 3, 2])
    s.state.options["disengagement"] = True
    s.unit("rifle_division", "soviet", T)
    a = s.unit("infantry_division", "axis", S)
    b = s.unit("infantry_division", "axis", N)
    c = s.unit("infantry_division", "axis", NE, "disrupted")
    legal = {x["u"] for x in s.legal("attempt_disengagement")}
    assert {a, b, c} <= legal
    s.run("disengage", (a,))  # 5: Yes
    assert s.loc(a) != S and "disrupted" in s.markers(a) and s.steps(a) == 3
    s.run("disengage", (b,))  # 3: Yes, one step first
    assert s.loc(b) != N and s.steps(b) == 2
    s.run("disengage", (c,))  # 2 - 1 (Disrupted) = 1: No
    assert s.loc(c) == NE


def test_ex34_cavalry_and_mechanized_add_one_and_a_surrounded_unit_cannot_try():
    s = Scene(active="axis", phase="combat")
    pz = s.unit("panzer_division", "axis", "0404")
    inf = s.unit("infantry_division", "axis", "0404")
    assert s.q("disengagement_drm", (pz,)) == 1
    assert s.q("disengagement_drm", (pz, inf)) == 0  # whole stack: every unit must qualify
    # D is surrounded: every neighbour holds an enemy unit, so it has no retreat and no attempt
    d = s.unit("infantry_division", "axis", T)
    for h in ring(T):
        s.unit("rifle_division", "soviet", h)
    assert s.f("may_disengage", d) is False


# ---------------------------------------------------------------- EX-35 (§32.1)
def test_ex35_withdrawn_divisions_already_eliminated_leave_and_7_steps_come_from_reductions():
    s = Scene(turn=10, active="axis", phase="initial",
              script={"pz": [None, None]})
    eliminated = [named(s, "panzer_division", "axis", "0303", "9th Panzer"),
                  named(s, "panzer_division", "axis", "0304", "11th Panzer"),
                  named(s, "grossdeutschland", "axis", "0305", "Grossdeutschland")]
    for u in eliminated:
        s.engine.eliminate(s.ctx, u, None)
    others = [named(s, "panzer_division", "axis", h, n) for h, n in (("0808", "3rd Panzer"), ("0909", "14th Panzer"), ("1010", "16th Panzer"))]
    s.agent.script = {"pz": [label_is(s, "9th Panzer"), label_is(s, "11th Panzer")]}
    s.run("withdraw_for_the_caucasus")
    assert all(s.box(u) == "withdrawn" for u in eliminated)
    lost = sum(3 - s.steps(u) for u in others)
    assert lost == 7 and s.var("withdrawal_steps") == 7


def test_ex35_surplus_steps_go_to_reduced_divisions_in_supply():
    s = Scene(turn=10, active="axis", phase="initial")
    for h, n in (("0303", "9th Panzer"), ("0304", "11th Panzer")):
        named(s, "panzer_division", "axis", h, n)
    named(s, "grossdeutschland", "axis", "0305", "Grossdeutschland")
    reduced = named(s, "panzer_division", "axis", "0808", "24th Panzer", steps=1)
    s.agent.script = {"pz": [label_is(s, "9th Panzer"), label_is(s, "11th Panzer"), reduced, reduced]}
    s.run("withdraw_for_the_caucasus")  # 9 steps leave: 2 surplus
    assert s.steps(reduced) == 3


# ---------------------------------------------------------------- EX-36 (§29.1.3)
def test_ex36_axis_units_inside_contested_voronezh_attack_unhalved_across_the_don_halved():
    """Voronezh (a Major City) is contested; Axis units inside attack the Soviet units there at
    full strength, Axis units in the hex across the Don (2403) are halved (major river)."""
    s = Scene(f"  terrain major_city: {T}\n  edge major_river: {NW}/{T}\n", active="axis", phase="combat")
    s.state.options["contested_cities"] = True
    inside = s.unit("infantry_division", "axis", T)
    defender = s.unit("rifle_division", "soviet", T)
    across = s.unit("infantry_division", "axis", NW)
    assert s.f("contested", T) is True
    assert s.q("attack_strength", inside, T) == 6
    assert s.q("attack_strength", across, T) == 3
    # both sides defend doubled in a contested Major City (at most once with the city doubling)
    assert s.q("defense_strength", defender, (across,)) == 10


# ---------------------------------------------------------------- DT-5 (§24.1.2)
def test_dt5_five_division_equivalents_with_a_panzer_division_score_3_vp():
    s = Scene('box EA_G "Entry Area G" { entry_area: "G" } adjacent_to: 1206-1207\n  terrain entry_area: EA_G\n',
              turn=20, active="axis", phase="movement")
    group = [s.unit("panzer_division", "axis", "1206"), s.unit("panzer_division", "axis", "1206"),
             s.unit("romanian_infantry_division", "axis", "1206"), s.unit("romanian_infantry_division", "axis", "1207"),
             s.unit("romanian_infantry_division", "axis", "1207"), s.unit("romanian_infantry_division", "axis", "1207"),
             s.unit("infantry_division", "axis", "1106", steps=2), s.unit("infantry_division", "axis", "1106", steps=2)]
    group[-1] = group[-1]
    assert s.f("division_equivalents", tuple(group)) == 2 + 4 * Fraction(1, 2) + 2 * Fraction(1, 2) == 5
    assert s.f("baku_group_scores", tuple(group)) is True
    assert s.f("baku_group_scores", tuple(group[2:])) is False  # no panzer division
    # the two reduced infantry divisions stand one hex back: bring them next to G, then exit
    for u in group[-2:]:
        s.engine.move_unit(s.ctx, u, "1207", None, trace=False)
    s.act("exit_to_baku", group=tuple(group))
    assert s.var("baku_vp") == 3 and all(s.loc(u) == "EA_G" for u in group)


def test_dt5_reduced_allies_and_remnants_count_nothing():
    s = Scene()
    rom = s.unit("romanian_infantry_division", "axis", "0303", steps=1)
    brig = s.unit("sturmgeschutz", "axis", "0303")
    assert s.f("division_value", rom) == 0 and s.f("division_value", brig) == 0
