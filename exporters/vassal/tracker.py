"""The turn tracker's levels: the scenario's sequence of play as VASSAL's TurnTracker can step it.

VASSAL's tracker has no per-turn conditions: a CounterTurnLevel (the turn number) holds a
ListTurnLevel (the phases), the same list every turn. A scenario whose turns differ (a weather
phase from turn 17, a first turn that skips a player turn) becomes several segments, one per run
of consecutive turns that play the same phases, each a CounterTurnLevel of the tracker looping
over its own turns: when one runs past its last turn the tracker moves on to the next segment
(`TurnTracker.next`, `CounterTurnLevel.advance`), and all of them share the properties `Turn` and
`Phase` (`TurnLevel.addTo` reuses a property of the same name). The tracker opens on the
scenario's first turn at its first phase, wherever the scenario starts in the sequence.

A phase whose playing depends on the game (`when interim_turn_pending`) stays in the list and
says "(if applicable)"; the conditions themselves are in the module's help page.
"""

from __future__ import annotations

from dataclasses import dataclass

IF_APPLICABLE = " (if applicable)"


@dataclass(frozen=True)
class Segment:
    first: int
    last: int | None  # None: the scenario has no last turn, the segment counts on
    phases: tuple[str, ...]

    @property
    def name(self) -> str:
        if self.last is None:
            return f"Turns {self.first}+"
        return f"Turn {self.first}" if self.first == self.last else f"Turns {self.first}-{self.last}"


def phase_text(step) -> str:
    """A phase as the tracker shows it: "Axis: Movement Phase", "Axis Interim turn" (a label that
    names its side already keeps it once). `step`: gamedata.Step (label, side)."""
    if not step.side or step.label.lower().startswith(step.side.lower()):
        return step.label
    return f"{step.side}: {step.label}"


def segments(steps, first: int, last: int | None, horizon: int = 20) -> list[Segment]:
    """The runs of turns playing the same phases, from the scenario's first turn to its last (or
    `horizon` turns on, then open-ended). `steps`: gamedata.Step (label, side, turns, maybe_turns)."""
    end = last if last is not None else first + horizon

    def phases(t: int) -> tuple[str, ...]:
        return tuple(phase_text(s) + (IF_APPLICABLE if t in s.maybe_turns else "")
                     for s in steps if s.turns is None or t in s.turns)

    out: list[Segment] = []
    for t in range(first, end + 1):
        here = phases(t)
        if out and out[-1].phases == here:
            out[-1] = Segment(out[-1].first, t, here)
        else:
            out.append(Segment(t, t, here))
    if last is None and out:
        out[-1] = Segment(out[-1].first, None, out[-1].phases)
    return out
