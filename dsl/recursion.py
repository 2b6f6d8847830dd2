"""Recursion that can never end, found by reading the rules.

Rules may call themselves: a retreat that tries each next hex, a breakthrough that resolves
another combat. Such recursion ends because a condition stops it, and the interpreter bounds its
depth (`limits.MAX_CALL_DEPTH`) with a located error for the cases no reading can settle.

What a reading *can* settle is a rule that reaches itself on every path: `procedure
lose_unit(u) { lose_unit(u) }`, a function whose body always calls itself, a quantity whose base
reads itself, a trigger with no `when` whose body always fires its own event. This module builds
the graph of calls made on every evaluation ("must" calls: not under an `if`, a `for`, the right
side of `and`/`or`, a branch of `if ... then ... else`, a grouped or conditional modifier, after
a `stop` or a `require`) and reports its cycles.
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.dsl.diagnostics import Span

# built-in effects that fire an event every time they run (eliminate does not: an eliminated
# unit is not eliminated again)
FIRING = {"move_to": "enter", "move_along": "enter", "move_via": "enter", "place": "placed"}


@dataclass(frozen=True)
class Cycle:
    nodes: tuple[str, ...]  # "procedure p", "function f", "on enter", "event enter"...
    span: Span | None  # the call that closes the cycle


class _Graph:
    def __init__(self, game) -> None:
        self.game = game
        self.edges: dict[str, dict[str, Span | None]] = {}  # node -> {callee: first call span}
        self.rules = {n: d for n, d in game.names.items() if isinstance(d, (ast.Procedure, ast.Function, ast.Quantity))}

    def node(self, decl) -> str:
        return f"{type(decl).__name__.lower()} {decl.name}"

    def add(self, src: str, dst: str, span) -> None:
        self.edges.setdefault(src, {}).setdefault(dst, span)

    # -- what is evaluated on every path
    def expr(self, src: str, e) -> None:
        stack = [e]
        while stack:
            n = stack.pop()
            if n is None:
                continue
            if isinstance(n, ast.Call):
                decl = self.rules.get(n.func)
                if decl is not None:
                    self.add(src, self.node(decl), n.span)
                elif n.func in FIRING:
                    self.add(src, f"event {FIRING[n.func]}", n.span)
                elif n.func == "emit" and n.args and isinstance(n.args[0], ast.Name):
                    self.add(src, f"event {n.args[0].id}", n.span)
                stack.extend(n.args)
                stack.extend(n.kwargs.values())
            elif isinstance(n, (ast.And, ast.Or)):
                stack.append(n.left)  # the right side only when the left does not decide
            elif isinstance(n, ast.Cond):
                stack.append(n.test)
            elif isinstance(n, ast.Comprehension):
                stack.append(n.source)  # the element only for a non-empty source
            elif isinstance(n, (ast.BinOp, ast.Compare)):
                stack.extend((n.left, n.right))
            elif isinstance(n, (ast.Not, ast.Neg)):
                stack.append(n.operand)
            elif isinstance(n, ast.Attr):
                stack.append(n.obj)
            elif isinstance(n, ast.Index):
                stack.append(n.obj)
                stack.extend(n.args)
            elif isinstance(n, ast.Is):
                stack.append(n.obj)
            elif isinstance(n, ast.In):
                stack.extend((n.item, n.collection))
            elif isinstance(n, ast.ListLit):
                stack.extend(n.items)

    def block(self, src: str, stmts) -> None:
        for s in stmts:
            if isinstance(s, (ast.Stop, ast.Require)):
                return  # what follows may not run
            if isinstance(s, ast.CallStmt):
                self.expr(src, s.call)
            elif isinstance(s, (ast.Let, ast.SetStmt)):
                self.expr(src, s.value)
            elif isinstance(s, ast.If):
                self.expr(src, s.test)
            elif isinstance(s, (ast.For, ast.Choose)):
                self.expr(src, s.source)
            elif isinstance(s, ast.Step):
                self.block(src, s.body)
            elif isinstance(s, ast.Reroll):
                self.expr(src, s.value)
            elif isinstance(s, ast.Apply):
                self.expr(src, s.value)

    def build(self) -> None:
        for decl in self.rules.values():
            src = self.node(decl)
            if isinstance(decl, ast.Procedure):
                self.block(src, decl.body)
            elif isinstance(decl, ast.Function):
                self.expr(src, decl.body)
            else:
                self.expr(src, decl.base)
                for m in decl.modifiers:
                    if m.group is None:
                        self.expr(src, m.when)
                        if m.when is None:
                            self.expr(src, m.value)
        triggers = list(self.game.triggers) + [t for s in self.game.scenarios.values() for t in s.triggers]
        for i, t in enumerate(triggers):
            src = f"on {t.name} ({t.header.label or i})"
            self.add(f"event {t.name}", src, t.span)
            self.expr(src, t.when)
            if t.when is None:
                self.block(src, t.body)

    def cycles(self) -> list[Cycle]:
        """One cycle per strongly connected component that has one (Tarjan, iteratively)."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        found: list[Cycle] = []
        counter = 0
        for root in sorted(self.edges):
            if root in index:
                continue
            work = [(root, iter(sorted(self.edges.get(root, {}))))]
            index[root] = low[root] = counter
            counter += 1
            stack.append(root)
            on_stack.add(root)
            while work:
                v, children = work[-1]
                advanced = False
                for w in children:
                    if w not in index:
                        index[w] = low[w] = counter
                        counter += 1
                        stack.append(w)
                        on_stack.add(w)
                        work.append((w, iter(sorted(self.edges.get(w, {})))))
                        advanced = True
                        break
                    if w in on_stack:
                        low[v] = min(low[v], index[w])
                if advanced:
                    continue
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    cycle = self._cycle_in(set(component))
                    if cycle is not None:
                        found.append(cycle)
        return found

    def _cycle_in(self, component: set[str]) -> Cycle | None:
        """A cycle through the component, as the path from its first rule back to it."""
        start = min((n for n in component if not n.startswith("event ")), default=min(component))  # name a rule
        if len(component) == 1 and start not in self.edges.get(start, {}):
            return None
        # breadth-first from start back to start, inside the component
        previous: dict[str, str] = {}
        frontier = [start]
        while frontier:
            nxt = []
            for v in frontier:
                for w in sorted(self.edges.get(v, {})):
                    if w not in component:
                        continue
                    if w == start:
                        path = [v]
                        while path[-1] != start:
                            path.append(previous[path[-1]])
                        path.reverse()
                        return Cycle(tuple(path) + (start,), self.edges[v][start])
                    if w not in previous:
                        previous[w] = v
                        nxt.append(w)
            frontier = nxt
        return None


def endless_recursion(game) -> list[Cycle]:
    """The cycles of rules that call each other on every path: each can never finish."""
    graph = _Graph(game)
    graph.build()
    return graph.cycles()
