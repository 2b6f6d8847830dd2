"""Decks in VASSAL modules (exporters/vassal/cards.py), on the test-only card fragment
(tests/data/games/cards): each pile of the engine's card model is a VASSAL deck on a card table
(the draw pile face down and shuffled, the discards sent back into it), each side's hand a
private PlayerHand window, every card a CardSlot with its face and, under a Mask, the deck's back."""

from __future__ import annotations

import io
import zipfile

import pytest
from lxml import etree

from warcodex.exporters.vassal import build_module
from warcodex.exporters.vassal.catalog import MAP, WIDGET, M
from warcodex.exporters.vassal.encoder import decode_piece, trait_fields


@pytest.fixture(scope="module")
def module():
    return build_module("tests/data/games/cards", "short")


@pytest.fixture(scope="module")
def root(module):
    return etree.fromstring(module.files["buildFile.xml"])


def test_the_piles_are_decks_on_a_card_table(root):
    table = next(m for m in root.iter(M + "Map") if m.get("mapName") == "Cards")
    piles = {d.get("name"): d for d in table.iter(MAP + "DrawPile")}
    draw, discard = piles["Event cards: Draw pile"], piles["Event cards: Discard pile"]
    assert draw.get("faceDown") == "Always" and draw.get("shuffle") == "Always"
    assert discard.get("faceDown") == "Never" and discard.get("reshuffleTarget") == "Event cards: Draw pile"
    # a fresh game: every card in the draw pile, except the one set aside
    assert len(draw.findall(WIDGET + "CardSlot")) == 6
    aside = piles["Event cards: Set aside (not in the game yet)"]
    assert [c.get("entryName") for c in aside.findall(WIDGET + "CardSlot")] == ["Late entry"]


def test_each_side_has_a_private_hand(root):
    hands = {h.get("side"): h for h in root.iter(M + "PlayerHand")}
    assert set(hands) == {"Red", "Blue"}
    assert all(h.get("visible") == "false" and h.find(MAP + "DrawPile") is not None for h in hands.values())


def test_a_card_shows_its_face_and_hides_under_the_deck_back(module, root):
    names = set(zipfile.ZipFile(io.BytesIO(module.zip_bytes())).namelist())
    slot = next(root.iter(WIDGET + "CardSlot"))
    traits = decode_piece(slot.text).traits
    mask = next(t for t in traits if t.prefix == "obs;")
    basic = traits[-1]
    assert trait_fields(mask)[1] == "card_back_events.png" and "images/card_back_events.png" in names
    assert trait_fields(basic)[2].startswith("card_events_") and "images/" + trait_fields(basic)[2] in names
    gpids = [int(e.get("gpid")) for e in root.iter(WIDGET + "PieceSlot", WIDGET + "CardSlot")]
    assert len(gpids) == len(set(gpids))


def test_card_faces_carry_their_texts_and_flags(module):
    face = module.svgs["card_events_gain2.png"].decode()
    assert "Big gain" in face and "Gain 2 VP." in face and "PROVISIONAL" not in face
    late = module.svgs["card_events_late.png"].decode()
    assert "Late entry" in late and "set aside" in late  # the flag, as a tag


def test_the_piles_a_deck_declares_are_decks_too():
    """A deck with its own piles (the test game's cup of command chits, tests/data/games/chit_cup):
    each declared pile is a deck on the card table, drawn at random, with the cards that start in
    it; face down where the rules say so (`pile "cup" face_down`, `pile "set_aside" owner_only`),
    face up otherwise."""
    root = etree.fromstring(build_module("tests/data/games/chit_cup").files["buildFile.xml"])
    table = next(m for m in root.iter(M + "Map") if m.get("mapName") == "Cards")
    piles = {d.get("name"): d for d in table.iter(MAP + "DrawPile")}
    assert {"Command chits: Cup", "Command chits: Drawn", "Command chits: Later"} <= set(piles)
    assert "Command chits: Draw pile" in piles  # the built-in piles stay, empty
    cards = {n: [c.get("entryName") for c in d.iter(WIDGET + "CardSlot")] for n, d in piles.items()}
    assert sorted(cards["Command chits: Cup"]) == ["Blue Gamma", "Red Alpha", "Red Beta"]
    assert cards["Command chits: Later"] == ["Blue Late"] and cards["Command chits: Drawn"] == []
    cup = piles["Command chits: Cup"]
    assert cup.get("shuffle") == "Always" and cup.get("faceDown") == "Always"
    assert cup.get("drawFaceUp") == "true"  # a chit drawn from the cup is shown to both players
    assert piles["Command chits: Draw pile"].get("drawFaceUp") == "false"  # a card drawn into a hand is not
    # the title the deck gives the pile (`pile "set_aside" owner_only "Set aside this turn"`): these
    # chits are in the game, only out of this turn's cup; owner only: taken back unseen by the other
    aside = piles["Command chits: Set aside this turn"]
    assert aside.get("faceDown") == "Always" and aside.get("drawFaceUp") == "false"
    assert piles["Command chits: Drawn"].get("faceDown") == "Never" and piles["Command chits: Later"].get("faceDown") == "Never"


def test_stargard_piles_are_titled_as_the_deck_declares_them():
    """Stargard Solstice's chits set aside are in the game, drawn when their side may activate no
    more this turn (§2.3.1, §3.1.2) and back in the cup at the turn's end: the module calls the pile
    what the deck calls it (the facts' `DeckFacts.pile_title`), not the built-in pile's meaning
    ("not in the game yet", No Retreat!'s cards set aside until 1945), and a pile the deck titles
    by name only keeps its title."""
    from itertools import count

    from warcodex.exporters.vassal import gamedata
    from warcodex.exporters.vassal.cards import deck_maps

    class Names:  # the images by name only: the titles are the point here, not the pictures
        def add(self, stem, svg):
            return stem

    data = gamedata.load("games/stargard-solstice", "solstice")
    titles = data.pile_titles["command_chits"]
    assert titles["set_aside"] == "Set aside this turn" and titles["withheld"] == "Withheld (hidden from the German player)"
    assert titles["drawn"] == "Draw Chit boxes" and titles["draw"] == "Draw pile"  # §1.2.5; the built-in one's meaning
    table = next(m for m in deck_maps(data, Names(), count(1).__next__, data.sides) if m.name == "Cards")
    piles = {d.name: d for d in table.decks}
    assert {"Command chits: Set aside this turn", "Command chits: Cup", "Command chits: Draw Chit boxes",
            "Command chits: Removed with its HQ"} <= set(piles)
    assert not any("not in the game yet" in n for n in piles)
    assert piles["Command chits: Discard pile"].reshuffle_target == "Command chits: Draw pile"


def test_a_card_face_shows_values_as_a_player_reads_them():
    """Stargard Solstice's 61st Army chit (§1.4, §15.2: commands 61a and 7gc, a Soviet chit): a list
    reads "61a, 7gc" and the owner is the side's name, not Python's rendering of the values."""
    from warcodex.dsl import ast
    from warcodex.exporters.vassal import gamedata
    from warcodex.exporters.vassal.cards import card_infos

    data = gamedata.load("games/stargard-solstice")
    (deck,) = data.engine.game.of_kind(ast.Deck)
    chit = next(c for c in card_infos(deck, data.engine) if c.name == "chit_61a")
    fields = dict(chit.fields)
    assert chit.label == "61st Army"
    assert fields["commands"] == "61a, 7gc" and fields["owner"] == "Soviet"
    assert fields["usable from"] == "1" and fields["usable to"] == "10"
