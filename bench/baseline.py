"""A hand-written Python implementation of Tiny Front's movement and combat odds (no DSL).

This is the reference the interpreted rules are measured against: the same mechanics as
`games/tiny/movement.wcx`, `combat.wcx`, `tables.wcx` and `components.wcx` (rulebook
`docs/games/tiny.md` §4-§8), written the way one would write them by hand: constants in dicts,
Dijkstra with `heapq`, integer arithmetic. Movement points are counted in *half* MPs so that the
road rate (1/2 MP) stays an exact integer; `to_fraction` converts back for comparisons.

The inputs are the engine's plain data: the `Board` (read once into dicts by `BaselineBoard`)
and the `GameState`'s `units` / `at` dictionaries. Nothing here calls the interpreter.
"""

from __future__ import annotations

import heapq
from fractions import Fraction

# ---------------------------------------------------------------- counters (components.wcx §2.1)
# unit type -> steps -> (attack, defense); movement allowance does not change with steps
STRENGTH = {
    "rifle": {2: (3, 4), 1: (1, 2)},
    "infantry": {2: (5, 5), 1: (2, 3)},
    "panzer": {2: (8, 5), 1: (4, 3)},
    "tank_corps": {2: (6, 4), 1: (3, 2)},
}
MOVE = {"rifle": 3, "infantry": 3, "panzer": 6, "tank_corps": 6}
MECHANIZED = frozenset({"panzer", "tank_corps"})
ARMOR = frozenset({"panzer", "tank_corps"})
ELITE = frozenset({"panzer"})

# ---------------------------------------------------------------- terrain (§2.2), in half MPs
TERRAIN_COST2 = {"clear": 2, "forest": 4, "rough": 4, "swamp": 6, "town": 2}
ROAD_COST2 = 1  # 1/2 MP (§5.2)
MINOR_RIVER2 = 2  # +1 MP (§5.3)
MAJOR_RIVER2 = 4  # +2 MP (§5.3)
DEFENSE_SHIFT = {"clear": 0, "forest": -1, "rough": -1, "swamp": 0, "town": 0}
NO_ARMOR_SHIFT = frozenset({"rough", "swamp"})

# ---------------------------------------------------------------- CRT (§7.3), columns 1-2 .. 5-1
# odds ranks: 1-1 = 0, n-1 = n-1, 1-n = -(n-1); column index = rank + 1
CRT = (
    (("AE",), ("AR",), ("DR1",), ("DR1",), ("DR2",), ("DE",)),
    (("AR",), ("AR",), ("EX",), ("DR1",), ("DR2",), ("DR2",)),
    (("AR",), ("EX",), ("DR1",), ("DR2",), ("DR2",), ("DE",)),
    (("EX",), ("DR1",), ("DR1",), ("DR2",), ("DE",), ("DE",)),
    (("DR1",), ("DR1",), ("DR2",), ("DE",), ("DE",), ("DE",)),
    (("DR1",), ("DR2",), ("DR2",), ("DE",), ("DE",), ("DE",)),
)
LOWEST_RANK = -1  # 1-2: below it the attack is not allowed
HIGHEST_RANK = 4  # 5-1: 6-1 is resolved on it
AUTO_DE_RANK = 6  # 7-1 or more: DE without a roll
AUTO_DE = ("DE",)
INFINITE = 10**6
EMPTY = frozenset()


class BaselineBoard:
    """The board as plain dicts: neighbour tuples, terrain names, hexside feature sets."""

    def __init__(self, board) -> None:
        self.neighbors = {loc: tuple(board.neighbors(loc)) for loc in board.locations}
        self.terrain = {loc: board.terrain(loc) for loc in board.locations}
        self.terrain_cost2 = {loc: TERRAIN_COST2[t] for loc, t in self.terrain.items()}
        self.edges = {}
        for a, ns in self.neighbors.items():
            for b in ns:
                e = board.edge(a, b)
                if e:
                    self.edges[(a, b)] = frozenset(e)


def to_fraction(half_mps: int):
    """Half MPs -> the engine's number (int when whole, else Fraction)."""
    return half_mps // 2 if half_mps % 2 == 0 else Fraction(half_mps, 2)


# ================================================================ movement (§4, §5, §6)
def reachable(bb: BaselineBoard, state, uid: int, weather: str) -> dict:
    """{location: (cost in half MPs, previous location, must_stop)} for unit `uid` (its own hex
    excluded): Dijkstra over the hexes it may enter within its allowance."""
    units = state.units
    at = state.at
    unit = units[uid]
    start = unit.loc
    if start is None:
        return {}
    side = unit.side
    mud = weather == "mud"
    double = mud and unit.type in MECHANIZED
    allowance = MOVE[unit.type] * 2
    neighbors = bb.neighbors
    terrain_cost2 = bb.terrain_cost2
    edges = bb.edges
    heappush, heappop = heapq.heappush, heapq.heappop

    info: dict = {}  # location -> (cannot enter, in enemy ZOC)
    best = {start: (0, None, False)}
    heap = [(0, 0, start)]
    counter = 1
    while heap:
        spent, _, loc = heappop(heap)
        entry = best[loc]
        if spent > entry[0] or (entry[2] and loc != start):
            continue
        for nxt in neighbors[loc]:
            here = info.get(nxt)
            if here is None:
                ids = at.get(nxt, ())
                # §5.1 no entering an enemy hex; §4 stacking: at most two units
                blocked = len(ids) >= 2 or any(units[i].side != side for i in ids)
                zoc = False
                if not blocked:  # §6 a hex adjacent to an enemy unit
                    for n in neighbors[nxt]:
                        for i in at.get(n, ()):
                            if units[i].side != side:
                                zoc = True
                                break
                        if zoc:
                            break
                here = info[nxt] = (blocked, zoc)
            if here[0]:
                continue
            # §5.1 cost: terrain (or road rate), + rivers without bridge, x2 mechanized in mud
            e = edges.get((loc, nxt))
            if e is None:
                step = terrain_cost2[nxt]
            else:
                step = ROAD_COST2 if ("road" in e and not mud) else terrain_cost2[nxt]
                if "bridge" not in e:
                    if "minor_river" in e:
                        step += MINOR_RIVER2
                    if "major_river" in e:
                        step += MAJOR_RIVER2
            if double:
                step *= 2
            total = spent + step
            if total > allowance:
                # §5.1 a unit may always move one hex (from its start, entering no forbidden hex)
                if loc == start and nxt not in best:
                    total = allowance
                    must_stop = True
                else:
                    continue
            else:
                must_stop = here[1]
            old = best.get(nxt)
            if old is None or total < old[0]:
                best[nxt] = (total, loc, must_stop)
                heappush(heap, (total, counter, nxt))
                counter += 1
    del best[start]
    return best


# ================================================================ combat odds (§7.2-§7.4, §8)
def _half_up(x: int) -> int:
    return -(-x // 2)


def odds_rank(attack: int, defense: int) -> int:
    """Odds rounded in the defender's favour, as a column rank (§7.3)."""
    if defense <= 0:
        return INFINITE
    if attack <= 0:
        return -INFINITE
    if attack >= defense:
        return attack // defense - 1
    return -(-(-defense // attack) - 1)


def crt_column(bb: BaselineBoard, state, attackers, target: str, weather: str) -> int:
    """The final odds column (rank) of `attackers` (UnitRefs) against every unit in `target`:
    attack halved (round up) across a major river and when disrupted, capped at 30; defense
    halved (round up) when disrupted, then doubled once in a town or when every attacker is across
    a river; odds rounded for the defender; shifts: armor (fair weather only), elite, terrain, mud."""
    units = state.units
    edges = bb.edges
    total_attack = 0
    all_across_river = True
    any_armor = any_elite = False
    for ref in attackers:
        u = units[ref.id]
        a = STRENGTH[u.type][u.steps][0]
        e = edges.get((u.loc, target), EMPTY)
        if "major_river" in e:  # §7.2 attacking across a major river, bridge or not
            a = _half_up(a)
        if "disrupted" in u.markers:  # §7.5
            a = _half_up(a)
        total_attack += a
        if "minor_river" not in e and "major_river" not in e:
            all_across_river = False
        if u.type in ARMOR:
            any_armor = True
        if u.type in ELITE:
            any_elite = True
    if total_attack > 30:  # §7.2 cap
        total_attack = 30
    terrain = bb.terrain[target]
    double = terrain == "town" or all_across_river  # §7.2 doubled at most once
    total_defense = 0
    defender_armor = False
    for i in state.at.get(target, ()):
        d = units[i]
        v = STRENGTH[d.type][d.steps][1]
        if "disrupted" in d.markers:  # §7.2, §7.5 halved first, then doubled
            v = _half_up(v)
        total_defense += v * 2 if double else v
        if d.type in ARMOR:
            defender_armor = True
    rank = odds_rank(total_attack, total_defense)
    if weather == "fair" and any_armor and not defender_armor and terrain not in NO_ARMOR_SHIFT:  # §7.4, §8
        rank += 1
    if any_elite:
        rank += 1
    rank += DEFENSE_SHIFT[terrain]
    if weather == "mud":  # §8
        rank -= 1
    return rank


def allowed(rank: int) -> bool:
    return rank >= LOWEST_RANK


def crt_result(rank: int, roll: int) -> tuple[str, ...]:
    """The CRT cell's result codes for an allowed column (§7.3 beyond-the-table rules)."""
    if rank >= AUTO_DE_RANK:
        return AUTO_DE
    if rank > HIGHEST_RANK:
        rank = HIGHEST_RANK
    row = 1 if roll < 1 else 6 if roll > 6 else roll
    return CRT[row - 1][rank + 1]
