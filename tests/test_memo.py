"""Memoized rule values that survive the changes they do not read (interpreter/reads.py,
interpreter/memo.py, the journal of interpreter/state.py):

- what the analysis finds a rule reads follows the rules: a zone of control (Tiny Front §6) is
  the units in the adjacent hexes, nothing farther; a unit's attack strength (§7.2) reads that
  unit's position and its `disrupted` marker, nothing of the others;
- a value survives a change it does not read (a unit moving far away, a unit variable the rule
  never reads) and is dropped by one it reads (a unit moving next to the hex, the marker);
- every value still remembered after any change of a real game equals a fresh evaluation
  (`Memos.audit`), in Tiny Front, Stalingrad '42 and Axis & Allies 1941.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memo_audit import RuleValues, audited_game
from warcodex.dsl.checker import check_path
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.memo import entries
from warcodex.interpreter.state import unit_event
from warcodex.interpreter.values import UnitRef

ROOT = Path(__file__).resolve().parent.parent


def _engine(name):
    game, diags = check_path(ROOT / "games" / name)
    assert game is not None and not diags.errors
    return Engine(game, evaluator="generated")


@pytest.fixture(scope="module")
def tiny():
    return _engine("tiny")


def _plan(engine, name):
    return next(p for p in engine.memo_plans if p.name == name)


def _memo(ctx, name):
    """The argument tuples a rule's memo remembers, after the changes so far."""
    ctx.sync_memos()
    i = next(i for i, p in enumerate(ctx.engine.memo_plans) if p.name == name)
    return {args for args, _ in entries(ctx.engine.memo_plans[i], ctx.memo_values[i])}


def test_a_zone_of_control_reads_the_adjacent_hexes_only(tiny):
    """§6: a hex is in an enemy zone of control when an enemy unit is adjacent."""
    zoc = _plan(tiny, "in_enemy_zoc")
    assert zoc.everywhere == frozenset()
    assert zoc.near == {"positions"}
    assert zoc.anchors == ((0, 1, False),)  # within 1 of h, the rule's first parameter
    units = _plan(tiny, "enemy_units_at")
    assert units.near == {"positions"} and units.anchors == ((0, 0, False),)  # the hex itself


def test_an_attack_strength_reads_its_own_unit(tiny):
    """§7.2: a unit's attack strength is its printed attack (a reduced unit's is lower: steps),
    halved across a major river and when disrupted: the unit's position, steps and marker,
    nothing of the other units."""
    strength = _plan(tiny, "attack_strength")
    assert strength.everywhere == frozenset() and strength.near == frozenset()
    assert strength.units == ((0, frozenset({"positions", "steps", "marker:disrupted"})),)


def test_the_armor_shift_reads_the_weather_everywhere_and_the_defenders_where_they_stand(tiny):
    """§7.4 and §8: no armor shift in mud (a global variable) nor against armor in the hex."""
    shift = _plan(tiny, "armor_shift")
    assert "var:weather" in shift.everywhere
    assert "positions" in shift.near


def _meeting(engine):
    state = engine.new_game("meeting", seed=1)
    return Context(engine, state), state


def test_a_zone_of_control_survives_a_move_far_away_but_not_next_to_it(tiny):
    ctx, state = _meeting(tiny)
    board = tiny.board
    zoc = tiny.functions["in_enemy_zoc"]
    axis, soviet = tiny.entities["axis"], tiny.entities["soviet"]
    assert board.is_adjacent("0805", "0904") and board.distance("0805", "1005") == 2
    # 0805 is next to the Soviet rifle in 0904; 0303 is next to no Soviet unit
    assert zoc(ctx, ("0805", axis), None) is True
    assert zoc(ctx, ("0303", axis), None) is False
    assert set(_memo(ctx, "in_enemy_zoc")) == {("0805", axis), ("0303", axis)}
    tanks = next(UnitRef(u.id) for u in state.units.values() if u.label == "4th Tank Corps")
    tiny.move_unit(ctx, tanks, "1007", None)  # 1005 -> 1007: next to neither hex, before or after
    assert set(_memo(ctx, "in_enemy_zoc")) == {("0805", axis), ("0303", axis)}
    rifle = next(UnitRef(u.id) for u in state.units.values() if u.loc == "0904")
    beside = next(n for n in board.neighbors("0303") if n not in state.at)
    tiny.move_unit(ctx, rifle, beside, None)  # leaves 0805's side, comes next to 0303
    assert set(_memo(ctx, "in_enemy_zoc")) == set()
    assert zoc(ctx, ("0303", axis), None) is True

    def enemy_adjacent(h, side):  # §6, read off the state
        return any(state.units[i].side != side.name for n in board.neighbors(h) for i in state.at.get(n, ()))
    for h in ("0303", "0805", "0204"):
        for side in (axis, soviet):
            assert zoc(ctx, (h, side), None) is enemy_adjacent(h, side)


def test_a_unit_value_survives_a_variable_it_does_not_read_but_not_its_marker(tiny):
    ctx, state = _meeting(tiny)
    strength = tiny.quantities["attack_strength"]
    panzer = next(UnitRef(u.id) for u in state.units.values() if u.label == "11th Panzer")
    full = strength(ctx, (panzer, "0405"), None)
    tiny.set_attribute(ctx, panzer, "has_moved", True, None)
    assert (panzer, "0405") in _memo(ctx, "attack_strength")
    tiny.set_marker(ctx, panzer, tiny.entities["disrupted"], True, None)
    assert (panzer, "0405") not in _memo(ctx, "attack_strength")
    assert strength(ctx, (panzer, "0405"), None) * 2 >= full > strength(ctx, (panzer, "0405"), None)


def test_a_change_that_does_not_say_what_forgets_everything(tiny):
    ctx, state = _meeting(tiny)
    tiny.functions["in_enemy_zoc"](ctx, ("0303", tiny.entities["axis"]), None)
    assert _memo(ctx, "in_enemy_zoc")
    state.touch()
    assert not _memo(ctx, "in_enemy_zoc")


def test_the_journal_says_what_changed_in_a_unit(tiny):
    state = tiny.new_game("meeting", seed=1)
    unit = next(iter(state.units.values()))
    from dataclasses import replace

    moved = replace(unit, loc="0505", steps=unit.steps - 1, markers=frozenset({"disrupted"}),
                    vars=(("has_moved", True),))
    kinds, where, uid = unit_event(unit, moved)
    assert set(kinds) == {"positions", "steps", "marker:disrupted", "uvar:has_moved"}
    assert where == (unit.loc, "0505") and uid == unit.id


@pytest.mark.parametrize("name,scenario,actions", [
    ("tiny", "meeting", None),
    ("stalingrad42", "fall_blau", 30),
    ("axis-allies-1941", "world_1941", 12),
])
def test_every_remembered_value_is_what_the_rules_say_now(name, scenario, actions, tiny):
    engine = tiny if name == "tiny" else _engine(name)
    engine = engine.for_scenario(scenario)
    assert audited_game(engine, scenario, 3, RuleValues, actions).audits > 20


def test_setting_one_unit_variable_journals_what_a_whole_record_put_would():
    """`GameState.put_var` (the generated setters' path) leaves the same records, version and
    journal event as `put(unit.with_var(...))`, the engine's general path: a new variable, a
    changed one, an equal value (no change, no version), a unit off the map (no location)."""
    from warcodex.interpreter.state import GameState

    def fresh():
        s = GameState(scenario="x", seed=0)
        s.new_unit("infantry", "axis", "0101", 2, "Infantry")
        s.new_unit("infantry", "axis", None, 2, "Infantry")
        return s

    for uid, name, values in ((1, "fought", [True, True, False, 1]), (2, "aboard", ["t1", None, None]),
                              (1, "casualty", [False, 0, True])):
        a, b = fresh(), fresh()
        for value in values:
            a.put(a.units[uid].with_var(name, value))
            b.put_var(b.units[uid], name, value)
            assert a.units == b.units and a.version == b.version and a.journal == b.journal
            assert a.units[uid].vd == dict(a.units[uid].vars)
    assert b.journal[-1] == (("uvar:casualty",), ("0101",), 1)


def test_a_lookaheads_writes_into_the_shared_inner_dicts_are_true_of_the_game(tiny):
    """Memos.copy shares a "nested" memo's inner dicts ({h: {side: entry}}) with the game: a
    lookahead that evaluates in_enemy_zoc(h, s) for an h whose inner dict it still shares writes
    into the game's. This is exact: it still shares it only because none of its changes dropped
    h, so the value is the game's too; once a change drops h, it writes into a dict of its own."""
    ctx, state = _meeting(tiny)
    zoc = tiny.functions["in_enemy_zoc"]
    axis, soviet = tiny.entities["axis"], tiny.entities["soviet"]
    assert zoc(ctx, ("0805", axis), None) is True  # §6: the Soviet rifle in 0904 is adjacent
    assert zoc(ctx, ("0303", axis), None) is False
    sim = Context(tiny, state.snapshot())
    sim.carry_memos(ctx)
    tanks = next(UnitRef(u.id) for u in sim.state.units.values() if u.label == "4th Tank Corps")
    tiny.move_unit(sim, tanks, "1007", None)  # far from 0805: the lookahead still shares its dict
    assert zoc(sim, ("0805", soviet), None) is False
    assert ("0805", soviet) in _memo(ctx, "in_enemy_zoc")  # written into the game's inner dict
    rifle = next(UnitRef(u.id) for u in sim.state.units.values() if u.loc == "0904")
    beside = next(n for n in tiny.board.neighbors("0303") if n not in sim.state.at)
    tiny.move_unit(sim, rifle, beside, None)  # drops 0805 and 0303 in the lookahead's copy only
    assert zoc(sim, ("0805", axis), None) is False and zoc(sim, ("0303", axis), None) is True
    # the game keeps its own values, and every one it holds is what §6 says of its position
    assert _memo(ctx, "in_enemy_zoc") == {("0805", axis), ("0805", soviet), ("0303", axis)}
    assert zoc(ctx, ("0805", axis), None) is True and zoc(ctx, ("0303", axis), None) is False
    assert not ctx._memos.audit(ctx, tiny.compiler.bodies())
    # the game moves on its own way (the tanks elsewhere): still exact
    tiny.move_unit(ctx, next(UnitRef(u.id) for u in state.units.values() if u.label == "4th Tank Corps"), "1006", None)
    assert not ctx._memos.audit(ctx, tiny.compiler.bodies()) and _memo(ctx, "in_enemy_zoc")


def test_a_test_helpers_change_of_control_drops_only_what_reads_it():
    """Axis & Allies 1941's test helper `Table.control` (tests/test_aa1941_helpers.py) used to write
    the territory's variables directly and `touch()` the state: every memo was dropped, so the
    tests never saw memos survive as they do in play (and the writes made without a touch could
    leave stale values). It now goes through `GameState.set_loc_var`: the journal says control of
    Karelia changed; `friendly_territory` (read where it stands, §3.12) is dropped for Karelia and
    kept in the Caucasus, `production` (every territory, §3.3) is dropped, the units' positions kept."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_aa1941_helpers import Table

    t = Table()
    germany = t.side("germany")
    for h in ("karelia", "caucasus"):
        t.fn("friendly_territory", h, germany)
        t.fn("enemy_units_at", h, germany)
    assert t.fn("production", germany) == 12
    t.control("karelia", "germany")
    assert _memo(t.ctx, "friendly_territory") == {("caucasus", germany)}
    assert _memo(t.ctx, "enemy_units_at") == {("karelia", germany), ("caucasus", germany)}
    assert _memo(t.ctx, "production") == set()
    assert t.fn("production", germany) == 13 and t.fn("friendly_territory", "karelia", germany)


def test_setting_a_variable_from_outside_the_rules_journals_what_the_rules_set_would():
    """`GameState.set_var`, `set_side_var` and `set_loc_var` (a tool's or a test's writes) leave the
    same variables, version and journal events as the engine's own `set` (Engine.set_var,
    Engine.set_attribute)."""
    engine = _engine("tiny")
    a, b = engine.new_game("meeting", seed=1), engine.new_game("meeting", seed=1)
    ctx = Context(engine, a)
    axis = engine.entities["axis"]
    engine.set_var(ctx, "weather", engine.entities["mud"])
    engine.set_attribute(ctx, axis, "vp", 3, None)
    engine.set_attribute(ctx, "0805", "controller", axis, None)
    b.set_var("weather", engine.entities["mud"])
    b.set_side_var("axis", "vp", 3)
    b.set_loc_var("0805", "controller", axis)
    assert (a.vars, a.side_vars, a.loc_vars) == (b.vars, b.side_vars, b.loc_vars)
    assert a.version == b.version and a.journal[-3:] == b.journal[-3:]
    assert b.journal[-1] == (("lvar:controller",), ("0805",), None)
