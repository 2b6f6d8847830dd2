"""What each built-in reads of the state is declared once, on the built-in (`dsl/stdlib.py`,
`Builtin.reads`: "nothing", "positions" or "state"), and the engine's analyses derive their sets
from it: the built-ins that read nothing (`reads.py`, `_PURE`) are board-static for the dependency
analysis (`dependencies.py`, `BOARD_STATIC`), those that read where units stand are its
`POSITION_READERS`, and both count no call level (`bounds.py`, `LEAF_BUILTINS`). A built-in added
without saying what it reads is refused here, and taken meanwhile to read the whole state."""

from __future__ import annotations

from dataclasses import replace

from warcodex.dsl import stdlib
from warcodex.dsl.loader import load_game
from warcodex.dsl.stdlib import BUILTINS, READS, Builtin, reading
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.values import CellValue, Odds, UnitRef

# test only: rules of Tiny Front that read nothing of the state (its CRT), or the stacks, or a
# unit's place through its name
OVERLAY = '''
function crt_col(o: odds): odds "The CRT column odds o are resolved on (test only)" §7.3 = column(crt, o)
function eliminated(): cell "The defender eliminated (test only)" §7.3 = cell_of(DE)
function on_top(h: location): unit "The unit on top at h (test only)" §7.3 = top_unit(h)
function named(u: unit): str "A unit's name, as the log shows it (test only)" §7.3 = text(u)
'''


def undeclared(builtins) -> list[str]:
    """The built-ins that do not say what they read of the state."""
    return [b.name for b in builtins if b.reads not in READS]


def test_every_builtin_declares_what_it_reads():
    missing = undeclared(BUILTINS.values())
    assert not missing, (f"built-ins without `reads=`: {', '.join(missing)}; declare in dsl/stdlib.py what each "
                         f"reads of the state ({' / '.join(READS)}, see StateReads there)")


def test_a_builtin_added_without_it_is_refused_and_taken_to_read_the_state(monkeypatch):
    newcomer = Builtin("newcomer", ("h: location",), "int", "A built-in of this test only.")
    assert undeclared([newcomer]) == ["newcomer"]
    monkeypatch.setitem(stdlib.BUILTINS, "newcomer", newcomer)
    assert "newcomer" not in reading("nothing", "positions") and "newcomer" in reading("state")
    monkeypatch.setitem(stdlib.BUILTINS, "newcomer", replace(newcomer, reads="nothing"))
    assert "newcomer" in reading("nothing")


def _engine(tmp_path):
    overlay = tmp_path / "rules.wcx"
    overlay.write_text(OVERLAY)
    return Engine(load_game("games/tiny", [overlay]))


def test_rules_of_the_crt_alone_are_cached_for_the_whole_game(tmp_path):
    engine = _engine(tmp_path)
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


def test_the_top_of_a_stack_is_read_until_the_positions_change(tmp_path):
    """`top_unit` reads where units stand and the stacks' order, which a restack changes with the
    positions' version: a rule calling it is memoized for the positions, and follows a restack."""
    engine = _engine(tmp_path)
    assert engine.deps.of(engine.game.names["on_top"]).level == "positions"
    state = engine.new_game("meeting", seed=1)
    bottom = next(u for u in state.units.values() if u.loc == "0204")
    top = replace(bottom, id=state.next_unit_id, label="Second infantry")
    state.next_unit_id += 1
    state.put(top)  # enters 0204 on top of the other
    ctx = Context(engine, state, agents={})
    assert engine.functions["on_top"](ctx, ("0204",), None).id == top.id
    state.to_top(bottom.id)
    assert engine.functions["on_top"](Context(engine, state, agents={}), ("0204",), None).id == bottom.id


def test_a_units_name_follows_its_moves(tmp_path):
    """`text(u)` names a unit as the log does, with where it is: it reads the state, and a rule
    calling it is not cached for the unit's type (until s10 `text` was board-static, and the
    name of a unit that had moved was the one cached before its move)."""
    engine = _engine(tmp_path)
    assert engine.deps.of(engine.game.names["named"]).level == "dynamic"
    state = engine.new_game("meeting", seed=1)
    unit = next(u for u in state.units.values() if u.loc == "0204")
    named = engine.functions["named"]
    assert named(Context(engine, state, agents={}), (UnitRef(unit.id),), None).endswith("(axis, 0204)")
    state.put(replace(unit, loc="0203"))
    assert named(Context(engine, state, agents={}), (UnitRef(unit.id),), None).endswith("(axis, 0203)")
