"""Support for the Stalingrad '42 tests: the REAL game rules (games/stalingrad42) on a constructed map
fragment, with fixed dice and scripted choices. Other test modules import `Scene` from here; the
tests below check the support itself and the game's self-consistency."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from warcodex.dsl.checker import check_path
from warcodex.dsl.hexgrid import HexGrid
from warcodex.dsl.mapfile import parse_map_text
from warcodex.interpreter.actions import ActionChoice
from warcodex.interpreter.context import Context
from warcodex.interpreter.dice import FixedDice
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.tables import IllegalColumn  # noqa: F401  (re-exported for the tests)
from warcodex.interpreter.values import CellValue, Entity, UnitRef
from scripted import Picker  # noqa: E402  (the tests folder is on the path, as for the other helpers)

GAME_DIR = Path(__file__).resolve().parent.parent / "games" / "stalingrad42"
GRID = HexGrid("flat", "odd", cols=12, rows=12)


@lru_cache(maxsize=1)
def game():
    """The game with its tests/ folder: the worked examples' unit types (tests/units.wcx) are
    test-only, never part of the game a player loads."""
    g, diags = check_path(GAME_DIR, tests=True)
    assert g is not None and not diags.errors, "\n".join(d.render() for d in diags.errors)
    return g


@lru_cache(maxsize=64)
def engine_for(map_text: str) -> Engine:
    """One compiled engine per fragment map (engines keep no game state; scenes share them)."""
    return Engine(game(), board=parse_map_text(map_text, "fragment.wcmap"))


def ring(hex_id: str) -> list[str]:
    """The six neighbours of a hex of the fragment grid, in the order N, NE, SE, S, SW, NW."""
    c, r = GRID.parse_id(hex_id)
    return [GRID.hex_id(cc, rr) for cc, rr in GRID.neighbors(c, r)]


class Scene:
    """A map fragment (12 x 12 flat-top hexes, clear unless told) with the real rules on it."""

    def __init__(self, body: str = "", turn: int = 1, weather: str = "clear_weather", active: str = "axis",
                 phase: str = "combat", dice=(), script: dict | None = None, decline: bool = False) -> None:
        text = ('map "fragment" provisional "built by the test" {\n'
                "  grid hex flat odd cols 1..12 rows 1..12 ids CCRR\n  default terrain clear\n" + body + "\n}\n")
        self.engine = engine_for(text)
        e = self.engine
        self.state = e.new_game(None, seed=0, setup=False)
        self.state.position.turn = turn
        self.state.vars["weather"] = e.entities[weather]
        self.state.active = active
        self.state.phase = phase
        self.state.rng = FixedDice(list(dice))
        self.agent = Picker(script, decline)
        self.ctx = Context(e, self.state, agents={"axis": self.agent, "soviet": self.agent})

    # -------------------------------------------------------------- setting up
    def unit(self, type_name: str, side: str, at: str, *markers: str, steps: int | None = None) -> UnitRef:
        e = self.engine
        u = e.place(self.ctx, e.entities[type_name], e.entities[side], at, None, None)
        for m in markers:
            e.set_marker(self.ctx, u, m, True, None)
        if steps is not None:
            from dataclasses import replace

            self.state.put(replace(self.state.units[u.id], steps=steps))
        return u

    def enters(self, type_name: str, side: str, at: str, *markers: str, steps: int | None = None) -> UnitRef:
        """A unit that moves into `at` (firing `enter`, as movement does); `unit` only sets one up."""
        u = self.unit(type_name, side, at, *markers, steps=steps)
        self.engine.move_unit(self.ctx, u, at, None)
        return u

    def set(self, name: str, value) -> None:
        self.state.vars[name] = self.engine.entities.get(value, value) if isinstance(value, str) else value
        self.state.touch()

    def mark_hex(self, hex_id: str, marker: str) -> None:
        self.engine.set_marker(self.ctx, hex_id, marker, True, None)

    def dice(self, *rolls) -> None:
        self.state.rng = FixedDice(list(rolls))

    # -------------------------------------------------------------- evaluating
    def q(self, name: str, *args):
        return self.engine.quantities[name](self.ctx, tuple(args), None)

    def f(self, name: str, *args):
        return self.engine.functions[name](self.ctx, tuple(args), None)

    def run(self, name: str, *args) -> None:
        self.engine.procedures[name](self.ctx, tuple(args), None)

    def act(self, name: str, **args) -> None:
        action = self.engine.actions[name]
        ordered = tuple((p.name, args[p.name]) for p in action.params)
        action.apply(self.ctx, ActionChoice(name, ordered))

    def legal(self, name: str) -> list:
        return [dict(c.args) for c in self.engine.actions[name].instances(self.ctx)]

    def column(self, attackers, target: str, air: int = 0, def_air: int = 0, arty: int = 0) -> str:
        """The CRT column after shifts and limits ('3-1', or 'DS/Adv4' beyond 10-1)."""
        value = self.q("crt_column", tuple(attackers), target, air, def_air, arty)
        table = self.engine.tables["crt"]
        index = table.column_index(value, None)
        return str(index) if isinstance(index, CellValue) else table.column_text[index]

    def reach(self, u, mode: str = "normal") -> dict:
        return {loc: entry[0] for loc, entry in self.engine.modes[mode].reachable(self.ctx, u).items()}

    # -------------------------------------------------------------- reading
    def loc(self, u):
        return self.state.units[u.id].loc

    def steps(self, u) -> int:
        return self.state.units[u.id].steps

    def markers(self, u) -> set:
        return set(self.state.units[u.id].markers)

    def var(self, name: str):
        v = self.state.vars.get(name)
        return v.name if isinstance(v, Entity) else v

    def box(self, u):
        return self.state.units[u.id].box


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
