"""Proof that `warcodex fuzz` finds broken rules: a deliberately broken rule is overlaid on a copy of
Tiny Front, fuzzing must find the invariant it breaks within a bounded number of examples, shrink
the failing game to a few actions, and save it as a log that `replay` reproduces exactly. The
unbroken game must pass. Every run is deterministic (hypothesis and the dice are seeded)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from warcodex.cli import read_log
from warcodex.interpreter.context import Context
from warcodex.interpreter.fuzzing import fuzz_game, save_counterexample
from warcodex.interpreter.invariants import InvariantViolation
from warcodex.interpreter.play import log_text, replay
from warcodex.interpreter.strategies import (apply_action, broken_invariants, game_states, legal_actions,
                                             load_engine)

TINY = Path("games/tiny")

# The stacking prohibition of ground movement is dropped. Overriding a movement mode merges its
# properties by key, and the repeated key `prohibited` matches the last one (the stacking rule, §4),
# so this replaces it with the enemy-unit prohibition, which is kept twice.
NO_STACKING_LIMIT = """
override movement ground {
  prohibited: count(enemy_units_at(to, u.side)) > 0 §5.1
}
"""

# A retreat may end in an enemy zone of control: the `not in_enemy_zoc(h, u.side)` condition is gone.
RETREAT_INTO_ZOC = """
override procedure retreat(u: unit, hexes: int, origin: location) "Retreat" §7.6 {
  for i in range(1, hexes) {
    if u.loc != none {
      choose h from adjacent(u.loc)
        where distance(h, origin) > distance(u.loc, origin)
          and count(enemy_units_at(h, u.side)) == 0
          and count(units_at(h)) < 2
        by u.side §7.6
      if h == none { lose_unit(u) } else { move_to(u, h) }
    }
  }
  if u.loc != none { mark(u, disrupted) }
}
"""

MAX_ACTIONS = 20  # per game: enough for contact between the two sides (turn 2)
# The bounds: each broken rule is found within this many games (observed: the 11th and the 25th
# game with these seeds; the runs are deterministic, hypothesis and the dice being seeded) and
# shrunk to at most 3 actions (observed: 2, within 327 and 198 shrinking games).
EXAMPLES_ZOC, SEED_ZOC = 40, 1
EXAMPLES_STACKING, SEED_STACKING = 40, 10
SHRUNK_AT_MOST = 3


def broken_tiny(tmp_path: Path, overlay: str) -> Path:
    folder = tmp_path / "tiny"
    shutil.copytree(TINY, folder)
    (folder / "overlay.wcx").write_text(overlay, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def engine():
    return load_engine(TINY)


def test_the_unbroken_game_passes(engine):
    report = fuzz_game(engine, "meeting", examples=10, seed=1, max_actions=MAX_ACTIONS)
    assert report.failures == []
    assert report.examples >= 10 and report.actions > 50


def test_retreats_into_a_zone_of_control_are_found_shrunk_and_replayed(tmp_path):
    folder = broken_tiny(tmp_path, RETREAT_INTO_ZOC)
    broken = load_engine(folder)
    report = fuzz_game(broken, "meeting", examples=EXAMPLES_ZOC, seed=SEED_ZOC, max_actions=MAX_ACTIONS)
    [failure] = report.failures
    assert failure.key == ("invariant", "retreat_outside_zoc")
    assert failure.found_at <= EXAMPLES_ZOC  # the bound: found within this many games
    assert failure.actions <= SHRUNK_AT_MOST  # a move into contact and an attack (observed: 2)
    # re-run with explanations, it breaks the same invariant after an attack whose retreat is traced
    assert isinstance(failure.reproduced, InvariantViolation)
    assert failure.reproduced.invariant.name == "retreat_outside_zoc" and failure.reproduced.when == "after attack"
    last = failure.trace_log[-1]
    assert last["action"] == "attack" and "Retreat" in str(last["trace"])
    # the saved log is a whole game that replay reproduces exactly
    path = tmp_path / "counterexample.jsonl"
    assert save_counterexample(path, broken, failure, None)
    header, entries = read_log(path)
    again = replay(load_engine(header["game_dir"]), header["scenario"], header["seed"], entries)
    assert log_text(again.log) == log_text(entries)
    assert entries[: len(failure.trace_log)] == failure.trace_log  # the failing game is its beginning
    assert entries[-1]["k"] == "end"


def test_the_command_finds_overstacking_and_saves_a_replayable_log(tmp_path):
    folder = broken_tiny(tmp_path, NO_STACKING_LIMIT)
    path = tmp_path / "stacking.jsonl"
    r = subprocess.run([sys.executable, "-m", "warcodex", "fuzz", str(folder), "--examples", str(EXAMPLES_STACKING),
                        "--seed", str(SEED_STACKING), "--max-actions", str(MAX_ACTIONS),
                        "--save-counterexample", str(path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Traceback" not in r.stderr
    out = r.stdout
    assert "FAILED: invariant 'stacking' (At most two units per hex, §4) violated after move" in out
    assert "holds: all(count(units_at(h)) <= 2 for h in occupied())" in out  # the invariant's source
    shrunk = int(out.split("shrunk counterexample: ")[1].split(" action")[0])
    assert shrunk <= SHRUNK_AT_MOST  # two moves into an occupied hex is the least possible (observed: 2)
    sequence, explained = out.split("shrunk counterexample: ")[1].split("the last step, explained:")
    assert sequence.count("): move(") == shrunk  # the sequence lists exactly the shrunk actions
    assert "): move(" in explained and "examples/s" in out
    r = subprocess.run([sys.executable, "-m", "warcodex", "replay", str(path)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and "reproduced:" in r.stdout, r.stdout + r.stderr


# ---------------------------------------------------------------- the Python API
@settings(max_examples=15, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_strategies_reach_legal_states_and_draw_legal_actions(engine, data):
    state = data.draw(game_states(engine, "meeting", max_actions=12, with_legal=["move"]))
    assert state.phase == "movement" and broken_invariants(engine, state) == []
    move = data.draw(legal_actions(engine, state))
    engine.actions["move"].validate(Context(engine, state), move)  # legal in that state
    before = {u.id: u.loc for u in state.units.values()}
    after = apply_action(engine, state, move, data.draw)
    assert {u.id: u.loc for u in state.units.values()} == before  # the state drawn is unchanged
    assert after.units[move.arg("u").id].var("has_moved") is True
    assert broken_invariants(engine, after, after="move") == []


@settings(max_examples=15, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_legal_move_ends_on_its_destination(engine, data):
    # guards the fix of move_along skipping the first hex of every path (a one-hex move did not
    # move the unit; this test failed on that engine)
    state = data.draw(game_states(engine, "meeting", max_actions=12, with_legal=["move"]))
    move = data.draw(legal_actions(engine, state))
    after = apply_action(engine, state, move, data.draw)
    assert after.units[move.arg("u").id].loc == move.arg("to")


# ---------------------------------------------------------------- a broken rule in a second game
# Axis & Allies 1941: a purchase no longer checks the treasury (§5: "you may not spend more IPCs
# than you have"). The invariant no_debt (§5, §10) must catch it; the shortest game that breaks
# it is one purchase the first power to play cannot afford (observed: the Soviet Union buying a
# fighter, found by the third game, one action after shrinking).
AA = Path("games/axis-allies-1941")
BUY_ON_CREDIT = """
override action buy "Purchase a unit" §5 {
  param t: from unit_types() §5
  require count(active.mobilization) < production_capacity(active) "FAQ F2" §13.F2 §9
  do {
    set active.ipc -= t.cost
    set active.mobilization = active.mobilization + [t]
  }
}
"""
EXAMPLES_AA = 10  # the bound: found within this many games (observed: the third)


def test_a_purchase_on_credit_is_found_in_axis_and_allies(tmp_path):
    folder = tmp_path / "aa"
    shutil.copytree(AA, folder)
    (folder / "overlay.wcx").write_text(BUY_ON_CREDIT, encoding="utf-8")
    broken = load_engine(folder)
    report = fuzz_game(broken, "world_1941", examples=EXAMPLES_AA, seed=1, max_actions=30, shrink_limit=150)
    [failure] = report.failures
    assert failure.key == ("invariant", "no_debt")
    assert failure.found_at <= EXAMPLES_AA
    # shrunk to purchases only: one unit that costs more than the treasury (observed: 1 action)
    actions = [e for e in failure.trace_log if e.get("k") == "action"]
    assert actions and all(e["action"] == "buy" for e in actions)
    assert len(actions) <= 2
    assert failure.reproduced.invariant.name == "no_debt"
