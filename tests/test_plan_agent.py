"""The plan agent (interpreter/plan_agent.py): greedy's search with each candidate judged as the
first action of a focused plan of the side's own actions (docs/balance.md, "The plan agent")."""

from __future__ import annotations

import pytest

from warcodex.dsl.checker import check_path
from warcodex.interpreter.agents import LegalActions, make_agent
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.plan_agent import PlanAgent
from warcodex.interpreter.play import agents_for, log_text, start


def _checked(path):
    game, diags = check_path(path)
    assert not diags.errors
    return game


@pytest.fixture(scope="module")
def tiny():
    return Engine(_checked("games/tiny"))


@pytest.fixture(scope="module")
def assault():
    # test-only rules: three soldiers must approach a fort and storm it together (game.wcx there)
    return Engine(_checked("tests/data/games/assault"))


def test_plan_agent_spec_and_options():
    agent = make_agent("plan:depth=3:width=2:reach=1:budget=40:samples=6", 1)
    assert isinstance(agent, PlanAgent)
    assert (agent.depth, agent.width, agent.reach, agent.budget, agent.samples) == (3, 2, 1, 40, 6)
    default = make_agent("plan", 1)
    # greedy's search underneath, with the `greedy` agent's defaults
    assert (default.samples, default.breadth, default.follow, default.depth, default.width) == (12, 3, 3, 4, 3)
    for bad, message in [("plan:depth=0", "depth and width must be at least 1"), ("plan:plies=2", "unknown option 'plies'"),
                         ("plan:width=x", "is not a int")]:
        with pytest.raises(ValueError, match=message):
            make_agent(bad, 1)


def _log(engine, scenario, specs, seed, until_turn=None):
    g = start(engine, scenario, seed, agents_for(engine, specs, seed), check_invariants=True)
    g.run(until_turn=until_turn)
    return g, log_text(g.log)


@pytest.mark.parametrize("spec", ["plan:depth=1", "plan:budget=0"])
def test_without_plans_it_plays_greedys_game(tiny, spec):
    # no plan (one action deep, or no budget for plans): the same decisions as greedy, draw for draw
    for seed in (4, 5):
        assert _log(tiny, "meeting", [spec, "random"], seed)[1] == _log(tiny, "meeting", ["greedy", "random"], seed)[1]


def test_plan_is_deterministic_for_a_seed_and_keeps_the_invariants(tiny):
    logs = [_log(tiny, "meeting", ["random", "plan"], 6, until_turn=3)[1] for _ in range(2)]
    assert logs[0] == logs[1]


def test_plans_do_not_see_the_games_dice(tiny):
    g = start(tiny, "meeting", 3, agents_for(tiny, ["plan", "random"], 3))
    g.run(until_turn=1, max_actions=0)  # the first decision: the Axis moves
    before = g.state.rng.getstate()
    agent = g.agents["axis"]
    agent.choose_action(g.ctx, "axis", LegalActions(tiny, g.ctx, ["move"]))
    assert agent.plans > 0 and agent.plan_actions > 0
    assert g.state.rng.getstate() == before


def _actions(g):
    return [e["action"] for e in g.log if e.get("k") == "action"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_plan_makes_the_combined_assault_one_ply_search_misses(assault, seed):
    # each approach alone exposes a soldier (-1) and takes nothing: greedy never approaches, so it
    # can never storm; the plan (three approaches, pass, storm with all three) takes the fort
    greedy, _ = _log(assault, "basic", ["greedy", "random"], seed)
    assert _actions(greedy) == [] and not greedy.state.vars["fort_taken"]
    plan, _ = _log(assault, "basic", ["plan", "random"], seed)
    assert _actions(plan) == ["approach"] * 3 + ["storm"]
    assert plan.state.vars["fort_taken"]
    storm = [e for e in plan.log if e.get("action") == "storm"][0]
    assert len(storm["args"]["attackers"]) == 3


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_plan_followed_is_carried_out_where_a_fresh_look_would_abandon_it(assault, seed):
    # scenario `led`: the sergeant approaches first, then a recruit on either side of him (two
    # hexes apart), then the storm; with reach 1, a plan begun by one recruit cannot reach the
    # other, so a fresh look after the sergeant's approach finds nothing worth approaching for
    plan, _ = _log(assault, "led", ["plan:reach=1", "random"], seed)
    assert _actions(plan) == ["approach"] * 3 + ["storm"] and plan.state.vars["fort_taken"]
    storm = [e for e in plan.log if e.get("action") == "storm"][0]
    assert len(storm["args"]["attackers"]) == 3
    agent = plan.agents["red"]
    assert agent.plans_kept == 4 and agent.plans_replaced == 0  # two approaches, the pass, the storm

    g = start(assault, "led", seed, agents_for(assault, ["plan:reach=1", "random"], seed))
    g.run(max_actions=1)
    assert [e["text"] for e in g.log if e.get("k") == "action"] == ["approach(u=Sergeant #2 (red, 03.02), to=04.03)"]
    fresh = make_agent("plan:reach=1", seed)
    assert fresh.choose_action(g.ctx, "red", LegalActions(assault, g.ctx, ["approach"])) is None  # it would pass
    kept = g.agents["red"].choose_action(g.ctx, "red", LegalActions(assault, g.ctx, ["approach"]))
    assert kept is not None and kept.action == "approach"


def test_a_plan_worth_more_replaces_the_plan_followed(assault):
    # after the first approach, the plan followed is made a poorer one (one more approach, no
    # storm: two soldiers exposed); a fresh plan (the two approaches and the storm) is worth more
    g = start(assault, "basic", 1, agents_for(assault, ["plan", "random"], 1))
    g.run(max_actions=1)
    agent = g.agents["red"]
    legal = LegalActions(assault, g.ctx, ["approach"])
    poorer = next(c for c in agent._rest if c.action == "approach")
    agent._follow(g.ctx, "red", [poorer])
    choice = agent.choose_action(g.ctx, "red", legal)
    assert (agent.plans_kept, agent.plans_replaced) == (0, 1)
    assert choice.action == "approach" and [c.action for c in agent._rest] == ["approach", "storm"]


def test_a_plan_is_not_followed_into_another_activation(assault):
    # a plan is one side's actions in a row: once another side decided, or in another game, it is dropped
    g = start(assault, "basic", 1, agents_for(assault, ["plan", "random"], 1))
    g.run(max_actions=1)
    agent = g.agents["red"]
    assert agent._still_followed(g.ctx, "red") and not agent._still_followed(g.ctx, "blue")
    g.ctx.log.append({"k": "pass", "phase": "approach_step", "side": "blue"})
    assert not agent._still_followed(g.ctx, "red")
    other = start(assault, "basic", 1, agents_for(assault, ["random", "random"], 1))
    assert not agent._still_followed(other.ctx, "red")


def test_plans_too_short_or_out_of_budget_do_not_assault(assault):
    # the assault needs four actions (three approaches and the storm): a plan of three sees only
    # exposed soldiers, and so does one whose budget runs out first
    for spec in ("plan:depth=3", "plan:budget=2"):
        g, _ = _log(assault, "basic", [spec, "random"], 1)
        assert not g.state.vars["fort_taken"], spec


def test_the_plan_budget_bounds_a_decision(tiny):
    g = start(tiny, "meeting", 2, agents_for(tiny, ["plan:budget=5", "random"], 2))
    g.run(until_turn=1)
    agent = g.agents["axis"]
    assert agent.decisions > 0 and agent.plan_actions <= 5 * agent.decisions


def test_the_decision_cost_bench_counts_the_actions_a_plan_looks_at(tiny):
    # bench/plan_decision.py: the same positions for greedy and plan, each deciding on a snapshot
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.mcts_decision import positions
    from bench.plan_decision import cost

    points = positions(tiny, "meeting", "axis", 2, 1)
    before = [p[0].version for p in points]
    _, greedy = cost(tiny, "greedy", points)
    _, planned = cost(tiny, "plan", points)
    assert 0 < greedy < planned  # the plans' extensions are actions looked at on top of greedy's
    assert [p[0].version for p in points] == before


def test_a_plans_focus_is_the_places_it_acted_at(tiny):
    # an action's place is its first location argument (a move's destination, not the unit); a
    # later action is admitted when its place is within `reach` hexes of one of the plan's places
    from warcodex.interpreter.actions import ActionChoice
    from warcodex.interpreter.plan_agent import Focus
    from warcodex.interpreter.values import UnitRef

    focus = Focus(tiny.board, 2)
    move = ActionChoice("move", (("u", UnitRef(1)), ("to", "0305")))
    assert focus.place_of(move) == "0305"
    focus.add(move)
    assert focus.places == ["0305"]
    near, far = ActionChoice("move", (("u", UnitRef(2)), ("to", "0505"))), ActionChoice("move", (("u", UnitRef(2)), ("to", "0605")))
    assert tiny.board.distance("0305", "0505") == 2 and tiny.board.distance("0305", "0605") == 3
    assert focus.admits(near) and not focus.admits(far)
    assert focus.admits_first(UnitRef(2)) and focus.admits_first("0405") and not focus.admits_first("0805")
    assert not focus.admits(ActionChoice("buy", (("n", 3),)))  # no place: nothing to combine with
