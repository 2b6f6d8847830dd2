"""Movement modes: path movement with costs, prohibitions and stops, from a `movement` declaration.

    movement ground "Ground movement" §5 {
      allowance: u.move            # movement points (or hexes) available
      cost: move_cost(u, from, to) # cost to enter `to` from `from`; none = cannot enter
      prohibited: ...              # any number of conditions; true = cannot enter `to`
      stop: ...                    # true = may enter `to` but must stop there (e.g. enemy ZOC)
      always_one_hex: true         # a unit may always move one hex, whatever the cost
    }

Properties see `u` (the unit; none for traces), `s` (its side), `origin` (where the move started),
`from` and `to`. The same declaration serves traces (supply lines): `traceable(mode, start,
targets, side)`. Search is Dijkstra over the board's precomputed neighbour lists.
"""

from __future__ import annotations

import heapq
from fractions import Fraction

from warcodex.dsl import ast
from warcodex.interpreter.actions import free_names
from warcodex.interpreter.compiler import Compiler, Frame, read_global
from warcodex.interpreter.values import Entity, RuleError, UnitRef

BINDINGS = frozenset({"u", "s", "origin", "from", "to"})
_UNKNOWN = object()


class MovementMode:
    def __init__(self, compiler: Compiler, decl: ast.Movement, entity: Entity) -> None:
        self.decl = decl
        self.name = decl.name
        self.entity = entity
        self.allowance = None
        self.cost = None
        self.prohibited = []
        self.stops = []
        self.always_one_hex = False
        # conditions that do not mention `from` are evaluated once per location in a search,
        # not once per edge; a cost that reads only the board, the unit's type and global
        # variables becomes a table of edge costs kept for the whole game
        self.prohibited_at: list = []
        self.stops_at: list = []
        self.cost_reads: tuple | None = None
        analysis = compiler.engine.deps
        for prop in decl.props:
            fn = compiler.expr(prop.value, BINDINGS) if prop.value is not None else (lambda fr: True)
            per_location = prop.value is None or "from" not in free_names(prop.value)
            if prop.key == "allowance":
                self.allowance = fn
            elif prop.key == "cost":
                self.cost = fn
                deps = analysis.expression(prop.value, BINDINGS)
                self.cost_reads = None if deps.dynamic else tuple(sorted(deps.reads))
            elif prop.key == "prohibited":
                (self.prohibited_at if per_location else self.prohibited).append(fn)
            elif prop.key == "stop":
                (self.stops_at if per_location else self.stops).append(fn)
            elif prop.key == "always_one_hex":
                self.always_one_hex = bool(prop.value is None or getattr(prop.value, "value", True))
            else:
                raise RuleError(f"unknown movement property '{prop.key}' (allowance, cost, prohibited, stop, always_one_hex)", prop.span)
        if self.allowance is None:
            raise RuleError(f"movement '{self.name}' needs an `allowance:`", decl.span)

    def _cost_table(self, ctx, unit: UnitRef | None, side) -> dict | None:
        if self.cost_reads is None:
            return None
        state = ctx.state
        u = state.units.get(unit.id) if unit is not None else None
        values = tuple(read_global(state, n) for n in self.cost_reads)
        key = ("edge-costs", self.name, (u.type, u.side) if u is not None else side.name, values)
        try:
            return ctx.engine.static_cache.setdefault(key, {})
        except TypeError:  # an unhashable variable value
            return None

    def search(self, ctx, start: str, unit: UnitRef | None, side) -> dict[str, tuple]:
        """Cheapest costs from `start`: {location: (cost, previous location, must_stop)}."""
        board = ctx.engine.board
        fr = Frame(ctx, {"u": unit, "s": side, "origin": start, "from": start, "to": start})
        was_tracing = ctx.tracing
        ctx.tracing = False  # a search evaluates costs hundreds of times: never trace them
        try:
            allowance = self.allowance(fr)
            best: dict[str, tuple] = {start: (0, None, False)}
            heap = [(0, 0, start)]
            counter = 1
            cost_fn, prohibited, stops = self.cost, self.prohibited, self.stops
            prohibited_at, stops_at = self.prohibited_at, self.stops_at
            costs = self._cost_table(ctx, unit, side)
            at_location: dict[str, tuple[bool, bool]] = {}
            neighbors = board.neighbors
            vars = fr.vars
            while heap:
                spent, _, loc = heapq.heappop(heap)
                entry = best[loc]
                if spent > entry[0] or (entry[2] and loc != start):
                    continue
                vars["from"] = loc
                for nxt in neighbors(loc):
                    ctx.tick(None)
                    here = at_location.get(nxt)
                    if here is None:
                        vars["to"] = nxt
                        here = at_location[nxt] = (any(p(fr) for p in prohibited_at), any(s(fr) for s in stops_at))
                    if here[0]:
                        continue
                    vars["to"] = nxt
                    if prohibited and any(p(fr) for p in prohibited):
                        continue
                    if cost_fn is None:
                        step = 1
                    elif costs is not None:
                        step = costs.get((loc, nxt), _UNKNOWN)
                        if step is _UNKNOWN:
                            step = costs[(loc, nxt)] = cost_fn(fr)
                    else:
                        step = cost_fn(fr)
                    if step is None:
                        continue
                    total = spent + step
                    if total > allowance:
                        # "always one hex": from the start, with the full allowance unspent
                        if self.always_one_hex and loc == start and nxt not in best:
                            total = allowance
                            must_stop = True
                        else:
                            continue
                    else:
                        must_stop = here[1] or (bool(stops) and any(s(fr) for s in stops))
                    old = best.get(nxt)
                    if old is None or total < old[0]:
                        best[nxt] = (total, loc, must_stop)
                        heapq.heappush(heap, (total, counter, nxt))
                        counter += 1
            return best
        finally:
            ctx.tracing = was_tracing

    def reachable(self, ctx, unit: UnitRef) -> dict[str, tuple]:
        state = ctx.state
        key = ("reach", self.name, unit.id, state.version)
        cached = ctx.cache.get(key)
        if cached is not None:
            return cached
        u = state.units[unit.id]
        if u.loc is None:
            return {}
        side = ctx.engine.entities[u.side]
        result = self.search(ctx, u.loc, unit, side)
        result = {k: v for k, v in result.items() if k != u.loc}
        ctx.cache[key] = result
        return result

    def path(self, ctx, unit: UnitRef, dest: str, span) -> tuple[list[str], object]:
        """The cheapest path from the unit's location to `dest`, both included, and its cost."""
        reach = self.reachable(ctx, unit)
        if dest not in reach:
            raise RuleError(f"{ctx.engine.unit_name(ctx, unit)} cannot reach {dest} by {self.name} movement", span)
        start = ctx.state.units[unit.id].loc
        path = [dest]
        cost = reach[dest][0]
        prev = reach[dest][1]
        while prev is not None and prev in reach:  # `reach` leaves out the start hex
            path.append(prev)
            prev = reach[prev][1]
        path.append(start)
        path.reverse()  # start, first step, ..., dest
        if isinstance(cost, Fraction) and cost.denominator == 1:
            cost = cost.numerator
        return path, cost

    def traceable(self, ctx, start: str, targets, side: Entity) -> bool:
        goals = set(targets)
        if start in goals:
            return True
        best = self.search(ctx, start, None, side)
        return any(loc in goals for loc in best)
