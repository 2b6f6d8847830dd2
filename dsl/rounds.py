"""Whether code may run a *loop of rounds*, decided from the rules' text (the language layer).

An `answer decision in round 2: ...` applies only in a round: a pass of the combat's loop of
rounds, the outermost `for` loop the engine runs as a Markov chain (interpreter/compiler.py,
`markov_loop`: its body does not read its loop variable, leaves nothing behind but the game
state, and may roll dice). A combat with no such loop (a CRT attack: one die, resolved in one go)
never counts a round, and an answer by round there never applies. The checker warns about it
where the text says so (`may_run_rounds` false for every line after the answer); `warcodex odds`
refuses it where the text cannot tell (interpreter/odds.py, `check_answers_by_round`).

The analysis over-approximates, so that a warning is never wrong: every declaration a call names
is followed (procedures, actions, functions, quantities, results), every trigger and every result
counts as reachable (an event or an `apply` may run them), and a loop counts when its body does
not read its variable and may roll dice through what it names, whatever locals it assigns.
"""

from __future__ import annotations

from warcodex.dsl import ast
from warcodex.dsl.stdlib import RANDOM_BUILTINS
from warcodex.dsl.walk import walk


class _Closure:
    """The declarations reachable from code by the names it calls, and whether they may roll."""

    def __init__(self, game) -> None:
        self.game = game
        self.always = [d for d in game.decls if isinstance(d, (ast.Trigger, ast.Result))] + list(game.triggers)
        self.always += [t for s in game.scenarios.values() for t in s.triggers]

    def nodes(self, roots) -> list:
        """Every node of `roots` and of the declarations they may run."""
        seen: set[int] = set()
        out: list = []
        todo = [roots]
        while todo:
            for n in walk(todo.pop()):
                out.append(n)
                if isinstance(n, ast.Call):
                    decl = self.game.names.get(n.func)
                    if isinstance(decl, ast.Decl) and id(decl) not in seen:
                        seen.add(id(decl))
                        todo.append(decl)
        return out

    def may_roll(self, roots) -> bool:
        return any(isinstance(n, ast.Roll) or (isinstance(n, ast.Call) and n.func in RANDOM_BUILTINS)
                   for n in self.nodes([roots, self.always]))


def may_run_rounds(game, lines) -> bool:
    """Whether running `lines` (statements or test lines) may run a loop of rounds (above): False
    only when no `for` loop they may reach could be one."""
    closure = _Closure(game)
    for n in closure.nodes([lines, closure.always]):
        if isinstance(n, ast.For):
            reads_var = any(isinstance(x, ast.Name) and x.id == n.var for x in walk(n.body))
            if not reads_var and closure.may_roll(n.body):
                return True
    return False
