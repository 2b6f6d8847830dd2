"""Every section of a bundled game's rulebook is encoded, partly encoded with a stated reason, or
not applicable: a section no construct cites any more (its citation moved with a test unit, or
into a comment) shows up here rather than silently in `warcodex coverage`."""

from pathlib import Path

import pytest

from warcodex.dsl.checker import check_path
from warcodex.dsl.coverage import coverage
from warcodex.interpreter.engine import load_board

GAMES = Path(__file__).resolve().parents[1] / "games"

# Sections a game does not encode yet, each with its reason in the game's sections.wcx (none today).
NOT_YET: dict[str, set[str]] = {}


@pytest.mark.parametrize("name", ["tiny", "stalingrad42", "axis-allies-1941", "stargard-solstice", "no-retreat"])
def test_no_section_is_silently_left_out(name):
    game, diags = check_path(GAMES / name)
    assert game is not None and not diags.errors
    report = coverage(game, (), load_board(game))
    assert report, "the game lists its rulebook's sections"
    missing = {c.number for c in report if c.status == "not_encoded"}
    assert missing <= NOT_YET.get(name, set()), f"sections no rule cites: {sorted(missing - NOT_YET.get(name, set()))}"
    for c in report:
        if c.status == "partial":
            assert c.note, f"§{c.number} is partial without saying what is missing"
