"""Stargard Solstice self-play, CI-cheap: random agents play the campaign's first two turns for two
seeds with every invariant of invariants.wcx checked after each action, automatic step and phase
end (command chits conserved, no side over its chit allowance, stacking, every activated unit in
its HQ's command range, air units in exactly one box, step accounting...); a game replays from its
log and a save made in the middle of an activation resumes to the same log. The full run (every
turn, 20 seeds) is `python bench/selfplay.py stargard-solstice --seeds 20`."""

from __future__ import annotations

import pytest
from game_scene import selfplay
from test_stargard_support import real_engine

from warcodex.interpreter.play import Game, agents_for, log_text, replay, start
from warcodex.interpreter.saves import load_save, save_game

SEEDS = (1, 2)
TURNS = 2


@pytest.fixture(scope="module")
def games():
    return selfplay(real_engine(), "solstice", SEEDS, TURNS)


def test_the_first_turns_play_with_every_invariant_held(games):
    for g in games:
        assert g.state.position.turn == TURNS + 1 and not g.state.over
        acts = [e for e in g.log if e.get("k") == "action"]
        assert len(acts) > 20
        # both sides were activated by chits drawn from the cup, and the German first (§2.3.1)
        sides = [e["side"] for e in acts if e["phase"] in ("movement_segment", "combat_segment")]
        assert "german" in sides and "soviet" in sides and sides[0] == "german"


def test_every_chit_is_somewhere_and_the_cup_was_refilled(games):
    e = real_engine()
    for g in games:
        piles = g.state.decks["command_chits"]
        assert sum(len(v) for v in piles.values()) == 15
        # at the start of turn 3 the cup holds every available chit: 5 German corps, 11th Army
        # (turns 2-3), 2nd Guards Tank, 61st, 47th (from 2), 1st Polish and 3rd Shock (from 3)
        assert {"chit_11pz_aok", "chit_47a", "chit_1pol", "chit_3sh"} <= set(piles["cup"])
        assert "chit_1brf" in piles["waiting"] and "chit_3pz_aok" in piles["waiting"]


def test_a_game_replays_exactly_from_its_log():
    e = real_engine()
    g = start(e, "solstice", 7, agents_for(e, ["random"], 7)).run(until_turn=1)
    again = replay(e, "solstice", 7, g.log)
    assert log_text(again.log) == log_text(g.log)


def test_a_save_in_the_middle_of_an_activation_resumes_to_the_same_log(tmp_path):
    e = real_engine()
    full = start(e, "solstice", 3, agents_for(e, ["random"], 3)).run(until_turn=1)
    part = start(e, "solstice", 3, agents_for(e, ["random"], 3)).run(max_actions=12)
    assert part.state.position.sides  # inside a player_turn: the activated side is saved
    save_game(e, part, tmp_path / "mid.json")
    state, agents, log = load_save(e, tmp_path / "mid.json")
    resumed = Game(e, state, agents, log=log).run(until_turn=1)
    assert log_text(resumed.log) == log_text(full.log)


def test_the_player_aid_lists_the_reinforcements_waiting_off_the_map():
    # the set-up keeps the reinforcements on their player sheet (a box per turn, §15): the aid's
    # set-up table lists them there, with the air units in their boxes (generic: from the facts)
    from warcodex.exporters.aids import build_aid

    e = real_engine()
    aid = build_aid(e.base_game, "solstice", engine=e)
    rows = {(str(u), r.where) for r in aid.setup for u in r.units}
    assert ("234P/163", "off the map: Turn 2") in rows
    assert ("1 JG", "off the map: Luftflotte 6") in rows and ("2 JG", "off the map: Grounded") in rows
    assert ("Stell II HQ", "04.18 Stettin (east)") in rows
    # the sequence of play shows the activation loop and who plays it
    kinds = []

    def walk(items):
        for it in items:
            kinds.append((it.kind, it.label))
            walk(it.children)
    walk(aid.sequence)
    assert ("repeat", "Activation") in kinds and ("player_turn", "Activation") in kinds
