"""Stargard Solstice's evaluation (games/stargard-solstice/evaluation.wcx): what the search agents
see of the Soviet VP race (§14, §1.5.5, §2.6.1) besides the VP total itself, on the game's own
(provisional) board and VP markers."""

from __future__ import annotations

from fractions import Fraction

from test_stargard_support import Scene

ARNSWALDE = "26.08"  # 2 VP, flipped at the end of turn 2 (victory.wcx, provisional)
PYRITZ = "15.13"  # 4 VP at the end of the game, no flip turn (provisional)


def terms(s: Scene, side: str) -> dict:
    ev = s.engine.evaluations["standing"]
    s.state.touch()
    return {label: (w, v) for label, w, v in ev.breakdown(s.ctx, s.e(side))}


def control(s: Scene, hex_id: str, side: str) -> None:
    s.engine.set_attribute(s.ctx, hex_id, "controller", s.e(side), None)


def test_a_vp_marker_the_soviets_hold_counts_before_its_flip_and_then_once():
    # §1.5.5, §2.6.1: a marker with a flip turn gives its VP when it is flipped at the end of that
    # turn with the hex Soviet-controlled. The Soviet total does not move when the hex is taken, so
    # "held before their flip" is what makes taking Arnswalde worth an attack to a one-ply search;
    # once flipped (banked), the total alone counts it.
    s = Scene(real=True, turn=2)
    assert terms(s, "soviet")["VP markers held before their flip"] == (10, 0)
    total = terms(s, "soviet")["Soviet VP against the draw level"]
    control(s, ARNSWALDE, "soviet")
    assert terms(s, "soviet")["VP markers held before their flip"] == (10, 2)
    assert terms(s, "soviet")["Soviet VP against the draw level"] == total
    assert terms(s, "german")["VP markers held before their flip"] == (10, -2)  # the same, against them
    s.run("flip_vp_markers")  # the end of turn 2: banked
    assert s.side_var("soviet", "vp_banked") == 2
    assert terms(s, "soviet")["VP markers held before their flip"] == (10, 0)
    assert terms(s, "soviet")["Soviet VP against the draw level"] == (10, total[1] + 2)
    # a marker without a flip turn is counted by the total, never by this term
    control(s, PYRITZ, "soviet")
    assert terms(s, "soviet")["VP markers held before their flip"] == (10, 0)
    assert terms(s, "soviet")["Soviet VP against the draw level"] == (10, total[1] + 6)


def test_soviet_units_are_drawn_to_the_nearest_vp_hex_still_worth_vp():
    # a move takes no VP hex by itself: each hex nearer the nearest VP hex the Soviets do not
    # control that is still worth VP (counted at the end, or not flipped yet) is worth a quarter
    # of a step to a one-ply search. Combat units only: an HQ is not drawn to the front.
    s = Scene(real=True, turn=3, active="soviet", phase="movement_segment")
    board = s.engine.board
    near = next(h for h in board.locations if board.distance(h, ARNSWALDE) == 1 and h != "01.01")
    s.unit("s_234_77", "soviet", near)
    s.unit("s_61_hq", "soviet", "01.01")
    vp = list(s.f("vp_hexes"))
    assert terms(s, "soviet")["distance to VP hexes to take"] == (Fraction(-1, 4), 1)
    # Arnswalde taken: the next nearest VP hex is the unit's target
    control(s, ARNSWALDE, "soviet")
    after = min(board.distance(near, h) for h in vp if h != ARNSWALDE)
    assert after > 1
    assert terms(s, "soviet")["distance to VP hexes to take"] == (Fraction(-1, 4), after)
    # not a German term: the German army is not pulled off its line toward a hex the Soviets took
    s.unit("g_6j_den", "german", "01.01")
    assert "distance to VP hexes to take" not in terms(s, "german")
    # flipped in German hands (turn 2 over): banked by nobody for good, no longer a target
    control(s, ARNSWALDE, "german")
    s.at_turn(2)
    s.run("flip_vp_markers")
    assert s.side_var("soviet", "vp_banked") in (0, None)
    assert terms(s, "soviet")["distance to VP hexes to take"] == (Fraction(-1, 4), after)


# ---------------------------------------------------------------- issue #18, 27 November 2026
# Positions of the Soviet Movement segment on the game's board, with the test-only units: a
# German t_def4 (defense 4, 2 steps) on a VP hex, Soviet t_mech (attack 6) next to it. The CRT is
# the game's (provisional_tables.wcx); each expectation is worked out from its columns by hand.
BAHN_ROAD_TOWN = "38.17"  # a town (one column left), 1 VP at the end, no river around (provisional)


def prepared(target: str, units: list[tuple[str, bool]], turn: int = 3, phase: str = "movement_segment") -> Scene:
    s = Scene(real=True, turn=turn, active="soviet", phase=phase)
    s.unit("t_def4", "german", target)
    control(s, target, "german")
    for hex_id, activated in units:
        s.unit("t_mech", "soviet", hex_id, activated=activated)
    return s


def test_an_attack_the_movement_prepares_counts_its_expected_steps_and_vp():
    # §2.3.3: the units activated for this Movement segment attack in the Combat segment after it.
    # Three t_mech (18) against 4 is 4:1, the town shifts it to 3:1 (§8.4.2), rolls 1-6: A1,
    # Ar1/D1, Dr1, D1, D1/Dr1, D1/Dr2. Defender steps 0+1+0+1+1+1 = 4, attacker steps 1: the attack
    # is expected to take (4 - 1) / 6 = 1/2 step. It empties the hex (2 steps) with a retreat the
    # attackers stay for on rolls 3, 5 and 6 (not 2: Ar1/D1 retreats them too, and one step is
    # not two): 3/6 of 1 VP, at the VP's weight.
    three = [("38.16", True), ("37.16", True), ("39.16", True)]
    t = terms(prepared(BAHN_ROAD_TOWN, three), "soviet")
    assert t["attacks prepared (expected steps)"] == (1, Fraction(1, 2))
    assert t["VP hexes attacks prepared may take"] == (10, Fraction(1, 2))
    # a unit not activated by this chit does not attack now (§3.3.5): 12:4, the 2:1 column, A1,
    # A1, Ar1/D1, Dr1, A1/Dr2, D1/Dr1 costs 3 steps for 2: it counts nothing, though 3 of 6 rolls
    # (Dr1, A1/Dr2, D1/Dr1) still empty the town
    t = terms(prepared(BAHN_ROAD_TOWN, [("38.16", True), ("37.16", True), ("39.16", False)]), "soviet")
    assert t["attacks prepared (expected steps)"] == (1, 0)
    assert t["VP hexes attacks prepared may take"] == (10, Fraction(1, 2))
    # only in the active side's Movement segment: in the Combat segment the attack itself counts
    assert "attacks prepared (expected steps)" not in terms(prepared(BAHN_ROAD_TOWN, three, phase="combat_segment"), "soviet")
    assert "attacks prepared (expected steps)" not in terms(prepared(BAHN_ROAD_TOWN, three), "german")


def test_a_city_ignores_the_first_step_lost_and_the_first_hex_of_a_retreat():
    # Pyritz (15.13, 4 VP, provisional) is a city: two columns left (§8.4.2), the defender ignores
    # its first step loss (§8.7) and the first hex of a retreat (§9.5). Five t_mech (30) against 4
    # is 7:1, shifted to 5:1: Dr1, D1, D1/Dr1, D1/Dr2, D2/Dr2, D2/Dr2. Steps taken 0+0+0+0+1+1,
    # none lost: 1/3. Emptied on rolls 4-6 (a retreat of 2 is one hex in a city; Dr1 is none):
    # 3/6 of 4 VP.
    five = [("15.12", True), ("15.12", True), ("14.13", True), ("14.13", True), ("16.13", True)]
    t = terms(prepared(PYRITZ, five), "soviet")
    assert t["attacks prepared (expected steps)"] == (1, Fraction(1, 3))
    assert t["VP hexes attacks prepared may take"] == (10, 2)


def test_a_flipped_vp_hex_is_no_stake_and_steps_count_for_both_sides():
    # Arnswalde (26.08, a town) flipped at the end of turn 2 in German hands is lost to the Soviets
    # for good: an attack on it counts its steps, no VP
    s = prepared(ARNSWALDE, [("26.07", True), ("25.08", True), ("25.07", True)], turn=2)
    s.run("flip_vp_markers")
    s.at_turn(3)
    t = terms(s, "soviet")
    assert t["attacks prepared (expected steps)"] == (1, Fraction(1, 2))
    assert t["VP hexes attacks prepared may take"] == (10, 0)
    # before the flip it was worth its 2 VP: 3/6 of them
    t = terms(prepared(ARNSWALDE, [("26.07", True), ("25.08", True), ("25.07", True)], turn=2), "soviet")
    assert t["VP hexes attacks prepared may take"] == (10, 1)
    # the enemy's steps: a German step lost is a Soviet gain, and the other way round (§8.6)
    assert t["enemy steps on the map"] == (-1, 2)
    assert terms(s, "german")["enemy steps on the map"] == (-1, 6)


def test_units_beyond_their_hq_command_range_count_against_their_side():
    # §3.3.1, §3.3.3: an HQ activates the units of its colour within its command range (the hex
    # distance; the 61st Army HQ's is 10, provisional): a rifle division 12 hexes away is not
    # activated with it until one of them moves nearer
    s = Scene(real=True, turn=3, active="soviet", phase="movement_segment")
    hq = s.unit("s_61_hq", "soviet", "30.05")
    s.unit("t_rifle", "soviet", "42.05")  # the 61st Army's colour ("61a")
    s.unit("t_rifle", "soviet", "34.05")
    assert s.engine.board.distance("30.05", "42.05") == 12
    assert terms(s, "soviet")["combat units beyond their HQ's command range"] == (Fraction(-1, 2), 1)
    s.engine.move_unit(s.ctx, hq, "33.05", None)
    assert terms(s, "soviet")["combat units beyond their HQ's command range"] == (Fraction(-1, 2), 0)
    # the other side's HQs count for it alone
    assert terms(s, "german")["combat units beyond their HQ's command range"] == (Fraction(-1, 2), 0)
