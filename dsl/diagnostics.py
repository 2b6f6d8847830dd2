"""Located diagnostics: every problem in user input is reported with file, line, column and a caret.

A `Diagnostic` is plain data; `render` formats it the way compilers do::

    games/tiny/rules.wcx:12:9: error[E-undefined]: unknown name 'forrest'
       12 |   base terrain(forrest).move_cost
          |                ^^^^^^^
       hint: did you mean 'forest'?

`DiagnosticError` carries one or more diagnostics out of a loader; the CLI prints them and exits
with status 1, never with a Python traceback.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True)
class Span:
    """A region of one source file. Lines and columns are 1-based; end is exclusive."""

    file: str
    line: int
    column: int
    end_line: int | None = None
    end_column: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    severity: Severity
    code: str
    message: str
    span: Span | None = None
    hint: str | None = None

    def render(self, source: str | None = None) -> str:
        """Format as `file:line:col: severity[code]: message`, the source line, a caret, a hint."""
        where = f"{self.span}: " if self.span else ""
        out = [f"{where}{self.severity.value}[{self.code}]: {self.message}"]
        if self.span is not None:
            text = source if source is not None else _read(self.span.file)
            if text is not None:
                lines = text.splitlines()
                if 1 <= self.span.line <= len(lines):
                    src = lines[self.span.line - 1].expandtabs(1)
                    width = 1
                    if self.span.end_line == self.span.line and self.span.end_column:
                        width = max(1, self.span.end_column - self.span.column)
                    width = min(width, max(1, len(src) - self.span.column + 1))
                    src, column, width = _window(src, self.span.column, width)
                    gutter = f"{self.span.line:>5} | "
                    out.append(gutter + src)
                    out.append(" " * (len(gutter) - 2) + "| " + " " * (column - 1) + "^" * width)
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)


SHOWN_LINE = 120  # characters of a source line shown under a diagnostic


def _window(src: str, column: int, width: int) -> tuple[str, int, int]:
    """A long source line cut to SHOWN_LINE characters around the column (`...` marks the cuts),
    with the column and caret width moved to match."""
    if len(src) <= SHOWN_LINE:
        return src, column, width
    start = max(0, min(column - 1 - SHOWN_LINE // 3, len(src) - SHOWN_LINE))
    shown = src[start:start + SHOWN_LINE]
    prefix = "..." if start > 0 else ""
    suffix = "..." if start + SHOWN_LINE < len(src) else ""
    column = column - start + len(prefix)
    width = max(1, min(width, SHOWN_LINE - (column - len(prefix)) + 1))
    return prefix + shown + suffix, column, width


@dataclass
class DiagnosticError(Exception):
    """Raised when input cannot be used; carries every diagnostic found in the pass."""

    diagnostics: list[Diagnostic] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)


class Diagnostics:
    """An accumulator so one pass can report several problems."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def error(self, code: str, message: str, span: Span | None = None, hint: str | None = None) -> None:
        self.items.append(Diagnostic(Severity.ERROR, code, message, span, hint))

    def warning(self, code: str, message: str, span: Span | None = None, hint: str | None = None) -> None:
        self.items.append(Diagnostic(Severity.WARNING, code, message, span, hint))

    def extend(self, items) -> None:
        self.items.extend(items)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity is Severity.WARNING]

    def raise_if_errors(self) -> None:
        if self.errors:
            raise DiagnosticError(list(self.items))


def input_diagnostic(exc, code: str, span: Span | None) -> Diagnostic:
    """A diagnostic for a file that cannot be read (a `warcodex.inputs.InputError`): at the bad
    byte when the problem is inside the file (invalid UTF-8), else at the statement that named
    the file (`include`, `map:`), if any."""
    if exc.line is not None:
        if exc.text is not None:
            remember_source(exc.path, exc.text)  # show the line, bad bytes replaced
        return Diagnostic(Severity.ERROR, code, exc.message, Span(exc.path, exc.line, exc.column), exc.hint)
    return Diagnostic(Severity.ERROR, code, exc.message, span, exc.hint)


def did_you_mean(name: str, candidates) -> str | None:
    """A hint naming the closest known spelling, if any is close."""
    match = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.75)
    return f"did you mean '{match[0]}'?" if match else None


_cache: dict[str, str] = {}


def _read(path: str) -> str | None:
    if path in _cache:
        return _cache[path]
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    _cache[path] = text
    return text


def remember_source(path: str, text: str) -> None:
    """Let render() show lines of sources that are not on disk (tests, generated text)."""
    _cache[path] = text
