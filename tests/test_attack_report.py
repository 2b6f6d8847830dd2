"""A CRT attack as a player reads it (`warcodex odds` on a CRT game, interpreter/attack_report.py):
the strengths, odds, column shifts and final column come from the rules' own traces, each die face
reads its cell of the table, and the result's chances add up; checked on each bundled CRT game's
scene against the digests' worked examples and against the table as the game declares it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from warcodex.cli import cli
from warcodex.interpreter import odds
from warcodex.interpreter.attack_report import attack_report

ROOT = Path(__file__).resolve().parent.parent


def report_of(game: str, file: str):
    root = ROOT / "games" / game
    sc = odds.load_scene(root, root / "scenes" / file)
    return sc, attack_report(sc)


def texts(lines) -> list[str]:
    return [x.strip() for line in lines for x in line.lines()]


def column_of(sc, report) -> list[str]:
    """The table's own cells in the final column, row 1..6 (the game's declaration, read through
    the compiled table the engine looks up)."""
    table = sc.run.engine.tables[report.table]
    j = table.column_text.index(report.columns[0])
    return [str(table.row_for(r, None)[0][j]) for r in range(1, 7)]


def test_tiny_the_7_3_example_derivation_and_every_face():
    # §7.3 example: 11th Panzer (8) and an infantry division (5) attack a rifle division in a Town
    # (4, doubled): 13:8 is 1-1, armor +1 and elite +1 shift it to 3-1 (§7.4)
    sc, r = report_of("tiny", "town_attack.wcx")
    before = texts(r.before)
    assert "total attack strength = 13 (§7.2)" in before
    assert "in a town: 4 *2 -> 8 (§2.2)" in before and "total defense strength = 8 (§7.2)" in before
    assert "odds 13:8 -> 1-1" in before
    assert before.index("armor: 1-1 +1 -> 2-1 (§7.4)") < before.index("elite: 2-1 +1 -> 3-1 (§7.4)")
    assert r.columns == ["3-1"]
    assert [f.rolls for f in r.faces] == [[1], [2], [3], [4], [5], [6]]
    assert [f.result for f in r.faces] == ["DR1", "DR1", "DR2", "DR2", "DE", "DE"]
    assert [f.row for f in r.faces] == ["1", "2", "3", "4", "5", "6"]
    assert all(f.probability == pytest.approx(1 / 6) for f in r.faces)
    assert texts(r.faces[4].applied) == ["apply DE (Defender eliminated) (§7.5)"]
    assert r.faces[4].effects == "attacker: 11th Panzer to 0805; defender: Rifle division eliminated"
    assert r.faces[0].effects.endswith("Rifle division to 0905")  # DR1: one hex, the answer given
    assert r.results == pytest.approx({"DR1": 1 / 3, "DR2": 1 / 3, "DE": 1 / 3})
    assert r.provenance == "provisional" and r.provenance_note == "invented grid for the example game"


def test_stalingrad_three_divisions_against_a_rifle_division():
    # 3 x 6 attack against 5 defense: 18:5 rounds down to 3-1 (§8.3), the factor caps applied
    sc, r = report_of("stalingrad42", "infantry_attack.wcx")
    before = texts(r.before)
    assert "total attack strength = 18 (§8.3, §8.5.1)" in before and "odds 18:5 -> 3-1" in before
    assert "at most 40 attack factors: 18 min 40 (within the limit) (§8.5.1)" in before
    assert r.columns == ["3-1"] and [f.result for f in r.faces] == column_of(sc, r)
    assert r.provenance == "provisional"
    assert sum(r.results.values()) == pytest.approx(1)


def test_stargard_8_1_is_read_on_the_7_1_column():
    # derived case B13: 8:1, the CRT's last column is 7-1 (§1.1.3), the terrain shifts nothing
    sc, r = report_of("stargard-solstice", "hq_stack_attack.wcx")
    before = texts(r.before)
    assert "odds 8:1 -> 8-1" in before
    assert "Terrain Effects Chart: column shift, row clear -> 0 (§1.3.1, §5.2, §8.4.2)" in before
    assert "8-1 is resolved on the 7-1 column (§1.1.3)" in before  # the same on every face: before the die
    assert r.columns == ["7-1"] and [f.result for f in r.faces] == column_of(sc, r)
    assert all(f.effects.startswith("defender: 61 HQ to 03.04") for f in r.faces)  # the HQ reforms (§12.2.1)


def test_no_retreat_the_a6_battle():
    # worked example A6: two Soviet fronts (4 + 4) against Volkssturm (1) and the Berlin fortress
    # (3): 8:4 is 2:1, clear terrain shifts nothing (§C8.3, §C8.4)
    sc, r = report_of("no-retreat", "berlin_battle.wcx")
    before = texts(r.before)
    assert "total attack strength = 8 (§C8.3)" in before and "total defence strength = 4 (§C8.3)" in before
    assert "odds, attack : defence rounded down = 2:1 (§C8.3)" in before
    assert r.table == "soviet_crt" and r.columns == ["2:1"]
    assert [f.result for f in r.faces] == column_of(sc, r)
    ex = next(f for f in r.faces if f.result == "EX")
    assert texts(ex.applied) == ["apply EX (Exchange) (§C8.5)"]
    assert "Volkssturm eliminated" in ex.effects and "Soviet front (4-3) loses 1 step(s)" in ex.effects


def test_the_report_agrees_with_the_exact_odds():
    """Each face's effect, weighted, is the exact distribution (computed with the memoised
    enumerator, a different path through the engine)."""
    sc, r = report_of("tiny", "town_attack.wcx")
    exact = odds.exact(sc)
    by_effect: dict[str, float] = {}
    for f in r.faces:
        by_effect[f.effects] = by_effect.get(f.effects, 0.0) + f.probability
    assert by_effect == pytest.approx({text: p for p, text in exact.effects})


def test_a_battle_of_rounds_gets_no_crt_report():
    aa = ROOT / "games" / "axis-allies-1941"
    sc = odds.load_scene(aa, ROOT / "tests" / "data" / "odds" / "aa_small.wcx", "odds_small")
    assert attack_report(sc) is None


def test_the_command_prints_and_the_json_carries_the_attack():
    runner = CliRunner()
    scene = str(ROOT / "games" / "tiny" / "scenes" / "town_attack.wcx")
    res = runner.invoke(cli, ["odds", str(ROOT / "games" / "tiny"), "--scene", scene])
    assert res.exit_code == 0, res.output
    assert "PROVISIONAL: invented grid for the example game" in res.output
    assert "elite: 2-1 +1 -> 3-1 (§7.4)" in res.output and "final column: 3-1" in res.output
    assert "results: DR1 0.3333, DR2 0.3333, DE 0.3333" in res.output
    res = runner.invoke(cli, ["odds", str(ROOT / "games" / "tiny"), "--scene", scene, "--json"])
    attack = json.loads(res.output)["attack"]
    assert attack["columns"] == ["3-1"] and attack["provenance"] == "provisional"
    assert [f["result"] for f in attack["faces"]] == ["DR1", "DR1", "DR2", "DR2", "DE", "DE"]
    assert attack["faces"][0]["rolls"] == [{"dice": "d6", "total": 1}]
    assert attack["faces"][0]["lookup"]["text"] == "Combat Results Table: column 3-1, row 1 -> DR1"


def test_stalingrad_determined_defense_a_second_die_with_its_modifier():
    # §11.2: the guards make a Determined Defense after the CRT's result; guards count as Elite,
    # +1 on the Determined Defense die (§11.2.4): a die of 1 is read on row 2
    sc, r = report_of("stalingrad42", "determined_defense.wcx")
    assert r.columns == ["3-1"] and sum(f.probability for f in r.faces) == pytest.approx(1)
    first = r.faces[0]
    assert first.rolls == [1, 1] and first.probability == pytest.approx(1 / 36)
    later = texts(first.later)
    assert later[0] == "roll d6: 1" and "Elite lead unit: 0 +1 -> 1 (§11.2.4)" in later
    assert any(t.startswith("Determined Defense Table: column clear, row 2 -> ") for t in later)
    exact = odds.exact(sc)
    by_effect: dict[str, float] = {}
    for f in r.faces:
        by_effect[f.effects] = by_effect.get(f.effects, 0.0) + f.probability
    assert by_effect == pytest.approx({text: p for p, text in exact.effects})
