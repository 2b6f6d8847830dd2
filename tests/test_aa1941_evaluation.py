"""Axis & Allies 1941: what the search agents' evaluation (games/axis-allies-1941/evaluation.wcx)
must see so that a one-ply greedy search plays with purpose (docs/balance.md): a territory taken,
a battle prepared in Combat Movement before it is fought, a purchase before its units reach the
board, and land units brought towards the enemy capitals."""

from __future__ import annotations

from fractions import Fraction

from warcodex.interpreter.context import Context
from warcodex.interpreter.evaluation import utility

from test_aa1941_helpers import Table


REACH = "enemy production within reach of the land units (IPC, share against the garrison)"


def _utility(t: Table, power: str) -> float:
    eng = t.eng
    return utility(eng, Context(eng, t.state), eng.evaluations["standing"], power)


def _terms(t: Table, power: str) -> dict:
    ev = t.eng.evaluations["standing"]
    return {label: w * v for label, w, v in ev.breakdown(Context(t.eng, t.state), t.side(power))}


def test_taking_an_enemy_territory_is_worth_more_than_the_position_before_the_attack():
    # Germany's tank in Eastern Europe next to Soviet Karelia (value 1 on the provisional map);
    # after the attack the tank is in Karelia and Karelia is German: production +1, worth 2 to
    # Germany and 2 less to the Soviet Union (the tank is as near Moscow as before). The Soviet
    # income within the tank's reach changes too (s10): Karelia, Russia and Caucasus (1 + 3 + 1)
    # from Eastern Europe, Archangel and Russia (1 + 3) from Karelia, all empty: 1 less.
    def position(taken: bool) -> tuple:
        t = Table(active="germany", phase="noncombat")
        if taken:  # (the territory's control is set before anything is judged: memos read it)
            t.control("karelia", "germany")
        t.place("tank", "germany", "karelia" if taken else "eastern_europe")
        return _utility(t, "germany"), _terms(t, "germany")[REACH]

    value = Table().eng.board.attrs("karelia")["value"]
    (before, reach_before), (after, reach_after) = position(False), position(True)
    assert (reach_before, reach_after) == (5, 4)
    assert after - before == 2 * value * 2 - 1


def test_a_prepared_attack_is_valued_before_its_battle_by_its_chance():
    # Combat Movement: the battle comes in Phase 3, so a one-ply search must see the attack's
    # promise when the units move in. An undefended enemy territory is as good as taken.
    t = Table(active="germany", phase="combat_move")
    inf = t.place("infantry", "germany", "eastern_europe")
    value = t.eng.board.attrs("karelia")["value"]
    before = _utility(t, "germany")
    t.do("land_attack", u=inf, to="karelia")
    terms = _terms(t, "germany")
    assert terms["battles pending: production expected (IPC)"] == 2 * value  # chance 1: nobody defends
    assert terms["battles pending: own units expected lost"] == 0
    assert _utility(t, "germany") > before

    # One infantry (attack 1) against three defending infantry (defense 2 each): strengths 1 x 1
    # against 6 x 3 (Lanchester), a chance of 1/19: the expected loss outweighs the promise.
    t = Table(active="germany", phase="combat_move")
    inf = t.place("infantry", "germany", "eastern_europe")
    t.place("infantry", "soviet_union", "karelia", 3)
    before = _utility(t, "germany")
    t.do("land_attack", u=inf, to="karelia")
    assert t.fn("attack_chance", "karelia", t.side("germany")) == Fraction(1, 19)
    assert _utility(t, "germany") < before

    # Four tanks (attack 3) against the same: 12 x 4 against 6 x 3, a chance of 48/66: worth it.
    t = Table(active="germany", phase="combat_move")
    tanks = t.place("tank", "germany", "eastern_europe", 4)
    t.place("infantry", "soviet_union", "karelia", 3)
    before = _utility(t, "germany")
    for tank in tanks:
        t.do("land_attack", u=tank, to="karelia")
    assert _utility(t, "germany") > before


def test_the_pending_battle_terms_count_only_in_the_attackers_combat_movement():
    t = Table(active="germany", phase="combat_move")
    inf = t.place("infantry", "germany", "eastern_europe")
    t.do("land_attack", u=inf, to="karelia")
    assert "battles pending: production expected (IPC)" in _terms(t, "germany")
    assert "battles pending: production expected (IPC)" not in _terms(t, "soviet_union")
    t.state.phase = "combat"
    assert "battles pending: production expected (IPC)" not in _terms(t, "germany")


def test_every_purchase_adds_the_same_worth_whatever_its_price():
    # A purchase moves IPCs into the Mobilization Zone (§5); valued at cost only, buying was worth
    # nothing (or a battleship most); a unit counts its cost and 3, the treasury its IPCs.
    gains = {}
    for unit in ("infantry", "tank", "transport", "battleship"):
        t = Table(active="united_states", phase="purchase")
        t.ipc("united_states", 20)
        before = _utility(t, "united_states")
        t.do("buy", t=t.eng.entities[unit])
        gains[unit] = _utility(t, "united_states") - before
    assert gains == {"infantry": 3, "tank": 3, "transport": 3, "battleship": 3}


def test_land_and_sea_units_are_drawn_towards_the_enemy_capitals_not_held():
    # A Soviet infantry in Russia is 2 steps from Berlin (russia - eastern_europe - germany); one
    # step nearer is worth 1/4. Once the Allies hold Berlin and Tokyo nothing pulls any more.
    t = Table(active="soviet_union", phase="noncombat")
    t.control("eastern_europe", "soviet_union")
    inf = t.place("infantry", "soviet_union", "russia")
    before = _terms(t, "soviet_union")["land and sea units' distance to the nearest enemy capital not held"]
    assert before == -2 / 4
    t.do("land_move", u=inf, to="eastern_europe")
    assert _terms(t, "soviet_union")["land and sea units' distance to the nearest enemy capital not held"] == -1 / 4
    # ships too: London, Washington and Tokyo are taken from the sea; a transport in sz25, next to
    # Japan, is 1 step from Tokyo
    t.place("transport", "soviet_union", "sz25")
    assert _terms(t, "soviet_union")["land and sea units' distance to the nearest enemy capital not held"] == -2 / 4
    t.control("germany", "soviet_union")
    t.control("japan", "united_states")
    assert "land and sea units' distance to the nearest enemy capital not held" not in _terms(t, "soviet_union")


# ---- staging and pressing an assault on an island capital (s9, issue #18)

STAGED = "assault strength in reach of the enemy capitals not held (share against the garrison)"


def _loaded_transport(t: Table, power: str, where: str):
    """A transport of `power` in sea zone `where` carrying an infantry and a tank."""
    tr = t.place("transport", power, where)
    for kind in ("infantry", "tank"):
        t.aboard(t.place(kind, power, where), tr)
    return tr


def test_troops_gathered_within_reach_of_tokyo_count_before_the_assault():
    # Tokyo held by 2 Japanese infantry (defense 2 each: strength 4 x 2 = 8). A US transport with
    # an infantry and a tank (attack 1 + 3, two units: 8) in sz35 is out of one turn's reach
    # (sz35-sz37-sz39-sz27-Japan: 4 steps; a transport moves 2 and lands 1); in sz37, 3 steps, it
    # can land in Japan next turn: its share against the garrison, 8 / (8 + 8), is worth 10 x 1/2.
    t = Table(active="united_states", phase="noncombat")
    t.place("infantry", "japan", "japan", 2)
    tr = _loaded_transport(t, "united_states", "sz35")
    assert _terms(t, "united_states")[STAGED] == 0
    before = _utility(t, "united_states")
    t.do("ship_move", u=tr, to="sz37")
    assert _terms(t, "united_states")[STAGED] == 10 * Fraction(1, 2)
    # a second loaded transport beside it: strength 8 x 4 = 32 against 8, share 4/5
    _loaded_transport(t, "united_states", "sz37")
    assert _terms(t, "united_states")[STAGED] == 10 * Fraction(4, 5)
    assert _utility(t, "united_states") > before


def test_an_assault_on_a_capital_is_judged_with_the_transports_that_can_still_join_it():
    # Three US transports, each with an infantry and a tank, in sz34 (two steps from Japan: they
    # can all land there this turn); Tokyo held by 6 Japanese infantry (strength 12 x 6 = 72).
    # One transport alone (8 against 72) has a chance of 1/10: judged alone, its declaration is a
    # loss, and no one-ply search would ever begin the assault. With the two that can still join
    # (12 x 6 = 72 against 72: 1/2), the chance judged is the mean, (1/10 + 1/2) / 2 = 3/10:
    # the declaration is worth making, and each transport added after it raises the chance.
    t = Table(active="united_states", phase="combat_move")
    t.place("infantry", "japan", "japan", 6)
    trs = [_loaded_transport(t, "united_states", "sz34") for _ in range(3)]
    japan, us = "japan", t.side("united_states")
    values = [_utility(t, "united_states")]
    t.do("amphibious_assault", tr=trs[0], z="sz27", target=japan, load=())
    assert t.fn("attack_chance", japan, us) == Fraction(1, 10)
    assert t.fn("capital_chance", japan, us) == Fraction(3, 10)
    values.append(_utility(t, "united_states"))
    for tr in trs[1:]:
        t.do("amphibious_assault", tr=tr, z="sz27", target=japan, load=())
        values.append(_utility(t, "united_states"))
    # all three declared: the reserve is empty, the chance is the declared force's, 1/2
    assert t.fn("capital_chance", japan, us) == Fraction(1, 2) == t.fn("attack_chance", japan, us)
    assert values == sorted(values) and len(set(values)) == 4

    # Other battles keep the declared force's chance: Manchuria is no capital.
    t = Table(active="united_states", phase="combat_move")
    t.place("infantry", "japan", "manchuria", 6)
    trs = [_loaded_transport(t, "united_states", "sz25") for _ in range(3)]
    t.do("amphibious_assault", tr=trs[0], z="sz25", target="manchuria", load=())
    assert t.fn("capital_chance", "manchuria", us) == t.fn("attack_chance", "manchuria", us) == Fraction(1, 10)


def test_a_reserve_too_weak_to_win_does_not_make_a_lone_assault_worth_making():
    # Seed 2 of s9: one US transport with one infantry in sz34 declared against Tokyo held by 4
    # infantry and 2 tanks (defense 2 + 2 + 2 + 2 + 3 + 3 = 14, six units: 84). Alone, 1 against 84:
    # a chance of 1/85. Two fighters on a carrier in sz34 could still join (2 steps: strike and fly
    # back); with them, 7 x 3 = 21 against 84, a share of 1/5: no win either, so the reserve does
    # not count (s9 judged the mean, 9/85) and the declaration is a loss.
    t = Table(active="united_states", phase="combat_move")
    t.place("infantry", "japan", "japan", 4)
    t.place("tank", "japan", "japan", 2)
    tr = t.place("transport", "united_states", "sz34")
    t.aboard(t.place("infantry", "united_states", "sz34"), tr)
    carrier = t.place("carrier", "united_states", "sz34")
    for fighter in t.place("fighter", "united_states", "sz34", 2):
        t.aboard(fighter, carrier)
    japan, us = "japan", t.side("united_states")
    before = _utility(t, "united_states")
    t.do("amphibious_assault", tr=tr, z="sz27", target=japan, load=())
    assert t.fn("attack_chance", japan, us) == Fraction(1, 85)
    assert t.fn("reserve_share", japan, us) == Fraction(1, 5)
    assert t.fn("capital_chance", japan, us) == Fraction(1, 85)
    assert _utility(t, "united_states") < before

    # Three more loaded transports in sz34 (an infantry and a tank each) make the reserve strong
    # enough: 2 fighters and 7 land units, attack 3 + 3 + 1 + 3 x (1 + 3) = 19, nine units: 171
    # against 84, a share of 57/85; the chance judged is the mean again, and declaring is worth it.
    for _ in range(3):
        _loaded_transport(t, "united_states", "sz34")
    assert t.fn("reserve_share", japan, us) == Fraction(57, 85)
    assert t.fn("capital_chance", japan, us) == (Fraction(1, 85) + Fraction(57, 85)) / 2


def test_the_last_capital_the_victory_needs_is_worth_the_game():
    # The Allies win holding Berlin and Tokyo (§11): with Berlin held, an assault on Tokyo counts
    # the victory it would complete (60 times its chance), and holding both counts 60.
    held = "the victory condition held (checked at the end of Japan's or the USA's turn)"
    expected = "battles pending: victory expected"
    for berlin_held in (False, True):
        t = Table(active="united_states", phase="combat_move")
        if berlin_held:
            t.control("germany", "soviet_union")
        t.place("infantry", "japan", "japan", 6)
        tr = _loaded_transport(t, "united_states", "sz34")
        t.do("amphibious_assault", tr=tr, z="sz27", target="japan", load=())
        terms = _terms(t, "united_states")
        if berlin_held:
            assert terms[expected] == 60 * Fraction(1, 10)  # the reserve is empty: the declared force's chance
        else:
            assert terms[expected] == 0
        assert terms[held] == 0
    t.control("japan", "united_states")
    assert _terms(t, "united_states")[held] == 60


def test_a_transport_is_bought_first_when_the_land_units_lack_sea_lift():
    # Tokyo can be taken only from the sea (§6.4): while it is not held, each land unit on a coast
    # that a transport (on the board or bought) could carry counts 3. Four US infantry in the
    # Western United States and one transport: buying a transport lifts two more of them (3 + 6),
    # an infantry adds only its own 3 (the transport is full).
    def gains(japan_held: bool) -> dict:
        out = {}
        for unit in ("infantry", "transport", "battleship"):
            t = Table(active="united_states", phase="purchase")
            if japan_held:
                t.control("japan", "united_states")
                t.control("germany", "soviet_union")
            t.place("infantry", "united_states", "western_united_states", 4)
            t.place("transport", "united_states", "sz34")
            t.ipc("united_states", 20)
            before = _utility(t, "united_states")
            t.do("buy", t=t.eng.entities[unit])
            out[unit] = _utility(t, "united_states") - before
        return out

    assert gains(False) == {"infantry": 3, "transport": 9, "battleship": 3}
    # with no enemy capital left to take by sea, every purchase adds the same 3 again
    assert gains(True) == {"infantry": 3, "transport": 3, "battleship": 3}


# ---- income within reach (s10, issue #18)

def test_enemy_income_next_to_the_land_units_counts_by_the_chance_of_taking_it():
    # A German infantry in Germany borders only German territories: nothing within reach. Moved to
    # Eastern Europe it borders Karelia (1 IPC), Russia (3) and Caucasus (1), all Soviet and empty:
    # each as good as taken next turn (share 1), 5 IPC within reach at weight 1.
    t = Table(active="germany", phase="noncombat")
    inf = t.place("infantry", "germany", "germany")
    assert _terms(t, "germany")[REACH] == 0
    before = _utility(t, "germany")
    t.do("land_move", u=inf, to="eastern_europe")
    assert _terms(t, "germany")[REACH] == 1 + 3 + 1
    assert _utility(t, "germany") > before

    # Three Soviet infantry in Karelia (defense 2 each: 6 x 3 = 18) against the one infantry next
    # to it (attack 1: 1 x 1): Karelia counts its share, 1/19; a fight the Germans would lose is
    # worth little. The Soviets' own reach counts against the Germans too: Eastern Europe (2 IPC),
    # held by the German infantry (defense 2: 2 x 1) next to their three infantry (3 x 3 = 9), 9/11.
    t.place("infantry", "soviet_union", "karelia", 3)
    assert _terms(t, "germany")[REACH] == Fraction(1, 19) + 3 + 1
    assert _terms(t, "soviet_union")[REACH] == 2 * Fraction(9, 11)

    # Four tanks beside the infantry (attack 3 each; five units, 13 x 5 = 65 against 18): Karelia
    # is likely taken, 65/83; Russia and Caucasus stay 1 each.
    t.place("tank", "germany", "eastern_europe", 4)
    assert _terms(t, "germany")[REACH] == Fraction(65, 83) + 3 + 1
