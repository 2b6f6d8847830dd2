"""Rule tests in the rules language (`test` blocks in a game's tests/*.wcx, `warcodex test`): the
file convention, the checker's located errors, the runner's verdicts and reports, -k, JUnit XML,
the formatter. Tiny Front's rules are the subject; the tests are written into a copy of it."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from warcodex.cli import cli
from warcodex.dsl.checker import check_path
from warcodex.dsl.formatter import format_text
from warcodex.dsl.loader import load_game
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.rule_test_report import failure_lines, junit_xml, matches
from warcodex.interpreter.rule_tests import RuleTestRunner

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "games" / "tiny"

BOARD = '''
map strip "a 4 x 4 strip" {
  grid hex flat odd cols 1..4 rows 1..4 ids CCRR
  default terrain clear
  terrain forest: 0302  # a forest hex
  edge minor_river: 0202/0302
}
'''


def tiny_with(tmp_path: Path, tests: str, name: str = "t.wcx") -> Path:
    folder = tmp_path / "tiny"
    shutil.copytree(TINY, folder, ignore=shutil.ignore_patterns("tests"))
    (folder / "tests").mkdir()
    (folder / "tests" / name).write_text(tests, encoding="utf-8")
    return folder


def run(folder: Path) -> dict:
    game, diags = check_path(folder, tests=True)
    assert game is not None and not diags.errors, "\n".join(d.render() for d in diags.errors)
    runner = RuleTestRunner(game)
    return {t.name: runner.run(t) for t in game.tests.values()}


# ---------------------------------------------------------------- the file convention
def test_tests_never_reach_the_game_a_player_loads():
    played = load_game(ROOT / "games" / "stalingrad42")
    tested = load_game(ROOT / "games" / "stalingrad42", tests=True)
    assert "test_panzer" not in played.names and "test_panzer" in tested.names  # tests/units.wcx
    assert not played.tests and tested.tests
    assert played.fingerprint == tested.fingerprint
    assert Engine(played).fingerprint == Engine(tested).fingerprint


def test_a_test_in_a_rules_file_is_refused_with_its_location(tmp_path):
    folder = tiny_with(tmp_path, "")
    with open(folder / "combat.wcx", "a", encoding="utf-8") as f:
        f.write('\ntest here "misplaced" §7.3 { expect true }\n')
    _, diags = check_path(folder)
    [d] = [d for d in diags.errors if d.code == "E-test-location"]
    assert d.span.file.endswith("combat.wcx") and "tests/" in d.hint


# ---------------------------------------------------------------- verdicts
def test_a_passing_test_and_a_failing_one_with_both_sides_and_the_explanation(tmp_path):
    folder = tiny_with(tmp_path, BOARD + '''
test passes "mud doubles the river crossing" §5.1 §8 {
  map strip
  unit t: tank_corps soviet at "0202"
  set weather = mud
  expect move_cost(t, "0202", "0302") == 6
}
test fails "a wrong expectation" §5.1 {
  map strip
  unit t: tank_corps soviet at "0202"
  expect move_cost(t, "0202", "0302") == 2
}
''')
    out = run(folder)
    assert out["passes"].status == "passed"
    f = out["fails"]
    assert f.status == "failed" and f.where.line == 18
    text = "\n".join(failure_lines(f))
    assert 'left:   move_cost(t, "0202", "0302") = 3' in text
    assert "right:  2 = 2" in text
    assert "minor river: 2 +1 -> 3 (§5.3)" in text  # the explanation of the value, with its section


def test_dice_steps_answers_and_refusals(tmp_path):
    folder = tiny_with(tmp_path, '''
test combat "a combat on fixed dice" §7.3 {
  phase combat
  active axis
  unit pz: panzer axis at "0705"
  unit r: rifle soviet at "0805"
  dice 4
  answer h: "0905", "1005"
  answer a: none
  do attack(target: "0805", attackers: [pz])
  expect r.loc == "1005" and r is disrupted
  expect pz.loc == "0705"
}
test too_few_dice "the rules roll a die the test does not give" §7.3 {
  phase combat
  active axis
  unit pz: panzer axis at "0705"
  unit r: rifle soviet at "0805"
  do attack(target: "0805", attackers: [pz])
}
test unused_dice "a die the rules never roll" §7.3 {
  dice 3
}
test bad_answer "an answer that is not an option" §7.6 {
  phase combat
  active axis
  unit pz: panzer axis at "0705"
  unit r: rifle soviet at "0805"
  dice 4
  answer h: "0101"
  do attack(target: "0805", attackers: [pz])
}
test refused "the engine refuses, and says why" §7.3 {
  phase combat
  active soviet
  unit r: rifle soviet at "0705"
  unit p: panzer axis at "0805"
  unit i: infantry axis at "0805"
  expect illegal attack(target: "0805", attackers: [r]) because "below 1-2"
  expect illegal attack(target: "0805", attackers: [r]) because "stacking"
}
''')
    out = run(folder)
    assert out["combat"].status == "passed", failure_lines(out["combat"])
    assert out["too_few_dice"].status == "error" and "fixed dice ran out after 0 rolls" in out["too_few_dice"].message
    assert out["unused_dice"].status == "failed" and "never rolled: 3" in out["unused_dice"].message
    bad = out["bad_answer"]
    assert bad.status == "failed" and 'the answer "0101" for h is not among the options' in bad.message
    refused = out["refused"]
    assert refused.status == "failed" and refused.where.line == 40
    assert 'not because "stacking"' in refused.message
    assert any("attacks below 1-2 are not allowed" in d for d in refused.details)


def test_legal_and_illegal_moves_and_an_action_the_engine_refuses(tmp_path):
    folder = tiny_with(tmp_path, '''
test moves "moving next to an enemy" §5.1 §6 {
  map { grid hex flat odd cols 1..4 rows 1..4 ids CCRR
        default terrain clear }
  phase movement
  active axis
  unit i: infantry axis at "0101"
  unit r: rifle soviet at "0303"
  expect legal move(u: i, to: "0203")
  expect illegal move(u: i, to: "0303") because "not an eligible to"
  do move(i, "0203")
  expect i.loc == "0203" and i.has_moved
  expect illegal move(u: i, to: "0202")
}
test refused_step "a step the engine refuses fails the test" §5.1 {
  phase movement
  active axis
  unit i: infantry axis at "0202"
  do move(u: i, to: "0909")
}
''')
    out = run(folder)
    assert out["moves"].status == "passed", failure_lines(out["moves"])
    bad = out["refused_step"]
    assert bad.status == "failed" and "the engine refuses move(u: i, to: \"0909\")" in bad.message


# ---------------------------------------------------------------- the checker
def test_mistakes_in_tests_are_located_in_the_tests_file(tmp_path):
    folder = tiny_with(tmp_path, BOARD + '''
test t1 "mistakes" §5.1 {
  map strip { edge minor_river: 0101/0303 }
  unit a: tank_corp soviet at "0202"
  phase combt
  answer hh: "0101"
  do move(u: a, too: "0102")
  scenario meeting
}
test t2 { expect true }
''')
    _, diags = check_path(folder, tests=True)
    got = {(d.code, d.span.line, d.span.column) for d in diags.errors}
    assert ("E-map-not-adjacent", 10, 33) in got  # inside the test's own map statements
    assert ("E-undefined", 11, 11) in got  # tank_corp
    assert ("E-undefined", 12, 9) in got  # phase combt
    assert ("E-undefined", 13, 3) in got  # answer hh: no `choose` is named hh
    assert ("E-undefined", 14, 17) in got  # too
    assert ("E-test", 15, 3) in got  # scenario after other lines
    assert ("E-no-citation", 17, 6) in got
    messages = "\n".join(d.render() for d in diags.errors)
    assert "did you mean 'tank_corps'?" in messages and "did you mean 'combat'?" in messages


def test_a_test_board_with_a_mistake_points_into_the_tests_file(tmp_path):
    folder = tiny_with(tmp_path, 'map bad "b" {\n  grid hex flat odd cols 1..4 rows 1..4 ids CCRR\n'
                                 '  default terrain clera\n}\n')
    _, diags = check_path(folder, tests=True)
    [d] = diags.errors
    assert d.code == "E-undeclared-map-name" and (d.span.line, d.span.column) == (3, 19)
    assert "did you mean 'clear'?" in d.hint


# ---------------------------------------------------------------- the command, -k, JUnit, fmt
def test_the_command_reports_like_pytest_and_writes_junit(tmp_path):
    folder = tiny_with(tmp_path, '''
test good "fine" §5.1 { expect terrain("0101") is clear }
test bad "not fine" §7.3 { expect odds(13, 8) == 2:1 }
''')
    junit = tmp_path / "report.xml"
    result = CliRunner().invoke(cli, ["test", str(folder), "--junit", str(junit)])
    assert result.exit_code == 1
    assert "t.wcx .F" in result.output and "[100%]" in result.output
    assert "FAILURES" in result.output and "expected: odds(13, 8) == 2:1" in result.output
    assert "1 failed, 1 passed" in result.output
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    case = [c for c in suite.iter("testcase") if c.get("name") == "bad"][0]
    assert case.find("failure") is not None and case.find("properties/property").get("value") == "§7.3"
    only_good = CliRunner().invoke(cli, ["test", str(folder), "-k", "5.1 and not bad"])
    assert only_good.exit_code == 0 and "1 passed, 1 deselected" in only_good.output
    none = CliRunner().invoke(cli, ["test", str(folder), "-k", "nothing"])
    assert none.exit_code == 5


def test_k_patterns():
    game = load_game(TINY, tests=True)
    t = game.tests["town_attack"]
    assert matches("town", t) and matches("§7.4", t) and matches("7.4 and not mud", t)
    assert not matches("mud or (river and forest)", t)


def test_fmt_keeps_map_bodies_and_comments_of_tests(tmp_path):
    text = BOARD + '''
test t "a test"   §5.1 {
  # set-up
  map strip {  terrain swamp: 0101  # a swamp
  }
  unit t:tank_corps soviet at "0202"   steps 1 marked disrupted
  dice 3,4
  # the move
  expect   move_cost(t, "0202", "0302")==3
}
'''
    out = format_text(text, "t.wcx")
    assert "  terrain forest: 0302  # a forest hex\n" in out  # map bodies as written
    assert "  map strip {  terrain swamp: 0101  # a swamp\n  }\n" in out
    assert '  unit t: tank_corps soviet at "0202" steps 1 marked disrupted\n' in out
    assert "  dice 3, 4\n  # the move\n  expect move_cost" in out  # comments stay with their line
    assert format_text(out, "t.wcx") == out


# every bundled game file, tests/*.wcx included, is in the canonical layout: tests/test_fmt_games.py


@pytest.mark.parametrize("junk", ["", "not a pattern ("])
def test_junit_of_nothing_and_bad_patterns(junk):
    xml = junit_xml("g", [], 0.0)
    assert ET.fromstring(xml.split("\n", 1)[1]).find("testsuite").get("tests") == "0"
    if junk:
        from warcodex.interpreter.rule_test_report import PatternError

        with pytest.raises(PatternError):
            matches(junk, load_game(TINY, tests=True).tests["town_attack"])


def test_the_examples_of_the_testing_guide_parse():
    import re

    from warcodex.dsl.parser import parse_text

    text = (ROOT / "docs" / "testing-rules.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```wcx\n(.*?)^```", text, re.M | re.S)
    assert len(blocks) >= 2
    for body in blocks:
        assert parse_text(body, "docs/testing-rules.md").decls


def test_bundled_game_tests_highlight_without_errors():
    from pygments.token import Error

    from warcodex.dsl.lexer import WarcodexLexer

    for f in sorted((ROOT / "games").glob("*/tests/*.wcx")):
        errors = [v for t, v in WarcodexLexer().get_tokens(f.read_text(encoding="utf-8")) if t in Error]
        assert errors == [], f


def test_a_failed_conjunction_says_which_part_does_not_hold(tmp_path):
    folder = tiny_with(tmp_path, '''
test parts "a conjunction" §2.1 {
  unit a: tank_corps soviet at "0909"
  expect a.loc == "0909" and a.steps == 1 and a.move == 6
}
''')
    f = run(folder)["parts"]
    assert f.status == "failed"
    assert 'part 1: a.loc == "0909" = true' in f.details
    assert "part 2: a.steps == 1 = false" in f.details and "part 3: a.move == 6 = true" in f.details


def test_rules_emit_their_own_events_with_both_compilers(tmp_path):
    """`emit(EVENT, ...)` names its event (language.md, section 20): both compilers take it as a
    name, not a value to evaluate."""
    folder = tiny_with(tmp_path, '''
test fired "a rule that fires its own event" §9 {
  scenario meeting without setup
  alarm("0606")
  expect loc("0606").alarmed
}
''')
    with open(folder / "combat.wcx", "a", encoding="utf-8") as f:
        f.write('\nlocation_var alarmed: bool = false §9\n'
                'procedure alarm(h: location) "Raise the alarm" §9 { emit(alarm_raised, h) }\n'
                'on alarm_raised(h: location) "The alarm" §9 { set h.alarmed = true }\n')
    assert run(folder)["fired"].status == "passed"


@pytest.mark.parametrize("evaluator", ["generated", "reference"])
def test_a_partial_board_leaves_out_locations_of_the_game_map_but_no_typo_passes(tmp_path, evaluator):
    """A test board is a fragment: a location variable of a location of the game's map that the
    fragment leaves out reads its default (Stargard's tests total the VP of objective hexes their
    16 x 14 fragment does not hold), and can be set; a string that is a location of neither is
    the located error a typo deserves (built at run time here, so the checker cannot see it)."""
    folder = tiny_with(tmp_path, BOARD + '''
test off_the_fragment "a Tiny Front hex the strip leaves out" §10 {
  map strip
  expect "0805".controller == none
  set "0805".controller = axis
  expect "0805".controller == axis
}
test typo "a built id that is no hex" §10 {
  map strip
  let h = "08" + "05" + "x"
  expect h.controller == none
}
''')
    game, diags = check_path(folder, tests=True)
    assert game is not None and not diags.errors, "\n".join(d.render() for d in diags.errors)
    out = {t.name: RuleTestRunner(game, evaluator=evaluator).run(t) for t in game.tests.values()}
    assert out["off_the_fragment"].status == "passed", out["off_the_fragment"].message
    typo = out["typo"]
    assert typo.status == "error" and typo.message == "no location '0805x' on the map (reading its 'controller')"
    assert (typo.where.line, typo.where.column) == (18, 10)  # `h.controller` in `expect h.controller == none`
