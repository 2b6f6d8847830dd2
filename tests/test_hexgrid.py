"""Hex geometry with hand-checked coordinates, and the VASSAL numbering round trip."""

from __future__ import annotations

import itertools
import math

import pytest

from warcodex.dsl.hexgrid import (
    FLAT_DIRECTIONS,
    POINTY_DIRECTIONS,
    HexGrid,
    VassalHexNumbering,
    parse_id_format,
    vassal_grid_spec,
)

FLAT_ODD = HexGrid("flat", "odd", 1, 1, 30, 40)
FLAT_EVEN = HexGrid("flat", "even", 1, 1, 30, 40)
POINTY_ODD = HexGrid("pointy", "odd", 1, 1, 30, 40)


# ----------------------------------------------------------------------------- ids
def test_hex_id_and_parse_id() -> None:
    assert FLAT_ODD.hex_id(5, 7) == "0507"
    assert FLAT_ODD.parse_id("0507") == (5, 7)
    wide = HexGrid(cols=120, rows=40, col_digits=3, row_digits=2)
    assert wide.hex_id(105, 3) == "10503"
    assert wide.parse_id("10503") == (105, 3)
    assert wide.id_format == "CCCRR"
    for bad in ("507", "05070", "05a7", "", "٠٥٠٧"):  # the last one: Arabic-Indic digits
        with pytest.raises(ValueError):
            FLAT_ODD.parse_id(bad)
    with pytest.raises(ValueError):
        FLAT_ODD.hex_id(100, 1)  # does not fit 2 digits
    assert parse_id_format("CCRR") == (2, 2, "")
    assert parse_id_format("CCCRR") == (3, 2, "")
    with pytest.raises(ValueError):
        parse_id_format("RRCC")
    with pytest.raises(ValueError):
        parse_id_format("CC-RR")


def test_hex_ids_with_a_dot_between_column_and_row() -> None:
    # the WWII Battle Series and many other maps print 04.18
    assert parse_id_format("CC.RR") == (2, 2, ".")
    dotted = HexGrid(cols=48, rows=30, separator=".")
    assert dotted.id_format == "CC.RR"
    assert dotted.hex_id(4, 18) == "04.18"
    assert dotted.parse_id("44.30") == (44, 30)
    for bad in ("0418", "04.1", "4.18", "04,18", "04.18.", "0a.18"):
        with pytest.raises(ValueError):
            dotted.parse_id(bad)
    with pytest.raises(ValueError):
        HexGrid(cols=5, rows=5, separator="-")


def test_grid_rejects_numbers_wider_than_the_id_format() -> None:
    with pytest.raises(ValueError):
        HexGrid(cols=100, rows=10)  # column 100 needs 3 digits
    with pytest.raises(ValueError):
        HexGrid(orientation="square")


# ----------------------------------------------------------------------------- neighbours
def test_flat_odd_neighbours_of_odd_and_even_columns() -> None:
    # Order: N, NE, SE, S, SW, NW. Odd columns sit half a hex lower, so from an odd column the
    # east/west neighbours with the same row number are "up" (NE/NW) and row+1 ones are "down".
    assert FLAT_DIRECTIONS == ("N", "NE", "SE", "S", "SW", "NW")
    assert FLAT_ODD.neighbors(5, 5) == [(5, 4), (6, 5), (6, 6), (5, 6), (4, 6), (4, 5)]
    # From an even (higher) column the same-row neighbours are "down" (SE/SW) and row-1 are "up".
    assert FLAT_ODD.neighbors(6, 5) == [(6, 4), (7, 4), (7, 5), (6, 6), (5, 5), (5, 4)]


def test_flat_even_neighbours_mirror_flat_odd() -> None:
    # Even columns are the low ones now: column 6 behaves like column 5 did above.
    assert FLAT_EVEN.neighbors(6, 5) == [(6, 4), (7, 5), (7, 6), (6, 6), (5, 6), (5, 5)]
    assert FLAT_EVEN.neighbors(5, 5) == [(5, 4), (6, 4), (6, 5), (5, 6), (4, 5), (4, 4)]


def test_pointy_odd_neighbours() -> None:
    # Order: NE, E, SE, SW, W, NW. Odd rows are shifted right by half a hex.
    assert POINTY_DIRECTIONS == ("NE", "E", "SE", "SW", "W", "NW")
    assert POINTY_ODD.neighbors(5, 5) == [(6, 4), (6, 5), (6, 6), (5, 6), (4, 5), (5, 4)]
    assert POINTY_ODD.neighbors(5, 4) == [(5, 3), (6, 4), (5, 5), (4, 5), (4, 4), (4, 3)]


def test_neighbours_are_symmetric_and_at_distance_one() -> None:
    for grid in (FLAT_ODD, FLAT_EVEN, POINTY_ODD, HexGrid("pointy", "even", 0, 0)):
        for h in [(5, 5), (6, 5), (5, 6), (0, 0), (1, 0)]:
            for d, n in enumerate(grid.neighbors(*h)):
                assert grid.distance(h, n) == 1
                assert h in grid.neighbors(*n)
                assert grid.direction_to(h, n) == d
                assert grid.neighbor(*h, d) == n
            assert grid.direction_to(h, h) is None


def test_offset_axial_round_trip() -> None:
    for grid in (FLAT_ODD, FLAT_EVEN, POINTY_ODD, HexGrid("pointy", "even")):
        for c, r in itertools.product(range(-3, 8), range(-3, 8)):
            assert grid.from_axial(*grid.to_axial(c, r)) == (c, r)
            q, rr, s = grid.to_cube(c, r)
            assert q + rr + s == 0


# ----------------------------------------------------------------------------- distance
def test_distances_worked_by_hand() -> None:
    g = FLAT_ODD
    assert g.distance((1, 1), (1, 4)) == 3  # straight down one column
    # Along "row 1": 0101 -NE-> 0201 -SE-> 0301 -NE-> 0401, a zigzag of 3 steps.
    assert g.distance((1, 1), (4, 1)) == 3
    # 0101 -> 0305: two column steps can drop at most one row (0101 -SE-> 0202 -SE-> 0302),
    # then three straight steps down to 0305: 5.
    assert g.distance((1, 1), (3, 5)) == 5
    # 0202 -> 0503: 0202 -SE-> 0302 -SE-> 0403 -SE-> 0503: 3 column steps cover the one row.
    assert g.distance((2, 2), (5, 3)) == 3
    assert g.distance((5, 3), (2, 2)) == 3
    # Same pair on a flat-even grid (column 2 low): 0202 -SE-> 0303 -SE-> 0403 -NE-> 0503.
    assert FLAT_EVEN.distance((2, 2), (5, 3)) == 3
    # 0101 -> 0305 on flat-even: column 1 is now high, 0101 -SE-> 0201 -SE-> 0302, then 3 down:
    # still 5 (two column steps always cover exactly one row, whatever the parity).
    assert FLAT_EVEN.distance((1, 1), (3, 5)) == 5
    # Where parity matters: 0101 -> 0202 is one step (SE) when column 1 is low (odd parity), but
    # two when column 1 is high (even parity: 0101 -SE-> 0201 -S-> 0202).
    assert FLAT_ODD.distance((1, 1), (2, 2)) == 1
    assert FLAT_EVEN.distance((1, 1), (2, 2)) == 2


# ----------------------------------------------------------------------------- lines, rings
def test_line_along_a_column_and_along_a_row() -> None:
    g = FLAT_ODD
    assert g.line((1, 1), (1, 4)) == [(1, 1), (1, 2), (1, 3), (1, 4)]
    # The zigzag along row 1 (see test_distances_worked_by_hand).
    assert g.line((1, 1), (4, 1)) == [(1, 1), (2, 1), (3, 1), (4, 1)]
    assert g.line((3, 3), (3, 3)) == [(3, 3)]


def test_line_steps_are_adjacent_and_length_is_distance_plus_one() -> None:
    for grid in (FLAT_ODD, POINTY_ODD):
        for a, b in [((1, 1), (9, 14)), ((12, 3), (2, 8)), ((4, 4), (10, 4)), ((7, 1), (7, 9))]:
            line = grid.line(a, b)
            assert len(line) == grid.distance(a, b) + 1
            assert line[0] == a and line[-1] == b
            assert all(grid.distance(p, q) == 1 for p, q in zip(line, line[1:]))


def test_ring_and_spiral_sizes() -> None:
    center = (10, 10)
    for grid in (FLAT_ODD, FLAT_EVEN, POINTY_ODD):
        assert grid.ring(center, 0) == [center]
        assert set(grid.ring(center, 1)) == set(grid.neighbors(*center))
        for k in range(1, 6):
            ring = grid.ring(center, k)
            assert len(ring) == 6 * k and len(set(ring)) == 6 * k
            assert all(grid.distance(center, h) == k for h in ring)
            # consecutive hexes of a ring are neighbours, and the ring closes
            assert all(grid.distance(p, q) == 1 for p, q in zip(ring, ring[1:] + ring[:1]))
        spiral = grid.spiral(center, 3)
        assert len(spiral) == 1 + 3 * 3 * 4 == 37
        assert len(set(spiral)) == 37


def test_ring_starts_in_direction_4_and_goes_clockwise() -> None:
    # Flat: direction 4 is SW; from (5,5) (odd column) SW is (4,6); the walk then goes N to (4,5).
    assert FLAT_ODD.ring((5, 5), 1) == [(4, 6), (4, 5), (5, 4), (6, 5), (6, 6), (5, 6)]


# ----------------------------------------------------------------------------- pixels
def test_pixel_centres() -> None:
    size = 10.0
    h = math.sqrt(3) * size
    # flat odd: column 1 is low (shifted), column 2 high; columns 1.5*size apart.
    assert FLAT_ODD.pixel_center(1, 1, size) == pytest.approx((10.0, h))
    assert FLAT_ODD.pixel_center(2, 1, size) == pytest.approx((25.0, h / 2))
    assert FLAT_ODD.pixel_center(2, 2, size) == pytest.approx((25.0, 1.5 * h))
    # pointy odd: row 1 shifted right, rows 1.5*size apart.
    assert POINTY_ODD.pixel_center(1, 1, size) == pytest.approx((h, 10.0))
    assert POINTY_ODD.pixel_center(1, 2, size) == pytest.approx((h / 2, 25.0))
    # Neighbouring centres are sqrt(3)*size apart in both orientations.
    for grid in (FLAT_ODD, FLAT_EVEN, POINTY_ODD):
        x0, y0 = grid.pixel_center(5, 5, size)
        for n in grid.neighbors(5, 5):
            x1, y1 = grid.pixel_center(*n, size)
            assert math.hypot(x1 - x0, y1 - y0) == pytest.approx(h)


def test_pixel_size_bounds_every_hex() -> None:
    size = 12.0
    for grid in (HexGrid("flat", "odd", 1, 1, 12, 10), HexGrid("pointy", "even", 0, 0, 7, 9)):
        width, height = grid.pixel_size(size)
        xs, ys = [], []
        for c, r in grid.all_hexes():
            for x, y in grid.hex_corners(c, r, size):
                xs.append(x)
                ys.append(y)
        assert min(xs) >= -1e-9 and min(ys) >= -1e-9
        assert max(xs) == pytest.approx(width) and max(ys) == pytest.approx(height)


# ----------------------------------------------------------------------------- VASSAL
def test_vassal_default_numbering_by_hand() -> None:
    # VASSAL defaults: x0=0, y0=32, dy=64, dx=sqrt(3)/2*64=55.4, hOff=vOff=1, leading 1, stagger.
    v = VassalHexNumbering({}, {})
    assert v.location_name(0, 32) == "0101"  # raw column 0, raw row 0
    # raw column 1 is drawn dy/2 lower: (55, 64) is raw row 0, labelled row 0+1 (stagger) +1 = 02
    assert v.location_name(55, 64) == "0202"
    assert v.location_name(55, 0) == "0201"  # raw row -1 -> label 1
    assert v.location_name(111, 32) == "0301"  # raw column 2 (even): no stagger
    assert v.get_location("0202") == (55, 64)
    assert v.name_part(5, "N", 2) == "005"
    assert v.name_part(-5, "N", 1) == "-05"
    assert [v.name_part(n, "A", 0) for n in (0, 25, 26, 27)] == ["A", "Z", "AA", "BB"]
    with pytest.raises(ValueError):
        v.get_location("5")  # hLeading=1 requires two digits (note §7, getLocation)


def test_vassal_attributes_for_the_tiny_map_geometry() -> None:
    # flat, odd columns low, numbered from 1, 36 px hexes: column 1 is low, so it must be a raw
    # EVEN column in VASSAL (stagger numbers raw odd columns one row higher): raw c = col - 1,
    # hOff = 1. Rows: our row r in column 1 is at y = r*dy; VASSAL puts raw row R of an even
    # column at R*dy + y0, so y0 = 0 and vOff = 0.
    spec = vassal_grid_spec(HexGrid("flat", "odd", 1, 1, 12, 10), 36.0)
    assert spec.grid["sideways"] == "false"
    assert spec.grid["x0"] == "36" and spec.grid["y0"] == "0"
    assert float(spec.grid["dx"]) == pytest.approx(54.0)
    assert float(spec.grid["dy"]) == pytest.approx(62.3538, abs=1e-4)
    n = spec.numbering
    assert (n["first"], n["hOff"], n["vOff"], n["hLeading"], n["vLeading"], n["stagger"]) == \
        ("H", "1", "0", "1", "1", "true")
    assert n["hDescend"] == n["vDescend"] == "false" and n["sep"] == ""
    assert all(value != "" for key, value in n.items() if key != "sep")  # §9.2: no empty numbers
    # Hand check of two hexes: 0101 centre (36, 62.35) -> raw col 0, raw row 1 -> "0101";
    # 0201 centre (90, 31.18) -> raw col 1 (odd), raw row 0, stagger +1 -> row label 1 -> "0201".
    v = VassalHexNumbering(spec.grid, spec.numbering)
    assert v.location_name(36, 62) == "0101"
    assert v.location_name(90, 31) == "0201"
    assert (spec.board_width, spec.board_height) == (666, 655)  # ceil(36*2+11*54), ceil(10.5*62.35)


def test_vassal_pointy_grid_is_sideways_with_row_label_first() -> None:
    spec = vassal_grid_spec(HexGrid("pointy", "odd", 1, 1, 10, 8), 36.0)
    assert spec.grid["sideways"] == "true"
    # Sideways, VASSAL's "column" counts screen rows, so our column is VASSAL's row label and the
    # row label must be printed first to get CCRR.
    assert spec.numbering["first"] == "V"


@pytest.mark.parametrize("orientation,parity", [("flat", "odd"), ("flat", "even"),
                                                ("pointy", "odd"), ("pointy", "even")])
@pytest.mark.parametrize("first", [0, 1])
@pytest.mark.parametrize("separator", ["", "."])
def test_vassal_round_trip_every_hex_of_a_30x40_grid(orientation: str, parity: str, first: int, separator: str) -> None:
    grid = HexGrid(orientation, parity, first, first, 30, 40, separator=separator)
    for size in (36.0, 25.5):
        spec = vassal_grid_spec(grid, size)
        vassal = VassalHexNumbering(spec.grid, spec.numbering, (spec.board_width, spec.board_height))
        for col, row in grid.all_hexes():
            hex_id = grid.hex_id(col, row)
            x, y = grid.pixel_center(col, row, size)
            # our id -> our pixel centre -> VASSAL's name for that point == our id
            assert vassal.location_name(round(x), round(y)) == hex_id
            # VASSAL's own centre for the name is the same hex (x0 is an int in VASSAL and it
            # truncates with (int), so it can be up to 1.5 px from our float centre)
            vx, vy = vassal.get_location(hex_id)
            assert abs(vx - x) <= 1.5 and abs(vy - y) <= 1.5
            assert vassal.location_name(vx, vy) == hex_id
