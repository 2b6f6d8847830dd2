"""Decks and cards as facts (docs/language.md section 20): each deck with its own rules
(`reshuffle_at`), its composition (every card, how many copies, where each is at the set-up: the
draw pile, set aside, a side's hand), and each card with its printed properties (texts, numbers,
marks), whether it is provisional, the sides that own it and its events: the rules that run for
it, for each side.

A card's events are found in the rules, not in its property names: a trigger (on `card_played`,
a custom `card_event`, `card_paid`...) whose condition, with one of its `name` parameters bound to
the card, the partial evaluator does not find false, while it is false for some other card of the
deck, is about that card; its `side` parameter, bound to each side in turn, says whose event it
is (No Retreat!'s `on card_event(c, s) when c == c01 and s == soviet`: Stavka, the Soviet event
of card 01). A card's owners are its `owner:`/`side:`/`sides:` property where it declares one, else the
sides that draw from its deck (`draw(s, deck, n)`; a side decided in play: every side): in No
Retreat! both sides draw from one deck and either may hold any card. An event written elsewhere
than in a trigger (a function that tests the card: Volksgrenadiers, `c == c53 and s == axis`) is
not an event here; the declarations whose rules name the card are listed as its `mentions`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warcodex.dsl import ast
from warcodex.facts.partial import Each, Partial, truth
from warcodex.facts.walk import rule_bodies, walk
from warcodex.interpreter.values import Entity

OWNER_KEYS = ("owner", "side", "sides")
# What the engine's built-in piles are (interpreter/cards.py), as a player reads them, where the
# deck gives a pile no title of its own (`pile "set_aside" "Set aside this turn"`).
BUILTIN_PILE_TITLES = {"draw": "Draw pile", "discard": "Discard pile", "removed": "Removed from the game",
                       "set_aside": "Set aside (not in the game yet)", "play": "In play"}


@dataclass(frozen=True)
class CardEvent:
    """A rule that runs for a card: a side's event (or either side's, `side` None)."""
    side: str | None
    event: str  # the event it runs on: card_played, card_event, card_paid...
    rule: ast.Trigger


@dataclass
class CardFacts:
    name: str
    label: str
    deck: str
    decl: ast.Card
    values: dict[str, Any]  # the properties with a value, as the engine reads them (texts, numbers)
    flags: list[str]  # the true flags (marks: removed_1945, set_aside)
    copies: int  # `copies: N`, else 1
    owners: tuple[str, ...]  # in the order the sides are declared
    declared: bool  # the owners are stated by the card's `owner:`/`side:`/`sides:`
    events: list[CardEvent]
    mentions: list[object]  # the other declarations whose rules name the card (functions, actions...)
    start: str  # where it is at the set-up: a pile of its deck (draw, set_aside...) or `hand:SIDE`
    provisional: str | None  # why the card (or one of its values) is provisional
    # what a player reads on the card, in print order: (property, value; True for a flag); the
    # deck's `face: [...]` chooses them (the others are the rules' own records: a chit's starting
    # pile, the turns it may be used), else every property with a value, then every flag
    face: list[tuple[str, Any]] = field(default_factory=list)

    def events_of(self, side: str) -> list[CardEvent]:
        """The side's events: those that name it, then those of either side."""
        return [e for e in self.events if e.side == side] + [e for e in self.events if e.side is None]


@dataclass
class DeckFacts:
    name: str
    label: str
    decl: ast.Deck
    rules: dict[str, Any]  # the deck's own properties (reshuffle_at...)
    cards: list[CardFacts]
    drawn_by: tuple[str, ...]  # the sides that draw from it (`draw(s, deck, n)`)
    piles: dict[str, list[str]] = field(default_factory=dict)  # at the set-up: pile -> cards, in declaration order
    hands: dict[str, list[str]] = field(default_factory=dict)  # at the set-up: side -> its cards of this deck
    # who sees each pile's cards (`pile "cup" face_down`): face_down, face_up or owner_only
    visibility: dict[str, str] = field(default_factory=dict)
    # the titles the deck gives its piles (`pile "set_aside" "Set aside this turn" [ru: "..."]`):
    # pile -> language (None: the label itself) -> title
    titles: dict[str, dict[str | None, str]] = field(default_factory=dict)

    def declared_title(self, pile: str, lang: str | None = None) -> str | None:
        """The pile's title as the deck declares it, in `lang` where translated; None if it declares none."""
        titles = self.titles.get(pile)
        return None if titles is None else titles.get(lang) or titles[None]

    def pile_title(self, pile: str, lang: str | None = None) -> str:
        """The pile's title for players: the deck's own, else what the built-in pile is (the engine's
        meaning: set aside = not in the game yet), else its name."""
        return (self.declared_title(pile, lang) or BUILTIN_PILE_TITLES.get(pile)
                or pile.replace("_", " ").capitalize())

    def face_down(self, pile: str) -> bool:
        """Whether nobody but its cards' owners sees a pile's cards (face down or owner only): a
        VASSAL deck shows them face down, an aid says the pile is hidden."""
        return self.visibility.get(pile, "face_up") != "face_up"

    @property
    def composition(self) -> dict[str, int]:
        """How many cards (copies counted) start where: {"draw": 48, "set_aside": 6, "hand:axis": 0}."""
        out: dict[str, int] = {}
        for c in self.cards:
            out[c.start] = out.get(c.start, 0) + c.copies
        return out

    @property
    def size(self) -> int:
        return sum(c.copies for c in self.cards)


def deck_facts(engine, state) -> list[DeckFacts]:
    """Every deck of the game with its cards; piles and hands as `state` (the set-up) has them."""
    game = engine.game
    decks = list(game.of_kind(ast.Deck))
    if not decks:
        return []
    sides = [s.name for s in game.sides]
    events = _events(engine, decks, sides)
    mentions = _mentions(game, {c.name for d in decks for c in d.cards}, {id(e.rule) for es in events.values() for e in es})
    out = []
    for deck in decks:
        drawn_by = _drawn_by(engine, deck, sides)
        piles, hands = _places(engine, state, deck)
        where = {c: p for p, cards in piles.items() for c in cards}
        where.update({c: f"hand:{s}" for s, cards in hands.items() for c in cards})
        cards = []
        for c in deck.cards:
            ent = engine.entities[c.name]
            props = {k: v for k, v in ent.props.items() if not k.startswith("_")}
            declared = _declared(props)
            found = events.get(c.name, [])
            owners = declared if declared is not None else set(drawn_by)
            copies = props.get("copies", 1)
            values = {k: v for k, v in props.items() if v is not True and k not in OWNER_KEYS and k != "copies"}
            flags = [k for k, v in props.items() if v is True]
            cards.append(CardFacts(
                c.name, c.header.title(), deck.name, c,
                values, flags, copies if isinstance(copies, int) and copies > 0 else 1,
                tuple(s for s in sides if s in owners), declared is not None, found, mentions.get(c.name, []),
                where.get(c.name, "draw"), _provisional(c), _face(deck, props, values, flags)))
        rules = {k: v for k, v in engine.entities[deck.name].props.items()
                 if not k.startswith("_") and k != "face"}  # the face is how its cards are printed, not a rule
        out.append(DeckFacts(deck.name, deck.header.title(), deck, rules, cards, drawn_by,
                             {p: [c.name for c in deck.cards if where.get(c.name) == p] for p in piles},
                             {s: [c for c in cards_ if c in where] for s, cards_ in hands.items()},
                             deck.visibility(),
                             {p: {None: d.label, **d.translations} for p, d in deck.pile_labels().items()}))
    return out


def _face(deck: ast.Deck, props: dict[str, Any], values: dict[str, Any], flags: list[str]) -> list[tuple[str, Any]]:
    """The properties printed on a card (see CardFacts.face); a property the card lacks, a false
    flag or an empty list (a special chit activates no HQ of its own) prints nothing."""
    keys = deck.face_keys()
    if keys is None:
        return [*values.items(), *((f, True) for f in flags)]
    return [(k, props[k]) for k in keys if props.get(k) is not None and props[k] is not False
            and not (isinstance(props[k], (tuple, list)) and not props[k])]  # 0 prints


def _places(engine, state, deck: ast.Deck) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The deck's piles and the sides' hands (cards of this deck) at the set-up."""
    names = {c.name for c in deck.cards}
    if state is None:
        aside = [c.name for c in deck.cards if engine.entities[c.name].props.get("set_aside")]
        return {"draw": [c.name for c in deck.cards if c.name not in aside], "set_aside": aside}, {}
    piles = engine.cards.piles(state.snapshot(), deck.name)  # as the engine makes them (a snapshot: nothing changes)
    hands = {s: [c for c in cards if c in names] for s, cards in state.hands.items()}
    return {p: list(cards) for p, cards in piles.items()}, hands


def _declared(props: dict) -> set[str] | None:
    for key in OWNER_KEYS:
        v = props.get(key)
        if isinstance(v, Entity):
            return {v.name}
        if isinstance(v, tuple) and v:
            return {x.name for x in v if isinstance(x, Entity)}
    return None


def _provisional(c: ast.Card) -> str | None:
    notes = [c.header.provenance.note or "provisional"] if c.header.provenance is not None and c.header.provenance.kind == "provisional" else []
    notes += [p.provenance.note or "provisional" for p in c.props if p.provenance is not None and p.provenance.kind == "provisional"]
    return "; ".join(dict.fromkeys(notes)) if notes else None


def _events(engine, decks, sides) -> dict[str, list[CardEvent]]:
    """card -> the triggers that are about it (see the module's docstring), in rule order."""
    game = engine.game
    triggers = list(game.triggers) + [t for sc in game.scenarios.values() for t in sc.triggers]
    out: dict[str, list[CardEvent]] = {}
    for trig in triggers:
        if trig.when is None:
            continue
        name_params = [p.name for p in trig.params if p.type == "name"]
        side_params = [p.name for p in trig.params if p.type == "side"]
        for param in name_params:
            for deck in decks:
                base = {p.name: Each() for p in trig.params}
                about = [c.name for c in deck.cards
                         if truth(Partial(engine).ev(trig.when, {**base, param: engine.entities[c.name]})) is not False]
                if not about or len(about) == len(deck.cards):
                    continue  # about no card, or about any card (a rule for every card, not an event)
                for card in about:
                    env = {**base, param: engine.entities[card]}
                    whose = [None]
                    if side_params:
                        whose = [s for s in sides
                                 if truth(Partial(engine).ev(trig.when, {**env, side_params[0]: engine.entities[s]})) is not False]
                        if len(whose) == len(sides):
                            whose = [None]
                    for s in whose:
                        out.setdefault(card, []).append(CardEvent(s, trig.header.name, trig))
    return out


def _drawn_by(engine, deck: ast.Deck, sides: list[str]) -> tuple[str, ...]:
    """The sides the rules draw this deck for: a side they name, or every side when play decides."""
    found: set[str] = set()
    for node, _env in rule_bodies(engine.game):
        for n in walk(node):
            if (isinstance(n, ast.Call) and n.func == "draw" and len(n.args) >= 2 and isinstance(n.args[1], ast.Name)
                    and n.args[1].id == deck.name):
                who = n.args[0]
                if isinstance(who, ast.Name) and who.id in sides:
                    found.add(who.id)
                else:
                    found |= set(sides)
    return tuple(s for s in sides if s in found)


def _mentions(game, cards: set[str], events: set[int]) -> dict[str, list[object]]:
    """card -> the declarations (other than its event triggers) whose rules name it."""
    out: dict[str, list[object]] = {}
    for node, _env in rule_bodies(game):
        if isinstance(node, (ast.Deck, ast.Scenario)) or id(node) in events:
            continue
        named = {n.id for n in walk(node) if isinstance(n, ast.Name) and n.id in cards}
        for card in named:
            out.setdefault(card, []).append(node)
    return out
