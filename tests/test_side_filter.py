"""The side filter of exact odds (interpreter/compiler.py `side_filter_shape`, `SideFilter`): the one
comprehension shape, `... for u in units_at(h) where SIDE_TEST and ...`, whose units the closure
compiler and the odds engine's generated code read as one value on a recording view, "the units
of these sides at h" (readlog.side_filtered). Each shape it takes, each it leaves to the ordinary
reads, and the sides each test lets through. Its effect on odds (a casualty loop served again when
only the other side's units at the hex changed) is tests/data/odds/tiny_side_reads.wcx's, audited
in test_odds.py and test_odds_evaluators.py; both evaluators filter under exact odds only, the
same stacks (the last test)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from game_scene import load_game
from warcodex.dsl import ast
from warcodex.dsl.parser import parse_text
from warcodex.interpreter import readlog
from warcodex.interpreter.compiler import SideFilter, side_filter_shape
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine


PREFIX = "function f(h: location, a: side, v: unit): int = "
TINY_GAME = Path(__file__).resolve().parent.parent / "games" / "tiny"
SIDE_READS = Path(__file__).resolve().parent / "data" / "odds" / "tiny_side_reads.wcx"


def _shape(text: str, scope=(), names=None):
    """The shape of `text`, an aggregate over `u` in a function of a location `h`, a side `a` and a
    unit `v`: (kind, the location's name, the side's name, the side test's source), or None."""
    decl = parse_text(PREFIX + text, "t.wcx").decls[0]
    assert isinstance(decl.body, ast.Comprehension)
    found = side_filter_shape(decl.body, set(scope), names or {})
    if found is None:
        return None
    kind, h, x, span = found
    assert isinstance(h, ast.Name) and isinstance(x, ast.Name)
    return kind, h.id, x.id, (PREFIX + text)[span.column - 1:span.end_column - 1]


# (the aggregate, (kind, the location's name, the side's name, the side test))
TAKEN = [
    ("count(u for u in units_at(h) where is_enemy(u.side, a))", ("enemy of", "h", "a", "is_enemy(u.side, a)")),
    ("count(u for u in units_at(h) where is_enemy(a, u.side))", ("enemy from", "h", "a", "is_enemy(a, u.side)")),
    ("count(u for u in units_at(h) where u.side == a)", ("==", "h", "a", "u.side == a")),
    ("count(u for u in units_at(h) where a == u.side)", ("==", "h", "a", "a == u.side")),
    ("count(u for u in units_at(h) where u.side != a)", ("!=", "h", "a", "u.side != a")),
    # the first test of a conjunction: a unit failing it is skipped before anything else of it is read
    ("list(u for u in units_at(h) where is_enemy(u.side, a) and u.loc != none)",
     ("enemy of", "h", "a", "is_enemy(u.side, a)")),
    ("sum(u.steps for u in units_at(h) where u.side == a and u.steps > 1 and u.loc != none)",
     ("==", "h", "a", "u.side == a")),
    # any name for the side, a constant included: it is read once, not once a unit
    ("count(u for u in units_at(h) where is_enemy(u.side, active))",
     ("enemy of", "h", "active", "is_enemy(u.side, active)")),
]


@pytest.mark.parametrize("text, want", TAKEN, ids=[t for t, _ in TAKEN])
def test_the_shapes_the_side_filter_takes(text, want):
    assert _shape(text) == want


LEFT = [
    # not the units at one location
    "count(u for u in units_of(a) where is_enemy(u.side, a))",
    "count(u for u in all_units() where u.side == a)",
    # no side test at all, or not first: the units before it would be read one by one
    "count(u for u in units_at(h))",
    "count(u for u in units_at(h) where u.loc != none and is_enemy(u.side, a))",
    "count(u for u in units_at(h) where u.steps > 1)",
    # a side test that is not the whole of the first condition
    "count(u for u in units_at(h) where is_enemy(u.side, a) or u.steps > 1)",
    "count(u for u in units_at(h) where not is_enemy(u.side, a))",
    "count(u for u in units_at(h) where u.side < a)",
    # a side that is not a name (or is the unit itself): it may differ from one unit to the next
    "count(u for u in units_at(h) where u.side == v.side)",
    "count(u for u in units_at(h) where is_enemy(u.side, u.side))",
    "count(u for u in units_at(h) where u.side == u)",
    # another unit's side than the loop's
    "count(u for u in units_at(h) where is_enemy(v.side, a))",
    "count(u for u in units_at(h) where v.side == a)",
]


@pytest.mark.parametrize("text", LEFT)
def test_the_shapes_the_side_filter_leaves_to_the_ordinary_reads(text):
    assert _shape(text) is None


def test_a_name_the_rules_give_to_units_at_or_is_enemy_is_not_the_built_in():
    text = "count(u for u in units_at(h) where is_enemy(u.side, a))"
    assert _shape(text) is not None
    assert _shape(text, scope={"units_at"}) is None
    assert _shape(text, scope={"is_enemy"}) is None
    assert _shape(text, names={"units_at": object()}) is None
    assert _shape(text, names={"is_enemy": object()}) is None


@pytest.fixture(scope="module")
def aa():
    # five powers in two alliances (§2): an enemy is not just another side
    return Engine(load_game("axis-allies-1941", tests=False))


@pytest.mark.parametrize("kind, x, passing", [
    ("enemy of", "germany", {"soviet_union", "united_kingdom", "united_states"}),
    ("enemy from", "united_states", {"germany", "japan"}),
    ("==", "japan", {"japan"}),
    ("!=", "germany", {"soviet_union", "united_kingdom", "japan", "united_states"}),
])
def test_the_sides_each_test_lets_through(aa, monkeypatch, kind, x, passing):
    """What a side filter reads: the units at h of the sides passing its test against x, by the
    game's alliances, every declared side known (a unit of another side there is read as usual)."""
    seen = []
    monkeypatch.setattr(readlog, "side_filtered", lambda state, h, names, known: seen.append((h, names, known)) or "read")
    ctx = Context(aa, aa.new_game("world_1941", 1))
    found = SideFilter(kind, None)
    assert found(ctx, "germany_area", aa.entities[x]) == "read"
    assert found(ctx, "karelia", aa.entities[x]) == "read"  # the sides found once per x
    all_sides = {s.name for s in aa.side_entities}
    assert seen == [("germany_area", passing, all_sides), ("karelia", passing, all_sides)]
    assert found.accepted == {aa.entities[x]: passing}


def test_a_side_filter_reads_nothing_for_a_value_that_is_not_a_side(aa, monkeypatch):
    monkeypatch.setattr(readlog, "side_filtered", lambda *args: pytest.fail("read as a side"))
    ctx = Context(aa, aa.new_game("world_1941", 1))
    found = SideFilter("==", None)
    assert found(ctx, "karelia", None) is None
    assert found(ctx, "karelia", "germany") is None  # a string is no side entity


def test_a_side_filter_is_cached_in_generated_code_without_what_it_found(aa, monkeypatch):
    monkeypatch.setattr(readlog, "side_filtered", lambda *args: "read")
    found = SideFilter("enemy of", None)
    found(Context(aa, aa.new_game("world_1941", 1)), "karelia", aa.entities["germany"])
    again = pickle.loads(pickle.dumps(found))
    assert (again.kind, again.accepted, again.known) == ("enemy of", {}, None)


def _battles(scene, seeds, sampled: bool):
    """The scene's combat played once per seed from its start (as `odds.monte_carlo` plays it):
    with the Monte Carlo oracle (`Sampler`: an oracle, on plain states) or without any (play)."""
    import random

    from warcodex.interpreter import odds

    ctx = scene.run.ctx
    start = ctx.state.snapshot()
    combat = scene.combat()
    ends = []
    for seed in seeds:
        state = start.snapshot()
        state.rng = random.Random(seed)
        ctx.install(state)
        ctx.steps = 0
        ctx.chance = odds.Sampler(ctx) if sampled else None
        try:
            combat()
        finally:
            ctx.chance = None
        ends.append(odds.leaf_summary(scene, ctx.state))
    ctx.install(start)
    return ends


@pytest.mark.parametrize("name", ["odds_side_enemy_arrives", "odds_side_friend_leaves"])
def test_both_evaluators_filter_by_side_under_exact_odds_only_and_the_same_stacks(name, monkeypatch, tmp_path):
    """The side filter's guard is the same in the closure compiler and in the odds engine's
    generated code (`SideFilter`: an oracle and a recording view): under exact odds both read the
    same stacks by side, in the same order, and give the same distribution; in play (no oracle)
    and in Monte Carlo (an oracle, no recording view) neither filters, and both play the same
    battles."""
    from warcodex.interpreter import odds

    monkeypatch.setenv("WARCODEX_CACHE_DIR", str(tmp_path))
    original, mode = readlog.side_filtered, [None]
    reads: dict = {}

    def noted(state, h, names, known):
        reads.setdefault(mode[0], []).append((h, tuple(sorted(names))))
        return original(state, h, names, known)

    monkeypatch.setattr(readlog, "side_filtered", noted)
    found = {}
    for evaluator in ("reference", "odds"):
        scene = odds.load_scene(TINY_GAME, SIDE_READS, name, evaluator=evaluator)
        if evaluator == "odds":  # the casualty loop is generated code, with the filter in it
            assert "IS_VIEW(ctx.state)" in scene.run.engine.generated.show("odds_side_take")
        mode[0] = (evaluator, "played")
        played = _battles(scene, range(1, 9), sampled=False)
        mode[0] = (evaluator, "sampled")
        sampled = _battles(scene, range(1, 9), sampled=True)
        mode[0] = (evaluator, "exact")
        exact = odds.exact(scene)
        found[evaluator] = (played, sampled, exact.distribution)
    assert found["reference"][:2] == found["odds"][:2]
    start = odds.leaf_summary(scene, scene.run.ctx.state)
    assert all(end != start for end in found["odds"][0] + found["odds"][1])  # each battle was fought
    assert found["reference"][2].keys() == found["odds"][2].keys()
    for k, p in found["reference"][2].items():
        assert found["odds"][2][k] == pytest.approx(p, abs=1e-15)
    assert set(reads) == {("reference", "exact"), ("odds", "exact")}  # never in play nor in Monte Carlo
    assert reads[("reference", "exact")] == reads[("odds", "exact")]
    assert reads[("odds", "exact")][0] == ("0905", ("soviet",))  # the enemies of axis at the target hex
