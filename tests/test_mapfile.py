"""The .wcmap format: parsing, sugar, located diagnostics, and the example map's VASSAL numbering."""

from __future__ import annotations

from pathlib import Path

import pytest

from warcodex.dsl.board import Board
from warcodex.dsl.diagnostics import DiagnosticError
from warcodex.dsl.hexgrid import VassalHexNumbering, vassal_grid_spec
from warcodex.dsl.mapfile import load_map, parse_map_text

ROOT = Path(__file__).resolve().parents[1]
MAPS = ROOT / "tests" / "data" / "maps"


def errors_of(text: str, filename: str = "t.wcmap") -> list[tuple[int, int, str]]:
    with pytest.raises(DiagnosticError) as info:
        parse_map_text(text, filename)
    return [(d.span.line, d.span.column, d.code) for d in info.value.diagnostics]


def diagnostics_of(text: str) -> list:
    with pytest.raises(DiagnosticError) as info:
        parse_map_text(text, "t.wcmap")
    return info.value.diagnostics


HEX_HEAD = 'map "T" provisional "test" {\n  grid hex flat odd cols 1..8 rows 1..6\n'


def hexmap(body: str) -> str:
    return HEX_HEAD + body + "\n}\n"


# ----------------------------------------------------------------------------- good input
def test_example_map_loads() -> None:
    board = load_map(ROOT / "games" / "tiny" / "map.wcmap")
    assert isinstance(board, Board)
    assert board.provenance.kind == "provisional"
    assert board.provenance.note == "invented for the example game"
    assert [(s.name, s.first_col, s.last_col) for s in board.sheets] == [("A", 1, 6), ("B", 7, 12)]


def test_location_ranges() -> None:
    board = parse_map_text(hexmap(
        "terrain forest: 0302-0305\n"  # column run: 0302 0303 0304 0305
        "terrain swamp: 0606-0306\n"  # row run, written backwards: columns 3..6 of row 6
        "terrain rough: 0501..0602\n"  # rectangle: 0501 0502 0601 0602
    ))
    by = {t: sorted(loc for loc in board.locations if board.terrain(loc) == t)
          for t in ("forest", "swamp", "rough")}
    assert by == {"forest": ["0302", "0303", "0304", "0305"],
                  "swamp": ["0306", "0406", "0506", "0606"],
                  "rough": ["0501", "0502", "0601", "0602"]}
    assert board.terrain("0101") is None  # no default terrain declared


def test_location_blocks_values_and_names() -> None:
    board = parse_map_text(hexmap(
        'location 0101 "Fort \\"Alpha\\"" { vp: 3 supply: true hidden: false owner: red code: "A-1" '
        'penalty: -2 fortification }\n'
        'location 0201-0203 0801..0802 { entry_area: "west" }\n'
        'location 0101 { vp: 3 }\n'  # same value again: fine
    ))
    assert dict(board.attrs("0101")) == {"name": 'Fort "Alpha"', "vp": 3, "supply": True,
                                         "hidden": False, "owner": "red", "code": "A-1",
                                         "penalty": -2}
    assert board.features("0101") >= {"fortification"}
    assert [loc for loc in board.locations if board.attr(loc, "entry_area") == "west"] == \
        ["0201", "0202", "0203", "0801", "0802"]


def test_paths_put_the_feature_on_edges_and_hexes() -> None:
    board = parse_map_text(hexmap("path rail: 0101 0201 0301 0302"))
    assert board.edge("0101", "0201") == {"rail"} and board.edge("0301", "0302") == {"rail"}
    assert board.edge("0101", "0102") == frozenset()
    assert board.locations_with("rail") == ("0101", "0201", "0301", "0302")


def test_column_seam_sugar() -> None:
    board = parse_map_text(hexmap("edge river: cols 3/4 rows 2..3"))
    # Column 3 is low (odd): 0302 touches 0402 (NE) and 0403 (SE); 0303 touches 0403 and 0404.
    assert board.edges_with("river") == (("0302", "0402"), ("0302", "0403"),
                                         ("0303", "0403"), ("0303", "0404"))


def test_id_width_defaults_and_explicit_format() -> None:
    big = parse_map_text('map "B" rulebook { grid hex flat even cols 1..120 rows 1..10 }')
    assert (big.grid.col_digits, big.grid.row_digits) == (3, 2)
    assert big.locations[0] == "00101" and big.provenance.note == ""
    wide = parse_map_text('map "W" rulebook { grid hex flat even cols 1..9 rows 1..9 ids CCCRRR }')
    assert wide.locations[0] == "001001"


def test_area_map_and_edge_attributes() -> None:
    board = load_map(MAPS / "ring_world.wcmap")
    assert board.edge_attrs("sz3", "sz5") == {"controlled_by": "egypt", "toll": 2}
    assert board.attr("europe", "region") == "land"


# ----------------------------------------------------------------------------- VASSAL
def test_example_map_vassal_numbering_round_trip() -> None:
    board = load_map(ROOT / "games" / "tiny" / "map.wcmap")
    spec = vassal_grid_spec(board.grid, 36.0)
    vassal = VassalHexNumbering(spec.grid, spec.numbering, (spec.board_width, spec.board_height))
    for loc in board.locations:
        x, y = board.pixel_center(loc, 36.0)
        assert vassal.location_name(round(x), round(y)) == loc


# ----------------------------------------------------------------------------- errors
def test_errors_file_reports_every_problem_with_its_location() -> None:
    path = MAPS / "errors.wcmap"
    with pytest.raises(DiagnosticError) as info:
        load_map(path)
    got = [(d.span.line, d.span.column, d.code) for d in info.value.diagnostics]
    assert got == [
        (4, 24, "E-map-unknown-location"),  # 0907: column 9 of an 8-column map
        (5, 18, "E-map-conflict"),  # 0203 is already forest
        (6, 21, "E-map-not-adjacent"),  # 0101/0303
        (7, 24, "E-map-path"),  # 0102 -> 0204
        (9, 17, "E-map-duplicate"),  # second "Kalach"
        (10, 17, "E-map-bad-id"),  # '305'
        (11, 19, "E-map-conflict"),  # vp 2 then vp 3
        (12, 11, "E-map-reserved"),  # edge_north is automatic
        (13, 18, "E-map-range"),  # 0102-0304 is not a column or row run
        (14, 21, "E-map-seam"),  # row seam on a flat grid
    ]
    d = info.value.diagnostics
    assert all(x.span.file == str(path) for x in d)
    assert d[0].hint == "the map has columns 1..8 and rows 1..6"
    assert d[5].hint == "ids have 4 digits (CCRR), e.g. 0101"
    assert d[8].hint == "write 0102..0304 for the rectangle between them"
    # rendering shows the source line and a caret under the offending id
    rendered = d[0].render()
    assert f"{path}:4:24: error[E-map-unknown-location]: hex 0907 is outside the map" in rendered
    assert "  terrain forest: 0203 0907" in rendered
    assert rendered.splitlines()[2].endswith("^^^^")


def test_area_errors_with_hints() -> None:
    with pytest.raises(DiagnosticError) as info:
        load_map(MAPS / "errors_areas.wcmap")
    d = info.value.diagnostics
    assert [(x.span.line, x.span.column, x.code) for x in d] == [
        (7, 8, "E-map-duplicate"),  # land france, again
        (8, 20, "E-map-asymmetric"),  # france lists germany; germany's line does not list france
        (8, 36, "E-map-unknown-location"),  # chanel
        (10, 36, "E-map-adjacent"),  # channel adjacent to itself
        (11, 56, "E-map-unknown-location"),  # italy
        (12, 31, "E-map-not-adjacent"),  # france/france
    ]
    assert d[2].hint == "did you mean 'channel'?"
    assert d[1].hint == "add france to `adjacent germany:` or remove germany here"


def test_syntax_error_says_what_was_expected() -> None:
    with pytest.raises(DiagnosticError) as info:
        load_map(MAPS / "syntax_error.wcmap")
    (d,) = info.value.diagnostics
    assert (d.span.line, d.span.column, d.code) == (3, 18, "E-map-syntax")
    assert d.message == "unexpected '0101'; expected ':'"


def test_misspelt_statement_keyword_gets_a_hint() -> None:
    with pytest.raises(DiagnosticError) as info:
        load_map(MAPS / "misspelt.wcmap")
    (d,) = info.value.diagnostics
    assert (d.span.line, d.span.column) == (4, 3)
    assert d.message == "unknown statement 'terain'"
    assert d.hint == "did you mean 'terrain'?"


def test_unexpected_end_of_file_and_bad_characters() -> None:
    (d,) = diagnostics_of('map "T" provisional {\n  grid areas\n  land a "A"\n')
    assert d.message.startswith("unexpected end of file; expected ")
    assert "'}'" in d.message and (d.span.line, d.span.column) == (3, 13)
    (d,) = diagnostics_of(hexmap("terrain forest: 0101 @"))
    assert d.message.startswith("unexpected character '@'")
    assert (d.span.line, d.span.column) == (3, 22)
    (d,) = diagnostics_of('map "T" provisional { grid hex flat odd cols 1..4 rows 1..4 ids 22 }')
    assert "an id format such as CCRR" in d.message


def test_misspelt_words_inside_statements() -> None:
    (d,) = diagnostics_of('map "T" provisional {\n grid hex flatt odd cols 1..4 rows 1..4\n}')
    # the lexer reads "flat" + "t"; the diagnostic names the whole word
    assert (d.message, d.hint) == ("unknown word 'flatt'", "did you mean 'flat'?")
    assert (d.span.line, d.span.column, d.span.end_column) == (2, 11, 16)
    (d,) = diagnostics_of(hexmap("wrap east-wast"))
    assert (d.message, d.hint) == ("unknown word 'east-wast'; expected 'east-west'", "did you mean 'east-west'?")
    (d,) = diagnostics_of('map "T" provisonal { grid areas }')
    assert d.message == "unexpected 'provisonal'; expected one of 'player_aid', 'provisional', 'rulebook' or '{'"
    assert d.hint == "did you mean 'provisional'?"


def test_header_problems() -> None:
    assert errors_of('map "T" { grid areas }') == [(1, 5, "E-map-provenance")]
    assert errors_of('map "T" rulebook { }') == [(1, 5, "E-map-grid")]
    assert errors_of('map "T" rulebook {\n grid areas\n grid areas\n}') == [(3, 2, "E-map-grid")]
    assert errors_of('map "T" rulebook { grid hex flat odd cols 1..150 rows 1..5 ids CCRR }') == \
        [(1, 64, "E-map-grid")]
    assert errors_of('map "T" rulebook { grid hex flat odd cols 5..1 rows 1..5 }') == \
        [(1, 43, "E-map-range")]


def test_sheet_problems() -> None:
    assert errors_of(hexmap("sheet A cols 1..4 rows 1..6\nsheet B cols 4..9 rows 1..6")) == \
        [(4, 1, "E-map-sheet")]  # reaches column 9
    assert errors_of(hexmap("sheet A cols 1..4 rows 1..6\nsheet B cols 4..8 rows 1..6")) == \
        [(4, 1, "E-map-sheet")]  # overlaps A in column 4
    assert errors_of(hexmap("sheet A cols 1..4 rows 1..6\nsheet A cols 5..8 rows 1..6")) == \
        [(4, 7, "E-map-duplicate")]
    # with only sheet A, hexes of columns 5..8 are not on the board
    d = diagnostics_of(hexmap("sheet A cols 1..4 rows 1..6\nfeature city: 0501"))
    assert [(x.span.line, x.code) for x in d] == [(4, "E-map-unknown-location")]
    assert d[0].message == "hex 0501 is on no sheet of this map"


def test_wrap_problems() -> None:
    # flat-top wrap needs an even number of columns
    assert errors_of('map "T" rulebook {\n grid hex flat odd cols 1..5 rows 1..4\n wrap east-west\n}') == \
        [(3, 2, "E-map-wrap")]
    # wrap pairs are for area maps
    assert errors_of(hexmap("wrap east-west: 0101/0801")) == [(3, 1, "E-map-wrap")]


def test_statements_in_the_wrong_kind_of_map() -> None:
    assert errors_of(hexmap('land a "A"')) == [(3, 1, "E-map-area")]
    assert errors_of(hexmap("adjacent 0101: 0102")) == [(3, 1, "E-map-adjacent")]
    area = 'map "A" rulebook {\n grid areas\n land a\n land b\n adjacent a: b\n'
    assert errors_of(area + " sheet X cols 1..2 rows 1..2\n}") == [(6, 2, "E-map-sheet")]
    assert errors_of(area + " terrain hills: a-b\n}") == [(6, 17, "E-map-range")]
    assert errors_of(area + " edge river: cols 1/2 rows 1..2\n}") == [(6, 14, "E-map-seam")]
    assert errors_of(area + " path road: a b a c\n}") == [(6, 19, "E-map-unknown-location")]


def test_more_located_errors() -> None:
    assert errors_of(hexmap('location 0101 0102 "Twins"')) == [(3, 20, "E-map-name")]
    assert errors_of(hexmap("edge river: 0101/0102 { navigable }")) == [(3, 25, "E-map-attr")]
    assert errors_of(hexmap("edge river: 0101/0102 { width: 1 }\nedge ford: 0102/0101 { width: 2 }")) == \
        [(4, 24, "E-map-conflict")]
    assert errors_of(hexmap("edge wrap: 0101/0102")) == [(3, 6, "E-map-reserved")]
    assert errors_of(hexmap("edge river: cols 2/4 rows 1..2")) == [(3, 13, "E-map-seam")]
    assert errors_of(hexmap("default terrain clear\ndefault terrain rough")) == [(4, 1, "E-map-duplicate")]


def test_several_errors_in_one_pass_are_sorted_by_position() -> None:
    got = errors_of(hexmap("feature city: 0909\nfeature town: 0010\nedge r: 0101/0105"))
    assert got == [(3, 15, "E-map-unknown-location"), (4, 15, "E-map-unknown-location"),
                   (5, 9, "E-map-not-adjacent")]


def test_missing_file_is_a_diagnostic_not_a_traceback(tmp_path: Path) -> None:
    with pytest.raises(DiagnosticError) as info:
        load_map(tmp_path / "nope.wcmap")
    assert info.value.diagnostics[0].code == "E-map-read"


# ----------------------------------------------------------------------------- off-map boxes
def test_boxes_are_named_off_map_locations_with_declared_adjacency() -> None:
    board = parse_map_text(hexmap(
        "default terrain clear\n"
        'box EA_W "Entry Area W" { entry_area: "W" side: "axis" } adjacent_to: 0101-0103\n'
        'box EA_X "Entry Area X" adjacent_to: 0104-0106 EA_W\n'
        "box TRANSIT\n"
        "terrain entry_area: EA_W EA_X\n"
        "path rail: 0303 0203 0103 EA_W\n"
        "edge road: 0104/EA_X\n"
        "location TRANSIT { capacity: 2 }\n"
    ))
    assert board.locations[-3:] == ("EA_W", "EA_X", "TRANSIT")
    assert board.boxes == ("EA_W", "EA_X", "TRANSIT")
    assert board.is_box("EA_W") and not board.is_box("0101")
    assert board.neighbors("EA_W") == ("0101", "0102", "0103", "EA_X")
    assert "EA_W" in board.neighbors("0102") and board.is_adjacent("EA_X", "EA_W")
    assert board.neighbors("TRANSIT") == ()
    assert board.terrain("EA_W") == "entry_area" and board.terrain("TRANSIT") == "clear"
    assert board.attrs("EA_W")["name"] == "Entry Area W" and board.attr("EA_W", "side") == "axis"
    assert board.attr("TRANSIT", "capacity") == 2
    assert "rail" in board.edge("0103", "EA_W") and board.has_feature("EA_W", "rail")
    assert "road" in board.edge("EA_X", "0104")
    assert board.sheet("EA_W") is None
    assert "edge_west" not in board.features("EA_W")  # map-edge features are for hexes
    with pytest.raises(ValueError, match="off-map box"):
        board.coords("EA_W")


def test_distances_through_boxes() -> None:
    board = parse_map_text(hexmap(
        "box EA_W adjacent_to: 0101-0103\n"
        "box EA_X adjacent_to: 0801-0806\n"
        "box REAR adjacent_to: EA_W\n"
        "box ALONE\n"
    ))
    assert board.distance("EA_W", "0102") == 1
    assert board.distance("0402", "EA_W") == 1 + board.distance("0402", "0102")  # via the nearest hex it touches
    assert board.distance("REAR", "0101") == 2  # through EA_W
    assert board.distance("REAR", "EA_W") == 1
    assert board.distance("EA_W", "EA_X") == 2 + 7  # 01xx .. 08xx, plus entering and leaving
    assert board.distance("ALONE", "0101") is None and board.distance("ALONE", "EA_W") is None
    assert board.distance("ALONE", "ALONE") == 0
    assert board.anchors("REAR") == (("0101", 2), ("0102", 2), ("0103", 2))


def test_box_errors_are_located() -> None:
    got = errors_of(hexmap(
        "box 0101\n"  # reads as a hex id
        "box EA_A adjacent_to: 0909 EA_A\n"  # off the map; itself
        "box EA_A\n"  # twice
        "box EA_B adjacent_to: EA_C\n"  # unknown box (read as a hex id)
        "terrain forest: EA_A-EA_B\n"  # boxes have no rows or columns
    ))
    assert got == [(3, 5, "E-map-box"), (4, 23, "E-map-unknown-location"), (4, 28, "E-map-adjacent"),
                   (5, 5, "E-map-duplicate"), (6, 23, "E-map-unknown-location"), (7, 17, "E-map-range")]
    d = diagnostics_of(hexmap("box EA_A\nbox EA_B adjacent_to: EA_C\n"))
    assert d[0].message == "no hex or box 'EA_C' on this map" and d[0].hint.startswith("did you mean 'EA_")
    area = 'map "W" provisional "t" {\n  grid areas\n  land a\n  box EA_A\n}\n'
    assert errors_of(area) == [(4, 3, "E-map-box")]
