"""Movement under the tiny game's rules (games/tiny/movement.wcx) on constructed maps: terrain costs,
hexside modifiers, bridges, roads at a reduced rate, weather, zones of control, prohibited hexes,
stacking and the one-hex minimum. Each expected cost is worked out by hand in a comment."""

from __future__ import annotations

from fractions import Fraction

import pytest

from warcodex.dsl.hexgrid import HexGrid
from warcodex.dsl.loader import load_game
from warcodex.dsl.mapfile import parse_map_text
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine

GRID = HexGrid("flat", "odd", cols=12, rows=10)
GAME = load_game("games/tiny")


def scene(body: str = "", weather: str = "fair"):
    text = ('map "test" provisional "test map" {\n  grid hex flat odd cols 1..12 rows 1..10 ids CCRR\n'
            "  default terrain clear\n" + body + "\n}\n")
    engine = Engine(GAME, board=parse_map_text(text, "test.wcmap"))
    state = engine.new_game("meeting", seed=0, setup=False)
    state.vars["weather"] = engine.entities[weather]
    return engine, state, Context(engine, state, agents={})


def put(engine, ctx, type_name: str, side: str, at: str):
    return engine.place(ctx, engine.entities[type_name], engine.entities[side], at, None, None)


def cost(engine, ctx, u, a: str, b: str):
    """The cost of one step, from the `move_cost` quantity (a path may be cheaper by going round)."""
    return engine.quantities["move_cost"](ctx, (u, a, b), None)


def reach(engine, ctx, u) -> dict[str, object]:
    return {loc: entry[0] for loc, entry in engine.modes["ground"].reachable(ctx, u).items()}


def test_clear_terrain_costs_one_per_hex():
    engine, state, ctx = scene()
    u = put(engine, ctx, "infantry", "axis", "0505")  # MA 3
    costs = reach(engine, ctx, u)
    for loc, cost in costs.items():
        assert cost == engine.board.distance("0505", loc)
    assert len(costs) == 3 * 6 + 2 * 6 + 6  # rings 1..3 around the start: 36 hexes


def test_forest_costs_two():
    engine, state, ctx = scene("  terrain forest: 0504")
    u = put(engine, ctx, "infantry", "axis", "0505")
    assert reach(engine, ctx, u)["0504"] == 2


def test_minor_river_adds_one_and_a_bridge_cancels_it():
    engine, state, ctx = scene("  edge minor_river: 0505/0504\n  edge minor_river: 0505/0506\n  edge bridge: 0505/0506")
    u = put(engine, ctx, "infantry", "axis", "0505")
    assert cost(engine, ctx, u, "0505", "0504") == 2  # clear 1 + minor river 1
    assert cost(engine, ctx, u, "0505", "0506") == 1  # bridged


def test_major_river_adds_two():
    engine, state, ctx = scene("  edge major_river: 0505/0504")
    u = put(engine, ctx, "infantry", "axis", "0505")
    assert cost(engine, ctx, u, "0505", "0504") == 3  # clear 1 + major river 2
    assert reach(engine, ctx, u)["0504"] == 2  # but going round the single river hexside is cheaper


def test_road_costs_half_a_point_and_mud_cancels_the_road_rate():
    path = " ".join(f"{c:02d}05" for c in range(1, 13))
    engine, state, ctx = scene(f"  path road: {path}")
    pz = put(engine, ctx, "panzer", "axis", "0105")  # MA 6
    costs = reach(engine, ctx, pz)
    assert costs["0205"] == Fraction(1, 2)
    assert costs["1205"] == Fraction(11, 2)  # eleven road hexes at 1/2 MP

    engine, state, ctx = scene(f"  path road: {path}", weather="mud")
    pz = put(engine, ctx, "panzer", "axis", "0105")
    costs = reach(engine, ctx, pz)
    assert costs["0205"] == 2  # mud: no road rate, and mechanized units pay double
    assert "0505" not in costs  # 4 hexes at 2 MP = 8 > 6


def test_mud_doubles_costs_for_mechanized_units_only():
    engine, state, ctx = scene("  terrain forest: 0504", weather="mud")
    inf = put(engine, ctx, "infantry", "axis", "0505")
    pz = put(engine, ctx, "panzer", "axis", "0507")
    assert cost(engine, ctx, inf, "0505", "0504") == 2  # forest, infantry: unchanged
    assert cost(engine, ctx, pz, "0507", "0506") == 2  # clear x2 for a mechanized unit


def test_a_unit_stops_on_entering_an_enemy_zone_of_control():
    engine, state, ctx = scene()
    u = put(engine, ctx, "infantry", "axis", "0205")
    put(engine, ctx, "rifle", "soviet", "0505")
    r = engine.modes["ground"].reachable(ctx, u)
    assert r["0405"][2] is True  # 0405 is next to the enemy: entering it stops the unit
    assert "0505" not in r  # cannot enter the enemy hex
    # 0605 is beyond the enemy, 4 hexes away: only reachable through ZOC hexes, so not at all
    assert "0605" not in r


def test_stacking_limit_of_two_prohibits_entering_a_full_hex():
    engine, state, ctx = scene()
    u = put(engine, ctx, "infantry", "axis", "0505")
    put(engine, ctx, "infantry", "axis", "0504")
    assert "0504" in reach(engine, ctx, u)
    put(engine, ctx, "infantry", "axis", "0504")
    assert "0504" not in reach(engine, ctx, u)


def test_a_unit_may_always_move_one_hex():
    # a unit with MA 3 in a ring of swamps behind major rivers: each step costs 3 + 2 = 5
    ring = " ".join(GRID.hex_id(c, r) for c, r in GRID.neighbors(5, 5))
    rivers = "\n".join(f"  edge major_river: 0505/{GRID.hex_id(c, r)}" for c, r in GRID.neighbors(5, 5))
    engine, state, ctx = scene(f"  terrain swamp: {ring}\n{rivers}")
    u = put(engine, ctx, "infantry", "axis", "0505")
    assert cost(engine, ctx, u, "0505", "0504") == 5
    r = engine.modes["ground"].reachable(ctx, u)
    assert set(r) == {GRID.hex_id(c, r_) for c, r_ in GRID.neighbors(5, 5)}
    assert all(entry[0] == 3 and entry[2] is True for entry in r.values())  # whole allowance, then stop


def test_move_action_rejects_an_unreachable_destination():
    from warcodex.interpreter.actions import ActionChoice
    from warcodex.interpreter.values import RuleError

    engine, state, ctx = scene()
    state.active = "axis"
    u = put(engine, ctx, "infantry", "axis", "0505")
    with pytest.raises(RuleError, match="not an eligible to"):
        engine.actions["move"].apply(ctx, ActionChoice("move", (("u", u), ("to", "0905"))))
    engine.actions["move"].apply(ctx, ActionChoice("move", (("u", u), ("to", "0805"))))
    assert state.units[u.id].loc == "0805"


CAREFUL = """# a cost that cannot be computed where an enemy stands (none + 1), on steps a condition forbids
function enemy_here(h: location, s: side): bool "an enemy in the hex" §5.1 =
  count(v for v in units_at(h) where v.side != s) > 0

movement careful "Careful movement" §5 {
  allowance: u.move §5.1
  cost: (if enemy_here(to, u.side) then none else 1) + 1 §5.1
  prohibited: enemy_here(to, u.side) §5.1
}

movement careless "Careless movement" §5 {
  allowance: u.move §5.1
  cost: (if enemy_here(to, u.side) then none else 1) + 1 §5.1
}
"""


def test_a_cost_that_fails_on_a_forbidden_step_is_no_error(tmp_path):
    """Searches compute a step's cost before its conditions (movement.py): a cost that cannot be
    computed on a step a condition forbids is skipped, as when the conditions came first; on a
    step nothing forbids, the error stands, at its rule."""
    import shutil

    from warcodex.interpreter.values import RuleError

    folder = tmp_path / "tiny"
    shutil.copytree("games/tiny", folder)
    (folder / "careful.wcx").write_text(CAREFUL)
    (folder / "game.wcx").write_text((folder / "game.wcx").read_text() + '\ninclude "careful.wcx"\n')
    for evaluator in ("reference", "generated"):
        engine = Engine(load_game(str(folder)), evaluator=evaluator)
        state = engine.new_game("meeting", seed=0, setup=False)
        ctx = Context(engine, state, agents={})
        u = put(engine, ctx, "infantry", "axis", "0505")  # MA 3: two steps of cost 2 are 4
        put(engine, ctx, "rifle", "soviet", "0506")
        found = {loc: entry[0] for loc, entry in engine.modes["careful"].reachable(ctx, u).items()}
        assert "0506" not in found and found["0504"] == 2 and len(found) == 6 - 1
        with pytest.raises(RuleError, match="cannot compute .*none") as info:
            engine.modes["careless"].reachable(ctx, u)
        assert info.value.span.file.endswith("careful.wcx") and info.value.span.line == 13


# ---------------------------------------------------------------- the game-long tables
SPLIT = """
game split "Split costs" §1 { map: "map.wcmap" turn_order: [red, blue] }
sections { §1 "All" }
side red "Red" §1
side blue "Blue" §1
terrain clear "Clear" §1 { mp: 1 }
terrain forest "Forest" §1 { mp: 2 }
unit walker "Walker" §1 { sides: [red, blue] attack: 1 defense: 1 move: 6 }
unit runner "Runner" §1 { sides: [red, blue] attack: 1 defense: 1 move: 6 }
function enemy_next_to(h: location, s: side): bool "an enemy unit is adjacent" §1 =
  any(any(v.side != s for v in units_at(n)) for n in adjacent(h))
movement ground "Ground" §1 {
  allowance: u.move §1
  cost: terrain(to).mp + (if enemy_next_to(to, s) then 2 else 0) §1
}
sequence §1 { phase p "P" §1 { } }
scenario s "S" §1 { first_turn: 1 last_turn: 1 setup { } }
"""


def test_a_cost_with_a_static_and_a_dynamic_term_keeps_the_static_one_game_long(tmp_path):
    # cost = terrain (board-static) + 2 next to an enemy (changes with every move): the terrain
    # term goes into the edge table, the enemy term is added at each step; since the cost does not
    # name the unit, the table is one per side, shared by every unit type
    from warcodex.dsl.checker import check_path

    (tmp_path / "game.wcx").write_text(SPLIT, encoding="utf-8")
    (tmp_path / "map.wcmap").write_text('map "m" provisional "t" {\n  grid hex flat odd cols 1..8 rows 1..8 ids CCRR\n'
                                        "  default terrain clear\n  terrain forest: 0404\n}\n", encoding="utf-8")
    game, diags = check_path(tmp_path)
    assert not diags.errors, [d.render() for d in diags.errors]
    engine = Engine(game)
    mode = engine.modes["ground"]
    assert mode.cost_extra is not None and mode.cost_key[0] == ()  # reads no fact of the unit
    state = engine.new_game("s", seed=0, setup=False)
    ctx = Context(engine, state, agents={})
    w = put(engine, ctx, "walker", "red", "0202")
    r1 = {k: v[0] for k, v in mode.reachable(ctx, w).items()}
    assert r1["0303"] == 2 and r1["0404"] == 2 + 2  # forest, two steps of clear on the way
    tables = [k for k in engine.static_cache if k[0] == "edge-costs"]
    assert tables and all(k[2] == "red" for k in tables)  # keyed by side, not by unit type
    put(engine, ctx, "walker", "blue", "0504")  # now 0404 is next to an enemy, 0303 is not
    r2 = {k: v[0] for k, v in mode.reachable(ctx, w).items()}
    assert r2["0404"] == r1["0404"] + 2 and r2["0303"] == r1["0303"]
    runner = put(engine, ctx, "runner", "red", "0202")
    assert {k: v[0] for k, v in mode.reachable(ctx, runner).items()} == r2
    assert len([k for k in engine.static_cache if k[0] == "edge-costs"]) == len(tables)  # the runner shares it
