"""The page's data: a recorded game (`record.py`) and the game's facts (`warcodex.facts`) turned
into one JSON document, once, by Python. The page only looks things up in it and applies each
step's recorded changes in order; it evaluates no rule.

Shapes (kept small: a long game has thousands of steps):
- a unit is [type index, side index, label, location, box, steps, markers, variables]; a step gives
  a unit it changes as a patch of that record (`_patch`), a new unit as a whole record;
- step 0 holds the whole set-up (`initial`); every later step holds the log entry (its trace with
  the dice read as dice), the units it changed (their new records), the variables and location
  markers it changed, and what it did (`events.py`);
- `segments` are the runs of steps of one turn, phase and side, for the timeline.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from warcodex.dsl import ast
from warcodex.exporters.viewer.board import BoardView, label
from warcodex.exporters.viewer.events import step_events
from warcodex.exporters.viewer.symbols import Symbols
from warcodex.interpreter.explain import parse_roll

# words of the names of numbers a player watches (style only, as the board renderer picks colours by
# name): victory points, money
PINNED_WORDS = ("vp", "vps", "victory", "points", "score", "ipc", "ipcs", "income", "money")


def page_data(rec, facts, board: BoardView, symbols: Symbols, *, title: str, source: str, pins=()) -> dict:
    engine = rec.engine
    sides = [{"name": s.name, "label": s.label, "color": s.color} for s in facts.sides]
    side_index = {s.name: i for i, s in enumerate(facts.sides)}
    types = []
    type_index = {}
    for i, ut in enumerate(facts.unit_types):
        type_index[ut.name] = i
        types.append({"name": ut.name, "label": ut.label, "max": ut.max_steps, "provisional": ut.provisional,
                      "classes": [label(engine, c) for c in ut.classes],
                      "values": {str(s): {k: _value(engine, v) for k, v in vals.items() if _shown(v)}
                                 for s, vals in ut.values.items()}})

    def unit(u) -> list:
        symbols.unit(u.type, u.side, u.label, u.steps)
        for m in u.markers:
            symbols.marker(m)
        return [type_index[u.type], side_index.get(u.side, 0), u.label, u.loc, u.box, u.steps, sorted(u.markers),
                {k: engine.to_json(v) for k, v in u.vars}]

    units_now = dict(rec.initial_units)
    records_now = {uid: unit(u) for uid, u in rec.initial_units.items()}
    steps: list[dict] = []
    history: dict[int, list[int]] = {}
    for index, step in enumerate(rec.steps):
        if index == 0:
            continue
        out: dict[str, Any] = {"e": _entry(engine, step.entry, units_now, board)}
        trace = step.entry.get("trace")
        if trace:
            out["t"] = _with_dice(trace)
        if step.changed:
            out["u"] = {}
            for uid, records in step.changed.items():
                new_record = unit(records[-1])
                old_record = records_now.get(uid)
                change = new_record if old_record is None else _patch(old_record, new_record)
                if change:
                    out["u"][str(uid)] = change
                records_now[uid] = new_record
            if not out["u"]:
                del out["u"]
        for key, value in (("v", step.vars), ("sv", step.side_vars), ("lv", step.loc_vars), ("lm", step.loc_markers),
                           ("c", step.cards)):
            if value:
                out[key] = value
        events = step_events(step, units_now, engine.board)
        if events:
            out["ev"] = events
        # a unit's history: the steps that moved, placed, removed, reduced or marked it, or named
        # it in an action (a flag the rules reset is not history)
        involved = {e["u"] for kind, items in events.items() if kind not in ("arrows", "dice", "focus")
                    for e in items}
        involved |= {uid for uid in _unit_args(step.entry.get("args", {})) if uid in units_now}
        for uid in sorted(involved):
            history.setdefault(uid, []).append(index)
        for uid, records in step.changed.items():
            units_now[uid] = records[-1]
        steps.append(out)
    for m in {m for markers in rec.initial_loc_markers.values() for m in markers} | {
            m for s in rec.steps for markers in s.loc_markers.values() for m in markers}:
        symbols.marker(m)
    variables = {v.name: v for v in facts.variables}
    return {
        "title": title, "source": source, "game": facts.name, "scenario": facts.scenario_label, "seed": rec.seed,
        "rules": facts.fingerprint, "complete": rec.complete,
        "first_turn": facts.first_turn, "last_turn": facts.last_turn,
        "sides": sides, "types": types,
        "names": {name: ent.label for name, ent in engine.entities.items() if ent.label and ent.label != name},
        "sections": facts.sections,
        "phases": _phase_labels(facts),
        "actions": {a.name: a.header.title() for a in facts.game.of_kind(ast.Action)},
        "markers": {name: lab for name, lab in facts.markers},
        # piles whose cards are not public (`pile "cup" face_down`, `owner_only`): deck -> pile -> visibility
        "hidden_piles": {d.name: {p: v for p, v in d.visibility.items() if v != "face_up"} for d in facts.decks},
        "control": [v.name for v in facts.variables if v.scope == "location_var" and v.type == "side"],
        "pins": _pins(facts, pins),
        "var_types": {name: v.type for name, v in variables.items()},
        # the rules' own records (`bookkeeping`, docs/language.md): left out of what a step did,
        # as the engine leaves them out of explanations; the Variables table still lists them
        "bookkeeping": sorted(v.name for v in facts.variables if v.decl is not None and v.decl.bookkeeping),
        "board": {"kind": board.kind, "width": board.width, "height": board.height, "radius": board.radius,
                  "orientation": getattr(getattr(engine.board, "grid", None), "orientation", None), "anchors": board.anchors, "corners": board.corners,
                  "points": board.points, "areas": board.areas, "boxes": board.boxes, "info": board.info},
        "symbols": {"units": {"|".join(map(str, k)): v for k, v in symbols.units.items()}, "markers": symbols.markers,
                    "size": symbols.size},
        "initial": {"units": {str(uid): unit(u) for uid, u in sorted(rec.initial_units.items())},
                    "v": rec.initial_vars, "sv": rec.initial_side_vars, "lv": rec.initial_loc_vars,
                    "lm": rec.initial_loc_markers, "c": rec.initial_cards},
        "steps": steps,
        "history": {str(uid): idx for uid, idx in history.items()},
        "segments": _segments(steps, _phase_labels(facts)),
    }


PATCH_KEYS = ("t", "s", "n", "l", "b", "p", "m")  # type, side, label, location, box, steps, markers


def _patch(old: list, new: list) -> dict:
    """What changed in a unit's record: its fields by the keys above, `v` its variables that
    changed, `x` those it no longer has (a long game resets flags on hundreds of units a phase)."""
    out: dict[str, Any] = {key: new[i] for i, key in enumerate(PATCH_KEYS) if old[i] != new[i]}
    changed = {k: v for k, v in new[7].items() if k not in old[7] or old[7][k] != v}
    if changed:
        out["v"] = changed
    gone = [k for k in old[7] if k not in new[7]]
    if gone:
        out["x"] = gone
    return out


def _shown(v) -> bool:
    return not (isinstance(v, (dict, list, tuple)) and not v)


def _value(engine, v) -> Any:
    """A unit type's property as the page shows it (entities by label; anything without a JSON
    form, as its text)."""
    try:
        value = engine.to_json(v) if not isinstance(v, dict) else str(v)
    except TypeError:
        return str(v)
    if isinstance(value, dict) and "name" in value:
        return label(engine, value["name"])
    if isinstance(value, dict) and "frac" in value:
        return value["frac"]
    if isinstance(value, list):
        return ", ".join(str(_value(engine, x)) for x in v)
    return value if isinstance(value, (int, str, bool)) or value is None else str(value)


def _unit_args(args: dict):
    stack = list(args.values())
    while stack:
        v = stack.pop()
        if isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, dict) and "unit" in v:
            yield v["unit"]


def _entry(engine, entry: dict, units: dict, board: BoardView) -> dict:
    """The log entry without its trace, with a title a player reads and its arguments described."""
    out = {k: v for k, v in entry.items() if k not in ("trace", "text")}
    if entry.get("k") == "action":
        decl = engine.game.names.get(entry.get("action"))
        out["title"] = decl.header.title() if decl is not None else entry.get("action")
        out["cites"] = list(decl.header.citations) if decl is not None else []
        out["args"] = [[name, _describe(engine, value, units, board)] for name, value in entry.get("args", {}).items()]
        params = [p.name for p in getattr(decl, "params", [])]
        out["args"].sort(key=lambda a: params.index(a[0]) if a[0] in params else len(params))
    return out


def _describe(engine, value, units: dict, board: BoardView) -> str:
    if isinstance(value, list):
        return ", ".join(_describe(engine, v, units, board) for v in value) or "none"
    if isinstance(value, dict):
        if "unit" in value:
            u = units.get(value["unit"])
            return f"{u.label} #{u.id}" if u is not None else f"unit #{value['unit']}"
        if "name" in value:
            return label(engine, value["name"])
        return str(next(iter(value.values()), ""))
    if isinstance(value, str) and value in board.info:
        name = board.info[value].get("name")
        return f"{name} ({value})" if name and name != value else value
    return "none" if value is None else str(value)


def _with_dice(trace: list[dict]) -> list[dict]:
    """The trace, each roll carrying its dice (a copy: the log itself is not changed)."""
    out = copy.deepcopy(trace)
    stack = list(out)
    while stack:
        d = stack.pop()
        roll = parse_roll(d.get("what", ""))
        if roll is not None:
            d["dice"] = roll
        if not d.get("steps"):
            d.pop("steps", None)
        else:
            stack.extend(d["steps"])
        if not d.get("citations"):
            d.pop("citations", None)
        if d.get("value") is None:
            d.pop("value", None)
    return out


def _phase_labels(facts) -> dict[str, str]:
    labels: dict[str, str] = {}
    for s in facts.steps:
        labels.setdefault(s.name, s.label)
    return labels


MAX_PINS = 6


def _pins(facts, extra) -> list[list[str]]:
    """The variables the status bar shows, [scope, name]: those asked for, then the game's state
    words (`name` variables with a value at the start: the weather; one that starts as none is a
    rule's bookkeeping) and points (numbers named like victory points or money), at most MAX_PINS;
    the step panel lists every variable."""
    chosen, guessed = [], []
    for v in facts.variables:
        if v.scope not in ("var", "side_var") or v.hidden:
            continue
        words = v.name.lower().split("_")
        if v.name in extra:
            chosen.append([v.scope, v.name])
        elif v.decl is not None and v.decl.bookkeeping:
            continue  # the rules' own records: shown when asked for only
        elif (v.scope == "var" and v.type == "name" and v.initial is not None) or (
                v.type == "int" and any(w in PINNED_WORDS for w in words)):
            guessed.append([v.scope, v.name])
    return chosen + guessed[:max(0, MAX_PINS - len(chosen))]


def _segments(steps: list[dict], phases: dict[str, str]) -> list[dict]:
    """Runs of consecutive steps in one turn, phase and side, for the timeline: their first step,
    turn, phase, side and label (the phase's; between phases, what the first step did)."""
    out: list[dict] = []
    for i, s in enumerate(steps, 1):
        e = s["e"]
        key = (e.get("turn"), e.get("phase"), e.get("side"))
        if not out or (out[-1]["turn"], out[-1]["phase"], out[-1]["side"]) != key:
            if e.get("phase"):
                label = phases.get(e["phase"], e["phase"].replace("_", " "))
            elif e.get("k") == "end" or e.get("what") == "game end":
                label = "Game over"
            else:  # "turn 3 start", "game start", "set-up"
                label = re.sub(r"^turn \d+ ", "turn ", str(e.get("what") or "between phases")).capitalize()
            out.append({"start": i, "turn": key[0], "phase": key[1], "side": key[2], "label": label})
    return out
