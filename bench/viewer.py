"""The replay viewer's costs against the engine's own replay of the same log, in one run.

    .venv/bin/python bench/viewer.py [--game stalingrad42 --scenario fall_blau] [--seed 1]
        [--until T] [--browser]

For each game (default: every bundled game, its first scenario, played to its end by random
agents): the plain traced replay of the log (`play.replay`, the baseline), the replay recorded
step by step (`record`: the engine's replay plus the unit records it wrote (GameState.watched_units) and the variable diffs), and the
page built from the record; each as CPU seconds and as a ratio to the baseline measured just
before it (the machines are shared: ratios hold where seconds do not). The page's size, per step.
With --browser (Debian's chromium and Playwright): the page's load time and the mean time of one
step (`viewer.go(k)` for every step, in the page), in milliseconds.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402


def cpu(fn):
    start = time.process_time()
    value = fn()
    return value, time.process_time() - start


def measure(game: str, scenario: str | None, seed: int, until: int | None, browser) -> dict:
    from warcodex.dsl.checker import check_path
    from warcodex.exporters.viewer import build_page, record
    from warcodex.facts import facts_of
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.play import agents_for, replay, start

    gamedef, diags = check_path(ROOT / "games" / game)
    assert gamedef is not None and not diags.errors
    engine = Engine(gamedef)
    scenario = scenario or next(iter(gamedef.scenarios))
    played = start(engine, scenario, seed, agents_for(engine, ["random"], seed))
    played.run(until_turn=until)
    log = played.log
    facts_of(engine.for_scenario(scenario), scenario)  # computed once per engine, outside the timings
    _, base = cpu(lambda: replay(engine, scenario, seed, log))
    rec, recording = cpu(lambda: record(engine, scenario, seed, log))
    html, page = cpu(lambda: build_page(rec, facts_of(rec.engine, scenario), source="bench"))
    row = {"game": game, "scenario": scenario, "steps": len(log), "replay_s": base, "record_s": recording,
           "record_ratio": recording / base, "page_s": page, "page_ratio": page / base,
           "kb": len(html.encode()) / 1024, "kb_per_step": len(html.encode()) / 1024 / max(1, len(log))}
    if browser is not None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "page.html"
            path.write_text(html, encoding="utf-8")
            tab = browser.new_page(viewport={"width": 1280, "height": 800})
            t = time.perf_counter()
            tab.goto(path.as_uri())
            tab.wait_for_selector("body[data-ready]")
            row["load_ms"] = (time.perf_counter() - t) * 1000
            row["step_ms"] = tab.evaluate("""() => { const t = performance.now();
                for (let k = 1; k <= window.viewer.steps; k++) window.viewer.go(k);
                return (performance.now() - t) / Math.max(1, window.viewer.steps); }""")
            tab.close()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="a bundled game (repeatable; default: all)")
    parser.add_argument("--scenario")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--until", type=int, help="stop the games after this turn")
    parser.add_argument("--browser", action="store_true", help="also time the page in headless Chromium")
    args = parser.parse_args()
    games = args.game or sorted(p.name for p in (ROOT / "games").iterdir() if p.is_dir())
    rows = []
    if args.browser:
        from playwright.sync_api import sync_playwright

        from warcodex.exporters.viewer.browser import launch, missing

        if missing():
            raise SystemExit(f"--browser: {missing()}")
        with sync_playwright() as p:
            b = launch(p)
            rows = [measure(g, args.scenario, args.seed, args.until, b) for g in games]
            b.close()
    else:
        rows = [measure(g, args.scenario, args.seed, args.until, None) for g in games]
    table = Table(title=f"replay viewer, seed {args.seed}: CPU seconds and ratios to the plain replay")
    columns = ["game", "scenario", "steps", "replay_s", "record_s", "record_ratio", "page_s", "page_ratio", "kb",
               "kb_per_step"] + (["load_ms", "step_ms"] if args.browser else [])
    for c in columns:
        table.add_column(c, justify="left" if c in ("game", "scenario") else "right")
    for r in rows:
        table.add_row(*[f"{r[c]:.2f}" if isinstance(r[c], float) else str(r[c]) for c in columns])
    Console(width=170).print(table)


if __name__ == "__main__":
    main()
