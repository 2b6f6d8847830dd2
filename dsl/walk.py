"""Walking the checked AST: every node under a node, depth first (the language layer, so the
engine, the facts and the language's own tools share one walker)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from warcodex.dsl import ast


def children(node) -> list[ast.Node]:
    """The AST nodes directly under `node`, in field order (lists and dicts flattened; a node's
    source span is not a child). A list of nodes is walked as its elements."""
    if isinstance(node, (list, tuple)):
        return list(_nodes_in(node))
    if not isinstance(node, ast.Node):
        return []
    out: list[ast.Node] = []
    for name in _fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, ast.Node):
            out.append(value)
        elif isinstance(value, (list, tuple, dict)):
            out.extend(_nodes_in(value))
    return out


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    """A node class's fields that may hold nodes (not its span), once per class."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = tuple(f for f in cls.model_fields if f != "span")
    return found


def _nodes_in(value) -> Iterator[ast.Node]:
    if isinstance(value, ast.Node):
        yield value
    elif isinstance(value, (list, tuple)):
        for x in value:
            yield from _nodes_in(x)
    elif isinstance(value, dict):
        for x in value.values():
            yield from _nodes_in(x)


def walk(node, into: Callable[[ast.Node], bool] | None = None) -> Iterator[ast.Node]:
    """Every AST node under `node` (itself included), depth first in field order; lists are walked
    element by element. With `into`, a node under `node` for which it is false is left out with
    everything under it (a phase's sub-phases, which have their own condition)."""
    stack = [node] if isinstance(node, ast.Node) else children(node)[::-1]
    while stack:
        n = stack.pop()
        yield n
        kids = children(n)
        if into is not None:
            kids = [c for c in kids if into(c)]
        kids.reverse()
        stack.extend(kids)
