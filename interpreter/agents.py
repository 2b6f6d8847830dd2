"""Agents decide for a side: which legal action to take (or pass), and `choose` sub-decisions.

- RandomAgent: a uniformly random action kind, then a random legal instance (lazy, shuffled
  enumeration: only the candidates looked at are tested), passing with a small probability;
  random choices.
- FirstAgent: always the first legal instance in the engine's deterministic order.
- ScriptedAgent: replays the decisions recorded in a log, checking each is still legal.
- HumanAgent: a terminal prompt listing legal actions; `?N` explains an action before taking it.
- GreedyAgent (search_agents.py), PlanAgent (plan_agent.py), MCTSAgent (mcts.py): search judged by
  the game's `evaluation`.
Agents draw from their own RNG, never the game's dice.
"""

from __future__ import annotations

import random
from typing import Iterator, Protocol

from warcodex.interpreter.actions import ActionChoice
from warcodex.interpreter.values import RuleError, show


class LegalActions:
    """The legal actions of the current decision point, enumerated lazily."""

    def __init__(self, engine, ctx, names: list[str]) -> None:
        self.engine = engine
        self.ctx = ctx
        self.names = list(names)
        # False when the side may not pass: an `until` obligation of the step is not met yet
        # (`obligation` says which); the agent must then return an action
        self.may_pass = True
        self.obligation: str | None = None

    def __iter__(self) -> Iterator[ActionChoice]:
        return self.engine.legal_actions(self.ctx, self.names)

    def all(self, limit: int | None = None) -> list[ActionChoice]:
        out = []
        for a in self:
            out.append(a)
            if limit is not None and len(out) >= limit:
                break
        return out

    def first(self) -> ActionChoice | None:
        return next(iter(self), None)

    def sample(self, rng: random.Random, eager: bool = False) -> ActionChoice | None:
        """A random legal action: a random kind among those with a legal instance, then each
        parameter uniformly among the values that lead to a legal instance (see docs/engine.md,
        "Actions and agents"). `eager`: the draws of the engine before lazy domains."""
        names = list(self.names)
        rng.shuffle(names)
        for name in names:
            found = next(self.engine.actions[name].instances(self.ctx, rng, eager), None)
            if found is not None:
                return found
        return None

    def describe(self, choice: ActionChoice) -> str:
        parts = [f"{k}={self.engine.describe(self.ctx, v)}" for k, v in choice.args]
        return f"{choice.action}({', '.join(parts)})"


class Agent(Protocol):
    """What the engine asks of an agent."""

    def choose_action(self, ctx, side: str, legal: LegalActions) -> ActionChoice | None:
        """A legal action for `side`, or None to pass."""

    def choose(self, ctx, who, what: str, options: tuple, optional: bool) -> int | None:
        """The index of the chosen option (None: no choice, only when optional)."""

    def choose_subset(self, ctx, who, what: str, options: tuple, lo: int, hi: int | None) -> list[int]:
        """The indices of the chosen options."""


class RandomAgent(Agent):
    """`eager_domains=True` draws as the engine did before lazy domains (every candidate of a
    parameter tested, then the values shuffled): slower, but the same games as older versions
    for the same seed (bench/compare.py --same-games)."""

    def __init__(self, seed: int = 0, pass_probability: float = 0.05, eager_domains: bool = False) -> None:
        self.rng = random.Random(seed)
        self.pass_probability = pass_probability
        self.eager_domains = eager_domains

    def choose_action(self, ctx, side, legal):
        if legal.may_pass and self.rng.random() < self.pass_probability:
            return None
        return legal.sample(self.rng, self.eager_domains)

    def choose(self, ctx, who, what, options, optional):
        if optional and self.rng.random() < 0.25:
            return None
        return self.rng.randrange(len(options))

    def choose_subset(self, ctx, who, what, options, lo, hi):
        hi = len(options) if hi is None else min(hi, len(options))
        k = self.rng.randint(lo, hi)
        return sorted(self.rng.sample(range(len(options)), k))


class FirstAgent(Agent):
    """Deterministic: the first legal action, the first option; passes when nothing is legal."""

    def choose_action(self, ctx, side, legal):
        return legal.first()

    def choose(self, ctx, who, what, options, optional):
        return 0

    def choose_subset(self, ctx, who, what, options, lo, hi):
        hi = len(options) if hi is None else min(hi, len(options))
        return list(range(hi))


class ReplayMismatch(RuleError):
    pass


class LogExhausted(ReplayMismatch):
    """The log's decisions are used up: a game that was stopped early (`--max-actions`) ends here."""


class ScriptedAgent(Agent):
    """Replays the decisions of a log (shared by all sides: decisions are consumed in log order)."""

    def __init__(self, engine, log: list[dict]) -> None:
        self.engine = engine
        self.queue: list[tuple[str, dict]] = []
        for entry in log:
            if entry.get("k") == "action":
                self.queue.append(("action", entry))
            elif entry.get("k") == "pass":
                self.queue.append(("pass", entry))
            for choice in entry.get("choices", ()):
                self.queue.append(("choice", choice))
        # an action's own choices are made while it is applied, after the action is chosen:
        # the flattening above keeps exactly that order.
        self.position = 0

    def _next(self, kind: str) -> dict:
        if self.position >= len(self.queue):
            raise LogExhausted(f"the log has no more decisions, but the game asks for a {kind}")
        got, entry = self.queue[self.position]
        if got != kind and not (kind == "action" and got == "pass"):
            raise ReplayMismatch(f"decision {self.position}: the log has a {got}, the game asks for a {kind}")
        self.position += 1
        return entry if got == kind else {"pass": True}

    def choose_action(self, ctx, side, legal):
        entry = self._next("action")
        if entry.get("pass") or entry.get("k") == "pass":
            return None
        if entry["side"] != side:
            raise ReplayMismatch(f"the log has an action by {entry['side']}, but it is {side}'s decision")
        action = self.engine.actions.get(entry["action"])
        if action is None:
            raise ReplayMismatch(f"the log has an action '{entry['action']}' that these rules do not declare")
        recorded = entry["args"]
        if set(recorded) != {p.name for p in action.params}:
            raise ReplayMismatch(f"the log's {entry['action']} has arguments {sorted(recorded)}, the rules "
                                 f"{[p.name for p in action.params]}")
        # arguments in parameter order (the log stores them with sorted keys)
        args = tuple((p.name, self.engine.from_json(recorded[p.name])) for p in action.params)
        return ActionChoice(entry["action"], args)

    def joint_players(self, sides: list, what: str) -> list:
        """The sides that proposed in the recorded joint choice of `what` coming next (one agent
        plays every side in a replay, but the game replayed may have had one agent a side): the
        next recorded choices of `what` by distinct sides among `sides`, in order."""
        return recorded_proposers((e if kind == "choice" else {} for kind, e in self.queue[self.position:]), sides, what)

    def choose(self, ctx, who, what, options, optional):
        entry = self._next("choice")
        return entry["index"]

    def choose_subset(self, ctx, who, what, options, lo, hi):
        entry = self._next("choice")
        return entry["indices"]


def recorded_proposers(entries, sides: list, what: str) -> list:
    """The sides that proposed in a recorded joint choice of `what` (`Context.decide_joint`): the
    recorded choices coming next (`entries`) that choose `what`, by distinct sides among `sides`,
    in order. A log replay (ScriptedAgent) and a search's line played again (ChoiceReplay) ask
    the players the record shows: one agent plays every side there, the game recorded had one
    agent a side."""
    by_name = {show(s): s for s in sides}
    found = []
    for entry in entries:
        name = entry.get("by")
        if entry.get("choice") != what or name not in by_name or by_name[name] in found:
            break
        found.append(by_name[name])
    return found


class HumanAgent(Agent):
    """A terminal prompt: numbered legal actions, a page at a time (`n` next page, `b` back);
    `/TEXT` shows only the actions whose description contains TEXT (a unit's name or id, a hex,
    an action), `/` shows all again; `p` passes; `?N` explains action N first. Numbers are those
    of the whole list, whatever page or filter is shown."""

    PAGE = 40

    def __init__(self, input_fn=input, print_fn=print) -> None:
        self.input = input_fn
        self.print = print_fn

    def choose_action(self, ctx, side, legal):
        actions = legal.all()
        if not actions:
            self.print(f"{side}: no legal action, passing.")
            return None
        texts = [legal.describe(a) for a in actions]
        page, needle = 0, None
        while True:
            shown = [i for i, t in enumerate(texts) if needle is None or needle in t.lower()]
            pages = max(1, -(-len(shown) // self.PAGE))
            page = min(page, pages - 1)
            head = f"\n{side}, turn {ctx.state.position.turn}, {ctx.state.phase}: {len(actions)} legal action(s)"
            if needle is not None:
                head += f", {len(shown)} matching '{needle}'"
            self.print(head + (f" (page {page + 1} of {pages})" if pages > 1 else ""))
            if not legal.may_pass:
                self.print(f"  you may not pass yet: {legal.obligation}")
            for i in shown[page * self.PAGE:(page + 1) * self.PAGE]:
                self.print(f"  {i:3}  {texts[i]}")
            more = ", n/b next/previous page" if pages > 1 else ""
            answer = self.input(f"number, ?number to explain, /text to filter{more}, p to pass > ").strip()
            if answer in ("p", "pass"):
                if not legal.may_pass:
                    self.print(f"  you may not pass yet: {legal.obligation}")
                    continue
                return None
            if answer in ("n", "next"):
                page = min(page + 1, pages - 1)
                continue
            if answer in ("b", "back"):
                page = max(page - 1, 0)
                continue
            if answer.startswith("/"):
                needle = answer[1:].strip().lower() or None
                page = 0
                continue
            explain = answer.startswith("?")
            try:
                index = int(answer.lstrip("?"))
                choice = actions[index]
            except (ValueError, IndexError):
                self.print("  not a listed number")
                continue
            if explain:
                from warcodex.interpreter.explain import explain_choice

                self.print(explain_choice(ctx.engine, ctx.state, choice))
                continue
            return choice

    def choose(self, ctx, who, what, options, optional):
        while True:
            self.print(f"\n{who}: choose {what}{' (or - for none)' if optional else ''}")
            for i, o in enumerate(options):
                self.print(f"  {i:3}  {ctx.engine.describe(ctx, o)}")
            answer = self.input("> ").strip()
            if optional and answer == "-":
                return None
            try:
                index = int(answer)
                if 0 <= index < len(options):
                    return index
            except ValueError:
                pass
            self.print("  not a listed number")

    def choose_subset(self, ctx, who, what, options, lo, hi):
        while True:
            self.print(f"\n{who}: choose {lo}..{hi or len(options)} of {what} (numbers separated by spaces)")
            for i, o in enumerate(options):
                self.print(f"  {i:3}  {ctx.engine.describe(ctx, o)}")
            try:
                picked = sorted({int(x) for x in self.input("> ").split()})
                if all(0 <= i < len(options) for i in picked) and lo <= len(picked) <= (hi or len(options)):
                    return picked
            except ValueError:
                pass
            self.print("  not a valid choice")


AGENT_KINDS = ("random", "first", "human", "greedy", "plan", "mcts")


def make_agent(spec: str, seed: int, engine=None):
    """An agent from its spec: a kind, then options as `:key=value` (`mcts:playouts=16:rollout=greedy`).
    The search agents (greedy in search_agents.py, plan in plan_agent.py, mcts in mcts.py) judge
    positions with the game's `evaluation`."""
    kind, *pairs = spec.strip().split(":")
    options = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise ValueError(f"agent '{spec}': options are written key=value, as in mcts:playouts=16")
        options[key.strip()] = value.strip()
    if kind in ("greedy", "plan", "mcts"):
        from warcodex.interpreter.search_agents import make_search_agent

        return make_search_agent(kind, options, seed)
    if options:
        raise ValueError(f"agent '{kind}' takes no options")
    if kind == "random":
        return RandomAgent(seed)
    if kind == "first":
        return FirstAgent()
    if kind == "human":
        return HumanAgent()
    raise ValueError(f"unknown agent '{kind}' ({', '.join(AGENT_KINDS)})")
