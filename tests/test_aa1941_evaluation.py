"""Axis & Allies 1941: what the search agents' evaluation (games/axis-allies-1941/evaluation.wcx)
must see so that a one-ply greedy search plays with purpose (docs/balance.md): a territory taken,
a battle prepared in Combat Movement before it is fought, a purchase before its units reach the
board, and land units brought towards the enemy capitals."""

from __future__ import annotations

from fractions import Fraction

from warcodex.interpreter.context import Context
from warcodex.interpreter.evaluation import utility

from test_aa1941_helpers import Table


def _utility(t: Table, power: str) -> float:
    eng = t.eng
    return utility(eng, Context(eng, t.state), eng.evaluations["standing"], power)


def _terms(t: Table, power: str) -> dict:
    ev = t.eng.evaluations["standing"]
    return {label: w * v for label, w, v in ev.breakdown(Context(t.eng, t.state), t.side(power))}


def test_taking_an_enemy_territory_is_worth_more_than_the_position_before_the_attack():
    # Germany's tank in Eastern Europe next to Soviet Karelia (value 1 on the provisional map);
    # after the attack the tank is in Karelia and Karelia is German: production +1, worth 2 to
    # Germany and 2 less to the Soviet Union (the tank is as near Moscow as before)
    def position(taken: bool) -> float:
        t = Table(active="germany", phase="noncombat")
        if taken:  # (the territory's control is set before anything is judged: memos read it)
            t.control("karelia", "germany")
        t.place("tank", "germany", "karelia" if taken else "eastern_europe")
        return _utility(t, "germany")

    value = Table().eng.board.attrs("karelia")["value"]
    before, after = position(False), position(True)
    assert after - before == 2 * value * 2


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
