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


def test_a_chit_face_shows_what_a_player_reads_on_the_chit():
    """Stargard Solstice's command chits (§1.4, §3.1.1): the chit names its army or corps and the
    HQs it activates (the 61st Army's chit: its own HQ and Konstantinov's, §2.3.1), by the HQs'
    names, in its side's colour; a special chit (§3.1.5) says so. Where it starts (`pile:`) and the
    turns it may be used are the rules' own records, not printed (the deck's `face:`)."""
    from warcodex.exporters.vassal import gamedata

    data = gamedata.load("games/stargard-solstice")
    chits = {c.name: c for c in data.cards["command_chits"]}
    chit = chits["chit_61a"]
    assert chit.label == "61st Army" and chit.side == "soviet"
    assert chit.fields == [("activates", "61 HQ, Konstantinov HQ")] and chit.flags == []
    assert chits["chit_stell2"].fields == [("activates", "Stell II HQ")] and chits["chit_stell2"].side == "german"
    assert chits["chit_3pz_aok"].fields == [] and chits["chit_3pz_aok"].flags == ["special", "independents anywhere"]
    assert chits["chit_1brf"].flags == ["special", "also cavalry"]


@pytest.fixture(scope="module")
def stargard_module():
    return build_module("games/stargard-solstice", "solstice")


def test_stargard_chit_images_print_no_rules_records(stargard_module):
    """The chit images themselves: no `pile: waiting`, no empty `commands:` line, no usable turns;
    the face band takes the owner's colour."""
    module = stargard_module
    faces = {k: v.decode() for k, v in module.svgs.items() if k.startswith("card_command_chits_")}
    assert len(faces) == 15
    for name, svg in faces.items():
        for raw in ("pile", "usable", "commands", "waiting", "owner"):
            assert raw not in svg, (name, raw)
    sixty_first = faces["card_command_chits_chit_61a.png"]
    assert "61st Army" in sixty_first and "61 HQ, Konstantinov HQ" in sixty_first
    soviet = next(s.color for s in module.data.sides if s.name == "soviet")
    assert f'fill="{soviet}"' in sixty_first


@pytest.fixture(scope="module")
def no_retreat_data():
    from warcodex.exporters.vassal import gamedata

    return gamedata.load("games/no-retreat")


def test_no_retreat_cards_print_their_events_not_the_rules_reading_of_them(no_retreat_data):
    """No Retreat! card 01 (§K01): its number, each side's event and text, the red "45" (removed in
    1945, §A3); when each event may be played is the rules' reading of its text (`axis_when`), and
    `set_aside` the engine's starting place of the green-45 cards: neither is printed."""
    data = no_retreat_data
    cards = {c.name: c for c in data.cards["events"]}
    c01 = cards["c01"]
    assert [k for k, _ in c01.fields] == ["number", "axis event", "axis text", "soviet event", "soviet text"]
    assert dict(c01.fields)["soviet event"] == "Stavka" and c01.flags == ["removed 1945"]
    assert cards["c45"].flags == ["added 1945"]  # not "set aside"
    assert all(not k.endswith(" when") for c in cards.values() for k, _ in c.fields)


def test_a_deck_without_a_face_prints_every_property():
    """A deck that does not say what its cards print shows every property (the test fragment's
    texts and VP, its flags as tags)."""
    from warcodex.exporters.vassal import gamedata

    data = gamedata.load("tests/data/games/cards", "short")
    gain2 = next(c for c in data.cards["events"] if c.name == "gain2")
    assert gain2.fields == [("text", "Gain 2 VP."), ("vp", "2")]


def test_stargard_hq_and_air_counters_print_their_own_values_not_0_0_8(stargard_module):
    """§3.2: an HQ is no combat unit; "instead of attack and defense, an HQ counter shows a command
    range", then its movement allowance (§5.1.1); an air unit +2 STRONG ATTACK on its front and
    +1 NORMAL ATTACK on its back (§13). Their counters printed attack-defense-move, "0-0-8" and
    "0-0-0" (the rules' zero strengths); the classes' `face:` says what they print, in the VASSAL
    module's images (the counter sheet is made of them) and on the replay viewer's counters."""
    from warcodex.exporters.viewer.symbols import Symbols
    from warcodex.facts import facts_of

    module = stargard_module
    hq = module.data.unit_type("s_61_hq")
    assert hq.factors(1) == "10-8" and module.data.unit_type("g_stell_ii_hq").factors(1) == "8-8"
    assert module.data.unit_type("g_rudel").factors(1) == "+2 / +1"
    assert module.data.unit_type("g_rudel").values[1]["strong"] == 2  # the printed values, §13
    images = {k: v.decode() for k, v in module.svgs.items() if k.startswith("unit_")}
    hq_images = [v for k, v in images.items() if "_s_61_hq_" in k]
    air_images = [v for k, v in images.items() if "_g_rudel_" in k]
    assert hq_images and all(">10-8<" in v for v in hq_images)
    assert air_images and all(">+2 / +1<" in v for v in air_images)
    assert not any(">0-0-8<" in v or ">0-0-0<" in v for v in images.values())
    assert any(">3-3-5<" in v for v in images.values())  # a combat unit keeps attack-defense-move
    engine = module.data.engine
    symbols = Symbols(engine, facts_of(engine, "solstice"), 64)
    symbols.unit("s_61_hq", "soviet", "61 HQ", 1)
    assert ">10-8<" in symbols.svg_defs() and "0-0-8" not in symbols.svg_defs()


def test_no_retreat_counters_print_strength_and_movement(no_retreat_data):
    """No Retreat!'s counters print combat strength - movement (the digest's reading of the two
    printed numbers; §A2 "strength notations"): its types have no attack or defense, so the
    counters printed the movement alone ("4" for a 5-4 German army). Per step; a unit without a
    ZOC prints its strength in parentheses (§A2), a static one a single number ("Breslau (1)")."""
    data = no_retreat_data
    army = data.unit_type("german_army")
    assert (army.factors(2), army.factors(1)) == ("5-4", "3-4")
    assert data.unit_type("finnish_army").factors(2) == "(4)-3"
    assert data.unit_type("volkssturm").factors(1) == "(1)"
    assert data.unit_type("berlin_garrison").factors(1) == "2"
