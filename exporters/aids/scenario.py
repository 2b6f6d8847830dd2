"""The scenario sheet: the set-up (units by side and location, as the set-up places them), the
reinforcement and withdrawal schedule (`GameFacts.movements`: on a turn for certain, or under a
condition play decides, with where they enter) and the turn record track (a box per turn with
what the turn decides: phases and rules that start or run then, arrivals and withdrawals).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from warcodex.exporters.aids.writer import Ref


@dataclass
class TurnBox:
    turn: int
    notes: list[str]


@dataclass
class Arrival:
    """One row of the reinforcement schedule: a unit that enters play, or units that leave it."""
    turns: str
    side: str
    unit: str
    name: str
    where: str
    refs: list[Ref]
    condition: str | None
    kind: str = "arrival"  # arrival, withdrawal
    provisional: str | None = None  # why the schedule it comes from is provisional


@dataclass
class SetupUnit:
    """Units of one kind in one place: a named unit, or unnamed ones counted by type."""
    count: int
    name: str  # the unit's own name ("11th Panzer"), empty for an unnamed one
    type: str  # its type's label
    notes: list[str]  # reduced steps, markers

    def __str__(self) -> str:
        notes = f" ({', '.join(self.notes)})" if self.notes else ""
        if self.name:
            return f"{self.name} [{self.type}]{notes}"
        return f"{self.count}× {self.type}{notes}" if self.count > 1 else f"{self.type}{notes}"


@dataclass
class SetupRow:
    side: str
    where: str
    units: list[SetupUnit]
    provisional: str | None = None  # why the set-up card that places them is provisional


@dataclass
class ScenarioSheet:
    arrivals: list[Arrival] = field(default_factory=list)
    setup: list[SetupRow] = field(default_factory=list)
    turn_track: list[TurnBox] = field(default_factory=list)
    provisional: list[str] = field(default_factory=list)  # why schedule rows marked † are provisional
    setup_provisional: list[str] = field(default_factory=list)  # why set-up rows marked † are provisional
    track_provisional: list[str] = field(default_factory=list)  # why the track's marks † are provisional


def scenario_sheet(w) -> ScenarioSheet:
    if w.facts.scenario is None:
        return ScenarioSheet()
    rows, start = arrivals(w), setup(w)
    return ScenarioSheet(rows, start, turn_track(w), list(dict.fromkeys(a.provisional for a in rows if a.provisional)),
                         list(dict.fromkeys(r.provisional for r in start if r.provisional)),
                         [w.facts.last_turn_provisional] if w.facts.last_turn_provisional else [])


# ---------------------------------------------------------------- set-up
def setup(w) -> list[SetupRow]:
    """Each side's units at the start, by location in map order, then those in off-map boxes."""
    facts = w.facts
    order = {s: i for i, s in enumerate(facts.turn_order)}
    board = facts.engine.board
    rows = []
    places = [(loc, units) for loc, units in facts.at_start.items()]
    places.sort(key=lambda p: board.index.get(p[0], len(board.index)))
    places += [(box, units) for box, units in facts.boxes.items()]
    by_side: dict[str, list[SetupRow]] = {}
    for where, units in places:
        for side in dict.fromkeys(u.side for u in units):
            mine = [u for u in units if u.side == side]
            note = next((u.provisional for u in mine if u.provisional), None)
            by_side.setdefault(side, []).append(SetupRow(w.label(side), _where(w, where, setup=True), _units(w, mine), note))
    for side in sorted(by_side, key=lambda s: order.get(s, len(order))):
        rows += by_side[side]
    return rows


def _where(w, loc: str, setup: bool = False) -> str:
    """A location by its number and name, a box of the map by its name, an off-map holding box
    (`place_in_box`, `to_box`) by the name the rules give it, capitalised as a name ("Luftflotte
    6", "Turn 2"); in the set-up's Where column, said to be off the map."""
    board = w.facts.engine.board
    if loc in board:
        return w.facts.location_label(loc)
    name = loc.replace("_", " ")
    name = name[:1].upper() + name[1:]
    return w.ui("off_map_box" if setup else "box_named", box=name)


def _units(w, units) -> list[SetupUnit]:
    """Units as a set-up card lists them: named units by name (with their type), the others
    counted by type; reduced units and markers said."""
    out: list[SetupUnit] = []
    for u in units:
        ut = w.facts.unit_type(u.type)
        notes = [w.ui("steps_of", n=u.steps, m=u.max_steps)] if u.steps < u.max_steps else []
        notes += [w.label(m) for m in u.markers]
        name = u.label if u.label and u.label != ut.label else ""
        same = next((x for x in out if not name and not x.name and x.type == w.of(ut.decl) and x.notes == notes), None)
        if same is not None:
            same.count += 1
        else:
            out.append(SetupUnit(1, name, w.of(ut.decl), notes))
    return out


# ---------------------------------------------------------------- arrivals and withdrawals
def arrivals(w) -> list[Arrival]:
    facts = w.facts
    rows = []
    every_turn = set(facts.turns)
    for m in facts.movements:
        if m.kind == "withdrawal" and m.turn is None and every_turn and set(m.turns) >= every_turn:
            continue  # a removal any turn when play meets a condition (over the stacking limit) is a rule, not a schedule
        if m.kind == "arrival" and m.unit_type is None and m.box is not None and not _waiting(facts, m):
            continue  # from a box the set-up leaves empty (HQs reforming, a front not in this scenario): a rule
        refs = w.refs([c for r in m.rules for c in r.header.citations])
        side = w.label(m.side) if m.side else "—"
        condition = _conditions(w, m)
        if m.turn is not None:
            turns = w.turns((m.turn,))
        elif m.expected_turn is not None:
            later = any(t > m.expected_turn for t in m.turns)
            turns = w.ui("turn_or_later", t=m.expected_turn) if later else w.turns((m.expected_turn,))
        else:
            turns = w.turns(m.turns, facts.last_turn)
        if m.kind == "arrival":
            if m.unit_type is not None:
                unit = w.of(facts.unit_type(m.unit_type).decl)
            elif m.box is not None:  # the units the set-up puts in that box (a turn's reinforcements on a player sheet)
                unit = w.ui("a_unit_from", box=_where(w, m.box)) + ": " + "; ".join(str(u) for u in _units(w, _waiting(facts, m)))
            else:
                unit = "—"
            where = _entry(w, m)
        else:
            unit = w.words(m.where) if m.where is not None else "—"
            where = w.ui("to_box", box=_where(w, m.box)) if m.box is not None else "—"
        if m.repeated and m.each is not None and m.kind == "arrival" and m.box is None:
            each = w.ui("for_each_of", what=w.words(m.each))
            condition = f"{condition}; {each}" if condition else each
        rows.append(Arrival(turns, side, unit, m.label or "", where, refs, condition, m.kind, m.provisional))
    return rows


def _waiting(facts, m) -> list:
    """The units of the movement's side that the set-up puts in the box it brings units from."""
    return [u for u in facts.boxes.get(m.box, []) if m.side is None or u.side == m.side]


def _entry(w, m) -> str:
    """Where an arrival enters: a location the rules name, an off-map box, a location its owner
    chooses among some, or one the rules compute (and where that is at the set-up)."""
    if m.location is not None:
        return _where(w, m.location)
    if m.box is not None and m.unit_type is not None:
        return _where(w, m.box)
    if m.choice is not None:
        return w.ui("chosen_among", what=w.words(m.choice))
    if m.where is not None:
        computed = w.words(m.where)
        if m.likely_location is not None:
            return f"{_where(w, m.likely_location)} ({computed})"
        return computed
    return "—"


def _conditions(w, m) -> str | None:
    parts = []
    for c in m.conditions:
        text = w.words(c.expr)
        parts.append(text if c.holds else f"not ({text})")
    if not parts:
        return None
    text = " and ".join(parts)
    later = [t for t in m.turns if m.expected_turn is not None and t > m.expected_turn]
    if later:  # the rule's own fallback: otherwise it tries again later
        return w.ui("if_else_later", cond=text, turns=w.turns(later, w.facts.last_turn))
    return f"{w.ui('when')} {text}"


# ---------------------------------------------------------------- turn record track
def turn_track(w) -> list[TurnBox]:
    facts = w.facts
    turns = facts.turns
    if not turns or len(turns) > 80:
        return []
    first, last = turns[0], turns[-1]
    boxes = {t: TurnBox(t, []) for t in turns}
    named: dict[int, set[int]] = {t: set() for t in turns}  # the rules a box already names
    for decl, on in facts.sequence.timed():
        label = w.of(decl) if decl.header.label else decl.header.name.replace("_", " ")
        for t in _mark(boxes, list(on), label, first, last):
            named[t].add(id(decl))
    for t in turns:
        entering: Counter = Counter()
        for m in facts.movements:
            if m.kind == "arrival" and (m.turn == t or m.expected_turn == t or (m.turn is None and m.turns == (t,))):
                # units from a box: as many as the set-up puts there (a box it leaves empty brings none)
                entering[m.side] += len(_waiting(facts, m)) if m.unit_type is None and m.box is not None else 1
        entering = Counter({side: n for side, n in entering.items() if n})
        leaving = dict.fromkeys(m.side for m in facts.movements if m.kind == "withdrawal" and m.turn == t
                                and id(m.rules[0]) not in named[t])
        for side, n in entering.items():
            boxes[t].notes.append(w.ui("track_arrivals", side=w.label(side) if side else "—", n=n))
        for side in leaving:
            boxes[t].notes.append(w.ui("track_withdrawals", side=w.label(side) if side else "—"))
    boxes[last].notes.append(w.ui("game_end") + (" †" if facts.last_turn_provisional else ""))
    return list(boxes.values())


def _mark(boxes, turns: list[int], label: str, first: int, last: int) -> list[int]:
    """A rule on the track: on the first turn of a run (`→` when it runs to the end), or on each
    turn when its turns are scattered; nothing when it runs every turn. Returns the turns marked."""
    if not turns:
        return []
    if turns == list(range(turns[0], turns[-1] + 1)):
        if turns[0] == first and turns[-1] == last:
            return []
        boxes[turns[0]].notes.append(label + (" →" if turns[-1] == last and len(turns) > 1 else ""))
        return [turns[0]]
    for t in turns:
        boxes[t].notes.append(label)
    return turns
