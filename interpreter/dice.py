"""Fixed dice: a drop-in for the game's RNG that returns chosen rolls, for worked examples, rule
tests and "what if the rolls were 1, 4, 6" questions (`warcodex play --dice 1,4,6`).

Strict dice (no seed) refuse to roll once the given rolls are used, so a test cannot silently fall
back to random dice. Dice with a seed roll the given rolls first, then go on with the seed's RNG
(which also draws everything that is not a die roll, such as deck shuffles)."""

from __future__ import annotations

import random
import re

from warcodex.interpreter.values import RuleError


class FixedDice(random.Random):
    def __init__(self, rolls=(), seed: int | None = None) -> None:
        super().__init__(0 if seed is None else seed)
        self.rolls = list(rolls)
        self.used = 0
        self.strict = seed is None

    def __deepcopy__(self, memo) -> "FixedDice":
        # a snapshot of the game (state.snapshot) copies the dice still to come and the count used
        twin = FixedDice(self.rolls)
        twin.used = self.used
        twin.strict = self.strict
        twin.setstate(self.getstate())
        return twin

    @property
    def remaining(self) -> list[int]:
        return self.rolls[self.used:]

    def next_is_fixed(self) -> bool:
        return self.used < len(self.rolls)

    def randint(self, a: int, b: int) -> int:
        if self.used >= len(self.rolls):
            if not self.strict:
                return super().randint(a, b)
            raise RuleError(f"the fixed dice ran out after {self.used} rolls")
        value = self.rolls[self.used]
        if not a <= value <= b:
            raise RuleError(f"fixed roll {value} is outside {a}..{b}")
        self.used += 1
        return value


def parse_dice(text: str, source: str = "--dice") -> list[int]:
    """Rolls written as whole numbers separated by commas, blanks or new lines (`#` starts a
    comment): `3, 5, 1`. A ValueError says which entry is not a roll and where."""
    rolls = []
    for number, line in enumerate(text.splitlines() or [""], 1):
        code = line.split("#", 1)[0]
        for m in re.finditer(r"[^\s,]+", code):
            word = m.group(0)
            if not word.isdigit() or int(word) < 1:
                where = f"{source}:{number}:{m.start() + 1}" if "\n" in text or source != "--dice" else source
                raise ValueError(f"{where}: '{word}' is not a die roll (a whole number from 1)")
            rolls.append(int(word))
    return rolls
