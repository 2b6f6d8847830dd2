"""Where a name is used in a map file (`.wcmap`): the words of its lines outside strings and comments.

Map files have their own grammar (`dsl/mapfile.lark`) and their boards keep no positions,
so the server finds a terrain or feature name the way the checker points at an undeclared one: as
a whole word, strings blanked (same length, so columns stay right), comments dropped.
"""

from __future__ import annotations

import re
from pathlib import Path

_STRING = re.compile(r'"([^"\\\n]|\\.)*"')


def word_locations(path: str, name: str, text: str | None = None) -> list[tuple[int, int, int]]:
    """(line, start column, end column), 0-based, of each use of `name` as a word."""
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return []
    word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
    out = []
    for i, line in enumerate(text.splitlines()):
        code = _STRING.sub(lambda m: " " * len(m.group(0)), line).split("#", 1)[0]
        out += [(i, m.start(), m.end()) for m in word.finditer(code)]
    return out
