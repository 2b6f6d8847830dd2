"""A game folder as the language server sees it: its files (editor buffers first, then the disk),
their parses, the merged game and the checker's diagnostics, kept up to date incrementally.

An edit re-parses only the file that changed (every other file keeps its parse, keyed by its
text), re-merges the declarations (cheap) and re-runs the checker with the map's board cached by
the map file's size and time (loading a large map is most of a cold check). A file with a syntax
error keeps its last good parse for the game model, so the other files keep their semantic
diagnostics while it is being typed; that file shows its syntax error only.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field
from pathlib import Path

from lark import Tree

from warcodex.dsl import ast
from warcodex.dsl.checker import check_game
from warcodex.dsl.diagnostics import Diagnostic, DiagnosticError, Diagnostics
from warcodex.dsl.loader import ENTRY_FILE, build_game, load_modules
from warcodex.dsl.model import GameDef
from warcodex.dsl.parser import parse_with_tree
from warcodex.lsp.names import FileNames, index_file


TESTS_FOLDER = "tests"           # a game's rule tests (docs/testing-rules.md once they land)
TEST_KINDS = ("test", "example")  # the declarations that are rule tests


def norm(path: str | Path) -> str:
    return os.path.normpath(os.path.abspath(str(path)))


@dataclass
class ParsedFile:
    path: str
    text: str
    module: ast.Module | None = None   # the last good parse (stale when `errors`)
    tree: Tree | None = None
    names: FileNames | None = None
    errors: list[Diagnostic] = field(default_factory=list)  # syntax errors of `text`
    good_text: str | None = None       # the text `module` was parsed from

    @property
    def stale(self) -> bool:
        return bool(self.errors)


def parse_file(path: str, text: str, previous: ParsedFile | None = None) -> ParsedFile:
    """Parse one file; on a syntax error keep the previous good parse, if any."""
    try:
        tree, module = parse_with_tree(text, path)
    except DiagnosticError as exc:
        out = ParsedFile(path, text, errors=list(exc.diagnostics))
        if previous is not None and previous.module is not None:
            out.module, out.tree, out.names, out.good_text = previous.module, previous.tree, previous.names, previous.good_text
        return out
    return ParsedFile(path, text, module, tree, index_file(tree, module), good_text=text)


def find_game_root(file: str | Path) -> Path | None:
    """The nearest folder at or above the file's that has a game.wcx entry file."""
    here = Path(norm(file)).parent
    for folder in (here, *here.parents):
        if (folder / ENTRY_FILE).is_file():
            return folder
    return None


class MapCache:
    """Boards loaded from map files, reused while the file's size and modification time stay."""

    def __init__(self) -> None:
        self._boards: dict[str, tuple[tuple, object, list, list]] = {}

    def load(self, path, warnings: Diagnostics):
        from warcodex.dsl.mapfile import load_map

        key = norm(path)
        try:
            st = os.stat(key)
            stamp = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        hit = self._boards.get(key)
        if hit is None or hit[0] != stamp or stamp is None:
            found = Diagnostics()
            try:
                board, errors = load_map(Path(path), found), []
            except DiagnosticError as exc:
                board, errors = None, list(exc.diagnostics)
            hit = self._boards[key] = (stamp, board, found.items, errors)
        _, board, warned, errors = hit
        warnings.extend(warned)
        if errors:
            raise DiagnosticError(list(errors))
        return board


class GameProject:
    """One game folder: `refresh()` re-checks it from the current texts."""

    def __init__(self, root: str | Path, buffers: dict[str, str] | None = None, maps: MapCache | None = None) -> None:
        self.root = Path(norm(root))
        self.buffers = buffers if buffers is not None else {}  # open editor buffers, by normalized path
        self.maps = maps or MapCache()
        self.files: dict[str, ParsedFile] = {}   # every file the game loads, by normalized path
        self.order: list[str] = []               # load order
        self.game: GameDef | None = None
        self.diagnostics: dict[str, list[Diagnostic]] = {}
        self.load_errors: list[Diagnostic] = []
        self.node_cache: dict = {}  # the checker's node lists of unchanged declarations

    # ------------------------------------------------------------ texts and parses
    def text_of(self, path: str | Path) -> str:
        key = norm(path)
        if key in self.buffers:
            return self.buffers[key]
        return Path(key).read_text(encoding="utf-8")

    def parsed(self, path: str | Path) -> ParsedFile:
        """The parse of a file's current text (re-parsed only when the text changed)."""
        key = norm(path)
        text = self.text_of(key)
        old = self.files.get(key)
        if old is not None and old.text == text:
            return old
        self.files[key] = parse_file(key, text, old)
        return self.files[key]

    def _parse_for_loader(self, text: str, path: str) -> ast.Module:
        pf = self.parsed(path)
        if pf.module is None:
            raise DiagnosticError(list(pf.errors))
        self.order.append(pf.path)
        return pf.module

    # ------------------------------------------------------------ checking
    def refresh(self) -> dict[str, list[Diagnostic]]:
        """Re-merge and re-check the game; returns the diagnostics by normalized file path."""
        self.order = []
        diags = Diagnostics()
        sources: dict[str, str] = {}
        try:
            modules = load_modules(self.root, (), diags, sources, read=lambda p: self.text_of(p),
                                   parse=self._parse_for_loader)
        except DiagnosticError as exc:  # no entry file
            self.game = None
            self.diagnostics = _by_file(exc.diagnostics)
            return self.diagnostics
        present = set(self.order)
        tests = norm(self.root / TESTS_FOLDER) + os.sep
        self.files = {k: v for k, v in self.files.items() if k in present or k in self.buffers or k.startswith(tests)}
        modules = _fresh_overridden(modules)
        game = build_game(self.root, modules, sources, diags)
        found = list(diags.items)
        if game.games:
            found += check_game(game, map_loader=self.maps.load, node_cache=self.node_cache).items
            live = {id(d) for d in list(game.decls) + list(game.games)}
            self.node_cache = {k: v for k, v in self.node_cache.items() if k in live}
        self.game = game if game.games else None
        stale = {p for p, pf in self.files.items() if pf.stale}
        # a file being typed with a syntax error shows that error only: its other diagnostics
        # were computed from its last good text and could point at the wrong places
        found = [d for d in found if d.span is None or norm(d.span.file) not in stale or d.code == "E-syntax"]
        for path in stale:
            found += [d for d in self.files[path].errors if d not in found]
        self.load_errors = [d for d in found if d.span is None]
        self.diagnostics = _by_file(found)
        return self.diagnostics

    def diagnostics_errors(self) -> list[Diagnostic]:
        return [d for ds in self.diagnostics.values() for d in ds if d.severity.value == "error"]

    def test_counts(self) -> dict[str, int] | None:
        """Rule tests by the sections they cite: `test`/`example` declarations in the game's
        tests/*.wcx files (not part of the game a player loads). None when there are none."""
        folder = self.root / TESTS_FOLDER
        files = sorted(folder.glob("*.wcx")) if folder.is_dir() else []
        counts: dict[str, int] = {}
        found = False
        for file in files:
            try:
                pf = self.parsed(file)
            except (OSError, UnicodeDecodeError):
                continue
            for decl in pf.module.decls if pf.module is not None else ():
                if (getattr(decl, "kind", None) or type(decl).__name__.lower()) in TEST_KINDS:
                    found = True
                    for number in decl.header.citations:
                        counts[number] = counts.get(number, 0) + 1
        return counts if found else None

    def map_files(self) -> list[str]:
        """The game's map file (its `map:` property), when it exists."""
        if self.game is None:
            return []
        value = self.game.prop("map")
        if not isinstance(value, ast.Str):
            return []
        path = norm(self.root / value.value)
        return [path] if os.path.isfile(path) else []

    def parsed_files(self) -> list[ParsedFile]:
        return [self.files[p] for p in self.order if p in self.files]

    def contains(self, path: str | Path) -> bool:
        return norm(path) in self.order


def _by_file(items) -> dict[str, list[Diagnostic]]:
    out: dict[str, list[Diagnostic]] = {}
    for d in items:
        if d.span is not None:
            out.setdefault(norm(d.span.file), []).append(d)
    return out


def _fresh_overridden(modules: list[ast.Module]) -> list[ast.Module]:
    """Copies of the declarations that `override`s will change in place (merging writes into the
    original), so the cached parses stay as written; every other declaration is shared."""
    overridden = {d.name for m in modules for d in m.decls if d.override}
    if not overridden:
        return modules

    def fresh(d: ast.Decl) -> ast.Decl:
        return copy.deepcopy(d) if d.name in overridden and not d.override else d

    return [m.model_copy(update={"decls": [fresh(d) for d in m.decls]}) for m in modules]
