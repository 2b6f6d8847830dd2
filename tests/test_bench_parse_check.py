"""The synthetic game of bench/parse_check.py (a game's rules repeated under renamed names) must
check clean, or the bench measures an error report instead of a game ten times the size."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.parse_check import synthetic  # noqa: E402
from warcodex.dsl.checker import check_path  # noqa: E402
from warcodex.dsl.loader import load_game  # noqa: E402


def _errors(folder: Path) -> list[str]:
    game, diags = check_path(folder)
    return [d.render() for d in diags.errors]


def test_synthetic_copy_of_a_bundled_game_checks_clean(tmp_path: Path) -> None:
    # A&A has invariants, which a copy must not repeat (they used to be copied: E-duplicate)
    source = ROOT / "games" / "axis-allies-1941"
    big = synthetic(source, 2, tmp_path / "x2")
    assert _errors(big) == []
    assert len(load_game(big).names) > len(load_game(source).names)


def test_synthetic_copy_keeps_load_order_and_tags(tmp_path: Path) -> None:
    """An `override` in a file named before the one it overrides (but included after it), and a
    function named like the flag it tests (`terrain(h) is rough`): both used to break the copy."""
    game = tmp_path / "g"
    game.mkdir()
    (game / "game.wcx").write_text(
        'include "b_rules.wcx"\ninclude "a_later.wcx"\n\n'
        'game g "G" §1 {}\n\nsections {\n  §1 "One"\n}\n\n'
        'sequence §1 {\n  phase main §1 {\n    allow go\n  }\n}\n', encoding="utf-8")
    (game / "b_rules.wcx").write_text(
        'terrain clear "Clear" §1 { rough }\n\n'
        'function rough(h: location): bool "rough ground" §1 = terrain(h) is rough\n\n'
        'invariant calm "Nothing moves twice" §1 { check: always holds: true }\n\n'
        'action go "Go" §1 {\n  param h: from locations() where not rough(h)\n  do { stop }\n}\n',
        encoding="utf-8")
    (game / "a_later.wcx").write_text(
        'override function rough(h: location): bool = terrain(h) is rough or h == none\n', encoding="utf-8")
    assert _errors(game) == []
    big = synthetic(game, 3, tmp_path / "x3")
    assert _errors(big) == []
    copy = load_game(big)
    assert {"rough", "rough_1", "rough_2", "go", "go_1", "go_2"} <= set(copy.names)
    assert list(copy.invariants) == ["calm"]  # data and invariants exist once
