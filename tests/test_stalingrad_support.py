"""Support for the Stalingrad '42 tests: the REAL game rules (games/stalingrad42) on a constructed map
fragment, with fixed dice and scripted choices. Other test modules import `Scene` from here; the
tests below check the support itself and the game's self-consistency."""

from __future__ import annotations

from game_scene import Scene as GameScene, load_game, neighbours
from warcodex.dsl.hexgrid import HexGrid
from warcodex.interpreter.tables import IllegalColumn  # noqa: F401  (re-exported for the tests)
from warcodex.interpreter.values import CellValue, UnitRef

GRID = HexGrid("flat", "odd", cols=12, rows=12)


def game():
    """The game with its tests/ folder: the worked examples' unit types (tests/units.wcx) are
    test-only, never part of the game a player loads."""
    return load_game("stalingrad42")


def ring(hex_id: str) -> list[str]:
    """The six neighbours of a hex of the fragment grid, in the order N, NE, SE, S, SW, NW."""
    return neighbours(GRID, hex_id)


class Scene(GameScene):
    """A map fragment (12 x 12 flat-top hexes, clear unless told) with the real rules on it."""

    GAME = "stalingrad42"
    GRID_LINE = "grid hex flat odd cols 1..12 rows 1..12 ids CCRR"
    SIDES = ("axis", "soviet")

    def __init__(self, body: str = "", turn: int = 1, weather: str = "clear_weather", active: str = "axis",
                 phase: str = "combat", dice=(), script: dict | None = None, decline: bool = False) -> None:
        super().__init__(body, turn, active, phase, dice, script, decline)
        self.state.set_var("weather", self.engine.entities[weather])

    def enters(self, type_name: str, side: str, at: str, *markers: str, steps: int | None = None) -> UnitRef:
        """A unit that moves into `at` (firing `enter`, as movement does); `unit` only sets one up."""
        u = self.unit(type_name, side, at, *markers, steps=steps)
        self.engine.move_unit(self.ctx, u, at, None)
        return u

    def mark_hex(self, hex_id: str, marker: str) -> None:
        self.engine.set_marker(self.ctx, hex_id, marker, True, None)

    def column(self, attackers, target: str, air: int = 0, def_air: int = 0, arty: int = 0) -> str:
        """The CRT column after shifts and limits ('3-1', or 'DS/Adv4' beyond 10-1)."""
        value = self.q("crt_column", tuple(attackers), target, air, def_air, arty)
        table = self.engine.tables["crt"]
        index = table.column_index(value, None)
        return str(index) if isinstance(index, CellValue) else table.column_text[index]


def cell(scene: Scene, *codes: str) -> CellValue:
    """A CRT cell made of result codes, e.g. cell(s, "D1", "Adv2")."""
    from warcodex.interpreter.values import Code

    return CellValue(tuple(Code(scene.engine.entities[c]) for c in codes), "crt")


def carry_out(s: Scene, codes, attackers, target: str) -> None:
    """Apply a CRT result to a combat, as the combat procedure does after the roll (§8.3 step 3)."""
    defenders = tuple(UnitRef(i) for i in s.state.units_at(target))
    for a in attackers:
        s.state.put(s.state.units[a.id].with_var("attacked", True))
    att_side = s.engine.entities[s.state.units[attackers[0].id].side]
    def_side = s.engine.entities[s.state.units[defenders[0].id].side]
    s.run("carry_out", cell(s, *codes), tuple(attackers), target, defenders, att_side, def_side)


# ---------------------------------------------------------------- the support and the game itself
def test_the_game_checks_clean():
    assert game().game.name == "stalingrad42"


def test_scene_places_units_and_reads_their_values():
    s = Scene()
    pz = s.unit("test_panzer", "axis", "0505")
    assert s.loc(pz) == "0505" and s.steps(pz) == 3
    assert s.f("is_combat", pz) is True
    assert s.f("is_armor", pz) is True


def test_fixed_dice_and_scripted_choices():
    s = Scene(dice=[4], script={"x": ["b"]})
    assert s.state.rng.randint(1, 6) == 4
    assert s.ctx.decide("axis", "x", ("a", "b"), False, (), None) == "b"
