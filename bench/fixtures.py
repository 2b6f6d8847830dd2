"""Shared set-up for the benchmarks and the smoke test: generated boards, unit populations,
random movement and combat cases, and the engine-vs-baseline equivalence check.

Everything is deterministic for a given seed. Nothing here times anything (see run.py).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from warcodex.dsl.board import generate_hex_board
from warcodex.dsl.loader import load_game
from warcodex.interpreter.context import Context
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.values import UnitRef

try:  # run as `python bench/run.py` (bench/ on sys.path) or imported as the package `bench`
    from . import baseline as bl
except ImportError:  # pragma: no cover
    import baseline as bl  # type: ignore[no-redef]

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "games" / "tiny"

# Only names the tiny game declares: terrains clear/forest/rough/swamp/town; the generator's
# hexside features are minor_river, major_river, road and bridge (all declared edges of tiny).
TERRAINS = (("clear", 0.5), ("forest", 0.2), ("rough", 0.1), ("swamp", 0.1), ("town", 0.1))
RIVER_DENSITY = 0.08  # twice the generator's default, so river rules are exercised often
UNIT_TYPES = ("rifle", "infantry", "panzer", "tank_corps")
SIDES = ("axis", "soviet")
WEATHERS = ("fair", "rain", "mud")


@lru_cache(maxsize=1)
def tiny_game():
    return load_game(str(TINY))


def make_board(size: int, seed: int):
    return generate_hex_board(size, size, seed=seed, terrains=TERRAINS, river_density=RIVER_DENSITY)


def make_fuzz_board(size: int, seed: int, edge_share: float = 0.35):
    """A small hand-built board where hexsides carry random *combinations* of minor_river,
    major_river, road and bridge (a road across an unbridged river, both rivers on one side...),
    which the generator never makes: corner cases of the cost rules."""
    from warcodex.dsl.board import Board, Provenance
    from warcodex.dsl.hexgrid import HexGrid

    rng = random.Random(seed)
    grid = HexGrid("flat", "odd", 1, 1, size, size, 2, 2)
    cells = grid.all_hexes()
    ids = {h: grid.hex_id(*h) for h in cells}
    names, weights = [t for t, _ in TERRAINS], [w_ for _, w_ in TERRAINS]
    terrain = {ids[h]: rng.choices(names, weights)[0] for h in cells}
    edges = {}
    for h in cells:
        for n in grid.neighbors(*h):
            if n in ids and ids[n] > ids[h] and rng.random() < edge_share:
                fs = {f for f in ("minor_river", "major_river", "road", "bridge") if rng.random() < 0.4}
                if fs:
                    edges[(ids[h], ids[n])] = fs
    return Board.hex_board(f"fuzz {size}x{size} seed {seed}", grid, provenance=Provenance("provisional", "bench fuzz board"),
                           terrain=terrain, edges=edges)


def check_board_names(engine) -> None:
    """The generated board must only use terrain and hexside names the game declares."""
    declared = engine.board.declared_names()
    game = engine.game
    terrains = {t.name for t in game.entities("terrain")}
    edges = {e.name for e in game.entities("edge")}
    unknown = (set(declared.terrains) - terrains) | (set(declared.edge_features) - edges)
    if unknown:
        raise AssertionError(f"generated board uses names the game does not declare: {sorted(unknown)}")


def weather(engine, state) -> str:
    w = state.vars.get("weather")
    return getattr(w, "name", str(w))


def set_weather(engine, state, name: str) -> None:
    state.vars["weather"] = engine.entities[name]
    state.touch()


@dataclass
class World:
    """An engine on a generated board with a clean state (no scenario units) and a context."""

    engine: Engine
    state: object
    ctx: Context
    bb: bl.BaselineBoard
    size: int
    rng: random.Random
    movers: dict = field(default_factory=dict)  # side -> {type -> UnitRef} parked off the map

    def place(self, type_: str, side: str, loc: str) -> UnitRef:
        e = self.engine.entities
        return self.engine.place(self.ctx, e[type_], e[side], loc, None, None)

    def region(self, lo: float, hi: float) -> list[str]:
        """Hexes whose column and row are both within [lo, hi] of the board's size."""
        a, b = int(self.size * lo) + 1, int(self.size * hi)
        board = self.engine.board
        return [h for h in board.locations if a <= board.coords(h)[0] <= b and a <= board.coords(h)[1] <= b]


def make_world(size: int | None, seed: int, board=None, keep_scenario_units: bool = False) -> World:
    """A world on a generated `size` x `size` board, or on `board` (None with size None: the
    tiny game's own map). The scenario's units are taken off the board unless kept."""
    game = tiny_game()
    if board is None and size is not None:
        board = make_board(size, seed)
    engine = Engine(game, board=board)
    check_board_names(engine)
    state = engine.new_game("meeting", seed=seed)
    ctx = Context(engine, state, agents={})
    if not keep_scenario_units:
        for uid in list(state.units):
            engine.eliminate(ctx, UnitRef(uid), None)
    if size is None:
        size = max(max(engine.board.coords(h)) for h in engine.board.locations)
    return World(engine, state, ctx, bl.BaselineBoard(engine.board), size, random.Random(seed))


# ================================================================ movement population and cases
def populate_movement(w: World, enemies: int = 40, friend_stacks: int = 8, friend_singles: int = 4,
                      region=(0.2, 0.8)) -> None:
    """`enemies` soviet units scattered over the central region (their ZOC covers a good part of
    it), and axis units there too, some in full stacks of two (so stacking blocks movement)."""
    rng = w.rng
    hexes = w.region(*region)
    picked = rng.sample(hexes, enemies + friend_stacks + friend_singles)
    for loc in picked[:enemies]:
        w.place(rng.choice(UNIT_TYPES), "soviet", loc)
    for loc in picked[enemies:enemies + friend_stacks]:
        w.place(rng.choice(UNIT_TYPES), "axis", loc)
        w.place(rng.choice(UNIT_TYPES), "axis", loc)
    for loc in picked[enemies + friend_stacks:]:
        w.place(rng.choice(UNIT_TYPES), "axis", loc)


def free_hexes(w: World, side: str, region=(0.2, 0.8)) -> list[str]:
    """Hexes a unit of `side` may stand in: no enemy, fewer than two units."""
    st = w.state
    out = []
    for h in w.region(*region):
        ids = st.at.get(h, ())
        if len(ids) < 2 and all(st.units[i].side == side for i in ids):
            out.append(h)
    return out


def mover(w: World, type_: str, side: str, loc: str) -> UnitRef:
    """A moving unit of this type and side (one per pair, reused), moved to `loc`."""
    ref = w.movers.setdefault(side, {}).get(type_)
    if ref is None:
        ref = w.movers[side][type_] = w.place(type_, side, loc)
    else:
        unit = w.state.units[ref.id]
        w.state.put(replace(unit, loc=loc, box=None, steps=unit.max_steps))
    return ref


def park(w: World, ref: UnitRef) -> None:
    """Take a moving unit off the board again (plain state change, no rules run)."""
    unit = w.state.units[ref.id]
    w.state.put(replace(unit, loc=None, box="bench"))


def engine_reachable(w: World, ref: UnitRef, cold: bool) -> dict:
    """The engine's reachable() with fresh per-search caches: `cold` also empties the static
    (whole-game) cache; the state version is bumped so per-version memos start empty too."""
    w.ctx.cache = {}
    if cold:
        w.engine.static_cache.clear()
    w.state.touch()
    return w.engine.modes["ground"].reachable(w.ctx, ref)


# ================================================================ combat population and cases
def populate_combat(w: World, fill: float = 0.6, region=(0.35, 0.65)) -> None:
    """A dense block of units of both sides around the board's middle (and so around the major
    river seam): random types, a third reduced, a quarter disrupted, hexes of one or two units."""
    rng = w.rng
    for loc in w.region(*region):
        if loc in w.state.at or rng.random() > fill:
            continue
        side = rng.choice(SIDES)
        for _ in range(rng.choice((1, 1, 2))):
            ref = w.place(rng.choice(UNIT_TYPES), side, loc)
            unit = w.state.units[ref.id]
            if rng.random() < 0.3:
                w.state.put(replace(unit, steps=1))
            if rng.random() < 0.25:
                w.engine.set_marker(w.ctx, ref, w.engine.entities["disrupted"], True, None)


@dataclass(frozen=True)
class Combat:
    attackers: tuple  # UnitRefs
    target: str
    roll: int


def random_combats(w: World, n: int, seed: int, max_attackers: int = 6) -> list[Combat]:
    """`n` random attacks on occupied hexes by random non-empty groups of adjacent enemy units."""
    rng = random.Random(seed)
    st, board = w.state, w.engine.board
    candidates = []
    for target, ids in st.at.items():
        side = st.units[ids[0]].side
        around = [UnitRef(i) for n_ in board.neighbors(target) for i in st.at.get(n_, ()) if st.units[i].side != side]
        if around:
            candidates.append((target, around))
    candidates.sort()
    out = []
    for _ in range(n):
        target, around = rng.choice(candidates)
        k = rng.randint(1, min(max_attackers, len(around)))
        group = tuple(sorted(rng.sample(around, k), key=lambda r: r.id))
        out.append(Combat(group, target, rng.randint(1, 6)))
    return out


def engine_combat(w: World, c: Combat):
    """(column rank, result codes or None when the column is not allowed) from the engine."""
    col = w.engine.quantities["crt_column"](w.ctx, (c.attackers, c.target), None)
    crt = w.engine.tables["crt"]
    if not crt.allowed(col):
        return col.rank, None
    cell = crt.lookup([col, c.roll], None)
    return col.rank, tuple(str(code) for code in cell.codes)


def baseline_combat(w: World, c: Combat, weather_name: str):
    rank = bl.crt_column(w.bb, w.state, c.attackers, c.target, weather_name)
    if not bl.allowed(rank):
        return rank, None
    return rank, bl.crt_result(rank, c.roll)


def combat_rules_hit(w: World, c: Combat, weather_name: str) -> set[str]:
    """Which rules a combat exercises (to show the equivalence check covers them)."""
    st, board = w.state, w.engine.board
    hit = set()
    edges = [board.edge(st.units[a.id].loc, c.target) for a in c.attackers]
    if any("major_river" in e for e in edges):
        hit.add("attack halved across major river")
    if any("disrupted" in st.units[a.id].markers for a in c.attackers):
        hit.add("attack halved disrupted")
    across = all(("minor_river" in e or "major_river" in e) for e in edges)
    town = board.terrain(c.target) == "town"
    if across:
        hit.add("defense doubled behind river")
    if town:
        hit.add("defense doubled in town")
    if across and town:
        hit.add("doubled once (town and river)")
    halved = 0
    for a, e in zip(c.attackers, edges):
        u = st.units[a.id]
        v = bl.STRENGTH[u.type][u.steps][0]
        v = -(-v // 2) if "major_river" in e else v
        halved += -(-v // 2) if "disrupted" in u.markers else v
    if halved > 30:
        hit.add("attack cap 30")
    if any("disrupted" in st.units[i].markers for i in st.at[c.target]):
        hit.add("defense halved disrupted")
    if any(st.units[a.id].type in bl.ARMOR for a in c.attackers):
        hit.add("armor attacking")
        if weather_name != "fair":
            hit.add("armor shift cancelled by weather")
    if any(st.units[a.id].type in bl.ELITE for a in c.attackers):
        hit.add("elite shift")
    if board.terrain(c.target) in bl.NO_ARMOR_SHIFT:
        hit.add("no armor shift terrain")
    if bl.DEFENSE_SHIFT[board.terrain(c.target)]:
        hit.add("defensive terrain shift")
    if weather_name == "mud":
        hit.add("mud shift")
    if weather_name == "rain":
        hit.add("rain")
    if any(st.units[i].steps == 1 for i in st.at[c.target]) or any(st.units[a.id].steps == 1 for a in c.attackers):
        hit.add("reduced units")
    rank = bl.crt_column(w.bb, st, c.attackers, c.target, weather_name)
    if rank < bl.LOWEST_RANK:
        hit.add("illegal (below 1-2)")
    elif rank >= bl.AUTO_DE_RANK:
        hit.add("7-1+: automatic DE")
    elif rank > bl.HIGHEST_RANK:
        hit.add("6-1 on the 5-1 column")
    return hit


# ================================================================ equivalence
def _norm_engine(reach: dict) -> dict:
    return {loc: (Fraction(cost), prev, bool(stop)) for loc, (cost, prev, stop) in reach.items()}


def _norm_baseline(reach: dict) -> dict:
    return {loc: (Fraction(c2, 2), prev, stop) for loc, (c2, prev, stop) in reach.items()}


def _diff_reach(e: dict, b: dict) -> dict:
    only_e = sorted(set(e) - set(b))
    only_b = sorted(set(b) - set(e))
    cost = sorted(k for k in set(e) & set(b) if e[k][0] != b[k][0])
    stop = sorted(k for k in set(e) & set(b) if e[k][2] != b[k][2])
    prev = sorted(k for k in set(e) & set(b) if e[k][1] != b[k][1])
    return {"only_engine": only_e[:10], "only_baseline": only_b[:10], "cost": [(k, str(e[k][0]), str(b[k][0])) for k in cost[:10]],
            "must_stop": stop[:10], "prev": prev[:10]}


def compare_reachable(w: World, ref: UnitRef) -> dict | None:
    """Engine (cold and warm) vs baseline for a unit already on the board, in the current
    weather: None when identical, else the differences."""
    wname = weather(w.engine, w.state)
    cold = _norm_engine(engine_reachable(w, ref, cold=True))
    warm = _norm_engine(engine_reachable(w, ref, cold=False))
    base = _norm_baseline(bl.reachable(w.bb, w.state, ref.id, wname))
    if cold == warm == base:
        return None
    return {"unit": ref.id, "loc": w.state.units[ref.id].loc, "weather": wname,
            "engine_vs_baseline": _diff_reach(warm, base), "cold_vs_warm": _diff_reach(cold, warm)}


def check_movement(w: World, n_cases: int, seed: int, region=(0.2, 0.8)) -> dict:
    """Random units (type, side, hex, weather): the engine's reachable() (cold and warm caches)
    against the baseline's: same hexes, same costs, same must-stop flags (and same paths)."""
    rng = random.Random(seed)
    report = {"cases": n_cases, "identical_sets": 0, "identical_costs": 0, "identical_must_stop": 0,
              "identical_prev": 0, "cold_equals_warm": 0, "hexes_compared": 0, "mismatches": [],
              "rules_hit": {}}
    hit = report["rules_hit"]
    for i in range(n_cases):
        type_, side = rng.choice(UNIT_TYPES), rng.choice(SIDES)
        wname = rng.choice(("fair", "fair", "rain", "mud"))
        set_weather(w.engine, w.state, wname)
        loc = rng.choice(free_hexes(w, side, region))
        ref = mover(w, type_, side, loc)
        cold = _norm_engine(engine_reachable(w, ref, cold=True))
        warm = _norm_engine(engine_reachable(w, ref, cold=False))
        base = _norm_baseline(bl.reachable(w.bb, w.state, ref.id, wname))
        park(w, ref)
        report["hexes_compared"] += len(base)
        report["cold_equals_warm"] += cold == warm
        same_set = set(warm) == set(base)
        common = set(warm) & set(base)
        same_cost = same_set and all(warm[k][0] == base[k][0] for k in common)
        same_stop = same_set and all(warm[k][2] == base[k][2] for k in common)
        same_prev = same_set and all(warm[k][1] == base[k][1] for k in common)
        report["identical_sets"] += same_set
        report["identical_costs"] += same_cost
        report["identical_must_stop"] += same_stop
        report["identical_prev"] += same_prev
        if not (same_set and same_cost and same_stop and same_prev) or cold != warm:
            report["mismatches"].append({"case": i, "type": type_, "side": side, "loc": loc, "weather": wname,
                                         "engine_vs_baseline": _diff_reach(warm, base),
                                         "cold_vs_warm": _diff_reach(cold, warm) if cold != warm else None})
        for name, present in (
            ("mud", wname == "mud"),
            ("ZOC stop", any(v[2] for v in base.values())),
            ("always one hex", any(v[0] == bl.MOVE[type_] and v[2] and v[1] == loc and _entry_cost(w, loc, k, type_, wname) > bl.MOVE[type_]
                                   for k, v in base.items())),
            ("road rate used", any(v[0].denominator == 2 for v in base.values())),
            ("river crossed", any(v[1] is not None and _crosses_river(w, v[1], k) for k, v in base.items())),
            ("road across unbridged river", wname != "mud" and any(
                v[1] is not None and _crosses_river(w, v[1], k) and "road" in w.bb.edges[(v[1], k)] for k, v in base.items())),
            ("stacking blocks a hex", any(len(w.state.at.get(n, ())) >= 2 and all(w.state.units[j].side == side for j in w.state.at[n])
                                          for k in list(base) + [loc] for n in w.engine.board.neighbors(k))),
        ):
            hit[name] = hit.get(name, 0) + bool(present)
    report["all_identical"] = not report["mismatches"]
    return report


def _entry_cost(w: World, a: str, b: str, type_: str, wname: str) -> Fraction:
    bb = w.bb
    e = bb.edges.get((a, b), frozenset())
    mud = wname == "mud"
    c = bl.ROAD_COST2 if ("road" in e and not mud) else bb.terrain_cost2[b]
    if "bridge" not in e:
        c += bl.MINOR_RIVER2 * ("minor_river" in e) + bl.MAJOR_RIVER2 * ("major_river" in e)
    if mud and type_ in bl.MECHANIZED:
        c *= 2
    return Fraction(c, 2)


def _crosses_river(w: World, a: str, b: str) -> bool:
    e = w.bb.edges.get((a, b), frozenset())
    return ("minor_river" in e or "major_river" in e) and "bridge" not in e


def check_combat(w: World, n_cases: int, seed: int) -> dict:
    """Random combats, a third each in fair weather, rain and mud: the engine's crt_column, its
    allowed() and the CRT cell against the baseline's."""
    combats = random_combats(w, n_cases, seed)
    report = {"cases": n_cases, "identical_columns": 0, "identical_results": 0, "mismatches": [], "rules_hit": {}}
    hit = report["rules_hit"]
    for i, c in enumerate(combats):
        wname = WEATHERS[i % 3]
        set_weather(w.engine, w.state, wname)
        e_rank, e_codes = engine_combat(w, c)
        b_rank, b_codes = baseline_combat(w, c, wname)
        report["identical_columns"] += e_rank == b_rank
        report["identical_results"] += e_codes == b_codes
        if e_rank != b_rank or e_codes != b_codes:
            st = w.state
            report["mismatches"].append({
                "case": i, "weather": wname, "target": c.target, "terrain": w.engine.board.terrain(c.target), "roll": c.roll,
                "attackers": [(a.id, st.units[a.id].type, st.units[a.id].steps, st.units[a.id].loc, sorted(st.units[a.id].markers),
                               sorted(w.engine.board.edge(st.units[a.id].loc, c.target))) for a in c.attackers],
                "defenders": [(i_, st.units[i_].type, st.units[i_].steps, sorted(st.units[i_].markers)) for i_ in st.at[c.target]],
                "engine": (e_rank, e_codes), "baseline": (b_rank, b_codes)})
        for name in combat_rules_hit(w, c, wname):
            hit[name] = hit.get(name, 0) + 1
    set_weather(w.engine, w.state, "fair")
    report["all_identical"] = not report["mismatches"]
    return report


def _movement_world(size: int, seed: int, board=None) -> World:
    w = make_world(size, seed, board=board)
    scale = (size / 50) ** 2
    populate_movement(w, enemies=max(6, round(40 * scale)), friend_stacks=max(2, round(8 * scale)),
                      friend_singles=max(1, round(4 * scale)))
    return w


def equivalence(size: int, seed: int, n_units: int, n_combats: int, fuzz_size: int = 12) -> dict:
    """The whole check on fresh worlds: movement on a generated board with scattered units,
    combat on one with a dense block of units, and both on a small fuzz board whose hexsides
    carry random feature combinations (`make_fuzz_board`)."""
    wm = _movement_world(size, seed)
    wc = make_world(size, seed + 1)
    populate_combat(wc)
    fuzz = make_fuzz_board(fuzz_size, seed)
    fm = _movement_world(fuzz_size, seed, board=fuzz)
    fc = make_world(fuzz_size, seed + 1, board=fuzz)
    populate_combat(fc, region=(0.0, 1.0))
    return {"board": f"{size}x{size}", "movement": check_movement(wm, n_units, seed),
            "combat": check_combat(wc, n_combats, seed),
            "fuzz_board": f"{fuzz_size}x{fuzz_size}",
            "fuzz_movement": check_movement(fm, n_units, seed + 2, region=(0.0, 1.0)),
            "fuzz_combat": check_combat(fc, n_combats, seed + 2)}


def all_identical(report: dict) -> bool:
    return all(v["all_identical"] for v in report.values() if isinstance(v, dict))
