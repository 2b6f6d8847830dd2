"""bench/coverage_by_agent.py: the rules each agent's batch fired, apart from those out of reach."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the bench scripts live beside the package

from bench.coverage_by_agent import compare, main  # noqa: E402


def _report(title, fired, never, unreachable=()):
    """A rule-coverage report (interpreter/rule_coverage.coverage_report's shape) of action rules."""
    return {"title": title, "games": 3, "kinds": {"action": {
        "total": len(fired) + len(never) + len(unreachable), "fired": len(fired), "never_fired": len(never),
        "out_of_reach": len(unreachable),
        "counts": [{"key": k, "label": k, "citations": ["5"], "times": 2} for k in fired],
        "never": [{"key": k, "label": k, "citations": ["5"]} for k in never],
        "unreachable": [{"key": k, "label": k, "citations": ["23.1"], "why": "the Weather Phase is played on none "
                         "of the scenario's turns"} for k in unreachable],
        "unobserved": []}}}


def test_rules_fired_by_some_agents_and_not_others_apart_from_out_of_reach():
    title = "Rule coverage: Stalingrad '42, Fall Blau, 3 games (random, random)"
    random = _report(title, ["move", "attack"], ["rail", "reserve"], ["roll_weather"])
    greedy = _report(title.replace("random, random", "greedy, random"), ["move", "rail"], ["attack", "reserve"],
                     ["roll_weather"])
    text = compare([("random", random), ("greedy", greedy)])
    assert text.startswith("Rule coverage by agent: Stalingrad '42, Fall Blau\n")
    assert "| random | 3 | 2 of 4 | 2 of 4 |" in text and "| greedy | 3 | 2 of 4 | 2 of 4 |" in text
    assert "- fired by greedy; never by random (1): action `rail` §5" in text
    assert "- fired by random; never by greedy (1): action `attack` §5" in text
    assert "Rules in reach no batch fired (1):" in text and "`reserve` §5" in text
    assert "Out of reach in the scenario (1; facts/reach.py)" in text and "`roll_weather` (the Weather Phase" in text


def test_batches_of_other_scenarios_are_refused(tmp_path):
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text(json.dumps(_report("Rule coverage: Tiny Front, Meeting Engagement, 3 games (random)", ["move"], [])))
    b.write_text(json.dumps(_report("Rule coverage: Stalingrad '42, Uranus, 3 games (random)", ["move"], [])))
    with pytest.raises(SystemExit, match="is of Stalingrad '42, Uranus, not Tiny Front"):
        main([f"a={a}", f"b={b}"])
    with pytest.raises(SystemExit, match="LABEL=FILE"):
        main([str(a), f"b={b}"])
