"""bench/logdiff.py: where two logs of "the same game" part (bench/compare.py --same-games).

The entries are those of Tiny Front's Meeting Engagement, seed 1, as the engine at 772ede4 and
the engine after it wrote them: the unit descriptions gained their number and hex (wording
only), and at entry 30 the Axis attack picks another target because occupied() lists the
occupied hexes in board order since 580a347 (the same random draw, another candidate)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.logdiff import explain_decision, first_divergence, wording_differs  # noqa: E402

MOVE_OLD = {"action": "move", "args": {"to": "0504", "u": {"unit": 2}}, "k": "action", "n": 0, "phase": "movement",
            "side": "axis", "text": "move(u=Infantry division (axis), to=0504)", "turn": 1}
MOVE_NEW = {**MOVE_OLD, "text": "move(u=Infantry division #2 (axis, 0206), to=0504)"}
PASS = {"k": "pass", "n": 1, "phase": "movement", "side": "axis", "turn": 3}


def attack(target, retreat_index, retreat_to):
    return {"action": "attack", "args": {"attackers": [{"unit": 3}], "target": target},
            "choices": [{"by": "soviet", "choice": "h", "index": retreat_index, "value": retreat_to},
                        {"by": "axis", "choice": "a", "index": 0, "value": {"unit": 3}}],
            "k": "action", "n": 2, "phase": "combat", "side": "axis", "text": f"attack(target={target}, ...)", "turn": 3}


def test_logs_worded_otherwise_are_the_same_game():
    assert first_divergence([MOVE_OLD, PASS], [MOVE_NEW, PASS]) is None
    assert wording_differs([MOVE_OLD, PASS], [MOVE_NEW, PASS])
    assert not wording_differs([MOVE_OLD], [MOVE_OLD])


def test_the_first_entry_past_the_wording_that_differs_is_where_the_games_part():
    div = first_divergence([MOVE_OLD, PASS, attack("1202", 0, "1203")], [MOVE_NEW, PASS, attack("1101", 2, "1001")])
    assert div["entry"] == 2 and div["decision"] == 2  # a move and a pass before it
    assert div["fields"] == ["args", "choices"]  # not "text": wording
    assert div["before"] == PASS and div["base"]["args"]["target"] == "1202" and div["this"]["args"]["target"] == "1101"


def test_a_game_that_ends_earlier_parts_where_it_ends():
    div = first_divergence([MOVE_OLD, PASS], [MOVE_NEW])
    assert div["entry"] == 1 and div["fields"] == ["length"] and div["this"] is None
    assert "ended earlier" in explain_decision(div, None, None)


def decision(domain, legal=None):
    legal = legal or [["attack", [["target", repr(t)], ["attackers", "(UnitRef(3),)"]]] for t in ("1101", "1202")]
    return {"side": "axis", "legal": legal, "domains": {"attack": [repr(x) for x in domain]}, "chosen": None}


def test_why_the_same_legal_actions_in_another_candidate_order():
    """The case of 772ede4: the legal attacks are the same, the targets' candidates come in another
    order, so the agent's same random draw picks another target."""
    div = first_divergence([PASS, attack("1202", 0, "1203")], [PASS, attack("1101", 2, "1001")])
    why = explain_decision(div, decision(["1109", "1207", "0509", "1101", "1202"]),
                           decision(["0509", "1101", "1109", "1202", "1207"]))
    assert "same legal actions" in why and "another order" in why and "attack's first parameter" in why


def test_why_other_legal_actions():
    div = first_divergence([PASS, attack("1202", 0, "1203")], [PASS, attack("1101", 2, "1001")])
    only_one = [["attack", [["target", "'1101'"], ["attackers", "(UnitRef(3),)"]]]]
    why = explain_decision(div, decision(["1101", "1202"]), decision(["1101", "1202"], legal=only_one))
    assert why.startswith("the legal actions differ (2 against 1)")


def test_why_when_everything_offered_and_the_generator_are_the_same():
    div = first_divergence([PASS, attack("1202", 0, "1203")], [PASS, attack("1101", 2, "1001")])
    same = decision(["1101", "1202"])
    assert "the candidates of a later parameter come in another order" in explain_decision(div, same, same)


def test_a_decision_not_inspected_says_so():
    div = first_divergence([PASS, attack("1202", 0, "1203")], [PASS, attack("1101", 0, "1203")])
    assert "not inspected" in explain_decision(div, None, None)


def test_why_a_choice_inside_the_same_action_differs():
    div = first_divergence([attack("1202", 0, "1203")], [attack("1202", 1, "1102")])
    assert div["fields"] == ["choices"]
    assert "another choice inside it" in explain_decision(div, None, None)


def test_why_the_engines_did_different_things():
    div = first_divergence([PASS, MOVE_OLD], [PASS, {"k": "rule", "n": 1, "rule": "supply"}])
    assert "base: a 'action' entry, this: a 'rule' entry" in explain_decision(div, None, None)


def test_the_worker_inspects_each_decision_up_to_the_one_asked():
    """compare_worker's inspection replays the seed's game (the same agents and draws as the game
    compared) and records each decision: what was chosen, among the legal actions in their order,
    and each action's first parameter's candidates."""
    import json

    from bench.compare_worker import _inspect  # noqa: E402
    from warcodex.dsl.checker import check_path
    from warcodex.interpreter.agents import RandomAgent
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.play import log_text, play

    game, _ = check_path(ROOT / "games" / "tiny")
    engine = Engine(game).for_scenario("meeting")

    def agents(cls=RandomAgent):
        return {s.name: cls(3 * 1000 + i + 1, eager_domains=True) for i, s in enumerate(engine.side_entities)}

    log = [json.loads(x) for x in log_text(play(engine, "meeting", 3, agents(), check_invariants=True).log).splitlines()]
    decisions = _inspect(engine, "meeting", 3, 12, agents, RandomAgent, play)
    assert len(decisions) == 13
    played = [e for e in log if e["k"] in ("action", "pass")][:13]
    for d, entry in zip(decisions, played):
        if entry["k"] == "pass":
            continue
        assert d["chosen"] in d["legal"] and d["chosen"][0] == entry["action"]
        assert d["domains"][entry["action"]]  # the first parameter's candidates, in their order


def test_a_generator_gone_apart_is_traced_to_the_draw_that_took_other_numbers():
    """Tiny Front seed 4 against 772ede4: the Soviet attack at decision 50 is the same, drawn from
    targets in another order, and took other random numbers doing so; from decision 51 the Soviet
    agent's generator is elsewhere, and at 58 it moves another unit among the same legal moves."""
    from bench.logdiff import drawn_apart, first_apart

    def d(side, rng, domain):
        return {**decision(domain), "side": side, "rng": rng, "chosen": ["attack", []]}

    base = [d("soviet", "a", ["0401", "1007", "0505"]), d("axis", "x", ["1"]), d("soviet", "b", ["2"]),
            d("soviet", "c", ["3"])]
    this = [d("soviet", "a", ["0505", "0401", "1007"]), d("axis", "x", ["1"]), d("soviet", "B", ["2"]),
            d("soviet", "C", ["3"])]
    assert first_apart(base, this, "soviet") == 2
    note = drawn_apart(base, this, 2)
    assert note.startswith("at decision 0 (the same attack chosen)") and "another order" in note
    div = first_divergence([PASS, attack("1202", 0, "1203")], [PASS, attack("1101", 0, "1203")])
    why = explain_decision(div, base[3], this[3], 2, note)
    assert "generator is in another state since decision 2" in why and why.endswith("['0505', '0401', '1007'])")
