"""No Retreat! card rules beyond the digest's worked examples, on the real rules: the moments each
event may be played, the initiative restriction, immediate events, cancelling a card just played,
the red event, the 1945 deck change and the counterblow payment of card 53."""

from __future__ import annotations

from test_noretreat_support import Scene


def playable(s: Scene) -> set[str]:
    return {a.arg("c").name for a in s.legal("play_event")}


def test_an_event_is_played_in_its_own_window_only():
    s = Scene(real_map=True, turn=2, active="axis", phase="draw_step", initiative="axis")
    s.hand("axis", "c13", "c12", "c03")  # Summer campaign (Card phase), Fedor von Bock (payment only), Troop transfer (Organisation)
    assert playable(s) == {"c13"}
    s.state.phase = "deployment"
    assert playable(s) == {"c03"}
    s.set("weather", "w_mud")
    s.state.phase = "draw_step"
    assert playable(s) == set()  # Summer campaign: only in clear weather


def test_cross_and_star_events_follow_the_initiative():
    s = Scene(real_map=True, turn=5, active="axis", phase="draw_step", initiative="axis")
    s.hand("axis", "c21", "c22")  # OKH (cross), Albert Speer (star): both "any time"
    assert playable(s) == {"c21"}
    s.set("initiative", "soviet")
    assert playable(s) == {"c22"}


def test_an_immediate_event_is_played_on_drawing_it():
    s = Scene(real_map=True, turn=2, active="soviet", phase="draw_step", initiative="axis")
    s.hand("soviet", "c12")  # General Mud: play immediately and draw a new card
    s.run("play_immediates", "soviet")
    assert "c12" in s.state.decks["events"]["discard"] and len(s.state.hands["soviet"]) == 1


def test_a_card_just_played_may_be_cancelled_and_taken():
    s = Scene(real_map=True, turn=3, active="soviet", phase="draw_step", initiative="axis")
    s.hand("soviet", "c01")  # Stavka
    s.hand("axis", "c31")  # Stalin's interference: cancel a Soviet card just played and take it
    s.state.decks["events"]["discard"].append("c05")
    s.agent.script = {"x": ["c31"]}
    s.act("play_event", c="c01")
    assert s.state.hands["axis"] == ["c01"]  # taken, and Stavka's event did not happen
    assert s.state.hands["soviet"] == [] and "c05" in s.state.decks["events"]["discard"]


def test_a_red_event_gives_the_soviets_a_vp_and_costs_the_germans_a_card():
    s = Scene(real_map=True, turn=5, phase="victory", initiative="axis")
    s.hand("axis", "c20", "c21")
    s.agent.script = {"c": ["c20"]}
    s.run("victory_phase")
    assert s.state.vars["event_vp"] == -1 and s.state.hands["axis"] == ["c21"]


def test_the_1945_change_swaps_the_red_and_green_cards():
    s = Scene(real_map=True, turn=23, phase="victory", initiative="soviet")
    s.hand("axis", "c01", "c20")
    s.hand("soviet", "c02")
    s.run("start_1945")
    piles = s.state.decks["events"]
    assert sorted(piles["removed"]) == [f"c{n:02d}" for n in range(1, 14)]
    assert all(f"c{n}" in piles["draw"] for n in range(45, 55)) and piles["set_aside"] == []
    assert s.state.hands == {"axis": [], "soviet": []} and s.state.vars["year_1945"]


def test_volksgrenadiers_count_as_two_cards_in_the_german_organisation_phase():
    s = Scene(real_map=True, turn=24, active="axis", phase="deployment", initiative="soviet")
    s.hand("axis", "c53")
    assert s.f("payable", "axis", 2)
    s.state.phase = "movement"
    assert not s.f("payable", "axis", 2)


def test_manstein_doubles_a_german_attacker_in_a_battle_of_the_german_combat_phase():
    s = Scene(turn=3, active="axis", phase="battles", initiative="axis")
    a = s.unit("german_army", "axis", "0404")
    s.unit("soviet_front", "soviet", "0504")
    s.state.vars["b_attackers"] = (a,)
    s.set("b_attacker", "axis")
    s.hand("axis", "c01")
    s.agent.script = {"c": ["c01"], "u": [a]}
    s.run("offer_battle_card", "axis", "battle_attack")
    assert s.state.vars["b_double"] == a and s.f("attack_strength", a) == 10


def test_the_round_markers_never_show_more_than_6():
    # found by self-play: a VP loss of the side without the initiative (a missed attack quota)
    # moved the markers up past 6
    s = Scene(real_map=True, turn=5, initiative="axis")
    s.set("event_vp", 5)
    s.run("gain_vp", "soviet", -2)
    assert s.state.vars["event_vp"] == 6
    s.run("gain_vp", "axis", -3)
    assert s.state.vars["event_vp"] == 3


def test_a_cancelled_return_goes_back_to_its_box_as_it_was():
    # found by self-play: card 07 cancelling the return of an eliminated Soviet unit left it in
    # the Eliminated box with a step
    body = '  feature city: 1004\n'
    s = Scene(body, turn=7, active="soviet", phase="deployment", initiative="axis")
    u = s.unit("soviet_front", "soviet", None, box="eliminated", steps=0)
    s.hand("soviet", "c01")
    s.hand("axis", "c07")
    s.agent.script = {"x": ["c07"]}
    s.act("return_unit", u=u, h="1004")
    assert s.u(u).box == "eliminated" and s.u(u).steps == 0 and s.state.hands["soviet"] == []
