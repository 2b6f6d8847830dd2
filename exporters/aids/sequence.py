"""The sequence of play as an aid prints it, from the facts' sequence tree: the game turn, player
turns with the sides in order, phases and sub-phases with their sections, the turns a phase is
played on when the turn decides it, the actions each phase allows, what happens automatically
(procedures, tables rolled, markers, cards, the triggers at a phase's start or end, with the side
and turns they concern); and the standing rules (`when a unit enters a location: ...`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from warcodex.exporters.aids.writer import Ref

_EVENT_KEYS = {"event_game_start", "event_turn_start", "event_turn_end", "event_enter", "event_eliminated", "event_game_end"}


@dataclass
class SequenceItem:
    kind: str  # sequence, turn, player_turns, phase, or a block decided in play (repeat, player_turn)
    label: str
    refs: list[Ref]
    condition: str | None = None
    sides: str | None = None
    actions: list[tuple[str, list[Ref], str | None]] = field(default_factory=list)
    automatic: list[tuple[str, list[Ref]]] = field(default_factory=list)
    children: list["SequenceItem"] = field(default_factory=list)


@dataclass
class StandingRule:
    when: str
    label: str
    refs: list[Ref]
    condition: str | None


def sequence_of_play(w) -> tuple[list[SequenceItem], list[StandingRule]]:
    seq = w.facts.sequence
    if seq.root is None:
        return [], []
    top = SequenceItem("sequence", w.of(seq.root.decl), w.refs(seq.root.citations),
                       children=[_item(w, c) for c in seq.root.children])
    standing = []
    card_events = {id(e.rule) for d in w.facts.decks for c in d.cards for e in c.events}
    for t in seq.standing:
        if id(t.decl) in card_events:
            continue  # a card's event: the card list shows it with its card
        key = f"event_{t.event}"
        when = w.ui(key) if key in _EVENT_KEYS else t.event.replace("_", " ")
        standing.append(StandingRule(when, _trigger_label(w, t), w.refs(t.decl.header.citations), w.cond(t.condition)))
    return [top], standing


def _trigger_label(w, t) -> str:
    return w.of(t.decl) if t.decl.header.label else t.event.replace("_", " ")


def _item(w, node) -> SequenceItem:
    refs = w.refs(node.citations)
    if node.kind == "turn":
        item = SequenceItem("turn", node.label or w.ui("turn"), refs)
        item.automatic = [_trigger_step(w, t, with_condition=True) for t in node.at_start]
        item.children = [_item(w, c) for c in node.children]
        item.automatic += [_trigger_step(w, t, with_condition=True) for t in node.at_end]
        return item
    if node.kind == "player_turns":
        sides = ", ".join(w.label(s) for s in node.sides) if node.sides is not None else w.words(node.decl.sides)
        item = SequenceItem("player_turns", node.label or w.ui("side"), refs, sides=w.ui("for_each_side", sides=sides))
        item.children = [_item(w, c) for c in node.children]
        return item
    if node.kind == "phase":
        condition = w.cond(node.when)
        if node.turns == ():  # its condition holds on none of the scenario's turns (from Turn 17 in Fall Blau)
            condition += f"; {w.ui('not_in_scenario')}"
        item = SequenceItem("phase", w.of(node.decl), refs, condition=condition)
        for a in node.actions:
            limit = w.ui("at_most", n=a.limit) if a.limit is not None else None
            item.actions.append((w.label(a.name), w.refs(a.decl.header.citations) if a.decl is not None else [], limit))
        item.automatic = [_automatic(w, step) for step in node.automatic]
        for t in node.at_start:
            item.automatic.append(_phase_trigger(w, t, "at_phase_start"))
        for t in node.at_end:
            item.automatic.append(_phase_trigger(w, t, "at_phase_end"))
        item.children = [_item(w, c) for c in node.children]
        return item
    # a block the rules decide in play: `player_turn SIDE` (the side the rules name then: the owner
    # of a drawn chit), `repeat while TEST`
    if node.kind == "player_turn":
        item = SequenceItem("player_turn", node.label or w.ui("side"), refs, sides=w.ui("played_by", side=w.words(node.when)))
    elif node.kind == "repeat":
        item = SequenceItem("repeat", node.label or w.ui("repeat"), refs, sides=w.ui("repeat_while", cond=w.words(node.when)))
    else:
        item = SequenceItem(node.kind, node.label or node.kind.replace("_", " "), refs, condition=w.cond(node.when))
    item.children = [_item(w, c) for c in node.children]
    return item


def _trigger_step(w, t, with_condition: bool) -> tuple[str, list[Ref]]:
    text = _trigger_label(w, t)
    if t.turns is not None:
        text += f" ({w.turns(t.turns, w.facts.last_turn)})"
    elif with_condition and t.condition is not None:
        text += f" ({w.ui('when')} {w.words(t.condition)})"
    return text, w.refs(t.decl.header.citations)


def _phase_trigger(w, t, key: str) -> tuple[str, list[Ref]]:
    """A trigger at a phase's start or end, with the sides and turns it concerns when not all."""
    text, refs = _trigger_step(w, t, with_condition=False)
    whose = f" ({', '.join(w.label(s) for s in t.sides)})" if t.sides else ""
    return f"{w.ui(key)}{whose}: {text}", refs


def _automatic(w, step) -> tuple[str, list[Ref]]:
    """What a step of a `do` block does, in short."""
    if step.kind == "procedure":
        return w.of(step.decl), w.refs(step.decl.header.citations)
    if step.kind in ("mark", "unmark"):
        return f"{'remove' if step.kind == 'unmark' else 'place'} {w.of(step.decl)}", []
    if step.kind == "draw":
        return f"draw from {w.of(step.decl)}", []
    if step.kind == "victory":
        return "check victory", []
    target = w.words(step.target)
    if step.kind == "table":
        return f"{target}: {w.of(step.decl)}", w.refs(step.decl.header.citations)
    op = {"+=": "+", "-=": "−", "=": "="}[step.op]
    return f"{target} {op} {w.of(step.decl)}", w.refs(step.decl.header.citations)
