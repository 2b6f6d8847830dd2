"""Actions: player choices with typed parameters, requirements and effects.

The engine enumerates legal instances from the declaration itself: parameters are bound in order
(each domain may depend on earlier ones), and every `require` is tested as soon as the parameters
it mentions are bound, so whole branches are pruned early. Enumeration is lazy (a generator);
random agents walk it in a shuffled order. Applying an action re-validates it independently of
the enumerator: an illegal action is refused with the rule that forbids it.
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
class Param:
    name: str
    subset: bool
    source: object
    where: object
    min: int
    max: int | None
    citations: tuple


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
        for p in decl.params:
            source = compiler.expr(p.source, frozenset(scope))
            where = compiler.expr(p.where, frozenset(scope | {p.name})) if p.where is not None else None
            scope.add(p.name)
            self.params.append(Param(p.name, p.subset, source, where, p.min if p.min is not None else (1 if p.subset else 0),
                                     p.max, tuple(p.citations)))
        self.requires: list[Requirement] = []
        for r in decl.requires:
            needs = frozenset(free_names(r.test) & set(names))
            self.requires.append(Requirement(compiler.expr(r.test, frozenset(scope)), r.message or "requirement not met",
                                             tuple(r.citations), r.span, needs))
        self.body = compiler.block(decl.body, set(scope))
        # requirement i is checked once parameters[: ready[i]] are bound
        self.ready = [max((names.index(n) + 1 for n in r.needs), default=0) for r in self.requires]

    # ------------------------------------------------------------ enumeration
    # The three public hooks below are what a search over instances needs (the agents' and
    # hypothesis's drawing, strategies.py): the candidates of one parameter, whether the
    # requirements decidable so far hold, and the legal completions of a partial instance.
    def candidates(self, fr: Frame, p: Param, rng=None):
        """The values parameter `p` may take with the earlier parameters bound in `fr` (its
        source filtered by its `where`; for a subset parameter, the groups of allowed sizes,
        largest first); shuffled when `rng` is given."""
        seq = p.source(fr)
        items = list(seq) if seq is not None else []
        if p.where is not None and not p.subset:
            kept = []
            for x in items:
                fr.vars[p.name] = x
                if p.where(fr):
                    kept.append(x)
            items = kept
        if rng is not None:
            rng.shuffle(items)
        if not p.subset:
            return items
        hi = len(items) if p.max is None else min(p.max, len(items))
        lo = p.min
        if rng is None:
            # largest groups first: a deterministic agent commits everything it can
            return (tuple(c) for k in range(hi, lo - 1, -1) for c in itertools.combinations(items, k))
        return _random_subsets(items, lo, hi, rng)

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

    def instances(self, ctx, rng=None):
        """Generate legal instances (as ActionChoice), lazily; shuffled when rng is given."""
        fr = Frame(ctx)
        with ctx.untraced():
            if not self.requirements_hold(fr, 0):
                return
            yield from self.completions(fr, 0, rng)

    def completions(self, fr: Frame, i: int, rng=None):
        """The legal instances whose first `i` parameters are those bound in `fr`, lazily (`fr`
        is used as scratch space: later parameters are bound and unbound in it)."""
        if i == len(self.params):
            yield ActionChoice(self.name, tuple((p.name, fr.vars[p.name]) for p in self.params))
            return
        p = self.params[i]
        for value in self.candidates(fr, p, rng):
            fr.vars[p.name] = value
            if self.requirements_hold(fr, i + 1):
                yield from self.completions(fr, i + 1, rng)
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
                domain = p.source(fr)
                domain = tuple(domain) if domain is not None else ()
                cite = "".join(f" §{c}" for c in p.citations)
                if p.subset:
                    if not isinstance(value, tuple) or any(v not in domain for v in value) or len(set(value)) != len(value):
                        raise RuleError(f"{self.name}: {p.name} must be chosen among the eligible ones{cite}", self.decl.span)
                    if len(value) < p.min or (p.max is not None and len(value) > p.max):
                        raise RuleError(f"{self.name}: choose {p.min}..{p.max or 'any'} {p.name}{cite}", self.decl.span)
                elif value not in domain:
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
