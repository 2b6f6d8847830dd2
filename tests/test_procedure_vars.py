"""A procedure's own variables (`var NAME: TYPE = V per PROCEDURE`), bookkeeping variables whose
assignments explanations leave out (`bookkeeping`), and what an explanation folds: a `choose`'s
candidates and a procedure call that recorded nothing (docs/language.md sections 7 and 15).
Each is checked with both evaluators (the generated code and the reference compiler).

No Retreat!'s battle is the use that asked for them: a battle's card effects (a shift, a forced
result, a doubled unit) last for that battle, a counterattack is a battle inside a battle, and the
explanation of a battle read 22 lines of resets before the rulebook's first step."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from warcodex.dsl.checker import check_path
from warcodex.dsl.formatter import format_text
from warcodex.interpreter.context import Context
from warcodex.interpreter.agents import FirstAgent
from warcodex.interpreter.values import RuleError
from game_scene import tiny_engine_with

ROOT = Path(__file__).resolve().parent.parent

EXTRA = """
# a battle with a record of its own, read by a trigger it fires; a battle inside a battle
var b_shift: int = 0 per battle §7.3
var b_target: location = none per battle bookkeeping §7.3
var seen: list = [] §7.3
var shown: int = 0 §7.3

procedure battle(target: location, inner: bool) "Battle" §7.3 {
  set b_target = target
  set seen = seen + [["start", b_shift]]
  set b_shift += 1
  require target != "0909" "no battle in 0909" §7.3
  emit(card_event, target)
  if inner {
    battle("0202", false)
  }
  set seen = seen + [["end", b_shift, b_target]]
}

on card_event(h: location) "A card read during the battle" §7.3 {
  set seen = seen + [["card", b_shift, b_target]]
}

procedure nothing_to_do() "A procedure with nothing to do" §7.3 {
  if turn > 99 { set shown = 1 }
}

procedure busy() "A procedure with steps" §7.3 {
  nothing_to_do()
  step "An empty step of the rulebook" §7.3 { nothing_to_do() }
  choose h from ["0101", "0202"] where attack_of_rifle() > 0 by axis §7.3
  let r = roll d6
  reroll r = roll d6 by axis when attack_of_rifle() > 0 "re-roll it" §7.3
  set shown = 2
}

quantity rifle_strength(): int "a rifle's strength" §7.3 { base: 3 §7.3 }

function attack_of_rifle(): int "read while the options are found" §7.3 = rifle_strength()
"""


@pytest.fixture(scope="module", params=["generated", "reference"])
def engine(request, tmp_path_factory):
    return tiny_engine_with(EXTRA, tmp_path_factory.mktemp("pv") / "tiny", request.param)


def fresh(engine):
    state = engine.new_game("meeting", seed=0, setup=False)
    return state, Context(engine, state, agents={"axis": FirstAgent(), "soviet": FirstAgent()})


def test_each_call_has_its_own_values_and_gives_back_the_callers(engine):
    state, ctx = fresh(engine)
    state.vars["b_shift"] = 7  # a value from outside any battle
    engine.procedures["battle"](ctx, ("0101", True), None)
    seen = [list(x) for x in state.vars["seen"]]
    assert seen == [
        ["start", 0],  # the call starts from the declared value, not 7
        ["card", 1, "0101"],  # a trigger the call fires reads the call's values
        ["start", 0],  # the battle inside the battle has its own
        ["card", 1, "0202"],
        ["end", 1, "0202"],
        ["end", 1, "0101"],  # the outer battle's values are back after the inner one
    ]
    assert state.vars["b_shift"] == 7 and state.vars["b_target"] is None  # and the caller's after it


def test_the_values_come_back_when_a_call_fails(engine):
    state, ctx = fresh(engine)
    state.vars["b_shift"] = 4
    with pytest.raises(RuleError, match="no battle in 0909"):
        engine.procedures["battle"](ctx, ("0909", False), None)
    assert state.vars["b_shift"] == 4


def test_bookkeeping_and_resets_are_not_explanation_lines(engine):
    state, ctx = fresh(engine)
    ctx.begin_trace()
    engine.procedures["battle"](ctx, ("0101", False), None)
    text = "\n".join(line for d in ctx.end_trace() for line in d.lines())
    assert "b_shift = 1" in text  # a rule's assignment is shown
    assert "b_target" not in text  # a bookkeeping one is not
    assert "b_shift = 0" not in text  # nor the start of the call


def test_an_empty_procedure_call_folds_but_a_step_stays(engine):
    state, ctx = fresh(engine)
    ctx.begin_trace()
    engine.procedures["busy"](ctx, (), None)
    trace = ctx.end_trace()
    text = "\n".join(line for d in trace for line in d.lines())
    assert "A procedure with nothing to do" not in text
    assert "An empty step of the rulebook" in text
    assert "axis chooses h: 0101" in text and "axis sees r = " in text
    # the derivations of the options and of whether a re-roll is offered are not explained; the
    # decisions are
    assert "a rifle's strength" not in text


def test_the_checker_refuses_per_on_a_side_var_or_a_non_procedure(tmp_path):
    folder = tmp_path / "tiny"
    shutil.copytree(ROOT / "games" / "tiny", folder)
    (folder / "extra.wcx").write_text('side_var s_shift: int = 0 per combat §7.3\n'
                                      'var v_shift: int = 0 per resolve_combt §7.3\n', encoding="utf-8")
    game_file = folder / "game.wcx"
    game_file.write_text(game_file.read_text() + '\ninclude "extra.wcx"\n', encoding="utf-8")
    _, diags = check_path(folder)
    errors = [d for d in diags.errors if d.code == "E-per"]
    messages = " | ".join(d.message for d in errors)
    assert len(errors) == 3, messages
    assert "only a global `var`" in messages and "'resolve_combt' is not a procedure" in messages
    hint = next(d.hint for d in errors if "resolve_combt" in d.message)
    assert hint == "did you mean 'resolve_combat'?"
    assert all(d.span.line in (1, 2) and d.span.file.endswith("extra.wcx") for d in errors)


def test_the_formatter_keeps_per_and_bookkeeping():
    text = "var b_target: location = none per battle bookkeeping §7.3\n"
    assert format_text(text, "x.wcx") == text
