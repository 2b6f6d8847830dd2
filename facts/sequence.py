"""The sequence of play as a player reads it: the game turn, player turns and phases with the
actions each phase allows, what happens in it without a decision (procedures run, tables rolled,
markers placed or removed, cards drawn), the triggers at its start and end, and on which of the
scenario's turns each of them can happen; the standing rules (triggers on other events).

Turn and phase conditions are decided by the partial evaluator with the turn, the scenario, the
active side and the phase known (`Partial`): a phase or trigger is kept with the turns on which
its condition is not false, so a rule of another scenario (its condition names that scenario) is
never shown, and one that starts later (`turn >= 17`) says from when.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from warcodex.dsl import ast
from warcodex.dsl.formatter import format_expr
from warcodex.facts.partial import Each, Partial, residual, truth
from warcodex.facts.walk import walk

TURN_EVENTS = ("turn_start", "turn_end")
PHASE_EVENTS = ("phase_start", "phase_end")


@dataclass
class AllowedAction:
    name: str
    decl: ast.Action | None
    limit: int | None  # at most this many in the step


@dataclass
class AutomaticStep:
    """Something a phase's `do` block does without a decision."""
    kind: str  # procedure, mark, unmark, draw, victory, table, compute
    decl: object | None  # the procedure, marker, deck, table or function/quantity
    target: ast.Expr | None = None  # table, compute: what is set (`weather`, `active.ipcs`)
    op: str | None = None  # compute: `=`, `+=` or `-=`


@dataclass
class TriggerFacts:
    """A rule that runs on an event."""
    event: str
    decl: ast.Trigger
    scenario: str | None  # the scenario that declares it, None for the game's own
    turns: tuple[int, ...] | None  # the scenario's turns on which it can run; None: any turn
    phases: tuple[str, ...] = ()  # phase events: the phases it is about (all of them: empty)
    sides: tuple[str, ...] = ()  # phase events: the sides in whose player turns it runs (any: empty)
    condition: ast.Expr | None = None  # its `when` less what the scenario decides (None: none left)

    @property
    def when(self) -> ast.Expr | None:
        return self.decl.when


@dataclass
class SequenceNode:
    """One item of the sequence: the game turn, player turns (a block per side), a phase, or a
    block the rules decide while playing (`repeat while`, `player_turn`)."""
    kind: str  # sequence, turn, player_turns, phase, or the block's own kind (repeat, player_turn)
    name: str | None  # a phase's name
    label: str | None  # as declared (a phase's header label, a block's label)
    citations: tuple[str, ...]
    decl: object  # the AST node (its header carries translations)
    when: ast.Expr | None = None  # a phase's condition, a repeat's test, a player turn's side
    turns: tuple[int, ...] | None = None  # a phase with a condition: the turns it can be played
    sides: tuple[str, ...] | None = None  # player turns: the sides in order at the set-up
    actions: list[AllowedAction] = field(default_factory=list)
    automatic: list[AutomaticStep] = field(default_factory=list)
    at_start: list[TriggerFacts] = field(default_factory=list)  # turn: turn_start; phase: phase_start
    at_end: list[TriggerFacts] = field(default_factory=list)
    children: list["SequenceNode"] = field(default_factory=list)


@dataclass
class SequenceFacts:
    root: SequenceNode | None
    standing: list[TriggerFacts]  # triggers on events other than turn and phase starts and ends
    triggers: list[TriggerFacts]  # every trigger of the game and scenario that can run in it

    def timed(self) -> list[tuple[object, tuple[int, ...]]]:
        """What the turn decides, as a turn record track shows it: each phase played on some
        turns only, then each turn or phase trigger that runs on some turns only, with those
        turns (declaration, turns), in the order of the sequence, then of the rules."""
        out: list[tuple[object, tuple[int, ...]]] = []

        def visit(node: SequenceNode) -> None:
            if node.kind == "phase" and node.turns is not None:
                out.append((node.decl, node.turns))
            for child in node.children:
                visit(child)

        if self.root is not None:
            visit(self.root)
        out += [(t.decl, t.turns) for t in self.triggers if t.event in TURN_EVENTS + PHASE_EVENTS and t.turns is not None]
        return out


def sequence_facts(engine, scenario: str | None, state, first: int, last: int) -> SequenceFacts:
    game = engine.game
    turns = range(first, last + 1)
    declared = [(t, None) for t in game.triggers]
    if scenario is not None:
        declared += [(t, scenario) for t in game.scenarios[scenario].triggers]
    phase_sides = _phase_sides(engine, state, turns)
    triggers = []
    for trig, sc in declared:
        facts = _trigger(engine, trig, sc, scenario, turns, phase_sides)
        if facts is not None:
            triggers.append(facts)
    seq = game.sequence
    root = None
    if seq is not None:
        root = SequenceNode("sequence", seq.name, seq.header.label, tuple(seq.header.citations), seq)
        root.children = _items(engine, seq.items, triggers, scenario, state, turns)
    standing = [t for t in triggers if t.event not in TURN_EVENTS + PHASE_EVENTS]
    return SequenceFacts(root, standing, triggers)


# ---------------------------------------------------------------- triggers
def _phase_sides(engine, state, turns) -> dict[str, list[str | None]]:
    """For each phase, the sides whose player turns it is played in (None outside player turns),
    on any of the scenario's turns: a first turn may leave a side's player turn out (Operation
    Uranus's Turn 28 has no Axis player turn, §S3.4), the others have it."""
    from dataclasses import replace

    from warcodex.interpreter.context import Context
    from warcodex.interpreter.values import RuleError

    out: dict[str, list[str | None]] = {}
    if state is None or engine.game.sequence is None:
        return out
    for turn in turns:
        snap = state.snapshot()
        snap.position = replace(snap.position, turn=turn)
        try:
            ops = engine.sequence.program(Context(engine, snap))
        except RuleError:
            continue
        for op in ops:
            if op.kind == "phase_start" and op.side not in out.setdefault(op.phase.name, []):
                out[op.phase.name].append(op.side)
    return out


def _turns(engine, expr, scenario, turns, active=None, env=None) -> tuple[int, ...] | None:
    """The turns on which `expr` is not false; None when it does not depend on the turn (true or
    undecided on every turn)."""
    if expr is None:
        return None
    found = tuple(t for t in turns if truth(Partial(engine, turn=t, scenario=scenario, active=active).ev(expr, dict(env or {}))) is not False)
    return None if found == tuple(turns) else found


def _trigger(engine, trig: ast.Trigger, sc, scenario, turns, phase_sides) -> TriggerFacts | None:
    """A trigger with the turns (and phases) it can run on; None when it can never run in the
    scenario (its condition names another scenario)."""
    event = trig.header.name
    if event in PHASE_EVENTS:
        about: list[str] = []
        when: set[int] = set()
        every_phase = True
        played_by = {side for sides in phase_sides.values() for side in sides if side is not None}
        by: set[str] = set()
        for phase, sides in phase_sides.items():
            env = {trig.params[0].name: phase} if trig.params else {}
            hit = set()
            for side in sides:
                found = _turns(engine, trig.when, scenario, turns, side, env)
                if found != ():
                    hit |= set(turns) if found is None else set(found)
                    by |= {side} if side is not None else played_by
            if hit:
                about.append(phase)
                when |= hit
            else:
                every_phase = False
        if not about and phase_sides:
            return None
        at = tuple(sorted(when)) if phase_sides else None
        order = [s.name for s in engine.game.sides]
        return TriggerFacts(event, trig, sc, None if at == tuple(turns) else at, () if every_phase else tuple(about),
                            () if by == played_by else tuple(s for s in order if s in by), _condition(engine, trig, scenario))
    found = _turns(engine, trig.when, scenario, turns)
    if found == ():
        return None
    return TriggerFacts(event, trig, sc, found, condition=_condition(engine, trig, scenario))


def _condition(engine, trig: ast.Trigger, scenario) -> ast.Expr | None:
    """A trigger's condition with what the scenario decides taken out (`scenario == "campaign" or
    scenario == "fall_blau"` is no condition in Fall Blau)."""
    if trig.when is None:
        return None
    return residual(Partial(engine, scenario=scenario), trig.when, {p.name: Each() for p in trig.params})


# ---------------------------------------------------------------- the sequence's items
def _kind(node) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(node).__name__).lower()


def _items(engine, items, triggers, scenario, state, turns) -> list[SequenceNode]:
    out = []
    for item in items:
        if isinstance(item, ast.Phase):
            out.append(_phase(engine, item, triggers, scenario, state, turns))
        elif isinstance(item, ast.TurnLoop):
            node = SequenceNode("turn", None, item.label, tuple(item.citations), item)
            node.at_start = [t for t in triggers if t.event == "turn_start"]
            node.at_end = [t for t in triggers if t.event == "turn_end"]
            node.children = _items(engine, item.items, triggers, scenario, state, turns)
            out.append(node)
        elif isinstance(item, ast.PlayerTurns):
            node = SequenceNode("player_turns", None, item.label, tuple(item.citations), item)
            node.sides = _sides(engine, item.sides, state)
            node.children = _items(engine, item.items, triggers, scenario, state, turns)
            out.append(node)
        elif hasattr(item, "items"):  # a block the rules decide in play (repeat while, player_turn)
            when = getattr(item, "test", None) or getattr(item, "side", None)
            node = SequenceNode(_kind(item), None, getattr(item, "label", None), tuple(getattr(item, "citations", ())),
                                item, when)
            node.children = _items(engine, item.items, triggers, scenario, state, turns)
            out.append(node)
    return out


def _sides(engine, expr, state) -> tuple[str, ...] | None:
    from warcodex.interpreter.values import Entity, RuleError

    if state is None:
        return None
    try:
        value = engine.evaluate(expr, state.snapshot())
    except RuleError:
        return None
    values = value if isinstance(value, tuple) else (value,)
    if all(isinstance(v, Entity) and v.kind == "side" for v in values):
        return tuple(v.name for v in values)
    return None


def _phase(engine, phase: ast.Phase, triggers, scenario, state, turns) -> SequenceNode:
    game = engine.game
    node = SequenceNode("phase", phase.name, phase.header.label, tuple(phase.header.citations), phase, phase.when)
    node.turns = _turns(engine, phase.when, scenario, turns)
    for sub in phase.items:
        if isinstance(sub, ast.Allow):
            for a in sub.actions:
                decl = game.names.get(a)
                node.actions.append(AllowedAction(a, decl if isinstance(decl, ast.Action) else None, sub.limit))
        elif isinstance(sub, ast.Do):
            node.automatic += automatic_steps(engine, sub.body, node.automatic)
    node.at_start = [t for t in triggers if t.event == "phase_start" and phase.name in t.phases]
    node.at_end = [t for t in triggers if t.event == "phase_end" and phase.name in t.phases]
    node.children = _items(engine, [s for s in phase.items if not isinstance(s, (ast.Allow, ast.Do))], triggers,
                           scenario, state, turns)
    return node


def automatic_steps(engine, stmts, known=()) -> list[AutomaticStep]:
    """What a `do` block does, in short: the procedures it runs, the markers it places or removes,
    the decks it draws from, a victory check, the tables it rolls on and the rules it computes
    into a variable, each once (and none of `known`). Nothing is run."""
    game = engine.game
    out: list[AutomaticStep] = []
    for n in walk(stmts):
        if isinstance(n, ast.CallStmt):
            call = n.call
            decl = game.names.get(call.func)
            if isinstance(decl, ast.Procedure):
                out.append(AutomaticStep("procedure", decl))
            elif call.func in ("mark", "unmark") and len(call.args) == 2 and isinstance(call.args[1], ast.Name):
                marker = game.names.get(call.args[1].id)
                if marker is not None:
                    out.append(AutomaticStep(call.func, marker))
            elif call.func == "draw" and len(call.args) >= 2 and isinstance(call.args[1], ast.Name):
                deck = game.names.get(call.args[1].id)
                if deck is not None:
                    out.append(AutomaticStep("draw", deck))
            elif call.func == "win":
                out.append(AutomaticStep("victory", None))
        elif isinstance(n, ast.SetStmt):
            tables = [i for i in walk(n.value) if isinstance(i, ast.Index) and isinstance(i.obj, ast.Name)
                      and i.obj.id in engine.tables]
            rules = [c for c in walk(n.value) if isinstance(c, ast.Call)
                     and isinstance(game.names.get(c.func), (ast.Function, ast.Quantity))]
            if tables:
                out.append(AutomaticStep("table", game.names[tables[0].obj.id], n.target, n.op))
            elif rules:
                out.append(AutomaticStep("compute", game.names[rules[0].func], n.target, n.op))
    seen = {_key(s) for s in known}
    unique: list[AutomaticStep] = []
    for step in out:
        if _key(step) not in seen:
            seen.add(_key(step))
            unique.append(step)
    return unique


def _key(step: AutomaticStep) -> tuple:
    return step.kind, id(step.decl), format_expr(step.target) if step.target is not None else None
