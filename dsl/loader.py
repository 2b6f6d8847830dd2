"""Load a game folder: the entry file, its includes, and overlay files, merged into a GameDef.

Layout of a game folder (`games/NAME/`):
  game.wcx        the entry file; `include "x.wcx"` pulls in the others, in order
  overlay.wcx     optional: loaded last if present, for a user's own published values
  *.wcmap         maps, named by the game's `map:` property
  tests/*.wcx     rule tests (`test` blocks, test boards, test-only units...), loaded only with
                  `tests=True` (`warcodex test`): never part of the game a player loads, its
                  exports or its fingerprint (docs/testing-rules.md)

A game reads only files inside its own folder (and the folders of the overlays the user names):
an `include` or a `map:` that resolves elsewhere, symbolic links followed, is refused unless the
user names that folder as an include root (`warcodex --include-root DIR ...`). Files are read
through `warcodex.inputs` (regular files only, bounded size, UTF-8 located).

Names share one namespace. Declaring a name twice is an error, unless the later declaration is
written `override ...`: then the parts it gives replace the earlier ones (properties by key, table
rows by key, provenance), so a user can replace a provisional CRT grid by the published one in a
single file without touching any rule file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from warcodex import inputs
from warcodex.dsl import ast
from warcodex.dsl import cache as parse_cache
from warcodex.dsl.diagnostics import DiagnosticError, Diagnostics, Span, input_diagnostic, remember_source
from warcodex.dsl.model import GameDef
from warcodex.dsl.parser import parse_text

ENTRY_FILE = "game.wcx"
OVERLAY_FILE = "overlay.wcx"
TESTS_DIR = "tests"


def test_files(root: Path) -> list[Path]:
    """The rule-test files of a game folder: tests/*.wcx, in name order."""
    folder = Path(root) / TESTS_DIR
    return sorted(folder.glob("*.wcx")) if folder.is_dir() else []


def in_tests_folder(file: str | Path, root: Path) -> bool:
    """True for a file under the game's tests/ folder (a test file, or one a test file includes)."""
    try:
        return Path(file).resolve().is_relative_to((Path(root) / TESTS_DIR).resolve())
    except (OSError, ValueError):
        return False




def fingerprint(sources: dict[str, str], root: Path) -> str:
    """A hash of every rules file's text: saves and logs record it to refuse mismatching rules."""
    digest = hashlib.sha256()
    for path in sorted(sources):
        try:
            name = str(Path(path).resolve().relative_to(root.resolve()))
        except ValueError:
            name = Path(path).name
        digest.update(name.encode() + b"\0" + sources[path].encode("utf-8") + b"\0")
    return digest.hexdigest()[:16]


def find_entry(path: Path) -> Path:
    return path / ENTRY_FILE if path.is_dir() else path


def allowed_roots(path: str | Path, overlays=(), include_roots=()) -> tuple[Path, ...]:
    """The folders a game may read: its own, each overlay's, and the roots the user names."""
    root = Path(path)
    resolved = []
    for folder in [root if root.is_dir() else root.parent, *include_roots]:
        try:
            resolved.append(inputs.resolve(folder))
        except inputs.InputError:
            continue
    for overlay in overlays:  # named by the user: where it really is may be read
        try:
            resolved.append(inputs.resolve(overlay).parent)
        except inputs.InputError:
            continue
    return tuple(dict.fromkeys(resolved))


def _read_file(file: Path) -> str:
    """A rules file from disk, through `warcodex.inputs` (regular files, bounded, UTF-8 located)."""
    return inputs.read_text(file, inputs.MAX_RULES_BYTES, "rules file")


def _parse_cached(text: str, path: str) -> ast.Module:
    module = parse_cache.get(text, path)
    if module is None:
        module = parse_text(text, path)
        parse_cache.put(text, path, module)
    else:
        remember_source(path, text)  # diagnostics can still show the line
    return module


def load_modules(path: str | Path, overlays: list[str | Path] = (), diags: Diagnostics | None = None,
                 sources: dict[str, str] | None = None, read=_read_file, parse=_parse_cached,
                 include_roots=(), tests: bool = False, scenes: list[str | Path] = ()) -> list[ast.Module]:
    """Parse the entry file, its includes (depth first, each once), the rule-test files (with
    `tests`) and overlays, in order.

    `read(path) -> text` and `parse(text, path) -> Module` default to the disk and the parse cache;
    the language server passes its own, to read unsaved editor buffers and keep parse trees. Files
    are read only inside the game's folder, the overlays' folders and `include_roots`."""
    diags = diags if diags is not None else Diagnostics()
    root = Path(path)
    entry = find_entry(root)
    if not entry.exists():
        diags.error("E-no-game", f"no game found: {entry} does not exist",
                    hint=f"a game folder needs a {ENTRY_FILE} entry file")
        raise DiagnosticError(diags.items)
    roots = allowed_roots(path, overlays, include_roots)
    modules: list[ast.Module] = []
    seen: set[Path] = set()

    def visit(file: Path, span: Span | None, stack: tuple[Path, ...]) -> None:
        try:
            resolved = inputs.confine(file, roots, "included file" if span is not None else "rules file")
        except inputs.InputError as exc:
            diags.items.append(input_diagnostic(exc, "E-include", span))
            return
        if resolved in stack:
            diags.error("E-include-cycle", f"include cycle: {' -> '.join(p.name for p in stack + (resolved,))}", span)
            return
        if resolved in seen:
            return
        seen.add(resolved)
        try:
            text = read(file)
        except inputs.InputError as exc:
            diags.items.append(input_diagnostic(exc, "E-include", span))
            return
        except FileNotFoundError:  # a reader of the language server's
            diags.error("E-include", f"included file not found: {file}", span)
            return
        except (OSError, UnicodeDecodeError, ValueError) as exc:  # ValueError: a NUL in the path
            diags.error("E-include", f"cannot read {file!s}: {exc}", span)
            return
        if sources is not None:
            sources[str(file)] = text
        try:
            module = parse(text, str(file))
        except DiagnosticError as exc:
            diags.extend(exc.diagnostics)
            return
        modules.append(module)
        for inc in module.includes:
            visit(file.parent / inc.path, inc.span, stack + (resolved,))

    visit(entry, None, ())
    for module in modules:  # the game's own files: a rules file may not pull in the tests
        if root.is_dir() and in_tests_folder(module.path, root):
            diags.error("E-include", f"the rules include {module.path}, a file of the {TESTS_DIR}/ folder",
                        Span(module.path, 1, 1),
                        hint=f"{TESTS_DIR}/ is loaded only by `warcodex test`; move rules out of it")
    if tests and root.is_dir():
        for file in test_files(root):
            visit(file, None, ())
    for scene in scenes:  # a position for `warcodex odds`: a test block in a file of its own
        visit(Path(scene), None, ())
    extra = list(overlays)
    if root.is_dir() and (root / OVERLAY_FILE).exists():
        extra.insert(0, root / OVERLAY_FILE)
    for overlay in extra:
        visit(Path(overlay), None, ())
    return modules


def load_game(path: str | Path, overlays: list[str | Path] = (), diags: Diagnostics | None = None,
              include_roots=(), tests: bool = False, scenes: list[str | Path] = ()) -> GameDef:
    """Load and merge a game. Syntax and merge errors raise DiagnosticError (all found at once).
    With `tests`, the game's tests/*.wcx files too (their declarations join the game, their
    `test` blocks and boards go to `game.tests` and `game.maps`); the fingerprint is the game's.
    `scenes`: files written like tests, anywhere (the positions `warcodex odds` resolves); they load
    as test files do (with `tests`).

    Semantic checks are the checker's job (`warcodex.dsl.checker.check_game`)."""
    diags = diags if diags is not None else Diagnostics()
    sources: dict[str, str] = {}
    scenes = list(scenes) if tests else []
    include_roots = tuple(include_roots) + tuple(Path(s).resolve().parent for s in scenes)
    modules = load_modules(path, overlays, diags, sources, include_roots=include_roots, tests=tests,
                           scenes=scenes)
    game = build_game(path, modules, sources, diags, overlays, include_roots, tests=tests,
                      scenes={str(s) for s in scenes})
    diags.raise_if_errors()
    game.diagnostics = diags
    return game


def build_game(path: str | Path, modules: list[ast.Module], sources: dict[str, str], diags: Diagnostics,
               overlays=(), include_roots=(), tests: bool = False, scenes: set[str] = frozenset()) -> GameDef:
    """Merge parsed modules into a GameDef, reporting merge errors into `diags` (never raising).
    `test` blocks and test boards are accepted only from the tests/ folder, when `tests`.

    `override` declarations change the declarations they override in place."""
    root = Path(path)
    game = GameDef(root=root if root.is_dir() else root.parent)
    game.roots = allowed_roots(path, overlays, include_roots)
    game.overlays = tuple(Path(o) for o in overlays)  # what else reads the game (its scenes) reads them too
    game.test_files = {f for f in sources if in_tests_folder(f, game.root) or f in scenes} if tests else set()
    game.fingerprint = fingerprint({k: v for k, v in sources.items() if k not in game.test_files}, game.root)
    for module in modules:
        in_tests = module.path in game.test_files
        for decl in module.decls:
            if isinstance(decl, (ast.Test, ast.MapFragment)) and not in_tests:
                what = "a test" if isinstance(decl, ast.Test) else "a test board (`map` declaration)"
                diags.error("E-test-location", f"{what} in a rules file: tests live in the game's "
                            f"{TESTS_DIR}/ folder", decl.header.span,
                            hint=f"move it to {TESTS_DIR}/NAME.wcx: a player's game never loads the tests")
                continue
            game.add(decl, diags)
    if not game.games and not diags.errors:
        diags.error("E-no-game", "no `game` declaration found", Span(str(find_entry(root)), 1, 1),
                    hint='start the entry file with: game NAME "Title" { ... }')
    return game
