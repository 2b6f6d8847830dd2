"""Where evaluation must count against its bounds: the rules that can be entered again before they
return.

Evaluation is bounded (docs/engine.md, "Evaluation"): at most MAX_CALL_DEPTH rules inside one
another, and a step limit per decision point. Work without end needs a loop or a recursion: a
`for` counts one step per iteration and an aggregate one per element (always), and a rule that
may be entered again before it returns counts one call level and one step when entered. The
other rules (a function of board reads, a quantity of its modifiers: most calls of a game) run a
bounded amount of code between two counted points, so they count nothing and cost nothing.

A rule is *counted* when it is on a cycle of direct calls (a rule that calls itself, directly or
through others), or when it calls what may evaluate rules it does not name: a built-in outside
`LEAF_BUILTINS` (a movement search evaluates a mode's costs, an effect fires triggers), a
`choose` (an agent answers) or an `apply` (a result's body). Triggers and results count
themselves (`Engine.fire`, `Engine.apply_result`). So every cycle of evaluation, however it
closes, passes through a counted entry, and the same runaway rule stops with the same located
error in both evaluators (the closure compiler, `compiler.py`, counts the same rules).
"""

from __future__ import annotations

from warcodex.dsl import ast
from warcodex.dsl.stdlib import reading
from warcodex.dsl.walk import walk

# built-ins that read the board, the state or their arguments and never evaluate a rule: those
# that read no more than the positions (`Builtin.reads`), and these readers of the rest of the
# state (a different fact: the searches, the effects and `card_visible` read the state too,
# and may evaluate rules or fire triggers, or are not known not to)
LEAF_BUILTINS = reading("nothing", "positions") | frozenset({
    "eliminated_units", "units_in_box", "unit_by_id", "hand", "deck_size", "discard_pile", "removed_cards",
    "set_aside_cards", "card_places", "card_holder", "times_played", "last_played", "last_paid", "pile", "text",
})

_RULES = (ast.Quantity, ast.Function, ast.Procedure)


def counted_rules(game) -> frozenset[str]:
    """The names of the quantities, functions and procedures that count a call level and a step
    when entered (see the module's docstring)."""
    rules = {name: d for name, d in game.names.items() if isinstance(d, _RULES)}
    calls: dict[str, set[str]] = {}
    counted = set()
    for name, decl in rules.items():
        callees: set[str] = set()
        escapes = False
        for node in walk(decl):
            if isinstance(node, ast.Call):
                if node.func in rules:
                    callees.add(node.func)
                elif node.func not in LEAF_BUILTINS:
                    escapes = True
            elif isinstance(node, (ast.Choose, ast.Reroll, ast.Apply)):
                escapes = True
        calls[name] = callees
        if escapes:
            counted.add(name)
    for name in rules:  # on a cycle: reachable from its own callees
        seen, todo = set(), list(calls[name])
        while todo:
            n = todo.pop()
            if n == name:
                counted.add(name)
                break
            if n not in seen:
                seen.add(n)
                todo.extend(calls[n])
    return frozenset(counted)

