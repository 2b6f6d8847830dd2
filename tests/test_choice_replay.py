"""A line a search plays again (search_support.ChoiceReplay: the choices already made in an action
or an automatic step, then the option searched) must ask as the game it repeats asked. One
replay agent plays every side, but the game had one agent a side: a joint choice (`choose ... by
[a, b] otherwise c`, Context.decide_joint) asked each player for a proposal there. Asked of one
player only, the line fell out of step with the record (A&A 1941, s9: a power's casualty taken
from another power's options, "japan chose option 4 of 2 for v", every greedy-Allies game of
main failed in its first rounds)."""

from __future__ import annotations

import random

from warcodex.interpreter.context import Context
from warcodex.interpreter.search_support import ChoiceReplay

from test_aa1941_helpers import Script, Table


def _joint_casualty(replay_made=None):
    """Japan's one hit on China, defended by a British and an American infantry: the defending
    powers choose together, Japan (the attacker) decides when they disagree (§7.5). Played with
    one agent a side (the British take their own infantry, the Americans theirs: they disagree,
    Japan takes the first option), or, with `replay_made`, by one ChoiceReplay for every side."""
    t = Table(active="japan", phase="combat", agents={
        "united_kingdom": Script(picks={"v": 0}), "united_states": Script(picks={"v": 1}),
        "japan": Script(picks={"v": 1})})
    uk = t.place("infantry", "united_kingdom", "china")
    us = t.place("infantry", "united_states", "china")
    t.place("tank", "japan", "china")
    replay = None
    if replay_made is not None:
        replay = ChoiceReplay(0, replay_made, 0, random.Random(0))
        t.ctx = Context(t.eng, t.state, {p: replay for p in t.agents})
    t.ctx.choices = []
    t.call("defender_takes", "china", t.side("japan"), 1, "any", False)
    taken = [u for u in (uk, us) if t.var(u, "casualty")]
    return taken, list(t.ctx.choices), replay


def test_a_replay_asks_every_player_of_a_joint_choice_as_the_game_did():
    taken, made, _ = _joint_casualty()
    assert [c["by"] for c in made] == ["united_kingdom", "united_states", "japan"]  # two proposals, then Japan
    replayed, remade, replay = _joint_casualty(made)
    assert replayed == taken and len(taken) == 1
    assert [c["by"] for c in remade] == ["united_kingdom", "united_states", "japan"]
    assert replay.calls == 3 and not replay.mismatch


def test_a_record_ending_inside_a_joint_choice_asks_the_players_not_asked_yet():
    # The British proposal was made; the choice searched is the Americans' (the option `0` the
    # replay was given): both are asked, and Japan decides as they disagree.
    _, made, _ = _joint_casualty()
    _, remade, replay = _joint_casualty(made[:1])
    assert [c["by"] for c in remade][:2] == ["united_kingdom", "united_states"]
    assert replay.calls >= 2 and not replay.mismatch


def test_a_recorded_index_out_of_range_is_a_mismatch_not_a_rules_error():
    # A line that took another path is worth nothing (the search then chooses at random); it must
    # not fail the game with "chose option 4 of 2".
    replay = ChoiceReplay(0, [{"choice": "v", "by": "japan", "index": 4}], 0, random.Random(0))
    index = replay.choose(None, "japan", "v", ("a", "b"), False)
    assert index in (0, 1) and replay.mismatch
    replay = ChoiceReplay(0, [{"choice": "dive", "by": "japan", "indices": [0, 3]}], (0,), random.Random(0))
    picked = replay.choose_subset(None, "japan", "dive", ("a", "b"), 0, 2)
    assert all(i in (0, 1) for i in picked) and replay.mismatch
