"""Axis & Allies 1941: the rules that needed engine concepts (transport routes in legs with loading
on the way, ships leaving a hostile zone to load and coming back, carrier moves a fighter's landing
relies on, "do everything possible to land"). Each test states the rulebook text it reproduces
(the Russian original, shared/seeds/002_fbb7f8a5b7b564a9.txt, cited by line as L..., and the
digest's section numbers). Positions are built by hand on the provisional map."""

from __future__ import annotations

from test_aa1941_helpers import Script, Table, engine
from warcodex.interpreter.sequence import Runner


def obligation(t: Table, phase: str):
    """The first unmet `until` obligation of a phase's `allow` step, as the Runner judges it."""
    ph = next(p for p in engine().sequence.phases if p.name == phase)
    allow = next(i for i in ph.items if type(i).__name__ == "Allow")
    t.state.touch()
    r = Runner(engine(), t.ctx, t.agents).unmet_obligation(allow)
    return None if r is None else r.message


# =============================================================== §6.5.4 / §12.3.5: transport routes
def _uk_route(t: Table):
    """A UK transport in SZ1 (off Eastern Canada), UK infantry and tank in the United Kingdom (next to
    SZ2), Western Europe German (next to SZ6): SZ1 -> SZ2 -> SZ6 is the transport's whole Move."""
    t.control("western_europe", "germany")
    defender = t.place("infantry", "germany", "western_europe")
    t.begin("united_kingdom", "combat_move")
    tr = t.place("transport", "united_kingdom", "sz1")
    inf = t.place("infantry", "united_kingdom", "united_kingdom")
    tank = t.place("tank", "united_kingdom", "united_kingdom")
    other = t.place("infantry", "united_kingdom", "eastern_canada")
    return tr, inf, tank, other, defender


def test_a_transport_loads_along_its_route_in_combat_movement():
    """§6.5.4 (L331): "a transport may load units in any friendly sea zone along its route, including
    the zone where it started"; §12.3.5 (L801): "pick up cargo, move one sea zone, pick up more, move
    another sea zone, and unload at the end of its move"."""
    # land battle after the landing: infantry (1) rolls 1, tank (3) rolls 2; German infantry (2) rolls 6
    t = Table(rolls=[1, 2, 6], active="united_kingdom", phase="combat_move")
    tr, inf, tank, other, defender = _uk_route(t)
    assert not t.legal("amphibious_assault", tr=tr, z="sz6", target="western_europe", load=(inf,))  # not next to SZ1
    assert t.legal("combat_load", tr=tr, load=(other,))  # loading in the starting zone...
    t.do("transport_leg", tr=tr, to="sz2")  # ...or moving on first, to load further along
    assert t.var(tr, "moved") == 1 and t.var(tr, "en_route")
    assert obligation(t, "combat_move") is not None  # it must now end in an assault
    assert not t.legal("land_attack", u=other, to="western_europe")  # its route is finished first (simultaneity)
    t.do("combat_load", tr=tr, load=(inf, tank))
    assert t.loc(inf) == "sz2" and t.var(inf, "aboard") == tr
    assert not t.legal("amphibious_assault", tr=tr, z="sz5", target="germany", load=())  # 2 more moves: beyond its Move
    t.do("amphibious_assault", tr=tr, z="sz6", target="western_europe", load=())
    assert t.var(tr, "moved") == 2 and t.loc(inf) == "sz6" and t.loc(tank) == "sz6"
    assert obligation(t, "combat_move") is None
    t.state.phase = "combat"
    t.call("conduct_combat", t.side("united_kingdom"))
    assert not t.alive(defender) and t.controller("western_europe") == "united_kingdom"
    assert t.loc(inf) == "western_europe" and t.loc(tank) == "western_europe"


def test_a_leg_that_could_not_end_in_an_assault_is_refused():
    """§6.5.4 (L333): cargo loaded in Combat Movement must be unloaded in an amphibious assault."""
    t = Table(active="united_kingdom", phase="combat_move")
    tr, inf, tank, other, defender = _uk_route(t)
    # SZ9: no launch zone within the one move left (no hostile coast near), nothing to pick up there
    assert not t.legal("transport_leg", tr=tr, to="sz9")
    us = t.place("transport", "united_states", "sz12")
    t.place("infantry", "united_states", "eastern_united_states")
    t.begin("united_states", "combat_move")
    assert not t.instances("combat_load")  # no hostile coast within two moves of SZ12


def test_d11_cargo_loaded_in_combat_movement_must_be_used_in_a_declared_assault():
    """D-11: loading in Combat Movement without an assault is illegal: once loaded, the phase
    cannot end until the transport has declared its assault."""
    t = Table(active="germany", phase="combat_move")
    tr = t.place("transport", "germany", "sz5")
    inf = t.place("infantry", "germany", "germany")
    t.begin("germany", "combat_move")
    assert obligation(t, "combat_move") is None
    t.do("combat_load", tr=tr, load=(inf,))
    assert obligation(t, "combat_move") == ("a transport that loaded or moved in Combat Movement must end its "
                                            "move in an amphibious assault")
    assert "karelia" in {c.arg("target") for c in t.instances("amphibious_assault")}
    t.do("amphibious_assault", tr=tr, z="sz5", target="karelia", load=())
    assert obligation(t, "combat_move") is None


def test_the_runner_refuses_to_end_combat_movement_mid_route():
    """The same, through the turn sequence: an agent that tries to pass with a half-made route is
    made to finish it."""

    class Loader(Script):
        loaded = False

        def choose_action(self, ctx, side, legal):
            if not legal.may_pass:
                self.refused = legal.obligation
                return legal.first()
            if not self.loaded:
                self.loaded = True
                return next(a for a in legal if a.action == "combat_load")
            return None  # tries to end the phase after loading

    t = Table(active="germany", phase="combat_move")
    tr = t.place("transport", "germany", "sz5")
    t.place("infantry", "germany", "germany")
    t.begin("germany", "combat_move")
    agent = Loader()
    ph = next(p for p in engine().sequence.phases if p.name == "combat_move")
    from warcodex.interpreter.sequence import Op

    op = Op("allow", ph, "germany", next(i for i in ph.items if type(i).__name__ == "Allow"))
    runner = Runner(engine(), t.ctx, {**t.agents, "germany": agent})
    while runner._allow_step(op):
        pass
    assert "amphibious assault" in agent.refused
    assert t.var(tr, "assault_target") in ("karelia", "united_kingdom")  # the first legal assault
    assert obligation(t, "combat_move") is None


def test_option_3_leave_a_hostile_zone_load_and_come_back_to_fight():
    """§6.2 (L271): "leave the sea zone, load units, and come back to the same sea zone to fight
    (you cannot load units while in a hostile sea zone)"."""
    # sea battle in SZ6: battleship (4) rolls 1, hit; German destroyer (2) rolls 6. Western Europe
    # is empty: the landing captures it without dice.
    t = Table(rolls=[1, 6], active="united_kingdom", phase="combat_move")
    t.control("western_europe", "germany")
    german = t.place("destroyer", "germany", "sz6")  # placed there on Germany's turn
    t.begin("united_kingdom", "combat_move")
    bb = t.place("battleship", "united_kingdom", "sz6")  # option 1: stays and fights
    tr = t.place("transport", "united_kingdom", "sz6")
    inf = t.place("infantry", "united_kingdom", "united_kingdom")
    assert not t.legal("combat_load", tr=tr, load=(inf,))  # not in the hostile zone
    assert not t.legal("amphibious_assault", tr=tr, z="sz6", target="western_europe", load=(inf,))
    t.do("transport_leg", tr=tr, to="sz2")  # leaves (its start zone does not stop it)
    t.do("combat_load", tr=tr, load=(inf,))
    t.do("amphibious_assault", tr=tr, z="sz6", target="western_europe", load=())  # and comes back
    assert t.loc(tr) == "sz6" and t.var(tr, "moved") == 2
    t.state.phase = "combat"
    t.call("conduct_combat", t.side("united_kingdom"))
    assert not t.alive(german) and t.alive(bb)
    assert t.loc(inf) == "western_europe" and t.controller("western_europe") == "united_kingdom"
    assert t.rolls_used == 2


def test_assault_unloads_any_number_of_units_carried_from_earlier_turns():
    """§12.3.5 (L807): in an assault the transport must unload everything loaded in Combat Movement,
    and may also unload any number of its owner's units already aboard at the start of the turn."""
    t = Table(active="germany", phase="combat_move",
              agents={"germany": Script(picks={"extra": 0})})
    t.control("karelia", "soviet_union")
    tr = t.place("transport", "germany", "sz5")
    old = t.place("infantry", "germany", "sz5")
    t.aboard(old, tr)
    new = t.place("tank", "germany", "germany")
    t.begin("germany", "combat_move")

    class KeepAboard(Script):
        def choose_subset(self, ctx, who, what, options, lo, hi):
            return [] if what == "extra" else super().choose_subset(ctx, who, what, options, lo, hi)

    t.agents["germany"] = KeepAboard()
    t.ctx.agents["germany"] = t.agents["germany"]
    t.do("amphibious_assault", tr=tr, z="sz5", target="karelia", load=(new,))
    t.state.phase = "combat"
    t.call("conduct_combat", t.side("germany"))
    assert t.loc(new) == "karelia" and t.controller("karelia") == "germany"
    assert t.loc(old) == "sz5" and t.var(old, "aboard") == tr  # kept aboard


# =============================================================== §8.4 / §12.3.5: noncombat
def test_noncombat_pick_up_move_pick_up_move_unload():
    """§12.3.5 (L801) exactly: pick up cargo, move one zone, pick up more, move another, unload."""
    t = Table(active="united_kingdom", phase="noncombat")
    tr = t.place("transport", "united_kingdom", "sz1")
    i1 = t.place("infantry", "united_kingdom", "eastern_canada")
    i2 = t.place("infantry", "united_kingdom", "united_kingdom")
    t.do("load", c=i1, tr=tr)
    t.do("ship_move", u=tr, to="sz2")
    t.do("load", c=i2, tr=tr)
    assert t.loc(i1) == "sz2" and t.loc(i2) == "sz2"
    t.do("ship_move", u=tr, to="sz3")
    assert t.var(tr, "moved") == 2 and not t.instances("ship_move")
    assert t.legal("unload", tr=tr, to="karelia", cargo=(i1, i2))  # Soviet: a friendly territory
    t.do("unload", tr=tr, to="karelia", cargo=(i1, i2))
    assert t.loc(i1) == "karelia" and t.loc(i2) == "karelia"


def test_noncombat_any_number_of_units_unload_into_one_territory():
    """§8.4 / §12.3.5 (L803-805): any number of the units aboard may unload, into one friendly
    territory; once it unloads the transport may not move again."""
    t = Table(active="united_kingdom", phase="noncombat")
    tr = t.place("transport", "united_kingdom", "sz2")
    inf = t.place("infantry", "united_kingdom", "united_kingdom")
    tank = t.place("tank", "united_kingdom", "united_kingdom")
    t.do("load", c=inf, tr=tr)
    t.do("load", c=tank, tr=tr)
    t.do("ship_move", u=tr, to="sz3")
    t.do("unload", tr=tr, to="karelia", cargo=(tank,))
    assert t.loc(tank) == "karelia" and t.loc(inf) == "sz3" and t.var(inf, "aboard") == tr  # loaded this phase: may stay
    assert not t.legal("unload", tr=tr, to="united_kingdom", cargo=(inf,))  # not a second territory
    assert t.legal("unload", tr=tr, to="karelia", cargo=(inf,))
    assert not t.instances("ship_move")  # no move after unloading


def test_a_ship_moves_in_legs_up_to_its_move():
    t = Table(active="united_kingdom", phase="noncombat")
    dd = t.place("destroyer", "united_kingdom", "sz1")
    t.do("ship_move", u=dd, to="sz2")
    assert t.reachable(dd, "sea_noncombat") == {"sz1", "sz3", "sz6", "sz7", "sz8", "sz9"}  # one move left
    t.do("ship_move", u=dd, to="sz3")
    assert not t.reachable(dd, "sea_noncombat")


# =============================================================== §12.2 / §8.3 / §8.4 / §12.2.1: carriers
def _we11(t: Table):
    t.control("philippine_islands", "japan")
    defender = t.place("infantry", "japan", "philippine_islands")
    t.begin("united_states", "combat_move")
    carrier = t.place("carrier", "united_states", "sz40")
    fighter = t.place("fighter", "united_states", "sz40")
    t.aboard(fighter, carrier)
    t.do("air_combat_move", u=fighter, to="philippine_islands")
    return carrier, fighter, defender


def _noncombat(t: Table, power: str = "united_states"):
    t.state.phase = "noncombat"
    t.state.touch()


def test_we11_the_carrier_must_make_the_move_the_landing_plan_declared():
    """§12.2 (L671): "if you declared that a carrier would move in Noncombat Movement to give a
    landing space to a fighter moving in Combat Movement, you must move the carrier to its planned
    position"; WE-11: the carrier goes SZ40 -> SZ39 -> SZ38 and the fighter lands on it."""
    t = Table(rolls=[1, 6], active="united_states", phase="combat_move")
    carrier, fighter, defender = _we11(t)
    assert t.var(fighter, "landing_carrier") == carrier and t.var(carrier, "planned_zone") == "sz38"
    assert not t.legal("ship_combat_move", u=carrier, to="sz39")
    t.state.phase = "combat"
    t.fight("philippine_islands")
    _noncombat(t)
    assert obligation(t, "noncombat") is not None  # the carrier still owes its move
    assert not t.legal("ship_move", u=carrier, to="sz39")  # only to the planned zone
    assert not t.legal("ship_move", u=carrier, to="sz37")
    t.do("ship_move", u=carrier, to="sz38")
    assert t.fn("promises_kept", t.side("united_states"))
    assert not t.instances("ship_move") or all(c.arg("u") != carrier for c in t.instances("ship_move"))  # it waits there
    assert obligation(t, "noncombat") is not None  # the fighter can land: it must
    t.do("air_move", u=fighter, to="sz38")
    assert t.var(fighter, "aboard") == carrier and t.var(fighter, "moved") == 4
    assert obligation(t, "noncombat") is None


def test_we11_the_fighter_may_fly_first_and_wait_for_its_carrier():
    """§8.3 (L567): a fighter ending its noncombat move at sea needs a carrier that "moves, stays or
    is placed" there to pick it up; §12.2.1 (L691): the carrier moving there may not move further."""
    t = Table(rolls=[1, 6], active="united_states", phase="combat_move")
    carrier, fighter, defender = _we11(t)
    t.state.phase = "combat"
    t.fight("philippine_islands")
    _noncombat(t)
    t.do("air_move", u=fighter, to="sz38")
    assert t.var(fighter, "awaiting_pickup") and t.loc(carrier) == "sz40"
    assert not t.fn("is_landed", fighter, t.side("united_states"))
    assert obligation(t, "noncombat") is not None
    t.do("ship_move", u=carrier, to="sz38")
    assert t.var(fighter, "aboard") == carrier and not t.var(fighter, "awaiting_pickup")
    assert t.var(carrier, "done")
    assert obligation(t, "noncombat") is None


def test_the_obligation_ends_if_the_fighter_is_shot_down():
    """§12.2 (L671): "... unless the fighter has landed elsewhere or been shot down"."""
    # fighter (3) rolls 6: miss; Japanese infantry (2) rolls 1: the fighter is shot down
    t = Table(rolls=[6, 1], active="united_states", phase="combat_move")
    carrier, fighter, defender = _we11(t)
    t.state.phase = "combat"
    t.fight("philippine_islands")
    assert not t.alive(fighter)
    _noncombat(t)
    assert obligation(t, "noncombat") is None
    assert t.legal("ship_move", u=carrier, to="sz37")  # free to go anywhere


def test_the_obligation_ends_if_the_fighter_lands_elsewhere():
    t = Table(rolls=[1, 6], active="united_states", phase="combat_move")
    t.control("philippine_islands", "japan")
    t.place("infantry", "japan", "philippine_islands")
    t.begin("united_states", "combat_move")
    carrier = t.place("carrier", "united_states", "sz40")
    other = t.place("carrier", "united_states", "sz38")  # already in place, but...
    fighter = t.place("fighter", "united_states", "sz40")
    t.aboard(fighter, carrier)
    g1, g2 = t.place("fighter", "united_states", "sz38", 2)
    t.aboard(g1, other)
    t.aboard(g2, other)  # ...its deck is full: the plan relies on the moving carrier
    t.do("air_combat_move", u=fighter, to="philippine_islands")
    assert t.var(carrier, "planned_zone") == "sz38" and t.var(fighter, "landing_carrier") == carrier
    t.state.phase = "combat"
    t.fight("philippine_islands")
    _noncombat(t)
    t.do("air_move", u=g1, to="australia")  # a deck space frees on the other carrier
    t.do("air_move", u=fighter, to="sz38")
    assert t.var(fighter, "aboard") == other  # landed elsewhere: on the other carrier
    assert obligation(t, "noncombat") is None
    assert t.legal("ship_move", u=carrier, to="sz37")


def test_a_carrier_must_come_where_a_fighter_ended_its_noncombat_move():
    """§12.2.1 (L691): "your carrier may move into a sea zone where one of your fighters ended its
    move (in fact, it must do so if it can), but may not move further this turn"; §8.4 (L581)."""
    t = Table(active="united_states", phase="noncombat")
    carrier = t.place("carrier", "united_states", "sz40")
    fighter = t.place("fighter", "united_states", "hawaiian_islands")
    _noncombat(t)
    assert t.legal("air_move", u=fighter, to="sz37")  # no carrier there yet, but one can come
    assert not t.legal("air_move", u=fighter, to="sz24")  # 4 moves for the fighter, 3 for the carrier
    t.do("air_move", u=fighter, to="sz37")
    assert t.var(fighter, "landing_carrier") == carrier and t.var(carrier, "planned_zone") == "sz37"
    assert obligation(t, "noncombat") is not None
    assert not t.legal("ship_move", u=carrier, to="sz39")
    t.do("ship_move", u=carrier, to="sz37")
    assert t.var(fighter, "aboard") == carrier and t.var(carrier, "done")
    assert obligation(t, "noncombat") is None


def test_promised_deck_space_is_kept_for_the_fighter():
    t = Table(rolls=[1, 6], active="united_states", phase="combat_move")
    carrier, fighter, defender = _we11(t)
    t.state.phase = "combat"
    t.fight("philippine_islands")
    _noncombat(t)
    f2 = t.place("fighter", "united_states", "hawaiian_islands")
    f3 = t.place("fighter", "united_states", "hawaiian_islands")
    t.do("ship_move", u=carrier, to="sz38")
    # one free slot besides the promised one: a second extra fighter finds no room
    assert t.fn("room_for", carrier, f2) == 1
    assert not t.fn("landing_ok", f2, "sz40", t.side("united_states"))  # the carrier left SZ40


def test_every_aircraft_that_can_land_must_land_before_noncombat_ends():
    """§12.2 (L669): "during Noncombat Movement and Mobilization you must do everything possible to
    land your aircraft"."""
    t = Table(rolls=[1, 6], active="germany", phase="combat_move")
    t.control("karelia", "soviet_union")
    t.place("infantry", "soviet_union", "karelia")
    t.begin("germany", "combat_move")
    f = t.place("fighter", "germany", "germany")
    t.do("air_combat_move", u=f, to="karelia")
    t.state.phase = "combat"
    t.fight("karelia")
    _noncombat(t)
    assert obligation(t, "noncombat") == ("you must do everything possible to land your aircraft: one can still "
                                          "reach a landing space")
    t.do("air_move", u=f, to="eastern_europe")
    assert obligation(t, "noncombat") is None
