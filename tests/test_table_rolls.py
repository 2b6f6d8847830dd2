"""`rolls(table)` and `rows(table)` (dsl/stdlib.py, interpreter/builtins.py): the rolls a die-roll
table is read with, and one key per printed row, read from the table's declaration instead of
written again by hand (`range(1, 6)` for the faces of the d6 a CRT declares). Each runs through
both evaluators (the closure compiler, the reference, and the generated code) on Tiny Front's
tables and on tables written here; the checker's diagnostics are in tests/test_checker.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tiny_copy import tiny_engines
from warcodex.interpreter.context import Context
from warcodex.interpreter.values import Entity, RuleError


# rules of the test only, added to a copy of Tiny Front (its CRT and its weather table, `row 1..4`)
RULES = '''table tec "Terrain costs" §9 rulebook {
  columns values: leg
  rows values: clear forest
  row clear: 1
  row forest: 2
}
table morale "Morale" §9 provisional "a 2d6 table for the test" {
  rows roll 2d6: 2..12 clamp
  row 2..6: fair
  row 7..12: rain
}
table supply_bands "Supply bands" §9 provisional "bands of strength and held hexes for the test" {
  columns values: points
  rows: 1..16 17..18 "0101"
  row 1..16: 1
  row 17..18: 2
  row "0101": 3
}
function band_rows(): list "the printed bands" §9 = rows(supply_bands)
function crt_faces(): list "the faces of the combat die" §9 = rolls(crt)
function weather_rolls(): list "the weather rolls" §9 = rolls(weather_table)
function weather_rows(): list "the printed weather rows" §9 = rows(weather_table)
function weather_of_each_row(): list "what each printed row gives" §9 = list(weather_table[r] for r in rows(weather_table))
function terrain_rows(): list "the TEC's terrains" §9 = rows(tec)
function morale_rolls(): list "the sums of 2d6" §9 = rolls(morale)
function average_defender_loss(): num "the mean of a column over the die" §9 =
  sum(result_arg(crt[3:1, r], DR) for r in rolls(crt)) / count(rolls(crt))
function rolls_of(t: table): list "a table's rolls" §9 = rolls(t)
'''


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    return tiny_engines(tmp_path_factory.mktemp("rolls"), RULES)


def _call(engine, name, *args):
    ctx = Context(engine, engine.new_game("meeting", seed=0, setup=False), agents={})
    return engine.functions[name](ctx, args, None)


def _names(values):
    return [v.name if isinstance(v, Entity) else v for v in values]


@pytest.mark.parametrize("evaluator", [0, 1], ids=["reference", "generated"])
def test_the_rolls_of_a_die_roll_table_are_its_declared_axis(engines, evaluator):
    engine = engines[evaluator]
    assert _call(engine, "crt_faces") == (1, 2, 3, 4, 5, 6)  # `rows roll d6: 1..6 clamp`
    # the weather table prints `row 1..4`, `row 5`, `row 6`: its rolls are still the six faces
    assert _call(engine, "weather_rolls") == (1, 2, 3, 4, 5, 6)
    assert _call(engine, "morale_rolls") == tuple(range(2, 13))  # 2d6: eleven sums, not equally likely


@pytest.mark.parametrize("evaluator", [0, 1], ids=["reference", "generated"])
def test_the_rows_of_a_table_are_one_key_per_printed_row(engines, evaluator):
    engine = engines[evaluator]
    assert _call(engine, "weather_rows") == (1, 5, 6)  # a range row is keyed by its first roll
    assert [str(c) for c in _call(engine, "weather_of_each_row")] == ["fair", "rain", "mud"]  # Tiny Front §8
    terrains = _call(engine, "terrain_rows")
    assert _names(terrains) == ["clear", "forest"]
    assert all(isinstance(t, Entity) and t.kind == "terrain" for t in terrains)  # the declared terrains, as `clear` reads
    assert _call(engine, "band_rows") == (1, 17, "0101")  # a band by its first number; a hex id as its text


@pytest.mark.parametrize("evaluator", [0, 1], ids=["reference", "generated"])
def test_a_column_averaged_over_the_die(engines, evaluator):
    # Tiny Front's CRT at 3-1 (§7.3): DR1 DR1 DR2 DR2 DE DE, the retreats 1+1+2+2 over six rolls
    from fractions import Fraction

    assert _call(engines[evaluator], "average_defender_loss") == Fraction(6, 6) == 1


@pytest.mark.parametrize("evaluator", [0, 1], ids=["reference", "generated"])
def test_rolls_of_a_table_whose_rows_are_no_roll_is_a_located_error(engines, evaluator):
    engine = engines[evaluator]
    tec = engine.entities.get("tec", "tec")
    with pytest.raises(RuleError) as err:
        _call(engine, "rolls_of", tec)
    assert "the rows of the Terrain costs are not a die roll" in str(err.value)
    assert "use rows(tec)" in str(err.value)
    line = next(i for i, text in enumerate(RULES.splitlines(), 1) if text.startswith("function rolls_of"))
    column = RULES.splitlines()[line - 1].index("rolls(t)") + 1
    span = err.value.span  # the call `rolls(t)` in extra.wcx
    assert (Path(span.file).name, span.line, span.column, span.end_column) == ("extra.wcx", line, column, column + len("rolls(t)"))
