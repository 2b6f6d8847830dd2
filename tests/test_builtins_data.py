"""Built-ins appended for the data side of Stalingrad '42: `set_turn_order` (a Winter Offensive
puts the Soviet player turn first from the next turn on, §33.2.2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from warcodex.dsl.checker import check_path
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import play
from warcodex.interpreter.values import RuleError

GAME = """
sections { §1 "Rules" }
game g "G" §1 { map: "m.wcmap" dice: d6 turn_order: [a, b] }
side a "A" §1
side b "B" §1
terrain clear "Clear" §1
var order_seen: list = [] §1
sequence §1 {
  turns "Turn" §1 {
    player_turns turn_order "Player turn" §1 {
      phase p "Phase" §1 { do { set order_seen = order_seen + [active] } }
    }
  }
}
on turn_end "the order changes after turn 1" §1 when turn == 1 { set_turn_order([b, a]) }
on turn_start "order as seen" §1 when turn == 3 { MORE }
scenario s "S" §1 { first_turn: 1 last_turn: 3 }
"""


def _game(tmp_path: Path, more: str = 'log "ok"'):
    (tmp_path / "game.wcx").write_text(GAME.replace("MORE", more), encoding="utf-8")
    (tmp_path / "m.wcmap").write_text('map "m" provisional "t" { grid hex flat odd cols 1..2 rows 1..2 default terrain clear }\n',
                                      encoding="utf-8")
    game, diags = check_path(tmp_path)
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    return Engine(game)


def test_set_turn_order_applies_from_the_next_turn(tmp_path):
    result = play(_game(tmp_path), "s", seed=1)
    seen = [s.name for s in result.state.vars["order_seen"]]
    assert seen == ["a", "b", "b", "a", "b", "a"]
    assert result.state.turn_order == ("b", "a")


def test_set_turn_order_rejects_a_side_twice(tmp_path):
    engine = _game(tmp_path, "set_turn_order([a, a])")
    with pytest.raises(RuleError, match="each side once"):
        play(engine, "s", seed=1)


def test_place_in_box_creates_a_unit_off_the_map(tmp_path):
    (tmp_path / "game.wcx").write_text(GAME.replace("MORE", 'log "ok"').replace(
        "var order_seen", 'unit inf "Infantry" §1 { steps: 2 }\non game_start "pool" §1 { place_in_box(inf, b, "pool", "1st") }\nvar order_seen'),
        encoding="utf-8")
    (tmp_path / "m.wcmap").write_text('map "m" provisional "t" { grid hex flat odd cols 1..2 rows 1..2 default terrain clear }\n',
                                      encoding="utf-8")
    game, diags = check_path(tmp_path)
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    state = play(Engine(game), "s", seed=1).state
    (unit,) = state.units.values()
    assert (unit.box, unit.loc, unit.side, unit.label, unit.steps) == ("pool", None, "b", "1st", 2)
