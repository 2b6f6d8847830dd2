"""A game's player aid as plain data (dataclasses of strings, numbers and lists), in one language,
written from the game's facts (`warcodex.facts`): nothing here, nor in the modules it assembles,
infers anything from the rules; they put the facts into words.

    build_aid(game, scenario=None, lang="en", paper="a4", engine=None) -> Aid

Parts: tables.py (tables, beyond rules, legends, the rules that feed them), odds.py (odds
charts), battles.py (odds of the game's typical battles), rules.py (quantities in words), effects.py (effects charts), units.py (the unit chart),
production.py (national production), hits.py (hit chart), sequence.py (the sequence of play and
standing rules), scenario.py (set-up, reinforcements and withdrawals, turn track), cards.py (card
lists), writer.py (the language, words and citations).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from warcodex.dsl.model import GameDef
from warcodex.exporters.aids.battles import BattleAid, battle_aids
from warcodex.exporters.aids.cards import DeckAid, deck_aids
from warcodex.exporters.aids.effects import EffectsChart, effects_charts
from warcodex.exporters.aids.hits import HitChart, hit_chart
from warcodex.exporters.aids.odds import OddsChart
from warcodex.exporters.aids.production import ProductionChart, production_chart
from warcodex.exporters.aids.scenario import Arrival, SetupRow, TurnBox, scenario_sheet
from warcodex.exporters.aids.sequence import SequenceItem, StandingRule, sequence_of_play
from warcodex.exporters.aids.tables import TableAid, table_aids
from warcodex.exporters.aids.units import UnitChart, unit_chart
from warcodex.exporters.aids.words import LANG_NAMES
from warcodex.exporters.aids.writer import AidWriter, Ref
from warcodex.facts import facts_of

# the aid's own captions the templates use, in the aid's language
UI_KEYS = ["player_aids", "scenario", "edition", "no_edition", "sheet_tables", "sheet_terrain", "sheet_charts",
           "sheet_units", "sheet_sequence", "sheet_sources", "beyond", "legend", "rules_apply", "base", "source",
           "badge_provisional", "provisional_warning", "properties", "notes", "unit", "classes", "used_by",
           "production", "side", "at_start", "income", "hits", "per_cost", "sequence", "allowed_actions",
           "automatic_steps", "standing_rules", "turn_track", "turn", "reinforcements", "arrives", "where",
           "name", "setup", "sources", "sections", "conditions_english", "provisional_items", "chance",
           "units", "when", "drm", "only_when", "table_index", "result", "no", "withdrawals", "units_at_start",
           "provisional_schedule", "provisional_setup", "sheet_cards", "cards_count", "owners", "events",
           "sheet_battles", "battles_intro", "battle_results", "battle_losses", "battle_provisional"]


@dataclass
class ProvisionalItem:
    what: str
    note: str


@dataclass
class Aid:
    lang: str
    lang_name: str
    paper: str
    game: str
    game_name: str
    edition: str | None
    scenario: str | None
    scenario_turns: str | None
    fingerprint: str
    tables: list[TableAid]
    effects: list[EffectsChart]
    units: UnitChart | None
    production: ProductionChart | None
    hits: HitChart | None
    sequence: list[SequenceItem]
    standing: list[StandingRule]
    turn_track: list[TurnBox]
    arrivals: list[Arrival]
    setup: list[SetupRow]
    provisional: list[ProvisionalItem]
    sections: list[Ref]
    language_note: str | None
    labels_translated: int
    labels_total: int
    ui: dict[str, str] = field(default_factory=dict)
    arrival_notes: list[str] = field(default_factory=list)  # why the schedule's rows marked † are provisional
    setup_notes: list[str] = field(default_factory=list)  # why the set-up's rows marked † are provisional
    track_notes: list[str] = field(default_factory=list)  # why the turn track's marks † are provisional
    decks: list[DeckAid] = field(default_factory=list)
    battles: list[BattleAid] = field(default_factory=list)

    @property
    def sequence_lines(self) -> int:
        """Roughly how many lines the sequence of play takes (a long one may run over pages)."""
        def lines(items) -> int:
            return sum(1 + len(i.automatic) + (1 if i.actions else 0) + lines(i.children) for i in items)

        return lines(self.sequence) + len(self.standing)

    @property
    def charts(self) -> list[OddsChart]:
        return [t.chart for t in self.tables if t.chart is not None]


def section_key(number: str):
    """Natural order of section numbers: 2 < 2.1 < 10; letters (TEC, S3.3) after numbers."""
    parts = re.split(r"[.]", number)
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts]


def build_aid(game: GameDef, scenario: str | None = None, lang: str = "en", paper: str = "a4", engine=None) -> Aid:
    """The player aid of a checked game, in one language, for one scenario (default: the first).

    `engine` may be given (an `Engine` already compiled, e.g. with a board built by a test);
    otherwise one is compiled with the scenario's rules."""
    from warcodex.interpreter.engine import Engine

    if engine is None:
        engine = Engine(game, scenario=scenario)
    facts = facts_of(engine, scenario)
    w = AidWriter(facts, lang)
    g = facts.game.game
    w.refs(g.header.citations)
    tables = table_aids(w)
    effects = effects_charts(w)
    units = unit_chart(w)
    production = production_chart(w)
    hits = hit_chart(w)
    sequence, standing = sequence_of_play(w)
    sheet = scenario_sheet(w)
    decks = deck_aids(w)
    battles = battle_aids(w, tables)
    provisional = [ProvisionalItem(p.what, p.note) for p in facts.provisional]
    turns = facts.turns
    sc_turns = None
    if turns:
        sc_turns = w.ui("turns_range", a=turns[0], b=turns[-1]) if len(turns) > 1 else w.ui("turn_n", t=turns[0])
    game_label = w.of(g)
    scenario_label = w.of(facts.game.scenarios[facts.scenario]) if facts.scenario is not None else None
    sections = sorted(w.cited.values(), key=lambda r: section_key(r.number))
    ui = {k: w.ui(k) for k in UI_KEYS}
    ui["generated"] = w.ui("generated", fp=facts.fingerprint, paper={"a4": "A4", "letter": "US Letter"}[paper])
    # last: every label has been asked for by now, so the counts are those of the whole aid
    labels = w.labels
    total = len(labels.translated) + len(labels.fallback)
    if labels.lang == "en":
        note = None
    elif labels.fallback:
        note = w.ui("language_note", lang=LANG_NAMES[labels.lang], n=len(labels.translated), total=total)
    else:
        note = w.ui("language_note_all", lang=LANG_NAMES[labels.lang])
    return Aid(labels.lang, LANG_NAMES[labels.lang], paper, g.name, game_label, facts.edition, scenario_label, sc_turns,
               facts.fingerprint, tables, effects, units, production, hits, sequence, standing, sheet.turn_track,
               sheet.arrivals, sheet.setup, provisional, sections, note, len(labels.translated), total, ui,
               sheet.provisional, sheet.setup_provisional, sheet.track_provisional, decks, battles)
