"""Whole games of the tiny example game: self-play, legality, determinism, saves and replay."""

from __future__ import annotations

import json
import random

import pytest

from warcodex.dsl.loader import load_game
from warcodex.interpreter.actions import ActionChoice
from warcodex.interpreter.agents import FirstAgent, RandomAgent
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import Game, agents_for, log_text, play, replay, start
from warcodex.interpreter.saves import SaveError, load_save, save_game
from warcodex.interpreter.values import RuleError, UnitRef


@pytest.fixture(scope="module")
def engine():
    return Engine(load_game("games/tiny"))


class CheckingAgent(RandomAgent):
    """A random agent that, before each choice, checks the enumerator against the applier:
    every enumerated action validates, and corrupted variants of it are refused."""

    def __init__(self, seed, engine):
        super().__init__(seed)
        self.engine = engine
        self.checked = 0
        self.refused = 0

    def choose_action(self, ctx, side, legal):
        choice = super().choose_action(ctx, side, legal)
        if choice is None:
            return None
        snap = ctx.state.snapshot()
        action = self.engine.actions[choice.action]
        action.validate(ctx, choice)  # raises if the enumerator produced an illegal action
        self.checked += 1
        for bad in self._corrupt(choice, ctx):
            with pytest.raises(RuleError):
                action.validate(ctx, bad)
            self.refused += 1
        assert ctx.state.units == snap.units  # validation changes nothing
        return choice

    def _corrupt(self, choice, ctx):
        args = dict(choice.args)
        if choice.action == "move":
            u = args["u"]
            reach = self.engine.modes["ground"].reachable(ctx, u)
            here = ctx.state.units[u.id].loc
            unreachable = [h for h in self.engine.board.locations if h not in reach and h != here]
            if unreachable:
                yield ActionChoice("move", (("u", u), ("to", self.rng.choice(unreachable))))
        if choice.action == "attack":
            target = args["target"]
            friendly = [h for h in ctx.state.at if ctx.state.units[ctx.state.at[h][0]].side == ctx.state.active]
            if friendly:
                yield ActionChoice("attack", (("target", friendly[0]), ("attackers", args["attackers"])))
            yield ActionChoice("attack", (("target", target), ("attackers", ())))


def test_200_seeds_play_to_the_end_with_only_legal_actions(engine):
    winners = {}
    checked = refused = 0
    for seed in range(200):
        agents = {s.name: CheckingAgent(seed * 10 + i, engine) for i, s in enumerate(engine.side_entities)}
        game = start(engine, "meeting", seed, agents, trace=False, check_invariants=True).run()
        assert game.state.over and game.state.ended
        assert game.log[-1]["k"] == "end"
        winners[game.state.winner] = winners.get(game.state.winner, 0) + 1
        checked += sum(a.checked for a in agents.values())
        refused += sum(a.refused for a in agents.values())
    assert set(winners) <= {"axis", "soviet", None}
    assert sum(winners.values()) == 200
    assert checked > 5000 and refused > 5000


def test_same_seed_same_agents_give_a_byte_identical_log(engine):
    a = log_text(play(engine, "meeting", seed=42).log)
    b = log_text(play(engine, "meeting", seed=42).log)
    c = log_text(play(engine, "meeting", seed=43).log)
    assert a == b
    assert a != c


def test_a_save_taken_mid_game_continues_to_the_same_log(engine, tmp_path):
    full = start(engine, "meeting", 9, agents_for(engine, ["random"], 9)).run()
    part = start(engine, "meeting", 9, agents_for(engine, ["random"], 9)).run(max_actions=20)
    assert not part.state.over
    save_game(engine, part, tmp_path / "mid.json")
    state, agents, log = load_save(engine, tmp_path / "mid.json")
    resumed = Game(engine, state, agents, log=log).run()
    assert log_text(resumed.log) == log_text(full.log)


def test_replay_reproduces_the_log(engine):
    original = play(engine, "meeting", seed=5)
    again = replay(engine, "meeting", 5, original.log)
    assert log_text(again.log) == log_text(original.log)


def test_corrupt_and_mismatching_saves_are_refused(engine, tmp_path):
    game = start(engine, "meeting", 3, agents_for(engine, ["random"], 3)).run(max_actions=5)
    path = tmp_path / "s.json"
    save_game(engine, game, path)
    data = json.loads(path.read_text())

    (tmp_path / "garbage.json").write_text("{not json")
    with pytest.raises(SaveError, match="not valid JSON"):
        load_save(engine, tmp_path / "garbage.json")

    bad = dict(data, version=99)
    (tmp_path / "v.json").write_text(json.dumps(bad))
    with pytest.raises(SaveError, match="version 99"):
        load_save(engine, tmp_path / "v.json")

    bad = dict(data, rules="0000000000000000")
    (tmp_path / "r.json").write_text(json.dumps(bad))
    with pytest.raises(SaveError, match="different rules"):
        load_save(engine, tmp_path / "r.json")

    bad = json.loads(json.dumps(data))
    bad["state"]["units"][0]["steps"] = "many"
    (tmp_path / "c.json").write_text(json.dumps(bad))
    with pytest.raises(SaveError, match="corrupt: state.units.0.steps"):
        load_save(engine, tmp_path / "c.json")

    bad = json.loads(json.dumps(data))
    bad["state"]["units"][0]["loc"] = "9999"
    (tmp_path / "l.json").write_text(json.dumps(bad))
    with pytest.raises(SaveError, match="not on the map"):
        load_save(engine, tmp_path / "l.json")


def test_snapshots_share_units_and_stay_independent(engine):
    state = engine.new_game("meeting", seed=1)
    snap = state.snapshot()
    uid = next(iter(state.units))
    assert snap.units[uid] is state.units[uid]  # structural sharing
    from dataclasses import replace

    state.put(replace(state.units[uid], loc="0101"))
    assert snap.units[uid].loc != "0101"
    assert uid in state.at["0101"] and uid not in snap.at.get("0101", ())


def test_first_agent_games_are_deterministic_without_a_seed_effect_on_choices(engine):
    agents = {s.name: FirstAgent() for s in engine.side_entities}
    a = start(engine, "meeting", 1, agents).run()
    b = start(engine, "meeting", 1, {s.name: FirstAgent() for s in engine.side_entities}).run()
    assert log_text(a.log) == log_text(b.log)


def test_step_limit_stops_runaway_rules(engine):
    from warcodex.interpreter.context import Context

    state = engine.new_game("meeting", seed=1)
    ctx = Context(engine, state, {}, step_limit=50)
    with pytest.raises(RuleError, match="step limit"):
        for u in list(state.units):
            engine.modes["ground"].search(ctx, state.units[u].loc, UnitRef(u), engine.entities["axis"])


def test_the_step_limit_bounds_one_decision_point_not_a_whole_game(engine):
    # measure the largest single decision point, then play with a limit just above it, far below
    # the steps of the whole game
    probe = start(engine, "meeting", 1, agents_for(engine, ["random", "random"], 1))
    peaks = []
    tick = probe.ctx.tick

    def counting(span):
        tick(span)
        peaks.append(probe.ctx.steps)
    probe.ctx.tick = counting
    probe.run()
    # the steps of the whole game: each decision point's last count before the next one resets it
    total = sum(p for p, after in zip(peaks, peaks[1:] + [0]) if after < p)
    game = start(engine, "meeting", 1, agents_for(engine, ["random", "random"], 1))
    game.ctx.step_limit = max(peaks) + 10
    assert game.ctx.step_limit < total
    game.run()  # no step-limit error
    assert log_text(game.log) == log_text(probe.log)
