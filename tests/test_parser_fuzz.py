"""Fuzzing the parser, the loader and the formatter with hypothesis.

(a) generated text: a strategy composes random but grammatical declarations, statements and
    expressions (every declaration kind, random header pieces in random order, comments between
    and after declarations). It must parse; its formatting must round-trip (same AST, ignoring
    spans), be idempotent and keep every comment; loading it as the overlay of a copy of
    games/tiny must give a GameDef or located diagnostics.
(b) mutated text: the tiny game's files and tests/data/all_constructs.wcx with characters and
    tokens deleted, inserted, replaced, swapped or duplicated, or cut short. `parse_text` and
    `load_game` must either succeed or raise DiagnosticError whose diagnostics all have a span
    (line >= 1, column >= 1) and a message, and render; never any other exception.

Inputs that once crashed the parser (found by these tests) are kept as regular tests in
FORMER_CRASHES: each must give a located diagnostic.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from lark.exceptions import VisitError
from pydantic import ValidationError

from warcodex.dsl import ast
from warcodex.dsl.diagnostics import DiagnosticError
from warcodex.dsl.formatter import KEYWORDS, dump_ast, format_text, quote, scan_comments
from warcodex.dsl.loader import load_game
from warcodex.dsl.model import GameDef
from warcodex.dsl.parser import parse_text

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "games" / "tiny"
ALL_CONSTRUCTS = Path(__file__).resolve().parent / "data" / "all_constructs.wcx"
SOURCES = {p.name: p.read_text(encoding="utf-8") for p in sorted(TINY.glob("*.wcx"))}
SOURCES[ALL_CONSTRUCTS.name] = ALL_CONSTRUCTS.read_text(encoding="utf-8")

FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------- the outcome every input must have
# Inputs that once crashed the parser or loader (found by these fuzz tests); each must now give a
# located diagnostic.
FORMER_CRASHES = {
    "string escape": ['game g "\\x4" {}', 'game g "\\777" {}', 'edge e "\\q"'],
    "comprehension used as a statement": ["procedure p() { f(x for x in y) }"],
    "axis with an unknown kind name": ["table t { rows foo: 1 2 }", "table t { columns bar: 1 2 }"],
    "named value in a lookup": ["var x: int = a[k: 1]"],
    "two rows axes": ["table t { rows roll d6: 1..6 rows roll d6: 1..6 }"],
}


def check_outcome(run) -> object | None:
    """Run `run()`; it must succeed or raise a well-formed DiagnosticError."""
    try:
        return run()
    except DiagnosticError as exc:
        assert exc.diagnostics, "DiagnosticError without diagnostics"
        for d in exc.diagnostics:
            assert d.message and d.message.strip(), f"empty message: {d!r}"
            assert d.span is not None, f"diagnostic without a location: {d!r}"
            assert d.span.line >= 1 and d.span.column >= 1, f"bad location: {d!r}"
            assert d.render()
        assert str(exc)
        return None



# ---------------------------------------------------------------- generated text
_DICE_RE = re.compile(r"[0-9]*d[0-9]+\Z")
P_EXPR, P_OR, P_AND, P_NOT, P_CMP, P_SUM, P_PROD, P_UNARY, P_POSTFIX = range(9)

names = st.one_of(
    st.sampled_from(["a", "b", "u", "xs", "target", "unit_x", "hex", "foo_1", "Bar", "_z", "d", "x6"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,7}", fullmatch=True),
).filter(lambda n: n not in KEYWORDS and not _DICE_RE.match(n))
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
strings = texts.map(quote)
citations = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9._\-]{0,5}[A-Za-z0-9])?", fullmatch=True).map(lambda s: "§" + s)
provenances = st.tuples(st.sampled_from(["provisional", "rulebook", "player_aid", "derived"]), st.none() | strings).map(
    lambda t: t[0] if t[1] is None else f"{t[0]} {t[1]}")
translations = st.lists(st.tuples(names, strings), min_size=1, max_size=3).map(
    lambda pairs: "[" + ", ".join(f"{k}: {v}" for k, v in pairs) + "]")
small = st.integers(0, 30)
seps = st.sampled_from([" ", "\n", "\n  ", "  "])


def _par(e: tuple[str, int], need: int) -> str:
    text, level = e
    return f"({text})" if level < need else text


def _obj(e: tuple[str, int]) -> str:
    """An object before `.name`: numbers get parentheses (`1.5.x` would not lex)."""
    text = _par(e, P_POSTFIX)
    return f"({text})" if text[0].isdigit() else text


_atoms = st.one_of(
    st.integers(0, 10**6).map(lambda i: (str(i), P_POSTFIX)),
    st.tuples(st.integers(0, 999), st.from_regex(r"[0-9]{1,3}", fullmatch=True)).map(lambda t: (f"{t[0]}.{t[1]}", P_POSTFIX)),
    st.tuples(small, small).map(lambda t: (f"{t[0]}:{t[1]}", P_POSTFIX)),
    strings.map(lambda s: (s, P_POSTFIX)),
    st.sampled_from(["true", "false", "none"]).map(lambda s: (s, P_POSTFIX)),
    names.map(lambda n: (n, P_POSTFIX)),
    st.tuples(st.sampled_from(["", "1", "2", "3"]), st.sampled_from(["4", "6", "10", "20"]),
              st.none() | st.tuples(st.sampled_from(["highest", "lowest"]), st.integers(1, 3))).map(
        lambda t: (f"roll {t[0]}d{t[1]}" + (f" keep {t[2][0]} {t[2][1]}" if t[2] else ""), P_POSTFIX)),
)


def _extend(c):
    args = st.lists(c, min_size=1, max_size=3).map(lambda xs: ", ".join(_par(x, P_EXPR) for x in xs))
    kwargs = st.lists(st.tuples(names, c), max_size=2).map(lambda kv: "".join(f", {k}: {_par(v, P_EXPR)}" for k, v in kv))
    return st.one_of(
        st.tuples(c, c, c).map(lambda t: (f"if {_par(t[0], P_EXPR)} then {_par(t[1], P_EXPR)} else {_par(t[2], P_EXPR)}", P_EXPR)),
        st.tuples(c, c).map(lambda t: (f"{_par(t[0], P_OR)} or {_par(t[1], P_AND)}", P_OR)),
        st.tuples(c, c).map(lambda t: (f"{_par(t[0], P_AND)} and {_par(t[1], P_NOT)}", P_AND)),
        c.map(lambda x: (f"not {_par(x, P_NOT)}", P_NOT)),
        st.tuples(c, st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), c).map(
            lambda t: (f"{_par(t[0], P_SUM)} {t[1]} {_par(t[2], P_SUM)}", P_CMP)),
        st.tuples(c, st.booleans(), names).map(lambda t: (f"{_par(t[0], P_SUM)} is {'not ' if t[1] else ''}{t[2]}", P_CMP)),
        st.tuples(c, st.booleans(), c).map(lambda t: (f"{_par(t[0], P_SUM)} {'not in' if t[1] else 'in'} {_par(t[2], P_SUM)}", P_CMP)),
        st.tuples(c, st.sampled_from(["+", "-"]), c).map(lambda t: (f"{_par(t[0], P_SUM)} {t[1]} {_par(t[2], P_PROD)}", P_SUM)),
        st.tuples(c, st.sampled_from(["*", "/", "%"]), c).map(lambda t: (f"{_par(t[0], P_PROD)} {t[1]} {_par(t[2], P_UNARY)}", P_PROD)),
        c.map(lambda x: (f"-{_par(x, P_UNARY)}", P_UNARY)),
        st.tuples(c, names).map(lambda t: (f"{_obj(t[0])}.{t[1]}", P_POSTFIX)),
        st.tuples(c, args).map(lambda t: (f"{_par(t[0], P_POSTFIX)}[{t[1]}]", P_POSTFIX)),
        st.tuples(names, st.none() | args, kwargs).map(
            lambda t: (f"{t[0]}({t[1] or ''}{t[2] if t[1] else t[2][2:]})", P_POSTFIX)),
        st.tuples(names, c, names, c, st.none() | c).map(
            lambda t: (f"{t[0]}({_par(t[1], P_EXPR)} for {t[2]} in {_par(t[3], P_EXPR)}"
                       + (f" where {_par(t[4], P_EXPR)}" if t[4] else "") + ")", P_POSTFIX)),
        st.none().map(lambda _: ("[]", P_POSTFIX)) | args.map(lambda a: (f"[{a}]", P_POSTFIX)),
        c.map(lambda x: (f"({x[0]})", P_POSTFIX)),
    )


exprs = st.recursive(_atoms, _extend, max_leaves=8).map(lambda e: e[0])


@st.composite
def meta(draw, label: bool = True, translations_ok: bool = True, classes: bool = False) -> str:
    """` "Label" [tr] §1 provisional "x"` with the meta items in random order."""
    items = draw(st.lists(citations, max_size=2))
    if draw(st.booleans()):
        items.append(draw(provenances))
    if translations_ok and draw(st.booleans()):
        items.append(draw(translations))
    if classes and draw(st.booleans()):
        items.append(": " + ", ".join(draw(st.lists(names, min_size=1, max_size=3))))
    items = draw(st.permutations(items))
    head = [draw(strings)] if label and draw(st.booleans()) else []
    return "".join(" " + i for i in head + list(items))


cmeta = st.tuples(st.lists(citations, max_size=2), st.none() | provenances).map(
    lambda t: "".join(" " + c for c in t[0]) + (f" {t[1]}" if t[1] else ""))
props_items = st.lists(st.one_of(
    st.tuples(names, exprs, cmeta).map(lambda t: f"{t[0]}: {t[1]}{t[2]}"),
    st.tuples(names, cmeta).map(lambda t: f"{t[0]}{t[1]}"),
), max_size=5)
props = st.tuples(props_items, seps).map(lambda t: "{" + t[1] + t[1].join(t[0]) + t[1] + "}")
params = st.lists(st.tuples(names, names), max_size=3).map(lambda ps: "(" + ", ".join(f"{a}: {b}" for a, b in ps) + ")")


@st.composite
def statements(draw, depth: int = 0) -> str:
    count = draw(st.integers(0, 3 if depth < 2 else 1))
    out = [draw(statement(depth)) for _ in range(count)]
    return "{" + draw(seps) + draw(seps).join(out) + draw(seps) + "}"


@st.composite
def statement(draw, depth: int) -> str:
    kinds = ["let", "set", "require", "apply", "stop", "log", "call", "choose"]
    if depth < 2:
        kinds += ["if", "for", "step"]
    kind = draw(st.sampled_from(kinds))
    e = lambda: draw(exprs)  # noqa: E731
    if kind == "let":
        return f"let {draw(names)} = {e()}"
    if kind == "set":
        target = draw(st.one_of(
            names,
            st.tuples(_atoms | names.map(lambda n: (n, P_POSTFIX)), names).map(lambda t: f"{_obj(t[0])}.{t[1]}"),
            st.tuples(names, exprs).map(lambda t: f"{t[0]}[{t[1]}]"),
        ))
        return f"set {target} {draw(st.sampled_from(['=', '+=', '-=']))} {e()}"
    if kind == "require":
        msg = f" {draw(strings)}" if draw(st.booleans()) else ""
        return f"require {e()}{msg}{''.join(' ' + c for c in draw(st.lists(citations, max_size=2)))}"
    if kind == "apply":
        return f"apply {e()}"
    if kind == "stop":
        return "stop"
    if kind == "log":
        return f"log {draw(strings)}"
    if kind == "call":
        return f"{draw(names)}({', '.join(draw(st.lists(exprs, max_size=2)))})"
    if kind == "choose":
        s = f"choose {'subset ' if draw(st.booleans()) else ''}{draw(names)} from {e()}"
        if draw(st.booleans()):
            s += f" where {e()}"
        s += f" by {e()}"
        if draw(st.booleans()):
            s += f" min {draw(small)}" + (f" max {draw(small)}" if draw(st.booleans()) else "")
        if draw(st.booleans()):
            s += " optional"
        return s + "".join(" " + c for c in draw(st.lists(citations, max_size=2)))
    if kind == "if":
        s = f"if {e()} {draw(statements(depth + 1))}"
        tail = draw(st.sampled_from(["", "else", "else if"]))
        if tail == "else":
            s += f" else {draw(statements(depth + 1))}"
        elif tail == "else if":
            s += f" else if {e()} {draw(statements(depth + 1))}"
        return s
    if kind == "for":
        return f"for {draw(names)} in {e()} {draw(statements(depth + 1))}"
    label = f" {draw(strings)}" if draw(st.booleans()) else ""
    return f"step{label}{''.join(' ' + c for c in draw(st.lists(citations, max_size=2)))} {draw(statements(depth + 1))}"


keys = st.one_of(
    st.integers(0, 99).map(str),
    st.integers(-9, 9).map(lambda i: f"{i:+d}"),
    st.tuples(small, small).map(lambda t: f"{t[0]}..{t[1]}"),
    st.tuples(small, small).map(lambda t: f"{t[0]}:{t[1]}"),
    names,
    strings,
)
codes = st.one_of(
    names,
    st.tuples(names, st.lists(exprs, min_size=1, max_size=2)).map(lambda t: f"{t[0]}({', '.join(t[1])})"),
    st.integers(0, 20).map(str),
    st.integers(-9, 9).map(lambda i: f"{i:+d}"),
)
cells = st.one_of(st.just("-"), st.lists(codes, min_size=1, max_size=2).map("/".join))


@st.composite
def table(draw) -> str:
    items = []
    items += [f"{draw(names)}: {draw(exprs)}" for _ in range(draw(st.integers(0, 2)))]  # props first: see report
    if draw(st.booleans()):
        kind = draw(st.sampled_from(["", " odds", " diff", " values", " roll"]))
        items.append(f"columns{kind}: {' '.join(draw(st.lists(keys, min_size=1, max_size=4)))}")
    if draw(st.booleans()):
        kind = draw(st.sampled_from(["", " odds", " diff", " values", " roll"]))
        dice = draw(st.sampled_from(["", " d6", " 2d6"]))
        clamp = " clamp" if draw(st.booleans()) else ""
        items.append(f"rows{kind}{dice}: {' '.join(draw(st.lists(keys, min_size=1, max_size=4)))}{clamp}")
    if draw(st.booleans()):
        rules = []
        for _ in range(draw(st.integers(0, 3))):
            d = draw(st.sampled_from(["above", "below", "from", "upto"]))
            action = draw(st.sampled_from(["use", "result", "illegal"]))
            cites = "".join(" " + c for c in draw(st.lists(citations, max_size=1)))
            msg = f" {draw(strings)}" if draw(st.booleans()) else ""
            if action == "use":
                rules.append(f"{d} {draw(keys)} use {draw(keys)}{cites}")
            elif action == "result":
                rules.append(f"{d} {draw(keys)} result {draw(cells)}{msg}{cites}")
            else:
                rules.append(f"{d} {draw(keys)} illegal{msg}{cites}")
        items.append("beyond { " + "\n".join(rules) + " }")
    for _ in range(draw(st.integers(0, 3))):
        items.append(f"row {draw(keys)}: {' | '.join(draw(st.lists(cells, min_size=1, max_size=4)))}")
    return f"table {draw(names)}{draw(meta())} {{\n" + "\n".join(items) + "\n}"


@st.composite
def sequence_items(draw, depth: int = 0) -> str:
    out = []
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["phase", "turns", "player_turns", "player_turn", "repeat"] if depth < 2 else ["phase"]))
        if kind == "phase":
            out.append(draw(phase(depth)))
        elif kind == "turns":
            out.append(f"turns{draw(meta(translations_ok=False))} {draw(sequence_items(depth + 1))}")
        elif kind == "player_turn":
            label = f" {draw(strings)}" if draw(st.booleans()) else ""
            out.append(f"player_turn {draw(exprs)}{label} {draw(sequence_items(depth + 1))}")
        elif kind == "repeat":
            label = f" {draw(strings)}" if draw(st.booleans()) else ""
            out.append(f"repeat{label} while {draw(exprs)} {draw(sequence_items(depth + 1))}")
        else:
            label = f" {draw(strings)}" if draw(st.booleans()) else ""
            out.append(f"player_turns {draw(exprs)}{label} {draw(sequence_items(depth + 1))}")
    return "{\n" + "\n".join(out) + "\n}"


@st.composite
def phase(draw, depth: int) -> str:
    items = []
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["allow", "do", "phase"] if depth < 2 else ["allow", "do"]))
        if kind == "allow":
            limit = f" limit {draw(small)}" if draw(st.booleans()) else ""
            items.append(f"allow {', '.join(draw(st.lists(names, min_size=1, max_size=3)))}{limit}")
        elif kind == "do":
            items.append(f"do {draw(statements(1))}")
        else:
            items.append(draw(phase(depth + 1)))
    when = f" when {draw(exprs)}" if draw(st.booleans()) else ""
    return f"phase {draw(names)}{draw(meta())}{when} {{\n" + "\n".join(items) + "\n}"


@st.composite
def trigger(draw) -> str:
    ps = draw(params) if draw(st.booleans()) else ""
    when = f" when {draw(exprs)}" if draw(st.booleans()) else ""
    return f"on {draw(names)}{ps}{draw(meta())}{when} {draw(statements())}"


@st.composite
def declaration(draw, nested: bool = False) -> str:
    kinds = ["game", "entity", "unit", "var", "table", "result", "quantity", "function", "movement", "action",
             "procedure", "trigger", "invariant", "deck"]
    if not nested:
        kinds += ["sections", "sequence", "scenario", "include", "override"]
    kind = draw(st.sampled_from(kinds))
    n = draw(names)
    if kind == "game":
        return f"game {n}{draw(meta())} {draw(props)}"
    if kind == "entity":
        kind_word = draw(st.sampled_from(["terrain", "edge", "feature", "marker", "class", "side", "alliance", "option", "family"]))
        return f"{kind_word} {n}{draw(meta())}" + (f" {draw(props)}" if draw(st.booleans()) else "")
    if kind == "unit":
        body = ""
        if draw(st.booleans()):
            inner = draw(props_items)
            for _ in range(draw(st.integers(0, 2))):
                inner.insert(draw(st.integers(0, len(inner))), f"at steps {draw(small)} {draw(props)}")
            body = " {\n" + "\n".join(inner) + "\n}"
        return f"unit {n}{draw(meta(classes=True))}{body}"
    if kind == "var":
        scope = draw(st.sampled_from(["var", "side_var", "unit_var", "location_var"]))
        # a variable takes citations and provenance, no translations (it has no label)
        if draw(st.booleans()):
            return f"{scope} {n}: {draw(names)} = {draw(exprs)}{draw(meta(label=False, translations_ok=False))}"
        return f"{scope} {n}: {draw(names)}{draw(meta(label=False, translations_ok=False))}"
    if kind == "table":
        return draw(table())
    if kind == "result":
        ps = draw(params) if draw(st.booleans()) else ""
        body = f" {draw(statements())}" if draw(st.booleans()) else ""
        return f"result {n}{ps}{draw(meta())}{body}"
    if kind == "quantity":
        items = []
        if draw(st.booleans()):
            items.append(f"base{draw(st.sampled_from([':', '']))} {draw(exprs)}{''.join(' ' + c for c in draw(st.lists(citations, max_size=1)))}")
        for _ in range(draw(st.integers(0, 3))):
            s = "modifier" + (f" {draw(strings)}" if draw(st.booleans()) else "")
            s += f" {draw(st.sampled_from(['+', '-', '*', '/', '=', 'min', 'max']))} {draw(exprs)}"
            if draw(st.booleans()):
                s += f" round {draw(st.sampled_from(['up', 'down', 'nearest']))}"
            if draw(st.booleans()):
                s += f" when {draw(exprs)}"
            if draw(st.booleans()):
                s += f" group {draw(names)}"
            items.append(s + draw(cmeta))
        if draw(st.booleans()):
            items.append(f"order: {', '.join(draw(st.lists(names, min_size=1, max_size=3)))}")
        items = draw(st.permutations(items))
        qtype = f": {draw(names)}" if draw(st.booleans()) else ""
        return f"quantity {n}{draw(params)}{qtype}{draw(meta())} {{\n" + "\n".join(items) + "\n}"
    if kind == "function":
        ftype = f": {draw(names)}" if draw(st.booleans()) else ""
        return f"function {n}{draw(params)}{ftype}{draw(meta())} = {draw(exprs)}"
    if kind == "movement":
        return f"movement {n}{draw(meta())} {draw(props)}"
    if kind == "action":
        items = []
        for _ in range(draw(st.integers(0, 2))):
            s = f"param {draw(names)}: {'subset ' if draw(st.booleans()) else ''}from {draw(exprs)}"
            if draw(st.booleans()):
                s += f" where {draw(exprs)}"
            if draw(st.booleans()):
                s += f" min {draw(small)}" + (f" max {draw(small)}" if draw(st.booleans()) else "")
            items.append(s + "".join(" " + c for c in draw(st.lists(citations, max_size=1))))
        for _ in range(draw(st.integers(0, 2))):
            items.append(f"require {draw(exprs)}" + (f" {draw(strings)}" if draw(st.booleans()) else ""))
        for _ in range(draw(st.integers(0, 2))):
            items.append(f"{draw(names)}: {draw(exprs)}{''.join(' ' + c for c in draw(st.lists(citations, max_size=1)))}")
        if draw(st.booleans()):
            items.append(f"do {draw(statements())}")
        items = draw(st.permutations(items))
        return f"action {n}{draw(meta())} {{\n" + "\n".join(items) + "\n}"
    if kind == "procedure":
        return f"procedure {n}{draw(params)}{draw(meta())} {draw(statements())}"
    if kind == "trigger":
        return draw(trigger())
    if kind == "invariant":
        return f"invariant {n}{draw(meta())} {draw(props)}"
    if kind == "deck":
        cards = [f"card {draw(names)}{draw(meta())}" + (f" {draw(props)}" if draw(st.booleans()) else "")
                 for _ in range(draw(st.integers(0, 3)))]
        return f"deck {n}{draw(meta())} {{\n" + "\n".join(cards) + "\n}"
    if kind == "sections":
        entries = []
        for _ in range(draw(st.integers(0, 3))):
            entry = f"{draw(citations)} {draw(strings)}"
            if draw(st.booleans()):
                entry += f" {draw(st.sampled_from(['partial', 'not_encoded', 'not_applicable']))}"
                if draw(st.booleans()):
                    entry += f" {draw(strings)}"
            entries.append(entry)
        return "sections {\n" + "\n".join(entries) + "\n}"
    if kind == "sequence":
        label = f" {draw(strings)}" if draw(st.booleans()) else ""
        return f"sequence{label} {draw(sequence_items())}"
    if kind == "scenario":
        items = [f"{draw(names)}: {draw(exprs)}" for _ in range(draw(st.integers(0, 2)))]
        if draw(st.booleans()):
            items.append(f"setup {draw(statements())}")
        if draw(st.booleans()):
            items.append(draw(trigger()))
        if draw(st.booleans()):
            items.append(f"override {draw(declaration(nested=True))}")
        return f"scenario {n}{draw(meta())} {{\n" + "\n".join(draw(st.permutations(items))) + "\n}"
    if kind == "include":
        return f"include {draw(strings)}"
    return f"override {draw(declaration(nested=True))}"


comment_texts = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=20).map(lambda s: "#" + s)


@st.composite
def modules(draw) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 5))):
        for _ in range(draw(st.integers(0, 2))):
            parts.append(draw(comment_texts) + "\n" + draw(st.sampled_from(["", "\n"])))
        decl = draw(declaration())
        if draw(st.integers(0, 4)) == 0:
            decl += f"  {draw(comment_texts)}"  # an end-of-line comment inside the declaration
        parts.append(decl + draw(st.sampled_from(["\n", "\n\n", "\n\n\n"])))
    if draw(st.booleans()):
        parts.append(draw(comment_texts) + "\n")
    return "".join(parts)


@settings(FUZZ, max_examples=60)
@given(modules())
def test_generated_text_parses_and_formatting_round_trips(text: str) -> None:
    try:
        module = parse_text(text, "generated.wcx")
    except DiagnosticError as exc:  # the generator writes only grammatical text
        raise AssertionError(f"generated text does not parse: {exc}\n---\n{text}") from None
    out = format_text(text, "generated.wcx")
    again = parse_text(out, "formatted.wcx")
    assert dump_ast(again.includes) == dump_ast(module.includes)
    assert dump_ast(again.decls) == dump_ast(module.decls)
    assert format_text(out, "formatted.wcx") == out
    assert sorted(c for _, c in scan_comments(out)) == sorted(c for _, c in scan_comments(text))


# ---------------------------------------------------------------- mutated text
_TOKEN_RE = re.compile(r'"(?:[^"\\\n]|\\.)*"|§[A-Za-z0-9._\-]+|[A-Za-z_][A-Za-z0-9_]*|[0-9]+(?:\.[0-9]+)?|\s+|#[^\n]*|.', re.S)
VOCABULARY = sorted(KEYWORDS) + list("{}[]():,|/-+*=<>.%§#\"\\") + [
    "..", "==", "+=", "-=", "3:1", "2d6", "d6", "-1", "+2", "1.5", "§1", '"s"', '"\\"', "\n", "name", "0", "\x00", "é", "Ж"]
CHARS = st.one_of(st.sampled_from(list("{}[]():,|/-+*=<>!.%§#\"\\ \n\t'0123456789adeklnoprstu_")),
                  st.characters(blacklist_categories=("Cs",)))


@st.composite
def mutated(draw) -> tuple[str, str]:
    name = draw(st.sampled_from(sorted(SOURCES)))
    text = SOURCES[name]
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "delete_token", "insert_token",
                                   "replace_token", "swap_tokens", "duplicate_token", "truncate"]))
        if op in ("delete", "insert", "replace", "truncate"):
            i = draw(st.integers(0, len(text)))
            if op == "delete":
                text = text[:i] + text[i + draw(st.integers(1, 8)):]
            elif op == "insert":
                text = text[:i] + draw(st.text(CHARS, min_size=1, max_size=4)) + text[i:]
            elif op == "replace":
                text = text[:i] + draw(CHARS) + text[i + 1:]
            else:
                text = text[:i]
            continue
        tokens = _TOKEN_RE.findall(text)
        solid = [k for k, t in enumerate(tokens) if not t.isspace()]
        if not solid:
            continue
        k = draw(st.sampled_from(solid))
        if op == "delete_token":
            tokens[k] = ""
        elif op == "insert_token":
            tokens[k] = f"{draw(st.sampled_from(VOCABULARY))} {tokens[k]}"
        elif op == "replace_token":
            tokens[k] = draw(st.sampled_from(VOCABULARY))
        elif op == "duplicate_token":
            tokens[k] = f"{tokens[k]} {tokens[k]}"
        else:
            later = [j for j in solid if j > k]
            if later:
                j = later[0]
                tokens[k], tokens[j] = tokens[j], tokens[k]
        text = "".join(tokens)
    return name, text


@settings(FUZZ, max_examples=150)
@given(mutated())
def test_mutated_text_parses_or_gives_located_diagnostics(case: tuple[str, str]) -> None:
    name, text = case
    module = check_outcome(lambda: parse_text(text, f"mutated/{name}"))
    assert module is None or isinstance(module, ast.Module)
    if module is not None:
        event("mutation still parses")


@pytest.fixture(scope="module")
def tiny_copy(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tiny") / "tiny"
    shutil.copytree(TINY, root)
    return root


def _load_with(root: Path, name: str, text: str):
    """load_game on the copy with one file replaced (all_constructs.wcx goes in as overlay.wcx)."""
    target = root / (name if name in {p.name for p in TINY.glob("*.wcx")} else "overlay.wcx")
    original = target.read_text(encoding="utf-8") if target.exists() else None
    target.write_text(text, encoding="utf-8")
    try:
        return check_outcome(lambda: load_game(root))
    finally:
        if original is None:
            target.unlink()
        else:
            target.write_text(original, encoding="utf-8")


@settings(FUZZ, max_examples=20)
@given(mutated())
def test_load_game_on_mutated_files(tiny_copy: Path, case: tuple[str, str]) -> None:
    name, text = case
    game = _load_with(tiny_copy, name, text)
    assert game is None or isinstance(game, GameDef)


@settings(FUZZ, max_examples=12)
@given(modules())
def test_load_game_with_generated_overlay(tiny_copy: Path, text: str) -> None:
    game = _load_with(tiny_copy, "overlay.wcx", text)
    assert game is None or isinstance(game, GameDef)


def test_unmutated_sources_load_and_parse(tiny_copy: Path) -> None:
    for name, text in SOURCES.items():
        assert isinstance(parse_text(text, name), ast.Module)
    assert isinstance(load_game(tiny_copy), GameDef)


# ---------------------------------------------------------------- former crashes, kept as tests
@pytest.mark.parametrize("text", [t for texts in FORMER_CRASHES.values() for t in texts])
def test_former_parser_crash_is_now_a_located_diagnostic(text: str) -> None:
    with pytest.raises(DiagnosticError) as info:
        parse_text(text, "known.wcx")
    (d,) = info.value.diagnostics
    assert d.span.file == "known.wcx" and d.span.line == 1 and d.span.column >= 1
    assert d.render()


def test_unicode_escapes_are_read(tmp_path: Path) -> None:
    module = parse_text('game g "\\u0444\\"x\\"" §1 { }', "u.wcx")
    assert module.decls[0].header.label == 'ф"x"'


def test_nul_in_an_include_path_is_a_located_diagnostic(tmp_path: Path) -> None:
    (tmp_path / "game.wcx").write_text('include "a\\u0000b.wcx"\ngame g {}\n', encoding="utf-8")
    with pytest.raises(DiagnosticError) as info:
        load_game(tmp_path)
    assert any(d.code == "E-include" and d.span is not None and d.span.line == 1 for d in info.value.diagnostics)
