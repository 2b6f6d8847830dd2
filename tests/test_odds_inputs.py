"""`warcodex odds` given bad input, as a user types it (issue #19): every mistake ends with one
clear or located message and a non-zero status, never a traceback nor a silent wrong answer.

Run through `warcodex.cli.main`, the entry point a shell runs (its error handling included)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from warcodex.cli import main
from warcodex.interpreter import odds

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "games" / "tiny"
AA = ROOT / "games" / "axis-allies-1941"
TOWN = TINY / "scenes" / "town_attack.wcx"


def run(capsys, *args) -> tuple[int, str]:
    """(exit status, stderr) of `warcodex ARGS`; its standard output is `run.out`."""
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
        raise SystemExit(0)
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and "internal error" not in captured.err, captured.err
    run.out = captured.out
    return exc.value.code, captured.err


@pytest.fixture(scope="module")
def tiny_save(tmp_path_factory):
    """A save written by `warcodex play` (the Tiny Front, 40 actions: the Soviet player moving), with the units of a combat:
    an Axis panzer and the hex of a Soviet unit."""
    save = tmp_path_factory.mktemp("odds-save") / "tiny.save"
    try:
        main(["play", str(TINY), "--max-actions", "40", "--save", str(save)])
    except SystemExit as exc:
        assert exc.code in (0, None)
    data = json.loads(save.read_text())
    panzer = next(u["id"] for u in data["state"]["units"] if u["type"] == "panzer" and u["loc"])
    target = next(u["loc"] for u in data["state"]["units"] if u["side"] == "soviet" and u["loc"])
    return save, panzer, target, data["state"]["active"]


@pytest.mark.parametrize("combat, words", [
    ('attack(target: "0805")', ["attack is an action, not a procedure", "`do attack(...)`"]),
    ('resolve_combatt([], "0805")', ["the game has no procedure 'resolve_combatt'", "did you mean 'resolve_combat'?"]),
    ("count([1])", ["count is a built-in function"]),
    ('resolve_combat([], "0805", 3)', ["resolve_combat takes 2 argument(s) (attackers, target), got 3"]),
    ('resolve_combat([], "0850")', ['no location "0850" on the map', "resolve_combat's `target` is a location"]),
    ("resolve_combat([], 3)", ["resolve_combat's `target` is a location of the map", "not 3"]),
    ('resolve_combat("0805", "0805")', ["resolve_combat's `attackers` is a list, not the string \"0805\""]),
    ("resolve_combat([], nowhere)", ["unknown name 'nowhere'"]),
    ('resolve_combat([, "0805")', ["E-syntax"]),
])
def test_a_combat_that_cannot_be_resolved_is_a_located_error(capsys, tiny_save, combat, words):
    save, _, _, _ = tiny_save
    code, err = run(capsys, "odds", TINY, "--save", save, "--combat", combat)
    assert code == 1
    assert err.startswith("--combat:1:") and "^" in err, err
    for w in words:
        assert w in err, err


def test_an_unknown_location_in_a_scene_is_located_not_an_internal_error(capsys, tmp_path):
    """It used to end in `internal error: KeyError: 'nowhere'` (status 70): the rules read the
    attributes of a location the map does not have. A literal is the checker's (a location
    parameter given a string no location has); a string built in the scene is the scene's."""
    scene = tmp_path / "aa_bad.wcx"
    scene.write_text('test odds_bad "x" §7.2 {\n  scenario table\n  active germany\n  fight("kare" + "lai", germany)\n}\n')
    code, err = run(capsys, "odds", AA, "--scene", scene)
    assert code == 1
    assert f"{scene}:4:9: error[E-scene]: no location \"karelai\"" in err and "did you mean 'karelia'?" in err
    scene.write_text('test odds_bad "x" §7.2 {\n  scenario table\n  active germany\n  fight("karelai", germany)\n}\n')
    code, err = run(capsys, "odds", AA, "--scene", scene)
    assert code == 1
    assert f"{scene}:4:9: error[E-unknown-location]: unknown location \"karelai\" (the `h` of fight())" in err
    assert "did you mean 'karelia'?" in err


def test_the_save_itself(capsys, tiny_save, tmp_path):
    save, panzer, target, _ = tiny_save
    combat = f'resolve_combat([unit_by_id({panzer})], "{target}")'
    code, err = run(capsys, "odds", TINY, "--save", tmp_path / "missing.save", "--combat", combat)
    assert code == 1 and f"no save file {tmp_path / 'missing.save'}" in err
    other = tmp_path / "aa.save"
    other.write_text(save.read_text().replace('"game": "tiny"', '"game": "aa1941"'))
    code, err = run(capsys, "odds", TINY, "--save", other, "--combat", combat)
    assert code == 1 and "is a save of 'aa1941', not of 'tiny'" in err
    garbage = tmp_path / "garbage.save"
    garbage.write_text("hello")
    code, err = run(capsys, "odds", TINY, "--save", garbage, "--combat", combat)
    assert code == 1 and "not valid JSON" in err


def test_the_attacker_of_a_save(capsys, tiny_save):
    """The attacker is the side active in the save, which the user did not write: a combat naming
    only the other side's units may be read the wrong way round (every "attacker wins" the
    defender's), so a located warning says so, and `--attacker` says whose combat it is."""
    save, panzer, target, active = tiny_save
    combat = f'resolve_combat([unit_by_id({panzer})], "{target}")'
    assert active != "axis"  # the save stops in the Soviet player's turn
    code, err = run(capsys, "odds", TINY, "--save", save, "--combat", combat, "--json")
    assert code == 0 and json.loads(run.out)["attacker"] == active
    assert f"the units this combat names are all axis's, but the attacker" in err and "give --attacker axis" in err
    assert err.startswith("--combat:1:") and "warning[W-attacker]" in err
    code, err = run(capsys, "odds", TINY, "--save", save, "--combat", combat, "--attacker", "axis", "--json")
    assert code == 0 and "W-attacker" not in err
    result = json.loads(run.out)
    assert result["attacker"] == "axis" and result["outcomes"]["attacker wins"] > 0
    code, err = run(capsys, "odds", TINY, "--save", save, "--combat", combat, "--attacker", "axsi")
    assert code == 1 and "--attacker: the game has no side 'axsi'" in err and "did you mean 'axis'?" in err


@pytest.mark.parametrize("args, words", [
    (["--scene", TOWN, "--combat", "a()"], "--combat goes with --save"),
    (["--save", TOWN, "--combat", "a()", "--name", "x"], "--name picks a test block of a --scene file"),
    (["--scene", TOWN, "--attacker", "axis"], "--attacker goes with --save"),
    (["--scene", TOWN, "--force"], "--force reads a save"),
    (["--scene", TOWN, "--precision", "0"], "the precision is a probability between 0 and 0.5"),
    (["--scene", TOWN, "--precision", "0.5"], "the precision is a probability between 0 and 0.5"),
    (["--scene", TOWN, "--workers", "0"], "at least 1 worker"),
    (["--scene", TOWN, "--save", TOWN], "give the position"),
    ([], "give the position"),
])
def test_options_that_do_not_go_together_are_usage_errors(capsys, args, words):
    """An option that would be ignored (`--combat` with a scene) is refused, not dropped."""
    code, err = run(capsys, "odds", TINY, *args)
    assert code == 2 and words in err, err


def test_a_scene_file_or_test_that_is_not_there(capsys, tmp_path):
    code, err = run(capsys, "odds", TINY, "--scene", tmp_path / "nope.wcx")
    assert code == 1 and f"no scene file {tmp_path / 'nope.wcx'}" in err
    code, err = run(capsys, "odds", TINY, "--scene", TOWN, "--name", "odds_town")
    assert code == 1 and "no test named odds_town" in err and "its tests: odds_town_attack" in err


def test_monte_carlo_bounds_each_battle_not_the_whole_run():
    """The step limit bounds one battle: `--precision 0.005` plays some 40,000 battles and used to
    end in `evaluation step limit (5,000,000) exceeded` part way. Here the limit is set to three
    battles' worth of steps, and 500 battles are played."""
    scene = odds.load_scene(TINY, TOWN)
    ctx = scene.run.ctx
    start = ctx.state.snapshot()
    ctx.state.rng = random.Random(1)
    ctx.steps = 0
    scene.combat()()
    one_battle = ctx.steps
    ctx.install(start)
    ctx.step_limit = 3 * one_battle + 100
    result = odds.monte_carlo(scene, precision=0.2, workers=1, batch=250)
    assert result.battles == 500 and result.outcomes["attacker wins"] == pytest.approx(1 / 3, abs=0.07)


BYSTANDERS = '''test odds_bystanders "2 infantry and a tank attack 2 infantry; others stand by" §7.2 §7.5 {
  scenario table
  active germany
  begin_turn(germany)
  phase combat
  unit i: infantry germany at "karelia" count 2
  unit t: tank germany at "karelia"
  unit di: infantry soviet_union at "karelia" count 2
  unit home: infantry germany at "germany" count 4
  unit ally: infantry japan at "karelia"
  fight("karelia", germany)
}
'''


def test_only_the_units_the_rules_put_in_the_battle_are_counted(tmp_path):
    """Issue #19: `fight("karelia", germany)` counted the 4 German infantry standing in the
    territory Germany (the power `germany` was read as the location of the same name), and a
    unit at Karelia of a power not at war with the attacker (Japan: §7.5, multinational forces
    never attack together, and only enemy units defend) as a defender. The battle is the textbook
    one of 2 infantry and a tank against 2 infantry."""
    from test_odds import textbook_land_battle

    scene_file = tmp_path / "bystanders.wcx"
    scene_file.write_text(BYSTANDERS)
    scene = odds.load_scene(AA, scene_file)
    sides = sorted((u.side, u.type, u.loc) for u in scene.participants.values())
    assert sides == [("germany", "infantry", "karelia")] * 2 + [("germany", "tank", "karelia")] \
        + [("soviet_union", "infantry", "karelia")] * 2
    result = odds.exact(scene)
    want = textbook_land_battle([1, 1, 3], [2, 2])
    assert result.outcomes["attacker wins"] == pytest.approx(want[0], abs=1e-9)
    assert result.outcomes["defender wins"] == pytest.approx(want[1], abs=1e-9)
    assert result.outcomes["mutual destruction"] == pytest.approx(want[2], abs=1e-9)
    assert result.outcomes["both remain"] < 1e-12
