"""GameDef: every declaration of a game, merged from its files and indexed by name and kind.

This is the checked language's view of a game, before compilation. Exporters read tables,
terrain and units from here; the interpreter compiles it (`warcodex.interpreter.compiler`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from warcodex.dsl import ast
from warcodex.dsl.diagnostics import Diagnostics


class GameDef:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.games: list[ast.Game] = []
        self.sections: dict[str, ast.SectionEntry] = {}
        self.names: dict[str, ast.Decl] = {}  # the one namespace of rule names
        self.sequence: ast.Sequence | None = None
        self.triggers: list[ast.Trigger] = []
        self.scenarios: dict[str, ast.Scenario] = {}
        self.invariants: dict[str, ast.Invariant] = {}
        self.evaluations: dict[str, ast.Evaluation] = {}  # in declaration order: the first is the default
        self.decls: list[ast.Decl] = []  # in load order, for coverage and formatting
        # rule tests (tests/*.wcx, loaded with tests=True): never part of the game played
        self.tests: dict[str, ast.Test] = {}
        self.maps: dict[str, ast.MapFragment] = {}
        self.test_files: set[str] = set()
        self.diagnostics = Diagnostics()
        self.fingerprint = ""  # hash of the rules files (set by the loader)
        self.roots: tuple[Path, ...] = (root.resolve(),)  # folders the game may read (set by the loader)
        self.overlays: tuple[Path, ...] = ()  # the overlay files the user named (set by the loader)
        self.board = None  # the map, once the checker has loaded it (the engine reuses it)
        # (declaration, replaced property, its replacement) for every property an `override`
        # changed: the checker compares the new value with the old one
        self.replaced: list[tuple[ast.Decl, ast.Prop, ast.Prop]] = []

    # ------------------------------------------------------------ building
    def add(self, decl: ast.Decl, diags: Diagnostics) -> None:
        if isinstance(decl, ast.Game):
            if self.games and not decl.override:
                diags.error("E-duplicate", f"a second `game` declaration '{decl.name}'", decl.header.span,
                            hint=f"the game is already declared as '{self.games[0].name}'")
                return
            if decl.override and self.games:
                self.replaced += [(self.games[0], o, n) for o, n in _merge_props(self.games[0].props, decl.props)]
                return
            self.games.append(decl)
        elif isinstance(decl, ast.Sections):
            for entry in decl.entries:
                if entry.number in self.sections:
                    diags.error("E-duplicate", f"section §{entry.number} is listed twice", entry.span)
                self.sections[entry.number] = entry
        elif isinstance(decl, ast.Sequence):
            if self.sequence is not None and not decl.override:
                diags.error("E-duplicate", "a second `sequence` declaration", decl.span,
                            hint="write `override sequence ...` to replace the turn sequence")
                return
            self.sequence = decl
        elif isinstance(decl, ast.Trigger):
            self.triggers.append(decl)
        elif isinstance(decl, ast.Scenario):
            self._add_named(self.scenarios, decl, diags, "scenario")
        elif isinstance(decl, ast.Invariant):
            self._add_named(self.invariants, decl, diags, "invariant")
        elif isinstance(decl, ast.Evaluation):
            self._add_named(self.evaluations, decl, diags, "evaluation")
        elif isinstance(decl, ast.Test):
            self._add_named(self.tests, decl, diags, "test")
            return  # not a rule: coverage, aids and formatting of the rules never see it
        elif isinstance(decl, ast.MapFragment):
            self._add_named(self.maps, decl, diags, "map")
            return
        else:
            old = self.names.get(decl.name)
            # `override deck`: a card named like one of the deck's replaces it (merged by name)
            replaces = {c.name for c in old.cards} if decl.override and isinstance(old, ast.Deck) else set()
            self._add_named(self.names, decl, diags, "name")
            if isinstance(decl, ast.Deck):
                for card in decl.cards:
                    if card.name in replaces:
                        self.names[card.name] = card
                    else:
                        self._add_named(self.names, card, diags, "name")
        self.decls.append(decl)

    def _add_named(self, table: dict, decl: ast.Decl, diags: Diagnostics, what: str) -> None:
        old = table.get(decl.name)
        if old is None:
            if decl.override:
                diags.error("E-override", f"`override` of '{decl.name}', which is not declared", decl.header.span)
                return
            table[decl.name] = decl
            return
        if not decl.override:
            where = f" (first declared at {old.header.span})" if old.header.span else ""
            diags.error("E-duplicate", f"'{decl.name}' is declared twice{where}", decl.header.span,
                        hint="write `override ...` to replace parts of an earlier declaration")
            return
        if type(old) is not type(decl):
            diags.error("E-override", f"`override` changes the kind of '{decl.name}' "
                        f"({_kind(old)} -> {_kind(decl)})", decl.header.span)
            return
        self.replaced += [(old, o, n) for o, n in merge(old, decl)]

    def for_scenario(self, name: str) -> "GameDef":
        """The rules as they stand in one scenario: a copy with the scenario's `override`
        declarations (its special rules) merged over the base rules. The base is unchanged."""
        scenario = self.scenarios[name]
        if not scenario.overrides:
            return self
        cache = self.__dict__.pop("_by_scenario", {})  # derived once: engines on other boards share it
        try:
            if name not in cache:
                cache[name] = self._derive(scenario)
            return cache[name]
        finally:
            self.__dict__["_by_scenario"] = cache

    def _derive(self, scenario: ast.Scenario) -> "GameDef":
        import copy

        # new indexes over the same declarations; only those an override changes in place (and
        # the game's, whose properties merge) are copied first, so the base keeps its own
        derived = copy.copy(self)
        derived.games = [copy.deepcopy(g) for g in self.games]
        derived.sections, derived.names = dict(self.sections), dict(self.names)
        derived.scenarios, derived.invariants = dict(self.scenarios), dict(self.invariants)
        derived.evaluations = dict(self.evaluations)
        derived.triggers, derived.decls = list(self.triggers), list(self.decls)
        derived.replaced = list(self.replaced)  # the board is shared, never copied
        diags = Diagnostics()
        for decl in scenario.overrides:
            decl = copy.deepcopy(decl)
            decl.override = True
            for table in (derived.names, derived.scenarios, derived.invariants, derived.evaluations):
                if table.get(decl.name) is not None and not isinstance(decl, (ast.Game, ast.Sequence, ast.Trigger, ast.Sections)):
                    table[decl.name] = copy.deepcopy(table[decl.name])
            derived.add(decl, diags)
        diags.raise_if_errors()
        return derived

    # ------------------------------------------------------------ queries
    @property
    def game(self) -> ast.Game:
        return self.games[0]

    def prop(self, key: str, default=None):
        for p in self.game.props:
            if p.key == key:
                return p.value
        return default

    def map_file(self) -> Path | None:
        """The map file named by `map:`, inside the folders the game may read; None without a
        `map:` in quotes. Raises `warcodex.inputs.InputError` for a path outside those folders."""
        from warcodex import inputs

        value = self.prop("map")
        if not isinstance(value, ast.Str):
            return None
        path = self.root / value.value
        inputs.confine(path, self.roots, "map file")
        return path

    def of_kind(self, cls: type, kind: str | None = None) -> Iterator:
        for decl in self.names.values():
            if isinstance(decl, cls) and (kind is None or getattr(decl, "kind", None) == kind):
                yield decl

    def entities(self, kind: str) -> list[ast.Entity]:
        return list(self.of_kind(ast.Entity, kind))

    @property
    def sides(self) -> list[ast.Entity]:
        return self.entities("side")

    @property
    def units(self) -> list[ast.Unit]:
        return list(self.of_kind(ast.Unit))

    @property
    def tables(self) -> list[ast.Table]:
        return list(self.of_kind(ast.Table))

    def provisional_items(self) -> list[tuple[str, ast.Node, ast.Provenance]]:
        """Every declaration, property or modifier whose value is a provisional stand-in."""
        found = []
        for decl in self.decls:
            prov = decl.header.provenance
            if prov is not None and prov.kind == "provisional":
                found.append((f"{_kind(decl)} {decl.name}", decl, prov))
            for p in getattr(decl, "props", []) or []:
                if p.provenance is not None and p.provenance.kind == "provisional":
                    found.append((f"{_kind(decl)} {decl.name}.{p.key}", p, p.provenance))
            for m in getattr(decl, "modifiers", []) or []:
                if m.provenance is not None and m.provenance.kind == "provisional":
                    found.append((f"modifier '{m.label}' of {decl.name}", m, m.provenance))
            for t in getattr(decl, "terms", []) or []:  # an evaluation's weights
                if t.provenance is not None and t.provenance.kind == "provisional":
                    found.append((f"term '{t.label}' of evaluation {decl.name}", t, t.provenance))
            for sv in getattr(decl, "step_values", []) or []:  # a counter's other side
                for p in sv.props:
                    if p.provenance is not None and p.provenance.kind == "provisional":
                        found.append((f"{_kind(decl)} {decl.name}.{p.key} at {sv.steps} step(s)", p, p.provenance))
            for card in getattr(decl, "cards", []) or []:  # a deck's cards
                if card.header.provenance is not None and card.header.provenance.kind == "provisional":
                    found.append((f"card {card.name}", card, card.header.provenance))
                for p in card.props:
                    if p.provenance is not None and p.provenance.kind == "provisional":
                        found.append((f"card {card.name}.{p.key}", p, p.provenance))
        return found


def _kind(decl: ast.Decl) -> str:
    return getattr(decl, "kind", None) or type(decl).__name__.lower()


def _merge_props(old: list[ast.Prop], new: list[ast.Prop]) -> list[tuple[ast.Prop, ast.Prop]]:
    """Merge `new` into `old` by key; return the (replaced, replacement) pairs."""
    index = {p.key: i for i, p in enumerate(old)}
    replaced = []
    for p in new:
        if p.key in index:
            replaced.append((old[index[p.key]], p))
            old[index[p.key]] = p
        else:
            old.append(p)
    return replaced


def merge(old: ast.Decl, new: ast.Decl) -> list[tuple[ast.Prop, ast.Prop]]:
    """Apply an `override` declaration onto the original, in place; return the properties it
    replaced, each with its replacement.

    Properties merge by key; table rows by row key; a quantity's modifiers by label (a modifier
    with the label of an existing one replaces it, any other is added), so an optional rule or a
    scenario can add or change one modifier; header label/provenance/citations are replaced when
    given."""
    h, n = old.header, new.header
    if n.label:
        h.label = n.label
    if n.translations:
        h.translations.update(n.translations)
    if n.citations:
        h.citations = n.citations
    if n.provenance is not None:
        h.provenance = n.provenance
    replaced = []
    if hasattr(old, "props") and getattr(new, "props", None):
        replaced += _merge_props(old.props, new.props)
    if isinstance(old, ast.Unit):
        if new.classes:
            old.classes = new.classes
        by_steps = {sv.steps: sv for sv in old.step_values}
        for sv in new.step_values:
            if sv.steps in by_steps:
                replaced += _merge_props(by_steps[sv.steps].props, sv.props)
            else:
                old.step_values.append(sv)
    elif isinstance(old, ast.Table):
        if new.columns is not None:
            old.columns = new.columns
        if new.rows is not None:
            old.rows = new.rows
        if new.beyond:
            old.beyond = new.beyond
        keys = {r.key.text(): i for i, r in enumerate(old.table_rows)}
        for row in new.table_rows:
            if row.key.text() in keys:
                old.table_rows[keys[row.key.text()]] = row
            else:
                old.table_rows.append(row)
    elif isinstance(old, ast.Quantity):
        if new.base is not None:
            old.base = new.base
            old.base_citations = new.base_citations
        _merge_by(old.modifiers, new.modifiers, lambda m: m.label or None)  # an unlabelled modifier is added
        if new.order:
            old.order = new.order
    elif isinstance(old, ast.Evaluation):
        # terms merge by label, like a quantity's modifiers: an overlay reweighs one term
        _merge_by(old.terms, new.terms, lambda t: t.label)
        if new.params:
            old.params = new.params
    elif isinstance(old, (ast.Function,)):
        old.body = new.body
        old.params = new.params
    elif isinstance(old, (ast.Procedure, ast.Result)):
        if new.body:
            old.body = new.body
        if new.params:
            old.params = new.params
    elif isinstance(old, ast.Action):
        for field in ("params", "requires", "body"):
            if getattr(new, field):
                setattr(old, field, getattr(new, field))
    elif isinstance(old, ast.VarDecl):
        if new.default is not None:
            old.default = new.default
    elif isinstance(old, ast.Scenario):
        if new.setup:
            old.setup = new.setup
        old.triggers.extend(new.triggers)
        old.overrides.extend(new.overrides)
    elif isinstance(old, ast.Deck):
        _merge_by(old.cards, new.cards, lambda c: c.name)
        _merge_by(old.pile_decls, new.pile_decls, lambda d: d.name)  # a pile's visibility and title
    return replaced


def _merge_by(old: list, new: list, key) -> None:
    """An override's items merged into the original's: one with the key of an original item
    replaces it in its place, the others are added at the end (a key None never matches)."""
    where = {key(x): i for i, x in enumerate(old) if key(x) is not None}
    for x in new:
        k = key(x)
        if k is not None and k in where:
            old[where[k]] = x
        else:
            old.append(x)
