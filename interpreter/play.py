"""Play a game: set up a scenario, run it with agents, and return the state and the log.

The log is the game's record: every action with its arguments, every choice, every automatic
rule that did something, each with its explain trace. The same game files, scenario, seed and
agents give a byte-identical log (`log_text`).
"""

from __future__ import annotations

import json

from warcodex.interpreter.agents import LogExhausted, RandomAgent, ScriptedAgent, make_agent
from warcodex.interpreter.context import Context
from warcodex.interpreter.sequence import Runner


class Game:
    """One game in progress: engine, state, agents and the log so far."""

    def __init__(self, engine, state, agents: dict, log: list | None = None, trace: bool = True,
                 check_invariants: bool = False) -> None:
        self.engine = engine
        self.state = state
        self.agents = agents
        self.ctx = Context(engine, state, agents)
        if log:
            self.ctx.log.extend(log)
        self.runner = Runner(engine, self.ctx, agents, check_invariants=check_invariants, trace=trace)
        if state.setup_notes and not self.ctx.log:  # `log` lines of the set-up, before play starts
            self.runner.log({"k": "auto", "what": "set-up", "phase": None, "side": None,
                             "trace": [{"what": n, "value": None, "citations": [], "steps": []} for n in state.setup_notes]})

    @property
    def log(self) -> list[dict]:
        return self.ctx.log

    def run(self, until_turn: int | None = None, max_actions: int | None = None) -> "Game":
        self.runner.run(until_turn=until_turn, max_actions=max_actions)
        return self

    @property
    def stopped_early(self) -> bool:
        """Stopped by a turn limit or an action budget (play --until, --max-actions), not over."""
        return not self.state.over

    def turns_played(self) -> int:
        """Whole turns played: the current turn counts once the game is over or it is complete."""
        state, engine = self.state, self.engine
        first, last = engine.first_turn(state), engine.last_turn(state)
        turn = state.position.turn
        done = turn - 1 if (state.position.op == 0 or turn > last) else turn - (0 if state.over else 1)
        return max(0, min(done, last) - first + 1)

    def summary(self) -> dict:
        state = self.state
        engine = self.engine
        actions = sum(1 for e in self.log if e.get("k") == "action")
        return {
            "scenario": state.scenario, "seed": state.seed, "turn": state.position.turn,
            "over": state.over, "winner": state.winner, "reason": state.win_reason, "actions": actions,
            "units_on_map": {s.name: sum(1 for u in state.on_map() if u.side == s.name) for s in engine.side_entities},
            "eliminated": {s.name: sum(1 for u in state.units.values() if u.box == "eliminated" and u.side == s.name)
                           for s in engine.side_entities},
            "sides": {s: {k: engine.to_json(v) for k, v in sorted(vals.items())} for s, vals in sorted(state.side_vars.items())},
        }


def agents_for(engine, specs: list[str], seed: int) -> dict:
    sides = [s.name for s in engine.side_entities]
    if len(specs) == 1:
        specs = specs * len(sides)
    if len(specs) != len(sides):
        raise ValueError(f"give one agent per side ({', '.join(sides)}), or one for all")
    return {side: make_agent(spec, seed * 1000 + i + 1) for i, (side, spec) in enumerate(zip(sides, specs))}


def start(engine, scenario: str | None, seed: int, agents: dict, options: dict | None = None, dice=None, **kw) -> Game:
    """A game set up and ready to run; `dice`, when given, are its first rolls (then the seed's)."""
    engine = engine.for_scenario(scenario)  # the scenario's special rules, if it overrides any
    state = engine.new_game(scenario, seed, options, dice=dice)
    return Game(engine, state, agents, **kw)


def play(engine, scenario: str | None = None, seed: int = 0, agents: dict | None = None,
         until_turn: int | None = None, **kw) -> Game:
    if agents is None:
        agents = {s.name: RandomAgent(seed * 1000 + i + 1) for i, s in enumerate(engine.side_entities)}
    return start(engine, scenario, seed, agents, **kw).run(until_turn=until_turn)


def replay(engine, scenario: str, seed: int, log: list[dict], options: dict | None = None, dice=None, watch=None,
           on_entry=None, **kw) -> Game:
    """Re-execute a recorded game from its decisions (and its fixed dice, if it had some); the
    caller compares the logs. `watch(game)`, if given, is called once the game is set up, before
    its first step (a tool that records each step attaches itself there: `Game.runner.on_entry`,
    `GameState.watched_units`); `on_entry(game, entry)` is called after each log entry with the
    game as that entry left it."""
    # the scenario's engine decodes the recorded arguments: its declared names (entities) are its
    # own objects, and a scenario that overrides a rule has other ones than the base game
    engine = engine.for_scenario(scenario)
    agent = ScriptedAgent(engine, log)
    agents = {s.name: agent for s in engine.side_entities}
    game = start(engine, scenario, seed, agents, options=options, dice=dice, **kw)
    if watch is not None:
        watch(game)
    if on_entry is not None:
        watcher = game.runner.on_entry  # a `watch` may have attached itself: both are called

        def after_entry(entry):
            if watcher is not None:
                watcher(entry)
            on_entry(game, entry)
        game.runner.on_entry = after_entry
    try:
        if any(e.get("k") == "end" for e in log):
            return game.run()
        # a game stopped early: `--until T` stopped it at the end of the last turn it logged, and
        # `--max-actions` where it would have asked for the next decision
        last_turn = max((e.get("turn", 0) for e in log if isinstance(e.get("turn"), int)), default=None)
        try:
            game.run(until_turn=last_turn)
        except LogExhausted:
            pass
    except Exception as exc:
        # a game that failed (a broken invariant, with check_invariants): the caller compares the
        # log up to the failure with the recorded one
        exc.replayed_game = game
        raise
    return game


def log_text(log: list[dict]) -> str:
    """The canonical text of a log: one JSON object per line, keys sorted."""
    return "".join(json.dumps(e, sort_keys=True, ensure_ascii=False) + "\n" for e in log)
