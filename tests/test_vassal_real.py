"""Every bundled game's VASSAL module loaded in a real VASSAL 3.7.26 (tests/vassal_real/).

One scenario per game in the normal tier, every other scenario under the `slow` marker. What each
load must show: no VASSAL WARN/ERROR log line, no uncaught exception, no dialog, no validation
warning, every PieceSlot decoded; the pieces VASSAL placed equal to the scenario's set-up as the
engine makes it (`engine.new_game`), location by location; every hex of the map named by VASSAL
exactly as the map numbers it.

Where VASSAL is not built the tests skip, saying why; where `WARCODEX_REQUIRE_VASSAL=1` (set by
.ci/run when ../shared/tools/vassal exists) its absence fails them.
"""

from __future__ import annotations

import functools
import io
import os
import re
from collections import Counter
from pathlib import Path

import pytest

from vassal_real.harness import Report, find_vassal, run
from warcodex.dsl import ast
from warcodex.dsl.checker import check_path
from warcodex.exporters.vassal import board_svg
from warcodex.exporters.vassal.module import HOLDING_MAP, ExportOptions, Module, build_module
from warcodex.dsl.hexgrid import vassal_grid_spec

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted(p for p in (ROOT / "games").iterdir() if (p / "game.wcx").is_file())
VASSAL = find_vassal()


@functools.lru_cache(maxsize=None)
def _scenarios(game: Path) -> list[str]:
    gamedef, diags = check_path(game)
    assert gamedef is not None and not diags.errors, f"{game.name} does not check clean"
    return list(gamedef.scenarios)


def _cases() -> list:
    cases = []
    for game in GAMES:
        for i, scenario in enumerate(_scenarios(game)):
            marks = [pytest.mark.slow] if i else []
            cases.append(pytest.param(game, scenario, marks=marks, id=f"{game.name}-{scenario}"))
    return cases


def need_vassal():
    """The built VASSAL, or skip (fail where the CI requires it)."""
    if isinstance(VASSAL, str):
        if os.environ.get("WARCODEX_REQUIRE_VASSAL") == "1":
            pytest.fail(f"WARCODEX_REQUIRE_VASSAL=1 but the real VASSAL is unavailable: {VASSAL}")
        pytest.skip(f"real VASSAL not available: {VASSAL}")
    return VASSAL


def hex_centres(module: Module, hex_size: float = 44.0) -> list[tuple[str, float, float]]:
    """Each hex's centre on the module's board image: the grid's centre, less where the image starts
    (a board cut to its sheets in play moves the grid's origin written in buildFile.xml)."""
    board = module.data.board
    if board.kind != "hex":
        return []
    spec = vassal_grid_spec(board.grid, hex_size)
    written = module.plan.maps[0].hex_grid[0]
    dx, dy = int(spec.grid["x0"]) - int(written["x0"]), int(spec.grid["y0"]) - int(written["y0"])
    return [(loc, x - dx, y - dy) for loc in board.locations if not board.is_box(loc)
            for x, y in [board.pixel_center(loc, hex_size)]]


def vassal_name(label: str, steps: int, max_steps: int, factors: str) -> str:
    """A unit's name in VASSAL: its label, and its Layer level's name when it has lost steps."""
    return label if steps >= max_steps else f"{label} ({steps} of {max_steps} steps: {factors})"


def setup_pieces(module: Module) -> Counter:
    """The scenario's set-up as the engine makes it, in VASSAL's terms: (map, location, piece name)
    of every unit and marker at start (on the map or in one of its off-map boxes, a location's own
    markers too), every
    reinforcement in its turn's box and every unit the set-up leaves in a holding box."""
    data = module.data
    main = module.plan.maps[0].name
    marker_labels = dict(data.markers)
    want: Counter = Counter()

    def add(where: str, box: str, u) -> None:
        ut = data.unit_type(u.type)
        want[(where, box, vassal_name(u.label, u.steps, u.max_steps, ut.factors(u.steps)))] += 1

    for loc, units in data.at_start.items():
        where = HOLDING_MAP if board_svg.is_box(data.board, loc) else main
        for u in units:
            add(where, module.location_names[loc], u)
        for u in units:
            for m in u.markers:
                want[(where, module.location_names[loc], marker_labels.get(m, m))] += 1
    for loc, markers in data.location_markers.items():  # control markers and the like, of declared markers
        where = HOLDING_MAP if board_svg.is_box(data.board, loc) else main
        for m in markers:
            if m in marker_labels:
                want[(where, module.location_names[loc], marker_labels[m])] += 1
    for r in data.reinforcements:
        add(HOLDING_MAP, f"Turn {r.turn}" if r.turn is not None else "Conditional", r.unit)
    for box, units in data.boxes.items():
        for u in units:
            add(HOLDING_MAP, module.box_regions[box], u)
    return want + deck_cards(module, data.engine.new_game(data.scenario, seed=0))


def deck_cards(module: Module, state) -> Counter:
    """The cards of a game state in VASSAL's decks: each pile of each deck of the rules
    (`engine.cards.piles`) and each side's hand, by card label, at its deck (VASSAL names a deck's
    point by the deck's name)."""
    engine = module.data.engine
    labels = {c.name: c.header.title() for deck in engine.game.of_kind(ast.Deck) for c in deck.cards}
    snapshot = state.snapshot()
    want: Counter = Counter()
    for m in module.plan.maps:
        for d in m.decks:
            names = engine.cards.piles(snapshot, d.deck)[d.pile] if d.deck else snapshot.hands.get(d.hand, [])
            for name in names:
                want[(m.name, d.name, labels.get(name, name))] += 1
    return want


def tracker_texts(module: Module) -> list[str]:
    """What the turn tracker should show from the scenario's start to the end of its last turn."""
    out = []
    for seg in module.plan.tracker:
        for turn in range(seg.first, (seg.last if seg.last is not None else seg.first + 2) + 1):
            out += [f"Turn {turn} - {phase}" for phase in seg.phases] or [f"Turn {turn}"]
    return out


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """Export and load each (game, scenario) once for the tests of this file."""
    cache: dict[tuple[str, str], tuple[Module, Report]] = {}

    def load(game: Path, scenario: str) -> tuple[Module, Report]:
        key = (game.name, scenario)
        if key not in cache:
            vassal = need_vassal()
            out = tmp_path_factory.mktemp(f"vassal-{game.name}-{scenario}")
            # the slow tier's other scenarios leave out the player aid chart and the slicing of the
            # images into map tiles (the first scenario's check does both): most of their time, and
            # nothing scenario-specific in VASSAL
            first = scenario == _scenarios(game)[0]
            module = build_module(game, scenario, ExportOptions(include_aids=first))
            vmod = module.write(out / f"{game.name}-{scenario}.vmod")
            report = run(vassal, vmod, out, "check", hexes=hex_centres(module), turns=len(tracker_texts(module)),
                         dice=True, dump=out / "vassal-save.txt", tiles=first)
            cache[key] = (module, report)
        return cache[key]

    return load


@pytest.mark.parametrize("game, scenario", _cases())
def test_module_loads_cleanly_in_vassal(loaded, game, scenario):
    module, report = loaded(game, scenario)
    assert report.failures() == [], f"{game.name}/{scenario} in VASSAL (report {report.output})"
    assert report.slots == len(module.plan.all_slots()), "every PieceSlot decodes as VASSAL decodes it"


@pytest.mark.parametrize("game, scenario", _cases())
def test_vassal_places_the_scenario_set_up(loaded, game, scenario):
    module, report = loaded(game, scenario)
    assert report.pieces == report.expected, "VASSAL placed every piece of the at-start stacks, nothing else"
    want = setup_pieces(module)
    assert report.pieces == want, "the pieces VASSAL placed are the engine's set-up, location by location"
    assert sum(report.pieces.values()) == sum(want.values()) > 0


@pytest.mark.parametrize("game, scenario", _cases())
def test_vassal_decks_are_face_down_where_the_rules_hide_the_pile(loaded, game, scenario):
    """Each pile of the rules' decks is a VASSAL deck showing its cards' backs when nobody (or only
    their owners) may see them (`pile "cup" face_down`, the draw pile; Stargard's cup), with the
    cards the set-up leaves in it; a chit drawn from a face-down cup is shown to everybody."""
    module, report = loaded(game, scenario)
    plans = {d.name: d for m in module.plan.maps for d in m.decks if d.deck is not None}
    engine = module.data.engine
    state = engine.new_game(module.data.scenario, seed=0)
    for name, d in plans.items():
        _, face_down, drawn_face_up, count = report.decks[name]
        seen = engine.cards.visibility[d.deck][d.pile]
        assert face_down == (seen != "face_up"), (name, seen)
        assert drawn_face_up == (seen == "face_up" or (seen == "face_down" and d.pile != "draw")), name
        assert count == len(engine.cards.piles(state, d.deck)[d.pile]), name
    if game.name == "stargard-solstice":
        cup = report.decks["Command chits: Cup"]
        assert cup[1:3] == (True, True) and cup[3] == 7  # face down; a drawn chit is shown; the 7 chits of turn 1
        withheld = report.decks["Command chits: Withheld (hidden from the German player)"]
        assert withheld[1:3] == (True, False)  # the deck's title for the pile, and hidden from the German player
        # chits that cannot activate this turn (§3.1.2) are in the game: titled as the deck says
        assert "Command chits: Set aside this turn" in report.decks
        assert not any("not in the game yet" in name for name in report.decks)


@pytest.mark.parametrize("game, scenario", _cases())
def test_vassal_names_every_hex_as_the_map(loaded, game, scenario):
    module, report = loaded(game, scenario)
    board = module.data.board
    if board.kind != "hex":
        regions = {name for name, _ in report.regions}
        assert set(module.plan.maps[0].regions) <= regions and all(ok for _, ok in report.regions)
        return
    hexes = [loc for loc in board.locations if not board.is_box(loc)]
    assert len(report.hexes) == len(hexes) > 0
    wrong = [h for h in report.hexes if not (h[0] == h[1] == h[2] and h[3])]
    assert wrong == [], "VASSAL's HexGrid and Map name each hex centre by its id, and place the id at that centre"


@pytest.mark.parametrize("game, scenario", _cases())
def test_vassal_turn_tracker_plays_the_scenario_sequence(loaded, game, scenario):
    """Opening on the scenario's first phase, Next walks every phase of every turn the scenario
    plays (turns that skip a phase or a player turn included), as the facts give them."""
    module, report = loaded(game, scenario)
    want = tracker_texts(module)
    shown = [text for _, text in report.turns]
    assert report.turns[0][0] == "now"
    assert shown[:len(want)] == want


@pytest.mark.parametrize("game, scenario", _cases())
def test_vassal_dice_buttons_report_the_kept_dice(loaded, game, scenario):
    module, report = loaded(game, scenario)
    for d in module.plan.dice:
        line = next((c for c in report.chat if c.startswith(f"*** {d.name} = ")), None)
        assert line is not None, f"no report of the {d.name} button in the chat: {report.chat}"
        m = re.fullmatch(rf"\*\*\* {re.escape(d.name)} = (\d+) \*\*\*(?: \((?:rolled )?([\d, ]+)\))? <.*>", line)
        assert m, line
        total = int(m.group(1))
        if d.n_dice == 1:
            assert 1 <= total <= d.n_sides and m.group(2) is None
            continue
        dice = sorted(int(x) for x in m.group(2).replace(" ", "").split(","))
        assert len(dice) == d.n_dice and all(1 <= x <= d.n_sides for x in dice)
        kept = dice if d.keep is None else (dice[-d.keep:] if d.keep_highest else dice[:d.keep])
        assert total == sum(kept), f"{line}: the total of the kept dice"


# =============================================================================== saved games and logs
def _vassal_pieces_of(module: Module, state) -> Counter:
    """Where VASSAL must show a game state's units and markers, straight from the state: each unit
    by its location's name (its box's on the holding map), its name with its steps."""
    data = module.data
    main = module.plan.maps[0].name
    labels = dict(data.markers)
    want: Counter = Counter()
    for uid, u in state.units.items():
        ut = data.unit_type(u.type)
        if u.loc is not None:
            where = (HOLDING_MAP if board_svg.is_box(data.board, u.loc) else main, module.location_names[u.loc])
        else:
            where = (HOLDING_MAP, module.box_regions[u.box or "eliminated"])
        steps = max(1, u.steps)  # an eliminated unit the state keeps at 0 steps: its last step's face
        want[(*where, vassal_name(u.label, steps, u.max_steps, ut.factors(steps)))] += 1
        for m in u.markers:
            want[(*where, labels.get(m, m))] += 1
    for loc, markers in state.loc_markers.items():
        for m in markers:
            if m in labels:
                want[(main, module.location_names[loc], labels[m])] += 1
    return want + deck_cards(module, state)


# a game played to its end (Tiny Front), and the start of a card game (No Retreat!: cards dealt to
# hands, played and discarded) under the slow marker
PLAYED = [pytest.param(("tiny", "meeting", ["--seed", "3"]), id="tiny"),
          pytest.param(("no-retreat", "campaign", ["--seed", "5", "--max-actions", "60"]), id="no-retreat",
                       marks=pytest.mark.slow)]


@pytest.fixture(scope="module", params=PLAYED)
def played(request, tmp_path_factory):
    """A self-played game: its log and save, the VASSAL saved game and log `warcodex vassal --from`
    writes of them (with their modules), each loaded in VASSAL (the log stepped to its end)."""
    from click.testing import CliRunner

    from warcodex.cli import cli

    vassal = need_vassal()
    game, scenario, args = request.param
    out = tmp_path_factory.mktemp(f"played-{game}")
    runner = CliRunner()
    result = runner.invoke(cli, ["play", str(ROOT / "games" / game), "-s", scenario, *args,
                                 "--log", str(out / "game.log"), "--save", str(out / "game.save.json")])
    assert result.exit_code == 0, result.output
    for record, target in (("game.save.json", "final.vsav"), ("game.log", "game.vlog")):
        result = runner.invoke(cli, ["vassal", str(ROOT / "games" / game), "--no-aids", "--from", str(out / record),
                                     "-o", str(out / target)])
        assert result.exit_code == 0, result.output
        assert (out / target).is_file() and (out / target).with_suffix(".vmod").is_file()
    return (game, scenario, out, run(vassal, out / "final.vmod", out, "vsav", save=out / "final.vsav", tiles=False),
            run(vassal, out / "game.vmod", out, "vlog", save=out / "game.vlog", steps=100_000, tiles=False))


def test_a_saved_game_opens_in_vassal_at_its_position(played):
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.saves import load_save

    game, scenario, out, report, _ = played
    assert report.failures() == [], f"report {report.output}"
    module = build_module(ROOT / "games" / game, scenario, ExportOptions(include_aids=False))
    state, _, _ = load_save(Engine(module.data.game), out / "game.save.json")
    want = _vassal_pieces_of(module, state)
    assert want - report.pieces == Counter(), "VASSAL shows the saved position: every unit where the save has " \
                                              "it, with its steps and markers, every card in its pile or hand"
    assert sum(want.values()) >= 8
    # and besides, only reinforcements still to come, in their boxes, no more of a kind than are due
    waiting = report.pieces - want
    boxes = {region for _, region in module.reinforcements}
    assert all(m == HOLDING_MAP and box in boxes for m, box, _ in waiting), waiting
    due = Counter(r.unit.label for r, _ in module.reinforcements)
    assert all(n <= due[label] for (_, _, label), n in waiting.items())
    if state.over:
        last = module.plan.tracker[-1]
        assert report.turns[-1] == ("now", f"Turn {last.last} - {last.phases[-1]}"), "a finished game: its last phase"
    else:
        assert report.turns[-1][1].startswith(f"Turn {state.position.turn} - ")


def test_a_game_log_steps_through_the_game_in_vassal(played):
    """The .vlog opens on the set-up, and VASSAL's Step button plays it to the game's final position
    (the same as the final save's), one step per action and automatic rule, each said in the chat."""
    game, scenario, _, final, report = played
    assert report.failures() == [], f"report {report.output}"
    module = build_module(ROOT / "games" / game, scenario, ExportOptions(include_aids=False))
    assert report.pieces == setup_pieces(module), "the log opens on the scenario's set-up"
    steps, left = report.stepped
    assert steps > 20 and not left, "every step played"
    assert report.final == final.pieces, "the log ends where the final save is"
    assert any(re.match(r"\* Turn 1, [\w ]+: \w+\(", c) for c in report.chat), "actions said in the chat"


@pytest.mark.parametrize("game, scenario", _cases())
def test_vassal_saves_the_set_up_as_warcodex_writes_it(loaded, game, scenario):
    """What VASSAL itself writes for a New Game of the module (File > Save) is what
    savegame.saved_game writes for the engine's set-up: the same pieces (traits and states, stacks
    at the same points), the same global properties and board pickers (piece ids aside)."""
    import zipfile

    from warcodex.exporters.vassal import savegame
    from warcodex.exporters.vassal.encoder import decode

    module, report = loaded(game, scenario)
    ours = savegame.deobfuscate(zipfile.ZipFile(io.BytesIO(savegame.saved_game(
        module, module.data.engine.new_game(scenario)))).read("savedGame"))
    theirs = (report.output.parent / "vassal-save.txt").read_text(encoding="utf-8")

    def pieces(text: str) -> Counter:
        token = next(t for t in decode(text, savegame.ESC) if "+/" in t)
        adds = [decode(a[2:], "/") for a in decode(token, savegame.ESC) if a.startswith("+/")]
        by_id = {pid: (type_, re.sub(r"UniqueID;\d+$", "UniqueID;*", state)) for pid, type_, state in adds
                 if type_ != "stack"}
        out: Counter = Counter()
        for pid, type_, state in adds:
            if type_ == "stack":
                parts = decode(state, ";")
                out[(*parts[:3], tuple(by_id[i] for i in parts[3:-1]), parts[-1])] += 1
        return out

    def components(text: str) -> list[str]:
        return [t for t in decode(text, savegame.ESC)
                if t.startswith(("GlobalProperty", "UNMASK", "SETUP_STACK")) or "BoardPicker" in t]

    assert pieces(ours) == pieces(theirs) and sum(pieces(ours).values()) > 0
    # VASSAL's Turn right after New Game is the last turn level's start (its levels share the
    # property, each reset sets it): the one difference, documented in docs/vassal-export.md
    assert [c for c in components(ours) if ";Turn;" not in c] == [c for c in components(theirs) if ";Turn;" not in c]
    assert f"GlobalProperty\t;Turn;{module.data.first_turn};Module" in components(ours)
