"""A search agent weighs the choices its side makes in automatic steps (issue #18): the game keeps
the position before each automatic step when an agent asks for it (sequence.AutoStep), and the
greedy agent plays the step again from there with each option, on to the game's next decision,
where it judges the position (interpreter/choice_search.py, `ChoiceSearch.line_in_game`).

Played on the test-only Muster (tests/data/games/muster/game.wcx): Red chooses its orders
("attack" +1 VP, "blunder" -1 VP), up to two depots (full +2, empty 0, burning -3) and a guess of
a die rolled after the guess (a hit +10), each in a `do` block, each settled by the next automatic
step, before Red's next decision."""

from __future__ import annotations

import pytest

from warcodex.dsl.checker import check_path
from warcodex.interpreter import sequence
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import agents_for, log_text, start
from warcodex.interpreter.search_agents import GreedyAgent

SEEDS = range(1, 21)


@pytest.fixture(scope="module")
def muster():
    game, diags = check_path("tests/data/games/muster")
    assert not diags.errors
    return Engine(game).for_scenario("one")


def _play(engine, red: str, seed: int):
    g = start(engine, "one", seed, agents_for(engine, [red, "random"], seed), trace=False)
    g.run()
    return g


def _games(engine, red: str) -> list:
    return [_play(engine, red, seed) for seed in SEEDS]


@pytest.fixture(scope="module")
def greedy_games(muster):
    return _games(muster, "greedy")


@pytest.fixture(scope="module")
def random_games(muster):
    return _games(muster, "random")


def test_greedy_gives_the_good_orders_in_an_automatic_step_on_every_seed(greedy_games, random_games):
    # the orders are chosen in a `do` block and carried out by the next one: judged at Red's next
    # decision, "attack" (+1) beats "blunder" (-1) every time
    assert [g.state.vars["orders"] for g in greedy_games] == ["attack"] * len(SEEDS)
    random_orders = [g.state.vars["orders"] for g in random_games]
    assert "blunder" in random_orders and "attack" in random_orders


def test_the_choice_is_in_the_automatic_steps_log_entry(greedy_games):
    # the choice is the game's, made in its automatic step and logged there as before
    entry = next(e for e in greedy_games[0].log if e.get("k") == "auto" and e.get("what") == "Orders")
    assert entry["choices"] == [{"choice": "o", "by": "red", "index": 0, "value": "attack"}]


def test_greedy_weighs_groups_of_depots_and_never_draws_on_the_burning_one(greedy_games, random_games):
    # `choose subset`: at most `follow` (3) groups weighed, the best kept; a group with the burning
    # depot (-3) is worse than any without it, so it is never kept when another was weighed
    greedy = [set(g.state.vars["depots"]) for g in greedy_games]
    assert not any("burning" in d for d in greedy)
    assert sum("full" in d for d in greedy) >= len(SEEDS) // 2
    assert any("burning" in set(g.state.vars["depots"]) for g in random_games)


def test_the_search_never_sees_the_die_rolled_after_the_choice(muster):
    # every guess weighed (follow=6) on dice of the agent's own: had the lines rolled the game's
    # die, the best guess would be the die itself on every seed
    games = [_play(muster, "greedy:follow=6", seed) for seed in SEEDS]
    hits = [g.state.vars["guess"] == g.state.vars["last_roll"] for g in games]
    assert sum(hits) <= 8, hits  # about one in six (3.3 of 20 expected); 20 of 20 if it peeked
    assert sum(g.state.vars["hits"] for g in games) == sum(hits)
    # and the search draws nothing from the game's dice: the die falls as it does for random Red
    assert [g.state.vars["last_roll"] for g in games] == [_play(muster, "random", s).state.vars["last_roll"] for s in SEEDS]


def test_greedy_is_deterministic_for_a_seed(muster, greedy_games):
    again = _play(muster, "greedy", 3)
    assert log_text(again.log) == log_text(greedy_games[2].log)


def test_the_plan_agent_searches_them_too(muster):
    assert {_play(muster, "plan", seed).state.vars["orders"] for seed in range(1, 6)} == {"attack"}


def test_agents_that_do_not_search_keep_no_position(muster, monkeypatch):
    # random and first agents, and search agents with follow=0: no position is kept before the automatic steps
    def refuse(*args):
        raise AssertionError("a position was kept for agents that do not search automatic steps")

    monkeypatch.setattr(sequence, "kept_position", refuse)
    for spec in ("random", "first", "greedy:follow=0", "mcts:playouts=2:follow=0"):
        g = _play(muster, spec, 1)
        assert g.ctx.auto_step is None and g.state.ended


def test_greedy_keeps_the_position_before_each_automatic_step_only_while_it_runs(muster, monkeypatch):
    g = start(muster, "one", 1, agents_for(muster, ["greedy", "random"], 1), trace=False)
    seen = []
    real = sequence.Runner._auto

    def watch(runner, label, fn, after="op"):
        def body(ctx):
            if ctx is g.ctx:  # (not the lines the search plays again from the position kept)
                seen.append((label, ctx.auto_step.label, ctx.auto_step.before.state.version == ctx.state.version))
            return fn(ctx)

        return real(runner, label, body, after)

    monkeypatch.setattr(sequence.Runner, "_auto", watch)
    g.run()
    # every step of the game, each with the position at its start
    assert [b for _, b, _ in seen] == [a for a, _, _ in seen] and "Orders" in [a for a, _, _ in seen]
    assert all(same for _, _, same in seen)
    assert g.ctx.auto_step is None  # cleared once the step is over: not seen by an action's choices


def test_a_choice_that_shows_only_in_what_the_side_can_do_next_is_weighed_by_it(greedy_games, random_games):
    # "ready" and "idle" leave the same position at Red's next decision; only there can a ready
    # Red strike (+3): the line is worth the best of the actions greedy draws at that decision
    readiness = [_choice(g, "Readiness") for g in greedy_games]
    assert readiness == ["ready"] * len(SEEDS)
    assert "idle" in [_choice(g, "Readiness") for g in random_games]


def _choice(game, step: str):
    entry = next(e for e in game.log if e.get("k") == "auto" and e.get("what") == step)
    return entry["choices"][0]["value"]


def test_keeping_the_positions_changes_nothing_in_a_game_without_such_choices(monkeypatch):
    # Skirmish has no choice in an automatic step: the same seed gives the same log whether the
    # positions before its automatic steps are kept or not
    game, diags = check_path("tests/data/games/skirmish")
    assert not diags.errors
    engine = Engine(game).for_scenario("company")

    def log_of() -> str:
        g = start(engine, "company", 4, agents_for(engine, ["greedy", "random"], 4), trace=False)
        return log_text(g.run().log)

    kept = log_of()
    monkeypatch.setattr(GreedyAgent, "searches_automatic_steps", False)
    monkeypatch.setattr(sequence, "AutoStep", None)  # a position kept would fail here
    assert log_of() == kept


def test_mcts_searches_them_with_greedy_s_judgement(muster):
    # MCTS's choices in automatic steps are weighed as greedy weighs them (its `follow`, greedy's
    # line of the step played on to the next decision); `mcts:follow=0` chooses at random, as
    # every MCTS did before s9
    games = [_play(muster, "mcts:playouts=4:horizon=4", seed) for seed in SEEDS]
    assert [g.state.vars["orders"] for g in games] == ["attack"] * len(SEEDS)
    assert [_choice(g, "Readiness") for g in games] == ["ready"] * len(SEEDS)
    assert not any("burning" in set(g.state.vars["depots"]) for g in games)
    stats = games[0].agents["red"].stats()
    assert stats["step_choices_searched"] >= 4 and stats["choices_searched"] >= stats["step_choices_searched"]
    # the search draws nothing from the game's dice: the die falls as it does for random Red
    assert [g.state.vars["last_roll"] for g in games] == [_play(muster, "random", s).state.vars["last_roll"] for s in SEEDS]
    unsearched = [_play(muster, "mcts:playouts=4:horizon=4:follow=0", seed) for seed in SEEDS]
    assert {g.state.vars["orders"] for g in unsearched} == {"attack", "blunder"}
    assert all(g.agents["red"].stats()["step_choices_searched"] == 0 for g in unsearched)
