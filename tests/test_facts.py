"""The facts model (warcodex.facts) against the bundled games and their rulebooks, and the
player-visible errors it fixes in the exporters (issues 17 and 23): counters of `arrive(...)`
units on the wrong side, Fall Blau's missing reinforcements, bridges shown as prohibiting."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from warcodex.dsl.checker import check_path
from warcodex.dsl.formatter import format_expr
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
def campaign(sg):
    return facts_of(Engine(sg, scenario="campaign"), "campaign")


@pytest.fixture(scope="module")
def tiny():
    return facts_of(Engine(_game("tiny")))


@pytest.fixture(scope="module")
def aa():
    return facts_of(Engine(_game("axis-allies-1941")))


def test_facts_are_computed_once_and_cached_with_the_engine(fall_blau):
    assert facts_of(fall_blau.engine, "fall_blau") is fall_blau


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


def test_a_type_any_power_may_buy_belongs_to_every_power(aa):
    # A&A §5: a power buys units "of any types" it can afford, and mobilizes them (§9) with
    # place(t, s, at), the type and the power decided in play: the sides that start with a type
    # (no Soviet bomber in the set-up) are only some of those that may field it
    facts = aa
    powers = [s.name for s in facts.sides]
    bomber = facts.unit_type("bomber").owners
    assert "soviet_union" not in bomber.sides and bomber.status == "uncertain" and bomber.undecided
    assert all(bomber.may_field(p) for p in powers)
    assert all("bomber" in facts.palette(p) for p in powers)


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


def test_campaign_withdrawals_and_conditional_arrivals(campaign):
    facts = campaign
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
    # the Interim turn (§33.2.3): its Movement, Limited Combat and Rally Phases, in that order, after
    # both player turns
    interim = [("axis", p) for p in ("interim_movement", "interim_combat", "interim_rally")]
    assert order.index(("soviet", "supply")) < order.index(("axis", "initial")) < order.index(interim[0])
    assert [order.index(p) for p in interim] == list(range(order.index(interim[0]), order.index(interim[0]) + 3))
    assert [by[p].label for p in interim] == ["Interim Movement Phase", "Interim Limited Combat Phase", "Interim Rally Phase"]
    # the Interim turn is played when the rules have one pending: whether is up to play
    assert all(by[p].turns is None and by[p].maybe_turns == tuple(range(28, 37)) for p in interim)
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


def test_bridges_never_prohibit_or_stop(tiny, fall_blau):
    from warcodex.facts.effects import effects

    for engine in (tiny.engine, fall_blau.engine):
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


# ---------------------------------------------------------------- the sequence of play
def _walk_nodes(node):
    yield node
    for child in node.children:
        yield from _walk_nodes(child)


def test_tiny_sequence_of_play(tiny):
    # Tiny Front §3: each game turn a Weather Phase (from Game Turn 2, §8), then each side's
    # player turn (Axis, then Soviet): Movement (§5), Combat (§7), Recovery (§7.5: Disrupted
    # markers removed); §9 reinforcements at the start of a game turn from Turn 3
    turn = tiny.sequence.root.children[0]
    assert turn.kind == "turn"
    assert [(t.decl.header.label, t.turns) for t in turn.at_start] == [
        ("Axis reinforcements", (3, 4, 5, 6)), ("Soviet reinforcements", (3, 4, 5, 6))]
    weather, players = turn.children
    assert (weather.name, weather.turns, weather.automatic[0].kind, weather.automatic[0].decl.name) == (
        "weather", (2, 3, 4, 5, 6), "table", "weather_table")
    assert players.kind == "player_turns" and players.sides == ("axis", "soviet")
    assert [(p.name, [a.name for a in p.actions]) for p in players.children] == [
        ("movement", ["move"]), ("combat", ["attack"]), ("recovery", [])]
    recovery = players.children[2]
    assert [(s.kind, s.decl.name) for s in recovery.automatic] == [("unmark", "disrupted")]
    assert [(t.event, t.decl.header.label) for t in tiny.sequence.standing] == [
        ("enter", "Control of objectives"), ("game_end", "Victory points")]
    assert [(getattr(d, "name", None), turns) for d, turns in tiny.sequence.timed()] == [
        ("weather", (2, 3, 4, 5, 6)), ("turn_start", (3, 4, 5, 6)), ("turn_start", (3, 4, 5, 6))]


def test_stalingrad_rules_of_a_scenario_and_of_a_turn(fall_blau, campaign):
    phases = {n.name: n for n in _walk_nodes(fall_blau.sequence.root) if n.kind == "phase"}
    # §23.1: a Weather Phase from Turn 17; Fall Blau lasts Turns 1-8 (§S1.1): never played
    assert phases["weather_phase"].turns == ()
    initial = {t.decl.header.label: t for t in phases["initial"].at_start}
    # §S1.2: the 6th Reserve Army may move from Turn 2
    assert initial["The 6th Reserve Army may move"].turns == tuple(range(2, 9))
    # §31: the Reserve Army release is a Campaign rule (its condition names the scenario), played
    # in the Soviet Initial Phase
    assert "Reserve Army release" not in initial
    initial = {t.decl.header.label: t for n in _walk_nodes(campaign.sequence.root)
               if n.kind == "phase" and n.name == "initial" for t in n.at_start}
    assert initial["Reserve Army release"].sides == ("soviet",) and initial["Reserve Army release"].turns is None
    # §34.1.1: six Reserve Armies (Maskirovka) on Turn 21
    assert initial["Maskirovka: six Reserve Armies arrive"].turns == (21,)


# ---------------------------------------------------------------- dice, hits, incomes, tables
def test_axis_and_allies_hit_rolls_and_incomes(aa):
    facts = aa
    rolls = {r.prop: r for r in facts.hit_rolls}
    assert set(rolls) == {"attack", "defense"} and all(r.dice.text() == "d6" and r.op == "<=" for r in rolls.values())
    # §14.1: infantry attacks at 1 and defends at 2, a battleship at 4: hits on that or less
    values = {u.name: u.values[u.max_steps] for u in facts.unit_types}
    assert rolls["attack"].chance(values["infantry"]["attack"]) == Fraction(1, 6)
    assert rolls["defense"].chance(values["infantry"]["defense"]) == Fraction(1, 3)
    assert rolls["attack"].chance(values["battleship"]["attack"]) == Fraction(2, 3)
    # Table 3.1: starting income USSR 7, Germany 12, UK 12, Japan 9, USA 17 (= starting IPCs, §3.5)
    (income,) = facts.incomes
    assert {s.side: (s.start, s.income) for s in income.sides} == {
        "soviet_union": (7, 7), "germany": (12, 12), "united_kingdom": (12, 12), "japan": (9, 9), "united_states": (17, 17)}


def test_chance_of_each_result_of_a_table(tiny):
    crt = next(t for t in tiny.tables if t.name == "crt")
    column = crt.compiled.column_text.index("3-1")
    for drm in (-2, 0, 2):
        chances = crt.outcomes(column, drm)
        assert sum(chances.values()) == 1 and None not in chances  # the CRT clamps its rows (§7.3)
    # the unmodified roll reads the column's six cells, each with chance 1/6
    cells = [str(cs[column]) for low, _high, cs, _text in crt.compiled.rows]
    expected = {}
    for c in cells:
        expected[c] = expected.get(c, 0) + Fraction(1, 6)
    assert crt.outcomes(column, 0) == expected


# ---------------------------------------------------------------- schedules in a player's words
def test_arrivals_carry_their_rules_provenance_and_what_is_left_undecided(fall_blau, campaign):
    # §22.1: the Reinforcement Displays are not in the rule text (provisional); an arrival
    # cites the display and the arrival procedure (§22.1.2)
    first = next(m for m in fall_blau.arrivals if m.label == "384th Infantry")
    assert [r.header.name for r in first.rules][-2:] == ["axis_reinforcements_campaign", "arrive"]
    assert first.provisional == "the Axis Reinforcement Display is not in the rule text"
    reserve = next(m for m in fall_blau.arrivals if m.label and "5th Res. Army" in m.label)
    assert reserve.provisional is None  # §S1.2 prints the 5th Reserve Army's arrival
    # §20: a North Caucasian volunteer arrives in an Axis Initial Phase while fewer than six have
    # and both cities are Axis-held: the phase, side and scenario parts of the rule's condition
    # are decided, what play decides is left
    volunteers = next(m for m in campaign.arrivals if m.unit_type == "caucasian_volunteers")
    (condition,) = volunteers.conditions
    text = format_expr(condition.expr)
    assert "volunteers_arrived < 6" in text and "controlled_by" in text
    assert "initial" not in text and "scenario" not in text and "active" not in text
    # §32.4: the 5th SS Wiking is upgraded on Turn 13, once for each Wiking division on the map
    wiking = next(m for m in campaign.arrivals if m.unit_type == "wiking_4" and m.where is not None)
    assert wiking.turn == 13 and wiking.repeated and "wiking" in format_expr(wiking.each)


def test_the_set_up_says_which_cards_the_rulebook_prints(aa, fall_blau):
    # A&A §3.6 (Table 3.6): only the Soviet Union's set-up card is printed; the others are
    # stand-ins (G1). The Soviet card: Russia 3 infantry, 1 tank, 1 fighter; Archangel, Karelia
    # and Siberia 3 infantry; Caucasus 3 infantry, 1 tank; Sea Zone 4 1 submarine
    soviet: dict[str, list[str]] = {}
    for loc, units in aa.at_start.items():
        for u in units:
            if u.side == "soviet_union":
                assert u.provisional is None, (loc, u)
                soviet.setdefault(aa.location_label(loc), []).append(u.type)
            else:
                assert u.provisional == "the rulebook prints only the Soviet card (G1)", (loc, u)
    assert {k: sorted(v) for k, v in soviet.items()} == {
        "Russia": ["fighter", "infantry", "infantry", "infantry", "tank"], "Archangel": ["infantry"] * 3,
        "Karelia": ["infantry"] * 3, "Caucasus": ["infantry", "infantry", "infantry", "tank"],
        "Siberia": ["infantry"] * 3, "Sea Zone 4": ["submarine"]}
    # Stalingrad §S1.1: Fall Blau uses the Campaign At-Start cards, not in the rule text; the 6th
    # Reserve Army's four units start in 3806 (§S1.2)
    assert all(u.provisional for units in fall_blau.at_start.values() for u in units)
    assert len(fall_blau.at_start["3806"]) == 4 and all("6th Res. Army" in u.label for u in fall_blau.at_start["3806"])


def test_stalingrad_effects_of_hexsides_and_markers(fall_blau):
    edges = next(c for c in fall_blau.effects if c.kind == "edge")
    names = [d.name for d in edges.rows]
    normal = next(cells for rule, cells in edges.columns
                  if rule.kind == "prohibited" and rule.mode.name == "normal" and "blocked_side" in format_expr(rule.when))
    status = {n: normal[names.index(n)].status for n in ("coast", "impassable", "lake", "alpine", "volga", "road", "ferry")}
    # §2.2.3: sea and impassable hexsides are never crossed (a hexside of these rows has features:
    # `count(edge(from, to)) > 0` is decided); §9.5.6 a lake only until it freezes, §9.6.2 an
    # alpine hexside only for non-mountain units or in winter, §5.5.3 the Volga except at ferries;
    # roads and ferries never prohibit crossing
    assert status == {"coast": "true", "impassable": "true", "lake": "unknown", "alpine": "unknown", "volga": "unknown",
                      "road": "irrelevant", "ferry": "irrelevant"}
    # §13.3.2, §5.6.4: units in Full Retreat or on a train defend at 0 or 1, never doubled: the
    # markers only cancel the doubling, and the chart keeps that
    markers = next(c for c in fall_blau.effects if c.kind == "marker")
    rows = [d.name for d in markers.rows]
    doubling = next(cells for rule, cells in markers.columns if rule.label == "infantry in a City or Mountain hex")
    assert doubling[rows.index("full_retreat")].status == "false_own" and doubling[rows.index("train")].status == "false_own"
    assert doubling[rows.index("disrupted")].status == "irrelevant"


# ---------------------------------------------------------------- decks and cards (No Retreat!)
@pytest.fixture(scope="module")
def no_retreat():
    return facts_of(Engine(_game("no-retreat")))


def test_cards_their_events_owners_and_the_deck(no_retreat):
    deck = next(d for d in no_retreat.decks if d.name == "events")
    # §A3: 54 event cards, one deck both sides draw from, reshuffled when one card remains; the
    # green-45 cards 45-54 join the deck only in 1945: at the start they are set aside
    assert deck.size == 54 and deck.rules["reshuffle_at"] == 1 and deck.drawn_by == ("axis", "soviet")
    aside = sorted(c.name for c in deck.cards if c.start == "set_aside")
    assert aside == [f"c{n}" for n in range(45, 55)] and deck.composition == {"draw": 44, "set_aside": 10}
    # card 01 (digest §K): Erich von Manstein for the Germans, Stavka for the Soviets; either side
    # may hold it
    c01 = no_retreat.card("c01")
    assert c01.owners == ("axis", "soviet") and not c01.declared
    assert [(e.side, e.rule.header.label.split(":")[0]) for e in c01.events] == [
        ("axis", "Erich von Manstein"), ("soviet", "Stavka")]
    assert "removed_1945" in c01.flags and c01.values["axis_event"] == "Erich von Manstein"
    # an event written as a function, not a trigger (53 Volksgrenadiers: a cheaper return), is not
    # taken for an event; the rules that name the card are listed
    c53 = no_retreat.card("c53")
    assert [e.side for e in c53.events] == ["soviet"] and c53.mentions
    # card 54's Soviet event is not in the summary (digest §0.1 item 8): provisional, and said so
    assert no_retreat.card("c54").provisional


# ---------------------------------------------------------------- Stargard Solstice: boxes and chits
@pytest.fixture(scope="module")
def stargard():
    return facts_of(Engine(_game("stargard-solstice")))


def test_reinforcements_waiting_in_a_box_per_turn(stargard):
    # §15.3: the reinforcements wait on the player sheet, a box per turn, and enter in their turn's
    # Reinforcement segment; the rule names the box by the turn (units_in_box(reinforcement_box(turn)))
    arriving = {}
    for m in stargard.arrivals:
        if m.box is not None and m.box.startswith("turn_"):
            assert m.turns == (int(m.box[5:]),), m.box
            units = [u.label for u in stargard.boxes.get(m.box, []) if u.side == m.side]
            if units:
                arriving[(m.turns[0], m.side)] = units
    # Table 15.3, without the draw chits (they go to the cup, not to the map)
    assert arriving[(2, "german")] == ["234P/163", "310/163", "307/163", "324/163", "234J/163"]
    assert arriving[(8, "german")] == ["2/1Mar", "1P/1Mar", "4/1Mar", "210"]
    assert len(arriving[(3, "soviet")]) == 14 and len(arriving[(7, "soviet")]) == 14
    assert sorted(arriving) == [(1, "german"), (1, "soviet"), (2, "german"), (2, "soviet"), (3, "soviet"), (4, "soviet"),
                                (6, "soviet"), (7, "soviet"), (8, "german")]


def test_a_cup_of_chits(stargard):
    # §1.4: one common cup of both sides' command chits; a chit that arrives later waits (§7.2)
    (cup,) = stargard.decks
    assert cup.rules["piles"][0] == "cup" and cup.composition["cup"] + cup.composition["waiting"] == cup.size
    assert all(c.declared and len(c.owners) == 1 for c in cup.cards)  # a chit is its side's
    assert {c.owners[0] for c in cup.cards} == {"german", "soviet"}
