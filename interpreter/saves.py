"""Saves and logs: the files a game is recorded in, as one validated model.

A **save** holds everything needed to continue exactly: the state (units, variables, markers,
decks, the dice RNG, the sequence position), the log so far, and each agent's own RNG. A **log**
is the record of a game, one JSON object a line:

    {"format": "warcodex-log", "version": 2, "game": ..., "rules": ..., "entries": N, ...}   header
    {"k": "action", "n": 0, ...}                                                            N entries
    {"end": "warcodex-log", "entries": N}                                                  end marker

Reading either is checked in two layers, so a file is used only if it could have been written:

1. **Shape** (this module, pydantic): every key present with its JSON type, no unknown key, the
   numbers in ranges that hold for every game, the RNG state well formed, a log's entry count
   equal in its header, its entries and its end marker (a log cut at a line boundary is refused).
2. **Meaning** (`consistency.py`, against the rules): every name declared, every value of the
   type its variable declares, unit ids unique, a unit in one place, the position in the turn
   sequence...

Both record the rules' fingerprint: a save or log made with other rules is refused unless the
caller forces it (`--force`), and even then the meaning is checked against the rules at hand.
Files are written atomically (`warcodex.outputs`).

Adding state: a `PLAIN` field of `GameState` is saved and read from its annotation, with no change
here (see state.py).
"""

from __future__ import annotations

import json
import random
import typing
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import pydantic_core
from pydantic import (BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model, model_serializer,
                      model_validator)

from warcodex import inputs
from warcodex.interpreter.agents import FirstAgent, RandomAgent
from warcodex.interpreter.dice import FixedDice
from warcodex.interpreter.state import GameState, Position, Unit, plain_fields
from warcodex.outputs import write_atomic

SAVE_FORMAT = "warcodex-save"
SAVE_VERSION = 1
LOG_FORMAT = "warcodex-log"
LOG_VERSION = 2

# Ranges that hold in every game (what the rules allow is consistency.py's business)
Int = Annotated[int, Field(ge=-(2**63), le=2**63 - 1)]
Count = Annotated[int, Field(ge=0, le=2**31)]
Probability = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
Word = Annotated[int, Field(ge=0, le=2**32 - 1)]


class Record(BaseModel):
    """A part of a save or log: strict JSON types (no "5" for 5), no unknown key."""

    model_config = ConfigDict(extra="forbid", strict=True)


# ------------------------------------------------------------------ log entries
class DerivationData(Record):
    """One node of an explanation (`values.Derivation.to_json`)."""

    what: str
    value: Any = None
    citations: list[str] = Field(default_factory=list)
    steps: list["DerivationData"] = Field(default_factory=list)


class ChoiceData(Record):
    """A decision made inside an action or an automatic step: one option, or a subset."""

    choice: str
    by: str
    index: Annotated[int, Field(ge=-1, le=2**31)] | None = None
    indices: list[Count] | None = None
    value: Any = None
    seen: Any = None

    @model_validator(mode="after")
    def one_kind(self):
        if (self.index is None) == (self.indices is None):
            raise ValueError("a choice has either an index or indices")
        return self


class EntryData(Record):
    n: Count
    turn: Int


class ActionEntry(EntryData):
    k: Literal["action"]
    phase: str
    side: str
    action: str
    args: dict[str, Any]
    text: str
    choices: list[ChoiceData] = Field(default_factory=list)
    trace: list[DerivationData] = Field(default_factory=list)
    hidden_from: list[str] = Field(default_factory=list)


class PassEntry(EntryData):
    k: Literal["pass"]
    phase: str
    side: str


class AutoEntry(EntryData):
    k: Literal["auto"]
    what: str
    phase: str | None
    side: str | None
    choices: list[ChoiceData] = Field(default_factory=list)
    trace: list[DerivationData] = Field(default_factory=list)
    hidden_from: list[str] = Field(default_factory=list)


class EndEntry(EntryData):
    k: Literal["end"]
    winner: str | None
    reason: str | None
    sudden_death: bool
    sides: dict[str, dict[str, Any]]


# A new kind of log entry is one more model here (and its meaning in consistency.py).
LogEntry = Annotated[Union[ActionEntry, PassEntry, AutoEntry, EndEntry], Field(discriminator="k")]
_ENTRY = TypeAdapter(LogEntry)


class LogHeader(Record):
    format: Literal["warcodex-log"]
    version: Literal[2]
    game: str
    game_dir: str | None = None
    rules: str
    scenario: str
    seed: Int
    options: dict[str, bool | Int | str]
    dice: list[Annotated[int, Field(ge=1, le=10**6)]] | None = Field(
        default=None, description="the fixed die rolls the game was played with (play --dice)")
    entries: Count = Field(description="how many entries follow, before the end marker")
    overlays: list[str] | None = Field(
        default=None, description="the rule overlays the game was played with (a failure of warcodex balance)")
    agents: list[str] | None = Field(default=None, description="the agents' specs, one a side (warcodex balance)")


class LogEnd(Record):
    end: Literal["warcodex-log"]
    entries: Count


# ------------------------------------------------------------------ saves
class RngState(Record):
    """Python's random.Random state as JSON: [3, [624 words and the index], gauss_next]."""

    version: Literal[3]
    internal: Annotated[list[Word], Field(min_length=625, max_length=625)]
    gauss_next: float | None

    @model_validator(mode="before")
    @classmethod
    def from_list(cls, data):
        if isinstance(data, (list, tuple)):
            if len(data) != 3:
                raise ValueError("an RNG state is a list of 3: [3, [625 numbers], gauss_next]")
            return {"version": data[0], "internal": data[1], "gauss_next": data[2]}
        return data

    @model_validator(mode="after")
    def index_in_range(self):
        if self.internal[-1] > 624:
            raise ValueError("the RNG state's index (its last number) must be at most 624")
        return self

    @model_serializer
    def as_list(self) -> list:
        """Written as Python's getstate() is: [3, [625 numbers], gauss_next]."""
        return [self.version, list(self.internal), self.gauss_next]


def _rng_dump(rng: random.Random) -> RngState:
    version, internal, gauss = rng.getstate()
    return RngState(version=version, internal=list(internal), gauss_next=gauss)


def _rng_load(data: RngState) -> random.Random:
    rng = random.Random()
    rng.setstate((data.version, tuple(data.internal), data.gauss_next))
    return rng


class UnitData(Record):
    id: Annotated[int, Field(ge=1, le=2**31)]
    type: str
    side: str
    loc: str | None
    steps: Count
    max_steps: Annotated[int, Field(ge=1, le=2**31)]
    label: str
    markers: list[str] = Field(default_factory=list)
    vars: dict[str, Any] = Field(default_factory=dict)
    box: str | None = None


class PositionData(Record):
    turn: Int
    op: Count
    started: bool
    in_allow: Count
    sides: dict[str, str] = Field(default_factory=dict, description="the side of each player_turn block being played, by operation index")


class StateBase(Record):
    scenario: str
    seed: Int
    units: list[UnitData]
    vars: dict[str, Any]
    side_vars: dict[str, dict[str, Any]]
    loc_vars: dict[str, dict[str, Any]]
    loc_markers: dict[str, list[str]]
    options: dict[str, bool | Int | str]
    active: str | None
    phase: str | None
    turn_order: list[str]
    position: PositionData
    next_unit_id: Annotated[int, Field(ge=1, le=2**31)]
    winner: str | None
    win_reason: str | None
    over: bool
    ended: bool
    rng: RngState = Field(description="Python random.Random state: [version, [625 ints], gauss_next]")
    dice: list[Annotated[int, Field(ge=1, le=10**6)]] | None = Field(
        default=None, description="fixed die rolls given to the game (play --dice), rolled first; then the RNG's")
    dice_used: Count = 0
    # the stacks whose order is not the units' ids in order (a unit put on top, `to_top`): bottom first
    stacks: dict[str, list[Int]] = Field(default_factory=dict, description="stack order where it is not by unit id, bottom first")

    @model_validator(mode="after")
    def dice_in_range(self):
        if self.dice_used > len(self.dice or ()):
            raise ValueError(f"dice_used {self.dice_used} is more than the {len(self.dice or ())} fixed rolls")
        return self


def _plain_state_fields() -> dict:
    hints = typing.get_type_hints(GameState)
    return {f.name: (hints[f.name], Field(default_factory=f.default_factory)) for f in plain_fields()}


# The saved state: StateBase plus every PLAIN field of GameState, typed by its annotation.
StateData = create_model("StateData", __base__=StateBase, **_plain_state_fields())


class AgentData(Record):
    kind: Literal["random", "first"]
    rng: RngState | None = None
    pass_probability: Probability | None = None

    @model_validator(mode="after")
    def random_has_rng(self):
        if self.kind == "random" and self.rng is None:
            raise ValueError("a random agent's save needs its rng")
        return self


class SaveFile(Record):
    """A saved game. `warcodex schema` prints this model's JSON schema."""

    format: Literal["warcodex-save"] = SAVE_FORMAT
    version: Literal[1] = SAVE_VERSION
    game: str
    rules: str = Field(description="fingerprint of the rules files the save was made with")
    state: StateData
    agents: dict[str, AgentData]
    log: list[LogEntry]


class SaveError(Exception):
    """A save or a log that cannot be used; the message says why (and where, for a log line)."""


# ------------------------------------------------------------------ state <-> data
def state_to_data(engine, state: GameState) -> StateData:
    j = engine.to_json
    return StateData(
        scenario=state.scenario, seed=state.seed,
        units=[UnitData(id=u.id, type=u.type, side=u.side, loc=u.loc, steps=u.steps, max_steps=u.max_steps,
                        label=u.label, markers=sorted(u.markers), vars={k: j(v) for k, v in u.vars}, box=u.box)
               for u in sorted(state.units.values(), key=lambda u: u.id)],
        vars={k: j(v) for k, v in state.vars.items()},
        side_vars={s: {k: j(v) for k, v in vals.items()} for s, vals in state.side_vars.items()},
        loc_vars={h: {k: j(v) for k, v in vals.items()} for h, vals in state.loc_vars.items()},
        loc_markers={h: sorted(m) for h, m in state.loc_markers.items() if m},
        options={k: j(v) for k, v in state.options.items()},
        active=state.active, phase=state.phase, turn_order=list(state.turn_order),
        position=PositionData(**{**vars(state.position), "sides": dict(state.position.sides)}), next_unit_id=state.next_unit_id, winner=state.winner,
        win_reason=state.win_reason, over=state.over, ended=state.ended, rng=_rng_dump(state.rng),
        stacks={h: list(ids) for h, ids in state.at.items() if list(ids) != sorted(ids)},
        dice=list(state.rng.rolls) if isinstance(state.rng, FixedDice) else None,
        dice_used=state.rng.used if isinstance(state.rng, FixedDice) else 0,
        **{f.name: getattr(state, f.name) for f in plain_fields()},
    )


def state_from_data(engine, data: StateData) -> GameState:
    """The state a checked save describes (`consistency.check_state` first)."""
    f = engine.from_json
    rng = _rng_load(data.rng)
    if data.dice is not None:  # fixed rolls given with play --dice: those not used yet come first
        fixed = FixedDice(data.dice, data.seed)
        fixed.used = data.dice_used
        fixed.setstate(rng.getstate())
        rng = fixed
    state = GameState(scenario=data.scenario, seed=data.seed, rng=rng)
    for u in data.units:
        state.put(Unit(id=u.id, type=u.type, side=u.side, loc=u.loc, steps=u.steps, max_steps=u.max_steps, label=u.label,
                       markers=frozenset(u.markers), vars=tuple(sorted((k, f(v)) for k, v in u.vars.items())), box=u.box))
    for h, ids in data.stacks.items():  # checked: the same units as at h
        state.at[h] = tuple(ids)
    state.vars = {k: f(v) for k, v in data.vars.items()}
    state.side_vars = {s: {k: f(v) for k, v in vals.items()} for s, vals in data.side_vars.items()}
    state.loc_vars = {h: {k: f(v) for k, v in vals.items()} for h, vals in data.loc_vars.items()}
    state.loc_markers = {h: frozenset(m) for h, m in data.loc_markers.items()}
    for field in plain_fields():
        setattr(state, field.name, json.loads(json.dumps(getattr(data, field.name))))  # a private copy
    state.options = {k: f(v) for k, v in data.options.items()}
    state.active, state.phase, state.turn_order = data.active, data.phase, tuple(data.turn_order)
    state.position = Position(**data.position.model_dump())
    state.next_unit_id = data.next_unit_id
    state.winner, state.win_reason, state.over, state.ended = data.winner, data.win_reason, data.over, data.ended
    state.version = 0
    return state


def agent_to_data(agent) -> AgentData:
    if isinstance(agent, RandomAgent):
        return AgentData(kind="random", rng=_rng_dump(agent.rng), pass_probability=agent.pass_probability)
    if isinstance(agent, FirstAgent):
        return AgentData(kind="first")
    raise SaveError(f"an agent of kind {type(agent).__name__} cannot be saved (random and first can)")


def agent_from_data(data: AgentData):
    if data.kind == "random":
        agent = RandomAgent(0, data.pass_probability if data.pass_probability is not None else 0.05)
        agent.rng = _rng_load(data.rng)
        return agent
    return FirstAgent()


# ------------------------------------------------------------------ reading JSON
def _where(loc) -> str:
    parts = [str(p) for p in loc]
    if len(parts) > 8:  # a deep trace: the start and the end say enough
        parts = parts[:4] + ["..."] + parts[-3:]
    return ".".join(parts)


def validation_message(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = _where(first["loc"])
    more = exc.error_count() - 1
    return f"{where + ': ' if where else ''}{first['msg']}" + (f" (and {more} more problem(s))" if more else "")


def parse_json(text: str, path: str, line: int | None = None):
    """JSON text as Python data; SaveError located at the line and column of bad JSON (also for
    nesting deeper than 200 levels, numbers of more than 4300 digits, NaN or Infinity)."""
    try:
        return pydantic_core.from_json(text, allow_inf_nan=False)
    except ValueError as exc:
        message = str(exc)
        reason, _, position = message.partition(" at line ")
        row, _, column = position.partition(" column ")
        if line is not None and row == "1":
            row = str(line)
        where = f"{path}:{row}:{column}" if position else path
        raise SaveError(f"{where}: not valid JSON: {reason}") from None


def read_record_text(path: str | Path) -> str:
    try:
        return inputs.read_text(path, inputs.MAX_RECORD_BYTES, "record")
    except inputs.InputError as exc:
        raise SaveError(str(exc)) from None


# ------------------------------------------------------------------ saves: write and read
def save_game(engine, game, path: str | Path) -> None:
    data = SaveFile(game=engine.game.game.name, rules=engine.fingerprint, state=state_to_data(engine, game.state),
                    agents={side: agent_to_data(a) for side, a in game.agents.items()}, log=[])
    record = data.model_dump(mode="json")
    record["log"] = game.log  # the entries exactly as logged: a continued game's log is the same
    write_atomic(Path(path), json.dumps(record, indent=1, ensure_ascii=False))


def read_save_file(path: str | Path, text: str | None = None) -> tuple[SaveFile, dict]:
    """The save's model and its raw JSON (the log entries as written), checked for shape only."""
    text = read_record_text(path) if text is None else text
    raw = parse_json(text, str(path))
    if not isinstance(raw, dict) or raw.get("format") != SAVE_FORMAT:
        raise SaveError(f"{path} is not a Warcodex save")
    if raw.get("version") != SAVE_VERSION:
        raise SaveError(f"{path} is a version {raw.get('version')!r} save; this Warcodex reads version {SAVE_VERSION}")
    try:
        return SaveFile.model_validate(raw), raw
    except ValidationError as exc:
        raise SaveError(f"{path} is corrupt: {validation_message(exc)}") from None


def load_save(engine, path: str | Path, force: bool = False):
    """Read a save and return (state, agents, log); SaveError says what is wrong with it. With
    `force`, a save made with other rules files is read too (and still checked against these)."""
    from warcodex.interpreter.consistency import check_save

    data, raw = read_save_file(path)
    if data.game != engine.game.game.name:
        raise SaveError(f"{path} is a save of '{data.game}', not of '{engine.game.game.name}'")
    if data.rules != engine.fingerprint and not force:
        raise SaveError(f"{path} was made with different rules files (fingerprint {data.rules}, now {engine.fingerprint}); "
                        "replay its log instead, use the rules it was made with, or load it anyway with --force")
    check_save(engine, data, raw, str(path))
    state = state_from_data(engine, data.state)
    agents = {side: agent_from_data(a) for side, a in data.agents.items()}
    return state, agents, raw["log"]


# ------------------------------------------------------------------ logs: write and read
def log_header(engine, game, options: dict, entries: int) -> dict:
    header = {"format": LOG_FORMAT, "version": LOG_VERSION, "game": engine.game.game.name,
              "game_dir": str(engine.game.root), "rules": engine.fingerprint, "scenario": game.state.scenario,
              "seed": game.state.seed, "options": options, "entries": entries}
    rolls = getattr(game.state.rng, "rolls", None)
    if rolls:  # the fixed dice the game was played with: a replay rolls them again
        header["dice"] = list(rolls)
    return header


def log_file_text(header: dict, log: list[dict]) -> str:
    """A log file's text: the header (its `entries` the number of entries), the entries, the end marker."""
    from warcodex.interpreter.play import log_text

    return (json.dumps(header, sort_keys=True) + "\n" + log_text(log)
            + json.dumps({"end": LOG_FORMAT, "entries": len(log)}, sort_keys=True) + "\n")


def write_log(path: str | Path, engine, game, options: dict) -> None:
    """The log file of a game: header, entries, end marker (written atomically)."""
    write_atomic(Path(path), log_file_text(log_header(engine, game, options, len(game.log)), game.log))


def is_log_text(text: str) -> bool:
    """True if the text starts like a log (its first line is a log header), not like a save."""
    first = text.lstrip()[:200]
    return first.startswith("{") and f'"format": "{LOG_FORMAT}"' in first.split("\n", 1)[0]


def read_log(path: str | Path, text: str | None = None) -> tuple[dict, list[dict]]:
    """A log's header and entries, checked for shape: every line valid, the entry count equal in
    the header, the entries and the end marker. SaveError locates the first problem by line."""
    text = read_record_text(path) if text is None else text
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or not lines[0].strip():
        raise SaveError(f"{path} is empty, not a Warcodex log")
    raw = parse_json(lines[0], str(path), 1)
    if not isinstance(raw, dict) or raw.get("format") != LOG_FORMAT:
        raise SaveError(f"{path} is not a Warcodex log (its first line is not a '{LOG_FORMAT}' header)")
    if raw.get("version") != LOG_VERSION:
        raise SaveError(f"{path} is a version {raw.get('version')!r} log; this Warcodex reads version {LOG_VERSION}"
                        + (" (version 1 logs have no entry count, so a cut one cannot be told from a whole one: "
                           "play the game again to record it)" if raw.get("version") == 1 else ""))
    try:
        header = LogHeader.model_validate(raw)
    except ValidationError as exc:
        raise SaveError(f"{path}:1: bad log header: {validation_message(exc)}") from None
    count = header.entries
    if len(lines) != count + 2:
        found = max(0, len(lines) - 1)
        raise SaveError(f"{path} is incomplete or has extra lines: its header announces {count} entries and an end "
                        f"marker, the file has {found} line(s) after the header (a log cut short is never replayed)")
    entries = []
    for i, line in enumerate(lines[1:-1]):
        entry = parse_json(line, str(path), i + 2)
        try:
            _ENTRY.validate_python(entry)
        except ValidationError as exc:
            raise SaveError(f"{path}:{i + 2}: bad log entry: {validation_message(exc)}") from None
        if entry["n"] != i:
            raise SaveError(f"{path}:{i + 2}: entry number {entry['n']}, expected {i} (entries are numbered in order)")
        entries.append(entry)
    end = parse_json(lines[-1], str(path), len(lines))
    try:
        marker = LogEnd.model_validate(end)
    except ValidationError:
        raise SaveError(f"{path}:{len(lines)}: the log has no end marker (it was cut short, or lines were added)") from None
    if marker.entries != count:
        raise SaveError(f"{path}:{len(lines)}: the end marker counts {marker.entries} entries, the header {count}")
    return header.model_dump(), entries


def validate_entries(entries: list[dict], where: str) -> None:
    """Shape-check log entries given as data (the log of a save is checked with the save)."""
    for i, entry in enumerate(entries):
        try:
            _ENTRY.validate_python(entry)
        except ValidationError as exc:
            raise SaveError(f"{where}: log entry {i}: {validation_message(exc)}") from None


def read_entries(path: str | Path) -> list[dict]:
    """The log entries of a log file or of a save, checked for shape (for `explain`)."""
    text = read_record_text(path)
    if is_log_text(text):
        return read_log(path, text)[1]
    return read_save_file(path, text)[1]["log"]
