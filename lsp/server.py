"""`warcodex lsp`: the language server, over stdio, built on pygls (the protocol is lsprotocol's).

Each `.wcx` file belongs to the game folder above it (the nearest folder with a `game.wcx`); the
whole game (its includes and overlay) is checked together, from the editor's unsaved buffers where
a file is open. Edits are checked after a short pause in typing (`DEBOUNCE` seconds); a request
that arrives meanwhile checks first, so it always answers from the current text.
"""

from __future__ import annotations

import asyncio
import gc
import os
import re
from pathlib import Path

from lsprotocol import types as T
from pygls.exceptions import JsonRpcInvalidRequest
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

import warcodex
from warcodex.dsl import ast
from warcodex.dsl.coverage import coverage
from warcodex.dsl.diagnostics import Diagnostic, DiagnosticError, Severity
from warcodex.dsl.formatter import format_text
from warcodex.lsp import names as N
from warcodex.lsp.completion import complete
from warcodex.lsp.describe import (describe_builtin, describe_constant, describe_decl, describe_event,
                                   describe_field, describe_modifier, describe_prop, describe_section)
from warcodex.lsp.facts_hover import FACTS_DELAY, FACTS_ENABLED, FactsCache, build_facts, facts_lines
from warcodex.lsp.keywords import keywords
from warcodex.lsp.outline import document_symbols, section_lenses, workspace_symbols
from warcodex.lsp.project import GameProject, MapCache, ParsedFile, find_game_root, norm, parse_file
from warcodex.lsp.resolve import GameIndex, Location, Target
from warcodex.lsp.tokens import TOKEN_MODIFIERS, TOKEN_TYPES, semantic_tokens

DEBOUNCE = float(os.environ.get("WARCODEX_LSP_DEBOUNCE", "0.15"))  # seconds of quiet typing before a check
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Checker codes that report data, not errors: shown as information
INFORMATION_CODES = ("W-provisional",)


class WarcodexServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("warcodex", getattr(warcodex, "__version__", "0.1.0"),
                         text_document_sync_kind=T.TextDocumentSyncKind.Incremental)
        self.buffers: dict[str, str] = {}           # open documents, by normalized path
        self.maps = MapCache()
        self.projects: dict[str, GameProject] = {}  # by game root
        self.indexes: dict[str, GameIndex] = {}
        self.coverage: dict[str, dict] = {}
        self.loose: dict[str, ParsedFile] = {}      # open files that belong to no game
        self.published: set[str] = set()            # paths with diagnostics shown
        self.shown: dict[str, tuple] = {}           # path -> (version, diagnostics) last published
        self.pending: dict[str, asyncio.Task] = {}
        self.debounce = DEBOUNCE
        self.facts = FactsCache()
        self.facts_jobs: dict[str, asyncio.Task] = {}

    # ------------------------------------------------------------ projects
    def project_of(self, path: str) -> GameProject | None:
        root = find_game_root(path)
        if root is None:
            return None
        key = norm(root)
        if key not in self.projects:
            self.projects[key] = GameProject(key, self.buffers, self.maps)
        return self.projects[key]

    def fresh(self, path: str) -> tuple[GameProject | None, GameIndex | None]:
        """The file's project, checked up to the current text (a pending check runs now)."""
        project = self.project_of(path)
        if project is None:
            return None, None
        task = self.pending.pop(str(project.root), None)
        if task is not None and not task.done():
            task.cancel()
            self.check(project)
        elif project.game is None and not project.order:  # never checked yet
            self.check(project)
        if not project.contains(path):
            return project, None
        return project, self.index_of(project)

    def index_of(self, project: GameProject) -> GameIndex:
        key = str(project.root)
        if key not in self.indexes:
            self.indexes[key] = GameIndex(project)
        return self.indexes[key]

    def schedule(self, path: str) -> None:
        project = self.project_of(path)
        if project is None:
            self.check_loose(path)
            return
        key = str(project.root)
        old = self.pending.pop(key, None)
        if old is not None and not old.done():
            old.cancel()
        self.pending[key] = asyncio.get_running_loop().create_task(self._check_later(project))

    async def _check_later(self, project: GameProject) -> None:
        await asyncio.sleep(self.debounce)
        self.pending.pop(str(project.root), None)
        self.check(project)

    def check(self, project: GameProject) -> None:
        first = project.game is None and not project.order
        found = project.refresh()
        if first:
            settle_memory()
        key = str(project.root)
        self.indexes.pop(key, None)  # rebuilt on the next query (see index_of)
        self.schedule_facts(project)
        self.coverage.pop(key, None)
        paths = set(project.order) | {p for p in self.published if p.startswith(key)}
        for path in paths:
            self.publish(path, found.get(path, []))
        for path in list(self.buffers):  # open files of this folder that the game does not load
            if path.startswith(key) and path not in project.order:
                self.check_loose(path)

    def schedule_facts(self, project: GameProject) -> None:
        """Build the game's facts in a worker thread once typing pauses (hover shows them)."""
        if not FACTS_ENABLED or project.game is None or any(project.diagnostics_errors()):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not serving (tests call the server's methods directly)
            return
        key = str(project.root)
        old = self.facts_jobs.pop(key, None)
        if old is not None and not old.done():
            old.cancel()
        self.facts_jobs[key] = loop.create_task(self._facts_later(key, project.game))

    async def _facts_later(self, key: str, game) -> None:
        await asyncio.sleep(FACTS_DELAY)
        facts = await asyncio.get_running_loop().run_in_executor(None, build_facts, game)
        self.facts.store(key, game, facts)

    def check_now(self, path: str) -> None:
        """Check the file's game (or the file alone, when it belongs to none) without waiting."""
        project = self.project_of(path)
        if project is None:
            self.check_loose(path)
        else:
            self.check(project)

    def check_loose(self, path: str) -> None:
        if path not in self.buffers:
            self.loose.pop(path, None)
            self.publish(path, [])
            return
        pf = self.loose[path] = parse_file(path, self.buffers[path], self.loose.get(path))
        self.publish(path, pf.errors)

    def coverage_of(self, project: GameProject) -> dict:
        key = str(project.root)
        if key not in self.coverage:
            self.coverage[key] = {c.number: c for c in coverage(project.game)} if project.game else {}
        return self.coverage[key]

    # ------------------------------------------------------------ positions
    def lines(self, path: str) -> list[str]:
        text = self.buffers.get(path)
        if text is None:
            try:
                text = Path(path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
        return text.split("\n")

    def to_range(self, path: str, line: int, col: int, end_line: int, end_col: int) -> T.Range:
        from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

        codec = self.workspace.position_codec
        rng = ServerTextRange(ServerTextPosition(line, col), ServerTextPosition(end_line, end_col))
        return codec.range_to_client_units(self.lines(path), rng)

    def location(self, loc: Location) -> T.Location:
        return T.Location(uri=from_fs_path(loc.path), range=self.to_range(loc.path, loc.line, loc.col, loc.line, loc.end))

    def position(self, uri: str, pos: T.Position) -> tuple[str, int, int]:
        path = norm(to_fs_path(uri))
        server_pos = self.workspace.position_codec.position_from_client_units(self.lines(path), pos)
        return path, server_pos.line, server_pos.character

    # ------------------------------------------------------------ diagnostics
    def publish(self, path: str, diags: list[Diagnostic]) -> None:
        version = self.version_of(path)
        if self.shown.get(path) == (version, diags):
            return  # the editor shows these already (most files, after an edit of another)
        self.shown[path] = (version, list(diags))
        items = [self.lsp_diagnostic(path, d) for d in diags]
        if items:
            self.published.add(path)
        elif path not in self.published and path not in self.buffers:
            return  # nothing shown, nothing to show, and not open: stay quiet
        else:
            self.published.discard(path)
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=from_fs_path(path), diagnostics=items,
                                                                          version=version))

    def version_of(self, path: str) -> int | None:
        """The version of an open document's text (the diagnostics are about it), else None."""
        if path not in self.buffers:
            return None
        try:
            return self.workspace.get_text_document(from_fs_path(path)).version
        except Exception:  # noqa: BLE001 - a document pygls does not track: no version
            return None

    def lsp_diagnostic(self, path: str, d: Diagnostic) -> T.Diagnostic:
        s = d.span
        line, col = s.line - 1, s.column - 1
        end_line = (s.end_line or s.line) - 1
        end_col = (s.end_column - 1) if s.end_column else col + 1
        if (end_line, end_col) <= (line, col):
            end_line, end_col = line, col + 1
        if d.code in INFORMATION_CODES:
            severity = T.DiagnosticSeverity.Information
        elif d.severity is Severity.ERROR:
            severity = T.DiagnosticSeverity.Error
        elif d.severity is Severity.WARNING:
            severity = T.DiagnosticSeverity.Warning
        else:
            severity = T.DiagnosticSeverity.Hint
        message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
        return T.Diagnostic(range=self.to_range(path, line, col, end_line, end_col), message=message,
                            severity=severity, code=d.code, source="warcodex",
                            data={"hint": d.hint} if d.hint else None)

    # ------------------------------------------------------------ queries
    def hit(self, uri: str, pos: T.Position):
        path, line, col = self.position(uri, pos)
        project, index = self.fresh(path)
        if index is None:
            return path, line, col, project, None, None
        return path, line, col, project, index, index.at(path, line, col)


def settle_memory() -> None:
    """After a game's first check: move what exists now (the parsed files, mostly long-lived) out
    of the cyclic garbage collector's sight. Each edit allocates a new parse; without this, the
    collections it triggers re-scan every AST of the game and add up to 200 ms to some edits."""
    gc.collect()
    gc.freeze()


server = WarcodexServer()


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: WarcodexServer, params: T.DidOpenTextDocumentParams) -> None:
    path = norm(to_fs_path(params.text_document.uri))
    ls.buffers[path] = params.text_document.text
    ls.check_now(path)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: WarcodexServer, params: T.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    path = norm(to_fs_path(uri))
    ls.buffers[path] = ls.workspace.get_text_document(uri).source
    ls.schedule(path)


@server.feature(T.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: WarcodexServer, params: T.DidSaveTextDocumentParams) -> None:
    ls.schedule(norm(to_fs_path(params.text_document.uri)))


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: WarcodexServer, params: T.DidCloseTextDocumentParams) -> None:
    path = norm(to_fs_path(params.text_document.uri))
    ls.buffers.pop(path, None)  # the file on disk counts again
    ls.check_now(path)


@server.feature(T.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def watched_files(ls: WarcodexServer, params: T.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = norm(to_fs_path(change.uri))
        for root, project in list(ls.projects.items()):
            if path.startswith(root):
                ls.check(project)


@server.feature(T.TEXT_DOCUMENT_HOVER)
def hover(ls: WarcodexServer, params: T.HoverParams) -> T.Hover | None:
    path, line, col, project, index, hit = ls.hit(params.text_document.uri, params.position)
    if index is None:
        return None
    game = index.game
    if hit is not None:
        pf, occ, target = hit
        text = _describe_target(ls, project, index, target)
        if occ.rule == "prop_key" and pf.module is not None:
            found = _prop_at(pf.module, occ.line, occ.col)
            if found is not None:
                text = describe_prop(*found, game) + ("\n\n---\n\n" + text if text else "")
        if text:
            return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=text),
                           range=ls.to_range(path, occ.line, occ.col, occ.line, occ.end))
    pf = project.files.get(path)
    if pf is None or pf.module is None or pf.stale:
        return None
    found = _modifier_at(pf.module, line, col)
    if found is not None:
        q, m = found
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=describe_modifier(q, m, game)),
                       range=ls.to_range(path, m.span.line - 1, m.span.column - 1, m.span.end_line - 1, m.span.end_column - 1))
    return None


def _describe_target(ls: WarcodexServer, project: GameProject, index: GameIndex, target: Target) -> str | None:
    game = index.game
    if target.kind == "decl":
        path, decl = target.decls[0]
        text = describe_decl(decl, game, path, target.decls[1:])
        known = ls.facts.get(str(project.root))
        if known is not None:
            lines = facts_lines(known.facts, decl)
            if lines and known.game is not game:
                lines[0] = lines[0].rstrip("*:") + " (as of an earlier check)*:"
            if lines:
                text += "\n\n" + "\n\n".join(lines)
        return text
    if target.kind == "section":
        return describe_section(target.name, game, ls.coverage_of(project))
    if target.kind == "builtin":
        return describe_builtin(target.name)
    if target.kind == "constant":
        return describe_constant(target.name)
    if target.kind == "event":
        return describe_event(target.name, game)
    if target.kind in ("field", "property"):
        return describe_field(target.name, game)
    if target.kind == "local" and target.binding:
        bpath, occ = target.binding
        source = ls.lines(bpath)[occ.line].strip() if occ.line < len(ls.lines(bpath)) else ""
        return f"local `{target.name}`, bound at line {occ.line + 1}:\n\n```wcx\n{source}\n```"
    if target.kind == "implicit":
        from warcodex.dsl.checker import MOVEMENT_NAMES

        return f"`{target.name}`: {MOVEMENT_NAMES[target.name]}, bound by the engine in a movement mode's properties"
    if target.kind == "type":
        return f"type `{target.name}`"
    return None


def _prop_at(module: ast.Module, line: int, col: int):
    """The property whose key is at (line, col), with its declaration."""
    for decl in N.iter_decls(module):
        props = list(getattr(decl, "props", []) or []) + [p for sv in getattr(decl, "step_values", []) for p in sv.props]
        for p in props:
            if p.span is not None and (p.span.line - 1, p.span.column - 1) == (line, col):
                return decl, p
    return None


def _modifier_at(module: ast.Module, line: int, col: int):
    for decl in N.iter_decls(module):
        if isinstance(decl, ast.Quantity):
            for m in decl.modifiers:
                s = m.span
                if s is not None and (s.line - 1, s.column - 1) <= (line, col) <= (s.end_line - 1, s.end_column - 1):
                    return decl, m
    return None


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
def definition(ls: WarcodexServer, params: T.DefinitionParams) -> list[T.Location] | None:
    path, line, col, project, index, hit = ls.hit(params.text_document.uri, params.position)
    if hit is None:
        return None
    pf, occ, target = hit
    locations = index.definitions(target)
    # on a declaration's own name: the other declarations (the original, its overrides)
    others = [loc for loc in locations if not (loc.path == path and loc.line == occ.line and loc.col == occ.col)]
    return [ls.location(loc) for loc in (others or locations)] or None


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
def references(ls: WarcodexServer, params: T.ReferenceParams) -> list[T.Location] | None:
    path, line, col, project, index, hit = ls.hit(params.text_document.uri, params.position)
    if hit is None:
        return None
    pf, occ, target = hit
    found = index.references(target, params.context.include_declaration) + index.map_references(target)
    return [ls.location(loc) for loc in found]


@server.feature(T.TEXT_DOCUMENT_PREPARE_RENAME)
def prepare_rename(ls: WarcodexServer, params: T.PrepareRenameParams):
    path, line, col, project, index, hit = ls.hit(params.text_document.uri, params.position)
    if hit is None or hit[2].kind not in ("decl", "local"):
        return None
    occ = hit[1]
    return ls.to_range(path, occ.line, occ.col, occ.line, occ.end)


@server.feature(T.TEXT_DOCUMENT_RENAME)
def rename(ls: WarcodexServer, params: T.RenameParams) -> T.WorkspaceEdit | None:
    path, line, col, project, index, hit = ls.hit(params.text_document.uri, params.position)
    if hit is None or hit[2].kind not in ("decl", "local"):
        raise JsonRpcInvalidRequest("only a declared name or a local can be renamed")
    pf, occ, target = hit
    new = params.new_name
    if not _IDENTIFIER.fullmatch(new) or new in keywords():
        raise JsonRpcInvalidRequest(f"'{new}' is not a name the rules language accepts (a letter or _, then "
                                    "letters, digits, _; not a keyword)")
    broken = [Path(p.path).name for p in project.parsed_files() if p.stale]
    if broken:
        raise JsonRpcInvalidRequest("fix the syntax errors first, in " + ", ".join(broken))
    if target.kind == "decl" and new in index.decls:
        raise JsonRpcInvalidRequest(f"'{new}' is already declared")
    found = index.references(target, True, exact=True) + index.map_references(target)
    changes: dict[str, list[T.TextEdit]] = {}
    for loc in found:
        changes.setdefault(from_fs_path(loc.path), []).append(
            T.TextEdit(range=ls.location(loc).range, new_text=new))
    return T.WorkspaceEdit(changes=changes)


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["§", "."]))
def completion(ls: WarcodexServer, params: T.CompletionParams) -> T.CompletionList:
    path, line, col = ls.position(params.text_document.uri, params.position)
    project, index = ls.fresh(path)
    pf = project.files.get(path) if project is not None else ls.loose.get(path)
    lines = ls.lines(path)
    line_text = lines[line] if line < len(lines) else ""
    items = complete(index, pf, line_text, line, col)
    for item in items:  # text edits are computed in code points: convert them for the client
        if item.text_edit is not None:
            r = item.text_edit.range
            item.text_edit.range = ls.to_range(path, r.start.line, r.start.character, r.end.line, r.end.character)
    return T.CompletionList(is_incomplete=False, items=items)


@server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(ls: WarcodexServer, params: T.DocumentSymbolParams) -> list[T.DocumentSymbol] | None:
    path = norm(to_fs_path(params.text_document.uri))
    project, index = ls.fresh(path)
    pf = project.files.get(path) if project is not None else ls.loose.get(path)
    if pf is None or pf.module is None:
        return None
    sections = project.game.sections if project is not None and project.game is not None else {}
    return document_symbols(pf.module, sections)


@server.feature(T.WORKSPACE_SYMBOL)
def workspace_symbol(ls: WarcodexServer, params: T.WorkspaceSymbolParams) -> list[T.WorkspaceSymbol]:
    files = []
    for project in ls.projects.values():
        files += [(pf.path, pf.module) for pf in project.parsed_files() if pf.module is not None]
    return workspace_symbols(files, params.query, from_fs_path)


@server.feature(T.TEXT_DOCUMENT_FORMATTING)
def formatting(ls: WarcodexServer, params: T.DocumentFormattingParams) -> list[T.TextEdit] | None:
    path = norm(to_fs_path(params.text_document.uri))
    text = ls.buffers.get(path)
    if text is None:
        return None
    try:
        out = format_text(text, path)
    except DiagnosticError:
        return None  # a file that does not parse is left as it is; its diagnostics say why
    if out == text:
        return []
    lines = text.split("\n")
    end = ls.to_range(path, len(lines) - 1, len(lines[-1]), len(lines) - 1, len(lines[-1])).end
    return [T.TextEdit(range=T.Range(T.Position(0, 0), end), new_text=out)]


@server.feature(T.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL,
                T.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS))
def tokens_full(ls: WarcodexServer, params: T.SemanticTokensParams) -> T.SemanticTokens:
    path = norm(to_fs_path(params.text_document.uri))
    project, index = ls.fresh(path)
    pf = project.files.get(path) if project is not None and index is not None else None
    if pf is None:
        return T.SemanticTokens(data=[])
    lines = ls.lines(path)
    codec = ls.workspace.position_codec

    def to_client(line: int, col: int) -> int:
        return codec.client_num_units(lines[line][:col]) if line < len(lines) else col

    return T.SemanticTokens(data=semantic_tokens(index, pf, to_client))


@server.feature(T.TEXT_DOCUMENT_CODE_LENS)
def code_lens(ls: WarcodexServer, params: T.CodeLensParams) -> list[T.CodeLens] | None:
    path = norm(to_fs_path(params.text_document.uri))
    project, index = ls.fresh(path)
    if index is None or project.game is None:
        return None
    pf = project.files.get(path)
    if pf is None or pf.module is None or pf.stale:
        return None
    return section_lenses(pf.module, ls.coverage_of(project), project.test_counts())


def main() -> None:
    server.start_io()
