"""Smoke test of the benchmark suite (bench/): the hand-written baseline of Tiny Front's movement
and combat odds gives exactly the engine's results. No timings are asserted here."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import baseline as bl  # noqa: E402
from bench import fixtures as fx  # noqa: E402


def _assert_identical(report: dict) -> None:
    assert report["mismatches"] == [], report["mismatches"][:3]
    assert report["all_identical"]


def test_baseline_equals_engine_on_small_boards() -> None:
    report = fx.equivalence(20, seed=11, n_units=10, n_combats=100)
    for key in ("movement", "fuzz_movement"):
        mv = report[key]
        _assert_identical(mv)
        n = mv["cases"]
        assert n == 10
        assert mv["identical_sets"] == mv["identical_costs"] == mv["identical_must_stop"] == n
        assert mv["identical_prev"] == mv["cold_equals_warm"] == n
        assert mv["hexes_compared"] > 0
    for key in ("combat", "fuzz_combat"):
        cb = report[key]
        _assert_identical(cb)
        assert cb["cases"] == 100
        assert cb["identical_columns"] == cb["identical_results"] == 100


def test_baseline_equals_engine_on_the_tiny_map() -> None:
    """Every scenario unit on the real Tiny Front map, in fair weather and in mud."""
    w = fx.make_world(None, seed=1, keep_scenario_units=True)
    refs = [fx.UnitRef(uid) for uid, u in w.state.units.items() if u.loc is not None]
    assert len(refs) == 8
    for name in ("fair", "mud"):
        fx.set_weather(w.engine, w.state, name)
        for ref in refs:
            assert fx.compare_reachable(w, ref) is None


def test_baseline_equals_engine_on_a_massed_attack() -> None:
    """Six panzers against one hex (the attack cap of 30, §7.2), in every weather, with and
    without a disrupted defender."""
    w = fx.make_world(12, seed=3)
    target = "0606"
    defender = w.place("rifle", "soviet", target)
    attackers = tuple(w.place("panzer", "axis", n) for n in w.engine.board.neighbors(target))
    assert len(attackers) == 6
    assert w.engine.quantities["total_attack"](w.ctx, (attackers, target), None) == 30
    for disrupted in (False, True):
        w.engine.set_marker(w.ctx, defender, w.engine.entities["disrupted"], disrupted, None)
        for name in fx.WEATHERS:
            fx.set_weather(w.engine, w.state, name)
            for roll in range(1, 7):
                c = fx.Combat(attackers, target, roll)
                assert fx.engine_combat(w, c) == fx.baseline_combat(w, c, name)


def test_baseline_worked_examples() -> None:
    """The rulebook's own examples (§5.1, §7.3, §7.4), so the baseline is not only self-consistent."""
    # §7.3: 13 against 4 is 3-1, 7 against 2 is 3-1, 13 against 8 is 1-1, 5 against 6 is 1-2
    assert [bl.odds_rank(a, d) for a, d in ((13, 4), (7, 2), (13, 8), (5, 6))] == [2, 2, 0, -1]
    # beyond the table: 1-3 not allowed, 6-1 on the 5-1 column, 7-1 automatic DE
    assert not bl.allowed(-2) and bl.allowed(-1)
    assert bl.crt_result(5, 2) == bl.crt_result(4, 2) == ("DR2",)
    assert bl.crt_result(6, 1) == ("DE",)
    # §7.4 example: 11th Panzer (8) and an infantry division (5) attack a rifle division (4) in a
    # Town, fair weather, no river: 13:8 is 1-1, armor and elite shifts give 3-1; a 4 gives DR2
    w = fx.make_world(None, seed=1)  # the Tiny Front map, scenario units removed
    target = "0805"
    assert w.engine.board.terrain(target) == "town"
    w.place("rifle", "soviet", target)
    n1, n2 = w.engine.board.neighbors(target)[:2]
    assert not w.engine.board.edge(n1, target) and not w.engine.board.edge(n2, target)
    attackers = (w.place("panzer", "axis", n1), w.place("infantry", "axis", n2))
    c = fx.Combat(attackers, target, 4)
    assert fx.engine_combat(w, c) == fx.baseline_combat(w, c, "fair") == (2, ("DR2",))


def _selfplay_bench():
    import importlib.util

    spec = importlib.util.spec_from_file_location("selfplay_bench", ROOT / "bench" / "selfplay.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_selfplay_records_the_score_of_games_without_a_vp_variable() -> None:
    """bench/selfplay.py records a game's score at its end from the facts and the evaluation, not
    from a variable called `vp` that No Retreat! and Axis & Allies do not have (the other bundled
    games' scores: `python bench/selfplay.py GAME`, and the Tiny Front game below)."""
    from warcodex.interpreter.play import agents_for, start

    bench = _selfplay_bench()
    at_setup = {}
    for game in ("no-retreat", "axis-allies-1941"):
        engine = bench._engine(game)
        scenario = next(iter(engine.game.scenarios))
        state = start(engine, scenario, 1, agents_for(engine, ["random"], 1), trace=False).state
        at_setup[game] = bench.final_scores(engine, scenario, state)
        assert at_setup[game] and all(isinstance(v, (int, float)) for v in at_setup[game].values()), game
    # No Retreat!: VP hexes, a rule's count (§VP): the Germans start holding none in the USSR
    nr = at_setup["no-retreat"]
    assert nr["VP hexes held:axis"] == 0 and nr["VP hexes held:soviet"] > 0
    assert "production (IPC):germany" in at_setup["axis-allies-1941"]


def test_selfplay_reports_the_scores_of_a_whole_game() -> None:
    bench = _selfplay_bench()
    r = bench.play_one("tiny", "meeting", 3, True)
    assert r["ok"] and r["completed"] and {"vp:axis", "vp:soviet"} <= set(r["scores"])
    report = bench.summarise([r], ["meeting"])["scenarios"]["meeting"]
    vp = report["scores"]["vp:axis"]
    assert vp["min"] == vp["median"] == vp["max"] == r["scores"]["vp:axis"]
