"""Board images drawn from the board data: hex maps, area maps and the off-map holding boxes.

Hex maps use exactly the pixel frame of `HexGrid.pixel_center(size)` (origin at the top-left of the
grid's bounding box), the frame `vassal_grid_spec` describes to VASSAL, so the image, VASSAL's grid
and our hex ids line up; a legend strip is added below the grid, which moves nothing.

How things are drawn (generic; names are only looked at to choose a style):
* terrain: a fill per terrain (the terrain's `color` property if it has one, else a colour chosen
  from its name - forest green, swamp teal... - else a stable colour derived from the name) and a
  light motif for common terrains;
* hexside features: water (river, stream, canal...) along the shared hexside; roads and rails as
  lines between the two hex centres; a bridge as a deck across the hexside; any other hexside
  feature as a dashed coloured hexside;
* locations: cities (square) with their names, objectives (star with the VP value), entry areas (a
  coloured inner border and the area's name), other features as small tags; printed hex numbers at
  the top of each hex.

Area maps have no geometry in the map file: areas are placed by the map's `x`/`y` attributes when
every area has them, otherwise by a deterministic force-directed layout of the adjacency graph;
each area is a labelled box (land tinted by its `owner` side, sea zones blue) and each connection a
line. The VASSAL grid of an area map is a RegionGrid with one Region per area at `Layout.points`.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from warcodex.dsl.board import HEX_EDGE_FEATURES, WRAP_EDGE_FEATURE
from warcodex.exporters.vassal.svg import FONT_CONDENSED, Svg, ink_on, mix, stable_color, text_width

TERRAIN_COLORS = (  # (name fragments, fill): first match wins
    (("clear", "open", "plain", "grass", "steppe", "field"), "#eef0d6"),
    (("forest", "wood"), "#a6cf8f"),
    (("jungle",), "#6fae6f"),
    (("mountain", "alpine"), "#bca487"),
    (("rough", "hill", "broken"), "#dcc7a1"),
    (("swamp", "marsh", "bog"), "#b6d8cb"),
    (("town", "city", "urban", "village"), "#d6d3cf"),
    (("desert", "sand"), "#f2e3a6"),
    (("water", "lake", "sea", "ocean"), "#9fc5e8"),
    (("snow", "ice", "tundra", "arctic"), "#f2f6fa"),
)
WATER_EDGE = ("river", "stream", "creek", "canal", "wadi", "water")
ROAD_EDGE = ("road", "track", "trail", "highway", "pike")
RAIL_EDGE = ("rail",)
BRIDGE_EDGE = ("bridge",)
CITY_FEATURE = ("city", "town", "capital", "village", "urban")
OBJECTIVE_FEATURE = ("objective", "victory")
ENTRY_KEY = "entry"
RIVER_BLUE = "#3b7dd8"
ROAD_BROWN = "#9a5b2b"
ENTRY_COLORS = ("#e0a800", "#7b4ab3", "#2a9d8f", "#d1495b")
LAND = "#efe6cf"
SEA = "#b9d6f0"


def _has(name: str, fragments) -> bool:
    n = name.lower()
    return any(f in n for f in fragments)


def terrain_color(name: str | None, entity=None) -> str:
    if entity is not None:
        c = entity.props.get("color")
        if isinstance(c, str) and c.startswith("#"):
            return c
    if name is None:
        return "#ffffff"
    for fragments, color in TERRAIN_COLORS:
        if _has(name, fragments):
            return color
    return stable_color(name, 0.25, 0.9)


def _label(engine, name: str) -> str:
    ent = engine.entities.get(name) if engine is not None else None
    return (ent.label if ent is not None and ent.label else name.replace("_", " "))


@dataclass
class BoardImage:
    svg: bytes
    width: int
    height: int
    offset: tuple[int, int] = (0, 0)  # where the image starts in the grid's pixel frame


# ============================================================================ hex boards
# What a VASSAL board image may be: Java and Cairo draw images of at most 32,767 pixels a side,
# and an SVG of hundreds of thousands of hexes is beyond what VASSAL loads in reasonable memory.
MAX_BOARD_HEXES = 50_000
MAX_BOARD_PIXELS = 20_000


class BoardTooLarge(ValueError):
    """A board the exporter cannot draw; the message says why and what to change."""


def check_drawable(board, size: float) -> None:
    """Refuse, before drawing anything, a hex board with more hexes than a module can hold."""
    n = len(hex_locations(board))
    if n > MAX_BOARD_HEXES:
        raise BoardTooLarge(f"the map has {n:,} hexes; a VASSAL board holds at most {MAX_BOARD_HEXES:,} "
                            "(split it into sheets, or declare only the sheets in play)")


def hex_board_svg(board, engine, size: float, title: str = "") -> BoardImage:
    """The board image: the hexes of the board (a grid whose sheets hold only part of it is cut
    to the hexes present: `offset` is where the image starts in the grid's pixel frame)."""
    grid = board.grid
    hexes = hex_locations(board)
    on_map = set(hexes)
    centers = {loc: grid.pixel_center(*board.coords(loc), size) for loc in hexes}
    corners = {loc: grid.hex_corners(*board.coords(loc), size) for loc in hexes}
    gw, gh = grid.pixel_size(size)
    ox = oy = 0
    width, height = math.ceil(gw), math.ceil(gh)
    if hexes and len(hexes) < (grid.cols or 0) * (grid.rows or 0):  # sheets bound the board: cut to them
        xs = [x for pts in corners.values() for x, _ in pts]
        ys = [y for pts in corners.values() for _, y in pts]
        ox, oy = max(0, math.floor(min(xs))), max(0, math.floor(min(ys)))
        width, height = math.ceil(max(xs)) - ox, math.ceil(max(ys)) - oy
    if max(width, height) > MAX_BOARD_PIXELS:
        raise BoardTooLarge(f"the board image would be {width:,} x {height:,} pixels; a VASSAL board is at most "
                            f"{MAX_BOARD_PIXELS:,} pixels a side (give a smaller --hex-size)")
    svg = Svg(width, height)
    background = svg.el(None, "rect", x=0, y=0, width=width, height=height, fill="#ffffff")
    frame = svg.group(transform=f"translate({-ox},{-oy})") if (ox or oy) else None
    layer_hex = svg.group(frame)
    layer_motif = svg.group(frame, opacity=0.55)
    layer_edges = svg.group(frame)
    layer_lines = svg.group(frame)
    layer_top = svg.group(frame)

    terrains_used: dict[str, str] = {}
    for loc in hexes:
        t = board.terrain(loc)
        if t in terrains_used:
            fill = terrains_used[t]
        else:
            fill = terrain_color(t, engine.entities.get(t) if t and engine is not None else None)
            k = 1
            while fill in terrains_used.values():  # two terrains named alike: keep them apart
                fill = mix(fill, "#000000" if k % 2 else stable_color(t or "", 0.6, 0.7), 0.18)
                k += 1
            if t:
                terrains_used[t] = fill
        svg.polygon(layer_hex, corners[loc], fill=fill, stroke="#8a8a8a", stroke_width=max(size / 40, 0.8))
        _motif(svg, layer_motif, t or "", centers[loc], size, loc)

    # hexside and connection features, each pair once
    edges_used: dict[str, str] = {}
    done: set[tuple[str, str]] = set()
    for a in hexes:
        for b in board.neighbors(a):
            if b not in on_map:
                continue  # a connection to an off-map box: drawn on the holding-boxes map
            key = (a, b) if board.index[a] < board.index[b] else (b, a)
            if key in done:
                continue
            done.add(key)
            feats = board.edge(a, b)
            if not feats or WRAP_EDGE_FEATURE in feats:
                continue
            side = _shared_side(corners[a], corners[b])
            for f in sorted(feats):
                if f in HEX_EDGE_FEATURES:
                    continue
                style = _edge_style(f)
                edges_used.setdefault(f, style)
                if style == "water":
                    if side:
                        width_ = size * (0.2 if "major" in f.lower() else 0.09)
                        svg.line(layer_edges, *side, stroke=RIVER_BLUE, stroke_width=width_, stroke_linecap="round")
                elif style == "road":
                    svg.line(layer_lines, centers[a], centers[b], stroke=ROAD_BROWN, stroke_width=size * 0.09,
                             stroke_linecap="round")
                elif style == "rail":
                    svg.line(layer_lines, centers[a], centers[b], stroke="#222", stroke_width=size * 0.07)
                    svg.line(layer_lines, centers[a], centers[b], stroke="#fff", stroke_width=size * 0.03,
                             stroke_dasharray=f"{size * 0.12:.1f},{size * 0.12:.1f}")
                elif style == "other" and side:
                    svg.line(layer_edges, *side, stroke=stable_color(f, 0.7, 0.65), stroke_width=size * 0.08,
                             stroke_dasharray=f"{size * 0.15:.1f},{size * 0.08:.1f}", stroke_linecap="butt")
            if any(_edge_style(f) == "bridge" for f in feats) and side:
                _bridge(svg, layer_top, centers[a], centers[b], side, size)

    features_used: dict[str, str] = {}
    entry_values: list[str] = []
    edge_names = set(board.declared_names().edge_features)
    for loc in hexes:
        cx, cy = centers[loc]
        attrs = board.attrs(loc)
        feats = board.features(loc)
        # entry areas: an attribute or feature whose name says "entry"
        entry = next((str(v) for k, v in attrs.items() if ENTRY_KEY in k.lower()), None)
        if entry is None and any(ENTRY_KEY in f.lower() for f in feats):
            entry = next(f for f in feats if ENTRY_KEY in f.lower())
        if entry is not None:
            if entry not in entry_values:
                entry_values.append(entry)
            color = ENTRY_COLORS[entry_values.index(entry) % len(ENTRY_COLORS)]
            inner = [(cx + (x - cx) * 0.86, cy + (y - cy) * 0.86) for x, y in corners[loc]]
            svg.polygon(layer_top, inner, fill="none", stroke=color, stroke_width=size * 0.07, opacity=0.8)
            svg.text(layer_top, cx, cy + size * 0.56, entry, size * 0.19, fill=color, weight="bold",
                     max_width=size * 1.2)
        is_city = any(_has(f, CITY_FEATURE) for f in feats)
        is_obj = any(_has(f, OBJECTIVE_FEATURE) for f in feats)
        name = attrs.get("name")
        if is_city:
            features_used.setdefault(next(f for f in feats if _has(f, CITY_FEATURE)), "city")
            s = size * 0.22
            svg.el(layer_top, "rect", x=cx - s / 2, y=cy - s / 2 + size * 0.05, width=s, height=s, fill="#c0392b",
                   stroke="#000", stroke_width=1)
        if is_obj:
            features_used.setdefault(next(f for f in feats if _has(f, OBJECTIVE_FEATURE)), "objective")
            _star(svg, layer_top, cx + size * 0.45, cy - size * 0.28, size * 0.2, attrs.get("vp"))
        if name:
            for halo in (True, False):  # white halo first (cairosvg ignores paint-order)
                svg.text(layer_top, cx, cy + size * 0.52, str(name), size * 0.21, weight="bold",
                         family=FONT_CONDENSED, max_width=size * 1.7, fill="#ffffff" if halo else "#000000",
                         stroke="#ffffff" if halo else None, stroke_width=size * 0.07 if halo else None)
        others = [f for f in sorted(feats) if not _has(f, CITY_FEATURE + OBJECTIVE_FEATURE) and ENTRY_KEY not in f
                  and f not in edge_names and not f.startswith("edge_")]
        for i, f in enumerate(others):  # other features: coloured dots along the bottom, explained in the legend
            features_used.setdefault(f, "dot")
            x = cx + (i - (len(others) - 1) / 2) * size * 0.22
            svg.el(layer_top, "circle", cx=x, cy=cy + size * 0.7, r=size * 0.08, fill=stable_color(f, 0.75, 0.8),
                   stroke="#222", stroke_width=max(size / 60, 0.6))
        # printed hex number at the top of the hex
        svg.text(layer_top, cx, cy - size * 0.66, loc, size * 0.19, fill="#555555")

    legend_h = _hex_legend(svg, engine, board, size, width, height, title, terrains_used, edges_used, features_used)
    height += legend_h  # the legend goes below the grid: the grid's pixel frame is unchanged
    svg.resize(width, height)
    background.set("height", str(height))
    return BoardImage(svg.tostring(), width, height, (ox, oy))


def is_box(board, loc: str) -> bool:
    """An off-map box of a hex board (entry area, holding box): no hex, no coordinates."""
    check = getattr(board, "is_box", None)
    return bool(check(loc)) if check is not None else False


def hex_locations(board) -> list[str]:
    return [loc for loc in board.locations if not is_box(board, loc)]


def _shared_side(ca, cb):
    common = [p for p in ca if any(abs(p[0] - q[0]) < 1e-6 and abs(p[1] - q[1]) < 1e-6 for q in cb)]
    return (common[0], common[1]) if len(common) == 2 else None


def _edge_style(f: str) -> str:
    if _has(f, BRIDGE_EDGE):
        return "bridge"
    if _has(f, RAIL_EDGE):
        return "rail"
    if _has(f, WATER_EDGE):
        return "water"
    if _has(f, ROAD_EDGE):
        return "road"
    return "other"


def _bridge(svg: Svg, parent, ca, cb, side, size: float) -> None:
    mx, my = (side[0][0] + side[1][0]) / 2, (side[0][1] + side[1][1]) / 2
    dx, dy = cb[0] - ca[0], cb[1] - ca[1]
    n = math.hypot(dx, dy) or 1
    ux, uy = dx / n * size * 0.28, dy / n * size * 0.28
    svg.line(parent, (mx - ux, my - uy), (mx + ux, my + uy), stroke="#333", stroke_width=size * 0.2)
    svg.line(parent, (mx - ux, my - uy), (mx + ux, my + uy), stroke="#d9d2c3", stroke_width=size * 0.13)


def _star(svg: Svg, parent, cx: float, cy: float, r: float, value=None) -> None:
    pts = []
    for i in range(10):
        a = math.radians(-90 + 36 * i)
        rr = r if i % 2 == 0 else r * 0.45
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    svg.polygon(parent, pts, fill="#f4c430", stroke="#7a5a00", stroke_width=max(r / 10, 0.8))
    if value is not None:
        svg.text(parent, cx, cy + r * 0.38, str(value), r * 0.95, weight="bold", fill="#000")


def _motif(svg: Svg, parent, terrain: str, center, size: float, loc: str) -> None:
    cx, cy = center
    rng = random.Random(loc)  # stable per hex
    t = terrain.lower()
    if _has(t, ("forest", "wood", "jungle")):
        for _ in range(4):
            x, y = cx + rng.uniform(-0.45, 0.45) * size, cy + rng.uniform(-0.2, 0.45) * size
            svg.el(parent, "circle", cx=x, cy=y, r=size * 0.1, fill="#3d7a35")
    elif _has(t, ("mountain", "alpine")):
        for _ in range(2):
            x, y = cx + rng.uniform(-0.35, 0.35) * size, cy + rng.uniform(0, 0.35) * size
            svg.polygon(parent, [(x - size * 0.18, y), (x, y - size * 0.25), (x + size * 0.18, y)], fill="#7a5c3c")
    elif _has(t, ("rough", "hill", "broken")):
        for _ in range(3):
            x, y = cx + rng.uniform(-0.4, 0.4) * size, cy + rng.uniform(-0.1, 0.45) * size
            svg.el(parent, "path", d=f"M {x - size * 0.12:.1f} {y:.1f} q {size * 0.12:.1f} {-size * 0.16:.1f} "
                                     f"{size * 0.24:.1f} 0", fill="none", stroke="#8b6b3d", stroke_width=size * 0.04)
    elif _has(t, ("swamp", "marsh", "bog")):
        for _ in range(4):
            x, y = cx + rng.uniform(-0.45, 0.35) * size, cy + rng.uniform(-0.15, 0.45) * size
            svg.line(parent, (x, y), (x + size * 0.2, y), stroke="#2f6f73", stroke_width=size * 0.04)
    elif _has(t, ("town", "city", "urban", "village")):
        for dx, dy in ((-0.22, 0.1), (0.0, 0.28), (0.22, 0.05)):
            svg.el(parent, "rect", x=cx + dx * size, y=cy + dy * size, width=size * 0.14, height=size * 0.12,
                   fill="#6d6d6d")


def _hex_legend(svg: Svg, engine, board, size, width, top, title, terrains, edges, features) -> int:
    """Draw the legend strip below the grid (as many rows as it needs); return its height."""
    fs = 11.0
    items: list[tuple[str, str, str]] = [("terrain", t, fill) for t, fill in terrains.items()]
    items += [("edge", f, style) for f, style in edges.items()]
    items += [("feature", f, style) for f, style in features.items()]
    placed: list[tuple[float, float, tuple[str, str, str], str]] = []
    x, row = 8.0, 0
    for item in items:
        label = _label(engine, item[1])
        w = 22 + text_width(label, fs)
        if x + w > width - 8 and x > 8:
            x, row = 8.0, row + 1
        placed.append((x, row, item, label))
        x += w + 14
    height = 20 * (row + 1) + 24
    g = svg.group()
    svg.el(g, "rect", x=0, y=top, width=width, height=height, fill="#f7f7f2", stroke="#999", stroke_width=1)
    for x, row, (kind, name, style), label in placed:
        y = top + 18 + 20 * row
        if kind == "terrain":
            svg.el(g, "rect", x=x, y=y - 10, width=16, height=12, fill=style, stroke="#777")
        elif style == "water":
            svg.line(g, (x, y - 4), (x + 18, y - 4), stroke=RIVER_BLUE, stroke_width=5 if "major" in name else 3)
        elif style == "road":
            svg.line(g, (x, y - 4), (x + 18, y - 4), stroke=ROAD_BROWN, stroke_width=4)
        elif style == "rail":
            svg.line(g, (x, y - 4), (x + 18, y - 4), stroke="#222", stroke_width=3)
        elif style == "bridge":
            svg.line(g, (x + 4, y - 4), (x + 14, y - 4), stroke="#333", stroke_width=8)
            svg.line(g, (x + 4, y - 4), (x + 14, y - 4), stroke="#d9d2c3", stroke_width=5)
        elif style == "other":
            svg.line(g, (x, y - 4), (x + 18, y - 4), stroke=stable_color(name, 0.7, 0.65), stroke_width=3,
                     stroke_dasharray="5,3")
        elif style == "city":
            svg.el(g, "rect", x=x + 3, y=y - 10, width=10, height=10, fill="#c0392b", stroke="#000")
        elif style == "objective":
            _star(svg, g, x + 8, y - 5, 8)
        else:
            svg.el(g, "circle", cx=x + 8, cy=y - 5, r=5, fill=stable_color(name, 0.75, 0.8), stroke="#222")
        svg.text(g, x + 22, y, label, fs, anchor="start")
    prov = board.provenance
    note = f"{title} - map data: {prov.kind}" + (f" ({prov.note})" if prov.note else "")
    svg.text(g, 8, top + height - 8, note, 10, anchor="start", fill="#b00020" if prov.kind == "provisional" else "#333",
             max_width=width - 16)
    return height


# ============================================================================ area maps
@dataclass
class Layout:
    points: dict[str, tuple[int, int]]  # area -> Region origin (where counters stack)
    boxes: dict[str, tuple[float, float, float, float]]  # area -> x, y, w, h
    width: int
    height: int


AREA_W, AREA_H = 150.0, 104.0


def area_layout(board, box_w: float = AREA_W, box_h: float = AREA_H) -> Layout:
    """Positions for the areas of an area map: the map's `x`/`y` attributes (cells of a grid)
    if every area has both, else a seeded force-directed layout of the adjacency graph snapped to
    a grid of cells (deterministic, boxes never overlap, neighbours stay near each other)."""
    areas = list(board.locations)
    given = {a: (board.attr(a, "x"), board.attr(a, "y")) for a in areas}
    if areas and all(isinstance(x, int) and isinstance(y, int) for x, y in given.values()):
        cells = _snap({a: (float(x), float(y)) for a, (x, y) in given.items()}, 1.0)
    else:
        pos = _force_layout(board, areas)
        cells = _snap(pos, _median_edge(board, pos) / 1.3)
    gap_x, gap_y = 34.0, 26.0
    margin = 20.0
    margin_x = 100.0 if board.wrap_east_west else margin  # room for the labelled wrap stubs
    min_c = min((c for c, _ in cells.values()), default=0)
    min_r = min((r for _, r in cells.values()), default=0)
    boxes, points = {}, {}
    for a in areas:
        c, r = cells[a]
        x = margin_x + (c - min_c) * (box_w + gap_x)
        y = margin + (r - min_r) * (box_h + gap_y)
        boxes[a] = (x, y, box_w, box_h)
        points[a] = (round(x + box_w / 2), round(y + box_h * 0.58))  # distinct: one area per cell
    width = math.ceil(max((b[0] + b[2] for b in boxes.values()), default=200) + margin_x)
    height = math.ceil(max((b[1] + b[3] for b in boxes.values()), default=200) + margin)
    return Layout(points, boxes, width, height)


def _force_layout(board, areas: list[str], iterations: int = 160) -> dict[str, tuple[float, float]]:
    """Fruchterman-Reingold with k = 1, bounded repulsion and gravity (so disconnected parts stay
    close); wrap connections attract weakly. Seeded: the same map always gives the same layout."""
    n = len(areas)
    if n == 0:
        return {}
    rng = random.Random(1941)
    index = {a: i for i, a in enumerate(areas)}
    edges: dict[tuple[int, int], float] = {}
    for a in areas:
        for b in board.neighbors(a):
            i, j = index[a], index[b]
            if i < j:
                edges[(i, j)] = 0.25 if WRAP_EDGE_FEATURE in board.edge(a, b) else 1.0
    radius = math.sqrt(n)
    xs = [radius * math.cos(2 * math.pi * i / n) + rng.uniform(-0.1, 0.1) for i in range(n)]
    ys = [radius * math.sin(2 * math.pi * i / n) + rng.uniform(-0.1, 0.1) for i in range(n)]
    temp = radius / 3
    cutoff2 = 9.0
    for _ in range(iterations):
        dx = [0.0] * n
        dy = [0.0] * n
        for i in range(n):
            xi, yi = xs[i], ys[i]
            for j in range(i + 1, n):
                ddx, ddy = xi - xs[j], yi - ys[j]
                d2 = ddx * ddx + ddy * ddy
                if d2 > cutoff2:
                    continue
                f = 1.0 / (d2 + 0.01)
                dx[i] += ddx * f
                dy[i] += ddy * f
                dx[j] -= ddx * f
                dy[j] -= ddy * f
        for (i, j), w in edges.items():
            ddx, ddy = xs[i] - xs[j], ys[i] - ys[j]
            f = math.sqrt(ddx * ddx + ddy * ddy) * w
            dx[i] -= ddx * f
            dy[i] -= ddy * f
            dx[j] += ddx * f
            dy[j] += ddy * f
        for i in range(n):
            dx[i] -= xs[i] * 0.08
            dy[i] -= ys[i] * 0.08
            d = math.hypot(dx[i], dy[i])
            if d > 0:
                step = min(d, temp)
                xs[i] += dx[i] / d * step
                ys[i] += dy[i] / d * step
        temp = max(temp * 0.96, 0.02)
    return {a: (xs[i] * 1.3, ys[i]) for a, i in index.items()}  # wider than tall reads like a map


def _median_edge(board, pos: dict[str, tuple[float, float]]) -> float:
    lengths = sorted(math.dist(pos[a], pos[b]) for a in pos for b in board.neighbors(a) if a < b)
    return lengths[len(lengths) // 2] if lengths else 1.0


def _snap(pos: dict[str, tuple[float, float]], unit: float) -> dict[str, tuple[int, int]]:
    """Each area to the free grid cell nearest its position, centre outwards."""
    unit = unit or 1.0
    if not pos:
        return {}
    cx = sum(p[0] for p in pos.values()) / len(pos)
    cy = sum(p[1] for p in pos.values()) / len(pos)
    order = sorted(pos, key=lambda a: (math.dist(pos[a], (cx, cy)), a))
    taken: set[tuple[int, int]] = set()
    cells: dict[str, tuple[int, int]] = {}
    for a in order:
        fx, fy = (pos[a][0] - cx) / unit, (pos[a][1] - cy) / unit
        best = None
        for radius in range(0, 64):
            candidates = [(round(fx) + dc, round(fy) + dr) for dc in range(-radius, radius + 1)
                          for dr in range(-radius, radius + 1) if max(abs(dc), abs(dr)) == radius]
            free = [c for c in candidates if c not in taken]
            if free:
                best = min(free, key=lambda c: ((c[0] - fx) ** 2 + (c[1] - fy) ** 2, c))
                break
        assert best is not None
        taken.add(best)
        cells[a] = best
    return cells


def area_board_svg(board, engine, layout: Layout, side_colors: dict[str, str], title: str = "") -> BoardImage:
    legend_h = 34
    width, height = layout.width, layout.height + legend_h
    svg = Svg(width, height)
    svg.el(None, "rect", x=0, y=0, width=width, height=height, fill="#dfe9f2")
    links = svg.group()
    areas = svg.group()
    done = set()
    for a in board.locations:
        ax, ay, aw, ah = layout.boxes[a]
        for b in board.neighbors(a):
            if (b, a) in done:
                continue
            done.add((a, b))
            bx, by, bw, bh = layout.boxes[b]
            ca, cb = (ax + aw / 2, ay + ah / 2), (bx + bw / 2, by + bh / 2)
            if WRAP_EDGE_FEATURE in board.edge(a, b):
                # the seam: a short dashed stub from each area towards its nearer map edge, labelled
                for (x0, y0, w0, h0), other in ((layout.boxes[a], b), (layout.boxes[b], a)):
                    left = x0 + w0 / 2 < width / 2
                    sx = x0 if left else x0 + w0
                    ex = sx - 30 if left else sx + 30
                    sy = y0 + h0 * 0.3
                    svg.line(links, (sx, sy), (ex, sy), stroke="#555", stroke_width=2, stroke_dasharray="5,3")
                    name = str(board.attr(other, "name", other))
                    svg.text(links, ex + (-2 if left else 2), sy - 4, "to " + name, 9, anchor="end" if left else "start",
                             fill="#333", family=FONT_CONDENSED)
                continue
            feats = sorted(f for f in board.edge(a, b) if f not in HEX_EDGE_FEATURES)
            svg.line(links, ca, cb, stroke="#6b6b6b" if not feats else stable_color(feats[0], 0.7, 0.6),
                     stroke_width=3 if feats else 2)
    for a in board.locations:
        x, y, w, h = layout.boxes[a]
        attrs = board.attrs(a)
        region = attrs.get("region", "land")
        owner = attrs.get("owner") or attrs.get("controller")
        if region == "sea":
            fill = SEA
            svg.el(areas, "ellipse", cx=x + w / 2, cy=y + h / 2, rx=w / 2, ry=h / 2, fill=fill, stroke="#3f6f9f",
                   stroke_width=2)
        else:
            fill = mix(side_colors[str(owner)], "#ffffff", 0.55) if str(owner) in side_colors else LAND
            svg.el(areas, "rect", x=x, y=y, width=w, height=h, rx=10, ry=10, fill=fill, stroke="#5b4a2f",
                   stroke_width=2)
        name = str(attrs.get("name", a))
        ink = ink_on(fill)
        svg.text(areas, x + w / 2, y + (24 if region == "sea" else 16), name, 13, weight="bold", fill=ink,
                 max_width=w - (40 if region == "sea" else 10))
        feats = sorted(board.features(a))
        values = [f"{key} {attrs[key]}" for key in ("value", "vp", "ipc", "income") if key in attrs]
        lines = [" | ".join(values)] if values else []
        if feats:
            lines.append(", ".join(_label(engine, f) for f in feats))
        for i, line in enumerate(reversed(lines)):
            svg.text(areas, x + w / 2, y + h - 6 - i * 12, line, 10, fill=ink, max_width=w - 12, family=FONT_CONDENSED)
    prov = board.provenance
    note = f"{title} - area map ({len(board.locations)} areas), drawn as a diagram: positions are not geographic; " \
           f"map data: {prov.kind}" + (f" ({prov.note})" if prov.note else "")
    svg.text(None, 8, height - 12, note, 11, anchor="start", fill="#b00020" if prov.kind == "provisional" else "#333",
             max_width=width - 16)
    return BoardImage(svg.tostring(), width, height)


# ============================================================================ holding boxes
def boxes_layout(names: list[str], box_w: float, box_h: float, columns: int = 4) -> Layout:
    points, boxes = {}, {}
    margin = 12.0
    for i, n in enumerate(names):
        col, row = i % columns, i // columns
        x = margin + col * (box_w + margin)
        y = margin + row * (box_h + margin)
        boxes[n] = (x, y, box_w, box_h)
        points[n] = (round(x + box_w / 2), round(y + box_h / 2 + 8))
    cols = min(columns, max(len(names), 1))
    rows = max(math.ceil(len(names) / columns), 1)
    return Layout(points, boxes, math.ceil(margin + cols * (box_w + margin)),
                  math.ceil(margin + rows * (box_h + margin)))


def boxes_svg(layout: Layout, titles: dict[str, str]) -> BoardImage:
    svg = Svg(layout.width, layout.height)
    svg.el(None, "rect", x=0, y=0, width=layout.width, height=layout.height, fill="#f4f1e8")
    for name, (x, y, w, h) in layout.boxes.items():
        svg.el(None, "rect", x=x, y=y, width=w, height=h, rx=6, ry=6, fill="#ffffff", stroke="#555",
               stroke_width=1.5)
        svg.text(None, x + w / 2, y + 15, titles.get(name, name), 12, weight="bold", max_width=w - 8)
    return BoardImage(svg.tostring(), layout.width, layout.height)
