"""The generic board: hex boards and area maps, queried by the interpreter in hot loops.

The engine knows no particular game: terrain names, location features (city, objective...), edge
features (minor_river, road, bridge...) and attribute keys are plain strings chosen by the map; the
language checker compares them with the game's declarations via `Board.declared_names()`.

Everything the interpreter asks for is precomputed at construction into dicts of tuples and
frozensets, keyed by the location id string, so `neighbors`, `terrain`, `edge`... are single dict
lookups. A Board is immutable after construction (do not mutate what it returns).

Hex boards: location ids are hex ids of the grid's numbering ("0507"); order is column by column,
then the board's *boxes*: named off-map locations (entry areas, holding boxes) with declared
adjacency to hexes and to each other. A box has no coordinates; its distance to a location is the
fewest steps through the boxes and hexes it touches (1 + the hex distance from the nearest hex it
touches), so "within 5 hexes" rules work on it too.
Area maps: location ids are the declared area ids, in declaration order.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from types import MappingProxyType
from typing import Container, Iterable, Mapping, Sequence

from warcodex.dsl.hexgrid import HexGrid

AttrValue = int | str | bool
EMPTY: frozenset[str] = frozenset()
_EMPTY_ATTRS: Mapping[str, AttrValue] = MappingProxyType({})

PROVENANCE_KINDS = ("rulebook", "player_aid", "provisional")
# Features the board adds by itself (not written in the map file, so not "declared" by it).
HEX_EDGE_FEATURES = ("edge_north", "edge_south", "edge_east", "edge_west")
WRAP_EDGE_FEATURE = "wrap"  # on every connection that crosses an east-west wrap seam
BUILTIN_ATTRS = ("name", "region")  # display name; "land"/"sea" for area maps


@dataclass(frozen=True)
class Provenance:
    """Where the map data comes from: the published rulebook/map, a player aid, or provisional."""

    kind: str
    note: str = ""

    def __post_init__(self) -> None:
        if self.kind not in PROVENANCE_KINDS:
            raise ValueError(f"provenance kind must be one of {PROVENANCE_KINDS}, not {self.kind!r}")


@dataclass(frozen=True)
class Sheet:
    """A physical map sheet covering a rectangle of the board's single global hex numbering."""

    name: str
    first_col: int
    last_col: int
    first_row: int
    last_row: int

    def contains(self, col: int, row: int) -> bool:
        return self.first_col <= col <= self.last_col and self.first_row <= row <= self.last_row


@dataclass(frozen=True)
class DeclaredNames:
    """Names a map uses, for the language checker. `builtin_*` are added by the engine itself."""

    terrains: frozenset[str]
    location_features: frozenset[str]
    edge_features: frozenset[str]
    location_attrs: frozenset[str]
    edge_attrs: frozenset[str]
    builtin_location_features: frozenset[str] = frozenset()
    builtin_edge_features: frozenset[str] = frozenset()
    builtin_location_attrs: frozenset[str] = frozenset(BUILTIN_ATTRS)


class Board:
    """A map: locations, adjacency, terrain, features, attributes and edge (hexside) features.

    Build with `Board.hex_board(...)`, `Board.area_map(...)`, `generate_hex_board(...)` or
    `warcodex.dsl.mapfile.load_map(path)`.
    """

    def __init__(
        self,
        *,
        name: str,
        kind: str,
        locations: Sequence[str],
        adjacency: Mapping[str, Sequence[str]],
        grid: HexGrid | None = None,
        coords: Mapping[str, tuple[int, int]] | None = None,
        provenance: Provenance = Provenance("provisional"),
        default_terrain: str | None = None,
        terrain: Mapping[str, str] | None = None,
        features: Mapping[str, Iterable[str]] | None = None,
        attrs: Mapping[str, Mapping[str, AttrValue]] | None = None,
        edges: Mapping[tuple[str, str], Iterable[str]] | None = None,
        edge_attrs: Mapping[tuple[str, str], Mapping[str, AttrValue]] | None = None,
        sheets: Sequence[Sheet] = (),
        sheet_of: Mapping[str, str] | None = None,
        wrap_east_west: bool = False,
        wrap_pairs: Iterable[tuple[str, str]] = (),
        auto_features: Mapping[str, Iterable[str]] | None = None,
        boxes: Sequence[str] = (),
    ) -> None:
        """Low-level constructor: prefer `hex_board` / `area_map`. `adjacency` must already be
        symmetric and in the wanted neighbour order; programmer errors raise ValueError (the map
        file loader reports user errors with locations before getting here)."""
        if kind not in ("hex", "area"):
            raise ValueError(f"board kind must be 'hex' or 'area', not {kind!r}")
        self.name = name
        self.kind = kind
        self.grid = grid
        self.provenance = provenance
        # (section, where, what): the rulebook sections the map file cites (mapfile.py)
        self.citations: list[tuple] = []
        self.default_terrain = default_terrain
        self.sheets: tuple[Sheet, ...] = tuple(sheets)
        self.wrap_east_west = wrap_east_west
        self.locations: tuple[str, ...] = tuple(locations)
        self.index: dict[str, int] = {loc: i for i, loc in enumerate(self.locations)}
        if len(self.index) != len(self.locations):
            raise ValueError("duplicate location ids")
        known = self.index

        # --- adjacency (tuples for iteration, frozensets for membership)
        self._neighbors: dict[str, tuple[str, ...]] = {}
        for loc in self.locations:
            ns = tuple(dict.fromkeys(adjacency.get(loc, ())))  # dedupe, keep order
            for n in ns:
                if n not in known:
                    raise ValueError(f"{loc}: neighbour {n!r} is not a location")
                if n == loc:
                    raise ValueError(f"{loc} is adjacent to itself")
            self._neighbors[loc] = ns
        # membership is tested on the tuples themselves: a hex has at most six neighbours, and a
        # frozenset per location would cost more memory than everything else a hex holds
        for loc, ns in self._neighbors.items():
            for n in ns:
                if loc not in self._neighbors[n]:
                    raise ValueError(f"adjacency is not symmetric: {loc}->{n}")

        # --- coordinates (hex boards): cube coordinates make distance a few subtractions
        self._coords: dict[str, tuple[int, int]] = dict(coords or {})
        self._cube: dict[str, tuple[int, int, int]] = {}
        self._wrap_shift: tuple[int, int, int] | None = None
        if grid is not None:
            for loc, (c, r) in self._coords.items():
                self._cube[loc] = grid.to_cube(c, r)
            if wrap_east_west and grid.cols is not None:
                # Cube offset of shifting a hex by one full map width (same parity: cols even).
                q0, r0, s0 = grid.to_cube(grid.first_col, grid.first_row)
                q1, r1, s1 = grid.to_cube(grid.first_col + grid.cols, grid.first_row)
                self._wrap_shift = (q1 - q0, r1 - r0, s1 - s0)
        self._by_coords: dict[tuple[int, int], str] = {v: k for k, v in self._coords.items()}
        self.boxes: tuple[str, ...] = tuple(boxes)
        for b in self.boxes:
            if b not in known:
                raise ValueError(f"box {b!r} is not a location")
            if b in self._coords:
                raise ValueError(f"box {b!r} has hex coordinates")
        self._box_set: frozenset[str] = frozenset(self.boxes)
        self._anchors: dict[str, tuple[tuple[str, int], ...]] = {}  # box -> ((hex, steps), ...)
        self._box_hops: dict[str, dict[str, int]] = {}  # box -> {box: hops through boxes only}
        self._box_dist: dict[tuple[str, str], int | None] = {}

        # --- terrain
        terrain = terrain or {}
        for loc in terrain:
            if loc not in known:
                raise ValueError(f"terrain for unknown location {loc!r}")
        self._terrain: dict[str, str | None] = {loc: terrain.get(loc, default_terrain)
                                                for loc in self.locations}

        # --- features (declared ones, plus automatic ones such as edge_north)
        features = features or {}
        auto_features = auto_features or {}
        declared_features: set[str] = set()
        builtin_features: set[str] = set()
        feats: dict[str, set[str]] = {}  # only locations that have features: most hexes have none
        for loc, fs in features.items():
            if loc not in known:
                raise ValueError(f"features for unknown location {loc!r}")
            fs = set(fs)
            feats.setdefault(loc, set()).update(fs)
            declared_features |= fs
        for loc, fs in auto_features.items():
            fs = set(fs)
            if fs:
                feats.setdefault(loc, set()).update(fs)
            builtin_features |= fs
        self._features: dict[str, frozenset[str]] = {loc: frozenset(fs) for loc, fs in feats.items() if fs}
        by_feature: dict[str, list[str]] = {}
        for loc in self.locations:  # board order, so locations_with() is deterministic
            for f in sorted(self._features.get(loc, EMPTY)):
                by_feature.setdefault(f, []).append(loc)
        self._with_feature: dict[str, tuple[str, ...]] = {f: tuple(v) for f, v in by_feature.items()}

        # --- attributes
        attrs = attrs or {}
        self._attrs: dict[str, Mapping[str, AttrValue]] = {}
        attr_keys: set[str] = set()
        for loc in self.locations:
            a = attrs.get(loc)
            self._attrs[loc] = MappingProxyType(dict(a)) if a else _EMPTY_ATTRS
            if a:
                attr_keys |= set(a)
        for loc in attrs:
            if loc not in known:
                raise ValueError(f"attributes for unknown location {loc!r}")

        # --- edges: stored under both (a, b) and (b, a) so a lookup needs no normalisation
        edge_sets: dict[tuple[str, str], set[str]] = {}
        edge_names: set[str] = set()
        builtin_edge: set[str] = set()
        for (a, b), fs in (edges or {}).items():
            self._check_pair(a, b)
            fs = set(fs)
            edge_sets.setdefault((a, b), set()).update(fs)
            edge_sets.setdefault((b, a), set()).update(fs)
            edge_names |= fs
        for a, b in wrap_pairs:
            self._check_pair(a, b)
            edge_sets.setdefault((a, b), set()).add(WRAP_EDGE_FEATURE)
            edge_sets.setdefault((b, a), set()).add(WRAP_EDGE_FEATURE)
            builtin_edge.add(WRAP_EDGE_FEATURE)
        self._edges: dict[tuple[str, str], frozenset[str]] = {k: frozenset(v) for k, v in edge_sets.items()}
        edge_with: dict[str, list[tuple[str, str]]] = {}
        for (a, b), fs in self._edges.items():
            if self.index[a] < self.index[b]:
                for f in fs:
                    edge_with.setdefault(f, []).append((a, b))
        self._edges_with: dict[str, tuple[tuple[str, str], ...]] = {
            f: tuple(sorted(v, key=lambda p: (self.index[p[0]], self.index[p[1]])))
            for f, v in edge_with.items()}
        self._edge_attrs: dict[tuple[str, str], Mapping[str, AttrValue]] = {}
        edge_attr_keys: set[str] = set()
        for (a, b), ea in (edge_attrs or {}).items():
            self._check_pair(a, b)
            proxy = MappingProxyType(dict(ea))
            self._edge_attrs[(a, b)] = proxy
            self._edge_attrs[(b, a)] = proxy
            edge_attr_keys |= set(ea)

        # --- sheets
        self._sheet_of: dict[str, str | None] = {loc: None for loc in self.locations}
        for loc, s in (sheet_of or {}).items():
            self._sheet_of[loc] = s

        self._declared = DeclaredNames(
            terrains=frozenset(t for t in [*self._terrain.values(), default_terrain] if t is not None),
            location_features=frozenset(declared_features),
            edge_features=frozenset(edge_names),
            location_attrs=frozenset(attr_keys - set(BUILTIN_ATTRS)),
            edge_attrs=frozenset(edge_attr_keys),
            builtin_location_features=frozenset(builtin_features),
            builtin_edge_features=frozenset(builtin_edge),
        )
        self._bfs: dict[str, dict[str, int]] = {}  # area maps: hop counts, filled lazily per source

    def _check_pair(self, a: str, b: str) -> None:
        if a not in self.index or b not in self.index:
            raise ValueError(f"edge {a}/{b}: unknown location")
        if b not in self._neighbors[a]:
            raise ValueError(f"edge {a}/{b}: locations are not adjacent")

    # ================================================================== constructors
    @classmethod
    def hex_board(
        cls,
        name: str,
        grid: HexGrid,
        *,
        provenance: Provenance = Provenance("provisional"),
        sheets: Sequence[Sheet] = (),
        wrap_east_west: bool = False,
        default_terrain: str | None = None,
        terrain: Mapping[str, str] | None = None,
        features: Mapping[str, Iterable[str]] | None = None,
        attrs: Mapping[str, Mapping[str, AttrValue]] | None = None,
        edges: Mapping[tuple[str, str], Iterable[str]] | None = None,
        edge_attrs: Mapping[tuple[str, str], Mapping[str, AttrValue]] | None = None,
        boxes: Mapping[str, Sequence[str]] | None = None,
    ) -> "Board":
        """A hex board over `grid` (which must have cols/rows). With sheets, the board is the union
        of the sheets' rectangles (each hex on exactly one sheet); without, the whole grid.
        `boxes` adds off-map locations: box id -> the hexes and boxes it is adjacent to (made
        symmetric; listed after the hexes, in the given order)."""
        if grid.cols is None or grid.rows is None:
            raise ValueError("a hex board needs a grid with cols and rows")
        if wrap_east_west and grid.orientation == "flat" and grid.cols % 2:
            # Column parity alternates; wrapping an odd number of columns would put two columns
            # with the same shift side by side at the seam.
            raise ValueError("east-west wrap of a flat-top grid needs an even number of columns")
        sheet_of: dict[tuple[int, int], str] = {}
        for s in sheets:
            for c in range(s.first_col, s.last_col + 1):
                for r in range(s.first_row, s.last_row + 1):
                    if not grid.contains(c, r):
                        raise ValueError(f"sheet {s.name} covers ({c}, {r}) outside the grid")
                    if (c, r) in sheet_of:
                        raise ValueError(f"sheets {sheet_of[(c, r)]} and {s.name} overlap at ({c}, {r})")
                    sheet_of[(c, r)] = s.name
        cells = [h for h in grid.all_hexes() if not sheets or h in sheet_of]
        on_board = {h: grid.hex_id(*h) for h in cells}
        adjacency, wrap_pairs = hex_adjacency(grid, on_board, wrap_east_west)
        boxes = dict(boxes or {})
        hex_ids = set(on_board.values())
        for b, ns in boxes.items():
            if b in hex_ids:
                raise ValueError(f"box {b!r} has the id of a hex")
            adjacency[b] = list(adjacency.get(b, []))
        for b, ns in boxes.items():
            for n in sorted(ns):  # sets from the map file: a fixed order, whatever the hash seed
                if n not in adjacency:
                    raise ValueError(f"box {b!r}: neighbour {n!r} is not a location")
                if n == b:
                    raise ValueError(f"box {b!r} is adjacent to itself")
                _link(adjacency, b, n)

        # Map-edge features from the board's bounding box (documented limitation: a non-rectangular
        # union of sheets gets no edge features along its inner corners).
        auto: dict[str, list[str]] = {}
        if cells:
            min_c = min(c for c, _ in cells)
            max_c = max(c for c, _ in cells)
            min_r = min(r for _, r in cells)
            max_r = max(r for _, r in cells)
            for (c, r), loc in on_board.items():
                fs = []
                if r == min_r:
                    fs.append("edge_north")
                if r == max_r:
                    fs.append("edge_south")
                if not wrap_east_west:
                    if c == min_c:
                        fs.append("edge_west")
                    if c == max_c:
                        fs.append("edge_east")
                if fs:
                    auto[loc] = fs
        return cls(
            name=name, kind="hex", grid=grid, provenance=provenance,
            locations=list(on_board.values()) + list(boxes), adjacency=adjacency,
            coords={loc: h for h, loc in on_board.items()},
            default_terrain=default_terrain, terrain=terrain, features=features, attrs=attrs,
            edges=edges, edge_attrs=edge_attrs, sheets=sheets,
            sheet_of={on_board[h]: s for h, s in sheet_of.items()},
            wrap_east_west=wrap_east_west, wrap_pairs=wrap_pairs, auto_features=auto,
            boxes=list(boxes),
        )

    @classmethod
    def area_map(
        cls,
        name: str,
        areas: Sequence[str],
        adjacency: Iterable[tuple[str, str]],
        *,
        provenance: Provenance = Provenance("provisional"),
        wrap_east_west: bool = False,
        wrap_pairs: Iterable[tuple[str, str]] = (),
        default_terrain: str | None = None,
        terrain: Mapping[str, str] | None = None,
        features: Mapping[str, Iterable[str]] | None = None,
        attrs: Mapping[str, Mapping[str, AttrValue]] | None = None,
        edges: Mapping[tuple[str, str], Iterable[str]] | None = None,
        edge_attrs: Mapping[tuple[str, str], Mapping[str, AttrValue]] | None = None,
    ) -> "Board":
        """An area (point-to-point) map. `adjacency` pairs are made symmetric; `wrap_pairs` are
        connections across the east-west seam (adjacent too, and carry the edge feature `wrap`).
        A location's sheet is its `sheet` attribute, if any."""
        wrap_pairs = list(wrap_pairs)
        if wrap_pairs and not wrap_east_west:
            raise ValueError("wrap pairs on a map that does not wrap east-west")
        adj: dict[str, list[str]] = {a: [] for a in areas}
        for a, b in list(adjacency) + wrap_pairs:
            if a not in adj or b not in adj:
                raise ValueError(f"adjacency {a}/{b}: unknown area")
            _link(adj, a, b)
        # neighbours in map order: the pairs may come from sets, whose order depends on the hash
        # seed, and choices offered to players (and so logs) must not
        order = {a: i for i, a in enumerate(areas)}
        for ns in adj.values():
            ns.sort(key=order.__getitem__)
        sheet_of = {a: str(v["sheet"]) for a, v in (attrs or {}).items() if "sheet" in v}
        return cls(
            name=name, kind="area", provenance=provenance, locations=list(areas), adjacency=adj,
            default_terrain=default_terrain, terrain=terrain, features=features, attrs=attrs,
            edges=edges, edge_attrs=edge_attrs, sheet_of=sheet_of,
            wrap_east_west=wrap_east_west, wrap_pairs=wrap_pairs,
        )

    # ================================================================== queries (hot paths)
    def neighbors(self, loc: str) -> tuple[str, ...]:
        """Adjacent locations: hex direction order (see hexgrid), or declaration order for areas."""
        return self._neighbors[loc]

    def balls(self, radius: int) -> dict:
        """{location: ball(location, radius)}, filled as asked (the memos' invalidation looks up
        many balls of the same radius)."""
        by_radius = self.__dict__.setdefault("_balls_by_radius", {})
        found = by_radius.get(radius)
        if found is None:
            found = by_radius[radius] = _Balls(self, radius)
        return found

    def ball(self, loc: str, radius: int) -> tuple[str, ...]:
        """The locations within `radius` steps of adjacency of `loc` (itself included), the ones
        a rule reading `units_at` of neighbours of neighbours... can see (memo.py)."""
        balls = self.__dict__.setdefault("_balls", {})
        found = balls.get((loc, radius))
        if found is None:
            if loc not in self._neighbors:
                found = ()
            else:
                seen = {loc: None}  # a dict: insertion order, nearest first
                frontier = [loc]
                for _ in range(radius):
                    outer = []
                    for h in frontier:
                        for n in self._neighbors[h]:
                            if n not in seen:
                                seen[n] = None
                                outer.append(n)
                    frontier = outer
                found = tuple(seen)
            balls[(loc, radius)] = found
        return found

    def is_adjacent(self, a: str, b: str) -> bool:
        return b in self._neighbors[a]

    def terrain(self, loc: str) -> str | None:
        return self._terrain[loc]

    def features(self, loc: str) -> frozenset[str]:
        if loc not in self.index:
            raise KeyError(loc)
        return self._features.get(loc, EMPTY)

    def has_feature(self, loc: str, feature: str) -> bool:
        return feature in self.features(loc)

    def attrs(self, loc: str) -> Mapping[str, AttrValue]:
        """Read-only attribute mapping (e.g. name, vp, owner, region)."""
        return self._attrs[loc]

    def attr(self, loc: str, key: str, default: AttrValue | None = None) -> AttrValue | None:
        return self._attrs[loc].get(key, default)

    def edge(self, a: str, b: str) -> frozenset[str]:
        """Features on the hexside/connection between a and b (empty if none or not adjacent)."""
        return self._edges.get((a, b), EMPTY)

    def edge_attrs(self, a: str, b: str) -> Mapping[str, AttrValue]:
        return self._edge_attrs.get((a, b), _EMPTY_ATTRS)

    def locations_with(self, feature: str) -> tuple[str, ...]:
        """Locations having a location feature, in board order."""
        return self._with_feature.get(feature, ())

    def edges_with(self, feature: str) -> tuple[tuple[str, str], ...]:
        """Connections (a, b) carrying an edge feature, each once, a before b in board order."""
        return self._edges_with.get(feature, ())

    def sheet(self, loc: str) -> str | None:
        return self._sheet_of[loc]

    def distance(self, a: str, b: str) -> int | None:
        """Hex distance on hex boards (geometric, honouring east-west wrap); BFS hop count on
        area maps (None if b cannot be reached from a)."""
        if self.kind == "hex":
            if a in self._box_set or b in self._box_set:
                return self._distance_with_boxes(a, b)
            qa, ra, sa = self._cube[a]
            qb, rb, sb = self._cube[b]
            d = max(abs(qa - qb), abs(ra - rb), abs(sa - sb))
            w = self._wrap_shift
            if w is not None:
                for sign in (1, -1):
                    dq = qa - qb - sign * w[0]
                    dr = ra - rb - sign * w[1]
                    ds = sa - sb - sign * w[2]
                    d = min(d, max(abs(dq), abs(dr), abs(ds)))
            return d
        hops = self._bfs.get(a)
        if hops is None:
            hops = self._bfs_from(a)
            self._bfs[a] = hops
        return hops.get(b)

    def is_box(self, loc: str) -> bool:
        """True for an off-map box of a hex board (an entry area, a holding box)."""
        return loc in self._box_set

    def _hex_distance(self, a: str, b: str) -> int:
        return self.distance(a, b)  # both hexes: the geometric branch

    def _box_graph(self, box: str) -> dict[str, int]:
        """Hops from `box` to every box reachable through boxes only."""
        hops = self._box_hops.get(box)
        if hops is None:
            hops = self._box_hops[box] = self._bfs_from(box, self._box_set)
        return hops

    def anchors(self, box: str) -> tuple[tuple[str, int], ...]:
        """The hexes a box reaches: (hex, steps) for each hex adjacent to the box or to a box it
        reaches through other boxes, with the fewest steps."""
        got = self._anchors.get(box)
        if got is None:
            best: dict[str, int] = {}
            for b, hops in self._box_graph(box).items():
                for n in self._neighbors[b]:
                    if n not in self._box_set:
                        steps = hops + 1
                        if steps < best.get(n, steps + 1):
                            best[n] = steps
            got = tuple(sorted(best.items(), key=lambda p: (p[1], self.index[p[0]])))
            self._anchors[box] = got
        return got

    def _distance_with_boxes(self, a: str, b: str) -> int | None:
        if a == b:
            return 0
        key = (a, b) if self.index[a] <= self.index[b] else (b, a)
        if key in self._box_dist:
            return self._box_dist[key]
        x, y = key
        if x in self._box_set and y not in self._box_set:
            x, y = y, x  # x is the hex, y the box
        candidates: list[int] = []
        if x in self._box_set:  # two boxes
            hops = self._box_graph(x).get(y)
            if hops is not None:
                candidates.append(hops)
            ay = self.anchors(y)
            for hx, sx in self.anchors(x):
                for hy, sy in ay:
                    candidates.append(sx + sy + self._hex_distance(hx, hy))
        else:
            candidates = [s + self._hex_distance(x, h) for h, s in self.anchors(y)]
        d = min(candidates) if candidates else None
        self._box_dist[key] = d
        return d

    def _bfs_from(self, start: str, within: Container[str] | None = None) -> dict[str, int]:
        """Hops from `start` to every location reachable, stepping only on those `within` (None:
        any location)."""
        hops = {start: 0}
        queue = deque([start])
        while queue:
            loc = queue.popleft()
            for n in self._neighbors[loc]:
                if n not in hops and (within is None or n in within):
                    hops[n] = hops[loc] + 1
                    queue.append(n)
        return hops

    # ================================================================== hex helpers
    def coords(self, loc: str) -> tuple[int, int]:
        """Printed (column, row) of a hex (a box has none: ValueError)."""
        try:
            return self._coords[loc]
        except KeyError:
            if loc in self._box_set:
                raise ValueError(f"{loc} is an off-map box: it has no column and row") from None
            raise

    def at(self, col: int, row: int) -> str | None:
        """The hex id at printed (col, row), or None if that hex is not on the board."""
        return self._by_coords.get((col, row))

    def pixel_center(self, loc: str, size: float) -> tuple[float, float]:
        if self.grid is None:
            raise ValueError("area maps have no hex geometry")
        return self.grid.pixel_center(*self.coords(loc), size)

    # ================================================================== misc
    def declared_names(self) -> DeclaredNames:
        return self._declared

    def __contains__(self, loc: object) -> bool:
        return loc in self.index

    def __len__(self) -> int:
        return len(self.locations)

    def __repr__(self) -> str:
        return f"Board({self.name!r}, {self.kind}, {len(self.locations)} locations)"


def hex_adjacency(
    grid: HexGrid, on_board: Mapping[tuple[int, int], str], wrap_east_west: bool = False
) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    """Neighbour lists (direction order) of the hexes in `on_board` ((col,row) -> id), and the
    pairs that cross the east-west seam when wrapping."""
    adjacency: dict[str, list[str]] = {}
    wraps: list[tuple[str, str]] = []
    for (c, r), loc in on_board.items():
        ns: list[str] = []
        for nc, nr in grid.neighbors(c, r):
            wrapped = False
            if wrap_east_west and not grid.first_col <= nc <= grid.last_col:
                nc += grid.cols if nc < grid.first_col else -grid.cols
                wrapped = True
            n = on_board.get((nc, nr))
            if n is not None and n != loc and n not in ns:
                ns.append(n)
                if wrapped and loc < n:
                    wraps.append((loc, n))
        adjacency[loc] = ns
    return adjacency, wraps


def generate_hex_board(
    cols: int,
    rows: int,
    seed: int,
    *,
    terrains: Sequence[tuple[str, float]] = (("clear", 0.55), ("forest", 0.2), ("rough", 0.15),
                                              ("swamp", 0.1)),
    river_density: float = 0.04,
    major_river: bool = True,
    road: bool = True,
    cities: int = 5,
    orientation: str = "flat",
    parity: str = "odd",
    name: str | None = None,
) -> Board:
    """A random but deterministic hex board for benchmarks (e.g. 50x50 = 2,500 hexes).

    * terrain: each hex drawn from the weighted `terrains`;
    * `minor_river` on a random `river_density` fraction of hexsides;
    * if `major_river`: a `major_river` along the whole seam between the two middle columns
      (flat) or rows (pointy), so every west-east route must cross it;
    * if `road`: a `road` path along the straight hex line from the middle of the west edge to the
      middle of the east edge (edge feature on each step, location feature on each hex), with a
      `bridge` where it crosses a river;
    * `cities` distinct hexes with features `city` and `objective` and attributes name/vp.
    """
    rng = random.Random(seed)
    digits = max(2, len(str(max(cols, rows))))
    grid = HexGrid(orientation, parity, 1, 1, cols, rows, digits, digits)
    cells = grid.all_hexes()
    ids = {h: grid.hex_id(*h) for h in cells}
    names = [t for t, _ in terrains]
    weights = [w for _, w in terrains]
    terrain = {ids[h]: rng.choices(names, weights)[0] for h in cells}

    edges: dict[tuple[str, str], set[str]] = {}

    def add_edge(a: str, b: str, feature: str) -> None:
        key = (a, b) if a < b else (b, a)
        edges.setdefault(key, set()).add(feature)

    for h in cells:  # each hexside once: only towards neighbours with a larger id
        for n in grid.neighbors(*h):
            if n in ids and ids[n] > ids[h] and rng.random() < river_density:
                add_edge(ids[h], ids[n], "minor_river")
    if major_river:
        if orientation == "flat":
            mid = cols // 2
            seam = [(h, n) for h in cells if h[0] == mid for n in grid.neighbors(*h)
                    if n in ids and n[0] == mid + 1]
        else:
            mid = rows // 2
            seam = [(h, n) for h in cells if h[1] == mid for n in grid.neighbors(*h)
                    if n in ids and n[1] == mid + 1]
        for h, n in seam:
            add_edge(ids[h], ids[n], "major_river")

    features: dict[str, set[str]] = {}
    if road:
        path = grid.line((1, (rows + 1) // 2), (cols, (rows + 1) // 2))
        for h in path:
            features.setdefault(ids[h], set()).add("road")
        for a, b in zip(path, path[1:]):
            add_edge(ids[a], ids[b], "road")
            key = (ids[a], ids[b]) if ids[a] < ids[b] else (ids[b], ids[a])
            if edges[key] & {"minor_river", "major_river"}:
                edges[key].add("bridge")
    attrs: dict[str, dict[str, AttrValue]] = {}
    for i, h in enumerate(rng.sample(cells, min(cities, len(cells)))):
        features.setdefault(ids[h], set()).update({"city", "objective"})
        attrs[ids[h]] = {"name": f"City {i + 1}", "vp": 1 + rng.randrange(3)}
    return Board.hex_board(
        name or f"generated {cols}x{rows} seed {seed}", grid,
        provenance=Provenance("provisional", "randomly generated for benchmarks"),
        terrain=terrain, features=features, attrs=attrs, edges=edges,
    )


def _link(adjacency: dict[str, list[str]], a: str, b: str) -> None:
    """Make a and b neighbours of each other, once (each keeps its neighbours' order)."""
    if b not in adjacency[a]:
        adjacency[a].append(b)
    if a not in adjacency[b]:
        adjacency[b].append(a)


class _Balls(dict):
    """Board.balls: the balls of one radius, each found when first asked."""

    def __init__(self, board: Board, radius: int) -> None:
        super().__init__()
        self.board = board
        self.radius = radius

    def __missing__(self, loc):
        found = self[loc] = self.board.ball(loc, self.radius)
        return found
