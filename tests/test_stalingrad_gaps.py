"""Stalingrad '42 sections encoded after the first pass, on constructed map fragments
(test_stalingrad_support): rail movement and its 4/1 limit (§5.6), leaders and rail (§28.1.5),
leaders' re-rolls (§28.1.3-4), contested Major Cities (§29), the PL triangle symbol (§22.1.3) and
the Reserve Armies of Maskirovka (§34)."""

from __future__ import annotations

import pytest
from warcodex.interpreter.values import RuleError

from test_stalingrad_support import Scene

# a Soviet rail line from Entry Area A (off the west edge) along row 06 to 1206
RAIL = ('  box EA_A "A" { entry_area: "A" side: "soviet" supply_source } adjacent_to: 0106\n'
        '  terrain entry_area: EA_A\n'
        '  path rail: EA_A 0106 0206 0306 0406 0506 0606 0706 0806 0906 1006 1106 1206\n')


def set_var(s: Scene, u, name, value) -> None:
    s.state.put(s.state.units[u.id].with_var(name, value))


def to_box(s: Scene, u, box: str) -> None:
    from warcodex.interpreter.builtins import b_to_box

    b_to_box(s.ctx, None, u, box)


def start_movement(s: Scene) -> None:
    s.state.phase = "movement"
    s.engine.fire(s.ctx, "phase_start", ("movement",))


def rail_scene(**kw) -> Scene:
    s = Scene(RAIL, active="soviet", phase="movement", turn=5, **kw)
    return s


# ---------------------------------------------------------------- §5.6 rail movement
def test_rail_movement_any_distance_along_the_rail_with_a_train_marker():
    s = rail_scene()
    u = s.unit("rifle_division", "soviet", "0206")
    start_movement(s)
    dests = {d["to"] for d in s.legal("rail_move") if d["u"] == u}
    assert "1206" in dests and "EA_A" in dests and "0205" not in dests  # only rail hexes (§5.6.3)
    s.act("rail_move", u=u, to="1206")
    assert s.loc(u) == "1206" and "train" in s.markers(u)  # unlimited distance, Train marker (§5.6.1)
    assert not s.f("may_move", u)  # no other movement that turn (§5.6.3)
    # a unit on a train: no ZOC, defence 1, no attack (§5.6.4)
    assert not s.f("exerts_zoc", u) and not s.f("may_attack", u)
    # detrained in the owner's Initial Phase (§5.6.5)
    s.run("initial_phase", s.engine.entities["soviet"])
    assert "train" not in s.markers(u)


def test_rail_movement_never_enters_an_ezoc_and_friendly_units_do_not_negate_it():
    s = rail_scene()
    u = s.unit("rifle_division", "soviet", "0206")
    v = s.unit("rifle_division", "soviet", "0606")  # a friendly unit in the EZOC hex does not negate it
    s.unit("infantry_division", "axis", "0605")  # its ZOC covers 0606 on the line
    start_movement(s)
    dests = {d["to"] for d in s.legal("rail_move") if d["u"] == u}
    assert "0506" in dests and "0606" not in dests and "0706" not in dests and "1206" not in dests
    # a unit starting in an EZOC may not use rail movement (§5.6.3)
    assert not s.f("may_rail", v)


def test_pl_reading_may_pass_through_an_ezoc_but_not_end_in_one():
    s = rail_scene()
    s.state.options["pl_rail_ezoc_start_or_end"] = True
    u = s.unit("rifle_division", "soviet", "0206")
    s.unit("infantry_division", "axis", "0605")
    start_movement(s)
    dests = {d["to"] for d in s.legal("rail_move") if d["u"] == u}
    assert "1206" in dests and "0606" not in dests


def test_only_good_order_units_use_rail_and_the_axis_needs_repaired_track():
    s = rail_scene()
    u = s.unit("rifle_division", "soviet", "0206", "disrupted")
    start_movement(s)
    assert not s.f("may_rail", u)
    a = Scene(RAIL, active="axis", phase="movement", turn=5)
    g = a.unit("infantry_division", "axis", "0306")
    start_movement(a)
    assert a.legal("rail_move") == []  # nothing is repaired east of the start line (§17.1)


def test_the_four_one_limit():
    s = rail_scene()
    ea = [s.unit("rifle_division", "soviet", "EA_A") for _ in range(4)]
    on_map = [s.unit("rifle_division", "soviet", h) for h in ("0306", "0406")]
    start_movement(s)
    s.act("rail_move", u=on_map[0], to="1206")
    # only one of the four may begin on a map rail hex (§5.6.2)
    assert not s.f("rail_limit_ok", on_map[1])
    assert all(d["u"] != on_map[1] for d in s.legal("rail_move"))
    for u, h in zip(ea[:3], ("1106", "1006", "0906")):
        s.act("rail_move", u=u, to=h)
    # four units a turn
    assert not s.f("rail_limit_ok", ea[3])
    with pytest.raises(RuleError, match="four units a turn"):
        s.act("rail_move", u=ea[3], to="0806")
    # the limit starts afresh in the next Movement Phase
    s.state.position.turn = 6
    start_movement(s)
    assert s.f("rail_limit_ok", ea[3])


def test_two_railed_combat_units_may_not_end_stacked():
    s = rail_scene()
    a, b = s.unit("rifle_division", "soviet", "EA_A"), s.unit("rifle_division", "soviet", "EA_A")
    start_movement(s)
    s.act("rail_move", u=a, to="0806")
    dests = {d["to"] for d in s.legal("rail_move") if d["u"] == b}
    assert "0806" not in dests and "0906" in dests


def test_a_unit_railing_into_an_entry_area_stays_there_until_the_next_turn():
    s = rail_scene()
    u = s.unit("rifle_division", "soviet", "0906")
    start_movement(s)
    s.act("rail_move", u=u, to="EA_A")
    assert s.loc(u) == "EA_A" and s.state.units[u.id].var("entered_entry_area") == 5
    set_var(s, u, "moved", False)
    s.engine.set_marker(s.ctx, u, "train", False, None)
    assert not s.f("may_move", u) and not s.f("may_rail", u)


def test_leaders_rail_without_a_train_outside_the_limit_and_flip_to_used():
    s = rail_scene()
    s.state.options["leaders"] = True
    ch = s.unit("leader_chuikov", "soviet", "0206")
    start_movement(s)
    s.act("rail_move", u=ch, to="1106")
    assert "train" not in s.markers(ch) and "used" in s.markers(ch)  # §28.1.5
    assert s.state.side_vars["soviet"]["rail_moves"] == 0  # not counted (§5.6.2)
    u = s.unit("rifle_division", "soviet", "0306")
    assert s.f("rail_limit_ok", u)


def test_a_reserve_army_rails_only_with_an_empty_box():
    s = rail_scene()
    ra = s.unit("reserve_army", "soviet", "0206")
    start_movement(s)
    assert s.f("may_rail", ra)
    r = s.unit("rifle_division", "soviet", "EA_A")
    to_box(s, r, s.f("ra_box", ra))
    assert not s.f("may_rail", ra)  # §34.3.2


# ---------------------------------------------------------------- §28 leaders' re-rolls
T = "0606"
N = "0605"


def test_chuikov_rerolls_a_soviet_dd_roll_after_seeing_it_and_the_reroll_stands():
    from test_stalingrad_support import carry_out

    s = Scene(turn=10, active="axis", dice=[1, 6])
    s.state.options["leaders"] = True
    d = s.unit("test_rifle", "soviet", T)
    ch = s.unit("leader_chuikov", "soviet", "0808")
    a = s.unit("test_infantry", "axis", N)
    drm = s.q("dd_drm", d, False, False)
    s.agent.script = {"use": ["determined defense"], "re-roll die": ["the leader re-rolls"]}
    carry_out(s, ["DR2", "Adv2"], [a], T)
    offered = [o for w, o in s.agent.asked if w == "re-roll die"]
    assert offered == [("keep die = 1", "the leader re-rolls")]  # the roll is seen before the choice
    assert "used" in s.markers(ch) and s.state.rng.used == 2
    expected = str(s.engine.tables["dd_table"].lookup(["clear", min(6, max(1, 6 + drm))], None))
    assert ("DD_S" in expected) == (s.var("dd_outcome") == "success")
    # Used until the next friendly Initial Phase (§28.1.1)
    s.state.active = "soviet"
    s.engine.fire(s.ctx, "phase_start", ("initial",))
    assert "used" not in s.markers(ch)


def test_the_reroll_must_be_accepted_even_when_worse():
    from test_stalingrad_support import carry_out

    s = Scene(turn=10, active="axis", dice=[6, 1])
    s.state.options["leaders"] = True
    s.unit("test_rifle", "soviet", T)
    s.unit("leader_chuikov", "soviet", "0808")
    a = s.unit("test_infantry", "axis", N)
    s.agent.script = {"use": ["determined defense"], "re-roll die": ["the leader re-rolls"], "delay_hexes": [2]}
    carry_out(s, ["DR2", "Adv2"], [a], T)
    assert s.var("dd_outcome") != "success"  # the 1 stands (§28.1.1)


def test_no_reroll_offered_without_a_ready_leader_in_range_or_without_the_option():
    from test_stalingrad_support import carry_out

    for options, leader_at, used in (({"leaders": True}, "1212", False), ({"leaders": False}, "0808", False),
                                     ({"leaders": True}, "0808", True)):
        s = Scene(turn=10, active="axis", dice=[1])
        s.state.options.update(options)
        s.unit("test_rifle", "soviet", T)
        s.unit("leader_chuikov", "soviet", leader_at, *(["used"] if used else []))
        a = s.unit("test_infantry", "axis", N)
        s.agent.script = {"use": ["determined defense"]}
        carry_out(s, ["DR2", "Adv2"], [a], T)
        assert not any(w == "re-roll die" for w, _ in s.agent.asked)


def test_manstein_rerolls_a_crt_die_of_an_axis_attack_and_of_a_soviet_attack():
    s = Scene(active="axis", dice=[1, 6], decline=True)
    s.state.options["leaders"] = True
    d = s.unit("test_rifle", "soviet", T, steps=1)
    a = s.unit("test_panzer", "axis", N)
    m = s.unit("leader_manstein", "axis", "0603")
    s.agent.script = {"re-roll r": ["Manstein re-rolls"]}
    s.act("attack", target=T, attackers=(a,), air="none", asu=None)  # 5-1, the re-roll 6: DS
    assert s.loc(d) is None and "used" in s.markers(m)
    # an enemy attack on an Axis unit in his range: the Axis player is asked (§28.1.4)
    e = Scene(active="soviet", dice=[3], decline=True)
    e.state.options["leaders"] = True
    e.unit("test_infantry", "axis", T)
    e.unit("leader_manstein", "axis", "0603")
    r = e.unit("test_rifle", "soviet", N)
    e.act("attack", target=T, attackers=(r,), air="none", asu=None)
    assert any(w == "re-roll r" and o[0] == "keep r = 3" for w, o in e.agent.asked)


def test_manstein_rerolls_an_axis_dd_roll_not_a_soviet_one():
    s = Scene(turn=10)
    s.state.options["leaders"] = True
    g = s.unit("test_infantry", "axis", T)
    m = s.unit("leader_manstein", "axis", "0808")
    r = s.unit("test_rifle", "soviet", "0707")
    assert s.f("dd_reroll_leader", g) == m
    assert s.f("dd_reroll_leader", r) is None


def test_a_reroll_is_logged_with_the_value_seen_and_explained():
    s = Scene(active="axis", dice=[1, 6], decline=True)
    s.state.options["leaders"] = True
    s.unit("test_rifle", "soviet", T, steps=1)
    a = s.unit("test_panzer", "axis", N)
    s.unit("leader_manstein", "axis", "0603")
    s.agent.script = {"re-roll r": ["Manstein re-rolls"]}
    s.ctx.choices = []
    s.ctx.begin_trace()
    s.act("attack", target=T, attackers=(a,), air="none", asu=None)
    lines = []

    def walk(ds):
        for d in ds:
            lines.append(d.what)
            walk(d.steps)
    walk(s.ctx.end_trace())
    rec = [c for c in s.ctx.choices if c["choice"] == "re-roll r"]
    assert rec == [{"choice": "re-roll r", "by": "axis", "index": 1, "value": "Manstein re-rolls", "seen": 1}]
    text = "\n".join(lines)
    assert "axis sees r = 1 and chooses: Manstein re-rolls" in text
    assert "r = 6 after the re-roll (it stands)" in text


# ---------------------------------------------------------------- §29 contested Major Cities
CITY = f"  terrain major_city: {T}\n"


def contested_scene(**kw) -> Scene:
    s = Scene(CITY, turn=10, **kw)
    s.state.options["contested_cities"] = True
    return s


def test_a_city_battle_partial_success_makes_the_attacker_share_the_city():
    from test_stalingrad_support import carry_out

    s = contested_scene(active="soviet", dice=[1])  # as EX-18: German in a City, roll 1 + 1 -> City Battle 1
    d = s.unit("test_infantry", "axis", T)
    a = s.unit("test_rifle", "soviet", N)
    s.agent.script = {"use": ["determined defense"], "movers": [[a]]}
    carry_out(s, ["DR2", "Adv3"], [a], T)
    assert s.var("dd_outcome") == "city" and "city_battle_1" in s.state.loc_markers[T]
    assert s.loc(a) == T and s.loc(d) == T  # at least one attacker moves in (§29.1.1)
    assert s.f("contested", T)
    assert s.state.loc_vars[T]["original_defender"].name == "axis"
    soviet, axis = s.engine.entities["soviet"], s.engine.entities["axis"]
    assert s.f("controlled_by", T, axis) and not s.f("controlled_by", T, soviet)  # §29.1.4
    assert not s.f("exerts_zoc", a) and not s.f("exerts_zoc", d)  # no ZOC (§29.1.1)
    assert s.q("defense_strength", a, ()) == 2 * s.engine.entities["test_rifle"].props["defense"]


def test_without_the_option_nobody_enters_the_city():
    from test_stalingrad_support import carry_out

    s = Scene(CITY, turn=10, active="soviet", dice=[1])
    s.unit("test_infantry", "axis", T)
    a = s.unit("test_rifle", "soviet", N)
    s.agent.script = {"use": ["determined defense"]}
    carry_out(s, ["DR2", "Adv3"], [a], T)
    assert s.loc(a) == N and not s.f("contested", T)


def share(s: Scene):
    d = s.unit("test_infantry", "axis", T)
    a = s.unit("test_rifle", "soviet", T)
    s.state.set_loc_var(T, "original_defender", s.engine.entities["axis"])
    s.mark_hex(T, "city_battle_1")
    return d, a


def test_contested_city_movement_is_tactical_only_in_and_out():
    s = contested_scene(active="soviet", phase="movement")
    d, a = share(s)
    b = s.unit("test_rifle", "soviet", "0604")  # two hexes north
    assert T not in s.reach(b, "normal") and T not in s.reach(b, "extended")
    assert T in s.reach(b, "tactical")  # §29.1.2: enter by Tactical Movement only
    assert s.reach(a, "normal") == {} or set(s.reach(a, "normal")) <= {T}
    out = set(s.reach(a, "tactical")) - {T}
    assert out  # leaves by Tactical Movement
    # not into an EZOC; a friendly unit negates the EZOC in its own hex
    s.unit("test_infantry", "axis", "0806")  # next to 0705 and 0706
    soviet = s.engine.entities["soviet"]
    assert s.f("in_ezoc", "0705", soviet) and s.f("in_ezoc", "0706", soviet)
    reach = s.reach(a, "tactical")
    assert reach["0605"] == 1 and reach.get("0705") != 1 and reach.get("0706") != 1  # not straight into the EZOC
    assert s.f("contested_exit_blocked", T, "0705", soviet)
    s.unit("test_rifle", "soviet", "0705")
    assert s.reach(a, "tactical")["0705"] == 1
    assert not s.f("may_rail", a)


def test_units_inside_never_attack_out_but_join_attacks_on_the_city():
    s = contested_scene(active="soviet")
    d, a = share(s)
    b = s.unit("test_rifle", "soviet", N)
    s.unit("test_infantry", "axis", "0607")  # south of the city, adjacent to the units inside
    soviet = s.engine.entities["soviet"]
    assert set(s.f("eligible_attackers", soviet, T)) == {a, b}
    assert a not in s.f("eligible_attackers", soviet, "0607")  # never out of the hex (§29.1.3)
    # the defence counts the enemy units only, doubled
    assert s.q("total_defense", (a, b), T) == s.q("defense_strength", d, (a, b))


def test_a_counter_attack_partial_success_lowers_the_city_battle_marker():
    s = contested_scene(active="axis")
    d, a = share(s)
    s.engine.set_marker(s.ctx, T, "city_battle_1", False, None)
    s.mark_hex(T, "city_battle_2")
    soviet = s.engine.entities["soviet"]
    s.run("partial_success", T, soviet)  # the original attackers (Soviet) defend and get a Partial Success
    assert "city_battle_1" in s.state.loc_markers[T] and "city_battle_2" not in s.state.loc_markers[T]
    s.run("partial_success", T, soviet)  # down to 0: the original attackers retreat out
    assert "city_battle_1" not in s.state.loc_markers.get(T, ())
    assert s.loc(a) != T and s.loc(d) == T and not s.f("contested", T)


def test_units_in_a_contested_city_are_not_adjacent_for_the_airfield():
    s = contested_scene(active="axis")
    share(s)
    assert not s.f("airfield_threatened", "0706", s.engine.entities["axis"])  # §29.1.1
    s.unit("test_rifle", "soviet", "0806")
    assert s.f("airfield_threatened", "0706", s.engine.entities["axis"])


# ---------------------------------------------------------------- §34 Maskirovka: hidden markers
EA = ('  box EA_A "A" { entry_area: "A" side: "soviet" supply_source } adjacent_to: 0101\n'
      '  terrain entry_area: EA_A\n')


def maskirovka_scene(**kw) -> Scene:
    s = Scene(EA, turn=21, active="soviet", phase="initial", **kw)
    s.state.scenario = "campaign"
    return s


def armies(s: Scene) -> list:
    return sorted((u for u in s.state.units.values() if u.type == "reserve_army"), key=lambda u: u.id)


def test_each_reserve_army_gets_a_secret_maskirovka_marker():
    s = maskirovka_scene(script={"m": ["Maskirovka 4"]})
    s.run("place_reserve_army", "Reserve Army 1", "EA_A")
    s.run("place_reserve_army", "Reserve Army 2", "EA_A")
    ra1, ra2 = armies(s)
    assert ra1.var("maskirovka") == "Maskirovka 4" and ra2.var("maskirovka") == "Maskirovka 1"
    # the state is complete; the Axis observes the marker as hidden, the Soviet player sees it
    axis_view = {u["id"]: u for u in s.ctx.observe("axis")["units"]}
    soviet_view = {u["id"]: u for u in s.ctx.observe("soviet")["units"]}
    assert axis_view[ra1.id]["vars"]["maskirovka"] == "hidden"
    assert soviet_view[ra1.id]["vars"]["maskirovka"] == "Maskirovka 4"
    # box contents are open to both (the Axis may know what is in each box, §34.1.2)
    r = s.unit("rifle_division", "soviet", "EA_A")
    to_box(s, r, "Maskirovka 4")
    assert {u["id"]: u for u in s.ctx.observe("axis")["units"]}[r.id]["box"] == "Maskirovka 4"


def test_a_log_entry_that_touches_a_hidden_marker_is_hidden_from_the_axis():
    s = maskirovka_scene()
    s.run("place_reserve_army", "Reserve Army 1", "EA_A")
    (ra,) = armies(s)
    u = s.unit("rifle_division", "soviet", "EA_A")
    s.state.phase = "movement"
    assert s.legal("enter_reserve_army")  # enumeration reads the markers too (not recorded)
    s.ctx.choices, s.ctx.hidden_owners = [], set()
    s.act("enter_reserve_army", u=u, ra=ra_ref(ra))
    assert s.ctx.hidden_owners == {"soviet"}
    assert s.engine.hidden_from(s.ctx.hidden_owners) == ["axis"]
    assert s.box(u) == "Maskirovka 1"


def ra_ref(unit):
    from warcodex.interpreter.values import UnitRef

    return UnitRef(unit.id)


def test_armies_starting_together_may_swap_markers_secretly():
    s = maskirovka_scene()
    s.run("place_reserve_army", "Reserve Army 1", "EA_A")
    s.run("place_reserve_army", "Reserve Army 2", "EA_A")
    ra1, ra2 = armies(s)
    s.agent.script = {"other": [ra_ref(ra2)]}
    s.ctx.choices, s.ctx.hidden_owners = [], set()
    start_movement(s)
    a, b = armies(s)
    assert (a.var("maskirovka"), b.var("maskirovka")) == ("Maskirovka 2", "Maskirovka 1")
    assert s.ctx.hidden_owners == {"soviet"}


def test_a_reserve_army_with_replaced_units_may_not_change_entry_area():
    s = Scene(EA + '  box EA_B "B" { entry_area: "B" side: "soviet" supply_source } adjacent_to: 0201\n'
              '  terrain entry_area: EA_B\n', turn=21, active="soviet", phase="initial")
    s.state.scenario = "campaign"
    s.run("place_reserve_army", "Reserve Army 1", "EA_A")
    (ra,) = armies(s)
    r = s.unit("rifle_division", "soviet", "EA_A", steps=1)
    to_box(s, r, "Maskirovka 1")
    # a replacement straight into the box (§34.5)
    s.state.set_side_var("soviet", "repl_infantry", 1)
    s.act("replace_in_reserve_army", kind="infantry", ra=ra_ref(ra), u=r)
    assert s.steps(r) == 2 and "replacement" in s.markers(r) and s.box(r) == "Maskirovka 1"
    start_movement(s)
    assert s.q("movement_allowance", ra_ref(ra)) == 1  # one hex at most (§34.3.1)
    with pytest.raises(RuleError, match="Disrupted or replaced"):
        s.act("shift_entry_area", u=ra_ref(ra), to="EA_B")  # §34.3.3


# ---------------------------------------------------------------- §22.1.3 (PL) the triangle symbol
def test_units_with_a_triangle_begin_on_their_reduced_side():
    s = Scene(turn=1, active="axis", phase="initial")
    t = s.unit("test_triangle_rifle", "soviet", "0303")
    plain = s.unit("test_rifle", "soviet", "0404")
    s.engine.fire(s.ctx, "game_start", ())
    assert s.steps(t) == 1 and s.steps(plain) == s.state.units[plain.id].max_steps


# ---------------------------------------------------------------- §34.6.2 a Reserve Army's defence
RA_HEX = "0606"
RA_ATT = "0605"


def ra_defence_scene(n_box: int = 3, turn: int = 5, **kw):
    """A Reserve Army in RA_HEX holding n_box rifle divisions (Defense 5) in its box
    'Maskirovka 1', an Axis panzer division next to it; the Axis attacks (turn 5: no DD in the
    open, §11.2)."""
    s = Scene(turn=turn, active="axis", phase="combat", decline=True, **kw)
    ra = s.unit("reserve_army", "soviet", RA_HEX)
    set_var(s, ra, "maskirovka", "Maskirovka 1")
    box = []
    for _ in range(n_box):
        r = s.unit("rifle_division", "soviet", "0110")
        to_box(s, r, "Maskirovka 1")
        box.append(r)
    a = s.unit("panzer_division", "axis", RA_ATT)
    return s, ra, box, a


def test_an_attacked_reserve_army_brings_two_units_out_and_they_defend():
    s, ra, (r1, r2, r3), a = ra_defence_scene()
    axis = s.engine.entities["axis"]
    assert RA_HEX in s.f("attack_targets", axis)  # an army with units in its box may be attacked
    # units still in the box are off the map: no defence, no stacking (§34.6.2)
    assert s.q("total_defense", (a,), RA_HEX) == 0
    # the Soviet player picks three, the stacking limit (2) lets two out, on top of the army
    s.agent.script = {"out": [[r1, r2, r3]]}
    s.run("ra_defence", RA_HEX, axis)
    assert s.loc(r1) == RA_HEX and s.loc(r2) == RA_HEX and s.box(r3) == "Maskirovka 1"
    assert s.state.units[ra.id].var("ra_revealed") is True  # revealed, removed later (§34.7)
    assert s.q("total_defense", (a,), RA_HEX) == 10  # their defence counts
    assert s.f("stacking_count", RA_HEX, s.engine.entities["soviet"]) == 2


def test_the_attack_action_asks_the_soviet_player_before_the_combat():
    s, ra, (r1, r2, r3), a = ra_defence_scene(dice=[1, 1, 1, 1])
    s.agent.script = {"out": [[r1, r2]]}
    s.act("attack", target=RA_HEX, attackers=(a,), air="none", asu=None)
    assert ("out" in [w for w, _ in s.agent.asked])
    for r in (r1, r2):
        assert s.state.units[r.id].var("defended") is True
    assert s.box(r3) == "Maskirovka 1"
    # an army with an empty box is a non-combat unit and cannot be attacked (§34.6.2, §19.3)
    e, ra2, _, a2 = ra_defence_scene(n_box=0)
    assert RA_HEX not in e.f("attack_targets", e.engine.entities["axis"])


def test_units_left_in_the_box_share_the_defenders_disrupted_result():
    from test_stalingrad_support import carry_out

    s, ra, (r1, r2), a = ra_defence_scene(n_box=2)
    s.agent.script = {"out": [[r1]]}
    s.run("ra_defence", RA_HEX, s.engine.entities["axis"])
    carry_out(s, ["DR2"], [a], RA_HEX)
    assert s.loc(r1) not in (None, RA_HEX) and "disrupted" in s.markers(r1)
    assert s.loc(ra) not in (None, RA_HEX)  # the army retreats with its stack
    assert s.box(r2) == "Maskirovka 1" and "disrupted" in s.markers(r2)  # same result (§34.6.2)


def test_units_left_in_the_box_share_a_full_retreat():
    from test_stalingrad_support import carry_out

    s, ra, (r1, r2), a = ra_defence_scene(n_box=2)
    s.agent.script = {"out": [[r1]]}
    s.run("ra_defence", RA_HEX, s.engine.entities["axis"])
    carry_out(s, ["DR4"], [a], RA_HEX)
    assert "full_retreat" in s.markers(r1) and "full_retreat" in s.markers(r2)
    # the box units recover with their army, in its hex [inference] (§13.4)
    s.run("recovery", s.engine.entities["soviet"])
    assert "disrupted" in s.markers(r2) and "full_retreat" not in s.markers(r2)


def test_the_box_is_eliminated_with_the_army_counter():
    from test_stalingrad_support import carry_out
    from test_stalingrad_support import ring

    s, ra, (r1, r2), a = ra_defence_scene(n_box=2)
    for h in ring(RA_HEX):
        if h != RA_ATT:
            s.unit("panzer_division", "axis", h)  # every retreat path ends in an enemy hex
    s.agent.script = {"out": [[r1]]}
    s.run("ra_defence", RA_HEX, s.engine.entities["axis"])
    carry_out(s, ["DR2"], [a], RA_HEX)
    assert s.loc(ra) is None and s.loc(r1) is None  # eliminated by the retreat (§12.2)
    assert s.box(r2) == "eliminated" and s.loc(r2) is None  # the box goes with the army (§34.6.2)
    assert s.state.units[r2.id].var("eliminated_turn") == 5  # as any eliminated unit (§21.3.1)
