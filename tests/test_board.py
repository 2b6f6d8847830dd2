"""Board queries on the example map, the ring-world area map, wrap-around and generated boards."""

from __future__ import annotations

from pathlib import Path

import pytest

from warcodex.dsl.board import Board, Provenance, Sheet, generate_hex_board
from warcodex.dsl.hexgrid import HexGrid
from warcodex.dsl.mapfile import load_map

ROOT = Path(__file__).resolve().parents[1]
MAPS = ROOT / "tests" / "data" / "maps"


@pytest.fixture(scope="module")
def tiny() -> Board:
    return load_map(ROOT / "games" / "tiny" / "map.wcmap")


@pytest.fixture(scope="module")
def ring() -> Board:
    return load_map(MAPS / "ring_world.wcmap")


# ----------------------------------------------------------------------------- tiny hex map
def test_tiny_basic_attributes(tiny: Board) -> None:
    assert tiny.name == "Tiny Front"
    assert tiny.kind == "hex"
    assert tiny.provenance == Provenance("provisional", "invented for the example game")
    assert tiny.grid == HexGrid("flat", "odd", 1, 1, 12, 10, 2, 2)
    assert len(tiny.locations) == 120
    # stable order: column by column, i.e. the sort order of the ids
    assert tiny.locations[:2] == ("0101", "0102") and tiny.locations[10] == "0201"
    assert list(tiny.locations) == sorted(tiny.locations)
    assert all(tiny.index[loc] == i for i, loc in enumerate(tiny.locations))
    assert "0507" in tiny and "1311" not in tiny


def test_tiny_neighbours(tiny: Board) -> None:
    # Interior even column: N, NE, SE, S, SW, NW (see test_hexgrid for the flat-odd rules).
    assert tiny.neighbors("0605") == ("0604", "0704", "0705", "0606", "0505", "0504")
    # Corner 0101 (column 1 is low): N, SW, NW are off the map -> NE 0201, SE 0202, S 0102.
    assert tiny.neighbors("0101") == ("0201", "0202", "0102")
    # Corner 1201 (even column, high): N, NE, SE off the map -> S 1202, SW 1101, NW none.
    assert tiny.neighbors("1201") == ("1202", "1101")
    assert tiny.is_adjacent("0605", "0705") and tiny.is_adjacent("0705", "0605")
    assert not tiny.is_adjacent("0101", "0103")
    # precomputed: the same tuple object every time
    assert tiny.neighbors("0605") is tiny.neighbors("0605")


def test_tiny_terrain_features_attrs(tiny: Board) -> None:
    assert tiny.terrain("0101") == "clear"  # default terrain
    assert tiny.terrain("0203") == "forest"  # 0202-0204
    assert tiny.terrain("1008") == "forest"  # rectangle 0907..1008
    assert tiny.terrain("0610") == "swamp"
    assert tiny.terrain("0805") == "town"
    assert tiny.features("0805") == {"city", "objective", "road"}
    assert tiny.features("0404") == frozenset()
    assert tiny.has_feature("0305", "city")
    assert dict(tiny.attrs("0805")) == {"name": "Kalach", "vp": 2}
    assert tiny.attr("1107", "vp") == 3
    assert tiny.attr("0404", "vp") is None
    assert tiny.locations_with("objective") == ("0305", "0805", "1107")
    assert tiny.locations_with("no such feature") == ()
    assert [tiny.attr(loc, "entry_area") for loc in ("0101", "0110", "1205", "0505")] == \
        ["west", "west", "east", None]
    with pytest.raises(TypeError):
        tiny.attrs("0805")["vp"] = 5  # read-only: the board is shared by every game state


def test_tiny_map_edges_are_automatic_features(tiny: Board) -> None:
    assert tiny.locations_with("edge_west") == tuple(f"01{r:02d}" for r in range(1, 11))
    assert tiny.locations_with("edge_east") == tuple(f"12{r:02d}" for r in range(1, 11))
    assert tiny.locations_with("edge_north") == tuple(f"{c:02d}01" for c in range(1, 13))
    assert tiny.locations_with("edge_south") == tuple(f"{c:02d}10" for c in range(1, 13))
    assert tiny.features("0101") >= {"edge_north", "edge_west"}


def test_tiny_edges(tiny: Board) -> None:
    # The road crosses the major river on a bridge between 0605 and 0705.
    assert tiny.edge("0605", "0705") == {"major_river", "road", "bridge"}
    assert tiny.edge("0705", "0605") == tiny.edge("0605", "0705")
    # `cols 6/7 rows 1..5`: 0601 touches 0701 only (0601 is high, its NE is off the map).
    assert tiny.edge("0601", "0701") == {"major_river"}
    assert tiny.edge("0606", "0706") == {"minor_river"}
    assert tiny.edge("0101", "0102") == frozenset()
    assert tiny.edge("0101", "0909") == frozenset()  # not adjacent at all
    assert tiny.edges_with("bridge") == (("0605", "0705"),)
    assert len(tiny.edges_with("major_river")) == 9  # 5 hexes x 2 sides, minus 0601's NE
    assert len(tiny.edges_with("road")) == 11  # 12 hexes in the path
    assert tiny.edge_attrs("0605", "0705") == {}


def test_tiny_every_road_crossing_of_a_river_has_a_bridge(tiny: Board) -> None:
    for a, b in tiny.edges_with("road"):
        if tiny.edge(a, b) & {"minor_river", "major_river"}:
            assert "bridge" in tiny.edge(a, b)


def test_tiny_distance_and_sheets(tiny: Board) -> None:
    assert tiny.distance("0101", "0305") == 5  # worked by hand in test_hexgrid
    assert tiny.distance("0305", "0101") == 5
    assert tiny.distance("0101", "1201") == 11
    assert tiny.distance("0507", "0507") == 0
    assert tiny.sheet("0601") == "A" and tiny.sheet("0701") == "B"
    assert [s.name for s in tiny.sheets] == ["A", "B"]
    assert tiny.coords("0507") == (5, 7) and tiny.at(5, 7) == "0507" and tiny.at(13, 1) is None


def test_tiny_declared_names(tiny: Board) -> None:
    names = tiny.declared_names()
    assert names.terrains == {"clear", "forest", "rough", "swamp", "town"}
    assert names.location_features == {"city", "objective", "road"}
    assert names.edge_features == {"major_river", "minor_river", "road", "bridge"}
    assert names.location_attrs == {"vp", "entry_area"}
    assert names.edge_attrs == frozenset()
    assert names.builtin_location_features == {"edge_north", "edge_south", "edge_east", "edge_west"}


# ----------------------------------------------------------------------------- area map
def test_ring_world_areas(ring: Board) -> None:
    assert ring.kind == "area" and ring.grid is None
    assert ring.locations[:3] == ("alaska", "usa", "europe")  # declaration order
    assert dict(ring.attrs("usa")) == {"region": "land", "name": "United States", "value": 30,
                                       "owner": "usa"}
    assert ring.features("usa") == {"capital", "factory", "rail"}
    assert ring.attr("sz2", "region") == "sea"
    assert ring.attr("egypt", "victory") is True
    assert ring.attr("atlantis", "value") == -1
    assert ring.terrain("russia") == "mountains" and ring.terrain("sz2") == "ocean"
    assert ring.terrain("usa") == "plains"
    assert ring.sheet("europe") == "west" and ring.sheet("usa") is None


def test_ring_world_adjacency_is_symmetric(ring: Board) -> None:
    # siberia's own line lists russia and sz4; sz4 is also adjacent to sz5 (sz5's line) and to sz1
    # across the wrap seam.
    assert set(ring.neighbors("siberia")) == {"russia", "sz4"}
    assert set(ring.neighbors("sz4")) == {"siberia", "sz5", "sz1"}
    for loc in ring.locations:
        for n in ring.neighbors(loc):
            assert loc in ring.neighbors(n)
    assert ring.neighbors("atlantis") == ()


def test_ring_world_wraps_east_west(ring: Board) -> None:
    assert ring.wrap_east_west
    assert ring.edge("sz1", "sz4") == {"wrap"} and ring.edge("sz4", "sz1") == {"wrap"}
    # usa -> sz1 -> (seam) -> sz4 -> siberia: 3; the long way round via Europe would be 4.
    assert ring.distance("usa", "siberia") == 3
    assert ring.distance("usa", "usa") == 0
    assert ring.distance("usa", "atlantis") is None  # unreachable
    assert ring.declared_names().builtin_edge_features == {"wrap"}


def test_ring_world_edges_with_attributes(ring: Board) -> None:
    assert ring.edge("sz3", "sz5") == {"canal"}
    assert ring.edge_attrs("sz5", "sz3") == {"controlled_by": "egypt", "toll": 2}
    assert ring.edge("europe", "sz3") == {"strait"}
    assert ring.edge("usa", "alaska") == {"rail"}
    assert ring.declared_names().edge_attrs == {"controlled_by", "toll"}


# ----------------------------------------------------------------------------- hex wrap
def test_pointy_hex_board_wraps_east_west() -> None:
    board = load_map(MAPS / "pointy_wrap.wcmap")
    assert board.grid.orientation == "pointy" and board.grid.first_col == 0
    # Row 0 is even, so shifted right: 0000's W neighbour is 0900 across the seam; its SW is 0001.
    assert board.neighbors("0000") == ("0100", "0101", "0001", "0900")
    assert board.edge("0000", "0900") == {"wrap"}
    assert board.distance("0000", "0900") == 1
    assert board.distance("0002", "0702") == 3  # 0 -> 9 -> 8 -> 7 across the seam
    assert not board.locations_with("edge_west") and not board.locations_with("edge_east")
    assert board.locations_with("edge_north") == tuple(f"{c:02d}00" for c in range(10))
    # `rows 0/1 cols 0..9`: every hexside between rows 0 and 1, 2 per hex of row 0 (SE and SW);
    # 0900's SE neighbour (column 10) wraps to 0001, so the seam continues across the wrap.
    assert len(board.edges_with("coast")) == 20
    assert board.edge("0900", "0001") == {"coast", "wrap"}


def test_flat_wrap_needs_even_columns() -> None:
    with pytest.raises(ValueError):
        Board.hex_board("odd", HexGrid("flat", "odd", 1, 1, 5, 4), wrap_east_west=True)
    board = Board.hex_board("even", HexGrid("flat", "odd", 1, 1, 6, 4), wrap_east_west=True)
    # 0101 (low column) NW and SW wrap to column 6: NW (0,1) -> 0601, SW (0,2) -> 0602.
    assert board.neighbors("0101") == ("0201", "0202", "0102", "0602", "0601")
    assert board.distance("0101", "0601") == 1


# ----------------------------------------------------------------------------- constructors
def test_sheets_must_not_overlap_and_union_is_the_board() -> None:
    grid = HexGrid("flat", "even", 1, 1, 4, 4)
    with pytest.raises(ValueError):
        Board.hex_board("x", grid, sheets=[Sheet("A", 1, 3, 1, 4), Sheet("B", 3, 4, 1, 4)])
    # An L-shaped board: sheet B covers only the top half of columns 3-4.
    board = Board.hex_board("L", grid, sheets=[Sheet("A", 1, 2, 1, 4), Sheet("B", 3, 4, 1, 2)])
    assert len(board) == 12
    assert board.at(3, 3) is None and board.sheet("0302") == "B"


def test_board_rejects_edges_between_non_adjacent_locations() -> None:
    grid = HexGrid("flat", "odd", 1, 1, 4, 4)
    with pytest.raises(ValueError):
        Board.hex_board("x", grid, edges={("0101", "0103"): ["road"]})
    with pytest.raises(ValueError):
        Board.area_map("x", ["a", "b"], [("a", "c")])


# ----------------------------------------------------------------------------- generated
def test_generated_board_is_deterministic_and_complete() -> None:
    a = generate_hex_board(50, 50, seed=7)
    b = generate_hex_board(50, 50, seed=7)
    c = generate_hex_board(50, 50, seed=8)
    assert len(a) == 2500
    terrain = [a.terrain(loc) for loc in a.locations]
    assert terrain == [b.terrain(loc) for loc in b.locations]
    assert terrain != [c.terrain(loc) for loc in c.locations]
    assert a.edges_with("minor_river") == b.edges_with("minor_river")
    assert set(terrain) == {"clear", "forest", "rough", "swamp"}
    assert len(a.locations_with("city")) == 5
    # The major river runs along the whole seam between columns 25 and 26: 2 hexsides per hex of
    # column 25 minus the one that leaves the map (column 25 is low: its SE off the bottom row).
    assert len(a.edges_with("major_river")) == 2 * 50 - 1
    # The road runs from the west edge to the east edge and bridges the major river.
    road = a.locations_with("road")
    assert any(a.has_feature(h, "edge_west") for h in road)
    assert any(a.has_feature(h, "edge_east") for h in road)
    bridges = a.edges_with("bridge")
    assert any("major_river" in a.edge(x, y) for x, y in bridges)
    assert all("road" in a.edge(x, y) for x, y in bridges)
    interior = a.at(20, 20)
    assert len(a.neighbors(interior)) == 6
    assert a.declared_names().edge_features >= {"minor_river", "major_river", "road", "bridge"}


def test_hex_board_boxes_are_extra_locations_with_symmetric_adjacency() -> None:
    grid = HexGrid("flat", "odd", 1, 1, 4, 4)
    board = Board.hex_board("boxes", grid, boxes={"EA_A": ["0101", "0201"], "EA_B": ["EA_A"]})
    assert len(board) == 16 + 2 and board.locations[-2:] == ("EA_A", "EA_B")
    assert board.neighbors("0101")[-1] == "EA_A" and board.neighbors("EA_A") == ("0101", "0201", "EA_B")
    assert board.distance("EA_B", "0401") == 2 + 2  # EA_B -> EA_A -> 0201 -> 0301 -> 0401
    assert board.is_box("EA_B") and board.boxes == ("EA_A", "EA_B")
    with pytest.raises(ValueError, match="id of a hex"):
        Board.hex_board("bad", grid, boxes={"0101": []})
    with pytest.raises(ValueError, match="not a location"):
        Board.hex_board("bad", grid, boxes={"EA_A": ["0909"]})
