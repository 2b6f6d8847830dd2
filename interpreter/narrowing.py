"""Scans of the whole map or of every unit narrowed to the candidates of a tag test.

    count(h for h in locations() where (h is fortification_built or h is fortification_building)
          and h.fort_owner == s)
    any(v is garrison and not v.garrison_free for v in all_units())
    for h in locations() { if h is fortification_building and h.fort_owner == s { ... } }
    list(v for v in all_units() where v is garrison and not v.garrison_free)

A `where` (the element too, for `any`; for a `for`, the test of an `if` that is its
whole body) that can only hold for an element with one of some
tags visits only the elements that may have one: for locations, those whose terrain or features
have the tag (the board's `locations_with`, found once) and those that carry it as a marker (the
state's index of locations by marker, `state.MarkerIndex`); for units, those whose type has the
tag or whose side it is, when no unit can carry it as a marker (`unit_markers`). The condition is
still evaluated on each candidate, in the same (board or state) order as the full scan, so the
value is the same; only the elements that fail it are not visited. A step budget counts one step
per element visited, so a narrowed scan counts fewer steps.

A `for` statement's body may put a marker on a location it has not reached yet: the walk then
finds the candidates after the current location again (`walk_tagged_locations`), as the full scan
would test that location when it reaches it.

When the state is a recording view (exact odds note every read, readlog.py), the full scan is
used: its reads are what the memo keys on.
"""

from __future__ import annotations

from warcodex.dsl import ast
from warcodex.dsl.walk import walk
from warcodex.interpreter.state import MarkerIndex
from warcodex.interpreter.values import UnitRef

_REFS = UnitRef._interned


def required_tags(cond: ast.Expr | None, var: str) -> frozenset | None:
    """Tags of which `var` must have one for `cond` to hold (`var is T`, or several joined by
    `or`, as a term of an `and`), or None when `cond` says nothing of the kind."""
    if cond is None:
        return None
    if isinstance(cond, ast.Is):
        ok = not cond.negated and isinstance(cond.obj, ast.Name) and cond.obj.id == var
        return frozenset((cond.tag,)) if ok else None
    if isinstance(cond, ast.Or):
        left, right = required_tags(cond.left, var), required_tags(cond.right, var)
        return left | right if left is not None and right is not None else None
    if isinstance(cond, ast.And):
        left, right = required_tags(cond.left, var), required_tags(cond.right, var)
        if left is None or right is None:
            return left if right is None else right
        return left if len(left) <= len(right) else right
    return None


def narrowed(engine, source: ast.Expr, var: str, cond: ast.Expr | None):
    """("locations" | "units", tags) when a scan of `source` whose elements must pass `cond`
    can visit the candidates of tags only, else None. `source` is the built-in `locations()` or
    `all_units()` (a game's own function of that name is not)."""
    if not (isinstance(source, ast.Call) and not source.args and not source.kwargs):
        return None
    if source.func not in ("locations", "all_units") or source.func in engine.game.names:
        return None
    tags = required_tags(cond, var)
    if not tags:
        return None
    if source.func == "locations":
        return "locations", tuple(sorted(tags))
    if not unit_markers(engine).isdisjoint(tags):
        return None  # a unit may carry the tag as a marker: every unit must be tested
    return "units", tuple(sorted(tags))


def comprehension_condition(e: ast.Comprehension) -> ast.Expr | None:
    """The condition an element must meet to count in an aggregate: its `where`, and for `any`
    its element too (a false element changes nothing). Not for `count`: exact odds count the
    hits of dice element by element (compiler.grouped_count)."""
    if e.func == "any":
        if e.where is None:
            return e.element
        return ast.And(left=e.where, right=e.element, span=e.span)
    return e.where


def for_condition(stmt: ast.For) -> ast.Expr | None:
    """The condition every iteration of a `for` that does something must meet: the test of an
    `if` that is the whole body and has no `else`."""
    body = stmt.body
    if len(body) == 1 and isinstance(body[0], ast.If) and not body[0].orelse:
        return body[0].test
    return None


def unit_markers(engine) -> frozenset:
    """The markers a unit may carry: every declared marker (set-ups and saves hold declared
    markers only); with a `mark` whose marker is not written as a name, anything (the tag of a
    unit type then never narrows a scan of units)."""
    found = engine.__dict__.get("_unit_markers")
    if found is None:
        declared = frozenset(e.name for e in engine.game.entities("marker"))
        rules = list(engine.game.decls) + list(engine.game.scenarios.values()) + list(engine.game.triggers)

        def unnamed_marker(n) -> bool:  # a built-in mark/unmark whose marker is not a declared name
            if not (isinstance(n, ast.Call) and n.func in ("mark", "unmark") and n.func not in engine.game.names):
                return False
            marker = n.args[1] if len(n.args) > 1 else None
            return not (isinstance(marker, ast.Name) and marker.id in declared)

        found = _ANYTHING if any(unnamed_marker(n) for n in walk(rules)) else declared
        engine.__dict__["_unit_markers"] = found
    return found


class _Anything(frozenset):
    """Every name: disjoint from no set of tags."""

    def isdisjoint(self, other) -> bool:
        return False


_ANYTHING = _Anything()


# ---------------------------------------------------------------- at run time
def marker_index(state) -> MarkerIndex | None:
    """The state's locations by marker, made from its plain dict the first time (a save loaded,
    a snapshot...); None for a recording view (readlog.py), whose reads must all be noted."""
    markers = state.loc_markers
    if type(markers) is MarkerIndex:
        return markers
    if type(markers) is dict:
        markers = state.loc_markers = MarkerIndex(markers)
        return markers
    return None


def tagged_locations(ctx, tags: tuple) -> tuple:
    """The locations that have one of `tags` (terrain, feature or marker), in board order; every
    location when the state's markers are a recording view."""
    engine = ctx.engine
    index = marker_index(ctx.state)
    if index is None:
        return engine.board.locations
    static = engine.locations_with_any(tags)
    by_marker = index.by_marker
    marked = [by_marker[t] for t in tags if by_marker.get(t)]
    if not marked:
        return static
    return tuple(sorted(set(static).union(*marked), key=engine.board.index.__getitem__))


def walk_tagged_locations(ctx, tags: tuple):
    """`tagged_locations` for a `for` statement whose body may mark locations: after a location
    gained a marker, the candidates after the current location are found again."""
    seq = tagged_locations(ctx, tags)
    state = ctx.state
    index = marker_index(state)
    if index is None:
        yield from seq
        return
    order = ctx.engine.board.index
    added = index.added
    i = 0
    while i < len(seq):
        here = seq[i]
        yield here
        if state.loc_markers is not index or index.added != added:
            after = order[here]
            seq = tuple(h for h in tagged_locations(ctx, tags) if order[h] > after)
            index = marker_index(state)
            if index is None:  # the markers became a view: the rest of the board, as it is
                yield from (h for h in ctx.engine.board.locations if order[h] > after)
                return
            added = index.added
            i = 0
        else:
            i += 1


def tagged_units(ctx, tags: tuple) -> tuple:
    """The units on the map (`all_units()`, in its order) whose type has one of `tags` or whose
    side is one (a unit type's tag may depend on its steps: the condition tests it again)."""
    from warcodex.interpreter.builtins import b_all_units

    every = b_all_units(ctx, None)
    state = ctx.state
    units = state.units
    if type(units) is not dict:
        return every
    key = ("tagged_units", tags)
    found = ctx.cache.get(key)
    if found is not None and found[0] is every:
        return found[1]
    types = ctx.engine.unit_types_with_any(tags)
    value = tuple([r for r in every if (u := units[r.id]).type in types or u.side in tags])
    ctx.cache[key] = (every, value)
    return value
