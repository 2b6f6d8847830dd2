"""The provisional Stalingrad '42 campaign board (games/stalingrad42/map.wcmap): size, sheets, every
terrain and hexside kind, and the hexes the rule text names placed where the text puts them."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from warcodex.dsl.board import Board
from warcodex.dsl.mapfile import load_map

MAP = Path(__file__).resolve().parents[1] / "games" / "stalingrad42" / "map.wcmap"


@lru_cache(maxsize=1)
def board() -> Board:
    return load_map(MAP)


def hexes(b: Board) -> list[str]:
    return [h for h in b.locations if not b.is_box(h)]


def test_the_board_is_provisional_large_and_made_of_four_sheets():
    b = board()
    assert b.provenance.kind == "provisional"
    assert len(hexes(b)) >= 2500
    assert [s.name for s in b.sheets] == ["A", "B", "C1", "C2"]
    assert b.sheet("0101") == "A" and b.sheet("7801") == "B" and b.sheet("0166") == "C1" and b.sheet("7866") == "C2"


def test_every_terrain_and_hexside_kind_is_on_the_board():
    b = board()
    names = b.declared_names()
    for t in ("clear", "desert", "rough", "wooded_rough", "forest", "swamp", "seasonal_swamp", "mountain",
              "alpine_hex", "major_city", "minor_city", "town", "sea", "entry_area"):
        assert t in names.terrains, t
    for e in ("minor_river", "major_river", "volga", "lake", "coast", "alpine", "impassable", "road",
              "secondary_road", "rail", "green_rail", "unfinished_rail", "caspian_rail", "rail_bridge", "ferry",
              "vladimirovka_ferry"):
        assert b.edges_with(e), e
    for f in ("objective", "fortification", "port", "airfield", "rail_junction", "supply_source",
              "friendly_edge_axis", "friendly_edge_soviet"):
        assert b.locations_with(f), f


@pytest.mark.parametrize("a, b_, feature, section", [
    ("2403", "2503", "major_river", "§29.1.3: 2403 across the Don from Voronezh"),
    ("5902", "6002", "volga", "§5.5.3: the Saratov rail bridge"),
    ("5902", "6002", "rail_bridge", "§5.5.3"),
    ("6424", "6523", "volga", "§5.5.7: the Vladimirovka ferry"),
    ("6424", "6523", "vladimirovka_ferry", "§5.5.7"),
    ("5521", "5621", "ferry", "§5.5.6: a Stalingrad ferry"),
])
def test_hexsides_the_text_names(a, b_, feature, section):
    assert feature in board().edge(a, b_), section


def test_named_hexes():
    b = board()
    names = {h: b.attr(h, "name") for h in b.locations}
    assert names["2503"] == "Voronezh" and b.terrain("2503") == "major_city"
    assert names["2002"] == "Kastornoye" and names["2013"] == "Valuyki"
    assert names["1521"] == "Izyum"
    assert names["1949"] == "Temryuk" and names["1549"] == "Taman"
    assert b.attr("1949", "sea") == "azov" and b.attr("1549", "sea") == "kerch"
    assert names["4860"] == "Mount Elbrus" and b.terrain("4860") == "alpine_hex"
    assert names["3443"] == "Tikhoretsk" and b.has_feature("3443", "rail_junction")
    assert names["5902"] == "Saratov" and names["6523"] == "Vladimirovka"
    assert [h for h in b.locations if b.attr(h, "city_name") == "Stalingrad"] == ["5520", "5521", "5522"]


def test_izyum_has_the_donets_inside_it():
    """§9.5.5: a river running through the middle of Izyum (1521) is ignored: no river hexside."""
    b = board()
    assert not any({"major_river", "minor_river"} & b.edge("1521", n) for n in b.neighbors("1521"))
    assert any("major_river" in b.edge(x, y) for x, y in b.edges_with("major_river") if "1421" in (x, y) or "1620" in (x, y) or "1622" in (x, y))


def test_rail_hexes_of_the_text():
    b = board()
    # Kastornoye and Valuyki: a non-green line between them, repaired once both ends are (§17.1)
    between = [h for h in b.locations if b.attr(h, "rail_end_a") == "2002" and b.attr(h, "rail_end_b") == "2013"]
    assert between and all(b.has_feature(h, "rail") and not b.has_feature(h, "green_rail") for h in between)
    # the S2 Railhead hex 3140 and the dead end 2338-3241 in the Kuban (§S2.2, §17.1)
    assert b.has_feature("3140", "green_rail") and b.has_feature("3241", "rail") and b.has_feature("2338", "rail")
    assert b.attr("2338", "name") == "Yeysk"
    # the two unfinished lines and the Caspian line (§17.5, §5.6.6)
    lines = {b.attr(h, "unfinished_line") for h in b.locations_with("unfinished_rail")} - {None}
    assert lines == {"ilovlya_saratov", "stalingrad_ferry"}
    assert b.locations_with("caspian_rail")


def test_rows_the_rules_use():
    b = board()
    col, row = b.coords("3133")  # Rostov, on the lower Don
    assert b.attr("3133", "name") == "Rostov" and 31 <= row <= 36
    assert b.coords("5521")[1] < 36  # Stalingrad north of the North Caucasus line
    assert b.coords("4210")[0] == 42  # the east edge of map A (§S1.2)
    assert b.sheet("4210") == "A" and b.sheet("4310") == "B"
    # S2: the north edge of the Caucasus maps is row 40; 2740-4240 and 2140-4740 are land
    assert all(b.terrain(f"{c:02d}40") != "sea" for c in range(21, 48))
    assert b.coords("3806") == (38, 6) and b.attr("3806", "name") == "Novokhopersk"


def test_entry_areas_are_boxes_next_to_their_map_edges():
    b = board()
    areas = {b.attr(x, "entry_area"): x for x in b.boxes}
    assert set("ABCDEFGHJKLWXYZMNOPQR") <= set(areas)
    assert all(b.terrain(x) == "entry_area" for x in b.boxes)
    assert b.neighbors(areas["F"]) == ()  # the Caspian Sea Transit Box touches no hex (§22.6.4)
    assert all(b.coords(h)[1] == 1 for h in b.neighbors(areas["A"]))  # north edge
    assert all(b.coords(h)[0] == 1 for h in b.neighbors(areas["X"]))  # west edge
    assert all(b.coords(h)[0] == 42 and b.coords(h)[1] < 10 for h in b.neighbors(areas["M"]))  # north of 4210
    assert all(b.attr(areas[k], "side") == "soviet" and b.has_feature(areas[k], "supply_source") for k in "ABCDEGHJKL")
    assert all(b.attr(areas[k], "side") == "axis" for k in "WXYZ")
    assert b.attr(areas["M"], "side") is None  # scenario areas: friendly only where a scenario says
    edge = [h for h in b.neighbors(areas["B"])]
    assert all(b.has_feature(h, "friendly_edge_soviet") for h in edge)


def test_objectives_carry_provisional_vp_and_the_uranus_start_is_15():
    b = board()
    vp = {b.attr(h, "name"): b.attr(h, "vp") for h in b.locations_with("objective")}
    assert all(isinstance(v, int) and v > 0 for v in vp.values())
    for place in ("Stalingrad", "Rostov", "Voronezh", "Maikop", "Grozny", "Krasnodar", "Voroshilovsk", "Astrakhan",
                  "Elista", "Millerovo", "Kalach", "Saratov"):
        assert place in vp, place
    # the objectives the Axis holds on maps A and B when Uranus begins (§S3.5: it starts with 15)
    held = ("Rostov", "Novocherkassk", "Kamensk", "Millerovo", "Voroshilovgrad", "Kalach", "Salsk", "Elista",
            "Stalingrad North", "Stalingrad")
    assert sum(vp[p] for p in held) == 15


def test_printed_fortifications_in_three_groups_and_the_start_line():
    b = board()
    groups = {b.attr(h, "fort_group") for h in b.locations_with("fortification")}
    assert groups == {"north", "south", "rostov"}
    assert b.attr("1115", "west_of_start_line") is True  # Kharkov
    assert b.attr("2029", "west_of_start_line") is True  # Stalino
    assert b.attr("2503", "west_of_start_line") is None  # Voronezh
    west_majors = {b.attr(h, "name") for h in b.locations if b.terrain(h) == "major_city" and b.attr(h, "west_of_start_line")}
    assert west_majors == {"Kharkov", "Stalino"}  # §24.1.4 names exactly these two
