"""Player aids (`warcodex aids`): generated from the rules for any game, checked against the engine.

* every cell of every table is in the HTML, in its row and column (parsed with lxml.html);
* every section reference resolves to a section of the game (and to the aid's section index);
* the PDF has the expected number of pages and the expected text (read back with pypdf);
* every bar of every SVG chart adds up to exactly 1 (the exact fractions in `data-p`).

One PDF is rendered (Tiny Front, through the command line); the other games are checked as HTML.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import lxml.etree
import lxml.html
import pytest
from click.testing import CliRunner

from warcodex.cli import cli
from warcodex.dsl.checker import check_path
from warcodex.exporters.aids import build_aid, render_html, write_aids
from warcodex.exporters.aids.words import signed
from warcodex.interpreter.engine import Engine

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "games" / "tiny"
BATTLE = ROOT / "tests" / "data" / "games" / "battle"
ODDS = ROOT / "tests" / "data" / "games" / "odds"
# Tiny Front on A4: tables and terrain (1), hexside/markers/weather (2), odds chart (3), typical
# battles (4), units, sequence and turn track (5), sources and sections (6). Update when the aid's
# layout changes.
TINY_A4_PAGES = 6
SVG = "{http://www.w3.org/2000/svg}"


def checked(path: Path):
    game, diags = check_path(path)
    assert game is not None and not diags.errors, "\n".join(d.render() for d in diags.errors)
    return game


def other_games() -> list:
    """Games other engineers are encoding: tested when they check clean, skipped otherwise."""
    out = []
    for name in ("stalingrad42", "axis-allies-1941"):
        out.append(pytest.param(ROOT / "games" / name, id=name))
    return out


@pytest.fixture(scope="module")
def tiny():
    return checked(TINY)


@pytest.fixture(scope="module")
def tiny_out(tmp_path_factory):
    """`warcodex aids games/tiny -o DIR`, run in-process: HTML, PDF and the odds chart."""
    out = tmp_path_factory.mktemp("tiny-aids")
    result = CliRunner().invoke(cli, ["aids", str(TINY), "-o", str(out)])
    assert result.exit_code == 0, result.output + repr(result.exception)
    return out


@pytest.fixture(scope="module")
def tiny_doc(tiny_out):
    return lxml.html.fromstring((tiny_out / "aids.html").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def odds_game():
    return checked(ODDS)


def html_of(game, **kw):
    return lxml.html.fromstring(render_html(build_aid(game, **kw)))


def text(el) -> str:
    """The visible text, with a space between table cells, list items and blocks."""
    for sub in el.iter("td", "th", "li", "div", "p", "br", "tr", "h3", "h4"):
        if not (sub.tail or "").startswith(" "):
            sub.tail = " " + (sub.tail or "")
    return " ".join(el.text_content().split())


def norm(s: str) -> str:
    return s.replace("–", "-").replace("−", "-").replace("\u200b", "").strip()


# ---------------------------------------------------------------- every cell in its place
def assert_tables_match_engine(game, doc) -> int:
    """Each compiled table of the engine, cell by cell, against the aid's grid. Returns the number
    of cells checked."""
    engine = Engine(game)
    checked_cells = 0
    for name, t in engine.tables.items():
        grids = doc.xpath(f'//table[contains(@class, "grid") and @data-table="{name}"]')
        assert len(grids) == 1, f"table {name} is not in the aid"
        grid = grids[0]
        kind = t.decl.columns.kind if t.decl.columns is not None else None
        heads = grid.xpath("./thead/tr/th[@data-col]")
        if kind is not None:
            assert len(heads) == len(t.columns), name
            for j, th in enumerate(heads):
                want = {t.column_text[j], t.column_text[j].replace("_", " ")}
                if kind == "diff":
                    want = {signed(t.columns[j])}
                decl = game.names.get(str(t.column_text[j]))
                if decl is not None:
                    want.add(decl.header.title())
                assert norm(text(th)) in {norm(w) for w in want}, (name, j, text(th))
        rows = grid.xpath("./tbody/tr")
        assert len(rows) == len(t.rows), name
        for i, (low, _high, cells, key) in enumerate(t.rows):
            tr = rows[i]
            row_head = norm(text(tr.xpath("./th")[0]))
            words = key.replace("_", " ")
            want = {norm(key), words, words[:1].upper() + words[1:]}  # an undeclared name, capitalised as a heading
            decl = game.names.get(str(low))
            if decl is not None:
                want.add(decl.header.title())
            assert row_head in want, (name, i, row_head)
            tds = tr.xpath("./td[@data-col]")
            assert len(tds) == len(cells), (name, key)
            for j, (td, cell) in enumerate(zip(tds, cells)):
                assert int(td.get("data-col")) == j
                assert td.get("data-cell") == str(cell), (name, key, j)
                shown = norm(text(td))
                labels = " / ".join(game.names[c.result.name].header.title() for c in cell.codes
                                    if c.number is None and c.result.name in game.names)
                assert shown in (norm(str(cell)), labels), (name, key, j, shown)
                checked_cells += 1
    return checked_cells


def test_tiny_every_cell_is_in_its_row_and_column(tiny, tiny_doc):
    assert assert_tables_match_engine(tiny, tiny_doc) == 6 * 6 + 3


def test_odds_fragment_every_cell_is_in_its_row_and_column(odds_game):
    assert assert_tables_match_engine(odds_game, html_of(odds_game)) == 9 * 6


@pytest.mark.slow
@pytest.mark.parametrize("path", other_games())
def test_games_being_encoded_every_cell_and_section(path):
    if not path.is_dir():
        pytest.skip(f"{path.name} is not there yet")
    game, diags = check_path(path)
    if game is None or diags.errors:
        pytest.skip(f"{path.name} does not check clean yet")
    doc = html_of(game)
    assert_tables_match_engine(game, doc)
    assert_sections_resolve(game, doc)


# ---------------------------------------------------------------- section references
def assert_sections_resolve(game, doc) -> int:
    links = doc.xpath('//a[@class="sec"]')
    ids = set(doc.xpath("//@id"))
    for a in links:
        number = a.get("data-section")
        assert number in game.sections, f"§{number} is not a section of {game.game.name}"
        assert a.get("href") == f"#sec-{number}" and f"sec-{number}" in ids
        assert norm(text(a)) == f"§{number}"
    # and any § printed anywhere (notes, properties...) is one of the game's sections
    for node in doc.itertext():
        for number in re.findall(r"§([0-9A-Za-z][0-9A-Za-z.]*)", node):
            assert number.rstrip(".") in game.sections, number
    return len(links)


def test_tiny_section_references_resolve(tiny, tiny_doc):
    assert assert_sections_resolve(tiny, tiny_doc) > 40


@pytest.mark.parametrize("which", ["battle", "odds"])
def test_fragment_section_references_resolve(which, odds_game):
    game = checked(BATTLE) if which == "battle" else odds_game
    assert assert_sections_resolve(game, html_of(game)) > 5


# ---------------------------------------------------------------- the PDF
def test_pdf_pages_and_text(tiny_out):
    from pypdf import PdfReader

    reader = PdfReader(str(tiny_out / "aids.pdf"))
    assert len(reader.pages) == TINY_A4_PAGES
    width, height = float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)
    assert (round(width), round(height)) == (595, 842)  # A4 in points
    first = reader.pages[0].extract_text()
    for words in ("Tiny Front", "Combat Results Table", "PROVISIONAL", "invented grid for the example game",
                  "below 1-2", "7-1 or more", "Terrain Effects Chart", "armor", "§7.4",
                  "Rulebook edition: Tiny Front example rules, Warcodex 2026", f"1 / {TINY_A4_PAGES}"):
        assert words in first, words
    everything = " ".join(" ".join(p.extract_text() for p in reader.pages).split())
    for words in ("Odds charts", "Unit chart", "Sequence of play", "Turn record track", "24th Panzer",
                  "Sections cited", "Odds and the Combat Results Table"):
        assert words in everything, words


def test_outputs_are_written_whole_and_nothing_else(tiny_out):
    # the hidden marker says the folder is a set written by Warcodex (so a later run may replace it)
    assert sorted(p.name for p in tiny_out.iterdir()) == [".warcodex-output", "aids.html", "aids.pdf", "odds-crt.svg"]
    assert json.loads((tiny_out / ".warcodex-output").read_text())["files"] == ["aids.html", "aids.pdf", "odds-crt.svg"]
    assert (tiny_out / "aids.pdf").read_bytes().startswith(b"%PDF")


def test_letter_paper(tiny):
    html = render_html(build_aid(tiny, paper="letter"))
    assert "size: letter;" in html and "size: A4" not in html
    assert "Paper: US Letter" in html


# ---------------------------------------------------------------- charts
def chart_bars(path: Path) -> dict[tuple[str, str], dict[str, Fraction]]:
    root = lxml.etree.parse(str(path)).getroot()
    out = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") != "bar":
            continue
        segs = {}
        for rect in g.iter(f"{SVG}rect"):
            segs[rect.get("data-result")] = segs.get(rect.get("data-result"), Fraction(0)) + Fraction(rect.get("data-p"))
        out[(g.get("data-column"), g.get("data-drm"))] = segs
    return out


def test_odds_chart_bars_add_up_to_one(tiny_out):
    found = chart_bars(tiny_out / "odds-crt.svg")
    assert len(found) == 6 * 5 + 1  # six columns by DRM -2..+2, and the automatic 7-1 column
    for key, segs in found.items():
        assert sum(segs.values()) == 1, key
    # read from the table, with clamping: at 1-2 a DRM of -2 turns rolls 1-3 into row 1 (AE)
    assert found[("1-2", "-2")] == {"AE": Fraction(1, 2), "AR": Fraction(1, 3), "EX": Fraction(1, 6)}
    assert found[("5-1", "0")] == {"DR2": Fraction(1, 6), "DE": Fraction(5, 6)}
    assert found[("3-1", "2")] == {"DR2": Fraction(1, 3), "DE": Fraction(2, 3)}
    assert found[("7-1 or more", "0")] == {"DE": Fraction(1)}


def test_the_chart_is_in_the_page_too(tiny_out, tiny_doc):
    inline = [g for g in tiny_doc.iter() if g.tag == "g" and g.get("class") == "bar"]
    assert len(inline) == len(chart_bars(tiny_out / "odds-crt.svg"))


def test_hit_chart_and_production_for_a_dice_per_unit_game(tmp_path):
    game = checked(BATTLE)
    result = write_aids(game, tmp_path, pdf=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".warcodex-output", "aids.html", "hits.svg"]
    found = chart_bars(tmp_path / "hits.svg")
    for key, segs in found.items():
        assert sum(segs.values()) == 1, key
    assert found[("Infantry", "Attack")]["hit"] == Fraction(1, 6)
    assert found[("Battleship", "Defense")]["hit"] == Fraction(2, 3)
    aid = result["aid"]
    assert aid.units.columns == ["Attack", "Defense", "Move", "Steps", "Cost"]
    production = {r.side: (r.start, r.income) for r in aid.production.rows}
    assert production == {"Germany": ("0", "12"), "Soviet Union": ("0", "9"), "United States": ("0", "1")}
    hits = {r.unit: r.values for r in aid.hits.rows}
    assert hits["Tank"] == [("3", "50%", "1.00"), ("3", "50%", "1.00")]


def test_odds_fragment_chart_and_beyond_rules(odds_game, tmp_path):
    aid = write_aids(odds_game, tmp_path, pdf=False)["aid"]
    crt = aid.tables[0]
    assert [(b.when, b.then) for b in crt.beyond] == [
        ("below 1-3", "not allowed"), ("10-1 or more", "DS, no die roll"), ("8-1, 9-1", "use 7-1")]
    for key, segs in chart_bars(tmp_path / "odds-crt.svg").items():
        assert sum(segs.values()) == 1, key


# ---------------------------------------------------------------- what the aid says
def test_beyond_rules_legend_and_rules_in_words(tiny, tiny_doc):
    card = tiny_doc.xpath('//article[@data-table="crt"]')[0]
    words = text(card)
    for w in ("below 1-2: not allowed §7.3", "7-1 or more: DE, no die roll §7.3", "6-1: use 5-1 §7.3",
              "Attacker eliminated", "DR(hexes) (DR1, DR2) Defender retreats §7.5",
              "armor +1 column §7.4", "mud −1 column §8", "attack cap at most 30 §7.2", "in a town ×2 §2.2"):
        assert w in words, w
    assert [q.get("data-quantity") for q in card.xpath('.//div[@data-quantity]')] == [
        "crt_column", "total_attack", "total_defense", "attack_strength", "defense_strength"]


def test_provisional_tables_are_marked_visibly(tiny_doc):
    crt = tiny_doc.xpath('//article[@data-table="crt"]')[0]
    assert "provisional" in crt.get("class")
    assert crt.xpath('.//h3/span[@class="badge provisional"]')[0].text_content() == "PROVISIONAL"
    assert "invented grid for the example game" in text(crt)
    weather = tiny_doc.xpath('//article[@data-table="weather_table"]')[0]
    assert "provisional" not in weather.get("class") and not weather.xpath('.//span[@class="badge provisional"]')
    assert "Source: rulebook" in text(weather)


def test_terrain_effects_chart(tiny_doc):
    tec = tiny_doc.xpath('//table[@data-effects="terrain"]')[0]
    heads = [norm(text(th)) for th in tec.xpath("./thead/tr/th")]
    assert heads[0] == "Terrain"

    def column(label):
        return next(i for i, h in enumerate(heads) if h.startswith(label))

    rows = {tr.get("data-name"): [norm(text(c)) for c in tr.xpath("./th|./td")] for tr in tec.xpath("./tbody/tr")}
    cost, town, armor, shift = column("movement point cost"), column("in a town"), column("armor"), column("defensive terrain")
    assert [rows[t][cost] for t in ("clear", "forest", "rough", "swamp", "town")] == ["1", "2", "2", "3", "1"]
    assert rows["town"][town] == "×2" and rows["clear"][town] == "—"
    assert rows["clear"][armor] == "+1 column" and rows["rough"][armor] == "no" and rows["swamp"][armor] == "no"
    assert rows["forest"][shift] == "-1 column" and rows["clear"][shift] == "—"
    edges = tiny_doc.xpath('//table[@data-effects="edge"]')[0]
    bridge = [norm(text(c)) for c in edges.xpath('./tbody/tr[@data-name="bridge"]/td')]
    assert bridge.count("no") == 2  # a bridge cancels both river costs


def test_sequence_turn_track_and_reinforcements(tiny_doc):
    sequence = text(tiny_doc.xpath('//section[@id="sheet-sequence"]')[0])
    for w in ("Weather Phase §8 (only when turn ≥ 2)", "for each side in turn order: Axis, Soviet",
              "Movement Phase §5", "actions: Move a unit §5", "Combat Phase §7", "remove Disrupted",
              "when a unit enters a location: Control of objectives §10"):
        assert w in sequence, w
    boxes = {b.get("data-turn"): text(b) for b in tiny_doc.xpath('//div[@class="box"]')}
    assert list(boxes) == ["1", "2", "3", "4", "5", "6"]
    assert "Weather Phase" in boxes["2"] and "Axis reinforcements" in boxes["3"] and "end of game" in boxes["6"]
    assert "Axis +1" in boxes["3"] and "Soviet +1" in boxes["3"]  # §9: one reinforcement each
    # §9: at the start of Game Turn 3, in the lowest-numbered empty hex of the entry area (0101,
    # 1201 on an empty edge); if none is empty, at the start of a later turn
    arrivals = [text(tr) for tr in tiny_doc.xpath('//article[contains(@class, "arrivals")]//tbody/tr')]
    assert arrivals[0].startswith("turn 3 or later §9 Axis Panzer division “24th Panzer” 0101 ")
    assert "otherwise on a later turn (from turn 4)" in arrivals[1]
    assert arrivals[2].startswith("turn 3 or later §9 Soviet Tank corps “13th Tank Corps” 1201 ")
    # §9, the set-up table of the rulebook, by side and hex
    setup = [text(tr) for tr in tiny_doc.xpath('//article[contains(@class, "setup")]//tbody/tr')]
    assert setup == ["Axis 0204 Infantry division", "Axis 0206 Infantry division", "Axis 0208 Infantry division",
                     "Axis 0305 Millerovo 11th Panzer Panzer division", "Soviet 0904 Rifle division",
                     "Soviet 0906 Rifle division", "Soviet 0908 Rifle division", "Soviet 1005 4th Tank Corps Tank corps"]


def test_units_with_per_step_values(tiny_doc):
    units = {tr.get("data-unit"): [norm(text(td)) for td in tr.xpath("./td")] for tr in tiny_doc.xpath('//tr[@data-unit]')}
    assert units["panzer"][1:] == ["Mechanized, Armor, elite", "8 / 4", "5 / 3", "6", "2", "Axis"]
    assert "PROVISIONAL" in units["panzer"][0]


def test_labels_in_another_language_fall_back_to_english(tiny):
    aid = build_aid(tiny, lang="ru")
    doc = lxml.html.fromstring(render_html(aid))
    page = text(doc)
    assert "Таблица результатов боя" in page and "Таблица влияния местности" in page
    assert "Attacker eliminated" in page  # results carry no Russian label: English, and said so
    assert 0 < aid.labels_translated < aid.labels_total
    assert aid.language_note == (f"Названия даны на языке «русский», где в правилах есть перевод "
                                 f"({aid.labels_translated} из {aid.labels_total}); остальные по-английски.")
    assert aid.language_note in page
    assert build_aid(tiny).language_note is None


def test_command_errors(tmp_path):
    runner = CliRunner()
    bad = runner.invoke(cli, ["aids", str(TINY), "--scenario", "nope", "-o", str(tmp_path / "x")])
    assert bad.exit_code != 0 and "no scenario 'nope'" in bad.output
    assert not (tmp_path / "x").exists()
    assert runner.invoke(cli, ["aids", str(TINY), "--lang", "de", "-o", str(tmp_path)]).exit_code != 0


# ---------------------------------------------------------------- the scenario sheet of the games
@pytest.fixture(scope="module")
def fall_blau_aid():
    return build_aid(checked(ROOT / "games" / "stalingrad42"), scenario="fall_blau")


def test_fall_blau_schedule_set_up_and_track(fall_blau_aid):
    aid = fall_blau_aid
    # §S1.2: the 5th Reserve Army (5 units) enters on Turn 3, in Entry Area M for this scenario
    reserve = [a for a in aid.arrivals if "5th Res. Army" in a.name]
    assert len(reserve) == 5 and all((a.turns, a.side, a.where, a.provisional) == ("turn 3", "Soviet", "Entry Area M (Fall Blau)", None)
                                     for a in reserve)
    assert all("S1.2" in [r.number for r in a.refs] for a in reserve)
    # §22.1: the Reinforcement Displays are not in the rule text: their rows are marked, and why
    display = next(a for a in aid.arrivals if a.name == "384th Infantry")
    assert display.turns == "turn 3" and display.provisional and display.where.startswith("chosen among Axis")
    assert "the Axis Reinforcement Display is not in the rule text" in aid.arrival_notes
    # §S1.1: the At-Start cards are not in the rule text; the 6th Reserve Army in 3806 (§S1.2)
    novo = next(r for r in aid.setup if r.where.startswith("3806"))
    assert novo.provisional and [u.name for u in novo.units] == [
        "141st Rifle (6th Res. Army)", "160th Res. Rifle (6th Res. Army)", "174th Rifle (6th Res. Army)", "219th Rifle (6th Res. Army)"]
    assert aid.setup_notes
    # §23.1: weather from Turn 17, so never in Fall Blau (Turns 1-8, §S1.1)
    weather = aid.sequence[0].children[0].children[0]
    assert weather.label == "Weather Phase" and weather.condition.endswith("not in this scenario")
    boxes = {b.turn: b.notes for b in aid.turn_track}
    assert list(boxes) == list(range(1, 9)) and "end of game" in boxes[8]
    assert "The 6th Reserve Army may move →" in boxes[2]  # §S1.2: from Turn 2
    # the hexside chart: a sea hexside always blocks movement, a lake only until it freezes (§9.5.6)
    edges = next(c for c in aid.effects if c.kind == "edge")
    rows = {r.name: r.cells for r in edges.rows}
    col = next(i for i, c in enumerate(edges.columns) if c.label == "prohibited" and "Normal movement" in c.rule)
    assert (rows["coast"][col], rows["lake"][col], rows["road"][col]) == ("prohibited", "prohibited (depends)", "—")
    # a road's rate is the TEC's road row (§5.2: 1/2 MP for a mechanized unit), read for either
    # kind of unit, and provisional as the TEC grid is (only the mechanized rate is printed)
    road = next(i for i, c in enumerate(edges.columns) if c.label == "primary road rate")
    assert rows["road"][road] == "= non mech 1; mech 1/2"
    assert edges.columns[road].notes[0].provisional.startswith("the TEC grid is not printed")
    tec = next(c for c in aid.effects if c.kind == "terrain")
    costs = {r.name: r.cells[0] for r in tec.rows}
    assert costs["rough"] == "non mech 2; mech 3" and tec.columns[0].notes[0].provisional
    assert costs["seasonal_swamp"] == "depends"  # a swamp when the weather makes it one (§23.2), not "—"
    html = lxml.html.fromstring(render_html(aid))
    marked = html.xpath('//article[contains(@class, "arrivals")]//tr[contains(@class, "provisional")]')
    assert len(marked) == sum(1 for a in aid.arrivals if a.provisional) and marked[0].xpath('.//span[@class="badge provisional"]')


def test_tiny_typical_battle_the_7_3_example(tiny_out, tiny_doc):
    """The battle of games/tiny/scenes: the §7.3 example read on the 3-1 column (DR1, DR1, DR2, DR2,
    DE, DE), exact, marked provisional (the CRT is invented); its bars add up to 1."""
    card = tiny_doc.xpath('//article[@data-battle="odds_town_attack"]')[0]
    assert "provisional" in card.get("class") and "exact, from the rules" in text(card)
    assert "result read on the Combat Results Table, column 3-1" in text(card)
    crt = card.xpath('.//div[@data-bar="crt"]/span')
    assert [s.text_content() for s in crt] == ["DR1 33%", "DR2 33%", "DE 33%"]
    for bar in card.xpath('.//div[contains(@class, "bar")]'):
        assert sum(float(s.get("data-p")) for s in bar.xpath("./span")) == pytest.approx(1)
    outcomes = card.xpath('.//div[@data-bar="outcomes"]/span')
    assert [s.text_content() for s in outcomes] == ["attacker wins 33%", "both remain 67%"]
    assert "table crt (invented grid for the example game)" in text(card)


def test_axis_and_allies_units_and_set_up():
    aid = build_aid(checked(ROOT / "games" / "axis-allies-1941"))
    # the typical battles of games/axis-allies-1941/scenes: the small one exact, equal to the
    # textbook Markov chain of tests/test_odds.py; the 14 against 13 units estimated by
    # Monte Carlo within its stated interval of the exact 0.467 / 0.502 / 0.031
    from test_odds import textbook_land_battle

    battles = {b.name: b for b in aid.battles}
    small = next(b for b in battles.values() if b.name == "odds_small_battle")
    assert small.exact and small.crt_table is None
    want = textbook_land_battle([1, 1, 1, 3, 3], [2, 2, 2, 3])
    shown = {s.colour: s.width for s in small.outcomes}
    assert (shown["attacker_wins"], shown["defender_wins"], shown["mutual_destruction"]) == pytest.approx(want, abs=1e-9)
    large = battles["odds_land_battle"]
    assert not large.exact and "1,000 battles" in large.method and "±3.1%" in large.method
    shown = {s.colour: s.width for s in large.outcomes}
    for key, p in zip(("attacker_wins", "defender_wins", "mutual_destruction"), (0.467, 0.502, 0.031)):
        assert abs(shown[key] - p) <= 0.031, key
    assert large.losses[0].startswith("attacker: Infantry ")
    # §5: any power may buy any unit: the bomber is every power's, though only four start with one
    bomber = next(r for r in aid.units.rows if r.name == "bomber")
    assert bomber.sides == ["every side"]
    # Table 3.6, the Soviet set-up card (the only one printed): not marked; the others are
    soviet = {r.where: [str(u) for u in r.units] for r in aid.setup if r.side == "Soviet Union"}
    assert soviet == {"Karelia": ["3× Infantry"], "Archangel": ["3× Infantry"], "Russia": ["3× Infantry", "Tank", "Fighter"],
                      "Caucasus": ["3× Infantry", "Tank"], "Siberia": ["3× Infantry"], "Sea Zone 4": ["Submarine"]}
    assert all(r.provisional is None for r in aid.setup if r.side == "Soviet Union")
    assert all(r.provisional for r in aid.setup if r.side != "Soviet Union")
    assert not aid.arrivals  # nothing is scheduled: every unit is bought


def test_no_retreat_card_list():
    aid = build_aid(checked(ROOT / "games" / "no-retreat"))
    deck = next(d for d in aid.decks if d.name == "events")
    # §A3: 54 cards, 10 of them (45-54) only from 1945; reshuffled when one card remains
    assert deck.composition == "54 cards (44 in the draw pile, 10 set aside)"
    assert "reshuffle at: 1" in deck.rules and "drawn by Axis, Soviet" in deck.rules
    c01 = next(c for c in deck.cards if c.name == "c01")
    assert [(whose, rule.split(":")[0]) for whose, rule, _refs in c01.events] == [("Axis", "Erich von Manstein"), ("Soviet", "Stavka")]
    assert c01.owners is None  # either side may hold it, as either draws from the deck
    page = lxml.html.fromstring(render_html(aid))
    card = page.xpath('//article[@data-card="c01"]')[0]
    assert "Axis: Erich von Manstein: double a unit, or two counterblows §K01; Soviet: Stavka" in text(card)
    # what the card prints (the deck's `face:`), not when the rules let each event be played
    assert [k for k, _v in c01.fields][:3] == ["number", "axis event", "axis text"] and c01.flags == ["removed 1945"]
    assert not any("when" in k.lower() for c in deck.cards for k, _v in c.fields)
    assert not any("set aside" in f.lower() for c in deck.cards for f in c.flags)


def test_stargard_cup_of_chits_is_said_by_its_piles():
    aid = build_aid(checked(ROOT / "games" / "stargard-solstice"))
    (cup,) = aid.decks
    # §1.4: one common cup; §7.2: a chit arriving later waits for the turn after (the deck's own
    # piles, by the titles the deck gives them: `pile "waiting" "Not usable yet"`)
    assert re.fullmatch(r"15 cards \(\d+ in “Cup”, \d+ in “Not usable yet”\)", cup.composition), cup.composition
    assert {c.owners for c in cup.cards} == {"German", "Soviet"}  # a chit is its side's (§1.4)
    # a chit lists the HQs it activates (§3.1.1, §2.3.1), not its pile or its usable turns
    chit = next(c for c in cup.cards if c.name == "chit_61a")
    assert chit.fields == [("activates", "61 HQ, Konstantinov HQ")] and chit.flags == []
    assert all(k == "activates" for c in cup.cards for k, _v in c.fields)
    # drawn blind (§1.4), the Zhukov chit hidden from the German player (§12.6): the piles' visibility
    assert "Cup: face down (nobody sees its cards)" in cup.rules
    assert "Withheld (hidden from the German player): each card seen by its owner only" in cup.rules
    # the unit chart's provisional note says each reason once, with the units it concerns
    page = lxml.html.fromstring(render_html(aid))
    note = text(page.xpath('//article[contains(@class, "units-card")]/p[contains(@class, "source-provisional")]')[0])
    assert note.count("HQ colour not in the source text") == 1
    hq_colour = next(units for reason, units in aid.units.provisional_notes() if reason.endswith("HQ colour not in the source text"))
    assert len(hq_colour) > 100 and f"({', '.join(hq_colour)})" in note


def test_a_typical_battle_with_few_results_shows_each_of_them(fall_blau_aid):
    """Stalingrad '42's Determined Defense battle has eleven results (the CRT's die, then the
    Determined Defense die): each is listed, none summed into "6 other results" (a battle of
    rounds with hundreds of results still shows its likeliest five and the rest on one line)."""
    dd = next(b for b in fall_blau_aid.battles if b.name == "odds_determined_defense")
    assert 5 < len(dd.results) <= 12
    assert not any("other results" in text for _, text in dd.results)
    assert any("Guards rifle division eliminated" in text for _, text in dd.results)
