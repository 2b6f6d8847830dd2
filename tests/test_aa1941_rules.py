"""Axis & Allies 1941: rules beyond the worked examples, and the options that switch to the
alternative readings of ambiguous rules (docs/games/axis-allies-1941.md)."""

from __future__ import annotations

import pytest

from test_aa1941_helpers import Script, Table, engine


# ---------------------------------------------------------------- the map facts the text gives (14.6)
def test_printed_map_facts_hold_on_the_provisional_map():
    board = engine().board
    for a, b in [("western_canada", "eastern_canada"), ("western_united_states", "eastern_united_states"),
                 ("mexico", "east_mexico"), ("sz35", "sz21"), ("sz36", "sz20"), ("sz41", "sz19")]:
        assert b in board.neighbors(a) and "wrap" in board.edge(a, b)  # 3.10, 3.11: across the seam
    assert "sz8" in board.neighbors("sz6")  # FAQ F1
    assert "suez_canal" in board.edge("sz17", "sz28") and "panama_canal" in board.edge("sz12", "sz19")
    assert "anglo_egyptian_sudan" in board.neighbors("middle_east")  # the canal does not block land
    for n in ("turkey", "mongolia", "sahara"):
        assert "neutral" in board.features(n)
    assert board.attrs("gibraltar")["value"] == 0
    assert "sz5" in board.neighbors("germany") and board.attrs("germany")["value"] == 4  # WE-07
    for path in (["hawaiian_islands", "sz40", "sz37", "sz33", "australia"], ["sz40", "sz39", "sz38", "philippine_islands"]):
        assert all(b in board.neighbors(a) for a, b in zip(path, path[1:]))  # WE-10, WE-11


def test_capitals_and_starting_production():
    t = Table()
    capitals = {p: t.fn("capital_of", t.side(p)) for p in ("soviet_union", "germany", "united_kingdom", "japan", "united_states")}
    assert capitals == {"soviet_union": "russia", "germany": "germany", "united_kingdom": "united_kingdom",
                        "japan": "japan", "united_states": "eastern_united_states"}
    cities = {engine().board.attrs(h)["capital_city"] for h in capitals.values()}
    assert cities == {"Moscow", "Berlin", "London", "Tokyo", "Washington"}
    assert [t.production(p) for p in ("soviet_union", "germany", "united_kingdom", "japan", "united_states")] == [7, 12, 12, 9, 17]


# ---------------------------------------------------------------- victory (1, 1.1, 11)
def _winner(t: Table, at_end_of: str):
    t.call("check_victory", t.side(at_end_of))
    return t.state.winner


def test_allies_win_with_berlin_and_tokyo_at_the_end_of_japans_turn():
    t = Table()
    t.control("germany", "soviet_union")
    assert _winner(t, "japan") is None  # Berlin alone is not enough
    t.control("japan", "united_states")
    assert _winner(t, "germany") is None  # checked at the end of Japan's turn only
    assert _winner(t, "japan") == "allies"


def test_axis_win_with_two_allied_capitals_at_the_end_of_the_usas_turn():
    t = Table()
    t.control("russia", "germany")
    t.control("united_kingdom", "japan")  # any combination of Germany and Japan
    assert _winner(t, "japan") is None
    assert _winner(t, "united_states") == "axis"


def test_short_game_one_capital_and_moscow_is_not_listed_for_the_axis():
    t = Table(options={"short_game": True})
    t.control("russia", "germany")
    assert _winner(t, "united_states") is None  # A1: Moscow is missing from the Axis short-game list
    t.control("united_kingdom", "germany")
    assert _winner(t, "united_states") == "axis"
    t = Table(options={"short_game": True})
    t.control("japan", "united_kingdom")
    assert _winner(t, "japan") == "allies"


def test_option_short_game_moscow_counts_moscow():
    t = Table(options={"short_game": True, "short_game_moscow": True})
    t.control("russia", "germany")
    assert _winner(t, "united_states") == "axis"


def test_option_victory_at_round_end():
    t = Table(options={"victory_at_round_end": True})
    t.control("germany", "soviet_union")
    t.control("japan", "united_states")
    assert _winner(t, "japan") is None
    assert _winner(t, "united_states") == "allies"


# ---------------------------------------------------------------- economy (3.3, 5, 7.4, 10)
def test_income_is_the_production_level_unless_the_capital_is_lost():
    t = Table(active="japan", phase="collect")
    t.control("china", "japan")
    t.ipc("japan", 1)
    t.call("collect_income", t.side("japan"))
    assert t.ipc("japan") == 1 + 9 + 2
    t.control("japan", "united_states")
    t.call("collect_income", t.side("japan"))
    assert t.ipc("japan") == 12  # Tokyo lost: no income


def test_purchases_never_leave_a_negative_treasury():
    t = Table(active="germany", phase="purchase")
    t.ipc("germany", 15)
    assert not t.legal("buy", t=t.side("battleship"))
    t.do("buy", t=t.side("carrier"))
    assert t.ipc("germany") == 3 and not t.legal("buy", t=t.side("tank"))
    t.do("buy", t=t.side("infantry"))
    assert t.ipc("germany") == 0 and not t.instances("buy")


def test_sea_units_need_a_coastal_complex():
    t = Table(active="soviet_union", phase="purchase")
    t.ipc("soviet_union", 50)
    assert t.fn("sea_capacity", t.side("soviet_union")) == 0  # Russia is landlocked on this map
    assert not t.legal("buy", t=t.side("submarine"))


def test_a_captured_complex_is_usable_from_the_next_turn():
    t = Table(active="germany")
    t.place("tank", "germany", "russia")
    t.fight("russia")
    assert "russia" not in t.fn("usable_factories", t.side("germany"))
    t.begin("germany")
    assert "russia" in t.fn("usable_factories", t.side("germany"))


# ---------------------------------------------------------------- mobilization (9)
def test_where_new_units_enter_play():
    t = Table(active="united_kingdom", phase="mobilize")
    t.place("carrier", "united_states", "sz6")  # an ally's carrier: no UK fighter may be placed on it
    uk = t.side("united_kingdom")
    spots = lambda unit, f="united_kingdom": set(t.fn("placement_spots", t.side(unit), f, uk))  # noqa: E731
    assert spots("infantry") == {"united_kingdom"} and spots("bomber") == {"united_kingdom"}
    assert spots("destroyer") == {"sz2", "sz3", "sz6", "sz7"}
    assert spots("fighter") == {"united_kingdom"}
    t.place("carrier", "united_kingdom", "sz7")
    assert spots("fighter") == {"united_kingdom", "sz7"}


def test_a_fighter_placed_on_a_new_carrier_counts_against_the_limit():
    for free, placed in ((False, 2), (True, 1)):
        t = Table(active="united_kingdom", phase="mobilize", options={"fighter_on_new_carrier_free": free},
                  agents={"united_kingdom": Script(picks={"at": "sz7"})})
        t.state.set_side_var("united_kingdom", "mobilization", (t.side("fighter"), t.side("carrier")))
        t.call("mobilize_units", t.side("united_kingdom"))
        f = t.units("sz7", "united_kingdom", "fighter")
        assert f and t.var(f[0], "aboard") == t.units("sz7", "united_kingdom", "carrier")[0]
        assert t.state.loc_vars["united_kingdom"]["placed"] == placed


# ---------------------------------------------------------------- movement details
def test_neutral_territories_cannot_be_entered_or_overflown():
    t = Table(active="soviet_union", phase="combat_move")
    inf = t.place("infantry", "soviet_union", "caucasus")
    f = t.place("fighter", "soviet_union", "caucasus")
    assert "turkey" not in t.reachable(inf, "land_combat") and "turkey" not in t.reachable(f, "air")
    # Caucasus -> Turkey -> Southern Europe would be 2; around Turkey it is 2 as well, through Eastern Europe
    assert engine().modes["air"].reachable(t.ctx, f)["southern_europe"][0] == 2


def test_an_allied_canal_is_open():
    t = Table(active="united_kingdom", phase="noncombat")
    dd = t.place("destroyer", "united_kingdom", "sz17")
    assert "sz28" in t.reachable(dd, "sea_noncombat")


def test_a_carrier_holds_two_fighters():
    t = Table(active="united_kingdom", phase="noncombat")
    cv = t.place("carrier", "united_kingdom", "sz6")
    f1, f2, f3 = t.place("fighter", "united_kingdom", "united_kingdom", 3)
    t.do("air_move", u=f1, to="sz6")
    t.do("air_move", u=f2, to="sz6")
    assert t.var(f1, "aboard") == cv and t.var(f2, "aboard") == cv
    assert not t.legal("air_move", u=f3, to="sz6")


def test_a_transport_unloads_into_one_territory_per_turn():
    t = Table(active="germany", phase="noncombat")
    tr = t.place("transport", "germany", "sz5")
    i1, i2 = t.place("infantry", "germany", "sz5", 2)
    t.aboard(i1, tr)
    t.aboard(i2, tr)
    t.control("karelia", "germany")
    t.do("unload", tr=tr, to="germany", cargo=(i1, i2))
    assert t.loc(i1) == "germany" and t.loc(i2) == "germany"
    assert t.var(tr, "done") and not t.legal("ship_move", u=tr, to="sz6")


def test_tanks_blitz_only_through_empty_hostile_territory():
    t = Table(active="germany", phase="combat_move")
    tank = t.place("tank", "germany", "eastern_europe")
    assert t.legal("blitz", u=tank, via="caucasus", to="middle_east")  # empty, and no complex
    t.place("infantry", "soviet_union", "caucasus")
    assert not t.legal("blitz", u=tank, via="caucasus", to="middle_east")


# ---------------------------------------------------------------- options for ambiguous rules
def test_option_landing_ban_this_round():
    t = Table(active="united_kingdom", phase="noncombat", options={"landing_ban_this_round": True})
    t.control("western_europe", "soviet_union")  # liberated/captured earlier this round by an ally
    t.state.set_loc_var("western_europe", "captured_round", 1)
    f = t.place("fighter", "united_kingdom", "united_kingdom")
    assert not t.fn("landing_ok", f, "western_europe", t.side("united_kingdom"))
    t2 = Table(active="united_kingdom", phase="noncombat")
    t2.control("western_europe", "soviet_union")
    t2.state.set_loc_var("western_europe", "captured_round", 1)
    f2 = t2.place("fighter", "united_kingdom", "united_kingdom")
    assert t2.fn("landing_ok", f2, "western_europe", t2.side("united_kingdom"))  # A3(a): friendly at the start of the turn


@pytest.mark.parametrize("cargo_reading", [False, True])
def test_own_fighters_riding_a_moving_carrier(cargo_reading):
    # the UK carrier moves into SZ5 with its own fighter aboard and is sunk: the carrier (1) rolls 6;
    # the German battleship (4) rolls 1. Reading C: the fighter took off and survives; reading B: lost.
    t = Table(rolls=[6, 1], active="united_kingdom", phase="combat_move",
              options={"own_fighters_are_cargo": cargo_reading})
    t.place("battleship", "germany", "sz5")
    t.begin("united_kingdom", "combat_move")
    cv = t.place("carrier", "united_kingdom", "sz6")
    f = t.place("fighter", "united_kingdom", "sz6")
    t.aboard(f, cv)
    t.do("ship_combat_move", u=cv, to="sz5")
    assert t.loc(f) == "sz5"
    assert t.fn("attack_candidates", "sz5", t.side("united_kingdom")) == (cv,)  # the rider does not fight
    t.state.phase = "combat"
    t.fight("sz5")
    assert not t.alive(cv)
    assert t.alive(f) is (not cargo_reading)


@pytest.mark.parametrize("no_fire", [False, True])
def test_a_defending_submarine_hit_by_the_strike_still_strikes_back(no_fire):
    # both submarines strike: attacker 1 (hit); defender 1 (hit) unless option A6(alt)
    rolls = [1] if no_fire else [1, 1]
    t = Table(rolls=rolls, active="germany", options={"strike_casualties_do_not_fire": no_fire})
    g = t.place("submarine", "germany", "sz2")
    uk = t.place("submarine", "united_kingdom", "sz2")
    t.fight("sz2")
    assert not t.alive(uk)
    assert t.alive(g) is no_fire


def test_landings_from_two_zones_on_one_territory_fight_together():
    """7.1: every landing comes before the land battles, so seaborne units from two launch zones
    fight the same battle (a regression found by self-play)."""
    # land battle: US infantry (1) roll 6, 6; German infantry (2) rolls 6; then 1, 6 / 6
    t = Table(rolls=[6, 6, 6, 1, 6, 6], active="united_states", phase="combat_move")
    t.control("western_europe", "germany")
    german = t.place("infantry", "germany", "western_europe")
    t.begin("united_states", "combat_move")
    landed = []
    for z in ("sz6", "sz7"):
        tr = t.place("transport", "united_states", z)
        inf = t.place("infantry", "united_states", "united_kingdom")
        t.do("amphibious_assault", tr=tr, z=z, target="western_europe", load=(inf,))
        landed.append(inf)
    t.state.phase = "combat"
    t.call("conduct_combat", t.side("united_states"))
    assert not t.alive(german) and all(t.loc(i) == "western_europe" for i in landed)
    assert t.controller("western_europe") == "united_states"
    assert t.rolls_used == 6  # two rounds of one battle, both infantry rolling in each
