"""Support for the No Retreat! tests: the REAL game rules (games/no-retreat) on a constructed map
fragment (or the game's own map), with fixed dice, scripted choices and laid-out hands. Other test
modules import `Scene` from here; the tests below check the support itself."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from test_stalingrad_support import Picker

from warcodex.dsl.checker import check_path
from warcodex.interpreter.actions import ActionChoice
from warcodex.interpreter.context import Context
from warcodex.interpreter.dice import FixedDice
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.mapfile import parse_map_text
from warcodex.interpreter.values import Entity, UnitRef

GAME_DIR = Path(__file__).resolve().parent.parent / "games" / "no-retreat"

# a 12 x 8 fragment: columns 01-04 Germany (Axis map edge on column 01), 05-12 the USSR (Soviet map
# edge on column 12); the places the rules name where a test needs them (in `body`)
FRAGMENT = ('  location 0101..0408 { country: "germany" }\n'
            '  location 0501..1208 { country: "ussr" }\n'
            '  location 0101-0108 { map_edge: "axis" }\n'
            '  location 1201-1208 { map_edge: "soviet" }\n')


@lru_cache(maxsize=1)
def game():
    g, diags = check_path(GAME_DIR)
    assert g is not None and not diags.errors, "\n".join(d.render() for d in diags.errors)
    return g


@lru_cache(maxsize=32)
def engine_for(map_text: str | None) -> Engine:
    if map_text is None:
        return Engine(game())
    return Engine(game(), board=parse_map_text(map_text, "fragment.wcmap"))


class Scene:
    """The real rules on a fragment map (`real_map=True`: on the game's own map)."""

    def __init__(self, body: str = "", turn: int = 1, weather: str = "w_clear", active: str = "axis",
                 phase: str = "combat", initiative: str | None = None, dice=(), script: dict | None = None,
                 decline: bool = False, real_map: bool = False, options: dict | None = None,
                 base: str = FRAGMENT) -> None:
        text = None if real_map else ('map "fragment" provisional "built by the test" {\n'
                                      "  grid hex flat odd cols 1..12 rows 1..8 ids CCRR\n  default terrain clear\n"
                                      + base + body + "\n}\n")
        self.engine = e = engine_for(text)
        self.state = e.new_game("campaign", seed=0, options=options, setup=False)
        self.state.position.turn = turn
        self.state.vars["weather"] = e.entities[weather]
        self.state.vars["initiative"] = e.entities[initiative or ("axis" if turn < 12 else "soviet")]
        self.state.active = active
        self.state.phase = phase
        self.state.rng = FixedDice(list(dice))
        self.agent = Picker(script, decline)
        self.ctx = Context(e, self.state, agents={"axis": self.agent, "soviet": self.agent})
        e.cards.piles(self.state, "events")  # the deck exists (shuffled with the fixed dice' seed)

    # -------------------------------------------------------------- setting up
    def unit(self, type_name: str, side: str, at: str | None, *markers: str, steps: int | None = None,
             label: str | None = None, box: str | None = None) -> UnitRef:
        e = self.engine
        if at is None:
            unit = self.state.new_unit(type_name, side, None, int(e.entities[type_name].props.get("steps", 1)),
                                       label or e.entities[type_name].label, box=box)
            u = UnitRef(unit.id)
        else:
            u = e.place(self.ctx, e.entities[type_name], e.entities[side], at, label, None)
        for m in markers:
            e.set_marker(self.ctx, u, m, True, None)
        if steps is not None:
            self.state.put(replace(self.state.units[u.id], steps=steps))
        return u

    def hand(self, side: str, *cards: str) -> None:
        """Give a side exactly these cards, taken from wherever they are."""
        for c in cards:
            for p in self.state.decks["events"].values():
                if c in p:
                    p.remove(c)
            for h in self.state.hands.values():
                if c in h:
                    h.remove(c)
        self.state.hands[side] = list(cards)

    def set(self, name: str, value) -> None:
        self.state.vars[name] = self.engine.entities.get(value, value) if isinstance(value, str) else value

    def side_var(self, side: str, name: str, value) -> None:
        self.state.side_vars.setdefault(side, {})[name] = value

    def own(self, side: str, *hexes: str) -> None:
        for h in hexes:
            self.state.loc_vars.setdefault(h, {})["owner"] = self.engine.entities[side]

    # -------------------------------------------------------------- running rules
    def ent(self, name: str) -> Entity:
        return self.engine.entities[name]

    def _arg(self, a):
        return self.engine.entities[a] if isinstance(a, str) and a in self.engine.entities else a

    def f(self, name: str, *args):
        """A function or quantity of the rules, evaluated now."""
        e = self.engine
        self.state.touch()  # the test may have written the state directly
        fn = e.functions.get(name) or e.quantities.get(name)
        return fn(self.ctx, tuple(self._arg(a) for a in args), None)

    def run(self, name: str, *args) -> None:
        self.state.touch()
        self.engine.procedures[name](self.ctx, tuple(self._arg(a) for a in args), None)

    def act(self, action: str, **args) -> None:
        self.state.touch()
        a = self.engine.actions[action]
        choice = ActionChoice(action, tuple((p.name, self._arg(args[p.name])) for p in a.params))
        a.apply(self.ctx, choice)

    def legal(self, action: str) -> list:
        self.state.touch()
        return list(self.engine.actions[action].instances(self.ctx))

    def u(self, ref: UnitRef):
        return self.state.units[ref.id]

    def at(self, h: str) -> list:
        return [UnitRef(i) for i in self.state.units_at(h)]

    def marked(self, ref: UnitRef, marker: str) -> bool:
        return marker in self.state.units[ref.id].markers

    def vp(self) -> int:
        return self.f("vp")


def test_the_scene_uses_the_real_rules_on_a_fragment():
    s = Scene()
    assert s.engine.board.index and len(s.engine.board.locations) == 96
    u = s.unit("panzer_army", "axis", "0303")
    assert s.u(u).steps == 2 and s.f("movement_allowance", u) == 6


def test_the_real_map_names_every_place_the_rules_use():
    s = Scene(real_map=True)
    for fn in ("moscow", "leningrad", "berlin", "budapest", "bucharest", "warsaw", "konigsberg", "belgrade",
               "sevastopol", "romanian_oilfields"):
        assert s.f(fn) is not None, fn
    assert len(s.f("caucasus_oilfields")) == 2
    assert len(list(s.engine.locations_with("objective"))) == 5
    assert len(list(s.engine.locations_with("germany_objective"))) == 4
