"""What `warcodex test` prints and writes: test selection (`-k`), pytest-like failure reports, the
summary line and JUnit XML (`--junit`), for CI systems that read it."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter

from warcodex.dsl import ast
from warcodex.interpreter.rule_tests import TestOutcome


# ==================================================================== -k PATTERN
class PatternError(ValueError):
    pass


def matches(pattern: str, test: ast.Test) -> bool:
    """pytest's `-k`: words joined by `and`, `or`, `not` and parentheses; a word matches when it
    is a case-insensitive substring of the test's name, label, file name or a section it cites
    (`-k 9.2`, `-k "combat and not ex13"`)."""
    span = test.header.span
    haystack = " ".join([test.name, test.header.label or "", span.file if span else ""]
                        + ["§" + c for c in test.header.citations]).lower()
    tokens = re.findall(r"\(|\)|[^\s()]+", pattern)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def expr():
        value = term()
        while peek() == "or":
            take()
            value = term() or value
        return value

    def term():
        value = factor()
        while peek() == "and":
            take()
            value = factor() and value
        return value

    def factor():
        tok = peek()
        if tok is None:
            raise PatternError(f"-k {pattern!r}: a word is missing at the end")
        if tok == "not":
            take()
            return not factor()
        if tok == "(":
            take()
            value = expr()
            if peek() != ")":
                raise PatternError(f"-k {pattern!r}: a ')' is missing")
            take()
            return value
        if tok in (")", "and", "or"):
            raise PatternError(f"-k {pattern!r}: unexpected '{tok}'")
        take()
        return tok.lower() in haystack

    result = expr()
    if pos != len(tokens):
        raise PatternError(f"-k {pattern!r}: unexpected '{tokens[pos]}'")
    return result


# ==================================================================== reports
def title(outcome: TestOutcome) -> str:
    t = outcome.test
    cites = " ".join("§" + c for c in t.header.citations)
    label = f": {t.header.label}" if t.header.label else ""
    return f"{t.name}{label} ({cites})" if cites else f"{t.name}{label}"


def failure_lines(outcome: TestOutcome) -> list[str]:
    """The report of one failed test: where, what was expected and what happened, explanations."""
    where = f"{shown_span(outcome.where)}: " if outcome.where else ""
    kind = "error" if outcome.status == "error" else "failed"
    lines = [f"{where}{kind}: {outcome.message}"]
    source = _source_line(outcome.where)
    if source is not None:
        lines.append(f"    {source.strip()}")
    lines.extend("  " + d for d in outcome.details)
    return lines


def shown_span(span) -> str:
    """A span with its file relative to the working folder when it is inside it."""
    from pathlib import Path

    try:
        file = str(Path(span.file).resolve().relative_to(Path.cwd()))
    except ValueError:
        file = span.file
    return f"{file}:{span.line}:{span.column}"


def _source_line(span) -> str | None:
    if span is None:
        return None
    from warcodex.dsl.diagnostics import _read

    text = _read(span.file)
    if text is None:
        return None
    lines = text.splitlines()
    return lines[span.line - 1] if 1 <= span.line <= len(lines) else None


def counts(outcomes: list[TestOutcome]) -> Counter:
    return Counter(o.status for o in outcomes)


def summary_line(outcomes: list[TestOutcome], seconds: float, deselected: int = 0) -> str:
    c = counts(outcomes)
    parts = [f"{c[k]} {k}" for k in ("failed", "error", "passed") if c[k]]
    if deselected:
        parts.append(f"{deselected} deselected")
    return f"{', '.join(parts) or 'no tests ran'} in {seconds:.2f}s"


def junit_xml(suite: str, outcomes: list[TestOutcome], seconds: float) -> str:
    c = counts(outcomes)
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(len(outcomes)), failures=str(c["failed"]),
                       errors=str(c["error"]), skipped="0", time=f"{seconds:.3f}")
    for o in outcomes:
        case = ET.SubElement(ts, "testcase", classname=f"{suite}.{_stem(o.file)}", name=o.name,
                             time=f"{o.seconds:.3f}", file=o.file,
                             line=str(o.test.header.span.line if o.test.header.span else 0))
        if o.status != "passed":
            tag = "failure" if o.status == "failed" else "error"
            el = ET.SubElement(case, tag, message=o.message)
            el.text = "\n".join(failure_lines(o))
        props = ET.SubElement(case, "properties")
        for c_ in o.test.header.citations:
            ET.SubElement(props, "property", name="section", value="§" + c_)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-4] if name.endswith(".wcx") else name
