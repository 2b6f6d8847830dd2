"""How the greedy agent draws and judges its candidates (interpreter/search_agents.py,
search_support.py; docs/balance.md, "Stratified candidates"): the four faults the Fall Blau traces
found, each on the test-only Skirmish (tests/data/games/skirmish/game.wcx: one Blue unit next to
Red's soldiers, twenty Blue sentries far away whose strata all fail, a strike settled by a die)."""

from __future__ import annotations

import random

import pytest

from warcodex.dsl.checker import check_path
from warcodex.interpreter.agents import LegalActions
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import agents_for, start
from warcodex.interpreter.search_support import Draw, stratified_candidates


@pytest.fixture(scope="module")
def skirmish():
    game, diags = check_path("tests/data/games/skirmish")
    assert not diags.errors
    return game


def _red_decision(game, scenario: str, specs=("greedy", "random"), seed: int = 1):
    """The game at Red's first decision (its Combat phase) and the legal strikes there."""
    engine = Engine(game).for_scenario(scenario)
    g = start(engine, scenario, seed, agents_for(engine, list(specs), seed), trace=False)
    g.run(until_turn=1, max_actions=0)
    assert g.state.active == "red"
    return g, LegalActions(engine, g.ctx, ["strike"])


def engine_instances(g, action: str):
    """The legal instances of `action` at the game's decision, lazily."""
    return g.ctx.engine.actions[action].instances(g.ctx)


@pytest.fixture(scope="module")
def tiny_engine():
    game, diags = check_path("games/tiny")
    assert not diags.errors
    return Engine(game)


def test_a_draw_that_finds_no_candidate_is_drawn_again(skirmish, monkeypatch):
    # an empty draw that did not look at every stratum (an unlucky draw of strata) used to end the
    # step: the Combat Phase of Fall Blau ended with attacks left; it is drawn again, up to `idle`
    # more times, as a draw whose candidates are all worse than the position is
    g, legal = _red_decision(skirmish, "company", ["greedy:idle=3", "random"])
    agent = g.agents["red"]
    real = agent.candidates
    draws = []

    def unlucky_first(legal):
        draws.append(1)
        return Draw() if len(draws) == 1 else real(legal)  # not exhaustive: other strata were left

    monkeypatch.setattr(agent, "candidates", unlucky_first)
    monkeypatch.setattr(agent, "value_after",
                        lambda ctx, side, choice: 100.0 if len(choice.arg("attackers")) == 3 else -100.0)
    choice = agent.choose_action(g.ctx, "red", legal)
    assert choice is not None and len(choice.arg("attackers")) == 3 and len(draws) >= 2
    # always empty: 1 + idle draws, then the agent passes (its step may end)
    draws.clear()
    monkeypatch.setattr(agent, "candidates", lambda legal: (draws.append(1), Draw())[1])
    assert agent.choose_action(g.ctx, "red", legal) is None and len(draws) == 4


def test_a_draw_that_looked_at_every_stratum_and_found_nothing_is_not_drawn_again(skirmish, monkeypatch):
    # nothing to strike (the soldier stands apart): every stratum fails, the draw says it looked
    # at all of them, and drawing again would only cost the same again
    g, legal = _red_decision(skirmish, "apart")
    agent = g.agents["red"]
    draws = []
    real = agent.candidates
    monkeypatch.setattr(agent, "candidates", lambda legal: (draws.append(1), real(legal))[1])
    assert agent.choose_action(g.ctx, "red", legal) is None and len(draws) == 1
    empty = stratified_candidates(legal, random.Random(1), 12, 3)
    assert empty == [] and empty.exhaustive


def test_strata_that_fail_do_not_crowd_out_the_one_that_passes(skirmish):
    # 21 strata of `strike` (one per Blue unit), one passing: the draw looks at strata until it
    # has `limit` candidates, failing ones not counted (at most 16 x limit looked at); it used to
    # test 4 x limit strata, failing ones included, and found the strike in 13 draws of 40
    g, legal = _red_decision(skirmish, "lone")
    draws = [stratified_candidates(legal, random.Random(seed), 2) for seed in range(40)]
    assert all([c.action for c in d] == ["strike"] for d in draws)
    assert all(d.exhaustive for d in draws)  # 21 strata, fewer than 16 x 2: every one looked at
    # a draw that stops at `limit` candidates did not look at every stratum
    g, legal = _red_decision(skirmish, "company")
    full = stratified_candidates(legal, random.Random(1), 1, 3)
    assert len(full) == 1 and not full.exhaustive
    # bounded: at most 16 x limit strata looked at (with limit 1, 16 of 21, so some draws miss it)
    g, legal = _red_decision(skirmish, "lone")
    found = sum(bool(stratified_candidates(legal, random.Random(seed), 1)) for seed in range(40))
    assert 20 < found < 40


def test_the_whole_eligible_group_is_among_the_draws_of_a_subset(skirmish):
    # three soldiers next to the outpost: only the three together make a strike worth making
    # (4+ on a die: +1/2 on average; two: 0; one: -1/2). A random group has a random size, one
    # draw in three or fewer the whole group; with `breadth` 2 or more the whole group is the
    # first instance of its stratum, in every draw
    g, legal = _red_decision(skirmish, "company")
    for seed in range(20):
        drawn = stratified_candidates(legal, random.Random(seed), 12, 2)
        sizes = [len(c.arg("attackers")) for c in drawn]
        assert sizes[0] == 3 and len(sizes) == 2, sizes
    # one instance a stratum (MCTS's rollouts): a random group, as before
    sizes = {len(stratified_candidates(legal, random.Random(seed), 12, 1)[0].arg("attackers")) for seed in range(20)}
    assert sizes == {1, 2, 3}


def test_a_subset_chosen_inside_an_action_weighs_the_largest_group_first():
    # `choose ... subset` inside its own action (units that advance, that join...), searched with
    # `follow`: the largest group allowed is always one of the `follow` groups weighed
    from warcodex.interpreter.search_agents import GreedyAgent

    search = GreedyAgent(seed=1, follow=3).choice_search
    for _ in range(10):
        picks = search.subset_picks(list("abcde"), 1, None)
        assert picks[0] == (0, 1, 2, 3, 4) and len(picks) <= 3 and len(set(picks)) == len(picks)
        capped = search.subset_picks(list("abcde"), 0, 2)
        assert len(capped[0]) == 2 and all(len(p) <= 2 for p in capped)
    assert search.subset_picks(list("ab"), 3, None) == []


def _first_strikes(game, scenario: str, spec: str, seeds) -> list:
    """The number of soldiers of greedy Red's first strike in each game (0: none)."""
    from warcodex.interpreter.play import play

    engine = Engine(game).for_scenario(scenario)
    out = []
    for seed in seeds:
        g = play(engine, scenario, seed, agents_for(engine, [spec, "random"], seed), trace=False)
        strikes = [e for e in g.log if e.get("action") == "strike"]
        out.append(len(strikes[0]["args"]["attackers"]) if strikes else 0)
    return out


def test_a_candidate_that_rolls_dice_is_judged_by_the_mean_of_its_rolls(skirmish):
    # the lone soldier's strike is a bad bet: +3 on a 6, -2 otherwise (-7/6 on average). Judged
    # by one roll, it looks good one lookahead in six, and the agent strikes; judged by the mean
    # of `rolls` lookaheads, each on dice of its own, it looks good only when most of them roll 6
    g, legal = _red_decision(skirmish, "lone", ["greedy:rolls=3", "random"])
    agent = g.agents["red"]
    here = 2  # one Red soldier on the map
    strike = next(iter(engine_instances(g, "strike")))
    for _ in range(10):
        before = agent.lookaheads
        value = agent.value_after(g.ctx, "red", strike)
        assert agent.lookaheads - before == 3
        # the mean of three: k sixes of 3 give (3k - 2(3 - k)) / 3 above the position
        assert any(abs(value - (here + (5 * k - 6) / 3)) < 1e-9 for k in range(4)), value
    one = [_first_strikes(skirmish, "lone", f"greedy:rolls={r}", range(1, 81)) for r in (1, 8)]
    assert one[0].count(1) >= 8 and one[1].count(1) <= 6, (one[0].count(1), one[1].count(1))
    assert one[1].count(1) < one[0].count(1) / 2


def test_a_candidate_that_rolls_no_die_is_looked_at_once(tiny_engine):
    # Tiny Front's first Axis decision: moves roll no die; `rolls` costs nothing there
    g = start(tiny_engine, "meeting", 3, agents_for(tiny_engine, ["greedy:rolls=3", "random"], 3))
    g.run(until_turn=1, max_actions=0)
    agent = g.agents["axis"]
    move = next(iter(engine_instances(g, "move")))
    before = agent.lookaheads
    agent.value_after(g.ctx, "axis", move)
    assert agent.lookaheads - before == 1


def test_a_candidate_drawn_again_in_a_decision_keeps_its_first_value(skirmish, monkeypatch):
    # the draws of the idle limit look at a candidate once: judged again on other dice, the best
    # of its judgements would be kept, and a bad strike drawn four times looks good on one of them
    g, legal = _red_decision(skirmish, "lone", ["greedy:idle=3:rolls=1", "random"])
    agent = g.agents["red"]
    strike = next(iter(engine_instances(g, "strike")))
    monkeypatch.setattr(agent, "candidates", lambda legal: Draw([strike]))
    judged = []
    monkeypatch.setattr(agent, "value_after", lambda ctx, side, choice: (judged.append(choice), -100.0)[1])
    assert agent.choose_action(g.ctx, "red", legal) is None and judged == [strike]


def test_greedy_spec_takes_rolls():
    from warcodex.interpreter.agents import make_agent

    assert make_agent("greedy", 1).rolls == 3 and make_agent("greedy:rolls=1", 1).rolls == 1
    assert make_agent("plan:rolls=2", 1).rolls == 2
    with pytest.raises(ValueError, match="rolls must be at least 1"):
        make_agent("greedy:rolls=0", 1)
