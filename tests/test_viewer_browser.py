"""The replay page in a real browser (Debian's headless Chromium, driven by Playwright): opened from
a file URL, stepped through with the keyboard and the timeline, for a Tiny Front game, a Stalingrad
'42 Fall Blau game and an Axis & Allies 1941 game (an area map). After each checked step every
unit's place in the DOM is the place the engine gave it after that log entry, taken from the game
as it was played (not from the viewer's data). No console message, no page error.

Without Chromium or Playwright these tests skip, saying why; where $WARCODEX_REQUIRE_BROWSER is set
(.ci/run sets it) their absence fails them.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache

import pytest

from viewer_games import bundled_games, played
from warcodex.exporters.viewer import build_page, record
from warcodex.exporters.viewer.browser import REQUIRE, launch, missing
from warcodex.facts import facts_of


DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}

DOM_PLACES = """() => PLACES()"""
PLACES_FN = """window.PLACES = () => {
  const out = {};
  for (const g of document.querySelectorAll('.counter'))
    for (const id of g.dataset.units.split(' ')) {
      if (id in out) throw new Error('unit ' + id + ' is drawn twice');
      out[id] = g.dataset.loc;
    }
  return out;
};"""

ALL_STEPS = """(ks) => ks.map(k => { window.viewer.go(k); return [window.viewer.step, PLACES()]; })"""

MAP_COUNTERS = """() => [...document.querySelectorAll('#layer-units .counter')].map(g => {
  const m = /translate\\(([-\\d.]+),([-\\d.]+)\\)/.exec(g.getAttribute('transform'));
  return [g.dataset.loc, +m[1], +m[2]];
})"""


@pytest.fixture(scope="module")
def browser():
    why = missing()
    if why is not None:
        if os.environ.get(REQUIRE):
            pytest.fail(f"{REQUIRE} is set but the browser tests cannot run: {why}", pytrace=False)
        pytest.skip(f"browser tests skipped: {why}")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


class Page:
    """A page open in the browser, with every console message and page error it produced."""

    def __init__(self, browser, path, viewport=DESKTOP):
        self.page = browser.new_page(viewport=viewport)
        self.messages: list[str] = []
        self.page.on("console", lambda m: self.messages.append(f"{m.type}: {m.text}"))
        self.page.on("pageerror", lambda e: self.messages.append(f"page error: {e}"))
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("body[data-ready]")
        assert self.page.evaluate("document.body.dataset.ready") == "board", self.messages
        self.page.evaluate(PLACES_FN)

    def places_at(self, steps: list[int]) -> list[dict[int, str]]:
        """The DOM's places after the page goes to each step (one round trip for many steps)."""
        out = []
        for k, places in self.page.evaluate(ALL_STEPS, steps):
            assert k == steps[len(out)]
            out.append({int(u): v for u, v in places.items()})
        return out

    def places(self) -> dict[int, str]:
        return {int(k): v for k, v in self.page.evaluate(DOM_PLACES).items()}

    def step(self) -> int:
        return self.page.evaluate("window.viewer.step")

    def close(self):
        self.page.close()
        assert self.messages == [], self.messages


# The games the tests open: a whole Tiny Front game, the first turn of the others (the seeds are
# ones whose first turn has combats), and the first turn of any other bundled game.
GAMES = {"tiny": ("meeting", 3, None), "stalingrad42": ("fall_blau", 3, 1), "axis-allies-1941": ("world_1941", 2, 1)}
for _name, _scenario in bundled_games():
    GAMES.setdefault(_name, (_scenario, 1, 1))
_pages: dict = {}


def write_page(tmp_path, game: str, scenario: str, seed: int, until=None):
    """The page of a played game (made once per test session)."""
    key = (game, scenario, seed, until)
    if key not in _pages:
        g = played(game, scenario, seed, until)
        rec = record(g.engine, scenario, seed, g.log)
        html = build_page(rec, facts_of(rec.engine, scenario), source=f"{game} seed {seed}")
        path = tmp_path / f"{game}.html"
        path.write_text(html, encoding="utf-8")
        _pages[key] = (g, rec, path)
    return _pages[key]


@pytest.fixture(scope="module")
def pages_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("pages")


@lru_cache(maxsize=None)
def _view(engine):
    from warcodex.exporters.viewer.board import board_view

    return board_view(engine, "", 44.0, {})


def check_map_geometry(page: Page, rec) -> None:
    """Each counter on the map stands at its location's place in the board image's own frame."""
    view = _view(rec.engine)
    for loc, x, y in page.page.evaluate(MAP_COUNTERS):
        if view.kind == "hex":
            px, py = view.points[loc]
            assert abs(x - px) <= 8 and abs(y - py) <= 8, (loc, x, y, px, py)
        else:
            ax, ay, aw, ah = view.areas[loc]
            assert ax <= x <= ax + aw and ay <= y <= ay + ah, (loc, x, y)


def test_tiny_front_every_step_by_keyboard(browser, pages_dir):
    g, rec, path = write_page(pages_dir, "tiny", *GAMES["tiny"])
    page = Page(browser, path)
    assert page.step() == 0 and page.places() == g.positions[0]
    for k in range(1, len(g.log) + 1):
        page.page.keyboard.press("ArrowRight")
        assert page.step() == k
        assert page.places() == g.positions[k], f"step {k}: {g.log[k - 1].get('text') or g.log[k - 1].get('what')}"
        if k % 10 == 0:
            check_map_geometry(page, rec)
    page.page.keyboard.press("ArrowRight")  # past the end: stays at the end
    assert page.step() == len(g.log)
    for key, expected in (("Home", 0), ("End", len(g.log))):
        page.page.keyboard.press(key)
        assert page.step() == expected and page.places() == g.positions[expected]
    # play from the set-up, then pause: it went on, over passes, and stops where it is
    page.page.keyboard.press("Home")
    page.page.select_option("#speed", "100")
    page.page.keyboard.press(" ")
    page.page.wait_for_function("window.viewer.step >= 6")
    page.page.keyboard.press(" ")
    k = page.step()
    page.page.wait_for_timeout(300)
    assert page.step() == k and page.places() == g.positions[k]
    assert g.log[k - 1]["k"] != "pass" and "Play" in page.page.locator("#play").inner_text()
    page.close()


def test_tiny_front_a_combat_shows_its_dice_arrows_and_explanation(browser, pages_dir):
    g, rec, path = write_page(pages_dir, "tiny", *GAMES["tiny"])
    combat = next(i for i, e in enumerate(g.log, 1) if e.get("action") == "attack")
    page = Page(browser, path)
    page.page.keyboard.press("c")  # the next step with dice
    assert page.step() == combat
    p = page.page
    assert p.locator("#tab-step h2").inner_text().startswith("Attack")
    rolls = [int(x) for x in re.findall(r"roll d6: (\d)", str(g.log[combat - 1]["trace"]))]
    assert p.locator("#tab-step .dice-row .die").count() == len(rolls)
    assert [int(d.get_attribute("aria-label")) for d in p.locator("#tab-step .dice-row .die").all()] == rolls
    assert p.locator("#layer-events .arrow.attack").count() >= 1
    cite = p.locator("#tab-step a.cite[data-section='7.3']").first
    assert "Odds and the Combat Results Table" in cite.get_attribute("title")
    cite.click()
    assert "§7.3 Odds and the Combat Results Table" in p.locator("#tab-rules h2").inner_text()
    assert p.locator(f"#tab-rules a[data-step='{combat}']").count() == 1  # where the rule applied
    # a unit: click its counter on the map, its values and history show
    attacker = g.log[combat - 1]["args"]["attackers"][0]["unit"]
    p.locator(f"#layer-units .counter[data-units~='{attacker}']").click()
    frame = p.locator(f"#layer-units .counter.selected[data-units~='{attacker}'] .frame")
    assert frame.count() == 1 and frame.evaluate("r => getComputedStyle(r).fill") == "none"  # a frame, not a patch
    detail = p.locator("#tab-detail").text_content()
    assert f"#{attacker}" in detail and "attack" in detail and "History" in detail
    assert p.locator(f"#tab-detail .history a[data-step='{combat}']").count() == 1
    # a hex: the tooltip says its terrain and who is there
    target = g.log[combat - 1]["args"]["target"]
    box = p.locator("#map").bounding_box()
    point = p.evaluate(f"""() => {{ const [x, y] = D.board.points['{target}']; const pt = document.getElementById('map').createSVGPoint();
        pt.x = x; pt.y = y; const s = pt.matrixTransform(document.getElementById('map').getScreenCTM()); return [s.x, s.y]; }}""")
    assert box["x"] <= point[0] <= box["x"] + box["width"]
    p.mouse.move(point[0] + 3, point[1] + 3)
    tip = p.locator("#tooltip")
    assert tip.is_visible() and target in tip.inner_text() and "terrain" in tip.inner_text()
    page.close()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_step_of_a_bundled_game(browser, pages_dir, game):
    """Every step's places in the DOM are the engine's; counters stand where the board image puts
    their location; the cards panel shows each side's hand."""
    g, rec, path = write_page(pages_dir, game, *GAMES[game])
    page = Page(browser, path)
    n = len(g.log)
    for k, places in enumerate(page.places_at(list(range(n + 1)))):
        assert places == g.positions[k], f"step {k}: {g.log[k - 1].get('text') or g.log[k - 1].get('what') if k else 'set-up'}"
    for k in (0, n // 2, n):
        page.page.evaluate(f"window.viewer.go({k})")
        check_map_geometry(page, rec)
        hands = page.page.evaluate("""() => Object.fromEntries(Object.entries((window.viewer.position().c || {hands: {}}).hands))""")
        assert hands == g.hands[k]
    if any(g.hands[-1].values()):
        page.page.click("#tabs [data-tab=offmap]")
        text = page.page.locator("#tab-offmap").text_content()
        side, cards = next((s, c) for s, c in g.hands[-1].items() if c)
        assert f"hand ({len(cards)})" in text and rec.engine.entities[cards[0]].label in text
    page.close()


def test_stalingrad_the_timeline_jumps_to_a_phase_a_step_and_back(browser, pages_dir):
    g, rec, path = write_page(pages_dir, "stalingrad42", *GAMES["stalingrad42"])
    page = Page(browser, path)
    p = page.page
    n = len(g.log)
    options = p.locator("#segment option").all()
    combat = next(o for o in options if "Combat Phase" in o.inner_text())
    p.select_option("#segment", combat.get_attribute("value"))
    k = int(combat.get_attribute("value"))
    assert page.step() == k and page.places() == g.positions[k]
    assert "Combat Phase" in p.locator("#status").inner_text()
    p.locator("#slider").fill(str(n // 2))
    assert page.step() == n // 2 and page.places() == g.positions[n // 2]
    p.keyboard.press("Shift+ArrowLeft")
    assert page.step() < n // 2 and page.places() == g.positions[page.step()]
    p.keyboard.press("PageDown")  # the next turn: after turn 1, the end of this log
    assert page.step() == n
    page.close()


def test_axis_and_allies_control_is_drawn_around_the_areas(browser, pages_dir):
    g, rec, path = write_page(pages_dir, "axis-allies-1941", *GAMES["axis-allies-1941"])
    page = Page(browser, path)
    controlled = {loc: vals["controller"]["name"] for loc, vals in rec.initial_loc_vars.items()
                  if isinstance(vals.get("controller"), dict)}
    assert len(controlled) > 20 and page.page.locator("#layer-control .control-ring").count() == len(controlled)
    # hover an area: its name, its value and who controls it
    p = page.page
    area = "germany" if "germany" in controlled else next(iter(controlled))
    p.evaluate(f"() => centerOn(['{area}'])")
    x, y = p.evaluate(f"""() => {{ const [x, y] = D.board.points['{area}']; const pt = document.getElementById('map').createSVGPoint();
        pt.x = x; pt.y = y; const s = pt.matrixTransform(document.getElementById('map').getScreenCTM()); return [s.x, s.y]; }}""")
    p.mouse.move(x, y)
    tip = p.locator("#tooltip").inner_text()
    owner = rec.engine.entities[controlled[area]].label
    assert rec.engine.board.attr(area, "name") in tip and "controller" in tip and owner in tip, tip
    # following the action: a step's main area is wholly in view, even when its other places are
    # too far away to be shown with it
    k = p.evaluate("""() => D.steps.findIndex(s => s.ev && s.ev.focus && s.ev.focus.length > 1
        && !readable(s.ev.focus.map(extentOf).reduce(union))) + 1""")
    assert k > 0
    p.evaluate("() => window.viewer.go(0)")
    p.evaluate(f"() => window.viewer.go({k})")
    inside = p.evaluate("""() => { const [x, y, w, h] = D.board.areas[D.steps[%d - 1].ev.focus[0]];
        return x >= view.x && y >= view.y && x + w <= view.x + view.w && y + h <= view.y + view.h; }""" % k)
    assert inside, k
    page.close()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_page_on_a_phone(browser, pages_dir, game):
    """Every game: long phase names (Stargard's 'Command Phase / Combat segment') once pushed the
    step buttons off a phone's screen."""
    g, rec, path = write_page(pages_dir, game, *GAMES[game])
    page = Page(browser, path, viewport=PHONE)
    p = page.page
    width = p.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], "nothing wider than the phone's screen"
    for control in ("#first", "#prev", "#next", "#play", "#last", "#slider", "#segment", "#speed"):
        box = p.locator(control).bounding_box()
        assert box is not None and box["width"] >= 30 and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    p.locator("#next").click()
    assert page.step() == 1 and page.places() == g.positions[1]
    map_box = p.locator("#map").bounding_box()
    assert map_box["height"] >= 300
    page.close()



def test_bookkeeping_variables_are_not_what_happened(browser, pages_dir):
    """`bookkeeping` variables (docs/language.md: No Retreat!'s dr_is_ex_for, zhukov_hex...) are the
    rules' own records: the engine's explanation leaves their assignments out, and so does a step's
    'what happened'; the Variables table still lists them. The page's list is the engine's; the
    Tiny Front page, which has none, is told one of its variables is bookkeeping to see it go."""
    _, nr, nr_path = write_page(pages_dir, "no-retreat", *GAMES["no-retreat"])
    html = nr_path.read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', html, re.S).group(1))
    assert set(data["bookkeeping"]) == {n for n, d in nr.engine.vars.items() if d.bookkeeping} >= {"dr_is_ex_for"}
    g, rec, path = write_page(pages_dir, "tiny", *GAMES["tiny"])
    page = Page(browser, path)
    p = page.page
    k = p.evaluate("() => D.steps.findIndex(s => s.v && Object.keys(s.v).length) + 1")
    assert k > 0
    name = p.evaluate(f"() => Object.keys(D.steps[{k} - 1].v)[0]")
    label = name.replace("_", " ") + ":"
    p.evaluate(f"() => window.viewer.go({k})")
    assert label in p.locator("#tab-step ul.happened").inner_text()
    p.evaluate(f"() => {{ BOOKKEEPING.add('{name}'); window.viewer.go(0); window.viewer.go({k}); }}")
    happened = p.locator("#tab-step ul.happened")
    assert happened.count() == 0 or label not in happened.inner_text()
    assert name.replace("_", " ") in p.locator("#tab-step details.variables").text_content()
    page.close()
