"""Actions: player choices with typed parameters, requirements and effects.

The engine enumerates legal instances from the declaration itself: parameters are bound in order
(each domain may depend on earlier ones), and every `require` is tested as soon as the parameters
it mentions are bound, so whole branches are pruned early. Enumeration is lazy (a generator);
random agents walk it in a shuffled order. Applying an action re-validates it independently of
the enumerator: an illegal action is refused with the rule that forbids it.

A domain written as a filter, `list(x for x in S where C)` (in the action, or as the body of a
function it calls, or several joined with `+`), is enumerated lazily too: its candidates are the
values of S, and C is tested only on the candidates looked at (a random agent looks at one or
two); validating a value tests it alone: it is in S and passes C.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.interpreter.compiler import Compiler, Frame
from warcodex.interpreter.tables import IllegalColumn
from warcodex.interpreter.values import RuleError


def free_names(node) -> set[str]:
    """Every plain name an AST subtree mentions (over-approximate: ignores shadowing)."""
    found: set[str] = set()

    def walk(n):
        if isinstance(n, ast.Name):
            found.add(n.id)
        if isinstance(n, ast.Node):
            for field in type(n).model_fields:
                walk(getattr(n, field))
        elif isinstance(n, (list, tuple)):
            for x in n:
                walk(x)
        elif isinstance(n, dict):
            for x in n.values():
                walk(x)

    walk(node)
    return found


@dataclass
class Part:
    """One piece of a parameter's domain: the values of `source` that pass `test` (None: all of
    them). `binds`: how its frame is made from the action's, one step per function whose body it
    comes from ((parameter names, compiled arguments), ...); none: the action's own locals."""

    source: object
    var: str | None
    test: object
    binds: tuple = ()

    def frame(self, fr: Frame) -> Frame:
        vars = dict(fr.vars)
        for names, args in self.binds:
            vars = {n: a(Frame(fr.ctx, vars)) for n, a in zip(names, args)}
        return Frame(fr.ctx, vars)

    def passes(self, pfr: Frame, value) -> bool:
        if self.test is None:
            return True
        pfr.vars[self.var] = value
        return bool(self.test(pfr))


def domain_parts(compiler, game, e, scope: frozenset, depth: int = 0) -> list[Part]:
    """The domain expression `e` as filtered parts (see the module's docstring); an expression
    that is no filter is one part, all of its values."""
    if isinstance(e, ast.Comprehension) and e.func == "list" and isinstance(e.element, ast.Name) and e.element.id == e.var:
        test = compiler.expr(e.where, scope | {e.var}) if e.where is not None else None
        return [Part(compiler.expr(e.source, scope), e.var, test)]
    if isinstance(e, ast.BinOp) and e.op == "+":
        left = domain_parts(compiler, game, e.left, scope, depth)
        right = domain_parts(compiler, game, e.right, scope, depth)
        if any(p.test is not None for p in left + right):
            return left + right
    if isinstance(e, ast.Call) and depth < 8:
        decl = game.names.get(e.func)
        if isinstance(decl, ast.Function) and len(e.args) == len(decl.params) and not e.kwargs:
            names = tuple(p.name for p in decl.params)
            inner = domain_parts(compiler, game, decl.body, frozenset(names), depth + 1)
            if any(p.test is not None for p in inner):
                args = tuple(compiler.expr(a, scope) for a in e.args)
                return [Part(p.source, p.var, p.test, ((names, args),) + p.binds) for p in inner]
    return [Part(compiler.expr(e, scope), None, None)]


@dataclass
class Param:
    name: str
    subset: bool
    source: object
    where: object
    min: int
    max: int | None
    citations: tuple
    parts: list = None  # the domain as filtered parts (Part)


@dataclass
class Requirement:
    test: object
    message: str
    citations: tuple
    span: object
    needs: frozenset  # parameter names it mentions


@dataclass(frozen=True)
class ActionChoice:
    """One legal action instance: the action's name and its arguments in parameter order."""

    action: str
    args: tuple  # ((param, value), ...)

    def arg(self, name: str):
        for k, v in self.args:
            if k == name:
                return v
        raise KeyError(name)


class CompiledAction:
    def __init__(self, compiler: Compiler, decl: ast.Action) -> None:
        self.decl = decl
        self.name = decl.name
        self.title = decl.header.label or decl.name
        self.citations = tuple(decl.header.citations)
        self.params: list[Param] = []
        scope: set[str] = set()
        names = [p.name for p in decl.params]
        game = compiler.engine.game
        for p in decl.params:
            source = compiler.expr(p.source, frozenset(scope))
            parts = domain_parts(compiler, game, p.source, frozenset(scope))
            if len(parts) == 1 and parts[0].test is None:
                parts = [Part(source, None, None)]  # the whole source, compiled once
            where = compiler.expr(p.where, frozenset(scope | {p.name})) if p.where is not None else None
            scope.add(p.name)
            self.params.append(Param(p.name, p.subset, source, where, p.min if p.min is not None else (1 if p.subset else 0),
                                     p.max, tuple(p.citations), parts))
        self.requires: list[Requirement] = []
        for r in decl.requires:
            needs = frozenset(free_names(r.test) & set(names))
            self.requires.append(Requirement(compiler.expr(r.test, frozenset(scope)), r.message or "requirement not met",
                                             tuple(r.citations), r.span, needs))
        self.body = compiler.block(decl.body, set(scope))
        # requirement i is checked once parameters[: ready[i]] are bound
        self.ready = [max((names.index(n) + 1 for n in r.needs), default=0) for r in self.requires]

    # ------------------------------------------------------------ enumeration
    def _candidates(self, fr: Frame, p: Param) -> list:
        """(part, its frame, value) for every candidate value of parameter p, in domain order,
        before any test."""
        out = []
        for part in p.parts:
            pfr = part.frame(fr)
            seq = part.source(pfr)
            if seq is not None:
                out.extend((part, pfr, x) for x in seq)
        return out

    def _passes(self, fr: Frame, p: Param, part: Part, pfr: Frame, value) -> bool:
        if not part.passes(pfr, value):
            return False
        if p.where is not None and not p.subset:
            fr.vars[p.name] = value
            return bool(p.where(fr))
        return True

    def _values(self, fr: Frame, p: Param, rng=None, eager: bool = False):
        """The domain of parameter p (shuffled with rng), each value tested when it is reached.
        With `eager`, every candidate is tested first and the values that pass are shuffled: the
        random draws of the engine before lazy domains (the same games, for comparisons)."""
        candidates = self._candidates(fr, p)
        if eager and rng is not None:
            values = [value for part, pfr, value in candidates if self._passes(fr, p, part, pfr, value)]
            rng.shuffle(values)
            yield from values
            return
        if rng is not None:
            rng.shuffle(candidates)
        for part, pfr, value in candidates:
            if self._passes(fr, p, part, pfr, value):
                yield value

    def candidates(self, fr: Frame, p: Param, rng=None, eager: bool = False, largest: bool = False):
        """The values parameter `p` may take with the earlier parameters bound in `fr` (its
        source filtered by its `where`; for a subset parameter, the groups of allowed sizes,
        largest first); shuffled when `rng` is given. A public hook, with `requirements_hold`
        and `completions`, for searches over instances (agents, strategies.py). `largest`: with
        `rng`, a subset's groups still come largest first, each size's in a random order (a
        combined attack commits every unit it can: plan_agent.py)."""
        if not p.subset:
            return self._values(fr, p, rng, eager)
        items = list(self._values(fr, p))
        if rng is not None:
            rng.shuffle(items)
        hi = len(items) if p.max is None else min(p.max, len(items))
        lo = p.min
        if rng is None or largest:
            # largest groups first: a deterministic agent commits everything it can
            return (tuple(c) for k in range(hi, lo - 1, -1) for c in itertools.combinations(items, k))
        return _random_subsets(items, lo, hi, rng)

    def _member(self, fr: Frame, p: Param, value) -> bool:
        """Is `value` in the domain of p (before p's own `where`)? Tested on the value alone."""
        for part in p.parts:
            pfr = part.frame(fr)
            seq = part.source(pfr)
            if seq is not None and value in seq and part.passes(pfr, value):
                return True
        return False

    def requirements_hold(self, fr: Frame, bound: int) -> bool:
        """Every requirement that becomes decidable once the first `bound` parameters are bound
        in `fr` holds (an illegal table column is a failed requirement)."""
        for req, ready in zip(self.requires, self.ready):
            if ready == bound:
                try:
                    if not req.test(fr):
                        return False
                except IllegalColumn:
                    return False
        return True

    def instances(self, ctx, rng=None, eager: bool = False, largest: bool = False):
        """Generate legal instances (as ActionChoice), lazily; shuffled when rng is given (with
        `eager`, in the order of the engine before lazy domains: see `_values`; `largest`: the
        subsets largest first, see `candidates`)."""
        fr = Frame(ctx)
        with ctx.untraced():
            if not self.requirements_hold(fr, 0):
                return
            yield from self.completions(fr, 0, rng, eager, largest)

    def completions(self, fr: Frame, i: int, rng=None, eager: bool = False, largest: bool = False):
        """The legal instances whose first `i` parameters are those bound in `fr`, lazily (`fr`
        is used as scratch space: later parameters are bound and unbound in it)."""
        if i == len(self.params):
            yield ActionChoice(self.name, tuple((p.name, fr.vars[p.name]) for p in self.params))
            return
        p = self.params[i]
        for value in self.candidates(fr, p, rng, eager, largest):
            fr.vars[p.name] = value
            if self.requirements_hold(fr, i + 1):
                yield from self.completions(fr, i + 1, rng, eager, largest)
            for later in self.params[i + 1:]:
                fr.vars.pop(later.name, None)

    # ------------------------------------------------------------ validation and effects
    def validate(self, ctx, choice: ActionChoice) -> Frame:
        """Re-check an instance against the rules; raise RuleError saying which rule refuses it."""
        fr = Frame(ctx)
        with ctx.untraced():
            args = dict(choice.args)
            for p in self.params:
                if p.name not in args:
                    raise RuleError(f"{self.name}: missing argument '{p.name}'", self.decl.span)
                value = args[p.name]
                cite = "".join(f" §{c}" for c in p.citations)
                if p.subset:
                    if (not isinstance(value, tuple) or len(set(value)) != len(value)
                            or not all(self._member(fr, p, v) for v in value)):
                        raise RuleError(f"{self.name}: {p.name} must be chosen among the eligible ones{cite}", self.decl.span)
                    if len(value) < p.min or (p.max is not None and len(value) > p.max):
                        raise RuleError(f"{self.name}: choose {p.min}..{p.max or 'any'} {p.name}{cite}", self.decl.span)
                elif not self._member(fr, p, value):
                    raise RuleError(f"{self.name}: {value} is not an eligible {p.name}{cite}", self.decl.span)
                fr.vars[p.name] = value
                if p.where is not None and not p.subset and not p.where(fr):
                    raise RuleError(f"{self.name}: {value} is not an eligible {p.name}{cite}", self.decl.span)
            for req in self.requires:
                try:
                    ok = req.test(fr)
                except IllegalColumn as exc:
                    raise RuleError(f"{self.name}: {exc.message}", req.span) from None
                if not ok:
                    cite = "".join(f" §{c}" for c in req.citations)
                    raise RuleError(f"{self.name}: {req.message}{cite}", req.span)
            return fr

    def apply(self, ctx, choice: ActionChoice) -> None:
        fr = self.validate(ctx, choice)
        self.body(fr)


def _random_subsets(items: list, lo: int, hi: int, rng, tries: int = 48):
    """Random subsets first (varied sizes), then every subset, largest first, as a fallback."""
    seen = set()
    n = len(items)
    if hi < lo:
        return
    for _ in range(tries):
        k = rng.randint(lo, hi)
        picked = tuple(sorted(rng.sample(range(n), k)))
        if picked not in seen:
            seen.add(picked)
            yield tuple(items[i] for i in picked)
    for k in range(hi, lo - 1, -1):
        for combo in itertools.combinations(range(n), k):
            if combo not in seen:
                seen.add(combo)
                yield tuple(items[i] for i in combo)
