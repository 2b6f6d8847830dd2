"""The generic built-ins appended to the standard library for Stalingrad '42 (dsl/stdlib.py, end of
the list): common_neighbors, number, trace_region, hex_col, hex_row, sheet, move_via. Each is
tested on the Tiny Front board or on a small game written here."""

from __future__ import annotations

from fractions import Fraction

import pytest

from warcodex.dsl.checker import check_path
from warcodex.dsl.loader import load_game
from warcodex.dsl.stdlib import BUILTINS
from warcodex.interpreter.builtins import IMPLEMENTATIONS
from warcodex.interpreter.context import Context
from warcodex.interpreter.dependencies import BOARD_STATIC
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.values import CellValue, Code, RuleError

NEW = ("common_neighbors", "number", "trace_region", "hex_col", "hex_row", "sheet", "move_via")


@pytest.fixture(scope="module")
def tiny():
    engine = Engine(load_game("games/tiny"))
    state = engine.new_game("meeting", seed=0, setup=False)
    return engine, Context(engine, state, agents={})


def call(ctx, name, *args):
    return IMPLEMENTATIONS[name](ctx, None, *args)


def test_every_new_builtin_is_specified_and_implemented():
    for name in NEW:
        assert name in BUILTINS and name in IMPLEMENTATIONS
    assert BUILTINS["move_via"].effect and not BUILTINS["trace_region"].effect
    # pure functions of the board: cached by the dependency analysis
    assert {"common_neighbors", "number", "hex_col", "hex_row", "sheet"} <= BOARD_STATIC
    assert "trace_region" not in BOARD_STATIC  # reads positions: never cached for the whole game


def test_common_neighbors_one_for_a_hex_bond_two_for_a_hexside_bond(tiny):
    engine, ctx = tiny
    # 0505 and 0507 are two apart in one column: exactly one hex between them
    assert call(ctx, "common_neighbors", "0505", "0507") == ("0506",)
    # 0505 and 0705 are two apart with two hexes between them
    between = call(ctx, "common_neighbors", "0505", "0705")
    assert engine.board.distance("0505", "0705") == 2
    assert sorted(between) == ["0605", "0606"]
    # adjacent hexes share two neighbours; far hexes none
    assert len(call(ctx, "common_neighbors", "0505", "0506")) == 2
    assert call(ctx, "common_neighbors", "0101", "0909") == ()


def test_number_reads_a_numeric_cell(tiny):
    engine, ctx = tiny
    num = engine._number_result()
    assert call(ctx, "number", CellValue((Code(num, (), 3),))) == 3
    assert call(ctx, "number", CellValue((Code(num, (), 1), Code(num, (), 2)))) == Fraction(1, 2)  # printed "1/2"
    assert call(ctx, "number", CellValue(())) is None
    assert call(ctx, "number", 7) == 7 and call(ctx, "number", None) is None
    with pytest.raises(RuleError):
        call(ctx, "number", CellValue((Code(engine.entities["DE"]),)))


def test_hex_col_hex_row_and_sheet(tiny):
    engine, ctx = tiny
    assert call(ctx, "hex_col", "1107") == 11 and call(ctx, "hex_row", "1107") == 7
    assert call(ctx, "sheet", "0305") == "A" and call(ctx, "sheet", "0805") == "B"
    with pytest.raises(RuleError):
        call(ctx, "hex_row", "9999")


MINI = """
game mini "Mini" §1 { map: "map.wcmap" }
sections { §1 "All" }
side red "Red" §1
side blue "Blue" §1
terrain clear "Clear" §1
terrain swamp "Swamp" §1
edge wall "Wall" §1
unit soldier "Soldier" §1 { attack: 1 defense: 1 move: 3 }
var entered: int = 0 §1
movement line "A trace" §1 {
  allowance: 2 §1
  cost: if terrain(to) is swamp then 2 else 1 §1
  prohibited: edge(from, to) is wall §1
}
movement walk "Walking" §1 {
  allowance: u.move §1
  cost: 1 §1
}
on enter(u: unit, h: location) "Count entries" §1 { set entered += 1 }
sequence §1 { phase only "Only" §1 { do { log "nothing" } } }
scenario s "S" §1 { first_turn: 1 last_turn: 1 setup { } }
"""

MINI_MAP = """map "mini" provisional "test" {
  grid hex flat odd cols 1..9 rows 1..9 ids CCRR
  default terrain clear
  terrain swamp: 0305
  edge wall: 0505/0506
}
"""


@pytest.fixture()
def mini(tmp_path):
    (tmp_path / "game.wcx").write_text(MINI, encoding="utf-8")
    (tmp_path / "map.wcmap").write_text(MINI_MAP, encoding="utf-8")
    game, diags = check_path(tmp_path)
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    engine = Engine(game)
    state = engine.new_game("s", seed=0, setup=False)
    return engine, Context(engine, state, agents={})


def test_trace_region_from_several_starts(mini):
    engine, ctx = mini
    red = engine.entities["red"]
    line = engine.entities["line"]
    d = engine.board.distance
    region = call(ctx, "trace_region", line, ("0505",), red)
    assert "0505" in region  # the start is included
    assert all(d("0505", h) <= 2 for h in region) and "0705" in region and "0805" not in region
    # the swamp costs 2: reached from next door, not from two hexes away
    assert "0305" in call(ctx, "trace_region", line, ("0405",), red)
    assert "0305" not in call(ctx, "trace_region", line, ("0505",), red)
    both = call(ctx, "trace_region", line, ("0101", "0909"), red)
    assert "0103" in both and "0907" in both and "0505" not in both
    assert call(ctx, "trace_region", line, (), red) == ()


def test_trace_region_respects_hexside_prohibitions(mini):
    engine, ctx = mini
    red, line = engine.entities["red"], engine.entities["line"]
    assert engine.board.distance("0505", "0506") == 1
    # 0506 is reached round the wall (two steps), never straight across it
    region = IMPLEMENTATIONS["trace_region"](ctx, None, line, ("0505",), red)
    assert "0506" in region
    assert "0507" not in region  # straight on it would be 2, round the wall 3


def test_move_via_enters_every_hex_including_the_first(mini):
    engine, ctx = mini
    u = engine.place(ctx, engine.entities["soldier"], engine.entities["red"], "0102", None, None)
    before = ctx.state.vars["entered"]
    call(ctx, "move_via", u, "0103", engine.entities["walk"])  # one hex
    assert ctx.state.units[u.id].loc == "0103" and ctx.state.vars["entered"] == before + 1
    call(ctx, "move_via", u, "0106", engine.entities["walk"])  # three hexes, three entries
    assert ctx.state.units[u.id].loc == "0106" and ctx.state.vars["entered"] == before + 4
    with pytest.raises(RuleError):
        call(ctx, "move_via", u, "0909", engine.entities["walk"])  # out of reach


def test_occupied_lists_locations_in_board_order_whatever_the_moves():
    """The state's index of occupied locations is ordered by history (a loaded save rebuilds it
    otherwise); occupied() is in board order, so an action's candidates, and the game, are the
    same after a save and a load (tests/test_stargard_selfplay.py resumes a game mid-turn)."""
    engine = Engine(load_game("games/tiny"))
    state = engine.new_game("meeting", seed=0, setup=False)
    ctx = Context(engine, state, agents={})
    axis = engine.entities["axis"]
    for loc in ("0808", "0202", "0505"):
        engine.place(ctx, engine.entities["infantry"], axis, loc, None, None)
    assert list(state.at) == ["0808", "0202", "0505"]
    expected = tuple(sorted(("0808", "0202", "0505"), key=engine.board.index.__getitem__))
    assert call(ctx, "occupied") == expected
    moved = state.units_at("0202")[0]
    state.put(state.units[moved].but(loc="0909"))
    assert call(ctx, "occupied") == tuple(sorted(("0808", "0909", "0505"), key=engine.board.index.__getitem__))
