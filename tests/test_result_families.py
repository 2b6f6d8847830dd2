"""Result families (dsl/families.py, docs/language.md "Result families"): the games' declared
grouping of a CRT's results, checked with located errors, and the odds charts ordered and
coloured by it."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import lxml.etree
import pytest
from click.testing import CliRunner

from warcodex.cli import cli
from warcodex.dsl.checker import check_path
from warcodex.exporters.aids.charts import palette
from warcodex.exporters.aids.odds import Category
from warcodex.dsl.families import family_of, families_of

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "games" / "tiny"
SVG = "{http://www.w3.org/2000/svg}"

# every CRT game: the tables its families group, and the families in order
CRT_GAMES = [
    ("tiny", ["crt"], ["attacker_repulsed", "exchange", "defender_retreats", "defender_eliminated"]),
    ("stalingrad42", ["crt"], ["attacker_loses", "both_lose", "defender_retreats", "defender_loses", "defender_routed"]),
    ("stargard-solstice", ["crt"], ["attacker_hit", "both_hit", "defender_retreats", "defender_loses"]),
    ("no-retreat", ["german_crt", "soviet_crt"], ["defender_strikes_back", "exchange", "defender_retreats", "defender_routed"]),
]


@pytest.mark.parametrize("game, tables, names", CRT_GAMES, ids=[g for g, _, _ in CRT_GAMES])
def test_every_crt_cell_is_in_one_declared_family(game, tables, names):
    g, diags = check_path(ROOT / "games" / game)
    assert g is not None and not diags.errors
    assert not [d for d in diags.warnings if d.code == "W-family"], [d.render() for d in diags.warnings if d.code == "W-family"]
    for table in tables:
        fams = families_of(g, table)
        assert [f.name for f in fams] == names
        assert all(f.provenance == "derived" and f.note for f in fams)  # grouped from the rulebook's result list


def test_a_cell_goes_to_its_most_specific_pattern():
    g, _ = check_path(ROOT / "games" / "stalingrad42")
    fams = families_of(g, "crt")
    name = {cell: fams[family_of(fams, cell.split("/"))].name for cell in
            ["A1", "A1/D1/Adv2", "A1/DR2/Adv3/DD_minus", "DRX/Adv2", "EX", "D1/Adv2/DD_minus", "DR4/Adv3", "DS/Adv4"]}
    assert name == {  # §10.1: A1/D1 is "both lose 1", A1/DR2 a 2-hex retreat; Adv and colour codes do not count
        "A1": "attacker_loses", "A1/D1/Adv2": "both_lose", "A1/DR2/Adv3/DD_minus": "defender_retreats",
        "DRX/Adv2": "both_lose", "EX": "both_lose", "D1/Adv2/DD_minus": "defender_loses",
        "DR4/Adv3": "defender_routed", "DS/Adv4": "defender_routed",
    }
    assert family_of(fams, ["Adv2"]) is None


def test_bad_families_are_located_errors_and_a_cell_left_out_a_warning(tmp_path):
    bad = tmp_path / "families.wcx"
    bad.write_text(
        'family nowhere "Nowhere" §7.5 derived "x" {\n  table: weather\n  results: ["DE"]\n}\n'
        'family typo "Typo" §7.5 derived "x" {\n  table: crt\n  results: ["DX", "AE/DR"]\n  colour: 3\n}\n')
    g, diags = check_path(TINY, overlays=[bad])
    errors = {(d.span.line, d.message.split(" ")[0]) for d in diags.errors}
    text = "\n".join(d.render() for d in diags.errors)
    assert f"{bad}:2:10:" in text and "'weather' is not a table" in text
    assert f"{bad}:7:" in text and "'DX' in family typo is not a result" in text
    assert f"{bad}:8:" in text and "not `colour`" in text and "^" in text
    assert len(errors) == 3
    # the Tiny families are still all there, but AE/DR is the only pattern of `typo`: nothing is
    # left out; a family of the CRT without EX leaves EX cells out
    partial = tmp_path / "partial.wcx"
    partial.write_text('override family exchange "Exchange" §7.5 derived "x" {\n  table: weather_table\n  results: ["EX"]\n}\n')
    g, diags = check_path(TINY, overlays=[partial])
    left = [d.message for d in diags.warnings if d.code == "W-family"]
    assert any("cell EX of table crt" in m for m in left)
    assert not any("of table crt" in m and "cell EX" not in m for m in left)
    assert any("of table weather_table" in m for m in left)  # its other cells are in no family


def test_the_palette_shades_one_hue_per_family():
    cats = [Category("AE", "", 0), Category("AR", "", 0), Category("EX", "", 1), Category("DR1", "", 2),
            Category("DR2", "", 2), Category("DE", "", 3), Category("-", "", None)]
    colours = palette(cats)
    assert len(set(colours)) == len(colours)
    assert colours[-1] == "#f2f2f2"  # no effect: light grey
    # a family's cells are shades of one hue (darker, lighter); families differ by hue
    import colorsys

    def hue(c):
        return colorsys.rgb_to_hls(*(int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)))[0] * 360

    fams = {}
    for cat, colour in zip(cats[:-1], colours[:-1]):
        fams.setdefault(cat.family, []).append(hue(colour))
    for hues in fams.values():
        assert max(hues) - min(hues) < 3
    firsts = sorted(h[0] for h in fams.values())
    assert min(b - a for a, b in zip(firsts, firsts[1:])) > 15


def test_the_tiny_odds_chart_legend_and_bars_follow_the_families(tmp_path):
    res = CliRunner().invoke(cli, ["aids", str(TINY), "-o", str(tmp_path)])
    assert res.exit_code == 0, res.output
    root = lxml.etree.parse(str(tmp_path / "odds-crt.svg")).getroot()
    legend = [g for g in root.iter(f"{SVG}g") if g.get("class") == "family-legend"]
    labels = [t.text for g in legend for t in g.iter(f"{SVG}text") if t.get("class") == "family"]
    assert labels == ["Attacker eliminated or retreats", "Exchange: both sides lose a step", "Defender retreats",
                      "Defender eliminated"]
    cells = [[t.text for t in g.iter(f"{SVG}text") if t.get("class") == "family-cell"] for g in legend]
    assert cells == [["AE", "AR"], ["EX"], ["DR1", "DR2"], ["DE"]]
    order = {"AE": 0, "AR": 0, "EX": 1, "DR1": 2, "DR2": 2, "DE": 3}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "bar":  # bottom to top: the families in order, each in one band
            fams = [order[r.get("data-result")] for r in g.iter(f"{SVG}rect")]
            assert fams == sorted(fams), g.get("data-column")


@lru_cache(maxsize=None)
def _charts_of(name: str):
    """The odds charts of a bundled game's aid (its tables only: no typical battles computed)."""
    from warcodex.exporters.aids.tables import table_aids
    from warcodex.exporters.aids.writer import AidWriter
    from warcodex.facts import facts_of
    from warcodex.interpreter.engine import Engine

    game, diags = check_path(ROOT / "games" / name)
    assert game is not None and not diags.errors
    return [t.chart for t in table_aids(AidWriter(facts_of(Engine(game), None), "en")) if t.chart is not None]


@pytest.mark.parametrize("name", ["tiny", "stalingrad42", "stargard-solstice", "no-retreat"])
def test_every_odds_chart_legend_shows_every_result_whole(name):
    """A player reads every result a chart shows in its legend, whole (no `…`), inside the
    picture: with families, each cell of a family with its own swatch (the Determined Defense
    Table's first family has four: its fourth, DD_S/Att1/DefPicks, used to be cut off); without,
    each result's label (Stargard's random events)."""
    from warcodex.exporters.aids.charts import odds_chart_svg, text_width

    for chart in _charts_of(name):
        root = lxml.etree.fromstring(odds_chart_svg(chart).encode())
        width = float(root.get("width"))
        shown = {seg.get("data-result") for seg in root.iter(f"{SVG}rect") if seg.get("class") == "seg"}
        assert "…" not in lxml.etree.tostring(root, encoding="unicode"), chart.table
        if chart.families:
            cells = [t for t in root.iter(f"{SVG}text") if t.get("class") == "family-cell"]
            assert {t.text for t in cells} == shown, chart.table
            swatches = {r.get("data-result") for r in root.iter(f"{SVG}rect") if r.get("class") == "family-swatch"}
            assert swatches == shown
            for t in cells:  # inside the picture
                assert float(t.get("x")) + text_width(t.text) <= width, (chart.table, t.text)
        else:
            labels = [t for t in root.iter(f"{SVG}text") if t.get("class") == "result"]
            assert {t.get("data-result") for t in labels} == shown, chart.table
            for t in labels:
                lines = [s.text for s in t]
                assert " ".join(lines).replace("  ", " ").startswith(t.get("data-result")), lines
                assert all(float(s.get("x")) + text_width(s.text) <= width for s in t), (chart.table, lines)
    if name == "stalingrad42":
        dd = next(c for c in _charts_of(name) if c.table == "dd_table")
        root = lxml.etree.fromstring(odds_chart_svg(dd).encode())
        cells = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "family-cell"]
        assert cells[:4] == ["DD_S/Def1", "DD_S", "DD_S/Att1", "DD_S/Att1/DefPicks"]


def test_a_legend_wraps_a_label_too_long_for_its_line():
    from warcodex.exporters.aids.charts import text_width, wrap_text

    text = "german_replacements_event: German replacements arrive at the nearest friendly city in supply"
    lines = wrap_text(text, 150)
    assert len(lines) > 1 and all(text_width(line) <= 150 for line in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing left out
    lines = wrap_text("DD_S/Att1/DefPicks", 40)  # narrower than the code: broken at its slashes, then inside a word
    assert "".join(lines) == "DD_S/Att1/DefPicks" and len(lines) >= 3 and all(text_width(x) <= 40 for x in lines)
