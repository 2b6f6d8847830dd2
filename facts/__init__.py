"""The facts of a compiled game: one read-only model that every exporter and tool reads.

    from warcodex.facts import facts_of
    facts = facts_of(engine, "fall_blau")        # computed once, cached with the engine
    facts.unit_type("leader_manstein").owners      # Owners(sides=('axis',), status 'inferred', ...)
    [m for m in facts.arrivals if m.turn == 3]     # the scenario's Turn 3 reinforcements
    facts.steps[0].label                           # "Weather Phase": a phase as a player reads it

Parts: partial.py (the three-valued partial evaluator), walk.py (walking the AST), entries.py
(every place/place_in_box/to_box the rules can run, procedures inlined), owners.py (the sides of
each unit type), schedule.py (arrivals and withdrawals by turn), effects.py (effects charts),
tables.py (tables and the rules that feed them), game.py (the assembled model).
See docs/architecture.md for where this layer sits.
"""

from warcodex.facts.game import (AllianceFacts, GameFacts, PhaseStep, PlacedUnit, ProvisionalFacts, SideFacts,
                                 UnitTypeFacts, VariableFacts, facts_of)
from warcodex.facts.owners import Owners
from warcodex.facts.schedule import Condition, Movement

__all__ = ["AllianceFacts", "Condition", "GameFacts", "Movement", "Owners", "PhaseStep", "PlacedUnit",
           "ProvisionalFacts", "SideFacts", "UnitTypeFacts", "VariableFacts", "facts_of"]
