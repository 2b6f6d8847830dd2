"""Dice: the kinds of dice a game rolls, the exact distribution of a roll, and hit rolls (each unit
rolls its own die against one of its values, as in Axis & Allies: `roll d6 <= u.attack`).

    distribution(ast.Dice(count=2, sides=6))[7]     # Fraction(1, 6)
    [h.prop for h in hit_rolls(engine)]              # ["attack", "defense"]
    hit_rolls(engine)[0].chance(3)                   # Fraction(1, 2): a 3 or less on a d6
"""

from __future__ import annotations

import itertools
import re
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction

from warcodex.dsl import ast
from warcodex.facts.walk import rule_bodies, walk

_REVERSED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_COMPARE = {"<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b, ">": lambda a, b: a > b,
            "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def distribution(d: ast.Dice) -> dict[int, Fraction]:
    """The exact distribution of a roll (`2d6`, `3d6 keep highest 1`), by total."""
    if d.keep is None and d.count > 4:  # many dice: add one die at a time
        dist = {0: Fraction(1)}
        for _ in range(d.count):
            nxt: dict[int, Fraction] = {}
            for total, p in dist.items():
                for face in range(1, d.sides + 1):
                    nxt[total + face] = nxt.get(total + face, Fraction(0)) + p / d.sides
            dist = nxt
        return dict(sorted(dist.items()))
    outcomes = d.sides ** d.count
    dist = {}
    for faces in itertools.product(range(1, d.sides + 1), repeat=d.count):
        kept = sorted(faces, reverse=d.keep_highest)[: d.keep] if d.keep is not None else faces
        total = sum(kept)
        dist[total] = dist.get(total, Fraction(0)) + Fraction(1, outcomes)
    return dict(sorted(dist.items()))


def dice_of(game) -> list[ast.Dice]:
    """The game's `dice:` first, then every other kind of dice its rules and tables roll."""
    seen: dict[str, ast.Dice] = {}
    value = game.prop("dice")
    if isinstance(value, ast.Name):
        m = re.fullmatch(r"(\d*)d(\d+)", value.id)
        if m:
            d = ast.Dice(count=int(m.group(1) or 1), sides=int(m.group(2)))
            seen[d.text()] = d
    for n in walk(list(game.decls) + list(game.scenarios.values())):
        if isinstance(n, ast.Dice):
            seen.setdefault(n.text(), n)
    return list(seen.values())


@dataclass(frozen=True)
class HitRoll:
    """A unit rolls `dice` and hits when the roll compares with its `prop` by `op` (`<=`)."""
    prop: str
    dice: ast.Dice
    op: str  # the roll on the left: `roll <= value`
    rule: object  # the declaration whose rules make the comparison (its header cites the section)

    def chance(self, value) -> Fraction:
        """The chance to hit of a unit whose `prop` is `value` (= its expected hits per roll)."""
        test = _COMPARE[self.op]
        return sum((p for r, p in distribution(self.dice).items() if test(r, value)), Fraction(0))


def hit_rolls(engine) -> list[HitRoll]:
    """Every unit property the rules roll a die against (`roll d6 <= u.attack`), in the order the
    rules first do it. Cached with the engine."""
    cache = engine.derived_cache
    if "hit_rolls" in cache:
        return cache["hit_rolls"]
    game = engine.game
    unit_props = {p.key for u in game.units for p in u.props}
    found: OrderedDict[str, HitRoll] = OrderedDict()
    for node, _env in rule_bodies(game):
        for n in walk(node):
            if not isinstance(n, ast.Compare):
                continue
            if isinstance(n.left, ast.Roll) and isinstance(n.right, ast.Attr):
                roll, attr, op = n.left, n.right, n.op
            elif isinstance(n.right, ast.Roll) and isinstance(n.left, ast.Attr):
                roll, attr, op = n.right, n.left, _REVERSED[n.op]
            else:
                continue
            if attr.name in unit_props and attr.name not in found:
                found[attr.name] = HitRoll(attr.name, roll.dice, op, node if isinstance(node, ast.Decl) else None)
    cache["hit_rolls"] = list(found.values())
    return cache["hit_rolls"]
