"""Fixed dice: a drop-in for the game's RNG that returns chosen rolls, for worked examples and
"what if the rolls were 1, 4, 6" questions. Asking for more rolls than given is an error, so a
test cannot silently fall back to random dice."""

from __future__ import annotations

import random

from warcodex.interpreter.values import RuleError


class FixedDice(random.Random):
    def __init__(self, rolls=()) -> None:
        super().__init__(0)
        self.rolls = list(rolls)
        self.used = 0

    def __deepcopy__(self, memo) -> "FixedDice":
        # a snapshot of the game (state.snapshot) copies the dice still to come and the count used
        twin = FixedDice(self.rolls)
        twin.used = self.used
        twin.setstate(self.getstate())
        return twin

    def randint(self, a: int, b: int) -> int:
        if self.used >= len(self.rolls):
            raise RuleError(f"the fixed dice ran out after {self.used} rolls")
        value = self.rolls[self.used]
        if not a <= value <= b:
            raise RuleError(f"fixed roll {value} is outside {a}..{b}")
        self.used += 1
        return value
