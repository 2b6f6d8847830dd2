"""Walking the checked AST: every node under a node, depth first (the language layer, so the
engine and the facts share one walker)."""

from __future__ import annotations

from warcodex.dsl import ast


def walk(node):
    """Every AST node under `node` (itself included), depth first; lists are walked element by
    element."""
    if isinstance(node, (list, tuple)):
        for x in node:
            yield from walk(x)
        return
    if not isinstance(node, ast.Node):
        return
    yield node
    for name in type(node).model_fields:
        if name == "span":
            continue
        value = getattr(node, name)
        if isinstance(value, ast.Node):
            yield from walk(value)
        elif isinstance(value, list):
            for x in value:
                if isinstance(x, ast.Node):
                    yield from walk(x)
        elif isinstance(value, dict):
            for x in value.values():
                if isinstance(x, ast.Node):
                    yield from walk(x)
