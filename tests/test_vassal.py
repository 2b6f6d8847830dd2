"""The VASSAL 3.7 module exporter (exporters/vassal): zip layout, buildFile.xml against the
catalog of VASSAL classes, piece definitions through VASSAL's decoder, grid numbering, set-up."""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from warcodex.dsl.checker import check_path
from warcodex.exporters.vassal import counters, palette, tracker
from warcodex.exporters.vassal.buildfile import DicePlan, build
from warcodex.exporters.vassal.catalog import (
    B, CLASSES, EMBELLISHMENT_VERSION_FIELD, GRID, MAP, NOT_IN_37, TRAITS, VASSAL_VERSION, WIDGET, Catalog, M,
    check_value)
from warcodex.exporters.vassal.encoder import (
    TAB, Decoder, SequenceEncoder, Trait, basic_piece, clean_text, decode, decode_piece, encode, key_list, nest,
    parse_string_array, piece_definition, string_array, trait, trait_fields)
from warcodex.dsl.hexgrid import VassalHexNumbering
from warcodex.exporters.vassal.module import build_module

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "games" / "tiny"
BATTLE = ROOT / "tests" / "data" / "games" / "battle"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def tiny():
    return build_module(TINY)


@pytest.fixture(scope="module")
def battle():
    return build_module(BATTLE)


def _zip(module) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(module.zip_bytes()))


def _tree(module) -> etree._Element:
    return etree.fromstring(_zip(module).read("buildFile.xml"))


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def _piece_texts(root) -> list[tuple[str, str]]:
    return [(e.tag, e.text) for e in root.iter(WIDGET + "PieceSlot", WIDGET + "CardSlot", M + "PrototypeDefinition")]


# =============================================================================== encoder
def test_sequence_encoder_escapes_like_vassal():
    assert encode(["A", "B,C"], ",") == "A,B\\,C"  # the example in SequenceEncoder's javadoc
    assert decode("A,B\\,C", ",") == ["A", "B,C"]
    assert encode(["\\x", "'q'", "", None, True, 1.0], ";") == "'\\x';''q'';;;true;1.0"
    assert decode("'\\x';''q'';;;true;1.0", ";") == ["\\x", "'q'", "", "", "true", "1.0"]
    assert decode("a;", ";") == ["a", ""]  # a trailing delimiter is one more, empty token
    assert decode("", ";") == [""] and decode(None, ";") == []
    d = Decoder("1", ";")
    assert d.next_token() == "1" and d.next_token("x") == "x"
    with pytest.raises(IndexError):
        d.next_token()


def test_worked_example_of_the_note_byte_for_byte():
    """notes/vassal-format.md §8.7: the prototype and the PieceSlot of a two-step counter."""
    proto = piece_definition([
        trait("mark;", ["Side"], "Blue"),
        trait("report;", [key_list(["70,130"]), "$oldPieceName$ flipped", "", "", "Report", False], "-1"),
        trait("delete;", ["Delete", "68,130", ""]),
        basic_piece("", "", ""),
    ])
    assert proto == ("+/null/mark;Side\treport;70\\,130;$oldPieceName$ flipped;;;Report;false\\\tdelete;Delete;"
                     "68,130;\\\\\tpiece;;;;/Blue\t-1\\\t\\\\\tnull;0;0;;0")
    slot = piece_definition([
        trait("emb2;", ["", 130, "", "Flip", 130, "", "", 130, "", "", "", "1", False, 0, 0,
                        "inf_front.png,inf_back.png", ",+ (reduced)", True, "Step", "", "", False, "", 1, 1, True,
                        "", "70,130", "", "Step", 1.0, "", True], "1"),
        Trait("prototype;Unit", ""),
        basic_piece("", "1st Infantry", 1),
    ])
    assert slot == ("+/null/emb2;;130;;Flip;130;;;130;;;;1;false;0;0;inf_front.png,inf_back.png;,+ (reduced);true;"
                    "Step;;;false;;1;1;true;;70,130;;Step;1.0;;true\tprototype;Unit\\\tpiece;;;;1st Infantry/1\t\\\t"
                    "null;0;0;1;0")


def test_nesting_puts_k_backslashes_before_the_kth_tab():
    assert nest(["A", "B", "C", "D"]) == "A\tB\\\tC\\\\\tD"


_text = st.text(alphabet=st.sampled_from(list("ab;,/\\'\t |$\u00e9")), max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(_text, min_size=1, max_size=6), st.sampled_from([";", ",", "/", "\t"]))
def test_sequence_encoder_round_trip(tokens, delimiter):
    # VASSAL cannot encode a token that ends in a backslash (it escapes the next delimiter);
    # clean_text removes that case from everything we write.
    tokens = [t.rstrip("\\") for t in tokens]
    assert decode(encode(tokens, delimiter), delimiter) == tokens


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.lists(_text, max_size=5), _text), min_size=0, max_size=4), _text, _text)
def test_piece_definition_round_trip(levels, image, name):
    traits = [trait("mark;", [clean_text(f) for f in fields], clean_text(state)) for fields, state in levels]
    traits.append(basic_piece(clean_text(image), name, 7))
    text = piece_definition(traits)
    decoded = decode_piece(text)
    assert decoded.piece_id == "null"
    assert list(decoded.traits) == traits
    assert [trait_fields(t) for t in decoded.traits[:-1]] == [[clean_text(f) for f in fields] or [""]
                                                               for fields, _ in levels]


def test_decode_piece_rejects_what_vassal_would_misread():
    with pytest.raises(ValueError):
        decode_piece("+/null/mark;x/")  # no BasicPiece
    with pytest.raises(ValueError):
        decode_piece("+/null/mark;x\tpiece;;;;/only-one-part")  # a state part missing
    with pytest.raises(ValueError):
        decode_piece("+/null/piece;;;a/b;n/null;0;0;1;0")  # an unescaped '/'


# =============================================================================== zip and metadata
def test_zip_layout(tiny):
    z = _zip(tiny)
    names = z.namelist()
    assert names[:2] == ["moduledata", "buildFile.xml"]
    assert "extensiondata" not in names and "savedGame" not in names  # would not be a module (note §1)
    assert all(n.startswith(("images/", "help/", "aids/")) for n in names[2:])
    assert all(i.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED) for i in z.infolist())
    assert z.testzip() is None
    for n in names:
        if n.startswith("images/"):
            assert n.endswith(".png") and _png_size(z.read(n))[0] > 0


def test_moduledata_from_the_game_metadata(tiny):
    md = etree.fromstring(_zip(tiny).read("moduledata"))
    assert md.tag == "data" and md.get("version") == "1"
    values = {e.tag: e.text or "" for e in md}
    assert values["VassalVersion"] == VASSAL_VERSION == "3.7.0"
    assert values["name"] == "Tiny Front"
    assert values["version"] == f"{tiny.data.version}-meeting"  # one per scenario: VASSAL's tile cache is per version
    assert "Meeting Engagement" in values["description"] and "Tiny Front example rules" in values["description"]
    assert values["dateSaved"].isdigit()
    root = _tree(tiny)
    assert root.get("VassalVersion") == "3.7.0" and root.get("name") == "Tiny Front"


# =============================================================================== buildFile.xml
@pytest.mark.parametrize("which", ["tiny", "battle"])
def test_buildfile_parses_and_every_tag_and_attribute_is_in_the_catalog(which, request):
    module = request.getfixturevalue(which)
    raw = _zip(module).read("buildFile.xml")
    assert b"<![CDATA[" not in raw and b"<!DOCTYPE" not in raw  # note §4
    root = etree.fromstring(raw)
    assert root.tag == B + "GameModule"
    catalog = Catalog()
    seen = set()
    for e in root.iter():
        parent = e.getparent()
        if e.tag == "entry":
            assert parent.tag == M + "PlayerRoster" and e.text
            continue
        assert e.tag in CLASSES and e.tag not in NOT_IN_37, e.tag
        catalog.check(e.tag, dict(e.attrib), parent.tag if parent is not None else None)
        seen.add(e.tag)
        if CLASSES[e.tag].content == "piece":
            assert e.text and e.text.startswith("+/") and e.text == e.text.strip()
    # the components a playable module needs (note §1.4, §5)
    for tag in (M + "BasicCommandEncoder", M + "Map", MAP + "BoardPicker", MAP + "boardPicker.Board",
                MAP + "PieceMover", MAP + "KeyBufferer", MAP + "MenuDisplayer", MAP + "StackExpander",
                M + "PieceWindow", M + "DiceButton", M + "turn.TurnTracker", M + "PrototypesContainer",
                M + "documentation.HelpFile", M + "properties.GlobalProperty"):
        assert tag in seen, tag


def test_catalog_rejects_what_vassal_would_ignore_or_choke_on():
    c = Catalog()
    with pytest.raises(ValueError, match="no attribute"):
        c.check(M + "Map", {"mapname": "x"})  # attribute names are case-sensitive
    with pytest.raises(ValueError, match="not a Java int"):
        c.check(MAP + "SetupStack", {"x": ""})  # an empty int aborts loading (note §9.2)
    with pytest.raises(ValueError, match="child"):
        c.check(WIDGET + "PieceSlot", {}, parent=M + "Map")
    with pytest.raises(ValueError, match="not a VASSAL 3.7 class"):
        c.check(M + "folder.PrototypeSubFolder", {})
    assert check_value("H|V", "") is not None and check_value("color", "255,0,10") is None
    for cls in CLASSES.values():
        assert cls.source.startswith("VASSAL/") and ".java" in cls.source
    for t in TRAITS.values():
        assert t.source.startswith("VASSAL/counters/")


@pytest.mark.parametrize("which", ["tiny", "battle"])
def test_every_referenced_image_and_file_is_in_the_zip(which, request):
    module = request.getfixturevalue(which)
    z = _zip(module)
    names = set(z.namelist())
    root = etree.fromstring(z.read("buildFile.xml"))
    referenced = set()
    for e in root.iter():
        cls = CLASSES.get(e.tag)
        if cls is None:
            continue
        for attr, value in e.attrib.items():
            kind = cls.attrs.get(attr)
            if kind == "image" and not value.startswith("/"):
                referenced.add("images/" + value)
            elif kind == "file":
                referenced.add(value)
                if e.tag == WIDGET + "HtmlChart":  # HtmlChart loads <img src="x.png"> from images/
                    import lxml.html

                    page = lxml.html.document_fromstring(z.read(value))
                    referenced.update("images/" + src for src in page.xpath("//img/@src") if "/" not in src)
    for _, text in _piece_texts(root):
        for t in decode_piece(text).traits:
            if t.prefix == "piece;" and trait_fields(t)[2]:
                referenced.add("images/" + trait_fields(t)[2])
            if t.prefix == "emb2;":
                referenced.update("images/" + i for i in parse_string_array(trait_fields(t)[15]) if i)
            if t.prefix == "obs;" and trait_fields(t)[1]:  # a card's back (Mask)
                referenced.add("images/" + trait_fields(t)[1])
    missing = referenced - names
    assert not missing, missing
    unused = {n for n in names if n.startswith("images/")} - referenced
    assert not unused, unused


def test_board_image_size_matches_the_grid(tiny):
    z = _zip(tiny)
    root = etree.fromstring(z.read("buildFile.xml"))
    board = next(root.iter(MAP + "boardPicker.Board"))
    w, h = _png_size(z.read("images/" + board.get("image")))
    grid = tiny.data.board.grid
    gw, gh = grid.pixel_size(44.0)
    assert w == round(gw + 0.5) and h > gh  # the grid's frame, plus the legend strip below it


# =============================================================================== pieces
@pytest.mark.parametrize("which", ["tiny", "battle"])
def test_piece_definitions_decode_to_known_traits(which, request):
    module = request.getfixturevalue(which)
    root = _tree(module)
    prototypes = {e.get("name") for e in root.iter(M + "PrototypeDefinition")}
    texts = _piece_texts(root)
    assert texts
    for tag, text in texts:
        piece = decode_piece(text)
        # re-encoding the decoded traits gives back the very same text (a lossless round trip)
        assert piece_definition(list(piece.traits), piece.piece_id) == text
        for t in piece.traits:
            cls = TRAITS.get(t.prefix)
            assert cls is not None, t.prefix
            fields = trait_fields(t)
            if t.prefix == "mark;":
                names = parse_string_array(t.type[len("mark;"):])
                assert len(names) == len(parse_string_array(t.state))
            else:
                assert len(fields) >= cls.min_fields, (t.prefix, fields)
            if t.prefix == "emb2;":
                assert len(fields) == 33 and fields[EMBELLISHMENT_VERSION_FIELD - 1] == "1"
                images = parse_string_array(fields[15])
                assert len(images) == len(parse_string_array(fields[16])) >= 2
                assert 1 <= int(t.state) <= len(images)
            if t.prefix == "prototype;":
                assert fields[0] in prototypes, fields[0]
        basic = piece.traits[-1]
        assert basic.prefix == "piece;" and len(trait_fields(basic)) == 4
        state = decode(basic.state, ";")
        assert state[0] == "null" and len(state) == 5
        if tag == M + "PrototypeDefinition":
            assert basic.type == "piece;;;;"  # discarded by UsePrototype


@pytest.mark.parametrize("which", ["tiny", "battle"])
def test_gpids_unique_and_below_next_piece_slot_id(which, request):
    root = _tree(request.getfixturevalue(which))
    gpids = [int(e.get("gpid")) for e in root.iter(WIDGET + "PieceSlot")]
    assert len(gpids) == len(set(gpids)) and min(gpids) >= 1
    assert int(root.get("nextPieceSlotId")) > max(gpids)
    for e in root.iter(WIDGET + "PieceSlot"):  # the BasicPiece state carries the slot's gpid
        assert decode(decode_piece(e.text).traits[-1].state, ";")[3] == e.get("gpid")


def test_step_layer_has_the_per_step_values(tiny):
    root = _tree(tiny)
    slot = next(e for e in root.iter(WIDGET + "PieceSlot") if e.get("entryName") == "11th Panzer")
    layer = decode_piece(slot.text).traits[0]
    fields = trait_fields(layer)
    assert fields[18] == "Steps" and fields[27] == "70,130"  # layer name, "lose step" keystroke
    assert parse_string_array(fields[16]) == ["", "+ (1 of 2 steps: 4-3-6)"]
    assert layer.state == "1"  # full strength at set-up


def test_nato_symbols_from_unit_classes():
    assert counters.nato_kind(["infantry_class"], "rifle") == "infantry"
    assert counters.nato_kind(["mechanized", "armor"], "panzer") == "armor"
    assert counters.nato_kind(["mechanized", "infantry_type"], "pz_grenadier") == "mechanized"
    assert counters.nato_kind([], "tank") == "armor"
    assert counters.nato_kind(["cavalry"], "cossacks") == "cavalry"
    assert counters.nato_kind([], "battleship") == "naval"
    assert counters.nato_kind([], "zzz") == "unknown"
    # an echelon (division, corps) or an honorific (guards) is not an arm: a Stalingrad panzer
    # division of class `division` is armor, a guards tank corps too, a guards rifle division infantry
    assert counters.nato_kind(["mechanized", "armor", "panzer", "division"], "panzer_division") == "armor"
    assert counters.nato_kind(["mechanized", "armor", "guards", "panzer"], "guards_tank_corps") == "armor"
    assert counters.nato_kind(["infantry_type", "guards", "division"], "guards_rifle_division") == "infantry"
    assert counters.nato_kind(["infantry_type", "naval_infantry"], "naval_infantry_brigade") == "infantry"
    # a leader or a supply point that moves as mechanized is still a leader, a supply point
    assert counters.nato_kind(["leader", "non_combat", "mechanized"], "leader_manstein") == "leader"
    assert counters.nato_kind(["supply_point", "non_combat", "mechanized"], "axis_supply_point") == "supply"


# =============================================================================== palette
def test_palette_groups_by_the_symbol_a_counter_shows():
    few = [("a", "infantry"), ("b", "armor")]
    assert palette.arrange(few) == [(None, ["a", "b"])]
    many = [(f"t{i}", kind) for i, kind in enumerate(["leader", "infantry", "armor", "mountain", "mechanized"] * 6)]
    tabs = palette.arrange(many)
    assert [title for title, _ in tabs] == ["Armor & mechanized", "Infantry", "HQ, leaders & supply"]
    assert sorted(n for _, names in tabs for n in names) == sorted(n for n, _ in many)  # each once
    assert tabs[1][1][:3] == ["t1", "t3", "t6"]  # the declaration order within a group
    assert palette.arrange([(f"t{i}", "infantry") for i in range(40)]) == [(None, [f"t{i}" for i in range(40)])]
    assert palette.arrange([("z", "unknown"), ("y", "infantry")], group_above=1) == [("Infantry", ["y"]),
                                                                                     (palette.OTHER, ["z"])]


def test_palette_is_a_window_of_counter_grids(tiny, monkeypatch):
    root = _tree(tiny)
    windows = list(root.iter(M + "PieceWindow"))
    # VASSAL docks the first PieceWindow above the map at the chat's height: an empty hidden one
    # takes that place, the palette gets a window of its own
    assert windows[0].get("hidden") == "true" and len(windows[0]) == 0
    palette_window = windows[1]
    assert palette_window.get("hidden") == "false" and palette_window.get("text") == "Counters"
    panels = list(palette_window.iter(WIDGET + "PanelWidget"))
    assert panels and all(p.get("fixed") == "true" and p.get("nColumns") == str(palette.COLUMNS) for p in panels)
    tabs = [t.get("entryName") for t in palette_window.find(WIDGET + "TabWidget")]
    assert tabs == ["Axis", "Soviet", "Markers"]
    # a side with many types: a tab per group inside its tab
    monkeypatch.setattr(palette, "GROUP_ABOVE", 1)
    grouped = _tree(build_module(TINY))
    axis = next(t for t in grouped.iter(WIDGET + "TabWidget") if t.get("entryName") == "Axis")
    # the other side's types come last, named by whose they are (not taken for the "Other" arms)
    assert [p.get("entryName") for p in axis] == ["Armor & mechanized", "Infantry", "Soviet types"]
    assert [s.get("entryName") for s in axis[0]] == ["Panzer division"]


def test_counter_sheet_leaves_out_other_sides_types_in_a_sides_colours(tiny):
    """The counter sheet shows each side's own counters: a Soviet rifle division drawn in Axis
    colours (the Axis tab's "Soviet types", for captures) is not a counter of the game."""
    from warcodex.exporters.vassal.module import _slot_images, counter_sheet_items

    plan = tiny.plan
    sheet = {svg for svg, _ in counter_sheet_items(plan.maps, plan.palette, tiny.svgs)}
    images = {own: {img for tab in plan.palette for p in tab.panels if p.own == own for s in p.slots
                    for img, _ in _slot_images(s)} for own in (True, False)}
    assert images[False] and images[True]
    assert all(tiny.svgs[img] in sheet for img in images[True])
    others = images[False] - images[True]
    assert others and not any(tiny.svgs[img] in sheet for img in others)


# =============================================================================== grid and set-up
def _grid_of(root, board_name: str):
    board = next(b for b in root.iter(MAP + "boardPicker.Board") if b.get("name") == board_name)
    hexgrid = board.find(GRID + "HexGrid")
    regions = board.find(GRID + "RegionGrid")
    return board, hexgrid, regions


def test_hex_numbering_round_trips_for_every_hex_of_the_map(tiny):
    """our id -> our pixel centre -> VASSAL's name for that point (VassalHexNumbering, built from
    the attributes as written in buildFile.xml) == our id; and VASSAL's centre for the id lies in
    the same hex."""
    root = _tree(tiny)
    board_model = tiny.data.board
    board, hexgrid, _ = _grid_of(root, board_model.name)
    numbering = hexgrid.find(GRID + "mapgrid.HexGridNumbering")
    vassal = VassalHexNumbering(dict(hexgrid.attrib), dict(numbering.attrib))
    size = 44.0
    hexes = [loc for loc in board_model.locations if not board_model.is_box(loc)]
    assert len(hexes) == 120
    for loc in hexes:
        x, y = board_model.pixel_center(loc, size)
        assert vassal.location_name(round(x), round(y)) == loc
        vx, vy = vassal.get_location(loc)
        assert abs(vx - x) <= 1.5 and abs(vy - y) <= 1.5
        assert vassal.location_name(vx, vy) == loc


@pytest.mark.parametrize("which", ["tiny", "battle"])
def test_every_at_start_location_is_a_grid_location_of_an_existing_board(which, request):
    module = request.getfixturevalue(which)
    z = _zip(module)
    root = etree.fromstring(z.read("buildFile.xml"))
    stacks = 0
    for mp in root.iter(M + "Map"):
        boards = {b.get("name"): b for b in mp.iter(MAP + "boardPicker.Board")}
        for s in mp.iter(MAP + "SetupStack"):
            stacks += 1
            assert s.get("useGridLocation") == "true"
            board, hexgrid, regions = _grid_of(mp, s.get("owningBoard"))
            assert s.get("owningBoard") in boards  # else VASSAL never places the stack (note §1)
            w, h = _png_size(z.read("images/" + board.get("image")))
            if hexgrid is not None:
                v = VassalHexNumbering(dict(hexgrid.attrib), dict(hexgrid.find(GRID + "mapgrid.HexGridNumbering").attrib))
                x, y = v.get_location(s.get("location"))
                assert v.location_name(x, y) == s.get("location") and 0 <= x < w and 0 <= y < h
                assert s.get("location") in module.data.board
            else:
                names = {r.get("name"): (int(r.get("originx")), int(r.get("originy")))
                         for r in regions.iter(GRID + "Region")}
                x, y = names[s.get("location")]
                assert 0 <= x < w and 0 <= y < h
            assert len(s) >= 1
    if which == "tiny":
        assert stacks == 8 + 1  # 8 set-up hexes, and the turn 3 reinforcements box


def test_at_start_stacks_are_the_scenario_setup(tiny):
    root = _tree(tiny)
    main = next(m for m in root.iter(M + "Map") if m.get("mapName") == "Tiny Front")
    placed = {s.get("location"): [p.get("entryName") for p in s] for s in main.iter(MAP + "SetupStack")}
    state = tiny.data.engine.new_game("meeting")
    expected = {loc: [state.units[i].label for i in ids] for loc, ids in state.at.items() if ids}
    assert placed == expected
    assert placed["0305"] == ["11th Panzer"]


def test_reinforcements_wait_in_a_holding_box_by_turn(tiny):
    root = _tree(tiny)
    holding = next(m for m in root.iter(M + "Map") if m.get("mapName") == "Holding boxes")
    assert holding.get("launch") == "true"
    regions = {r.get("name") for r in holding.iter(GRID + "Region")}
    assert {"Turn 3", "Eliminated"} <= regions
    turn3 = next(s for s in holding.iter(MAP + "SetupStack") if s.get("location") == "Turn 3")
    assert [p.get("entryName") for p in turn3] == ["24th Panzer", "13th Tank Corps"]
    about = _zip(tiny).read("help/about.html").decode("ascii")
    assert "24th Panzer" in about and "0101" in about and "1201" in about  # where the rules bring them in


def test_area_map_regions(battle):
    root = _tree(battle)
    main = next(m for m in root.iter(M + "Map") if m.get("mapName") == "Battle fragment")
    regions = {r.get("name"): (int(r.get("originx")), int(r.get("originy"))) for r in main.iter(GRID + "Region")}
    assert set(regions) == {"Germany", "Poland", "Russia", "Siberia", "Alaska", "Baltic Sea Zone"}
    assert len(set(regions.values())) == len(regions)  # RegionGrid keys regions by origin point
    boxes = list(battle.data and __import__("warcodex.exporters.vassal.board_svg", fromlist=["x"])
                 .area_layout(battle.data.board).boxes.values())
    for i, (x1, y1, w1, h1) in enumerate(boxes):
        for x2, y2, w2, h2 in boxes[i + 1:]:
            assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1


def test_units_set_up_on_an_area_map(tmp_path):
    """An area map (A&A-like): units placed in areas stack at the area's Region."""
    game = tmp_path / "battle"
    game.mkdir()
    (game / "map.wcmap").write_text((BATTLE / "map.wcmap").read_text(encoding="utf-8"), encoding="utf-8")
    text = (BATTLE / "game.wcx").read_text(encoding="utf-8")
    assert "setup { }" in text
    text = text.replace("setup { }", 'setup { place(infantry, germany, "germany") place(tank, germany, "germany") '
                                      'place(battleship, ussr, "baltic") place(infantry, ussr, "russia") }')
    (game / "game.wcx").write_text(text, encoding="utf-8")
    module = build_module(game)
    root = etree.fromstring(module.files["buildFile.xml"])
    main = next(m for m in root.iter(M + "Map") if m.get("mapName") == "Battle fragment")
    regions = {r.get("name") for r in main.iter(GRID + "Region")}
    stacks = {s.get("location"): [p.get("entryName") for p in s] for s in main.iter(MAP + "SetupStack")}
    assert stacks == {"Germany": ["Infantry", "Tank"], "Baltic Sea Zone": ["Battleship"], "Russia": ["Infantry"]}
    assert set(stacks) <= regions
    battleship = next(p for p in main.iter(WIDGET + "PieceSlot") if p.get("entryName") == "Battleship")
    assert decode_piece(battleship.text).traits[0].prefix == "emb2;"  # two hits: a two-step layer


# =============================================================================== toolbar parts
def test_turn_tracker_dice_properties_charts_help(tiny):
    root = _tree(tiny)
    dice = [(d.get("name"), d.get("nDice"), d.get("nSides")) for d in root.iter(M + "DiceButton")]
    assert dice == [("d6", "1", "6")]
    root = _tree(tiny)
    props = {p.get("name"): p.get("initialValue") for p in root.iter(M + "properties.GlobalProperty")}
    assert props["Turn"] == "1" and props["weather"] == "fair" and props["vp_axis"] == "0"
    charts = [c.get("chartName") for c in root.iter(WIDGET + "Chart", WIDGET + "HtmlChart")]
    assert "Combat Results Table" in charts or any("aid" in c.lower() for c in charts)
    help_files = {h.get("title"): h.get("fileName") for h in root.iter(M + "documentation.HelpFile")}
    import lxml.html

    raw = _zip(tiny).read(help_files["Rules coverage"])
    assert raw.isascii()  # non-ASCII as character references: no charset guessing in Swing
    coverage = lxml.html.document_fromstring(raw).text_content()
    from warcodex.dsl.coverage import coverage as rules_coverage, summary

    encoded = summary(rules_coverage(tiny.data.game))["encoded"]
    assert f"{encoded} encoded" in coverage and "§7.3" in coverage
    markers = {e.get("entryName") for e in root.iter(WIDGET + "PieceSlot")}
    assert {"Game Turn", "Disrupted", "Weather", "Axis VP", "Soviet VP"} <= markers


def test_turn_tracker_opens_where_the_scenario_starts(tiny):
    """Tiny's Weather Phase is played from Turn 2 (§4): Turn 1 opens on the Axis Movement Phase,
    and the tracker is two segments, each looping over its own turns so Next goes from one to the
    next; phases are named as a player reads them, never by their condition."""
    root = _tree(tiny)
    tracker_el = next(root.iter(M + "turn.TurnTracker"))
    levels = tracker_el.findall(M + "turn.CounterTurnLevel")
    assert [(lv.get("name"), lv.get("property"), lv.get("start"), lv.get("loop"), lv.get("loopLimit"))
            for lv in levels] == [("Turn 1", "Turn", "1", "true", "1"), ("Turns 2-6", "Turn", "2", "true", "6")]
    lists = [lv.find(M + "turn.ListTurnLevel") for lv in levels]
    assert {lv.get("property") for lv in lists} == {"Phase"}
    turn1, later = (parse_string_array(lv.get("list")) for lv in lists)
    assert turn1 == ["Axis: Movement Phase", "Axis: Combat Phase", "Axis: Recovery Phase",
                     "Soviet: Movement Phase", "Soviet: Combat Phase", "Soviet: Recovery Phase"]
    assert later == ["Weather Phase"] + turn1
    assert tracker_el.get("turnFormat") == "$level1$ - $level2$"


def test_tracker_segments_follow_the_turns_each_phase_is_played():
    from warcodex.exporters.vassal.gamedata import Step

    steps = [Step("Weather Phase", None, "turn >= 3", turns=(3, 4)), Step("Initial Phase", "Axis", None, turns=(2, 3, 4)),
             Step("Movement Phase", "Axis", None),
             # Stalingrad's Interim turn (§33.2.3): phases played when the rules have one pending
             Step("Interim Movement Phase", "Axis", "interim_turn_pending", maybe_turns=(1, 2, 3, 4)),
             Step("Interim Rally Phase", "Axis", "in_interim_turn", maybe_turns=(1, 2, 3, 4))]
    segs = tracker.segments(steps, 1, 4)
    assert [(s.name, s.first, s.last) for s in segs] == [("Turn 1", 1, 1), ("Turn 2", 2, 2), ("Turns 3-4", 3, 4)]
    assert segs[0].phases == ("Axis: Movement Phase", "Axis: Interim Movement Phase (if applicable)",
                              "Axis: Interim Rally Phase (if applicable)")
    assert segs[2].phases[:2] == ("Weather Phase", "Axis: Initial Phase")
    open_ended = tracker.segments(steps[2:3], 5, None)
    assert [(s.name, s.first, s.last) for s in open_ended] == [("Turns 5+", 5, None)]
    assert tracker.segments([], 1, 3) == [tracker.Segment(1, 3, ())]


def test_dice_keep_buttons_keep_and_report_the_dice(tiny):
    """`3d6 keep highest 1`: VASSAL keeps the highest die (keepOption l, keepCount 1) and reports
    it with the dice it was kept from; other buttons keep VASSAL's default keepOption '>' (its
    DiceButton applies l/s even with keepDice false)."""
    from dataclasses import replace

    plan = replace(tiny.plan, dice=[DicePlan("3d6 keep highest 1", 3, 6, "Roll", 1, True),
                                    DicePlan("2d6 keep lowest 1", 2, 6, "Roll", 1, False), DicePlan("2d6", 2, 6, "Roll")])
    buttons = {d.get("name"): d for d in etree.fromstring(build(plan)).iter(M + "DiceButton")}
    keep = buttons["3d6 keep highest 1"]
    assert (keep.get("nDice"), keep.get("keepDice"), keep.get("keepOption"), keep.get("keepCount")) == ("3", "true", "l", "1")
    assert "$numericalTotal$" in keep.get("reportFormat") and "$rawRolls$" in keep.get("reportFormat")
    assert buttons["2d6 keep lowest 1"].get("keepOption") == "s"
    plain = buttons["2d6"]
    assert (plain.get("keepDice"), plain.get("keepOption")) == ("false", ">")
    assert "$numericalTotal$" in plain.get("reportFormat") and "$result$" in plain.get("reportFormat")


# =============================================================================== command line
def test_cli_writes_the_module_atomically(tmp_path):
    from warcodex.cli import cli

    out = tmp_path / "tiny.vmod"
    result = CliRunner().invoke(cli, ["vassal", str(TINY), "--scenario", "meeting", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "wrote" in result.output and zipfile.is_zipfile(out)
    assert [p.name for p in tmp_path.iterdir()] == ["tiny.vmod"]  # no temp file left behind
    bad = CliRunner().invoke(cli, ["vassal", str(TINY), "--scenario", "nope", "-o", str(out)])
    assert bad.exit_code == 2 and "no scenario" in bad.output


# =============================================================================== other games
def _clean_games() -> list[Path]:
    out = []
    for folder in sorted((ROOT / "games").iterdir()):
        if folder.name == "tiny" or not folder.is_dir() or not list(folder.glob("*.wcx")):
            continue
        try:
            game, diags = check_path(folder)
        except Exception:  # noqa: BLE001 - a game still being written
            continue
        if game is not None and not diags.errors and game.scenarios and game.prop("map") is not None:
            out.append(folder)
    return out


@pytest.mark.parametrize("folder", _clean_games() or [pytest.param(None, marks=pytest.mark.skip("no other game checks clean"))],
                         ids=lambda f: f.name if f else "none")
def test_other_games_export(folder, monkeypatch):
    """Every game that checks clean exports; the structure is checked in full, the rasterising is
    skipped (a 5,000-hex board takes cairosvg half a minute; tiny's images are checked above)."""
    from warcodex.exporters.vassal import module as module_py

    game, diags = check_path(folder)  # games are written concurrently: it may have changed since collection
    if game is None or diags.errors:
        pytest.skip(f"{folder.name} does not check clean right now")
    blank = module_py.to_png(b'<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')
    monkeypatch.setattr(module_py, "to_png", lambda svg, scale=1.0: blank)
    module = build_module(game, options=module_py.ExportOptions(include_aids=False))
    root = etree.fromstring(module.files["buildFile.xml"])
    catalog = Catalog()
    for e in root.iter():
        if e.tag != "entry":
            parent = e.getparent()
            catalog.check(e.tag, dict(e.attrib), parent.tag if parent is not None else None)
    names = set(module.files)
    for tag, text in _piece_texts(root):
        piece = decode_piece(text)
        assert piece_definition(list(piece.traits), piece.piece_id) == text
        for t in piece.traits:
            assert t.prefix in TRAITS
            if t.prefix == "piece;" and trait_fields(t)[2]:
                assert "images/" + trait_fields(t)[2] in names
    for mp in root.iter(M + "Map"):
        for s in mp.iter(MAP + "SetupStack"):
            _, hexgrid, regions = _grid_of(mp, s.get("owningBoard"))
            if hexgrid is not None:
                v = VassalHexNumbering(dict(hexgrid.attrib), dict(hexgrid.find(GRID + "mapgrid.HexGridNumbering").attrib))
                assert v.location_name(*v.get_location(s.get("location"))) == s.get("location")
            else:
                assert s.get("location") in {r.get("name") for r in regions.iter(GRID + "Region")}


def test_a_location_marker_of_the_set_up_is_at_start(tmp_path):
    """The set-up's markers on locations (control, fortifications) are placed at start, under the
    location's units (which stay visible on top), or alone on their hex."""
    import shutil

    game = tmp_path / "tiny"
    shutil.copytree(TINY, game, ignore=shutil.ignore_patterns("tests"))
    scenarios = game / "scenarios.wcx"
    scenarios.write_text(scenarios.read_text(encoding="utf-8").replace(
        '    place(rifle, soviet, "0908")\n', '    place(rifle, soviet, "0908")\n    mark(loc("0908"), disrupted)\n'
        '    mark(loc("0505"), disrupted)\n', 1), encoding="utf-8")
    module = build_module(game)
    assert module.data.location_markers == {"0505": ("disrupted",), "0908": ("disrupted",)}
    stacks = {st.location: [s.entry_name for s in st.slots] for st in module.plan.maps[0].stacks}
    assert stacks["0908"] == ["Disrupted", "Rifle division"] and stacks["0505"] == ["Disrupted"]  # under the units


# =============================================================================== saved games and logs
def test_vassal_obfuscation_round_trip():
    """ObfuscatingOutputStream: "!VCSK", the key as two hex digits, each byte xor the key in hex."""
    from warcodex.exporters.vassal import savegame

    assert savegame.obfuscate("ab", key=0x10) == b"!VCSK10" + b"7172"
    text = "begin_save\x1b+/1/piece;;;a.png;Panzer \u00e9/null;0;0;1;0\x1bend_save"
    assert savegame.deobfuscate(savegame.obfuscate(text, key=0xA7)) == text
    assert savegame.deobfuscate(text.encode()) == text  # a plain savedGame is read as it is


def _saved_commands(module, state):
    from warcodex.exporters.vassal import savegame

    data = zipfile.ZipFile(io.BytesIO(savegame.saved_game(module, state)))
    assert set(data.namelist()) == {"savedGame", "savedata", "moduledata"}
    assert data.read("moduledata") == module.files["moduledata"]
    return decode(savegame.deobfuscate(data.read("savedGame")), savegame.ESC)


def test_saved_game_of_the_set_up(tiny):
    """The set-up as a saved game: begin_save, the pieces (each stack of a location at the
    location's point, VASSAL's own centre of the hex), the components, end_save."""
    from warcodex.exporters.vassal import savegame

    commands = _saved_commands(tiny, tiny.data.engine.new_game("meeting"))
    assert commands[0] == "begin_save" and commands[-1] == "end_save"
    assert "SETUP_STACK\t" in commands  # not a new game: VASSAL does not place the at-start stacks again
    assert "GlobalProperty\t;Turn;1;Module" in commands and "GlobalProperty\t;vp_axis;0;Module" in commands
    adds = [decode(a[2:], "/") for a in decode(commands[1], savegame.ESC) if a.startswith("+/")]
    stacks = [decode(state, ";") for _, type_, state in adds if type_ == "stack"]
    units = {pid: decode_piece("+/" + encode([pid, t, st], "/")) for pid, t, st in adds if t != "stack"}
    assert len(units) == 10 and len(stacks) == 9
    main = tiny.plan.maps[0]
    numbering = VassalHexNumbering(*main.hex_grid)
    at_0305 = next(s for s in stacks if s[0] == main.name and (int(s[1]), int(s[2])) == numbering.get_location("0305"))
    panzer = units[at_0305[3]]
    assert [t.prefix for t in panzer.traits] == ["emb2;", "mark;", "mark;", "report;", "delete;", "piece;"]  # expanded
    assert panzer.traits[-1].state.startswith(f"{main.name};") and "UniqueID" in panzer.traits[-1].state
    assert trait_fields(panzer.traits[-1])[3] == "11th Panzer"
    turn3 = [s for s in stacks if s[0] == "Holding boxes"]
    assert len(turn3) == 1 and len(turn3[0]) == 3 + 2 + 1  # the two Turn 3 reinforcements, waiting
    tracker_cmd = next(c for c in commands if c.startswith("TURN"))
    assert tracker_cmd == "TURNTurnTracker0\t" + savegame.tracker_state(tiny.plan.tracker, 1, "Axis: Movement Phase")


def test_tracker_state_as_vassal_writes_it(tiny):
    """TurnTracker.getState: the current level, then each level (turn; sub-level; loop; limit;
    its phase list's state: index; sub-level; first; the active flags)."""
    from warcodex.exporters.vassal import savegame

    assert savegame.tracker_state(tiny.plan.tracker, 1, "Axis: Movement Phase") == (
        "0|1;0;true;1;0\\;0\\;0\\;true,true,true,true,true,true|1;0;true;6;1\\;0\\;0\\;true,true,true,true,true,true,true")
    state = savegame.tracker_state(tiny.plan.tracker, 4, "Soviet: Combat Phase")
    assert state.startswith("1|4;0;true;1;4\\;") and "|4;0;true;6;5\\;" in state  # every level at Turn 4


def test_reinforcements_wait_in_their_box_until_they_come(tiny):
    from warcodex.exporters.vassal import savegame
    from warcodex.interpreter.play import play

    start = savegame.position(tiny, tiny.data.engine.new_game("meeting"))
    assert {k[1] for k in start.pieces} >= {"Turn 3"}
    later = play(tiny.data.engine, "meeting", seed=1, until_turn=3)
    pos = savegame.position(tiny, later.state)
    assert ("Holding boxes", "Turn 3") not in pos.pieces  # 24th Panzer and 13th Tank Corps have come
    labels = [p.traits[-1].type for placed in pos.pieces.values() for p in placed]
    assert sum("24th Panzer" in t for t in labels) == 1


def test_game_log_steps(tiny):
    """A VASSAL log: the restore commands, then one token per step, each a chain of LOG commands
    (VASSAL's Step button plays one chain): the chat line first, then the changes."""
    from warcodex.exporters.vassal import savegame

    engine = tiny.data.engine
    before = engine.new_game("meeting")
    after = before.snapshot()
    uid = after.at["0305"][0]
    after.at = {**after.at, "0305": (), "0405": (uid,)}
    after.units[uid] = dataclasses.replace(after.units[uid], loc="0405")
    start, moved = savegame.position(tiny, before), savegame.position(tiny, after)
    data = zipfile.ZipFile(io.BytesIO(savegame.game_log(tiny, start, [savegame.Step("11th Panzer moves", moved)], "t")))
    commands = decode(savegame.deobfuscate(data.read("savedGame")), savegame.ESC)
    end = commands.index("end_save")
    steps = commands[end + 1:]
    assert len(steps) == 1
    chain = decode(steps[0], savegame.ESC)
    assert chain[0] == "LOG\tCHAT* 11th Panzer moves"
    assert len(chain) == 2 and chain[1].startswith("LOG\tM/")  # the piece moves: a MovePiece
    x, y = VassalHexNumbering(*tiny.plan.maps[0].hex_grid).get_location("0405")
    assert decode(chain[1][len("LOG\tM/"):], "/")[1:4] == ["Tiny Front", str(x), str(y)]


def test_cli_from_a_save_or_a_log(tmp_path):
    from warcodex.cli import cli

    runner = CliRunner()
    played = runner.invoke(cli, ["play", str(TINY), "--seed", "2", "--until", "2", "--log", str(tmp_path / "g.log"),
                                 "--save", str(tmp_path / "g.json")])
    assert played.exit_code == 0, played.output
    made = runner.invoke(cli, ["vassal", str(TINY), "--from", str(tmp_path / "g.json"), "-o", str(tmp_path / "g.vsav")],
                         catch_exceptions=False)
    assert made.exit_code == 0, made.output
    assert zipfile.ZipFile(tmp_path / "g.vsav").namelist() == ["savedGame", "savedata", "moduledata"]
    made = runner.invoke(cli, ["vassal", str(TINY), "--from", str(tmp_path / "g.log"), "-o", str(tmp_path / "w.vlog")])
    assert made.exit_code == 0 and (tmp_path / "w.vlog").is_file() and (tmp_path / "w.vmod").is_file()
    bad = runner.invoke(cli, ["vassal", str(TINY), "--from", str(tmp_path / "g.json"), "-o", str(tmp_path / "x.vlog")])
    assert bad.exit_code != 0 and "is a save" in str(bad.exception)  # a UserError: warcodex.cli.main prints it
    bad = runner.invoke(cli, ["vassal", str(TINY), "--from", str(tmp_path / "g.json"), "-o", str(tmp_path / "x.zip")])
    assert bad.exit_code == 2 and ".vsav" in bad.output
    bad = runner.invoke(cli, ["vassal", str(TINY), "--from", str(tmp_path / "g.log"), "-s", "nope"])
    assert bad.exit_code == 2 and "scenario 'meeting'" in bad.output
    assert "Traceback" not in bad.output
    # a log is read and checked as `warcodex replay` reads it: a cut log, a log of another game
    lines = (tmp_path / "g.log").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "cut.log").write_text("".join(lines[:-1]), encoding="utf-8")
    bad = runner.invoke(cli, ["vassal", str(TINY), "--from", str(tmp_path / "cut.log"), "-o", str(tmp_path / "c.vlog")])
    assert bad.exit_code != 0 and "incomplete" in str(bad.exception) and not (tmp_path / "c.vlog").exists()
    other = json.loads(lines[0]) | {"game": "stalingrad42"}
    (tmp_path / "other.log").write_text(json.dumps(other) + "\n" + "".join(lines[1:]), encoding="utf-8")
    bad = runner.invoke(cli, ["vassal", str(TINY), "--from", str(tmp_path / "other.log"), "-o", str(tmp_path / "o.vlog")])
    assert bad.exit_code != 0 and "is a log of 'stalingrad42'" in str(bad.exception)
    assert not (tmp_path / "o.vlog").exists() and not (tmp_path / "o.vmod").exists()


def test_prototype_names_are_unique_even_when_two_types_share_a_label(tmp_path):
    """VASSAL keeps the last prototype of a name ("More than one Definition named Type: ...", issue
    17): two unit types with one label get prototypes of their own."""
    import shutil

    folder = tmp_path / "tiny"
    shutil.copytree(TINY, folder, ignore=shutil.ignore_patterns("tests"))
    with open(folder / "components.wcx", "a", encoding="utf-8") as f:
        f.write('\nunit guards_rifle "Rifle division" : infantry_class §2.1 provisional "a second type with '
                'the label of another" { attack: 4 defense: 5 move: 3 steps: 2 side: soviet }\n')
    root = _tree(build_module(folder))
    names = [e.get("name") for e in root.iter(M + "PrototypeDefinition")]
    assert len(names) == len(set(names))
    assert "Type: Rifle division (rifle)" in names and "Type: Rifle division (guards_rifle)" in names
    assert "Type: Panzer division" in names  # a label of one type stays as it is


def test_a_unit_types_face_says_what_its_counters_print(tmp_path):
    """`face:` (docs/language.md section 6): a unit type's own, else its first class's that has one;
    each `{name}` is the value at the counter's steps; `""` prints no factors; `{{` a brace. The
    face is how a counter is printed, not a value of the type (not in the facts' values, nor a
    VASSAL property); a type without one prints attack-defense-move as before."""
    import shutil

    from warcodex.exporters.vassal import gamedata

    folder = tmp_path / "tiny"
    shutil.copytree(TINY, folder, ignore=shutil.ignore_patterns("tests"))
    (folder / "extra.wcx").write_text('''
class staff "Staff" §2.1 { face: "{command_range}-{move}" }
class depot "Depot" §2.1 { face: "[{supply}]" }
unit army_hq "Army HQ" : staff, depot §2.1 { side: soviet move: 8 command_range: 10 supply: 3 steps: 2
  at steps 1 { command_range: 6 } }
unit own_face "Own face" : staff §2.1 { side: soviet move: 2 command_range: 1 face: "{{{move}}}" }
unit blank "Blank" §2.1 { side: axis attack: 1 defense: 1 move: 1 face: "" }
''', encoding="utf-8")
    with open(folder / "game.wcx", "a", encoding="utf-8") as f:
        f.write('\ninclude "extra.wcx"\n')
    data = gamedata.load(str(folder), "meeting")
    hq = data.unit_type("army_hq")
    assert hq.face == "{command_range}-{move}" and (hq.factors(2), hq.factors(1)) == ("10-8", "6-8")
    assert "face" not in hq.values[2]
    assert data.unit_type("own_face").factors(1) == "{2}"
    assert data.unit_type("blank").factors(1) == ""
    assert data.unit_type("tank_corps").face is None and data.unit_type("tank_corps").factors(1) == "3-2-6"
    # the module's About page says what each face prints, in words; a brace printed as such stays
    # one brace (the names spaced, not every brace dropped)
    from warcodex.exporters.vassal.module import _factors_note

    assert (hq.face_words(), data.unit_type("own_face").face_words()) == ("command range-move", "{move}")
    note = _factors_note(data)
    assert "Army HQ: command range-move." in note and "Own face: {move}." in note and "Blank: no factors." in note
