"""Overlays and scenario special rules: replacing rules without editing rule files."""

from __future__ import annotations

import shutil
from pathlib import Path

from warcodex.dsl.checker import check_path
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import play
from warcodex.interpreter.values import Odds

PUBLISHED_CRT = '''
# my copy of the published card (an overlay: no rule file is edited)
override table crt player_aid "published card, second printing" {
  row 1: AR | DR1 | DR1 | DR2 | DE | DE
}
'''


def copy_tiny(tmp_path: Path) -> Path:
    target = tmp_path / "tiny"
    shutil.copytree("games/tiny", target)
    return target


def provisional_names(diags) -> list[str]:
    return [d.message.split(" is provisional")[0] for d in diags.warnings if d.code == "W-provisional"]


def test_an_overlay_file_replaces_provisional_table_rows(tmp_path):
    folder = copy_tiny(tmp_path)
    base, diags = check_path(folder)
    assert "table crt" in provisional_names(diags)

    (folder / "overlay.wcx").write_text(PUBLISHED_CRT, encoding="utf-8")
    game, diags = check_path(folder)
    assert not diags.errors, [d.render() for d in diags.errors]
    assert "table crt" not in provisional_names(diags)  # now marked player_aid
    crt = game.names["crt"]
    assert crt.header.provenance.kind == "player_aid"
    assert crt.header.provenance.note == "published card, second printing"
    engine = Engine(game)
    table = engine.tables["crt"]
    assert str(table.lookup([Odds.ratio(1, 2), 1], None)) == "AR"  # the overlaid row 1
    assert str(table.lookup([Odds.ratio(5, 1), 1], None)) == "DE"
    assert str(table.lookup([Odds.ratio(1, 2), 2], None)) == "AR"  # row 2 is the original


def test_overlay_given_on_the_command_line(tmp_path):
    folder = copy_tiny(tmp_path)
    overlay = tmp_path / "mine.wcx"
    overlay.write_text(PUBLISHED_CRT, encoding="utf-8")
    game, diags = check_path(folder, [overlay])
    assert not diags.errors
    assert game.names["crt"].header.provenance.kind == "player_aid"


def test_an_override_of_an_undeclared_name_is_an_error(tmp_path):
    folder = copy_tiny(tmp_path)
    (folder / "overlay.wcx").write_text('override table crtt player_aid { row 1: AR | AR | AR | AR | AR | AR }\n')
    game, diags = check_path(folder)
    assert game is None
    assert [d.code for d in diags.errors] == ["E-override"]
    assert diags.errors[0].span.line == 1


def test_scenario_special_rules_override_base_rules_only_in_that_scenario(tmp_path):
    folder = copy_tiny(tmp_path)
    text = (folder / "scenarios.wcx").read_text(encoding="utf-8")
    text += '''
scenario blizzard "Blizzard" §9 {
  first_turn: 1
  last_turn: 2
  setup {
    place(infantry, axis, "0204")
    place(rifle, soviet, "0904")
  }
  override quantity move_cost(u: unit, from: location, to: location): num "movement in deep snow" §8 {
    base: 3
  }
}
'''
    (folder / "scenarios.wcx").write_text(text, encoding="utf-8")
    game, diags = check_path(folder)
    assert not diags.errors, [d.render() for d in diags.errors]
    engine = Engine(game)
    snow = engine.for_scenario("blizzard")
    assert snow is not engine and engine.for_scenario("meeting") is engine
    state = snow.new_game("blizzard", seed=1)
    from warcodex.interpreter.context import Context

    ctx = Context(snow, state, {})
    u = next(iter(state.at["0204"]))
    from warcodex.interpreter.values import UnitRef

    assert snow.quantities["move_cost"](ctx, (UnitRef(u), "0204", "0205"), None) == 3
    base_state = engine.new_game("meeting", seed=1)
    ctx2 = Context(engine, base_state, {})
    u2 = next(iter(base_state.at["0204"]))
    assert engine.quantities["move_cost"](ctx2, (UnitRef(u2), "0204", "0205"), None) == 1
    # and a whole game of the scenario runs with its rules
    g = play(engine, "blizzard", seed=2)
    assert g.state.over


def test_one_overlay_replaces_every_provisional_table_and_stand_in_of_no_retreat():
    overlay = Path("tests/data/overlays/no-retreat-published.wcx")
    _, before = check_path("games/no-retreat")
    replaced = ["table german_crt", "table soviet_crt", "table tec", "table trt", "table trt_weather",
                "vardecl operational_victory_threshold", "vardecl soviet_target_limit", "procedure campaign_setup",
                "procedure card54_soviet_event", "procedure joker_effect", "procedure gg_german_units"]
    assert set(replaced) <= set(provisional_names(before))
    game, diags = check_path("games/no-retreat", [overlay])
    assert not diags.errors, [d.render() for d in diags.errors]
    assert not set(replaced) & set(provisional_names(diags))
    engine = Engine(game)
    assert str(engine.tables["german_crt"].lookup(["6:1", 1], None)) == "DR"
    g = play(engine, "campaign", seed=1, until_turn=1, trace=False)
    assert {u.label for u in g.state.units.values()} >= {"16th Army", "Western Front"}


def test_an_overlay_deck_replaces_cards_by_name_in_place_and_adds_the_others(tmp_path):
    """A user's printed card overlaid on a provisional one: `override deck` merges by card name,
    the card replaced where it stood (the deck's order is its declaration order), a new one added
    at the end; a quantity's modifiers merge the same way by label (language.md, overlays)."""
    folder = tmp_path / "cards"
    shutil.copytree("tests/data/games/chit_cup", folder)
    (folder / "overlay.wcx").write_text('''
override deck chits {
  pile "set_aside" owner_only "Set aside this turn" [ru: "Отложены на этот ход"] §2
  card r_beta "Red Beta (printed)" §2 { owner: red formation: "beta" pile: "cup" }
  card r_delta "Red Delta" §2 { owner: red formation: "delta" pile: "later" arrives: 3 }
}
''', encoding="utf-8")
    game, diags = check_path(folder)
    assert not diags.errors, [d.render() for d in diags.errors]
    deck = game.names["chits"]
    assert [c.name for c in deck.cards] == ["r_alpha", "r_beta", "b_gamma", "b_late", "r_delta"]
    assert deck.cards[1].header.label == "Red Beta (printed)"
    assert deck.visibility()["cup"] == "face_down"  # the original deck's piles stay
    (aside,) = [d for d in deck.pile_decls if d.name == "set_aside"]  # a pile line replaced, not doubled
    assert aside.translations == {"ru": "Отложены на этот ход"}
    assert game.names["r_beta"] is deck.cards[1]  # the rules' `r_beta` is the overlay's card
    # a card named like something else the game declares (a unit type) is still a duplicate
    (folder / "overlay.wcx").write_text('override deck chits {\n  card soldier "S" §2 { owner: red }\n}\n',
                                        encoding="utf-8")
    _, diags = check_path(folder)
    assert [(d.code, d.span.line) for d in diags.errors] == [("E-duplicate", 2)]
