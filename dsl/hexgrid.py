"""Hex geometry for offset-numbered wargame maps, and the exact mapping to VASSAL 3.7 hex grids.

Coordinates
-----------
A hex is addressed by its *printed* column and row numbers ``(col, row)``, the numbers a designer
reads in the hex id (``0507`` = column 5, row 7 with the default ``CCRR`` format). Internally the
geometry uses axial/cube coordinates (see https://www.redblobgames.com/grids/hexagons/): ``q`` and
``r`` with ``s = -q - r``. The axial coordinates are computed straight from the printed numbers, so
they depend on the first column/row number only through the parity rule below; distances, lines
and rings do not care.

Orientation and parity
----------------------
* ``orientation="flat"``: flat-topped hexes in vertical columns (most wargames). ``parity`` says
  which *printed* columns are shifted down by half a hex: ``"odd"`` means columns 1, 3, 5... sit
  half a hex lower than columns 2, 4, 6...; ``"even"`` the other way round.
* ``orientation="pointy"``: pointy-topped hexes in horizontal rows; ``parity`` says which printed
  rows are shifted right by half a hex.

Parity is about printed numbers, not 0-based indices, because that is what a designer can check
on the physical map: "is hex 0201 higher or lower than 0101?".

Neighbour order
---------------
``neighbors`` returns the six neighbours clockwise, starting at the first direction at or after
north (see ``FLAT_DIRECTIONS`` / ``POINTY_DIRECTIONS``):

* flat:   N, NE, SE, S, SW, NW
* pointy: NE, E, SE, SW, W, NW

Pixels
------
``pixel_center(col, row, size)`` uses ``size`` = circumradius (centre to corner). The first hex of
the map is placed so that the map's bounding box starts at (0, 0): for flat hexes column
``first_col`` has its centre at ``x = size`` and an unshifted column's first row at
``y = sqrt(3)/2 * size``. The same pixel frame is used for SVG maps and the VASSAL board image.

VASSAL
------
``vassal_grid_spec`` gives the ``HexGrid``/``HexGridNumbering`` attributes that make VASSAL's
displayed location name equal our hex id; ``VassalHexNumbering`` is a transcription of VASSAL's own
numbering code (notes: /work/shared/notes/vassal-format.md §7 and §9) so tests can check the round
trip without a JVM.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Mapping

Hex = tuple[int, int]  # (printed column, printed row)
Cube = tuple[int, int, int]  # (q, r, s) with q + r + s == 0

SQRT3 = math.sqrt(3.0)

# Axial (dq, dr) steps, clockwise from north. For flat-top axial coordinates the pixel centre is
# x = 1.5*q, y = sqrt3*(r + q/2) (in units of size), so N=(0,-1), NE=(+1,-1), SE=(+1,0), ...
FLAT_DIRECTIONS: tuple[str, ...] = ("N", "NE", "SE", "S", "SW", "NW")
_FLAT_STEPS: tuple[tuple[int, int], ...] = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
# Pointy-top: x = sqrt3*(q + r/2), y = 1.5*r.
POINTY_DIRECTIONS: tuple[str, ...] = ("NE", "E", "SE", "SW", "W", "NW")
_POINTY_STEPS: tuple[tuple[int, int], ...] = ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))

_ID_FORMAT = re.compile(r"^(C+)(\.?)(R+)$")


@dataclass(frozen=True)
class HexGrid:
    """Geometry and numbering of an offset hex grid.

    ``cols``/``rows`` are counts (the extent of the whole numbering, all sheets together); they may
    be None for pure geometry. ``col_digits``/``row_digits`` are the zero-padded widths of the two
    halves of a hex id (default 2+2, "CCRR"); ``separator`` is printed between them ("." for the
    "CC.RR" ids of the WWII Battle Series and many other maps: 04.18).
    """

    orientation: str = "flat"
    parity: str = "odd"
    first_col: int = 1
    first_row: int = 1
    cols: int | None = None
    rows: int | None = None
    col_digits: int = 2
    row_digits: int = 2
    separator: str = ""

    def __post_init__(self) -> None:
        if self.orientation not in ("flat", "pointy"):
            raise ValueError(f"orientation must be 'flat' or 'pointy', not {self.orientation!r}")
        if self.parity not in ("odd", "even"):
            raise ValueError(f"parity must be 'odd' or 'even', not {self.parity!r}")
        if self.first_col < 0 or self.first_row < 0:
            raise ValueError("first column/row numbers must be >= 0 (ids are unsigned digits)")
        if self.col_digits < 1 or self.row_digits < 1:
            raise ValueError("id widths must be >= 1 digit")
        if self.separator not in ("", "."):
            raise ValueError(f"the id separator must be '' or '.', not {self.separator!r}")
        for count, what in ((self.cols, "cols"), (self.rows, "rows")):
            if count is not None and count < 1:
                raise ValueError(f"{what} must be >= 1")
        # A number wider than its field would make ids ambiguous ("10007": col 100 or col 10?).
        if self.cols is not None and len(str(self.last_col)) > self.col_digits:
            raise ValueError(f"column {self.last_col} does not fit in {self.col_digits} digits")
        if self.rows is not None and len(str(self.last_row)) > self.row_digits:
            raise ValueError(f"row {self.last_row} does not fit in {self.row_digits} digits")

    # ------------------------------------------------------------------ extent and ids
    @property
    def last_col(self) -> int:
        if self.cols is None:
            raise ValueError("grid has no column count")
        return self.first_col + self.cols - 1

    @property
    def last_row(self) -> int:
        if self.rows is None:
            raise ValueError("grid has no row count")
        return self.first_row + self.rows - 1

    @property
    def id_format(self) -> str:
        return "C" * self.col_digits + self.separator + "R" * self.row_digits

    @property
    def directions(self) -> tuple[str, ...]:
        return FLAT_DIRECTIONS if self.orientation == "flat" else POINTY_DIRECTIONS

    def contains(self, col: int, row: int) -> bool:
        """True if (col, row) lies inside the grid's extent (always True for an unbounded axis)."""
        if self.cols is not None and not self.first_col <= col <= self.last_col:
            return False
        if self.rows is not None and not self.first_row <= row <= self.last_row:
            return False
        return True

    def all_hexes(self) -> list[Hex]:
        """Every hex of the grid, column by column (the sort order of CCRR ids)."""
        return [(c, r) for c in range(self.first_col, self.last_col + 1)
                for r in range(self.first_row, self.last_row + 1)]

    def hex_id(self, col: int, row: int) -> str:
        """`hex_id(5, 7)` -> '0507' with the default CCRR format."""
        if col < 0 or row < 0:
            raise ValueError(f"negative hex numbers have no id: ({col}, {row})")
        c, r = str(col), str(row)
        if len(c) > self.col_digits or len(r) > self.row_digits:
            raise ValueError(f"({col}, {row}) does not fit the id format {self.id_format}")
        return c.zfill(self.col_digits) + self.separator + r.zfill(self.row_digits)

    def parse_id(self, text: str) -> Hex:
        """`parse_id('0507')` -> (5, 7) (`'05.07'` with the separator "."). Raises ValueError
        unless exactly the configured digits and separator."""
        c, sep, r = text[: self.col_digits], text[self.col_digits: self.col_digits + len(self.separator)], \
            text[self.col_digits + len(self.separator):]
        digits = c + r
        if (sep != self.separator or len(c) != self.col_digits or len(r) != self.row_digits
                or not digits.isdigit() or not digits.isascii()):
            raise ValueError(f"{text!r} is not a hex id of the form {self.id_format}")
        return int(c), int(r)

    # ------------------------------------------------------------------ offset <-> axial/cube
    def is_shifted(self, col: int, row: int) -> bool:
        """True if this hex's column (flat) / row (pointy) is the shifted half of the parity pair."""
        n = col if self.orientation == "flat" else row
        return (n % 2 == 1) == (self.parity == "odd")

    def to_axial(self, col: int, row: int) -> tuple[int, int]:
        # Red Blob's odd-q/even-q/odd-r/even-r formulas, applied to printed numbers. (n & 1) is the
        # parity bit also for negative n, and (n -/+ (n & 1)) is even, so // is exact.
        if self.orientation == "flat":
            if self.parity == "odd":
                return col, row - (col - (col & 1)) // 2
            return col, row - (col + (col & 1)) // 2
        if self.parity == "odd":
            return col - (row - (row & 1)) // 2, row
        return col - (row + (row & 1)) // 2, row

    def from_axial(self, q: int, r: int) -> Hex:
        if self.orientation == "flat":
            if self.parity == "odd":
                return q, r + (q - (q & 1)) // 2
            return q, r + (q + (q & 1)) // 2
        if self.parity == "odd":
            return q + (r - (r & 1)) // 2, r
        return q + (r + (r & 1)) // 2, r

    def to_cube(self, col: int, row: int) -> Cube:
        q, r = self.to_axial(col, row)
        return q, r, -q - r

    def from_cube(self, cube: Cube) -> Hex:
        return self.from_axial(cube[0], cube[1])

    # ------------------------------------------------------------------ geometry
    def _steps(self) -> tuple[tuple[int, int], ...]:
        return _FLAT_STEPS if self.orientation == "flat" else _POINTY_STEPS

    def neighbor(self, col: int, row: int, direction: int) -> Hex:
        """The neighbour in direction index 0..5 (see module docstring for the order)."""
        q, r = self.to_axial(col, row)
        dq, dr = self._steps()[direction % 6]
        return self.from_axial(q + dq, r + dr)

    def neighbors(self, col: int, row: int) -> list[Hex]:
        """The six neighbours in direction order, ignoring the grid's extent."""
        q, r = self.to_axial(col, row)
        return [self.from_axial(q + dq, r + dr) for dq, dr in self._steps()]

    def direction_to(self, a: Hex, b: Hex) -> int | None:
        """Direction index from a to an adjacent b, or None if they are not adjacent."""
        qa, ra = self.to_axial(*a)
        qb, rb = self.to_axial(*b)
        try:
            return self._steps().index((qb - qa, rb - ra))
        except ValueError:
            return None

    def distance(self, a: Hex, b: Hex) -> int:
        qa, ra = self.to_axial(*a)
        qb, rb = self.to_axial(*b)
        dq, dr = qa - qb, ra - rb
        return max(abs(dq), abs(dr), abs(dq + dr))

    def line(self, a: Hex, b: Hex) -> list[Hex]:
        """Hexes on the straight line from a to b inclusive (distance+1 hexes, each adjacent to the
        next). Cube lerp with rounding; both ends are nudged by a tiny epsilon so that lines running
        exactly along a hexside always pick the same side instead of flickering between two."""
        n = self.distance(a, b)
        ax, ay, az = self.to_cube(*a)
        bx, by, bz = self.to_cube(*b)
        eps = (1e-6, 2e-6, -3e-6)  # sums to zero, so the nudged point stays on the q+r+s=0 plane
        ax, ay, az = ax + eps[0], ay + eps[1], az + eps[2]
        bx, by, bz = bx + eps[0], by + eps[1], bz + eps[2]
        out: list[Hex] = []
        for i in range(n + 1):
            t = i / n if n else 0.0
            out.append(self.from_cube(_cube_round(ax + (bx - ax) * t, ay + (by - ay) * t,
                                                  az + (bz - az) * t)))
        return out

    def ring(self, center: Hex, k: int) -> list[Hex]:
        """The 6k hexes at exactly distance k (k=0: the centre alone). Starts at the hex k steps in
        direction 4 (SW for flat, W for pointy) and walks clockwise."""
        if k < 0:
            raise ValueError("ring radius must be >= 0")
        if k == 0:
            return [center]
        steps = self._steps()
        q, r = self.to_axial(*center)
        q, r = q + steps[4][0] * k, r + steps[4][1] * k
        out: list[Hex] = []
        # From the corner in direction s, the next clockwise corner is reached by walking in
        # direction s+2 (e.g. flat: from the SW corner walk N to reach the NW corner).
        for i in range(6):
            dq, dr = steps[(4 + 2 + i) % 6]
            for _ in range(k):
                out.append(self.from_axial(q, r))
                q, r = q + dq, r + dr
        return out

    def spiral(self, center: Hex, k: int) -> list[Hex]:
        """All hexes within distance k: the centre, then ring 1, ring 2, ... (1 + 3k(k+1) hexes)."""
        out: list[Hex] = []
        for radius in range(k + 1):
            out.extend(self.ring(center, radius))
        return out

    hex_range = spiral

    # ------------------------------------------------------------------ pixels
    def pixel_center(self, col: int, row: int, size: float) -> tuple[float, float]:
        """Centre of a hex in a pixel frame whose origin is the map's top-left corner."""
        h = SQRT3 * size
        if self.orientation == "flat":
            x = size + (col - self.first_col) * 1.5 * size
            y = h / 2 + (row - self.first_row) * h + (h / 2 if self.is_shifted(col, row) else 0.0)
            return x, y
        x = h / 2 + (col - self.first_col) * h + (h / 2 if self.is_shifted(col, row) else 0.0)
        y = size + (row - self.first_row) * 1.5 * size
        return x, y

    def hex_corners(self, col: int, row: int, size: float) -> list[tuple[float, float]]:
        """The 6 corners (for SVG polygons), clockwise from the east (flat) / north-east (pointy)."""
        cx, cy = self.pixel_center(col, row, size)
        start = 0.0 if self.orientation == "flat" else -30.0
        out = []
        for i in range(6):
            a = math.radians(start + 60.0 * i)
            out.append((cx + size * math.cos(a), cy + size * math.sin(a)))
        return out

    def pixel_size(self, size: float) -> tuple[float, float]:
        """Width and height of the bounding box of the whole grid in the `pixel_center` frame."""
        h = SQRT3 * size
        if self.orientation == "flat":
            width = 2 * size + (self.cols - 1) * 1.5 * size
            height = self.rows * h + (h / 2 if self.cols > 1 else 0.0)
        else:
            width = self.cols * h + (h / 2 if self.rows > 1 else 0.0)
            height = 2 * size + (self.rows - 1) * 1.5 * size
        return width, height


def _cube_round(x: float, y: float, z: float) -> Cube:
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    # Reset the component with the largest rounding error so that q + r + s stays 0.
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    else:
        rz = -rx - ry
    return int(rx), int(ry), int(rz)


def parse_id_format(text: str) -> tuple[int, int, str]:
    """'CCRR' -> (2, 2, ''); 'CCCRR' -> (3, 2, ''); 'CC.RR' -> (2, 2, '.'). Raises ValueError for
    anything else."""
    m = _ID_FORMAT.match(text)
    if not m:
        raise ValueError(f"{text!r} is not an id format like CCRR or CC.RR")
    return len(m.group(1)), len(m.group(3)), m.group(2)


# ====================================================================== VASSAL 3.7
#
# Everything below follows /work/shared/notes/vassal-format.md §7 ("Hex grid geometry and grid
# numbering") and §9 (gotchas 2 and 7), checked against VASSAL's HexGrid.java and
# mapgrid/HexGridNumbering.java / RegularGridNumbering.java.
#
# How VASSAL names a point (non-sideways; sideways swaps x and y first, §7 bullet 2):
#   raw column c = floor((x - x0)/dx + 0.5); raw row R = round((y - y0 - (dy/2 if c odd)) / dy)
#   with stagger=true (default) the label row of an odd raw column is R + 1  (§7 bullet 4)
#   name = getName(c + hOff) + sep + getName(R' + vOff), zero-padded to leading+1 digits (§7 b.3)
# So raw-odd columns are drawn half a hex lower in pixels but are numbered one row higher: in
# label terms the raw-EVEN columns are the ones "shifted down". Our mapping therefore chooses the
# raw column numbering so that raw c is even exactly for our shifted columns, keeps stagger=true
# (the default that module designers expect), and derives hOff/vOff/x0/y0 from that.
#
# Sideways grids (our pointy orientation): VASSAL transposes the point, so its "column" index
# counts screen rows (it uses hOff/hType/hLeading) and its "row" index counts screen columns.
# Our id is column-then-row, so we set first="V" (row label first) to print CCRR.


@dataclass(frozen=True)
class VassalGridSpec:
    """Attribute values (as the strings to write in buildFile.xml) for one VASSAL board."""

    grid: dict[str, str]  # VASSAL.build.module.map.boardPicker.board.HexGrid
    numbering: dict[str, str]  # VASSAL.build.module.map.boardPicker.board.mapgrid.HexGridNumbering
    board_width: int  # board image size in pixels (also what hDescend/vDescend would need)
    board_height: int


def vassal_grid_spec(grid: HexGrid, size: float, *, visible: bool = False,
                     font_size: int = 9) -> VassalGridSpec:
    """HexGrid + HexGridNumbering attributes so that VASSAL names each hex exactly like our id.

    `size` is the hex circumradius in board-image pixels, the same as for `HexGrid.pixel_center`,
    so a board image drawn with `pixel_center`/`hex_corners` lines up with VASSAL's grid.
    """
    if grid.cols is None or grid.rows is None:
        raise ValueError("VASSAL grid needs a bounded HexGrid (cols and rows)")
    dx = 1.5 * size  # spacing between raw columns (screen x; screen y when sideways)
    dy = SQRT3 * size  # spacing between hexes of one raw column
    sideways = grid.orientation == "pointy"
    if not sideways:
        # raw column c = col - first_col + adjust, with c even <=> our column is shifted down.
        adjust = 0 if grid.is_shifted(grid.first_col, grid.first_row) else 1
        h_off = grid.first_col - adjust
        v_off = grid.first_row - 1  # y0 = 0 then puts shifted-column centres at R*dy (see tests)
        h_leading, v_leading = grid.col_digits - 1, grid.row_digits - 1
        first = "H"  # column label first: CCRR
    else:
        # Transposed: VASSAL raw "columns" are our rows; "rows" are our columns.
        adjust = 0 if grid.is_shifted(grid.first_col, grid.first_row) else 1
        h_off = grid.first_row - adjust
        v_off = grid.first_col - 1
        h_leading, v_leading = grid.row_digits - 1, grid.col_digits - 1
        first = "V"  # VASSAL's row label (= our column) first: CCRR
    # x0 is along the raw-column axis: our first column (row, when sideways) is centred at `size`.
    x0 = round(size - adjust * dx)
    y0 = 0
    width, height = grid.pixel_size(size)
    grid_attrs = {
        "sideways": _jbool(sideways),
        "x0": str(x0),
        "y0": str(y0),
        # dy before dx in VASSAL's attribute order: setting dy recomputes dx only while dx still
        # has its default value, and dx is then set explicitly (HexGrid.setAttribute).
        "dy": repr(dy),
        "dx": repr(dx),
        "snapTo": "true",
        "edgesLegal": "false",
        "cornersLegal": "false",
        "visible": _jbool(visible),
        "dotsVisible": "false",
        "color": "0,0,0",
    }
    numbering_attrs = {
        # §9.2: every numeric/char attribute must be non-empty, so all are written explicitly.
        "first": first,
        "sep": grid.separator,
        "hType": "N",
        "hLeading": str(h_leading),
        "hOff": str(h_off),
        "hDescend": "false",
        "vType": "N",
        "vLeading": str(v_leading),
        "vOff": str(v_off),
        "vDescend": "false",
        "locationFormat": "$gridLocation$",
        "visible": _jbool(visible),
        "fontSize": str(font_size),
        "color": "0,0,0",
        "rotateText": "0",
        "hDrawOff": "0",
        "vDrawOff": "0",
        "stagger": "true",
    }
    return VassalGridSpec(grid_attrs, numbering_attrs, math.ceil(width), math.ceil(height))


def _jbool(value: bool) -> str:
    return "true" if value else "false"


def _java_bool(text: str) -> bool:
    return text.lower() == "true"  # Boolean.valueOf: case-insensitive "true", anything else false


def _java_round(value: float) -> int:
    return math.floor(value + 0.5)  # Math.round(double) rounds half up


class VassalHexNumbering:
    """A Python transcription of VASSAL 3.7's hex numbering (HexGrid + HexGridNumbering).

    Built from the attribute strings as they appear in buildFile.xml, so tests exercise exactly
    what an exporter writes. Points are integer board coordinates (VASSAL uses java.awt.Point).
    """

    ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

    def __init__(self, grid_attrs: Mapping[str, str], numbering_attrs: Mapping[str, str],
                 board_size: tuple[int, int] = (0, 0)) -> None:
        # HexGrid defaults (HexGrid.java: origin (0, 32), dy = 64, dx = sqrt(3)/2 * dy).
        default_width = SQRT3 / 2 * 64.0
        self.sideways = False
        self.x0, self.y0 = 0, 32
        self.dy, self.dx = 64.0, default_width
        # Attributes are applied in getAttributeNames() order: sideways, x0, y0, dy, dx, ...
        if "sideways" in grid_attrs:
            self.sideways = _java_bool(grid_attrs["sideways"])
        if "x0" in grid_attrs:
            self.x0 = int(grid_attrs["x0"])
        if "y0" in grid_attrs:
            self.y0 = int(grid_attrs["y0"])
        if "dy" in grid_attrs:
            self.dy = float(grid_attrs["dy"])
            if self.dx == default_width:  # setAttribute(DY): keep the regular-hex ratio
                self.dx = SQRT3 / 2 * self.dy
        if "dx" in grid_attrs:
            self.dx = float(grid_attrs["dx"])
        # RegularGridNumbering defaults.
        n = numbering_attrs
        self.first = n.get("first", "H")[0]
        self.sep = n.get("sep", "")
        self.h_type = n.get("hType", "N")[0]
        self.v_type = n.get("vType", "N")[0]
        self.h_leading = int(n.get("hLeading", "1"))
        self.v_leading = int(n.get("vLeading", "1"))
        self.h_off = int(n.get("hOff", "1"))
        self.v_off = int(n.get("vOff", "1"))
        self.h_descending = _java_bool(n.get("hDescend", "false"))
        self.v_descending = _java_bool(n.get("vDescend", "false"))
        self.location_format = n.get("locationFormat", "$gridLocation$")
        self.stagger = _java_bool(n.get("stagger", "true"))
        self.board_width, self.board_height = board_size

    # -- HexGrid.rotateIfSideways
    def _rotate(self, x: int, y: int) -> tuple[int, int]:
        return (y, x) if self.sideways else (x, y)

    # -- HexGridNumbering.getMaxRows/getMaxColumns (dx and dy swapped, as in VASSAL, §7)
    def _max_rows(self) -> int:
        return math.floor(self.board_height / self.dx + 0.5)

    def _max_columns(self) -> int:
        return math.floor(self.board_width / self.dy + 0.5)

    def raw_column(self, x: int, y: int) -> int:
        px, _ = self._rotate(x, y)
        return math.floor((px - self.x0) / self.dx + 0.5)

    def raw_row(self, x: int, y: int) -> int:
        px, py = self._rotate(x, y)
        nx = _java_round((px - self.x0) / self.dx)
        if nx % 2 == 0:
            return _java_round((py - self.y0) / self.dy)
        return _java_round((py - self.y0 - self.dy / 2) / self.dy)

    def column(self, x: int, y: int) -> int:
        c = self.raw_column(x, y)
        if self.v_descending and self.sideways:
            c = self._max_rows() - c
        if self.h_descending and not self.sideways:
            c = self._max_columns() - c
        return c

    def row(self, x: int, y: int) -> int:
        ny = self.raw_row(x, y)
        if self.v_descending and not self.sideways:
            ny = self._max_rows() - ny
        if self.h_descending and self.sideways:
            ny = self._max_columns() - ny
        if self.stagger and self.raw_column(x, y) % 2 != 0:
            descending = self.h_descending if self.sideways else self.v_descending
            ny += -1 if descending else 1
        return ny

    # -- RegularGridNumbering.getName(int, char, int)
    def name_part(self, value: int, type_char: str, leading: int) -> str:
        out = "-" if value < 0 else ""
        value = abs(value)
        if type_char == "A":
            while True:  # do { ... } while (value >= 0)
                out += self.ALPHABET[value % 26]
                value -= 26
                if value < 0:
                    return out
        while leading > 0:  # while (leading > 0 && value < Math.pow(10, leading--))
            limit = 10 ** leading
            leading -= 1
            if not value < limit:
                break
            out += "0"
        return out + str(value)

    def grid_location(self, row: int, column: int) -> str:
        row_name = self.name_part(row + self.v_off, self.v_type, self.v_leading)
        col_name = self.name_part(column + self.h_off, self.h_type, self.h_leading)
        return col_name + self.sep + row_name if self.first == "H" else row_name + self.sep + col_name

    def location_name(self, x: int, y: int) -> str:
        """RegularGridNumbering.locationName: what VASSAL displays for a board point."""
        r, c = self.row(x, y), self.column(x, y)
        return self._format(self.grid_location(r, c),
                            self.name_part(r + self.v_off, self.v_type, self.v_leading),
                            self.name_part(c + self.h_off, self.h_type, self.h_leading))

    def _format(self, grid_location: str, row: str, column: str) -> str:
        values = {"gridLocation": grid_location, "row": row, "column": column}
        parts = self.location_format.split("$")
        # FormattedString: $name$ is replaced, text outside $...$ is kept.
        return "".join(values.get(p, p) if i % 2 == 1 else p for i, p in enumerate(parts))

    # -- HexGridNumbering.getCenterPoint
    def center_point(self, col: int, row: int) -> tuple[int, int]:
        """Board point of the hex with raw-label numbers (col, row) = (label - hOff, label - vOff)."""
        if self.stagger and col % 2 != 0:
            descending = self.h_descending if self.sideways else self.v_descending
            row += 1 if descending else -1
        if self.sideways:
            if self.v_descending:
                col = self._max_rows() - col
            if self.h_descending:
                row = self._max_columns() - row
        else:
            if self.h_descending:
                col = self._max_columns() - col
            if self.v_descending:
                row = self._max_rows() - row
        x = int(col * self.dx) + self.x0
        if col % 2 == 0:
            y = int(row * self.dy)
        else:
            y = int(row * self.dy + self.dy / 2)
        y += self.y0
        return self._rotate(x, y)

    # -- RegularGridNumbering.getLocation (only $gridLocation$/$row$/$column$ and literal text)
    def _pattern(self, type_char: str, leading: int) -> str:
        if type_char == "A":
            return "-?(?:" + "|".join(f"{ch}+" for ch in self.ALPHABET) + ")"
        return "-?[0-9]{" + str(leading + 1) + ",}"

    def get_location(self, name: str) -> tuple[int, int]:
        """The point VASSAL uses for a grid location name (e.g. SetupStack useGridLocation).
        Raises ValueError where VASSAL throws BadCoords."""
        regex, groups = "", []
        parts = self.location_format.split("$")
        for i, token in enumerate(parts):
            is_property = i % 2 == 1 and i < len(parts) - 1
            if not token:
                continue
            if not is_property:
                regex += re.escape(token)
            elif token == "gridLocation":
                col_pat = "(" + self._pattern(self.h_type, self.h_leading) + ")"
                row_pat = "(" + self._pattern(self.v_type, self.v_leading) + ")"
                if self.first == "H":
                    regex += col_pat + re.escape(self.sep) + row_pat
                    groups += ["col", "row"]
                else:
                    regex += row_pat + re.escape(self.sep) + col_pat
                    groups += ["row", "col"]
            elif token == "row":
                regex += "(" + self._pattern(self.v_type, self.v_leading) + ")"
                groups.append("row")
            elif token == "column":
                regex += "(" + self._pattern(self.h_type, self.h_leading) + ")"
                groups.append("col")
        if "row" not in groups or "col" not in groups:
            raise ValueError("location format names no row and column")
        m = re.fullmatch(regex, name)
        if not m:
            raise ValueError(f"{name!r} is not a location of this grid")
        row_text = m.group(groups.index("row") + 1)
        col_text = m.group(groups.index("col") + 1)
        row = self._parse_name(row_text, self.v_type)
        col = self._parse_name(col_text, self.h_type)
        return self.center_point(col - self.h_off, row - self.v_off)

    def _parse_name(self, text: str, type_char: str) -> int:
        if type_char != "A":
            return int(text)
        value, index, negative = 0, 0, text.startswith("-")
        if negative:
            index = 1
        while index < len(text) and text[index].isupper():
            value += 26 if index < len(text) - 1 else self.ALPHABET.index(text[index])
            index += 1
        return -value if negative else value

