"""What a log entry did, as the page draws it: each unit's path, arrows from the acting side's
units to the locations and enemy units its action names, units placed and removed, steps lost,
markers, and the dice rolled. Read from the recorded step (the engine's own unit records, in order)
and the entry's arguments: no rule is evaluated here.

Each move carries the rule that made it (the innermost cited derivation above the engine's
"UNIT moves A -> B" line in the trace), and is classified for its colour only: a rule named like a
retreat or an advance says so; else a defender leaving the target hex, or a unit of another side
than the one acting, retreats; anything else moves.
"""

from __future__ import annotations

import re

from warcodex.interpreter.explain import parse_roll


def step_events(step, units_before: dict, board) -> dict:
    entry = step.entry or {}
    actor = entry.get("side") if entry.get("k") == "action" else None
    paths: dict[int, list[str]] = {}
    out: dict[str, list] = {}
    for uid, records in step.changed.items():
        before = step.before.get(uid)
        after = records[-1]
        path = _path([before.loc if before is not None else None] + [r.loc for r in records])
        paths[uid] = path
        was_on = before is not None and before.loc is not None
        if after.loc is not None and not was_on:
            out.setdefault("placed", []).append({"u": uid, "loc": path[0] if path else after.loc})
        if after.loc is None and was_on:
            out.setdefault("removed", []).append({"u": uid, "loc": path[-1] if path else before.loc, "box": after.box})
        elif after.loc is None and before is not None and before.box != after.box:
            out.setdefault("boxed", []).append({"u": uid, "from": before.box, "to": after.box})
        if before is not None and after.loc is not None and after.steps != before.steps:
            out.setdefault("steps", []).append({"u": uid, "from": before.steps, "to": after.steps})
        if before is not None and after.markers != before.markers:
            out.setdefault("markers", []).append({"u": uid, "on": sorted(after.markers - before.markers),
                                                  "off": sorted(before.markers - after.markers)})
    arrows, targets, rolled = _arrows(entry, actor, units_before, paths, board)
    if arrows:
        out["arrows"] = arrows
    focus = list(targets)
    rules = _moving_rules(entry.get("trace", ()))
    for uid, path in paths.items():
        if len(path) > 1:
            rule = rules.get(uid)
            kind = _kind(path, step.changed[uid][-1].side, actor, targets if rolled else [], rule)
            move = {"u": uid, "path": path, "kind": kind}
            if rule is not None:
                move["rule"] = rule
            out.setdefault("moves", []).append(move)
            focus += path
    focus += [e["loc"] for e in out.get("placed", []) + out.get("removed", [])]
    focus += [step.changed[e["u"]][-1].loc for e in out.get("steps", []) + out.get("markers", [])
              if step.changed[e["u"]][-1].loc is not None]  # a unit reduced or marked where it stands
    dice = [d for d in (parse_roll(w) for w in _whats(entry.get("trace", ()))) if d is not None]
    if dice:
        out["dice"] = dice
    if focus:
        out["focus"] = sorted(set(focus), key=focus.index)
    return out


def _kind(path: list[str], side: str, actor: str | None, targets: list[str], rule: dict | None) -> str:
    """How a move is drawn: as the rule that moved it says (a rule named like a retreat or an
    advance, the style choice the board renderer also makes by names); else, in a combat, a unit
    that starts in a target hex is a retreating defender; a unit of another side than the one
    acting is displaced (a retreat); anything else moves."""
    label = (rule or {}).get("what", "").lower()
    if "retreat" in label:
        return "retreat"
    if "advance" in label:
        return "advance"
    if path[0] in targets or (actor is not None and side != actor):
        return "retreat"
    return "move"


_MOVES = re.compile(r"#(\d+) \([^)]*\) moves ")  # `Engine.unit_name` then "moves": a unit put somewhere


def _moving_rules(trace) -> dict[int, dict]:
    """For each unit a trace shows moving, the innermost rule (a derivation with citations) that
    moved it: {"what": its label, "cites": its sections}. The first such rule for each unit."""
    found: dict[int, dict] = {}

    def walk(nodes, rule) -> None:
        for d in nodes:
            m = _MOVES.search(d.get("what", ""))
            if m and int(m.group(1)) not in found and rule is not None:
                found[int(m.group(1))] = rule
            inner = {"what": d.get("what", ""), "cites": list(d.get("citations", []))} if d.get("citations") else rule
            walk(d.get("steps", ()), inner)

    walk(trace, None)
    return found


def _path(locs: list[str | None]) -> list[str]:
    out: list[str] = []
    for loc in locs:
        if loc is not None and (not out or out[-1] != loc):
            out.append(loc)
    return out


def _arg_values(value):
    if isinstance(value, list):
        for v in value:
            yield from _arg_values(v)
    else:
        yield value


def _arrows(entry: dict, actor: str | None, units: dict, paths: dict, board) -> tuple[list[dict], list[str], bool]:
    """Arrows from the locations of the acting side's units an action names to the locations it
    names and those of the other sides' units it names (an attack, a target), except where the
    unit itself moved without a roll (a move draws its path instead). Also says whether the entry
    rolled dice (a combat)."""
    rolled = any(parse_roll(w) is not None for w in _whats(entry.get("trace", ())))
    if actor is None:
        return [], [], rolled
    own: list[int] = []
    targets: list[str] = []
    for value in _arg_values(list(entry.get("args", {}).values())):
        if isinstance(value, dict) and "unit" in value:
            unit = units.get(value["unit"])
            if unit is None:
                continue
            if unit.side == actor:
                own.append(unit.id)
            elif unit.loc is not None:
                targets.append(unit.loc)
        elif isinstance(value, str) and value in board:
            targets.append(value)
    targets = list(dict.fromkeys(targets))
    arrows: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for uid in own:
        start = units[uid].loc
        if start is None:
            continue
        for t in targets:
            if t == start or (start, t) in seen or (t in paths.get(uid, ()) and not rolled):
                continue  # a unit that moved there without a roll was moved, not fighting
            seen.add((start, t))
            arrows.append({"from": start, "to": t, "side": actor, "kind": "attack" if rolled else "target"})
    return arrows, targets, rolled


def _whats(trace):
    for d in trace:
        yield d.get("what", "")
        yield from _whats(d.get("steps", ()))
