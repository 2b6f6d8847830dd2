"""Games for the viewer's tests: one played with random agents, the log it wrote, and where every
unit stood after each of its log entries - taken from the game as it was played, independently of
the viewer (which replays the log)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from warcodex.dsl.checker import check_path
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import agents_for, start

ROOT = Path(__file__).resolve().parents[1]


def place(unit) -> str | None:
    """Where the page shows a unit: its location, else its off-map box; None when not in play."""
    if unit.loc is not None:
        return unit.loc
    if unit.box is not None:
        return "box:" + unit.box
    return None


@dataclass
class PlayedGame:
    engine: Engine
    scenario: str
    seed: int
    log: list[dict]
    positions: list[dict[int, str]]  # [0]: the set-up; [i]: after log entry i - 1


@lru_cache(maxsize=None)
def engine(game: str) -> Engine:
    gamedef, diags = check_path(ROOT / "games" / game)
    assert gamedef is not None and not diags.errors
    return Engine(gamedef)


@lru_cache(maxsize=None)
def played(game: str, scenario: str, seed: int, until: int | None = None) -> PlayedGame:
    eng = engine(game)
    g = start(eng, scenario, seed, agents_for(eng, ["random"], seed))

    def now() -> dict[int, str]:
        return {u.id: place(u) for u in g.state.units.values() if place(u) is not None}

    positions = [now()] + [now() for _ in g.log]  # entries logged while setting up change nothing
    g.runner.on_entry = lambda entry: positions.append(now())
    g.run(until_turn=until)
    assert len(positions) == len(g.log) + 1
    return PlayedGame(eng, scenario, seed, list(g.log), positions)
