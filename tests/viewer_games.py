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
    hands: list[dict[str, list[str]]]  # each side's cards, at the same steps


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

    def cards() -> dict[str, list[str]]:
        return {side: list(c) for side, c in g.state.hands.items()}

    positions = [now()] + [now() for _ in g.log]  # entries logged while setting up change nothing
    hands = [cards()] + [cards() for _ in g.log]

    def watch(entry) -> None:
        positions.append(now())
        hands.append(cards())

    g.runner.on_entry = watch
    g.run(until_turn=until)
    assert len(positions) == len(g.log) + 1
    return PlayedGame(eng, scenario, seed, list(g.log), positions, hands)


def bundled_games() -> list[tuple[str, str]]:
    """Every game in games/ with its first scenario."""
    out = []
    for folder in sorted(p for p in (ROOT / "games").iterdir() if p.is_dir()):
        out.append((folder.name, next(iter(engine(folder.name).game.scenarios))))
    return out
