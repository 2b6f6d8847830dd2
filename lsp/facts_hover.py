"""Facts of the compiled game for hover texts (`warcodex.facts`): who owns a unit type, when units
of it arrive, a variable's values, the turns a phase is played, what a terrain changes.

Building the facts compiles the game (seconds for Stalingrad), so the server builds them in a
worker thread after a pause in typing (`FactsCache`) and hovers use the latest ones it has.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from warcodex.dsl import ast

FACTS_DELAY = float(os.environ.get("WARCODEX_LSP_FACTS_DELAY", "2.0"))  # seconds of quiet before building
FACTS_ENABLED = os.environ.get("WARCODEX_LSP_FACTS", "1") != "0"


def build_facts(game):
    """The facts of the game's first scenario, or None when the game cannot be compiled now."""
    from warcodex.facts import facts_of
    from warcodex.interpreter.engine import Engine

    try:
        return facts_of(Engine(game))
    except Exception:  # noqa: BLE001 - rules being edited may not compile; hovers then go without facts
        return None


@dataclass
class Facts:
    game: object   # the GameDef they were built from
    facts: object


class FactsCache:
    """The latest facts built for each game folder."""

    def __init__(self) -> None:
        self.latest: dict[str, Facts] = {}
        self.lock = threading.Lock()

    def store(self, root: str, game, facts) -> None:
        if facts is None:
            return
        with self.lock:
            self.latest[root] = Facts(game, facts)

    def get(self, root: str) -> Facts | None:
        with self.lock:
            return self.latest.get(root)


def _turns(turns) -> str:
    turns = sorted(set(t for t in turns if t is not None))
    if not turns:
        return "decided in play"
    shown = ", ".join(str(t) for t in turns[:8])
    return ("turn " if len(turns) == 1 else "turns ") + shown + (" ..." if len(turns) > 8 else "")


def facts_lines(facts, decl: ast.Decl) -> list[str]:
    """Markdown lines about `decl` from the facts (empty when they say nothing about it)."""
    out: list[str] = []
    if isinstance(decl, ast.Unit):
        unit = next((u for u in facts.unit_types if u.name == decl.name), None)
        if unit is not None:
            owners = ", ".join(unit.owners.sides) or "none known"
            out.append(f"Owned by: {owners} ({unit.owners.status})")
        at_start = sum(1 for units in list(facts.at_start.values()) + list(facts.boxes.values())
                       for u in units if u.type == decl.name)
        if at_start:
            out.append(f"At the start: {at_start} unit(s)")
        arrivals = [m for m in facts.arrivals if m.unit_type == decl.name]
        if arrivals:
            out.append(f"Arrivals: {len(arrivals)}, " + _turns(t for m in arrivals for t in (m.turns or (m.turn,))))
        withdrawals = [m for m in facts.withdrawals if m.unit_type == decl.name]
        if withdrawals:
            out.append(f"Withdrawals: {len(withdrawals)}, " + _turns(t for m in withdrawals for t in (m.turns or (m.turn,))))
    elif isinstance(decl, ast.VarDecl):
        var = next((v for v in facts.variables if v.name == decl.name), None)
        if var is not None:
            out.append(f"At set-up: `{var.initial}`")
            if var.values:
                out.append("Values: " + ", ".join(f"`{v}`" for v in var.values))
    elif isinstance(decl, ast.Phase):
        steps = [s for s in facts.steps if s.name == decl.name]
        if steps:
            sides = sorted({s.side for s in steps if s.side})
            turns = steps[0].turns
            out.append("Played " + (f"by {', '.join(sides)} " if sides else "")
                       + ("every turn" if turns is None else "on " + _turns(turns)))
    elif isinstance(decl, ast.Entity) and decl.kind in ("terrain", "edge", "feature", "marker"):
        out += _effects(facts, decl)
    if out:
        out.insert(0, f"*Facts of scenario `{facts.scenario}`:*")
    return out


def _effects(facts, decl: ast.Entity) -> list[str]:
    try:
        charts = facts.effects
    except Exception:  # noqa: BLE001 - an effects chart the partial evaluator cannot build
        return []
    lines, maybe = [], 0
    for chart in charts:
        if chart.kind != decl.kind:
            continue
        row = next((i for i, r in enumerate(chart.rows) if getattr(r, "name", None) == decl.name), None)
        if row is None:
            continue
        for rule, cells in chart.columns:
            cell = cells[row]
            owner = rule.quantity.name if rule.quantity is not None else (rule.mode.name if rule.mode else "?")
            what = f"`{owner}`" + (f" \"{rule.label}\"" if rule.label else f" {rule.kind}")
            if cell.status == "value":
                lines.append(f"- {what}: {getattr(cell.value, 'text', cell.value)}")
            elif cell.status == "true":
                lines.append(f"- {what}: applies")
            elif cell.status == "unknown":
                maybe += 1
    if maybe:
        lines.append(f"- {maybe} more rule(s) may apply, depending on the position")
    if lines:
        return ["Effects:\n" + "\n".join(lines[:12] + (["- ..."] if len(lines) > 12 else []))]
    return []
