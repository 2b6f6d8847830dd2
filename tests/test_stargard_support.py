"""Support for the Stargard Solstice tests: the REAL game rules (games/stargard-solstice) with the
test-only units of its rule tests (games/stargard-solstice/tests/units.wcx), on a constructed map fragment (16 x 14
flat-top hexes, ids CC.RR like the game's) or on the game's own board, with fixed dice and
scripted choices. Other test modules import `Scene` from here; the tests below check the support."""

from __future__ import annotations

from functools import lru_cache

from game_scene import Scene as GameScene, load_game, neighbours
from warcodex.dsl.hexgrid import HexGrid
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.values import UnitRef

GRID = HexGrid("flat", "odd", cols=16, rows=14, separator=".")


def game():
    return load_game("stargard-solstice")


@lru_cache(maxsize=1)
def real_engine() -> Engine:
    """The game on its own (provisional) board."""
    return Engine(game())


def ring(hex_id: str) -> list[str]:
    """The six neighbours of a fragment hex, in the order N, NE, SE, S, SW, NW."""
    return neighbours(GRID, hex_id)


class Scene(GameScene):
    """The real rules on a fragment of clear hexes (or the game's board with `real=True`)."""

    GAME = "stargard-solstice"
    GRID_LINE = "grid hex flat odd cols 1..16 rows 1..14 ids CC.RR"
    SIDES = ("german", "soviet")

    def __init__(self, body: str = "", turn: int = 2, active: str = "german", phase: str = "combat_segment",
                 dice=(), script: dict | None = None, decline: bool = False, real: bool = False) -> None:
        super().__init__(body, turn, active, phase, dice, script, decline, engine=real_engine() if real else None)

    # -------------------------------------------------------------- setting up
    def boxed(self, type_name: str, side: str, box: str) -> UnitRef:
        e = self.engine
        unit = self.state.new_unit(type_name, side, None, int(e.entities[type_name].props.get("steps", 1)),
                                   e.entities[type_name].label, box=box)
        return UnitRef(unit.id)

    def side_set(self, side: str, name: str, value) -> None:
        self.state.set_side_var(side, name, value)

    def at_turn(self, n: int) -> None:
        self.state.position.turn = n
        self.state.touch()  # memoized values are per state version

    def moves(self, name: str, *args) -> list[tuple[str, str]]:
        """Run a procedure; the (from, to) of every move its trace reports."""
        out = []
        for line in self.traced(name, *args):
            if " moves " in line and " -> " in line:
                a, b = line.split(" moves ", 1)[1].split(" -> ")[:2]
                out.append((a.strip(), b.strip().split()[0]))
        return out

    def option(self, name: str, value: bool = True) -> None:
        self.state.options[name] = value
        self.state.touch()

    def e(self, name: str):
        return self.engine.entities[name]

    # -------------------------------------------------------------- reading
    def side_var(self, side: str, name: str):
        return self.state.side_vars.get(side, {}).get(name)

    def uvar(self, u, name: str):
        return self.engine.attribute(self.ctx, u, name, None)

    def pile(self, name: str) -> list[str]:
        """A pile of the chits as the rules' `pile()` gives it: top chit first."""
        return list(reversed(self.engine.pile(self.ctx, "command_chits", name, None)))


# ---------------------------------------------------------------- the support itself
def test_the_game_and_the_test_units_check_clean():
    assert game().game.name == "stargard_solstice"
    assert "t_inf" in game().names


def test_a_scene_places_units_and_reads_them():
    s = Scene()
    u = s.unit("t_inf", "german", "05.05")
    assert s.loc(u) == "05.05" and s.steps(u) == 2
    assert s.f("is_combat", u) is True and s.f("has_zoc", u) is True
    assert ring("05.05") == ["05.04", "06.05", "06.06", "05.06", "04.06", "04.05"]  # odd columns sit lower


def test_fixed_dice_and_scripted_choices():
    s = Scene(dice=[4], script={"x": ["b"]})
    assert s.state.rng.randint(1, 6) == 4
    assert s.ctx.decide("german", "x", ("a", "b"), False, (), None) == "b"
