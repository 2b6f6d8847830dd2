"""Stalingrad '42 worked examples that need only the engine: odds, halving, doubling, caps, shifts.

The rules are the fragment in tests/data/games/odds/game.wcx (encoded from the digest's §8.3-8.5,
9.1, 9.2, 9.5, 9.7, 9.9); each test builds the map fragment the example describes, places the
units, and asserts the rulebook's outcome. Example ids refer to the digest's "Worked examples".
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from warcodex.dsl.checker import check_path
from warcodex.dsl.hexgrid import HexGrid
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.tables import IllegalColumn
from warcodex.interpreter.values import CellValue, Odds

FRAGMENT = Path(__file__).parent / "data" / "games" / "odds" / "game.wcx"
GRID = HexGrid("flat", "odd", cols=9, rows=9)
TARGET = "0505"
# the target's six neighbours, in the grid's direction order N, NE, SE, S, SW, NW
N, NE, SE, S, SW, NW = (GRID.hex_id(c, r) for c, r in GRID.neighbors(5, 5))


class Scene:
    """A map fragment with units, and the engine to evaluate the fragment's rules on it."""

    def __init__(self, tmp_path: Path, terrain: dict[str, str] | None = None,
                 edges: list[tuple[str, str, str]] = (), features: dict[str, str] | None = None) -> None:
        folder = tmp_path / "odds"
        folder.mkdir()
        shutil.copy(FRAGMENT, folder / "game.wcx")
        lines = ['map "fragment" provisional "built by the test" {', "  grid hex flat odd cols 1..9 rows 1..9 ids CCRR",
                 "  default terrain clear"]
        for hex_id, t in (terrain or {}).items():
            lines.append(f"  terrain {t}: {hex_id}")
        for a, b, feature in edges:
            lines.append(f"  edge {feature}: {a}/{b}")
        for hex_id, f in (features or {}).items():
            lines.append(f"  feature {f}: {hex_id}")
        lines.append("}")
        (folder / "map.wcmap").write_text("\n".join(lines) + "\n", encoding="utf-8")
        game, diags = check_path(folder)
        assert game is not None and not diags.errors, "\n".join(d.render() for d in diags.errors)
        self.engine = Engine(game)
        self.state = self.engine.new_game("examples", seed=0)
        self.ctx = Context(self.engine, self.state, agents={})

    def unit(self, type_name: str, side: str, at: str, *markers: str):
        e = self.engine
        u = e.place(self.ctx, e.entities[type_name], e.entities[side], at, None, None)
        for m in markers:
            e.set_marker(self.ctx, u, m, True, None)
        return u

    def q(self, name: str, *args):
        return self.engine.quantities[name](self.ctx, tuple(args), None)

    def column(self, attackers, target: str = TARGET) -> str:
        """The CRT column the attack is resolved on (after shifts and limits), e.g. '3-1' or 'DS'."""
        value = self.q("crt_column", tuple(attackers), target)
        table = self.engine.tables["crt"]
        index = table.column_index(value, None)
        return str(index) if isinstance(index, CellValue) else table.column_text[index]


# ---------------------------------------------------------------- EX-07 (§8.3): odds rounding
@pytest.mark.parametrize("attack, defense, column", [(7, 2, "3-1"), (9, 4, "2-1"), (6, 4, "1-1"), (5, 6, "1-2")])
def test_ex07_odds_round_down_to_a_column(attack, defense, column):
    assert str(Odds.of(attack, defense)) == column


def test_dt7_odds_below_1_3_are_not_allowed(tmp_path):
    s = Scene(tmp_path)
    table = s.engine.tables["crt"]
    assert str(Odds.of(3, 10)) == "1-4"
    assert table.allowed(Odds.of(3, 10)) is False
    assert table.allowed(Odds.of(4, 10)) is True  # 1-3
    with pytest.raises(IllegalColumn, match="below 1-3 is not allowed"):
        table.column_index(Odds.of(3, 10), None)


# ---------------------------------------------------------------- EX-08 (§8.4.2): shifts before limits
def test_ex08_shift_from_the_virtual_column_then_cap(tmp_path):
    # raw 8-1 with one left shift for a fortification: 7-1, not 6-1
    s = Scene(tmp_path, features={TARGET: "fortification"})
    s.unit("rifle", "soviet", TARGET)  # defense 5
    attackers = [s.unit("inf10", "axis", h) for h in (N, NE, SE, S)]  # 40 attack
    assert s.q("total_attack", tuple(attackers), TARGET) == 40
    assert str(s.q("crt_column", tuple(attackers), TARGET)) == "7-1"  # 8-1 shifted left once
    assert s.column(attackers) == "7-1"


def test_ex08_raw_7_1_shifted_right_is_capped_at_7_1(tmp_path):
    s = Scene(tmp_path)
    s.unit("rifle", "soviet", TARGET)  # 5
    attackers = [s.unit("inf10", "axis", h) for h in (N, NE, SE)] + [s.unit("inf5", "axis", S)]  # 35
    s.state.set_var("extra_shift", 1)
    assert str(s.q("crt_column", tuple(attackers), TARGET)) == "8-1"  # the virtual column
    assert s.column(attackers) == "7-1"


# ---------------------------------------------------------------- EX-09, EX-10 (§8.5): caps
def test_ex09_six_panzer_divisions_attack_a_city_with_40(tmp_path):
    s = Scene(tmp_path, terrain={TARGET: "city"})
    s.unit("rifle", "soviet", TARGET)
    attackers = [s.unit("panzer", "axis", h) for h in (N, NE, SE, S, SW, NW)]
    assert sum(s.q("attack_strength", a, TARGET) for a in attackers) == 60
    assert s.q("total_attack", tuple(attackers), TARGET) == 40


def test_ex10_two_defense_6_units_in_a_city_defend_with_20(tmp_path):
    s = Scene(tmp_path, terrain={TARGET: "city"})
    defenders = [s.unit("rifle6", "soviet", TARGET) for _ in range(2)]
    attackers = (s.unit("inf5", "axis", N),)
    assert [s.q("defense_strength", d, attackers) for d in defenders] == [12, 12]
    assert s.q("total_defense", attackers, TARGET) == 20


# ---------------------------------------------------------------- EX-12 (§9.1): halving and doubling
def test_ex12_1_halve_each_unit_and_round_up(tmp_path):
    s = Scene(tmp_path, edges=[(N, TARGET, "major_river"), (NE, TARGET, "major_river")])
    s.unit("rifle", "soviet", TARGET)
    attackers = (s.unit("inf5", "axis", N), s.unit("inf5", "axis", NE))
    assert [s.q("attack_strength", a, TARGET) for a in attackers] == [3, 3]
    assert s.q("total_attack", attackers, TARGET) == 6  # not 10 / 2 = 5


def test_ex12_2_city_defender_attacked_across_a_river_is_doubled_once(tmp_path):
    s = Scene(tmp_path, terrain={TARGET: "city"}, edges=[(N, TARGET, "minor_river")])
    d = s.unit("inf5", "soviet", TARGET)
    attackers = (s.unit("inf5", "axis", N),)
    assert s.q("defense_strength", d, attackers) == 10  # x2 once, not x4


def test_ex12_3_out_of_supply_across_a_major_river_halves_twice(tmp_path):
    s = Scene(tmp_path, edges=[(N, TARGET, "major_river")])
    s.unit("rifle", "soviet", TARGET)
    a = s.unit("inf9", "axis", N, "out_of_supply")
    assert s.q("attack_strength", a, TARGET) == 3  # 9/2 -> 5, 5/2 -> 3


def test_halve_before_doubling_for_a_disrupted_city_defender(tmp_path):
    s = Scene(tmp_path, terrain={TARGET: "city"})
    d = s.unit("inf5", "soviet", TARGET, "disrupted")
    assert s.q("defense_strength", d, (s.unit("inf5", "axis", N),)) == 6  # 5/2 -> 3, x2 -> 6


# ---------------------------------------------------------------- EX-13, EX-14, DT-1 (§9.2): armor shifts
def test_ex13_red_dot_panzer_against_rifle_division_gets_two_shifts(tmp_path):
    s = Scene(tmp_path)
    s.unit("rifle", "soviet", TARGET)
    pz = s.unit("panzer", "axis", N)
    assert str(Odds.of(10, 5)) == "2-1"
    assert s.column([pz]) == "4-1"


def test_ex13_against_a_tank_corps_only_the_elite_shift_remains(tmp_path):
    s = Scene(tmp_path)
    s.unit("tank_corps", "soviet", TARGET)
    pz = s.unit("panzer", "axis", N)
    assert s.column([pz]) == "3-1"


def test_ex14_armor_attacking_armor_across_a_river_no_shift_either_side(tmp_path):
    s = Scene(tmp_path, edges=[(N, TARGET, "minor_river")])
    s.unit("tank_corps", "soviet", TARGET)  # defense 5
    pz = s.unit("panzer_plain", "axis", N)  # attack 10, black dot only
    # the minor river also doubles the defender (§9.5.1): 10 : 10 -> 1-1, no shifts
    assert s.column([pz]) == "1-1"


def test_dt1_antitank_defender_negates_the_basic_shift_not_the_elite_one(tmp_path):
    s = Scene(tmp_path)
    s.unit("antitank_unit", "soviet", TARGET)  # defense 5
    pz = s.unit("panzer", "axis", N)
    assert s.column([pz]) == "3-1"  # 2-1, +1 elite only


# ---------------------------------------------------------------- EX-15, EX-16 (§9.5): rivers
def test_ex15_all_attack_across_rivers_defender_doubled(tmp_path):
    s = Scene(tmp_path, edges=[(N, TARGET, "major_river"), (NE, TARGET, "major_river"), (SE, TARGET, "minor_river")])
    s.unit("inf5", "soviet", TARGET)
    attackers = (s.unit("inf5", "axis", N), s.unit("inf5", "axis", NE), s.unit("inf5", "axis", SE))
    assert s.q("total_attack", attackers, TARGET) == 11
    assert s.q("total_defense", attackers, TARGET) == 10
    assert s.column(attackers) == "1-1"


def test_ex15_one_attacker_without_river_no_doubling(tmp_path):
    s = Scene(tmp_path, edges=[(N, TARGET, "major_river"), (NE, TARGET, "major_river")])
    s.unit("inf5", "soviet", TARGET)
    attackers = (s.unit("inf5", "axis", N), s.unit("inf5", "axis", NE), s.unit("inf5", "axis", S))
    assert s.q("total_attack", attackers, TARGET) == 11
    assert s.q("total_defense", attackers, TARGET) == 5
    assert s.column(attackers) == "2-1"


def test_ex16_major_river_and_swamp_attack(tmp_path):
    s = Scene(tmp_path, terrain={S: "swamp"}, edges=[(N, TARGET, "major_river")])
    s.unit("inf5", "soviet", TARGET)
    attackers = (s.unit("inf5", "axis", N), s.unit("inf10", "axis", S))  # 3 (halved) + 10 from a swamp
    assert s.q("total_attack", attackers, TARGET) == 13
    assert s.q("total_defense", attackers, TARGET) == 10
    assert s.column(attackers) == "1-1"


# ---------------------------------------------------------------- EX-11 (§8.6), DT-2 (§9.7 + §9.9)
def test_ex11_armor_and_elite_shifts_reach_10_1_for_automatic_ds(tmp_path):
    # X has defense 3 (a disrupted 3-5-3: 5 halved, rounded up) and no armor: 25 : 3 -> 8-1,
    # armor +1R and elite +1R -> 10-1, an automatic DS
    s = Scene(tmp_path)
    s.unit("rifle", "soviet", TARGET, "disrupted")
    attackers = (s.unit("panzer", "axis", N), s.unit("inf10", "axis", NE), s.unit("inf5", "axis", SE))
    assert s.q("total_attack", attackers, TARGET) == 25
    assert s.q("total_defense", attackers, TARGET) == 3
    assert str(Odds.of(25, 3)) == "8-1"
    assert str(s.q("crt_column", attackers, TARGET)) == "10-1"
    assert s.column(attackers) == "DS"


def test_dt2_fortified_rough_across_a_minor_river(tmp_path):
    s = Scene(tmp_path, terrain={TARGET: "rough"}, features={TARGET: "fortification"}, edges=[(N, TARGET, "minor_river")])
    s.unit("inf5", "soviet", TARGET)
    pz = s.unit("panzer", "axis", N)  # 10 attack, armor and elite
    assert s.q("total_defense", (pz,), TARGET) == 10  # doubled
    # 10 : 10 = 1-1; fortification -1, rough -1, no armor shift (fortification) -> 1-3 (two left)
    assert s.column([pz]) == "1-3"
