"""Two generic concepts: `allow ... until TEST` (a phase step the side may not end while an
obligation is unmet) and joint choices (`choose ... by [a, b] otherwise c`: several sides choose
together, one decides when they disagree), plus `trace_region`'s optional limit. Tested on a
small game written here."""

from __future__ import annotations

import pytest

from warcodex.dsl.checker import check_path
from warcodex.dsl.parser import parse_text
from warcodex.interpreter.agents import FirstAgent, LegalActions, RandomAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.sequence import Runner
from warcodex.interpreter.values import RuleError

MINI = """
game mini "Mini" §1 { map: "map.wcmap" turn_order: [red, blue] }
sections { §1 "All" §2 "Obligations" §3 "Joint choices" }
side red "Red" §1
side blue "Blue" §1
side green "Green" §1
terrain clear "Clear" §1
unit soldier "Soldier" §1 { attack: 1 defense: 1 move: 3 }
var promised: int = 2 §2
var done: int = 0 §2
var picked: int = 0 §3
var asked: int = 0 §3
movement line "A trace" §1 {
  allowance: 1 §1
  cost: 1 §1
}
action work "Do some work" §2 {
  param n: from [1] §2
  require done < 5 "at most five" §2
  do { set done += n }
}
action rest "Rest" §2 {
  param n: from [1] §2
  require done >= 5 "only when tired" §2
  do { set done += 0 }
}
function in_working(): bool "Is it the working phase?" §1 = phase == working
procedure pick(by_sides: list) "Pick a number together" §3 {
  choose x from [1, 2, 3] by by_sides otherwise red §3
  set picked = x
}
sequence §1 {
  turns "Turn" §1 {
    player_turns turn_order "A side's turn" §1 {
      phase working "Working" §1 {
        allow work
          until active != red or done >= promised "red must finish the work it promised" §2
      }
    }
  }
}
scenario s "S" §1 { first_turn: 1 last_turn: 1 setup { } }
"""

MAP = """map "mini" provisional "test" {
  grid hex flat odd cols 1..5 rows 1..5 ids CCRR
  default terrain clear
}
"""


def build(tmp_path, text=MINI):
    (tmp_path / "game.wcx").write_text(text, encoding="utf-8")
    (tmp_path / "map.wcmap").write_text(MAP, encoding="utf-8")
    game, diags = check_path(tmp_path)
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    return Engine(game)


class Passer(FirstAgent):
    """Passes whenever it may; acts only when told it may not pass."""

    def __init__(self):
        self.told = []

    def choose_action(self, ctx, side, legal):
        if legal.may_pass:
            return None
        self.told.append(legal.obligation)
        return legal.first()


class Stubborn(FirstAgent):
    def choose_action(self, ctx, side, legal):
        return None


def run(engine, agents):
    state = engine.new_game("s", seed=0)
    ctx = Context(engine, state, agents)
    Runner(engine, ctx, agents).run()
    return state, ctx


# ---------------------------------------------------------------- allow ... until
def test_a_side_may_not_pass_while_its_obligation_is_unmet(tmp_path):
    engine = build(tmp_path)
    red, blue = Passer(), Passer()
    state, ctx = run(engine, {"red": red, "blue": blue, "green": blue})
    assert state.vars["done"] == 2  # red was made to work twice, then could pass
    assert red.told == ["red must finish the work it promised §2"] * 2
    assert blue.told == []  # the obligation holds for blue at once
    passes = [e for e in ctx.log if e["k"] == "pass"]
    assert [p["side"] for p in passes] == ["red", "blue"]  # refused passes are not logged


def test_random_agents_never_pass_an_unmet_obligation(tmp_path):
    engine = build(tmp_path)
    for seed in range(5):
        agents = {s: RandomAgent(seed, pass_probability=1.0) for s in ("red", "blue", "green")}
        state, _ = run(engine, agents)
        assert state.vars["done"] >= 2


def test_an_agent_that_keeps_passing_is_refused_with_the_rule(tmp_path):
    engine = build(tmp_path)
    with pytest.raises(RuleError) as exc:
        run(engine, {s: Stubborn() for s in ("red", "blue", "green")})
    assert "red may not end phase working yet: red must finish the work it promised §2" in str(exc.value)
    assert exc.value.span is not None and exc.value.span.line > 0


def test_an_obligation_that_no_action_can_meet_is_a_located_rules_error(tmp_path):
    engine = build(tmp_path, MINI.replace("var promised: int = 2", "var promised: int = 9"))
    with pytest.raises(RuleError) as exc:
        run(engine, {s: Passer() for s in ("red", "blue", "green")})
    assert "cannot end" in str(exc.value) and "no legal action left" in str(exc.value)
    assert exc.value.span is not None


def test_legal_actions_may_pass_by_default(tmp_path):
    engine = build(tmp_path)
    state = engine.new_game("s", seed=0, setup=False)
    legal = LegalActions(engine, Context(engine, state, {}), ["work"])
    assert legal.may_pass and legal.obligation is None


def test_until_must_cite_its_rule_and_is_checked_like_a_condition(tmp_path):
    text = MINI.replace('"red must finish the work it promised" §2', '"no citation"')
    (tmp_path / "game.wcx").write_text(text, encoding="utf-8")
    (tmp_path / "map.wcmap").write_text(MAP, encoding="utf-8")
    _, diags = check_path(tmp_path)
    assert any(d.code == "E-no-citation" and "until" in d.message for d in diags.errors)
    text = MINI.replace("until active != red or done >= promised", "until active != red or dnoe >= promised")
    (tmp_path / "game.wcx").write_text(text, encoding="utf-8")
    _, diags = check_path(tmp_path)
    err = next(d for d in diags.errors if d.code == "E-undefined")
    assert "dnoe" in err.message and err.span.line == text.splitlines().index(
        next(line for line in text.splitlines() if "dnoe" in line)) + 1


def test_until_syntax_errors_are_located():
    with pytest.raises(Exception) as exc:
        parse_text('sequence §1 { phase p "P" §1 { allow a until } }', "g.wcx")
    assert "g.wcx:1:" in str(exc.value)


# ---------------------------------------------------------------- joint choices
class Picks(FirstAgent):
    def __init__(self, index):
        self.index = index
        self.asked = 0

    def choose(self, ctx, who, what, options, optional):
        self.asked += 1
        return self.index


def joint(engine, agents, sides):
    state = engine.new_game("s", seed=0, setup=False)
    ctx = Context(engine, state, agents)
    ctx.choices = []
    ctx.begin_trace()
    engine.procedures["pick"](ctx, (tuple(engine.entities[s] for s in sides),), None)
    trace = ctx.end_trace()
    return state.vars["picked"], ctx.choices, trace


def _lines(trace):
    out = []

    def walk(d):
        out.append(d.what)
        for c in d.steps:
            walk(c)
    for d in trace:
        walk(d)
    return out


def test_joint_choice_agreed_by_every_player(tmp_path):
    engine = build(tmp_path)
    blue, green, red = Picks(1), Picks(1), Picks(0)
    value, choices, trace = joint(engine, {"blue": blue, "green": green, "red": red}, ["blue", "green"])
    assert value == 2 and blue.asked == green.asked == 1 and red.asked == 0
    assert [c["by"] for c in choices] == ["blue", "green"]  # every proposal is recorded (replayable)
    assert any("agree on x: 2" in line for line in _lines(trace))


def test_joint_choice_disagreement_lets_the_otherwise_side_decide(tmp_path):
    engine = build(tmp_path)
    blue, green, red = Picks(1), Picks(2), Picks(0)
    value, choices, trace = joint(engine, {"blue": blue, "green": green, "red": red}, ["blue", "green"])
    assert value == 1 and red.asked == 1  # red (the otherwise side) picked the first option
    assert [c["by"] for c in choices] == ["blue", "green", "red"]
    assert any("disagree on x" in line and "red decides" in line for line in _lines(trace))


def test_sides_played_by_one_agent_are_one_player(tmp_path):
    engine = build(tmp_path)
    both, red = Picks(2), Picks(0)
    value, choices, _ = joint(engine, {"blue": both, "green": both, "red": red}, ["blue", "green", "blue"])
    assert value == 3 and both.asked == 1 and red.asked == 0 and len(choices) == 1


def test_a_joint_choice_of_one_side_is_an_ordinary_choice(tmp_path):
    engine = build(tmp_path)
    blue = Picks(2)
    value, choices, _ = joint(engine, {"blue": blue, "green": Picks(0), "red": Picks(0)}, ["blue"])
    assert value == 3 and choices[0]["by"] == "blue"


# ---------------------------------------------------------------- trace_region's limit
def test_trace_region_limit_replaces_the_allowance(tmp_path):
    from warcodex.interpreter.builtins import IMPLEMENTATIONS

    engine = build(tmp_path)
    state = engine.new_game("s", seed=0, setup=False)
    ctx = Context(engine, state, {})
    red, line = engine.entities["red"], engine.entities["line"]
    d = engine.board.distance
    one = IMPLEMENTATIONS["trace_region"](ctx, None, line, ("0303",), red)
    two = IMPLEMENTATIONS["trace_region"](ctx, None, line, ("0303",), red, 2)
    zero = IMPLEMENTATIONS["trace_region"](ctx, None, line, ("0303",), red, 0)
    assert all(d("0303", h) <= 1 for h in one) and len(one) == 7
    assert all(d("0303", h) <= 2 for h in two) and len(two) == 19
    assert tuple(zero) == ("0303",)
    with pytest.raises(RuleError):
        IMPLEMENTATIONS["trace_region"](ctx, None, line, ("0303",), red, "far")


def test_a_phase_name_is_the_value_phase_reads(tmp_path):
    engine = build(tmp_path)
    state = engine.new_game("s", seed=0, setup=False)
    ctx = Context(engine, state, {})
    state.phase = "working"
    state.touch()
    assert engine.functions["in_working"](ctx, (), None) is True
    state.phase = None
    state.touch()
    assert engine.functions["in_working"](ctx, (), None) is False
