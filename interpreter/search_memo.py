"""Movement searches remembered until a change they read happens where they read it.

A search (`reachable(u, mode)`, `trace_region(mode, starts, s)`) used to be remembered for one
state version: the supply network traced from every source was traced again after every move,
however far from any road, and a unit's rail destinations after every other unit's move. A
search's answer depends only on what its mode's properties read at the steps it looked at
(`from` a location it expanded, `to` a neighbour of it, `origin` a start, `u` standing at the
start), on the unit's own record, on the global values they read, and on the allowance. So a
search is remembered (one `SearchMemo` per `Context`, beside the rules' memos of `memo.py`) with:

- the *kinds* its mode reads everywhere (`var:weather`, `turn`...: any change of one drops it);
  a derived global (`fn:winter`) counts as the kinds it reads;
- the kinds its mode reads near its anchors (`positions`, `steps`, markers...) and the
  *locations watched*: every location within the mode's radius (reads.py) of a location the
  search expanded or looked at; a change of one of those kinds at a watched location drops it
  (a change that names no location drops it too);
- the unit searched for: any change of its record drops its searches;
- the allowance (or limit) it ran with: evaluated again when the search is asked for, and a
  different value is a new search (the allowance reads the unit's record and other things
  once, not at every step: `movement_allowance(u)` reads the weather).

Everything else about the search is the same as a search run again: Dijkstra visits the same
locations in the same order, as each property it evaluates returns what it returned. Modes whose
properties roll dice, read hidden information or read something reads.py cannot place are not
remembered across versions (`ModeWatch.cacheable`). The reference evaluator keeps the per-version
cache: the differential tests (tests/test_codegen.py) compare the two over whole games.
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.dsl import ast
from warcodex.interpreter.reads import EVERYTHING

MAX_ENTRIES = 512  # the oldest searches are forgotten beyond this (a long phase of few moves)


@dataclass(frozen=True)
class ModeWatch:
    """What a movement mode's search reads, from its properties (the allowance aside: it is
    compared by value). `radius`: how far from `from`, `to`, `origin` or the unit's location
    they read; `everywhere`: kinds whose change anywhere may alter a search; `near`: kinds whose
    change matters only within `radius` of a location the search looked at."""

    cacheable: bool
    everywhere: frozenset = frozenset()
    near: frozenset = frozenset()
    radius: int = 0


def mode_watch(engine, decl: ast.Movement, params: list) -> ModeWatch:
    """The ModeWatch of a `movement` declaration's searches (`params`: its bindings and their
    types): every property but the allowance."""
    return watch_of(engine, f"movement {decl.name}", [p.value for p in decl.props if p.key != "allowance"], params)


def watch_of(engine, label: str, exprs: list, params: list) -> ModeWatch:
    """What evaluating the expressions `exprs` (a mode's properties) reads, and where."""
    everywhere: set[str] = set()
    near: set[str] = set()
    radius = 0
    deps = engine.deps
    for i, expr in enumerate(exprs):
        if expr is None:
            continue
        # a property that rolls or reads hidden information must be evaluated every time
        probe = ast.Function(header=ast.Header(name=f"({label} {i})"), type=None,
                             body=expr, params=[ast.Param(name=n, type=t) for n, t in params])
        if deps.rolls_dice(probe) or deps.reads_hidden(probe):
            return ModeWatch(False)
        reads = engine.reads.expression(expr, params)
        everywhere |= reads.everywhere
        near |= reads.near
        radius = max([radius] + [r for _, r in reads.radius])
    everywhere = _without_derived(everywhere, engine.reads.derived)
    if EVERYTHING in everywhere:
        return ModeWatch(False)
    return ModeWatch(True, frozenset(everywhere), frozenset(near - everywhere), radius)


def _without_derived(kinds: set, derived: dict) -> set:
    """`kinds` with each derived global (`fn:winter`) replaced by the kinds it reads, however
    indirectly (the journal names those, never the derived global)."""
    out, todo, seen = set(), list(kinds), set()
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        seen.add(k)
        if k.startswith("fn:"):
            found = derived.get(k[3:])
            if found is None:  # not a derived global reads.py knows: assume anything
                out.add(EVERYTHING)
            else:
                todo.extend(found)
        else:
            out.add(k)
    return out


def _dropped_by(pairs, kinds, where, uid) -> list:
    """The keys of the (key, entry) `pairs` one journal event (its kinds, the locations it names,
    the unit id it names) may have changed, an event that names some kind and not EVERYTHING: an
    entry is dropped by a change of its unit, of a kind it reads everywhere, or of a kind it reads
    near, where it watches or nowhere in particular. The one statement of the rule, for the
    game's memo (`SearchMemo.invalidate`, on every event: a loop without calls) and for a search
    carried to or from a lookahead (`survives`)."""
    nowhere = uid is None and not where
    dropped = []
    for key, e in pairs:
        if e.unit is not None and e.unit == uid:
            dropped.append(key)
        elif not e.everywhere.isdisjoint(kinds):
            dropped.append(key)
        elif not e.near.isdisjoint(kinds):
            if nowhere:
                dropped.append(key)
            else:
                watched = e.watched
                for h in where:
                    if h in watched:
                        dropped.append(key)
                        break
    return dropped


def survives(entry: "_Entry", events) -> bool:
    """Whether a remembered search holds after the journal `events`: none of them drops it as
    `SearchMemo.invalidate` would (`_dropped_by`)."""
    for kinds, where, uid in events:
        if not kinds:
            continue
        if EVERYTHING in kinds or _dropped_by(((None, entry),), kinds, where, uid):
            return False
    return True


class _Entry:
    __slots__ = ("result", "allowance", "everywhere", "near", "watched", "unit")

    def __init__(self, result, allowance, watch: ModeWatch, watched: set, unit) -> None:
        self.result = result
        self.allowance = allowance
        self.everywhere = watch.everywhere
        self.near = watch.near
        self.watched = watched
        self.unit = unit


class _Table(dict):
    """{location: (prohibited, must stop)} of one mode's per-location conditions for one side."""

    __slots__ = ("everywhere", "near", "balls")


class SearchMemo:
    """The searches of one game (one per Context), and the per-location conditions of modes that
    read only where a step enters (`location_table`), dropped by the state's journal events
    (`invalidate`, called from `Context.sync_memos` with the rules' memos)."""

    def __init__(self, board) -> None:
        self.board = board
        self.entries: dict = {}
        self.tables: dict = {}

    def clear(self) -> None:
        self.entries.clear()
        for table in self.tables.values():
            table.clear()

    def location_table(self, key, watch: ModeWatch) -> dict:
        """The remembered per-location conditions `key` (a mode and a side), whose evaluation
        reads what `watch` says, around the location only."""
        table = self.tables.get(key)
        if table is None:
            table = self.tables[key] = _Table()
            table.everywhere, table.near = watch.everywhere, watch.near
            table.balls = self.board.balls(watch.radius)
        return table

    def get(self, key, allowance):
        """The remembered result of search `key` run with `allowance`, or None."""
        entry = self.entries.get(key)
        if entry is None:
            return None
        if entry.allowance != allowance or type(entry.allowance) is not type(allowance):
            del self.entries[key]
            return None
        return entry.result

    def put(self, key, result, allowance, watch: ModeWatch, looked_at, unit_id=None) -> None:
        """Remember a search that expanded the locations `looked_at` (their neighbours were
        looked at too: the locations watched are those within the mode's radius + 1), or, given
        as a set, the locations it watches (`watched`)."""
        watched = looked_at if isinstance(looked_at, set) else self.watched(watch, looked_at)
        entries = self.entries
        if len(entries) >= MAX_ENTRIES:
            del entries[next(iter(entries))]
        entries[key] = _Entry(result, allowance, watch, watched, unit_id)

    def put_surviving(self, key, result, allowance, watch: ModeWatch, looked_at, events, unit_id=None) -> None:
        """Remember another context's search (a lookahead carried from the context this memo
        belongs to) if it holds here too: none of the journal `events` (that context's changes
        since) touches what it read, so run here it would have looked at the same locations and
        found the same."""
        watched = self.watched(watch, looked_at)
        if survives(_Entry(result, allowance, watch, watched, unit_id), events):
            self.put(key, result, allowance, watch, watched, unit_id)

    def entry_surviving(self, key, allowance, events):
        """The entry of search `key` run with `allowance` if none of the journal `events` (a
        lookahead's changes since it was carried from the context this memo belongs to) could
        have changed it, else None: what `invalidate` would keep, without dropping anything
        (the memo is another context's)."""
        entry = self.entries.get(key)
        if entry is None or entry.allowance != allowance or type(entry.allowance) is not type(allowance):
            return None
        return entry if survives(entry, events) else None

    def invalidate(self, event) -> None:
        """Drop the searches one journal event (kinds, locations, unit id) may have changed."""
        kinds, where, uid = event
        if not kinds:
            return
        if EVERYTHING in kinds:
            self.clear()
            return
        nowhere = uid is None and not where
        for table in self.tables.values():
            if not table:
                continue
            if not table.everywhere.isdisjoint(kinds) or (nowhere and not table.near.isdisjoint(kinds)):
                table.clear()
            elif not table.near.isdisjoint(kinds):
                balls, pop = table.balls, table.pop
                for h in where:
                    for x in balls[h]:
                        pop(x, None)
        entries = self.entries
        if not entries:
            return
        dropped = _dropped_by(entries.items(), kinds, where, uid)
        for key in dropped:
            del entries[key]

    def watched(self, watch: ModeWatch, looked_at) -> set:
        """The locations a search that expanded `looked_at` watches (their neighbours were looked
        at too: those within the mode's radius + 1)."""
        balls = self.board.balls(watch.radius + 1)
        watched: set = set()
        add = watched.update
        for loc in looked_at:
            add(balls[loc])
        return watched

    def audit(self, ctx) -> list[str]:
        """Run every remembered search and evaluate every remembered condition again, afresh,
        and return the differences, as text (tests/test_search_memo.py checks the invalidation
        is exact over real games)."""
        from warcodex.interpreter.values import UnitRef

        engine = ctx.engine
        wrong = []
        was = ctx.remember_searches
        ctx.remember_searches = False
        try:
            for key, e in list(self.entries.items()):
                mode = engine.modes[key[1]]
                if key[0] == "trace":
                    start, side, goals = key[2], engine.entities[key[3]], key[4]
                    best = mode.search(ctx, start, None, side, goals, allowance=e.allowance)
                    again = any(loc in goals for loc in best)
                elif key[0] == "reach":
                    uid, start = key[2], key[3]
                    unit = ctx.state.units.get(uid)
                    if unit is None or unit.loc != start:
                        wrong.append(f"{key}: remembered for a unit that moved or left")
                        continue
                    side = engine.entities[unit.side]
                    best = mode.search(ctx, start, UnitRef(uid), side, allowance=e.allowance)
                    again = {k: v for k, v in best.items() if k != start}
                else:
                    seeds, side, unlimited = key[2], engine.entities[key[3]], key[4]
                    again = mode.region(ctx, list(seeds), side, None, None if unlimited else e.allowance)
                if again != e.result:
                    wrong.append(f"{key}: remembered {len(e.result)} locations, now {len(again)}")
            for (name, side_name), table in self.tables.items():
                mode, side = engine.modes[name], engine.entities[side_name]
                for loc, value in list(table.items()):
                    again = mode._at(ctx, None, side, None, None, loc, None)
                    if tuple(map(bool, again)) != tuple(map(bool, value)):
                        wrong.append(f"{name} at {loc} for {side_name}: remembered {value}, now {again}")
        finally:
            ctx.remember_searches = was
        return wrong
