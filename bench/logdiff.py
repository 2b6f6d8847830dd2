"""Where two logs of "the same game" part (bench/compare.py --same-games).

A log entry records a decision or what a rule did (its kind `k`, the action and its arguments,
the choices made inside it, the turn, phase and side), plus `text`: the action as the engine
words it for a reader, which changes with the engine's wording (a unit's description gained its
number and hex: "Infantry division #2 (axis, 0206)") while the game stays the same. Two logs are
of the same game when their entries are equal without the wording; the first entry that differs
beyond it is where the games part, and why is found from the decision there
(`explain_decision`).
"""

from __future__ import annotations

import json

# what an entry says for a reader only: the same game may be worded otherwise by another engine
WORDING = ("text",)


def game_of(entry: dict) -> dict:
    """An entry without its wording: what the game did."""
    return {k: v for k, v in entry.items() if k not in WORDING}


def first_divergence(base: list[dict], this: list[dict]) -> dict | None:
    """None when the logs are of the same game (equal but for wording), else where they part:
    the index of the first entry that differs, the fields that differ, both entries, the entry
    before it, and how many decisions (actions and passes) came before it."""
    for i, (b, t) in enumerate(zip(base, this)):
        if game_of(b) != game_of(t):
            return _at(i, base, this, sorted(k for k in set(b) | set(t) if k not in WORDING and b.get(k) != t.get(k)))
    if len(base) != len(this):
        i = min(len(base), len(this))
        return _at(i, base, this, ["length"])
    return None


def wording_differs(base: list[dict], this: list[dict]) -> bool:
    """The logs are worded differently somewhere (the same game or not)."""
    return any(b.get(k) != t.get(k) for b, t in zip(base, this) for k in WORDING)


def _at(i: int, base: list[dict], this: list[dict], fields: list[str]) -> dict:
    return {"entry": i, "fields": fields,
            "base": base[i] if i < len(base) else None, "this": this[i] if i < len(this) else None,
            "before": base[i - 1] if i > 0 else None,
            "decision": sum(1 for e in base[:i] if e.get("k") in ("action", "pass"))}


def explain_decision(div: dict, base_decision: dict | None, this_decision: dict | None,
                     first_draws_apart: int | None = None, drawn_apart: str = "") -> str:
    """Why the games part, in words, from the diverging entry and, when it is a decision, what
    each engine offered there (`compare_worker.py`'s inspection: the legal actions in their
    enumeration order, and each action's first parameter's candidates in their order)."""
    b, t = div["base"], div["this"]
    if b is None or t is None:
        return "one game ended earlier (its last entries are the same as the other's)"
    if b.get("k") != t.get("k"):
        return (f"the engines did different things here (base: a '{b.get('k')}' entry, this: a '{t.get('k')}' entry): "
                "the rules, or the engine's evaluation of them, differ")
    if "choices" in div["fields"] and b.get("action") == t.get("action") and b.get("args") == t.get("args"):
        return ("the same action, another choice inside it: the options offered differ, or their order "
                "(the agents draw the same random index)")
    if b.get("k") not in ("action", "pass"):
        return "an automatic rule did something else: the rules, or the engine's evaluation of them, differ"
    if base_decision is None or this_decision is None:
        return ("another decision (another action, or other arguments); not inspected: what each engine "
                "offered there is looked at for the first seeds that part (--inspect N)")
    if sorted(map(json.dumps, base_decision["legal"])) != sorted(map(json.dumps, this_decision["legal"])):
        return (f"the legal actions differ ({len(base_decision['legal'])} against {len(this_decision['legal'])}): "
                "the rules, or the engine's evaluation of them, allow other actions here")
    for action, order in base_decision.get("domains", {}).items():
        other = this_decision.get("domains", {}).get(action)
        if order is not None and other is not None and order != other:
            same_values = sorted(order) == sorted(other)
            return (f"the same legal actions, but the candidates of {action}'s first parameter come in "
                    f"{'another order' if same_values else 'other values'} ({_short(order)} against {_short(other)}): "
                    "the same random draws pick another value (a built-in's order changed, such as occupied() "
                    "in board order since 580a347)")
    if base_decision["legal"] != this_decision["legal"]:
        return "the same legal actions in another order: the same random draws pick another one"
    if base_decision.get("rng") != this_decision.get("rng"):
        since = f" since decision {first_draws_apart}" if first_draws_apart is not None else ""
        return ("the same legal actions, in the same order, but the agent's random generator is in another "
                f"state{since}: an earlier draw took another amount of random numbers (a domain of "
                "another length, a subset drawn among other candidates, or another choice) while choosing the same"
                + (f"; {drawn_apart}" if drawn_apart else ""))
    return ("the same legal actions, in the same order, drawn from the same generator state: the candidates "
            "of a later parameter come in another order")


def first_apart(base_decisions: list[dict], this_decisions: list[dict], side: str) -> int | None:
    """The first decision of `side` at which the agents' random generators are in different states."""
    for i, (b, t) in enumerate(zip(base_decisions, this_decisions)):
        if b.get("side") == side and b.get("rng") != t.get("rng"):
            return i
    return None


def drawn_apart(base_decisions: list[dict], this_decisions: list[dict], apart: int | None) -> str:
    """What the side's decision just before `apart` (the draw that took other numbers) was offered
    otherwise: its candidates in another order, or other legal actions; "" if nothing differs."""
    if apart is None:
        return ""
    side = base_decisions[apart]["side"]
    before = [i for i in range(apart) if base_decisions[i]["side"] == side]
    if not before:
        return ""
    k = before[-1]
    b, t = base_decisions[k], this_decisions[k]
    if sorted(map(json.dumps, b["legal"])) != sorted(map(json.dumps, t["legal"])):
        return f"at decision {k} the legal actions differed"
    for action, order in b.get("domains", {}).items():
        other = t.get("domains", {}).get(action)
        if order is not None and other is not None and order != other:
            return (f"at decision {k} (the same {b['chosen'][0] if b.get('chosen') else 'pass'} chosen) the candidates "
                    f"of {action}'s first parameter came in another order ({_short(order)} against {_short(other)})")
    return ""


def _short(values: list, n: int = 6) -> str:
    return "[" + ", ".join(map(str, values[:n])) + (", ..." if len(values) > n else "") + "]"
