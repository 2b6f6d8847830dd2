"""The Markdown table of docs/balance.md's figures, from the report.json of `warcodex balance` batches.

    python bench/balance_table.py out/balance/*/

One row a batch: the game and scenario, each side's agent and win rate with its 95% Wilson
interval, the draws, the games completed (of those asked), the median turns, games/s per worker
and the median seconds per game as a ratio to the same-run Tiny Front reference game
(docs/balance.md, "Speed"), and the CPU a decision of each side's search agent (batches from
before it was recorded show "-"). A batch still running or stopped shows what it completed.

Then the rule coverage of each batch: how many rules (of every kind a record can show) its games
fired, how many they never fired though play could have reached them, and how many are out of
reach in the scenario (docs/balance.md, "Rule coverage"), and the actions never chosen.
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
    labels = {s["name"]: s["label"] for s in run["sides"]}
    cost = "; ".join(f"{labels.get(side, side)} {c['cpu_ms_per_decision']:.0f} ms"
                     for side, c in (perf.get("search_agents") or {}).items()) or "-"
    return (f"| {run['title']}, {run['scenario_label']} | {sides} | {_rate(agg['win_rates']['draw'])} "
            f"| {games} | {turns} | {speed} | {ratio} | {cost} |")


def coverage_row(report: dict) -> str:
    run, cov = report["run"], report.get("coverage", {})
    agents = ", ".join(f"{s['label']} {a}" for s, a in zip(run["sides"], run["agents"]))
    total = sum(k["total"] for k in cov.values())
    fired = sum(k["fired"] for k in cov.values())
    never = sum(k["never_fired"] for k in cov.values())
    unreachable = sum(k.get("out_of_reach", 0) for k in cov.values())
    actions = cov.get("action", {})
    never_actions = f"{actions['never_fired']} of {actions['total']}" if actions else "-"
    return (f"| {run['title']}, {run['scenario_label']} | {agents} | {report['aggregate']['completed']} "
            f"| {fired} of {total} | {never} | {unreachable} | {never_actions} |")


def main(folders: list[str]) -> None:
    reports = []
    for folder in folders:
        path = Path(folder) / "report.json"
        if path.exists():
            reports.append(json.loads(path.read_text(encoding="utf-8")))
    print("| scenario | agents and win rates [95% interval] | draws | games | median turns "
          "| games/s per worker | s/game vs reference | CPU a search decision |")
    print("|---|---|---|---|---|---|---|---|")
    for report in reports:
        print(row(report))
    print()
    print("| scenario | agents | games | rules fired | never fired (in reach) | out of reach in the scenario "
          "| actions never chosen |")
    print("|---|---|---|---|---|---|---|")
    for report in reports:
        print(coverage_row(report))


if __name__ == "__main__":
    main(sys.argv[1:])
