"""Battle odds from the rules (`warcodex odds`, interpreter/odds.py, docs/odds.md).

The exact answers are checked against an independent computation written here, a textbook
Markov chain over (attackers left, defenders left) with binomial hits, which knows nothing of the
engine (the test oracle), and against the real engine playing the battle with dice."""

from __future__ import annotations

import json
import math
import random
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from warcodex.dsl import ast
from warcodex.dsl.checker import check_path
from warcodex.interpreter import odds
from warcodex.interpreter.chance import Pending, dice_distribution, poisson_binomial
from warcodex.interpreter.rule_tests import RuleTestRunner, _TestRun
from warcodex.cli import cli

ROOT = Path(__file__).resolve().parent.parent
AA = ROOT / "games" / "axis-allies-1941"
TINY = ROOT / "games" / "tiny"
SCENES = ROOT / "tests" / "data" / "odds" / "aa_small.wcx"


# ---------------------------------------------------------------- the test oracle
def textbook_land_battle(attack: list[int], defense: list[int]) -> tuple[float, float, float]:
    """(attacker wins, defender wins, mutual destruction) of an A&A land battle, no retreat, both
    sides losing their units in list order (cheapest first): each round the `a` surviving
    attackers (the last `a` of the list) roll one d6 each, hitting on <= their attack value, and
    the `d` defenders fire back (the defender's casualties fire too): a Markov chain over (a, d)
    whose self-loop (no hit on either side) is summed as a geometric series."""

    def hits(values):
        dist = [1.0]
        for v in values:
            p = v / 6
            dist = [(dist[k] if k < len(dist) else 0.0) * (1 - p) + (dist[k - 1] * p if k else 0.0)
                     for k in range(len(dist) + 1)]
        return dist

    @lru_cache(None)
    def value(a: int, d: int):
        if a == 0 and d == 0:
            return (0.0, 0.0, 1.0)
        if d == 0:
            return (1.0, 0.0, 0.0)
        if a == 0:
            return (0.0, 1.0, 0.0)
        ha, hd = hits(attack[len(attack) - a:]), hits(defense[len(defense) - d:])
        stay = ha[0] * hd[0]
        acc = [0.0, 0.0, 0.0]
        for i, p in enumerate(ha):
            for j, q in enumerate(hd):
                if i or j:
                    nxt = value(max(a - j, 0), max(d - i, 0))
                    for k in range(3):
                        acc[k] += p * q * nxt[k]
        return tuple(x / (1 - stay) for x in acc)

    return value(len(attack), len(defense))


def test_the_oracle_reproduces_the_public_calculator():
    # the battle: 8 inf (1) + 3 tanks (3) + 2 fighters (3) + bomber (4) against 9 inf (2)
    # + 2 tanks (3) + 2 fighters (4): 0.467 / 0.502 / 0.031 by a public calculator
    a, d, m = textbook_land_battle([1] * 8 + [3] * 3 + [3] * 2 + [4], [2] * 9 + [3] * 2 + [4] * 2)
    assert (round(a, 3), round(d, 3), round(m, 3)) == (0.467, 0.502, 0.031)


# ---------------------------------------------------------------- chance points
def test_dice_distributions():
    assert dice_distribution(ast.Dice(count=1, sides=6)) == pytest.approx({f: 1 / 6 for f in range(1, 7)})
    two = dice_distribution(ast.Dice(count=2, sides=6))
    assert two[7] == pytest.approx(6 / 36) and two[2] == pytest.approx(1 / 36) and sum(two.values()) == pytest.approx(1)
    best = dice_distribution(ast.Dice(count=2, sides=6, keep=1, keep_highest=True))
    assert best[6] == pytest.approx(11 / 36) and best[1] == pytest.approx(1 / 36)


def test_poisson_binomial_and_pending_sums():
    assert poisson_binomial([0.5, 0.5]) == pytest.approx([0.25, 0.5, 0.25])
    assert poisson_binomial([1 / 6, 3 / 6]) == pytest.approx([5 / 12, 1 / 2, 1 / 12])
    a = Pending(poisson_binomial([0.5]), 0, frozenset({1}))
    b = Pending(poisson_binomial([0.5]), 0, frozenset({2}))
    assert dict(a.plus(b).outcomes()) == pytest.approx({0: 0.25, 1: 0.5, 2: 0.25})
    assert a.plus(3).outcomes() == [(3, 0.5), (4, 0.5)]


# ---------------------------------------------------------------- exact odds of A&A battles
@pytest.fixture(scope="module")
def aa_scenes():
    game, diags = check_path(AA, tests=True, scenes=[SCENES])
    assert not diags.errors, [d.render() for d in diags.errors]
    return game


def scene(game, name, casualties="cheapest", evaluator="reference"):
    return odds.scene_from_test(game, game.tests[name], casualties, evaluator)


@pytest.mark.parametrize("name, attack, defense, dearest", [
    ("odds_small", [1, 1, 3], [2, 2], "tank"),
    ("odds_medium", [1, 1, 1, 3, 3], [2, 2, 2, 3], "fighter"),
])
def test_exact_odds_equal_the_textbook_chain(aa_scenes, name, attack, defense, dearest):
    result = odds.exact(scene(aa_scenes, name))
    want = textbook_land_battle(attack, defense)
    got = result.outcomes
    assert result.method == "exact"
    assert got["attacker wins"] == pytest.approx(want[0], abs=1e-9)
    assert got["defender wins"] == pytest.approx(want[1], abs=1e-9)
    assert got["mutual destruction"] == pytest.approx(want[2], abs=1e-9)
    assert got["both remain"] < 1e-12  # only if 100 rounds all missed (the rules' round limit)
    assert sum(result.rounds.values()) == pytest.approx(1)
    # the attacker's most expensive unit survives exactly when the attacker wins
    assert result.survivors["attacker"][dearest] == pytest.approx(want[0], abs=1e-9)


def test_exact_odds_agree_with_the_engine_playing_with_dice(aa_scenes):
    """The real engine (generated code, random dice, no oracle) plays the battle 600 times: every
    outcome's frequency is within 4.5 standard errors of the exact probability."""
    exact = odds.exact(scene(aa_scenes, "odds_small")).outcomes
    sim = scene(aa_scenes, "odds_small", evaluator=None)
    start = sim.run.ctx.state.snapshot()
    combat = sim.combat()
    counts = dict.fromkeys(odds.OUTCOMES, 0)
    n = 600
    for seed in range(n):
        state = start.snapshot()
        state.rng = random.Random(seed)
        sim.run.ctx.install(state)
        combat()
        one = odds.summarise(sim, {odds.leaf_summary(sim, sim.run.ctx.state): 1.0}, {}, "mc", 0.0)
        for k, p in one.outcomes.items():
            counts[k] += p
    for k, p in exact.items():
        se = math.sqrt(max(p * (1 - p), 1e-4) / n)
        assert abs(counts[k] / n - p) < 4.5 * se, (k, counts[k] / n, p)


def test_we14_through_odds(aa_scenes):
    """WE-14: two tanks and a fighter (3 each) against three infantry, Germany retreating after
    the first round: the example's result (two infantry eliminated, no German loss) is one branch,
    of probability P(2 hits of 3 at 1/2) x P(no hit of 3 infantry at 2) = 3/8 x (2/3)^3."""
    result = odds.exact(scene(aa_scenes, "odds_we14"))
    text = dict((t, p) for p, t in result.effects)
    assert text["attacker: 2 x Tank to eastern_europe; defender: 2 x Infantry eliminated"] == pytest.approx(3 / 8 * (2 / 3) ** 3)
    assert result.rounds == pytest.approx({1: 1.0})
    assert result.survivors["defender"]["infantry"] == pytest.approx(3 * 0.5)  # 1.5 hits expected


def test_a_scene_must_end_with_its_combat(aa_scenes):
    with pytest.raises(odds.SceneError) as exc:
        scene(aa_scenes, "odds_not_a_combat")
    assert "last line" in exc.value.message and exc.value.span.line > 1


# ---------------------------------------------------------------- a CRT: the Tiny Front
def test_tiny_crt_attack_is_one_die_through_the_crt(tmp_path):
    """§7.3 example at 3-1: the column reads DR1 DR1 DR2 DR2 DE DE (tables.wcx, provisional)."""
    sc = odds.load_scene(TINY, TINY / "scenes" / "town_attack.wcx")
    result = odds.exact(sc)
    effects = {t: p for p, t in result.effects}
    assert effects == pytest.approx({
        "attacker: 11th Panzer to 0805; defender: Rifle division eliminated": 2 / 6,  # DE
        "attacker: 11th Panzer to 0805; defender: Rifle division disrupted, Rifle division to 1005": 2 / 6,  # DR2
        "attacker: 11th Panzer to 0805; defender: Rifle division disrupted, Rifle division to 0905": 2 / 6,  # DR1
    })
    assert result.outcomes["attacker wins"] == pytest.approx(1 / 3)
    assert any("table crt" in p for p in result.provisional)


# ---------------------------------------------------------------- the command
def test_odds_command_json_and_errors(tmp_path):
    runner = CliRunner()
    res = runner.invoke(cli, ["odds", str(TINY), "--scene", str(TINY / "scenes" / "town_attack.wcx"), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["method"] == "exact" and data["outcomes"]["attacker wins"] == pytest.approx(1 / 3)
    bad = tmp_path / "bad.wcx"
    bad.write_text('test odds_bad "x" §7.3 {\n  unit r: rifle soviet at "0805"\n  expect r.loc == "0805"\n}\n')
    res = runner.invoke(cli, ["odds", str(TINY), "--scene", str(bad)])
    assert res.exit_code == 1


# ---------------------------------------------------------------- CRT games: one die, every face
CRT_SCENES = [
    ("tiny", "town_attack.wcx"),
    ("stalingrad42", "infantry_attack.wcx"),
    ("stargard-solstice", "hq_stack_attack.wcx"),
    ("no-retreat", "berlin_battle.wcx"),
]


@pytest.mark.parametrize("game, file", CRT_SCENES)
def test_crt_odds_equal_the_combat_played_with_each_face_of_the_die(game, file):
    """A CRT combat rolls one die: the exact distribution is the combat played with the die fixed
    to 1, 2, ... 6 (the engine with fixed dice, no oracle), each face 1/6."""
    from warcodex.interpreter.dice import FixedDice

    root = ROOT / "games" / game
    sc = odds.load_scene(root, root / "scenes" / file)
    start = sc.run.ctx.state.snapshot()
    result = odds.exact(sc)
    assert result.method == "exact" and sum(result.distribution.values()) == pytest.approx(1)
    played: dict = {}
    combat = sc.combat()
    for face in range(1, 7):
        state = start.snapshot()
        state.rng = FixedDice([face])
        sc.run.ctx.install(state)
        combat()
        assert not sc.run.ctx.state.rng.remaining  # one die, and it was rolled
        key = odds.leaf_summary(sc, sc.run.ctx.state)
        played[key] = played.get(key, 0.0) + 1 / 6
    assert result.distribution == pytest.approx(played)
    assert any(p.startswith("table ") for p in result.provisional)  # the CRT is provisional: said so


# ---------------------------------------------------------------- Monte Carlo
def test_monte_carlo_on_two_workers_meets_its_precision_and_agrees(aa_scenes):
    exact = odds.exact(scene(aa_scenes, "odds_small")).outcomes
    mc = odds.monte_carlo(scene(aa_scenes, "odds_small"), precision=0.06, workers=2, batch=60)
    assert mc.method == "monte carlo" and mc.half_width <= 0.06 and mc.battles >= 240
    for k, p in exact.items():
        assert abs(mc.outcomes[k] - p) < 2.5 * mc.half_width, (k, mc.outcomes[k], p)
    assert sum(mc.rounds.values()) == pytest.approx(1) and min(mc.rounds) >= 1


def test_auto_falls_back_to_monte_carlo_and_says_why(aa_scenes, monkeypatch):
    monkeypatch.setattr(odds, "MAX_RUNS", 5)
    result = odds.resolve(scene(aa_scenes, "odds_small"), "auto", precision=0.1, workers=1)
    assert result.method == "monte carlo" and "more than 5 branches" in result.note
    with pytest.raises(odds.NotEnumerable):
        odds.resolve(scene(aa_scenes, "odds_small"), "exact")


def test_odds_from_a_save_with_the_combat_given_as_a_call(tmp_path):
    runner = CliRunner()
    save = tmp_path / "g.save.json"
    res = runner.invoke(cli, ["play", str(TINY), "--seed", "3", "--until", "2", "--save", str(save)])
    assert res.exit_code == 0, res.output
    data = json.loads(save.read_text())
    data["state"]["active"], data["state"]["over"] = "axis", False  # the position of an Axis attack
    save.write_text(json.dumps(data))
    panzer = next(u["id"] for u in data["state"]["units"] if u["type"] == "panzer" and u["loc"])
    target = next(u["loc"] for u in data["state"]["units"] if u["side"] == "soviet" and u["loc"])
    res = runner.invoke(cli, ["odds", str(TINY), "--save", str(save), "--combat",
                              f'resolve_combat([unit_by_id({panzer})], "{target}")', "--json"])
    assert res.exit_code == 0, res.output
    result = json.loads(res.output)
    assert result["method"] == "exact" and sum(result["outcomes"].values()) == pytest.approx(1)
    assert all(round(r["probability"] * 6, 9) == round(r["probability"] * 6) for r in result["results"])  # one d6
    res = runner.invoke(cli, ["odds", str(TINY), "--save", str(save), "--combat", "resolve_combat([unit_by_id(1)]"])
    assert res.exit_code != 0
    res = runner.invoke(cli, ["odds", str(TINY), "--save", str(save)])
    assert res.exit_code != 0 and "--combat" in res.output


# ---------------------------------------------------------------- the A&A worked examples
def example_branch(game, test_name):
    """A worked example with a battle as a scene: its lines up to its first `fight`, without its
    dice. Returns (the odds, the probability of the example's own result: its lines run with its
    dice by the rule-test runner)."""
    from warcodex.interpreter.rule_tests import RuleTestRunner, _TestRun

    test = game.tests[test_name]
    body = list(test.body)
    cut = body[:next(i for i, x in enumerate(body) if isinstance(x, ast.CallStmt) and x.call.func == "fight") + 1]
    played = _TestRun(RuleTestRunner(game, evaluator="reference"), test.model_copy(update={"body": cut}))
    for item in played.begin():
        played.line(item)
    sc = odds.scene_from_test(game, test.model_copy(update={"body": [x for x in cut if not isinstance(x, ast.TestDice)]}))
    result = odds.exact(sc)
    return result, result.distribution.get(odds.leaf_summary(sc, played.state), 0.0)


# a land battle with a retreat, sea battles with submarines, a battleship's two hits, a fighter from
# a carrier, defenceless transports, a multinational defence (bench/odds.py --examples runs them all)
@pytest.mark.parametrize("name", ["we14", "d03", "d04", "we11", "we15a", "d15_agree", "we22"])
def test_a_worked_example_is_a_branch_of_its_odds(aa_scenes, name):
    result, p = example_branch(aa_scenes, name)
    assert result.method == "exact" and sum(result.distribution.values()) == pytest.approx(1)
    assert p > 0.001, f"{name}: the example's result has probability {p}"


def test_a_blind_draw_is_not_enumerable_and_auto_answers_by_monte_carlo():
    sc = odds.load_scene(TINY, ROOT / "tests" / "data" / "odds" / "tiny_blind.wcx")
    result = odds.resolve(sc, "auto", precision=0.05, workers=1)
    assert result.method == "monte carlo" and "blind draw" in result.note
    lost = result.losses["defender"]["rifle"]
    assert abs(lost - 1 / 3) < 2.5 * result.half_width


# ---------------------------------------------------------------- the memo on reads
@pytest.mark.parametrize("name, eliminated, volley_runs", [
    # the shooter's has_moved, read by the volley, changes between the volleys: the second is
    # enumerated again (3 runs each: one to meet the die, one per outcome) and eliminates on 1-3
    ("odds_reads_memo_read", 0.5, 6),
    # a unit the volley does not read moves: the second volley is served from the first one's runs
    ("odds_reads_memo_unread", 0.0, 3),
])
def test_a_procedure_is_served_from_its_reads_only_when_they_have_the_same_values(name, eliminated, volley_runs):
    scene = odds.load_scene(TINY, ROOT / "tests" / "data" / "odds" / "tiny_reads_memo.wcx", name)
    result = odds.exact(scene)
    assert result.losses["defender"]["rifle"] == pytest.approx(eliminated, abs=1e-12)
    assert result.replays_by["odds_volley"] == volley_runs


def test_the_memo_on_reads_keeps_the_textbook_answer_and_saves_the_defenders_fire(aa_scenes):
    # the defender's fire does not read which defenders are marked as casualties: one enumeration
    # serves every casualty pattern of the attacker's fire (285 replays before the memo on reads)
    result = odds.exact(odds.scene_from_test(aa_scenes, aa_scenes.tests["odds_medium"], "cheapest"))
    want = textbook_land_battle([1, 1, 1, 3, 3], [2, 2, 2, 3])
    got = result.outcomes
    assert max(abs(got["attacker wins"] - want[0]), abs(got["defender wins"] - want[1]),
               abs(got["mutual destruction"] - want[2])) < 1e-9
    assert result.replays_by["defender_fire"] < 100


def test_a_recording_view_notes_each_unit_variable_generated_code_reads():
    """Generated code reads a unit's variables as `unit.vd.get(name, default)`: through a recording
    view (readlog.LoggedUnit) each is noted as a read of that variable, as `unit.var(name)` is."""
    from warcodex.interpreter.readlog import LoggedUnit, ReadLog
    from warcodex.interpreter.state import Unit

    log = ReadLog(lambda state: None)
    seen = LoggedUnit(Unit(7, "infantry", "germany", "russia", 1, 1, "Infantry", vars=(("casualty", True),)), log)
    assert seen.vd.get("casualty", False) is True and seen.vd.get("on_board", False) is False
    assert set(log.reads) == {("u", 7, ("var", "casualty")), ("u", 7, ("var", "on_board"))}
