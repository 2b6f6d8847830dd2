"""A CRT attack as a player reads it (`warcodex odds` on a game with a Combat Results Table): the
raw strengths, the odds and the column with every shift, then each die face, the result it reads
on the table and what that result does to the units, and the chance of each result.

Nothing here computes a strength, a shift or a result: the combat runs as written, once per
branch of its dice (a die face, a re-roll...), with the explanation trace on (`Context.begin_trace`),
and the report is read off those traces by the kind of each step (`Derivation.kind`: a quantity,
the odds, a roll, a table lookup, a result applied). The memoised shortcuts of exact odds (a
procedure's end states, a Markov loop) are not taken here: each branch is one full, traced run,
so the report is for combats with a few dice (a CRT's one or two), not for battles of many rounds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from warcodex.interpreter.chance import NotEnumerable, RefusingRng
from warcodex.interpreter.odds import Enumerator, Scene, effect_words, leaf_summary
from warcodex.interpreter.values import Derivation, RuleError

MAX_BRANCHES = 1296  # four d6: more branches than this is a battle of rounds, not a CRT attack


@dataclass
class Line:
    """One step of the rules' derivation, as the trace wrote it, with the steps under it."""

    text: str
    citations: list[str] = field(default_factory=list)
    steps: list["Line"] = field(default_factory=list)

    @staticmethod
    def of(d: Derivation, keep_base: bool = False) -> "Line":
        steps = [Line.of(s) for s in d.steps]
        if not keep_base and len(steps) == 1 and steps[0].text.startswith("base ") and not steps[0].steps:
            steps = []  # "X = 3" then "base 3": the line says nothing new (explain.py folds it too)
        return Line(d.what, list(d.citations), steps)

    def lines(self, indent: int = 0) -> list[str]:
        cite = f" ({', '.join('§' + c for c in self.citations)})" if self.citations else ""
        out = [f"{'  ' * indent}{self.text}{cite}"]
        for s in self.steps:
            out.extend(s.lines(indent + 1))
        return out

    def to_json(self) -> dict:
        return {"text": self.text, "citations": self.citations, "steps": [s.to_json() for s in self.steps]}


@dataclass
class Face:
    """One branch of the dice: its rolls, what it read on the tables, the results applied, and
    what the combat did to the units."""

    probability: float
    rolls: list[int]  # the totals rolled, in order
    dice: list[str]  # their dice (`d6`)
    derivation: list[Line]  # between the first roll and the lookup: modifiers to the roll, other tables
    lookup: Line  # the result read on the table, with the table's sections
    result: str  # the cell read on the rolled table (`DR1`, `D1/Adv2`), "" if none was read
    column: str  # the column it was read in
    row: str  # the row (the roll after its modifiers)
    applied: list[Line]  # the results applied, with their sections
    effects: str  # what the combat did to the units
    later: list[Line] = field(default_factory=list)  # each later roll (a Determined Defense), its modifiers, its table

    def to_json(self) -> dict:
        return {"probability": self.probability, "rolls": [{"dice": d, "total": r} for d, r in zip(self.dice, self.rolls)],
                "column": self.column, "row": self.row, "result": self.result,
                "derivation": [x.to_json() for x in self.derivation], "lookup": self.lookup.to_json(),
                "applied": [x.to_json() for x in self.applied], "later_rolls": [x.to_json() for x in self.later],
                "effects": self.effects}


@dataclass
class AttackReport:
    """The attack: what the rules computed before the die, each face, each result's chance."""

    table: str  # the rolled table the result is read on (its name)
    title: str
    provenance: str  # rulebook, player_aid, derived or provisional
    provenance_note: str | None
    before: list[Line]  # strengths, odds, the column and its shifts: the same in every branch
    columns: list[str]  # the final column(s) the result was read in
    faces: list[Face]
    results: dict[str, float]  # each cell read -> its probability, most likely first

    def to_json(self) -> dict:
        return {"table": self.table, "title": self.title, "provenance": self.provenance,
                "provenance_note": self.provenance_note, "before_the_roll": [x.to_json() for x in self.before],
                "columns": self.columns, "faces": [f.to_json() for f in self.faces], "results": self.results}


class _TracingEnumerator(Enumerator):
    """Every branch one full run with the trace on: procedures and loops run as written (and traced),
    each die adds its `roll` line."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.max_runs = 4 * MAX_BRANCHES

    def roll(self, dice) -> int:
        value = super().roll(dice)
        self.ctx.trace_add(Derivation(f"roll {dice.text()}: {value}", value, kind="roll", ref=dice.text()))
        return value

    def call(self, name: str, args: tuple, run, steps=None) -> None:
        decl = self.ctx.engine.game.names.get(name)
        header = getattr(decl, "header", None)
        self.ctx.trace_open(header.label or name if header else name, header.citations if header else ())
        try:
            run()
        finally:
            self.ctx.trace_close_procedure()

    def loop(self, fr, seq, var, body, site):
        return False, None  # run as plain code, traced

    def count_loop(self, fr, low, name, var, body, site):
        return False, None  # run as plain code, traced

    def explore(self, run, state, label: str = "combat"):
        ctx = self.ctx

        def traced():
            ctx.begin_trace()
            try:
                result = run()
            finally:
                self.last_trace = ctx.end_trace()
            return result, self.last_trace

        return super().explore(traced, state, label)


def _flat(trace: list[Derivation]):
    for d in trace:
        yield d
        yield from _flat(d.steps)


def _rolled_tables(engine) -> set[str]:
    """The tables with columns whose rows are a die roll: the CRTs."""
    return {name for name, t in engine.tables.items()
            if t.decl.rows is not None and t.decl.rows.kind == "roll" and t.decl.columns is not None}


def _reads_crt(scene: Scene, crts: set[str]) -> bool:
    """One run with dice (seeded): does it read a CRT with at most four dice? A battle of rounds
    (many dice, no table) is not worth enumerating branch by branch with its trace."""
    ctx = scene.run.ctx
    original = ctx.state
    state = original.snapshot()
    state.rng = random.Random(1)
    ctx.install(state)
    ctx.begin_trace()
    try:
        scene.combat()()
    except RuleError:
        return False
    finally:
        trace = ctx.end_trace()
        ctx.install(original)
    steps = list(_flat(trace))
    return (sum(1 for d in steps if d.kind == "roll") <= 4
            and any(d.kind in ("lookup", "beyond") and d.ref in crts for d in steps))


def _later_rolls(steps: list[Derivation], crt: int, tables: set[str]) -> list[Line]:
    """After the CRT's result, each further roll (a Determined Defense, a morale check) with the
    modifiers computed before its table is read, and that lookup."""
    out: list[Line] = []
    rolls = [i for i in range(crt + 1, len(steps)) if steps[i].kind == "roll"]
    for k, i in enumerate(rolls):
        end = rolls[k + 1] if k + 1 < len(rolls) else len(steps)
        part = [steps[i]]
        for d in steps[i + 1:end]:
            if d.kind == "quantity":
                part.append(d)
            elif d.kind in ("lookup", "beyond") and d.ref in tables:
                part.append(d)
                break
        out += [Line.of(d) for d in part]
    return out


def attack_report(scene: Scene) -> AttackReport | None:
    """The report of a combat that reads its result on a rolled table with columns (a CRT), or None
    (no such table read, more branches than MAX_BRANCHES, or dice the enumerator cannot follow)."""
    ctx = scene.run.ctx
    engine = ctx.engine
    rolled = _rolled_tables(engine)
    tables = set(engine.tables)
    if not _reads_crt(scene, rolled):
        return None
    original = ctx.state
    state = original.snapshot()
    state.rng = RefusingRng()
    enum = _TracingEnumerator(ctx)
    enum.base = state
    ctx.chance = enum
    try:
        leaves = enum.explore(scene.combat(), state)
    except (NotEnumerable, RuleError):
        return None
    finally:
        ctx.chance = None
        ctx.install(original)
    if not leaves or len(leaves) > MAX_BRANCHES:
        return None
    faces: list[Face] = []
    before: list[Line] | None = None
    table = None
    for p, end, (_, trace), _, _ in leaves:
        steps = list(_flat(trace))
        first_roll = next((i for i, d in enumerate(steps) if d.kind == "roll"), None)
        if first_roll is None:
            continue
        crt = next((i for i, d in enumerate(steps) if i > first_roll and d.kind in ("lookup", "beyond")
                    and d.ref in rolled and d.value is not None), None)
        if crt is None:
            continue
        table = table or steps[crt].ref
        if before is None:  # the run is the same in every branch up to its first roll
            before = [Line.of(d) for d in steps[:first_roll] if d.kind in ("quantity", "odds", "lookup", "beyond")]
        rolls = [d for d in steps if d.kind == "roll"]
        cell = steps[crt].value
        between = [Line.of(d) for d in steps[first_roll + 1:crt] if d.kind in ("quantity", "lookup", "beyond")]
        applied = [Line.of(d) for d in steps[crt + 1:] if d.kind == "apply"]
        faces.append(Face(p, [d.value for d in rolls], [d.ref for d in rolls], between, Line.of(steps[crt]), str(cell),
                          getattr(cell, "column", ""), getattr(cell, "row", ""), applied,
                          effect_words(scene, leaf_summary(scene, end)), _later_rolls(steps, crt, tables)))
    if table is None or not faces:
        return None
    # a step every face took alike (the 8-1 attack resolved on the 7-1 column) belongs before the die
    common = [line for line in faces[0].derivation if all(line in f.derivation for f in faces[1:])]
    before = (before or []) + common
    for f in faces:
        f.derivation = [line for line in f.derivation if line not in common]
    faces.sort(key=lambda f: f.rolls)
    results: dict[str, float] = {}
    for f in faces:
        results[f.result] = results.get(f.result, 0.0) + f.probability
    decl = engine.tables[table].decl
    prov = decl.header.provenance
    return AttackReport(
        table, decl.header.label or table, prov.kind if prov is not None else "rulebook",
        prov.note if prov is not None else None, before or [],
        list(dict.fromkeys(f.column for f in faces if f.column)), faces,
        dict(sorted(results.items(), key=lambda x: -x[1])))
