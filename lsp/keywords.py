"""The words of the language, read from the Lark grammar (never listed by hand here).

Completion offers them, the TextMate grammar of the editor extensions is generated from them, and
a test checks that the Pygments lexer's keyword lists cover them, so a keyword added to
`warcodex.lark` reaches every editor.
"""

from __future__ import annotations

import functools
import re

from lark.grammar import NonTerminal, Terminal

from warcodex.dsl.parser import grammar_parser

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# `(a|b|c)(?![A-Za-z0-9_])`: a keyword terminal written as a regular expression (soft keywords)
_WORD_ALTERNATIVES = re.compile(r"\((?:\?:)?([A-Za-z_|\\+\-*/=<>!%]+)\)(?:\(\?!\[A-Za-z0-9_\]\))?")

# Words that are operators or constants rather than keywords.
OPERATOR_WORDS = ("and", "or", "not", "is", "in")
CONSTANT_WORDS = ("true", "false", "none")
# Terminals whose words are provenance kinds (`provisional "why"`).
PROVENANCE_TERMINAL = "PROVENANCE"
# Rules of declarations nested in others (a phase in a sequence, a card in a deck...): their first
# word introduces a declaration like the top-level ones under `decl`.
NESTED_DECLARATIONS = ("phase", "card", "turn_loop", "player_turns")


def terminal_words(name: str) -> list[str]:
    """The words a terminal matches, when it matches a fixed set of words."""
    pattern = grammar_parser().get_terminal(name).pattern
    if pattern.type == "str":
        return [pattern.value] if _WORD.fullmatch(pattern.value) else []
    m = _WORD_ALTERNATIVES.fullmatch(pattern.value)
    if not m:
        return []
    return [w for w in m.group(1).split("|") if _WORD.fullmatch(w)]


@functools.lru_cache(maxsize=1)
def grammar_words() -> dict[str, tuple[str, ...]]:
    """Every fixed word of the grammar, by terminal name."""
    out = {}
    for term in grammar_parser().terminals:
        words = terminal_words(term.name)
        if words:
            out[term.name] = tuple(words)
    return out


@functools.lru_cache(maxsize=1)
def keywords() -> tuple[str, ...]:
    """Every word the grammar gives a meaning to, sorted."""
    return tuple(sorted({w for words in grammar_words().values() for w in words}))


@functools.lru_cache(maxsize=1)
def declaration_keywords() -> tuple[str, ...]:
    """The words that begin a declaration: the first terminal of each `item`/`decl` alternative
    and of the nested declaration rules."""
    rules = grammar_parser().rules
    by_origin: dict[str, list] = {}
    for r in rules:
        by_origin.setdefault(r.origin.name, []).append(r.expansion)
    heads = [exp[0].name for origin in ("item", "decl") for exp in by_origin.get(origin, [])
             if exp and isinstance(exp[0], NonTerminal)]
    heads += [n for n in NESTED_DECLARATIONS if n in by_origin]
    words: set[str] = set()
    for head in heads:
        for exp in by_origin.get(head, []):
            if exp and isinstance(exp[0], Terminal):
                words.update(terminal_words(exp[0].name))
    words.discard("override")
    return tuple(sorted(words))


def provenance_words() -> tuple[str, ...]:
    return grammar_words().get(PROVENANCE_TERMINAL, ())
