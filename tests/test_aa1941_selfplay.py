"""Axis & Allies 1941 self-play: whole games under random agents for 20 seeds, to a victory or a
round cap, with every invariant of the rules checked after every action and phase (no negative
treasury, income equal to the value of the territories controlled, cargo limits, aircraft landed,
neutrals untouched...), and the economy re-checked here independently of the rules. The round cap
keeps the runtime modest; `warcodex play games/axis-allies-1941 --seed N` plays a game to its end
(a victory, or the scenario's last round)."""

from __future__ import annotations

import pytest

from game_scene import selfplay
from test_aa1941_helpers import POWERS, engine
from warcodex.interpreter.agents import RandomAgent, ScriptedAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.play import agents_for, log_text, replay, start

SEEDS = range(20)
ROUND_CAP = 2


@pytest.fixture(scope="module")
def games():
    return selfplay(engine(), "world_1941", SEEDS, ROUND_CAP)


@pytest.mark.slow
def test_twenty_seeds_reach_a_victory_or_the_round_cap(games):
    assert len(games) >= 20
    for g in games:
        state = g.state
        assert (state.over and state.winner in ("axis", "allies")) or state.position.turn > ROUND_CAP
        assert sum(1 for e in g.log if e.get("k") == "action") > 50  # the powers really played


@pytest.mark.slow
def test_the_economy_stays_consistent(games):
    eng = engine()
    board = eng.board
    for g in games:
        state = g.state
        for power in POWERS:
            assert state.side_vars[power]["ipc"] >= 0
            controlled = sum(board.attrs(h)["value"] for h in board.locations
                             if state.loc_vars.get(h, {}).get("controller") is eng.entities[power])
            production = eng.functions["production"](Context(eng, state), (eng.entities[power],), None)
            assert production == controlled
        # income collected each turn was the production level (the rules' invariant checks it at
        # every Collect Income phase); every power that kept its capital has collected
        for power in POWERS:
            assert "collected" in state.side_vars[power] or eng.functions["capital_lost"](Context(eng, state), (eng.entities[power],), None)


@pytest.mark.slow
def test_a_game_replays_exactly_from_its_log():
    eng = engine()
    g = start(eng, "world_1941", 7, agents_for(eng, ["random"], 7))
    g.run(until_turn=1)
    script = ScriptedAgent(eng, g.log)
    again = start(eng, "world_1941", 7, {p: script for p in POWERS})
    again.run(until_turn=1)
    assert log_text(again.log[: len(g.log)]) == log_text(g.log)


@pytest.mark.slow
def test_the_same_seed_plays_the_same_game_in_another_process():
    """Logs are reproducible across processes (Python's string hashing changes between them)."""
    import os
    import subprocess
    import sys

    code = ("import hashlib; from test_aa1941_helpers import engine; "
            "from warcodex.interpreter.play import agents_for, log_text, start; e = engine(); "
            "g = start(e, 'world_1941', 11, agents_for(e, ['random'], 11), trace=False); g.run(until_turn=1); "
            "print(hashlib.sha256(log_text(g.log).encode()).hexdigest())")
    here = os.path.dirname(__file__)
    digests = set()
    for hashseed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed, PYTHONPATH=here + os.pathsep + os.environ.get("PYTHONPATH", ""))
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                             cwd=os.path.dirname(here))
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def _derivations(trace):
    for d in trace:
        yield d
        yield from _derivations(d.get("steps", []))


@pytest.mark.parametrize("shared", [False, True], ids=["an agent per power", "one agent for all"])
def test_joint_choices_replay_as_the_recorded_players_made_them(shared):
    """Allied defenders choose casualties together (`choose ... by [a, b] otherwise c`, §7.2): each
    player proposes once, so the log holds one proposal per distinct agent. A replay (one script for
    every power) asks the sides the log shows were asked, whichever way the agents were grouped."""
    eng = engine()
    one = RandomAgent(2002)
    agents = {p: one for p in POWERS} if shared else agents_for(eng, ["random"], 2)
    g = start(eng, "world_1941", 2, agents)
    g.run(until_turn=1)
    joint = [d["what"] for e in g.log for d in _derivations(e.get("trace", [])) if " agree on " in d["what"]
             or " disagree on " in d["what"]]
    if not shared:
        assert joint, "seed 2 has allied defenders proposing casualties in turn 1"
    again = replay(eng, "world_1941", 2, g.log)
    assert log_text(again.log) == log_text(g.log)
