"""Walking the checked AST: every node under a node, depth first; every body of rules."""

from __future__ import annotations

from warcodex.dsl import ast
from warcodex.dsl.walk import walk  # noqa: F401 (the facts modules import it from here)


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
