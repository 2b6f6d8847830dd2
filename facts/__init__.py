"""The facts of a compiled game: one read-only model that every exporter and tool reads.

    from warcodex.facts import facts_of
    facts = facts_of(engine, "fall_blau")        # computed once, cached with the engine
    facts.unit_type("leader_manstein").owners      # Owners(sides=('axis',), status 'inferred', ...)
    [m for m in facts.arrivals if m.turn == 3]     # the scenario's Turn 3 reinforcements
    facts.steps[0].label                           # "Weather Phase": a phase as a player reads it
    facts.sequence.root.children                   # the sequence of play as a tree

Parts: partial.py (the three-valued partial evaluator), walk.py (walking the AST), entries.py
(every place/place_in_box/to_box the rules can run, procedures inlined), owners.py (the sides of
each unit type), schedule.py (arrivals and withdrawals by turn), sequence.py (the sequence of play,
triggers and standing rules, with the turns each can happen), setup.py (the set-up with the
provenance of what places each unit), effects.py (effects charts),
tables.py (tables, the rules that feed them, the chance of each result), battles.py (the odds
of the typical battles a game declares in its scenes/ folder), quantities.py (bases and
modifiers with their values), dice.py (dice, distributions, hit rolls), economy.py (incomes),
cards.py (decks and cards: composition, owners, each side's events), reach.py (the rules play
cannot reach in a scenario: its turns rule them out, or another scenario's conditions),
game.py (the assembled model). Renderers import from this package only, never from its modules.
See docs/architecture.md for where this layer sits.
"""

from warcodex.facts.battles import BattleFacts, CrtResults
from warcodex.facts.cards import CardEvent, CardFacts, DeckFacts
from warcodex.facts.dice import HitRoll, distribution
from warcodex.facts.economy import IncomeFacts, SideIncome
from warcodex.facts.effects import EffectCell, EffectRule, EffectsFacts
from warcodex.facts.game import (AllianceFacts, GameFacts, PhaseStep, ProvisionalFacts, SideFacts, UnitTypeFacts,
                                 VariableFacts, facts_of)
from warcodex.facts.owners import Owners
from warcodex.facts.partial import UNKNOWN, Slice
from warcodex.facts.quantities import ModifierFacts, QuantityFacts
from warcodex.facts.reach import Reach, reach_of
from warcodex.facts.schedule import Condition, Movement
from warcodex.facts.sequence import AllowedAction, AutomaticStep, SequenceFacts, SequenceNode, TriggerFacts
from warcodex.facts.setup import PlacedUnit
from warcodex.facts.tables import TableFacts

__all__ = ["AllianceFacts", "AllowedAction", "AutomaticStep", "BattleFacts", "CardEvent", "CrtResults", "CardFacts", "Condition", "DeckFacts", "EffectCell", "EffectRule", "EffectsFacts",
           "GameFacts", "HitRoll", "IncomeFacts", "ModifierFacts", "Movement", "Owners", "PhaseStep", "PlacedUnit",
           "ProvisionalFacts", "QuantityFacts", "Reach", "SequenceFacts", "SequenceNode", "SideFacts", "SideIncome", "Slice",
           "TableFacts", "TriggerFacts", "UNKNOWN", "UnitTypeFacts", "VariableFacts", "distribution", "facts_of",
           "reach_of"]
