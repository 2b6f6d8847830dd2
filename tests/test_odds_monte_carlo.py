"""Exact odds against Monte Carlo, game by game (issue #19, "Done when"): for each bundled game's
combat, the exact distribution of results (the memoised enumerator of interpreter/odds.py) and the
same combat played N times by the real engine with dice (`odds.monte_carlo`, one worker, fixed
seeds: the same N battles in every run) must agree.

The statistical bound: for each result of exact probability p, the observed frequency f of N
independent battles has standard deviation s = sqrt(p (1 - p) / N); the test asks |f - p| <= 4.5 s
+ 1/N for every result (a false alarm per result has probability < 7e-6, so < 1e-4 for a dozen
results), and that no battle ends in a result the enumeration gives probability 0. N is chosen per
game so that each test costs a few seconds of CPU (a Stalingrad attack takes about 15 ms to play).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from warcodex.interpreter import odds

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "odds"

# (game, scene file, test block or None, battles)
CASES = [
    ("tiny", ROOT / "games" / "tiny" / "scenes" / "town_attack.wcx", None, 3000),
    ("stalingrad42", ROOT / "games" / "stalingrad42" / "scenes" / "infantry_attack.wcx", None, 300),
    ("stargard-solstice", DATA / "stargard_2to1.wcx", None, 500),
    ("no-retreat", ROOT / "games" / "no-retreat" / "scenes" / "berlin_battle.wcx", None, 3000),
    ("axis-allies-1941", DATA / "aa_small.wcx", "odds_small", 2000),
]


@pytest.mark.parametrize("game, scene_file, name, battles", CASES, ids=[c[0] for c in CASES])
def test_exact_odds_agree_with_the_engine_playing_the_combat(game, scene_file, name, battles):
    sc = odds.load_scene(ROOT / "games" / game, scene_file, name, casualties="cheapest")
    exact = odds.exact(sc)
    assert exact.method == "exact" and sum(exact.distribution.values()) == pytest.approx(1)
    assert len(exact.distribution) >= 3, "a comparison needs a combat with several results"
    mc = odds.monte_carlo(sc, precision=1e-9, workers=1, seed=7, max_battles=battles, batch=battles)
    assert mc.method == "monte carlo" and mc.battles == battles
    impossible = set(mc.distribution) - set(exact.distribution)
    assert not impossible, f"results the enumeration says cannot happen: {impossible}"
    for key, p in exact.distribution.items():
        f = mc.distribution.get(key, 0.0)
        bound = 4.5 * math.sqrt(max(p * (1 - p), 0.0) / battles) + 1 / battles
        assert abs(f - p) <= bound, (game, odds.effect_words(sc, key), f, p, bound)
    for outcome, p in exact.outcomes.items():
        assert abs(mc.outcomes[outcome] - p) <= 4.5 * math.sqrt(max(p * (1 - p), 0.0) / battles) + 1 / battles
