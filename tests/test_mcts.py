"""The MCTS agent's budget of a decision (interpreter/mcts.py): engine actions, forced decisions,
positions reused, progressive widening, the idle limit; all deterministic for a seed."""

from __future__ import annotations

import math

import pytest

from warcodex.dsl.checker import check_path
from warcodex.interpreter.agents import LegalActions, make_agent
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.mcts import PASS, MCTSAgent
from warcodex.interpreter.play import agents_for, log_text, start


@pytest.fixture(scope="module")
def engine():
    game, diags = check_path("games/tiny")
    assert not diags.errors
    return Engine(game)


def _first_axis_decision(engine, spec, seed=3):
    """Tiny Front's first decision: the Axis moves (§5: moves roll no dice)."""
    g = start(engine, "meeting", seed, agents_for(engine, [spec, "random"], seed))
    g.run(until_turn=1, max_actions=0)
    return g, g.agents["axis"], LegalActions(engine, g.ctx, ["move"])


def test_options_of_the_budget(engine):
    agent = make_agent("mcts:budget=12:widen=1.5:idle=2:horizon=3", 1)
    assert (agent.budget, agent.widen, agent.idle, agent.horizon) == (12, 1.5, 2, 3)
    assert make_agent("mcts:playouts=8:horizon=4", 1).budget == 40  # default: playouts x (horizon + 1)
    # its choices inside its actions: searched (3 options a choice) unless `follow=0`
    assert make_agent("mcts", 1).follow == 3 and make_agent("mcts", 1).choice_search is not None
    assert make_agent("mcts:follow=0", 1).follow == 0 and make_agent("mcts:follow=0", 1).choice_search is None
    for bad in ("mcts:budget=0", "mcts:horizon=-1", "mcts:playouts=0", "mcts:widen=-1", "mcts:follow=-1"):
        with pytest.raises(ValueError):
            make_agent(bad, 1)


@pytest.mark.parametrize("budget", [1, 5, 13])
def test_a_decision_plays_at_most_its_budget_of_engine_actions(engine, budget):
    g, agent, legal = _first_axis_decision(engine, f"mcts:playouts=50:horizon=4:budget={budget}")
    agent.choose_action(g.ctx, "axis", legal)
    assert 0 < agent.spent <= budget
    # the game itself did not move: search plays on snapshots
    assert g.runner.actions_taken == 0


def test_a_move_is_applied_once_and_its_position_reused(engine, monkeypatch):
    # horizon 0: a playout is the candidate and the evaluation. Moves roll no dice and make no
    # random choice, so each candidate is applied by its first playout only: the engine actions
    # played are the distinct candidates visited, though there are more playouts than candidates
    g, agent, legal = _first_axis_decision(engine, "mcts:playouts=24:horizon=0:candidates=4")
    visited = []
    real = MCTSAgent.playout

    def spy(self, ctx, side, choice, after=None, key=None, limit=None):
        visited.append(key)
        return real(self, ctx, side, choice, after, key, limit)

    monkeypatch.setattr(MCTSAgent, "playout", spy)
    agent.choose_action(g.ctx, "axis", legal)
    moves = {k for k in visited if k != 0}  # 0 is passing, which plays no action
    assert len(visited) == 24 and agent.spent == len(moves) <= 4


def test_a_forced_decision_is_played_without_search(engine, monkeypatch):
    g, agent, legal = _first_axis_decision(engine, "mcts")
    only = legal.first()
    monkeypatch.setattr(legal, "sample", lambda rng, eager=False: only)  # one legal action
    legal.may_pass = False

    def no_search(*args, **kw):
        raise AssertionError("a forced decision needs no playout")

    monkeypatch.setattr(agent, "playout", no_search)
    assert agent.choose_action(g.ctx, "axis", legal) is only and agent.spent == 0


def test_progressive_widening_weighs_more_actions_as_playouts_grow(engine, monkeypatch):
    # widen=1: ceil(sqrt(n + 1)) actions after n playouts (at least 2), besides passing
    g, agent, legal = _first_axis_decision(engine, "mcts:playouts=9:candidates=8:widen=1")
    seen = []
    monkeypatch.setattr(agent, "playout", lambda ctx, side, choice, after, key, limit: (seen.append(key) or 0.0, 1))
    agent.choose_action(g.ctx, "axis", legal)
    # every candidate is tried once when it is added (unvisited first): passing, then 2 actions,
    # a third from playout 4 (ceil(sqrt(5)) = 3)
    assert seen[:3] == [0, 1, 2] and max(seen) == 3 and seen.index(3) == 4
    assert agent._allowed(0) == 2 and agent._allowed(15) == 4 and agent._allowed(1000) == 8
    assert MCTSAgent(widen=0, candidates=6)._allowed(0) == 6


def test_the_agent_passes_after_idle_actions_no_better_than_passing(engine, monkeypatch):
    g, agent, legal = _first_axis_decision(engine, "mcts:playouts=6:idle=2")
    worth = {"action": 0.0}
    monkeypatch.setattr(agent, "playout", lambda ctx, side, choice, after, key, limit:
                        ((0.0 if choice is PASS else worth["action"]), 1))
    # the search visits passing once, then the first action: it is the most visited, and worth
    # no more than passing; the third such action in a row in the step is a pass (idle=2)
    monkeypatch.setattr(agent, "_select", lambda visits, totals, low, high, n: 0 if visits[0] == 0 else 1)
    picks = [agent.choose_action(g.ctx, "axis", legal) is not PASS for _ in range(4)]
    assert picks == [True, True, False, False]
    worth["action"] = 1.0  # an action better than passing starts the count again
    assert agent.choose_action(g.ctx, "axis", legal) is not PASS
    worth["action"] = 0.0
    assert [agent.choose_action(g.ctx, "axis", legal) is not PASS for _ in range(3)] == [True, True, False]
    legal.may_pass = False  # a step that may not end yet is never passed
    assert all(agent.choose_action(g.ctx, "axis", legal) is not PASS for _ in range(4))


def test_the_same_seed_gives_the_same_game_within_a_budget(engine):
    spec = "mcts:budget=10:horizon=2:widen=1"
    logs = []
    for _ in range(2):
        g = start(engine, "meeting", 5, agents_for(engine, [spec, "greedy"], 5), check_invariants=True)
        g.run(until_turn=2)
        logs.append(log_text(g.log))
    assert logs[0] == logs[1] and '"action": "move"' in logs[0]


def test_a_playout_that_fails_is_worst(engine, monkeypatch):
    # an action whose effects fail in a playout is no better than the worst line seen
    g, agent, legal = _first_axis_decision(engine, "mcts:playouts=6:candidates=2:idle=9")
    monkeypatch.setattr(agent, "playout", lambda ctx, side, choice, after, key, limit:
                        ((-math.inf if key == 1 else 1.0), 1))
    monkeypatch.setattr(agent, "_may_end_step", lambda ctx: False)  # no passing: the two actions
    first_two = legal.all(2)
    seq = iter(first_two * 3)
    monkeypatch.setattr(legal, "sample", lambda rng, eager=False: next(seq))
    assert agent.choose_action(g.ctx, "axis", legal) == first_two[1]


def test_with_no_rollout_passing_is_judged_on_the_position_as_it_is(engine):
    # horizon=0 judges a candidate right after it, without the automatic steps up to the next
    # decision: passing is the position as it is (greedy's `here`), not the next phase's start
    # (in Fall Blau the end of the Axis Movement Phase alone was worth +0.25, as much as a hex of
    # advance, and the agent passed instead of advancing)
    from warcodex.interpreter.context import Context

    g, agent, legal = _first_axis_decision(engine, "mcts:horizon=0")
    here = agent._value(engine, g.state, "axis")
    value, played = agent.playout(g.ctx, "axis", PASS)
    assert (value, played) == (here, 0)
    move = legal.first()
    value, played = agent.playout(g.ctx, "axis", move)
    snap = g.state.snapshot()
    engine.actions[move.action].apply(Context(engine, snap, g.agents), move)
    assert played == 1 and value == agent._value(engine, snap, "axis")


def test_on_a_tie_the_agent_acts_rather_than_passes(engine, monkeypatch):
    # every candidate worth the same, passing included: an action is played (passing ends the
    # step for good), as greedy plays one, until the idle limit; before, a tie chose passing
    # among the tied at random and a Fall Blau Axis moved 13 units in two turns instead of 47
    g, agent, legal = _first_axis_decision(engine, "mcts:playouts=9:idle=3")
    monkeypatch.setattr(agent, "playout", lambda ctx, side, choice, after, key, limit: (0.0, 1))
    picks = [agent.choose_action(g.ctx, "axis", legal) for _ in range(5)]
    assert [p is not PASS for p in picks] == [True, True, True, False, False]


def test_the_decision_cost_bench_measures_mcts_against_greedy_on_the_same_positions(engine):
    # bench/mcts_decision.py (bench/decisions.py): snapshots of one side's decision points, each agent deciding once
    # on each; the engine actions an MCTS decision played are its budget's, greedy's none
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.decisions import cost, positions

    points = positions(engine, "meeting", "axis", 2, 1)
    assert len(points) == 2 and all(side == "axis" for _, side, _, _ in points)
    before = [p[0].version for p in points]
    cpu, spent = cost(engine, "mcts:budget=6:horizon=2", points)
    assert cpu > 0 and 0 < spent <= 6
    assert cost(engine, "greedy", points)[1] == 0
    assert [p[0].version for p in points] == before  # deciding on a snapshot leaves the position as it was


def test_the_stratified_sampler_weighs_greedys_candidates(engine):
    # `sampler=stratified`: the candidates are greedy's strata (search_support.py), drawn with the
    # agent's own RNG, so the same seed weighs the same actions; the default stays kind-first
    import random

    from warcodex.interpreter.search_support import candidate_key, stratified_candidates

    assert make_agent("mcts", 1).sampler == "kind"
    with pytest.raises(ValueError, match="sampler must be kind or stratified"):
        make_agent("mcts:sampler=smart", 1)
    g, agent, legal = _first_axis_decision(engine, "mcts:playouts=4:horizon=0:sampler=stratified")
    state = agent.rng.getstate()
    drawn = [candidate_key(c) for c in agent._candidates(legal)]
    twin = random.Random()
    twin.setstate(state)
    assert drawn == [candidate_key(c) for c in stratified_candidates(legal, twin, agent.candidates, 3)]
    assert len(drawn) == agent.candidates and len({k[1] for k in drawn}) == len(drawn)
    logs = []
    for _ in range(2):
        game = start(engine, "meeting", 5, agents_for(engine, ["mcts:playouts=4:horizon=0:sampler=stratified", "random"], 5))
        logs.append(log_text(game.run(until_turn=2).log))
    assert logs[0] == logs[1] and '"action": "move"' in logs[0]


def test_the_agent_counts_what_its_decisions_cost(engine):
    # as greedy's: a batch records each search agent's decisions, engine actions and CPU per game
    g = start(engine, "meeting", 2, agents_for(engine, ["mcts:playouts=4:horizon=2", "random"], 2))
    g.run(until_turn=2)
    agent = g.agents["axis"]
    stats = agent.stats()
    assert stats["decisions"] > 0 and 0 < stats["lookaheads"] <= stats["decisions"] * agent.budget
    assert stats["cpu_s"] > 0  # (its choices searched: test_in_play_it_raids_and_carries_off_the_ammunition)


# ------------------------------------------------------------ choices inside its own actions
@pytest.fixture(scope="module")
def foray():
    game, diags = check_path("tests/data/games/foray")
    assert not diags.errors
    return Engine(game).for_scenario("night")


def _raid_decision(foray, agent, seed=1):
    """Foray's first decision (tests/data/games/foray): Red may raid the dump, or pass."""
    from warcodex.interpreter.agents import RandomAgent

    g = start(foray, "night", seed, {"red": agent, "blue": RandomAgent(seed)})
    g.run(until_turn=1, max_actions=0)
    return g, LegalActions(foray, g.ctx, ["raid"])


def test_a_candidate_is_judged_with_its_own_choices_inside_it_searched(foray):
    # the raid's crate is Red's choice inside Red's action: searched (follow=3, the default), the
    # raid is worth 7 - 3 = +4 in every playout; drawn at random (follow=0, the MCTS before s8)
    # it is +4 or -3 by the crate drawn, -2/3 on average
    for follow, worths in ((3, {4.0}), (0, {4.0, -3.0})):
        agent = MCTSAgent(seed=2, horizon=0, follow=follow)
        g, legal = _raid_decision(foray, agent)
        raid = legal.first()
        values = [agent.playout(g.ctx, "red", raid) for _ in range(12)]
        assert {v for v, _ in values} == worths, follow
        # the engine actions a playout played: the raid, and with follow each of the three
        # crates' lines played again from before it
        assert {n for _, n in values} == ({4} if follow else {1})
    assert g.runner.actions_taken == 0  # all on snapshots


def test_in_play_it_raids_and_carries_off_the_ammunition(foray):
    # in play the crate is searched as greedy searches a choice inside its own action (the raid
    # played again from before it, each crate judged): every game carries off the ammunition.
    # With random choices the raid is judged at -2/3 against passing's 0 and made, if at all,
    # with a random crate: fewer games end with the ammunition
    from warcodex.interpreter.agents import RandomAgent
    from warcodex.interpreter.play import play

    def ammunition(follow: int) -> list:
        out = []
        for seed in range(1, 11):
            agent = MCTSAgent(seed=seed, playouts=12, horizon=0, follow=follow)
            g = play(foray, "night", seed, {"red": agent, "blue": RandomAgent(seed)}, trace=False)
            out.append(g.ctx.state.vars["ammunition"])
            if follow:
                assert agent.stats()["choices_searched"] >= 1
        return out

    assert ammunition(3) == [1] * 10
    assert sum(ammunition(0)) < 7


def test_a_choice_in_another_sides_action_is_not_searched(foray):
    # the search plays the action it chose again: a choice it is asked outside it (another
    # side's action, an automatic step) has no position before it that the agent kept
    agent = MCTSAgent(seed=1, horizon=0)
    g, legal = _raid_decision(foray, agent)
    assert agent._search_choice(g.ctx, "red", lambda: [0, 1, 2]) is None  # it chose nothing yet
    g.ctx.choices = []
    search = agent.choice_search
    search.chose(g.ctx, legal.first())
    assert search.line_in_game(g.ctx) is not None  # inside the action it chose: a line to search
    g.ctx.log.append(None)  # that action's entry written: a choice now is another entry's
    assert search.line_in_game(g.ctx) is None and agent._search_choice(g.ctx, "red", lambda: [0, 1, 2]) is None
