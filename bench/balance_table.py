"""The Markdown table of docs/balance.md's figures, from the report.json of `warcodex balance` batches.

    python bench/balance_table.py out/balance/*/

One row a batch: the game and scenario, each side's agent and win rate with its 95% Wilson
interval, the draws, the games completed (of those asked), the median turns, games/s per worker
and the median seconds per game as a ratio to the same-run Tiny Front reference game
(docs/balance.md, "Speed"). A batch still running or stopped shows what it completed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _rate(w: dict) -> str:
    if w.get("rate") is None:
        return "-"
    lo, hi = w["ci95"]
    return f"{w['rate']:.0%} [{lo:.0%}-{hi:.0%}]"


def row(report: dict) -> str:
    run, agg, perf = report["run"], report["aggregate"], report["performance"]
    sides = "; ".join(f"{s['label']} ({a}) {_rate(agg['win_rates'][s['name']])}"
                      for s, a in zip(run["sides"], run["agents"]))
    games = f"{agg['completed']}/{run['games_asked']}" + (f" ({agg['failed']} failed)" if agg["failed"] else "")
    if perf.get("backend", "").startswith("ray"):
        games += " on Ray"
    turns = agg["length"]["turns"]["median"] if agg["completed"] else "-"
    speed, ratio = perf.get("games_per_second_per_worker"), perf.get("ratio_to_reference")
    speed = f"{speed:.3g}" if speed else "-"
    ratio = f"{ratio:.0f}x" if ratio else "-"
    return (f"| {run['title']}, {run['scenario_label']} | {sides} | {_rate(agg['win_rates']['draw'])} "
            f"| {games} | {turns} | {speed} | {ratio} |")


def main(folders: list[str]) -> None:
    print("| scenario | agents and win rates [95% interval] | draws | games | median turns "
          "| games/s per worker | s/game vs reference |")
    print("|---|---|---|---|---|---|---|")
    for folder in folders:
        path = Path(folder) / "report.json"
        if path.exists():
            print(row(json.loads(path.read_text(encoding="utf-8"))))


if __name__ == "__main__":
    main(sys.argv[1:])
