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
