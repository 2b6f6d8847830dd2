"""Axis & Allies 1941: the derived case D-16 (shared/rules/axis-allies-1941.md section 17), which
plays the turn sequence with agents. Every other worked example and FAQ case (WE-01..WE-24) and
derived case (D-01..D-19) is a rule test in the rules language: games/axis-allies-1941/tests/
(`warcodex test axis-allies-1941`, run by tests/test_game_rule_tests.py)."""

from __future__ import annotations

from test_aa1941_helpers import POWERS, engine
from warcodex.interpreter.agents import FirstAgent
from warcodex.interpreter.play import start


def test_d16_a_power_without_its_capital_skips_purchase_mobilization_and_income():
    class Passes(FirstAgent):
        def choose_action(self, ctx, side, legal):
            return None

    eng = engine()
    agents = {p: FirstAgent() for p in POWERS}
    agents["soviet_union"] = Passes()
    g = start(eng, "world_1941", 0, agents, trace=False)
    g.state.set_loc_var("russia", "controller", eng.entities["germany"])  # through the state: it tells the memos, copies a shared dict
    from dataclasses import replace

    for uid in list(g.state.units_at("russia")):  # Moscow fell with its garrison
        g.state.put(replace(g.state.units[uid], side="germany"))
    g.state.touch()
    ipc = g.state.side_vars["soviet_union"]["ipc"]
    g.run(max_actions=3)  # the Soviet turn, then three German purchases
    soviet_phases = {e.get("phase") for e in g.log if e.get("side") == "soviet_union"}
    assert "purchase" not in soviet_phases and "combat_move" in soviet_phases and "noncombat" in soviet_phases
    assert g.state.side_vars["soviet_union"].get("collected", 0) == 0
    assert g.state.side_vars["soviet_union"]["ipc"] == ipc
