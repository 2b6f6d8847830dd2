"""Built-ins that read nothing of the state (reads.py `_PURE`: their arguments, the board and the
tables) are board-static for the dependency analysis too (dependencies.py `BOARD_STATIC`): a rule
that calls only such built-ins is cached for the whole game (`Engine.static_cache`), as its reads
say it may be. Until s9 `column` and `cell_of` were missing there, so a rule calling them was
taken for a dynamic one (right, but memoized state by state instead of once for the game)."""

from __future__ import annotations

from warcodex.dsl.loader import load_game
from warcodex.interpreter.context import Context
from warcodex.interpreter.dependencies import BOARD_STATIC
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.reads import _PURE
from warcodex.interpreter.values import CellValue, Odds

# test only: rules of Tiny Front's CRT that read nothing of the state
OVERLAY = '''
function crt_col(o: odds): odds "The CRT column odds o are resolved on (test only)" §7.3 = column(crt, o)
function eliminated(): cell "The defender eliminated (test only)" §7.3 = cell_of(DE)
'''


def test_every_builtin_that_reads_no_state_is_board_static():
    assert _PURE <= BOARD_STATIC


def test_rules_of_the_crt_alone_are_cached_for_the_whole_game(tmp_path):
    overlay = tmp_path / "crt_rules.wcx"
    overlay.write_text(OVERLAY)
    engine = Engine(load_game("games/tiny", [overlay]))
    names = engine.game.names
    assert [engine.deps.of(names[n]).level for n in ("crt_col", "eliminated")] == ["static", "static"]
    state = engine.new_game("meeting", seed=1)
    ctx = Context(engine, state, agents={})
    six = (Odds.ratio(6, 1),)
    assert engine.functions["crt_col"](ctx, six, None) == Odds.ratio(5, 1)  # `above 5:1 use 5:1` (§7.3)
    assert isinstance(engine.functions["eliminated"](ctx, (), None), CellValue)
    cached = {k[0]: v for k, v in engine.static_cache.items() if k[0] in ("crt_col", "eliminated")}
    assert cached["crt_col"] == Odds.ratio(5, 1) and set(cached) == {"crt_col", "eliminated"}
    # in any other position of the game the value is the one cached: a stand-in put there is
    # what the rule returns, whatever the state
    key = next(k for k in engine.static_cache if k[0] == "crt_col")
    engine.static_cache[key] = Odds.ratio(4, 1)
    later = state.snapshot()
    later.position.turn += 1
    assert engine.functions["crt_col"](Context(engine, later, agents={}), six, None) == Odds.ratio(4, 1)
