"""A game may be won by an alliance (`win(allies, ...)`: A&A 1941's Allies and Axis always are), so
a log's end entry and a saved state may name one as the winner. The consistency checks refused
them ("'allies' is not a side"), and `warcodex query`, `explain` and `view` could not read a log of
any A&A game that ended in a victory (s9)."""

from __future__ import annotations

import pytest

from warcodex.interpreter.consistency import Rules, check_entries, check_state
from warcodex.interpreter.saves import SaveError, state_to_data

from test_aa1941_helpers import engine


def _end(winner):
    return [{"n": 0, "k": "end", "turn": 3, "winner": winner, "reason": "the Allies hold the Axis capitals",
             "sides": {}}]


def test_a_logs_end_may_name_an_alliance_or_a_side_as_the_winner():
    rules = Rules(engine())
    for winner in ("allies", "axis", "japan", None):
        check_entries(rules, _end(winner), "game.jsonl", "world_1941")
    with pytest.raises(SaveError, match="'nobody' is not a side or an alliance"):
        check_entries(rules, _end("nobody"), "game.jsonl", "world_1941")


def test_a_saved_state_may_be_won_by_an_alliance():
    eng = engine()
    rules = Rules(eng)
    state = eng.new_game("world_1941", seed=1)

    def check(**fields):
        data = state_to_data(eng, state).model_copy(update=fields)
        check_state(rules, data, "save.json")

    check(winner="allies")
    check(winner="japan")
    with pytest.raises(SaveError, match="state.winner"):
        check(winner="nobody")
    with pytest.raises(SaveError, match="state.active"):
        check(active="allies")  # an alliance never plays a turn
