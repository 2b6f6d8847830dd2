"""Exact odds on the exact odds engine (`Engine(evaluator="odds")`, docs/odds.md): the rules that
roll no dice as generated code, the casualty loops over a pending count of hits included, the
others on the closure compiler. The audit: every bundled game's odds scenes and the odds tests'
scenes give the same distribution of results and of rounds on it as on the closure compiler alone
(the reference), to 1e-12, with the same replays (the oracle's shortcuts took the same paths)."""

from __future__ import annotations

from pathlib import Path

import pytest

from warcodex.dsl import ast
from warcodex.interpreter import odds
from warcodex.interpreter.chance import NotEnumerable

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
DATA = ROOT / "tests" / "data" / "odds"
AA = GAMES / "axis-allies-1941"
TINY = GAMES / "tiny"


def _tests(game, file, *names):
    """Scenes that are named tests of one file."""
    return [(game, file, name) for name in names]


# (game, scene file, test name): every scene of a game's scenes/ folder and of tests/data/odds
# (the 14 against 13 units, about 6 s for both evaluators, is the slow case)
SCENES = [
    (AA, AA / "scenes" / "small_battle.wcx", None),
    *_tests(AA, DATA / "aa_small.wcx", "odds_small", "odds_medium", "odds_we14", "odds_small_retreat_round2",
            "odds_small_retreat_when_hurt", "odds_medium_retreat_round3"),
    (TINY, TINY / "scenes" / "town_attack.wcx", None),
    (TINY, DATA / "tiny_lazy_hits.wcx", None),
    *_tests(TINY, DATA / "tiny_lazy_after.wcx", "odds_lazy_after", "odds_lazy_tail"),
    *_tests(TINY, DATA / "tiny_reads_memo.wcx", "odds_reads_memo_read", "odds_reads_memo_unread"),
    *_tests(TINY, DATA / "tiny_side_reads.wcx", "odds_side_enemy_arrives", "odds_side_friend_leaves"),
    (GAMES / "stalingrad42", GAMES / "stalingrad42" / "scenes" / "infantry_attack.wcx", None),
    (GAMES / "stalingrad42", GAMES / "stalingrad42" / "scenes" / "determined_defense.wcx", None),
    (GAMES / "stargard-solstice", GAMES / "stargard-solstice" / "scenes" / "hq_stack_attack.wcx", None),
    (GAMES / "stargard-solstice", DATA / "stargard_2to1.wcx", None),
    (GAMES / "no-retreat", GAMES / "no-retreat" / "scenes" / "berlin_battle.wcx", None),
    pytest.param(AA, AA / "scenes" / "land_battle.wcx", None, marks=pytest.mark.slow),
]


def _ids(v):
    return v if isinstance(v, str) else getattr(v, "stem", None) or "first"


def test_the_audit_covers_every_scene_of_the_bundled_games_and_of_the_odds_tests():
    listed = {(Path(p.values[1] if hasattr(p, "values") else p[1]), p.values[2] if hasattr(p, "values") else p[2])
              for p in SCENES}
    files = {f for f, _ in listed}
    assert set(GAMES.glob("*/scenes/*.wcx")) <= files
    # every scene of the odds tests but the blind draw (not enumerable: below) and the one that
    # is not a combat (an error)
    assert set(DATA.glob("*.wcx")) - {DATA / "tiny_blind.wcx"} <= files


@pytest.fixture(scope="module")
def odds_cache(tmp_path_factory):
    """One cache folder of generated code for the module: each game's odds engine is generated once."""
    return tmp_path_factory.mktemp("odds-cache")


def _cache(folder, monkeypatch):
    monkeypatch.setenv("WARCODEX_CACHE_DIR", str(folder))


def _scenes(game, file, name):
    """The scene on the closure compiler and on the odds engine (the game checked once)."""
    from warcodex.dsl.checker import check_path

    checked, diags = check_path(game, tests=True, scenes=[file])
    assert not diags.errors, [d.render() for d in diags.errors]
    test = next(t for t in checked.tests.values() if t.header.span.file == str(file) and (name is None or t.name == name))
    return [odds.scene_from_test(checked, test, "cheapest", evaluator) for evaluator in ("reference", "odds")]


@pytest.mark.parametrize("game, file, name", SCENES, ids=_ids)
def test_the_odds_engine_gives_the_closure_compilers_distribution(game, file, name, odds_cache, monkeypatch):
    _cache(odds_cache, monkeypatch)
    on_closures, scene = _scenes(game, file, name)
    reference = odds.exact(on_closures)
    assert scene.run.engine.evaluator == "odds"
    got = odds.exact(scene)
    assert got.distribution.keys() == reference.distribution.keys()
    for k, p in reference.distribution.items():
        assert got.distribution[k] == pytest.approx(p, abs=1e-12), k
    assert got.rounds.keys() == reference.rounds.keys()
    assert got.rounds == pytest.approx(reference.rounds, abs=1e-12)
    assert got.outcomes == pytest.approx(reference.outcomes, abs=1e-12)
    # the same work: the oracle's shortcuts (tail leaves, lazy count loops) met at the same places
    assert got.work == reference.work and got.replays_by == reference.replays_by


@pytest.mark.parametrize("game, file, name", [(TINY, DATA / "tiny_lazy_hits.wcx", None),
                                              (TINY, DATA / "tiny_lazy_after.wcx", "odds_lazy_after"),
                                              (TINY, DATA / "tiny_lazy_after.wcx", "odds_lazy_tail"),
                                              (AA, DATA / "aa_small.wcx", "odds_small")], ids=_ids)
def test_the_odds_engine_without_shortcuts_gives_the_same_distribution(game, file, name, odds_cache, monkeypatch):
    """Every branch replayed (no lazy count loop, no tail leaf): the generated casualty loops run
    as plain loops, the count observed where they read it."""
    _cache(odds_cache, monkeypatch)
    want = odds.exact(odds.load_scene(game, file, name, "cheapest", evaluator="odds"))
    got = odds.exact(odds.load_scene(game, file, name, "cheapest", evaluator="odds"), shortcuts=False)
    assert got.distribution.keys() == want.distribution.keys()
    for k, p in want.distribution.items():
        assert got.distribution[k] == pytest.approx(p, abs=1e-12), k


def test_the_casualty_loops_are_generated_code_and_the_fire_procedures_the_closure_compiler(odds_cache, monkeypatch):
    """Which rules the odds engine generates: those that roll no dice (A&A's `defender_takes`,
    `attacker_takes` and the functions they call); a procedure that rolls (`attacker_fire`) stays
    on the closure compiler, where the grouped counts and the memo of its effects are."""
    _cache(odds_cache, monkeypatch)
    scene = odds.load_scene(AA, DATA / "aa_small.wcx", "odds_small", evaluator="odds")
    engine = scene.run.engine
    for name in ("defender_takes", "attacker_takes", "remove_defender_casualties", "press_or_retreat"):
        assert hasattr(engine.procedures[name], "generated"), name
    for name in ("hit_targets", "attackers", "defenders"):
        assert hasattr(engine.functions[name], "generated"), name
    for name in ("attacker_fire", "defender_fire", "combat_round", "fight", "submarine_step"):
        assert not hasattr(engine.procedures[name], "generated"), name
    # the casualty loop hands itself to the oracle's count loop
    source = engine.generated.show("defender_takes")
    assert "ctx.chance.count_loop(" in source
    # its count is observed nowhere else: not forced on entry
    assert "if type(l_n) is PENDING: l_n = ctx.chance.force(l_n)" not in source.split("traced = ctx.tracing")[0]


def test_the_odds_engine_keeps_its_generated_code_apart_from_plays(tmp_path, monkeypatch):
    """Its own entries in the cache of generated code: another order of units, other code."""
    from warcodex.dsl.checker import check_path
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.generated import _cache_entry

    _cache(tmp_path, monkeypatch)
    game, _ = check_path(TINY)
    play = Engine(game, evaluator="generated")
    exact = Engine(game, evaluator="odds")
    assert _cache_entry(play) != _cache_entry(exact, odds=True)
    assert _cache_entry(play).exists() and _cache_entry(exact, odds=True).exists()
    again = Engine(game, evaluator="odds")
    assert again.generated.from_cache and not Engine(game, evaluator="generated").generated.odds


def test_a_blind_draw_is_not_enumerable_on_the_odds_engine_either(odds_cache, monkeypatch):
    _cache(odds_cache, monkeypatch)
    with pytest.raises(NotEnumerable):
        odds.exact(odds.load_scene(TINY, DATA / "tiny_blind.wcx", None, evaluator="odds"))


def test_the_tail_places_of_a_procedure_body():
    """The tail position in generated code: a casualty loop followed by another statement must
    let it run (no outcome given as a leaf of the run), the rule `block` keeps in the closures
    (tests/data/odds/tiny_lazy_after.wcx plays it)."""
    from warcodex.interpreter.codegen import tail_statements
    from warcodex.dsl.parser import parse_text
    from warcodex.dsl.checker import check_path
    from warcodex.interpreter.engine import Engine

    game, _ = check_path(TINY)
    engine = Engine(game, evaluator="reference")
    body = parse_text("procedure p(h: location, n: int) {\n"
                      "  for i in range(1, n) { log \"hit\" }\n"
                      "  if n > 0 { step \"x\" { for j in range(1, n) { log \"again\" } } } else { log \"none\" }\n"
                      "}", "t.wcx").decls[0].body
    tails = tail_statements(body, engine)
    first, second = body
    assert id(first) not in tails and id(second) in tails
    inner_step = second.body[0]
    assert id(inner_step) in tails and id(inner_step.body[0]) in tails
    assert id(second.orelse[0]) not in tails  # a `log` is not a statement that passes the tail on


@pytest.mark.parametrize("path, scenario, seed, actions", [(TINY, "meeting", 1, None), (AA, "world_1941", 1, 30)],
                         ids=["tiny", "axis-allies-1941"])
def test_the_odds_engine_plays_the_same_games_as_the_reference(path, scenario, seed, actions, odds_cache, monkeypatch):
    """Outside the oracle (play, Monte Carlo) the odds engine's generated procedures and caches
    play the closure compiler's games: the same logs, explanations included (test_codegen)."""
    from test_codegen import _same_game

    from warcodex.dsl.checker import check_path
    from warcodex.interpreter.engine import Engine

    _cache(odds_cache, monkeypatch)
    game, _ = check_path(path)
    _same_game(Engine(game, evaluator="reference"), Engine(game, evaluator="odds"), scenario, seed, actions)


def test_a_casualty_loop_before_more_statements_and_one_whose_names_are_read_after_it(odds_cache, monkeypatch):
    """tests/data/odds/tiny_lazy_after.wcx by hand. Two panzers hit on 1-3, h ~ Bin(2, 1/2), one
    rifle lost per hit; with no rifle left the lead panzer is exhausted (a statement after the
    casualty loop: it must run). The surviving rifles answer on 1-3, b hits, one panzer lost per
    hit; two hits or more with one panzer left at the last one exhaust the lead rifle (`pool`,
    bound in the casualty loop, read after it). h = 2 (1/4): both rifles and a panzer; h = 1
    (1/2): a rifle, and the other hits a panzer half the time; h = 0 (1/4): b ~ Bin(2, 1/2), b = 2
    (1/16 in all): both panzers and a rifle. The answer's loop runs in its procedure (not handed
    to the count loop), on both engines (the closure compiler lost `pool` when the count loop
    served its iterations from its cache: KeyError)."""
    _cache(odds_cache, monkeypatch)
    want = {
        "attacker: Panzer division eliminated; defender: 2 x Rifle division eliminated": 1 / 4,
        "attacker: Panzer division eliminated; defender: Rifle division eliminated": 1 / 4,
        "defender: Rifle division eliminated": 1 / 4,
        "no unit affected": 1 / 16,
        "attacker: Panzer division eliminated": 1 / 8,
        "attacker: 2 x Panzer division eliminated; defender: Rifle division eliminated": 1 / 16,
    }
    for evaluator in ("reference", "odds"):
        sc = odds.load_scene(TINY, DATA / "tiny_lazy_after.wcx", "odds_lazy_after", "cheapest", evaluator=evaluator)
        for shortcuts in (True, False):
            result = odds.exact(sc, shortcuts=shortcuts)
            by_words = {odds.effect_words(sc, k): p for k, p in result.distribution.items()}
            assert by_words == pytest.approx(want, abs=1e-15), (evaluator, shortcuts)
    source = sc.run.engine.generated.show("odds_hits_noted")
    assert "count_loop(" not in source and "count_loop(" in sc.run.engine.generated.show("odds_hits_then_rally")


def test_the_command_gives_the_same_odds_and_attack_on_either_engine(odds_cache, monkeypatch):
    """`warcodex odds --evaluator reference` (the closure compiler alone) and the default (the odds
    engine): the same JSON, the CRT attack's report (read off the rules' traces) included, but
    for the time taken."""
    import json

    from click.testing import CliRunner

    from warcodex.cli import cli

    _cache(odds_cache, monkeypatch)
    runner = CliRunner()
    scene = str(TINY / "scenes" / "town_attack.wcx")
    outputs = []
    for extra in ([], ["--evaluator", "reference"]):
        res = runner.invoke(cli, ["odds", str(TINY), "--scene", scene, "--json", *extra])
        assert res.exit_code == 0, res.output
        data = json.loads(res.output)
        data.pop("seconds")
        outputs.append(data)
    assert outputs[0]["attack"] is not None and outputs[0]["method"] == "exact"
    assert outputs[0] == outputs[1]
    res = runner.invoke(cli, ["odds", str(TINY), "--scene", scene, "--evaluator", "generated"])
    assert res.exit_code == 2 and "'generated' is not one of 'odds', 'reference'" in res.output


def test_a_count_passed_on_through_generated_code_to_a_casualty_loop_gives_its_outcomes_as_leaves(odds_cache,
                                                                                                   monkeypatch):
    """tests/data/odds/tiny_lazy_after.wcx `odds_lazy_tail`: two panzers hit on 1-3, h ~ Bin(2,
    1/2), the count passed as it is through `odds_pass_on` (generated) to the casualty loop of
    `odds_take` (generated), the last thing of both: 0, 1 or 2 rifles lost, with 1/4, 1/2, 1/4,
    each a leaf of the run (one replay of the volley, none per count of hits)."""
    _cache(odds_cache, monkeypatch)
    for evaluator in ("reference", "odds"):
        sc = odds.load_scene(TINY, DATA / "tiny_lazy_after.wcx", "odds_lazy_tail", "cheapest", evaluator=evaluator)
        result = odds.exact(sc)
        by_words = {odds.effect_words(sc, k): p for k, p in result.distribution.items()}
        assert by_words == pytest.approx({"no unit affected": 1 / 4, "defender: Rifle division eliminated": 1 / 2,
                                          "defender: 2 x Rifle division eliminated": 1 / 4}, abs=1e-15), evaluator
        # one run of the volley gives the three leaves; the scene's line (not a tail) is run again for each
        assert (result.replays_by["combat"], result.replays_by["odds_fire_last"]) == (4, 1), evaluator
    engine = sc.run.engine
    assert hasattr(engine.procedures["odds_pass_on"], "generated") and hasattr(engine.procedures["odds_take"], "generated")
    assert "ctx.chance.tail_next = _tail" in engine.generated.show("odds_pass_on")
