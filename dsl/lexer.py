"""A Pygments lexer for the Warcodex rules language (.wcx), for docs, player aids and editors.

Registered as the `pygments.lexers` entry point `warcodex` (see pyproject.toml), so
`pygmentize -l wcx games/tiny/combat.wcx` and Markdown/Sphinx ```` ```wcx ```` fences work once the
package is installed.

Token choices (so styles can tell them apart):

========================  ==========================================================
``Name.Label``            section citations: ``§7.3``, ``§8.4.1``
``Name.Decorator``        provenance: ``provisional``, ``rulebook``, ``player_aid``, ``derived``
``Number.Odds``           odds ratios: ``3:1``
``Number.Dice``           dice: ``d6``, ``2d6``
``Keyword.Declaration``   declaration kinds at the start of a line: ``unit``, ``table``...
``Keyword``               clause and statement words: ``modifier``, ``when``, ``choose``...
``Keyword.Type``          types after ``:``: ``int``, ``unit``, ``location``...
``Keyword.Constant``      ``true``, ``false``, ``none``
``Name.Builtin``          standard-library functions and engine events (``dsl/stdlib.py``)
``Name.Builtin.Pseudo``   always-defined names (``turn``, ``active``...) and unit fields
                          after a dot (``u.steps``, ``u.loc``...)
``Name.Class``            the name a declaration introduces (``unit panzer``)
``Name.Function``         the name of a quantity, function, procedure, action, result,
                          table or movement mode being declared, and trigger events
``Name.Variable``         the name of a state variable being declared
``Name.Attribute``        property keys (``move_cost:``) and other fields after a dot
``Operator.Word``         ``and``, ``or``, ``not``, ``is``, ``in``
========================  ==========================================================

Keywords in the language are soft (a word is a keyword only where the grammar expects one); the
lexer approximates that with context: declaration words count only at the start of a line and
when followed by a name, a word followed by ``:`` is a property key, a standard-library name is
highlighted as a built-in. The built-in names are imported from `warcodex.dsl.stdlib`, never
copied, so the highlighting follows the standard library.
"""

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from warcodex.dsl.stdlib import BUILTINS, CONSTANTS, EVENTS, TYPES, UNIT_FIELDS

__all__ = ["WarcodexLexer", "Odds", "Dice", "Citation", "Provenance"]

# Token types specific to the language (subtypes fall back to their parent's style).
Citation = Name.Label
Provenance = Name.Decorator
Odds = Number.Odds
Dice = Number.Dice

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_END = r"(?![A-Za-z0-9_])"  # the end of a word (the grammar's keyword boundary)

# Declaration kinds, grouped by what the declared name is.
_DECL_CLASS = ("game", "terrain", "edge", "feature", "marker", "class", "side", "alliance", "option", "family",
               "unit", "scenario", "invariant", "deck", "card", "phase", "test", "example", "map")
_DECL_FUNC = ("quantity", "function", "procedure", "action", "result", "table", "movement", "evaluation")
_DECL_VAR = ("var", "side_var", "unit_var", "location_var")
# Declarations without a name of their own.
_DECL_BARE = ("include", "sections", "sequence", "turns", "player_turns", "player_turn", "repeat")

# Clause and statement words.
_KEYWORDS = (
    # quantities, tables
    "base", "modifier", "term", "weight", "round", "up", "down", "nearest", "group", "order", "columns", "rows", "row", "at_most",
    "at_least",
    "clamp", "beyond", "above", "below", "from", "upto", "use", "result", "illegal",
    # actions, procedures, statements
    "param", "subset", "where", "require", "do", "let", "set", "if", "then", "else", "for", "choose", "reroll", "hidden",
    "per", "bookkeeping",
    "by", "otherwise", "optional", "apply", "step", "stop", "log", "min", "max", "roll", "keep", "highest", "lowest",
    # units, sequence, scenarios
    "at", "steps", "allow", "limit", "until", "when", "while", "setup", "on",
    # rule tests (tests/*.wcx)
    "dice", "answer", "expect", "legal", "marked", "because", "without", "box", "offered", "asked", "same",
    "player", "turn", "active", "count",  # also built-in names: those rules come first (below)
    # decks: who may see a pile's cards (`pile` is also a built-in function)
    "pile", "face_down", "face_up", "owner_only",
    # sections: how far a section is encoded
    "partial", "not_encoded", "not_applicable",
)
_OPERATOR_WORDS = ("and", "or", "not", "is", "in")
_CONSTANTS = ("true", "false", "none")
_PROVENANCE = ("provisional", "rulebook", "player_aid", "derived")

_BUILTIN_FUNCS = tuple(sorted(BUILTINS))
_BUILTIN_EVENTS = tuple(sorted(EVENTS))
_BUILTIN_CONSTANTS = tuple(sorted(CONSTANTS))
_BUILTIN_FIELDS = tuple(sorted(UNIT_FIELDS))
_TYPES = tuple(sorted(TYPES))


def _alt(names) -> str:
    # longest first, so `side_var` wins over `side`
    return "(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + ")"


class WarcodexLexer(RegexLexer):
    """Highlights Warcodex rules (.wcx files)."""

    name = "Warcodex"
    aliases = ["warcodex", "wcx"]
    filenames = ["*.wcx"]
    mimetypes = ["text/x-warcodex"]
    version_added = ""
    flags = re.MULTILINE | re.UNICODE

    tokens = {
        "root": [
            # ---- declarations: only at the start of a line (after indentation / `override`)
            (rf"^([ \t]*)(?:(override)([ \t]+))?({_alt(_DECL_VAR)})([ \t]+)({_IDENT})",
             bygroups(Whitespace, Keyword.Declaration, Whitespace, Keyword.Declaration, Whitespace, Name.Variable)),
            (rf"^([ \t]*)(?:(override)([ \t]+))?({_alt(_DECL_FUNC)})([ \t]+)({_IDENT})",
             bygroups(Whitespace, Keyword.Declaration, Whitespace, Keyword.Declaration, Whitespace, Name.Function)),
            (rf"^([ \t]*)(?:(override)([ \t]+))?({_alt(_DECL_CLASS)})([ \t]+)({_IDENT})",
             bygroups(Whitespace, Keyword.Declaration, Whitespace, Keyword.Declaration, Whitespace, Name.Class)),
            (rf"^([ \t]*)(on)([ \t]+)({_alt(_BUILTIN_EVENTS)}){_END}",
             bygroups(Whitespace, Keyword.Declaration, Whitespace, Name.Builtin)),
            (rf"^([ \t]*)(on)([ \t]+)({_IDENT})",
             bygroups(Whitespace, Keyword.Declaration, Whitespace, Name.Function)),
            (rf"^([ \t]*)(?:(override)([ \t]+))?({_alt(_DECL_BARE)}){_END}",
             bygroups(Whitespace, Keyword.Declaration, Whitespace, Keyword.Declaration)),

            # ---- trivia
            (r"\n", Whitespace),
            (r"[ \t\r\f\v]+", Whitespace),
            (r"#[^\n]*", Comment.Single),

            # ---- literals
            (r'"(?:[^"\\\n]|\\.)*"', String.Double),
            (r"§[A-Za-z0-9][A-Za-z0-9._\-]*[A-Za-z0-9]|§[A-Za-z0-9]", Citation),
            (rf"(?<![A-Za-z0-9_])[0-9]*d[0-9]+{_END}", Dice),
            (r"[0-9]+:[0-9]+", Odds),
            (r"[0-9]+\.[0-9]+(?!\.)", Number.Float),
            (r"[0-9]+", Number.Integer),

            # ---- context-dependent words
            # after a dot: a field (the engine's unit fields, or a property / variable)
            (rf"(\.)({_alt(_BUILTIN_FIELDS)}){_END}", bygroups(Punctuation, Name.Builtin.Pseudo)),
            (rf"(\.)({_IDENT})", bygroups(Punctuation, Name.Attribute)),
            # a type after ':' (parameters, results of functions, variables)
            (rf"(:)([ \t]*)({_alt(_TYPES)}){_END}(?![ \t]*[(.\[])", bygroups(Punctuation, Whitespace, Keyword.Type)),
            # table axes: `columns odds:` / `rows roll d6:`
            (r"(columns|rows)([ \t]+)(odds|diff|values|roll)(?![A-Za-z0-9_])",
             bygroups(Keyword, Whitespace, Keyword.Type)),
            # `base:`, `order:` (quantities) and `columns:`, `rows:` (tables) are clauses, not properties
            (r"(base|order|columns|rows)(?=[ \t]*:)", Keyword),
            # a property key / parameter name / translation language: `move_cost: 2`
            (rf"{_IDENT}(?=[ \t]*:)", Name.Attribute),
            # `from` as a value (a movement mode's binding: `edge(from, to)`), not the keyword
            (r"from(?=[ \t]*[,)\].}=!<>*/%+|])", Name.Variable),
            # min/max: calls are built-ins, otherwise modifier operators and size bounds
            (rf"{_alt(('min', 'max'))}(?=[ \t]*\()", Name.Builtin),

            # ---- words
            (words(_PROVENANCE, suffix=_END), Provenance),
            (words(_CONSTANTS, suffix=_END), Keyword.Constant),
            (words(_OPERATOR_WORDS, suffix=_END), Operator.Word),
            # `turn`, `active` (rule tests' lines too) read as the built-in values; a built-in whose
            # name is also a keyword (`count(`, `pile(`, `rows(`) as the call
            (words(_BUILTIN_CONSTANTS, suffix=_END), Name.Builtin.Pseudo),
            (rf"{_alt(_BUILTIN_FUNCS)}(?=[ \t]*\()", Name.Builtin),
            (words(_KEYWORDS, suffix=_END), Keyword),
            (words(_BUILTIN_FUNCS, suffix=_END), Name.Builtin),
            (words(_BUILTIN_EVENTS, suffix=_END), Name.Builtin),
            (words(_BUILTIN_CONSTANTS, suffix=_END), Name.Builtin.Pseudo),
            (_IDENT, Name),

            # ---- operators and punctuation
            (r"==|!=|<=|>=|\+=|-=|\.\.|[-+*/%<>=|]", Operator),
            (r"[{}()\[\],:.]", Punctuation),
        ],
    }

    def analyse_text(text):  # noqa: N805 - Pygments calls it as a static method
        score = 0.0
        if re.search(r"§[0-9]", text):
            score += 0.3
        if re.search(r"^\s*(quantity|modifier|movement|scenario)\s", text, re.MULTILINE):
            score += 0.3
        return min(score, 1.0)

