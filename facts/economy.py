"""Incomes: a number a side keeps (a side variable: IPCs, production points) that the rules
increase by a function of the side (`set active.ipcs += income(active)`), with each side's value
and income at the set-up of the scenario, as a national production chart shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.facts.walk import rule_bodies, walk


@dataclass(frozen=True)
class SideIncome:
    side: str
    start: object  # the variable's value at the set-up (None where it cannot be computed)
    income: object  # the rule's value for the side at the set-up (None where it cannot be computed)


@dataclass(frozen=True)
class IncomeFacts:
    variable: ast.VarDecl  # the side variable
    rule: ast.Function | ast.Quantity  # the rule giving a side's income
    sides: tuple[SideIncome, ...]  # in turn order, then the other sides


def incomes(engine, state) -> list[IncomeFacts]:
    """Each side variable that a rule increases by a function (or quantity) of one side, with the
    values at the set-up `state` (None: no scenario)."""
    game = engine.game
    side_vars = {d.name: d for d in game.names.values()
                 if isinstance(d, ast.VarDecl) and d.scope == "side_var" and d.type in ("int", "num")}
    found: dict[str, ast.Decl] = {}
    for node, _env in rule_bodies(game):
        for n in walk(node):
            if not (isinstance(n, ast.SetStmt) and n.op == "+=" and isinstance(n.target, ast.Attr)
                    and n.target.name in side_vars and n.target.name not in found):
                continue
            for call in walk(n.value):
                decl = game.names.get(call.func) if isinstance(call, ast.Call) else None
                if isinstance(decl, (ast.Function, ast.Quantity)) and len(decl.params) == 1 and decl.params[0].type == "side":
                    found[n.target.name] = decl
                    break
    return [IncomeFacts(side_vars[name], rule, _values(engine, state, side_vars[name], rule)) for name, rule in found.items()]


def _values(engine, state, var: ast.VarDecl, rule) -> tuple[SideIncome, ...]:
    from warcodex.interpreter.values import RuleError

    order = [engine.entities[s] for s in state.turn_order] if state is not None else []
    order += [e for e in engine.side_entities if e not in order]
    out = []
    for side in order:
        start = income = None
        if state is not None:
            name = ast.Name(id=side.name)
            try:
                start = engine.evaluate(ast.Attr(obj=name, name=var.name), state.snapshot())
                income = engine.evaluate(ast.Call(func=rule.name, args=[name]), state.snapshot())
            except RuleError:
                pass
        out.append(SideIncome(side.name, start, income))
    return tuple(out)
