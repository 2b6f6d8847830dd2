"""Generic concepts for chit-pull games, on the test-only game tests/data/games/chit_cup:

- `repeat "label" while TEST { ... }`: a block of the sequence played again and again while a
  test holds (draw a chit, play the activation, until the cup is empty);
- `player_turn EXPR { ... }`: a block played by the side the rules name when it starts (the
  owner of the drawn chit), not by turn order; `none` skips it;
- decks with piles (`piles: [...]`, a card's starting `pile:`), `pile(deck, p)`,
  `move_card(deck, card, p)` and `pick_random(list)`: a cup of chits drawn blind;
- hex ids with a separator (`ids CC.RR`: 01.01).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from warcodex.dsl.checker import check_path
from warcodex.dsl.formatter import format_text as format_source
from warcodex.dsl.parser import parse_text
from warcodex.interpreter.agents import FirstAgent, RandomAgent
from warcodex.interpreter.dice import FixedDice
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import Game, log_text, play, start
from warcodex.interpreter.saves import load_save, save_game
from warcodex.interpreter.values import RuleError

GAME = Path(__file__).parent / "data" / "games" / "chit_cup"


def build(tmp_path=None, edit=None) -> Engine:
    folder = GAME
    if edit is not None:
        (tmp_path / "game.wcx").write_text(edit((GAME / "game.wcx").read_text(encoding="utf-8")), encoding="utf-8")
        (tmp_path / "map.wcmap").write_text((GAME / "map.wcmap").read_text(encoding="utf-8"), encoding="utf-8")
        folder = tmp_path
    game, diags = check_path(folder)
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    return Engine(game)


@pytest.fixture(scope="module")
def engine():
    return build()


def actions(log):
    return [(e["turn"], e["side"], e["args"]["f"]) for e in log if e["k"] == "action"]


def test_every_chit_is_drawn_once_a_turn_and_its_owner_acts(engine):
    game = play(engine, "basic", seed=3, agents={"red": FirstAgent(), "blue": FirstAgent()})
    acts = actions(game.log)
    owner = {"alpha": "red", "beta": "red", "gamma": "blue", "late": "blue"}
    for turn in (1, 2, 3):
        done = [(side, f) for t, side, f in acts if t == turn]
        expected = {"alpha", "beta", "gamma"} | ({"late"} if turn >= 2 else set())
        assert sorted(f for _, f in done) == sorted(expected)  # each chit once, the late one from turn 2
        assert all(owner[f] == side for side, f in done)  # the drawn chit's owner was the active side
    assert game.state.over


def test_draws_are_random_but_seeded(engine):
    orders = {tuple(f for _, _, f in actions(play(engine, "basic", seed=s).log)[:3]) for s in range(12)}
    assert len(orders) > 1  # the cup is drawn blind
    a = log_text(play(engine, "basic", seed=5).log)
    assert a == log_text(play(engine, "basic", seed=5).log)


def test_fixed_dice_choose_the_chits(engine):
    # pick_random draws with the dice: a roll of k picks the k-th chit of the pile, top first
    # (the cup is [gamma, beta, alpha]: the last card declared in it is on top)
    state = engine.new_game("basic", seed=0)
    state.rng = FixedDice([1, 2, 1] + [1] * 20)
    game = Game(engine, state, {"red": FirstAgent(), "blue": FirstAgent()})
    game.run(until_turn=1)
    assert [f for _, _, f in actions(game.log)] == ["gamma", "alpha", "beta"]


def test_a_side_over_its_allowance_has_its_chit_set_aside(engine, tmp_path):
    e = build(tmp_path, lambda t: t.replace("side_var allowance: int = 2", "side_var allowance: int = 1"))
    game = play(e, "basic", seed=1, agents={"red": FirstAgent(), "blue": FirstAgent()}, until_turn=1)
    red = [f for t, side, f in actions(game.log) if side == "red"]
    assert len(red) == 1
    set_aside = [c.name for c in e.entities.values() if c.kind == "card" and c.name in game.state.decks["chits"]["set_aside"]]
    assert len(set_aside) == 1 and set_aside[0].startswith("r_")


def test_a_save_in_the_middle_of_an_activation_resumes_exactly(engine, tmp_path):
    full = start(engine, "basic", 7, {"red": RandomAgent(1), "blue": RandomAgent(2)}).run()
    for n in (1, 2, 4, 5):
        part = start(engine, "basic", 7, {"red": RandomAgent(1), "blue": RandomAgent(2)}).run(max_actions=n)
        path = tmp_path / f"mid{n}.json"
        save_game(engine, part, path)
        state, agents, log = load_save(engine, path)
        assert state.position.sides  # stopped inside a player_turn: its side is in the save
        resumed = Game(engine, state, agents, log=log).run()
        assert log_text(resumed.log) == log_text(full.log)


def test_invariant_chits_conserved_holds_in_self_play(engine):
    for seed in range(5):
        game = play(engine, "basic", seed=seed, check_invariants=True)
        assert game.state.over


def test_a_player_turn_of_nobody_is_skipped(engine, tmp_path):
    e = build(tmp_path, lambda t: t.replace("player_turn activated_side", "player_turn none"))
    game = play(e, "basic", seed=1, agents={"red": FirstAgent(), "blue": FirstAgent()})
    assert actions(game.log) == [] and game.state.over


def test_a_repeat_that_never_ends_is_a_located_error(tmp_path):
    e = build(tmp_path, lambda t: t.replace('while count(pile(chits, "cup")) > 0', "while true"))
    with pytest.raises(RuleError) as exc:
        play(e, "basic", seed=1, agents={"red": FirstAgent(), "blue": FirstAgent()})
    assert "repeat" in str(exc.value) and exc.value.span is not None and exc.value.span.line > 0


def test_player_turn_needs_a_side(tmp_path):
    e = build(tmp_path, lambda t: t.replace("player_turn activated_side", "player_turn 3"))
    with pytest.raises(RuleError) as exc:
        play(e, "basic", seed=1, agents={"red": FirstAgent(), "blue": FirstAgent()})
    assert "needs a side" in str(exc.value) and exc.value.span is not None


def test_unknown_piles_are_located_errors(tmp_path):
    text = (GAME / "game.wcx").read_text(encoding="utf-8").replace('move_card(chits, c, "set_aside")', 'move_card(chits, c, "set_asid")')
    text = text.replace('pile: "later"', 'pile: "latter"')
    (tmp_path / "game.wcx").write_text(text, encoding="utf-8")
    (tmp_path / "map.wcmap").write_text((GAME / "map.wcmap").read_text(encoding="utf-8"), encoding="utf-8")
    _, diags = check_path(tmp_path)
    messages = {d.message: d for d in diags.errors}
    assert "deck 'chits' has no pile \"set_asid\"" in messages
    assert "did you mean 'set_aside'" in messages["deck 'chits' has no pile \"set_asid\""].hint
    assert "deck 'chits' has no pile \"latter\"" in messages
    assert all(d.span.line > 0 and d.span.column > 0 for d in diags.errors)


def test_the_new_blocks_format_and_parse_back():
    text = (GAME / "game.wcx").read_text(encoding="utf-8")
    once = format_source(text)
    assert "repeat \"Activation\" §3 while count(pile(chits, \"cup\")) > 0 {" in once
    assert "player_turn activated_side \"Activated side\" §3 {" in once
    assert 'piles: ["cup", "drawn", "set_aside", "later"] §2' in once
    assert format_source(once) == once
    parse_text(once)


def test_hex_ids_with_a_separator(engine):
    board = engine.board
    assert board.locations[:3] == ("01.01", "01.02", "01.03")
    assert board.grid.parse_id("02.03") == (2, 3) and board.grid.hex_id(2, 3) == "02.03"
    with pytest.raises(ValueError):
        board.grid.parse_id("0203")
    assert board.distance("01.01", "03.03") == 3


def test_a_rule_test_takes_the_actions_of_a_phase_inside_a_repeat_and_a_player_turn(tmp_path):
    """A rule test's `phase` line finds the phase wherever the sequence holds it: inside a
    `repeat` and a `player_turn`, inside another phase."""
    import shutil

    from warcodex.interpreter.rule_tests import RuleTestRunner

    folder = tmp_path / "chit_cup"
    shutil.copytree(GAME, folder)
    (folder / "tests").mkdir()
    (folder / "tests" / "t.wcx").write_text('''
test act "the chit's owner works in the Act phase" §3 {
  phase act
  active red
  move_card(chits, r_alpha, "drawn")
  set chit = r_alpha
  do work(f: "alpha")
  expect red.done_work == ["alpha"]
}
''', encoding="utf-8")
    game, diags = check_path(folder, tests=True)
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    outcome = RuleTestRunner(game).run(game.tests["act"])
    assert outcome.status == "passed", outcome


# ---------------------------------------------------------------- who sees a pile (face down, owner only)
def test_observation_hides_the_cup_and_the_other_sides_set_aside_chits(engine, tmp_path):
    """`pile "cup" face_down`: both sides see only how many chits the cup holds; `pile
    "set_aside" owner_only`: a set-aside chit is known to its owner, "hidden" to the other side."""
    e = build(tmp_path, lambda t: t.replace("side_var allowance: int = 2", "side_var allowance: int = 1"))
    game = play(e, "basic", seed=1, agents={"red": FirstAgent(), "blue": FirstAgent()}, until_turn=1)
    piles = game.state.decks["chits"]
    assert len(piles["set_aside"]) == 1 and piles["set_aside"][0].startswith("r_")
    red, blue = e.observation(game.state, "red"), e.observation(game.state, "blue")
    assert red["decks"]["chits"]["set_aside"] == piles["set_aside"]  # its owner knows which
    assert blue["decks"]["chits"]["set_aside"] == ["hidden"]  # the other side: that there is one
    for view in (red, blue):
        assert view["decks"]["chits"]["cup"] == ["hidden"] * len(piles["cup"])
        assert view["decks"]["chits"]["drawn"] == piles["drawn"]  # face up, as declared by default
    # the log entry that set the chit aside is hidden from the other side only
    entry = next(x for x in game.log if x.get("hidden_from"))
    assert entry["hidden_from"] == ["blue"]


def test_card_visible_reads_the_piles_visibility(tmp_path):
    """`card_visible(c, s)`: whether a side may see which card this is where it is now."""
    import shutil

    from warcodex.interpreter.rule_tests import RuleTestRunner

    folder = tmp_path / "chit_cup"
    shutil.copytree(GAME, folder)
    (folder / "tests").mkdir()
    (folder / "tests" / "t.wcx").write_text('''
test seen "who sees a chit" §2 {
  expect not card_visible(r_alpha, red) and not card_visible(r_alpha, blue)  # in the cup, face down
  move_card(chits, r_alpha, "set_aside")
  expect card_visible(r_alpha, red) and not card_visible(r_alpha, blue)  # set aside: its owner only
  move_card(chits, r_alpha, "drawn")
  expect card_visible(r_alpha, red) and card_visible(r_alpha, blue)  # drawn: face up
}
''', encoding="utf-8")
    game, diags = check_path(folder, tests=True)
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    for evaluator in ("reference", "generated"):
        outcome = RuleTestRunner(game, evaluator=evaluator).run(game.tests["seen"])
        assert outcome.status == "passed", outcome


def test_an_ownerless_chit_in_an_owner_only_pile_is_seen_by_nobody_and_the_checker_says_where(tmp_path):
    """docs/language.md, "Who sees a pile": in an owner-only pile each card is known to its owners, so
    a chit that names no owner is known to nobody there (a face-down chit). That is allowed, but most
    often an `owner:` forgotten: the checker warns at every place the rules can put it there."""
    import shutil

    from warcodex.interpreter.rule_tests import RuleTestRunner

    folder = tmp_path / "chit_cup"
    shutil.copytree(GAME, folder)
    rules = folder / "game.wcx"
    rules.write_text(rules.read_text(encoding="utf-8").replace(
        '  card b_late', '  card n_fog "Fog of war" §2 { formation: "fog" pile: "cup" }\n  card b_late'), encoding="utf-8")
    (folder / "tests").mkdir()
    (folder / "tests" / "t.wcx").write_text('''
test fog "an ownerless chit set aside" §2 {
  move_card(chits, n_fog, "set_aside")
  expect not card_visible(n_fog, red) and not card_visible(n_fog, blue)
}
''', encoding="utf-8")
    game, diags = check_path(folder, tests=True)
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    text = rules.read_text(encoding="utf-8").splitlines()
    where = {(d.span.file, d.span.line, d.span.column) for d in diags.warnings if d.code == "W-ownerless-card"}
    rule_line = next(i for i, line in enumerate(text, 1) if 'move_card(chits, c, "set_aside")' in line)
    assert (str(rules), rule_line, text[rule_line - 1].index("move_card") + 1) in where
    assert len(where) == 1  # where the game's rules can: a rule test placing it on purpose is not play
    [rendered] = [d.render() for d in diags.warnings if d.code == "W-ownerless-card"]
    assert "card 'n_fog', which declares no owner," in rendered and "^^^" in rendered
    for evaluator in ("reference", "generated"):
        outcome = RuleTestRunner(game, evaluator=evaluator).run(game.tests["fog"])
        assert outcome.status == "passed", outcome


def test_a_rule_reading_an_owner_only_pile_is_never_memoized(engine):
    """Its value is the owners' secret: every read marks the log entry (dependencies.reads_hidden),
    through both evaluators alike (test_codegen plays this game with both)."""
    assert engine.deps.reads_hidden(engine.game.names["chits_out"])  # reads pile(chits, "set_aside")
    assert not engine.deps.reads_hidden(engine.game.names["draw_chit"])  # the cup: face down, nobody's


def test_pile_declarations_are_checked_and_formatted(tmp_path):
    text = (GAME / "game.wcx").read_text(encoding="utf-8")
    once = format_source(text)
    assert 'pile "cup" face_down §2' in once and 'pile "set_aside" owner_only "Set aside this turn" §2' in once
    titled = format_source(text.replace('pile "cup" face_down §2', 'pile "cup"  "The cup" [ru: "Чашка"]  §2'))
    assert 'pile "cup" "The cup" [ru: "Чашка"] §2' in titled  # a title without a visibility: the default
    assert format_source(once) == once
    (tmp_path / "game.wcx").write_text(text.replace('pile "cup" face_down §2', 'pile "cup" face_down §2\n  pile "cup" face_up §2'),
                                       encoding="utf-8")
    (tmp_path / "map.wcmap").write_text((GAME / "map.wcmap").read_text(encoding="utf-8"), encoding="utf-8")
    _, diags = check_path(tmp_path)
    [error] = diags.errors
    assert error.message == "deck 'chits': pile \"cup\" is declared twice" and error.span.line > 0
    assert "on line" in error.hint
