"""Looking at positions and explanations a player can check: `warcodex query` and `warcodex moves`
on a log or a save, each move's path and step costs term by term, units told apart, a game
stopped early reported as stopped, set-up `log` lines in the log."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from warcodex.cli import cli
from warcodex.dsl.diagnostics import DiagnosticError
from warcodex.dsl.loader import load_game
from warcodex.interpreter.agents import FirstAgent
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import start
from warcodex.interpreter.positions import Position, legal_moves, parse_expression, query

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    """Tiny Front, seed 2, turn 1 played: a log and a save."""
    folder = tmp_path_factory.mktemp("positions")
    log, save = folder / "g.jsonl", folder / "g.save.json"
    r = CliRunner().invoke(cli, ["play", "tiny", "--seed", "2", "--until", "1", "--log", str(log), "--save", str(save)])
    assert r.exit_code == 0, r.output
    return log, save


def test_query_a_log_after_an_entry_with_the_derivation(logged):
    log, _ = logged
    r = CliRunner().invoke(cli, ["query", str(log), 'crt_column([unit_by_id(3)], "0404")', "--at", "3"])
    assert r.exit_code == 0, r.output
    assert "position: turn 1, movement phase, axis to act: after log entry 3" in r.output
    # after entry 3, 0404 holds one infantry division (defense 5): 11th Panzer's 8 against 5 is
    # 1-1 (§7.3), shifted by armor and elite (§7.4); a query evaluates any hex, whoever holds it
    assert 'crt_column([unit_by_id(3)], "0404") = 3-1' in r.output
    assert "odds 8:5 -> 1-1" in r.output and "elite: 2-1 +1 -> 3-1 (§7.4)" in r.output


def test_query_a_save_and_located_errors(logged):
    _, save = logged
    r = CliRunner().invoke(cli, ["query", str(save), "weather == fair and turn == 2"])
    assert r.exit_code == 0 and "position: turn 2" in r.output and "= true" in r.output
    game = load_game(ROOT / "games" / "tiny")
    with pytest.raises(DiagnosticError) as info:
        parse_expression(game, 'move_cost(unit_by_id(1), "0206") + wether')
    got = {(d.code, d.span.column) for d in info.value.diagnostics}
    assert ("E-arity", 1) in got and ("E-undefined", 36) in got
    with pytest.raises(DiagnosticError) as info:
        parse_expression(game, "1 +")
    assert info.value.diagnostics[0].span.file == "<query>"


def test_moves_lists_each_movement_with_its_path_and_step_costs(logged):
    log, _ = logged
    r = CliRunner().invoke(cli, ["moves", str(log), "--at", "1", "--limit", "2"])
    assert r.exit_code == 0, r.output
    assert "axis may take" in r.output and "move: " in r.output
    assert "(Ground movement) for " in r.output
    assert "movement point cost" in r.output and "... and " in r.output


def test_a_move_explains_every_cost_term_with_its_section():
    """A road hex costs 1/2 (§5.2) instead of its terrain; the explanation of a move says so step
    by step; across a minor river +1 (§5.3) and in Mud doubled for mechanized units (§8)."""
    engine = Engine(load_game(ROOT / "games" / "tiny"))
    state = engine.new_game("meeting", seed=0, setup=False)
    state.active, state.phase = "soviet", "movement"
    from warcodex.interpreter.context import Context

    ctx = Context(engine, state, {})
    t = engine.place(ctx, engine.entities["tank_corps"], engine.entities["soviet"], "0707", None, None)
    steps = engine.modes["ground"].explain_steps(ctx, t, ["0707", "0607", "0507"])
    first = steps[0]
    assert first.what == "0707 -> 0607: 2" and first.citations == ("5.1",)
    assert [d.what for d in first.steps[0].steps] == ["base 1", "minor river: 1 +1 -> 2"]
    assert first.steps[0].steps[1].citations == ("5.3",)
    state.vars["weather"] = engine.entities["mud"]
    state.touch()
    mud = engine.modes["ground"].explain_steps(ctx, t, ["0707", "0607"])[0]
    assert mud.what == "0707 -> 0607: 4" and "mud: 2 *2 -> 4" in [d.what for d in mud.steps[0].steps]


def test_units_with_the_same_name_are_told_apart_by_id_and_hex():
    engine = Engine(load_game(ROOT / "games" / "tiny"))
    g = start(engine, "meeting", 1, {s.name: FirstAgent() for s in engine.side_entities}).run(until_turn=1)
    texts = [e["text"] for e in g.log if e.get("k") == "action"]
    assert any(t.startswith("move(u=Infantry division #1 (axis, 0204)") for t in texts)
    assert any("Infantry division #2 (axis, 0206)" in t for t in texts)


def test_a_game_stopped_early_is_reported_as_stopped_and_a_finished_one_with_its_result():
    r = CliRunner().invoke(cli, ["play", "tiny", "--seed", "3", "--until", "2"])
    assert "stopped early after turn 2: no result yet; turns played: 2" in r.output
    assert "(None)" not in r.output and "none (draw)" not in r.output
    r = CliRunner().invoke(cli, ["play", "tiny", "--seed", "3", "--max-actions", "7"])
    assert "stopped early during turn 1: no result yet; turns played: 0; actions: 7" in r.output
    r = CliRunner().invoke(cli, ["play", "tiny", "--seed", "3"])
    assert "turns played: 6" in r.output and ("winner: " in r.output or "result: a draw" in r.output)


def test_set_up_log_lines_are_in_the_log_and_the_output(tmp_path):
    folder = tmp_path / "tiny"
    shutil.copytree(ROOT / "games" / "tiny", folder, ignore=shutil.ignore_patterns("tests"))
    text = (folder / "scenarios.wcx").read_text(encoding="utf-8")
    text = text.replace("    if muddy_start { set weather = mud }",
                        '    if muddy_start { set weather = mud }\n    log "the Axis holds the west bank"')
    (folder / "scenarios.wcx").write_text(text, encoding="utf-8")
    log = tmp_path / "g.jsonl"
    r = CliRunner().invoke(cli, ["play", str(folder), "--seed", "1", "--until", "1", "--log", str(log)])
    assert r.exit_code == 0, r.output
    assert "set-up: the Axis holds the west bank" in r.output
    first = json.loads(log.read_text().splitlines()[1])
    assert first["what"] == "set-up" and first["trace"][0]["what"] == "the Axis holds the west bank"
    assert "reproduced" in CliRunner().invoke(cli, ["replay", str(log)]).output
    explained = CliRunner().invoke(cli, ["explain", str(log), "--all", "-n", "0"]).output
    assert "set-up" in explained and "the Axis holds the west bank" in explained


def test_positions_api_on_a_save(logged):
    _, save = logged
    from warcodex.interpreter.saves import load_save

    engine = Engine(load_game(ROOT / "games" / "tiny"))
    state, _, _ = load_save(engine, save)
    position = Position(engine, state, "the save")
    value, trace = query(position, parse_expression(engine.game, "count(units_of(axis))"))
    assert value == 4 and trace == []
    moved_on, side, by_action, totals = legal_moves(position, limit=1)
    assert side in ("axis", "soviet") and sum(totals.values()) >= 1
    assert moved_on.where == "the save, then up to the next decision" and moved_on.state.phase is not None


def test_a_save_finds_its_bundled_game_by_the_id_it_records(tmp_path):
    """A save records its game's declared id (`aa1941`), not the bundled folder's name
    (`axis-allies-1941`): `query` and `moves` used to need `--game`. The id is resolved through
    each bundled game's `game` declaration; a log whose recorded folder is gone likewise; an id
    no bundled game declares is a clear error that says to name the folder."""
    save, log = tmp_path / "aa.json", tmp_path / "aa.jsonl"
    r = CliRunner().invoke(cli, ["play", "axis-allies-1941", "--seed", "1", "--agents", "first", "--until", "1",
                                 "--save", str(save), "--log", str(log)])
    assert r.exit_code == 0, r.output
    assert json.loads(save.read_text())["game"] == "aa1941"
    r = CliRunner().invoke(cli, ["query", str(save), "turn"])
    assert r.exit_code == 0, r.output
    assert "position: turn 2: the saved position" in r.output and "turn = 2" in r.output
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    header["game_dir"] = str(tmp_path / "moved-away")
    log.write_text("\n".join([json.dumps(header)] + lines[1:]) + "\n")
    r = CliRunner().invoke(cli, ["query", str(log), "turn", "--at", "1"])
    assert r.exit_code == 0, r.output
    assert "turn = 1" in r.output
    data = json.loads(save.read_text())
    data["game"] = "aa1942"
    save.write_text(json.dumps(data))
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "warcodex", "query", str(save), "turn"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "the record is a game of 'aa1942': no bundled game declares that id" in r.stderr
    assert "aa1941 (axis-allies-1941)" in r.stderr and "name the game's folder with --game FOLDER" in r.stderr


def test_a_save_of_a_users_own_game_finds_its_folder_where_it_was_played(tmp_path, monkeypatch):
    """A user's own game (not bundled), played from the folder that holds it, is saved with its
    id; `query` run there finds the game's folder named like that id, as it did before bundled
    games were looked up by id. A folder of that name that declares another id is not taken."""
    game = tmp_path / "mygame"
    shutil.copytree(ROOT / "games" / "tiny", game)
    entry = game / "game.wcx"
    entry.write_text(entry.read_text(encoding="utf-8").replace('game tiny "Tiny Front"', 'game mygame "My Front"', 1),
                     encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["play", "mygame", "--seed", "1", "--agents", "first", "--until", "1", "--save", "s.json"])
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "s.json").read_text())["game"] == "mygame"
    r = CliRunner().invoke(cli, ["query", "s.json", "turn"])
    assert r.exit_code == 0, r.output
    assert "turn = 2" in r.output
    entry.write_text(entry.read_text(encoding="utf-8").replace('game mygame "My Front"', 'game other "Other"', 1),
                     encoding="utf-8")
    r = CliRunner().invoke(cli, ["query", "s.json", "turn"])
    assert r.exit_code != 0  # the UserError `warcodex` prints as such (test_a_save_finds_its_bundled_game...)
    assert "the record is a game of 'mygame': no bundled game declares that id" in str(r.exception)
