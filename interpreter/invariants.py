"""Invariants: properties of the state that the rules must keep, checked during play and fuzzing.

    invariant stacking "At most two units per hex" §4 {
      check: always                 # or: after(move), phase_end(combat)
      holds: all(count(units_at(h)) <= 2 for h in occupied())
    }

An invariant that holds for each unit or location of a list (`all(E for u in all_units())`, the
usual form) is checked one element at a time: `E` (with its `where`) becomes a rule of the element
(`element_rule`), memoized like a function (memo.py), so a check after an action evaluates it again
only for the units and places the action changed, and finds the others remembered.

An invariant is a function of the state that reads some kinds of it (reads.py: `positions`,
`marker:out_of_supply`, `var:vp`...). Once it held, it holds until a change of one of those kinds:
a check after an action that changed none of them (the state's journal says what changed since
the last check, state.py) is skipped, as its value cannot differ (`watched_kinds`, `_unchanged`).
An invariant that rolls dice, reads hidden information or reads something reads.py cannot place
is checked every time, and so is any invariant after a change the journal does not explain.
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.interpreter.compiler import Frame
from warcodex.interpreter.reads import EVERYTHING
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
    kinds: frozenset | None = None  # the kinds of state `holds` reads; None: anything (always checked)

    def applies(self, event: str, name: str | None) -> bool:
        if self.check == "always":
            return True
        return self.check == event and (self.target is None or self.target == name)


# sources whose elements are units, or locations: the element rule's parameter type
_UNIT_SOURCES = frozenset({"all_units", "units_of", "units_at", "eliminated_units", "units_in_box"})
_LOCATION_SOURCES = frozenset({"occupied", "locations", "locations_with", "adjacent"})


def element_rule(inv: ast.Invariant) -> ast.Function | None:
    """`all(E for x in S where W)` over units or locations: the rule `(not W) or E` of one x
    (named after the invariant, it is no name of the game's); None for another form."""
    holds = next((p.value for p in inv.props if p.key == "holds"), None)
    if not (isinstance(holds, ast.Comprehension) and holds.func == "all" and isinstance(holds.source, ast.Call)):
        return None
    source = holds.source.func
    kind = "unit" if source in _UNIT_SOURCES else "location" if source in _LOCATION_SOURCES else None
    if kind is None:
        return None
    body = holds.element
    if holds.where is not None:
        body = ast.Or(left=ast.Not(operand=holds.where, span=holds.where.span), right=body, span=holds.span)
    return ast.Function(header=ast.Header(name=f"invariant {inv.name}: one {holds.var}", span=inv.span),
                        params=[ast.Param(name=holds.var, type=kind, span=holds.span)], type="bool", body=body,
                        span=holds.span)


def _element_check(engine, inv: ast.Invariant, rule: ast.Function):
    """`holds` of an invariant checked element by element through its element rule."""
    holds = next(p.value for p in inv.props if p.key == "holds")
    source = engine.compiler.expr(holds.source, frozenset())
    element = engine.compiler.function(rule)
    element = getattr(element, "generated", None) or (lambda ctx, x, _run=element: _run(ctx, (x,), span))
    span = holds.span

    slot = []  # the index of the element rule's memo, when it is keyed by the element (found once)

    def memo_slot():
        if not slot:
            found = [i for i, p in enumerate(engine.memo_plans) if p.name == rule.header.name and p.shape == "single"]
            slot.append(found[0] if engine.evaluator == "generated" and len(found) == 1 else None)
        return slot[0]

    def check(fr):
        seq = source(fr)
        if not seq:
            return True
        ctx = fr.ctx
        ctx.tick_many(len(seq), span)  # as the aggregate counts its steps
        i = memo_slot() if not ctx.tracing else None
        if i is not None:
            # an element whose value is remembered (untraced: any entry) is not evaluated again:
            # the entries are read here as the rule's own entry reads them, without the call
            memo = ctx.memo_values[i] if ctx.memo_version == ctx.state.version and ctx.memo_values else ctx.sync_memos()[i]
            get = memo.get
            for x in seq:
                entry = get(x)
                if entry is None:
                    if not element(ctx, x):
                        return False
                elif not entry[0]:
                    return False
            return True
        for x in seq:
            if not element(ctx, x):
                return False
        return True
    return check


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
            rule = engine.synthetic_rules.get(f"invariant {inv.name}: one {getattr(p.value, 'var', '')}")
            holds = _element_check(engine, inv, rule) if rule is not None else engine.compiler.expr(p.value, frozenset())
    if holds is None:
        raise RuleError(f"invariant '{inv.name}' needs `holds: CONDITION`", inv.span)
    return CompiledInvariant(inv.name, inv.header.label or inv.name, tuple(inv.header.citations), check, target, holds, inv,
                             watched_kinds(engine, inv))


def watched_kinds(engine, inv: ast.Invariant) -> frozenset | None:
    """The kinds of state an invariant's `holds` reads (a derived global counts as what it
    reads: the journal names those), or None if it must be checked every time."""
    from warcodex.interpreter.search_memo import _without_derived

    holds = next((p.value for p in inv.props if p.key == "holds"), None)
    if holds is None:
        return None
    probe = ast.Function(header=ast.Header(name=f"(invariant {inv.name})"), type=None, body=holds, params=[])
    if engine.deps.rolls_dice(probe) or engine.deps.reads_hidden(probe):
        return None
    kinds = _without_derived(set(engine.reads.expression(holds, []).kinds), engine.reads.derived)
    return None if EVERYTHING in kinds else frozenset(kinds)


def _mark(state) -> tuple:
    """Where the state stands: itself, its journal's end, its version, and the sequence fields
    some of whose changes are not journal events (the game's end)."""
    return (state, state.journal_start + len(state.journal), state.version, state.phase, state.active,
            state.position.turn, state.over)


def _unchanged(held: dict, inv: CompiledInvariant, state) -> bool:
    """Whether nothing `inv` reads changed since it last held in this context."""
    last = held.get(inv.name)
    if last is None or inv.kinds is None:
        return False
    was, seen, version = last[0], last[1], last[2]
    if was is not state or last[3:] != (state.phase, state.active, state.position.turn, state.over):
        return False
    start, journal = state.journal_start, state.journal
    if seen < start or state.version - version != start + len(journal) - seen:  # forgotten, or unexplained
        return False
    watched = inv.kinds
    for kinds, _where, _uid in journal[seen - start:]:
        if kinds and (EVERYTHING in kinds or not watched.isdisjoint(kinds)):
            return False
    return True


def check_action_invariants(engine, ctx, action: str) -> None:
    """Check only the invariants written for `action` (`check: after(ACTION)`): what the action
    itself must keep. A rule test sets up a fragment of a position, which the `always` and
    `phase_end` invariants, written for whole games, need not hold for."""
    with ctx.untraced():
        for inv in engine.invariants:
            if inv.check == "after" and inv.target == action and not inv.holds(Frame(ctx)):
                raise InvariantViolation(inv, f"after {action}")


def check_invariants(engine, ctx, event: str, name: str | None = None) -> None:
    """Check the invariants that apply to `event`: `after` an action NAME, `phase_end` of phase
    NAME, or `auto` (an automatic step NAME: set-up, turn start, a `do` block, triggers, game
    end), after which only the `always` invariants are checked."""
    held = ctx.__dict__.setdefault("invariants_held", {})  # invariant -> _mark of the state it last held in
    state = ctx.state
    with ctx.untraced():
        for inv in engine.invariants:
            if not inv.applies(event, name) or _unchanged(held, inv, state):
                continue
            held.pop(inv.name, None)
            if not inv.holds(Frame(ctx)):
                where = f"at the end of phase {name}" if event == "phase_end" else f"after {name}"
                raise InvariantViolation(inv, where)
            held[inv.name] = _mark(ctx.state)
