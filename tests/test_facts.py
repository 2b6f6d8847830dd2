"""The facts model (warcodex.facts) against the bundled games and their rulebooks, and the
player-visible errors it fixes in the exporters (issues 17 and 23): counters of `arrive(...)`
units on the wrong side, Fall Blau's missing reinforcements, bridges shown as prohibiting."""

from __future__ import annotations

from pathlib import Path

import pytest

from warcodex.dsl.checker import check_path
from warcodex.facts import facts_of
from warcodex.interpreter.engine import Engine

GAMES = Path(__file__).resolve().parents[1] / "games"


def _game(name):
    game, diags = check_path(GAMES / name)
    assert game is not None and not diags.errors
    return game


@pytest.fixture(scope="module")
def sg():
    return _game("stalingrad42")


@pytest.fixture(scope="module")
def fall_blau(sg):
    return facts_of(Engine(sg, scenario="fall_blau"), "fall_blau")


@pytest.fixture(scope="module")
def tiny():
    return facts_of(Engine(_game("tiny")))


def test_facts_are_computed_once_and_cached_with_the_engine(sg):
    engine = Engine(sg, scenario="fall_blau")
    assert facts_of(engine, "fall_blau") is facts_of(engine, "fall_blau")


def test_owners_of_units_brought_in_by_arrive(fall_blau):
    # §22.1.2: reinforcements enter through arrive(type, side, ...), a procedure that chooses the
    # Entry Area and then places: the side is the one each call names
    owners = {u.name: u.owners for u in fall_blau.unit_types}
    for name in ("leader_manstein", "italian_army_hq", "panzer_27", "allied_army_hq"):
        assert owners[name].sides == ("axis",), name
        assert owners[name].certain
    for name in ("mountain_rifle_division", "leader_chuikov", "reserve_army"):
        assert owners[name].sides == ("soviet",), name


def test_an_undeclared_type_no_rule_places_is_not_guessed(fall_blau, tmp_path):
    # guards_tank_corps is declared `side: soviet` (the language states it)
    assert fall_blau.unit_type("guards_tank_corps").owners.status == "declared"
    assert fall_blau.unit_type("guards_tank_corps").owners.sides == ("soviet",)
    # the worked examples' test-only types (tests/units.wcx) are not part of the game (#17 point 1)
    assert "test_panzer" not in [u.name for u in fall_blau.unit_types]
    assert "test_panzer" not in fall_blau.palette("axis") + fall_blau.palette("soviet")
    # a type that no rule places has no owner, and the model says so: it goes to every palette
    import shutil

    folder = tmp_path / "tiny"
    shutil.copytree(GAMES / "tiny", folder, ignore=shutil.ignore_patterns("tests"))
    with open(folder / "components.wcx", "a", encoding="utf-8") as f:
        f.write('\nunit lonely "Lonely battalion" §2.1 { attack: 1 defense: 1 move: 1 }\n')
    facts = facts_of(Engine(_game(folder)))
    assert facts.unit_type("lonely").owners.status == "unknown"
    assert "lonely" in facts.palette("axis") and "lonely" in facts.palette("soviet")


def test_fall_blau_reinforcements_by_turn(fall_blau):
    # §S1.2: the 5th Reserve Army enters on Turn 3 in Entry Area M; the Reinforcement Display
    # (provisional, §22.1) brings the 384th and 371st Infantry on Turn 3
    turn3 = {(m.side, m.label) for m in fall_blau.arrivals if m.turn == 3}
    assert {("axis", "384th Infantry"), ("axis", "371st Infantry")} <= turn3
    reserve = [m for m in fall_blau.arrivals if m.label and "5th Res. Army" in m.label]
    assert len(reserve) == 5 and all(m.turn == 3 and m.location == "EA_M" for m in reserve)
    assert all(m.phase == "initial" for m in fall_blau.arrivals)  # §22.1.2: in the Initial Phase
    assert all(1 <= m.turn <= 8 for m in fall_blau.arrivals if m.certain)  # the scenario's turns (§S1.1)
    assert all(set(m.turns) <= set(range(1, 9)) for m in fall_blau.arrivals)
    ravenna = next(m for m in fall_blau.arrivals if m.label == "Ravenna")
    assert ravenna.turn == 4 and ravenna.unit_type == "italian_infantry_division"
    assert ravenna.choice is not None  # the owner chooses the Entry Area among a list


def test_campaign_withdrawals_and_conditional_arrivals(sg):
    facts = facts_of(Engine(sg, scenario="campaign"), "campaign")
    withdrawn = {(m.turn, m.rule.header.name) for m in facts.withdrawals}
    assert (10, "withdraw_for_the_caucasus") in withdrawn  # §32.1
    assert (11, "withdraw_rfss") in withdrawn
    # §30: the Trans-Caucasus Front releases a unit a turn once an Axis unit has gone south of
    # hexrow xx40: play decides when, so the arrival is conditional, from its box
    tc = [m for m in facts.arrivals if m.box == "transcaucasus"]
    assert tc and all(not m.certain and m.conditions for m in tc)
    # §34.1.1: six Reserve Armies on Turn 21
    assert [m.turn for m in facts.arrivals if m.unit_type == "reserve_army"] == [21]


def test_tiny_reinforcements_are_due_on_turn_3(tiny):
    # Tiny Front §9: from Game Turn 3, if an entry hex is free; otherwise next turn
    by_label = {m.label: m for m in tiny.arrivals}
    panzer = by_label["24th Panzer"]
    assert panzer.side == "axis" and panzer.unit_type == "panzer"
    assert not panzer.certain and panzer.expected_turn == 3 and panzer.turns == (3, 4, 5, 6)
    assert panzer.likely_location == "0101"
    assert by_label["13th Tank Corps"].side == "soviet"


def test_phases_as_a_player_reads_them(tiny, fall_blau):
    assert tiny.steps[0].label == "Weather Phase" and tiny.steps[0].turns == (2, 3, 4, 5, 6)
    assert [s.side for s in tiny.steps[1:4]] == ["axis"] * 3
    weather = next(s for s in fall_blau.steps if s.name == "weather_phase")
    assert weather.label == "Weather Phase" and weather.turns == ()  # from Turn 17 (§23.1): not in Fall Blau


def test_phases_of_a_scenario_whose_turns_differ(sg):
    # §S3.4: Uranus's first turn (28) has no Axis player turn and no Soviet Initial Phase; play
    # begins with the Soviet Movement Phase, and the Axis Interim turn follows the Soviet player
    # turn (§33.2.3). From Turn 29 both player turns are played in full, Soviet first (§S3.3).
    uranus = facts_of(Engine(sg, scenario="uranus"), "uranus")
    by = {(s.side, s.name): s for s in uranus.steps}
    later = tuple(range(29, 37))
    assert by[("soviet", "initial")].turns == later
    assert by[("soviet", "movement")].turns is None  # every turn
    assert all(by[("axis", p)].turns == later for p in ("initial", "movement", "combat", "recovery", "supply"))
    order = [(s.side, s.name) for s in uranus.steps]
    assert order.index(("soviet", "supply")) < order.index(("axis", "initial")) < order.index(("axis", "interim"))
    # the Interim turn is played when the rules have one pending: whether is up to play
    assert by[("axis", "interim")].turns is None and by[("axis", "interim")].maybe_turns == tuple(range(28, 37))
    played_28 = [(s.side, s.label) for s in uranus.steps if s.turns is None or 28 in s.turns]
    assert played_28[0] == ("soviet", "Movement Phase")  # no Weather Phase: Turn 28 is Overcast
    assert by[(None, "weather_phase")].turns == later


def test_location_markers_of_the_set_up(fall_blau):
    # the set-up marks control of the cities and VP hexes each side holds at the start (§16.3.4)
    markers = {m for ms in fall_blau.location_markers.values() for m in ms}
    assert {"control_axis", "control_soviet"} <= markers
    assert all(ms == tuple(sorted(ms)) and ms for ms in fall_blau.location_markers.values())


def test_dice_variables_and_tables(tiny):
    assert [d.text() for d in tiny.dice] == ["d6"]
    weather = next(v for v in tiny.variables if v.name == "weather")
    assert weather.values == ("fair", "rain", "mud")
    crt = next(t for t in tiny.tables if t.name == "crt")
    assert crt.provenance in ("rulebook", "provisional", "player_aid")


def test_bridges_never_prohibit_or_stop(tiny, sg):
    from warcodex.facts.effects import effects

    for engine in (tiny.engine, Engine(sg, scenario="fall_blau")):
        edges = next(c for c in effects(engine) if c.kind == "edge")
        names = [d.name for d in edges.rows]
        for rule, cells in edges.columns:
            for name in names:
                if "bridge" in name or name == "ferry":
                    cell = cells[names.index(name)]
                    if rule.kind in ("prohibited", "stop"):
                        assert cell.status in ("irrelevant", "false_own", "false"), (name, rule.mode.name)
    # Tiny §5.3: a bridge cancels the river's cost; the river brings it
    edges = next(c for c in effects(tiny.engine) if c.kind == "edge")
    names = [d.name for d in edges.rows]
    minor = next(cells for rule, cells in edges.columns if rule.label == "minor river")
    assert minor[names.index("minor_river")].status in ("true", "unknown") and minor[names.index("minor_river")].value == 1
    assert minor[names.index("bridge")].status == "false_own"


def test_a_unit_type_may_state_its_sides():
    src = '''game demo "Demo" §1 { }
sections { §1 "Introduction" }
sequence §1 { phase movement "Movement Phase" §1 { } }
side red "Red" §1
side blue "Blue" §1
unit guard "Guard" §1 { side: red attack: 1 }
unit ally "Ally" §1 { sides: [red, blue] }
unit wrong "Wrong" §1 { side: guard }
'''
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "game.wcx").write_text(src)
        _game, diags = check_path(Path(tmp))
    errors = [d for d in diags.errors if d.code == "E-type"]
    assert len(errors) == 1 and "must name sides, not 'guard'" in errors[0].message


def test_vassal_palettes_and_reinforcements_of_fall_blau(sg):
    # issue 17 points 2 and 3: Manstein only in the Axis tray, Fall Blau's reinforcements by turn
    from warcodex.exporters.vassal import gamedata

    data = gamedata.load(sg, "fall_blau")
    assert "leader_manstein" in data.palette["axis"] and "leader_manstein" not in data.palette["soviet"]
    assert "mountain_rifle_division" not in data.palette["axis"]
    turn3 = {r.unit.label for r in data.reinforcements if r.turn == 3}
    assert {"384th Infantry", "371st Infantry", "159th Rifle (5th Res. Army)"} <= turn3
