"""Evaluations: how well a side stands, as the game declares it (`evaluation NAME(s: side)`).

    evaluation standing(s: side) "Standing" §10 {
      term "victory points" weight 10: s.vp §10
      term "steps on the map" weight 1/2: sum(u.steps for u in units_of(s)) §2.1
    }

A side's evaluation is the sum of `weight * value` over the terms whose `when` holds. Search agents
(interpreter/search_agents.py) maximise a side's *utility*: the evaluation of its alliance (itself
and its allies) minus that of its enemies, or a large win or loss once the game has a winner. The
terms are compiled like any rule expression (generated code, or the reference closure compiler),
so they are bounded the same way and read the same state.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from warcodex.dsl import ast
from warcodex.interpreter.compiler import Frame
from warcodex.interpreter.values import Entity, RuleError, show

# What a decided game is worth to the winner's alliance (and minus that to the losers'): larger
# than any evaluation a game's terms could add up to, so a win always beats a good position.
WIN_VALUE = 1_000_000


@dataclass
class CompiledTerm:
    label: str
    weight: object | None  # compiled expression, None for 1
    value: object
    when: object | None
    citations: tuple
    span: object


@dataclass
class CompiledEvaluation:
    name: str
    title: str
    param: str  # the name the terms use for the side judged
    terms: list[CompiledTerm]
    citations: tuple
    decl: ast.Evaluation

    def breakdown(self, ctx, side: Entity) -> list[tuple[str, object, object]]:
        """(label, weight, value) of every term that applies to `side` now."""
        out = []
        was = ctx.tracing
        ctx.tracing = False  # an evaluation judges a position; it is not part of the game's record
        try:
            for t in self.terms:
                fr = Frame(ctx, {self.param: side})
                if t.when is not None and not t.when(fr):
                    continue
                value = _number(t.value(fr), t, "value")
                weight = 1 if t.weight is None else _number(t.weight(fr), t, "weight")
                out.append((t.label, weight, value))
        finally:
            ctx.tracing = was
        return out

    def score(self, ctx, side: Entity) -> Fraction | int:
        return sum((w * v for _, w, v in self.breakdown(ctx, side)), 0)


def _number(value, term: CompiledTerm, what: str):
    if value is None:
        return 0  # nothing to count (an empty `first(...)`, an unset variable)
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise RuleError(f"the {what} of term \"{term.label}\" is {show(value)}, not a number", term.span,
                        hint="an evaluation adds numbers: count(...), sum(...), a variable...")
    return value


def compile_evaluation(engine, ev: ast.Evaluation) -> CompiledEvaluation:
    if len(ev.params) != 1:
        raise RuleError(f"evaluation '{ev.name}' must take one parameter, the side it judges", ev.span)
    param = ev.params[0].name
    names = frozenset({param})
    terms = [CompiledTerm(t.label, engine.compiler.expr(t.weight, names) if t.weight is not None else None,
                          engine.compiler.expr(t.value, names),
                          engine.compiler.expr(t.when, names) if t.when is not None else None,
                          tuple(t.citations), t.span)
             for t in ev.terms]
    return CompiledEvaluation(ev.name, ev.header.label or ev.name, param, terms, tuple(ev.header.citations), ev)


def evaluation_named(engine, name: str | None) -> CompiledEvaluation:
    """The game's evaluation called `name`, or its first one; a clear error when there is none."""
    if not engine.evaluations:
        raise RuleError(f"the game '{engine.game.game.name}' declares no `evaluation`: search agents need one "
                        "(docs/language.md, section 24)")
    if name is None:
        return next(iter(engine.evaluations.values()))
    found = engine.evaluations.get(name)
    if found is None:
        raise RuleError(f"no evaluation '{name}' (have: {', '.join(engine.evaluations)})")
    return found


def utility(engine, ctx, evaluation: CompiledEvaluation, side: str) -> float:
    """What the position is worth to `side`: its alliance's evaluations minus its enemies', or
    +-WIN_VALUE (plus that difference, to prefer bigger wins) once the game has a winner."""
    me = engine.entities[side]
    allies = engine.allies_of(me)
    enemies = engine.enemies_of(me)
    value = float(sum(evaluation.score(ctx, s) for s in allies) - sum(evaluation.score(ctx, s) for s in enemies))
    winner = ctx.state.winner
    if winner is not None:
        value += WIN_VALUE if won(engine, winner, side) else -WIN_VALUE
    return value


def won(engine, winner: str | None, side: str) -> bool:
    """Whether `side` is among the winners: the winner is the side, an ally, or its alliance
    (`win(allies, ...)`)."""
    if winner is None:
        return False
    ent = engine.entities.get(winner)
    if ent is None:
        return False
    if ent.kind == "alliance":
        return engine.alliance_of(side) == winner
    me = engine.entities[side]
    return ent in engine.allies_of(me)
