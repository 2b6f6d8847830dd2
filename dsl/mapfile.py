"""Loader for `.wcmap` map files: a compact, human-editable description of one board.

Example (hex map)::

    # comments start with '#'; newlines are not significant
    map "Tiny Front" provisional "drawn for the example game" {
      grid hex flat odd cols 1..12 rows 1..10 ids CCRR   # or: grid hex pointy even ...
      sheet A cols 1..6 rows 1..10                       # optional; sheets join into one board
      sheet B cols 7..12 rows 1..10
      default terrain clear
      terrain forest: 0203 0204 0305-0308 0510..0611     # ids, column/row runs, rectangles
      feature city: 0507 0909                            # location features
      edge minor_river: 0203/0204 0204/0304              # hexsides between two adjacent hexes
      edge major_river: cols 6/7 rows 1..5               # every hexside between two columns
      path road: 0101 0102 0203 0304                     # `road` on each crossed hexside and hex
      location 0507 "Stalingrad" { vp: 3 objective }     # name, attributes, bare features
      location 0101-0110 { entry_area: "west" }          # one block for many hexes
      wrap east-west                                     # optional, hex maps: needs even cols
      box EA_W "Entry Area W" { entry_area: "W" } adjacent_to: 0101-0110   # an off-map location
    }

Example (area map)::

    map "World 1941" provisional "invented" {
      grid areas
      wrap east-west: sz1/sz9              # adjacency across the seam, edge feature `wrap`
      land germany "Germany" { value: 10 owner: germany capital factory }
      sea sz5 "Sea Zone 5"
      adjacent germany: poland sz5         # symmetric; if both areas have their own line, each
      edge canal: sz5/sz6 { controlled_by: egypt }   # must list the other (catches typos)
    }

Statements:
  map NAME [rulebook|player_aid|provisional ["note"]] { ... }   header and provenance
  grid hex flat|pointy odd|even cols A..B rows C..D [ids CCRR]  hex grid (ids default 2+2 digits; CC.RR: 04.18)
  grid areas                                                    area map
  wrap east-west [: a/b ...]                                    east-west wrap
  sheet NAME cols A..B rows C..D                                one sheet of a hex board
  default terrain T                                             terrain of unlisted locations
  terrain T: LOCS / feature F: LOCS                             terrain / location features
  edge F: a/b [{attrs}] ... | cols A/B rows C..D | rows A/B cols C..D
  path F: a b c ...                                             consecutive adjacent locations
  location LOCS ["Name"] [{ key: value ... flag ... }]           attributes and features
  land|sea|area ID ["Name"] [{...}]                             declare an area (region land/sea)
  adjacent ID: ID ...                                           area adjacency
  box ID ["Name"] [{...}] [adjacent_to: LOCS]                   (hex maps) an off-map location

Boxes (hex maps only) are named locations off the hex grid: entry areas, holding boxes, transit
boxes. Their id must not read as a hex id (write `EA_A`, not `0101`). `adjacent_to:` joins a box
to hexes (ids, runs, rectangles) and to other boxes; adjacency is symmetric, so a hex along a box
has the box among its neighbours. Once declared, a box id can be used wherever a location id can:
`terrain entry_area: EA_A`, `location EA_A {...}`, `edge rail: 7002/EA_C`, `path rail: 6902 7002
EA_C`. Boxes have no printed row or column: column/row ranges and seams never include them.

All problems are reported as located diagnostics (`DiagnosticError`), several per pass.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from warcodex.dsl.diagnostics import (
    DiagnosticError,
    Diagnostics,
    Span,
    did_you_mean,
    remember_source,
)
from warcodex.dsl.board import (
    HEX_EDGE_FEATURES,
    WRAP_EDGE_FEATURE,
    AttrValue,
    Board,
    Provenance,
    Sheet,
    hex_adjacency,
)
from warcodex.dsl.hexgrid import HexGrid, parse_id_format

GRAMMAR_PATH = Path(__file__).with_name("mapfile.lark")

STATEMENT_KEYWORDS = ("grid", "wrap", "sheet", "default", "terrain", "feature", "edge", "path",
                      "location", "land", "sea", "area", "adjacent", "box")
_ALL_KEYWORDS = STATEMENT_KEYWORDS + (
    "map", "rulebook", "player_aid", "provisional", "hex", "areas", "flat", "pointy", "odd",
    "even", "cols", "rows", "ids", "east-west", "true", "false", "adjacent_to")

# Words for the regex terminals in "expected ..." messages (string terminals are quoted as is).
_TERMINAL_WORDS = {
    "LOC": "a location id",
    "NAME": "a name",
    "INT": "a whole number",
    "SIGNED_INT": "a number",
    "STRING": 'a quoted string ("...")',
    "ID_FORMAT": "an id format such as CCRR",
    "$END": "the end of the file",
    "<END-OF-FILE>": "the end of the file",  # Lark's name for $END when the lexer reports it
}


# the section citations met while lexing the file being parsed (the SECTION terminal is ignored
# by the grammar: any statement may end with citations; they are collected here, in order)
_citations: ContextVar[list | None] = ContextVar("map_citations", default=None)


def _collect_citation(token: Token) -> Token:
    found = _citations.get()
    if found is not None:
        found.append(token)
    return token


@lru_cache(maxsize=1)
def _parser() -> Lark:
    from warcodex.dsl.cache import lark_cache_file

    text = GRAMMAR_PATH.read_text(encoding="utf-8")
    return Lark(text, parser="lalr", lexer="contextual", propagate_positions=True, cache=lark_cache_file("map", text),
                lexer_callbacks={"SECTION": _collect_citation})


def load_map(path: str | Path, diagnostics: Diagnostics | None = None) -> Board:
    """Read and validate a .wcmap file. Raises DiagnosticError listing every problem found.
    Warnings (if any) are added to `diagnostics` when given."""
    from warcodex import inputs
    from warcodex.dsl.diagnostics import input_diagnostic

    path = Path(path)
    try:
        text = inputs.read_text(path, inputs.MAX_MAP_BYTES, "map file")
    except inputs.InputError as exc:
        raise DiagnosticError([input_diagnostic(exc, "E-map-read", None)]) from None
    return parse_map_text(text, str(path), diagnostics)


def parse_map_text(text: str, filename: str = "<map>", diagnostics: Diagnostics | None = None) -> Board:
    """Parse and validate map source text (for files, tests and generated maps)."""
    remember_source(filename, text)  # so rendered diagnostics can show the source line
    diags = diagnostics if diagnostics is not None else Diagnostics()
    found: list[Token] = []
    reset = _citations.set(found)
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        _syntax_error(exc, text, filename, diags)
        raise DiagnosticError(list(diags.items)) from None
    finally:
        _citations.reset(reset)
    board = _MapLoader(filename, diags).load(tree)
    board.citations = _cited_statements(tree, found, filename)
    return board


def _cited_statements(tree: Tree, tokens: list[Token], filename: str) -> list[tuple[str, Span, str]]:
    """(section, where, what it is cited for) of each citation: the statement it follows (the
    last one that starts before it), or the map itself when it is in the header."""
    decl = tree.children[0]
    statements = [c for c in decl.children[1:] if isinstance(c, Tree) and c.data != "provenance"
                  and not getattr(c.meta, "empty", True)]
    out = []
    for tok in tokens:
        before = [st for st in statements if (st.meta.line, st.meta.column) < (tok.line, tok.column)]
        if before:
            st = before[-1]
            first = next((str(t) for t in st.scan_values(lambda v: isinstance(v, Token))), "")
            what = f"{st.data.replace('_', ' ')} {first}".strip()
        else:
            what = "the map"
        out.append((str(tok)[1:], Span(filename, tok.line, tok.column, tok.end_line, tok.end_column), what))
    return out


# ============================================================================ syntax errors
def _describe_expected(names: set[str]) -> str:
    terminals = {t.name: t for t in _parser().terminals}
    words: set[str] = set()
    statement_starts = {n for n in names if n in terminals
                        and terminals[n].pattern.value in STATEMENT_KEYWORDS}
    if len(statement_starts) >= 5:  # "a statement" reads better than 13 keywords
        words.add("a statement (" + ", ".join(sorted(terminals[n].pattern.value
                                                     for n in statement_starts)) + ")")
        names = names - statement_starts
    for n in names:
        t = terminals.get(n)
        if n in _TERMINAL_WORDS:
            words.add(_TERMINAL_WORDS[n])
        elif t is not None and t.pattern.type == "str":
            words.add(f"'{t.pattern.value}'")
        else:
            words.add(n.lower())
    ordered = sorted(words)
    if len(ordered) == 1:
        return ordered[0]
    return "one of " + ", ".join(ordered[:-1]) + " or " + ordered[-1]


def _word_at(src: str, index: int) -> tuple[int, int] | None:
    """Bounds of the word (letters, digits, '_', inner '-') around src[index], if it is in one."""
    if not 0 <= index < len(src) or not (src[index].isalnum() or src[index] == "_"):
        return None
    start = index
    while start > 0 and (src[start - 1].isalnum() or src[start - 1] == "_"):
        start -= 1
    end = index
    while end < len(src) and (src[end].isalnum() or src[end] in "_-"):
        end += 1
    return start, end


def _syntax_error(exc: UnexpectedInput, text: str, filename: str, diags: Diagnostics) -> None:
    line, column = exc.line, exc.column
    lines = text.splitlines()
    src = lines[line - 1] if 1 <= line <= len(lines) else ""
    width = 1
    keywords: list[str] = []  # keywords acceptable here, for did-you-mean hints
    if isinstance(exc, UnexpectedToken) and exc.token.type == "$END":
        # Lark places $END on the last token; point just past the last non-blank character.
        stripped = text.rstrip()
        line = stripped.count("\n") + 1
        column = len(stripped) - (stripped.rfind("\n") + 1) + 1
        diags.error("E-map-syntax", "unexpected end of file; expected "
                    + _describe_expected(set(exc.expected)), Span(filename, line, column))
        return
    if isinstance(exc, UnexpectedToken):
        what = f"unexpected '{exc.token.value}'"
        width = max(1, len(str(exc.token.value)))
        names = set(exc.expected)
    elif isinstance(exc, UnexpectedCharacters):
        what = f"unexpected character '{exc.char}'"
        names = set(exc.allowed or ())
    else:  # pragma: no cover - other UnexpectedInput kinds are not raised by LALR
        names = set()
        what = "syntax error"
    expected = _describe_expected(names) if names else "valid map syntax"
    keywords = [t.pattern.value for t in _parser().terminals
                if t.name in names and t.pattern.type == "str" and t.pattern.value[0].isalpha()]

    # A misspelt statement keyword ("terain forest: 0101") is read as a location id continuing
    # the previous list, so the error shows up later on that line: name the misspelt word instead.
    m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)", src)
    if m and m.group(1) not in _ALL_KEYWORDS and m.start(1) + 1 <= column:
        hint = did_you_mean(m.group(1), STATEMENT_KEYWORDS)
        if hint:
            col = m.start(1) + 1
            diags.error("E-map-syntax", f"unknown statement '{m.group(1)}'",
                        Span(filename, line, col, line, col + len(m.group(1))), hint)
            return

    # Errors inside a word: "flatt" lexes as the keyword "flat" then "t", "east-wast" as "east"...
    # Report the whole word and suggest the keyword it resembles.
    bounds = _word_at(src, column - 1)
    if bounds is not None:
        start, end = bounds
        word = src[start:end]
        token_text = str(exc.token.value) if isinstance(exc, UnexpectedToken) else str(getattr(exc, "char", ""))
        if start < column - 1 or word != token_text:
            hint = did_you_mean(word, keywords) or did_you_mean(word, _ALL_KEYWORDS)
            # When the word began before the error point, Lark's expectations describe the place
            # after the swallowed prefix ("flat|t"), which would mislead: leave them out.
            message = f"unknown word '{word}'" + ("" if start < column - 1 else f"; expected {expected}")
            diags.error("E-map-syntax", message, Span(filename, line, start + 1, line, end + 1), hint)
            return
        hint = did_you_mean(word, keywords)
    else:
        hint = None
    diags.error("E-map-syntax", f"{what}; expected {expected}",
                Span(filename, line, column, line, column + width), hint)


# ============================================================================ loader
class _MapLoader:
    def __init__(self, filename: str, diags: Diagnostics) -> None:
        self.filename = filename
        self.diags = diags
        self.kind = "hex"
        self.grid: HexGrid | None = None
        self.sheets: list[Sheet] = []
        self.wrap = False
        self.locations: list[str] = []  # board order
        self.known: set[str] = set()
        self.coords: dict[str, tuple[int, int]] = {}
        self.by_coords: dict[tuple[int, int], str] = {}
        self.adj: dict[str, set[str]] = {}
        self.terrain: dict[str, tuple[str, int]] = {}  # loc -> (terrain, line)
        self.features: dict[str, set[str]] = {}
        self.attrs: dict[str, dict[str, AttrValue]] = {}
        self.attr_spans: dict[tuple[str, str], Span] = {}  # where each attribute was first set
        self.edges: dict[tuple[str, str], set[str]] = {}
        self.edge_attrs: dict[tuple[str, str], dict[str, AttrValue]] = {}
        self.wrap_pairs: list[tuple[str, str]] = []
        self.boxes: dict[str, list[str]] = {}  # hex maps: box id -> its neighbours, in order

    # ------------------------------------------------------------------ helpers
    def span(self, node: Token | Tree) -> Span:
        if isinstance(node, Token):
            return Span(self.filename, node.line, node.column, node.end_line, node.end_column)
        meta = node.meta
        if getattr(meta, "empty", True):
            return Span(self.filename, 1, 1)
        return Span(self.filename, meta.line, meta.column, meta.end_line, meta.end_column)

    def span_between(self, first: Token, last: Token) -> Span:
        return Span(self.filename, first.line, first.column, last.end_line, last.end_column)

    def error(self, code: str, message: str, node: Token | Tree | Span, hint: str | None = None) -> None:
        self.diags.error(code, message, node if isinstance(node, Span) else self.span(node), hint)

    @staticmethod
    def _string(tok: Token) -> str:
        return re.sub(r"\\(.)", r"\1", tok.value[1:-1])

    @staticmethod
    def _key(a: str, b: str) -> tuple[str, str]:
        return (a, b) if a <= b else (b, a)

    # ------------------------------------------------------------------ entry point
    def load(self, tree: Tree) -> Board:
        start = len(self.diags.items)
        try:
            return self._load(tree)
        except DiagnosticError:
            # Report in file order (the passes above visit statements by kind).
            mine = self.diags.items[start:]
            mine.sort(key=lambda d: (d.span.line, d.span.column) if d.span else (0, 0))
            self.diags.items[start:] = mine
            raise DiagnosticError(list(self.diags.items)) from None

    def _load(self, tree: Tree) -> Board:
        decl = tree.children[0]
        name_tok = decl.children[0]
        name = self._string(name_tok)
        provenance = None
        statements: list[Tree] = []
        for child in decl.children[1:]:
            if child.data == "provenance":
                kind = str(child.children[0].children[0])
                note = self._string(child.children[1]) if len(child.children) > 1 else ""
                provenance = Provenance(kind, note)
            else:
                statements.append(child)
        if provenance is None:
            self.error("E-map-provenance", "the map does not say where its data comes from",
                       name_tok, "write `rulebook`, `player_aid` or `provisional \"why\"` after the map name")
            provenance = Provenance("provisional")

        by_kind: dict[str, list[Tree]] = {}
        for st in statements:
            by_kind.setdefault(st.data, []).append(st)

        # Order matters: the grid and the set of locations first, then adjacency, then the rest
        # (edges and paths are checked against adjacency).
        grids = by_kind.get("grid_hex", []) + by_kind.get("grid_areas", [])
        grids.sort(key=lambda t: (t.meta.line, t.meta.column))
        if not grids:
            self.error("E-map-grid", "the map has no grid statement", name_tok,
                       "add `grid hex flat odd cols 1..N rows 1..M` or `grid areas`")
            self.diags.raise_if_errors()
        for extra in grids[1:]:
            self.error("E-map-grid", "a map has exactly one grid statement", extra)
        self._grid(grids[0])
        wraps = by_kind.get("wrap", [])
        self.wrap = bool(wraps)
        if self.kind == "hex":
            for st in by_kind.get("sheet", []):
                self._sheet(st)
            self._hex_locations(wraps[0] if wraps else None)
            self._boxes(by_kind.get("box", []))
            for st in by_kind.get("area", []):
                self.error("E-map-area", "areas can only be declared on an area map (`grid areas`)", st)
            for st in by_kind.get("adjacent", []):
                self.error("E-map-adjacent", "hex adjacency comes from the grid; `adjacent` is for area maps", st)
            for st in by_kind.get("wrap", []):
                if st.children:
                    self.error("E-map-wrap", "wrap pairs are for area maps; a hex map wraps every row by itself", st)
        else:
            for st in by_kind.get("sheet", []):
                self.error("E-map-sheet", "sheets are for hex maps (give areas a `sheet` attribute instead)", st)
            for st in by_kind.get("box", []):
                self.error("E-map-box", "boxes are for hex maps; on an area map declare an area instead", st)
            for st in by_kind.get("area", []):
                self._area(st)
            self._adjacency(by_kind.get("adjacent", []), by_kind.get("wrap", []))

        default_terrain = None
        for i, st in enumerate(by_kind.get("default_terrain", [])):
            if i:
                self.error("E-map-duplicate", "default terrain is set twice", st)
            else:
                default_terrain = str(st.children[0])
        # Remaining statements in file order, so "set twice" messages point at the later one.
        rest = [st for st in statements if st.data in ("terrain", "feature", "edge", "path", "location")]
        for st in rest:
            getattr(self, "_" + st.data)(st)
        self._check_display_names()
        self.diags.raise_if_errors()
        return self._build(name, provenance, default_terrain)

    def _build(self, name: str, provenance: Provenance, default_terrain: str | None) -> Board:
        terrain = {loc: t for loc, (t, _) in self.terrain.items()}
        try:
            if self.kind == "hex":
                return Board.hex_board(
                    name, self.grid, provenance=provenance, sheets=self.sheets,
                    wrap_east_west=self.wrap, default_terrain=default_terrain, terrain=terrain,
                    features=self.features, attrs=self.attrs, edges=self.edges,
                    edge_attrs=self.edge_attrs, boxes=self.boxes)
            pairs = [(a, b) for a, ns in self.adj.items() for b in ns if a < b]
            return Board.area_map(
                name, self.locations, pairs, provenance=provenance, wrap_east_west=self.wrap,
                wrap_pairs=self.wrap_pairs, default_terrain=default_terrain, terrain=terrain,
                features=self.features, attrs=self.attrs, edges=self.edges,
                edge_attrs=self.edge_attrs)
        except ValueError as exc:  # a check above missed something: still no traceback
            self.diags.error("E-map-internal", f"invalid map: {exc}", Span(self.filename, 1, 1))
            raise DiagnosticError(list(self.diags.items)) from None

    # ------------------------------------------------------------------ grid and locations
    def _range(self, node: Tree) -> tuple[int, int] | None:
        a, b = int(node.children[0]), int(node.children[1])
        if a > b:
            self.error("E-map-range", f"range {a}..{b} runs backwards", node, f"write {b}..{a}")
            return None
        return a, b

    def _grid(self, st: Tree) -> None:
        if st.data == "grid_areas":
            self.kind = "area"
            return
        orientation = str(st.children[0].children[0])
        parity = str(st.children[1].children[0])
        cols = self._range(st.children[2])
        rows = self._range(st.children[3])
        if cols is None or rows is None:
            self.diags.raise_if_errors()
        digits_c = max(2, len(str(cols[1])))
        digits_r = max(2, len(str(rows[1])))
        separator = ""
        if len(st.children) > 4:
            fmt = st.children[4].children[0]
            digits_c, digits_r, separator = parse_id_format(str(fmt))
            if len(str(cols[1])) > digits_c or len(str(rows[1])) > digits_r:
                self.error("E-map-grid", f"column {cols[1]} or row {rows[1]} does not fit the id format {fmt}",
                           fmt)
                self.diags.raise_if_errors()
        self.grid = HexGrid(orientation, parity, cols[0], rows[0], cols[1] - cols[0] + 1,
                            rows[1] - rows[0] + 1, digits_c, digits_r, separator)

    def _sheet(self, st: Tree) -> None:
        name_tok = st.children[0]
        cols, rows = self._range(st.children[1]), self._range(st.children[2])
        if cols is None or rows is None:
            return
        g = self.grid
        if not (g.first_col <= cols[0] and cols[1] <= g.last_col and g.first_row <= rows[0]
                and rows[1] <= g.last_row):
            self.error("E-map-sheet", f"sheet {name_tok} reaches outside the grid "
                       f"(columns {g.first_col}..{g.last_col}, rows {g.first_row}..{g.last_row})", st)
            return
        for other in self.sheets:
            if other.name == str(name_tok):
                self.error("E-map-duplicate", f"sheet {name_tok} is declared twice", name_tok)
                return
            if not (cols[1] < other.first_col or other.last_col < cols[0]
                    or rows[1] < other.first_row or other.last_row < rows[0]):
                self.error("E-map-sheet", f"sheet {name_tok} overlaps sheet {other.name}", st,
                           "each hex belongs to exactly one sheet")
                return
        self.sheets.append(Sheet(str(name_tok), cols[0], cols[1], rows[0], rows[1]))

    def _hex_locations(self, wrap: Tree | None) -> None:
        g = self.grid
        if wrap is not None and g.orientation == "flat" and g.cols % 2:
            # Column parity alternates, so the seam only lines up with an even number of columns.
            self.error("E-map-wrap", f"a flat-top grid can only wrap east-west with an even number "
                       f"of columns (this one has {g.cols})", wrap)
            self.wrap = False
        for h in g.all_hexes():
            if self.sheets and not any(s.contains(*h) for s in self.sheets):
                continue
            loc = g.hex_id(*h)
            self.locations.append(loc)
            self.coords[loc] = h
            self.by_coords[h] = loc
        self.known = set(self.locations)
        adjacency, _ = hex_adjacency(g, self.by_coords, self.wrap)
        self.adj = {loc: set(ns) for loc, ns in adjacency.items()}

    def _boxes(self, statements: list[Tree]) -> None:
        """Declare every box first (so boxes may name each other), then their names, attributes
        and adjacency."""
        declared: list[tuple[Tree, str]] = []
        for st in statements:
            tok = st.children[0]
            box = str(tok)
            reads_as_hex = True
            try:
                self.grid.parse_id(box)
            except ValueError:
                reads_as_hex = False
            if reads_as_hex:
                self.error("E-map-box", f"box id '{box}' reads as a hex id", tok,
                           "give a box an id with a letter in it, e.g. EA_A")
                continue
            if box in self.boxes:
                self.error("E-map-duplicate", f"box '{box}' is declared twice", tok)
                continue
            self.boxes[box] = []
            self.locations.append(box)
            self.known.add(box)
            self.adj[box] = set()
            declared.append((st, box))
        for st, box in declared:
            parts = st.children[1:]
            lists = [c for c in parts if isinstance(c, Tree) and c.data == "box_adjacent"]
            rest = [c for c in parts if not (isinstance(c, Tree) and c.data == "box_adjacent")]
            self._name_and_block(rest, [box], st.children[0])
            for item in lists:
                for loc, tok in self._locs(item.children):
                    if loc == box:
                        self.error("E-map-adjacent", f"box '{box}' cannot be adjacent to itself", tok)
                        continue
                    if loc not in self.boxes[box]:
                        self.boxes[box].append(loc)
                    self.adj[box].add(loc)
                    self.adj[loc].add(box)

    def _area(self, st: Tree) -> None:
        region = str(st.children[0].children[0])
        tok = st.children[1]
        loc = str(tok)
        if loc in self.known:
            self.error("E-map-duplicate", f"area '{loc}' is declared twice", tok)
            return
        self.locations.append(loc)
        self.known.add(loc)
        self.adj[loc] = set()
        if region in ("land", "sea"):
            self._set_attr(loc, "region", region, tok)
        self._name_and_block(st.children[2:], [loc], tok)

    # ------------------------------------------------------------------ location references
    def _hex(self, tok: Token) -> tuple[int, int] | None:
        g = self.grid
        try:
            col, row = g.parse_id(str(tok))
        except ValueError:
            example = g.hex_id(g.first_col, g.first_row)
            self.error("E-map-bad-id", f"'{tok}' is not a hex id of this map", tok,
                       f"ids have {g.col_digits + g.row_digits} digits ({g.id_format}), e.g. {example}")
            return None
        return col, row

    def _hex_loc(self, tok: Token, col: int, row: int) -> str | None:
        loc = self.by_coords.get((col, row))
        if loc is None:
            g = self.grid
            if g.contains(col, row):
                self.error("E-map-unknown-location", f"hex {tok} is on no sheet of this map", tok,
                           "sheets: " + ", ".join(f"{s.name} (columns {s.first_col}..{s.last_col}, rows "
                                                  f"{s.first_row}..{s.last_row})" for s in self.sheets))
            else:
                self.error("E-map-unknown-location", f"hex {tok} is outside the map", tok,
                           f"the map has columns {g.first_col}..{g.last_col} and rows {g.first_row}..{g.last_row}")
        return loc

    def _loc(self, tok: Token) -> str | None:
        """A single location id, validated; None (after reporting) if unknown."""
        if self.kind == "hex" and str(tok) in self.boxes:
            return str(tok)
        if self.kind == "hex" and any(ch.isalpha() for ch in str(tok)):
            self.error("E-map-unknown-location", f"no hex or box '{tok}' on this map", tok,
                       did_you_mean(str(tok), self.boxes) or f"declare it with `box {tok}`, or write a hex id")
            return None
        if self.kind == "hex":
            h = self._hex(tok)
            return None if h is None else self._hex_loc(tok, *h)
        loc = str(tok)
        if loc not in self.known:
            self.error("E-map-unknown-location", f"unknown area '{loc}'", tok,
                       did_you_mean(loc, self.known) or "declare it with `land`, `sea` or `area`")
            return None
        return loc

    def _locs(self, items: list[Tree]) -> list[tuple[str, Token]]:
        """Expand loc_one / loc_line / loc_rect items into (location, token for errors)."""
        out: list[tuple[str, Token]] = []
        for item in items:
            if item.data == "loc_one":
                loc = self._loc(item.children[0])
                if loc is not None:
                    out.append((loc, item.children[0]))
                continue
            a_tok, b_tok = item.children
            if self.kind != "hex":
                self.error("E-map-range", "ranges of ids are only for hex maps", item)
                continue
            if str(a_tok) in self.boxes or str(b_tok) in self.boxes:
                self.error("E-map-range", "a box has no row or column, so it cannot start or end a range", item,
                           "list boxes one by one")
                continue
            a, b = self._hex(a_tok), self._hex(b_tok)
            if a is None or b is None:
                continue
            if item.data == "loc_line":
                if a[0] == b[0]:
                    cells = [(a[0], r) for r in range(min(a[1], b[1]), max(a[1], b[1]) + 1)]
                elif a[1] == b[1]:
                    cells = [(c, a[1]) for c in range(min(a[0], b[0]), max(a[0], b[0]) + 1)]
                else:
                    self.error("E-map-range", f"{a_tok}-{b_tok} is neither one column nor one row", item,
                               f"write {a_tok}..{b_tok} for the rectangle between them")
                    continue
            else:
                cells = [(c, r) for c in range(min(a[0], b[0]), max(a[0], b[0]) + 1)
                         for r in range(min(a[1], b[1]), max(a[1], b[1]) + 1)]
            missing = [h for h in cells if h not in self.by_coords]
            if missing:
                g = self.grid
                self.error("E-map-unknown-location", f"range {a_tok}{'-' if item.data == 'loc_line' else '..'}"
                           f"{b_tok} includes hexes that are not on the map "
                           f"({', '.join(g.hex_id(*h) for h in missing[:3])}"
                           f"{', ...' if len(missing) > 3 else ''})", item)
                continue
            out.extend((self.by_coords[h], a_tok) for h in cells)
        return out

    # ------------------------------------------------------------------ statements
    def _terrain(self, st: Tree) -> None:
        name = str(st.children[0])
        for loc, tok in self._locs(st.children[1:]):
            prev = self.terrain.get(loc)
            if prev is not None and prev[0] != name:
                self.error("E-map-conflict", f"{loc} already has terrain '{prev[0]}' (line {prev[1]})", tok)
                continue
            self.terrain[loc] = (name, tok.line)

    def _feature(self, st: Tree) -> None:
        name_tok = st.children[0]
        if not self._feature_name_ok(name_tok):
            return
        for loc, _ in self._locs(st.children[1:]):
            self.features.setdefault(loc, set()).add(str(name_tok))

    def _feature_name_ok(self, tok: Token) -> bool:
        if str(tok) in HEX_EDGE_FEATURES:
            self.error("E-map-reserved", f"'{tok}' is added automatically to hexes on the map edge", tok)
            return False
        return True

    def _edge(self, st: Tree) -> None:
        name_tok = st.children[0]
        if str(name_tok) == WRAP_EDGE_FEATURE:
            self.error("E-map-reserved", "the edge feature 'wrap' is added automatically to connections "
                       "across an east-west seam", name_tok)
            return
        for item in st.children[1:]:
            if item.data == "edge_pair":
                a_tok, b_tok = item.children[0], item.children[1]
                a, b = self._loc(a_tok), self._loc(b_tok)
                if a is None or b is None:
                    continue
                if not self._adjacent_or_error(a, b, self.span_between(a_tok, b_tok)):
                    continue
                self._add_edge(a, b, str(name_tok))
                if len(item.children) > 2:
                    self._edge_block(a, b, item.children[2])
            else:
                for a, b in self._seam(item):
                    self._add_edge(a, b, str(name_tok))

    def _adjacent_or_error(self, a: str, b: str, node: Span) -> bool:
        if a == b:
            self.error("E-map-not-adjacent", f"an edge needs two different locations, not {a}/{b}", node)
            return False
        if b not in self.adj.get(a, ()):
            if self.kind == "hex":
                self.error("E-map-not-adjacent", f"hexes {a} and {b} are not adjacent, so they share no hexside",
                           node)
            else:
                self.error("E-map-not-adjacent", f"areas {a} and {b} are not adjacent", node,
                           f"declare the connection with `adjacent {a}: {b}`")
            return False
        return True

    def _add_edge(self, a: str, b: str, feature: str) -> None:
        self.edges.setdefault(self._key(a, b), set()).add(feature)

    def _edge_block(self, a: str, b: str, block: Tree) -> None:
        key = self._key(a, b)
        current = self.edge_attrs.setdefault(key, {})
        for entry in block.children:
            key_tok = entry.children[0]
            if entry.data == "attr_flag":
                self.error("E-map-attr", f"'{key_tok}' needs a value here: edge blocks hold `key: value` "
                           f"attributes (add more features with another `edge` statement)", key_tok)
                continue
            value = self._value(entry.children[1])
            k = str(key_tok)
            if k in current and current[k] != value:
                self.error("E-map-conflict", f"attribute '{k}' of edge {a}/{b} is already {current[k]!r}",
                           key_tok)
                continue
            current[k] = value

    def _seam(self, item: Tree) -> list[tuple[str, str]]:
        """`cols 6/7 rows 1..5`: every hexside between a hex of column 6 (rows 1..5) and column 7."""
        g = self.grid
        if self.kind != "hex":
            self.error("E-map-seam", "column/row seams are only for hex maps", item)
            return []
        is_cols = item.data == "col_seam"
        if is_cols != (g.orientation == "flat"):
            self.error("E-map-seam", f"a {'column' if is_cols else 'row'} seam is not a line of hexsides on a "
                       f"{g.orientation}-top grid", item,
                       f"use `{'rows A/B cols' if is_cols else 'cols A/B rows'} C..D` or list the hexsides")
            return []
        a, b = int(item.children[0]), int(item.children[1])
        span = self._range(item.children[2])
        if span is None:
            return []
        # Columns across the east-west wrap seam (last/first) are next to each other too.
        across_wrap = self.wrap and is_cols and {a, b} == {g.first_col, g.last_col}
        if abs(a - b) != 1 and not across_wrap:
            self.error("E-map-seam", f"{'columns' if is_cols else 'rows'} {a} and {b} are not next to each other",
                       item)
            return []
        pairs: list[tuple[str, str]] = []
        for k in range(span[0], span[1] + 1):
            h = (a, k) if is_cols else (k, a)
            loc = self.by_coords.get(h)
            if loc is None:
                self.error("E-map-unknown-location", f"the seam reaches column {h[0]} row {h[1]}, "
                           f"which is not on the map", item)
                return []
            # self.adj includes wrap-around neighbours, so a seam continues across the wrap.
            for n in sorted(self.adj[loc]):
                if n in self.coords and self.coords[n][0 if is_cols else 1] == b:
                    pairs.append((loc, n))
        return pairs

    def _path(self, st: Tree) -> None:
        name_tok = st.children[0]
        if not self._feature_name_ok(name_tok):
            return
        name = str(name_tok)
        steps: list[tuple[str | None, Token]] = [(self._loc(t), t) for t in st.children[1:]]
        for (a, _), (b, b_tok) in zip(steps, steps[1:]):
            if a is None or b is None:
                continue
            if b not in self.adj.get(a, ()):
                self.error("E-map-path", f"path {name}: {b} is not adjacent to the previous step {a}", b_tok,
                           "each step of a path must be a neighbour of the one before")
                continue
            self._add_edge(a, b, name)
        for loc, _ in steps:
            if loc is not None:
                self.features.setdefault(loc, set()).add(name)

    def _location(self, st: Tree) -> None:
        items = [c for c in st.children if isinstance(c, Tree) and c.data.startswith("loc_")]
        rest = [c for c in st.children if not (isinstance(c, Tree) and c.data.startswith("loc_"))]
        locs = self._locs(items)
        self._name_and_block(rest, [loc for loc, _ in locs], items[0])

    def _name_and_block(self, parts: list, locs: list[str], where: Tree | Token) -> None:
        for part in parts:
            if isinstance(part, Token):  # the display name
                if len(locs) > 1:
                    self.error("E-map-name", "a name can only be given to a single location", part)
                    continue
                for loc in locs:
                    self._set_attr(loc, "name", self._string(part), part)
            else:  # attr_block
                for entry in part.children:
                    key_tok = entry.children[0]
                    if entry.data == "attr_flag":
                        if not self._feature_name_ok(key_tok):
                            continue
                        for loc in locs:
                            self.features.setdefault(loc, set()).add(str(key_tok))
                    else:
                        value = self._value(entry.children[1])
                        for loc in locs:
                            self._set_attr(loc, str(key_tok), value, key_tok)

    def _set_attr(self, loc: str, key: str, value: AttrValue, tok: Token) -> None:
        current = self.attrs.setdefault(loc, {})
        if key in current and current[key] != value:
            first = self.attr_spans[(loc, key)]
            self.error("E-map-conflict", f"attribute '{key}' of {loc} is already {current[key]!r} "
                       f"(line {first.line})", tok)
            return
        current[key] = value
        self.attr_spans.setdefault((loc, key), self.span(tok))

    def _value(self, node: Tree) -> AttrValue:
        if node.data == "int_value":
            return int(node.children[0])
        if node.data == "string_value":
            return self._string(node.children[0])
        if node.data == "name_value":
            return str(node.children[0])
        return node.data == "true_value"

    def _check_display_names(self) -> None:
        seen: dict[str, str] = {}
        for loc in self.locations:
            name = self.attrs.get(loc, {}).get("name")
            if not isinstance(name, str):
                continue
            if name in seen:
                self.diags.error("E-map-duplicate", f"{loc} and {seen[name]} are both named '{name}'",
                                 self.attr_spans[(loc, "name")], "location names must be unique")
            else:
                seen[name] = loc

    # ------------------------------------------------------------------ area adjacency
    def _adjacency(self, statements: list[Tree], wraps: list[Tree]) -> None:
        listed: dict[str, dict[str, Token]] = {}  # area -> {neighbour: token in its own line}
        owner_line: dict[str, int] = {}
        for st in statements:
            owner_tok = st.children[0]
            owner = self._loc(owner_tok)
            if owner is None:
                continue
            owner_line.setdefault(owner, owner_tok.line)
            mine = listed.setdefault(owner, {})
            for tok in st.children[1:]:
                other = self._loc(tok)
                if other is None:
                    continue
                if other == owner:
                    self.error("E-map-adjacent", f"area '{owner}' cannot be adjacent to itself", tok)
                    continue
                mine[other] = tok
                self.adj[owner].add(other)
                self.adj[other].add(owner)
        for st in wraps:
            for pair in st.children:
                a, b = self._loc(pair.children[0]), self._loc(pair.children[1])
                if a is None or b is None:
                    continue
                if a == b:
                    self.error("E-map-adjacent", f"area '{a}' cannot wrap to itself", pair)
                    continue
                self.wrap_pairs.append((a, b))
                self.adj[a].add(b)
                self.adj[b].add(a)
        # Adjacency is symmetric, so one side is enough. But when both areas have their own
        # `adjacent` line, the designer is transcribing complete neighbour lists: a pair listed
        # on one side only is then almost certainly a typo or an omission.
        wrapped = {frozenset(p) for p in self.wrap_pairs}
        for a, mine in listed.items():
            for b, tok in mine.items():
                if b in listed and a not in listed[b] and frozenset((a, b)) not in wrapped:
                    self.error("E-map-asymmetric",
                               f"'{a}' lists '{b}' as adjacent, but the adjacent line of '{b}' "
                               f"(line {owner_line[b]}) does not list '{a}'", tok,
                               f"add {a} to `adjacent {b}:` or remove {b} here")
