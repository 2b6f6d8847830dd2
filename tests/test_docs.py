"""The documentation cannot rot: its examples parse, its standard-library tables match
`dsl/stdlib.py`, and the Tiny Front rulebook matches the game's sections and tables."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pygments.token import Error

from warcodex.dsl import ast
from warcodex.dsl.diagnostics import DiagnosticError
from warcodex.dsl.formatter import format_cell
from warcodex.dsl.lexer import WarcodexLexer
from warcodex.dsl.parser import parse_text
from warcodex.dsl.stdlib import BUILTINS, CONSTANTS, EVENTS, TYPES, UNIT_FIELDS

ROOT = Path(__file__).resolve().parents[1]
LANGUAGE = ROOT / "docs" / "language.md"
TINY_DOC = ROOT / "docs" / "games" / "tiny.md"
TINY = ROOT / "games" / "tiny"

_FENCE = re.compile(r"^```([A-Za-z0-9_-]*)[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


def fenced_blocks(path: Path) -> list[tuple[str, int, str]]:
    """(language, line number of the opening fence, body) for every fenced block, in order."""
    text = path.read_text(encoding="utf-8")
    return [(m.group(1), text.count("\n", 0, m.start()) + 1, m.group(2)) for m in _FENCE.finditer(text)]


def _blocks(lang: str) -> list[tuple[int, str]]:
    return [(line, body) for kind, line, body in fenced_blocks(LANGUAGE) if kind == lang]


def _doc() -> str:
    return LANGUAGE.read_text(encoding="utf-8")


# ---------------------------------------------------------------- language.md examples
WCX_BLOCKS = _blocks("wcx")


def test_language_doc_has_many_examples():
    assert len(WCX_BLOCKS) >= 30


@pytest.mark.parametrize("line,body", WCX_BLOCKS, ids=[f"line{line}" for line, _ in WCX_BLOCKS])
def test_wcx_examples_parse(line, body):
    try:
        module = parse_text(body, f"docs/language.md(block at line {line})")
    except DiagnosticError as exc:  # show the located error, not a traceback
        pytest.fail(f"example at docs/language.md:{line} does not parse:\n{exc}")
    assert module.decls or module.includes


@pytest.mark.parametrize("line,body", WCX_BLOCKS, ids=[f"line{line}" for line, _ in WCX_BLOCKS])
def test_wcx_examples_lex_without_errors(line, body):
    errors = [v for t, v in WarcodexLexer().get_tokens(body) if t in Error]
    assert errors == [], f"example at docs/language.md:{line}"


def test_error_examples_show_the_real_diagnostic():
    """Each ```wcx-error block is followed by a ```text block with exactly what Warcodex prints."""
    blocks = fenced_blocks(LANGUAGE)
    pairs = [(blocks[i], blocks[i + 1]) for i, b in enumerate(blocks) if b[0] == "wcx-error"]
    assert len(pairs) >= 2
    for (_, line, bad), (kind, _, shown) in pairs:
        assert kind == "text", f"the error example at line {line} needs a ```text block after it"
        path = shown.split(":", 1)[0]
        with pytest.raises(DiagnosticError) as info:
            parse_text(bad, path)
        assert str(info.value).strip() == shown.strip(), f"error example at docs/language.md:{line}"


def test_checker_example_shows_the_real_diagnostics(tmp_path):
    """The ```wcx-check block is a whole game.wcx; the ```text block after it is what the checker prints."""
    from warcodex.dsl.checker import check_path

    blocks = fenced_blocks(LANGUAGE)
    pairs = [(blocks[i], blocks[i + 1]) for i, b in enumerate(blocks) if b[0] == "wcx-check"]
    assert pairs
    for (_, line, game), (kind, _, shown) in pairs:
        assert kind == "text", f"the checker example at line {line} needs a ```text block after it"
        (tmp_path / "game.wcx").write_text(game, encoding="utf-8")
        _, diags = check_path(tmp_path)
        printed = "\n\n".join(d.render() for d in diags.items).replace(f"{tmp_path}/", "")
        assert printed.strip() == shown.strip(), f"checker example at docs/language.md:{line}"


def test_commands_and_options_mentioned_exist():
    cli = pytest.importorskip("warcodex.cli").cli
    for command, rest in re.findall(r"`warcodex ([a-z]+)([^`]*)`", _doc()):
        cmd = cli.get_command(None, command)  # also the commands imported only when used
        assert cmd is not None, f"`warcodex {command}` is not a command"
        known = {opt for p in cmd.params for opt in p.opts}
        for option in re.findall(r"(--[a-z-]+)", rest):
            assert option in known, f"`warcodex {command}` has no option {option}"


def test_every_construct_has_a_section():
    headings = re.findall(r"^## (?:\d+\. )?(.+)$", _doc(), re.MULTILINE)
    text = " ".join(headings).lower()
    for topic in ("includes and overlays", "headers", "alliances", "sections list", "terrain", "units",
                  "variables", "expressions", "quantities", "functions", "tables", "results",
                  "movement", "actions", "procedures", "triggers", "sequence of play", "scenarios",
                  "invariants", "decks", "diagnostics", "step by step", "standard library"):
        assert topic in text, topic


def test_examples_cover_every_declaration_kind():
    kinds: set[str] = set()
    for line, body in WCX_BLOCKS:
        for decl in parse_text(body).decls:
            kinds.add(decl.kind if isinstance(decl, ast.Entity) else type(decl).__name__)
            if decl.override:
                kinds.add("override")
    expected = {"Game", "Sections", "Unit", "VarDecl", "Table", "Result", "Quantity", "Function",
                "Movement", "Action", "Procedure", "Trigger", "Sequence", "Scenario", "Invariant", "Deck",
                "terrain", "edge", "feature", "marker", "class", "side", "alliance", "option", "family", "override"}
    assert expected <= kinds, expected - kinds


# ---------------------------------------------------------------- the standard library
def _code_span(name: str) -> re.Pattern:
    return re.compile(r"`" + re.escape(name) + r"(?![A-Za-z0-9_])")


@pytest.mark.parametrize("name", sorted(BUILTINS) + sorted(CONSTANTS) + sorted(EVENTS))
def test_stdlib_name_is_documented(name):
    assert _code_span(name).search(_doc()), f"`{name}` is in dsl/stdlib.py but not in docs/language.md"


@pytest.mark.parametrize("name", sorted(UNIT_FIELDS) + sorted(TYPES))
def test_unit_fields_and_types_are_documented(name):
    assert _code_span(name).search(_doc())


def _stdlib_part() -> str:
    doc = _doc()
    return doc[doc.index("## 23. The standard library"):]


def test_function_table_matches_stdlib():
    """The hand-written table lists exactly the built-ins, with their signatures and effects."""
    rows = re.findall(r"^\| `([a-z_]+)\(([^`]*)\)` \| ([a-z]+) \| (.*) \|$", _stdlib_part(), re.MULTILINE)
    documented = {name: (params, returns, text) for name, params, returns, text in rows}
    assert set(documented) == set(BUILTINS), set(documented) ^ set(BUILTINS)
    for name, b in BUILTINS.items():
        params, returns, text = documented[name]
        assert params == ", ".join(b.params), f"{name}: signature in the docs differs from stdlib.py"
        assert returns == b.returns, f"{name}: return type in the docs differs from stdlib.py"
        assert ("**effect.**" in text) == b.effect, f"{name}: effect marker in the docs differs from stdlib.py"


def test_constant_field_and_event_tables_match_stdlib():
    part = _stdlib_part()
    rows = dict(re.findall(r"^\| `([a-z_]+)` \| ([a-z]*) \|", part, re.MULTILINE))
    for name, (typ, _) in CONSTANTS.items():
        assert rows.get(name) == typ, name
    for name, (typ, _) in UNIT_FIELDS.items():
        assert rows.get(name) == typ, name
    events = dict(re.findall(r"^\| `([a-z_]+)` \| ((?:`[^`]*`)?(?:, )?[^|]*?) *\|$", part, re.MULTILINE))
    for name, params in EVENTS.items():
        assert name in events, name
        assert events[name].replace("`", "") == ", ".join(params), name


# ---------------------------------------------------------------- the Tiny Front rulebook
def _tiny_decls():
    decls = []
    for path in sorted(TINY.glob("*.wcx")):
        decls.extend(parse_text(path.read_text(encoding="utf-8"), str(path)).decls)
    return decls


def _tiny_doc() -> str:
    return TINY_DOC.read_text(encoding="utf-8")


def test_tiny_rulebook_sections_match_the_game():
    sections = next(d for d in _tiny_decls() if isinstance(d, ast.Sections))
    expected = [(e.number, e.title) for e in sections.entries]
    found = re.findall(r"^#{2,4} §([0-9.]+) (.+?)\s*$", _tiny_doc(), re.MULTILINE)
    assert found == expected


def _markdown_table_after(marker: str) -> list[list[str]]:
    doc = _tiny_doc()
    start = doc.index(marker)
    lines = doc[start:].splitlines()
    table = []
    for line in lines[1:]:
        if not line.startswith("|"):
            if table:
                break
            continue
        table.append([c.strip() for c in line.strip().strip("|").split("|")])
    return [row for row in table if not set("".join(row)) <= set("-: ")]


def test_tiny_rulebook_prints_the_crt_of_the_game():
    crt = next(d for d in _tiny_decls() if isinstance(d, ast.Table) and d.name == "crt")
    printed = _markdown_table_after("<!-- crt -->")
    header, body = printed[0], printed[1:]
    assert header[1:] == [k.text() for k in crt.columns.keys]
    assert [row[0] for row in body] == [r.key.text() for r in crt.table_rows]
    for row, source in zip(body, crt.table_rows):
        assert row[1:] == [format_cell(c) for c in source.cells]
    assert "provisional" in _tiny_doc().lower() and "invented" in _tiny_doc().lower()


def test_tiny_rulebook_prints_the_weather_table_of_the_game():
    table = next(d for d in _tiny_decls() if isinstance(d, ast.Table) and d.name == "weather_table")
    labels = {d.name: d.header.label for d in _tiny_decls() if isinstance(d, ast.Result)}
    printed = _markdown_table_after("<!-- weather -->")[1:]
    assert [row[0] for row in printed] == [r.key.text() for r in table.table_rows]
    assert [row[1] for row in printed] == [labels[r.cells[0].codes[0].name] for r in table.table_rows]


def test_tiny_rulebook_prints_the_unit_values():
    doc = _tiny_doc()
    for unit in (d for d in _tiny_decls() if isinstance(d, ast.Unit)):
        props = {p.key: p.value for p in unit.props}
        full = f"{props['attack'].value}-{props['defense'].value}-{props['move'].value}"
        assert full in doc, f"{unit.name}: {full}"
        for sv in unit.step_values:
            reduced = {p.key: p.value for p in sv.props}
            assert f"{reduced['attack'].value}-{reduced['defense'].value}-{props['move'].value}" in doc, unit.name
