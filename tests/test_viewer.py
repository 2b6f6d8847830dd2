"""The replay viewer without a browser: the engine's replay recorded step by step, what each step
did (paths, arrows, retreats, eliminations, dice) checked against the engine's own explanation and
against the Tiny Front rulebook's combat example, the page's data, and the `view` command."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from viewer_games import engine, place, played
from warcodex.dsl import ast
from warcodex.exporters.viewer import ReplayError, build_page, record
from warcodex.exporters.viewer.events import step_events
from warcodex.interpreter.recording import Step
from warcodex.facts import facts_of
from warcodex.interpreter.actions import ActionChoice
from warcodex.interpreter.agents import FirstAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.dice import FixedDice
from warcodex.interpreter.explain import parse_roll
from warcodex.interpreter.play import log_text
from warcodex.interpreter.values import UnitRef


def _whats(trace):
    for d in trace:
        yield d["what"]
        yield from _whats(d.get("steps", []))


# ------------------------------------------------------------------ dice as the engine writes them
@pytest.mark.parametrize("dice", [ast.Dice(count=1, sides=6), ast.Dice(count=2, sides=6), ast.Dice(count=1, sides=10),
                                  ast.Dice(count=3, sides=6, keep=1, keep_highest=True),
                                  ast.Dice(count=3, sides=6, keep=2, keep_highest=False)])
def test_a_roll_in_a_trace_reads_back_as_its_dice(dice):
    eng = engine("tiny")
    state = eng.new_game("meeting", 7)
    ctx = Context(eng, state)
    for _ in range(20):
        ctx.begin_trace()
        total = ctx.roll(dice, None)
        (d,) = ctx.end_trace()
        roll = parse_roll(d.what)
        assert roll is not None, d.what
        assert roll["total"] == total == sum(roll["kept"])
        assert len(roll["faces"]) == dice.count and len(roll["kept"]) == (dice.keep or dice.count)
        assert all(1 <= f <= dice.sides for f in roll["faces"]) and roll["sides"] == dice.sides
        assert sorted(roll["kept"], reverse=dice.keep_highest) == sorted(roll["faces"], reverse=dice.keep_highest)[:len(roll["kept"])]
    assert parse_roll("roll d6: 5 (fixed dice)")["fixed"] is True
    assert parse_roll("Combat Results Table: column 1-2, row 5 -> DR1") is None


# ------------------------------------------------------------------ the recording
def test_every_recorded_step_is_the_position_the_game_had():
    game = played("tiny", "meeting", 3)
    rec = record(game.engine, "meeting", 3, game.log)
    assert len(rec.steps) == len(game.log) + 1 and rec.complete
    for k, expected in enumerate(game.positions):
        got = {uid: place(u) for uid, u in rec.units_at(k).items() if place(u) is not None}
        assert got == expected, f"step {k}"


def test_every_recorded_step_has_the_cards_where_the_game_had_them():
    """No Retreat! (card-driven): each side's hand after every entry."""
    game = played("no-retreat", "campaign", 1, until=1)
    rec = record(game.engine, "campaign", 1, game.log)
    cards = rec.initial_cards
    assert cards["hands"] == game.hands[0]
    for k, step in enumerate(rec.steps[1:], 1):
        cards = step.cards or cards
        assert cards["hands"] == game.hands[k], f"step {k}"
    assert any(game.hands[-1].values())


def test_a_log_that_does_not_replay_is_refused_with_the_entry_where_it_diverges():
    game = played("tiny", "meeting", 3)
    log = json.loads(json.dumps(game.log))
    first_move = next(e for e in log if e.get("action") == "move")
    first_move["args"]["to"] = "0101"  # a move the unit could not make
    with pytest.raises(ReplayError, match="does not replay|rules error"):
        record(game.engine, "meeting", 3, log)
    edited = json.loads(json.dumps(game.log))
    edited[5]["trace"] = []  # the same decisions, another record of what they did
    with pytest.raises(ReplayError, match="entry 5 differs"):
        record(game.engine, "meeting", 3, edited)


def test_a_game_stopped_early_is_recorded_to_its_last_entry():
    game = played("tiny", "meeting", 4, until=2)
    rec = record(game.engine, "meeting", 4, game.log)
    assert not rec.complete and len(rec.steps) == len(game.log) + 1
    last = {uid: place(u) for uid, u in rec.units_at(len(game.log)).items() if place(u) is not None}
    assert last == game.positions[-1]


# ------------------------------------------------------------------ what each step did
def test_each_moves_path_is_the_path_the_engine_explains():
    """A move action's explanation says `X moves A -> B -> C for cost`; the page draws that path."""
    game = played("tiny", "meeting", 3)
    rec = record(game.engine, "meeting", 3, game.log)
    units = dict(rec.initial_units)
    checked = 0
    for step in rec.steps[1:]:
        events = step_events(step, units, game.engine.board)
        entry = step.entry
        if entry.get("action") == "move":
            said = [m.group(1) for m in (re.search(r" moves (\d{4}(?: -> \d{4})+)", w) for w in _whats(entry["trace"])) if m]
            path = said[0].split(" -> ")
            moves = [m for m in events["moves"] if m["u"] == entry["args"]["u"]["unit"]]
            assert [m["path"] for m in moves] == [path] and moves[0]["kind"] == "move"
            assert "arrows" not in events  # a move is not an attack
            checked += 1
        rolls = [parse_roll(w) for w in _whats(entry.get("trace", [])) if re.match(r"roll \d*d\d+: ", w)]
        assert events.get("dice", []) == rolls
        eliminated = sum(1 for w in _whats(entry.get("trace", [])) if w.endswith(" is eliminated"))
        assert eliminated == sum(1 for r in events.get("removed", []) if r["box"] == "eliminated")
        for uid, records in step.changed.items():
            units[uid] = records[-1]
    assert checked > 20


def test_the_rulebook_combat_example_is_drawn_as_two_attacks_a_retreat_and_an_advance():
    """Tiny Front §7.4's example: in Fair weather the 11th Panzer (8) and an infantry division (5)
    attack a rifle division (4) in a Town; 13 against 8 is 1-1, armor and elite shifts make 3-1, the
    Axis rolls a 4: DR2 (§7.5). The rifle division retreats two hexes, each farther from the combat
    hex (§7.6), and is marked Disrupted (§7.5); one attacker may advance into the empty hex (§7.7)."""
    eng = engine("tiny")
    board = eng.board
    state = eng.new_game("meeting", 1, setup=False)
    ctx = Context(eng, state, {s.name: FirstAgent() for s in eng.side_entities})
    town = "0805"  # Kalach
    west = [h for h in board.neighbors(town) if h < town and not board.edge(h, town)]
    panzer = eng.place(ctx, eng.entities["panzer"], eng.entities["axis"], west[0], "11th Panzer", None)
    infantry = eng.place(ctx, eng.entities["infantry"], eng.entities["axis"], west[1], None, None)
    rifle = eng.place(ctx, eng.entities["rifle"], eng.entities["soviet"], town, None, None)
    state.phase, state.active = "combat", "axis"
    state.rng = FixedDice([4])
    before = dict(state.units)
    state.watched_units = []
    ctx.begin_trace()
    ctx.choices = []
    choice = ActionChoice("attack", (("target", town), ("attackers", (panzer, infantry))))
    eng.actions["attack"].apply(ctx, choice)
    trace = [d.to_json() for d in ctx.end_trace()]
    text = "\n".join(_whats(trace))
    assert "odds 13:8 -> 1-1" in text and "3-1" in text and "-> DR2" in text  # the engine agrees with the rulebook
    entry = {"k": "action", "side": "axis", "action": "attack", "trace": trace,
             "args": {"target": town, "attackers": [{"unit": panzer.id}, {"unit": infantry.id}]}}
    step = Step.from_watched(entry, state.watched_units, before)
    events = step_events(step, before, board)

    assert events["dice"] == [{"dice": "d6", "sides": 6, "faces": [4], "kept": [4], "total": 4, "fixed": True}]
    assert sorted((a["from"], a["to"], a["kind"]) for a in events["arrows"]) == sorted([
        (west[0], town, "attack"), (west[1], town, "attack")])
    retreat = next(m for m in events["moves"] if m["u"] == rifle.id)
    assert retreat["kind"] == "retreat" and retreat["path"][0] == town and len(retreat["path"]) == 3
    assert retreat["rule"]["cites"] == ["7.6"]  # the rule that moved it: Retreats
    assert [board.distance(town, h) for h in retreat["path"]] == [0, 1, 2]
    assert {"u": rifle.id, "on": ["disrupted"], "off": []} in events["markers"]
    advance = [m for m in events["moves"] if m["u"] in (panzer.id, infantry.id)]
    assert len(advance) == 1 and advance[0]["kind"] == "advance" and advance[0]["path"][-1] == town
    assert advance[0]["rule"]["cites"] == ["7.7"]  # Advance after combat
    assert state.units[advance[0]["u"]].loc == town and state.units[rifle.id].loc == retreat["path"][-1]


# ------------------------------------------------------------------ the page's data
def _page_data(html: str) -> dict:
    text = re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S).group(1)
    return json.loads(text)


def test_the_page_is_one_file_that_names_no_other():
    game = played("tiny", "meeting", 3)
    rec = record(game.engine, "meeting", 3, game.log)
    html = build_page(rec, facts_of(rec.engine, "meeting"), source="a test")
    assert not re.search(r'(src|href)="(https?:)?//', html), "the page must not load anything"
    assert "<script src" not in html and '<link rel="stylesheet"' not in html
    data = _page_data(html)
    assert len(data["steps"]) == len(game.log)
    assert data["sections"]["7.3"] == "Odds and the Combat Results Table"  # the citations' titles
    assert {s["label"] for s in data["sides"]} == {"Axis", "Soviet"}
    assert data["phases"]["movement"] == "Movement Phase"
    assert ["var", "weather"] in data["pins"] and ["side_var", "vp"] in data["pins"]
    assert data["control"] == ["controller"]
    # every unit record the page can show has its counter art
    keys = set(data["symbols"]["units"])
    for rec_ in data["initial"]["units"].values():
        t = data["types"][rec_[0]]
        assert f"{t['name']}|{data['sides'][rec_[1]]['name']}|{rec_[2]}|{max(1, min(rec_[5], t['max']))}" in keys


def test_the_page_knows_which_piles_are_hidden():
    """A replay is a referee's record, but it does not spell out a face-down pile (the cup, the
    draw pile: a count, as for the draw pile before) and marks an owner-only one
    (tests/data/games/chit_cup: `pile "cup" face_down`, `pile "set_aside" owner_only`)."""
    from warcodex.dsl.checker import check_path
    from warcodex.interpreter.agents import FirstAgent
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.play import start

    game, _ = check_path(Path(__file__).parent / "data" / "games" / "chit_cup")
    engine = Engine(game)
    played_game = start(engine, "basic", 1, {"red": FirstAgent(), "blue": FirstAgent()}).run(until_turn=1)
    rec = record(engine, "basic", 1, played_game.log)
    data = _page_data(build_page(rec, facts_of(engine, "basic"), source="a test"))
    assert data["hidden_piles"]["chits"] == {"draw": "face_down", "cup": "face_down", "set_aside": "owner_only"}


# ------------------------------------------------------------------ the command
def test_view_writes_a_page_from_a_log_and_from_a_save(tmp_path):
    from warcodex.cli import cli
    from warcodex.interpreter.saves import read_log

    runner = CliRunner()
    log, save = tmp_path / "game.log.jsonl", tmp_path / "mid.save.json"
    result = runner.invoke(cli, ["play", "tiny", "--seed", "2", "--max-actions", "30", "--log", str(log),
                                 "--save", str(save), "--dice", "6,1,6,1,6"])  # fixed dice replay too
    assert result.exit_code == 0, result.output
    for source in (log, save):
        out = tmp_path / f"{source.stem}.html"
        result = runner.invoke(cli, ["view", str(source), "-o", str(out)])
        assert result.exit_code == 0, result.output
        data = _page_data(out.read_text(encoding="utf-8"))
        assert data["complete"] is False and len(data["steps"]) == len(read_log(log)[1])
    result = runner.invoke(cli, ["view", str(log), "-o", str(log)])
    assert result.exit_code == 2 and "replace the record" in result.output
    result = runner.invoke(cli, ["view", str(log), "-o", str(tmp_path / "x.html"), "--pin", "nothing"])
    assert result.exit_code == 2 and "no global or side variable 'nothing'" in result.output


def test_the_same_log_makes_the_same_page_whatever_python_s_hash_seed(tmp_path):
    """A page is a file people diff and publish: the same log gives the same bytes. (The places
    whose variables changed were once walked in set order, which changes with PYTHONHASHSEED.)"""
    import os
    import subprocess
    import sys

    from warcodex.cli import cli

    log = tmp_path / "game.log.jsonl"
    assert CliRunner().invoke(cli, ["play", "tiny", "--seed", "2", "--log", str(log)]).exit_code == 0
    pages = []
    for seed in ("1", "2"):
        out = tmp_path / f"page{seed}.html"
        subprocess.run([sys.executable, "-m", "warcodex.cli", "view", str(log), "-o", str(out)], check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True)
        pages.append(out.read_bytes())
    assert pages[0] == pages[1]


def test_view_refuses_a_tampered_log_and_a_save_whose_position_is_not_its_logs(tmp_path, monkeypatch, capsys):
    from warcodex.cli import cli, main

    runner = CliRunner()
    log, save = tmp_path / "g.log.jsonl", tmp_path / "g.save.json"
    assert runner.invoke(cli, ["play", "tiny", "--seed", "2", "--max-actions", "12", "--log", str(log),
                               "--save", str(save)]).exit_code == 0
    lines = log.read_text().splitlines()
    entry = json.loads(lines[3])
    entry["args"]["to"] = "0101"
    lines[3] = json.dumps(entry, sort_keys=True)
    log.write_text("\n".join(lines) + "\n")
    data = json.loads(save.read_text())
    data["state"]["units"][0]["loc"] = "0101"
    save.write_text(json.dumps(data))
    cut = tmp_path / "cut.log.jsonl"  # read through the validated log reader: a cut log is refused, located
    cut.write_text("\n".join(log.read_text().splitlines()[:5]) + "\n")
    fifo = tmp_path / "pipe.log.jsonl"  # never read (it would block)
    os.mkfifo(fifo)
    for bad, message in ((log, "does not replay"), (save, "not the one its log leads to"),
                         (cut, "is incomplete or has extra lines"), (fifo, "FIFO")):
        monkeypatch.setattr("sys.argv", ["warcodex", "view", str(bad), "-o", str(tmp_path / "x.html")])
        with pytest.raises(SystemExit) as exit_:
            main()
        said = capsys.readouterr()
        assert exit_.value.code == 1 and message in said.err and "Traceback" not in said.err, said.err
        assert not (tmp_path / "x.html").exists()
