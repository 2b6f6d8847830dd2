"""Stack order (docs/language.md, `units_at`, `top_unit`, `to_top`): a unit that enters a location
goes on top of its stack, the rules can put one on top without moving it, and a saved game keeps
every stack's order (Stargard Solstice §12.3: the Festung supplies only from the top; §1.1.4: only
the top unit of an enemy stack is seen)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from warcodex.dsl.checker import check_path
from warcodex.interpreter.agents import FirstAgent
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import start
from warcodex.interpreter.saves import SaveError, load_save, save_game

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def engine():
    game, diags = check_path(ROOT / "games" / "tiny")
    assert game is not None and not diags.errors
    return Engine(game)


def _game(engine):
    game = start(engine, "meeting", 1, {s.name: FirstAgent() for s in engine.side_entities})
    state = game.state
    a = state.new_unit("infantry", "axis", "0505", 2, "a")
    b = state.new_unit("infantry", "axis", "0606", 2, "b")
    return game, a, b


def test_a_unit_entering_goes_on_top_and_to_top_restacks(engine):
    game, a, b = _game(engine)
    state = game.state
    state.put(state.units[b.id].but(loc="0505"))
    assert state.units_at("0505") == (a.id, b.id)  # bottom first: b entered last
    version = state.positions_version
    state.to_top(a.id)
    assert state.units_at("0505") == (b.id, a.id) and state.positions_version > version
    state.to_top(a.id)  # already on top: nothing changes
    assert state.units_at("0505") == (b.id, a.id)


def test_a_save_keeps_the_order_of_every_stack(engine, tmp_path):
    game, a, b = _game(engine)
    state = game.state
    state.put(state.units[b.id].but(loc="0505"))
    state.to_top(a.id)
    path = tmp_path / "s.json"
    save_game(engine, game, path)
    assert json.loads(path.read_text())["state"]["stacks"] == {"0505": [b.id, a.id]}
    loaded, _, _ = load_save(engine, path)
    assert loaded.units_at("0505") == (b.id, a.id)
    # a stack order naming other units than those in the hex is refused, with the field
    data = json.loads(path.read_text())
    data["state"]["stacks"] = {"0505": [b.id, a.id, 999]}
    path.write_text(json.dumps(data))
    with pytest.raises(SaveError) as exc:
        load_save(engine, path)
    assert "stacks" in str(exc.value)
