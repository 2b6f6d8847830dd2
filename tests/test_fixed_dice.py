"""Fixed dice everywhere: `warcodex play --dice 3,5,1` / `--dice-file`, recorded in the log for
`replay`, kept in saves, marked in explanations; the strict dice of rule tests."""

from __future__ import annotations

import copy
import json

import pytest
from click.testing import CliRunner

from warcodex.cli import cli
from warcodex.dsl.loader import load_game
from warcodex.interpreter.agents import RandomAgent
from warcodex.interpreter.dice import FixedDice, parse_dice
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import log_text, replay, start
from warcodex.interpreter.saves import load_save, save_game
from warcodex.interpreter.values import RuleError


def test_strict_dice_refuse_to_run_out_and_seeded_dice_go_on_with_the_seed():
    strict = FixedDice([3, 5])
    assert [strict.randint(1, 6), strict.randint(1, 6)] == [3, 5]
    with pytest.raises(RuleError, match="ran out after 2 rolls"):
        strict.randint(1, 6)
    seeded = FixedDice([3], seed=7)
    unfixed = FixedDice([], seed=7)
    assert seeded.randint(1, 6) == 3
    assert [seeded.randint(1, 6) for _ in range(5)] == [unfixed.randint(1, 6) for _ in range(5)]
    with pytest.raises(RuleError, match="outside 1..6"):
        FixedDice([7]).randint(1, 6)
    twin = copy.deepcopy(seeded)
    assert twin.randint(1, 6) == seeded.randint(1, 6) and twin.rolls == [3]


def test_dice_text_and_files():
    assert parse_dice("3, 5 1") == [3, 5, 1]
    assert parse_dice("# the combat\n4 6\n1, # and the weather\n2\n", "rolls.txt") == [4, 6, 1, 2]
    with pytest.raises(ValueError, match=r"rolls.txt:2:3: 'x' is not a die roll"):
        parse_dice("1\n2 x\n", "rolls.txt")
    with pytest.raises(ValueError, match="'0' is not a die roll"):
        parse_dice("0")


def _engine():
    return Engine(load_game("games/tiny"))


def _agents(engine, seed):
    return {s.name: RandomAgent(seed * 10 + i) for i, s in enumerate(engine.side_entities)}


def test_a_game_with_fixed_dice_rolls_them_first_and_replays_identically():
    engine = _engine()
    g = start(engine, "meeting", 3, _agents(engine, 3), dice=[6, 6, 6, 1]).run()
    rolls = [d for e in g.log for d in _rolls(e.get("trace", []))]
    assert rolls[:4] == ["roll d6: 6 (fixed dice)", "roll d6: 6 (fixed dice)", "roll d6: 6 (fixed dice)",
                         "roll d6: 1 (fixed dice)"]
    assert all("fixed" not in r for r in rolls[4:])
    again = replay(engine, "meeting", 3, g.log, dice=[6, 6, 6, 1])
    assert log_text(again.log) == log_text(g.log)


def _rolls(trace):
    for d in trace:
        if d["what"].startswith("roll d6"):
            yield d["what"]
        yield from _rolls(d.get("steps", []))


def test_a_save_keeps_the_dice_not_rolled_yet(tmp_path):
    engine = _engine()
    g = start(engine, "meeting", 3, _agents(engine, 3), dice=[6, 6, 6, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4])
    g.run(max_actions=12)
    save_game(engine, g, tmp_path / "s.json")
    data = json.loads((tmp_path / "s.json").read_text())
    assert data["state"]["dice"][:3] == [6, 6, 6] and data["state"]["dice_used"] == g.state.rng.used
    state, _, _ = load_save(engine, tmp_path / "s.json")
    assert isinstance(state.rng, FixedDice) and state.rng.remaining == g.state.rng.remaining
    assert state.rng.randint(1, 6) == g.state.rng.randint(1, 6)


def test_play_dice_options_log_replay_and_explain(tmp_path):
    rolls = tmp_path / "rolls.txt"
    rolls.write_text("# the first combat\n6 6\n", encoding="utf-8")
    log = tmp_path / "g.jsonl"
    r = CliRunner().invoke(cli, ["play", "tiny", "--seed", "3", "--dice", "6,6", "--dice-file", str(rolls),
                                 "--log", str(log)])
    assert r.exit_code == 0, r.output
    assert "fixed dice: 4 of 4 rolled" in r.output
    header = json.loads(log.read_text().splitlines()[0])
    assert header["dice"] == [6, 6, 6, 6]
    assert "reproduced" in CliRunner().invoke(cli, ["replay", str(log)]).output
    explained = CliRunner().invoke(cli, ["explain", str(log), "--combat"]).output
    assert "roll d6: 6 (fixed dice)" in explained
    bad = CliRunner().invoke(cli, ["play", "tiny", "--dice", "3,x"])
    assert bad.exit_code == 2 and "'x' is not a die roll" in bad.output
