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
