"""Memoized rule values that survive the changes they do not read.

A function or quantity that reads the game state (positions, markers, steps, variables) used to
be memoized for one state version: every change, however far away, threw every value away, so a
search after each move evaluated the zones of control of every hex again. Here each rule keeps its
values until a change it reads happens where it reads (`reads.py` finds what and where from the
rules; the state's journal says what changed and where, `state.py`):

- a change of a kind the rule reads *everywhere* drops all of its values;
- a change of a kind it reads *near its anchors* (its location parameters, the locations of its
  unit parameters) drops the values whose anchor lies within the rule's radius of the change;
- a change of a unit's record drops the values of the rules that read that kind from it as a
  parameter;
- an unexplained change (`state.touch()`, or a version bumped without a journal event) drops
  everything;
- a rule that reads a *derived global* (a rule of no parameters reading only global values, such
  as `winter() = turn >= 28`) reads its value: when what the derived global reads changes, it is
  evaluated again, and only a new value drops the rules that read it (kind `fn:NAME`).

So `in_ezoc(h, s)` computed for a hex far from a move is still true after the move, and a search
finds it again instead of evaluating it. Values are exact: the generated code is tested against
the reference evaluator, which memoizes per state version (tests/test_codegen.py), and
`audit` re-evaluates every surviving value (tests/test_memo.py).

Each value remembers the state version it was computed at while tracing (-1 when computed
untraced): while a trace is recorded, a function's value is used only if it was computed while
tracing at the current version, so an explanation never depends on what untraced evaluations (an
agent's enumeration, a remembered search) happened to compute first, and a replay explains the
game as it was played.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress

from warcodex.dsl import ast
from warcodex.interpreter.reads import EVERYTHING, Reads
from warcodex.interpreter.values import RuleError, UnitRef

ANCHOR_TYPES = ("location", "unit")
_UNSET = object()


class _Undefined:
    """The value of a derived global whose evaluation failed (`Memos.recheck`): equal to nothing."""


@dataclass(frozen=True)
class Plan:
    """How one rule's values are kept: the parameters its values are indexed by (`slots`, indices
    into the arguments), which kinds drop everything, which drop near the anchors (`anchors`:
    (slot, radius, the parameter is a unit)), which drop a unit parameter's values (`units`:
    (slot, kinds)). `params`: how many parameters the rule has.

    The shape of its dict of values follows (the generated code reads and writes it so):
    "single" (one parameter, its slot or none): {argument: entry}; "nested" (one slot and other
    parameters): {slot's argument: {the others (one: itself, else a tuple): entry}}; "flat" (no
    slot): {arguments' tuple: entry}; "indexed" (several slots): {arguments' tuple: entry} with
    an index per slot, {argument: (keys,)}. An entry is (value, state version computed at)."""

    name: str
    slots: tuple
    everywhere: frozenset
    near: frozenset
    anchors: tuple
    units: tuple
    params: int = 0

    @property
    def shape(self) -> str:
        if self.params == 1 and len(self.slots) <= 1:
            return "single"
        if len(self.slots) == 1:
            return "nested"
        return "flat" if not self.slots else "indexed"

    @property
    def kinds(self) -> frozenset:
        return self.everywhere | self.near | frozenset(k for _, ks in self.units for k in ks)


def plan_of(decl, reads: Reads) -> Plan:
    """The memo plan of a rule from what it reads: anchors and unit parameters of a type that can
    be indexed (a location, a unit); what is read through other parameters (a list) is treated as
    read everywhere."""
    types = [p.type for p in decl.params]
    everywhere = set(reads.everywhere)
    near = set(reads.near)
    radius = dict(reads.radius)
    units = dict(reads.units)
    if any(types[i] not in ANCHOR_TYPES for i in radius):
        everywhere |= near
        near, radius = set(), {}
    for i in [i for i in units if types[i] != "unit"]:
        everywhere |= units.pop(i)
    if not near:
        radius = {}
    slots = tuple(sorted(set(radius) | set(units)))
    position = {p: s for s, p in enumerate(slots)}
    return Plan(decl.name, slots, frozenset(everywhere), frozenset(near),
                tuple((position[i], r, types[i] == "unit") for i, r in sorted(radius.items())),
                tuple((position[i], frozenset(ks)) for i, ks in sorted(units.items())), len(types))


class Layout:
    """What one engine's memos need to know, made once per engine (`Engine.memo_layout`): the
    plans, and for each kind of change the rules it can alter (to clear, to drop near the change,
    to drop for a unit); the derived globals some rule reads and what they read.
    `derived`: {derived global: (the kinds it reads, its plain evaluation `B(ctx)`)}."""

    def __init__(self, plans: list[Plan], board, derived: dict | None = None) -> None:
        self.plans = plans
        self.size = len(plans)  # the plans made so far (an engine adds none after its build)
        self.board = board
        self.clear_on: dict[str, list[int]] = {}  # kind -> rules it clears
        self.near_on: dict[str, list] = {}  # kind -> (rule, anchors) it drops near the change
        self.unit_on: dict[str, list] = {}  # kind -> (rule, unit slots) it drops for the unit
        self.always: list[int] = []  # rules that read anything: every change clears them
        for i, p in enumerate(plans):
            if EVERYTHING in p.everywhere:
                self.always.append(i)
                continue
            for k in p.everywhere:
                self.clear_on.setdefault(k, []).append(i)
            keyed = p.shape in ("single", "nested")  # the slot's argument is the key
            for k in p.near:
                if k not in p.everywhere:
                    self.near_on.setdefault(k, []).append((i, p.anchors, keyed))
            slots: dict[str, list] = {}
            for slot, ks in p.units:
                for k in ks:
                    slots.setdefault(k, []).append(slot)
            for k, found in slots.items():
                if k not in p.everywhere:
                    self.unit_on.setdefault(k, []).append((i, tuple(found), keyed))
        # the derived globals some rule reads (directly or through another derived global)
        derived = derived or {}
        wanted = {k[3:] for k in self.clear_on if k.startswith("fn:")}
        while True:
            more = {k[3:] for name in wanted if name in derived for k in derived[name][0] if k.startswith("fn:")} - wanted
            if not more:
                break
            wanted |= more
        self.derived = {name: derived[name] for name in sorted(wanted) if name in derived}
        self.watch: dict[str, list[str]] = {}  # kind -> the derived globals that read it
        for name, (kinds, _) in self.derived.items():
            for k in kinds:
                self.watch.setdefault(k, []).append(name)
        self._on: dict[tuple, tuple] = {}
        # the number of indexes of each rule's memo (its slots, if its shape is "indexed")
        self.index_sizes = tuple(len(p.slots) if p.shape == "indexed" else 0 for p in plans)

    def on(self, kinds: tuple) -> tuple:
        """What a change of `kinds` drops, merged over the kinds and found once per tuple of kinds
        (a game's changes come in a few shapes: a unit moved, one variable set): (the rules it
        clears, (rule, unit slots, keyed) it drops for the unit, (rule, keyed, anchors) it drops
        near the change, each anchor (slot, the balls of its radius or None for radius 0, the
        anchor is a unit))."""
        found = self._on.get(kinds)
        if found is None:
            clear = list(self.always)
            for k in kinds:
                clear.extend(i for i in self.clear_on.get(k, ()) if i not in clear)
            units, near = [], []
            for k in kinds:
                units.extend(x for x in self.unit_on.get(k, ()) if x[0] not in clear and x not in units)
                for i, anchors, keyed in self.near_on.get(k, ()):
                    resolved = tuple((slot, self.board.balls(radius) if radius else None, unit)
                                     for slot, radius, unit in anchors)
                    if i not in clear and (i, keyed, resolved) not in near:
                        near.append((i, keyed, resolved))
            plain = tuple(i for i in clear if self.plans[i].shape != "indexed")
            indexed = tuple(i for i in clear if self.plans[i].shape == "indexed")
            found = self._on[kinds] = (plain, indexed, tuple(x[0] for x in units), tuple(units),
                                       tuple(x[0] for x in near), tuple(near))
        return found


class Memos:
    """The memoized values of one game's rules (one per `Context`), and their invalidation."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.plans = layout.plans
        self.watch = layout.watch
        self.values: list[dict] = [{} for _ in layout.plans]
        self.index: list[tuple] = [tuple({} for _ in range(n)) if n else () for n in layout.index_sizes]
        self.last: dict[str, object] = {}  # derived global -> its value when last evaluated

    def copy(self) -> "Memos":
        """An independent copy (a lookahead's snapshot continues from these values, and its
        changes drop its own copies, never the game's)."""
        new = Memos.__new__(Memos)
        new.layout, new.plans, new.watch = self.layout, self.plans, self.watch
        # A "nested" memo's inner dicts ({slot's argument: {others: entry}}) are shared, not
        # copied: a lookahead evaluating f(x, y) writes into the game's inner dict at x. That is
        # exact. Invalidation never removes an entry from an inner dict: it drops the whole inner
        # dict from its owner's outer dict (pop x, or clear the outer dict). So a context still
        # reaches the shared dict at x only if none of its changes since the copy dropped x, i.e.
        # f(x, .) there is what it was at the copy; every context sharing the dict agrees, and any
        # entry one writes is true of the others (tests/test_memo.py: "shared inner dicts").
        # The entry's version tag is safe too: a lookahead is untraced and tags its entries -1,
        # which a traced game never reuses (generated.py). A *traced* lookahead would break this:
        # its tag (a version number the game may reach by another path) would let a traced game
        # reuse a value whose derivation went to the lookahead's trace; copy the inner dicts then.
        new.values = [dict(v) if v else {} for v in self.values]
        # the index's key tuples are never changed in place (generated.py replaces them): the
        # dicts are copied, the tuples shared (copying lists of keys was a fifth of a greedy turn)
        new.index = [tuple(dict(by_value) for by_value in ix) for ix in self.index]
        new.last = dict(self.last)
        return new

    def clear(self) -> None:
        for values in filter(None, self.values):  # most are empty: skipped in C
            values.clear()
        for index in self.index:
            for by_value in index:
                by_value.clear()
        self.last.clear()

    def recheck(self, ctx, names) -> None:
        """Evaluate derived globals whose reads changed (`names`; all of them after a clear)
        again; a new value is an event for the rules that read it. Run with the memos synced."""
        derived = self.layout.derived
        if not derived:
            return
        pending = sorted(derived if names is None else names)
        was_tracing, steps = ctx.tracing, ctx.steps
        ctx.tracing = False  # an evaluation of the engine's own, not of a rule being explained
        try:
            while pending:
                name = pending.pop(0)
                try:
                    value = derived[name][1](ctx)
                except RuleError:
                    # undefined in this state (a lookup by turn past its table: a game's position
                    # after its last turn): the rules that read it fail where they read it, with
                    # its located error; a new marker each time, so its readers are always dropped
                    value = _Undefined()
                old = self.last.get(name, _UNSET)
                self.last[name] = value
                if old is not _UNSET and (old != value or type(old) is not type(value)):
                    kind = "fn:" + name
                    self.invalidate(((kind,), (), None), ctx.state)
                    pending.extend(n for n in self.watch.get(kind, ()) if n not in pending)
        finally:
            ctx.tracing, ctx.steps = was_tracing, steps

    def changed_derived(self, kinds) -> set:
        """The derived globals that read one of `kinds`."""
        watch = self.watch
        return {n for k in kinds for n in watch.get(k, ())}

    def _clear_rule(self, i: int) -> None:
        self.values[i].clear()
        for by_value in self.index[i]:
            by_value.clear()

    def invalidate(self, event, state) -> None:
        """Drop what one journal event (kinds, locations, unit id) may have changed."""
        kinds, where, uid = event
        if not kinds:
            return
        if EVERYTHING in kinds:
            self.clear()
            return
        plain, indexed, unit_rules, units, near_rules, near = self.layout.on(kinds)
        all_values, all_index = self.values, self.index
        get = all_values.__getitem__
        # most rules a change concerns hold no value: they are skipped by C loops (filter, compress)
        for values in filter(None, map(get, plain)):
            values.clear()
        for i in indexed:
            if all_values[i]:
                self._clear_rule(i)
        if uid is not None and unit_rules:
            ref = UnitRef(uid)
            for i, slots, keyed in compress(units, map(get, unit_rules)):
                values = all_values[i]
                if keyed:  # the unit is the key
                    values.pop(ref, None)
                    continue
                index = all_index[i]
                for slot in slots:
                    keys = index[slot].pop(ref, None)
                    if keys:
                        for key in keys:
                            values.pop(key, None)
        if not near:
            return
        # a change that names no location (a side's variable...) is a change everywhere; a
        # unit's change names where the unit was and is (none for a unit off the map)
        nowhere = uid is None and not where
        at = state.at
        for i, keyed, anchors in compress(near, map(get, near_rules)):
            values = all_values[i]
            if nowhere:
                self._clear_rule(i)
                continue
            index = all_index[i]
            for slot, balls, unit in anchors:
                by_value = values if keyed else index[slot]
                if not by_value:
                    continue
                for h in where:
                    for x in (balls[h] if balls is not None else (h,)):
                        if unit:
                            for other in at.get(x, ()):
                                keys = by_value.pop(UnitRef(other), None)
                                if keys and not keyed:
                                    for key in keys:
                                        values.pop(key, None)
                        else:
                            keys = by_value.pop(x, None)
                            if keys and not keyed:
                                for key in keys:
                                    values.pop(key, None)

    def audit(self, ctx, bodies: dict) -> list[str]:
        """Re-evaluate every remembered value with the rule's plain body (`bodies`: rule name ->
        B function) and return the differences, as text (tests use this to check the
        invalidation is exact)."""
        wrong = []
        for plan, values in zip(self.plans, self.values):
            body = bodies.get(plan.name)
            if body is None:
                continue
            for args, (value, _) in list(entries(plan, values)):
                again = body(ctx, *args)
                if again != value or type(again) is not type(value):
                    wrong.append(f"{plan.name}{args}: remembered {value!r}, now {again!r}")
        return wrong


def entries(plan: Plan, values: dict):
    """(arguments, entry) of every value a rule's memo holds, whatever its shape."""
    if plan.shape == "single":
        for x, entry in values.items():
            yield (x,), entry
    elif plan.shape == "nested":
        at = plan.slots[0]
        for x, inner in values.items():
            for rest, entry in inner.items():
                rest = (rest,) if plan.params == 2 else rest
                yield rest[:at] + (x,) + rest[at:], entry
    else:
        yield from values.items()


def rule_decl(game, name: str):
    decl = game.names.get(name)
    if not isinstance(decl, (ast.Quantity, ast.Function)):
        raise KeyError(name)
    return decl
