"""Card lists: for every deck, its own rules (`reshuffle_at`), its composition (how many cards
start in the draw pile, set aside, in a hand) and who draws from it; for every card, what is
printed on it (`CardFacts.face`: texts, numbers, marks; not the rules' records about it), owners where they are not every side that draws, and its
events: the rules that run for it, for each side. From the facts' decks (`GameFacts.decks`).
"""

from __future__ import annotations

from dataclasses import dataclass

from warcodex.exporters.aids.writer import Ref


@dataclass
class CardAid:
    """One card of a deck: its label and its properties as printed (text, numbers, flags)."""
    name: str
    label: str
    refs: list[Ref]
    fields: list[tuple[str, str]]  # (property label, value) for valued properties
    flags: list[str]  # labels of the card's true flags (marks such as "Removed 1945")
    provisional: str | None = None
    owners: str | None = None  # when not every side that draws the deck
    events: list[tuple[str, str, list[Ref]]] = None  # (whose: a side or "either side", the rule, its sections)


@dataclass
class DeckAid:
    """A deck: its own rules (reshuffle...), its composition and its cards, in declaration order."""
    name: str
    title: str
    refs: list[Ref]
    rules: list[str]
    cards: list[CardAid]
    composition: str = ""


def deck_aids(w) -> list[DeckAid]:
    out = []
    for deck in w.facts.decks:
        rules = [f"{w.labels.prop(k)}: {w.value(v)}" for k, v in deck.rules.items()]
        if deck.drawn_by:
            rules.append(w.ui("drawn_by", sides=", ".join(w.label(s) for s in deck.drawn_by)))
        for pile, seen in deck.visibility.items():  # the hidden piles the rules declare (the draw pile goes without saying)
            if seen != "face_up" and pile != "draw":
                rules.append(w.ui("pile_" + seen, pile=_pile_name(w, deck, pile)))
        cards = []
        for c in deck.cards:
            # what is printed on the card (the deck's `face:`), not the rules' records about it
            fields = [(w.labels.prop(k), w.value(v)) for k, v in c.face if v is not True]
            flags = [w.labels.prop(k) for k, v in c.face if v is True]
            owners = None
            if c.owners and (c.declared or set(c.owners) != set(deck.drawn_by)):
                owners = ", ".join(w.label(s) for s in c.owners)
            events = [(w.label(e.side) if e.side else w.ui("either_side"), w.of(e.rule) if e.rule.header.label else e.event,
                       w.refs(e.rule.header.citations)) for e in c.events]
            cards.append(CardAid(c.name, w.of(c.decl), w.refs(c.decl.header.citations), fields, flags, c.provisional,
                                 owners, events))
        where = ", ".join(w.ui("cards_in", n=n, where=_pile(w, deck, p)) for p, n in deck.composition.items() if n)
        out.append(DeckAid(deck.name, w.of(deck.decl), w.refs(deck.decl.header.citations), rules, cards,
                           w.ui("cards_count_one" if deck.size == 1 else "cards_count", n=deck.size) + (f" ({where})" if where else "")))
    return out


def _pile(w, deck, place: str) -> str:
    """Where cards are: a hand, a pile by the title the deck gives it (`pile "cup" "The cup"`), else
    a built-in pile in the aid's words, else the name of a pile the deck declares (a cup of chits)."""
    if place.startswith("hand:"):
        return w.ui("pile_hand", side=w.label(place[5:]))
    title = deck.declared_title(place, w.labels.lang)
    if title is None and ("pile_" + place) in _PILES:
        return w.ui("pile_" + place)
    return w.ui("pile_named", pile=title or place.replace("_", " "))


def _pile_name(w, deck, pile: str) -> str:
    """A pile's name as a player reads it: the title the deck gives it, else its name."""
    return deck.declared_title(pile, w.labels.lang) or pile.replace("_", " ").capitalize()


_PILES = {"pile_draw", "pile_discard", "pile_removed", "pile_set_aside", "pile_play"}
