"""Axis & Allies 1941: every worked example and FAQ case of the rulebook digest (WE-01..WE-24,
shared/rules/axis-allies-1941.md section 17) and the 19 rule-derived scenarios (D-01..D-19), each
asserting the rulebook's outcome. Battles run on fixed dice: the rolls are the test's. Within a
battle the dice are rolled by value column (1 to 4), and within a column submarines, then other
surface and land units, then aircraft (combat.wcx), so the roll lists below follow that order.

The map is the provisional one (games/axis-allies-1941/map.wcmap); positions are built by hand."""

from __future__ import annotations

import pytest

from test_aa1941_helpers import POWERS, Script, Table, engine
from warcodex.interpreter.play import start
from warcodex.interpreter.agents import FirstAgent


# =============================================================== WE-01 .. WE-24
def test_we01_counter_chips_store_a_count_of_units():
    """3.7: seven infantry in one space are seven units; chips are only a physical aid."""
    t = Table()
    t.place("infantry", "germany", "germany", 7)
    assert len(t.units("germany", "germany", "infantry")) == 7


def test_we02_a_move_2_unit_stops_on_entering_a_hostile_space():
    """6.1: Start -> F -> H is legal; Start -> H' is legal; Start -> H' -> beyond is not."""
    t = Table(active="soviet_union", phase="combat_move")
    t.control("siberia", "japan")  # H': hostile, next to the start
    t.begin("soviet_union", "combat_move")
    tank = t.place("tank", "soviet_union", "archangel")
    reach = t.reachable(tank, "land_combat")
    assert t.legal("land_attack", u=tank, to="eastern_europe")  # archangel -> karelia (F) -> eastern europe (H)
    assert t.legal("land_attack", u=tank, to="siberia")  # straight into H'
    assert "manchuria" not in reach  # only through siberia (H'): the tank had to stop there
    assert not t.legal("land_attack", u=tank, to="manchuria")


def test_we03_a_destroyer_stops_in_a_hostile_zone_a_submarine_passes():
    """6.1 caption: the destroyer must stop in SZ39; the submarine may go on (no enemy destroyer)."""
    t = Table(active="united_states", phase="combat_move")
    for z in ("sz39", "sz37", "sz27"):
        t.place("carrier", "japan", z)  # enemy surface warships, not destroyers: hostile zones
    t.begin("united_states", "combat_move")
    dd = t.place("destroyer", "united_states", "sz40")
    sub = t.place("submarine", "united_states", "sz40")
    assert "sz39" in t.reachable(dd, "sea_combat")
    assert "sz38" not in t.reachable(dd, "sea_combat")  # every way to SZ38 crosses a hostile zone
    assert "sz38" in t.reachable(sub, "sea_combat")
    assert t.legal("ship_combat_move", u=dd, to="sz39")  # a battle there


def test_we03_variant_a_submarine_stops_where_an_enemy_destroyer_is():
    t = Table(active="united_states", phase="combat_move")
    for z in ("sz39", "sz37", "sz27"):
        t.place("destroyer", "japan", z)
    t.begin("united_states", "combat_move")
    sub = t.place("submarine", "united_states", "sz40")
    reach = t.reachable(sub, "sea_combat")
    assert "sz39" in reach and "sz38" not in reach and "sz32" not in reach


def _amphibious_on_western_europe(t: Table, sea_defender: str):
    t.control("western_europe", "germany")
    german = t.place(sea_defender, "germany", "sz7")
    t.place("infantry", "germany", "western_europe")
    t.begin("united_states", "combat_move")
    bb = t.place("battleship", "united_states", "sz6")
    tr = t.place("transport", "united_states", "sz6")
    inf = t.place("infantry", "united_states", "united_kingdom")
    tank = t.place("tank", "united_states", "united_kingdom")
    return german, bb, tr, inf, tank


def test_we04_amphibious_assault_on_western_europe():
    """6.4 caption: the battleship must clear the enemy destroyer before the transport unloads."""
    # sea battle: battleship (4) rolls 1 -> hit; destroyer (2) rolls 6 -> miss.
    # land battle: infantry (1) rolls 1, tank (3) rolls 2 -> two hits; German infantry (2) rolls 6.
    t = Table(rolls=[1, 6, 1, 2, 6], active="united_states", phase="combat_move")
    german, bb, tr, inf, tank = _amphibious_on_western_europe(t, "destroyer")
    t.do("amphibious_assault", tr=tr, z="sz7", target="western_europe", load=(inf, tank))
    t.do("ship_combat_move", u=bb, to="sz7")
    assert t.loc(inf) == "sz7" and t.var(inf, "aboard") == tr
    t.state.phase = "combat"
    t.call("conduct_combat", t.side("united_states"))
    assert not t.alive(german)  # the sea battle was fought first and cleared the zone
    assert t.loc(inf) == "western_europe" and t.loc(tank) == "western_europe"
    assert t.controller("western_europe") == "united_states"
    assert t.rolls_used == 5


def test_we04_failed_landing_when_the_attacker_retreats_from_the_sea_battle():
    # sea battle round 1: battleship misses (6), destroyer misses (6); the US retreats.
    t = Table(rolls=[6, 6], active="united_states", phase="combat_move",
              agents={"united_states": Script(decisions=["retreat"])})
    german, bb, tr, inf, tank = _amphibious_on_western_europe(t, "destroyer")
    t.do("amphibious_assault", tr=tr, z="sz7", target="western_europe", load=(inf, tank))
    t.do("ship_combat_move", u=bb, to="sz7")
    t.state.phase = "combat"
    t.call("conduct_combat", t.side("united_states"))
    assert t.loc(tr) == "sz6" and t.loc(inf) == "sz6"  # back with the transport: no landing
    assert t.var(tr, "retreated")
    assert t.controller("western_europe") == "germany"


def test_we04_variant_submarines_alone_may_be_ignored():
    # no sea battle: the landing goes in; land battle as above
    t = Table(rolls=[1, 2, 6], active="united_states", phase="combat_move")
    german, bb, tr, inf, tank = _amphibious_on_western_europe(t, "submarine")
    t.do("amphibious_assault", tr=tr, z="sz7", target="western_europe", load=(inf, tank))
    t.state.phase = "combat"
    t.call("conduct_combat", t.side("united_states"))
    assert t.alive(german)  # ignored
    assert t.controller("western_europe") == "united_states"


def test_we05_ships_that_start_with_enemy_warships_fight_or_leave():
    """6.2: stay and fight, or leave (exception 3); either way no noncombat move afterwards."""
    t = Table(active="united_kingdom", phase="combat_move")
    t.place("destroyer", "germany", "sz6")  # mobilized there on Germany's last turn
    stay = t.place("battleship", "united_kingdom", "sz6")
    leave = t.place("destroyer", "united_kingdom", "sz6")
    t.begin("united_kingdom", "combat_move")
    assert t.legal("ship_combat_move", u=leave, to="sz2")  # an empty friendly zone: leaving to avoid combat
    t.do("ship_combat_move", u=leave, to="sz2")
    assert t.fn("battle_pending", "sz6", t.side("united_kingdom"))  # the battleship stays and fights
    t.state.phase = "noncombat"
    t.state.touch()
    assert not t.legal("ship_move", u=leave, to="sz3")


def test_we06a_a_bomber_cannot_spend_its_whole_move_reaching_the_target():
    t = Table(active="united_kingdom", phase="combat_move")
    bomber = t.place("bomber", "united_kingdom", "united_kingdom")
    targets = {}
    for h, (cost, _, _) in engine().modes["air"].reachable(t.ctx, bomber).items():
        if t.fn("air_target", h, t.side("united_kingdom")) and t.fn("is_land", h):
            targets.setdefault(cost, h)
    assert 6 in targets and 3 in targets
    assert not t.legal("air_combat_move", u=bomber, to=targets[6])  # 0 moves left to land
    assert t.legal("air_combat_move", u=bomber, to=targets[3])


def test_we06b_a_fighter_may_use_all_4_moves_only_if_a_carrier_will_be_there():
    """6.3: a fighter attacking a sea zone with its whole move needs a carrier there by the end of
    Mobilization, e.g. one bought this turn and placed next to its own complex (India, SZ29)."""
    t = Table(active="united_kingdom", phase="combat_move")
    t.place("submarine", "japan", "sz29")
    air = engine().modes["air"]
    far = None
    for h in engine().board.locations:
        if t.controller(h) == "united_kingdom":
            probe = t.place("fighter", "united_kingdom", h)
            if air.reachable(t.ctx, probe).get("sz29", (0,))[0] == 4:
                far = probe
                break
            t.eng.eliminate(t.ctx, probe, None)
    assert far is not None
    assert not t.legal("air_combat_move", u=far, to="sz29")  # nowhere to land with 0 moves left
    t.state.side_vars.setdefault("united_kingdom", {})["mobilization"] = (t.side("carrier"),)
    t.state.touch()
    assert t.legal("air_combat_move", u=far, to="sz29")  # a carrier bought this turn can be placed there
    t.do("air_combat_move", u=far, to="sz29")
    t.state.side_vars["united_kingdom"]["mobilization"] = ()
    t.state.touch()
    assert not t.fn("landing_ok", far, "sz29", t.side("united_kingdom"))


def test_we07_the_production_limit_includes_the_adjacent_sea_zone():
    """9: at most 4 units through the German complex, in Germany and SZ5 together."""
    t = Table(active="germany", phase="mobilize")
    t.state.side_vars.setdefault("germany", {})["mobilization"] = tuple(
        t.side(x) for x in ("transport", "destroyer", "infantry", "infantry", "tank"))
    t.ipc("germany", 0)
    t.call("mobilize_units", t.side("germany"))
    placed = t.units("germany", "germany") + t.units("sz5", "germany")
    assert len(placed) == 4
    assert t.state.loc_vars["germany"]["placed"] == 4
    assert t.ipc("germany") == 6  # the fifth (a tank) could not be placed: refunded


def test_we08_capturing_moscow_takes_the_soviet_treasury():
    t = Table(active="germany")
    t.ipc("soviet_union", 18)
    t.ipc("germany", 5)
    before_de, before_su = t.production("germany"), t.production("soviet_union")
    t.place("tank", "germany", "russia")
    t.fight("russia")
    assert t.controller("russia") == "germany"
    assert t.ipc("germany") == 23 and t.ipc("soviet_union") == 0
    assert t.production("germany") == before_de + 3 and t.production("soviet_union") == before_su - 3
    assert t.fn("capital_lost", t.side("soviet_union"))


def test_we08_variant_the_treasury_passes_even_if_berlin_is_lost():
    t = Table(active="germany")
    t.control("germany", "united_kingdom")
    t.ipc("soviet_union", 18)
    t.ipc("germany", 0)
    t.place("tank", "germany", "russia")
    t.fight("russia")
    assert t.ipc("germany") == 18


def test_we09_liberating_moscow_gives_no_ipcs():
    t = Table(active="united_kingdom")
    t.control("russia", "germany")
    t.control("karelia", "united_kingdom")  # taken by the UK while Moscow was lost (7.3 exception)
    t.ipc("germany", 30)
    t.place("infantry", "united_kingdom", "russia")
    t.fight("russia")
    assert t.controller("russia") == "soviet_union"
    assert t.controller("karelia") == "soviet_union"
    assert t.ipc("germany") == 30
    assert not t.fn("capital_lost", t.side("soviet_union"))
    assert "russia" not in t.fn("usable_factories", t.side("united_kingdom"))
    t.begin("soviet_union")
    assert "russia" in t.fn("usable_factories", t.side("soviet_union"))


def test_we10_air_distance_counts_every_space_entered():
    t = Table(active="united_states", phase="combat_move")
    fighter = t.place("fighter", "united_states", "hawaiian_islands")
    reach = engine().modes["air"].reachable(t.ctx, fighter)
    assert reach["sz40"][0] == 1 and reach["sz37"][0] == 2 and reach["sz33"][0] == 3
    assert reach["australia"][0] == 4  # the whole move: Hawaii, SZ40, SZ37, SZ33, Australia
    assert t.fn("landing_ok", fighter, "australia", t.side("united_states"))
    assert all(cost <= 4 for cost, _, _ in reach.values())


def test_we11_a_fighter_attacks_from_a_carrier_that_moves_to_recover_it():
    t = Table(rolls=[1, 6], active="united_states", phase="combat_move")
    t.control("philippine_islands", "japan")
    defender = t.place("infantry", "japan", "philippine_islands")
    t.begin("united_states", "combat_move")
    carrier = t.place("carrier", "united_states", "sz40")
    fighter = t.place("fighter", "united_states", "sz40")
    t.aboard(fighter, carrier)
    assert engine().modes["air"].reachable(t.ctx, fighter)["philippine_islands"][0] == 3
    assert t.legal("air_combat_move", u=fighter, to="philippine_islands")  # relies on the carrier's noncombat move
    t.do("air_combat_move", u=fighter, to="philippine_islands")
    assert t.var(carrier, "reserved_for_landing")
    assert not t.legal("ship_combat_move", u=carrier, to="sz39")  # the declared plan keeps it still
    t.state.phase = "combat"
    t.fight("philippine_islands")  # fighter (3) rolls 1: hit; infantry (2) rolls 6
    assert not t.alive(defender)
    assert t.controller("philippine_islands") == "japan"  # aircraft cannot capture
    t.state.phase = "noncombat"
    t.state.touch()
    assert not t.fn("landing_ok", fighter, "philippine_islands", t.side("united_states"))
    t.do("ship_move", u=carrier, to="sz38")
    t.do("air_move", u=fighter, to="sz38")
    assert t.var(fighter, "moved") == 4 and t.var(fighter, "aboard") == carrier
    assert t.var(carrier, "done")


def test_we12_transport_capacity():
    t = Table()
    tr = t.place("transport", "germany", "sz5")
    i1, i2, i3 = t.place("infantry", "germany", "germany", 3)
    k1, k2 = t.place("tank", "germany", "germany", 2)
    fits = lambda *us: t.fn("fits_aboard", tr, tuple(us))  # noqa: E731
    assert fits(i1) and fits(k1) and fits(i1, i2) and fits(k1, i1)
    assert not fits(k1, k2) and not fits(i1, i2, i3)


def test_we13_fighters_hits_must_go_to_transports_not_submarines():
    # step 2: the defending submarine strikes (it does not submerge): rolls 6.
    # step 3: two fighters roll 1 and 2: two hits, both on the transports.
    t = Table(rolls=[6, 1, 2], active="germany")
    f1, f2 = t.place("fighter", "germany", "sz2", 2)
    sub = t.place("submarine", "united_kingdom", "sz2")
    tr1, tr2 = t.place("transport", "united_kingdom", "sz2", 2)
    t.fight("sz2")
    assert t.alive(sub) and not t.alive(tr1) and not t.alive(tr2)
    assert t.alive(f1) and t.alive(f2)
    # fighters against submarines alone: neither can hit the other; the battle ends (G13)
    assert t.rolls_used == 3


def test_we14_units_roll_by_value():
    # two tanks (3) and a fighter (3) against three infantry: rolls 3 (hit), 4 (miss), 3 (hit)
    t = Table(rolls=[3, 4, 3, 6, 6, 6], active="germany")
    t.control("karelia", "soviet_union")
    t.place("tank", "germany", "karelia", 2)
    t.place("fighter", "germany", "karelia")
    infs = t.place("infantry", "soviet_union", "karelia", 3)
    t.agents["germany"] = Script(decisions=["retreat"])
    for u in t.units("karelia", "germany"):
        t.set(u, "came_from", "eastern_europe")
    t.fight("karelia")
    assert sum(not t.alive(i) for i in infs) == 2


def test_we15a_defenseless_defending_transports_are_destroyed_with_their_cargo():
    # German destroyer (2) rolls 1: hits the UK destroyer; UK destroyer (2) rolls 6: misses.
    t = Table(rolls=[1, 6], active="germany")
    t.place("destroyer", "germany", "sz6")
    uk_dd = t.place("destroyer", "united_kingdom", "sz6")
    tr = t.place("transport", "united_kingdom", "sz6")
    inf = t.place("infantry", "united_kingdom", "sz6")
    t.aboard(inf, tr)
    t.fight("sz6")
    assert not t.alive(uk_dd) and not t.alive(tr) and not t.alive(inf)
    assert t.rolls_used == 2


def test_we15b_transports_with_submerged_submarines_against_aircraft():
    # the UK submarine submerges; the fighter (3) rolls 6: miss; the transport is then defenseless
    t = Table(rolls=[6], active="germany", agents={"united_kingdom": Script(dive=True)})
    t.place("fighter", "germany", "sz6")
    sub = t.place("submarine", "united_kingdom", "sz6")
    tr = t.place("transport", "united_kingdom", "sz6")
    t.fight("sz6")
    assert not t.alive(tr) and t.alive(sub)
    assert not t.var(sub, "submerged")  # back in the zone after the battle (FAQ F4)


def test_we15c_attacking_transports_are_not_defenseless_they_may_retreat():
    # German destroyer (2) rolls 6; UK destroyer (2) rolls 1 and sinks it: only the transport is left
    t = Table(rolls=[6, 1], active="germany", agents={"germany": Script(decisions=["retreat"])})
    t.place("destroyer", "united_kingdom", "sz6")
    dd = t.place("destroyer", "germany", "sz6")
    tr = t.place("transport", "germany", "sz6")
    for u in (dd, tr):
        t.set(u, "came_from", "sz5")
    t.fight("sz6")
    assert not t.alive(dd) and t.loc(tr) == "sz5"


def test_we15c_attacking_transports_that_cannot_retreat_are_destroyed():
    t = Table(rolls=[6, 1], active="germany", options={"no_retreat_for_ships_that_stayed": True})
    t.place("destroyer", "united_kingdom", "sz6")
    dd = t.place("destroyer", "germany", "sz6")
    tr = t.place("transport", "germany", "sz6")  # began the turn here: nowhere to retreat to
    t.fight("sz6")
    assert not t.alive(dd) and not t.alive(tr)


def test_we16_starting_treasuries_production_and_the_soviet_card():
    eng = engine()
    state = eng.new_game("world_1941", seed=0)
    from warcodex.interpreter.context import Context

    ctx = Context(eng, state)
    for power, ipc in {"soviet_union": 7, "germany": 12, "united_kingdom": 12, "japan": 9, "united_states": 17}.items():
        assert state.side_vars[power]["ipc"] == ipc
        assert eng.functions["production"](ctx, (eng.entities[power],), None) == ipc
    soviet = {}
    for u in state.units.values():
        if u.side == "soviet_union":
            soviet.setdefault(u.loc, []).append(u.type)
    assert {k: sorted(v) for k, v in soviet.items()} == {
        "russia": ["fighter", "infantry", "infantry", "infantry", "tank"],
        "archangel": ["infantry"] * 3,
        "karelia": ["infantry"] * 3,
        "caucasus": ["infantry", "infantry", "infantry", "tank"],
        "siberia": ["infantry"] * 3,
        "sz4": ["submarine"],
    }


def test_we17_faq_f1_sea_zones_6_and_8_are_adjacent():
    assert "sz8" in engine().board.neighbors("sz6")


def test_we18_faq_f2_no_deliberate_overbuying():
    t = Table(active="united_kingdom", phase="purchase")
    t.ipc("united_kingdom", 100)
    capacity = t.fn("production_capacity", t.side("united_kingdom"))
    assert capacity == 6  # United Kingdom 4 + India 2 (provisional values)
    for _ in range(capacity):
        t.do("buy", t=t.side("infantry"))
    assert not t.legal("buy", t=t.side("infantry"))
    assert t.ipc("united_kingdom") == 100 - 3 * capacity


def test_we19_faq_f3_ships_may_leave_a_zone_before_it_is_attacked():
    t = Table(active="united_kingdom", phase="combat_move")
    t.place("submarine", "germany", "sz6")
    t.place("transport", "germany", "sz5")
    t.begin("united_kingdom", "combat_move")
    bb = t.place("battleship", "united_kingdom", "sz6")
    dd = t.place("destroyer", "united_kingdom", "sz6")
    t.do("attack_in_place", z="sz6")
    assert t.legal("ship_combat_move", u=dd, to="sz5")  # to another battle
    t.do("ship_combat_move", u=dd, to="sz5")
    attackers = t.fn("attack_candidates", "sz6", t.side("united_kingdom"))
    assert attackers == (bb,)  # the destroyer that left takes no part


def test_we20_faq_f4_a_submerged_submarine_reappears_after_the_battle():
    # the German submarine submerges; UK destroyer is absent so it may; the UK battleship rolls 6
    t = Table(rolls=[], active="united_kingdom", agents={"germany": Script(dive=True)})
    sub = t.place("submarine", "germany", "sz6")
    t.place("fighter", "united_kingdom", "sz6")
    t.fight("sz6")
    assert t.loc(sub) == "sz6" and not t.var(sub, "submerged")


def test_we21_faq_f5_an_allied_destroyer_does_not_cancel_submarine_abilities():
    """A US fleet without a US destroyer attacks a German submarine; a UK destroyer in the zone takes
    no part, so the submarine may still submerge or strike first, and US aircraft cannot hit it."""
    # Step 2: the sub strikes (1): rolls 6. Step 3: the fighter (3) rolls 1: a hit no unit may
    # take; the battleship (4) rolls 6. The US then retreats the battleship.
    t = Table(rolls=[6, 1, 6], active="united_states",
              agents={"united_states": Script(decisions=["retreat"])})
    sub = t.place("submarine", "germany", "sz7")
    uk_dd = t.place("destroyer", "united_kingdom", "sz7")
    t.place("fighter", "united_states", "sz7")
    bb = t.place("battleship", "united_states", "sz7")
    t.set(bb, "came_from", "sz6")
    us = t.side("united_states")
    assert uk_dd not in t.fn("attack_candidates", "sz7", us)
    t.fight("sz7")
    assert "dive_d" in [w for w, _ in t.agents["germany"].asked]  # it was offered the choice
    assert t.alive(sub) and t.alive(uk_dd)  # the fighter's hit could not be given to it
    assert t.rolls_used == 3 and t.loc(bb) == "sz6"


def test_we21_mirror_any_defending_destroyer_cancels_attacking_submarines():
    # German sub attacks a US destroyer and a UK fighter on a US carrier. Step 2 is skipped; the
    # sub (2) rolls 6 in Step 3; defence: carrier (2) rolls 6, destroyer (2) 6, UK fighter (4) 1:
    # the fighter's hit goes to the submarine (a defending destroyer of another power is present).
    t = Table(rolls=[6, 6, 6, 1], active="germany")
    sub = t.place("submarine", "germany", "sz9")
    t.place("destroyer", "united_states", "sz9")
    cv = t.place("carrier", "united_states", "sz9")
    uk_fighter = t.place("fighter", "united_kingdom", "sz9")
    t.aboard(uk_fighter, cv)
    t.fight("sz9")
    assert not t.alive(sub)
    assert not any(w == "dive_a" for w, _ in t.agents["germany"].asked)


def test_we22_faq_f6_remaining_submarines_cannot_be_ignored():
    # round 1: UK destroyer (2) rolls 1 -> German destroyer; UK battleship (4) rolls 6; German sub
    # and destroyer fire in Step 4 (a UK destroyer is present): 6, 6.
    # round 2: only the sub is left and the battle goes on: UK rolls 1 (destroyer) 6; sub rolls 6.
    t = Table(rolls=[1, 6, 6, 6, 1, 6, 6], active="united_kingdom")
    t.place("destroyer", "united_kingdom", "sz6")
    t.place("battleship", "united_kingdom", "sz6")
    g_dd = t.place("destroyer", "germany", "sz6")
    sub = t.place("submarine", "germany", "sz6")
    t.fight("sz6")
    assert not t.alive(g_dd) and not t.alive(sub)
    assert t.rolls_used == 7


def test_we23a_a_fighter_ending_its_move_on_a_lone_transport_destroys_it():
    t = Table(rolls=[], active="germany", phase="combat_move")
    tr = t.place("transport", "united_kingdom", "sz2")
    inf = t.place("infantry", "united_kingdom", "sz2")
    t.aboard(inf, tr)
    fighter = t.place("fighter", "germany", "western_europe")
    t.do("air_combat_move", u=fighter, to="sz2")
    t.state.phase = "combat"
    t.call("conduct_combat", t.side("germany"))
    assert not t.alive(tr) and not t.alive(inf)
    assert t.rolls_used == 0  # no dice


def test_we23b_passing_through_does_not_destroy_a_transport():
    t = Table(rolls=[], active="germany", phase="combat_move")
    tr = t.place("transport", "united_kingdom", "sz7")
    t.place("transport", "united_kingdom", "sz2")
    fighter = t.place("fighter", "germany", "western_europe")
    t.do("air_combat_move", u=fighter, to="sz2")  # western europe -> sz7 -> sz2
    t.state.phase = "combat"
    t.call("conduct_combat", t.side("germany"))
    assert t.alive(tr)


def _faq_f7_position(decisions):
    # attacker: 2 bombers, 1 destroyer and 2 loaded transports (an assault from SZ7 on Western
    # Europe, here held by the UK); defender: 1 destroyer and 2 submarines.
    t = Table(rolls=[6, 4, 6, 1, 1, 6] + [6, 6] * 3, active="germany",
              agents={"germany": Script(decisions=decisions),  # no preference: its casualties are forced
                      "united_kingdom": Script(losses=["destroyer"])})
    t.control("western_europe", "germany")
    for z in ("sz7",):
        uk_dd = t.place("destroyer", "united_kingdom", z)
        subs = t.place("submarine", "united_kingdom", z, 2)
    t.begin("germany", "combat_move")
    bombers = t.place("bomber", "germany", "germany", 2)
    dd = t.place("destroyer", "germany", "sz6")
    trs = t.place("transport", "germany", "sz6", 2)
    cargo = t.place("infantry", "germany", "western_europe", 2)
    t.control("united_kingdom", "united_kingdom")
    return t, uk_dd, subs, bombers, dd, trs, cargo


@pytest.mark.parametrize("then", ["retreat", "press attack"])
def test_we24_faq_f7_bombers_destroyer_transports_against_destroyer_and_submarines(then):
    t, uk_dd, subs, bombers, dd, trs, cargo = _faq_f7_position([then, "retreat"])
    # an assault on the UK, declared from SZ7
    t.do("amphibious_assault", tr=trs[0], z="sz7", target="united_kingdom", load=(cargo[0],))
    t.do("amphibious_assault", tr=trs[1], z="sz7", target="united_kingdom", load=(cargo[1],))
    t.do("ship_combat_move", u=dd, to="sz7")
    for b in bombers:
        t.do("air_combat_move", u=b, to="sz7")
    t.state.phase = "combat"
    if then == "retreat":
        t.fight("sz7")
        # round 1: attack destroyer 6, bombers 4 (hit) 6 -> the defender takes its destroyer;
        # defence: subs 1, 1 (two hits), destroyer 6 (from behind the casualty line).
        # The attacker's first hit goes to its destroyer, the second to a transport (with cargo).
        assert not t.alive(uk_dd) and all(t.alive(s) for s in subs)
        assert not t.alive(dd)
        assert sum(t.alive(x) for x in trs) == 1 and sum(t.alive(c) for c in cargo) == 1
        assert all(t.alive(b) for b in bombers)
        # the surviving transport is not defenseless: it retreated with its cargo
        survivor = next(x for x in trs if t.alive(x))
        assert t.loc(survivor) == "sz6" and t.var(survivor, "retreated")
        assert t.rolls_used == 6
    else:
        t.fight("sz7")
        # round 2: no attacking destroyer any more, so the submarines may strike first (Step 2):
        # they roll 6, 6; the bombers roll 6, 6; the attacker then retreats the transport.
        assert all(t.alive(s) for s in subs)
        asked = [w for w, _ in t.agents["united_kingdom"].asked]
        assert asked.count("dive_d") == 1  # offered from round 2 only (changes take effect next round)
        assert t.rolls_used == 10
        survivor = next(x for x in trs if t.alive(x))
        assert t.loc(survivor) == "sz6"


# =============================================================== D-01 .. D-19
def test_d01_a_blitzing_tank_captures_the_first_territory_mid_move():
    t = Table(active="germany", phase="combat_move")
    tank = t.place("tank", "germany", "eastern_europe")
    before = t.production("germany")
    assert t.legal("blitz", u=tank, via="karelia", to="archangel")
    t.do("blitz", u=tank, via="karelia", to="eastern_europe")  # back to its start space
    assert t.controller("karelia") == "germany"
    assert t.production("germany") == before + 1  # at once
    assert t.loc(tank) == "eastern_europe"


def test_d02_a_tank_must_stop_at_an_enemy_industrial_complex():
    t = Table(active="germany", phase="combat_move")
    t.control("karelia", "germany")
    tank = t.place("tank", "germany", "karelia")
    assert not t.legal("blitz", u=tank, via="russia", to="siberia")  # Russia holds only a complex
    assert t.legal("land_attack", u=tank, to="russia")
    assert "siberia" not in t.reachable(tank, "land_combat")


def test_d03_a_battleship_takes_two_hits_and_is_repaired_after_the_battle():
    # round 1: the sub strikes (2): 1 -> battleship damaged; battleship (4) rolls 6.
    # round 2: sub strikes 6; battleship rolls 1 -> sub sunk. The battleship is then repaired.
    t = Table(rolls=[1, 6, 6, 1], active="germany")
    sub = t.place("submarine", "germany", "sz6")
    bb = t.place("battleship", "united_kingdom", "sz6")
    t.fight("sz6")
    assert not t.alive(sub) and t.alive(bb)
    assert t.steps(bb) == 2


def test_d03_an_attacking_battleship_that_retreats_after_one_hit_is_repaired():
    """12.3.1: "A battleship that survives a battle with one hit is stood upright again." An
    attacker that retreats in Step 6 survives the battle too, though it has left the space: it is
    repaired, and the next single hit does not sink it. Round 1: the German battleship (4) rolls 6,
    the UK destroyer (2) rolls 1 -> the battleship is damaged; Germany retreats to sz5."""
    t = Table(rolls=[6, 1], active="germany",
              agents={"germany": Script(decisions=["retreat"]), "united_kingdom": Script()})
    bb = t.place("battleship", "germany", "sz6")
    t.set(bb, "came_from", "sz5")
    dd = t.place("destroyer", "united_kingdom", "sz6")
    t.fight("sz6")
    assert t.loc(bb) == "sz5" and t.alive(dd)
    assert t.steps(bb) == 2  # stood upright again, though no longer in sz6
    assert t.var(bb, "retreated_from") == "sz6"


def test_d03_the_second_hit_destroys_it():
    t = Table(rolls=[1, 6, 1], active="germany")
    sub = t.place("submarine", "germany", "sz6")
    bb = t.place("battleship", "united_kingdom", "sz6")
    t.fight("sz6")
    assert t.alive(sub) and not t.alive(bb)


def test_d04_an_attacking_submarine_facing_a_destroyer_fires_with_the_others():
    # no Step 2: the sub (2) rolls 1 in Step 3 -> the destroyer; defence: carrier (2) 6, destroyer
    # (2) 6 (behind the casualty line), fighter (4) 1 -> its hit may go to the submarine.
    t = Table(rolls=[1, 6, 6, 1], active="germany")
    sub = t.place("submarine", "germany", "sz2")
    dd = t.place("destroyer", "united_kingdom", "sz2")
    cv = t.place("carrier", "united_kingdom", "sz2")
    f = t.place("fighter", "united_kingdom", "sz2")
    t.aboard(f, cv)
    t.agents["united_kingdom"] = Script(losses=["destroyer"])
    t.fight("sz2")
    assert not t.alive(dd) and not t.alive(sub)
    assert "dive_a" not in [w for w, _ in t.agents["germany"].asked]


def test_d05_a_us_unit_liberates_a_uk_territory():
    t = Table(active="united_states")
    t.control("india", "japan")
    uk, jp, us = t.production("united_kingdom"), t.production("japan"), t.production("united_states")
    t.place("infantry", "united_states", "india")
    t.fight("india")
    assert t.controller("india") == "united_kingdom"
    assert (t.production("united_kingdom"), t.production("japan"), t.production("united_states")) == (uk + 2, jp - 2, us)
    assert "india" not in t.fn("usable_factories", t.side("united_states"))
    t.begin("united_kingdom")
    assert "india" in t.fn("usable_factories", t.side("united_kingdom"))


def test_d06_with_london_lost_the_us_captures_instead_until_london_is_freed():
    t = Table(active="united_states")
    t.control("india", "japan")
    t.control("united_kingdom", "germany")
    us = t.production("united_states")
    t.place("infantry", "united_states", "india")
    t.fight("india")
    assert t.controller("india") == "united_states" and t.production("united_states") == us + 2
    t.begin("united_states")
    assert "india" in t.fn("usable_factories", t.side("united_states"))
    t.place("infantry", "united_states", "united_kingdom")
    t.fight("united_kingdom")
    assert t.controller("united_kingdom") == "united_kingdom"
    assert t.controller("india") == "united_kingdom"


def test_d07_a_fighter_may_not_land_in_a_territory_captured_this_turn():
    t = Table(rolls=[1, 1, 6], active="germany")
    t.control("karelia", "soviet_union")
    t.place("infantry", "soviet_union", "karelia")
    t.place("tank", "germany", "karelia")
    f = t.place("fighter", "germany", "karelia")
    t.set(f, "moved", 4)  # no moves left
    t.fight("karelia")
    assert t.controller("karelia") == "germany"
    assert not t.fn("landing_ok", f, "karelia", t.side("germany"))
    t.state.phase = "noncombat"
    t.call("land_stragglers", t.side("germany"))
    assert not t.alive(f)


def test_d08_a_split_suez_canal_is_closed_to_both_sides():
    t = Table(active="united_kingdom", phase="combat_move")
    t.control("anglo_egyptian_sudan", "germany")
    t.begin("united_kingdom", "combat_move")
    dd = t.place("destroyer", "united_kingdom", "sz17")
    assert "sz28" not in t.reachable(dd, "sea_noncombat")
    t.begin("germany", "combat_move")
    gdd = t.place("destroyer", "germany", "sz17")
    assert "sz28" not in t.reachable(gdd, "sea_noncombat")
    f = t.place("fighter", "germany", "sz17")
    assert "sz28" in t.reachable(f, "air")


def test_d09_a_canal_captured_this_turn_cannot_be_used_yet():
    t = Table(active="japan", phase="combat_move")
    t.control("central_america", "japan", at_start=False)  # captured this turn
    dd = t.place("destroyer", "japan", "sz19")
    assert "sz12" not in t.reachable(dd, "sea_noncombat")
    t.begin("japan", "combat_move")  # its next turn
    assert "sz12" in t.reachable(dd, "sea_noncombat")


def test_d10_fighters_of_a_sunk_defending_carrier_land_nearby_first():
    # German battleship (4) rolls 1: the carrier; the carrier (2) and fighters (4) roll 6, 6, 6
    # then the German battleship retreats to the zone it came from
    t = Table(rolls=[1, 6, 6, 6], active="germany",
              agents={"united_kingdom": Script(losses=["carrier"]), "germany": Script(decisions=["retreat"])})
    bb = t.place("battleship", "germany", "sz3")
    t.set(bb, "came_from", "sz4")
    cv = t.place("carrier", "united_kingdom", "sz3")
    f1, f2 = t.place("fighter", "united_kingdom", "sz3", 2)
    t.aboard(f1, cv)
    t.aboard(f2, cv)
    t.fight("sz3")
    assert not t.alive(cv)
    t.state.phase = "noncombat"
    t.call("stranded_fighters", t.side("germany"))
    for f in (f1, f2):  # one move to a friendly territory (the UK, or Soviet Karelia)
        assert t.loc(f) in ("united_kingdom", "karelia")


def test_d11_cargo_loaded_in_combat_movement_must_be_used_in_a_declared_assault():
    t = Table(active="germany", phase="combat_move")
    tr = t.place("transport", "germany", "sz5")
    inf = t.place("infantry", "germany", "germany")
    combat_actions = next(p for p in engine().sequence.phases if p.name == "combat_move")
    allowed = [a for item in combat_actions.items for a in getattr(item, "actions", [])]
    assert "load" not in allowed  # loading in Combat Movement only comes with an assault's target
    assert t.legal("amphibious_assault", tr=tr, z="sz5", target="karelia", load=(inf,))
    assert all(c.arg("target") for c in t.instances("amphibious_assault"))


def test_d12_a_uk_infantry_rides_a_us_transport_over_three_turns():
    t = Table(active="united_kingdom", phase="noncombat")
    tr = t.place("transport", "united_states", "sz6")
    inf = t.place("infantry", "united_kingdom", "united_kingdom")
    t.do("load", c=inf, tr=tr)  # UK turn: load
    assert not t.legal("unload", tr=tr, to="western_europe", cargo=(inf,)) and not t.legal("unload", tr=tr, to="united_kingdom", cargo=(inf,))
    t.begin("united_states", "noncombat")  # US turn: the US moves it; it may not unload UK units
    t.do("ship_move", u=tr, to="sz7")
    assert t.loc(inf) == "sz7"
    assert not t.instances("unload")
    t.control("western_europe", "united_kingdom")
    t.begin("united_kingdom", "noncombat")  # next UK turn: unload
    assert t.legal("unload", tr=tr, to="western_europe", cargo=(inf,))
    t.do("unload", tr=tr, to="western_europe", cargo=(inf,))
    assert t.loc(inf) == "western_europe"


def test_d13_mutual_annihilation_leaves_the_territory_with_the_defender():
    t = Table(rolls=[1, 1], active="germany")
    t.control("karelia", "soviet_union")
    t.place("infantry", "germany", "karelia")
    t.place("infantry", "soviet_union", "karelia")
    t.fight("karelia")
    assert not t.units("karelia") and t.controller("karelia") == "soviet_union"


def test_d14_aircraft_alone_cannot_capture():
    t = Table(rolls=[1, 6], active="germany")
    t.control("karelia", "soviet_union")
    t.place("infantry", "soviet_union", "karelia")
    f = t.place("fighter", "germany", "karelia")
    t.fight("karelia")
    assert t.controller("karelia") == "soviet_union" and t.loc(f) == "karelia"


def _multinational_defence(rolls, agents):
    t = Table(rolls=rolls, active="germany", agents=agents)
    tank = t.place("tank", "germany", "western_europe")
    t.set(tank, "came_from", "germany")
    uk = t.place("infantry", "united_kingdom", "western_europe")
    us = t.place("tank", "united_states", "western_europe")
    t.control("western_europe", "united_kingdom")
    return t, tank, uk, us


def test_d15_disagreeing_defenders_let_the_attacker_choose():
    """§7.5 (L523): the UK and US players choose together; they disagree, so the attacker chooses."""
    # German tank (3) rolls 1; UK infantry (2) 6, US tank (3) 6; then the tank retreats
    uk_player, us_player = Script(losses=["tank"]), Script(losses=["infantry"])  # each would lose the other's unit
    t, tank, uk, us = _multinational_defence([1, 6, 6], {
        "germany": Script(losses=["tank"], decisions=["retreat"]),
        "united_kingdom": uk_player, "united_states": us_player})
    t.fight("western_europe")
    assert t.alive(uk) and not t.alive(us)  # the attacker picked the US tank
    assert t.loc(tank) == "germany"
    assert [w for w, _ in uk_player.asked] == ["v"] and [w for w, _ in us_player.asked] == ["v"]


def test_d15_agreeing_defenders_choose_their_casualty():
    both_infantry = dict(losses=["infantry"])
    germany = Script(losses=["tank"], decisions=["retreat"])
    t, tank, uk, us = _multinational_defence([1, 6, 6], {
        "germany": germany, "united_kingdom": Script(**both_infantry), "united_states": Script(**both_infantry)})
    t.fight("western_europe")
    assert not t.alive(uk) and t.alive(us)  # the defenders' joint choice
    assert "v" not in [w for w, _ in germany.asked]  # the attacker was not asked


def test_d15_one_player_running_both_defending_powers_just_chooses():
    player = Script(losses=["tank"])
    t, tank, uk, us = _multinational_defence([1, 6, 6], {
        "germany": Script(decisions=["retreat"]), "united_kingdom": player, "united_states": player})
    t.fight("western_europe")
    assert t.alive(uk) and not t.alive(us)
    assert [w for w, _ in player.asked].count("v") == 1  # asked once: no agreement needed
    assert t.fn("defending_powers", "western_europe", t.side("germany")) == (t.side("united_kingdom"),)
    t.place("infantry", "united_states", "western_europe")
    assert t.fn("defending_powers", "western_europe", t.side("germany")) == (t.side("united_kingdom"), t.side("united_states"))


def test_d16_a_power_without_its_capital_skips_purchase_mobilization_and_income():
    class Passes(FirstAgent):
        def choose_action(self, ctx, side, legal):
            return None

    eng = engine()
    agents = {p: FirstAgent() for p in POWERS}
    agents["soviet_union"] = Passes()
    g = start(eng, "world_1941", 0, agents, trace=False)
    g.state.loc_vars["russia"]["controller"] = eng.entities["germany"]
    from dataclasses import replace

    for uid in list(g.state.units_at("russia")):  # Moscow fell with its garrison
        g.state.put(replace(g.state.units[uid], side="germany"))
    g.state.touch()
    ipc = g.state.side_vars["soviet_union"]["ipc"]
    g.run(max_actions=3)  # the Soviet turn, then three German purchases
    soviet_phases = {e.get("phase") for e in g.log if e.get("side") == "soviet_union"}
    assert "purchase" not in soviet_phases and "combat_move" in soviet_phases and "noncombat" in soviet_phases
    assert g.state.side_vars["soviet_union"].get("collected", 0) == 0
    assert g.state.side_vars["soviet_union"]["ipc"] == ipc


def test_d17_a_fighter_may_wait_for_a_new_carrier_which_must_then_be_placed_there():
    t = Table(active="united_kingdom", phase="noncombat")
    t.state.side_vars.setdefault("united_kingdom", {})["mobilization"] = (t.side("carrier"),)
    t.ipc("united_kingdom", 0)
    f = t.place("fighter", "united_kingdom", "united_kingdom")
    assert t.legal("air_move", u=f, to="sz3")
    t.do("air_move", u=f, to="sz3")
    assert t.var(f, "awaiting_carrier")
    t.state.phase = "mobilize"
    t.call("mobilize_units", t.side("united_kingdom"))
    cv = t.units("sz3", "united_kingdom", "carrier")
    assert cv and t.var(f, "aboard") == cv[0]
    assert t.state.loc_vars["united_kingdom"]["placed"] == 1  # the carrier counts against the limit


def test_d18_optional_turkish_straits_close_sea_zone_16_to_ships():
    t = Table(active="soviet_union", phase="combat_move", options={"turkish_straits": True})
    sub = t.place("submarine", "soviet_union", "sz16")
    dd = t.place("destroyer", "germany", "sz17")
    f = t.place("fighter", "soviet_union", "caucasus")
    assert not t.reachable(sub, "sea_noncombat")
    assert "sz16" not in t.reachable(dd, "sea_noncombat")
    assert "sz17" in t.reachable(f, "air") and "sz16" in t.reachable(f, "air")


def test_d19_aircraft_fight_either_at_sea_or_on_land_in_an_amphibious_assault():
    t = Table(active="united_states")
    t.control("western_europe", "germany")
    g_dd = t.place("destroyer", "germany", "sz7")
    g_f = t.place("fighter", "germany", "western_europe")
    us_sea = t.place("fighter", "united_states", "sz7")
    us_land = t.place("bomber", "united_states", "western_europe")
    us = t.side("united_states")
    assert t.fn("attack_candidates", "sz7", us) == (us_sea,)
    assert t.fn("attack_candidates", "western_europe", us) == (us_land,)
    assert g_f not in t.fn("defenders", "sz7", us) and g_dd in t.fn("defenders", "sz7", us)
