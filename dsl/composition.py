"""The order in which a quantity's modifiers compose (docs/language.md, "The composition order").

A modifier belongs to a stage by its operation; the stages apply in a fixed order (replace, add,
multiply, cap) unless the quantity declares `order:`, and within a stage in written order. The
interpreter compiles quantities in this order; the language server shows it on hover.
"""

from __future__ import annotations

from warcodex.dsl import ast

STAGE_OF = {"=": "replace", "+": "add", "-": "add", "*": "multiply", "/": "multiply", "min": "cap", "max": "cap",
            "at_most": "cap", "at_least": "cap"}
DEFAULT_ORDER = ("replace", "add", "multiply", "cap")


def stage_order(q: ast.Quantity) -> tuple[str, ...]:
    """The quantity's stages in the order they apply (unknown stage names are kept: the
    interpreter reports them)."""
    return tuple(q.order) if q.order else DEFAULT_ORDER


def composed(q: ast.Quantity) -> list[tuple[str, ast.Modifier]]:
    """The modifiers as they apply: (stage, modifier), stage by stage, written order within one."""
    return [(stage, m) for stage in stage_order(q) for m in q.modifiers if STAGE_OF[m.op] == stage]
