"""Every bundled game's rule tests (games/NAME/tests/*.wcx, `warcodex test NAME`), one pytest case
per `test`/`example` block: the worked examples of each rulebook, written in the rules language."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from warcodex.dsl.checker import check_path
from warcodex.interpreter.rule_test_report import failure_lines
from warcodex.interpreter.rule_tests import RuleTestRunner

GAMES = Path(__file__).resolve().parent.parent / "games"
BUNDLED = sorted(p.name for p in GAMES.iterdir() if (p / "game.wcx").exists())


@lru_cache(maxsize=None)
def runner(name: str) -> RuleTestRunner:
    game, diags = check_path(GAMES / name, tests=True)
    assert game is not None and not diags.errors, "\n".join(d.render() for d in diags.errors)
    return RuleTestRunner(game)


def cases():
    for name in BUNDLED:
        game, diags = check_path(GAMES / name, tests=True)
        if game is None or diags.errors:
            yield pytest.param(name, None, id=f"{name}::does-not-check")
            continue
        for test in game.tests:
            yield pytest.param(name, test, id=f"{name}::{test}")


# games whose worked examples are still to be written as rule tests, and why: an entry must go
# once the game has tests (the check is strict: a game listed here that has tests fails it)
PENDING: dict[str, str] = {}


@pytest.mark.parametrize("game_name", [pytest.param(g, marks=pytest.mark.xfail(strict=True, reason=PENDING[g]))
                                       if g in PENDING else g for g in BUNDLED])
def test_every_bundled_game_has_rule_tests(game_name):
    assert runner(game_name).game.tests, f"games/{game_name}/tests/*.wcx holds no test"


@pytest.mark.parametrize("game_name, test_name", list(cases()))
def test_rule_test(game_name, test_name):
    r = runner(game_name)
    outcome = r.run(r.game.tests[test_name])
    assert outcome.status == "passed", "\n".join(failure_lines(outcome))
