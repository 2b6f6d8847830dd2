"""The batch report: `report.json` (the aggregate, the run, the speed) and `report.html` with
SVG charts drawn by matplotlib (win rates with their intervals, game lengths, score variables by
turn with bands, the most decisive rules, rule coverage)."""

from __future__ import annotations

import html
import io
import json
from pathlib import Path

import matplotlib

matplotlib.use("svg")  # files only: no display, no GUI toolkit
import matplotlib.pyplot as plt  # noqa: E402

from warcodex.interpreter.saves import write_atomic  # noqa: E402

PALETTE = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg"):]  # inline: without the XML prolog and doctype


def _side_colors(sides: list[dict]) -> dict:
    return {s["name"]: s.get("color") or PALETTE[i % len(PALETTE)] for i, s in enumerate(sides)}


def win_rate_chart(report: dict) -> str:
    agg = report["aggregate"]
    sides = report["run"]["sides"]
    colors = _side_colors(sides)
    alliances = [k for k in agg["win_rates"] if k != "draw" and k not in {s["name"] for s in sides}]
    names = [s["name"] for s in sides] + alliances + ["draw"]
    labels = [f"{s['label']}\n({a})" for s, a in zip(sides, report["run"]["agents"])] + alliances + ["draw"]
    rates = [agg["win_rates"][n]["rate"] or 0 for n in names]
    lows = [max(0.0, r - agg["win_rates"][n]["ci95"][0]) for r, n in zip(rates, names)]  # >= 0 despite rounding
    highs = [max(0.0, agg["win_rates"][n]["ci95"][1] - r) for r, n in zip(rates, names)]
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(names)), 3.2))
    ax.bar(labels, rates, color=[colors.get(n, "#999999") for n in names], yerr=[lows, highs], capsize=6)
    for i, (r, n) in enumerate(zip(rates, names)):  # above the interval's top, clear of its cap
        ax.text(i, agg["win_rates"][n]["ci95"][1] + 0.02, f"{r:.0%}", ha="center", va="bottom", fontsize=9)
    ax.set_ylim(0, 1.12)
    ax.set_ylabel("share of games won")
    ax.set_title(f"Win rates, {agg['completed']} games (bars: 95% Wilson interval)", fontsize=10)
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    return _svg(fig)


def length_chart(report: dict) -> str:
    hist = report["aggregate"]["length"]["histogram"]
    turns = [int(t) for t in hist]
    fig, ax = plt.subplots(figsize=(6, 2.8))
    if not turns:
        ax.text(0.5, 0.5, "no game completed", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return _svg(fig)
    ax.bar(turns, [hist[t] for t in hist], color="#4c72b0")
    ax.set_xlabel("game turns played")
    ax.set_ylabel("games")
    ax.set_title("Game length", fontsize=10)
    if len(turns) <= 15:
        ax.set_xticks(turns)
    else:
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlim(min(turns) - 1, max(turns) + 1)
    return _svg(fig)


def series_charts(report: dict) -> list[tuple[str, str]]:
    """One chart per score variable: each side's median by turn, with 25-75% and 10-90% bands."""
    series = report["aggregate"]["series"]
    colors = _side_colors(report["run"]["sides"])
    groups: dict[str, list[str]] = {}
    for name in series:
        groups.setdefault(name.split(":", 1)[0], []).append(name)
    out = []
    for base, names in groups.items():
        fig, ax = plt.subplots(figsize=(6, 3))
        for i, name in enumerate(names):
            side = name.split(":", 1)[1] if ":" in name else None
            color = colors.get(side, PALETTE[i % len(PALETTE)])
            rows = series[name]
            turns = [r["turn"] for r in rows]
            ax.fill_between(turns, [r["p10"] for r in rows], [r["p90"] for r in rows], color=color, alpha=0.15, linewidth=0)
            ax.fill_between(turns, [r["p25"] for r in rows], [r["p75"] for r in rows], color=color, alpha=0.3, linewidth=0)
            ax.plot(turns, [r["median"] for r in rows], color=color, marker="o", markersize=3, label=side or base)
        ax.set_xlabel("end of game turn")
        ax.set_ylabel(base)
        ax.set_title(f"{base} by turn: median, 25-75% and 10-90% of games", fontsize=10)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        ax.legend(fontsize=8)
        out.append((base, _svg(fig)))
    return out


def decisive_chart(report: dict) -> str | None:
    rules = report["aggregate"]["decisive_rules"]
    if not rules:
        return None
    colors = _side_colors(report["run"]["sides"])
    rules = list(reversed(rules[:12]))
    labels = [f"{r['kind']}: {r['rule']}"[:60] for r in rules]
    fig, ax = plt.subplots(figsize=(7, 0.35 * len(rules) + 1))
    ax.barh(labels, [r["difference"] for r in rules], color=[colors.get(r["side"], "#999") for r in rules])
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("win rate when the rule fired more than its median, minus otherwise (colour: side)")
    ax.xaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    ax.tick_params(axis="y", labelsize=8)
    ax.set_title("Rules most associated with the winner", fontsize=10)
    return _svg(fig)


def coverage_chart(coverage: dict) -> str:
    kinds = list(coverage["kinds"])
    fired = [coverage["kinds"][k]["fired"] for k in kinds]
    never = [coverage["kinds"][k]["never_fired"] for k in kinds]
    unreachable = [coverage["kinds"][k].get("out_of_reach", 0) for k in kinds]
    unobserved = [coverage["kinds"][k].get("not_observable", 0) for k in kinds]
    fig, ax = plt.subplots(figsize=(6.5, 3))
    ax.barh(kinds, fired, color="#55a868", label="fired")
    ax.barh(kinds, never, left=fired, color="#c44e52", label="never fired")
    left = [a + b for a, b in zip(fired, never)]
    ax.barh(kinds, unreachable, left=left, color="#8172b2", label="out of reach in this scenario")
    ax.barh(kinds, unobserved, left=[a + b for a, b in zip(left, unreachable)], color="#bbbbbb", label="not observable")
    ax.invert_yaxis()
    ax.set_xlabel("rules")
    ax.legend(fontsize=8)
    ax.set_title(f"Rule coverage of {coverage['games']} games", fontsize=10)
    return _svg(fig)


def _pct(x) -> str:
    return "-" if x is None else f"{x:.1%}"


def render_html(report: dict, coverage: dict) -> tuple[str, dict[str, str]]:
    """The page and its charts (name -> SVG text)."""
    esc = html.escape
    run, agg, perf = report["run"], report["aggregate"], report["performance"]
    charts = {"win_rates": win_rate_chart(report), "length": length_chart(report)}
    for base, svg in series_charts(report):
        charts[f"series_{base}"] = svg
    decisive = decisive_chart(report)
    if decisive:
        charts["decisive_rules"] = decisive
    charts["rule_coverage"] = coverage_chart(coverage)
    p = [f"<!doctype html><html><head><meta charset='utf-8'><title>Balance: {esc(run['title'])}, {esc(run['scenario'])}</title>",
         "<style>body{font:14px/1.45 system-ui,sans-serif;margin:2em;max-width:75em}table{border-collapse:collapse;"
         "margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}th{background:#eee}"
         ".n{text-align:right}.fail{color:#a00}figure{margin:1em 0}svg{max-width:100%;height:auto}</style></head><body>",
         f"<h1>Balance of {esc(run['title'])}: {esc(run['scenario_label'])}</h1>",
         f"<p>{agg['completed']} game(s) completed of {agg['games']} (seeds {esc(str(agg['seeds']))}); agents: "
         + ", ".join(f"{esc(s['label'])} = <b>{esc(a)}</b>" for s, a in zip(run["sides"], run["agents"]))
         + f"; invariants {'checked after every step' if run['check_invariants'] else 'not checked'}. "
         f"Rules {esc(run['rules'])}.</p>"]
    if run.get("provisional"):
        p.append(f"<p><b>Provisional data:</b> these rules use {run['provisional']} stand-in value(s) the rulebook does "
                 "not print (maps, tables, counters: <code>warcodex check</code> lists them); the rates below hold for "
                 "these stand-ins, not necessarily for the published game.</p>")
    p.append("<h2>Who wins</h2><table><tr><th>side</th><th>agent</th><th class=n>wins</th><th class=n>rate</th>"
             "<th>95% interval</th></tr>")
    alliances = [{"name": k, "label": f"{k} (alliance)"} for k in agg["win_rates"]
                 if k != "draw" and k not in {s["name"] for s in run["sides"]}]
    rows = run["sides"] + alliances + [{"name": "draw", "label": "draw"}]
    for s, a in zip(rows, run["agents"] + [""] * (len(alliances) + 1)):
        w = agg["win_rates"][s["name"]]
        p.append(f"<tr><td>{esc(s['label'])}</td><td>{esc(a)}</td><td class=n>{w['count']}</td><td class=n>{_pct(w['rate'])}</td>"
                 f"<td>{_pct(w['ci95'][0])} - {_pct(w['ci95'][1])}</td></tr>")
    p.append(f"</table><figure>{charts['win_rates']}</figure>")
    p.append("<h3>By victory condition</h3><table><tr><th>winner</th><th>condition</th><th class=n>games</th>"
             "<th class=n>rate</th><th>95% interval</th></tr>")
    for c in agg["by_condition"]:
        p.append(f"<tr><td>{esc(str(c['winner'] or 'draw'))}</td><td>{esc(str(c['reason']))}</td><td class=n>{c['count']}</td>"
                 f"<td class=n>{_pct(c['rate'])}</td><td>{_pct(c['ci95'][0])} - {_pct(c['ci95'][1])}</td></tr>")
    p.append("</table>")
    turns = agg["length"]["turns"]
    p.append(f"<h2>Game length</h2><p>Turns played: median {turns.get('median', '-')}, from {turns.get('min', '-')} to "
             f"{turns.get('max', '-')}; sudden-death ends: {_pct(agg['sudden_death']['rate'])}. Actions per game: median "
             f"{agg['length']['actions'].get('median', '-')}.</p><figure>{charts['length']}</figure>")
    p.append("<h2>Score variables by turn</h2><p>The game's numeric variables (from its facts) and each side's "
             "evaluation, at the end of each turn, over the games that reached it.</p>")
    for name, svg in charts.items():
        if name.startswith("series_"):
            p.append(f"<figure>{svg}</figure>")
    p.append("<h2>The most decisive rules</h2><p>Games split by how often a rule fired (more than its median, or "
             "not); the difference in a side's win rate between the two groups. An association, not a cause.</p>")
    if decisive:
        p.append(f"<figure>{decisive}</figure><table><tr><th>rule</th><th>side</th><th class=n>win rate when more</th>"
                 "<th class=n>otherwise</th><th class=n>games (more / otherwise)</th></tr>")
        for r in agg["decisive_rules"]:
            p.append(f"<tr><td>{esc(r['kind'])}: {esc(r['rule'])}</td><td>{esc(r['side'])}</td>"
                     f"<td class=n>{_pct(r['win_rate_when_more'])}</td><td class=n>{_pct(r['win_rate_otherwise'])}</td>"
                     f"<td class=n>{r['games_more']} / {r['games_otherwise']}</td></tr>")
        p.append("</table>")
    else:
        p.append("<p>None: too few games, or no rule goes with a change in any side's win rate (when one side "
                 "wins every game, no rule can).</p>")
    p.append(f"<h2>Rule coverage</h2><figure>{charts['rule_coverage']}</figure><table><tr><th>kind</th>"
             "<th class=n>rules</th><th class=n>fired</th><th class=n>never fired</th>"
             "<th class=n>out of reach in this scenario</th></tr>")
    for kind, k in coverage["kinds"].items():
        p.append(f"<tr><td>{esc(kind)}</td><td class=n>{k['total']}</td><td class=n>{k['fired']}</td>"
                 f"<td class=n>{k['never_fired']}</td><td class=n>{k.get('out_of_reach', 0)}</td></tr>")
    p.append("</table><details><summary>rules never fired (play could have reached them)</summary><ul>")
    for kind, k in coverage["kinds"].items():
        for r in k["never"]:
            cites = " ".join("§" + c for c in r["citations"])
            p.append(f"<li>{esc(kind)}: {esc(r['key'])} {esc(cites)}</li>")
    p.append("</ul></details><details><summary>rules out of reach in this scenario (no play could fire them)"
             "</summary><ul>")
    for kind, k in coverage["kinds"].items():
        for r in k.get("unreachable", ()):
            cites = " ".join("§" + c for c in r["citations"])
            p.append(f"<li>{esc(kind)}: {esc(r['key'])} {esc(cites)}: {esc(r['why'])}</li>")
    p.append("</ul></details>")
    p.append("<h2>Failures</h2>")
    if agg["failures"]:
        p.append("<table><tr><th>seed</th><th>error</th><th>where</th><th>log (<code>warcodex replay</code>, "
                 "<code>warcodex explain</code>)</th></tr>")
        for f in agg["failures"]:
            link = f"<a href='{esc(f['log'])}'>{esc(f['log'])}</a>" if f.get("log") else "-"
            p.append(f"<tr class=fail><td>{f['seed']}</td><td>{esc(f['error'])}</td><td>{esc(str(f.get('where') or ''))}</td>"
                     f"<td>{link}</td></tr>")
        p.append("</table>")
    else:
        p.append("<p>None: every game ran to its end with every invariant holding.</p>")
    p.append(f"<h2>Speed</h2><p>{perf['games_per_second_per_worker']:.3g} games/s per worker "
             f"({perf['seconds_per_game_median']:.3g} s median per game), {perf['ratio_to_reference']:.3g}x a random "
             f"Tiny Front game timed by the same workers in the same run ({perf['reference_s'] * 1000:.3g} ms); "
             f"backend {esc(perf['backend'])}, {perf['workers']} worker(s).</p>"
             + "".join(f"<p>{esc(side)}'s search agent: {c['decisions']} decisions, {c['lookaheads']} lookaheads, "
                       f"{c['cpu_ms_per_decision']:.3g} ms of CPU a decision.</p>"
                       for side, c in (perf.get("search_agents") or {}).items())
             + "</body></html>\n")
    return "".join(p), charts


def write_report(out_dir: Path, report: dict, coverage: dict) -> list[Path]:
    """report.json, report.html and plots/*.svg, each written atomically."""
    out_dir = Path(out_dir)
    page, charts = render_html(report, coverage)
    written = []
    for name, svg in charts.items():
        path = out_dir / "plots" / f"{name}.svg"
        write_atomic(path, svg)
        written.append(path)
    write_atomic(out_dir / "report.json", json.dumps(report, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    write_atomic(out_dir / "report.html", page)
    return [out_dir / "report.json", out_dir / "report.html"] + written
