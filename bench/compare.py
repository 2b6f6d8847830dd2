"""This engine against another checkout of Warcodex (the engine before a change), in one run.

    .venv/bin/python bench/compare.py --base /path/to/old/checkout [--game stalingrad42]
        [--scenario fall_blau] [--seeds 5] [--traced-seeds 1] [--out bench/compare.json]

The other checkout needs its own virtualenv (`BASE/.venv`, with Warcodex installed from BASE):
for example `git worktree add ../wcx-base 772ede4 && cd ../wcx-base && python3 -m venv .venv &&
.venv/bin/pip install -e .` (outside this repository's tree). Each side plays in a long-lived
worker process of its own (`compare_worker.py`, run by each side's Python: the engine is built
once, outside the timings), seed by seed in alternation, so load from other processes hits both
alike. Both play this checkout's game files: the same rules, only the engines differ. For each seed both play the same random self-play game with invariants checked, untraced
(as `bench/selfplay.py`), and the report gives each side's median seconds per game and their
ratio; both logs are compared, game against game (same seed, same game). `--traced-seeds N`
also compares the first N games played with explanations (the logs then hold every derivation).

Random agents draw lazily since #14 (docs/engine.md, "Actions and agents"): against an older
checkout, the same seed is then another game. By default each side plays its own agents' games:
the ratio is then between median seconds per game (and per action) of two samples of games, and
the logs are not compared. `--same-games` has this side draw as older engines did
(`RandomAgent(eager_domains=True)`): the same games, the engines' own speed compared seed by
seed (the agents' laziness left out). Two logs of one game may be worded otherwise (an entry's
`text`); a seed whose games part is reported where they part and why (bench/logdiff.py; docs/
engine.md, "Where two games part"), and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from bench.logdiff import drawn_apart, explain_decision, first_apart, first_divergence  # noqa: E402

WORKER = HERE / "compare_worker.py"


class Worker:
    """One side: a Python process that builds the engine once and plays the games asked."""

    def __init__(self, label: str, checkout: Path, game_dir: Path) -> None:
        python = checkout / ".venv" / "bin" / "python"
        if not python.exists():
            raise SystemExit(f"{checkout} has no .venv: make one there and install that checkout into it")
        self.label = label
        # the other checkout is read, never written (no bytecode caches left in it)
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        self.proc = subprocess.Popen([str(python), str(WORKER), str(game_dir)], cwd=checkout, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        ready = json.loads(self.proc.stdout.readline())
        self.build_s = ready["build_s"]
        self.version = ready["version"]
        self.lazy = ready.get("lazy", False)  # its random agents draw lazily (other games)

    def play(self, scenario: str, seed: int, trace: bool, eager: bool = False) -> dict:
        return self._ask({"scenario": scenario, "seed": seed, "trace": trace, "eager": eager})

    def last_log(self) -> list[dict]:
        """The entries of the last game this side played."""
        return self._ask({"log": True})["entries"]

    def inspect(self, scenario: str, seed: int, decision: int, eager: bool = False) -> list[dict]:
        """The game of `seed` played again up to `decision`: each decision's legal actions."""
        return self._ask({"scenario": scenario, "seed": seed, "trace": False, "eager": eager,
                          "inspect": decision})["decisions"]

    def _ask(self, job: dict) -> dict:
        self.proc.stdin.write(json.dumps(job) + "\n")
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the {self.label} worker stopped")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="the other checkout (with its own .venv)")
    ap.add_argument("--game", default="stalingrad42")
    ap.add_argument("--scenario", default="fall_blau")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--traced-seeds", type=int, default=0, help="also compare N games played with explanations")
    ap.add_argument("--same-games", action="store_true",
                    help="this side draws as older engines did: the same games required, where they part reported")
    ap.add_argument("--inspect", type=int, default=1,
                    help="at the first N seeds whose games part, replay both to the decision where they part "
                         "and compare what each engine offered (default 1)")
    ap.add_argument("--game-dir", type=Path,
                    help="the game files both sides play (default: this checkout's games/GAME); an older "
                         "checkout that cannot read them plays its own: --game-dir BASE/games/GAME")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    console = Console(width=150)
    # both sides play the same rules, this checkout's game files (the rules may have changed
    # since the other checkout's commit): only the engines differ
    game_dir = (args.game_dir or ROOT / "games" / args.game).resolve()
    base = Worker("base", args.base.resolve(), game_dir)
    new = Worker("this", ROOT, game_dir)
    rows, mismatches = [], []
    reworded = 0  # games whose logs differ only in wording (the same game)
    # the same games when both sides draw alike (or this side draws as the older one does)
    same_games = args.same_games or base.lazy == new.lazy
    try:
        seeds = range(args.first_seed, args.first_seed + args.seeds)
        for i, seed in enumerate(seeds):
            for trace in ((False, True) if i < args.traced_seeds else (False,)):
                # alternate which side goes first, so neither always plays on a warmer machine
                order = (base, new) if (i % 2 == 0) else (new, base)
                results = {w.label: w.play(args.scenario, seed, trace, eager=args.same_games) for w in order}
                b, n = results["base"], results["this"]
                same = b["log_sha256"] == n["log_sha256"]
                divergence = None
                if same_games and not same:
                    # byte for byte they differ: the same game worded otherwise, or where the games part
                    divergence = first_divergence(base.last_log(), new.last_log())
                    if divergence is None:
                        reworded += 1
                        same = True
                    else:
                        mismatch = {"seed": seed, "trace": trace, **divergence}
                        if not trace and sum(1 for m in mismatches if "base_decision" in m) < args.inspect:
                            # why, at the first game that parts: what each engine offered at that decision
                            d = divergence["decision"]
                            bd, nd = (w.inspect(args.scenario, seed, d, eager=args.same_games) for w in (base, new))
                            apart = first_apart(bd, nd, bd[d]["side"]) if len(bd) > d else None
                            mismatch["why"] = explain_decision(divergence, bd[d] if len(bd) > d else None,
                                                               nd[d] if len(nd) > d else None, apart,
                                                               drawn_apart(bd, nd, apart))
                            mismatch["base_decision"] = bd[d] if len(bd) > d else None
                            mismatch["this_decision"] = nd[d] if len(nd) > d else None
                        else:
                            mismatch["why"] = explain_decision(divergence, None, None)
                        mismatches.append(mismatch)
                rows.append({"seed": seed, "trace": trace, "base_s": b["seconds"], "this_s": n["seconds"],
                             "base_cpu_s": b["cpu_s"], "this_cpu_s": n["cpu_s"],
                             "ratio": b["seconds"] / n["seconds"], "actions": n["actions"],
                             "base_actions": b["actions"], "same_log": same,
                             "base_error": b.get("error"), "this_error": n.get("error")})
                verdict = ("same game" if same else "[red]ANOTHER GAME[/]") if same_games else "other games (lazy draws)"
                console.print(f"  seed {seed}{' traced' if trace else ''}: base {b['seconds']:.2f} s "
                              f"({b['actions']} actions), this {n['seconds']:.2f} s ({n['actions']} actions), {verdict}")
                if divergence is not None:
                    _print_divergence(console, mismatches[-1])
    finally:
        base.close()
        new.close()
    untraced = [r for r in rows if not r["trace"]]
    report = {
        "game": args.game, "scenario": args.scenario, "seeds": args.seeds, "base": str(args.base),
        "base_version": base.version, "this_version": new.version,
        "base_build_s": base.build_s, "this_build_s": new.build_s,
        "median_base_s": statistics.median(r["base_s"] for r in untraced),
        "median_this_s": statistics.median(r["this_s"] for r in untraced),
        # CPU seconds of the playing process: what a quiet machine would take, about (other
        # processes sharing the cores stretch the wall-clock times, not these)
        "median_base_cpu_s": statistics.median(r["base_cpu_s"] for r in untraced),
        "median_this_cpu_s": statistics.median(r["this_cpu_s"] for r in untraced),
        "same_games": same_games,
        "all_logs_identical": (not mismatches and not reworded) if same_games else None,
        # the same games: equal logs but for their wording (bench/logdiff.py); else where they part
        "all_games_identical": (not mismatches) if same_games else None, "reworded_games": reworded,
        "mismatches": mismatches, "games": rows,
        "base_ms_per_action": 1000 * sum(r["base_s"] for r in untraced) / max(1, sum(r["base_actions"] for r in untraced)),
        "this_ms_per_action": 1000 * sum(r["this_s"] for r in untraced) / max(1, sum(r["actions"] for r in untraced)),
    }
    # the same games: the median of the seed-by-seed ratios; other games: the ratio of the medians
    report["median_ratio"] = (statistics.median(r["ratio"] for r in untraced) if same_games
                              else report["median_base_s"] / report["median_this_s"])
    t = Table(title=f"{args.game} {args.scenario}: random self-play with invariants, {args.seeds} seeds, same run")
    for col in ("", "median s/game", "median CPU s/game", "ms/action", "engine build s"):
        t.add_column(col)
    t.add_row(f"base ({base.version})", f"{report['median_base_s']:.2f}", f"{report['median_base_cpu_s']:.2f}",
              f"{report['base_ms_per_action']:.2f}", f"{base.build_s:.2f}")
    t.add_row(f"this ({new.version})", f"{report['median_this_s']:.2f}", f"{report['median_this_cpu_s']:.2f}",
              f"{report['this_ms_per_action']:.2f}", f"{new.build_s:.2f}")
    console.print(t)
    if same_games:
        console.print(f"median ratio base/this (seed by seed): {report['median_ratio']:.1f}x; same games: "
                      f"{report['all_games_identical']}" + (f" ({reworded} worded otherwise)" if reworded else ""))
        if mismatches:
            console.print(f"[red]{len(mismatches)} game(s) of {len(rows)} are other games: the ratio compares "
                          "different games[/]")
    else:
        console.print(f"ratio of the medians base/this: {report['median_ratio']:.1f}x (other games: this side's "
                      f"agents draw lazily; --same-games compares the same games)")
    out = args.out or HERE / f"compare-{args.game}-{args.scenario}.json"
    from warcodex.interpreter.saves import write_atomic

    write_atomic(out, json.dumps(report, indent=1))
    console.print(f"written: {out}")
    return 0 if not mismatches else 1


def _print_divergence(console, m: dict) -> None:
    """Where the two games part: the entry, what differs, both entries, why."""
    def short(entry) -> str:
        text = json.dumps(entry, ensure_ascii=False) if entry is not None else "(the log ends)"
        return text if len(text) <= 300 else text[:297] + "..."

    console.print(f"    the games part at log entry {m['entry']} (decision {m['decision']}; "
                  f"differs: {', '.join(m['fields'])})", highlight=False)
    console.print(f"      before: {short(m['before'])}", highlight=False, markup=False)
    console.print(f"      base:   {short(m['base'])}", highlight=False, markup=False)
    console.print(f"      this:   {short(m['this'])}", highlight=False, markup=False)
    console.print(f"      why: {m['why']}", highlight=False, markup=False)


if __name__ == "__main__":
    sys.exit(main())
