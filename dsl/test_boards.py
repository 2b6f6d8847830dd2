"""Test boards: the board a rule test plays on.

A test plays on the game's own map unless it says `map NAME` (a board declared in a tests file
with `map NAME "Label" { ... }`), `map NAME { more statements }` (that board plus statements of
its own) or `map { ... }` (a board of its own). Map bodies are .wcmap statements kept as raw
text; this module assembles them into one .wcmap text, loads it with the map loader, and maps
every map diagnostic back to the line and column of the tests file it came from.
"""

from __future__ import annotations

import re

from dataclasses import dataclass, field, replace

from warcodex.dsl import ast
from warcodex.dsl.diagnostics import Diagnostic, DiagnosticError, Diagnostics, Span


@dataclass
class BoardSource:
    """The .wcmap text of a test board, with where each of its lines comes from."""

    name: str
    text: str
    # one entry per segment: (first generated line, span where the segment starts in a tests file)
    segments: list[tuple[int, Span]] = field(default_factory=list)

    def origin(self, span: Span | None) -> Span | None:
        """The tests-file span of a span of the generated text."""
        if span is None or not self.segments:
            return span
        first, where = self.segments[0]
        for start, seg in self.segments:
            if span.line >= start:
                first, where = start, seg
        if span.line < first:  # the generated header line: point at the board's declaration
            return where

        def move(line: int, column: int) -> tuple[int, int]:
            return where.line + line - first, (column + where.column - 1 if line == first else column)

        line, column = move(span.line, span.column)
        end_line = end_column = None
        if span.end_line is not None and span.end_column is not None and span.end_line >= first:
            end_line, end_column = move(span.end_line, span.end_column)
        return Span(where.file, line, column, end_line, end_column)


def board_source(name: str, parts: list[tuple[str, Span | None]]) -> BoardSource:
    """Join map bodies (text, where it starts) into one provisional .wcmap text."""
    lines = [f'map "{name}" provisional "a test board" {{']
    segments = []
    for text, where in parts:
        if where is not None:
            segments.append((len(lines) + 1, where))
        lines.extend(text.split("\n"))
    lines.append("}")
    return BoardSource(name, "\n".join(lines) + "\n", segments)


def test_board_source(game, test_map: ast.TestMap) -> BoardSource:
    """The board of a test's `map` line. Raises DiagnosticError for an unknown board name."""
    parts: list[tuple[str, Span | None]] = []
    name = "test board"
    if test_map.base is not None:
        base = game.maps.get(test_map.base)
        if base is None:
            from warcodex.dsl.diagnostics import did_you_mean

            diags = Diagnostics()
            diags.error("E-undefined", f"unknown test board '{test_map.base}'", test_map.span,
                        hint=did_you_mean(test_map.base, game.maps)
                        or 'declare it in a tests file: map NAME "Label" { grid hex ... }')
            raise DiagnosticError(diags.items)
        parts.append((base.text, base.text_span))
        name = base.name
    if test_map.text is not None:
        parts.append((test_map.text, test_map.text_span))
    return board_source(name, parts)


def load_board(source: BoardSource):
    """Load a test board with the map loader (`mapfile.parse_map_text`); map errors are reported
    at their place in the tests file."""
    from warcodex.dsl.mapfile import parse_map_text

    virtual = f"<test board {source.name}>"
    try:
        return parse_map_text(source.text, virtual)
    except DiagnosticError as exc:
        raise DiagnosticError([_relocate(d, source) for d in exc.diagnostics]) from None


def _relocate(d: Diagnostic, source: BoardSource) -> Diagnostic:
    def line(m: re.Match) -> str:  # "already has terrain 'sea' (line 5)": a line of the tests file
        where = source.origin(Span("", int(m.group(1)), 1))
        return f"(line {where.line})" if where is not None else m.group(0)

    return replace(d, span=source.origin(d.span), message=re.sub(r"\(line (\d+)\)", line, d.message))
