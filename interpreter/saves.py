"""Saved games: JSON with a format version, validated by pydantic models (with a JSON schema).

A save holds everything needed to continue exactly: the state (units, variables, markers, decks,
the dice RNG, the sequence position), the log so far, and each agent's own RNG. It records the
rules' fingerprint, so a save made with other rules is refused with a clear message rather than
continued wrongly. Files are written atomically (temporary file, then rename).
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from warcodex.interpreter.agents import FirstAgent, RandomAgent
from warcodex.interpreter.dice import FixedDice
from warcodex.interpreter.state import GameState, Position, Unit

SAVE_FORMAT = "warcodex-save"
SAVE_VERSION = 1


class UnitData(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: int
    type: str
    side: str
    loc: str | None
    steps: int
    max_steps: int
    label: str
    markers: list[str] = Field(default_factory=list)
    vars: dict[str, Any] = Field(default_factory=dict)
    box: str | None = None


class PositionData(BaseModel):
    model_config = ConfigDict(extra="forbid")
    turn: int
    op: int
    started: bool
    in_allow: int
    sides: dict[str, str] = Field(default_factory=dict, description="the side of each player_turn block being played, by operation index")


class StateData(BaseModel):
    model_config = ConfigDict(extra="forbid")
    scenario: str
    seed: int
    units: list[UnitData]
    vars: dict[str, Any]
    side_vars: dict[str, dict[str, Any]]
    loc_vars: dict[str, dict[str, Any]]
    loc_markers: dict[str, list[str]]
    decks: dict[str, dict[str, list[str]]]
    hands: dict[str, list[str]]
    card_uses: list[dict[str, Any]] = Field(default_factory=list, description="the current player turn's card uses")
    options: dict[str, Any]
    active: str | None
    phase: str | None
    turn_order: list[str]
    position: PositionData
    next_unit_id: int
    winner: str | None
    win_reason: str | None
    over: bool
    ended: bool
    rng: list[Any] = Field(description="Python random.Random state: [version, [625 ints], gauss_next]")
    dice: list[int] | None = Field(default=None, description="fixed die rolls given to the game (play --dice), "
                                   "rolled first; then the RNG's")
    dice_used: int = 0


class AgentData(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["random", "first"]
    rng: list[Any] | None = None
    pass_probability: float | None = None


class SaveFile(BaseModel):
    """A saved game. `warcodex schema` prints this model's JSON schema."""

    model_config = ConfigDict(extra="forbid")
    format: Literal["warcodex-save"] = SAVE_FORMAT
    version: int = SAVE_VERSION
    game: str
    rules: str = Field(description="fingerprint of the rules files the save was made with")
    state: StateData
    agents: dict[str, AgentData]
    log: list[dict[str, Any]]


class SaveError(Exception):
    """A save that cannot be used; the message says why."""


def _rng_to_json(rng: random.Random) -> list:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _rng_from_json(data: list) -> random.Random:
    rng = random.Random()
    rng.setstate((data[0], tuple(data[1]), data[2]))
    return rng


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
        decks=state.decks, hands=state.hands, card_uses=state.card_uses, options={k: j(v) for k, v in state.options.items()},
        active=state.active, phase=state.phase, turn_order=list(state.turn_order),
        position=PositionData(**{**vars(state.position), "sides": dict(state.position.sides)}), next_unit_id=state.next_unit_id, winner=state.winner,
        win_reason=state.win_reason, over=state.over, ended=state.ended, rng=_rng_to_json(state.rng),
        dice=list(state.rng.rolls) if isinstance(state.rng, FixedDice) else None,
        dice_used=state.rng.used if isinstance(state.rng, FixedDice) else 0,
    )


def state_from_data(engine, data: StateData) -> GameState:
    f = engine.from_json
    rng = _rng_from_json(data.rng)
    if data.dice is not None:  # fixed rolls given with play --dice: those not used yet come first
        fixed = FixedDice(data.dice, data.seed)
        fixed.used = data.dice_used
        fixed.setstate(rng.getstate())
        rng = fixed
    state = GameState(scenario=data.scenario, seed=data.seed, rng=rng)
    for u in data.units:
        if u.type not in engine.entities or u.side not in engine.entities:
            raise SaveError(f"unit {u.id} has unknown type or side ({u.type}, {u.side})")
        if u.loc is not None and u.loc not in engine.board.index:
            raise SaveError(f"unit {u.id} is at '{u.loc}', which is not on the map")
        state.put(Unit(id=u.id, type=u.type, side=u.side, loc=u.loc, steps=u.steps, max_steps=u.max_steps, label=u.label,
                       markers=frozenset(u.markers), vars=tuple(sorted((k, f(v)) for k, v in u.vars.items())), box=u.box))
    state.vars = {k: f(v) for k, v in data.vars.items()}
    state.side_vars = {s: {k: f(v) for k, v in vals.items()} for s, vals in data.side_vars.items()}
    state.loc_vars = {h: {k: f(v) for k, v in vals.items()} for h, vals in data.loc_vars.items()}
    state.loc_markers = {h: frozenset(m) for h, m in data.loc_markers.items()}
    state.decks, state.hands, state.card_uses = data.decks, data.hands, [dict(u) for u in data.card_uses]
    state.options = {k: f(v) for k, v in data.options.items()}
    state.active, state.phase, state.turn_order = data.active, data.phase, tuple(data.turn_order)
    state.position = Position(**data.position.model_dump())
    state.next_unit_id = data.next_unit_id
    state.winner, state.win_reason, state.over, state.ended = data.winner, data.win_reason, data.over, data.ended
    state.version = 0
    return state


def agent_to_data(agent) -> AgentData:
    if isinstance(agent, RandomAgent):
        return AgentData(kind="random", rng=_rng_to_json(agent.rng), pass_probability=agent.pass_probability)
    if isinstance(agent, FirstAgent):
        return AgentData(kind="first")
    raise SaveError(f"an agent of kind {type(agent).__name__} cannot be saved (random and first can)")


def agent_from_data(data: AgentData):
    if data.kind == "random":
        agent = RandomAgent(0, data.pass_probability if data.pass_probability is not None else 0.05)
        agent.rng = _rng_from_json(data.rng)
        return agent
    return FirstAgent()


def save_game(engine, game, path: str | Path) -> None:
    data = SaveFile(game=engine.game.game.name, rules=engine.fingerprint, state=state_to_data(engine, game.state),
                    agents={side: agent_to_data(a) for side, a in game.agents.items()}, log=game.log)
    write_atomic(Path(path), data.model_dump_json(indent=1))


def load_save(engine, path: str | Path):
    """Read a save and return (state, agents, log); SaveError says what is wrong with it."""
    from warcodex.interpreter.values import RuleError

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SaveError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SaveError(f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}") from None
    if not isinstance(raw, dict) or raw.get("format") != SAVE_FORMAT:
        raise SaveError(f"{path} is not a Warcodex save")
    if raw.get("version") != SAVE_VERSION:
        raise SaveError(f"{path} is a version {raw.get('version')} save; this Warcodex reads version {SAVE_VERSION}")
    try:
        data = SaveFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SaveError(f"{path} is corrupt: {where}: {first['msg']} ({exc.error_count()} problem(s))") from None
    if data.game != engine.game.game.name:
        raise SaveError(f"{path} is a save of '{data.game}', not of '{engine.game.game.name}'")
    if data.rules != engine.fingerprint:
        raise SaveError(f"{path} was made with different rules files (fingerprint {data.rules}, now {engine.fingerprint}); "
                        "replay its log instead, or use the rules it was made with")
    try:
        state = state_from_data(engine, data.state)
    except (ValueError, RuleError) as exc:
        raise SaveError(f"{path} is corrupt: {exc}") from None
    agents = {side: agent_from_data(a) for side, a in data.agents.items()}
    return state, agents, data.log


def write_atomic(path: Path, content: str | bytes) -> None:
    """Write a file so that readers see the old or the new content, never a half-written one
    (text is written as UTF-8)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(content.encode("utf-8") if isinstance(content, str) else content)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
