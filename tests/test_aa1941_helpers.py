"""Helpers for the Axis & Allies 1941 tests: an empty board with the starting control, units placed
by hand, fixed dice, and agents whose decisions the test scripts (casualties by unit type,
submerging, pressing on or retreating)."""

from __future__ import annotations

from functools import lru_cache

from warcodex.dsl.checker import check_path
from warcodex.interpreter.actions import ActionChoice
from warcodex.interpreter.agents import FirstAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.dice import FixedDice
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.values import Entity, RuleError, UnitRef

GAME = "games/axis-allies-1941"
POWERS = ("soviet_union", "germany", "united_kingdom", "japan", "united_states")


@lru_cache(maxsize=1)
def engine() -> Engine:
    game, diags = check_path(GAME)
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    return Engine(game)


class Script(FirstAgent):
    """Deterministic decisions, scripted where the test cares.

    - casualties (`choose v`): the first option whose type comes first in `losses` (default: the
      order the options are offered);
    - `decision` (press attack / retreat): the next entry of `decisions`, else "press attack";
    - subsets (submerging `dive_a`/`dive_d`): `dive` (True: all, False: none; default none);
    - anything else: the first option, or a name -> index/type override in `picks`.
    """

    def __init__(self, losses=(), decisions=(), dive=False, picks=None):
        self.losses = list(losses)
        self.decisions = list(decisions)
        self.dive = dive
        self.picks = dict(picks or {})
        self.asked: list[tuple[str, tuple]] = []

    def choose(self, ctx, who, what, options, optional):
        self.asked.append((what, options))
        eng = ctx.engine
        if what == "decision":
            want = self.decisions.pop(0) if self.decisions else "press attack"
            return options.index(want)
        if what in self.picks:
            pick = self.picks[what]
            if isinstance(pick, int):
                return pick
            for i, o in enumerate(options):
                if o == pick or (isinstance(o, UnitRef) and ctx.state.units[o.id].type == pick):
                    return i
        if what == "v" and self.losses:
            types = [ctx.state.units[o.id].type for o in options]
            for t in self.losses:
                if t in types:
                    return types.index(t)
        return 0

    def choose_subset(self, ctx, who, what, options, lo, hi):
        self.asked.append((what, options))
        if what.startswith("dive"):
            return list(range(len(options))) if self.dive else []
        return super().choose_subset(ctx, who, what, options, lo, hi)


class Table:
    """One test position: the empty 1941 board with starting control and treasuries, fixed dice,
    and one scripted agent per power."""

    def __init__(self, rolls=(), active="germany", agents=None, options=None, phase="combat"):
        self.eng = engine()
        self.state = self.eng.new_game("world_1941", seed=0, options=options, setup=False)
        self.agents = {p: Script() for p in POWERS}
        self.agents.update(agents or {})
        self.ctx = Context(self.eng, self.state, self.agents)
        self.call("start_positions")
        self.state.rng = FixedDice(list(rolls))
        self.begin(active, phase)

    # ---------------------------------------------------------------- set-up
    def begin(self, power: str, phase: str = "combat") -> None:
        """Start `power`'s turn (the start-of-turn snapshot) and stand in `phase`."""
        self.state.active = power
        self.state.phase = "start_of_turn"
        self.call("begin_turn", self.side(power))
        self.state.phase = phase
        self.state.touch()

    def side(self, name: str) -> Entity:
        return self.eng.entities[name]

    def place(self, type_: str, power: str, where: str, n: int = 1):
        refs = [self.eng.place(self.ctx, self.eng.entities[type_], self.side(power), where, None, None) for _ in range(n)]
        return refs[0] if n == 1 else refs

    def control(self, where: str, power: str | None, at_start: bool = True) -> None:
        """`where` held by `power` (and at the start of the turn): the change the rules' `set`
        makes, journaled, so the memos reading control there are dropped and only those."""
        value = self.side(power) if power else None
        self.state.set_loc_var(where, "controller", value)
        if at_start:
            self.state.set_loc_var(where, "start_controller", value)

    def aboard(self, cargo, ship) -> None:
        self.set(cargo, "aboard", ship)

    def set(self, unit, var: str, value) -> None:
        u = self.state.units[unit.id]
        self.state.put(u.with_var(var, value))

    def ipc(self, power: str, value: int | None = None) -> int:
        if value is not None:
            self.state.set_side_var(power, "ipc", value)
        return self.eng.attribute(self.ctx, self.side(power), "ipc", None)

    # ---------------------------------------------------------------- rules
    def call(self, procedure: str, *args) -> None:
        self.eng.procedures[procedure](self.ctx, tuple(args), None)

    def fn(self, function: str, *args):
        return self.eng.functions[function](self.ctx, tuple(args), None)

    def fight(self, where: str, attacker: str | None = None) -> None:
        self.call("fight", where, self.side(attacker or self.state.active))

    def legal(self, action: str, **args) -> bool:
        """Whether this action instance is legal now (validated like a player's action)."""
        try:
            self.eng.actions[action].validate(self.ctx, self.choice(action, **args))
            return True
        except RuleError:
            return False

    def do(self, action: str, **args) -> None:
        self.eng.actions[action].apply(self.ctx, self.choice(action, **args))

    def choice(self, action: str, **args) -> ActionChoice:
        params = [p.name for p in self.eng.actions[action].params]
        return ActionChoice(action, tuple((p, args[p]) for p in params))

    def instances(self, action: str) -> list[ActionChoice]:
        return list(self.eng.actions[action].instances(self.ctx))

    # ---------------------------------------------------------------- reading the state
    def loc(self, unit) -> str | None:
        return self.state.units[unit.id].loc

    def alive(self, unit) -> bool:
        return self.state.units[unit.id].loc is not None

    def steps(self, unit) -> int:
        return self.state.units[unit.id].steps

    def var(self, unit, name: str):
        return self.eng.attribute(self.ctx, unit, name, None)

    def controller(self, where: str) -> str | None:
        c = self.state.loc_vars.get(where, {}).get("controller")
        return c.name if c is not None else None

    def units(self, where: str, power: str | None = None, type_: str | None = None) -> list:
        out = []
        for i in self.state.units_at(where):
            u = self.state.units[i]
            if (power is None or u.side == power) and (type_ is None or u.type == type_):
                out.append(UnitRef(i))
        return out

    def production(self, power: str) -> int:
        return self.fn("production", self.side(power))

    def reachable(self, unit, mode: str) -> set[str]:
        return set(self.eng.modes[mode].reachable(self.ctx, unit))

    @property
    def rolls_used(self) -> int:
        return self.state.rng.used
