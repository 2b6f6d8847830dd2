"""What a quantity or function depends on, found by reading its rules (and the rules it calls).

A value that depends only on the board, on its arguments, on the *type* (not the position or
markers) of unit arguments, and on a few global variables (weather, turn...) can be cached for the
whole game under exactly those keys. This is how movement costs become precomputed edge costs
without any game-specific code: `move_cost(u, from, to)` reads terrain, hexside features, the
unit's classes and the weather, so after the first search every edge cost is a dictionary lookup.

Anything else (unit positions, markers, steps, side or location variables, dice) makes the value
`dynamic`: it is then memoized only for one state version.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.dsl.stdlib import BUILTINS

# built-ins whose result depends only on the board and their arguments
BOARD_STATIC = frozenset({
    "locations", "locations_with", "adjacent", "distance", "terrain", "edge", "loc", "sides", "enemies",
    "allies", "is_enemy", "odds", "difference", "allowed", "round_up", "round_down", "abs", "range",
    "count", "sum", "min", "max", "any", "all", "list", "first", "contains",
})
UNIT_DYNAMIC_FIELDS = frozenset({"loc", "steps", "id", "max_steps"})
CONSTANT_DEPS = {"turn": "turn", "active": "active", "phase": "phase", "scenario": "scenario",
                 "first_turn": "scenario", "last_turn": "scenario"}


@dataclass
class Deps:
    dynamic: bool = False
    reads: set[str] = field(default_factory=set)  # global variables, options and constants read


class DependencyAnalysis:
    def __init__(self, game) -> None:
        self.game = game
        self._done: dict[str, Deps] = {}
        self._active: set[str] = set()
        names = game.names
        self.markers = {n for n, d in names.items() if isinstance(d, ast.Entity) and d.kind == "marker"}
        self.unit_vars = {n for n, d in names.items() if isinstance(d, ast.VarDecl) and d.scope == "unit_var"}
        self.state_vars = {n for n, d in names.items() if isinstance(d, ast.VarDecl) and d.scope in ("side_var", "location_var")}
        self.global_vars = {n for n, d in names.items() if isinstance(d, ast.VarDecl) and d.scope == "var"}
        self.options = {n for n, d in names.items() if isinstance(d, ast.Entity) and d.kind == "option"}

    def of(self, decl) -> Deps:
        name = decl.name
        if name in self._done:
            return self._done[name]
        if name in self._active:  # recursion: be conservative
            return Deps(dynamic=True)
        self._active.add(name)
        deps = Deps()
        params = {p.name for p in getattr(decl, "params", [])}
        self._walk(decl, params, deps)
        self._active.discard(name)
        self._done[name] = deps
        return deps

    def expression(self, expr, local) -> Deps:
        """Dependencies of one expression whose free names `local` are bound by the caller.
        The unit bound to `u` counts as static: only its type matters, unless the expression
        reads its position, steps, markers or variables."""
        deps = Deps()
        self._walk(expr, set(local), deps)
        return deps

    def _walk(self, node, local: set[str], deps: Deps) -> None:
        if deps.dynamic:
            return
        if isinstance(node, ast.Roll):
            deps.dynamic = True
            return
        if isinstance(node, ast.Name):
            n = node.id
            if n in local:
                return
            if n in CONSTANT_DEPS:
                deps.reads.add(CONSTANT_DEPS[n])
            elif n == "turn_order":
                deps.dynamic = True
            elif n in self.global_vars or n in self.options:
                deps.reads.add(n)
            return
        if isinstance(node, ast.Attr):
            if node.name in UNIT_DYNAMIC_FIELDS or node.name in self.unit_vars or node.name in self.state_vars:
                deps.dynamic = True
                return
        if isinstance(node, ast.Is) and node.tag in self.markers:
            deps.dynamic = True
            return
        if isinstance(node, ast.Comprehension):
            self._walk(node.source, local, deps)
            inner = local | {node.var}
            self._walk(node.element, inner, deps)
            if node.where is not None:
                self._walk(node.where, inner, deps)
            return
        if isinstance(node, ast.Call):
            target = self.game.names.get(node.func)
            if isinstance(target, (ast.Quantity, ast.Function)):
                sub = self.of(target)
                deps.dynamic |= sub.dynamic
                deps.reads |= sub.reads
            elif node.func in BUILTINS and node.func not in BOARD_STATIC:
                deps.dynamic = True
                return
            elif node.func not in BUILTINS:
                deps.dynamic = True  # procedures or unknown: never cache
                return
        if isinstance(node, ast.Node):
            for f in type(node).model_fields:
                if f != "span":
                    self._walk(getattr(node, f), local, deps)
        elif isinstance(node, (list, tuple)):
            for x in node:
                self._walk(x, local, deps)
        elif isinstance(node, dict):
            for x in node.values():
                self._walk(x, local, deps)
