"""The canonical formatter (`warcodex.dsl.formatter`): round trip, idempotence, layout, comments,
and `tests/data/all_constructs.wcx`, the file that uses every construct of the grammar."""

from __future__ import annotations

import os
import re
import typing
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warcodex.dsl import ast
from warcodex.dsl.diagnostics import DiagnosticError
from warcodex.dsl.formatter import (
    KEYWORDS, dump_ast, format_cell, format_code, format_expr, format_module, format_path, format_text, quote,
    scan_comments,
)
from warcodex.dsl.parser import parse_text

ROOT = Path(__file__).resolve().parent.parent
TINY_FILES = sorted((ROOT / "games" / "tiny").glob("*.wcx"))
ALL_CONSTRUCTS = Path(__file__).resolve().parent / "data" / "all_constructs.wcx"


def assert_round_trip(text: str, path: str = "<test>") -> str:
    """format(x) parses to the same AST as x, format(format(x)) == format(x), no comment is lost."""
    module = parse_text(text, path)
    out = format_text(text, path)
    again = parse_text(out, path + " (formatted)")
    assert dump_ast(again.includes) == dump_ast(module.includes)
    assert dump_ast(again.decls) == dump_ast(module.decls)
    assert format_text(out, path) == out, "formatting is not idempotent"
    assert sorted(c for _, c in scan_comments(out)) == sorted(c for _, c in scan_comments(text))
    assert out == "" or out.endswith("\n") and not out.endswith("\n\n")
    assert all(line == line.rstrip() for line in out.split("\n")), "trailing blanks"
    assert "\t" not in out.replace("\\t", "")
    return out


# ---------------------------------------------------------------- whole files
@pytest.mark.parametrize("path", TINY_FILES + [ALL_CONSTRUCTS], ids=lambda p: p.name)
def test_files_round_trip_and_are_idempotent(path: Path) -> None:
    assert_round_trip(path.read_text(encoding="utf-8"), str(path))


def _top_level_snippets() -> list[tuple[str, str]]:
    """Each top-level item of all_constructs.wcx, as its own snippet (whole source lines)."""
    text = ALL_CONSTRUCTS.read_text(encoding="utf-8")
    lines = text.split("\n")
    module = parse_text(text, str(ALL_CONSTRUCTS))
    out = []
    for item in [*module.includes, *module.decls]:
        snippet = "\n".join(lines[item.span.line - 1:item.span.end_line])
        kind = type(item).__name__
        name = item.header.name if isinstance(item, ast.Decl) else item.path
        out.append((f"{kind}-{name}-L{item.span.line}", snippet))
    return out


SNIPPETS = _top_level_snippets()


@pytest.mark.parametrize("snippet", [s for _, s in SNIPPETS], ids=[i for i, _ in SNIPPETS])
def test_each_construct_round_trips(snippet: str) -> None:
    assert_round_trip(snippet)


# small inputs for lexical corner cases the canonical layout must not break
CORNER_CASES = {
    "string keys that are keywords or not names": 'table t { rows: "row" "clamp" "use" "a b" "1" "" "d6" plain\n row "row": x }',
    "signed and zero-padded numeric cells": "table t { row 1: +3 | 03 | -0 | -7 }",
    "negative key and -1 cell": "table t { columns diff: -1 +2 0\n row -1: -1 | - | DR(-1) }",
    "unit flag named at": "unit u { at steps 1 { a: 1 } at }",
    "unit flag named steps": "unit u { steps }",
    "table props after rows": "table t { rows: 1\n row 1: a\n x: 1\n y: 2 }",
    "name that is a keyword elsewhere": "function f() = or + and",
    "decimal attribute and negative attribute": "function f() = (2.50).x + (-3).y - (0.5)[1]",
    "unary minus folding": "function f() = -(1) - -(2) - -(-(3))",
    "else { if } becomes else if": "procedure p() { if a { stop } else { if b { stop } } }",
    "else with two statements": "procedure p() { if a { stop } else { if b { stop } log \"x\" } }",
    "empty blocks": "procedure p() { if a {} else {} for x in y {} step {} }",
    "dice counts": "function f() = [roll d6, roll 1d6, roll 10d10 keep lowest 3, roll 0d0]",
    "odds everywhere": "table t { columns: 1:1 10:1\n beyond { above 10:1 use 10:1 }\n row 1:1: a | b }\nfunction f() = odds_at(3:1)",
    "params in odd places": "result R() {}\non e() {}\nquantity q() {}\nprocedure p() {}",
    "multiple do and setup blocks merge": "action a { do { f() } do { g() } }\nscenario s { setup { f() } setup { g() } }",
    "multiple beyond blocks merge": "table t { beyond { above 1 use 1 } beyond { below 0 use 0 } }",
    "items in any order": "quantity q() { order: a modifier + 1 base: 2 }\naction a { do { f() } require x param p: from y cost: 1 }",
    "scenario items in any order": "scenario s { override terrain x {} on e {} setup { f() } a: 1 }",
    "comments with quotes and hashes": '# "not a string\nside s { color: "#abc" } # "trailing\n# end #2',
    "only comments": "# one\n\n# two\n",
    "empty": "",
    "two declarations on one line": "edge a edge b # both\nedge c",
    "override of everything": "override game g {}\noverride sequence {}\noverride sections {}\noverride on e {}",
    "long and chain in a where": "procedure p() { choose h from hexes where " + " and ".join(f"cond_{i}(h)" for i in range(12)) + " by active }",
    "long or chain in a function": "function f() = " + " or ".join(f"cond_{i}(h)" for i in range(12)),
    "long list in a property": "game g { a: [" + ", ".join(str(i) for i in range(80)) + "] §1 }",
    "long action param where": "action a { param x: subset from units where " + " and ".join(f"c{i}(u)" for i in range(15)) + " min 1 §1 }",
    "crlf line ends": "# c\r\nterrain t { a: 1 }\r\n",
}


@pytest.mark.parametrize("text", list(CORNER_CASES.values()), ids=list(CORNER_CASES))
def test_corner_cases_round_trip(text: str) -> None:
    assert_round_trip(text)


# ---------------------------------------------------------------- all_constructs.wcx covers the grammar
def _walk(value):
    if isinstance(value, ast.Node):
        yield value
        for name in type(value).model_fields:
            yield from _walk(getattr(value, name))
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _walk(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)


def _concrete_node_classes() -> list[type]:
    classes = [c for c in vars(ast).values()
               if isinstance(c, type) and issubclass(c, ast.Node) and c.__module__ == ast.__name__]
    return sorted((c for c in classes if not any(issubclass(o, c) and o is not c for o in classes)), key=lambda c: c.__name__)


@pytest.fixture(scope="module")
def all_nodes() -> list[ast.Node]:
    return list(_walk(parse_text(ALL_CONSTRUCTS.read_text(encoding="utf-8"), str(ALL_CONSTRUCTS))))


def test_all_constructs_uses_every_node_class(all_nodes) -> None:
    seen = {type(n) for n in all_nodes}
    missing = [c.__name__ for c in _concrete_node_classes() if c not in seen]
    assert not missing, f"add these constructs to {ALL_CONSTRUCTS.name}: {missing}"


def _literal_values(annotation) -> set:
    if typing.get_origin(annotation) is typing.Literal:
        return set(typing.get_args(annotation))
    return set().union(*(_literal_values(a) for a in typing.get_args(annotation))) if typing.get_args(annotation) else set()


def test_all_constructs_uses_every_literal_and_flag_value(all_nodes) -> None:
    missing = []
    if not any(isinstance(n, ast.Decl) and n.override for n in all_nodes):
        missing.append("override")
    if not any(isinstance(n, ast.Expr) and n.parenthesized for n in all_nodes):
        missing.append("an expression in parentheses")
    for cls in _concrete_node_classes():
        nodes = [n for n in all_nodes if type(n) is cls]
        for name, field in cls.model_fields.items():
            if name in ("override", "parenthesized"):  # checked once: not every node takes them
                continue
            seen = {getattr(n, name) for n in nodes if isinstance(getattr(n, name), (str, bool, int, type(None)))}
            wanted = _literal_values(field.annotation)
            if field.annotation is bool:
                wanted = {True, False}
            missing += [f"{cls.__name__}.{name}={v!r}" for v in sorted(wanted - seen, key=repr)]
    assert not missing, f"add these constructs to {ALL_CONSTRUCTS.name}: {missing}"


# "Class.field" names that no text can set, should the parser ever stop filling one
_NEVER_SET: set[str] = set()


def test_all_constructs_sets_every_optional_and_list_field(all_nodes) -> None:
    missing = []
    for cls in _concrete_node_classes():
        nodes = [n for n in all_nodes if type(n) is cls]
        for name in cls.model_fields:
            if name == "span" or f"{cls.__name__}.{name}" in _NEVER_SET:
                continue
            values = [getattr(n, name) for n in nodes]
            if all(v is None or v == [] or v == {} for v in values):
                missing.append(f"{cls.__name__}.{name}")
    assert not missing, f"no construct in {ALL_CONSTRUCTS.name} sets: {missing}"


def test_keyword_list_covers_the_grammar() -> None:
    grammar = (ROOT / "dsl" / "warcodex.lark").read_text(encoding="utf-8")
    code = "\n".join(line.split("//")[0] for line in grammar.splitlines())
    words = set(re.findall(r'"([A-Za-z_][A-Za-z0-9_]*)"', code))
    for alternatives in re.findall(r"/\(([A-Za-z_|]+)\)\(\?!", code):
        words |= set(alternatives.split("|"))
    assert words - KEYWORDS == set(), "add the grammar's new keywords to formatter.KEYWORDS"


# ---------------------------------------------------------------- expressions
def _body(src: str) -> ast.Expr:
    return parse_text(f"function f() = {src}").decls[0].body


@pytest.mark.parametrize("src, expected", [
    ("a + b * c", "a + b * c"),
    ("(a + b) * c", "(a + b) * c"),
    ("(a - b) - c", "(a - b) - c"),
    ("a - (b - c)", "a - (b - c)"),
    ("a / (b * c)", "a / (b * c)"),
    ("(a % b) * c", "(a % b) * c"),
    ("((a))", "a"),
    ("-(a + b)", "-(a + b)"),
    ("-(1)", "-1"),
    ("- -a", "- -a"),
    ("-(-a)", "-(-a)"),
    ("a - -1", "a - -1"),
    ("(-1).x", "(-1).x"),
    ("(1).x", "(1).x"),
    ("(1.5)[0]", "1.5[0]"),
    ("-a * b", "-a * b"),
    ("-(a * b)", "-(a * b)"),
    ("(u.x)[1]", "u.x[1]"),
    ("(f(x)).y", "f(x).y"),
    ("(roll 2d6)[0]", "roll 2d6[0]"),
    ("not (a and b)", "not (a and b)"),
    ("(not a) and b", "(not a) and b"),
    ("not (not a)", "not (not a)"),
    ("not (x in xs)", "not (x in xs)"),
    ("(x in xs) == true", "(x in xs) == true"),
    ("(a == b) == c", "(a == b) == c"),
    ("a == (b + c)", "a == (b + c)"),
    ("(a is b) and c", "(a is b) and c"),
    ("(a + 1) is b", "(a + 1) is b"),
    ("(a or b) and c", "(a or b) and c"),
    ("a or (b and c)", "a or (b and c)"),
    ("a or (b or c)", "a or (b or c)"),
    ("(a or b) or c", "(a or b) or c"),
    ("a and (b and c)", "a and (b and c)"),
    ("(if a then b else c) + 1", "(if a then b else c) + 1"),
    ("f((if a then b else c))", "f(if a then b else c)"),
    ("if a then b else (if c then d else e)", "if a then b else if c then d else e"),
    ("if (if a then b else c) then d else e", "if (if a then b else c) then d else e"),
    ("not (if a then b else c)", "not (if a then b else c)"),
    ("[(a or b), (c)]", "[a or b, c]"),
    ("sum((u.x) for u in (xs) where (u.y))", "sum(u.x for u in xs where u.y)"),
    ("f(k: (1 + 2), (3))", "f(3, k: 1 + 2)"),
    ("1.50 + 2.0 + 0.05", "1.5 + 2.0 + 0.05"),
    ("-(2.5)", "-2.5"),
    ('"a\\"b\\\\c\\nd\\te"', '"a\\"b\\\\c\\nd\\te"'),
    ("3:1", "3:1"),
])
def test_format_expr_keeps_grouping_parentheses_and_adds_only_the_needed_ones(src: str, expected: str) -> None:
    """Parentheses the author wrote around an operation inside another stay (clarity, issue 15);
    those around a name, a call, an argument or an item go; the meaning never changes."""
    expr = _body(src)
    assert format_expr(expr) == expected
    assert dump_ast(_body(expected)) == dump_ast(expr)


def test_format_expr_on_built_nodes() -> None:
    a, b = ast.Name(id="a"), ast.Name(id="b")
    assert format_expr(ast.BinOp(op="*", left=ast.BinOp(op="+", left=a, right=b), right=ast.Num(value=Fraction(1, 4)))) == "(a + b) * 0.25"
    assert format_expr(ast.Neg(operand=ast.Num(value=-2))) == "- -2"
    assert format_expr(ast.Is(obj=ast.Or(left=a, right=b), tag="t", negated=True)) == "(a or b) is not t"
    assert format_expr(ast.Num(value=Fraction(-1, 8))) == "-0.125"
    assert format_expr(ast.Num(value=Fraction(7))) == "7.0"


def test_cells_and_codes_are_printed_as_written() -> None:
    code = ast.Code(name="DR", args=[ast.BinOp(op="+", left=ast.Name(id="x"), right=ast.Num(value=1))])
    assert format_code(code) == "DR(x + 1)"
    assert format_cell(ast.Cell(codes=[ast.Code(name="A1"), code])) == "A1/DR(x + 1)"
    assert format_cell(ast.Cell()) == "-"


def test_dump_ast_tells_node_classes_apart() -> None:
    assert dump_ast(_body("a and b")) != dump_ast(_body("a or b"))
    assert dump_ast(_body("1")) != dump_ast(_body("true"))
    assert dump_ast(_body("2")) != dump_ast(_body("2.0"))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_quote_reads_back(text: str) -> None:
    assert parse_text(f"game g {quote(text)} {{}}").decls[0].header.label == text


# ---------------------------------------------------------------- layout
def test_property_blocks_inline_up_to_three_short_properties() -> None:
    assert format_text("terrain t { a: 1 b: 2 c }") == "terrain t { a: 1 b: 2 c }\n"
    assert format_text("terrain t { a: 1\n b: 2 c d }") == "terrain t {\n  a: 1\n  b: 2\n  c\n  d\n}\n"
    long = "x" * 90
    assert format_text(f"terrain t {{ a: {long} }}") == f"terrain t {{\n  a: {long}\n}}\n"
    assert format_text("terrain t {}") == "terrain t\n"
    assert format_text("game g {}") == "game g {}\n"


def test_header_pieces_come_in_canonical_order() -> None:
    src = 'unit u "Label" §1 provisional "n" [pl: "P", ru: "R"] : a, b'
    assert format_text(src) == 'unit u "Label" [pl: "P", ru: "R"] : a, b §1 provisional "n"\n'
    assert format_text('quantity q(a: int):int"L"§2{}') == 'quantity q(a: int): int "L" §2 {}\n'


def test_declarations_are_paragraphs_and_includes_come_first() -> None:
    src = 'edge a\nedge b include "x.wcx"\n\n\n\nedge c\ninclude "y.wcx"'
    assert format_text(src) == 'include "x.wcx"\ninclude "y.wcx"\n\nedge a\n\nedge b\n\nedge c\n'


def test_table_rows_are_aligned() -> None:
    src = "table t {\n row 1..4: A | BB/C | -\n row 5: DDDD | E | F(1)\n row 12: - | - | - }"
    assert format_text(src) == (
        "table t {\n"
        "  row 1..4: A    | BB/C | -\n"
        "  row 5:    DDDD | E    | F(1)\n"
        "  row 12:   -    | -    | -\n"
        "}\n"
    )


def test_statements_one_per_line_and_else_if() -> None:
    src = "procedure p() { let a = 1 if a { stop } else { if b { log \"b\" } else { for x in y { f(x) g(x) } } } }"
    assert format_text(src) == (
        "procedure p() {\n"
        "  let a = 1\n"
        "  if a {\n"
        "    stop\n"
        "  } else if b {\n"
        '    log "b"\n'
        "  } else {\n"
        "    for x in y {\n"
        "      f(x)\n"
        "      g(x)\n"
        "    }\n"
        "  }\n"
        "}\n"
    )


def test_long_choose_is_broken_into_clauses() -> None:
    cond = " and ".join(f"condition_number_{i}(h)" for i in range(5))
    out = format_text(f"procedure p() {{ choose h from hexes where {cond} by active min 1 optional §1 }}")
    assert out == (
        "procedure p() {\n"
        "  choose h from hexes\n"
        "    where condition_number_0(h)\n"
        "      and condition_number_1(h)\n"
        "      and condition_number_2(h)\n"
        "      and condition_number_3(h)\n"
        "      and condition_number_4(h)\n"
        "    by active min 1 optional §1\n"
        "}\n"
    )


def test_comments_stay_where_the_author_put_them() -> None:
    """Comments between declarations stay before the one that follows; a comment inside a
    declaration stays next to the line it precedes or ends (it used to move up before the
    declaration, away from the line it described)."""
    src = (
        "# head\n"
        "\n"
        "# about a\n"
        "terrain a { x: 1 }  # trailing\n"
        "# between\n"
        "terrain b {\n"
        "  # inside b\n"
        "  y: 2\n"
        "}\n"
        "\n"
        "\n"
        "# end 1\n"
        "\n"
        "# end 2\n"
    )
    assert assert_round_trip(src) == (
        "# head\n"
        "\n"
        "# about a\n"
        "terrain a { x: 1 }  # trailing\n"
        "\n"
        "# between\n"
        "terrain b {\n"
        "  # inside b\n"
        "  y: 2\n"
        "}\n"
        "\n"
        "# end 1\n"
        "\n"
        "# end 2\n"
    )


def test_comments_inside_a_deck_stay_with_their_cards() -> None:
    src = (
        'deck events "Events" §A3 {  # both sides draw from it\n'
        "  # the hand size\n"
        '  piles: ["hand"]   # one hand per side\n'
        '  card c01 "First" { axis: "Blitz" soviet: "Stavka" }  # red 45\n'
        "  # cards 02-03 are German only\n"
        "  card c02 {\n"
        '    axis: "Panzer"  # cross\n'
        "    # no Soviet event\n"
        "  }\n"
        '  card c03 { axis: "Stuka" }\n'
        "  # card 04: see provisional_cards.wcx\n"
        "}\n"
    )
    assert assert_round_trip(src) == (
        'deck events "Events" §A3 {  # both sides draw from it\n'
        "  # the hand size\n"
        '  piles: ["hand"]  # one hand per side\n'
        '  card c01 "First" { axis: "Blitz" soviet: "Stavka" }  # red 45\n'
        "  # cards 02-03 are German only\n"
        "  card c02 {\n"
        '    axis: "Panzer"  # cross\n'
        "    # no Soviet event\n"
        "  }\n"
        '  card c03 { axis: "Stuka" }\n'
        "  # card 04: see provisional_cards.wcx\n"
        "}\n"
    )


def test_comments_inside_statements_tables_and_quantities_stay_in_place() -> None:
    src = (
        "procedure p(u: unit) {\n"
        "  # first, the easy case\n"
        "  if u.steps > 1 {  # a full-strength unit\n"
        "    reduce(u, 1)  # flip it\n"
        "  } else {\n"
        "    eliminate(u)\n"
        "  }\n"
        "  for v in units_at(u.location) {\n"
        "    # every other unit there\n"
        "    reduce(v, 1)\n"
        "  }\n"
        "  log \"done\"  # always\n"
        "  # nothing after this\n"
        "}\n"
        "\n"
        "table t §7 {\n"
        "  columns: 1 2  # odds\n"
        "  rows roll d6: 1 2\n"
        "  # the first row\n"
        "  row 1: A | B\n"
        "  row 2: C | D  # the last one\n"
        "}\n"
        "\n"
        "quantity q(u: unit): int {\n"
        "  base: 1\n"
        "  # doubled in a city\n"
        "  modifier \"city\" * 2 when u.steps > 1  # §8\n"
        "}\n"
    )
    assert assert_round_trip(src) == (
        "procedure p(u: unit) {\n"
        "  # first, the easy case\n"
        "  if u.steps > 1 {  # a full-strength unit\n"
        "    reduce(u, 1)  # flip it\n"
        "  } else {\n"
        "    eliminate(u)\n"
        "  }\n"
        "  for v in units_at(u.location) {\n"
        "    # every other unit there\n"
        "    reduce(v, 1)\n"
        "  }\n"
        "  log \"done\"  # always\n"
        "  # nothing after this\n"
        "}\n"
        "\n"
        "table t §7 {\n"
        "  columns: 1 2  # odds\n"
        "  rows roll d6: 1 2\n"
        "  # the first row\n"
        "  row 1: A | B\n"
        "  row 2: C | D  # the last one\n"
        "}\n"
        "\n"
        "quantity q(u: unit): int {\n"
        "  base: 1\n"
        "  # doubled in a city\n"
        "  modifier \"city\" * 2 when u.steps > 1  # §8\n"
        "}\n"
    )


def test_an_end_of_line_comment_on_a_line_with_no_item_stays_where_the_author_put_it() -> None:
    """`} else {  # why`, `do {  # why`, `base:  # why`: the line holds no statement, property or
    modifier of its own, and the comment stays at its end (not moved to a line of its own)."""
    src = (
        "procedure p(u: unit) {\n"
        "  if u.steps > 1 {\n"
        "    reduce(u, 1)\n"
        "  } else if u.steps == 1 {  # a remnant\n"
        "    eliminate(u)\n"
        "  } else {  # already gone\n"
        "    # nothing to do\n"
        "    log \"none\"\n"
        "  }\n"
        "}\n"
        "\n"
        "action a \"A\" §1 {\n"
        "  do {  # what the action does\n"
        "    p(u)\n"
        "  }\n"
        "}\n"
        "\n"
        "quantity q(u: unit): int {\n"
        "  base:  # the printed value\n"
        "    u.attack\n"
        "  modifier \"city\" * 2 when u.steps > 1 §8\n"
        "}\n"
    )
    out = assert_round_trip(src)
    assert "  } else if u.steps == 1 {  # a remnant\n" in out
    assert "  } else {  # already gone\n    # nothing to do\n" in out
    assert "  do {  # what the action does\n    p(u)\n" in out
    # the layout joins `base:` and its expression: the comment ends that line
    assert "  base: u.attack  # the printed value\n" in out
    assert format_text(out) == out


def test_a_comment_that_cannot_keep_its_line_goes_just_before_its_item() -> None:
    """Two end-of-line comments on a value that the formatter joins onto one line: the first
    goes on its own line just before the property, the last stays at the end."""
    src = "terrain t {\n  x: 1 +  # one\n     2  # two\n}\n"
    assert assert_round_trip(src) == "terrain t {\n  # one\n  x: 1 + 2  # two\n}\n"


def test_comment_with_hash_inside_strings_is_not_a_comment() -> None:
    assert scan_comments('side s { color: "#fff" } # real\n"\\"#no" # yes') == [(1, "# real"), (2, "# yes")]


def test_format_module_writes_no_comments() -> None:
    module = parse_text("# c\nterrain t # d\n")
    assert format_module(module) == "terrain t\n"
    assert format_module(parse_text("")) == ""


def test_crlf_is_normalised() -> None:
    assert format_text("terrain t\r\n\r\nedge e\r\n") == "terrain t\n\nedge e\n"


def test_syntax_errors_are_diagnostics() -> None:
    with pytest.raises(DiagnosticError) as err:
        format_text("terrain t {", "bad.wcx")
    assert err.value.diagnostics[0].code == "E-syntax"


def test_formatter_refuses_text_it_cannot_read() -> None:
    # a named value in a lookup has no meaning: the parser refuses it, so fmt writes nothing
    with pytest.raises(DiagnosticError) as err:
        format_text("function f() = a[k: 1]", "lossy.wcx")
    assert err.value.diagnostics[0].code == "E-syntax"
    assert "cannot be used in a lookup" in err.value.diagnostics[0].message


# ---------------------------------------------------------------- format_path (the fmt command)
def test_format_path_checks_then_writes(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    messy = tmp_path / "a.wcx"
    messy.write_text("terrain   t{a:1}", encoding="utf-8")
    clean = tmp_path / "sub" / "b.wcx"
    clean.write_text("edge e\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("terrain   t{a:1}", encoding="utf-8")
    os.chmod(messy, 0o640)

    changed, report = format_path(tmp_path, check=True)
    assert changed and f"would reformat {messy}" in report and str(clean) not in report
    assert messy.read_text(encoding="utf-8") == "terrain   t{a:1}"

    changed, report = format_path(tmp_path, check=False)
    assert changed and f"reformatted {messy}" in report
    assert messy.read_text(encoding="utf-8") == "terrain t { a: 1 }\n"
    assert os.stat(messy).st_mode & 0o777 == 0o640
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "terrain   t{a:1}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.wcx", "notes.txt", "sub"], "temp file left behind"

    assert format_path(tmp_path, check=False)[0] is False
    assert format_path(clean, check=True) == (False, "0 files would reformat, 1 unchanged")


def test_format_path_writes_nothing_when_a_file_has_errors(tmp_path: Path) -> None:
    good = tmp_path / "good.wcx"
    good.write_text("terrain   t", encoding="utf-8")
    (tmp_path / "bad.wcx").write_text("terrain t {", encoding="utf-8")
    with pytest.raises(DiagnosticError) as err:
        format_path(tmp_path, check=False)
    assert [d.code for d in err.value.diagnostics] == ["E-syntax"]
    assert good.read_text(encoding="utf-8") == "terrain   t"


def test_format_path_reports_missing_paths(tmp_path: Path) -> None:
    with pytest.raises(DiagnosticError):
        format_path(tmp_path / "nope.wcx", check=True)
    assert format_path(tmp_path, check=True) == (False, f"no .wcx files under {tmp_path}")
