"""Implementations of the standard library specified in `warcodex.dsl.stdlib`.

Each function takes the running context, the call's source span (for located errors) and the
evaluated arguments. Units are `UnitRef`s, sides and other declared names are `Entity`s, and
locations are their printed ids (str).
"""

from __future__ import annotations

import heapq
import math
from fractions import Fraction

from warcodex.dsl.limits import MAX_RANGE, MAX_UNITS
from warcodex.interpreter.values import CellValue, Code, Derivation, Entity, Odds, Region, RuleError, UnitRef, show


def _loc(ctx, h, span) -> str:
    if not isinstance(h, str):
        raise RuleError(f"expected a location, got {show(h)}", span)
    if h not in ctx.engine.board.index:
        raise RuleError(f"no location '{h}' on the map", span)
    return h


def _unit(ctx, u, span):
    if not isinstance(u, UnitRef):
        raise RuleError(f"expected a unit, got {show(u)}", span)
    return ctx.state.units[u.id]


def _side(ctx, s, span) -> Entity:
    if isinstance(s, Entity) and s.kind == "side":
        return s
    raise RuleError(f"expected a side, got {show(s)}", span)


def _seq(xs, span):
    if xs is None:
        return ()
    if isinstance(xs, (tuple, list, frozenset, set)):
        return xs
    raise RuleError(f"expected a list, got {show(xs)}", span)


# ---------------------------------------------------------------- board
def b_locations(ctx, span):
    return ctx.engine.board.locations


def b_locations_with(ctx, span, tag):
    name = tag.name if isinstance(tag, Entity) else tag
    return ctx.engine.locations_with(name)


def b_adjacent(ctx, span, h):
    return ctx.engine.board.neighbors(_loc(ctx, h, span))


def b_distance(ctx, span, a, b):
    board = ctx.engine.board
    index = board.index
    if a.__class__ is str and b.__class__ is str and a in index and b in index:  # checked inline: an
        return board.distance(a, b)  # evaluation's distance term asks it for every unit and objective
    return board.distance(_loc(ctx, a, span), _loc(ctx, b, span))


def b_terrain(ctx, span, h):
    engine = ctx.engine
    if h not in engine.board.index:
        _loc(ctx, h, span)  # raises the located error
    t = engine.board.terrain(h)
    return engine.entities.get(t) if t is not None else None


def b_edge(ctx, span, a, b):
    board = ctx.engine.board
    index = board.index
    if a not in index or b not in index:  # checked inline: edge() is called in every search step
        _loc(ctx, a, span)
        _loc(ctx, b, span)
    return board.edge(a, b)


def b_loc(ctx, span, ident):
    return _loc(ctx, str(ident), span)


def b_side_of_location(ctx, span, h):
    ids = ctx.state.units_at(_loc(ctx, h, span))
    return ctx.engine.entities[ctx.state.units[ids[0]].side] if ids else None


# ---------------------------------------------------------------- units
_REFS = UnitRef._interned


def _on_map(ctx, key, side=None) -> tuple:
    """The units on the map (of one side), in the state's order: found once per positions
    version (a unit that moves, enters or leaves the map bumps it), kept in the context."""
    state = ctx.state
    found = ctx.cache.get(key)
    if found is not None and found[0] == state.positions_version:
        return found[1]
    refs = _REFS  # every unit's reference, once made, is interned
    value = tuple([refs.get(u.id) or UnitRef(u.id) for u in state.units.values()
                   if u.loc is not None and (side is None or u.side == side)])
    ctx.cache[key] = (state.positions_version, value)
    return value


def b_all_units(ctx, span):
    return _on_map(ctx, "all_units")


def b_units_at(ctx, span, h):
    ids = ctx.state.at.get(h) if h is not None else None
    if not ids:
        return ()
    try:
        return tuple(map(_REFS.__getitem__, ids))  # every unit's reference, once made, is interned
    except KeyError:
        return tuple([_REFS.get(i) or UnitRef(i) for i in ids])


def b_top_unit(ctx, span, h):
    ids = ctx.state.at.get(h) if h is not None else None
    return (_REFS.get(ids[-1]) or UnitRef(ids[-1])) if ids else None


def b_to_top(ctx, span, u):
    unit = _unit(ctx, u, span)
    if unit.loc is None:
        raise RuleError(f"{ctx.engine.unit_name(ctx, u)} is not on the map: it is in no stack", span)
    ctx.state.to_top(unit.id)
    if ctx.tracing:
        ctx.trace_add(Derivation(f"{ctx.engine.unit_name(ctx, u)} is put on top of its stack at {unit.loc}"))


def b_units_of(ctx, span, s):
    name = _side(ctx, s, span).name
    return _on_map(ctx, ("units_of", name), name)


def b_occupied(ctx, span):
    """The occupied locations in board order: the order of the state's own index depends on the
    moves that made it (a game loaded from a save has another), and an action's candidates must
    not (the same game replays, or resumes from a save, to the same log)."""
    state = ctx.state
    found = ctx.cache.get("occupied")
    if found is not None and found[0] == state.positions_version:
        return found[1]
    value = tuple(sorted(state.at, key=ctx.engine.board.index.__getitem__))
    ctx.cache["occupied"] = (state.positions_version, value)
    return value


def b_eliminated_units(ctx, span, s=None):
    name = _side(ctx, s, span).name if s is not None else None
    return tuple(UnitRef(u.id) for u in ctx.state.units.values()
                 if u.box == "eliminated" and (name is None or u.side == name))


def b_units_in_box(ctx, span, box):
    return tuple(UnitRef(u.id) for u in ctx.state.units.values() if u.box == box)


# ---------------------------------------------------------------- sides
def b_sides(ctx, span):
    return ctx.engine.side_entities


def b_enemies(ctx, span, s):
    return ctx.engine.enemies_of(_side(ctx, s, span))


def b_allies(ctx, span, s):
    return ctx.engine.allies_of(_side(ctx, s, span))


def b_is_enemy(ctx, span, a, b):
    if type(a) is Entity and type(b) is Entity and a.kind == "side" and b.kind == "side":  # checked inline: hot
        return b in ctx.engine.enemies_of(a)
    return _side(ctx, b, span) in ctx.engine.enemies_of(_side(ctx, a, span))


# ---------------------------------------------------------------- movement
def _mode(ctx, mode, span):
    m = ctx.engine.modes.get(mode.name if isinstance(mode, Entity) else mode)
    if m is None:
        raise RuleError(f"{show(mode)} is not a movement mode", span)
    return m


def b_reachable(ctx, span, u, mode):
    _unit(ctx, u, span)
    return tuple(_mode(ctx, mode, span).reachable(ctx, u))


def b_path_cost(ctx, span, u, to, mode):
    reach = _mode(ctx, mode, span).reachable(ctx, u)
    entry = reach.get(to)
    return entry[0] if entry else None


def b_must_stop(ctx, span, u, to, mode):
    entry = _mode(ctx, mode, span).reachable(ctx, u).get(to)
    return bool(entry[2]) if entry else None


def b_traceable(ctx, span, mode, start, targets, s):
    return _mode(ctx, mode, span).traceable(ctx, _loc(ctx, start, span), _seq(targets, span), _side(ctx, s, span))


# ---------------------------------------------------------------- numbers, odds, tables
def b_odds(ctx, span, attack, defense):
    o = Odds.of(attack, defense)
    if ctx.tracing:
        ctx.trace_add(Derivation(f"odds {show(attack)}:{show(defense)} -> {o}", o, kind="odds"))
    return o


def b_difference(ctx, span, attack, defense):
    return attack - defense


def _table(ctx, table, span):
    t = ctx.engine.tables.get(table.name if isinstance(table, Entity) else table)
    if t is None:
        raise RuleError(f"{show(table)} is not a table", span)
    return t


def b_allowed(ctx, span, table, column):
    return _table(ctx, table, span).allowed(column)


def b_rolls(ctx, span, table):
    t = _table(ctx, table, span)
    rolls = t.rolls()
    if rolls is None:
        raise RuleError(f"the rows of the {t.title} are not a die roll (`rows roll d6: 1..6`): use rows({t.name})", span)
    return rolls


def _printed_key(ctx, key):
    """The value a printed row or column key stands for in the rules: a number (a range's first),
    an odds ratio, a declared name (`clear`) or, for an undeclared one, its text (a hex id)."""
    if key.kind == "odds":
        return Odds.ratio(key.attack, key.defense)
    if key.kind in ("int", "range"):
        return key.low
    return ctx.engine.entities.get(key.name, key.name)


def b_rows(ctx, span, table):
    return tuple(_printed_key(ctx, row.key) for row in _table(ctx, table, span).decl.table_rows)


def b_cell_of(ctx, span, *codes):
    parts = []
    for c in codes:
        if isinstance(c, Entity) and c.kind == "result":
            parts.append(Code(c))
        elif isinstance(c, CellValue):
            parts.extend(c.codes)
        else:
            raise RuleError(f"cell_of: {show(c)} is not a result code", span)
    return CellValue(tuple(parts))


def b_result_arg(ctx, span, cell, result):
    if not (isinstance(result, Entity) and result.kind == "result"):
        raise RuleError(f"result_arg: {show(result)} is not a result", span)
    if cell is None:
        return 0  # an empty cell: no code at all
    if isinstance(cell, Entity) and cell.kind == "result":
        cell = CellValue((Code(cell),))
    if not isinstance(cell, CellValue):
        raise RuleError(f"result_arg: {show(cell)} is not a table cell", span)
    total = 0
    for code in cell.codes:
        if code.result is not None and code.result.name == result.name:
            if len(code.args) != 1 or isinstance(code.args[0], bool) or not isinstance(code.args[0], (int, Fraction)):
                raise RuleError(f"result_arg: the code {code} of the cell {cell} does not give {result.name} one number", span)
            total += code.args[0]
    return total


def b_unit_by_id(ctx, span, n):
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuleError(f"unit_by_id needs a whole number, got {show(n)}", span)
    return UnitRef(n) if n in ctx.state.units else None


def b_column(ctx, span, table, value):
    from warcodex.interpreter.tables import IllegalColumn

    t = _table(ctx, table, span)
    if not t.columns:
        raise RuleError(f"the {t.title} has no columns", span)
    try:
        index = t.column_index(value, span)
    except IllegalColumn:
        return None
    if isinstance(index, CellValue):
        return index
    return _printed_key(ctx, t.decl.columns.keys[index])


def b_round_up(ctx, span, x):
    return math.ceil(x)


def b_round_down(ctx, span, x):
    return math.floor(x)


def b_abs(ctx, span, x):
    return abs(x)


def b_range(ctx, span, low, high):
    if type(low) is not int or type(high) is not int:
        raise RuleError(f"range() takes two whole numbers, not {show(low)} and {show(high)}", span)
    n = max(0, high - low + 1)
    if n > MAX_RANGE:
        raise RuleError(f"range({low}, {high}) has {n:,} numbers, more than the {MAX_RANGE:,} a rule may list", span)
    ctx.tick_many(n, span)  # building the list is work like any loop
    return tuple(range(low, high + 1))


# ---------------------------------------------------------------- collections
def b_count(ctx, span, xs):
    return len(_seq(xs, span))


def b_sum(ctx, span, xs):
    total = sum(_seq(xs, span))
    return total.numerator if isinstance(total, Fraction) and total.denominator == 1 else total


def _minmax(fn, span, xs):
    if len(xs) == 1 and isinstance(xs[0], (tuple, list)):
        xs = xs[0]
    xs = [x for x in xs if x is not None]
    if not xs:
        return None
    return fn(xs)


def b_min(ctx, span, *xs):
    return _minmax(min, span, xs)


def b_max(ctx, span, *xs):
    return _minmax(max, span, xs)


def b_smallest(ctx, span, n, xs):
    # "the k nearest units" of an evaluation: the k smallest of their distances (heapq keeps it
    # O(len(xs)) for a small k); numbers only, so the order is the numbers' own
    if type(n) is not int or n < 0:
        raise RuleError(f"smallest() takes a whole number of at least 0 first, not {show(n)}", span)
    xs = [x for x in _seq(xs, span) if x is not None]
    for x in xs:
        if type(x) not in (int, Fraction):
            raise RuleError(f"smallest() orders numbers, not {show(x)}", span)
    return tuple(heapq.nsmallest(n, xs))


def b_any(ctx, span, xs):
    return any(_seq(xs, span))


def b_all(ctx, span, xs):
    return all(_seq(xs, span))


def b_list(ctx, span, xs):
    return tuple(_seq(xs, span))


def b_first(ctx, span, xs):
    xs = _seq(xs, span)
    return next(iter(xs), None)


def b_contains(ctx, span, xs, x):
    return x in _seq(xs, span)


# ---------------------------------------------------------------- cards
def b_hand(ctx, span, s):
    return tuple(ctx.engine.entities[c] for c in ctx.state.hands.get(_side(ctx, s, span).name, ()))


def b_deck_size(ctx, span, deck):
    return len(ctx.engine.cards.piles(ctx.state, ctx.engine.cards.deck_name(deck, span))["draw"])


# ---------------------------------------------------------------- effects
def b_place(ctx, span, type_, s, h, label=None):
    return ctx.engine.place(ctx, type_, _side(ctx, s, span), _loc(ctx, h, span), label, span)


def b_move_to(ctx, span, u, h):
    ctx.engine.move_unit(ctx, u, _loc(ctx, h, span), span)


def b_move_along(ctx, span, u, h, mode):
    m = _mode(ctx, mode, span)
    path, cost = m.path(ctx, u, _loc(ctx, h, span), span)
    if ctx.tracing:  # the path, then each step's cost term by term, with its sections
        ctx.trace_add(Derivation(f"{ctx.engine.unit_name(ctx, u)} moves {' -> '.join(path)} ({m.entity.label}) "
                                 f"for {_fmt(cost)}", cost, m.entity.citations, m.explain_steps(ctx, u, path)))
    for loc in path[1:]:
        if ctx.state.units[u.id].loc is None:
            break  # eliminated on the way (a trigger)
        ctx.engine.move_unit(ctx, u, loc, span, trace=False)


def _fmt(v) -> str:
    return str(v) if not isinstance(v, Fraction) or v.denominator != 1 else str(v.numerator)


def b_eliminate(ctx, span, u):
    ctx.engine.eliminate(ctx, u, span)


def b_reduce(ctx, span, u, steps):
    unit = _unit(ctx, u, span)
    if unit.loc is None and unit.box is not None:
        return
    left = unit.steps - int(steps)
    if ctx.tracing:
        ctx.trace_add(Derivation(f"{ctx.engine.unit_name(ctx, u)} loses {steps} step{'s' if steps != 1 else ''}"))
    if left <= 0:
        ctx.engine.eliminate(ctx, u, span)
    else:
        ctx.state.put(unit.but(steps=left))


def b_restore(ctx, span, u, steps):
    unit = _unit(ctx, u, span)
    ctx.state.put(unit.but(steps=min(unit.max_steps, unit.steps + int(steps))))


def b_to_box(ctx, span, u, box):
    unit = _unit(ctx, u, span)
    ctx.state.put(unit.but(loc=None, box=str(box)))


def b_mark(ctx, span, x, marker):
    ctx.engine.set_marker(ctx, x, marker, True, span)


def b_unmark(ctx, span, x, marker):
    ctx.engine.set_marker(ctx, x, marker, False, span)


def b_win(ctx, span, s, reason):
    state = ctx.state
    if state.winner is None and not (state.over and state.win_reason):
        state.winner = s.name if isinstance(s, Entity) else None
        state.win_reason = str(reason)
        state.over = True
        if ctx.tracing:
            ctx.trace_add(Derivation(f"game over: {'draw' if s is None else show(s) + ' wins'} ({reason})"))


def b_emit(ctx, span, event, *args):
    ctx.engine.fire(ctx, event.name if isinstance(event, Entity) else str(event), args)


def b_draw(ctx, span, s, deck, n=1):
    ctx.engine.draw_cards(ctx, _side(ctx, s, span), deck, int(n), span)


def b_discard(ctx, span, s, card):
    ctx.engine.discard_card(ctx, _side(ctx, s, span), card, span)


def b_shuffle(ctx, span, deck):
    ctx.engine.shuffle_deck(ctx, deck, span)


# ---------------------------------------------------------------- appended: geometry, cells, regions
def b_common_neighbors(ctx, span, a, b):
    board = ctx.engine.board
    others = board.neighbors(_loc(ctx, b, span))
    return tuple(n for n in board.neighbors(_loc(ctx, a, span)) if n in others)


def b_number(ctx, span, x):
    if isinstance(x, CellValue):
        if not x.codes:
            return None
        single = x.single()
        if isinstance(single, (int, Fraction)) and not isinstance(single, bool):
            return single
        numbers = [c.number for c in x.codes]
        if len(numbers) == 2 and all(isinstance(n, int) for n in numbers) and numbers[1] > 0:
            value = Fraction(numbers[0], numbers[1])  # a printed fraction: `1/2` is one half
            return value.numerator if value.denominator == 1 else value
        raise RuleError(f"the table cell {x} does not hold a single number", span)
    if x is None or (isinstance(x, (int, Fraction)) and not isinstance(x, bool)):
        return x
    raise RuleError(f"expected a number or a table cell holding one, got {show(x)}", span)


def b_trace_region(ctx, span, mode, starts, s, limit=None):
    """Multi-source search under a trace mode: the same rules as `traceable`, seeded with every
    start at cost 0 (each path's `origin` is the start it came from); `limit` replaces the mode's
    allowance."""
    seeds = [_loc(ctx, h, span) for h in _seq(starts, span)]
    if not seeds:
        return Region(())
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, Fraction))):
        raise RuleError(f"trace_region: the limit must be a number, got {show(limit)}", span)
    return _mode(ctx, mode, span).region(ctx, seeds, _side(ctx, s, span), span, limit)


def b_trace_back(ctx, span, mode, targets, s):
    """Every location from which a trace reaches one of `targets`: one backward search."""
    goals = [_loc(ctx, h, span) for h in _seq(targets, span)]
    if not goals:
        return Region(())
    return _mode(ctx, mode, span).region_back(ctx, goals, _side(ctx, s, span), span)


def b_hex_col(ctx, span, h):
    board = ctx.engine.board
    loc = _loc(ctx, h, span)
    return board.coords(loc)[0] if board.kind == "hex" and loc in board._coords else None


def b_hex_row(ctx, span, h):
    board = ctx.engine.board
    loc = _loc(ctx, h, span)
    return board.coords(loc)[1] if board.kind == "hex" and loc in board._coords else None


def b_sheet(ctx, span, h):
    return ctx.engine.board._sheet_of.get(_loc(ctx, h, span))



def b_move_via(ctx, span, u, h, mode):
    """The same as move_along (kept as a name: games written while move_along skipped its first
    step use it)."""
    b_move_along(ctx, span, u, h, mode)

# ---------------------------------------------------------------- appended (data side): turn order
def b_set_turn_order(ctx, span, sides):
    """The player-turn order from the next game turn on: the sequence expands `player_turns
    turn_order` afresh at each turn (interpreter/sequence.py), so the current turn is unchanged."""
    order = tuple(_side(ctx, s, span).name for s in _seq(sides, span))
    if not order or len(set(order)) != len(order):
        raise RuleError("set_turn_order needs each side once", span)
    if ctx.tracing:
        ctx.trace_add(Derivation("player-turn order from the next turn: " + ", ".join(order)))
    ctx.state.turn_order = order
    ctx.state.changed(("turn_order",))


def b_place_in_box(ctx, span, type_, s, box, label=None):
    """A new unit straight into a holding box: no location, no `enter` event."""
    from warcodex.interpreter.values import Entity as _Entity

    if not (isinstance(type_, _Entity) and type_.kind == "unit"):
        raise RuleError(f"{show(type_)} is not a unit type", span)
    side = _side(ctx, s, span)
    steps = int(type_.props.get("steps", 1))
    if ctx.state.next_unit_id > MAX_UNITS:
        raise RuleError(f"more than {MAX_UNITS:,} units in one game: a rule creates units without end", span)
    unit = ctx.state.new_unit(type_.name, side.name, None, steps, str(label) if label else type_.label, box=str(box))
    if ctx.tracing:
        ctx.trace_add(Derivation(f"{unit.label} ({side.name}) is put in the box {box}"))
    return UnitRef(unit.id)


# ---------------------------------------------------------------- appended: card-driven play
def _card(ctx, c, span) -> str:
    return ctx.engine.cards.card_name(c, span)


def _deck(ctx, deck, span) -> str:
    return ctx.engine.cards.deck_name(deck, span)


def _card_entities(ctx, names):
    return tuple(ctx.engine.entities[c] for c in names)


def b_cards(ctx, span, deck):
    return _card_entities(ctx, [c.name for c in ctx.engine.cards.decks[_deck(ctx, deck, span)].cards])


def b_discard_pile(ctx, span, deck):
    return _card_entities(ctx, reversed(ctx.engine.cards.piles(ctx.state, _deck(ctx, deck, span))["discard"]))


def b_removed_cards(ctx, span, deck):
    return _card_entities(ctx, ctx.engine.cards.piles(ctx.state, _deck(ctx, deck, span))["removed"])


def b_set_aside_cards(ctx, span, deck):
    return _card_entities(ctx, ctx.engine.cards.piles(ctx.state, _deck(ctx, deck, span))["set_aside"])


def b_card_places(ctx, span, c):
    return tuple(ctx.engine.cards.places(ctx.state, _card(ctx, c, span)))


def b_card_holder(ctx, span, c):
    side = ctx.engine.cards.holder(ctx.state, _card(ctx, c, span))
    return ctx.engine.entities[side] if side is not None else None


def b_card_visible(ctx, span, c, s):
    return ctx.engine.cards.visible_to(ctx.state, _card(ctx, c, span), _side(ctx, s, span).name)


def b_times_played(ctx, span, c):
    return ctx.engine.cards.times_played(ctx.state, _card(ctx, c, span))


def b_last_played(ctx, span, deck):
    card = ctx.engine.cards.last_use(ctx.state, _deck(ctx, deck, span), "event")
    return ctx.engine.entities[card] if card is not None else None


def b_last_paid(ctx, span, deck):
    card = ctx.engine.cards.last_use(ctx.state, _deck(ctx, deck, span), "payment")
    return ctx.engine.entities[card] if card is not None else None


def b_play(ctx, span, s, c):
    ctx.engine.cards.play(ctx, _side(ctx, s, span), _card(ctx, c, span), span)


def b_pay(ctx, span, s, c, purpose):
    ctx.engine.cards.pay(ctx, _side(ctx, s, span), _card(ctx, c, span), purpose, span)


def b_cancel(ctx, span, c):
    ctx.engine.cards.cancel(ctx, _card(ctx, c, span), span)


def b_take_card(ctx, span, s, c):
    ctx.engine.cards.take(ctx, _side(ctx, s, span), _card(ctx, c, span), span)


def b_remove_card(ctx, span, c):
    ctx.engine.cards.remove(ctx, _card(ctx, c, span), span)


def b_add_to_deck(ctx, span, c):
    ctx.engine.cards.add_to_deck(ctx, _card(ctx, c, span), span)


def b_discard_random(ctx, span, s):
    ctx.engine.cards.discard_random(ctx, _side(ctx, s, span), span)


# ---------------------------------------------------------------- appended: deck piles, random picks, text
def b_pile(ctx, span, deck, pile):
    # top card first, as discard_pile gives it
    return _card_entities(ctx, reversed(ctx.engine.pile(ctx, deck, str(pile), span)))


def b_move_card(ctx, span, deck, card, to):
    ctx.engine.move_card(ctx, deck, card, str(to), span)


def b_text(ctx, span, x):
    if isinstance(x, Entity):
        return x.name
    if isinstance(x, str):
        return x
    if isinstance(x, UnitRef):
        return ctx.engine.unit_name(ctx, x)
    return "none" if x is None else str(show(x))


def b_pick_random(ctx, span, xs):
    """A blind draw: the dice pick the element (a fixed roll of 3 picks the third, for tests)."""
    xs = tuple(_seq(xs, span))
    if not xs:
        return None
    picked = xs[ctx.state.rng.randint(1, len(xs)) - 1]
    if ctx.tracing:
        ctx.trace_add(Derivation(f"picked at random: {ctx.engine.describe(ctx, picked)} (of {len(xs)})", picked))
    return picked


IMPLEMENTATIONS = {name[2:]: fn for name, fn in globals().items() if name.startswith("b_")}
