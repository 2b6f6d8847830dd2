"""A recorded game, step by step, as the engine replays it.

The viewer never computes a position itself: the engine replays the log (`play.replay`) and this
module writes down, after each log entry, what that entry changed - every new record of each unit
it touched, in order (`GameState.watched_units`: a move hex by hex, a retreat, a step loss, a marker),
and the global, side and location variables, location markers and cards (hands, decks) that
differ from the step before. Step 0 is the set-up; step i (i >= 1) is the position after log entry i - 1.

The replayed log must equal the recorded one, entry for entry: a log that these rules do not
reproduce (other rules, a hand-edited log) is refused with the entry where it diverges, never
shown with positions the game never had.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from warcodex.interpreter.agents import ReplayMismatch
from warcodex.interpreter.play import log_text, replay
from warcodex.interpreter.state import Unit
from warcodex.interpreter.values import RuleError


class ReplayError(Exception):
    """A log or save the engine cannot replay as recorded; the message says where and why."""


@dataclass
class Step:
    entry: dict | None  # the log entry (None: the set-up)
    changed: dict[int, list[Unit]] = field(default_factory=dict)  # unit id -> its new records, in order
    before: dict[int, Unit | None] = field(default_factory=dict)  # unit id -> as it was (None: new)
    vars: dict[str, Any] = field(default_factory=dict)  # global variables changed (JSON values)
    side_vars: dict[str, dict[str, Any]] = field(default_factory=dict)
    loc_vars: dict[str, dict[str, Any]] = field(default_factory=dict)  # location -> variables changed
    loc_markers: dict[str, list[str]] = field(default_factory=dict)  # location -> its markers now
    cards: dict | None = None  # the hands and decks, when the entry changed them

    def after(self, uid: int) -> Unit:
        return self.changed[uid][-1]

    @classmethod
    def from_watched(cls, entry: dict | None, written: list[Unit], units: dict[int, Unit]) -> "Step":
        """The step of `entry`: the unit records the engine wrote while it ran (`GameState.watched_units`),
        grouped by unit in order, with each unit as it was before (`units`, the position before)."""
        step = cls(entry)
        for unit in written:
            if unit.id not in step.changed:
                step.before[unit.id] = units.get(unit.id)
                step.changed[unit.id] = []
            step.changed[unit.id].append(unit)
        return step


@dataclass
class Recording:
    engine: Any
    scenario: str
    seed: int
    options: dict
    initial_units: dict[int, Unit]
    initial_vars: dict[str, Any]
    initial_side_vars: dict[str, dict[str, Any]]
    initial_loc_vars: dict[str, dict[str, Any]]
    initial_loc_markers: dict[str, list[str]]
    initial_cards: dict  # {"hands": side -> cards, "decks": deck -> pile -> cards}
    steps: list[Step]  # steps[0] is the set-up; steps[i] follows log entry i - 1
    final: Any = None  # the GameState after the last entry
    complete: bool = False  # the log ends with the game's end

    def units_at(self, index: int) -> dict[int, Unit]:
        """Every unit as it stands at step `index` (for tests and tools; the page does the same
        from the same data)."""
        units = dict(self.initial_units)
        for step in self.steps[1:index + 1]:
            for uid, records in step.changed.items():
                units[uid] = records[-1]
        return units


class _Recorder:
    """Attached to a game being replayed (`replay(..., watch=recorder.attach)`)."""

    def __init__(self) -> None:
        self.steps: list[Step] = [Step(None)]
        self.game = None

    def attach(self, game) -> None:
        self.game = game
        state = game.state
        engine = game.engine
        self.units: dict[int, Unit] = dict(state.units)
        self.vars = _json_vars(engine, state.vars)
        self.side_vars = {s: _json_vars(engine, v) for s, v in state.side_vars.items()}
        self.loc_vars = {h: _json_vars(engine, v) for h, v in state.loc_vars.items()}
        self.loc_markers = {h: sorted(m) for h, m in state.loc_markers.items() if m}
        self.cards = _cards(state)
        self.initial = (dict(self.units), dict(self.vars), {s: dict(v) for s, v in self.side_vars.items()},
                        {h: dict(v) for h, v in self.loc_vars.items()}, {h: list(m) for h, m in self.loc_markers.items()},
                        self.cards)
        self.version = state.version
        for entry in game.log:  # entries logged while the game was set up (its `log` notes)
            self.steps.append(Step(entry))
        state.watched_units = []
        game.runner.on_entry = self.on_entry

    def on_entry(self, entry: dict) -> None:
        state = self.game.state
        engine = self.game.engine
        step = Step.from_watched(entry, state.watched_units, self.units)
        state.watched_units = []
        for uid, records in step.changed.items():
            self.units[uid] = records[-1]
        if state.version != self.version:  # passes and empty steps change nothing: no diff to make
            self.version = state.version
            step.vars = _diff(self.vars, _json_vars(engine, state.vars))
            for side, values in state.side_vars.items():
                changed = _diff(self.side_vars.setdefault(side, {}), _json_vars(engine, values))
                if changed:
                    step.side_vars[side] = changed
            for loc in dict.fromkeys([*self.loc_vars, *state.loc_vars]):  # ordered: the same page every run
                changed = _diff(self.loc_vars.setdefault(loc, {}), _json_vars(engine, state.loc_vars.get(loc, {})))
                if changed:
                    step.loc_vars[loc] = changed
            for loc in dict.fromkeys([*self.loc_markers, *state.loc_markers]):
                now = sorted(state.loc_markers.get(loc, ()))
                if now != self.loc_markers.get(loc, []):
                    step.loc_markers[loc] = now
                    self.loc_markers[loc] = now
            cards = _cards(state)
            if cards != self.cards:
                step.cards = self.cards = cards
        self.steps.append(step)


def _cards(state) -> dict:
    """Where every card is (hands and each deck's piles), as plain lists."""
    return {"hands": {s: list(c) for s, c in state.hands.items()},
            "decks": {d: {pile: list(c) for pile, c in piles.items()} for d, piles in state.decks.items()}}


def _json_vars(engine, values: dict) -> dict:
    return {k: engine.to_json(v) for k, v in values.items()}


def _diff(old: dict, new: dict) -> dict:
    """The keys of `new` whose values differ from `old` (a key gone is None), applied to `old`."""
    changed = {k: v for k, v in new.items() if old.get(k, _MISSING) != v}
    changed.update({k: None for k in old if k not in new})
    for k, v in changed.items():
        if v is None and k not in new:
            old.pop(k, None)
        else:
            old[k] = v
    return changed


_MISSING = object()


def record(engine, scenario: str, seed: int, entries: list[dict], options: dict | None = None,
           dice: list[int] | None = None) -> Recording:
    """Replay `entries` (of a game played with these options and fixed `dice`, if it had some)
    with the engine and record every step; ReplayError if the replay does not reproduce the log
    exactly."""
    recorder = _Recorder()
    try:
        game = replay(engine, scenario, seed, entries, options=options or {}, dice=dice, watch=recorder.attach)
    except RuleError as exc:  # a decision the rules refuse, or one the log does not have (ReplayMismatch)
        replayed = recorder.game.log if recorder.game is not None else []
        where = _divergence(replayed[:len(entries)], entries[:len(replayed)])
        why = exc.message if isinstance(exc, ReplayMismatch) or not where else f"then stopped: {exc.message}"
        raise ReplayError(f"the log does not replay with these rules{where or ''} ({why})") from None
    if log_text(game.log) != log_text(entries):
        raise ReplayError("the log does not replay with these rules" + _divergence(game.log, entries))
    init_units, init_vars, init_side, init_loc, init_markers, init_cards = recorder.initial
    return Recording(engine=game.engine, scenario=scenario, seed=seed, options=dict(options or {}),
                     initial_units=init_units, initial_vars=init_vars, initial_side_vars=init_side,
                     initial_loc_vars=init_loc, initial_loc_markers=init_markers, initial_cards=init_cards,
                     steps=recorder.steps,
                     final=game.state, complete=any(e.get("k") == "end" for e in entries))


def _divergence(replayed: list[dict], recorded: list[dict]) -> str:
    for i, (a, b) in enumerate(zip(replayed, recorded)):
        if a != b:
            return (f": entry {i} differs\n  log:    {json.dumps(b, sort_keys=True)[:240]}"
                    f"\n  replay: {json.dumps(a, sort_keys=True)[:240]}")
    if len(replayed) != len(recorded):
        return f": the replay has {len(replayed)} entries, the log {len(recorded)}"
    return ""
