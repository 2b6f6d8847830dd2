"""Everything the module needs from a game, in the shapes the module builder uses, read from the
game's facts (`warcodex.facts`: sides, unit types and their owners, set-up, reinforcement schedule,
sequence of play, variables, dice). Nothing is inferred here. Nothing here knows a particular game;
names are matched only where the language leaves a choice to the designer (the NATO symbol of a
unit type is guessed from its class and type names, see counters.py).
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from warcodex.dsl import ast
from warcodex.dsl.formatter import format_expr
from warcodex.dsl.model import GameDef
from warcodex.facts import PlacedUnit  # one counter record for the facts and the module
from warcodex.interpreter.values import Entity, RuleError, UnitRef, show

FACTOR_KEYS = ("attack", "defense", "move")


@dataclass
class SideInfo:
    name: str
    label: str
    color: str


@dataclass
class UnitType:
    name: str
    label: str
    classes: list[str]
    tags: frozenset[str]
    max_steps: int
    values: dict[int, dict[str, Any]]  # steps -> property values at that many steps
    provisional: bool
    flags: list[str]  # true flags worth printing (elite...)
    face: str | None = None  # the type's `face:` (UnitTypeFacts.face); None: attack-defense-move

    def factors(self, steps: int) -> str:
        """What the counter prints at `steps`: its `face:` with each `{name}` replaced by the value
        (an HQ's "10-8", command range and movement), else attack-defense-move (only the keys
        the type has)."""
        vals = self.values.get(steps) or self.values[self.max_steps]
        if self.face is None:
            return "-".join(_num(vals[k]) for k in FACTOR_KEYS if k in vals)
        return "".join(literal + ("" if name is None else player_text(vals.get(name)))
                       for literal, name, _spec, _conv in string.Formatter().parse(self.face))

    def face_words(self) -> str:
        """What the `face:` prints, in words, for a reader: each `{name}` as its name spaced
        ("{command_range}-{move}" -> "command range-move"), a brace printed as such (`{{`, `}}`)
        as one brace; "" without a face."""
        if self.face is None:
            return ""
        return "".join(literal + ("" if name is None else name.replace("_", " "))
                       for literal, name, _spec, _conv in string.Formatter().parse(self.face))


@dataclass
class Reinforcement:
    turn: int | None  # None: conditional (the rules leave to play whether and when it comes)
    unit: PlacedUnit
    location: str | None  # where the rules place it, when they name one location
    rule: str  # the label of the rule that brings it


@dataclass
class StateVar:
    name: str
    type: str
    initial: str
    values: list[str]  # possible values of a `name` variable (weather...), labels in `labels`
    labels: dict[str, str] = field(default_factory=dict)


@dataclass
class SideVar:
    name: str
    type: str
    initial: dict[str, str]


@dataclass
class Step:
    """One step of the flattened sequence of play (a phase, for one side where it applies)."""

    label: str
    side: str | None  # the side's label
    condition: str | None  # the phase's condition as written (the help page shows it)
    turns: tuple[int, ...] | None = None  # the scenario's turns it is played on; None: every turn
    maybe_turns: tuple[int, ...] = ()  # turns on which it is played only if the game calls for it
    name: str = ""  # the phase's name in the rules (a game state's `phase`)
    side_name: str | None = None  # the side's name (a game state's `active`)


@dataclass
class GameData:
    game: GameDef
    engine: Any
    title: str
    name: str
    edition: str | None
    version: str
    scenario: str
    scenario_label: str
    first_turn: int
    last_turn: int | None
    sides: list[SideInfo]
    unit_types: list[UnitType]
    markers: list[tuple[str, str]]  # marker entities: (name, label)
    palette: dict[str, list[str]]  # side -> unit type names for its palette tab
    at_start: dict[str, list[PlacedUnit]]  # location -> units (stack order)
    location_markers: dict[str, tuple[str, ...]]  # location -> markers the set-up puts on it
    boxes: dict[str, list[PlacedUnit]]  # off-map holding box -> units at start
    box_names: list[str]  # every off-map box the rules name (the set-up's first)
    reinforcements: list[Reinforcement]
    state_vars: list[StateVar]
    side_vars: list[SideVar]
    dice: list[ast.Dice]
    steps: list[Step]
    board: Any
    warnings: list[str] = field(default_factory=list)
    # each deck's piles by their titles for players (the facts' DeckFacts.pile_title): deck -> pile -> title
    pile_titles: dict[str, dict[str, str]] = field(default_factory=dict)

    # each deck's cards as a player reads them (the facts' CardFacts.face): deck -> cards in order
    cards: dict[str, list[CardFace]] = field(default_factory=dict)

    def side(self, name: str) -> SideInfo:
        return next(s for s in self.sides if s.name == name)

    def unit_type(self, name: str) -> UnitType:
        return next(u for u in self.unit_types if u.name == name)


@dataclass
class CardFace:
    """What a card shows (the facts' `CardFacts.face`): its label, its printed values as a player
    reads them, its printed flags, whether something on it is provisional, the side it belongs to
    (its one declared owner: the face takes the side's colour) or None."""
    name: str
    label: str
    fields: list[tuple[str, str]]
    flags: list[str]
    provisional: bool
    side: str | None = None


def _card_faces(deck) -> list[CardFace]:
    out = []
    for c in deck.cards:
        fields = [(k.replace("_", " "), player_text(v)) for k, v in c.face if v is not True]
        flags = [k.replace("_", " ") for k, v in c.face if v is True]
        side = c.owners[0] if c.declared and len(c.owners) == 1 else None
        out.append(CardFace(c.name, c.label, fields, flags, c.provisional is not None, side))
    return out


def _num(v: Any) -> str:
    if isinstance(v, Fraction):
        return str(v) if v.denominator != 1 else str(v.numerator)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, Entity):
        return v.label or v.name
    return str(show(v))


def player_text(v: Any) -> str:
    """A runtime value as a player reads it on a card or counter: a list as "a, b", an entity by
    its label, a fraction as 1/2 (not Python's rendering of the value)."""
    if isinstance(v, (tuple, list)):
        return ", ".join(player_text(x) for x in v)
    if isinstance(v, (set, frozenset)):
        return ", ".join(sorted(player_text(x) for x in v))
    return "" if v is None else _num(v)


def value_text(v: Any) -> str:
    """A runtime value as the text of a VASSAL property."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Entity):
        return v.name
    if isinstance(v, UnitRef):
        return f"unit {v.id}"
    if isinstance(v, (tuple, list)):
        return ",".join(value_text(x) for x in v)
    return _num(v)


def load(game_path: str | Path | GameDef, scenario: str | None = None) -> GameData:
    """The module's data of a game and scenario, read from the game's facts (`warcodex.facts`):
    nothing is inferred here, only put into the shapes the module builder uses."""
    from warcodex.facts import facts_of
    from warcodex.interpreter.engine import Engine

    if isinstance(game_path, GameDef):
        gamedef = game_path
    else:
        from warcodex.dsl.checker import check_path

        gamedef, diags = check_path(Path(game_path))
        if gamedef is None or diags.errors:
            raise RuleError(f"{game_path} does not check clean ({len(diags.errors)} error(s))")
    if scenario is None:
        if not gamedef.scenarios:
            raise RuleError("the game has no scenario")
        scenario = next(iter(gamedef.scenarios))
    if scenario not in gamedef.scenarios:
        raise RuleError(f"no scenario '{scenario}' (have: {', '.join(gamedef.scenarios) or 'none'})")
    engine = Engine(gamedef, scenario=scenario)  # compiled once, with the scenario's special rules
    facts = facts_of(engine, scenario)
    sides = [SideInfo(s.name, s.label, s.color) for s in facts.sides]
    unit_types = [UnitType(u.name, u.label, u.classes, u.tags, u.max_steps, u.values, u.provisional, u.flags, u.face)
                  for u in facts.unit_types]
    reinforcements = []
    for m in facts.arrivals:
        if m.unit_type is None:
            continue  # a unit taken from a box: it is in that box at the start
        ut = facts.unit_type(m.unit_type)
        side = m.side or (ut.owners.sides[0] if ut.owners.sides else facts.sides[0].name)
        turn = m.turn if m.turn is not None else m.expected_turn
        unit = PlacedUnit(m.unit_type, side, m.label or ut.label, ut.max_steps, ut.max_steps)
        rule = m.rule.header.label or m.rule.header.name
        reinforcements.append(Reinforcement(turn, unit, m.location or m.likely_location, rule))
    return GameData(
        game=facts.game, engine=facts.engine, title=facts.title, name=facts.name, edition=facts.edition,
        version=facts.version if facts.version is not None else f"1.0-{facts.fingerprint[:8]}",
        scenario=facts.scenario, scenario_label=facts.scenario_label, first_turn=facts.first_turn,
        last_turn=facts.last_turn, sides=sides, unit_types=unit_types, markers=list(facts.markers),
        palette={s.name: facts.palette(s.name) for s in facts.sides},
        at_start={loc: [_placed(u) for u in units] for loc, units in facts.at_start.items()},
        location_markers=dict(facts.location_markers),
        boxes={box: [_placed(u) for u in units] for box, units in facts.boxes.items()}, box_names=facts.box_names,
        reinforcements=reinforcements, state_vars=_state_vars(facts), side_vars=_side_vars(facts),
        dice=list(facts.dice), steps=_steps(facts), board=facts.engine.board, warnings=list(facts.warnings),
        pile_titles={d.name: {p: d.pile_title(p) for p in d.decl.piles()} for d in facts.decks},
        cards={d.name: _card_faces(d) for d in facts.decks},
    )


def _placed(u) -> PlacedUnit:
    return PlacedUnit(u.type, u.side, u.label, u.steps, u.max_steps, u.markers)


def _state_vars(facts) -> list[StateVar]:
    out = []
    for v in facts.variables:
        if v.scope != "var":
            continue
        labels = {}
        for name in v.values:
            ent = facts.engine.entities.get(name)
            labels[name] = ent.label if ent is not None and ent.label else name
        out.append(StateVar(v.name, v.type, value_text(v.initial), list(v.values), labels))
    return out


def _side_vars(facts) -> list[SideVar]:
    return [SideVar(v.name, v.type, {s: value_text(x) for s, x in v.initial.items()})
            for v in facts.variables if v.scope == "side_var"]


def _steps(facts) -> list[Step]:
    """The sequence of play of one game turn, flattened: one step per phase (per side inside
    player turns), sub-phases as "Phase / Sub-phase"."""
    labels = {s.name: s.label for s in facts.sides}
    return [Step(s.label, labels.get(s.side) if s.side else None, format_expr(s.when) if s.when is not None else None,
                 s.turns, s.maybe_turns, s.name, s.side)
            for s in facts.steps]
