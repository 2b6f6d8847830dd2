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
from warcodex.interpreter.compiler import Compiler, _arith
from warcodex.interpreter.values import Entity, Region, RuleError, UnitRef

BINDINGS = frozenset({"u", "s", "origin", "from", "to"})
PARAMS = ("u", "s", "origin", "from", "to")  # the order of the compiled properties' arguments
_PARAM_TYPES = ("unit", "side", "location", "location", "location")
_UNKNOWN = object()
_BLOCKED = (True, False)


class MovementMode:
    """A compiled `movement` declaration. Its properties become functions of the bindings in
    order, `f(ctx, u, s, origin, from, to)` (see `Compiler.predicate` and `Compiler.value`): each
    group of conditions is one function that is true when any of them is, in declaration order."""

    def __init__(self, compiler: Compiler, decl: ast.Movement, entity: Entity) -> None:
        self.decl = decl
        self.name = decl.name
        self.entity = entity
        self.always_one_hex = False
        self.cost_terms: list = []  # (label, citations, compiled term, is a quantity): a move's explanation
        self.cost_citations: tuple = ()
        # conditions that do not mention `from` are evaluated once per location in a search,
        # not once per edge. Costs and prohibitions that read only the board, the unit's type
        # and global variables (weather...) are kept for the whole game: one table of edge
        # costs (None where a static prohibition forbids the step) and one of blocked locations,
        # under a key of exactly what they read
        allowance = cost = None
        prohibited, stops, prohibited_at, stops_at = [], [], [], []
        static_prohibited, static_prohibited_at = [], []  # per edge and per location, board-static
        self.cost_reads: tuple | None = None
        self.location_reads: tuple = ()
        self.cost_key = self.location_key = (None, ())
        self.watch = None  # what its searches read, and where (search_memo.py)
        analysis = compiler.engine.deps
        # a backward trace (`trace_back`) does not know where a path starts: refused if read
        self.reads_origin = any(prop.value is not None and "origin" in free_names(prop.value) for prop in decl.props)
        cost_deps = None
        edge_static_reads: set[str] = set()
        location_static_reads: set[str] = set()
        for prop in decl.props:
            per_location = prop.value is None or "from" not in free_names(prop.value)
            if prop.key == "allowance":
                allowance = prop.value
            elif prop.key == "cost":
                cost = prop.value
                cost_deps = analysis.expression(prop.value, BINDINGS)
                self.cost_terms = _cost_terms(compiler, prop.value)
                self.cost_citations = tuple(prop.citations)
            elif prop.key == "prohibited":
                deps = analysis.expression(prop.value, BINDINGS) if prop.value is not None else None
                static = deps is not None and deps.level == "static"
                if per_location:
                    (static_prohibited_at if static else prohibited_at).append(prop.value)
                    if static:
                        location_static_reads |= deps.reads
                else:
                    (static_prohibited if static else prohibited).append(prop.value)
                    if static:
                        edge_static_reads |= deps.reads
            elif prop.key == "stop":
                (stops_at if per_location else stops).append(prop.value)
            elif prop.key == "always_one_hex":
                self.always_one_hex = bool(prop.value is None or getattr(prop.value, "value", True))
            else:
                raise RuleError(f"unknown movement property '{prop.key}' (allowance, cost, prohibited, stop, always_one_hex)", prop.span)
        if allowance is None:
            raise RuleError(f"movement '{self.name}' needs an `allowance:`", decl.span)
        # a cost that is a sum of board-static terms and others (`move_cost(u, from, to) +
        # exit_cost(u, from, origin)`): the static terms go in the edge table, the others are
        # added at each step (exact arithmetic: the order of the terms does not change the sum)
        rest = None
        if cost_deps is not None and cost_deps.level != "static":
            terms = _addends(cost)
            static = [t for t in terms if analysis.expression(t, BINDINGS).level == "static"]
            if static and len(static) < len(terms):
                rest = _sum([t for t in terms if not any(t is x for x in static)])
                cost = _sum(static)
                cost_deps = analysis.expression(cost, BINDINGS)
        if cost_deps is not None and cost_deps.level != "static":
            # no edge table: the board-static prohibitions are judged with the others (a cost that
            # reads where units are changes with every move, so it is never kept either)
            prohibited = static_prohibited + prohibited
            static_prohibited = []
        else:
            self.cost_reads = tuple(sorted(edge_static_reads | (cost_deps.reads if cost_deps is not None else set())))
            self.cost_key = _table_key(compiler.engine, [cost] + static_prohibited, self.cost_reads)
        self.location_reads = tuple(sorted(location_static_reads))
        self.location_key = _table_key(compiler.engine, static_prohibited_at, self.location_reads)
        params = PARAMS
        self.allowance = compiler.value(allowance, params)
        self.cost = compiler.value(cost, params) if cost is not None else None
        self.cost_extra = compiler.value(rest, params) if rest is not None else None
        self.cost_span = rest.span if rest is not None else None

        def group(exprs):
            return compiler.predicate(exprs, params) if exprs else None
        self.prohibited, self.stops = group(prohibited), group(stops)
        self.prohibited_at, self.stops_at = group(prohibited_at), group(stops_at)
        # per-location conditions that read only where a step enters and the side (`to`, `s`)
        # are the same for every search of a side: remembered across searches (search_memo.py)
        self.at_exprs = prohibited_at + stops_at + static_prohibited_at
        self.at_shared = not any(free_names(e) & {"u", "origin", "from"} for e in self.at_exprs if e is not None)
        self.at_watch = None
        self.static_prohibited, self.static_prohibited_at = group(static_prohibited), group(static_prohibited_at)

    def _game_table(self, ctx, kind: str, key, unit: UnitRef | None, side) -> dict | None:
        """The game-long table of `kind` for this unit (its side, and the facts of its type the
        static properties read, or its type) under the current values of the globals they read
        (`key`: see `_table_key`)."""
        state = ctx.state
        u = state.units.get(unit.id) if unit is not None else None
        facts, kinds = key
        if u is None or facts == ():  # a trace, or rules that read nothing of the unit: per side
            who = side.name if u is None else u.side
        elif facts is None:
            who = (u.type, u.side)
        else:
            test, read = ctx.engine.tag_tester, ctx.engine.attribute_reader
            who = (u.side,) + tuple(u.side if f == "side" else u.type if f == "type"
                                    else test(f[4:])(ctx, unit) if f.startswith("tag:") else read(f[5:])(ctx, unit, None)
                                    for f in facts)
        values = tuple(ctx.engine.global_value(ctx, k) for k in kinds)
        try:
            return ctx.engine.static_cache.setdefault((kind, self.name, who, values), {})
        except TypeError:  # an unhashable variable value
            return None

    def _cost_table(self, ctx, unit: UnitRef | None, side) -> dict | None:
        if self.cost_reads is None:
            return None
        return self._game_table(ctx, "edge-costs", self.cost_key, unit, side)

    def _location_table(self, ctx, unit: UnitRef | None, side) -> dict | None:
        if not self.static_prohibited_at:
            return None
        return self._game_table(ctx, "blocked-locations", self.location_key, unit, side)

    def search(self, ctx, start: str, unit: UnitRef | None, side, goals=None, allowance=_UNKNOWN) -> dict[str, tuple]:
        """Cheapest costs from `start`: {location: (cost, previous location, must_stop)}. With
        `goals`, the search stops as soon as one of them is reached (a trace's yes/no question).
        `allowance`: the mode's, when the caller has evaluated it already."""
        board = ctx.engine.board
        with ctx.untraced():  # a search evaluates costs hundreds of times: never trace them
            if allowance is _UNKNOWN:
                allowance = self.allowance(ctx, unit, side, start, start, start)
            best: dict[str, tuple] = {start: (0, None, False)}
            heap = [(0, 0, start)]
            counter = 1
            prohibited, stops = self.prohibited, self.stops
            costs = self._cost_table(ctx, unit, side)
            blocked = self._location_table(ctx, unit, side)
            at_location = self._at_table(ctx, side)
            neighbors = board.neighbors
            at, table_step, tick, one_hex = self._at, self._table_step, ctx.tick_many, self.always_one_hex
            rest, span = self.cost_extra, self.cost_span
            pop, push = heapq.heappop, heapq.heappush
            table = costs if costs is not None else {}  # no game-long table: one for this search
            while heap:
                spent, _, loc = pop(heap)
                entry = best[loc]
                if spent > entry[0] or (entry[2] and loc != start):
                    continue
                around = neighbors(loc)
                tick(len(around), None)  # one step an edge
                for nxt in around:
                    # the cheap tests first: the cost (a table), the allowance, an improvement;
                    # the conditions (pure) only for a step that would be taken
                    step = table.get((loc, nxt), _UNKNOWN)
                    try:
                        if step is _UNKNOWN:
                            step = table_step(ctx, unit, side, start, table, loc, nxt)
                        if step is None:
                            continue
                        if rest is not None:  # the cost's terms that are not in the table
                            more = rest(ctx, unit, side, start, loc, nxt)
                            step = step + more if type(step) is int and type(more) is int else _arith("+", step, more, span)
                    except RuleError:
                        if self._forbids(ctx, unit, side, start, loc, nxt, blocked):
                            continue
                        raise
                    total = spent + step
                    beyond = total > allowance
                    if beyond:
                        # "always one hex": from the start, with the full allowance unspent
                        if not (one_hex and loc == start and nxt not in best):
                            continue
                        total = allowance
                    old = best.get(nxt)
                    if old is not None and total >= old[0]:
                        continue
                    here = at_location.get(nxt)
                    if here is None:
                        here = at_location[nxt] = at(ctx, unit, side, start, loc, nxt, blocked)
                    if here[0]:
                        continue
                    if prohibited is not None and prohibited(ctx, unit, side, start, loc, nxt):
                        continue
                    must_stop = beyond or here[1] or (stops is not None and stops(ctx, unit, side, start, loc, nxt))
                    best[nxt] = (total, loc, must_stop)
                    if goals is not None and nxt in goals:
                        return best
                    push(heap, (total, counter, nxt))
                    counter += 1
            return best

    def _remembered(self, ctx):
        """The context's search memo if this mode's searches may be remembered across versions
        (what they read, and where, is found when first asked: `search_memo.mode_watch`)."""
        return ctx.search_memo() if self._watch(ctx).cacheable else None

    def _watch(self, ctx):
        """What this mode's searches read, and where, found when first asked (`search_memo.mode_watch`)."""
        watch = self.watch
        if watch is None:
            from warcodex.interpreter.search_memo import mode_watch

            watch = self.watch = mode_watch(ctx.engine, self.decl, list(zip(PARAMS, _PARAM_TYPES)))
        return watch

    def _at_table(self, ctx, side) -> dict:
        """The dict a search keeps the per-location conditions it evaluated in: shared by every
        search of the side until a change they read (when they read only `to` and `s`); in a
        context that remembers no searches (a lookahead's, the reference evaluator's), by the
        searches of the side at one state version; else one for this search."""
        if not self.at_shared:
            return {}
        watch = self.at_watch
        if watch is None:
            from warcodex.interpreter.search_memo import watch_of

            watch = self.at_watch = watch_of(ctx.engine, f"movement {self.name} at", self.at_exprs, list(zip(PARAMS, _PARAM_TYPES)))
        if not watch.cacheable:
            return {}  # the conditions roll dice or read hidden information: evaluated every time
        memo = ctx.search_memo()
        if memo is not None:
            return memo.location_table((self.name, side.name), watch)
        # A lookahead's evaluation traces a LOS from every unit's hex, a search each (the
        # greedy Axis of Stalingrad '42: 60 a lookahead), and neighbouring traces enter the same
        # hexes: with a table a search, each evaluated the same conditions again. The conditions
        # read the state and `to` and `s` only, so at one state version they hold for every
        # search of the side (a version's table, as the movement searches of `reachable`).
        state = ctx.state
        key = ("at", self.name, side.name)
        found = ctx.cache.get(key)
        if found is None or found[0] != state.version or found[1] is not state:
            found = ctx.cache[key] = (state.version, state, {})
        return found[2]

    def reachable(self, ctx, unit: UnitRef) -> dict[str, tuple]:
        state = ctx.state
        if self._watch(ctx).cacheable:
            # the searches of this state version, in one table replaced at the next version (a
            # table a version, not a key a version: a game's context kept every search it ever
            # made); a lookahead's context starts from the game's (Context.carry_memos): its
            # action's own move finds the search the enumeration of its candidates made
            key = (self.name, unit.id)
            found = ctx.cache.get("reach")
            if found is None or found[0] != state.version:
                found = ctx.cache["reach"] = (state.version, {})
            cached = found[1].get(key)
            table = found[1]
        else:  # a mode that rolls dice or reads hidden information: per context, never carried
            key = ("reach", self.name, unit.id, state.version)
            cached = ctx.cache.get(key)
            table = ctx.cache
        if cached is not None:
            return cached
        u = state.units[unit.id]
        if u.loc is None:
            return {}
        side = ctx.engine.entities[u.side]
        memo = self._remembered(ctx)
        if memo is not None:
            # the allowance is compared by value: what it reads is read once, not at each step
            with ctx.untraced():
                allowance = self.allowance(ctx, unit, side, u.loc, u.loc, u.loc)
            long_key = ("reach", self.name, unit.id, u.loc)
            result = memo.get(long_key, allowance)
            if result is None:
                best = self.search(ctx, u.loc, unit, side, allowance=allowance)
                result = {k: v for k, v in best.items() if k != u.loc}
                memo.put(long_key, result, allowance, self.watch, best, unit.id)
        else:
            result = self.search(ctx, u.loc, unit, side)
            result = {k: v for k, v in result.items() if k != u.loc}
        table[key] = result
        return result

    def explain_steps(self, ctx, unit: UnitRef, path: list[str]) -> list:
        """The cost of each step of a path, term by term, each with its sections: what a player
        checks a move with (0605 -> 0606: 3, the terrain 1 and leaving an enemy ZOC +2, each with
        its rule). Terms that add nothing (no ZOC to leave) are left out."""
        from warcodex.interpreter.values import Derivation

        u = ctx.state.units[unit.id]
        side = ctx.engine.entities[u.side]
        out = []
        for a, b in zip(path, path[1:]):
            args = (unit, side, path[0], a, b)  # PARAMS: u, s, origin, from, to
            parts = []
            for label, cites, term, traced in self.cost_terms:
                if traced:  # a quantity explains itself: base, modifiers, sections
                    value, shown = ctx.collect(lambda: term(ctx, *args))
                elif label is None:  # a number: the step's own line says it
                    value, shown = term(ctx, *args), []
                else:
                    value, inner = ctx.collect(lambda: term(ctx, *args))
                    shown = [Derivation(f"{label} = {_show(value)}", value, cites, inner)]
                parts.append((value, shown))
            total = sum(v for v, _ in parts if v is not None) if all(v is not None for v, _ in parts) else None
            kept = [d for v, shown in parts if v not in (0, None) for d in shown] or [d for d in parts[0][1]]
            out.append(Derivation(f"{a} -> {b}: {_show(total)}", total, self.cost_citations, kept))
        return out

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

    def region(self, ctx, seeds, side: Entity, span=None, limit=None) -> Region:
        """Every location a trace reaches from any of `seeds` (each path's `origin` is the seed it
        came from): a supply network traced once from all its sources. `limit`, when given,
        replaces the mode's allowance."""
        with ctx.untraced():
            first = seeds[0]
            allowance = self.allowance(ctx, None, side, first, first, first) if limit is None else limit
            memo = self._remembered(ctx)
            key = ("region", self.name, tuple(seeds), side.name, limit is None)
            if memo is not None:
                found = memo.get(key, allowance)
                if found is not None:
                    return found
            elif self._watch(ctx).cacheable:  # a lookahead's: the game's region, if its move left it alone
                found = ctx.inherited_search(key, allowance)
                if found is not None:
                    return found
            best, heap = _seeded(seeds, lambda h: (0, h, False))  # (cost, origin, must stop)
            counter = len(heap)
            at_location = self._at_table(ctx, side)
            costs, blocked = self._cost_table(ctx, None, side), self._location_table(ctx, None, side)
            table = costs if costs is not None else {}  # no game-long table: one for this search
            table_step, rest, rest_span = self._table_step, self.cost_extra, self.cost_span
            neighbors = ctx.engine.board.neighbors
            prohibited, stops, at = self.prohibited, self.stops, self._at
            pop, push, tick = heapq.heappop, heapq.heappush, ctx.tick_many
            while heap:
                spent, _, loc = pop(heap)
                entry = best[loc]
                if spent > entry[0] or (entry[2] and entry[1] != loc):
                    continue
                origin = entry[1]
                around = neighbors(loc)
                tick(len(around), span)  # one step an edge
                for nxt in around:
                    # the cheap tests first, `_guarded_step` inlined (as in `search`); the
                    # pure conditions last
                    step = table.get((loc, nxt), _UNKNOWN)
                    try:
                        if step is _UNKNOWN:
                            step = table_step(ctx, None, side, origin, table, loc, nxt)
                        if step is None:
                            continue
                        if rest is not None:  # the cost's terms that are not in the table
                            more = rest(ctx, None, side, origin, loc, nxt)
                            step = step + more if type(step) is int and type(more) is int else _arith("+", step, more, rest_span)
                    except RuleError:
                        if self._forbids(ctx, None, side, origin, loc, nxt, blocked):
                            continue
                        raise
                    total = spent + step
                    if allowance is not None and total > allowance:
                        continue
                    old = best.get(nxt)
                    if old is not None and total >= old[0]:
                        continue
                    here = at_location.get(nxt)
                    if here is None:
                        here = at_location[nxt] = at(ctx, None, side, origin, loc, nxt, blocked)
                    if here[0]:
                        continue
                    if prohibited is not None and prohibited(ctx, None, side, origin, loc, nxt):
                        continue
                    must_stop = here[1] or (stops is not None and stops(ctx, None, side, origin, loc, nxt))
                    best[nxt] = (total, origin, must_stop)
                    push(heap, (total, counter, nxt))
                    counter += 1
            order = ctx.engine.board.index
            region = Region(sorted(best, key=order.__getitem__))
            if memo is not None:
                memo.put(key, region, allowance, self.watch, best)
            elif self.watch.cacheable:
                ctx.share_search(key, region, allowance, self.watch, best)
            return region

    def region_back(self, ctx, targets, side: Entity, span=None) -> Region:
        """Every location from which a trace reaches one of `targets` (the targets included): the
        same answer as `traceable(mode, h, targets, s)` for every h, found by one search run
        backwards from the targets (edge `w -> v` is judged exactly as the forward search would
        judge it, with `from` = w and `to` = v)."""
        if self.reads_origin:
            raise RuleError(f"trace_back cannot use movement '{self.name}': it reads `origin`, and a backward trace does not know where a path starts", span)
        if self.always_one_hex:
            raise RuleError(f"trace_back cannot use movement '{self.name}': `always_one_hex` depends on where a path starts", span)
        goals = frozenset(targets)
        with ctx.untraced():
            allowance = self.allowance(ctx, None, side, None, None, None)
            best, heap = _seeded(targets, lambda h: 0)  # cost to reach a target
            counter = len(heap)
            at_location = self._at_table(ctx, side)
            costs, blocked = self._cost_table(ctx, None, side), self._location_table(ctx, None, side)
            neighbors = ctx.engine.board.neighbors
            prohibited, stops, at, step_cost = self.prohibited, self.stops, self._at, self._guarded_step
            while heap:
                spent, _, loc = heapq.heappop(heap)
                if spent > best[loc]:
                    continue
                # `loc` is entered by the step towards it: judged once per location
                here = at_location.get(loc)
                if here is None:
                    here = at_location[loc] = at(ctx, None, side, None, None, loc, blocked)
                if here[0] or (here[1] and loc not in goals):
                    continue  # cannot be entered, or entered only to stop short of a target
                around = neighbors(loc)  # on a hex or area map, adjacency is symmetric
                ctx.tick_many(len(around), span)  # one step an edge
                for prev in around:
                    # the cheap tests first (as in `search`); the pure conditions last
                    step = step_cost(ctx, None, side, None, costs, prev, loc, blocked)
                    if step is None:
                        continue
                    total = spent + step
                    if allowance is not None and total > allowance:
                        continue
                    old = best.get(prev)
                    if old is not None and total >= old:
                        continue
                    if prohibited is not None and prohibited(ctx, None, side, None, prev, loc):
                        continue
                    if loc not in goals and stops is not None and stops(ctx, None, side, None, prev, loc):
                        continue
                    best[prev] = total
                    heapq.heappush(heap, (total, counter, prev))
                    counter += 1
            order = ctx.engine.board.index
            return Region(sorted(best, key=order.__getitem__))

    def _at(self, ctx, u, s, origin, from_, loc: str, blocked: dict | None) -> tuple[bool, bool]:
        """(prohibited, must stop) for entering `loc`, from the conditions that ignore `from`;
        the board-static prohibitions come from the game-long table when there is one."""
        static = self.static_prohibited_at
        if static is not None:
            if blocked is None:
                no = static(ctx, u, s, origin, from_, loc)
            else:
                no = blocked.get(loc)
                if no is None:
                    no = blocked[loc] = static(ctx, u, s, origin, from_, loc)
            if no:
                return _BLOCKED
        prohibited, stops = self.prohibited_at, self.stops_at
        return ((prohibited is not None and prohibited(ctx, u, s, origin, from_, loc)),
                (stops is not None and stops(ctx, u, s, origin, from_, loc)))

    def _step(self, ctx, u, s, origin, costs: dict | None, a: str, b: str):
        """The cost of the step a -> b, None when a board-static prohibition forbids it; from the
        game-long edge table when there is one. (The search loops inline the table's hit.)"""
        if costs is not None:
            step = costs.get((a, b), _UNKNOWN)
            if step is _UNKNOWN:
                step = self._table_step(ctx, u, s, origin, costs, a, b)
        else:
            step = self._table_step(ctx, u, s, origin, None, a, b)
        if self.cost_extra is not None and step is not None:  # the cost's terms that are not in the table
            rest = self.cost_extra(ctx, u, s, origin, a, b)
            step = step + rest if type(step) is int and type(rest) is int else _arith("+", step, rest, self.cost_span)
        return step

    def _guarded_step(self, ctx, u, s, origin, costs: dict | None, a: str, b: str, blocked):
        """`_step` in a search that tests the cost before the conditions: a cost that cannot be
        computed (a table's `-` plus a modifier...) on a step the conditions forbid is no error."""
        try:
            return self._step(ctx, u, s, origin, costs, a, b)
        except RuleError:
            if self._forbids(ctx, u, s, origin, a, b, blocked):
                return None
            raise

    def _forbids(self, ctx, u, s, origin, a: str, b: str, blocked) -> bool:
        """True if the step a -> b is prohibited (at `b`, or on the edge). Searches test a step's
        cost first and its conditions only for a step they would take (the conditions are pure,
        so the same paths are found); a cost that fails is judged here, so that a forbidden
        step's cost is never an error, as when the conditions came first."""
        return self._at(ctx, u, s, origin, a, b, blocked)[0] or (
            self.prohibited is not None and bool(self.prohibited(ctx, u, s, origin, a, b)))

    def _table_step(self, ctx, u, s, origin, costs: dict | None, a: str, b: str):
        """The board-static part of a step's cost (what the edge table holds), computed."""
        static = self.static_prohibited
        if static is not None and static(ctx, u, s, origin, a, b):
            step = None
        else:
            step = 1 if self.cost is None else self.cost(ctx, u, s, origin, a, b)
        if costs is not None:
            costs[(a, b)] = step
        return step

    def traceable(self, ctx, start: str, targets, side: Entity) -> bool:
        """Whether a trace from `start` reaches one of `targets`. Remembered as `reachable` and
        `region` are (search_memo.py), the targets part of the key: an evaluation traces a LOS
        from every unit's hex (Stalingrad '42's "combat steps out of supply", §16.3.2) in the
        game and in every lookahead, and a move changes few of them."""
        goals = targets if isinstance(targets, Region) else frozenset(targets)
        if start in goals:
            return True
        if not self._watch(ctx).cacheable:
            best = self.search(ctx, start, None, side, goals)
            return any(loc in goals for loc in best)
        with ctx.untraced():
            allowance = self.allowance(ctx, None, side, start, start, start)
        key = ("trace", self.name, start, side.name, goals)
        memo = self._remembered(ctx)
        found = memo.get(key, allowance) if memo is not None else ctx.inherited_search(key, allowance)
        if found is not None:
            return found
        best = self.search(ctx, start, None, side, goals, allowance=allowance)
        reached = any(loc in goals for loc in best)
        if memo is not None:
            memo.put(key, reached, allowance, self.watch, best)
        else:
            ctx.share_search(key, reached, allowance, self.watch, best)
        return reached


def _seeded(starts, label) -> tuple[dict, list]:
    """The labels and the Dijkstra heap of a multi-source search: every distinct start at cost 0,
    in the order given (the heap is already ordered: equal costs, rising counters)."""
    best: dict = {}
    heap: list = []
    for i, h in enumerate(starts):
        if h not in best:
            best[h] = label(h)
            heap.append((0, i, h))
    return best, heap


def _addends(expr) -> list:
    """The terms of a sum, left to right (`a + b + c`: a, b, c); any other expression is one."""
    if isinstance(expr, ast.BinOp) and expr.op == "+":
        return _addends(expr.left) + _addends(expr.right)
    return [expr]


def _sum(terms: list):
    """The sum of terms, as an expression (left to right)."""
    out = terms[0]
    for t in terms[1:]:
        out = ast.BinOp(op="+", left=out, right=t, span=t.span)
    return out


def _table_key(engine, exprs: list, reads: tuple):
    """What a game-long table of board-static properties is kept under: (the facts of the unit's
    type they read, or None: its type; the global kinds they read), from reads.py, so that unit
    types that differ in nothing they read share a table; or (None, the globals dependencies.py
    found) when reads.py cannot say."""
    from warcodex.interpreter.reads import is_global_kind

    found = [engine.reads.expression(e, list(zip(PARAMS, _PARAM_TYPES))) for e in exprs if e is not None]
    kinds = set().union(*(r.everywhere for r in found)) if found else set()
    if any(r.near or r.units for r in found) or not all(is_global_kind(k) for k in kinds):
        return None, tuple("var:" + n for n in reads)
    facts = set()
    for r in found:
        for i, f in r.facts:
            if i == 0:
                if f is None:
                    facts = None
                    break
                facts |= f
        if facts is None:
            break
    scenario = ("var:scenario",) if "scenario" in reads else ()
    return (None if facts is None else tuple(sorted(facts))), tuple(sorted(kinds)) + scenario


def _cost_terms(compiler: Compiler, expr) -> list:
    """The addends of a mode's `cost` (`move_cost(u, from, to) + exit_cost(u, from, origin)`),
    each compiled alone, with the label and sections a player reads for it."""
    from warcodex.dsl.formatter import format_expr

    out = []
    for t in _addends(expr):
        decl = compiler.engine.game.names.get(t.func) if isinstance(t, ast.Call) else None
        traced = isinstance(decl, ast.Quantity)
        if decl is not None:
            label, cites = decl.header.label or decl.name, tuple(decl.header.citations)
        elif isinstance(t, ast.Num):
            label, cites = None, ()
        else:
            label, cites = format_expr(t), ()
        out.append((label, cites, compiler.value(t, PARAMS), traced))
    return out


def _show(v) -> str:
    if isinstance(v, Fraction):
        return str(v) if v.denominator != 1 else str(v.numerator)
    return "none" if v is None else str(v)
