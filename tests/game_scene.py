"""What the per-game test supports share: a bundled game loaded with its rule tests' test-only
units, one compiled engine per constructed map fragment, the neighbours of a fragment hex, a
`Scene` (the REAL rules of a game on a fragment, with fixed dice and scripted choices) and the
seeded self-play games the self-play tests check. test_stalingrad_support and
test_stargard_support subclass `Scene` with what their game needs (its grid, sides, defaults)."""

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
from warcodex.interpreter.play import agents_for, start
from warcodex.interpreter.values import Entity, UnitRef
from scripted import Picker

GAMES = Path(__file__).resolve().parent.parent / "games"


def checked(path, tests: bool = False):
    """A game folder (bundled or test-only), checked clean: its errors are the failure's message."""
    g, diags = check_path(path, tests=tests)
    assert g is not None and not diags.errors, "\n".join(d.render() for d in diags.errors)
    return g


@lru_cache(maxsize=8)
def load_game(name: str, tests: bool = True):
    """A bundled game, checked clean; with `tests`, its tests/ folder too (the worked examples'
    unit types are test-only, never part of the game a player loads)."""
    return checked(GAMES / name, tests)


def tiny_engine_with(extra: str, folder: Path, evaluator: str) -> Engine:
    """Tiny Front with the test-only rules `extra` included, copied into `folder` (the bundled game
    is never touched), checked clean, compiled for `evaluator`."""
    import shutil

    shutil.copytree(GAMES / "tiny", folder)
    (folder / "extra.wcx").write_text(extra, encoding="utf-8")
    game_file = folder / "game.wcx"
    game_file.write_text(game_file.read_text(encoding="utf-8") + '\ninclude "extra.wcx"\n', encoding="utf-8")
    game, diags = check_path(folder)
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    return Engine(game, evaluator=evaluator)


@lru_cache(maxsize=96)
def engine_for(name: str, map_text: str) -> Engine:
    """One compiled engine per game and fragment map (engines keep no game state; scenes share them)."""
    return Engine(load_game(name), board=parse_map_text(map_text, "fragment.wcmap"))


def neighbours(grid: HexGrid, hex_id: str) -> list[str]:
    """The six neighbours of a fragment hex, in the order N, NE, SE, S, SW, NW."""
    c, r = grid.parse_id(hex_id)
    return [grid.hex_id(cc, rr) for cc, rr in grid.neighbors(c, r)]


def selfplay(engine: Engine, scenario: str, seeds, until_turn: int) -> list:
    """Random agents play `scenario` for each seed up to `until_turn`, every invariant checked after
    each action, automatic step and phase end (a broken one raises here)."""
    out = []
    for seed in seeds:
        g = start(engine, scenario, seed, agents_for(engine, ["random"], seed), trace=False, check_invariants=True)
        out.append(g.run(until_turn=until_turn))
    return out


class Scene:
    """A game's real rules on a map fragment of clear hexes. A subclass names the game (`GAME`), the
    fragment's grid line (`GRID_LINE`, e.g. 'grid hex flat odd cols 1..12 rows 1..12 ids CCRR')
    and its sides (`SIDES`)."""

    GAME: str = ""
    GRID_LINE: str = ""
    SIDES: tuple[str, ...] = ()

    def __init__(self, body: str = "", turn: int = 1, active: str = "", phase: str = "", dice=(),
                 script: dict | None = None, decline: bool = False, engine: Engine | None = None) -> None:
        if engine is None:
            text = (f'map "fragment" provisional "built by the test" {{\n  {self.GRID_LINE}\n'
                    f"  default terrain clear\n{body}\n}}\n")
            engine = engine_for(self.GAME, text)
        self.engine = engine
        self.state = engine.new_game(None, seed=0, setup=False)
        self.state.position.turn = turn
        self.state.active = active
        self.state.phase = phase
        self.state.rng = FixedDice(list(dice))
        self.agent = Picker(script, decline)
        self.ctx = Context(engine, self.state, agents={s: self.agent for s in self.SIDES})

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

    def set(self, name: str, value) -> None:
        self.state.set_var(name, self.engine.entities.get(value, value) if isinstance(value, str) else value)

    def dice(self, *rolls) -> None:
        self.state.rng = FixedDice(list(rolls))

    # -------------------------------------------------------------- evaluating
    def q(self, name: str, *args):
        return self.engine.quantities[name](self.ctx, tuple(args), None)

    def f(self, name: str, *args):
        return self.engine.functions[name](self.ctx, tuple(args), None)

    def run(self, name: str, *args) -> None:
        self.engine.procedures[name](self.ctx, tuple(args), None)

    def traced(self, name: str, *args) -> list[str]:
        """Run a procedure and return what its explanation says happened, line by line."""
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
