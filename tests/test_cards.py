"""Decks, hands and card uses (interpreter/cards.py) on a test-only card-driven fragment
(tests/data/games/cards): events vs payments, once per player turn, the reshuffle rule of a deck,
set-aside cards, cancelling a card being played, cards taken from the discard pile or the
opponent's hand, hidden hands in observations and logs, saves."""

from __future__ import annotations

import pytest

from warcodex.dsl.checker import check_path
from warcodex.interpreter.actions import ActionChoice
from warcodex.interpreter.agents import FirstAgent, RandomAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import log_text, play, replay, start
from warcodex.interpreter.values import RuleError


@pytest.fixture(scope="module")
def engine():
    game, diags = check_path("tests/data/games/cards")
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    return Engine(game)


def fresh(engine, draw=(), discard=(), hands=None):
    """A state with the deck laid out by the test: `draw` bottom to top (the last is drawn first)."""
    state = engine.new_game("short", seed=1)
    ctx = Context(engine, state, {"red": FirstAgent(), "blue": FirstAgent()})
    piles = engine.cards.piles(state, "events")
    everywhere = set(draw) | set(discard) | {c for h in (hands or {}).values() for c in h}
    piles["draw"] = list(draw)
    piles["discard"] = list(discard)
    piles["set_aside"] = [c for c in piles["set_aside"] if c not in everywhere]
    piles["removed"] = [c.name for c in engine.game.names["events"].cards
                        if c.name not in everywhere and c.name not in piles["set_aside"]]
    state.hands = {k: list(v) for k, v in (hands or {}).items()}
    state.active = "red"
    return state, ctx


def run(engine, ctx, stmt_text):
    """Run builtins the way rules do, through a tiny procedure-less call."""
    from warcodex.dsl.parser import parse_text
    from warcodex.interpreter.compiler import Frame

    module = parse_text(f"procedure _t() §1 {{ {stmt_text} }}", "test")
    body = engine.compiler.block(module.decls[0].body, set())
    body(Frame(ctx))


def e(engine, name):
    return engine.entities[name]


def test_every_card_starts_in_the_draw_pile_except_set_aside_ones(engine):
    state = engine.new_game("short", seed=3)
    piles = engine.cards.piles(state, "events")
    assert sorted(piles["draw"]) == ["bonus", "gain", "gain2", "steal", "tax", "veto"]
    assert piles["set_aside"] == ["late"]
    assert engine.cards.places(state, "late") == ["set_aside"]


def test_reshuffle_when_one_card_remains_nobody_draws_it(engine):
    # No Retreat! A3 / worked example A10: after a draw the deck holds 1 card: that card and the
    # discards are shuffled into a new deck, and nobody draws it in between
    state, ctx = fresh(engine, draw=["tax", "gain", "gain2"], discard=["steal", "bonus"])
    engine.draw_cards(ctx, e(engine, "red"), "events", 2, None)
    assert state.hands["red"] == ["gain2", "gain"]
    piles = state.decks["events"]
    assert sorted(piles["draw"]) == ["bonus", "steal", "tax"] and piles["discard"] == []


def test_a_draw_never_takes_the_last_card(engine):
    state, ctx = fresh(engine, draw=["tax", "gain"], discard=[])
    engine.draw_cards(ctx, e(engine, "red"), "events", 3, None)
    assert state.hands["red"] == ["gain"]  # "tax" stays: nothing to shuffle it with
    assert state.decks["events"]["draw"] == ["tax"]


def test_play_fires_the_event_then_discards_and_counts_for_the_player_turn(engine):
    state, ctx = fresh(engine, draw=["tax"], hands={"red": ["gain2"]})
    run(engine, ctx, "play(red, gain2)")
    assert state.side_vars["red"]["vp"] == 2
    assert state.decks["events"]["discard"] == ["gain2"] and state.hands["red"] == []
    assert engine.cards.times_played(state, "gain2") == 1
    assert engine.cards.last_use(state, "events", "event") == "gain2"
    # the next player turn starts a new count
    state.active = "blue"
    assert engine.cards.times_played(state, "gain2") == 0


def test_the_same_card_cannot_be_played_twice_in_one_player_turn(engine):
    # No Retreat! A3 / worked example A11: a card taken back from the discard pile may be held,
    # but its event may not be played again this player turn
    state, ctx = fresh(engine, draw=["tax"], hands={"red": ["gain", "steal"]})
    run(engine, ctx, "play(red, gain)")
    run(engine, ctx, "play(red, steal)")  # takes the top discard: gain
    assert state.hands["red"] == ["gain"]
    legal = {a.arg("c").name for a in engine.actions["play_event"].instances(ctx)}
    assert "gain" not in legal
    with pytest.raises(RuleError, match="not an eligible c"):
        engine.actions["play_event"].validate(ctx, ActionChoice("play_event", (("c", e(engine, "gain")),)))


def test_payment_is_not_a_play_and_fires_card_paid(engine):
    state, ctx = fresh(engine, draw=["tax", "gain", "gain2"], hands={"red": ["bonus"]})
    run(engine, ctx, 'pay(red, bonus, "buy")')
    assert state.hands["red"] == ["gain2"]  # Bonus: discarded to buy, draw a card (the top one)
    assert engine.cards.times_played(state, "bonus") == 0
    assert engine.cards.last_use(state, "events", "payment") == "bonus"
    assert state.decks["events"]["discard"] == ["bonus"]


def test_a_card_being_played_can_be_cancelled(engine):
    state, ctx = fresh(engine, draw=["tax"], hands={"red": ["gain2"], "blue": ["veto"]})
    run(engine, ctx, "play(red, gain2)")
    assert state.side_vars.get("red", {}).get("vp", 0) == 0  # cancelled: no VP
    assert sorted(state.decks["events"]["discard"]) == ["gain2", "veto"]
    assert engine.cards.times_played(state, "gain2") == 1  # it still was played


def test_random_discard_and_taking_from_the_opponent(engine):
    state, ctx = fresh(engine, draw=["steal"], hands={"red": ["tax"], "blue": ["gain", "gain2", "bonus"]})
    run(engine, ctx, "play(red, tax)")
    assert len(state.hands["blue"]) == 2 and len(state.decks["events"]["discard"]) == 2
    run(engine, ctx, "take_card(red, first(hand(blue)))")
    assert len(state.hands["red"]) == 1 and len(state.hands["blue"]) == 1


def test_set_aside_cards_join_and_removed_cards_leave(engine):
    state, ctx = fresh(engine, draw=["tax", "gain"])
    state.decks["events"]["set_aside"] = ["late"]
    run(engine, ctx, "add_to_deck(late)")
    assert "late" in state.decks["events"]["draw"] and state.decks["events"]["set_aside"] == []
    run(engine, ctx, "remove_card(gain)")
    assert "gain" in state.decks["events"]["removed"]
    assert engine.cards.places(state, "gain") == ["removed"]


def test_unknown_cards_and_empty_hands_are_located_rule_errors(engine):
    state, ctx = fresh(engine, draw=["tax"], hands={"red": []})
    with pytest.raises(RuleError, match="has no card gain in hand"):
        run(engine, ctx, "play(red, gain)")
    with pytest.raises(RuleError, match="is not a card"):
        run(engine, ctx, "remove_card(red)")
    with pytest.raises(RuleError, match="only a card in play can be cancelled"):
        run(engine, ctx, "cancel(tax)")


def test_hands_and_draw_order_are_hidden_from_the_other_side(engine):
    state, ctx = fresh(engine, draw=["tax", "gain", "gain2"], hands={"red": ["steal"], "blue": ["veto", "bonus"]})
    seen = engine.observation(state, "red")
    assert seen["hands"]["red"] == ["steal"]
    assert seen["hands"]["blue"] == ["hidden", "hidden"]
    assert seen["decks"]["events"]["draw"] == ["hidden"] * 3
    assert seen["decks"]["events"]["discard"] == []
    assert state.hands["blue"] == ["veto", "bonus"]  # the state itself stays complete


def test_draws_are_marked_hidden_from_the_enemy_in_the_log(engine):
    g = play(engine, "short", seed=2, agents={"red": FirstAgent(), "blue": FirstAgent()})
    draws = [x for x in g.log if x.get("what") == "Cards"]
    assert draws and all(x.get("hidden_from") == (["blue"] if x["side"] == "red" else ["red"]) for x in draws)
    plays = [x for x in g.log if x.get("action") == "play_event"]
    assert plays and all("hidden_from" not in x for x in plays)  # a played card is public


@pytest.mark.parametrize("seed", range(12))
def test_random_games_keep_every_card_in_one_place(engine, seed):
    agents = {"red": RandomAgent(seed), "blue": RandomAgent(seed + 100)}
    g = play(engine, "short", seed=seed, agents=agents, check_invariants=True, trace=False)
    state = g.state
    assert state.over
    every = [c for piles in state.decks.values() for p in piles.values() for c in p] + [c for h in state.hands.values() for c in h]
    assert sorted(every) == sorted(c.name for c in engine.game.names["events"].cards)
    kinds = {x["action"] for x in g.log if x.get("k") == "action"}
    assert kinds <= {"play_event", "buy"}


def test_a_card_game_replays_from_its_log_and_survives_a_save(engine, tmp_path):
    from warcodex.interpreter.saves import load_save, save_game

    agents = {"red": RandomAgent(5), "blue": RandomAgent(6)}
    g = start(engine, "short", 5, agents)
    g.run(until_turn=2)
    path = tmp_path / "cards.json"
    save_game(engine, g, path)
    state, _, _ = load_save(engine, path)
    assert state.decks == g.state.decks and state.hands == g.state.hands and state.card_uses == g.state.card_uses
    full = play(engine, "short", seed=5, agents={"red": RandomAgent(5), "blue": RandomAgent(6)})
    again = replay(engine, "short", 5, full.log)
    assert log_text(again.log) == log_text(full.log)
