"""Which rules of a scenario play cannot reach, and why: read from the facts and the rules' references.

A rule coverage report (interpreter/rule_coverage.py, given `reach_of(engine, scenario)`) lists the rules a batch of games never fired. Some of
them could not have fired whatever the players did: the Weather Phase of Stalingrad '42 is played
from Turn 17 (§23.1) and Fall Blau ends on Turn 8; a trigger's `when` asks for Turn 28; a modifier
applies only in another scenario. Those are *out of reach in this scenario*, and a designer reads
them apart from the rules play could have reached and did not (*never fired*).

What is out of reach is computed, not guessed:

1. The roots, from the game's facts (warcodex.facts, computed from the scenario's turns and its
   set-up): a phase the facts say is played on no turn of the scenario, a trigger the facts do not
   list among those that can run in it (its condition fails on every turn, or it names another
   scenario), a modifier whose condition names another scenario.
2. Everything those roots use (the procedures and functions they call, the tables they read, the
   results those tables' cells hold, the actions they allow), found by following the references
   written in the rules, is out of reach *unless* something play can reach uses it too: the same
   references, followed from every other rule (the phases played, the triggers that can run,
   actions, set-ups, units...), make a rule reachable. A rule neither side uses is left alone.

The analysis is conservative: a rule it cannot prove out of reach stays in "never fired".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.facts.walk import walk

# declarations play reaches only through a reference from a rule that runs
_REFERENCED = (ast.Procedure, ast.Function, ast.Table, ast.Result, ast.Action, ast.Quantity, ast.Phase, ast.Trigger)


@dataclass
class Reach:
    """The declarations of a scenario that play cannot reach, each with the reason."""

    turns: tuple[int, ...]  # the scenario's turns, as the facts give them
    dead: dict[int, str] = field(default_factory=dict)  # id(declaration) -> why it is out of reach
    dead_modifiers: dict[int, str] = field(default_factory=dict)  # id(ast.Modifier) -> why

    def why(self, decl) -> str | None:
        return self.dead.get(id(decl))


def _references(node, names: dict, skip_phases: bool = True) -> list:
    """The declarations a rule refers to: called, read by name (a table, a result, a quantity), or
    allowed (actions)."""
    out = []
    # not into a phase's sub-phases when `skip_phases`: they have their own condition
    for n in walk(node, into=(lambda c: not isinstance(c, ast.Phase)) if skip_phases else None):
        if isinstance(n, ast.Call):
            target = names.get(n.func)
        elif isinstance(n, ast.Name):
            target = names.get(n.id)
        elif isinstance(n, ast.Allow):
            out.extend(names[a] for a in n.actions if a in names)
            continue
        else:
            continue
        if target is not None and target is not node:
            out.append(target)
    return out


def _closure(roots, edges) -> set[int]:
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        d = stack.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        stack.extend(edges(d))
    return seen


def reach_of(engine, scenario: str) -> Reach:
    """What play cannot reach in `scenario` (its engine: the scenario's special rules included)."""
    from warcodex.facts.game import facts_of
    from warcodex.interpreter.rule_coverage import only_in_other_scenario

    engine = engine.for_scenario(scenario)
    game = engine.game
    facts = facts_of(engine, scenario)
    turns = tuple(facts.turns)
    span = f"Turns {turns[0]}-{turns[-1]}" if turns else "its turns"
    names = game.names
    reach = Reach(turns)

    # 1. the roots: phases played on no turn, triggers that cannot run, from the facts
    phase_turns: dict[int, list] = {}

    def visit(node) -> None:
        if node.kind == "phase" and isinstance(node.decl, ast.Phase):
            phase_turns.setdefault(id(node.decl), []).append(node.turns)
        for child in node.children:
            visit(child)

    if facts.sequence.root is not None:
        visit(facts.sequence.root)
    phases = [p for p in ast.phases_in(game.sequence.items)] if game.sequence is not None else []
    dead_roots, live_roots = [], []
    for p in phases:
        seen = phase_turns.get(id(p))
        if seen is not None and all(t == () for t in seen):
            reach.dead[id(p)] = f"the {p.header.label or p.name} is played on none of the scenario's {span}"
            dead_roots.append(p)
        else:
            live_roots.append(p)
    runnable = {id(t.decl) for t in facts.sequence.triggers if t.turns != ()}
    for t in list(game.triggers) + list(game.scenarios[scenario].triggers):
        if id(t) in runnable:
            live_roots.append(t)
        else:
            other = only_in_other_scenario(t.when, scenario)
            reach.dead[id(t)] = ("its condition names another scenario" if other
                                 else f"its condition holds in none of this scenario's {span}")
            dead_roots.append(t)
    for q in game.of_kind(ast.Quantity):
        for m in q.modifiers:
            if m.when is not None and only_in_other_scenario(m.when, scenario):
                reach.dead_modifiers[id(m)] = "its condition names another scenario"

    # every other declaration that is not reached through a reference is a root of play (units,
    # set-ups, invariants, evaluations...), and so are the scenarios' set-ups
    for decl in names.values():
        if not isinstance(decl, _REFERENCED):
            live_roots.append(decl)
    live_roots.extend(game.scenarios.values())

    # 2. what the roots use: a declaration used by play it can reach is reachable
    def cell_results(d) -> list:
        table = engine.tables.get(getattr(d, "name", None)) if isinstance(d, ast.Table) else None
        if table is None:
            return []
        return [names[c.result.name] for _, _, cells, _ in table.rows for cell in cells for c in cell.codes
                if c.number is None and c.result.name in names]

    def edges(d):
        if isinstance(d, ast.Table):
            return _references(d, names) + cell_results(d)
        if isinstance(d, ast.Phase) and id(d) in reach.dead:
            return _references(d, names) + list(_sub_phases(d))
        if isinstance(d, ast.Phase):
            return _references(d, names) + [s for s in _sub_phases(d) if id(s) not in reach.dead]
        if isinstance(d, ast.Quantity):
            refs = []
            for m in d.modifiers:
                if id(m) not in reach.dead_modifiers:
                    refs += _references(m, names)
            return refs + _references(d.base, names) if d.base is not None else refs
        return _references(d, names)

    live = _closure(live_roots, edges)

    def dead_edges(d):
        out = _references(d, names) + cell_results(d)
        if isinstance(d, ast.Phase):
            out += list(_sub_phases(d))
        if isinstance(d, ast.Quantity):
            out = []
            for m in d.modifiers:
                out += _references(m, names)
        return out

    # the modifiers' references count for a quantity only through its live modifiers: a dead
    # modifier's references are followed from the dead side
    dead_from_modifiers = [r for q in game.of_kind(ast.Quantity) for m in q.modifiers
                           if id(m) in reach.dead_modifiers for r in _references(m, names)]
    by_id = {id(d): d for d in list(names.values()) + list(game.triggers) + list(game.scenarios[scenario].triggers)
             + phases}
    for root in dead_roots + dead_from_modifiers:
        if id(root) in reach.dead:
            what = f"{root.header.label or getattr(root, 'name', '')}, which is out of reach: {reach.dead[id(root)]}"
        else:
            what = "a modifier whose condition names another scenario"
        for i in _closure([root], dead_edges):
            if i in live or i in reach.dead or i not in by_id:
                continue
            reach.dead[i] = f"used only by {what}"
    return reach


def _sub_phases(phase: ast.Phase):
    for item in phase.items:
        if isinstance(item, ast.Phase):
            yield item
        else:
            yield from (p for p in ast.phases_in([item]) if p is not phase)
