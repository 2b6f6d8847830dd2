"""How explanations print (interpreter/explain.py): what a player reads of a logged trace."""

from warcodex.interpreter.explain import format_trace


def test_a_quantity_with_only_its_base_prints_no_base_line():
    """`X = 3` followed by `base 3` says nothing new (no modifier applied): the printed
    explanation leaves the base out, the log keeps it; with a modifier both lines stay."""
    alone = [{"what": "attack strength = 3", "value": 3, "citations": ["7.2"],
              "steps": [{"what": "base 3", "value": 3, "citations": ["7.2"], "steps": []}]}]
    assert format_trace(alone) == ["  attack strength = 3 (§7.2)"]
    modified = [{"what": "cost = 1/2", "value": "1/2", "citations": ["5.1"],
                 "steps": [{"what": "base 1", "value": 1, "citations": ["5.1"], "steps": []},
                           {"what": "road: 1 =1/2 -> 1/2", "value": "1/2", "citations": ["5.2"], "steps": []}]}]
    assert format_trace(modified) == ["  cost = 1/2 (§5.1)", "    base 1 (§5.1)", "    road: 1 =1/2 -> 1/2 (§5.2)"]
