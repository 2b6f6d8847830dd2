"""`result_arg(cell, R)` (dsl/stdlib.py): the number a table cell gives result R (`D2` -> 2), 0
when the cell holds no R code. Written for Stargard Solstice's evaluation, which weighs an attack
by what the CRT's cells do (D#, A#, Dr#, Ar#: games/stargard-solstice/combat.wcx); tested on that
CRT, through the game's own functions (the generated code) and the built-in itself."""

from __future__ import annotations

import pytest

from test_stargard_support import Scene
from warcodex.dsl.stdlib import BUILTINS
from warcodex.interpreter.builtins import IMPLEMENTATIONS
from warcodex.interpreter.dependencies import BOARD_STATIC
from warcodex.interpreter.values import CellValue, Code, RuleError


def test_it_is_specified_pure_and_implemented():
    assert "result_arg" in BUILTINS and "result_arg" in IMPLEMENTATIONS
    assert "result_arg" in BOARD_STATIC  # a function of its arguments: memoized like odds()


def test_every_cell_of_the_stargard_crt_reads_as_printed():
    s = Scene(real=True)
    crt = s.engine.tables["crt"]
    read = 0
    for col in crt.columns:
        for roll in range(1, 7):
            cell = crt.lookup([col, roll], None)
            printed = {c.result.name: c.args[0] for c in cell.codes}
            assert s.f("defender_steps", cell) == printed.get("D", 0)
            assert s.f("attacker_steps", cell) == printed.get("A", 0)
            assert s.f("defender_retreat_hexes", cell) == printed.get("Dr", 0)
            assert s.f("attacker_retreat_hexes", cell) == printed.get("Ar", 0)
            read += 1
    assert read == 8 * 6


def test_cells_of_several_codes_none_and_errors():
    s = Scene(real=True)
    e = s.engine.entities
    call = IMPLEMENTATIONS["result_arg"]
    d1_dr2 = CellValue((Code(e["D"], (1,)), Code(e["Dr"], (2,))))  # the 3:1 column's roll 6
    assert call(s.ctx, None, d1_dr2, e["D"]) == 1
    assert call(s.ctx, None, d1_dr2, e["Dr"]) == 2
    assert call(s.ctx, None, d1_dr2, e["A"]) == 0  # no A code: nothing lost
    assert call(s.ctx, None, CellValue(()), e["D"]) == 0  # an empty cell ("-")
    assert call(s.ctx, None, None, e["D"]) == 0
    assert call(s.ctx, None, CellValue((Code(e["D"], (1,)), Code(e["D"], (2,)))), e["D"]) == 3  # added
    with pytest.raises(RuleError, match="is not a result"):
        call(s.ctx, None, d1_dr2, e["t_inf"])
    with pytest.raises(RuleError, match="does not give P one number"):
        call(s.ctx, None, CellValue((Code(e["P"]),)), e["P"])  # the barrage's P takes no number
