"""No Retreat! self-play: random agents play the campaign with every invariant of the rules checked
after every action, automatic step and phase end (every card in exactly one place, hand limit
after the discard step, each card at most once per player turn, steps and boxes, stacking, the
initiative...). A CI-cheap version: a few seeds for the first turns; `bench/selfplay.py no-retreat
--seeds 20` plays every game to its end (docs/games/no-retreat.md gives the figures).

The engine's card concepts are tested here on the game (hidden hands in observations and logs,
agents choosing between events and payments, replays); the game's own rules and the digest's
worked examples are rule tests in the language (games/no-retreat/tests/*.wcx, `warcodex test`)."""

from __future__ import annotations

from collections import Counter

import pytest

from game_scene import load_game, selfplay
from warcodex.interpreter.agents import ScriptedAgent
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import agents_for, log_text, start


def game():
    return load_game("no-retreat", tests=False)


SEEDS = (1, 2)
TURNS = 2


@pytest.fixture(scope="module")
def engine():
    return Engine(game())


@pytest.fixture(scope="module")
def games(engine):
    return selfplay(engine, "campaign", SEEDS, TURNS)


def test_the_first_turns_play_with_every_invariant(games):
    for g in games:
        assert g.state.position.turn > TURNS or g.state.over
        actions = Counter(e["action"] for e in g.log if e.get("k") == "action")
        assert actions["move"] > 10 and actions["attack"] > 0


def test_every_card_is_in_exactly_one_place(engine, games):
    # checked here independently of the rules' own invariant
    for g in games:
        st = g.state
        seen = [c for piles in st.decks.values() for p in piles.values() for c in p] + [c for h in st.hands.values() for c in h]
        assert sorted(seen) == sorted(c.name for d in ("events", "joker_deck") for c in engine.game.names[d].cards
                                      if d in st.decks or any(c.name in h for h in st.hands.values()))
        assert st.decks["events"]["play"] == []


def test_agents_choose_between_events_and_payments(games):
    plays = sum(1 for g in games for e in g.log if e.get("action") == "play_event")
    paid = sum(1 for g in games for e in g.log if e.get("action") in ("rail_load_paid", "reorganize", "improve"))
    assert plays > 0 and paid > 0


@pytest.fixture(scope="module")
def traced(engine):
    g = start(engine, "campaign", 9, agents_for(engine, ["random"], 9))
    g.run(until_turn=1)
    return g


def test_draws_are_hidden_from_the_other_side(traced):
    for side, enemy in (("axis", "soviet"), ("soviet", "axis")):
        first = next(e for e in traced.log if e.get("what") == "Draw" and e.get("side") == side)  # the draw itself
        assert first["hidden_from"] == [enemy]
        assert any("draws 4 cards" in str(d) for d in first["trace"])
    plays = [e for e in traced.log if e.get("action") == "play_event"]
    assert all("hidden_from" not in e for e in plays)  # a card played is public


def test_observation_hides_the_other_hand(engine, games):
    st = games[0].state
    seen = engine.observation(st, "axis")
    assert seen["hands"].get("soviet", []) == ["hidden"] * len(st.hands.get("soviet", []))
    assert seen["hands"].get("axis", []) == st.hands.get("axis", [])
    assert set(seen["decks"]["events"]["draw"]) <= {"hidden"}


def test_a_game_replays_exactly_from_its_log(engine, traced):
    g = traced
    script = ScriptedAgent(engine, g.log)
    again = start(engine, "campaign", 9, {"axis": script, "soviet": script})
    again.run(until_turn=1)
    assert log_text(again.log[: len(g.log)]) == log_text(g.log)


def test_every_optional_rule_on_plays_with_the_invariants(engine):
    options = {o: True for o in ("joker_card", "quick_reorganisation", "no_surrender", "local_combat_support",
                                 "reserves_rule", "abteilung_units", "fortified_front_units", "no_controlled_weather")}
    g = start(engine, "campaign", 3, agents_for(engine, ["random"], 3), options=options, trace=False,
              check_invariants=True)
    g.run(until_turn=2)
    st = g.state
    joker = [side for side, hand in st.hands.items() if "joker" in hand]
    assert len(joker) == 1  # the Joker is always in one hand
