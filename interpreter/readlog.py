"""What a run of the rules actually read, and a memo keyed on it (exact odds, `warcodex odds`).

The odds enumerator (odds.py) computes the effect of a procedure that rolls dice (a distribution
over end states) once and serves it again when the procedure is called with the same arguments.
Keyed on the whole state, the memo misses whenever anything differs, also what the procedure
never looks at: the defender's fire in Axis & Allies does not read which defenders are already
marked as casualties, yet every casualty pattern was a new key. Here the key is **what the runs
read**: while a procedure is enumerated, the state it runs on is a *recording view* (the same
data, whose dictionaries note each read: a unit's field, a unit variable, a global, a location's
variables...), and its result is stored in a trie of (address, value) pairs in the order they
were read. A later call is served when every recorded read has the same value in its state (the
run would read exactly the same things and do exactly the same), and its effect is applied as a
*difference*: the records it wrote, put over the new state.

Soundness rests on three rules:

* a read is noted only the first time, with the value the state had at the start of the run;
  reads of what the run itself wrote before are not reads of the start state and are not noted;
* a write notes the whole previous record (or dictionary entry) as read: the difference applied
  later replaces whole records, so it must only be applied over the same records;
* a read this module cannot place (a loop's state key, iterating over every unit) notes the whole
  state: the entry then matches only the same state, as the whole-state memo did.

Reads outside the game state's dictionaries (`active`, `phase`, the turn, decks and hands, and
any field added to GameState later) are noted together, once per run (`rest_key`).
"""

from __future__ import annotations

import copy
import dataclasses
from operator import attrgetter

from warcodex.interpreter.chance import RefusingRng
from warcodex.interpreter.state import GameState, copy_on_write as _cow, move_in_index

_ABSENT = "<absent>"
_END = object()  # the key of a trie node's result
_UNIT_FIELDS = frozenset({"id", "type", "side", "loc", "steps", "max_steps", "label", "markers", "box"})
_DICTS = ("vars", "side_vars", "loc_vars", "loc_markers", "options", "at")
# every other field of a game state is read as one value, once per run (`rest_key`): a field added
# to GameState later is covered without a change here
_NOT_READ = frozenset({"units", *_DICTS, "version", "positions_version", "rng", "journal", "journal_start",
                       "watched_units"})
_REST = tuple(f.name for f in dataclasses.fields(GameState) if f.name not in _NOT_READ)
_CONTAINERS = tuple(f.name for f in dataclasses.fields(GameState)
                    if f.name not in _NOT_READ and f.default_factory in (dict, list, set))


def freeze(v):
    """A hashable stand-in for a value read (dicts and lists as sorted tuples)."""
    if isinstance(v, dict):
        return tuple(sorted((k, freeze(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return tuple(freeze(x) for x in v)
    if isinstance(v, (set, frozenset)):
        return frozenset(freeze(x) for x in v)
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


def same_rest(a, b) -> bool:
    """Whether two states agree on every field outside their dictionaries (some, like the winner
    `win` declares, change without a new state version)."""
    for f in _REST:
        x, y = getattr(a, f), getattr(b, f)
        if x is not y and x != y:
            return False
    return True


def rest_key(state) -> str:
    """Everything of a state outside its dictionaries, as one value (read once by every run)."""
    return repr(tuple(getattr(state, f) for f in _REST))


class _LoggedMapping(dict):
    """What the dictionaries of a recording view share (`_LoggedUnits`, `_LoggedDict`): iterating
    or sizing one notes the whole of it (`_all`), removing an entry writes it (`_write`)."""

    __slots__ = ()

    def __iter__(self):
        self._all()
        return dict.__iter__(self)

    def keys(self):
        self._all()
        return dict.keys(self)

    def __len__(self):
        self._all()
        return dict.__len__(self)

    def values(self):  # `_LoggedUnits` gives its proxies instead
        self._all()
        return dict.values(self)

    def items(self):
        self._all()
        return dict.items(self)

    def __delitem__(self, key):
        self._write(key)
        dict.__delitem__(self, key)

    def pop(self, key, *default):
        self._write(key)
        return dict.pop(self, key, *default)


class ReadLog:
    """The reads of the runs of one procedure call (all its branches): address -> value at the
    start, in the order first read; `written`: what the current run has written (its own reads of
    those are not reads of the start state); `all_read`: the current run read the whole state.
    `whole_key(state)`: the key of a whole state (a read of everything is one of the start state,
    of which all the run has done so far is a function)."""

    __slots__ = ("reads", "written", "all_read", "start", "whole_key", "merged", "moves", "moved")

    def __init__(self, whole_key) -> None:
        self.reads: dict = {}
        self.written: set = set()
        self.all_read = False
        self.start = None
        self.whole_key = whole_key
        # the current run's unit moves in the location index, in order (uid, from, to), and the
        # locations whose stack they changed, not written otherwise (see `index_move`)
        self.moves: list = []
        self.moved: set = set()
        # the paths (by identity: each is kept by its memo) all of whose reads are in `reads`:
        # merging one again adds nothing (reads are only ever added)
        self.merged: set = set()

    def begin_run(self, state) -> None:
        """A run from `state` (plain; every run of the log starts from the same state)."""
        self.written = set()
        self.all_read = False
        self.start = state
        self.moves, self.moved = [], set()
        if ("rest",) not in self.reads:  # (every run of the log starts from the same state)
            self.reads[("rest",)] = rest_key(state)

    def mark(self) -> tuple:
        """What the run has written so far (`restore` goes back to it)."""
        return set(self.written), set(self.moved), list(self.moves)

    def restore(self, mark: tuple) -> None:
        written, moved, moves = mark
        self.written, self.moved, self.moves = set(written), set(moved), list(moves)

    def served(self, diff) -> None:
        """The run goes on from a state `diff` made (a call or an iteration served from a memo):
        what it wrote, the run wrote."""
        self.written.update(diff.owners)
        for move in getattr(diff, "moves", ()):
            self.index_move(*move)

    def index_move(self, uid, src, dst) -> None:
        """The run moved unit `uid` from `src` to `dst` in the location index (`GameState.put`:
        out of its stack, on top of the other). Not a write of the stacks as whole entries (that
        would note each as read: a difference replacing whole entries must only be put over the
        same ones): the move itself is kept, and a difference makes it again on the stacks of the
        state it is served to (`Difference`). The unit's own record, read and written by `put`,
        says where it was. A later read of a stack it changed is noted with the start's value
        (the stack then is the start's with the run's moves made: see `_LoggedIndex`)."""
        self.moves.append((uid, src, dst))
        for h in (src, dst):
            if h is not None and ("d", "at", h) not in self.written:
                self.moved.add(h)

    def unit(self, uid, field, value) -> None:
        if not self.all_read and ("u", uid) not in self.written:
            self.reads.setdefault(("u", uid, field), value)

    def entry(self, name, key, value) -> None:
        if not self.all_read and ("d", name, key) not in self.written:
            self.reads.setdefault(("d", name, key), value)

    def side_read(self, h, names: frozenset) -> None:
        """The units at `h` of the sides `names` were read (`side_filtered`): noted with the value
        it has in the start state. If the run changed units there before, the list it saw is
        still a function of this one and of what the run wrote (removing a unit from a stack,
        adding one on top, changing a unit's side: each is a write, and filtering a stack by
        side commutes with them), so the start's value is the read to note."""
        if not self.all_read:
            addr = ("S", h, names)
            if addr not in self.reads:
                self.reads[addr] = current(self.start, addr, self.whole_key)

    def everything(self) -> None:
        if not self.all_read:
            if ("*",) not in self.reads:
                self.reads[("*",)] = self.whole_key(self.start)
            self.all_read = True

    def merge(self, path: dict) -> None:
        """A nested call's reads (at its start: address -> value) as this run's: those not
        noted yet (most are, after the first run) and not of what this run wrote."""
        if self.all_read or id(path) in self.merged:
            return
        reads = self.reads
        missing = path.keys() - reads.keys()
        if not missing:
            self.merged.add(id(path))
            return
        if ("*",) in missing:
            self.everything()
            return
        w = self.written
        moved = self.moved
        for addr in missing:
            if addr[0] == "S" or addr[0] == "d" and addr[1] == "at" and addr[2] in moved and addr not in w:
                # (the start's value: as side_read says, and for a stack this run moved units in)
                reads[addr] = current(self.start, addr, self.whole_key)
            elif (addr[:2] if addr[0] == "u" else addr) not in w:
                reads[addr] = path[addr]


# ==================================================================== the recording view
class LoggedUnit:
    """A unit record as the rules see it in a recording view: the first read of each field is
    noted, and the value kept on the proxy (later reads are plain attribute reads)."""

    def __init__(self, unit, log) -> None:
        d = self.__dict__
        d["_u"] = unit
        d["_log"] = log
        d["_vars"] = {}

    def __getattr__(self, name):
        u = self._u
        value = getattr(u, name)
        if name in _UNIT_FIELDS:
            self._log.unit(u.id, name, value)
            self.__dict__[name] = value
        elif name == "vars":
            self._log.unit(u.id, "*", u)
        elif name == "vd":  # generated code reads variables as `unit.vd.get(name)`: one by one
            d = self.__dict__
            value = d["vd"] = _LoggedVars(self._u, self._log, d["_vars"])
        return value

    def var(self, name: str, default=None):
        return _logged_var(self._u, self._log, self._vars, name, default)

    def _whole(self):
        self._log.unit(self._u.id, "*", self._u)
        return self._u

    def __eq__(self, other):
        return self._whole() == (other._whole() if type(other) is LoggedUnit else other)

    def __hash__(self):
        return hash(self._whole())

    def __repr__(self) -> str:
        return repr(self._u)


def _logged_var(u, log, seen: dict, name: str, default):
    """Unit variable `name` of record `u` on a recording view, its first read noted in `log`;
    `seen`: the values read so far (the proxy's, shared with its `vd`)."""
    v = seen.get(name, seen)
    if v is seen:
        v = seen[name] = u.var(name, _ABSENT)
        log.unit(u.id, ("var", name), v)
    return default if v is _ABSENT else v


class _LoggedVars:
    """`unit.vd` of a recording view: each variable's first read noted, as `LoggedUnit.var`. It
    holds the proxy's record, log and reads, not the proxy (no reference cycle: a proxy and its
    `vd` are freed by reference counting, not left to the cyclic collector, one pair per unit a
    replay reads)."""

    __slots__ = ("_u", "_log", "_seen")

    def __init__(self, u, log, seen: dict) -> None:
        self._u, self._log, self._seen = u, log, seen

    def get(self, name: str, default=None):
        return _logged_var(self._u, self._log, self._seen, name, default)


class _LoggedUnits(_LoggedMapping):
    """`state.units` of a recording view (one proxy a unit record)."""

    __slots__ = ("log", "proxies")

    def _proxy(self, uid):
        p = self.proxies.get(uid)
        if p is None:
            u = dict.get(self, uid)
            self.log.unit(uid, "?", u is not None)
            if u is None:
                return None
            p = self.proxies[uid] = LoggedUnit(u, self.log)
        return p

    def __getitem__(self, uid):
        p = self.proxies.get(uid)
        if p is None:
            p = self._proxy(uid)
            if p is None:
                raise KeyError(uid)
        return p

    def get(self, uid, default=None):  # the hot path of every unit read: `_proxy` inlined
        p = self.proxies.get(uid)
        if p is None:
            p = self._proxy(uid)
            if p is None:
                return default
        return p

    def __contains__(self, uid):
        return self._proxy(uid) is not None

    def _all(self):
        self.log.entry("units", "*", tuple(sorted(dict.items(self))))

    def values(self):
        self._all()
        return [self._proxy(k) for k in dict.keys(self)]

    def items(self):
        self._all()
        return [(k, self._proxy(k)) for k in dict.keys(self)]

    def _write(self, uid) -> None:
        log = self.log
        log.unit(uid, "*", dict.get(self, uid, _ABSENT))
        log.written.add(("u", uid))
        self.proxies.pop(uid, None)

    def __setitem__(self, uid, unit):
        self._write(uid)
        dict.__setitem__(self, uid, unit._u if type(unit) is LoggedUnit else unit)



class _LoggedDict(_LoggedMapping):
    """A dictionary of a recording view (`vars`, `loc_vars`, `at`...): each entry read is noted
    (a dictionary value as a whole: `loc_vars["karelia"]`), iterating notes the whole of it."""

    __slots__ = ("log", "name")

    def _read(self, key):
        value = dict.get(self, key, _ABSENT)
        log = self.log
        if not log.all_read:
            addr = ("d", self.name, key)
            if addr not in log.reads and addr not in log.written:
                log.reads[addr] = freeze(value)
        return value

    def __getitem__(self, key):
        value = self._read(key)
        if value is _ABSENT:
            raise KeyError(key)
        return value

    def get(self, key, default=None):
        value = self._read(key)
        return default if value is _ABSENT else value

    def __contains__(self, key):
        return self._read(key) is not _ABSENT

    def _all(self):
        self.log.entry(self.name, "*", freeze(dict(dict.items(self))))

    def _write(self, key) -> None:
        self._read(key)
        self.log.written.add(("d", self.name, key))

    def __setitem__(self, key, value):
        self._write(key)
        dict.__setitem__(self, key, value)

    def setdefault(self, key, default=None):
        self._write(key)  # the value returned is changed in place (`loc_vars`): a copy of its own
        inner = dict.get(self, key)
        inner = default if inner is None else dict(inner)
        dict.__setitem__(self, key, inner)
        return inner


class _LoggedIndex(_LoggedDict):
    """`state.at` of a recording view: the location index. Units moved by the run are moved in it
    without noting the stacks (`index_move`); a stack read after the run moved units in it is
    noted with its value at the start (the run's moves, made on it, give the stack it sees)."""

    __slots__ = ()

    def index_move(self, uid, src, dst) -> None:
        move_in_index(self, uid, src, dst)
        self.log.index_move(uid, src, dst)

    def _read(self, key):
        log = self.log
        if key in log.moved:
            addr = ("d", "at", key)
            if not log.all_read and addr not in log.reads and addr not in log.written:
                log.reads[addr] = freeze(dict.get(log.start.at, key, _ABSENT))
            return dict.get(self, key, _ABSENT)
        return _LoggedDict._read(self, key)

    def _all(self):
        log = self.log
        self.log.entry("at", "*", freeze(dict(dict.items(log.start.at if log.moved else self))))


def copy_state(state, log: ReadLog | None = None):
    """`state.snapshot()` for the enumerator's runs (`state` plain): the same, but the variables
    of locations and sides are copied when written, not at every copy (a big map has many). With
    `log`: a recording view noting the reads of the copy in `log`."""
    out = _clone(state)
    if log is None:
        out.units, out.at, out.vars = dict(state.units), dict(state.at), dict(state.vars)
        out.side_vars, out.loc_vars = _cow(state.side_vars), _cow(state.loc_vars)
        out.loc_markers, out.options = dict(state.loc_markers), dict(state.options)
    else:  # (the sources are plain dictionaries or CopyOnWrite: copied by dict's own fast path)
        units = out.units = _LoggedUnits(state.units)
        units.log, units.proxies = log, {}
        for name in _DICTS:
            d = (_LoggedIndex if name == "at" else _LoggedDict)(getattr(state, name))
            d.log, d.name = log, name
            setattr(out, name, d)
    for name in _CONTAINERS:  # decks, hands, card uses, any container added to GameState later
        v = getattr(state, name)
        setattr(out, name, copy.deepcopy(v) if v else type(v)())  # mostly empty: no deepcopy
    position = out.position = _clone(state.position)
    position.sides = dict(position.sides)
    rng = state.rng
    out.rng = rng if type(rng) is RefusingRng else copy.deepcopy(rng)  # (it copies as itself)
    out.journal, out.journal_start, out.watched_units = [], 0, None
    return out


def _clone(obj):
    """`copy.copy` of a dataclass instance (a state, its position), without its reflection: a new
    instance sharing the same field values."""
    out = object.__new__(type(obj))
    out.__dict__.update(obj.__dict__)
    return out


def is_view(state) -> bool:
    return type(state.units) is _LoggedUnits


def side_filtered(state, h, names: frozenset, known: frozenset):
    """The references of the units at `h` whose side is one of `names`, in stack order, for a
    recording view `state` (compiler `side_filter`), noting that one read (`ReadLog.side_read`)
    instead of the stack and each unit's side; None (nothing noted) when a unit there has a side
    outside `known` (the declared sides): the rules then read the stack as usual."""
    from warcodex.interpreter.values import UnitRef

    units = state.units
    out = []
    for uid in dict.get(state.at, h, ()) if h is not None else ():
        u = dict.get(units, uid)
        if u is None or u.side not in known:
            return None
        if u.side in names:
            out.append(UnitRef._interned.get(uid) or UnitRef(uid))
    units.log.side_read(h, names)
    return tuple(out)


def plain(state):
    """A state with plain dictionaries: `state` itself, or a copy of a recording view's data."""
    if not is_view(state):
        return state
    out = _clone(state)
    out.units = dict(dict.items(state.units))
    for name in _DICTS:
        setattr(out, name, dict(dict.items(getattr(state, name))))
    return out


# ==================================================================== reads and differences
def current(state, addr, whole_key):
    """The value `addr` (a trie step) has in `state` (a plain state): what a run starting there
    would read."""
    kind = addr[0]
    if kind == "U":
        return unit_values(state.units.get(addr[1]), addr[2])
    if kind == "u":
        _, uid, field = addr
        u = state.units.get(uid)
        if field == "?":
            return u is not None
        if field == "*":
            return _ABSENT if u is None else u
        if u is None:
            return _ABSENT
        if type(field) is tuple:
            return u.var(field[1], _ABSENT)
        return getattr(u, field)
    if kind == "d":
        _, name, key = addr
        d = state.units if name == "units" else getattr(state, name)
        if key == "*":
            return tuple(sorted(d.items())) if name == "units" else freeze(d)
        return freeze(d.get(key, _ABSENT))
    if kind == "S":  # the units at a location of some sides (side_filtered)
        _, h, names = addr
        units = state.units
        return tuple(uid for uid in state.at.get(h, ()) if units[uid].side in names)
    if kind == "rest":
        return rest_key(state)
    return whole_key(state)


def _copied(v):
    """A copy of a state's value whose containers (dicts, lists, sets) are new and whose values are
    the same objects: entities (a side, a unit type) keep their identity, which the rules compare
    (`h.controller == germany`), and the rest of a state's data is immutable (unit records,
    strings, numbers, tuples). A deep copy would copy an entity and its declaration."""
    t = type(v)
    if t is dict or isinstance(v, dict):
        return {k: _copied(x) for k, x in v.items()}
    if t is list:
        return [_copied(x) for x in v]
    if t is set:
        return set(v)
    return v


class Difference:
    """What a run changed, from its start state to its end: the unit records, dictionary entries
    and other fields it changed (whole records, whole entries: see the module docstring). With
    the `log` of the one run that made it, the stacks its unit moves changed (and it did not
    write otherwise) are not whole entries but those moves (`moves`), made again on the stacks
    of the state the difference is put over; `moved`, those locations."""

    __slots__ = ("units", "entries", "rest", "owners", "moves", "moved")

    def __init__(self, start, end, log: ReadLog | None = None) -> None:
        su, eu = start.units, end.units
        self.units = [(uid, u) for uid, u in eu.items() if su.get(uid) is not u and su.get(uid) != u]
        self.units += [(uid, None) for uid in su if uid not in eu]
        moved = frozenset(h for h in log.moved if ("d", "at", h) not in log.written) if log is not None else frozenset()
        self.moves = tuple(log.moves) if moved else ()
        self.moved = moved
        self.entries = []
        for name in _DICTS:
            sd, ed = getattr(start, name), getattr(end, name)
            if sd is ed or sd == ed:  # (most of a combat's dictionaries: compared in C, not entry by entry)
                continue
            skip = moved if name == "at" else ()
            self.entries += [(name, k, _copied(v)) for k, v in ed.items() if sd.get(k, _ABSENT) != v and k not in skip]
            self.entries += [(name, k, _ABSENT) for k in sd if k not in ed and k not in skip]
        self.rest = [(f, _copied(getattr(end, f))) for f in _REST if getattr(start, f) != getattr(end, f)]
        self.owners = {("u", uid) for uid, _ in self.units} | {("d", name, k) for name, k, _ in self.entries}

    def apply(self, state):
        """A new state: `state` (plain, left as it is) with these changes."""
        out = copy_state(state)
        for uid, u in self.units:
            if u is None:
                out.units.pop(uid, None)
            else:
                out.units[uid] = u
        for uid, src, dst in self.moves:  # (then the whole entries, over them)
            move_in_index(out.at, uid, src, dst)
        for name, k, v in self.entries:
            d = getattr(out, name)
            if v is _ABSENT:
                d.pop(k, None)
            else:
                d[k] = _copied(v)
        for f, v in self.rest:
            setattr(out, f, _copied(v))
        out.version += 1
        if self.units:
            out.positions_version += 1
        return out


def _grouped(path) -> list:
    """The reads of a path as trie steps: the reads of each unit's fields as one step
    (`("U", id, fields)`, the tuple of their values), in the order each unit was first read;
    the other reads one step each. (Any order finds the same entries: it only makes the trie
    shorter to walk.)"""
    steps: dict = {}
    for addr, value in path:
        if addr[0] == "u":
            fields, values = steps.setdefault(("U", addr[1]), ([], []))
            fields.append(addr[2])
            values.append(value)
        else:
            steps[addr] = value
    out = []
    for key, v in steps.items():
        if key[0] == "U":
            out.append((("U", key[1], tuple(v[0])), tuple(v[1])))
        else:
            out.append((key, v))
    return out


def unit_values(u, fields: tuple) -> tuple:
    """The values of `fields` (as readlog notes them) of unit record `u` (or None)."""
    if u is not None:
        # (the common case, an existing unit's record fields: one getter made per field list)
        getter = _GETTERS.get(fields)
        if getter is None:
            getter = _GETTERS[fields] = _getter(fields)
        return getter(u)
    out = []
    for f in fields:
        if f == "?":
            out.append(u is not None)
        elif u is None:
            out.append(_ABSENT)
        elif f == "*":
            out.append(u)
        elif type(f) is tuple:
            out.append(u.var(f[1], _ABSENT))
        else:
            out.append(getattr(u, f))
    return tuple(out)


_GETTERS: dict = {}  # a unit's field list (as `_grouped` makes them) -> its values' getter


def _getter(fields: tuple):
    """A function giving `unit_values(u, fields)` of an existing unit `u` when the fields are its
    existence (`?`), whole record (`*`), variables and record fields: one small getter a field
    (`operator.attrgetter` for a record field), made once for the field list. Only the exact
    odds' memos read units through it, a few hundred times a computation (406 for the medium
    battle of bench/odds.py): a getter a field costs nothing there that can be measured."""
    getters = tuple(_field_getter(f) for f in fields)
    return lambda u: tuple([get(u) for get in getters])


def _field_getter(field):
    """The value of one field as `unit_values` notes it, of an existing unit."""
    if type(field) is tuple:  # a unit variable, `("var", name)`: read as generated code reads it
        name = field[1]
        return lambda u: u.vd.get(name, _ABSENT)
    if field == "?":
        return lambda u: True
    if field == "*":
        return lambda u: u
    return attrgetter(field)


class ReadMemo:
    """Results keyed on reads: a trie of reads (a unit's fields, a dictionary entry...) and their
    values. An entry is found when every read on its path has the same value in the state asked
    about."""

    def __init__(self) -> None:
        self.root: dict = {}
        self.entries = 0

    def insert(self, path: dict, result) -> None:
        node = self.root
        for step, value in _grouped(path.items()):
            node = node.setdefault(step, {}).setdefault(value, {})
        node[_END] = (path, result)
        self.entries += 1

    def lookup(self, value_of):
        """(path, result) of an entry all of whose reads `value_of(address)` gives, or None."""
        return _find(self.root, {}, value_of)


def _find(node, seen: dict, value_of):
    """The entry under trie node `node` (see `ReadMemo.lookup`); `seen`: the values read so far.
    (A function, not a closure calling itself: that would be a reference cycle per lookup, left to
    the cyclic collector.)"""
    # (most nodes have one read after them: followed in a loop, no recursion)
    while len(node) == 1:
        (addr, children), = node.items()
        if addr is _END:
            return children
        value = seen[addr] if addr in seen else seen.setdefault(addr, value_of(addr))
        try:
            node = children.get(value)
        except TypeError:
            return None
        if node is None:
            return None
    if _END in node:
        return node[_END]
    for addr, children in node.items():
        if addr is _END:
            continue
        value = seen[addr] if addr in seen else seen.setdefault(addr, value_of(addr))
        try:
            child = children.get(value)
        except TypeError:
            child = None
        if child is not None:
            found = _find(child, seen, value_of)
            if found is not None:
                return found
    return None

