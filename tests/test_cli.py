"""The command line, run as a user runs it (`python -m warcodex ...`): exit codes, located errors,
never a traceback, outputs written atomically."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path


def run(*args, cwd=None, input=None):
    return subprocess.run([sys.executable, "-m", "warcodex", *args], capture_output=True, text=True, cwd=cwd,
                          input=input, timeout=300)


def test_check_ok_exits_0_and_lists_provisional_data():
    r = run("check", "games/tiny")
    assert r.returncode == 0, r.stderr
    assert "Tiny Front: ok" in r.stdout
    assert "provisional data (7 item(s)" in r.stderr
    assert "table crt is provisional: invented grid for the example game" in r.stderr


def test_check_a_bundled_game_by_name():
    r = run("check", "tiny", "--quiet")
    assert r.returncode == 0 and "Tiny Front: ok" in r.stdout


def test_check_errors_exit_1_with_file_line_column_and_caret(tmp_path):
    folder = tmp_path / "tiny"
    shutil.copytree("games/tiny", folder)
    path = folder / "movement.wcx"
    text = path.read_text()
    line = text[: text.index("allowance: u.move")].count("\n") + 1
    path.write_text(text.replace("allowance: u.move", "allowance: u.moove"))
    r = run("check", str(folder))
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert f"{path}:{line}:16: error[E-unknown-property]" in r.stderr
    assert "^" in r.stderr


def test_syntax_error_is_located_and_explained(tmp_path):
    folder = tmp_path / "tiny"
    shutil.copytree("games/tiny", folder)
    path = folder / "combat.wcx"
    text = path.read_text()
    path.write_text(text.replace('base: u.attack', 'base: u.attack +', 1))
    r = run("check", str(folder))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "error[E-syntax]" in r.stderr and f"{path}:" in r.stderr


def test_usage_errors_exit_2():
    r = run("check", "no-such-game")
    assert r.returncode == 2
    assert "no game folder or bundled game named 'no-such-game'" in r.stderr
    assert run("frobnicate").returncode == 2


def test_play_log_replay_and_explain(tmp_path):
    log = tmp_path / "g.jsonl"
    r = run("play", "tiny", "--seed", "4", "--log", str(log), "--explain-combat")
    assert r.returncode == 0, r.stderr
    assert "winner:" in r.stdout and "An explained combat" in r.stdout
    assert "Combat Results Table: column" in r.stdout
    header = json.loads(log.read_text().splitlines()[0])
    assert header["format"] == "warcodex-log" and header["seed"] == 4
    r = run("replay", str(log))
    assert r.returncode == 0 and "reproduced:" in r.stdout
    r = run("explain", str(log), "--combat")
    assert r.returncode == 0 and "roll d6:" in r.stdout


def test_replay_detects_a_tampered_log(tmp_path):
    log = tmp_path / "g.jsonl"
    assert run("play", "tiny", "--seed", "4", "--log", str(log)).returncode == 0
    lines = log.read_text().splitlines()
    for i, line in enumerate(lines):
        entry = json.loads(line)
        if entry.get("k") == "action" and entry["action"] == "move":
            entry["args"]["to"] = "0101" if entry["args"]["to"] != "0101" else "1210"
            lines[i] = json.dumps(entry)
            break
    log.write_text("\n".join(lines) + "\n")
    r = run("replay", str(log))
    assert r.returncode == 1 and "Traceback" not in r.stderr


def test_save_and_continue_from_the_command_line(tmp_path):
    save = tmp_path / "s.json"
    r = run("play", "tiny", "--seed", "2", "--max-actions", "10", "--save", str(save))
    assert r.returncode == 0, r.stderr
    r = run("play", "tiny", "--load", str(save))
    assert r.returncode == 0 and "winner:" in r.stdout
    save.write_text("{broken")
    r = run("play", "tiny", "--load", str(save))
    assert r.returncode == 1 and "not valid JSON" in r.stderr and "Traceback" not in r.stderr


def test_info_coverage_and_schema(tmp_path):
    r = run("info", "tiny")
    assert r.returncode == 0 and "meeting" in r.stdout and "provisional items: 7" in r.stdout
    html = tmp_path / "cov.html"
    r = run("coverage", "tiny", "--html", str(html))
    assert r.returncode == 0 and "22 encoded" in r.stdout
    assert "§7.4" in html.read_text()
    r = run("schema")
    assert r.returncode == 0 and json.loads(r.stdout)["title"] == "SaveFile"


def test_human_agent_at_the_terminal():
    # the soviet side is played by a person who asks for an explanation, then passes everything
    answers = "?0\n" + "p\n" * 400
    r = run("play", "tiny", "--agents", "random,human", "--until", "1", input=answers)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "legal action(s)" in r.stdout
    assert "(on a copy of the game" in r.stdout


def test_demo_runs_the_main_job_and_writes_every_output(tmp_path):
    """The README's quick start: check, coverage, self-play with invariants, an explained combat,
    then the log (which replays), a save, the coverage report, player aids, a VASSAL module and the
    replay page of the game (every step of the log, as the engine replays it)."""
    r = run("demo", "tiny", "-o", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    for step in ("1. check", "2. coverage", "3. self-play", "4. an explained combat", "5. player aids", "6. VASSAL module",
                 "6b. replay page"):
        assert step in r.stdout, step
    out = tmp_path / "out"
    for name in ("game.log.jsonl", "final.save.json", "coverage.html", "aids/aids.html", "aids/aids.pdf", "tiny-meeting.vmod",
                 "replay.html"):
        assert (out / name).stat().st_size > 0, name
    steps = sum(1 for line in (out / "game.log.jsonl").read_text().splitlines()[1:] if '"k"' in line)
    assert f"({steps} steps;" in r.stdout  # every entry of the log is a step of the page
    again = run("replay", str(out / "game.log.jsonl"))
    assert again.returncode == 0 and "reproduced" in again.stdout
