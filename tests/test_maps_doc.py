"""docs/maps.md cannot rot: its map examples load with the real map loader, its pictures are what
docs/tools/map_figures.py draws from them today, and what it says of citations holds."""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from warcodex.cli import cli
from warcodex.dsl.checker import check_path
from warcodex.dsl.diagnostics import DiagnosticError
from warcodex.dsl.mapfile import parse_map_text

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "maps.md"


def _figures():
    spec = importlib.util.spec_from_file_location("map_figures", ROOT / "docs" / "tools" / "map_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _map_blocks() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    # the whole maps (a grid statement), not the one-line sketches of a statement's form
    return [b for b in re.findall(r"^```text\n(.*?)^```", text, re.M | re.S) if "map \"" in b and "grid " in b]


def test_the_map_examples_of_the_page_load():
    blocks = _map_blocks()
    assert len(blocks) >= 3
    for body in blocks:
        board = parse_map_text(body, "docs/maps.md")
        assert board.locations


def test_the_statements_picture_shows_the_map_printed_on_the_page():
    figures = _figures()
    assert figures.FEATURES.strip() in DOC.read_text(encoding="utf-8")
    board = parse_map_text(figures.FEATURES, "features")
    assert board.terrain("0102") == "forest" and board.terrain("0504") == "swamp"
    assert "minor_river" in board.edge("0302", "0402") and "bridge" in board.edge("0303", "0403")
    assert board.attrs("0203") == {"name": "Millerovo", "vp": 1}


def test_the_pictures_are_up_to_date():
    for name, svg in _figures().figures().items():
        committed = (ROOT / "docs" / "images" / f"{name}.svg").read_bytes()
        assert svg == committed, f"run `python docs/tools/map_figures.py` ({name})"
        assert (ROOT / "docs" / "images" / f"{name}.png").exists()


def test_the_grid_conventions_the_page_states():
    """Flat odd: odd columns half a hex lower; pointy odd: odd rows half a hex to the right."""
    flat = parse_map_text('map "f" provisional "t" { grid hex flat odd cols 1..2 rows 1..2 }', "f").grid
    assert flat.pixel_center(1, 1, 10)[1] > flat.pixel_center(2, 1, 10)[1]
    even = parse_map_text('map "f" provisional "t" { grid hex flat even cols 1..2 rows 1..2 }', "f").grid
    assert even.pixel_center(2, 1, 10)[1] > even.pixel_center(1, 1, 10)[1]
    pointy = parse_map_text('map "p" provisional "t" { grid hex pointy odd cols 1..2 rows 1..2 }', "p").grid
    assert pointy.pixel_center(1, 1, 10)[0] > pointy.pixel_center(1, 2, 10)[0]


def test_maps_cite_sections_checked_and_covered(tmp_path):
    board = parse_map_text('map "m" provisional "t" §3.9 {\n  grid hex flat odd cols 1..4 rows 1..4\n'
                           '  terrain forest: 0101 §2.2\n  edge major_river: 0101/0201 §5.5.2 §7\n}', "m.wcmap")
    assert [(n, what) for n, _, what in board.citations] == [
        ("3.9", "the map"), ("2.2", "terrain forest"), ("5.5.2", "edge major_river"), ("7", "edge major_river")]
    folder = tmp_path / "tiny"
    shutil.copytree(ROOT / "games" / "tiny", folder, ignore=shutil.ignore_patterns("tests"))
    text = (folder / "map.wcmap").read_text(encoding="utf-8")
    (folder / "map.wcmap").write_text(text.replace("cols 6/7 rows 1..5 §5.3", "cols 6/7 rows 1..5 §5.33"),
                                      encoding="utf-8")
    _, diags = check_path(folder)
    [d] = diags.errors
    assert d.code == "E-unknown-section" and d.span.file.endswith("map.wcmap") and (d.span.line, d.span.column) == (20, 40)
    assert "§5.3" in d.hint
    out = CliRunner().invoke(cli, ["coverage", "tiny", "--json"]).output
    assert "map: edge major_river" in out and "map: path road" in out


def test_a_citation_is_not_a_location():
    with pytest.raises(DiagnosticError):
        parse_map_text('map "m" provisional "t" { grid hex flat odd cols 1..4 rows 1..4 terrain forest: §2.2x+ }', "m")
