"""The designer's friction list (issue #15, point 6): each slowed down a designer who encoded a
game from the docs alone."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from warcodex.cli import cli
from warcodex.dsl.diagnostics import DiagnosticError
from warcodex.dsl.formatter import format_text
from warcodex.dsl.loader import load_game
from warcodex.dsl.parser import grammar_parser, parse_text, _describe
from warcodex.interpreter.agents import HumanAgent, LegalActions
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.tables import CompiledTable
from warcodex.interpreter.values import CellValue

ROOT = Path(__file__).resolve().parent.parent


def _tiny(tmp_path: Path) -> Path:
    folder = tmp_path / "tiny"
    shutil.copytree(ROOT / "games" / "tiny", folder, ignore=shutil.ignore_patterns("tests"))
    return folder


def test_a_scenario_of_turns_n_checks_and_plays(tmp_path):
    folder = _tiny(tmp_path)
    text = (folder / "scenarios.wcx").read_text(encoding="utf-8")
    (folder / "scenarios.wcx").write_text(text.replace("  first_turn: 1\n  last_turn: 6\n", "  turns: 2\n"),
                                          encoding="utf-8")
    assert CliRunner().invoke(cli, ["check", str(folder), "--quiet"]).exit_code == 0
    r = CliRunner().invoke(cli, ["play", str(folder), "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert "turns played: 2" in r.output
    assert "meeting" in CliRunner().invoke(cli, ["info", str(folder)]).output
    assert "1-2" in CliRunner().invoke(cli, ["info", str(folder)]).output


def test_result_codes_with_a_number_are_values():
    engine = Engine(load_game(ROOT / "games" / "tiny"))
    ctx = Context(engine, engine.new_game("meeting", setup=False), {})
    from warcodex.interpreter.compiler import Frame

    value = engine.compiler.expr(parse_text('function f() = crt[3:1, 4] == DR2 and DR2 != DR1').decls[0].body,
                                 frozenset())(Frame(ctx))
    assert value is True


def test_syntax_hints_never_show_grammar_internal_names():
    internal = []
    for t in grammar_parser().terminals:
        words = _describe({t.name})
        if words == t.name.lower().replace("_", " "):
            internal.append(t.name)
    assert internal == []
    with pytest.raises(DiagnosticError) as info:
        parse_text("table t { beyond { sideways 1:1 use 1:1 } }", "t.wcx")
    hint = info.value.diagnostics[0].hint
    assert "'above', 'below', 'from', 'upto'" in hint and "beyond dir" not in hint


def test_coverage_never_prints_a_raw_python_object():
    r = CliRunner().invoke(cli, ["coverage", "tiny", "--json"])
    data = json.loads(r.output)
    cited = [c for s in data["sections"] for c in s["cited_by"]]
    assert any("beyond below 1-2 illegal" in c for c in cited)
    assert not any("kind=" in c or "low=None" in c for c in cited)


def test_fmt_keeps_the_parentheses_the_author_wrote():
    text = 'function f(): bool "f" §1 = (a and b) or ((c)) and (d == (e + 1) * 2)\n'
    assert format_text(text, "f.wcx") == 'function f(): bool "f" §1 = (a and b) or c and (d == (e + 1) * 2)\n'
    assert format_text('function g() "g" §1 = a + (b * c)\n', "g.wcx") == 'function g() "g" §1 = a + (b * c)\n'


def test_selfplay_with_an_absolute_game_path_writes_its_report_in_bench():
    spec = importlib.util.spec_from_file_location("selfplay", ROOT / "bench" / "selfplay.py")
    selfplay = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(selfplay)
    bench = ROOT / "bench"
    assert selfplay.default_report(str(ROOT / "games" / "tiny")) == bench / "selfplay-tiny.json"
    assert selfplay.default_report("/somewhere/my_game/") == bench / "selfplay-my_game.json"
    assert selfplay.default_report("tiny") == bench / "selfplay-tiny.json"


def test_a_differential_crt_prints_its_columns_as_the_rulebook_ranges():
    decl = parse_text('''table dd "D" §1 {
  columns diff: -3 -2 0 +2 +5 +8
  rows roll d6: 1..6
  beyond { upto -4 use -3 §1 }
  row 1..6: - | - | - | - | - | -
}''').decls[0]
    table = CompiledTable(decl, lambda *_: CellValue(()))
    assert table.column_range_texts() == ["-3 or less", "-2 to -1", "0 to +1", "+2 to +4", "+5 to +7", "+8 or more"]
    capped = parse_text('''table dd "D" §1 {
  columns diff: -1 0 +1
  rows roll d6: 1..6
  beyond { above +3 illegal "too much" §1 }
  row 1..6: - | - | -
}''').decls[0]
    assert CompiledTable(capped, lambda *_: CellValue(())).column_range_texts() == ["-1", "0", "+1 to +3"]
    from types import SimpleNamespace

    from warcodex.exporters.vassal.charts import table_chart

    # the VASSAL chart prints the columns the table's facts give (the compiled table's ranges)
    assert "-3 or less" in table_chart(SimpleNamespace(names={}), decl, table).svg.decode()


def test_the_human_agent_pages_and_filters_many_actions():
    engine = Engine(load_game(ROOT / "games" / "tiny"))
    state = engine.new_game("meeting", seed=0)
    state.active, state.phase = "axis", "movement"
    ctx = Context(engine, state, {})
    legal = LegalActions(engine, ctx, ["move"])
    total = len(legal.all())
    assert total > HumanAgent.PAGE
    printed: list[str] = []
    answers = iter(["n", "/11th panzer", "?0", "5"])
    agent = HumanAgent(input_fn=lambda prompt: (printed.append(prompt), next(answers))[1], print_fn=printed.append)
    choice = agent.choose_action(ctx, "axis", legal)
    text = "\n".join(printed)
    assert "(page 1 of 4)" in text and "(page 2 of 4)" in text and "n/b next/previous page" in text
    assert "matching '11th panzer'" in text
    assert all("11th Panzer" in line for line in printed if line.startswith("   ") and "move(u=" in line
               and printed.index(line) > printed.index(next(p for p in printed if "matching" in p)))
    assert choice == legal.all()[5]
