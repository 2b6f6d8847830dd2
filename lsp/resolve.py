"""What a name token denotes, across the files of a game: a declaration, a local, a built-in, a
section... Definitions, references, rename and hover all start here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.dsl import ast, stdlib
from warcodex.dsl.checker import MOVEMENT_NAMES, resolve_code
from warcodex.lsp import names as N
from warcodex.lsp.names import Occurrence
from warcodex.lsp.project import GameProject, ParsedFile

# Declarations whose names a map file uses (`hex 0101 forest`): renaming them renames the map too.
MAP_KINDS = ("terrain", "edge", "feature", "marker")


@dataclass
class Target:
    kind: str                   # decl, local, builtin, constant, event, field, property, section, type, unknown
    name: str
    decls: list[tuple[str, ast.Decl]] = field(default_factory=list)   # (file, declaration), first one first
    binding: tuple[str, Occurrence] | None = None                     # a local's binding


@dataclass
class Location:
    path: str
    line: int
    col: int
    end: int


class GameIndex:
    """Declarations of a game by name, and the sections block's entries by number, with places."""

    def __init__(self, project: GameProject) -> None:
        self.project = project
        self.decls: dict[str, list[tuple[str, ast.Decl]]] = {}
        self.at_span: dict[tuple[str, int, int], ast.Decl] = {}
        self.sections: dict[str, Location] = {}
        self._keys: set[str] | None = None
        for pf in project.parsed_files():
            if pf.module is None:
                continue
            for decl in N.iter_decls(pf.module):
                span = decl.header.span
                if span is None or isinstance(decl, ast.Trigger):
                    continue
                if span.end_line != span.line or span.end_column - span.column != len(decl.name):
                    continue
                self.decls.setdefault(decl.name, []).append((pf.path, decl))
                self.at_span[(pf.path, span.line - 1, span.column - 1)] = decl
            for occ in pf.names.occurrences if pf.names else ():
                if occ.role == N.SECTION:
                    self.sections.setdefault(occ.name, Location(pf.path, occ.line, occ.col, occ.end))
        for entries in self.decls.values():
            entries.sort(key=lambda e: e[1].override)  # the original before its overrides

    @property
    def game(self):
        return self.project.game

    def resolve(self, pf: ParsedFile, occ: Occurrence) -> Target:
        names = pf.names
        if occ.role in (N.CITATION, N.SECTION):
            return Target("section", occ.name)
        if occ.role == N.EVENT:
            return Target("event", occ.name)
        if occ.role == N.TYPE:
            return Target("decl", occ.name, self.decls[occ.name]) if occ.name in self.decls else Target("type", occ.name)
        if occ.role == N.KEY:
            return Target("property", occ.name)
        if names is not None and names.is_local(occ):
            binding = names.local_binding(occ) or occ
            return Target("local", occ.name, binding=(pf.path, binding))
        if occ.role == N.FIELD:
            decls = [d for d in self.decls.get(occ.name, []) if isinstance(d[1], ast.VarDecl)]
            if decls:
                return Target("decl", occ.name, decls)
            return Target("field", occ.name)
        if occ.name in self.decls:
            return Target("decl", occ.name, self.decls[occ.name])
        if occ.rule == "code" and self.game is not None:
            found = resolve_code(self.game, occ.name)
            if found is not None and found[0].name in self.decls:
                return Target("decl", found[0].name, self.decls[found[0].name])
        if occ.name in stdlib.BUILTINS:
            return Target("builtin", occ.name)
        if occ.name in stdlib.CONSTANTS:
            return Target("constant", occ.name)
        if occ.name in MOVEMENT_NAMES:
            return Target("implicit", occ.name)
        if occ.name in self.property_keys():
            return Target("property", occ.name)  # a flag tested with `is`, a property read by name
        return Target("unknown", occ.name)

    def property_keys(self) -> set[str]:
        if self._keys is None:
            self._keys = {o.name for pf in self.project.parsed_files() if pf.names
                          for o in pf.names.occurrences if o.role == N.KEY and o.rule == "prop_key"}
        return self._keys

    def at(self, path: str, line: int, col: int) -> tuple[ParsedFile, Occurrence, Target] | None:
        pf = self.project.files.get(path)
        if pf is None or pf.names is None:
            return None
        occ = pf.names.at(line, col)
        if occ is None:
            return None
        if pf.stale:  # names of the last good text: still right where the text has not moved
            lines = pf.text.split("\n")
            token = ("§" if occ.role in (N.CITATION, N.SECTION) else "") + occ.name
            if occ.line >= len(lines) or lines[occ.line][occ.col:occ.end] != token:
                return None
        return pf, occ, self.resolve(pf, occ)

    def definitions(self, target: Target) -> list[Location]:
        if target.kind == "decl":
            return [_decl_location(path, d) for path, d in target.decls]
        if target.kind == "local" and target.binding:
            path, occ = target.binding
            return [Location(path, occ.line, occ.col, occ.end)]
        if target.kind == "section" and target.name in self.sections:
            return [self.sections[target.name]]
        return []

    def references(self, target: Target, include_declaration: bool = True, exact: bool = False) -> list[Location]:
        """Every occurrence that denotes the same thing, in every file of the game. With `exact`,
        only those spelt as the name (a table cell `DR2` denotes result `DR`, but renaming `DR`
        leaves it alone)."""
        out: list[Location] = []
        if target.kind == "local" and target.binding:
            path, binding = target.binding
            pf = self.project.files[path]
            for occ in pf.names.occurrences:
                if occ.name == target.name and occ.scope == binding.scope and pf.names.is_local(occ):
                    if include_declaration or occ != binding:
                        out.append(Location(path, occ.line, occ.col, occ.end))
            return out
        if target.kind not in ("decl", "section", "event"):
            return out
        for pf in self.project.parsed_files():
            if pf.names is None or pf.stale:
                continue
            for occ in pf.names.occurrences:
                if occ.name != target.name and (exact or occ.rule != "code" or target.kind != "decl"):
                    continue
                other = self.resolve(pf, occ)
                if other.kind != target.kind or other.name != target.name:
                    continue
                if not include_declaration and occ.role in (N.DECL, N.SECTION):
                    continue
                out.append(Location(pf.path, occ.line, occ.col, occ.end))
        return out

    def map_references(self, target: Target) -> list[Location]:
        """Uses of a terrain, edge, feature or marker name in the game's map files."""
        if target.kind != "decl" or not any(getattr(d, "kind", None) in MAP_KINDS for _, d in target.decls):
            return []
        from warcodex.lsp.mapwords import word_locations

        out = []
        for path in self.project.map_files():
            out += [Location(path, line, col, end) for line, col, end in word_locations(path, target.name)]
        return out


def _decl_location(path: str, decl: ast.Decl) -> Location:
    s = decl.header.span
    return Location(path, s.line - 1, s.column - 1, s.end_column - 1)
