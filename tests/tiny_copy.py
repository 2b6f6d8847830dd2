"""A copy of Tiny Front with a test's own rules added: `extra.wcx`, which the copy's game.wcx
includes. Built-ins, checker rules and exporters are tested on a real game this way without a
line of test-only rules in games/tiny (a player's game never carries them)."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tiny_copy(parent: Path, rules: str = "") -> Path:
    """games/tiny copied to PARENT/tiny (without its rule tests), with `rules` included if given."""
    folder = parent / "tiny"
    shutil.copytree(ROOT / "games" / "tiny", folder, ignore=shutil.ignore_patterns("tests"))
    if rules:
        (folder / "extra.wcx").write_text(rules, encoding="utf-8")
        with open(folder / "game.wcx", "a", encoding="utf-8") as f:
            f.write('\ninclude "extra.wcx"\n')
    return folder


def tiny_engines(parent: Path, rules: str) -> list:
    """The copy checked and compiled for both evaluators (the reference, the generated code)."""
    from warcodex.dsl.checker import check_path
    from warcodex.interpreter.engine import Engine

    game, diags = check_path(tiny_copy(parent, rules))
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    return [Engine(game, evaluator=e) for e in ("reference", "generated")]
