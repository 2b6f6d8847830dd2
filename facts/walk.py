"""Walking the checked AST: every node under a node, depth first; every body of rules."""

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


def rule_bodies(game):
    """Every declaration or block that holds rule expressions, with its `let` bindings by name."""
    nodes: list = list(game.names.values()) + list(game.triggers)
    if game.sequence is not None:
        nodes.append(game.sequence)
    nodes += list(game.scenarios.values())
    for node in nodes:
        env: dict[str, list] = {}
        for n in walk(node):
            if isinstance(n, ast.Let):
                env.setdefault(n.name, []).append(n.value)
        yield node, env
