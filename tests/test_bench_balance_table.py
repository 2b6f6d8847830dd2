"""bench/balance_table.py --stands: the figures of docs/balance.md's "Where each scenario stands"
made from batch folders, the games of one experiment pooled by seed across folders."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from warcodex.balance.command import run_batch
from warcodex.balance.stats import wilson

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.balance_table import _seeds, column, load_batch, pool, stands, stands_cell  # noqa: E402

ALLIANCE_WINS = ROOT / "tests" / "data" / "overlays" / "battle_richer_alliance_wins.wcx"


def _tiny(tmp_path, name, first_seed, games, agents="random"):
    run_batch("tiny", "meeting", games=games, agents=agents, workers=1, out_dir=tmp_path / name, first_seed=first_seed)
    return load_batch(tmp_path / name)


def _figure(label, w):
    lo, hi = w["ci95"]
    return f"{label} {w['count']}/{w['games']}, {w['rate']:.0%} [{lo:.0%}-{hi:.0%}]"


def test_a_batch_continued_in_another_folder_pools_by_seed(tmp_path):
    # seeds 1-3 in one folder, 3-5 in another (seed 3 played twice): the pool is seeds 1-5, as
    # one batch of seeds 1-5 played in one folder
    first, second = _tiny(tmp_path, "a", 1, 3), _tiny(tmp_path, "b", 3, 3)
    whole = _tiny(tmp_path, "whole", 1, 5)
    other = _tiny(tmp_path, "other", 1, 2, agents="first")  # other agents: another experiment
    pooled = pool([first, second, other])
    assert len(pooled) == 2
    report, records = pooled[0]
    assert [r["seed"] for r in records] == [1, 2, 3, 4, 5]
    assert stands_cell(report, records) == stands_cell(*whole)
    agg = whole[0]["aggregate"]
    draws = agg["win_rates"]["draw"]["count"]
    expected = f"{_figure('Axis', agg['win_rates']['axis'])}; {_figure('Soviet', agg['win_rates']['soviet'])}"
    if draws:
        expected += f", {draws} draw{'s' if draws != 1 else ''}"
    assert stands_cell(report, records) == expected + " (seeds 1-5)"
    assert [r["seed"] for r in pooled[1][1]] == [1, 2] and column(pooled[1][0]["run"]["agents"]) == "first vs first"


def test_the_cell_is_the_searching_side_and_its_cpu(tmp_path, capsys):
    report, records = _tiny(tmp_path, "g", 1, 2, agents="random,greedy")
    assert column(report["run"]["agents"]) == "greedy vs random"
    soviet = report["aggregate"]["win_rates"]["soviet"]
    cell = stands_cell(report, records)
    assert cell.startswith(_figure("Soviet", soviet)) and "Axis" not in cell and cell.endswith("(seeds 1-2)")
    lo, hi = wilson(soviet["count"], 2)
    assert f"[{lo:.0%}-{hi:.0%}]" in cell
    stands([str(tmp_path / "g"), str(tmp_path / "missing")])
    out, err = capsys.readouterr()
    line = out.splitlines()[2]
    assert line.startswith("| Tiny Front, Meeting Engagement | greedy vs random (Axis random, Soviet greedy) | ")
    cpu = sorted(r["agents"]["soviet"]["cpu_s"] for r in records)
    assert f"| Soviet {(cpu[0] + cpu[1]) / 2:.0f} s |" in line  # the median of two games
    assert "missing: no report.json and games.jsonl, skipped" in err
    assert column(["mcts", "greedy"]) == column(["greedy", "mcts:playouts=8"]) == "MCTS vs greedy"
    assert _seeds([1, 2, 3, 5, 7, 8]) == "1-3, 5, 7-8"
    assert stands_cell(report, records[:1]).endswith("(seed 1)")


def test_an_alliance_wins_for_its_members(tmp_path):
    # the winner of an A&A game is an alliance (`win(allies, ...)`): the cell counts the
    # alliances of the searching sides, here Germany (Axis) and the United States (Allies)
    run_batch(str(ROOT / "tests" / "data" / "games" / "battle"), "duel", games=8, agents="random,first,random",
              workers=1, out_dir=tmp_path / "bt", overlays=[str(ALLIANCE_WINS)])
    report, records = load_batch(tmp_path / "bt")
    assert [a["name"] for a in report["run"]["alliances"]] == ["axis", "allies"]
    winners = [r["winner"] for r in records]
    axis, allies, draws = winners.count("axis"), winners.count("allies"), winners.count(None)
    assert axis and allies and draws and axis + allies + draws == 8  # the overlay gives all three
    cell = stands_cell(report, records)
    assert cell.startswith(f"Axis {axis}/8, ") and f"; Allies {allies}/8, " in cell
    assert cell.endswith(f", {draws} draw{'s' if draws != 1 else ''} (seeds 1-8)")
    assert "Germany" not in cell and "United States" not in cell
    reported = json.loads((tmp_path / "bt" / "report.json").read_text())["aggregate"]["win_rates"]
    assert reported["allies"]["count"] == allies and reported["axis"]["count"] == axis
