"""Battle odds from the rules (`warcodex odds`): the outcome distribution of a combat, computed by
running the game's own combat procedure, exactly where the dice allow it, by Monte Carlo where not.

The position is a *scene*: a `test` block (docs/testing-rules.md) whose last line is the combat
to resolve (`fight("karelia", germany)`, `do attack(target: "1101")`); the lines before it set up
the position. Decisions inside the combat come from a policy: the scene's `answer` lines, then
"cheapest casualties first" (`--casualties cheapest`: the option with the lowest `cost`) or the
first option, as in a rule test (in Axis & Allies: press the attack, no submarine submerges).

Exact mode runs the rules with the chance oracle of chance.py on the context:

* every chance point (a die, a grouped count of hits) is a branch; a branch is explored by
  replaying the combat from its start with the outcomes chosen so far (`Enumerator.explore`);
* a `for` loop whose iterations leave nothing but the game state behind (`markov_loop` in
  compiler.py: the battle's rounds) is a Markov chain over the states between iterations, each
  state's transition enumerated once and memoised on the state (`Enumerator.loop`); the loop's
  end states are one more chance point for the code after it.

Monte Carlo mode runs the same rules with dice (`sample`), in worker processes, until the 95%
confidence half-width of every outcome is under the precision asked.
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import os
import random
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from warcodex.collector import cycle_collection_paused
from warcodex.dsl import ast
from warcodex.interpreter.chance import (
    Branch, NotEnumerable, Pending, RefusingRng, dice_distribution, hit_probability, poisson_binomial,
)
from warcodex.interpreter.compiler import STOP
from warcodex.interpreter.readlog import Difference, ReadLog, ReadMemo, copy_state, current, plain, same_rest
from warcodex.interpreter.readlog import freeze as _freeze
from warcodex.interpreter.values import Entity, RuleError, UnitRef

MAX_RUNS = 2_000_000  # replays of an exact computation before it gives up for Monte Carlo
# the engine a scene's rules run on (docs/odds.md, "The exact odds engine"): "odds", generated code
# for the rules that roll no dice and the closure compiler for the others, or "reference", the
# closure compiler alone (the evaluator the odds engine is audited against, tests/test_odds_evaluators.py)
EVALUATOR = "odds"
OUTCOMES = ("attacker wins", "defender wins", "mutual destruction", "both remain")


class TailBranch(Exception):
    """Raised by a call in tail position (see `Enumerator.call`): the leaves of the run, one per
    outcome of the call (probability, end state, rounds, rolled)."""

    def __init__(self, leaves: list) -> None:
        super().__init__("tail call")
        self.leaves = leaves


class SceneError(Exception):
    """A scene that cannot be resolved: the message, where (a Span) when known, and a hint."""

    def __init__(self, message: str, span=None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.hint = hint


# ==================================================================== the players' policy
class PolicyAgent:
    """Decides for one side inside the combat, the same way in every branch (no state of its own):
    a scene's `answer` lines are standing orders (each time a choice of that name is asked, the
    first of the answers given that applies, `rule_tests.Given.holds`: in its rounds, its
    condition true; and that is offered); otherwise, with `casualties="cheapest"`, the unit of
    lowest `cost` among unit options (the first of equal cost); otherwise the rule tests' default:
    the first option, declining an optional choice, the fewest of a subset. What an answer's
    condition reads is read by the combat (the enumerator notes it); the round is part of the
    position when an answer depends on it (`Enumerator.phase`)."""

    def __init__(self, answers, casualties: str = "first", asked: "RoundAnswers | None" = None) -> None:
        self.answers = answers  # the scene's AnswerAgent: its book and its matching of answers
        self.casualties = casualties
        self.asked = asked if asked is not None else RoundAnswers()  # where the answers by round were asked

    def _given(self, ctx, who, what):
        givens = self.answers.book.standing(who, what)
        self.asked.note(ctx, givens)
        return givens

    def _standing(self, ctx, who, what, options):
        from warcodex.interpreter.rule_tests import TestFailure

        for given in self._given(ctx, who, what):
            if isinstance(given.value, tuple) or not given.holds(ctx):
                continue
            try:
                return self.answers._match(ctx, what, given.value, options)
            except TestFailure:
                continue
        return None

    def _cost(self, ctx, ref):
        try:
            return ctx.engine.attribute(ctx, ref, "cost", None)
        except RuleError:
            raise RuleError("`--casualties cheapest` picks the unit of lowest `cost`, but "
                            f"{ctx.state.units[ref.id].type} has no `cost` property") from None

    def choose(self, ctx, who, what, options, optional):
        found = self._standing(ctx, who, what, options)
        if found is not None:
            return found
        if self.casualties == "cheapest" and options and all(isinstance(o, UnitRef) for o in options):
            costs = [self._cost(ctx, o) for o in options]
            return min(range(len(options)), key=lambda i: (costs[i], i))
        return None if optional else 0

    def choose_subset(self, ctx, who, what, options, lo, hi):
        for given in self._given(ctx, who, what):
            answer = given.value
            if isinstance(answer, tuple) and given.holds(ctx):
                picked = [i for i, o in enumerate(options) if o in answer]
                if len(picked) >= lo and (hi is None or len(picked) <= hi):
                    return picked
        return list(range(min(lo, len(options))))

    def choose_action(self, ctx, side, legal):
        return None


class RoundAnswers:
    """Where a scene's answers by round (`answer decision in round 2: ...`) were asked: inside a
    round (a pass of the combat's loop of rounds, `rule_tests.round_of`) or outside any. An answer
    by round asked only outside the rounds never applied: a CRT attack has no loop of rounds, and a
    choice may be asked before or after them. The odds would then follow the default without a
    word, so `check_answers_by_round` makes it an error. Answers are known by their line (the
    marks cross the Monte Carlo worker processes as plain sets)."""

    def __init__(self) -> None:
        self.inside: set[tuple] = set()
        self.outside: set[tuple] = set()

    @staticmethod
    def key(given) -> tuple:
        span = given.span
        return (span.file, span.line, span.column) if span is not None else (id(given),)

    def note(self, ctx, givens) -> None:
        from warcodex.interpreter.rule_tests import round_of

        marks = None
        for given in givens:
            if given.rounds is not None:
                if marks is None:
                    marks = self.outside if round_of(ctx) is None else self.inside
                marks.add(self.key(given))

    def merge(self, inside, outside) -> None:
        self.inside |= inside
        self.outside |= outside


def check_answers_by_round(scene: "Scene") -> None:
    """SceneError, located at the first answer by round the combat asked for only outside its
    rounds (see RoundAnswers): its policy was never followed."""
    from warcodex.dsl.formatter import format_expr

    book = getattr(scene.run, "book", None)
    if book is None or not book.by_rounds:
        return
    asked = scene.asked
    for (side, what), givens in book.answers.items():
        for given in givens:
            k = RoundAnswers.key(given)
            if given.rounds is None or k not in asked.outside or k in asked.inside:
                continue
            first, last = given.rounds
            when = f"in round {first}" if last == first else f"from round {first}"
            battle = scene.battle
            combat = ("do " if isinstance(battle, ast.TestDo) else "") + format_expr(battle.call)
            raise SceneError(
                f"`answer {what} {when}` never applies: the combat `{combat}` asks `{what}` only outside "
                "a loop of rounds (a round is a pass of the combat's loop of rounds, docs/odds.md; a CRT "
                "attack has none), so the odds would follow the default choice instead",
                given.span, f"drop `{when}` to answer `{what}` every time it is asked, or say when with "
                "`when CONDITION`")


# ==================================================================== the state as a key
class _Key:
    """A state key: the tuple, its hash computed once (keys are looked up many times)."""

    __slots__ = ("items", "hash")

    def __init__(self, items: tuple) -> None:
        self.items = items
        self.hash = hash(items)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other) -> bool:
        return self is other or (type(other) is _Key and self.hash == other.hash and self.items == other.items)


def state_key(state, base=None, unit_number=None) -> tuple:
    """Everything of a game state the rules can read (not its RNG, nor its version counters). With
    `base`, a state the key is relative to: only what differs from it (much cheaper on a big map,
    where a battle changes a few units and locations); `unit_number` then stands each unit record
    for a number (equal records, equal numbers: the key hashes and compares small integers, not
    every field of every record)."""
    if base is None:
        return (
            tuple(sorted(state.units.items())), _freeze(state.vars), _freeze(state.side_vars),
            _freeze(state.loc_vars), _freeze(state.loc_markers), _freeze(state.decks), _freeze(state.hands),
            _freeze(state.card_uses), _freeze(state.options), state.active, state.phase,
            state.winner, state.over,
        )

    def changed(mine: dict, theirs: dict) -> tuple:
        # (an entry shared with the base, as copies share them until written, is the same object:
        # compared by identity first, not value by value; equal dictionaries at once, in C)
        if mine is theirs or mine == theirs:
            return ()
        out = [(k, _freeze(v)) for k, v in mine.items()
               if (t := theirs.get(k, _MISSING)) is not v and t != v]
        if len(theirs) > len(mine) - len(out):
            out += [(k, _MISSING) for k in theirs.keys() - mine.keys()]
        return tuple(sorted(out, key=repr)) if len(out) > 1 else tuple(out)

    number = unit_number or (lambda u: u)
    bu = base.units
    return _Key((
        tuple(sorted((uid, number(u)) for uid, u in state.units.items() if bu.get(uid) is not u)),
        changed(state.vars, base.vars), changed(state.side_vars, base.side_vars),
        changed(state.loc_vars, base.loc_vars), changed(state.loc_markers, base.loc_markers),
        changed(state.decks, base.decks), changed(state.hands, base.hands),
        _freeze(state.card_uses), changed(state.options, base.options), state.active, state.phase,
        state.winner, state.over,
    ))


_MISSING = "<missing>"


def _frozen(value):
    """`_freeze(value)`, the value itself when it is hashable (`_freeze` changes only lists,
    dictionaries and sets, into equal tuples and frozensets): most memo keys' arguments and
    locals are names, sides and numbers, not worth a walk."""
    try:
        hash(value)
        return value
    except TypeError:
        return _freeze(value)


def _frozen_locals(values: dict, skip: tuple) -> tuple:
    """`_freeze` of a frame's locals but those named in `skip`: the sorted (name, value) pairs."""
    return _frozen(tuple(sorted((k, v) for k, v in values.items() if k not in skip)))
# what a state key holds besides the units (see state_key), compared by `_same_but_units`
_KEYED_DICTS = ("vars", "side_vars", "loc_vars", "loc_markers", "decks", "hands", "card_uses", "options")
_KEYED_FIELDS = ("active", "phase", "winner", "over")


def _same_but_units(a, b) -> bool:
    """Whether states `a` and `b` have the same key but for their units (see state_key): equal
    dictionaries (compared in C) and the same active side, phase and result."""
    for name in _KEYED_DICTS:
        x, y = getattr(a, name), getattr(b, name)
        if x is not y and x != y:
            return False
    for name in _KEYED_FIELDS:
        if getattr(a, name) != getattr(b, name):
            return False
    return True


class _After:
    """The state `start` after a difference `diff`, not built yet (`Enumerator._after`): its key,
    `number`, is known; `state` is the state once built (`Enumerator._real`)."""

    __slots__ = ("start", "diff", "number", "state")

    def __init__(self, start, diff, number: int) -> None:
        self.start, self.diff, self.number, self.state = start, diff, number, None


class _Replaced:
    """The effect of a call memoised on the whole state (`Enumerator.call`): served only to a
    start state equal to this one's, its end state is `end` itself (no difference to apply)."""

    __slots__ = ("start", "end", "_owners")

    def __init__(self, start, end) -> None:
        self.start, self.end, self._owners = start, end, None

    @property
    def owners(self) -> set:
        """What the call wrote (as `Difference.owners`), for the log of a call around it."""
        if self._owners is None:
            self._owners = Difference(self.start, self.end).owners
        return self._owners


def _reads_by_change(path: dict) -> tuple:
    """The reads of a memo entry's path (readlog addresses) by what a difference changes that may
    change them: a unit's record (its uid), a location's stack (its units' records, its entry
    in the index: `("S", h, sides)` and `("d", "at", h)`), a dictionary entry, a whole dictionary
    (`("d", name, "*")`), the rest of the state (`("rest",)`)."""
    units: dict = {}
    places: dict = {}
    entries: dict = {}
    whole: dict = {}
    rest = []
    for addr in path:
        kind = addr[0]
        if kind == "u":
            units.setdefault(addr[1], []).append(addr)
        elif kind == "S":
            places.setdefault(addr[1], []).append(addr)
        elif kind == "d":
            if addr[2] == "*":
                whole.setdefault(addr[1], []).append(addr)
            elif addr[1] == "at":
                places.setdefault(addr[2], []).append(addr)
            else:
                entries[(addr[1], addr[2])] = addr
        else:  # ("rest",); a whole state read never gets here (its entries are not siblings)
            rest.append(addr)
    return units, places, entries, whole, rest


def _changed_reads(index: tuple, parent, diff) -> list:
    """The reads of a path (indexed by `_reads_by_change`) that `diff` (a Difference) may change
    when put over `parent`: those of the units it puts or removes, of the stacks where those units
    stood in `parent` or stand now, of the index entries and unit moves it makes, of the
    dictionary entries it writes and the dictionaries it changes, and the rest if it changes it."""
    units, places, entries, whole, rest = index
    out = []
    locations = set()
    before = parent.units
    for uid, u in diff.units:
        out += units.get(uid, ())
        old = before.get(uid)
        if old is not None:
            locations.add(old.loc)
        if u is not None:
            locations.add(u.loc)
    if diff.units:
        out += whole.get("units", ())
    names = set()
    for name, k, _ in diff.entries:
        names.add(name)
        if name == "at":
            locations.add(k)
        else:
            addr = entries.get((name, k))
            if addr is not None:
                out.append(addr)
    for _, src, dst in diff.moves:
        names.add("at")
        locations.add(src)
        locations.add(dst)
    for name in names:
        out += whole.get(name, ())
    for h in locations:
        out += places.get(h, ())
    if diff.rest:
        out += rest
    return out


# ==================================================================== exact: the enumerator
class Enumerator:
    """The chance oracle of an exact computation (see the module docstring)."""

    def __init__(self, ctx, shortcuts: bool = True) -> None:
        self.ctx = ctx
        # False: every branch is replayed from the start of its call or loop iteration, as in the
        # plain enumeration (no statement chain, no tail leaves, no lazy count loop): the
        # reference the shortcuts are tested against
        self.shortcuts = shortcuts
        self.prefix: tuple[int, ...] = ()
        self.pos = 0
        self.rolled = False  # a chance point was met in the current run (a round was fought)
        self.depth = 0  # nesting of Markov loops being computed
        self.rounds: dict = {0: 1.0}  # rounds fought (outermost Markov loop): their distribution
        self.base = ctx.state  # states are keyed by what differs from this one
        self.loops: dict = {}  # (loop, state, locals) -> its end states
        self.transitions: dict = {}  # (loop, state, locals) -> one iteration's outcomes
        self.calls: dict = {}  # (procedure, arguments) -> its effects, keyed on what it read (readlog.py)
        self.forced: dict = {}  # id(pending count) -> (it, its value in the current run)
        self.iterated: dict = {}  # a lazy count loop's states, in the current explore: see count_loop
        self.iterations: dict = {}  # (loop, state, locals, phase) -> one lazy count loop iteration: _iteration
        self.iteration_memos: dict = {}  # (loop, locals, phase) -> its iterations' effects, keyed on their reads
        self.tail_ok = False  # the statement running is the last thing of its run (compiler `block`)
        self.tail_next = False  # the procedure being called is (compiler `_s_CallStmt`)
        self.statements: dict = {}  # (procedure, arguments, statement, state, depth, phase) -> its outcomes: _sequence
        self.log: ReadLog | None = None  # the reads of the procedure call being enumerated
        self.call_hits = 0  # calls served by the memo on reads
        self.same: dict = {}  # (call, id(start state)) -> (start state, its memo entry): see explore
        self.counts: dict = {}  # (outcomes before, counts before) -> a grouped count: see known_count
        self.ncount = 0  # grouped counts met in the current replay
        self.applied: dict = {}  # (id(start state), id(difference)) -> (start state, the state after)
        self.origin = self.installed = None  # the state installed (a copy of origin) and its version
        self.installed_version = -1
        self.interned: dict = {}  # state key -> its number (see key())
        self.key_items: list = []  # number -> the state key's items
        self.unit_numbers: dict = {}  # unit record -> its number in state keys: see _unit_number
        self.unit_ids: dict = {}  # id(unit record) -> (the record, its number)
        self.keyed: dict = {}  # id(state) -> (state, version, winner, over, its key): see key()
        self.patches: dict = {}  # id(difference) -> (it, its unit records as key numbers): _number_after
        self.derived: dict = {}  # id(state) -> (state, parent, difference): built as parent + difference
        self.siblings: dict = {}  # (call memo key, id(parent)) -> (parent, entry, difference): _sibling_entry
        self.path_index: dict = {}  # id(path) -> (path, its reads by what changes them): _sibling_entry
        self.runs = 0  # replays made (a measure of the work)
        self.max_runs = MAX_RUNS
        self.work: dict[str, int] = {}  # replays by what was replayed (a procedure, a loop's body)
        self.tables_read: set[str] = set()
        self.round: int | None = None  # the pass of the outermost Markov loop being run (rule_tests.round_of)
        self.book = None  # the scene's answers, when some depend on the round (see phase)

    @property
    def phase(self) -> int | None:
        """The round as far as the scene's answers tell rounds apart (None when none depends on
        it): part of every memo key, since the same state may be answered otherwise in another
        round."""
        return self.book.phase(self.round) if self.book is not None else None

    # ------------------------------------------------------------ chance points
    def _next(self, outcomes: list) -> int:
        self.rolled = True
        if len(outcomes) == 1:
            return 0
        if self.pos < len(self.prefix):
            i = self.prefix[self.pos]
            self.pos += 1
            return i
        raise Branch(outcomes)

    def roll(self, dice) -> int:
        outcomes = sorted(dice_distribution(dice).items())
        return outcomes[self._next(outcomes)][0]

    def known_count(self, lazy: bool):
        """The grouped count met at this point of the branch by an earlier replay of it, or None:
        the chance points before it took the same outcomes, so it counts the same dice (its list
        and conditions are not evaluated again; their reads were noted the first time)."""
        pending = self.counts.get((self.prefix[:self.pos], self.ncount))
        if pending is None:
            return None
        self.ncount += 1
        return pending if lazy else self.force(pending)

    def count(self, dice, op: str, bounds: list, lazy: bool):
        dist = poisson_binomial([hit_probability(dice, op, b) for b in bounds])
        pending = Pending(dist, 0, frozenset([object()]))
        self.counts[(self.prefix[:self.pos], self.ncount)] = pending
        self.ncount += 1
        return pending if lazy else self.force(pending)

    def force(self, pending: Pending) -> int:
        """The value of a pending count in this branch (the same wherever the run reads it: a
        count passed to a procedure is read in two frames)."""
        known = self.forced.get(id(pending))
        if known is not None and known[0] is pending:
            return known[1]
        outcomes = pending.outcomes()
        value = outcomes[self._next(outcomes)][0]
        self.forced[id(pending)] = (pending, value)
        return value

    def count_loop(self, fr, low, name: str, var: str, body, site) -> tuple[bool, object]:
        """`for var in range(low, name)` where `name` is a pending count, the body rolling no dice
        and leaving nothing but the game state (compiler `_s_For`): the iterations are run once
        for the largest value (and kept for this explore, keyed on the state, the locals and what
        the run has written), each value of the count an outcome whose state is the one after
        its number of iterations. A battle's casualties are thus chosen once for every number
        of hits that reaches them, not once per number of hits. Returns (done, result)."""
        pending = fr.vars[name]
        known = self.forced.get(id(pending))
        if known is not None and known[0] is pending:
            fr.vars[name] = known[1]
            return False, None
        if not self.shortcuts or type(low) is not int or any(type(v) is Pending for k, v in fr.vars.items() if k != name):
            return False, None
        outcomes = pending.outcomes()
        tail = self.tail_ok
        log = self.log
        start = self._start()
        key = (id(site), self.key(start), low, _frozen_locals(fr.vars, (name, var)),
               (frozenset(log.written), frozenset(log.moved), tuple(log.moves)) if log is not None else None,
               log.all_read if log is not None else None, self.phase)
        found = self.iterated.get(key)
        computed = found is None
        if computed:
            # (state, written, stopped) after 0, 1, 2... iterations; each kept as it is (the run
            # goes on from a copy of it). An iteration that changes nothing (no target left for
            # the hit) leaves the same state and locals to the next one, which does the same (the
            # body does not read the loop variable): the iterations stop there, `idle`, and every
            # larger count ends in the last state
            steps = [(start, log.mark() if log is not None else None, False)]
            idle = False
            ctx = self.ctx
            self.tail_ok = False
            locals_key = key[3]
            try:
                for x in range(low, max(v for v, _ in outcomes) + 1):
                    ctx.tick(site.span)
                    before = steps[-1][0]
                    after, stopped = self._iteration(fr, var, x, body, site, before, locals_key)
                    if not stopped and after is before:
                        idle = True
                        break
                    steps.append((after, log.mark() if log is not None else None, stopped))
                    if stopped:
                        break
            finally:
                self.tail_ok = tail
            found = self.iterated[key] = (steps, idle)
        steps, idle = found
        if tail and self.pos >= len(self.prefix) and len(outcomes) > 1 and not steps[-1][2]:
            # nothing runs after the loop: each value of the count is a leaf of the run, no replay
            self.rolled = True
            raise TailBranch([(p, steps[min(max(0, v - low + 1), len(steps) - 1)][0], self.rounds, True)
                              for v, p in outcomes])
        value = outcomes[self._next(outcomes)][0]
        self.forced[id(pending)] = (pending, value)
        fr.vars[name] = value
        iterations = max(0, value - low + 1)
        n = min(iterations, len(steps) - 1)
        state, written, stopped = steps[n]
        if n > 0:
            fr.vars[var] = low + (iterations if idle else n) - 1  # (after a `stop`, its iteration's)
        if computed or n > 0:
            self._run_from(state)
            if log is not None:
                log.restore(written)
        return True, (STOP if stopped else None)

    def _iteration(self, fr, var: str, x, body, site, start, locals_key) -> tuple[object, bool]:
        """One iteration of a lazy count loop from `start` (plain, kept as it is): (the state after
        it, whether it stopped); `start` itself when it changed nothing. The body does not read
        the loop variable (compiler `markov_loop`), so an iteration is the same whatever its
        number. Its effect is memoised for the whole computation on what it read (readlog.py, as
        `call` memoises a procedure) and applied as a difference: the n-th casualty taken from
        the defender's units at the battle depends on those units (read as one value, the units
        of the defending sides there: compiler `side_filter`), not on the attacker's, so the
        casualties are chosen once for every attacking force facing the same defenders. A
        start state met before is served from a memo by its key (`iterations`), without a
        lookup of its reads. What the iteration read and wrote is noted in the log of the call
        around it, as if it had run there."""
        front = (id(site), self.key(start), locals_key, self.phase)
        found = self.iterations.get(front)
        if found is None:
            memo_key = (id(site), locals_key, self.phase)
            memo = self.iteration_memos.get(memo_key)
            if memo is None:
                memo = self.iteration_memos[memo_key] = ReadMemo()
            entry = memo.lookup(lambda addr: current(start, addr, self.key))
            if entry is None:
                outer, self.log = self.log, ReadLog(self.key)
                try:
                    self._run_from(start, begin=True)
                    fr.vars[var] = x
                    stopped = body(fr) is STOP
                    inner = self.log
                    path = inner.reads
                finally:
                    self.log = outer
                end = self._start()
                diff = None if end is start else Difference(start, end, inner)
                if diff is not None and not (diff.units or diff.entries or diff.rest):
                    diff = None
                entry = (path, (diff, stopped))
                memo.insert(path, (diff, stopped))
                label = f"loop at line {site.span.line}, iterations" if site.span else "loop iterations"
                self.work[label] = self.work.get(label, 0) + 1  # (runs of its body; not replays)
            path, (diff, stopped) = entry
            end = start if diff is None else self._real(self._after(start, diff))
            found = self.iterations[front] = (end, stopped, path, diff)
        end, stopped, path, diff = found
        log = self.log
        if log is not None:  # what the iteration read, the run around it read
            log.merge(path)
            if diff is not None:
                log.served(diff)
        fr.vars[var] = x
        return end, stopped

    # ------------------------------------------------------------ branches
    def key(self, state) -> tuple:
        """The state's key, interned: a number, the same for equal states, so the dictionaries of
        the chains and memos compare numbers, not unit record by unit record. A state keyed before
        is not keyed again (the states the enumerator keeps are not changed any more: an end
        state is met by the run that reached it, the call merging its leaves and the chain
        merging its outcomes; a state still running is changed with a new version, or by `win`)."""
        known = self._known_key(state)
        if known is not None:
            return known
        return self._intern(state, state_key(state, self.base, self._unit_number))

    def key_from(self, start, state) -> int:
        """`key(state)` for a state a run reached from `start` (a state the enumerator keeps, keyed):
        when the two have equal dictionaries of variables, markers, decks and options and the same
        active side, phase and result (most runs of a combat change units only), the key is the
        start's with the unit records that differ put in it, not computed from every unit and
        every dictionary again (`state_key` would find the same: it keys units and dictionaries
        apart, relative to the base)."""
        known = self._known_key(state)
        if known is not None:
            return known
        if type(start) is _After:
            start = start.state
        if start is None or not _same_but_units(start, state):
            return self.key(state)
        items = self.key_items[self.key(start)]
        units = dict(items[0])
        before, base, number = start.units, self.base.units, self._unit_number
        for uid, u in state.units.items():
            if before.get(uid) is not u:
                if base.get(uid) is u:
                    units.pop(uid, None)
                else:
                    units[uid] = number(u)
        for uid in before.keys() - state.units.keys():
            units.pop(uid, None)
        return self._intern(state, _Key((tuple(sorted(units.items())),) + items[1:]))

    def _known_key(self, state):
        """The key of `state` when it was keyed before and has not changed since, else None."""
        if type(state) is _After:
            return state.number
        hit = self.keyed.get(id(state))
        if hit is not None and hit[0] is state and hit[1] == state.version and hit[2] == state.winner \
                and hit[3] == state.over:
            return hit[4]
        return None

    def _real(self, state):
        """The state itself: built now if it is a state after a difference not built yet
        (`_after`), keyed with the number its handle knows."""
        if type(state) is not _After:
            return state
        built = state.state
        if built is None:
            built = state.state = state.diff.apply(state.start)
            self.keyed[id(built)] = (built, built.version, built.winner, built.over, state.number)
            self.derived[id(built)] = (built, state.start, state.diff)
        return built

    def _unit_number(self, u) -> int:
        """The number standing for unit record `u` in state keys: found by identity (the states
        of an enumeration share their records), else by value, once per record object."""
        hit = self.unit_ids.get(id(u))
        if hit is not None and hit[0] is u:
            return hit[1]
        n = self.unit_numbers.get(u)
        if n is None:
            n = self.unit_numbers[u] = len(self.unit_numbers)
        self.unit_ids[id(u)] = (u, n)  # (the record kept alive: its id is not reused)
        return n

    def _intern(self, state, k: "_Key") -> int:
        number = self.interned.get(k)
        if number is None:
            number = self.interned[k] = len(self.key_items)
            self.key_items.append(k.items)
        self.keyed[id(state)] = (state, state.version, state.winner, state.over, number)
        return number

    def _number_after(self, start, diff) -> int | None:
        """The key of the state `start` after a call's difference `diff`, from the key of `start`,
        when the difference changed unit records only (and the index of where they are): the
        records it put replace those of the start's key, as `state_key` would find them; None
        otherwise."""
        patch = self.patches.get(id(diff))
        if patch is None or patch[0] is not diff:
            # (the records the difference puts, as the numbers standing for them in keys; None for
            # a record removed or the base's own: made once per difference, which is served to
            # many start states)
            if diff.rest or any(name != "at" for name, _, _ in diff.entries):
                puts = None
            else:
                base = self.base.units
                puts = tuple((uid, None if u is None or base.get(uid) is u else self._unit_number(u))
                             for uid, u in diff.units)
            patch = self.patches[id(diff)] = (diff, puts)
        puts = patch[1]
        if puts is None:
            return None
        items = self.key_items[self.key(start)]
        units = dict(items[0])
        for uid, n in puts:
            if n is None:
                units.pop(uid, None)
            else:
                units[uid] = n
        k = _Key((tuple(sorted(units.items())),) + items[1:])
        found = self.interned.get(k)
        if found is None:
            found = self.interned[k] = len(self.key_items)
            self.key_items.append(k.items)
        return found

    def explore(self, run, state, label: str = "combat", tail: bool = False) -> list[tuple[float, object, object, dict, bool]]:
        """Every branch of `run()` from `state`: (probability, end state, result, rounds, rolled);
        rounds: the distribution of the number of rounds of the outermost Markov loop met.
        `tail`: nothing follows `run` (a procedure's body, a statement, a loop's iteration: not a
        scene's action, after which the engine goes on); then a call of a procedure that may roll
        ending it (`call`) or a lazy loop over a pending count ending it (count_loop)
        gives its outcomes as leaves, without a replay each."""
        saved = (self.prefix, self.pos, self.rolled, self.rounds, self.ctx.steps, self.same, self.applied,
                 self.counts, self.ncount, self.forced, self.iterated, self.tail_ok, self.tail_next)
        # a call made from a state every replay reaches alike (the start, or the same end of the
        # same call before) is looked up once per explore, by the state's identity; a grouped
        # count met again at the same point of a branch is not counted again (known_count)
        self.same, self.applied, self.counts, self.iterated = {}, {}, {}, {}
        leaves = []
        # the values of pure rules computed in `state` stay valid in every replay from it: the
        # context starts a new memo when the state changes, leaving these ones as they were
        memos: tuple[dict, dict] = ({}, {})
        stack: list[tuple[tuple[int, ...], float]] = [((), 1.0)]
        try:
            while stack:
                prefix, p = stack.pop()
                self.prefix, self.pos, self.rolled, self.rounds, self.ncount = prefix, 0, False, {0: 1.0}, 0
                self.forced = {}
                self.tail_ok, self.tail_next = tail and self.shortcuts, False
                self._run_from(state, memos, begin=True)
                self.ctx.steps = 0  # the step limit bounds each replay; MAX_RUNS bounds their number
                self.runs += 1
                if self.runs % _COLLECT_EVERY == 0:
                    gc.collect()  # (automatic collection is paused: `exact`)
                self.work[label] = self.work.get(label, 0) + 1
                if self.runs > self.max_runs:
                    raise NotEnumerable(f"more than {self.max_runs:,} branches to replay")
                try:
                    result = run()
                except Branch as b:
                    for i, (_, q) in enumerate(b.outcomes):
                        stack.append((prefix + (i,), p * q))
                    continue
                except TailBranch as t:
                    leaves += [(p * q, end, None, hist, rolled) for q, end, hist, rolled in t.leaves]
                    continue
                leaves.append((p, plain(self.ctx.state), result, self.rounds, self.rolled))
        finally:
            (self.prefix, self.pos, self.rolled, self.rounds, self.ctx.steps, self.same, self.applied,
             self.counts, self.ncount, self.forced, self.iterated, self.tail_ok, self.tail_next) = saved
        return leaves

    def _run_from(self, start, memos=None, begin: bool = False) -> None:
        """Go on from a copy of `start` (plain, kept as it is): a recording view while a procedure
        call's reads are noted (`begin`: a new run of that call)."""
        if begin and self.log is not None:
            self.log.begin_run(start)
        state = copy_state(start, self.log)
        self.ctx.install(state, memos)
        self.origin, self.installed, self.installed_version = start, state, state.version

    def _start(self):
        """The current state, plain; the state it was copied from if nothing changed since."""
        st = self.ctx.state
        if st is self.installed and st.version == self.installed_version and same_rest(st, self.origin):
            return self.origin
        return plain(st)

    def loop(self, fr, seq, var: str, body, site) -> tuple[bool, object]:
        """A Markov loop (compiler.markov_loop): its end states, computed once per start state;
        the branch taken picks one. Returns (True, the loop's result)."""
        if any(type(v) is Pending for v in fr.vars.values()):
            return False, None  # a pending count read in the body: run it as plain code
        locals_key = _frozen_locals(fr.vars, (var,))
        start = self._start()
        start_key = self.key(start)
        outer = self.log
        if outer is not None:
            outer.everything()  # keyed on the whole state: the loop read all of it
        key = (id(site), start_key, locals_key, len(seq), self.phase)
        ends = self.loops.get(key)
        if ends is None:
            self.log = None  # the chain's runs start from other states: not reads of this run's
            try:
                ends = self._chain(fr, seq, var, body, site, start, locals_key)
            finally:
                self.log = outer
            self.loops[key] = ends
        saved_rolled = self.rolled
        index = self._next([(i, end[0]) for i, end in enumerate(ends)])
        p, end, stopped, rounds, rolled = ends[index]
        self.rolled = saved_rolled or rolled
        self._run_from(end)
        if self.depth == 0:
            self.rounds = rounds
        return True, (STOP if stopped else None)

    def call(self, name: str, args: tuple, run, steps=None) -> None:
        """A procedure that may roll: its effect is a distribution over end states (it returns
        nothing), computed once per (procedure, arguments, what its runs read: readlog.py) and
        applied as differences; the branch taken picks one. `steps`: (statements, a new frame of
        the call) when its body passes nothing but the game state from one statement to the
        next (compiler.sequence_steps): it is then enumerated statement by statement (`_sequence`)."""
        tail = self.tail_ok  # nothing follows this call in the run (compiler: `block`, `_s_CallStmt`)
        start = self._start()
        memo_key = (name, _frozen(args), self.phase)
        memo = self.calls.get(memo_key)
        if memo is None:
            memo = self.calls[memo_key] = ReadMemo()
        same = self.same.get((memo_key, id(start)))
        if same is not None and same[0] is start:
            found = same[1]
        else:
            found = self._sibling_entry(memo_key, start)
            if found is None:
                found = memo.lookup(lambda addr: current(start, addr, self.key))
        if found is None:
            outer, self.log = self.log, ReadLog(self.key)
            try:
                if steps is not None and self.shortcuts:
                    # each statement's transitions are memoised on whole states (and the round's
                    # phase, when an answer depends on the round): the call read all of its start
                    # state
                    self.log.begin_run(start)
                    self.log.everything()
                    path = self.log.reads
                    self.log = None  # the statements' runs start from other states
                    leaves = self._sequence(name, memo_key[1], steps, start)
                else:
                    leaves = self.explore(run, start, name, tail=True)
                    path = self.log.reads
            finally:
                self.log = outer
            merged: dict = {}
            for p, end, _, hist, rolled in leaves:
                k = self.key_from(start, end)
                slot = merged.get(k)
                if slot is None:
                    slot = merged[k] = [0.0, self._real(end), {}, False]
                slot[0] += p
                for r, pr in hist.items():
                    slot[2][r] = slot[2].get(r, 0.0) + p * pr
                slot[3] = slot[3] or rolled
            # keyed on the whole state (a statement chain, a Markov loop inside), a later call
            # is served from an equal state only: its end states are these very ones
            change = _Replaced if ("*",) in path else Difference
            ends = [(p, change(start, end), {r: w / p for r, w in hist.items()}, rolled)
                    for p, end, hist, rolled in merged.values() if p > 0]
            if change is Difference:
                # a stack the runs changed by moving units is put back as a whole entry: the
                # entry is read (a run moving units in it did not note it: readlog index_move)
                for _, diff, _, _ in ends:
                    for name, k, _ in diff.entries:
                        if name == "at":
                            path.setdefault(("d", "at", k), current(start, ("d", "at", k), self.key))
            found = (path, ends)
            memo.insert(path, ends)
        else:
            self.call_hits += 1
        self.same[(memo_key, id(start))] = (start, found)
        derived = self.derived.get(id(start))
        if derived is not None and derived[0] is start and ("*",) not in found[0]:
            self.siblings[(memo_key, id(derived[1]))] = (derived[1], found, derived[2])
        path, ends = found
        if self.log is not None:  # what the call read, the caller read (whichever branch is taken)
            self.log.merge(path)
        if tail and self.pos >= len(self.prefix) and len(ends) > 1:
            # nothing runs after this call: each of its outcomes is a leaf of the run, no replay
            raise TailBranch([(p, self._after(start, diff), hist if self.depth == 0 else self.rounds,
                               self.rolled or rolled) for p, diff, hist, rolled in ends])
        saved_rolled = self.rolled
        index = self._next([(i, e[0]) for i, e in enumerate(ends)])
        p, diff, hist, rolled = ends[index]
        if self.log is not None:
            self.log.served(diff)
        self.rolled = saved_rolled or rolled
        self._run_from(self._applied(start, diff))
        if self.depth == 0:
            self.rounds = hist

    def _sibling_entry(self, memo_key, start):
        """The memo entry of a call from `start` found without walking the memo's trie, when
        `start` was built as `parent` + a difference D (`_real`) and the call was last made from
        another state built from the same `parent`, parent + D' (a sibling: the states after the
        attacker's fire from one battle position, where the defender fires). That entry's reads
        all had their values in parent + D'; a read neither D nor D' changes has the same value
        in parent, parent + D' and parent + D; so the entry holds for `start` if each of its reads
        that D or D' may have changed has its value in `start` (checked). None otherwise (the
        trie is walked)."""
        derived = self.derived.get(id(start))
        if derived is None or derived[0] is not start:
            return None
        _, parent, diff = derived
        sibling = self.siblings.get((memo_key, id(parent)))
        if sibling is None or sibling[0] is not parent:
            return None
        found, other = sibling[1], sibling[2]
        path = found[0]
        index = self.path_index.get(id(path))
        if index is None or index[0] is not path:
            index = self.path_index[id(path)] = (path, _reads_by_change(path))
        index = index[1]
        key = self.key
        for d in (diff, other) if other is not diff else (diff,):
            for addr in _changed_reads(index, parent, d):
                if current(start, addr, key) != path[addr]:
                    return None
        return found

    def _applied(self, start, diff):
        """The state `start` after a call's difference `diff` (computed once per explore)."""
        return self._real(self._after(start, diff))

    def _after(self, start, diff):
        """The state `start` after a call's difference `diff`, as a handle (`_After`) whose key is
        known and whose state is built only where it is kept (`_real`): of the ~15,000 outcomes of
        the defender's fire served to the states after the attacker's (the issue's battle), a few
        thousand are distinct states; the others are merged by key and never built. Where the key
        cannot be told from the start's, the state itself. Once per explore."""
        if type(diff) is _Replaced:
            return diff.end
        applied = self.applied.get((id(start), id(diff)))
        if applied is None or applied[0] is not start:
            number = self._number_after(start, diff)
            end = diff.apply(start) if number is None else _After(start, diff, number)
            applied = self.applied[(id(start), id(diff))] = (start, end)
        return applied[1]

    def _sequence(self, name: str, frozen_args, steps, start) -> list[tuple[float, object, object, dict, bool]]:
        """The leaves of a procedure call run statement by statement: a chain over the states
        between its statements, the states reached by several branches merged after each, and
        each statement's outcomes from a state computed once for the whole computation (a later
        statement thus runs once per distinct state, not once per branch; the states after a
        battle round's fire and casualties recur from many states before it)."""
        statements, frame = steps
        live = {self.key(start): [start, {0: 1.0}, False]}  # key -> [state, {rounds: weight}, rolled]
        ended: list = []
        for index, (stmt, compiled) in enumerate(statements):
            if not live:
                break
            nxt: dict = {}
            for k, (st, hist, rolled) in live.items():
                # (the common case, one rounds count before and in the statement: no histogram
                # built for each outcome, the same sums)
                single = next(iter(hist.items())) if len(hist) == 1 else None
                for k2, st2, stopped, q, hist2, rolled2 in self._statement(name, frozen_args, index, stmt, compiled,
                                                                              frame, k, st):
                    if single is not None and len(hist2) == 1 and not stopped:
                        (r2, w2), = hist2.items()
                        r = single[0] + r2
                        w = single[1] * w2 * q
                        slot = nxt.get(k2)
                        if slot is None:
                            nxt[k2] = [st2, {r: w}, rolled or rolled2]
                        else:
                            target = slot[1]
                            target[r] = target.get(r, 0.0) + w
                            slot[2] = slot[2] or rolled or rolled2
                        continue
                    combined: dict = {}
                    for r, w in hist.items():
                        for r2, w2 in hist2.items():
                            combined[r + r2] = combined.get(r + r2, 0.0) + w * w2 * q
                    if stopped:
                        ended.append((st2, combined, rolled or rolled2))
                        continue
                    slot = nxt.get(k2)
                    if slot is None:
                        nxt[k2] = [st2, combined, rolled or rolled2]
                    else:
                        for r, w in combined.items():
                            slot[1][r] = slot[1].get(r, 0.0) + w
                        slot[2] = slot[2] or rolled or rolled2
            live = nxt
        ended += live.values()
        leaves = []
        for st, hist, rolled in ended:
            p = sum(hist.values())
            leaves.append((p, st, None, {r: w / p for r, w in hist.items()} if p > 0 else hist, rolled))
        return leaves

    def _statement(self, name, frozen_args, index, stmt, compiled, frame, k, st) -> list:
        """One statement of a procedure run from state `st` (key `k`): its outcomes (end state key,
        end state, stopped the procedure, probability, rounds distribution, rolled), computed once
        per (procedure, arguments, statement, state, depth, round's phase) for the whole
        computation (the same state may be answered otherwise in another round: `phase`)."""
        memo_key = (name, frozen_args, index, k, self.depth > 0, self.phase)
        found = self.statements.get(memo_key)
        if found is not None:
            return found
        label = f"{name}, line {stmt.span.line}" if stmt.span else name
        merged: dict = {}
        st = self._real(st)  # (a state kept by its key alone until a statement runs from it)
        for p, end, result, hist, rolled in self.explore(lambda: compiled(frame()), st, label, tail=True):
            k2 = self.key_from(st, end)
            stopped = result is STOP
            slot = merged.get((k2, stopped))
            if slot is None:
                slot = merged[(k2, stopped)] = [k2, end, stopped, 0.0, {}, False]  # (built where needed)
            slot[3] += p
            for r, w in hist.items():
                slot[4][r] = slot[4].get(r, 0.0) + p * w
            slot[5] = slot[5] or rolled
        out = []
        for k2, end, stopped, p, hist, rolled in merged.values():
            if p > 0:
                out.append((k2, end, stopped, p, {r: w / p for r, w in hist.items()}, rolled))
        self.statements[memo_key] = out
        return out

    def _chain(self, fr, seq, var, body, site, start, locals_key) -> list:
        """The end states of the loop from `start`: (p, state, stopped, rounds, rolled), rounds
        the distribution of the iterations that met a chance point, given that end."""
        outermost = self.depth == 0
        self.depth += 1
        saved_round = self.round
        try:
            states = {self.key(start): start}  # state key -> the state
            # live states by rounds fought so far: {rounds: {state key: probability}} (in the common
            # case, every pass fought a round, one group: a pass moves each state's probability
            # along its moves with one dictionary update a move, not a histogram per state)
            live = {0: {self.key(start): 1.0}}
            ended: dict = {}  # (state key, stopped) -> [state, stopped, {rounds: probability}]
            any_roll = False
            # a live state's moves in a pass, made once per (state, settled, phase) from its
            # memoised transition: ((rounds added, ((target key, q), ...)), ...) to live states of
            # the next pass, and (the end's rounds dict, q, rounds added) to ends
            moves: dict = {}
            for i, x in enumerate(seq):
                if not live:
                    break
                if outermost:
                    self.round = i + 1
                # a state no pass changes stays so for ever, unless the answers differ next round
                settled = self.book is None or not outermost or self.book.phase(i + 2) == self.phase
                phase = self.phase
                nxt: dict = {}
                for r, group in live.items():
                    for k, w in group.items():
                        made = moves.get((k, settled, phase))
                        if made is None:
                            onward: dict = {}  # rounds added -> [(target key, q)]
                            ends = []
                            for k2, st2, stopped, q, rolled in self._transition(fr, var, x, body, site, k, states[k],
                                                                                locals_key):
                                any_roll = any_roll or rolled
                                step = 1 if rolled else 0
                                # stopped, or the same for ever: an end; else a live state of the next pass
                                if stopped or (settled and k2 == k and q >= 1.0 - 1e-12):
                                    if (k2, stopped) not in ended:
                                        ended[(k2, stopped)] = [st2, stopped, {}]
                                    # (an end's target is its own rounds dict, the same for every pass)
                                    ends.append((ended[(k2, stopped)][2], q, step))
                                else:
                                    states.setdefault(k2, st2)
                                    onward.setdefault(step, []).append((k2, q))
                            made = moves[(k, settled, phase)] = (tuple((st, tuple(ts)) for st, ts in onward.items()),
                                                                 tuple(ends))
                        onward, ends = made
                        for target, q, step in ends:
                            rs = r + step
                            target[rs] = target.get(rs, 0.0) + w * q
                        for step, targets in onward:
                            acc = nxt.get(r + step)
                            if acc is None:
                                acc = nxt[r + step] = {}
                            for k2, q in targets:
                                acc[k2] = acc.get(k2, 0.0) + w * q
                live = nxt
            for r, group in live.items():
                for k, w in group.items():
                    target = ended.setdefault((k, False), [states[k], False, {}])[2]
                    target[r] = target.get(r, 0.0) + w
            out = []
            for st, stopped, hist in ended.values():
                p = sum(hist.values())
                out.append((p, st, stopped, {r: w / p for r, w in hist.items()} if p > 0 else hist, any_roll))
            return out
        finally:
            self.depth -= 1
            self.round = saved_round

    def _transition(self, fr, var, x, body, site, k, st, locals_key) -> list:
        memo_key = (id(site), k, locals_key, self.phase)
        found = self.transitions.get(memo_key)
        if found is not None:
            return found

        def iteration():
            fr.vars[var] = x
            return body(fr)

        merged: dict = {}
        for p, end, result, _, rolled in self.explore(iteration, st, f"loop at line {site.span.line}" if site.span else "loop",
                                                      tail=True):
            k2 = self.key_from(st, end)
            stopped = result is STOP
            slot = merged.get((k2, stopped))
            if slot is None:
                slot = merged[(k2, stopped)] = [k2, self._real(end), stopped, 0.0, rolled]
            slot[3] += p
            slot[4] = slot[4] or rolled
        out = [tuple(v) for v in merged.values()]
        self.transitions[memo_key] = out
        return out


# ==================================================================== the scene
@dataclass
class Scene:
    """A scene ready to resolve: its test run (position, players), the combat line, the sides."""

    run: object  # rule_tests._TestRun, its lines before the combat run
    battle: ast.Node
    attacker: str
    participants: dict[int, object]  # unit id -> its record at the start of the combat
    provisional: list[tuple] = field(default_factory=list)  # (table name or None, what and why)
    asked: RoundAnswers = field(default_factory=RoundAnswers)  # its players' answers by round, where asked
    warnings: list = field(default_factory=list)  # the checker's warnings about the scene's own lines

    def provisional_used(self, tables_read) -> list[str]:
        """The provisional data the combat used: the tables it read, the values of its units."""
        return [text for table, text in self.provisional if table is None or table in tables_read]

    def combat(self):
        """A function running the combat line once on the run's context."""
        run, item = self.run, self.battle
        if isinstance(item, ast.TestDo):
            return lambda: run.apply_action(item.call, item.span)
        stmt = run.engine.reference.stmt(item, set(run.scope), False)
        return lambda: stmt(run.fr)


def load_scene(game_path, scene_file, name: str | None = None, casualties: str = "first",
               evaluator: str = EVALUATOR, overlays=()) -> Scene:
    """Check the game with the scene file, run the scene's set-up lines and return it. Errors in the
    rules or the scene raise DiagnosticError (located, with a caret)."""
    from warcodex.dsl.checker import check_path
    from warcodex.dsl.diagnostics import DiagnosticError
    from warcodex.interpreter.rule_tests import RuleTestRunner, TestFailure, _TestRun

    scene_file = Path(scene_file)
    if not scene_file.is_file():
        raise SceneError(f"no scene file {scene_file}")
    game, diags = check_path(game_path, overlays, tests=True, scenes=[scene_file])
    if diags.errors or game is None:
        raise DiagnosticError(diags.errors)
    own = [t for t in game.tests.values() if t.header.span.file == str(scene_file)]
    names = [t.name for t in own]
    if name is not None:
        own = [t for t in own if t.name == name]
    if not own:
        raise SceneError(f"{scene_file}: no {'test named ' + name if name else 'test block'} to resolve "
                         "(a scene is a `test` block whose last line is the combat)"
                         + (f"; its tests: {', '.join(names)}" if names else ""))
    scene = scene_from_test(game, own[0], casualties, evaluator)
    scene.warnings = [d for d in diags.warnings if d.span is not None and d.span.file == str(scene_file)]
    return scene


def scene_from_test(game, test, casualties: str = "first", evaluator: str = EVALUATOR) -> Scene:
    """A scene from a checked game's test block: its lines run but the last, the combat."""
    from warcodex.interpreter.rule_tests import RuleTestRunner, TestFailure, _TestRun

    lines = [i for i in test.body if not isinstance(i, (ast.TestMap, ast.TestScenario))]
    if not lines or not isinstance(lines[-1], (ast.CallStmt, ast.TestDo)):
        where = lines[-1].span if lines else test.header.span
        raise SceneError("the last line of a scene is the combat to resolve: a procedure call "
                         "(`fight(\"karelia\", germany)`) or an action (`do attack(...)`)", where)
    runner = RuleTestRunner(game, evaluator=evaluator)
    run = _TestRun(runner, test)
    items = run.begin()
    battle = items[-1]
    try:
        for item in items[:-1]:
            run.current = item.span
            run.line(item)
    except TestFailure as exc:
        raise SceneError(exc.message, exc.where or run.current) from None
    except RuleError as exc:
        raise SceneError(exc.message, exc.span or run.current) from None
    asked = RoundAnswers()
    agents = {side: PolicyAgent(agent, casualties, asked) for side, agent in run.players.items()}
    run.ctx.agents = agents
    run.players = agents
    return _scene(game, run, battle, asked)


def _scene(game, run, battle, asked: RoundAnswers | None = None) -> Scene:
    if isinstance(battle, ast.CallStmt):
        check_combat_arguments(run, battle.call)
    state = run.state
    participants = combat_units(run, battle)
    # the provisional data a combat reads: the tables (a CRT the rulebook does not print) and the
    # values of the units in the scene
    types = {u.type for u in participants.values()}
    provisional = [(node.name if isinstance(node, ast.Table) else None,
                    f"{item} ({prov.note})" if prov.note else item) for item, node, prov in game.provisional_items()
                   if isinstance(node, ast.Table) or any(f" {t}." in f"{item}." or item.endswith(f" {t}") for t in types)]
    return Scene(run, battle, state.active, participants, provisional, asked or RoundAnswers())


_KINDS = {"location": "a location of the map (\"karelia\", \"0805\")", "side": "a side", "unit": "a unit",
          "list": "a list", "int": "a whole number", "str": "a quoted string", "bool": "true or false"}


def check_combat_arguments(run, call: ast.Call) -> None:
    """The combat's arguments against its procedure's parameters, before it runs: each one of the
    kind its parameter says (`none` is always allowed), a location one of the map's. The rules
    themselves would fail later and elsewhere (`cannot set 'battle_done' of 3`), or not at all
    (an unknown location read as a place with no features)."""
    from warcodex.dsl.diagnostics import did_you_mean

    decl = run.engine.game.names.get(call.func)
    if not isinstance(decl, ast.Procedure):
        return
    board = run.engine.board
    params = decl.params
    given = list(zip(params, call.args)) + [(p, call.kwargs[p.name]) for p in params if p.name in call.kwargs]
    unknown = [k for k in call.kwargs if k not in {p.name for p in params}]
    if unknown:
        raise SceneError(f"{call.func} has no parameter '{unknown[0]}' (its parameters: "
                         f"{', '.join(p.name for p in params) or 'none'})", call.kwargs[unknown[0]].span or call.span)
    if len(given) != len(params) or len(call.args) > len(params):
        raise SceneError(f"{call.func} takes {len(params)} argument(s) ({', '.join(p.name for p in params)}), "
                         f"got {len(call.args) + len(call.kwargs)}", call.span)
    for param, arg in given:
        kind = param.type
        if kind not in _KINDS:
            continue
        try:
            value = run.engine.reference.expr(arg, frozenset(run.scope))(run.fr)
        except RuleError as exc:
            raise SceneError(exc.message, exc.span or arg.span or call.span) from None
        if value is None:
            continue
        name = value.name if isinstance(value, Entity) else value
        ok = {"location": lambda: isinstance(name, str) and name in board.index,
              "side": lambda: isinstance(value, Entity) and value.kind == "side",
              "unit": lambda: isinstance(value, UnitRef),
              "list": lambda: isinstance(value, (list, tuple)),
              "int": lambda: isinstance(value, int) and not isinstance(value, bool),
              "str": lambda: isinstance(value, str),
              "bool": lambda: isinstance(value, bool)}[kind]()
        if ok:
            continue
        if kind == "location" and isinstance(name, str):
            raise SceneError(f"no location \"{name}\" on the map of this position ({call.func}'s `{param.name}` is a "
                             "location)", arg.span or call.span,
                             did_you_mean(name, board.index) or f"a location is named as the map names it, like "
                             f"\"{next(iter(board.index), '')}\"")
        shown = f'the string "{value}"' if isinstance(value, str) else run.engine.describe(run.ctx, value)
        raise SceneError(f"{call.func}'s `{param.name}` is {_KINDS[kind]}, not {shown}", arg.span or call.span)


def attacker_warning(run, battle, participants: dict):
    """A save's combat: the attacker is the side active in the save (the outcomes are counted for
    it), which the user did not write. When the units the call names (`resolve_combat([a, b],
    "0606")`: most often the attackers) are all of one other side, the odds may be read the wrong
    way round: a located warning saying so and how to say otherwise (None when not). Only a
    warning: a combat may name its defenders."""
    from warcodex.dsl.diagnostics import Diagnostic, Severity

    named = set()

    def visit(v) -> None:
        if isinstance(v, UnitRef):
            named.add(v.id)
        elif isinstance(v, (tuple, list)):
            for x in v:
                visit(x)

    call = battle.call
    for a in list(call.args) + list(call.kwargs.values()):
        try:
            visit(run.engine.reference.expr(a, frozenset(run.scope))(run.fr))
        except RuleError:
            continue
    sides = {participants[uid].side for uid in named if uid in participants}
    active = run.state.active
    if len(sides) != 1 or active in sides:
        return None
    side = next(iter(sides))
    return Diagnostic(Severity.WARNING, "W-attacker", f"the units this combat names are all {side}'s, but the "
                      f"attacker (whose wins are \"attacker wins\") is the side active in the save, {active}",
                      call.span, f"if the attack is {side}'s, give --attacker {side}")


def combat_units(run, battle) -> dict:
    """The units of the combat: those its arguments name (units, lists of units) and, at the
    locations they name (the battle's hex or territory), the active side's units and its enemies'
    (a side not at war with it takes no part), as they stand before it. What an argument is comes
    from its parameter's declared type: a side named like a location (A&A's power `germany` and
    territory "germany") is a side, never the units standing there."""
    call = battle.call
    decl = run.engine.game.names.get(call.func)
    params = decl.params if isinstance(decl, ast.Procedure) else []
    kinds = {p.name: p.type for p in params}
    args = [(params[i].type if i < len(params) else None, a) for i, a in enumerate(call.args)]
    args += [(kinds.get(name), a) for name, a in call.kwargs.items()]
    state = run.state
    ids: set[int] = set()
    locations: set[str] = set()

    def visit(v, kind) -> None:
        if isinstance(v, UnitRef):
            ids.add(v.id)
        elif isinstance(v, (tuple, list)):
            for x in v:
                visit(x, None)
        elif kind not in (None, "location"):
            return  # a side, a number, a string the procedure does not read as a place
        elif isinstance(v, str) and state.units_at(v):
            locations.add(v)
        elif isinstance(v, Entity) and v.kind != "side" and v.name in state.at:
            locations.add(v.name)

    for kind, a in args:
        try:
            visit(run.engine.reference.expr(a, frozenset(run.scope))(run.fr), kind)
        except RuleError:
            continue
    fighting = _sides_in_battle(run.engine, state.active)
    for loc in locations:
        ids.update(uid for uid in state.units_at(loc) if fighting is None or state.units[uid].side in fighting)
    units = {uid: state.units[uid] for uid in sorted(ids) if state.units[uid].loc is not None}
    if not units:  # nothing named: every unit on the map
        units = {u.id: u for u in state.units.values() if u.loc is not None}
    return units


def _sides_in_battle(engine, active) -> set[str] | None:
    """The sides whose units at a battle's location fight in it: the attacker (the active side) and
    the sides at war with it (the game's alliances, as the rules' `is_enemy` reads them); None when
    no side is active."""
    side = engine.entities.get(active) if active is not None else None
    if side is None or side.kind != "side":
        return None
    return {active} | {s.name for s in engine.enemies_of(side)}


_COMBAT_PREFIX = "procedure __odds() { "


def parse_combat(text: str) -> ast.Call | None:
    """The combat of `--combat`: one procedure call, parsed as a statement (errors located in the
    line shown, `procedure __odds() { ... }` around it)."""
    from warcodex.dsl.diagnostics import remember_source
    from warcodex.dsl.parser import parse_text

    if "\n" in text:
        raise SceneError("--combat is one line: a procedure call")
    source = _COMBAT_PREFIX + text + " }"
    remember_source("--combat", source)
    module = parse_text(source, "--combat")
    body = module.decls[0].body if module.decls else []
    if len(body) != 1 or not isinstance(body[0], ast.CallStmt):
        return None
    return body[0].call


def scene_from_save(game_path, save_file, combat: str, casualties: str = "first", overlays=(), force: bool = False,
                    attacker: str | None = None, evaluator: str = EVALUATOR) -> Scene:
    """A scene from a save: its position, and the combat given as a procedure call in the rules
    language (`fight("karelia", germany)`), checked against the game (`force`: a save made with
    other rules files, or other overlays, is read too, as `warcodex play --load --force` does).
    The attacker is the side active in the save, or `attacker` (made the active side)."""
    from types import SimpleNamespace

    from warcodex.dsl.checker import check_path
    from warcodex.dsl.diagnostics import DiagnosticError
    from warcodex.interpreter.compiler import Frame
    from warcodex.interpreter.context import Context
    from warcodex.interpreter.engine import Engine
    from warcodex.interpreter.rule_tests import AnswerAgent, AnswerBook
    from warcodex.interpreter.saves import load_save

    if not Path(save_file).is_file():
        raise SceneError(f"no save file {save_file}" + (" (a folder)" if Path(save_file).is_dir() else ""))
    game, diags = check_path(game_path, overlays)
    if diags.errors or game is None:
        raise DiagnosticError(diags.errors)
    call = parse_combat(combat)
    if call is None or not isinstance(game.names.get(call.func), ast.Procedure):
        raise SceneError(*_not_a_procedure(game, call))
    engine = Engine(game, evaluator=evaluator)
    state, _, _ = load_save(engine, save_file, force)
    if attacker is not None:
        sides = [s.name for s in engine.side_entities]
        if attacker not in sides:
            from warcodex.dsl.diagnostics import did_you_mean

            raise SceneError(f"--attacker: the game has no side '{attacker}' (its sides: {', '.join(sides)})", None,
                             did_you_mean(attacker, sides))
        state.active = attacker  # the combat is that side's, as a scene's `active` line says
        state.touch()
    if state.active is None:
        raise SceneError(f"{save_file}: no side is active in this position (a finished game?): the attacker "
                         "of the combat is the active side; give it with --attacker SIDE")
    agents = {s.name: PolicyAgent(AnswerAgent(AnswerBook()), casualties) for s in engine.side_entities}
    ctx = Context(engine, state, agents)
    run = SimpleNamespace(engine=engine, ctx=ctx, fr=Frame(ctx, {}), scope=set(), players=agents)
    run.state = state
    scene = _scene(game, run, ast.CallStmt(call=call, span=call.span))
    warning = attacker_warning(run, scene.battle, scene.participants)
    scene.warnings = [warning] if warning is not None else []
    return scene


def _not_a_procedure(game, call) -> tuple:
    """Why `--combat` is not a call of one of the game's procedures: (message, span, hint)."""
    from warcodex.dsl.diagnostics import did_you_mean

    example = "--combat is one call of one of the game's procedures, like fight(\"karelia\", germany)"
    if call is None:
        return example, None, None
    procedures = [n for n, d in game.names.items() if isinstance(d, ast.Procedure)]
    decl = game.names.get(call.func)
    if decl is None:
        from warcodex.dsl.stdlib import BUILTINS

        what = f"{call.func} is a built-in function" if call.func in BUILTINS else f"the game has no procedure '{call.func}'"
        return what, call.span, did_you_mean(call.func, procedures) or example
    kind = type(decl).__name__.lower()
    hint = None
    if isinstance(decl, ast.Action):
        hint = (f"an action is taken by a player: write a scene (`--scene FILE`) whose last line is "
                f"`do {call.func}(...)` (docs/odds.md)")
    return f"{call.func} is {'an' if kind[0] in 'aeiou' else 'a'} {kind}, not a procedure: {example}", call.span, hint


# ==================================================================== outcomes
def leaf_summary(scene: Scene, state) -> tuple:
    """What the combat did to its units: (id, on the map, steps, where) of each participant."""
    out = []
    for uid, before in scene.participants.items():
        u = state.units.get(uid)
        if u is None:
            out.append((uid, False, 0, None, frozenset()))
        else:
            out.append((uid, u.loc is not None, u.steps if u.loc is not None else 0, u.loc, u.markers))
    return tuple(out)


@dataclass
class Odds:
    """The outcome distribution of a combat."""

    method: str  # "exact" or "monte carlo"
    outcomes: dict[str, float]
    survivors: dict[str, dict[str, float]]  # side role -> unit type -> expected survivors
    losses: dict[str, dict[str, float]]
    rounds: dict[int, float]
    effects: list[tuple[float, str]]  # the distinct results, most likely first
    seconds: float
    attacker: str
    battles: int = 0  # Monte Carlo: battles simulated
    half_width: float = 0.0  # Monte Carlo: 95% confidence half-width of the outcome probabilities
    work: int = 0  # exact: branches replayed
    note: str = ""
    provisional: list[str] = field(default_factory=list)
    distribution: dict = field(default_factory=dict)  # leaf_summary -> probability
    replays_by: dict = field(default_factory=dict)  # exact: replays by what was replayed
    intervals: dict = field(default_factory=dict)  # Monte Carlo: outcome -> its 95% (Wilson) interval
    workers: int = 0  # Monte Carlo: how many processes played the battles (one per worker, when used)

    def to_json(self) -> dict:
        return {
            "method": self.method, "attacker": self.attacker, "outcomes": self.outcomes,
            "expected_survivors": self.survivors, "expected_losses": self.losses,
            "rounds": {str(k): v for k, v in sorted(self.rounds.items())},
            "results": [{"probability": p, "result": text} for p, text in self.effects],
            "seconds": round(self.seconds, 4), "battles": self.battles,
            "confidence_half_width_95": self.half_width,
            "confidence_intervals_95": {k: list(v) for k, v in self.intervals.items()}, "workers": self.workers,
            "replays": self.work, "replays_by": self.replays_by,
            "note": self.note,
            "provisional": self.provisional,
        }


def summarise(scene: Scene, weighted: dict[tuple, float], rounds: dict[int, float], method: str,
              seconds: float, tables_read=frozenset(), **extra) -> Odds:
    total = sum(weighted.values()) or 1.0
    outcomes = dict.fromkeys(OUTCOMES, 0.0)
    types = {}
    for uid, u in scene.participants.items():
        role = "attacker" if u.side == scene.attacker else "defender"
        types.setdefault(role, {}).setdefault(u.type, 0)
        types[role][u.type] += 1
    survivors = {role: dict.fromkeys(ts, 0.0) for role, ts in types.items()}
    effects: Counter = Counter()
    for key, w in weighted.items():
        p = w / total
        alive = {"attacker": False, "defender": False}
        for uid, on_map, steps, loc, markers in key:
            before = scene.participants[uid]
            role = "attacker" if before.side == scene.attacker else "defender"
            if on_map:
                alive[role] = True
                survivors[role][before.type] += p
        a, d = alive["attacker"], alive["defender"]
        outcome = OUTCOMES[0] if a and not d else OUTCOMES[1] if d and not a else OUTCOMES[2] if not a else OUTCOMES[3]
        outcomes[outcome] += p
        effects[effect_words(scene, key)] += p
    losses = {role: {t: max(0.0, n - survivors[role][t]) for t, n in ts.items()} for role, ts in types.items()}
    rtotal = sum(rounds.values()) or 1.0
    return Odds(method, outcomes, survivors, losses, {r: w / rtotal for r, w in sorted(rounds.items())},
                sorted(((p, text) for text, p in effects.items()), key=lambda x: (-x[0], x[1])),
                seconds, scene.attacker, provisional=scene.provisional_used(tables_read),
                distribution={k: w / total for k, w in weighted.items()}, **extra)


def effect_words(scene: Scene, key: tuple) -> str:
    """What a result (a `leaf_summary`) does to the units, in words: `attacker: 3 x Infantry
    eliminated, Tank to 0905; defender: ...` (the same effect on several units of a side is
    counted)."""
    words = []
    for uid, on_map, steps, loc, markers in key:
        before = scene.participants[uid]
        role = "attacker" if before.side == scene.attacker else "defender"
        name = before.label or before.type
        if not on_map:
            words.append((role, f"{name} eliminated"))
            continue
        if steps < before.steps:
            words.append((role, f"{name} loses {before.steps - steps} step(s)"))
        if loc != before.loc:
            words.append((role, f"{name} to {loc}"))
        words += [(role, f"{name} {m}") for m in sorted(markers - before.markers)]
        words += [(role, f"{name} no longer {m}") for m in sorted(before.markers - markers)]
    if not words:
        return "no unit affected"
    parts = []
    for role in ("attacker", "defender"):
        counted = Counter(w for r, w in words if r == role)
        if counted:
            parts.append(f"{role}: " + ", ".join(f"{n} x {w}" if n > 1 else w for w, n in sorted(counted.items())))
    return "; ".join(parts)


# The cyclic garbage collector during an exact computation. The enumerator keeps almost everything
# it makes for the whole computation (states, memo entries, keys: ~200,000 containers for the
# issue's battle, 400,000 made), and neither it nor the rules it runs make reference cycles
# (readlog.py avoids them; tests/test_odds.py runs collections during every bundled game's combat
# and finds nothing to collect): the collections its allocations trigger find nothing, they only
# scan what it keeps. With the default thresholds they were 4 full collections of the process's
# heap in the battle (0.5-1 s of its ~1.5 s under load), with a young generation of 10,000
# still ~0.08 s (7 %). Automatic collection is paused for the computation, and a full collection
# made every _COLLECT_EVERY replays instead, which bounds the garbage of a cycle the rules of
# another game might make.
_COLLECT_EVERY = 100_000


def exact(scene: Scene, max_runs: int | None = None, shortcuts: bool = True) -> Odds:
    """The exact outcome distribution (NotEnumerable when the rules draw outside dice, or when it
    needs more than `max_runs` replays: default MAX_RUNS). `shortcuts=False`: every branch
    replayed (the reference of the statement chain, tail leaves and lazy count loops)."""
    start = time.perf_counter()
    # (the enumerator is dropped before automatic collection resumes: what it kept is freed by
    # reference counting, and the collector does not start by scanning it)
    with cycle_collection_paused():
        weighted, rounds, tables_read, runs, work = _enumerate(scene, max_runs, shortcuts)
    return summarise(scene, weighted, rounds, "exact", time.perf_counter() - start, tables_read, work=runs,
                     replays_by=work)


def _enumerate(scene: Scene, max_runs: int | None, shortcuts: bool) -> tuple:
    """The enumeration of `exact`: the probability of each result (leaf_summary), the distribution
    of rounds, the tables read, the replays made and by what."""
    ctx = scene.run.ctx
    original = ctx.state
    state = original.snapshot()
    state.rng = RefusingRng()
    enum = Enumerator(ctx, shortcuts)
    if max_runs is not None:
        enum.max_runs = max_runs
    enum.base = state
    book = getattr(scene.run, "book", None)  # a save's combat has no answers
    if book is not None and book.by_rounds:
        enum.book = book
    ctx.chance = enum
    try:
        leaves = enum.explore(scene.combat(), state)
    finally:
        ctx.chance = None
        ctx.install(original)
    check_answers_by_round(scene)
    weighted: dict[tuple, float] = {}
    rounds: dict[int, float] = {}
    for p, end, _, hist, _ in leaves:
        key = leaf_summary(scene, enum._real(end))
        weighted[key] = weighted.get(key, 0.0) + p
        for r, pr in hist.items():
            rounds[r] = rounds.get(r, 0.0) + p * pr
    return weighted, rounds, enum.tables_read, enum.runs, dict(enum.work)


# ==================================================================== Monte Carlo
class Sampler:
    """The chance hook of a Monte Carlo run (and of a rule test whose answers depend on the round):
    dice rolled from the state's RNG, one by one as in play; it only follows the rounds: `round`,
    the pass of the outermost Markov loop being run (None outside it), and `rounds`, how many of
    its passes rolled."""

    tail_ok = tail_next = False  # (no tail positions: every die is rolled)

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.depth = 0
        self.rounds = 0
        self.round: int | None = None
        self.rolled = False
        self.tables_read: set[str] = set()

    def roll(self, dice) -> int:
        self.rolled = True
        ctx = self.ctx
        ctx.chance = None
        try:
            return ctx.roll(dice, None)
        finally:
            ctx.chance = self

    def known_count(self, lazy):
        return None

    def count(self, dice, op, bounds, lazy):
        from warcodex.interpreter.chance import _COMPARE

        test = _COMPARE[op]
        return sum(1 for b in bounds if test(self.roll(dice), b))

    def call(self, name, args, run, steps=None) -> None:
        run()

    def force(self, pending):  # never pending: counts are rolled at once
        raise AssertionError("a Monte Carlo count is never pending")

    def loop(self, fr, seq, var, body, site):
        outer = self.depth == 0
        self.depth += 1
        try:
            for i, x in enumerate(seq):
                self.rolled = False
                if outer:
                    self.round = i + 1
                fr.vars[var] = x
                result = body(fr)
                if outer and self.rolled:
                    self.rounds += 1
                if result is STOP:
                    return True, STOP
            return True, None
        finally:
            self.depth -= 1
            self.rolled = True
            if outer:
                self.round = None


_JOB: dict = {}


def _simulate(seeds: range) -> tuple[Counter, Counter, set, int, tuple]:
    scene, start, sampled = _JOB["scene"], _JOB["state"], _JOB["sampled"]
    ctx = scene.run.ctx
    combat = scene.combat()
    outcomes: Counter = Counter()
    rounds: Counter = Counter()
    tables: set = set()
    for seed in seeds:
        state = start.snapshot()
        state.rng = random.Random(seed)
        ctx.install(state)
        ctx.steps = 0  # the step limit bounds each battle, not the whole run (a precision of 0.005 plays ~40,000)
        sampler = Sampler(ctx) if sampled else None
        ctx.chance = sampler
        try:
            combat()
        finally:
            ctx.chance = None
        outcomes[leaf_summary(scene, ctx.state)] += 1
        rounds[sampler.rounds if sampler else 0] += 1
        if sampler:
            tables |= sampler.tables_read
    return outcomes, rounds, tables, os.getpid(), (scene.asked.inside, scene.asked.outside)


Z95 = 1.959963984540054  # the standard normal quantile of a two-sided 95% interval


def wilson(hits: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a probability observed `hits` times in `n` trials (better
    than p +- 1.96 sqrt(p(1-p)/n) near 0 and 1: an outcome never seen still gets an upper bound)."""
    if n == 0:
        return 0.0, 1.0
    p = hits / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (0.0 if hits <= 0 else max(0.0, centre - half)), (1.0 if hits >= n else min(1.0, centre + half))


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system says, else all)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def monte_carlo(scene: Scene, precision: float = 0.005, workers: int | None = None, seed: int = 1,
                max_battles: int = 1_000_000, batch: int = 250, note: str = "") -> Odds:
    """Simulated battles in worker processes until the 95% confidence interval of every outcome
    probability (Wilson) is within `precision` of it (or `max_battles`).

    The battles are numbered: battle i is played with the RNG seeded `seed * 1_000_003 + i`, and
    they are taken in batches of `batch` in that order, the stopping rule checked after each
    batch. The workers play whole batches (`workers` at a time) and a batch beyond the stopping
    point is dropped, so the same seed gives the same battles, the same number of them and the
    same result whatever the number of workers."""
    start_time = time.perf_counter()
    workers = workers or usable_cores()
    state = scene.run.ctx.state.snapshot()
    _JOB.update(scene=scene, state=state, sampled=True)
    totals: Counter = Counter()
    rounds: Counter = Counter()
    tables_read: set = set()
    processes: set[int] = set()  # the processes that played the battles kept
    n = 0
    first_seed = seed * 1_000_003
    next_batch = 0

    def outcome_counts() -> dict[str, float]:
        return summarise(scene, dict(totals), {}, "monte carlo", 0.0).outcomes

    def half_width() -> float:
        """The largest distance from an outcome's frequency to an end of its interval."""
        worst = 0.0
        for p in outcome_counts().values():
            lo, hi = wilson(p * n, n)
            worst = max(worst, p - lo, hi - p)
        return worst if n else 1.0

    def done() -> bool:
        return n >= max_battles or (n >= 2 * batch and half_width() <= precision)

    pool = None
    try:
        if workers > 1:
            pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
        while not done():
            jobs = []
            for b in range(next_batch, next_batch + workers):
                lo = first_seed + b * batch
                hi = min(lo + batch, first_seed + max_battles)
                if lo < hi:
                    jobs.append(range(lo, hi))
            next_batch += workers
            results = pool.map(_simulate, jobs) if pool is not None else map(_simulate, jobs)
            for o, r, t, pid, asked in results:
                if done():
                    break  # past the stopping point: the same battles as with fewer workers
                processes.add(pid)
                totals.update(o)
                rounds.update(r)
                tables_read |= t
                scene.asked.merge(*asked)
                n += sum(o.values())
    finally:
        if pool is not None:
            pool.shutdown()
        _JOB.clear()
        scene.run.ctx.install(state)
    check_answers_by_round(scene)
    intervals = {k: wilson(p * n, n) for k, p in outcome_counts().items()} if n else {}
    return summarise(scene, dict(totals), dict(rounds), "monte carlo", time.perf_counter() - start_time,
                     tables_read, battles=n, half_width=half_width(), note=note, workers=len(processes),
                     intervals=intervals)


def resolve(scene: Scene, mode: str = "auto", precision: float = 0.005, workers: int | None = None,
            seed: int = 1) -> Odds:
    """`exact`, `mc`, or `auto`: exact, falling back to Monte Carlo where the rules draw a random
    value the enumerator cannot follow."""
    if mode in ("exact", "auto"):
        state = scene.run.ctx.state.snapshot()
        try:
            return exact(scene)
        except NotEnumerable as exc:
            if mode == "exact":
                raise
            scene.run.ctx.install(state)
            return monte_carlo(scene, precision, workers, seed, note=f"not exact: {exc.message}")
    return monte_carlo(scene, precision, workers, seed)
