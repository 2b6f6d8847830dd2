"""`warcodex fmt` on the bundled games: every file is in the canonical layout and formats
idempotently, and formatting a game changes nothing but layout (the checked model, tests
included, is the same before and after)."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

import pytest

from warcodex.dsl.formatter import dump_ast, format_text
from warcodex.dsl.loader import load_game

ROOT = Path(__file__).resolve().parent.parent
GAMES = sorted(p for p in (ROOT / "games").iterdir() if (p / "game.wcx").is_file())
GAME_FILES = sorted(p for p in (ROOT / "games").rglob("*.wcx") if not any(x.startswith(".") for x in p.parts))


@functools.lru_cache(maxsize=None)
def formatted(text: str, path: str) -> str:
    return format_text(text, path)


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT / "games"))


@pytest.mark.parametrize("path", GAME_FILES, ids=_rel)
def test_formatting_a_bundled_file_twice_gives_the_same_text(path: Path) -> None:
    out = formatted(path.read_text(encoding="utf-8"), str(path))
    assert formatted(out, str(path)) == out


def _model(folder: Path) -> list:
    """The merged declarations of a game, tests included, without source positions (formatting
    moves lines). The checker and the engine read nothing else of the rules files."""
    game = load_game(folder, tests=True)
    return [dump_ast(d) for d in game.decls] + [dump_ast(t) for t in game.tests.values()]


@pytest.mark.parametrize("game", GAMES, ids=lambda p: p.name)
def test_formatting_a_bundled_game_changes_nothing_but_layout(game: Path, tmp_path: Path) -> None:
    """The game formatted (in a copy) loads to the same model as the game as it is. Files already
    in the canonical layout are the same files, so a game all in it needs no second load."""
    copy = tmp_path / game.name
    shutil.copytree(game, copy)
    changed = []
    for f in sorted(copy.rglob("*.wcx")):
        text = f.read_text(encoding="utf-8")
        out = formatted(text, str(game / f.relative_to(copy)))
        if out != text:
            f.write_text(out, encoding="utf-8")
            changed.append(f)
    if changed:
        assert _model(copy) == _model(game), f"formatting {[str(f.relative_to(copy)) for f in changed]} changes the game"
    else:
        assert all(f.read_bytes() == (game / f.relative_to(copy)).read_bytes() for f in copy.rglob("*.wcx"))


@pytest.mark.parametrize("path", GAME_FILES, ids=_rel)
def test_bundled_game_file_is_in_the_canonical_layout(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert formatted(text, str(path)) == text, f"run `warcodex fmt {_rel(path)}` (from games/)"
