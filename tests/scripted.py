"""A scripted agent for tests that run the real rules of a game on a constructed position: its
`choose` answers come from a script, and it records every question it is asked. Shared by the
per-game test supports (test_stalingrad_support, test_stargard_support)."""

from __future__ import annotations

from warcodex.interpreter.values import Entity, UnitRef


class Picker:
    """An agent whose `choose` answers come from a script: {what: [answer, ...]}. An answer is a
    value to pick (compared with the option, or its `str`), None to decline, or a callable
    option -> bool. Without a scripted answer it picks the first option (declines if optional
    and `decline_by_default`)."""

    def __init__(self, script: dict | None = None, decline_by_default: bool = False) -> None:
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.decline = decline_by_default
        self.asked: list[tuple[str, tuple]] = []

    def _match(self, answer, options):
        for i, o in enumerate(options):
            if callable(answer) and not isinstance(answer, (Entity, UnitRef)):
                if answer(o):
                    return i
            elif o == answer or str(o) == str(answer):
                return i
        raise AssertionError(f"scripted answer {answer!r} is not among the options {options!r}")

    def choose(self, ctx, who, what, options, optional):
        self.asked.append((what, options))
        queue = self.script.get(what)
        if queue:
            answer = queue.pop(0)
            if answer is None:
                return None
            return self._match(answer, options)
        return None if (optional and self.decline) else 0

    def choose_subset(self, ctx, who, what, options, lo, hi):
        self.asked.append((what, options))
        queue = self.script.get(what)
        if queue:
            answer = queue.pop(0)
            return sorted(self._match(a, options) for a in answer)
        return list(range(lo))

    def choose_action(self, ctx, side, legal):
        return None
