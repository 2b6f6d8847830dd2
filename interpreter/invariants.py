"""Invariants: properties of the state that the rules must keep, checked during play and fuzzing.

    invariant stacking "At most two units per hex" §4 {
      check: always                 # or: after(move), phase_end(combat)
      holds: all(count(units_at(h)) <= 2 for h in occupied())
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.interpreter.compiler import Frame
from warcodex.interpreter.values import RuleError


class InvariantViolation(RuleError):
    def __init__(self, invariant: "CompiledInvariant", when: str) -> None:
        cite = ", ".join("§" + c for c in invariant.citations)
        super().__init__(f"invariant '{invariant.name}' ({invariant.title}{', ' + cite if cite else ''}) violated {when}",
                         invariant.decl.span)
        self.invariant = invariant
        self.when = when


@dataclass
class CompiledInvariant:
    name: str
    title: str
    citations: tuple
    check: str  # always | after | phase_end
    target: str | None
    holds: object
    decl: ast.Invariant

    def applies(self, event: str, name: str | None) -> bool:
        if self.check == "always":
            return True
        return self.check == event and (self.target is None or self.target == name)


def compile_invariant(engine, inv: ast.Invariant) -> CompiledInvariant:
    check, target, holds = "always", None, None
    for p in inv.props:
        if p.key == "check":
            v = p.value
            if isinstance(v, ast.Name) and v.id == "always":
                check = "always"
            elif isinstance(v, ast.Call) and v.func in ("after", "phase_end") and len(v.args) == 1 and isinstance(v.args[0], ast.Name):
                check, target = v.func, v.args[0].id
            else:
                raise RuleError("`check:` is `always`, `after(ACTION)` or `phase_end(PHASE)`", p.span)
        elif p.key == "holds":
            holds = engine.compiler.expr(p.value, frozenset())
    if holds is None:
        raise RuleError(f"invariant '{inv.name}' needs `holds: CONDITION`", inv.span)
    return CompiledInvariant(inv.name, inv.header.label or inv.name, tuple(inv.header.citations), check, target, holds, inv)


def check_invariants(engine, ctx, event: str, name: str | None = None) -> None:
    """Check the invariants that apply to `event`: `after` an action NAME, `phase_end` of phase
    NAME, or `auto` (an automatic step NAME: set-up, turn start, a `do` block, triggers, game
    end), after which only the `always` invariants are checked."""
    with ctx.untraced():
        for inv in engine.invariants:
            if inv.applies(event, name) and not inv.holds(Frame(ctx)):
                where = f"at the end of phase {name}" if event == "phase_end" else f"after {name}"
                raise InvariantViolation(inv, where)
