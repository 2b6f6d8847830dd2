"""The Pygments lexer for .wcx files (`warcodex.dsl.lexer`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, Punctuation, String, Whitespace

from warcodex.dsl.lexer import WarcodexLexer
from warcodex.dsl.stdlib import BUILTINS, CONSTANTS, EVENTS, TYPES

ROOT = Path(__file__).resolve().parents[1]
TINY_FILES = sorted((ROOT / "games" / "tiny").glob("*.wcx"))


def lex(text: str) -> list[tuple]:
    return [(t, v) for t, v in WarcodexLexer().get_tokens(text) if t is not Whitespace]


def types_of(text: str, value: str) -> list:
    """Every token type given to `value` in `text`."""
    return [t for t, v in lex(text) if v == value]


def type_of(text: str, value: str):
    found = types_of(text, value)
    assert found, f"{value!r} not found among tokens of {text!r}: {lex(text)}"
    return found[0]


# ---------------------------------------------------------------- the example game
def test_tiny_files_exist():
    assert len(TINY_FILES) >= 5


@pytest.mark.parametrize("path", TINY_FILES, ids=lambda p: p.name)
def test_tiny_files_lex_without_errors(path):
    text = path.read_text(encoding="utf-8")
    tokens = list(WarcodexLexer().get_tokens(text))
    errors = [(t, v) for t, v in tokens if t in Error]
    assert errors == []
    # the lexer loses nothing: the tokens spell the file again
    assert "".join(v for _, v in tokens).rstrip("\n") == text.rstrip("\n")


def _tiny(name: str) -> str:
    return (ROOT / "games" / "tiny" / name).read_text(encoding="utf-8")


def test_tiny_specific_tokens():
    tables = _tiny("tables.wcx")
    assert type_of(tables, "§7.3") is Name.Label
    assert type_of(tables, "provisional") is Name.Decorator
    assert type_of(tables, "rulebook") is Name.Decorator
    assert type_of(tables, "1:2") is Number.Odds
    assert type_of(tables, "5:1") is Number.Odds
    assert type_of(tables, "d6") is Number.Dice
    assert type_of(tables, "table") is Keyword.Declaration
    assert type_of(tables, "crt") is Name.Function
    assert type_of(tables, "beyond") is Keyword
    assert type_of(tables, "illegal") is Keyword
    assert type_of(tables, "clamp") is Keyword
    assert type_of(tables, '"Combat Results Table"') is String.Double
    assert type_of(tables, "|") is Operator
    assert type_of(tables, "..") is Operator
    assert type_of(tables, "# Tables. The Tiny Front CRT is an invented grid, so it is marked provisional: a user who has a") is Comment.Single

    components = _tiny("components.wcx")
    assert type_of(components, "terrain") is Keyword.Declaration
    assert type_of(components, "forest") is Name.Class
    assert type_of(components, "move_cost") is Name.Attribute
    assert type_of(components, "ru") is Name.Attribute
    assert type_of(components, "unit_var") is Keyword.Declaration
    assert type_of(components, "has_moved") is Name.Variable
    assert type_of(components, "bool") is Keyword.Type
    assert type_of(components, "false") is Keyword.Constant
    assert type_of(components, "-") is Operator

    combat = _tiny("combat.wcx")
    assert type_of(combat, "quantity") is Keyword.Declaration
    assert type_of(combat, "attack_strength") is Name.Function
    assert type_of(combat, "modifier") is Keyword
    assert type_of(combat, "when") is Keyword
    assert type_of(combat, "round") is Keyword
    assert type_of(combat, "up") is Keyword
    assert type_of(combat, "is") is Operator.Word
    assert type_of(combat, "and") is Operator.Word
    assert type_of(combat, "edge") is Name.Builtin
    assert type_of(combat, "units_at") is Name.Builtin
    assert type_of(combat, "active") is Name.Builtin.Pseudo
    assert type_of(combat, "loc") is Name.Builtin.Pseudo  # u.loc: an engine-provided unit field
    assert type_of(combat, "choose") is Keyword

    sequence = _tiny("sequence.wcx")
    assert type_of(sequence, "phase") is Keyword.Declaration
    assert type_of(sequence, "player_turns") is Keyword.Declaration
    assert type_of(sequence, "game_end") is Name.Builtin  # an engine event
    assert type_of(sequence, "allow") is Keyword
    assert type_of(sequence, "turn") is Name.Builtin.Pseudo
    assert type_of(sequence, "turn_order") is Name.Builtin.Pseudo


# ---------------------------------------------------------------- targeted snippets
def test_citations_with_subsections_and_letters():
    assert type_of("x §8.4.1 y", "§8.4.1") is Name.Label
    assert type_of("x §TEC y", "§TEC") is Name.Label
    assert type_of("x §12 y", "§12") is Name.Label


def test_dice_and_odds_and_numbers():
    text = "function f(): int = if roll 2d6 keep highest 1 > 3 then 1 else 0.5"
    assert type_of(text, "2d6") is Number.Dice
    assert type_of(text, "highest") is Keyword
    assert type_of(text, "0.5") is Number.Float
    assert type_of(text, "3") is Number.Integer
    assert type_of("function g(): odds = 3:1 + 1", "3:1") is Number.Odds
    # a name that merely contains d and digits is not dice
    assert type_of("function g(): int = d6x + hd6", "d6x") is Name
    assert type_of("function g(): int = d6x + hd6", "hd6") is Name


def test_declaration_words_only_at_line_start():
    text = 'unit panzer "Panzer" : mechanized { attack: 8 }\nfunction f(u: unit): side = u.side\n'
    assert types_of(text, "unit") == [Keyword.Declaration, Keyword.Type]
    assert type_of(text, "panzer") is Name.Class
    assert type_of(text, "side") is Keyword.Type  # the return type; `.side` is a unit field
    assert types_of(text, "side")[-1] is Name.Builtin.Pseudo


def test_override_and_overlay_header():
    text = 'override table crt player_aid "published card" {\n  row 3: AR | EX\n}\n'
    toks = lex(text)
    assert toks[0] == (Keyword.Declaration, "override")
    assert toks[1] == (Keyword.Declaration, "table")
    assert toks[2] == (Name.Function, "crt")
    assert toks[3] == (Name.Decorator, "player_aid")


def test_from_as_keyword_and_as_movement_binding():
    text = "action a \"A\" §1 {\n  param h: from adjacent(x) where edge(from, to) is road and from != origin\n}"
    assert types_of(text, "from") == [Keyword, Name.Variable, Name.Variable]
    assert type_of("function f(from: location) = from.controller", "from") is Name.Attribute  # a parameter name


def test_min_max_are_builtins_only_when_called():
    text = 'quantity q(): int {\n  base: max(1, 2)\n  modifier "cap" min 30 §8.5\n}\n'
    assert type_of(text, "max") is Name.Builtin
    assert type_of(text, "min") is Keyword
    assert type_of(text, "base") is Keyword
    assert type_of('table t "T" §1 {\n  columns: 1 2\n  row 1: A | B\n}', "columns") is Keyword


def test_trigger_events():
    assert lex('on enter(u: unit, h: location) "x" { }')[1] == (Name.Builtin, "enter")
    assert lex('on card_played(c: name, s: side) { }')[1] == (Name.Builtin, "card_played")  # fired by play()
    assert lex('on bridge_blown(h: location) { }')[1] == (Name.Function, "bridge_blown")  # a game's own event


def test_every_stdlib_name_is_highlighted_as_builtin():
    for name in BUILTINS:
        assert type_of(f"function f() = {name}(x)", name) is Name.Builtin, name
    for name in CONSTANTS:
        assert type_of(f"function f() = 1 + {name}", name) is Name.Builtin.Pseudo, name
    for name in EVENTS:
        assert type_of(f"function f() = emit({name})", name) is Name.Builtin, name
    for name in TYPES:
        assert type_of(f"function f(x: {name}) = x", name) is Keyword.Type, name


def test_string_escapes_and_punctuation():
    text = r'log "say \"hi\"" x[1]'
    assert type_of(text, r'"say \"hi\""') is String.Double
    assert type_of(text, "[") is Punctuation


def test_registered_with_pygments():
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename

    try:
        lexer = get_lexer_by_name("wcx")
    except Exception:  # pragma: no cover - the entry point needs `pip install -e .`
        pytest.skip("package entry points not installed")
    assert isinstance(lexer, WarcodexLexer)
    assert isinstance(get_lexer_for_filename("combat.wcx"), WarcodexLexer)
    assert isinstance(get_lexer_by_name("warcodex"), WarcodexLexer)
