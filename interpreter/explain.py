"""Explanations: the derivation of a value or an action's outcome, with the rules that made it.

    attack(target=0507, attackers=11th Panzer (axis))  §7.1
      Combat procedure (§7.3)
        find the odds column, apply shifts (§7.3, §7.4)
          CRT column = 4-1 (§7.3)
            base 2-1 ... armor: 2-1 +1 -> 3-1 (§7.4) ...
        roll d6: 4
        Combat Results Table: column 4-1, row 4 -> DE (§7.3)
"""

from __future__ import annotations

import re

from warcodex.interpreter.values import Derivation


def format_trace(trace: list[dict], indent: int = 1) -> list[str]:
    lines = []
    for d in trace:
        cite = f" ({', '.join('§' + c for c in d.get('citations', []))})" if d.get("citations") else ""
        lines.append(f"{'  ' * indent}{d['what']}{cite}")
        steps = d.get("steps", [])
        if _only_its_base(d, steps):
            continue  # "X = 3" then "base 3": no modifier applied, the line says nothing new
        lines.extend(format_trace(steps, indent + 1))
    return lines


def _only_its_base(d: dict, steps: list[dict]) -> bool:
    """A quantity whose derivation is its base alone, with the same value (the log keeps the step;
    only its printing is left out)."""
    if len(steps) != 1:
        return False
    step = steps[0]
    return (str(step.get("what", "")).startswith("base ") and not step.get("steps")
            and "value" in d and step.get("value") == d.get("value"))


def format_entry(entry: dict) -> str:
    kind = entry.get("k")
    head = f"[{entry.get('n')}] turn {entry.get('turn')}"
    if entry.get("phase"):
        head += f", {entry['phase']}"
    if entry.get("side"):
        head += f" ({entry['side']})"
    if kind == "action":
        args = ", ".join(f"{k}={_arg(v)}" for k, v in entry.get("args", {}).items())
        head += ": " + entry.get("text", f"{entry['action']}({args})")
    elif kind == "pass":
        head += ": pass"
    elif kind == "auto":
        head += f": {entry.get('what')}"
    elif kind == "end":
        reason = entry.get("reason")
        if entry.get("winner"):
            head += f": game over, {entry['winner']} wins ({reason or 'no reason given'})"
        else:
            head += f": game over, a draw ({reason or 'the last turn ended with no winner'})"
    if entry.get("hidden_from"):
        head += f"  [hidden from {', '.join(entry['hidden_from'])}]"
    return "\n".join([head] + format_trace(entry.get("trace", [])))


def _arg(v) -> str:
    if isinstance(v, dict):
        if "unit" in v:
            return f"unit#{v['unit']}"
        if "name" in v:
            return str(v["name"])
        return str(next(iter(v.values()), "?"))
    if isinstance(v, list):
        return "[" + ", ".join(_arg(x) for x in v) + "]"
    return str(v)


_ROLL = re.compile(r"roll (?P<dice>(?P<count>\d*)d(?P<sides>\d+)(?: keep (?:highest|lowest) \d+)?): (?P<shown>.+?)"
                   r"(?P<fixed> \(fixed dice\))?")


def parse_roll(what: str) -> dict | None:
    """The dice of a roll as `Context.roll` writes it in a trace ("roll 2d6: 3 + 4 = 7", "roll d6: 5",
    "roll 3d6 keep highest 1: [2, 6, 4], keep [6] = 6"): {"dice", "sides", "faces", "kept",
    "total"}, or None if `what` is not a roll (for showing dice as dice)."""
    m = _ROLL.fullmatch(what)
    if m is None:
        return None
    shown = m.group("shown")
    count = int(m.group("count") or 1)
    if shown.startswith("["):
        k = re.fullmatch(r"\[([\d, ]*)\], keep \[([\d, ]*)\] = (\d+)", shown)
        if k is None:
            return None
        faces = [int(x) for x in k.group(1).split(",") if x.strip()]
        kept = [int(x) for x in k.group(2).split(",") if x.strip()]
        total = int(k.group(3))
    elif "=" in shown:
        terms, _, total_text = shown.partition(" = ")
        faces = kept = [int(x) for x in terms.split(" + ")] if re.fullmatch(r"\d+( \+ \d+)*", terms) else []
        if not faces or not total_text.isdigit():
            return None
        total = int(total_text)
    elif shown.isdigit():
        faces = kept = [int(shown)]
        total = faces[0]
    else:
        return None
    if len(faces) != count:
        return None
    return {"dice": m.group("dice"), "sides": int(m.group("sides")), "faces": faces, "kept": kept,
            "total": total, "fixed": m.group("fixed") is not None}


def explain_choice(engine, state, choice) -> str:
    """What would happen if `choice` were taken now: runs it on a snapshot, with tracing."""
    from warcodex.interpreter.agents import FirstAgent
    from warcodex.interpreter.context import Context

    snap = state.snapshot()
    agents = {s.name: FirstAgent() for s in engine.side_entities}
    ctx = Context(engine, snap, agents)
    ctx.begin_trace()
    ctx.choices = []
    try:
        engine.actions[choice.action].apply(ctx, choice)
    finally:
        trace = ctx.end_trace()
    return "\n".join(["(on a copy of the game; dice and choices are a sample)"] + format_trace([d.to_json() for d in trace]))


__all__ = ["format_trace", "format_entry", "explain_choice", "parse_roll", "Derivation"]
