"""What a quantity or function depends on, found by reading its rules (and the rules it calls).

Three levels:

- `static`: depends only on the board, its arguments, the *type* and side of unit arguments, and
  some global variables (weather, turn...): cached for the whole game under exactly those keys.
  This is how movement costs become precomputed edge costs without game-specific code:
  `move_cost(u, from, to)` reads terrain, hexside features, the unit's classes and the weather.
- `positions`: also reads where units are (`units_at`, `u.loc`...), but not their steps, markers
  or variables: memoized until a unit moves, enters or leaves the map. Zones of control are this.
- `dynamic`: anything else (steps, markers, side or location variables, dice): memoized only for
  one state version, or not at all when it rolls dice.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.dsl.stdlib import BUILTINS, RANDOM_BUILTINS, reading
from warcodex.dsl.walk import children, walk

# built-ins whose result depends only on the board and their arguments, and those that also read
# where units stand on the map: what each declares (`dsl/stdlib.py`, `Builtin.reads`)
POSITION_READERS = reading("positions")
BOARD_STATIC = reading("nothing")
UNIT_POSITION_FIELDS = frozenset({"loc", "id", "label"})  # identity and place: not static, but positional
UNIT_DYNAMIC_FIELDS = frozenset({"steps", "max_steps", "box"})  # box: a holding box changes without a move
LEVELS = ("static", "positions", "dynamic")
CONSTANT_DEPS = {"turn": "turn", "active": "active", "phase": "phase", "scenario": "scenario",
                 "first_turn": "scenario", "last_turn": "scenario"}


@dataclass
class Deps:
    level: str = "static"
    reads: set[str] = field(default_factory=set)  # global variables, options and constants read

    @property
    def dynamic(self) -> bool:
        return self.level == "dynamic"

    def at_least(self, level: str) -> None:
        if LEVELS.index(level) > LEVELS.index(self.level):
            self.level = level


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
        # properties that change with a unit's steps (`at steps 1 { attack: 4 }`) depend on its
        # state, not only on its type
        self.per_step = {p.key for d in names.values() if isinstance(d, ast.Unit) for sv in d.step_values for p in sv.props}
        self.hidden_vars = {n for n, d in names.items() if isinstance(d, ast.VarDecl) and d.hidden}
        # decks with an owner_only pile (`pile "withheld" owner_only`) -> those piles
        self.hidden_piles = {d.name: {p for p, v in d.visibility().items() if v == "owner_only"}
                             for d in names.values() if isinstance(d, ast.Deck)}
        self.hidden_piles = {deck: piles for deck, piles in self.hidden_piles.items() if piles}
        self._hidden: dict[str, bool] = {}
        self._dice: dict[str, bool] = {}
        self._calls: dict[str, list] = {}

    def reads_hidden(self, decl) -> bool:
        """True if a function or quantity reads a hidden variable, directly or through the rules it
        calls: its value must not be memoized, so that every read is seen (the log marks entries
        that read hidden information)."""
        if not self.hidden_vars and not self.hidden_piles:
            return False
        return self._reaches(decl, self._hidden, lambda node: (isinstance(node, ast.Attr) and node.name in self.hidden_vars)
                             or self._reads_hidden_pile(node))

    def _reads_hidden_pile(self, node) -> bool:
        """`pile(D, P)` where P is (or, not written as a literal, may be) an owner_only pile of D."""
        if not (isinstance(node, ast.Call) and node.func == "pile" and len(node.args) == 2):
            return False
        deck, pile = node.args
        piles = self.hidden_piles.get(deck.id) if isinstance(deck, ast.Name) else set().union(*self.hidden_piles.values())
        return bool(piles) and (not isinstance(pile, ast.Str) or pile.value in piles)

    def rolls_dice(self, decl) -> bool:
        """True if a function or quantity rolls dice (or draws at random: `pick_random`), directly or
        through the rules it calls: its
        value must not be memoized (two calls are two rolls, even through a rule that only calls
        the one that rolls)."""
        return self._reaches(decl, self._dice, lambda node: isinstance(node, ast.Roll) or (
            isinstance(node, ast.Call) and node.func in RANDOM_BUILTINS))

    def _reaches(self, decl, cache: dict[str, bool], direct) -> bool:
        """True if `direct` holds of a node of `decl` or of a rule it calls, however indirectly.
        Exact with recursion: the rules reachable through calls are gathered first, then each is
        looked at alone (a cycle settled by provisional answers could cache a wrong one)."""
        name = decl.name
        if name not in cache:
            seen, todo = {name: decl}, [decl]
            while todo:
                for callee in self._callees(todo.pop()):
                    if callee.name not in seen:
                        seen[callee.name] = callee
                        todo.append(callee)
            cache[name] = any(direct(n) for d in seen.values() for n in walk(d))
        return cache[name]

    def _callees(self, decl) -> list:
        """The functions and quantities a rule calls directly."""
        if decl.name not in self._calls:
            targets = (self.game.names.get(n.func) for n in walk(decl) if isinstance(n, ast.Call))
            self._calls[decl.name] = [t for t in targets if isinstance(t, (ast.Quantity, ast.Function))]
        return self._calls[decl.name]

    def of(self, decl) -> Deps:
        name = decl.name
        if name in self._done:
            return self._done[name]
        if name in self._active:  # recursion: be conservative
            return Deps(level="dynamic")
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
            deps.at_least("dynamic")
            return
        if isinstance(node, ast.Name):
            n = node.id
            if n in local:
                return
            if n in CONSTANT_DEPS:
                deps.reads.add(CONSTANT_DEPS[n])
            elif n == "turn_order":
                deps.at_least("dynamic")
            elif n in self.global_vars or n in self.options:
                deps.reads.add(n)
            return
        if isinstance(node, ast.Attr):
            if (node.name in UNIT_DYNAMIC_FIELDS or node.name in self.unit_vars or node.name in self.state_vars
                    or node.name in self.per_step):
                deps.at_least("dynamic")
                return
            if node.name in UNIT_POSITION_FIELDS:
                deps.at_least("positions")
        if isinstance(node, ast.Is) and node.tag in self.markers:
            deps.at_least("dynamic")
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
                deps.at_least(sub.level)
                deps.reads |= sub.reads
            elif node.func in POSITION_READERS:
                deps.at_least("positions")
            elif node.func in BUILTINS and node.func not in BOARD_STATIC:
                deps.at_least("dynamic")
                return
            elif node.func not in BUILTINS:
                deps.at_least("dynamic")  # procedures or unknown: never cache
                return
        for child in children(node):
            self._walk(child, local, deps)

