"""Scans of the whole map or of every unit narrowed to the candidates of a tag test
(interpreter/narrowing.py) and the state's index of locations by marker (state.MarkerIndex).

A narrowed scan visits fewer elements and gives the same value as the full scan: each rule below
has a twin whose condition the narrowing cannot read (`not not`), so it scans everything; both
evaluators. Stalingrad '42's fortification markers (§9.7.3 `forts_of`, §9.7.2
`complete_fortifications`) and garrisons (§20 `free_garrisons_near`) are the scans that asked for
it; test-only rules here use Tiny Front's `disrupted` marker, towns and unit classes.
"""

from __future__ import annotations

import copy
import json
import pickle

import pytest

from warcodex.dsl import ast
from warcodex.dsl.parser import parse_text
from warcodex.interpreter.agents import FirstAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.narrowing import required_tags
from warcodex.interpreter.state import MarkerIndex
from game_scene import tiny_engine_with


def parse_expression(text: str) -> ast.Expr:
    return parse_text(f"function f(): bool = {text}\n").decls[0].body

EXTRA = """
var visited: list = [] §7.5

function marked_or_towns(): list "disrupted hexes and towns" §7.5 =
  list(h for h in locations() where (h is disrupted or h is town) and h != "0101")
function marked_or_towns_full(): list "the same, every hex scanned" §7.5 =
  list(h for h in locations() where not not (h is disrupted or h is town) and h != "0101")
function armored(): list "armored units" §7.4 = list(v for v in all_units() where v is armor)
function any_armored_hit(): bool "an armored unit has lost a step" §7.4 = any(v is armor and v.steps < 2 for v in all_units())
function armored_full(): list "the same, every unit scanned" §7.4 = list(v for v in all_units() where not not v is armor)

# each disrupted hex disrupts its neighbours: the walk must visit hexes marked after it started
procedure spread() "Disruption spreads" §7.5 {
  for h in locations() {
    if h is disrupted and count(visited) < 12 {
      set visited = visited + [h]
      for n in adjacent(h) { mark(n, disrupted) }
    }
  }
}
procedure spread_full() "Disruption spreads, every hex scanned" §7.5 {
  for h in locations() {
    if not not h is disrupted and count(visited) < 12 {
      set visited = visited + [h]
      for n in adjacent(h) { mark(n, disrupted) }
    }
  }
}
"""


@pytest.fixture(scope="module", params=["generated", "reference"])
def engine(request, tmp_path_factory):
    return tiny_engine_with(EXTRA, tmp_path_factory.mktemp("narrow") / "tiny", request.param)


def fresh(engine):
    state = engine.new_game("meeting", seed=0, setup=True)
    return state, Context(engine, state, agents={"axis": FirstAgent(), "soviet": FirstAgent()})


def call(engine, ctx, name):
    ctx.sync_memos()
    return engine.functions[name](ctx, (), None)


def test_the_condition_says_which_tags_an_element_needs():
    def tags(text):
        return required_tags(parse_expression(text), "h")
    assert tags("h is town") == {"town"}
    assert tags("(h is a or h is b) and h.x == 1") == {"a", "b"}
    assert tags("h.x == 1 and h is a") == {"a"}
    assert tags("h is a or h.x == 1") is None  # an element without the tag may pass
    assert tags("not h is a") is None and tags("h is not a") is None
    assert tags("g is a") is None  # another variable's tag


def test_a_narrowed_scan_of_the_map_finds_what_the_full_scan_finds(engine):
    state, ctx = fresh(engine)
    towns = call(engine, ctx, "marked_or_towns")
    assert towns and towns == call(engine, ctx, "marked_or_towns_full")
    for h in ("0909", "0102", "0505"):  # markers put after the first look, in no board order
        engine.set_marker(ctx, h, "disrupted", True, None)
    found = call(engine, ctx, "marked_or_towns")
    assert found == call(engine, ctx, "marked_or_towns_full")
    assert {"0909", "0102", "0505"} <= set(found)
    assert list(found) == sorted(found, key=engine.board.index.__getitem__)  # board order
    engine.set_marker(ctx, "0909", "disrupted", False, None)
    assert "0909" not in call(engine, ctx, "marked_or_towns")


def test_a_narrowed_scan_counts_fewer_steps(engine):
    state, ctx = fresh(engine)
    before = ctx.steps
    call(engine, ctx, "marked_or_towns")
    narrowed = ctx.steps - before
    before = ctx.steps
    call(engine, ctx, "marked_or_towns_full")
    assert narrowed < ctx.steps - before


def test_a_loop_visits_the_locations_marked_while_it_runs(engine):
    runs = []
    for name in ("spread", "spread_full"):
        state, ctx = fresh(engine)
        engine.set_marker(ctx, "0303", "disrupted", True, None)
        engine.procedures[name](ctx, (), None)
        runs.append((list(state.vars["visited"]), dict(state.loc_markers)))
    assert runs[0] == runs[1]
    assert len(runs[0][0]) == 12  # hexes after 0303 in board order, marked by the loop, were visited


def test_a_narrowed_scan_of_the_units_keeps_their_order(engine):
    state, ctx = fresh(engine)
    armored = call(engine, ctx, "armored")
    assert [state.units[r.id].type for r in armored] == ["panzer", "tank_corps"]
    assert armored == call(engine, ctx, "armored_full")
    assert call(engine, ctx, "any_armored_hit") is False
    state.put(state.units[armored[1].id].but(steps=1))
    assert call(engine, ctx, "any_armored_hit") is True


def test_any_narrows_on_its_element_but_all_does_not():
    from warcodex.interpreter.narrowing import comprehension_condition

    def comp(text):
        return parse_expression(text)
    assert required_tags(comprehension_condition(comp("any(v is armor and v.steps > 1 for v in all_units())")), "v") == {"armor"}
    assert comprehension_condition(comp("all(v is armor for v in all_units())")) is None
    assert comprehension_condition(comp("count(v is armor for v in all_units())")) is None


def test_a_unit_type_tag_that_a_unit_may_carry_as_a_marker_is_not_narrowed(engine):
    from warcodex.interpreter.narrowing import narrowed, unit_markers

    assert "disrupted" in unit_markers(engine)
    source = ast.Call(func="all_units")
    assert narrowed(engine, source, "v", parse_expression("v is disrupted")) is None
    assert narrowed(engine, source, "v", parse_expression("v is armor")) == ("units", ("armor",))


def test_the_marker_index_follows_every_change():
    m = MarkerIndex({"a": frozenset({"x"}), "b": frozenset({"x", "y"})})
    assert m.by_marker == {"x": {"a", "b"}, "y": {"b"}}
    m["a"] = frozenset({"y"})
    m.pop("b")
    m.setdefault("c", frozenset({"x"}))
    assert m.by_marker["x"] == {"c"} and m.by_marker["y"] == {"a"}
    for other in (m.copy(), copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert type(other) is MarkerIndex and other == m and other.by_marker["x"] == {"c"}
        other["c"] = frozenset()
        assert m.by_marker["x"] == {"c"}  # a copy's index is its own
    assert json.loads(json.dumps({k: sorted(v) for k, v in m.items()})) == {"a": ["y"], "c": ["x"]}


def test_a_snapshot_keeps_the_index_apart(engine):
    state, ctx = fresh(engine)
    engine.set_marker(ctx, "0505", "disrupted", True, None)
    call(engine, ctx, "marked_or_towns")  # the state's markers become an index
    copy_ = state.snapshot()
    assert type(copy_.loc_markers) is MarkerIndex
    copy_.loc_markers["0606"] = frozenset({"disrupted"})
    assert "0606" not in state.loc_markers.by_marker["disrupted"]
