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

    python bench/balance_table.py --stands DIR...

The figures of docs/balance.md's "Where each scenario stands" instead: the batches of the same
scenario, agents, options and rules are pooled game by game (their games.jsonl, a seed counted
once, so a batch continued in another folder adds its games), and each pool gives one cell: the
games the searching side won out of those completed, with the 95% Wilson interval, the draws and
the seeds, in the column of its agents ("greedy vs random", "MCTS vs greedy"...), and the CPU a
game of each search agent (median over the games, from the records).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

# the agents from the most searching to the least: the column of a batch is its most searching
# agent against the next one ("MCTS vs greedy"), its cell the sides that agent plays
KINDS = ("mcts", "plan", "greedy", "random", "first")
KIND_LABELS = {"mcts": "MCTS"}


def _rank(kind: str) -> int:
    """How searching an agent kind is: 0 the most (an unknown kind after every known one)."""
    return KINDS.index(kind) if kind in KINDS else len(KINDS)


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


def load_batch(folder: str | Path) -> tuple[dict, list[dict]] | None:
    """A batch folder's report and its games' records (None without both: a batch that has not
    written its report yet)."""
    folder = Path(folder)
    report, games = folder / "report.json", folder / "games.jsonl"
    if not (report.exists() and games.exists()):
        return None
    records = [json.loads(line) for line in games.read_text(encoding="utf-8").splitlines() if line.strip()]
    return json.loads(report.read_text(encoding="utf-8")), records


def _pool_key(run: dict) -> tuple:
    """What makes two batches' games the same experiment (run.json's identity): the same game,
    scenario, agents, options and rules (by fingerprint), whatever seeds each played."""
    return (run["game"], run["scenario"], tuple(run["agents"]), json.dumps(run.get("options", {}), sort_keys=True),
            run["rules"], run.get("check_invariants", True))


def pool(batches: list[tuple[dict, list[dict]]]) -> list[tuple[dict, list[dict]]]:
    """The batches grouped by `_pool_key`, each group's records merged by seed (a seed played in
    two folders of the same batch is one game); a group's first report describes it."""
    groups: dict[tuple, tuple[dict, dict[int, dict]]] = {}
    for report, records in batches:
        _, by_seed = groups.setdefault(_pool_key(report["run"]), (report, {}))
        for r in records:
            by_seed.setdefault(r["seed"], r)
    return [(report, [by_seed[s] for s in sorted(by_seed)]) for report, by_seed in groups.values()]


def _kind(spec: str) -> str:
    return spec.split(":", 1)[0]


def column(agents: list[str]) -> str:
    """The stands table's column of a batch: its most searching agent against the next one, or
    against itself when every side plays the same agent ("random vs random")."""
    kinds = sorted({_kind(a) for a in agents}, key=_rank)
    first, second = kinds[0], kinds[1] if len(kinds) > 1 else kinds[0]
    return f"{KIND_LABELS.get(first, first)} vs {KIND_LABELS.get(second, second)}"


def _seeds(seeds: list[int]) -> str:
    """1, 2, 3, 5 -> "1-3, 5"."""
    runs: list[list[int]] = []
    for s in seeds:
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else f"{r[0]}" for r in runs)


def stands_cell(report: dict, records: list[dict]) -> str:
    """One cell of the stands table: each searching party's wins of the games completed, with its
    Wilson interval, then the draws, failures and seeds. The searching parties are the sides of
    the batch's most searching agent (every side when all play the same), an alliance for its
    members when the rules have alliances (a game an alliance won is won by each member)."""
    from warcodex.balance.stats import aggregate

    run = report["run"]
    sides = [s["name"] for s in run["sides"]]
    labels = {s["name"]: s["label"] for s in run["sides"]}
    alliance_of = {}
    for a in run.get("alliances", []):
        labels[a["name"]] = a["label"]
        alliance_of.update({m: a["name"] for m in a["members"]})
    agg = aggregate(records, sides, alliance_of)
    kinds = {side: _kind(spec) for side, spec in zip(sides, run["agents"])}
    top = min(kinds.values(), key=_rank)
    parties = list(dict.fromkeys(alliance_of.get(s, s) for s in sides if kinds[s] == top))
    figures = []
    for party in parties:
        w = agg["win_rates"][party]
        lo, hi = w["ci95"]
        rate = f", {w['rate']:.0%} [{lo:.0%}-{hi:.0%}]" if w["games"] else ""
        figures.append(f"{labels[party]} {w['count']}/{w['games']}{rate}")
    draws = agg["win_rates"]["draw"]["count"]
    extra = [f"{draws} draw{'s' if draws != 1 else ''}"] if draws else []
    if agg["failed"]:
        extra.append(f"{agg['failed']} failed")
    return "; ".join(figures) + "".join(f", {e}" for e in extra) + f" (seed{'s' if len(records) > 1 else ''} {_seeds([r['seed'] for r in records])})"


def cpu_per_game(records: list[dict], labels: dict[str, str]) -> str:
    """The median CPU seconds a game of each search agent (process time: the load does not
    inflate it), over the games that recorded it."""
    by_side: dict[str, list[float]] = {}
    for r in records:
        for side, stats in (r.get("agents") or {}).items():
            by_side.setdefault(side, []).append(stats["cpu_s"])
    return "; ".join(f"{labels.get(side, side)} {statistics.median(cpu):.0f} s" for side, cpu in by_side.items()) or "-"


def stands(folders: list[str]) -> None:
    batches = []
    for folder in folders:
        batch = load_batch(folder)
        if batch is None:
            print(f"{folder}: no report.json and games.jsonl, skipped", file=sys.stderr)
        else:
            batches.append(batch)
    print("| scenario | column | figure | CPU a game (search agents, median) | rules |")
    print("|---|---|---|---|---|")
    for report, records in pool(batches):
        run = report["run"]
        labels = {s["name"]: s["label"] for s in run["sides"]}
        agents = ", ".join(f"{labels[s['name']]} {a}" for s, a in zip(run["sides"], run["agents"]))
        print(f"| {run['title']}, {run['scenario_label']} | {column(run['agents'])} ({agents}) "
              f"| {stands_cell(report, records)} | {cpu_per_game(records, labels)} | {run['rules'][:12]} |")


def main(folders: list[str]) -> None:
    if folders[:1] == ["--stands"]:
        stands(folders[1:])
        return
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
