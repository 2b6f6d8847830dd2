"""Decks of cards in a VASSAL module: card images, card pieces and the decks they start in.

Generic: every `deck` of the rules becomes a "Cards" map with one VASSAL deck (DrawPile) per pile
of the engine's card model (`interpreter/cards.py`): the draw pile (face down, shuffled), the
discard pile (face up; its menu sends it back into the draw pile, the reshuffle), the removed
cards and the cards set aside, then the piles the deck declares itself (`piles: [...]`, drawn at
random: a cup of chits) and the play area when the set-up leaves cards in it. A pile is face down
when the rules say nobody sees its cards (`pile "cup" face_down`, the draw pile) or only their
owners do (`owner_only`: the owner who puts a card there may peek at it, VASSAL's Mask); else
face up;
each side gets a PlayerHand, a private window with a face-up deck
for its hand. The piles are filled as the scenario's set-up leaves them (a fresh game: every
card in the draw pile except the set-aside ones; a card the set-up gives a side is in its hand).

A card's image is drawn from its declaration: its label, then its text properties (each event,
mark...), its flags as tags, a dashed red border when something on it is provisional. The back
shows the deck's name. A card piece is a BasicPiece with the face, under a Mask (Obscurable)
trait with the back, so a face-down deck shows backs.
"""

from __future__ import annotations

from warcodex.dsl import ast
from warcodex.exporters.vassal.buildfile import DeckPlan, MapPlan, Slot
from warcodex.exporters.vassal.gamedata import CardFace
from warcodex.exporters.vassal.encoder import basic_piece, clean_text, keystroke, piece_definition, trait
from warcodex.exporters.vassal.svg import Svg, ink_on, text_width

CARD_W, CARD_H = 250, 350
PILES = ("draw", "discard", "removed", "set_aside")


def _wrap(text: str, size: float, width: float) -> list[str]:
    lines, cur = [], ""
    for word in text.split():
        trial = f"{cur} {word}".strip()
        if cur and text_width(trial, size) > width:
            lines.append(cur)
            cur = word
        else:
            cur = trial
    if cur:
        lines.append(cur)
    return lines


def card_face_svg(card: CardFace, deck_title: str, band: str | None = None) -> bytes:
    """A card face: title band (in its side's colour `band` when it belongs to one side: a
    chit-pull game's chits are told apart by it), the properties as short paragraphs, the flags
    as tags."""
    svg = Svg(CARD_W, CARD_H)
    border = "#c62828" if card.provisional else "#333333"
    svg.el(None, "rect", x=2, y=2, width=CARD_W - 4, height=CARD_H - 4, rx=12, fill="#fbf8ef", stroke=border,
           stroke_width=3, stroke_dasharray="8,5" if card.provisional else None)
    band = band or "#3b3b3b"
    svg.el(None, "rect", x=8, y=8, width=CARD_W - 16, height=44, rx=8, fill=band)
    title = _wrap(card.label, 12, CARD_W - 44)[:2]
    for i, line in enumerate(title):
        svg.text(None, CARD_W / 2, (35 if len(title) == 1 else 27) + i * 15, line, 12, weight="bold", fill=ink_on(band),
                 max_width=CARD_W - 24)
    # the body: as many properties as fit, in a font that shrinks with the amount of text
    total = sum(len(k) + len(v) for k, v in card.fields)
    size = 9.5 if total < 350 else 8.5 if total < 600 else 7.5 if total < 850 else 6.5
    y = 66
    for key, value in card.fields:
        lines = _wrap(f"{key}: {value}", size, CARD_W - 24)
        for j, line in enumerate(lines):
            if y > CARD_H - 34:
                break
            if j == 0 and ":" in line:
                head, rest = line.split(":", 1)
                svg.text(None, 12, y, head + ":", size, anchor="start", weight="bold")
                svg.text(None, 12 + text_width(head + ":", size, "bold") + 3, y, rest.strip(), size, anchor="start")
            else:
                svg.text(None, 12, y, line, size, anchor="start")
            y += size * 1.25
        y += size * 0.4
    x = 10
    for flag in card.flags:
        w = text_width(flag, 8) + 10
        svg.el(None, "rect", x=x, y=CARD_H - 26, width=w, height=14, rx=4, fill="#e8e0c8")
        svg.text(None, x + w / 2, CARD_H - 16, flag, 8)
        x += w + 4
    if card.provisional:
        svg.text(None, CARD_W - 12, CARD_H - 16, "PROVISIONAL", 8, anchor="end", weight="bold", fill="#c62828")
    return svg.tostring()


def card_back_svg(deck_title: str) -> bytes:
    svg = Svg(CARD_W, CARD_H)
    svg.el(None, "rect", x=2, y=2, width=CARD_W - 4, height=CARD_H - 4, rx=12, fill="#5b6b7a", stroke="#222222",
           stroke_width=3)
    svg.el(None, "rect", x=14, y=14, width=CARD_W - 28, height=CARD_H - 28, rx=8, fill="none", stroke="#d9d2bc",
           stroke_width=2)
    for i, line in enumerate(_wrap(deck_title, 20, CARD_W - 50)[:3]):
        svg.text(None, CARD_W / 2, CARD_H / 2 - 10 + i * 24, line, 20, weight="bold", fill="#f3efe2")
    return svg.tostring()


def card_slot(card: CardFace, face: str, back: str, gpid: int) -> Slot:
    """A card piece: a Mask (Obscurable) with the back image around a BasicPiece with the face.
    The Mask's fields are written as VASSAL writes them back (Obscurable.myGetType: key, image,
    command, display style B(ackground), mask name, access, peek command, description, auto-peek,
    deal key, deal expression), so a saved card is the card of the module."""
    label = clean_text(card.label)
    return Slot(label, gpid, CARD_W, CARD_H, piece_definition([
        trait("obs;", [keystroke(None), back, "Face down", "B", "?", "player:", "Peek", "", False, "", ""], "null;"),
        trait("delete;", ["Delete", keystroke(68, 130), "Delete"]),
        basic_piece(face, label, gpid)]), card=card.name)


def deck_piles(engine, deck: str, piles: dict[str, list[str]]) -> list[str]:
    """The piles of a deck on the card table: the usual four, the deck's own, the play area if used."""
    own = [p for p in engine.cards.pile_names[deck] if p not in ast.Deck.BUILTIN_PILES]
    extra = [p for p in ast.Deck.BUILTIN_PILES if p not in PILES and piles.get(p)]
    return [*PILES, *own, *extra]


def deck_maps(data, images, next_gpid, sides) -> list[MapPlan]:
    """The card maps of every deck: the table with the piles, then one hand a side."""
    engine = data.engine
    decks = list(engine.game.of_kind(ast.Deck))
    if not decks:
        return []
    state = engine.new_game(data.scenario, seed=0)  # the piles as the scenario's set-up leaves them
    maps = []
    table_decks: list[DeckPlan] = []
    hands: dict[str, list[Slot]] = {s.name: [] for s in sides}
    col, widest = 0, len(PILES)
    for deck in decks:
        title = deck.header.title()
        pile_title = data.pile_titles[deck.name]  # the facts': the deck's own titles, else the built-in piles' meaning
        back = images.add(f"card back {deck.name}", card_back_svg(title))
        infos = {c.name: c for c in data.cards[deck.name]}  # the faces, from the facts
        piles = engine.cards.piles(state, deck.name)
        faces = {n: images.add(f"card {deck.name} {n}", card_face_svg(c, title, data.side(c.side).color if c.side else None))
                 for n, c in infos.items()}
        for i, pile in enumerate(deck_piles(engine, deck.name, piles)):
            cards = [infos[n] for n in piles[pile]]
            slots = [card_slot(c, faces[c.name], back, next_gpid()) for c in cards]
            # a pile nobody, or only its cards' owners, may look through: its cards show their backs
            seen = engine.cards.visibility[deck.name].get(pile, "face_up")
            face_down = seen != "face_up"
            own = pile not in ast.Deck.BUILTIN_PILES
            table_decks.append(DeckPlan(f"{title}: {pile_title[pile]}", 40 + (CARD_W + 60) * i,
                                        60 + (CARD_H + 110) * col, CARD_W, CARD_H, slots, face_down=face_down,
                                        # drawn in front of everybody, except into a hand
                                        drawn_face_up=seen == "face_down" and pile != "draw",
                                        shuffle=face_down or own,
                                        reshuffle_target=f"{title}: {pile_title['draw']}" if pile == "discard" else None,
                                        deck=deck.name, pile=pile))
        for side, hand in state.hands.items():
            hands.setdefault(side, []).extend(card_slot(infos[n], faces[n], back, next_gpid())
                                              for n in hand if n in infos)
        widest = max(widest, len(deck_piles(engine, deck.name, piles)))
        col += 1
    width = 40 + (CARD_W + 60) * widest
    height = 60 + (CARD_H + 110) * col
    table_img = images.add("board card table", _table_svg(width, height, [d.name for d in table_decks], table_decks))
    maps.append(MapPlan("Cards", "Card table", table_img, width, height, launch=True, button="Cards",
                        decks=table_decks))
    for s in sides:
        hand_img = images.add(f"board hand {s.name}", _table_svg(CARD_W + 80, CARD_H + 110, [f"{s.label} hand"], None))
        maps.append(MapPlan(f"{s.label} hand", f"{s.label} hand", hand_img, CARD_W + 80, CARD_H + 110, launch=True,
                            button=f"{s.label} hand", hand_side=s.label,
                            decks=[DeckPlan(f"{s.label} hand", 40, 60, CARD_W, CARD_H, hands.get(s.name, []),
                                            face_down=False, shuffle=False, hand=s.name)]))
    return maps


def _table_svg(width: int, height: int, names: list[str], decks) -> bytes:
    svg = Svg(width, height)
    svg.el(None, "rect", x=0, y=0, width=width, height=height, fill="#2f5d3a")
    if decks is None:
        svg.text(None, width / 2, 32, names[0], 16, weight="bold", fill="#f3efe2")
        return svg.tostring()
    for d in decks:
        svg.el(None, "rect", x=d.x - 4, y=d.y - 4, width=d.width + 8, height=d.height + 8, rx=14, fill="none",
               stroke="#d9d2bc", stroke_width=2, stroke_dasharray="6,4")
        lines = _wrap(d.name, 12, d.width + 40)[:2]
        for i, line in enumerate(lines):  # a title of two lines starts higher: VASSAL draws a pile's top card raised
            svg.text(None, d.x + d.width / 2, d.y - 30 - 14 * (len(lines) - 1) + i * 14, line, 12, weight="bold",
                     fill="#f3efe2")
    return svg.tostring()
