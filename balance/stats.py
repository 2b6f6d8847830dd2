"""The aggregate of a batch of games: win rates with confidence intervals, lengths, score
variables by turn, the rules most associated with who wins.

Everything here is a function of the per-game records sorted by seed, never of their arrival
order, timings or the machine: the same seeds give the same aggregate whatever the backend
(local processes, Ray) and the number of workers.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal: a two-sided 95% interval


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (good for small n and rates near 0 or 1,
    unlike the normal approximation): Wilson, JASA 22 (1927)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(successes: int, n: int) -> dict:
    low, high = wilson(successes, n)
    return {"count": successes, "games": n, "rate": successes / n if n else None, "ci95": [low, high]}


def quantiles(values: list[float]) -> dict:
    if not values:
        return {}
    xs = sorted(values)

    def q(p):  # linear interpolation between closest ranks
        k = (len(xs) - 1) * p
        lo, hi = math.floor(k), math.ceil(k)
        return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)

    return {"min": xs[0], "p10": q(0.1), "p25": q(0.25), "median": q(0.5), "p75": q(0.75), "p90": q(0.9),
            "max": xs[-1], "mean": statistics.fmean(xs)}


def aggregate(records: list[dict], sides: list[str], alliance_of: dict[str, str] | None = None) -> dict:
    """The batch's aggregate (see the module docstring). A side wins a game its own name or its
    alliance won (`win(allies, ...)`); an alliance, a game it or one of its members won."""
    alliance_of = alliance_of or {}
    records = sorted(records, key=lambda r: r["seed"])
    done = [r for r in records if r["ok"]]
    n = len(done)
    winners = Counter(r["winner"] for r in done)
    by_side = {s: rate(sum(c for w, c in winners.items() if w is not None and w in (s, alliance_of.get(s))), n)
               for s in sides}
    for a in sorted(set(alliance_of.values())):
        by_side[a] = rate(sum(c for w, c in winners.items() if w is not None and (w == a or alliance_of.get(w) == a)), n)
    by_side["draw"] = rate(winners.get(None, 0), n)
    conditions = Counter((r["winner"], r["reason"]) for r in done)
    by_condition = [{"winner": w, "reason": reason, **rate(c, n)}
                    for (w, reason), c in sorted(conditions.items(), key=lambda x: (-x[1], str(x[0])))]
    lengths = [r["turns_played"] for r in done]
    return {
        "games": len(records), "completed": n, "failed": len(records) - n,
        "seeds": [records[0]["seed"], records[-1]["seed"]] if records else [],
        "win_rates": by_side,
        "by_condition": by_condition,
        "sudden_death": rate(sum(1 for r in done if r.get("sudden_death")), n),
        "length": {"turns": quantiles(lengths), "histogram": dict(sorted(Counter(lengths).items())),
                   "actions": quantiles([r["actions"] for r in done])},
        "series": series_bands(done),
        "decisive_rules": decisive_rules(done, sides, alliance_of),
        "failures": [{"seed": r["seed"], "error": r["error"], "where": r.get("where"), "log": r.get("log_file")}
                     for r in records if not r["ok"]],
    }


def series_bands(records: list[dict]) -> dict:
    """Per score variable (and side), per turn: the median and the 10-90% and 25-75% bands over
    the games that reached that turn."""
    out: dict = {}
    names = sorted({k for r in records for k in r.get("series", {})})
    for name in names:
        turns = sorted({int(t) for r in records for t in r["series"].get(name, {})})
        rows = []
        for t in turns:
            values = [r["series"][name][str(t)] for r in records if str(t) in r["series"].get(name, {})]
            q = quantiles(values)
            rows.append({"turn": t, "games": len(values), **{k: q[k] for k in ("p10", "p25", "median", "p75", "p90", "mean")}})
        out[name] = rows
    return out


def decisive_rules(records: list[dict], sides: list[str], alliance_of: dict | None = None, top: int = 15) -> list[dict]:
    """The rules whose firing goes with the largest change in a side's win rate.

    For each rule, the games are split by how often it fired: more than its median count, or not
    (for a rule that fires in only some games, that is fired vs not fired). The rule's weight is
    the largest difference, over the sides, between the side's win rate in the two groups; both
    groups must hold at least 10% of the games (and 3 games); a rule with which no side's win rate
    changes (when one side won every game) is not listed. This is an association over the batch,
    not a cause: a rule can fire more because a side is already winning."""
    alliance_of = alliance_of or {}

    def won(r, side):
        return r["winner"] is not None and r["winner"] in (side, alliance_of.get(side))

    n = len(records)
    if n < 6:
        return []
    minimum = max(3, math.ceil(0.1 * n))
    keys = sorted({k for r in records for k in r.get("rules", {})})
    found = []
    for key in keys:
        counts = [r.get("rules", {}).get(key, 0) for r in records]
        median = statistics.median(counts)
        high = [r for r, c in zip(records, counts) if c > median]
        low = [r for r, c in zip(records, counts) if c <= median]
        if len(high) < minimum or len(low) < minimum:
            continue
        best = None
        for side in sides:
            p_high = sum(1 for r in high if won(r, side)) / len(high)
            p_low = sum(1 for r in low if won(r, side)) / len(low)
            diff = p_high - p_low
            if best is None or abs(diff) > abs(best["difference"]):
                best = {"side": side, "difference": diff, "win_rate_when_more": p_high, "win_rate_otherwise": p_low}
        if best["difference"] == 0:  # no side wins more or less often with it (one side won every game...)
            continue
        kind, _, name = key.partition("\t")
        found.append({"kind": kind, "rule": name, "median_count": median, "games_more": len(high),
                      "games_otherwise": len(low), **best})
    found.sort(key=lambda x: (-abs(x["difference"]), x["kind"], x["rule"]))
    return found[:top]
