"""The viewer's pictures in docs/images, taken from real replay pages in headless Chromium:

    .venv/bin/python docs/tools/viewer_screenshots.py docs/images

Stalingrad '42 Fall Blau (seed 1, played to its end by random agents): the set-up, a combat with
its explanation, the end; an Axis & Allies 1941 turn on its area map; a Tiny Front combat on a
phone-sized screen. Needs Playwright and Debian's chromium (like the browser tests).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _page_of(game: str, scenario: str, seed: int, until: int | None, folder: Path) -> tuple[Path, list[dict]]:
    from warcodex.console import bundled_games
    from warcodex.dsl.checker import check_path
    from warcodex.exporters.viewer import build_page, record
    from warcodex.facts import facts_of
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.play import agents_for, start

    gamedef, diags = check_path(bundled_games() / game)
    assert gamedef is not None and not diags.errors
    engine = Engine(gamedef)
    g = start(engine, scenario, seed, agents_for(engine, ["random"], seed))
    g.run(until_turn=until)
    rec = record(engine, scenario, seed, g.log)
    path = folder / f"{game}.html"
    path.write_text(build_page(rec, facts_of(rec.engine, scenario), source=f"self-play, seed {seed}"), encoding="utf-8")
    return path, g.log


def main(out: str) -> None:
    from playwright.sync_api import sync_playwright

    from warcodex.exporters.viewer.browser import launch

    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        folder = Path(tmp)
        browser = launch(p)

        def shot(path: Path, step: int, name: str, viewport=DESKTOP, before=None) -> None:
            page = browser.new_page(viewport=viewport)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(path.as_uri() + f"#step={step}")
            page.wait_for_selector("body[data-ready]")
            if before is not None:
                before(page)
            page.wait_for_timeout(400)  # the board redrawn sharp once the view rests
            page.screenshot(path=str(target / name))
            page.close()
            assert not errors, errors
            print(f"wrote {target / name}")

        fb, fb_log = _page_of("stalingrad42", "fall_blau", 1, None, folder)
        combat = next(i for i, e in enumerate(fb_log, 1) if e.get("action") == "attack"
                      and any(" moves " in d.get("what", "") for d in _walk(e.get("trace", []))))
        shot(fb, 0, "viewer-start.png")
        shot(fb, combat, "viewer-combat.png")
        shot(fb, len(fb_log), "viewer-end.png")
        aa, aa_log = _page_of("axis-allies-1941", "world_1941", 2, 1, folder)
        battle = next(i for i, e in enumerate(aa_log, 1) if e.get("k") == "auto" and "Combat" in str(e.get("what")))
        shot(aa, battle, "viewer-area.png")
        tiny, tiny_log = _page_of("tiny", "meeting", 1, None, folder)
        attack = next(i for i, e in enumerate(tiny_log, 1) if e.get("action") == "attack")
        shot(tiny, attack, "viewer-phone.png", PHONE)
        browser.close()


def _walk(trace):
    for d in trace:
        yield d
        yield from _walk(d.get("steps", []))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/images")
