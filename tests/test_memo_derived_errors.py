"""A derived global (a rule of no parameters reading only global values) is evaluated again by the
memos when what it reads changes (interpreter/memo.py, `Memos.recheck`). A derived global that
the rules define only for some states (a table lookup by turn, past the table's last row) must not
make an unrelated rule fail: found by a No Retreat! campaign batch, where the evaluation of the
final position (turn 29, one past the Turn Record Track) failed in `year()` though nothing read it."""

from __future__ import annotations

import pytest

from game_scene import tiny_engine_with
from warcodex.interpreter.context import Context
from warcodex.interpreter.values import RuleError

EXTRA = """
table calendar "Calendar" §1 provisional "test only" {
  columns: year
  rows: 1 2 3
  row 1: 1941
  row 2: 1941
  row 3: 1942
}

function year(): int "the year of the turn" §1 = number(calendar["year", turn])

function late(h: location): bool "a late-war hex" §1 = year() >= 1942 and h.vp != none

function occupied_count(h: location): int "units in a hex" §1 = count(units_at(h))
"""


@pytest.mark.parametrize("evaluator", ["generated", "reference"])
def test_a_derived_global_undefined_past_its_table_fails_only_where_it_is_read(tmp_path, evaluator):
    engine = tiny_engine_with(EXTRA, tmp_path / "tiny", evaluator)
    state = engine.new_game("meeting", 1)
    ctx = Context(engine, state)
    hexes = sorted(engine.board.locations)
    call = lambda name, *args: engine.functions[name](ctx, tuple(args), None)  # noqa: E731
    assert [call("late", h) for h in hexes[:3]] == [False] * 3  # turn 1: 1941
    state.position.turn = 4  # past the calendar's rows (a game's position after its last turn)
    state.touch()
    # a rule that does not read year() is evaluated as always...
    assert call("occupied_count", hexes[0]) == sum(1 for u in state.on_map() if u.loc == hexes[0])
    # ...and one that reads it fails where it reads it, with the table's located error
    with pytest.raises(RuleError, match="has no row for 4"):
        call("late", hexes[0])
    state.position.turn = 3
    state.touch()
    assert call("late", next(h for h in hexes if engine.board.features(h) and "objective" in engine.board.features(h))) is True
