"""Hover texts (Markdown): what a declaration, a modifier, a section or a built-in is, with its
rulebook citations (and their section titles), provenance and translations.

Everything shown is read from the AST, the merged game and the standard library: a quantity's
modifiers are listed in the order the engine composes them (`dsl/composition.py`).
"""

from __future__ import annotations

from pathlib import Path

from warcodex.dsl import ast, stdlib
from warcodex.dsl.composition import STAGE_OF, composed, stage_order
from warcodex.dsl.coverage import SectionCoverage
from warcodex.dsl.formatter import format_expr, quote
from warcodex.dsl.model import GameDef

STATUS_WORDS = {"encoded": "encoded", "partial": "partial", "not_encoded": "not encoded",
                "not_applicable": "not applicable"}


def kind_of(decl: ast.Decl) -> str:
    return getattr(decl, "kind", None) or type(decl).__name__.lower()


def cite(game: GameDef | None, numbers: list[str]) -> str:
    """`§7.3 (Combat procedure), §7.4 (Shifts)`: each citation with its title, if listed."""
    out = []
    for n in numbers:
        entry = game.sections.get(n) if game is not None else None
        out.append(f"§{n} ({entry.title})" if entry else f"§{n} (not in the sections list)")
    return ", ".join(out)


def provenance(p: ast.Provenance | None) -> str | None:
    if p is None:
        return None
    words = {"rulebook": "published in the rulebook", "player_aid": "printed on a player aid",
             "provisional": "PROVISIONAL: not a published value", "derived": "derived from published values"}
    text = words.get(p.kind, p.kind)
    return f"{text}: {p.note}" if p.note else text


def signature(decl: ast.Decl) -> str:
    """The declaration's first line, as the designer would write it (without body)."""
    kind = kind_of(decl)
    params = getattr(decl, "params", None)
    text = f"{kind} {decl.name}"
    if isinstance(decl, ast.VarDecl):
        text = f"{decl.scope} {decl.name}: {decl.type}"
        if decl.default is not None:
            text += f" = {format_expr(decl.default)}"
        return (text + (" hidden" if decl.hidden else "") + (f" per {decl.per}" if decl.per else "")
                + (" bookkeeping" if decl.bookkeeping else ""))
    if isinstance(decl, ast.Action):
        return text
    if params is not None and not isinstance(decl, ast.Action):
        text += "(" + ", ".join(f"{p.name}: {p.type}" for p in params) + ")"
    rtype = getattr(decl, "type", None)
    if isinstance(rtype, str) and isinstance(decl, (ast.Quantity, ast.Function)):
        text += f": {rtype}"
    if isinstance(decl, ast.Unit) and decl.classes:
        text += ": " + ", ".join(decl.classes)
    return text


def describe_decl(decl: ast.Decl, game: GameDef | None, path: str | None = None,
                  overrides: list[tuple[str, ast.Decl]] = ()) -> str:
    h = decl.header
    lines = [f"```wcx\n{signature(decl)}\n```"]
    if h.label:
        lines.append(f"**{h.label}**")
    if h.translations:
        lines.append("Translations: " + ", ".join(f"{lang}: {text}" for lang, text in h.translations.items()))
    if h.citations:
        lines.append("Rulebook: " + cite(game, h.citations))
    prov = provenance(h.provenance)
    if prov:
        lines.append("Provenance: " + prov)
    body = _details(decl, game)
    if body:
        lines.append(body)
    where = []
    if path:
        where.append(f"declared in `{Path(path).name}`")
    for opath, o in overrides:
        if o is not decl:
            line = o.header.span.line if o.header.span else "?"
            where.append(f"overridden in `{Path(opath).name}` line {line}")
    if where:
        lines.append("*" + "; ".join(where) + "*")
    return "\n\n".join(lines)


def _details(decl: ast.Decl, game: GameDef | None) -> str | None:
    if isinstance(decl, ast.Quantity):
        return describe_quantity(decl, game)
    if isinstance(decl, ast.Function):
        return f"`= {format_expr(decl.body)}`"
    if isinstance(decl, ast.Table):
        parts = []
        if decl.columns is not None:
            parts.append(f"columns ({decl.columns.kind}): " + " ".join(k.text() for k in decl.columns.keys))
        if decl.rows is not None:
            dice = f" {decl.rows.dice.text()}" if decl.rows.dice else ""
            parts.append(f"rows ({decl.rows.kind}{dice}): " + " ".join(k.text() for k in decl.rows.keys))
        parts.append(f"{len(decl.table_rows)} rows written")
        return "\n".join(f"- {p}" for p in parts)
    props = list(getattr(decl, "props", []) or [])
    if isinstance(decl, ast.Unit):
        props += [p for sv in decl.step_values for p in sv.props]
    if props:
        out = []
        for p in props[:20]:
            value = format_expr(p.value) if p.value is not None else "(flag)"
            extra = ""
            if p.provenance is not None and p.provenance.kind == "provisional":
                extra = " *(provisional)*"
            out.append(f"- `{p.key}`: `{value}`{extra}")
        if len(props) > 20:
            out.append(f"- ... {len(props) - 20} more")
        return "\n".join(out)
    return None


def describe_prop(decl: ast.Decl, p: ast.Prop, game: GameDef | None) -> str:
    """A property as written: its owner, value, citations and provenance (its own, else the
    declaration's)."""
    value = format_expr(p.value) if p.value is not None else "(a flag: true)"
    lines = [f"**{p.key}** of {kind_of(decl)} `{decl.name}`: `{value}`"]
    if p.citations:
        lines.append("Rulebook: " + cite(game, p.citations))
    prov = provenance(p.provenance) or provenance(decl.header.provenance)
    if prov:
        lines.append("Provenance: " + prov + ("" if p.provenance else f" (of the whole {kind_of(decl)})"))
    return "\n\n".join(lines)


def describe_quantity(q: ast.Quantity, game: GameDef | None) -> str:
    lines = []
    if q.base is not None:
        base = f"Base: `{format_expr(q.base)}`"
        if q.base_citations:
            base += " " + cite(game, q.base_citations)
        lines.append(base)
    if q.modifiers:
        lines.append("Modifiers, in the order they apply (" + ", ".join(stage_order(q)) + "):")
        for i, (stage, m) in enumerate(composed(q), 1):
            lines.append(f"{i}. {stage}: {modifier_line(m, game)}")
    return "\n\n".join(lines[:1] + ["\n".join(lines[1:])]) if len(lines) > 1 else "\n".join(lines)


def modifier_line(m: ast.Modifier, game: GameDef | None) -> str:
    text = (quote(m.label) + " " if m.label else "") + f"{m.op} {format_expr(m.value)}"
    if m.rounding:
        text += f" round {m.rounding}"
    if m.when is not None:
        text += f" when {format_expr(m.when)}"
    if m.group:
        text += f" group {m.group}"
    out = f"`{text}`"
    if m.citations:
        out += " " + cite(game, m.citations)
    if m.provenance is not None:
        out += f" ({provenance(m.provenance)})"
    return out


def describe_modifier(q: ast.Quantity, m: ast.Modifier, game: GameDef | None) -> str:
    order = composed(q)
    position = next((i for i, (_, x) in enumerate(order, 1) if x is m), None)
    stage = STAGE_OF.get(m.op, "?")
    lines = [f"**modifier** of quantity `{q.name}`" + (f" ({q.header.label})" if q.header.label else ""),
             modifier_line(m, game),
             f"Stage: **{stage}** — applies {position} of {len(order)} ({', '.join(stage_order(q))})"]
    if m.group:
        alternatives = [x.label or x.op for _, x in order if x.group == m.group]
        lines.append(f"Group `{m.group}`: only the first that applies counts, of " + ", ".join(map(quote, alternatives)))
    return "\n\n".join(lines)


def describe_section(number: str, game: GameDef | None, cov: dict[str, SectionCoverage]) -> str:
    entry = game.sections.get(number) if game is not None else None
    if entry is None:
        return f"§{number}: **not in the sections list**"
    lines = [f"**§{number} {entry.title}**"]
    c = cov.get(number)
    if c is not None:
        status = STATUS_WORDS.get(c.status, c.status)
        lines.append(f"Coverage: **{status}**" + (f" — {c.note}" if c.note else ""))
        if c.cited_by:
            shown = c.cited_by[:12]
            lines.append("Cited by:\n" + "\n".join(f"- {w}" for w in shown)
                         + (f"\n- ... {len(c.cited_by) - 12} more" if len(c.cited_by) > 12 else ""))
    return "\n\n".join(lines)


def describe_builtin(name: str) -> str | None:
    b = stdlib.BUILTINS.get(name)
    if b is None:
        return None
    effect = " *(effect: a statement only)*" if b.effect else ""
    return f"```wcx\n{builtin_signature(b)}\n```\n\nbuilt-in function{effect}: {b.doc}"


def builtin_signature(b: stdlib.Builtin) -> str:
    return f"{b.name}({', '.join(b.params)}): {b.returns}"


def describe_constant(name: str) -> str | None:
    if name not in stdlib.CONSTANTS:
        return None
    typ, doc = stdlib.CONSTANTS[name]
    return f"```wcx\n{name}: {typ}\n```\n\nalways defined: {doc}"


def describe_event(name: str, game: GameDef | None) -> str:
    params = stdlib.EVENTS.get(name)
    if params is not None:
        head = f"```wcx\non {name}({', '.join(params)})\n```\n\nan event the engine fires"
    else:
        head = f"```wcx\non {name}\n```\n\nan event fired by `emit({name}, ...)`"
    count = sum(1 for t in (game.triggers if game else []) if t.name == name)
    return head + (f"; {count} trigger(s) in the game's rules" if count else "")


def describe_field(name: str, game: GameDef | None) -> str | None:
    if name in stdlib.UNIT_FIELDS:
        typ, doc = stdlib.UNIT_FIELDS[name]
        return f"```wcx\nunit.{name}: {typ}\n```\n\nevery unit has it: {doc}"
    if game is None:
        return None
    having = [u.name for u in game.units if any(p.key == name for p in u.props)
              or any(p.key == name for sv in u.step_values for p in sv.props)]
    terrains = [t.name for t in game.entities("terrain") if any(p.key == name for p in t.props)]
    parts = []
    if having:
        parts.append(f"a property of {len(having)} unit type(s): " + ", ".join(having[:8]) + (" ..." if len(having) > 8 else ""))
    if terrains:
        parts.append(f"a property of terrain: " + ", ".join(terrains[:8]) + (" ..." if len(terrains) > 8 else ""))
    if not parts:
        return None
    return f"`.{name}`: " + "; ".join(parts)
