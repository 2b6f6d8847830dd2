"""The pictures of docs/maps.md, drawn from real .wcmap texts by the real map loader and board
renderer (the ones the VASSAL exporter uses), so they show exactly what a map file means.

    python docs/tools/map_figures.py      # writes docs/images/maps-*.png (and .svg)

tests/test_maps_doc.py checks that the maps below load and that the pictures are up to date."""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
IMAGES = HERE.parent / "images"

# the four hex grids: orientation (flat-top / pointy-top) and which columns or rows are shifted
# (the shifted ones tinted: a terrain of the picture's own)
GRIDS = {
    "flat odd": ("grid hex flat odd cols 1..4 rows 1..3 ids CCRR\n  terrain shifted: 0101-0103 0301-0303",
                 "odd columns sit half a hex lower"),
    "flat even": ("grid hex flat even cols 1..4 rows 1..3 ids CCRR\n  terrain shifted: 0201-0203 0401-0403",
                  "even columns sit half a hex lower"),
    "pointy odd": ("grid hex pointy odd cols 1..4 rows 1..3 ids CCRR\n  terrain shifted: 0101..0401 0103..0403",
                   "odd rows sit half a hex to the right"),
    "pointy even": ("grid hex pointy even cols 1..4 rows 1..3 ids CCRR\n  terrain shifted: 0102..0402",
                    "even rows sit half a hex to the right"),
}

# a map showing the statements: terrain, a rectangle and a run, hexsides one by one and along a
# seam between two columns, a path (a road), a bridge, location features and attributes
FEATURES = """map "Statements" provisional "a picture for docs/maps.md" {
  grid hex flat odd cols 1..6 rows 1..4 ids CCRR
  default terrain clear
  terrain forest: 0101..0202           # a rectangle: columns 01-02, rows 01-02
  terrain swamp: 0503-0504             # a run down column 05
  terrain rough: 0601
  edge minor_river: cols 3/4 rows 1..4 # every hexside between columns 03 and 04
  edge major_river: 0502/0602 0502/0603
  path road: 0104 0204 0303 0403 0503 0603
  edge bridge: 0303/0403
  feature city: 0203
  location 0203 "Millerovo" { vp: 1 objective }
}
"""


def grid_map(name: str, grid: str) -> str:
    return f'map "{name}" provisional "a picture for docs/maps.md" {{\n  {grid}\n  default terrain clear\n}}\n'


def _board(text: str, name: str):
    from warcodex.dsl.mapfile import parse_map_text

    return parse_map_text(text, name)


def _svg_body(svg: bytes) -> tuple[str, float, float]:
    text = svg.decode("utf-8")
    m = re.search(r"<svg[^>]*width=\"([0-9.]+)\"[^>]*height=\"([0-9.]+)\"[^>]*>(.*)</svg>", text, re.S)
    return m.group(3), float(m.group(1)), float(m.group(2))


def _panel(board, size: float, caption: str, x: float, y: float, parts: list[str], note: str = "") -> tuple[float, float]:
    from warcodex.exporters.vassal.board_svg import hex_board_svg

    image = hex_board_svg(board, None, size)
    grid_h = board.grid.pixel_size(size)[1]
    body, width, _ = _svg_body(image.svg)
    top = y + (44 if note else 26)
    parts.append(f'<svg x="{x:.1f}" y="{top:.1f}" width="{width:.1f}" height="{grid_h - 1:.1f}" '
                 f'viewBox="0 0 {width:.1f} {grid_h - 1:.1f}" overflow="hidden">{body}</svg>')
    parts.append(f'<text x="{x + width / 2:.1f}" y="{y + 18:.1f}" font-family="DejaVu Sans, sans-serif" '
                 f'font-size="15" font-weight="bold" text-anchor="middle">{caption}</text>')
    if note:
        parts.append(f'<text x="{x + width / 2:.1f}" y="{y + 36:.1f}" font-family="DejaVu Sans, sans-serif" '
                     f'font-size="12" fill="#444" text-anchor="middle">{note}</text>')
    return width, grid_h + (48 if note else 30)


def conventions_svg() -> bytes:
    parts: list[str] = []
    x = y = 10.0
    row_h = 0.0
    for i, (name, (grid, note)) in enumerate(GRIDS.items()):
        w, h = _panel(_board(grid_map(name, grid), f"<{name}>"), 34, f"grid hex {name}", x, y, parts, note)
        row_h = max(row_h, h)
        x += w + 40
        if i % 2 == 1:
            width = x
            x, y = 10.0, y + row_h + 20
            row_h = 0.0
    height = y + 10
    return _wrap(parts, width, height)


def features_svg() -> bytes:
    parts: list[str] = []
    w, h = _panel(_board(FEATURES, "<features>"), 40, "terrain, hexsides, a path, a bridge, a city", 10, 10, parts)
    return _wrap(parts, w + 20, h + 20)


def _wrap(parts: list[str], width: float, height: float) -> bytes:
    head = (f'<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" '
            f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}">'
            f'<rect x="0" y="0" width="{width:.0f}" height="{height:.0f}" fill="#ffffff"/>')
    return (head + "".join(parts) + "</svg>\n").encode("utf-8")


def figures() -> dict[str, bytes]:
    return {"maps-hex-conventions": conventions_svg(), "maps-statements": features_svg()}


def main() -> int:
    from warcodex.exporters.vassal.svg import to_png

    for name, svg in figures().items():
        (IMAGES / f"{name}.svg").write_bytes(svg)
        (IMAGES / f"{name}.png").write_bytes(to_png(svg, 1.5))
        print(f"wrote docs/images/{name}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
