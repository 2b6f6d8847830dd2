"""The game state: units, variables, markers, decks, the RNG and the sequence position.

Units are immutable records replaced on change, so `snapshot()` only copies dictionaries of
references (structural sharing): cheap enough for undo and for search. Everything in the state is
plain data and serialises to JSON (`warcodex.interpreter.saves`).

Every change bumps `version`. A change made through `put` or `changed` also says *what* changed in
the `journal` (which kinds of state, where, which unit), so memoized rule values that read none of
it survive the change (`warcodex.interpreter.memo`); `touch()` says nothing, and invalidates every
memo.

Adding a piece of state (a chit cup, a pile, the activated formation) is one field of
`GameState` marked `PLAIN`, typed with JSON types (str, int, bool, None, lists and dicts of
them): it is then copied by `snapshot()`, written to saves, read back and shape-checked from its
annotation, and shown by `warcodex schema`, with no other change. What the rules say about its
values (which names it may hold) is checked by a function in `consistency.py` (the test
`test_every_plain_state_field_is_checked` names a field that has none).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field, fields, replace
from typing import Any

PLAIN = {"plain": True}  # field metadata: plain JSON data, saved and copied as it is


def move_in_index(at: dict, uid: int, src: str | None, dst: str | None) -> None:
    """Keep a location index (`GameState.at`: location -> the unit ids there, bottom to top) in
    step with unit `uid` moving from `src` to `dst` (None: off the map): taken out of its stack,
    put on top of the other. On the dictionary's own entries (a recording view's too, without
    noting reads: readlog.py), so the same moves can be made again on another index."""
    if src is not None:
        rest = dict.get(at, src, ())
        try:
            i = rest.index(uid)  # once in its stack
            rest = rest[:i] + rest[i + 1:]
        except ValueError:
            pass
        if rest:
            dict.__setitem__(at, src, rest)
        else:
            dict.pop(at, src, None)
    if dst is not None:
        dict.__setitem__(at, dst, dict.get(at, dst, ()) + (uid,))


@dataclass(frozen=True, slots=True)
class Unit:
    id: int
    type: str  # unit type name
    side: str  # side name
    loc: str | None  # location id; None when off the map
    steps: int
    max_steps: int
    label: str
    markers: frozenset[str] = frozenset()
    vars: tuple[tuple[str, Any], ...] = ()  # unit_var values, as sorted pairs (immutable)
    box: str | None = None  # off-map holding box ("eliminated", "reinforcements"...)
    # `vars` as a dict, made with the record, for reading: rules read a unit's variables far more
    # often than they change them (generated code reads `unit.vd.get(name)` inline). Not part of
    # the record's identity: equality, hashing and saves use `vars`.
    vd: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "vd", dict(self.vars))

    def var(self, name: str, default=None):
        return self.vd.get(name, default)

    def with_var(self, name: str, value) -> "Unit":
        pairs = self.vars
        for i, (k, _) in enumerate(pairs):  # kept sorted by name
            if k == name:
                return self.but(vars=pairs[:i] + ((name, value),) + pairs[i + 1:])
            if k > name:
                return self.but(vars=pairs[:i] + ((name, value),) + pairs[i:])
        return self.but(vars=pairs + ((name, value),))

    def but(self, **changes) -> "Unit":
        """This record with some fields changed (`dataclasses.replace`, without its reflection:
        units change at every move)."""
        get = changes.get
        return Unit(self.id, self.type, self.side, get("loc", self.loc), get("steps", self.steps), self.max_steps,
                    self.label, get("markers", self.markers), get("vars", self.vars), get("box", self.box))


JOURNAL_KEEP = 4096


def unit_event(old: Unit | None, new: Unit) -> tuple:
    """The journal event of storing `new` over `old`: (kinds changed, locations, unit id).
    A unit's record is read at its location (old and new): rules that read the units near a hex
    are invalidated near these locations only."""
    if old is None:
        return (("positions",), (new.loc,) if new.loc is not None else (), new.id)
    kinds = []
    if old.loc != new.loc or old.box != new.box:
        kinds.append("positions")
    if old.steps != new.steps or old.max_steps != new.max_steps:
        kinds.append("steps")
    if old.markers != new.markers:
        kinds.extend("marker:" + m for m in old.markers ^ new.markers)
    if old.vars != new.vars:
        a, b = old.vars, new.vars
        if len(a) == len(b) and all(x[0] == y[0] for x, y in zip(a, b)):  # the same variables (sorted pairs)
            kinds.extend("uvar:" + x[0] for x, y in zip(a, b) if x[1] != y[1])
        else:
            before, after = dict(a), dict(b)
            kinds.extend("uvar:" + k for k in sorted(before.keys() | after.keys()) if before.get(k, _NONE) != after.get(k, _NONE))
    if old.type != new.type or old.side != new.side or old.label != new.label:
        kinds.append("*")
    if old.loc == new.loc:
        where = (new.loc,) if new.loc is not None else ()
    else:
        where = tuple(h for h in (old.loc, new.loc) if h is not None)
    return (tuple(kinds), where, new.id)


_NONE = object()
_UVAR_KINDS: dict[str, tuple] = {}  # variable name -> ("uvar:NAME",), the kinds of its change


class MarkerIndex(dict):
    """A state's markers on locations ({location: frozenset of markers}, a plain dict to every
    reader) that also keeps the locations of each marker (`by_marker`), so a rule looking for the
    fortification markers visits those, not the whole map (narrowing.py). Every way of changing
    the dict keeps the index; `added` counts the markers put on a location (a walk over the
    candidates finds them again after it grew). Made from the plain dict by `narrowing.marker_index`
    the first time a state is asked; copies and saves see a dict."""

    __slots__ = ("by_marker", "added")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()
        self.by_marker: dict[str, set] = {}
        self.added = 0
        self.update(*args, **kwargs)

    def _index(self, loc, old, new) -> None:
        if old == new:
            return
        by_marker = self.by_marker
        for m in old.difference(new):
            at = by_marker.get(m)
            if at is not None:
                at.discard(loc)
        gained = new.difference(old)
        for m in gained:
            by_marker.setdefault(m, set()).add(loc)
        if gained:
            self.added += 1

    def __setitem__(self, loc, markers) -> None:
        self._index(loc, self.get(loc, frozenset()), frozenset(markers))
        dict.__setitem__(self, loc, markers)

    def __delitem__(self, loc) -> None:
        self._index(loc, self[loc], frozenset())
        dict.__delitem__(self, loc)

    def pop(self, loc, *default):
        if loc in self:
            self._index(loc, self[loc], frozenset())
        return dict.pop(self, loc, *default)

    def popitem(self):
        loc, markers = dict.popitem(self)
        self._index(loc, frozenset(markers), frozenset())
        return loc, markers

    def setdefault(self, loc, default=None):
        if loc not in self:
            self[loc] = default if default is not None else frozenset()
        return self[loc]

    def update(self, *args, **kwargs) -> None:
        for loc, markers in dict(*args, **kwargs).items():
            self[loc] = markers

    def clear(self) -> None:
        dict.clear(self)
        self.by_marker.clear()
        self.added += 1

    def copy(self) -> "MarkerIndex":
        out = MarkerIndex()
        dict.update(out, self)  # the pairs as they are, and the index copied (no re-indexing)
        out.by_marker = {m: set(at) for m, at in self.by_marker.items() if at}
        out.added = self.added
        return out

    def __reduce__(self):  # pickle and deepcopy: the plain pairs, indexed again
        return (MarkerIndex, (dict(self),))


@dataclass
class Position:
    """Where the turn sequence stands, so a saved game resumes exactly."""

    turn: int = 0
    op: int = 0  # index into the turn's program of sequence operations
    started: bool = False  # game_start done
    in_allow: int = 0  # actions taken in the current `allow` step
    # the side of each `player_turn` block now being played, by the index of its operation (a
    # string, as JSON keys are): decided when the block starts, so a save resumes with it
    sides: dict[str, str] = field(default_factory=dict)


@dataclass
class GameState:
    scenario: str
    seed: int
    units: dict[int, Unit] = field(default_factory=dict)
    at: dict[str, tuple[int, ...]] = field(default_factory=dict)  # location -> unit ids, bottom of the stack first
    vars: dict[str, Any] = field(default_factory=dict)
    side_vars: dict[str, dict[str, Any]] = field(default_factory=dict)
    loc_vars: dict[str, dict[str, Any]] = field(default_factory=dict)
    loc_markers: dict[str, frozenset[str]] = field(default_factory=dict)
    decks: dict[str, dict[str, list[str]]] = field(default_factory=dict, metadata=PLAIN)  # deck -> draw/discard
    hands: dict[str, list[str]] = field(default_factory=dict, metadata=PLAIN)
    # the current player turn's card uses (interpreter/cards.py): {key: [turn, active], card, side,
    # use: event | payment | cancelled, purpose}
    card_uses: list[dict] = field(default_factory=list, metadata=PLAIN)
    options: dict[str, Any] = field(default_factory=dict)
    active: str | None = None
    phase: str | None = None
    turn_order: tuple[str, ...] = ()
    position: Position = field(default_factory=Position)
    next_unit_id: int = 1
    winner: str | None = None
    win_reason: str | None = None
    over: bool = False  # a winner was declared or the last turn is done
    ended: bool = False  # game_end triggers have run and the final entry is logged
    version: int = 0  # bumped on every change; caches key on it
    positions_version: int = 0  # bumped when a unit moves, enters or leaves the map
    rng: random.Random = field(default_factory=random.Random)
    # what changed, one event per version bump made by `put` or `changed` (see `changed`);
    # `journal_start` is the absolute number of journal[0] (old events are dropped)
    journal: list = field(default_factory=list, repr=False, compare=False)
    journal_start: int = field(default=0, repr=False, compare=False)
    setup_notes: tuple[str, ...] = ()  # `log` lines of the set-up, logged when the game starts (not saved)
    # when a list: every new unit record, in order (`put`), for a tool that watches a game being
    # played (the replay viewer draws each unit's path from it); not saved, not copied by snapshot().
    # (Not `journal`, the memos' change events above: those say what kind changed, not the record.)
    watched_units: list | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------ snapshots
    def snapshot(self, dice=None) -> "GameState":
        """A copy sharing unit records with this state; changing either leaves the other intact.
        `dice`: the copy's dice when given (a search's own: this state's are not copied)."""
        rng = copy_dice(self.rng) if dice is None else dice
        # the variables of sides and locations: each location's dict shared by both states until
        # one of them writes into it (CopyOnWrite; a big map has hundreds, and a search copies the
        # state for every action it looks at)
        side_vars, loc_vars = _share_vars(self, "side_vars"), _share_vars(self, "loc_vars")
        return GameState(
            scenario=self.scenario, seed=self.seed, units=dict(self.units), at=dict(self.at),
            vars=dict(self.vars), side_vars=side_vars, loc_vars=loc_vars, loc_markers=_copy_markers(self.loc_markers),
            **{f.name: copy.deepcopy(getattr(self, f.name)) for f in plain_fields()}, options=dict(self.options),
            active=self.active, phase=self.phase, turn_order=self.turn_order,
            position=replace(self.position, sides=dict(self.position.sides)), next_unit_id=self.next_unit_id, winner=self.winner,
            win_reason=self.win_reason, over=self.over, ended=self.ended, version=self.version,
            positions_version=self.positions_version, rng=rng,
        )

    # ------------------------------------------------------------ units
    def unit(self, uid: int) -> Unit:
        return self.units[uid]

    def units_at(self, loc: str) -> tuple[int, ...]:
        return self.at.get(loc, ())

    def put(self, unit: Unit) -> None:
        """Store a new version of a unit, keeping the location index in step (a record equal
        to the one stored changes nothing: no new version)."""
        old = self.units.get(unit.id)
        if old is not None and old == unit:
            return
        if old is None or old.loc != unit.loc:
            src = old.loc if old is not None else None
            if type(self.at) is dict:
                move_in_index(self.at, unit.id, src, unit.loc)
            else:  # a recording view of exact odds notes the move, not the stacks (readlog.py)
                self.at.index_move(unit.id, src, unit.loc)
        if old is None or old.loc != unit.loc or old.side != unit.side:  # who is where
            self.positions_version += 1
        self.units[unit.id] = unit
        self.version += 1
        self._journal(unit_event(old, unit))
        if self.watched_units is not None:
            self.watched_units.append(unit)

    def put_var(self, unit: Unit, name: str, value) -> None:
        """`put(unit.with_var(name, value))` for the unit's current record, knowing what changes:
        that variable alone (the same record, version and journal event as `put`, without
        comparing the records field by field)."""
        old = unit.var(name, _NONE)
        if old is not _NONE and old == value:  # an equal record: nothing changes
            return
        new = unit.with_var(name, value)
        self.units[unit.id] = new
        self.version += 1
        kinds = _UVAR_KINDS.get(name)
        if kinds is None:
            kinds = _UVAR_KINDS[name] = ("uvar:" + name,)
        self._journal((kinds, (new.loc,) if new.loc is not None else (), new.id))
        if self.watched_units is not None:
            self.watched_units.append(new)

    def to_top(self, uid: int) -> None:
        """Put a unit on top of the stack it is in, without moving it. `at[loc]` lists a stack
        bottom to top: a unit that enters a location goes on top (`put`)."""
        loc = self.units[uid].loc
        ids = self.at.get(loc, ()) if loc is not None else ()
        if ids and ids[-1] != uid:
            self.at[loc] = tuple(i for i in ids if i != uid) + (uid,)
            self.positions_version += 1
            self.changed(("positions",), (loc,))

    def new_unit(self, type_name: str, side: str, loc: str | None, steps: int, label: str, box: str | None = None) -> Unit:
        unit = Unit(id=self.next_unit_id, type=type_name, side=side, loc=loc, steps=steps, max_steps=steps, label=label, box=box)
        self.next_unit_id += 1
        self.put(unit)
        return unit

    def on_map(self):
        return (u for u in self.units.values() if u.loc is not None)

    def touch(self) -> None:
        """Something changed, without saying what: every memo is invalidated."""
        self.version += 1

    # ------------------------------------------------------------ variables set from outside the rules
    # A tool or a test that sets a variable (a position built by hand) says what it changed, with
    # the journal event the engine's own `set` makes (Engine.set_var, Engine.set_attribute): the
    # memos of the rules reading it are dropped, where they read it, and the others are kept, as
    # in play. Writing into `vars`, `side_vars` or `loc_vars` directly bumps nothing: a value
    # remembered before would be read again after.
    def set_var(self, name: str, value) -> None:
        self.vars[name] = value
        self.changed(("var:" + name,))

    def set_side_var(self, side: str, name: str, value) -> None:
        self.side_vars.setdefault(side, {})[name] = value
        self.changed(("svar:" + name,))

    def set_loc_var(self, loc: str, name: str, value) -> None:
        self.loc_vars.setdefault(loc, {})[name] = value
        self.changed(("lvar:" + name,), (loc,))

    def changed(self, kinds: tuple, where: tuple = ()) -> None:
        """Something changed and this says what: `kinds` are the kinds of state changed
        (`"var:weather"`, `"marker:fortification"`, `"lvar:control"`, `"svar:rp"`, `"turn"`,
        `"phase"`, `"active"`, `"turn_order"`, `"cards"`, or `"*"` for anything), `where` the
        locations concerned (none: everywhere)."""
        self.version += 1
        self._journal((kinds, where, None))

    def _journal(self, event) -> None:
        journal = self.journal
        journal.append(event)
        if len(journal) > JOURNAL_KEEP:  # a reader this far behind forgets everything instead
            drop = len(journal) // 2
            del journal[:drop]
            self.journal_start += drop


class CopyOnWrite(dict):
    """A dict of dicts (`loc_vars`, `side_vars`) whose inner dicts may be shared with other
    states: an inner dict is copied the first time this one writes into it (`setdefault`, the way
    the engine and `GameState.set_loc_var` write: `loc_vars.setdefault(h, {})[name] = value`),
    then it is its own (`own`). Writing into an inner dict reached otherwise (`loc_vars[h][name]
    = value`) would change every state sharing it: a tool that sets a variable by hand uses
    `set_loc_var`/`set_side_var`, which also tell the memos."""

    __slots__ = ("own",)

    def setdefault(self, key, default=None):
        if key in self.own:
            return dict.setdefault(self, key, default)
        self.own.add(key)
        inner = dict.get(self, key)
        inner = default if inner is None else dict(inner)
        dict.__setitem__(self, key, inner)
        return inner

    def __reduce__(self):  # pickle and deepcopy: a plain dict of dicts, shared with nothing
        return (dict, ({k: dict(v) for k, v in self.items()},))


def copy_on_write(d: dict) -> CopyOnWrite:
    """A copy of the dict of dicts `d` sharing its inner dicts, copied when written (CopyOnWrite)."""
    out = CopyOnWrite(d)
    out.own = set()
    return out


def _share_vars(state, name: str) -> dict:
    """A snapshot's copy of `state.NAME` (a dict of dicts) sharing the inner dicts with the state,
    which from now on copies an inner dict before writing into it too. A dict of another type (a
    recording view of exact odds, readlog.py) is copied as before, inner dicts and all."""
    d = getattr(state, name)
    if type(d) is dict:
        d = copy_on_write(d)
        setattr(state, name, d)
    elif type(d) is CopyOnWrite:
        d.own = set()
    else:
        return {k: dict(v) for k, v in d.items()}
    return copy_on_write(d)


def _copy_markers(markers: dict) -> dict:
    return markers.copy() if type(markers) is MarkerIndex else dict(markers)


def plain_fields() -> tuple:
    """The `PLAIN` fields of GameState: plain JSON data, saved and copied as it is."""
    return tuple(f for f in fields(GameState) if f.metadata.get("plain"))


def copy_dice(rng):
    """An independent copy of a state's dice, in the same state. Plain dice are copied through
    their state in C: `copy.deepcopy` copies a Mersenne Twister's 625 words one Python call each,
    and a search agent snapshots the state for every action it looks at (5% of a greedy Fall Blau
    turn). Other dice (fixed dice, interpreter/dice.py) copy themselves."""
    if type(rng) is random.Random:
        twin = random.Random(0)
        twin.setstate(rng.getstate())
        return twin
    return copy.deepcopy(rng)
