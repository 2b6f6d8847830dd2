"""Reliability: every failure class of issue #22 gives a located message (or works), never a
traceback, a hang or a silent acceptance. Each test is one of the issue's reproducers; the last
runs a slice of the hypothesis campaign of bench/reliability.py (the full one runs on demand:
`python bench/reliability.py --inputs 10000`)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import reliability as rel  # noqa: E402
from warcodex.dsl.checker import check_path  # noqa: E402
from warcodex.interpreter.engine import Engine  # noqa: E402
from warcodex.interpreter.play import agents_for, start  # noqa: E402
from warcodex.interpreter.saves import SaveError, load_save, save_game  # noqa: E402

TINY = ROOT / "games" / "tiny"


def cli(*argv: str, bound: float = 60):
    """(exit status, stdout, stderr) of `warcodex ARGV` run in this process."""
    return rel.run_cli([str(a) for a in argv], bound)


def refused(result, *words: str) -> str:
    code, out, err = result
    assert code == 1, (code, out[-500:], err[-1500:])
    assert "Traceback" not in err and "internal error" not in err, err
    for w in words:
        assert w in err, (w, err[-1500:])
    return err


@pytest.fixture
def game(tmp_path) -> Path:
    target = tmp_path / "tiny"
    shutil.copytree(TINY, target)
    return target


def add_rules(game: Path, text: str, name: str = "extra.wcx") -> Path:
    (game / name).write_text(text, encoding="utf-8")
    entry = game / "game.wcx"
    entry.write_text(entry.read_text(encoding="utf-8") + f'\ninclude "{name}"\n', encoding="utf-8")
    return game / name


# ------------------------------------------------------------------ includes and files
def test_an_include_may_not_leave_the_game_folder_unless_its_root_is_named(game, tmp_path):
    outside = tmp_path / "secret.wcx"
    outside.write_text('function leaked(): int "l" §7 = 1  # the first line of a private file\n', encoding="utf-8")
    entry = game / "game.wcx"
    entry.write_text(f'include "../secret.wcx"\n' + entry.read_text(encoding="utf-8"), encoding="utf-8")
    err = refused(cli("check", game), "error[E-include]", "lies outside the game's folder", "game.wcx:1:1")
    assert "private file" not in err  # refused before reading: nothing of it is shown
    code, out, err = cli("--include-root", tmp_path, "check", game)
    assert code == 0, err


def test_a_fifo_dev_zero_a_folder_and_a_symlink_loop_are_refused_without_reading(game):
    os.mkfifo(game / "pipe.wcx")
    os.symlink(game / "loop_b.wcx", game / "loop_a.wcx")
    os.symlink(game / "loop_a.wcx", game / "loop_b.wcx")
    os.symlink("/dev/zero", game / "zero.wcx")
    (game / "folder.wcx").mkdir()
    cases = {"pipe.wcx": "FIFO", "loop_a.wcx": "loop of symbolic links", "folder.wcx": "folder",
             "zero.wcx": "lies outside the game's folder"}
    entry = game / "game.wcx"
    original = entry.read_text(encoding="utf-8")
    for name, words in cases.items():
        entry.write_text(f'include "{name}"\n' + original, encoding="utf-8")
        started = time.monotonic()
        refused(cli("check", game, bound=20), "error[E-include]", words)
        assert time.monotonic() - started < 20


def test_dev_zero_named_with_its_root_is_refused_as_a_device(game):
    entry = game / "game.wcx"
    entry.write_text('include "/dev/zero"\n' + entry.read_text(encoding="utf-8"), encoding="utf-8")
    refused(cli("--include-root", "/dev", "check", game, bound=20), "character device, not a regular file")


def test_invalid_utf8_is_reported_at_its_line_and_column(game):
    path = game / "combat.wcx"
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2][:10] + b"\xff" + lines[2][10:]
    path.write_bytes(b"\n".join(lines))
    err = refused(cli("check", game), "combat.wcx:3:11: error[E-include]: invalid UTF-8 (byte 0xff)")
    assert "position" not in err


def test_a_diagnostic_at_line_100_column_100_shows_no_emoji_and_no_markup(game):
    prefix = 'function m(): int "[bold]x[/] :smile:" §7 = '
    add_rules(game, "\n" * 99 + " " * (99 - len(prefix)) + prefix + "nope\n")
    err = refused(cli("check", game), "extra.wcx:100:100: error[E-undefined]: unknown name 'nope'", "[bold]x[/] :smile:")
    assert "\N{HUNDRED POINTS SYMBOL}" not in err and "\N{SMILING FACE WITH OPEN MOUTH AND SMILING EYES}" not in err


# ------------------------------------------------------------------ deep nesting, huge numbers
def test_deep_nesting_and_huge_numbers_are_located_errors_in_check_and_fmt(game):
    deep = add_rules(game, 'function deep(): bool "d" §7 = ' + "not " * 1000 + "true\n", "deep.wcx")
    big = add_rules(game, 'function big(): int "b" §7 = ' + "9" * 5000 + "\n", "big.wcx")
    err = refused(cli("check", game), "deep.wcx:1:", "error[E-nesting]", "big.wcx:1:30: error[E-number]")
    assert max(len(line) for line in err.splitlines()) < 200  # a long line is shown as a window
    for path, code in ((deep, "E-nesting"), (big, "E-number")):
        refused(cli("fmt", "--check", path), f"error[{code}]")


# ------------------------------------------------------------------ overlay values
@pytest.mark.parametrize("overlay,message", [
    ("override unit panzer { attack: 0:0 }", "odds 0:0 cannot be computed"),
    ('override unit panzer { attack: "eight" }', "attack of unit 'panzer' is a whole number (8); the override gives a string"),
    ("override unit panzer { move: -1 }", "move of unit 'panzer' is never negative in the rules (6)"),
    ("override game tiny { dice: d0 }", "cannot roll d0: a die has 1 to 1000 faces"),
    ("override game tiny { turn_order: [] }", "an empty turn_order"),
    ("override unit infantry { steps: 0 }", "unit 'infantry' has 0 steps"),
    ("override unit infantry { steps: 1000000 }", "unit 'infantry' has 1,000,000 steps: a unit has 1 to 99"),
    ("override scenario meeting { last_turn: 1000000000 }", "more than the 999 a turn track can show"),
])
def test_overlay_values_are_checked(game, overlay, message):
    (game / "overlay.wcx").write_text(overlay + "\n", encoding="utf-8")
    refused(cli("check", game), "overlay.wcx:1:", message)


def test_published_values_of_the_same_kind_are_accepted(game):
    (game / "overlay.wcx").write_text("override unit panzer { attack: 9 move: 5 }\n", encoding="utf-8")
    code, out, err = cli("check", game)
    assert code == 0, err


# ------------------------------------------------------------------ recursion and bounds
@pytest.mark.parametrize("rules,chain", [
    ('procedure lose_it(u: unit) "l" §7 { lose_it(u) }', "procedure lose_it -> procedure lose_it"),
    ('function f(n: int): int "f" §7 = g(n) + 1\nfunction g(n: int): int "g" §7 = 2 * f(n)',
     "function f -> function g -> function f"),
    ('quantity q(n: int): int "q" §7 { base: q(n) }', "quantity q -> quantity q"),
    ('on placed(u: unit, h: location) "again" §9 { place(infantry, axis, h) }', "event placed"),
])
def test_rules_that_reach_themselves_on_every_path_are_refused(game, rules, chain):
    add_rules(game, rules + "\n")
    refused(cli("check", game), "error[E-recursion]", chain, "it can never finish")


def test_bounded_recursion_passes_check_and_runaway_recursion_stops_with_a_located_error(game):
    add_rules(game, 'procedure down(k: int) "d" §7 { if k > 0 { down(k - 1) } }\n'
                    'on turn_start "t" §9 when turn == 2 { down(10) }\non turn_start "t" §9 when turn == 3 { down(5000) }\n')
    # located in the procedure: at its call (closure evaluator) or at its name (generated code)
    err = refused(cli("play", game, "--seed", "1"), "extra.wcx:1:", "error[E-runtime]: down: rules call each other more "
                  "than 100 levels deep")
    assert "hint: a rule calls itself" in err


@pytest.mark.parametrize("body,message", [
    ("let xs = list(range(1, 1000000000000))", "range(1, 1000000000000) has 1,000,000,000,000 numbers"),
    ('let xs = range("a", 3)', "range() takes two whole numbers"),
    ('let s = "ab"\n  for i in range(1, 80) { set s = s + s }', "a value of more than 1,000,000 elements"),
    ("let x = 3\n  for i in range(1, 80) { set x = x * x }", "a number beyond 1e+18"),
    ('for i in range(1, 20000) { place(infantry, axis, "0101") }', "more than 10,000 units in one game"),
])
def test_resource_bombs_stop_with_a_located_error(game, body, message):
    add_rules(game, f'on turn_start "bomb" §9 {{ {body} }}\n')
    refused(cli("play", game, "--seed", "1", bound=60), "extra.wcx:", "error[E-runtime]", message)


# ------------------------------------------------------------------ saves
@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    game, _ = check_path(TINY)
    engine = Engine(game)
    g = start(engine, "meeting", 3, agents_for(engine, ["random"], 3)).run(max_actions=12)
    path = tmp_path_factory.mktemp("save") / "mid.json"
    save_game(engine, g, path)
    return engine, json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("edit", sorted(rel.IMPOSSIBLE_SAVES))
def test_every_impossible_save_edit_is_refused(saved, tmp_path, edit):
    engine, data = saved
    data = json.loads(json.dumps(data))
    rel.IMPOSSIBLE_SAVES[edit](data)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SaveError) as info:
        load_save(engine, path)
    assert str(path) in str(info.value)


def test_a_save_made_with_other_rules_loads_with_force_and_is_still_checked(saved, tmp_path):
    engine, data = saved
    data = json.loads(json.dumps(data))
    data["rules"] = "0000000000000000"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SaveError, match="different rules files.*--force"):
        load_save(engine, path)
    state, agents, log = load_save(engine, path, force=True)
    assert state.scenario == "meeting" and len(log) == len(data["log"])
    data["state"]["units"][0]["steps"] = -5
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SaveError, match="steps"):
        load_save(engine, path, force=True)


def test_every_plain_state_field_is_checked():
    """A PLAIN field of GameState is saved from its annotation; what the rules allow in it is
    checked by a function of consistency.PLAIN_CHECKS (add one with the field)."""
    from warcodex.interpreter.consistency import PLAIN_CHECKS
    from warcodex.interpreter.saves import StateData
    from warcodex.interpreter.state import plain_fields

    names = {f.name for f in plain_fields()}
    assert names <= set(PLAIN_CHECKS), f"no check for {sorted(names - set(PLAIN_CHECKS))}"
    assert names <= set(StateData.model_fields)


# ------------------------------------------------------------------ logs
@pytest.fixture(scope="module")
def log_lines(tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "g.log.jsonl"
    code, out, err = cli("play", TINY, "--seed", "5", "--until", "2", "--log", path)
    assert code == 0, err
    return path.read_text(encoding="utf-8").splitlines()


def test_a_log_has_its_entry_count_in_the_header_and_an_end_marker(log_lines):
    header, end = json.loads(log_lines[0]), json.loads(log_lines[-1])
    assert header["version"] == 2 and header["entries"] == len(log_lines) - 2
    assert end == {"end": "warcodex-log", "entries": header["entries"]}


@pytest.mark.parametrize("cut", [1, 2, 10])
def test_a_log_cut_at_a_line_boundary_is_never_replayed(log_lines, tmp_path, cut):
    path = tmp_path / "cut.jsonl"
    path.write_text("\n".join(log_lines[:-cut]) + "\n", encoding="utf-8")
    refused(cli("replay", path), "cut short")
    refused(cli("explain", path), "cut short")


def test_a_log_of_other_rules_is_refused_unless_forced(log_lines, tmp_path):
    header = json.loads(log_lines[0])
    header["rules"] = "0000000000000000"
    path = tmp_path / "other.jsonl"
    path.write_text("\n".join([json.dumps(header)] + log_lines[1:]) + "\n", encoding="utf-8")
    refused(cli("replay", path), "different rules files", "--force")
    code, out, err = cli("replay", path, "--force")
    assert code == 0 and "reproduced:" in out and "warning: the log was made with rules 0000000000000000" in err


def test_a_version_1_log_is_refused_with_the_reason(log_lines, tmp_path):
    header = json.loads(log_lines[0])
    header["version"] = 1
    del header["entries"]
    path = tmp_path / "old.jsonl"
    path.write_text("\n".join([json.dumps(header)] + log_lines[1:-1]) + "\n", encoding="utf-8")
    refused(cli("replay", path), "version 1 log", "no entry count")


def test_a_bad_log_entry_is_located_by_line(log_lines, tmp_path):
    lines = list(log_lines)
    lines[3] = json.dumps({"k": "action"})
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    refused(cli("explain", path), f"{path}:4: bad log entry")


# ------------------------------------------------------------------ outputs
def test_outputs_respect_the_umask_and_keep_the_mode_of_what_they_replace(tmp_path):
    from warcodex.outputs import write_atomic

    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.txt", "x")
        assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640
        (tmp_path / "mine.txt").write_text("old")
        os.chmod(tmp_path / "mine.txt", 0o604)
        write_atomic(tmp_path / "mine.txt", "new")
        assert stat.S_IMODE((tmp_path / "mine.txt").stat().st_mode) == 0o604
    finally:
        os.umask(old)


@pytest.mark.parametrize("argv", [
    ("play", "{game}", "--until", "1", "--log", "{out}"), ("play", "{game}", "--until", "1", "--save", "{out}"),
    ("coverage", "{game}", "--html", "{out}"), ("vassal", "{game}", "-o", "{out}"),
])
def test_every_writer_reports_an_oserror_as_a_message(tmp_path, monkeypatch, argv):
    import tempfile as tf

    def no_space(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tf, "mkstemp", no_space)
    out = tmp_path / "out" / "file"
    refused(cli(*[a.format(game=TINY, out=out) for a in argv]), f"cannot write {out}: No space left on device")
    blocker = tmp_path / "blocker"
    blocker.write_text("x")
    refused(cli(*[a.format(game=TINY, out=blocker / "g.log") for a in argv]), f"{blocker} is a file")


def test_fmt_reports_an_unwritable_file(game, monkeypatch):
    import warcodex.outputs as outputs

    path = game / "combat.wcx"
    path.write_text(path.read_text(encoding="utf-8").replace("  base: u.attack", "base:    u.attack"), encoding="utf-8")

    def read_only(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(outputs.os, "replace", read_only)
    refused(cli("fmt", path), f"cannot write {path.resolve()}: Read-only file system")


def test_an_interrupted_output_set_leaves_the_previous_set_whole(tmp_path, monkeypatch):
    from warcodex.exporters.aids import pdf, write_aids

    game, _ = check_path(TINY)
    out = tmp_path / "aids"
    write_aids(game, out, pdf=False)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # as a ^C or a kill while the PDF is rendered

    monkeypatch.setattr(pdf, "write_pdf", killed)
    with pytest.raises(KeyboardInterrupt):
        write_aids(game, out, pdf=True)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["aids"]  # no temporary folder left


def test_an_output_folder_holding_the_users_files_is_never_replaced(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    refused(cli("aids", TINY, "-o", tmp_path), "holds files Warcodex did not write (notes.txt)")
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_a_set_left_by_a_killed_run_is_tidied(tmp_path):
    from warcodex.outputs import output_folder

    target = tmp_path / "set"
    with output_folder(target) as folder:
        (folder / "a.txt").write_text("old")
    dead = 2**22 + 12345  # a process id no process has
    (tmp_path / f".set.new-{dead}-x").mkdir()
    os.rename(target, tmp_path / f".set.old-{dead}-y")  # killed between the two renames
    with output_folder(target) as folder:
        (folder / "a.txt").write_text("new")
    assert (target / "a.txt").read_text() == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["set"]


# ------------------------------------------------------------------ exporters refuse what they cannot draw
def test_vassal_refuses_a_board_too_large_and_cuts_a_grid_to_its_sheets(tmp_path, monkeypatch):
    from warcodex.exporters.vassal import board_svg
    from warcodex.exporters.vassal.module import ExportOptions, ExportRefused, build_module
    from warcodex.dsl.hexgrid import VassalHexNumbering, vassal_grid_spec

    folder = tmp_path / "wide"
    shutil.copytree(TINY, folder)
    text = (folder / "map.wcmap").read_text(encoding="utf-8")
    (folder / "map.wcmap").write_text(text.replace("cols 1..12 rows 1..10 ids CCRR", "cols 1..90 rows 1..90 ids CCRR"),
                                      encoding="utf-8")
    game, diags = check_path(folder)
    assert not diags.errors
    monkeypatch.setattr(board_svg, "MAX_BOARD_HEXES", 100)
    with pytest.raises(ExportRefused, match="the map has 120 hexes; a VASSAL board holds at most 100"):
        build_module(game, None, ExportOptions())
    monkeypatch.setattr(board_svg, "MAX_BOARD_HEXES", 50_000)
    module = build_module(game, None, ExportOptions())
    board = module.data.board
    image = board_svg.hex_board_svg(board, None, 44.0)
    full_width, _ = board.grid.pixel_size(44.0)
    assert image.width < full_width / 5  # 12 of 90 columns
    # VASSAL names each hex of the cut image like the printed id
    spec = vassal_grid_spec(board.grid, 44.0)
    grid = dict(spec.grid, x0=str(int(spec.grid["x0"]) - image.offset[0]), y0=str(int(spec.grid["y0"]) - image.offset[1]))
    vassal = VassalHexNumbering(grid, spec.numbering)
    for loc in board_svg.hex_locations(board):
        x, y = board.grid.pixel_center(*board.coords(loc), 44.0)
        assert vassal.location_name(round(x) - image.offset[0], round(y) - image.offset[1]) == loc


# ------------------------------------------------------------------ the campaign, a slice
def test_a_slice_of_the_hostile_input_campaign(tmp_path):
    tally = rel.campaign(total=90, seed=22, work=tmp_path)
    assert tally.total() >= 90
    assert tally.bad == 0, tally.failures[:5]
    assert tally.counts["refused"] > 0 and tally.counts["accepted"] > 0



@pytest.mark.parametrize("evaluator", ["generated", "reference"])
def test_a_map_attribute_of_a_string_that_is_no_location_is_a_located_error(game, monkeypatch, evaluator):
    """`"nowhere".terrain` (an attribute from the map) used to end in `internal error: KeyError`:
    a located rules error naming the string, with the closest location's name as a hint.
    (A location variable of such a string is the same error: test_a_location_variable_of_...)"""
    monkeypatch.setenv("WARCODEX_EVALUATOR", evaluator)
    add_rules(game, 'on turn_start "probe" §9 { let h = "01" + "10" + "x"\n  let v = h.terrain }\n')
    refused(cli("play", game, "--seed", "1"), "extra.wcx:2:",
            "error[E-runtime]: no location '0110x' on the map (reading its 'terrain')", "did you mean '0110'?")


@pytest.mark.parametrize("evaluator", ["generated", "reference"])
@pytest.mark.parametrize("statement", ["let v = h.controller", "set h.controller = soviet"])
def test_a_location_variable_of_a_string_that_is_no_location_is_a_located_error(game, monkeypatch, evaluator, statement):
    """Reading (or setting) a `location_var` of a string that is no location of the map used to give
    its default silently (and setting it stored a value no rule could ever read back): a typo in a
    built id passed unseen. Now the same located error as a map attribute, with the hint.
    (A location of the game's map that a rule test's partial board leaves out still reads its
    default: test_rule_tests.py, test_a_partial_board_...)"""
    monkeypatch.setenv("WARCODEX_EVALUATOR", evaluator)
    add_rules(game, f'on turn_start "probe" §9 {{ let h = "01" + "10" + "x"\n  {statement} }}\n')
    doing = "reading" if statement.startswith("let") else "setting"
    refused(cli("play", game, "--seed", "1"), "extra.wcx:2:",
            f"error[E-runtime]: no location '0110x' on the map ({doing} its 'controller')", "did you mean '0110'?")
