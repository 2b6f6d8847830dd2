"""An A&A-style fragment (tests/data/games/battle): dice per unit, owner-chosen casualties, rounds,
attacker retreat, two-hit units, income from areas, alliances, map wrap and a deck of cards.
Battles run with fixed dice, so every roll is the test's."""

from __future__ import annotations

import pytest

from warcodex.dsl.checker import check_path
from warcodex.interpreter.agents import FirstAgent
from warcodex.interpreter.context import Context
from warcodex.interpreter.dice import FixedDice
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import play
from warcodex.interpreter.values import RuleError


@pytest.fixture(scope="module")
def engine():
    game, diags = check_path("tests/data/games/battle")
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    return Engine(game)


class PressOn(FirstAgent):
    """Chooses like FirstAgent but declines optional choices (never retreats)."""

    def choose(self, ctx, who, what, options, optional):
        return None if optional else 0


def setup(engine, rolls, units, agent=FirstAgent):
    state = engine.new_game("duel", seed=0, setup=False)
    state.rng = FixedDice(rolls)
    agents = {s.name: agent() for s in engine.side_entities}
    ctx = Context(engine, state, agents)
    refs = [engine.place(ctx, engine.entities[t], engine.entities[s], at, None, None) for t, s, at in units]
    return state, ctx, refs


def battle(engine, ctx, attacker: str, area: str):
    engine.procedures["battle"](ctx, (engine.entities[attacker], area), None)


def test_one_round_each_unit_rolls_and_the_owner_chooses_casualties(engine):
    # tanks attack at 3: rolls 2 (hit) and 5 (miss); the infantry defends at 2: roll 1 (hit)
    state, ctx, (t1, t2, inf) = setup(engine, [2, 5, 1], [("tank", "germany", "russia"), ("tank", "germany", "russia"),
                                                           ("infantry", "ussr", "russia")])
    battle(engine, ctx, "germany", "russia")
    assert state.units[inf.id].loc is None  # the only defender: no choice to make
    assert state.units[t1.id].loc is None  # germany chose its first tank as the casualty
    assert state.units[t2.id].loc == "russia"
    assert state.loc_vars["russia"]["controller"] is engine.entities["germany"]
    assert state.rng.used == 3  # exactly one round


def test_no_hits_then_the_attacker_retreats_to_a_friendly_area(engine):
    state, ctx, (a, d1, d2) = setup(engine, [6, 6, 6], [("infantry", "germany", "poland"), ("infantry", "ussr", "poland"),
                                                         ("infantry", "ussr", "poland")])
    battle(engine, ctx, "germany", "poland")
    # germany owns only germany and poland; of poland's neighbours, only germany is friendly
    assert state.units[a.id].loc == "germany"
    assert state.units[d1.id].loc == "poland" and state.units[d2.id].loc == "poland"
    assert "controller" not in state.loc_vars.get("poland", {})


def test_battles_last_several_rounds_and_two_hit_units_absorb_two_hits(engine):
    # round 1: battleship (attack 4) rolls 6, infantry (defense 2) rolls 2 -> the battleship is hit once
    # round 2: battleship rolls 3 -> infantry destroyed; infantry rolls 5 -> miss
    state, ctx, (bb, inf) = setup(engine, [6, 2, 3, 5], [("battleship", "germany", "baltic"), ("infantry", "ussr", "baltic")],
                                  agent=PressOn)
    battle(engine, ctx, "germany", "baltic")
    assert state.units[bb.id].steps == 1 and state.units[bb.id].loc == "baltic"
    assert state.units[inf.id].loc is None
    assert state.rng.used == 4


def test_fixed_dice_refuse_to_run_out_silently(engine):
    state, ctx, _ = setup(engine, [1], [("tank", "germany", "russia"), ("infantry", "ussr", "russia")])
    with pytest.raises(RuleError, match="ran out after 1 rolls"):
        battle(engine, ctx, "germany", "russia")


def test_alliances_and_map_wrap(engine):
    e = engine.entities
    assert engine.enemies_of(e["germany"]) == (e["ussr"], e["usa"])
    assert engine.allies_of(e["ussr"]) == (e["ussr"], e["usa"])
    assert engine.board.distance("siberia", "alaska") == 1  # across the east-west wrap
    assert "alaska" in engine.board.neighbors("siberia")


def test_cards_income_and_a_whole_game(engine):
    agents = {s.name: FirstAgent() for s in engine.side_entities}
    g = play(engine, "duel", seed=3, agents=agents)
    state = g.state
    # income: germany 10 + 2 per turn, ussr 8 + 1 (the usa has no turn in this fragment), for 2
    # turns; the deck's 3 cards give 5 + 2 + 1 to whoever drew them
    total = sum(state.side_vars.get(s, {}).get("ipcs", 0) for s in ("germany", "ussr", "usa"))
    assert total == 2 * (12 + 9) + 8
    deck = state.decks["events"]
    assert deck["draw"] == [] and sorted(deck["discard"]) == ["lend_lease", "partisans", "winter"]
    assert all(not hand for hand in state.hands.values())
    plays = [e for e in g.log if e.get("action") == "play_card"]
    assert len(plays) == 3
