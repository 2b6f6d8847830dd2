"""The running context of one game: state, agents, dice, decisions, traces and the step limit.

Every decision (an action in a phase, or a `choose` inside a procedure) goes through here, so it
is asked of the right side's agent and recorded in the log; every die roll and every derivation
made while `tracing` is recorded for `explain`.
"""

from __future__ import annotations

from contextlib import contextmanager
from random import Random
from typing import Any

from warcodex.dsl import ast
from warcodex.interpreter.values import Derivation, Entity, RuleError, UnitRef, show

from warcodex.dsl.limits import MAX_CALL_DEPTH

DEFAULT_STEP_LIMIT = 5_000_000


class Context:
    def __init__(self, engine, state, agents: dict | None = None, step_limit: int = DEFAULT_STEP_LIMIT) -> None:
        self.engine = engine
        self.state = state
        self.agents = agents or {}
        self.steps = 0
        self.step_limit = step_limit
        self.depth = 0  # rules being evaluated inside one another (calls, triggers, results)
        self.entered = None  # where the last of them was called
        self.tracing = False
        self._trace_stack: list[list[Derivation]] = []
        self.choices: list[dict] | None = None  # decisions made inside the current action
        # the automatic step being run, when an agent searches the choices made in it (sequence.AutoStep)
        self.auto_step = None
        self.hidden_owners: set = set()  # sides whose hidden variables the current log entry read or set
        self.cache: dict = {}
        self.log: list[dict] = []
        self.notes: list[str] | None = None
        self._memo: dict = {}
        # the values computed while tracing, apart: an explanation reuses only these, so it never
        # depends on what untraced evaluations (an agent's enumeration, a search) computed first
        self._traced_memo: dict = {}
        self._memo_version = -1
        self._positions_memo: dict = {}
        self._positions_version = -1
        # the values of rules that survive the changes they do not read (memo.py): one dict a
        # rule, `memo_values[i]`, valid while `memo_version` is the state's version
        self.memo_values: list[dict] | None = None
        self.memo_index: list[tuple] | None = None
        self.memo_version = -1
        self._memos = None
        self._memo_state = None
        self._journal_seen = 0
        # movement searches remembered across versions (search_memo.py), synced with the memos
        self._searches = None
        self.remember_searches = True  # False: every search afresh (SearchMemo.audit)
        # a lookahead's: the searches of the context it was carried from, at that version
        # (`inherited_search`, `share_search`)
        self._inherited = None
        # the chance oracle of an exact odds computation (interpreter/chance.py, odds.py); None in
        # play, where every die comes from the state's RNG
        self.chance = None

    def install(self, state, memos: tuple[dict, dict] | None = None) -> None:
        """Continue from another state (the odds enumerator replays branches): the memos of the
        old one are dropped, whatever its version number says. `memos`: the memos of pure values
        and of position-only values computed in this very state before (a replay from it)."""
        self.state = state
        self.cache = {}
        self._traced_memo = {}
        self._inherited = None  # the searches it inherited were another state's
        if state is not self._memo_state:
            # the rules' memos that survive changes (memo.py) hold for the old state: generated
            # code trusts them while `memo_version` is the state's version number, and a copy of a
            # state (the enumerator's branches) keeps its original's number. Left as they were, a
            # state installed with the same number is served another state's values: read in
            # none of its own data, so a recording view (readlog.py) does not note those reads
            # either. The next read syncs them, starting afresh for a new state.
            self.memo_version = -1
        if memos is None:
            self._memo_version = -1
            self._positions_version = -1
            self._memo = {}
            self._positions_memo = {}
        else:
            self._memo, self._positions_memo = memos
            self._memo_version = state.version
            self._positions_version = state.positions_version

    def carry_memos(self, other: "Context") -> None:
        """Start this context, on a fresh snapshot of `other`'s state (same version), from a copy
        of `other`'s memos of rule values: they hold for the snapshot as they hold for the state,
        and the snapshot's own journal drops, in the copy, what its changes may change (a
        lookahead then evaluates only what its action touched). Movement searches are not
        carried, and not remembered here either (a new search memo would start the memos afresh)."""
        if other.state.version != self.state.version or self.state.journal:
            return
        # the movement searches of this very version (movement.reachable): a lookahead's action
        # moves a unit the enumeration of its candidates searched for. Shared, not copied: this
        # context writes into it only while its state is still the same as `other`'s (a search
        # of a mode that rolls dice is kept apart, per context)
        reach = other.cache.get("reach")
        if reach is not None and reach[0] == self.state.version and other.state is not self.state:
            self.cache["reach"] = reach
        if other._memos is None:
            return
        if other.memo_version != other.state.version or other._memo_state is not other.state:
            other.sync_memos()
        memos = self._memos = other._memos.copy()
        self.memo_values, self.memo_index = memos.values, memos.index
        self.memo_version = self.state.version
        self._memo_state = self.state
        self._journal_seen = self.state.journal_start
        self.remember_searches = False
        if other._searches is not None and other.remember_searches:
            # synced with `other`'s memos above: they hold for this version
            self._inherited = (other, other.state, other.state.version, self.state.journal_start, self.state.version)

    def _inherited_changes(self):
        """(the searches of the context this one was carried from, this context's changes
        since: journal events) while both are known: that context still at the version it was
        carried at (the game does not move during a decision; a kept position may outlive it),
        and every change of this one in its journal; else None."""
        found = self._inherited
        if found is None:
            return None
        other, other_state, version, start, own_version = found
        state = self.state
        if (other.state is not other_state or other_state.version != version or other.memo_version != version
                or other._searches is None or state.journal_start != start
                or state.version - own_version != len(state.journal)):
            return None
        return other._searches, state.journal

    def inherited_search(self, key, allowance):
        """A lookahead's movement search found in the searches of the context it was carried
        from (`carry_memos`): remembered there, and holding after this context's own changes
        (`SearchMemo.entry_surviving`); None otherwise. A lookahead remembers no searches of its
        own (a memo of its own would start its rule memos afresh), so without this it traced
        again every LOS the game had traced, after a move that changed none of them."""
        found = self._inherited_changes()
        if found is None:
            return None
        searches, events = found
        entry = searches.entry_surviving(key, allowance, events)
        return None if entry is None else entry.result

    def share_search(self, key, result, allowance, watch, looked_at, unit=None) -> None:
        """Remember a lookahead's search in the searches of the context it was carried from,
        when it holds there too: none of this context's changes touches what it read (the
        search, run there, would have looked at the same locations and found the same)."""
        found = self._inherited_changes()
        if found is None:
            return
        searches, events = found
        searches.put_surviving(key, result, allowance, watch, looked_at, events, unit)

    def positions_memo(self) -> dict:
        """Memoized values of rules that read only unit positions (see dependencies.py)."""
        version = self.state.positions_version
        if version != self._positions_version:
            self._positions_memo = {}
            self._positions_version = version
        return self._positions_memo

    def memo(self) -> dict:
        """Memoized values of pure functions and quantities, valid for the current state version:
        while tracing, those computed while tracing only. A value computed untraced shows no
        derivation; were it reused, a function's explanation would depend on whether an agent's
        enumeration or a search had evaluated it at this version first, and a replay (no
        enumeration) would explain the same game otherwise."""
        version = self.state.version
        if version != self._memo_version:
            self._memo = {}
            self._traced_memo = {}
            self._memo_version = version
        return self._traced_memo if self.tracing else self._memo

    def sync_memos(self) -> list[dict]:
        """Bring the rules' memos up to the state's version: drop what the journal's events may
        have changed since (everything, if the state changed without saying what)."""
        state = self.state
        memos = self._memos
        if memos is None:
            memos = self._memos = self.engine.new_memos()
            self.memo_values, self.memo_index = memos.values, memos.index
        journal, start = state.journal, state.journal_start
        end = start + len(journal)
        seen = self._journal_seen
        recheck = set()
        searches = self._searches
        if self._memo_state is not state or seen < start or state.version - self.memo_version != end - seen:
            memos.clear()
            if searches is not None:
                searches.clear()
            recheck = None  # every derived global, evaluated afresh
        else:
            invalidate, changed = memos.invalidate, memos.changed_derived
            for event in journal[seen - start:]:
                invalidate(event, state)
                if searches is not None:
                    searches.invalidate(event)
                if memos.watch and event[0]:
                    recheck |= changed(event[0])
        self._journal_seen = end
        self.memo_version = state.version
        self._memo_state = state
        if recheck is None or recheck:
            memos.recheck(self, recheck)
        return self.memo_values

    def search_memo(self):
        """The movement searches remembered until a change they read (search_memo.py), synced
        with the state; None with the reference evaluator, which remembers a search for one
        state version only (the oracle the differential tests compare with)."""
        if self.engine.evaluator != "generated" or not self.remember_searches:
            return None
        if self._searches is None:
            from warcodex.interpreter.search_memo import SearchMemo

            self._searches = SearchMemo(self.engine.board)
            self._memo_state = None  # the next sync starts both afresh
        if self.memo_version != self.state.version or self._memo_state is not self.state:
            self.sync_memos()
        return self._searches

    # ------------------------------------------------------------ bounded evaluation
    def tick(self, span) -> None:
        self.steps += 1
        if self.steps > self.step_limit:
            raise RuleError(f"evaluation step limit ({self.step_limit:,}) exceeded: a rule loops or grows without bound", span,
                            hint="look for a trigger that fires itself, or a loop over a growing list")

    def enter(self, what: str, span) -> None:
        """One rule more inside another, and one step: a call of a rule that may be entered again
        before it returns (bounds.py), a trigger fired, a result applied. Every `enter` is paired
        with `leave` (in a `finally`); beyond MAX_CALL_DEPTH the rules recurse without end, and
        the error points at the call. The step bounds a recursion that branches (two calls a
        level stay within the depth and still never end)."""
        self.steps += 1
        if self.steps > self.step_limit:
            self.tick(span)
        if self.depth >= MAX_CALL_DEPTH:
            raise RuleError(f"{what}: rules call each other more than {MAX_CALL_DEPTH} levels deep", span,
                            hint="a rule calls itself (directly or through others) with nothing to stop it")
        self.depth += 1
        self.entered = span

    def too_deep(self) -> RuleError:
        """The error for a RecursionError met while evaluating: calls within the depth limit whose
        expressions nest deeply still exhaust Python's stack; located at the last rule entered."""
        self.depth = 0
        return RuleError(f"the rules nest too deeply to evaluate ({MAX_CALL_DEPTH} calls at most, each nesting "
                         "expressions less)", self.entered,
                         hint="a rule calls itself with nothing to stop it, or builds very deep expressions")

    def leave(self) -> None:
        self.depth -= 1

    def tick_many(self, n: int, span) -> None:
        self.steps += n
        if self.steps > self.step_limit:
            self.tick(span)

    # ------------------------------------------------------------ traces
    @contextmanager
    def untraced(self):
        """Tracing off inside the block, then back as it was: searches, enumerations and checks
        evaluate rules many times, and only what they conclude belongs in a derivation."""
        was = self.tracing
        self.tracing = False
        try:
            yield
        finally:
            self.tracing = was

    def begin_trace(self) -> None:
        self.tracing = True
        self._trace_stack = [[]]

    def end_trace(self) -> list[Derivation]:
        self.tracing = False
        out = self._trace_stack[0] if self._trace_stack else []
        self._trace_stack = []
        return out

    def trace_sink(self) -> list[Derivation] | None:
        """The list new derivations go to, or None when not tracing."""
        return self._trace_stack[-1] if self.tracing and self._trace_stack else None

    def trace_add(self, d: Derivation) -> None:
        if self.tracing and self._trace_stack:
            self._trace_stack[-1].append(d)

    def trace_open(self, label: str, citations=()) -> None:
        d = Derivation(label, None, tuple(citations))
        self.trace_add(d)
        self._trace_stack.append(d.steps)

    def quiet_open(self) -> None:
        """What is evaluated until `quiet_close` is left out of the explanation: the candidates of
        a `choose` (the explanation shows the decision, not every option's derivation)."""
        if self.tracing:
            self._trace_stack.append([])

    def quiet_close(self) -> None:
        if self.tracing:
            self._trace_stack.pop()

    def collect(self, fn):
        """Run `fn()` with tracing on, into a trace of its own: (its value, its derivations),
        whatever the tracing around it (a move's explanation evaluates each cost term so)."""
        was = self.tracing
        holder: list[Derivation] = []
        self.tracing = True
        self._trace_stack.append(holder)
        try:
            return fn(), holder
        finally:
            self._trace_stack.pop()
            self.tracing = was

    def trace_close(self) -> None:
        if len(self._trace_stack) > 1:
            self._trace_stack.pop()

    def trace_close_procedure(self) -> None:
        """Close a procedure's node; a call that recorded nothing (no effect, choice, roll or
        line) is folded away: "Overstacking" with no overstacked hex says nothing to a player.
        A `step` keeps its heading: it is the rulebook's procedure, done or not."""
        if len(self._trace_stack) > 1:
            steps = self._trace_stack.pop()
            parent = self._trace_stack[-1]
            if not steps and parent and parent[-1].steps is steps:
                parent.pop()

    def traced_procedure(self, label: str, citations, body, fr):
        """`traced` for a procedure call: folded away when it recorded nothing."""
        return self.traced(label, citations, body, fr, close=self.trace_close_procedure)

    def traced(self, label: str, citations, body, fr, close=None):
        """Run `body(fr)`; when tracing, inside its own derivation node (a step, a procedure...),
        closed by `close` (default `trace_close`)."""
        if not self.tracing:
            return body(fr)
        self.trace_open(label, citations)
        try:
            return body(fr)
        finally:
            (close or self.trace_close)()

    def note(self, text: str) -> None:
        """A `log` line: in the explanation when tracing, and kept in `notes` when someone listens
        (the set-up of a game runs before any log exists: its lines are logged once it does)."""
        if self.tracing:
            self.trace_add(Derivation(text))
        if self.notes is not None:
            self.notes.append(text)

    def saw_hidden(self, side) -> None:
        """A hidden variable owned by `side` was read or set while recording a log entry."""
        if self.choices is not None:
            self.hidden_owners.add(side)

    def observe(self, side: str) -> dict:
        """The state as `side` may observe it (see Engine.observation)."""
        return self.engine.observation(self.state, side)

    # ------------------------------------------------------------ dice
    def roll(self, dice: ast.Dice, span) -> int:
        if self.chance is not None:  # exact odds: the oracle gives the outcome of this branch
            return self.chance.roll(dice)
        rng = self.state.rng
        if type(rng) is Random and dice.count == 1 and dice.keep is None and not self.tracing:
            return rng.randint(1, dice.sides)  # one die of the seed's, nothing to show: the same draw, directly
        fixed = getattr(rng, "next_is_fixed", None)
        given = fixed is not None and fixed()  # a roll the player fixed (play --dice, a rule test)
        faces = [rng.randint(1, dice.sides) for _ in range(dice.count)]
        if dice.keep is not None:
            kept = sorted(faces, reverse=dice.keep_highest)[: dice.keep]
        else:
            kept = faces
        total = sum(kept)
        shown = f"{faces[0]}" if len(faces) == 1 else f"{' + '.join(map(str, kept))} = {total}"
        if dice.keep is not None:
            shown = f"{faces}, keep {kept} = {total}"
        if self.tracing:
            self.trace_add(Derivation(f"roll {dice.text()}: {shown}{' (fixed dice)' if given else ''}", total,
                                      kind="roll", ref=dice.text()))
        return total

    # ------------------------------------------------------------ decisions inside procedures
    def _agent_for(self, who, span):
        name = who.name if isinstance(who, Entity) else who
        agent = self.agents.get(name)
        if agent is None:
            raise RuleError(f"no agent plays '{show(who)}'", span)
        return agent

    def decide(self, who, what: str, options: tuple, optional: bool, citations, span) -> Any:
        if not options:
            return None
        if len(options) == 1 and not optional:
            return options[0]
        agent = self._agent_for(who, span)
        index = agent.choose(self, who, what, options, optional)
        if index is None or index < 0:
            if not optional:
                raise RuleError(f"{show(who)} must choose a {what}", span)
            value = None
        else:
            if index >= len(options):
                raise RuleError(f"{show(who)} chose option {index} of {len(options)} for {what}", span)
            value = options[index]
        if self.choices is not None:  # recorded in the log entry being made (none outside one)
            self.choices.append({"choice": what, "by": show(who), "index": -1 if value is None else index,
                                 "value": self.engine.to_json(value)})
        if self.tracing:
            self.trace_add(Derivation(f"{show(who)} chooses {what}: {self.engine.describe(self, value)}", value, tuple(citations)))
        return value

    def decide_reroll(self, who, var: str, seen, label: str, citations, span) -> bool:
        """Ask `who`, who has seen `var` = `seen`, whether to keep the roll or re-roll it (the
        options carry the value seen). The decision is logged with the value seen."""
        shown = self.engine.describe(self, seen)
        options = (f"keep {var} = {shown}", label)
        agent = self._agent_for(who, span)
        index = agent.choose(self, who, f"re-roll {var}", options, False)
        if index not in (0, 1):
            raise RuleError(f"{show(who)} chose option {index} of 2 for re-roll {var}", span)
        self._record({"choice": f"re-roll {var}", "by": show(who), "index": index, "value": options[index],
                      "seen": self.engine.to_json(seen)})
        if self.tracing:
            self.trace_add(Derivation(f"{show(who)} sees {var} = {shown} and chooses: {options[index]}",
                                      index == 1, tuple(citations)))
        return index == 1

    def decide_subset(self, who, what: str, options: tuple, lo: int, hi, citations, span) -> tuple:
        if not options:
            return ()
        agent = self._agent_for(who, span)
        indices = tuple(agent.choose_subset(self, who, what, options, lo, hi))
        if len(set(indices)) != len(indices) or any(i < 0 or i >= len(options) for i in indices):
            raise RuleError(f"{show(who)} made an invalid choice of {what}", span)
        if len(indices) < lo or (hi is not None and len(indices) > hi):
            raise RuleError(f"{show(who)} must choose between {lo} and {hi} {what}", span)
        value = tuple(options[i] for i in indices)
        self._record({"choice": what, "by": show(who), "indices": list(indices), "value": self.engine.to_json(value)})
        if self.tracing:
            self.trace_add(Derivation(f"{show(who)} chooses {what}: {self.engine.describe(self, value)}", value, tuple(citations)))
        return value

    def decide_joint(self, whos: tuple, otherwise, what: str, options: tuple, subset: bool, optional: bool,
                     lo: int, hi, citations, span) -> Any:
        """A choice made together by several sides (`choose ... by [a, b] otherwise c`): each
        player proposes (sides played by the same agent are one player, asked once); when every
        proposal is the same it is the choice, otherwise the `otherwise` side chooses alone."""
        sides = []
        for w in whos:
            if w is not None and w not in sides:
                sides.append(w)
        if not sides:
            raise RuleError(f"nobody is given to choose {what}", span)
        if not options:
            return () if subset else None
        players = []  # one side per distinct agent, in the order given
        seen_agents = []
        for w in sides:
            agent = self._agent_for(w, span)
            if not any(agent is a for a in seen_agents):
                seen_agents.append(agent)
                players.append(w)
        if len(seen_agents) == 1 and hasattr(seen_agents[0], "joint_players"):
            # a replay: one agent plays every side, but the game it replays may have asked
            # several players; it says which from its log
            players = seen_agents[0].joint_players(sides, what) or players

        def ask(who):
            if subset:
                return self.decide_subset(who, what, options, lo, hi, citations, span)
            return self.decide(who, what, options, optional, citations, span)

        if len(players) == 1 or (not subset and len(options) == 1 and not optional):
            return ask(players[0])
        proposals = []
        with self.untraced():  # the proposals are traced below, as one line
            for who in players:
                proposals.append(ask(who))
        same = all((set(p) == set(proposals[0])) if subset else p == proposals[0] for p in proposals)
        names = ", ".join(show(w) for w in players)
        if same:
            if self.tracing:
                self.trace_add(Derivation(f"{names} agree on {what}: {self.engine.describe(self, proposals[0])}",
                                          proposals[0], tuple(citations)))
            return proposals[0]
        if otherwise is None:
            raise RuleError(f"{names} disagree on {what}, and the choice says no `otherwise` side to decide", span)
        if self.tracing:
            shown = "; ".join(f"{show(w)} proposes {self.engine.describe(self, p)}" for w, p in zip(players, proposals))
            self.trace_add(Derivation(f"{names} disagree on {what} ({shown}): {show(otherwise)} decides",
                                      None, tuple(citations)))
        return ask(otherwise)

    def _record(self, entry: dict) -> None:
        if self.choices is not None:
            self.choices.append(entry)
