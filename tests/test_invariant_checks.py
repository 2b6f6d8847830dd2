"""Invariants are checked again only after a change of what they read (interpreter/invariants.py):
a check after a change of nothing they read is skipped (its value cannot differ), one after a
change they read, or a change the journal does not explain, evaluates them; an invariant over
every unit evaluates only the units whose remembered value a change dropped. Both evaluators;
test-only invariants over Tiny Front (units keep at least one step, §7.5).
"""

from __future__ import annotations

import pytest

from warcodex.interpreter.agents import FirstAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.invariants import InvariantViolation, check_invariants
from game_scene import tiny_engine_with


EXTRA = """
var probe: int = 0 §7.5
var other: int = 0 §7.5

invariant probe_small "The probe stays small" §7.5 {
  check: always
  holds: probe < 5
}

invariant none_disrupted "No unit on the map is disrupted" §7.5 {
  check: always
  holds: all(not u is disrupted for u in all_units())
}
"""


@pytest.fixture(scope="module", params=["generated", "reference"])
def engine(request, tmp_path_factory):
    return tiny_engine_with(EXTRA, tmp_path_factory.mktemp("inv") / "tiny", request.param)


@pytest.fixture()
def counted(engine):
    """The engine's invariants, each counting its evaluations (restored afterwards)."""
    counts = {}
    saved = [(inv, inv.holds) for inv in engine.invariants if inv.name in ("probe_small", "none_disrupted")]
    for inv, holds in saved:
        def counting(fr, _holds=holds, _name=inv.name):
            counts[_name] = counts.get(_name, 0) + 1
            return _holds(fr)
        inv.holds = counting
    yield counts
    for inv, holds in saved:
        inv.holds = holds


def ctx_unit(uid):
    from warcodex.interpreter.values import UnitRef

    return UnitRef(uid)


def fresh(engine):
    state = engine.new_game("meeting", seed=0, setup=True)
    return state, Context(engine, state, agents={"axis": FirstAgent(), "soviet": FirstAgent()})


def test_what_an_invariant_reads_decides_when_it_is_checked(engine):
    kinds = {inv.name: inv.kinds for inv in engine.invariants}
    assert kinds["probe_small"] == {"var:probe"}
    assert kinds["none_disrupted"] == {"positions", "marker:disrupted"}


def test_a_change_an_invariant_does_not_read_skips_it(engine, counted):
    state, ctx = fresh(engine)
    check_invariants(engine, ctx, "auto", "test")
    assert counted == {"probe_small": 1, "none_disrupted": 1}
    state.vars["other"] = 3
    state.changed(("var:other",))
    check_invariants(engine, ctx, "auto", "test")
    assert counted == {"probe_small": 1, "none_disrupted": 1}  # nothing they read changed
    state.vars["probe"] = 7
    state.changed(("var:probe",))
    with pytest.raises(InvariantViolation, match="probe_small"):
        check_invariants(engine, ctx, "auto", "test")
    state.vars["probe"] = 1
    state.changed(("var:probe",))
    check_invariants(engine, ctx, "auto", "test")  # checked again after a failure
    assert counted["probe_small"] == 3 and counted["none_disrupted"] == 1


def test_an_unexplained_change_checks_everything_again(engine, counted):
    state, ctx = fresh(engine)
    check_invariants(engine, ctx, "auto", "test")
    state.vars["probe"] = 9
    state.touch()  # changed without saying what
    with pytest.raises(InvariantViolation, match="probe_small"):
        check_invariants(engine, ctx, "auto", "test")


def test_a_unit_marked_is_caught(engine, counted):
    state, ctx = fresh(engine)
    check_invariants(engine, ctx, "auto", "test")
    uid = next(iter(state.units))
    engine.set_marker(ctx, ctx_unit(uid), "disrupted", True, None)  # that unit's value is dropped
    with pytest.raises(InvariantViolation, match="none_disrupted"):
        check_invariants(engine, ctx, "auto", "test")
