"""Support for the Stargard Solstice tests: the REAL game rules (games/stargard-solstice) with the
test-only units of its rule tests (games/stargard-solstice/tests/units.wcx), on a constructed map fragment (16 x 14
flat-top hexes, ids CC.RR like the game's) or on the game's own board, with fixed dice and
scripted choices. Other test modules import `Scene` from here; the tests below check the support."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from warcodex.dsl.checker import check_path
from warcodex.dsl.hexgrid import HexGrid
from warcodex.dsl.mapfile import parse_map_text
from warcodex.interpreter.actions import ActionChoice
from warcodex.interpreter.context import Context
from warcodex.interpreter.dice import FixedDice
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.values import Entity, UnitRef
from scripted import Picker

ROOT = Path(__file__).resolve().parent.parent
GAME_DIR = ROOT / "games" / "stargard-solstice"
GRID = HexGrid("flat", "odd", cols=16, rows=14, separator=".")


@lru_cache(maxsize=1)
def game():
    g, diags = check_path(GAME_DIR, tests=True)
    assert g is not None and not diags.errors, "\n".join(d.render() for d in diags.errors)
    return g


@lru_cache(maxsize=1)
def real_engine() -> Engine:
    """The game on its own (provisional) board."""
    return Engine(game())


@lru_cache(maxsize=32)
def engine_for(map_text: str) -> Engine:
    return Engine(game(), board=parse_map_text(map_text, "fragment.wcmap"))


def ring(hex_id: str) -> list[str]:
    """The six neighbours of a fragment hex, in the order N, NE, SE, S, SW, NW."""
    c, r = GRID.parse_id(hex_id)
    return [GRID.hex_id(cc, rr) for cc, rr in GRID.neighbors(c, r)]


class Scene:
    """The real rules on a fragment of clear hexes (or the game's board with `real=True`)."""

    def __init__(self, body: str = "", turn: int = 2, active: str = "german", phase: str = "combat_segment",
                 dice=(), script: dict | None = None, decline: bool = False, real: bool = False) -> None:
        if real:
            self.engine = real_engine()
        else:
            text = ('map "fragment" provisional "built by the test" {\n'
                    "  grid hex flat odd cols 1..16 rows 1..14 ids CC.RR\n  default terrain clear\n" + body + "\n}\n")
            self.engine = engine_for(text)
        e = self.engine
        self.state = e.new_game(None, seed=0, setup=False)
        self.state.position.turn = turn
        self.state.active = active
        self.state.phase = phase
        self.state.rng = FixedDice(list(dice))
        self.agent = Picker(script, decline)
        self.ctx = Context(e, self.state, agents={"german": self.agent, "soviet": self.agent})

    # -------------------------------------------------------------- setting up
    def unit(self, type_name: str, side: str, at: str, *markers: str, steps: int | None = None, **vars) -> UnitRef:
        e = self.engine
        u = e.place(self.ctx, e.entities[type_name], e.entities[side], at, None, None)
        for m in markers:
            e.set_marker(self.ctx, u, m, True, None)
        if steps is not None:
            self.state.put(replace(self.state.units[u.id], steps=steps))
        for k, v in vars.items():
            self.state.put(self.state.units[u.id].with_var(k, v))
        return u

    def boxed(self, type_name: str, side: str, box: str) -> UnitRef:
        e = self.engine
        unit = self.state.new_unit(type_name, side, None, int(e.entities[type_name].props.get("steps", 1)),
                                   e.entities[type_name].label, box=box)
        return UnitRef(unit.id)

    def set(self, name: str, value) -> None:
        self.state.vars[name] = self.engine.entities.get(value, value) if isinstance(value, str) else value
        self.state.touch()

    def side_set(self, side: str, name: str, value) -> None:
        self.state.side_vars.setdefault(side, {})[name] = value
        self.state.touch()

    def at_turn(self, n: int) -> None:
        self.state.position.turn = n
        self.state.touch()  # memoized values are per state version

    def traced(self, name: str, *args) -> list[str]:
        """Run a procedure and return what its trace says happened, line by line."""
        self.ctx.begin_trace()
        try:
            self.run(name, *args)
        finally:
            trace = self.ctx.end_trace()
        out = []

        def walk(ds):
            for d in ds:
                out.append(d.what)
                walk(d.steps)
        walk(trace)
        return out

    def moves(self, name: str, *args) -> list[tuple[str, str]]:
        """Run a procedure; the (from, to) of every move its trace reports."""
        out = []
        for line in self.traced(name, *args):
            if " moves " in line and " -> " in line:
                a, b = line.split(" moves ", 1)[1].split(" -> ")[:2]
                out.append((a.strip(), b.strip().split()[0]))
        return out

    def dice(self, *rolls) -> None:
        self.state.rng = FixedDice(list(rolls))

    def option(self, name: str, value: bool = True) -> None:
        self.state.options[name] = value
        self.state.touch()

    def e(self, name: str):
        return self.engine.entities[name]

    # -------------------------------------------------------------- evaluating
    def q(self, name: str, *args):
        return self.engine.quantities[name](self.ctx, tuple(args), None)

    def f(self, name: str, *args):
        return self.engine.functions[name](self.ctx, tuple(args), None)

    def run(self, name: str, *args) -> None:
        self.engine.procedures[name](self.ctx, tuple(args), None)

    def act(self, name: str, **args) -> None:
        action = self.engine.actions[name]
        action.apply(self.ctx, ActionChoice(name, tuple((p.name, args[p.name]) for p in action.params)))

    def legal(self, name: str) -> list[dict]:
        return [dict(c.args) for c in self.engine.actions[name].instances(self.ctx)]

    def reach(self, u, mode: str = "normal") -> dict:
        return {loc: entry[0] for loc, entry in self.engine.modes[mode].reachable(self.ctx, u).items()}

    # -------------------------------------------------------------- reading
    def loc(self, u):
        return self.state.units[u.id].loc

    def steps(self, u) -> int:
        return self.state.units[u.id].steps

    def box(self, u):
        return self.state.units[u.id].box

    def markers(self, u) -> set:
        return set(self.state.units[u.id].markers)

    def var(self, name: str):
        v = self.state.vars.get(name)
        return v.name if isinstance(v, Entity) else v

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
