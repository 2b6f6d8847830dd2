"""Stalingrad '42: who may use which *kind* of movement (issue: rules that deviated from the
rulebook). "Tactical Movement only" (§5.4) shuts every other kind of movement: rail (§5.6), the
Kerch crossing (§5.7.2), moves between Entry Areas and out of the Transit Box, which cost the whole
MA (§22.6). The limits come from Disruption (§13.2.1), supply (§16.4), the first turns of Fall Blau
and the Campaign (§S1.2, §S4.2), and the Interim turn (§33.2.3), which Uranus opens with (§S3.4);
only Uranus' first Soviet turn names rail as still allowed."""

from __future__ import annotations

from functools import lru_cache

from test_stalingrad_support import Scene, game

from warcodex.interpreter.agents import FirstAgent
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import start

RAIL = ('  box EA_A "A" { entry_area: "A" side: "soviet" supply_source } adjacent_to: 0106\n'
        '  terrain entry_area: EA_A\n'
        '  path rail: EA_A 0106 0206 0306 0406 0506 0606 0706 0806 0906 1006 1106 1206\n')


@lru_cache(maxsize=1)
def base_engine() -> Engine:
    return Engine(game())


class StopAt(Exception):
    pass


class Probe(FirstAgent):
    """Passes every action until `stop(state, side)` holds; then records the legal actions there,
    grouped by kind, and stops the game. Choices inside procedures are answered by `answers`
    ({what: option -> bool}), else as FirstAgent does."""

    def __init__(self, stop, answers: dict | None = None) -> None:
        self.stop = stop
        self.answers = answers or {}
        self.legal: dict[str, list] = {}
        self.asked: list[tuple[str, tuple]] = []

    def choose_action(self, ctx, side, legal):
        if self.stop(ctx.state, side):
            for a in legal:
                self.legal.setdefault(a.action, []).append(dict(a.args))
            raise StopAt
        return None

    def choose(self, ctx, who, what, options, optional):
        self.asked.append((what, options))
        pick = self.answers.get(what)
        if pick is not None:
            for i, o in enumerate(options):
                if pick(o):
                    return i
        return None if optional and what in ("u",) and not pick else 0


def probe(scenario: str, stop, answers: dict | None = None):
    agent = Probe(stop, answers)
    game_ = start(base_engine(), scenario, 1, {"axis": agent, "soviet": agent})
    try:
        game_.run()
    except StopAt:
        pass
    return game_, agent


def first_movement_phase(side: str):
    return lambda state, s: state.phase == "movement" and s == side


def is_combat(game_, u) -> bool:
    return bool(game_.engine.functions["is_combat"](game_.ctx, (u,), None))


# ---------------------------------------------------------------- §S4.2, §S1.2: Axis Turn 1
def test_campaign_turn_one_axis_combat_units_may_not_rail_but_sps_may():
    """S4.2: "In the Turn 1 Movement Phase, Axis combat units may use Tactical Movement only (2
    hexes). SPs move with their full MA." Rail is a separate kind of movement (5.6.3)."""
    game_, agent = probe("campaign", first_movement_phase("axis"))
    assert game_.state.position.turn == 1
    railing = {a["u"] for a in agent.legal.get("rail_move", [])}
    assert railing, "SPs keep their full movement, rail included"
    assert not any(is_combat(game_, u) for u in railing)
    labels = {game_.state.units[u.id].label for u in railing}
    assert "45th Infantry" not in labels  # the case seen: 1402 -> 1302 by rail on Turn 1
    # and their moves are Tactical (2 hexes) only
    modes = {str(a["mode"]) for a in agent.legal["move"] if is_combat(game_, a["u"])}
    assert modes == {"tactical"}


def test_fall_blau_turn_one_has_the_same_limit():
    game_, agent = probe("fall_blau", first_movement_phase("axis"))
    railing = {a["u"] for a in agent.legal.get("rail_move", [])}
    assert not any(is_combat(game_, u) for u in railing)


def test_turn_one_axis_combat_units_may_not_move_between_entry_areas():
    """A move between Entry Areas costs the unit its entire MA (22.6.1): it is not Tactical
    Movement, so an Axis combat unit may not make it on Turn 1 (S4.2); on Turn 2 it may (22.6.2:
    "A unit that starts in W-Z may move to any other of W-Z")."""
    game_, agent = probe("campaign", first_movement_phase("axis"))
    e, ctx, state = game_.engine, game_.ctx, game_.state
    u = e.place(ctx, e.entities["infantry_division"], e.entities["axis"], "EA_X", "test division", None)
    shifting = {c.args[0][1] for c in e.actions["shift_entry_area"].instances(ctx)}
    assert u not in shifting and not e.functions["beyond_tactical"](ctx, (u,), None)
    state.position.turn = 2
    state.touch()
    shifting = {c.args[0][1] for c in e.actions["shift_entry_area"].instances(ctx)}
    assert u in shifting


# ---------------------------------------------------------------- §16.4 out of supply
def test_out_of_supply_mechanized_units_may_not_rail_non_mechanized_may():
    """16.4: "Mechanized units may use Tactical Movement only; non-mechanized units are
    unaffected." """
    s = Scene(RAIL, active="soviet", phase="movement", turn=5)
    tank = s.unit("tank_corps", "soviet", "0206", "out_of_supply")
    rifle = s.unit("rifle_division", "soviet", "0406", "out_of_supply")
    s.state.phase = "movement"
    s.engine.fire(s.ctx, "phase_start", ("movement",))
    assert not s.f("may_rail", tank) and s.f("tactical_only", tank)
    assert s.f("may_rail", rifle)
    railing = {d["u"] for d in s.legal("rail_move")}
    assert tank not in railing and rifle in railing
    # isolated (the red side of the marker) is out of supply too (16.4: "white or red")
    s2 = Scene(RAIL, active="soviet", phase="movement", turn=5)
    tank2 = s2.unit("tank_corps", "soviet", "0206", "isolated")
    assert not s2.f("may_rail", tank2)


# ---------------------------------------------------------------- §5.7.2, §22.6.4: moves costing the whole MA
KERCH = ('  box EA_W "W" { entry_area: "W" side: "axis" supply_source } adjacent_to: 0101\n'
         '  terrain entry_area: EA_W\n')


def test_disrupted_units_may_not_cross_the_kerch_strait():
    """13.2.1: a Disrupted unit "may use Tactical Movement only, with no rail or sea movement";
    the Kerch crossing is a sea move costing the entire MA (5.7.2)."""
    s = Scene(KERCH, active="axis", phase="movement", turn=5)
    ok = s.unit("infantry_division", "axis", "EA_W")
    bad = s.unit("infantry_division", "axis", "EA_W", "disrupted")
    assert s.f("beyond_tactical", ok) and not s.f("beyond_tactical", bad)


TRANSIT = ('  box EA_F "F" { entry_area: "F" side: "soviet" supply_source } adjacent_to: 0112\n'
           '  box EA_A "A" { entry_area: "A" side: "soviet" supply_source } adjacent_to: 0101\n'
           '  terrain entry_area: EA_F EA_A\n')


def test_only_good_order_units_leave_the_transit_box():
    """22.3.1: "Only Good Order units may leave an Entry Area"; leaving F costs the whole MA
    (22.6.4), which a Disrupted unit does not have (13.2.1)."""
    s = Scene(TRANSIT, active="soviet", phase="movement", turn=5)
    ok = s.unit("rifle_division", "soviet", "EA_F")
    bad = s.unit("rifle_division", "soviet", "EA_F", "disrupted")
    leaving = {d["u"] for d in s.legal("leave_transit_box")}
    assert ok in leaving and bad not in leaving


# ---------------------------------------------------------------- §S3.4, §33.2.3: Uranus
def test_uranus_turn_28_has_no_axis_player_turn_and_no_soviet_initial_phase():
    """S3.4: "Skip the Axis player turn and the Soviet Initial Phase. Play begins with the Soviet
    Movement Phase." The next Axis Movement Phase is on Turn 29."""
    game_, agent = probe("uranus", first_movement_phase("axis"))
    assert game_.state.position.turn == 29
    phases_28 = {(e.get("phase"), e.get("side")) for e in game_.log if e.get("turn") == 28}
    assert ("initial", "soviet") not in phases_28
    assert not any(side == "axis" and phase in ("initial", "movement", "combat", "supply")
                   for phase, side in phases_28)


def test_uranus_turn_28_soviets_use_tactical_and_rail_movement_only():
    """S3.4: "On the first turn Soviet units may use only Tactical and rail movement." """
    game_, agent = probe("uranus", first_movement_phase("soviet"))
    assert game_.state.position.turn == 28
    assert agent.legal.get("rail_move"), "rail stays open to the Soviets on Turn 28"
    assert {str(a["mode"]) for a in agent.legal["move"]} == {"tactical"}
    assert not agent.legal.get("shift_entry_area")


def interim_phase(name: str):
    return lambda state, side: state.phase == name and side == "axis"


INTERIM_MOVEMENT_ACTIONS = {"move", "voluntary_full_retreat", "detrain"}


def test_uranus_interim_turn_has_no_rail_and_no_entry_area_moves():
    """33.2.3: in the Interim turn "all Axis units not in Full Retreat may use Tactical Movement
    only ... Units may detrain, but no rail movement is allowed." Uranus opens with it, after the
    first Soviet player turn (S3.4): on Turn 28 the Axis acts in the Interim Movement Phase, where
    it is offered moves (Tactical only, or full movement in Full Retreat), voluntary Full Retreat
    and detraining, never rail_move or shift_entry_area."""
    game_, agent = probe("uranus", interim_phase("interim_movement"))
    assert game_.state.position.turn == 28
    turn_28 = [e for e in game_.log if e.get("turn") == 28]
    soviet_supply = [i for i, e in enumerate(turn_28) if e.get("phase") == "supply" and e.get("side") == "soviet"]
    interim = [i for i, e in enumerate(turn_28) if e.get("phase") == "interim_movement" and e.get("side") == "axis"]
    assert interim, "the Interim turn began on Turn 28"
    assert soviet_supply and min(interim) > max(soviet_supply)  # after the Soviet player turn ended
    assert set(agent.legal) <= INTERIM_MOVEMENT_ACTIONS
    assert agent.legal.get("move") and agent.legal.get("voluntary_full_retreat")  # Full Retreat is offered
    state = game_.state
    for a in agent.legal["move"]:
        in_fr = "full_retreat" in state.units[a["u"].id].markers
        assert in_fr or str(a["mode"]) == "tactical"
        if str(a["mode"]) == "tactical":
            assert game_.engine.board.distance(state.units[a["u"].id].loc, a["to"]) <= 2
    # no Axis action before the Interim turn on Turn 28: the Axis player turn is skipped (S3.4)
    assert not [e for e in turn_28 if e.get("k") == "action" and e.get("side") == "axis"]


def refused(game_, action: str) -> str:
    """The runner's answer to `action` offered in the step the game stopped at."""
    from warcodex.interpreter.actions import ActionChoice
    from warcodex.interpreter.values import RuleError

    op = game_.engine.sequence.program(game_.ctx)[game_.state.position.op]
    assert op.kind == "allow"
    try:
        game_.runner.apply(ActionChoice(action, ()), op)
    except RuleError as e:
        return str(e)
    raise AssertionError(f"{action} was applied in phase {op.phase.name}")


def test_interim_turn_refuses_actions_outside_its_allowance():
    """33.2.3: "no rail movement is allowed"; the Limited Combat Phase allows Disengagement, "but no
    combat". An action the Interim turn's phases do not allow is refused there, even played
    directly; the Limited Combat Phase offers Disengagement (27.0, an optional rule: here in play)
    and nothing else."""
    game_, agent = probe("uranus", interim_phase("interim_movement"))
    for action in ("rail_move", "attack", "shift_entry_area", "kerch_crossing"):
        assert "not allowed in phase interim_movement" in refused(game_, action)
    agent = Probe(interim_phase("interim_combat"))
    game_ = start(base_engine(), "uranus", 1, {"axis": agent, "soviet": agent}, options={"disengagement": True})
    try:
        game_.run()
    except StopAt:
        pass
    assert game_.state.position.turn == 28 and game_.state.phase == "interim_combat"
    assert set(agent.legal) == {"attempt_disengagement"}
    assert "not allowed in phase interim_combat" in refused(game_, "attack")


def interim_scene(*markers: str) -> tuple:
    """An Axis infantry division at 0505 when an Interim turn begins (§33.2.3)."""
    s = Scene(active="axis", phase="interim_movement", turn=30)
    u = s.unit("infantry_division", "axis", "0505", *markers)
    s.set("interim_turn_pending", True)
    s.run("start_interim_turn")
    assert s.var("in_interim_turn") is True and s.var("interim_turn_pending") is False
    return s, u


def test_interim_turn_voluntary_full_retreat_gives_full_movement():
    """33.2.3: "Units may voluntarily enter Full Retreat in order to move with their full MA." """
    s, u = interim_scene()
    assert {str(a["mode"]) for a in s.legal("move") if a["u"] == u} == {"tactical"}
    s.act("voluntary_full_retreat", u=u)
    modes = {str(a["mode"]) for a in s.legal("move") if a["u"] == u}
    assert "normal" in modes
    s.act("move", u=u, mode=s.engine.entities["normal"], to="0508")
    assert s.loc(u) == "0508"  # three hexes: more than Tactical Movement's two
    # it went into Full Retreat to do so, and the Interim turn's rally (13.4: not in an EZOC, one
    # level) flips Full Retreat to Disrupted
    s.run("recovery", s.engine.entities["axis"])
    assert s.markers(u) == {"disrupted"}


def test_interim_turn_tactical_movement_moves_two_hexes_at_most():
    s, u = interim_scene()
    moves = [a for a in s.legal("move") if a["u"] == u]
    assert moves and {str(a["mode"]) for a in moves} == {"tactical"}
    assert all(s.engine.board.distance("0505", a["to"]) <= 2 for a in moves)
    assert "0507" in {a["to"] for a in moves}
    s.act("move", u=u, mode=s.engine.entities["tactical"], to="0507")
    assert s.loc(u) == "0507" and "full_retreat" not in s.markers(u)
    # the limit is the Interim turn's: once it ends, the unit is free of it
    s.run("end_interim_turn")
    assert not s.f("tactical_only", u)


def test_interim_turn_units_may_detrain():
    """33.2.3: "Units may detrain": the Train marker comes off, and the unit may then move."""
    s, u = interim_scene("train")
    assert u not in {a["u"] for a in s.legal("move")}
    assert [a["u"] for a in s.legal("detrain")] == [u]
    s.act("detrain", u=u)
    assert "train" not in s.markers(u)
    assert u in {a["u"] for a in s.legal("move")}


# ---------------------------------------------------------------- §8.4.1/8.4.2: shifts below 1-3
# An Axis-controlled Major City on a Connected Rail Hex (a rail line from Entry Area W) puts 0505
# in air range (§9.3.5); one 3-5-3 rifle division attacks a 6-7-3 infantry division: 3:7 = 1-3.
AIR = ('  box EA_W "W" { entry_area: "W" side: "axis" supply_source } adjacent_to: 0101\n'
       '  terrain entry_area: EA_W\n'
       '  terrain major_city: 0101\n'
       '  path rail: EA_W 0101\n'
       '  location 0101 { west_of_start_line: true }\n')


def das_scene(called_off: bool) -> tuple:
    s = Scene(AIR, active="soviet", phase="combat", turn=5, dice=[1],
              script={"use_def_air": ["air: 1 column left"]})
    s.state.options["ru_attack_below_1_3_called_off"] = called_off
    s.unit("infantry_division", "axis", "0101")  # holds the city
    defender = s.unit("infantry_division", "axis", "0505")
    attacker = s.unit("rifle_division", "soviet", "0506")
    s.set("german_air_box", 1)
    assert s.f("air_in_range", "0505")
    assert s.column([attacker], "0505") == "1-3"  # 3:7, a legal attack when declared
    assert str(s.q("crt_column", (attacker,), "0505", 0, 1, 0)) == "1-4"  # below the table with the air
    s.act("attack", target="0505", attackers=(attacker,), air="none", asu=None)
    return s, attacker, defender


def test_defensive_air_below_1_3_resolves_at_1_3_by_default():
    """8.4.2: "Apply the minimum and maximum limit after computing the net effect of column shifts
    for both the attacker and the defender" (the 8-1 example clamps at 7-1); PL 8.4.1: "the lowest
    ratio is 1-3". The reading encoded: the combat is resolved on the 1-3 column."""
    s, attacker, defender = das_scene(called_off=False)
    assert s.var("german_air_box") == 0  # the air unit was used
    assert s.state.rng.used == 1  # the die was rolled on the 1-3 column: 1 -> A1 (provisional grid)
    assert s.steps(attacker) == 1 and s.steps(defender) == 3


def test_ru_option_calls_the_attack_off_below_1_3():
    """RU 8.4.1: "Combat at odds below 1-3 is not allowed." With `ru_attack_below_1_3_called_off`
    the attack is called off: no die, no result; the units count as having attacked and defended,
    the air unit is spent."""
    s, attacker, defender = das_scene(called_off=True)
    assert s.state.rng.used == 0
    assert s.steps(attacker) == 2 and s.steps(defender) == 3
    assert s.state.units[attacker.id].var("attacked") is True
    assert s.var("german_air_box") == 0


# ---------------------------------------------------------------- §18.6.3 Ready Supply Points
def test_a_ready_supply_point_moves_by_tactical_movement_only_and_never_rails():
    """18.6.3: "On the full-movement side, an SP ... may use rail and sea movement. On the Ready
    side, it may use only Tactical Movement (2 hexes)." Immobile SPs count as Ready but may rail
    (PL 18.6.8, the reading the game keeps: register entry 44)."""
    s = Scene(RAIL, active="soviet", phase="movement", turn=5)
    full = s.unit("soviet_supply_point", "soviet", "0206")
    ready = s.unit("soviet_supply_point", "soviet", "0306", "sp_ready")
    immobile = s.unit("soviet_immobile_sp", "soviet", "0406")
    s.engine.fire(s.ctx, "phase_start", ("movement",))
    assert s.f("may_rail", full) and not s.f("may_rail", ready) and s.f("may_rail", immobile)
    assert [str(m) for m in s.f("movement_modes", ready)] == ["tactical"]
    assert "normal" in [str(m) for m in s.f("movement_modes", full)]
