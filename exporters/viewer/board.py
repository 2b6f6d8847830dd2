"""The board as the viewer shows it: the image drawn by the shared board renderer (the one the
VASSAL export uses, `warcodex.exporters.vassal.board_svg`), where each location's counters stand in
that image's pixel frame, and what a player reads when pointing at a location.

Hex boards: the counters of a hex stand at its centre (`HexGrid.pixel_center`, the frame of the
image). Area maps: the renderer's layout gives each area a box; counters are laid out inside it,
below the area's name. A hex board's off-map boxes (entry areas, holding boxes) have no place in
the image: the page shows them beside the map with the units off the map.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from warcodex.exporters.vassal import board_svg


@dataclass
class BoardView:
    kind: str  # "hex" or "area"
    svg: bytes  # the board image (SVG, whitespace-free)
    width: int
    height: int
    points: dict[str, tuple[float, float]]  # location -> where its counters stand
    areas: dict[str, tuple[float, float, float, float]]  # area maps: location -> the box counters fill
    radius: float  # hex boards: the hex size (a point within it of a centre is in that hex)
    boxes: list[str]  # the board's off-map boxes
    anchors: dict[str, tuple[float, float]] = field(default_factory=dict)  # box -> the centre of the hexes it touches
    corners: list[tuple[float, float]] = field(default_factory=list)  # hex boards: a hex's corners from its centre
    info: dict[str, dict] = field(default_factory=dict)  # location -> what a player reads about it


def board_view(engine, title: str, hex_size: float, side_colors: dict[str, str]) -> BoardView:
    board = engine.board
    if board.kind == "hex":
        img = board_svg.hex_board_svg(board, engine, hex_size, title)
        ox, oy = getattr(img, "offset", (0, 0))  # where the image starts in the grid's frame
        points = {}
        for loc in board_svg.hex_locations(board):
            x, y = board.grid.pixel_center(*board.coords(loc), hex_size)
            points[loc] = (round(x - ox, 2), round(y - oy, 2))
        boxes = [loc for loc in board.locations if board_svg.is_box(board, loc)]
        view = BoardView("hex", _compact(img.svg), img.width, img.height, points, {}, hex_size, boxes)
        if points:
            first = next(iter(points))
            cx, cy = board.grid.pixel_center(*board.coords(first), hex_size)
            view.corners = [(round(x - cx, 2), round(y - cy, 2))
                            for x, y in board.grid.hex_corners(*board.coords(first), hex_size)]
        for box in boxes:  # where a move into or out of a box is drawn from: the hexes it touches
            near = [points[h] for h, steps in board.anchors(box) if steps == 1 and h in points]
            if near:
                view.anchors[box] = (round(sum(x for x, _ in near) / len(near), 2),
                                     round(sum(y for _, y in near) / len(near), 2))
    else:
        layout = board_svg.area_layout(board)
        img = board_svg.area_board_svg(board, engine, layout, side_colors, title)
        areas = {}
        for a, (x, y, w, h) in layout.boxes.items():
            areas[a] = (x + 6, y + 22, w - 12, h - 46)  # below the name, above the value lines
        points = {a: (x + w / 2, y + h / 2) for a, (x, y, w, h) in areas.items()}
        view = BoardView("area", _compact(img.svg), img.width, img.height, points, areas, 0.0, [])
    view.info = {loc: location_info(engine, loc) for loc in board.locations}
    return view


def _compact(svg: bytes) -> bytes:
    """The image without the renderer's indentation (a large map is megabytes of it)."""
    parser = etree.XMLParser(remove_blank_text=True, huge_tree=True)
    return etree.tostring(etree.fromstring(svg, parser), encoding="UTF-8")


def label(engine, name) -> str:
    ent = engine.entities.get(name) if isinstance(name, str) else None
    return ent.label if ent is not None and ent.label else str(name).replace("_", " ")


HIDDEN_ATTRS = ("name", "x", "y")  # drawn or used for the layout, not worth a line


def location_info(engine, loc: str) -> dict:
    """Terrain, features, attributes and hexside features of a location, as labels."""
    board = engine.board
    info: dict = {}
    name = board.attr(loc, "name")
    if name:
        info["name"] = str(name)
    terrain = board.terrain(loc)
    if terrain:
        info["terrain"] = label(engine, terrain)
    feats = sorted(f for f in board.features(loc) if not f.startswith("edge_"))
    if feats:
        info["features"] = [label(engine, f) for f in feats]
    attrs = {k: v for k, v in board.attrs(loc).items() if k not in HIDDEN_ATTRS}
    if attrs:
        info["attrs"] = {k.replace("_", " "): (label(engine, v) if isinstance(v, str) else v) for k, v in attrs.items()}
    sides = []
    for n in board.neighbors(loc):
        edge = sorted(f for f in board.edge(loc, n) if f not in board_svg.HEX_EDGE_FEATURES)
        if edge:
            sides.append([n, [label(engine, f) for f in edge]])
    if sides:
        info["edges"] = sides
    if board_svg.is_box(board, loc):
        info["box"] = True
    return info
