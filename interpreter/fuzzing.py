"""Property-testing a game's rules by legal play, with hypothesis (the `warcodex fuzz` command is
warcodex/fuzz_command.py).

Each example is one game of a scenario, set up from its seed, in which hypothesis makes every
decision: at each `allow` step whether to pass and which legal action (kind, then each parameter),
and every `choose` inside procedures (retreat hexes, step losses, advances). Dice are the game's
own, seeded by `--seed`, so an example is a deterministic function of its decisions. The game's
invariants are checked after each action, at phase ends and after every automatic step; a rule
that fails (a located rules error) or an engine exception counts as a failure too. An example
stops at the end of the scenario or after `--max-actions` actions.

On a failure hypothesis shrinks the decisions (fewer actions, earlier passes, first options), and
the command prints the broken invariant with its rulebook section, the shrunk action sequence,
the explanation of its last step, and saves it as a standard game log (the decisions to the
failure, then every side passing to the end of the scenario) that `warcodex replay` reproduces.

    warcodex fuzz games/tiny --examples 200 --seed 1
    warcodex fuzz games/tiny -s meeting --examples 50 --max-actions 40 --save-counterexample bug.jsonl
"""

from __future__ import annotations

import gc
import time
from collections import Counter
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, Phase, Verbosity, given, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException, StopTest
from rich.text import Text

from warcodex.interpreter.agents import ScriptedAgent
from warcodex.interpreter.explain import format_entry
from warcodex.interpreter.invariants import InvariantViolation
from warcodex.interpreter.play import log_text, replay, start
from warcodex.interpreter.strategies import start_drawn, start_game
from warcodex.interpreter.values import RuleError, UnitRef

DEFAULT_MAX_ACTIONS = 100
DEFAULT_SHRINK_LIMIT = 500  # games played after the first failure, at most


class _ShrinkLimit(BaseException):
    """Stops hypothesis (a BaseException is not a test failure to it) when the shrink budget is spent."""


class FuzzFailure(Exception):
    """Raised to hypothesis for a failing example; one subclass per distinct failure (invariant,
    rule or exception site), so hypothesis tells them apart. It shrinks the first one found and
    may slip to another on the way; every one seen is recorded, with its smallest example."""


_FAILURE_TYPES: dict[tuple, type] = {}


def _failure_type(key: tuple) -> type:
    if key not in _FAILURE_TYPES:
        _FAILURE_TYPES[key] = type("FuzzFailure_" + "_".join(str(k) for k in key), (FuzzFailure,), {})
    return _FAILURE_TYPES[key]


@dataclass
class Failure:
    key: tuple
    kind: str  # invariant | rule error | engine error
    message: str
    error: BaseException
    decisions: list  # the (untraced) log of the smallest failing example: its decisions
    actions: int  # actions in it
    found_at: int  # the example that first found this failure
    traceback: str = ""
    trace_log: list = field(default_factory=list)  # the same game re-run with explanations, to the failure
    reproduced: BaseException | None = None
    game: object = None  # the complete game (decisions, then passes to the end), for the saved log
    complete: bool = True  # the complete game ran to its end (False when a rule fails on the way)

    @property
    def passes(self) -> int:
        return sum(1 for e in self.trace_log if e.get("k") == "pass")


@dataclass
class FuzzReport:
    scenario: str
    seed: int
    examples: int = 0  # whole games generated before the first failure
    calls: int = 0  # every game started, shrinking included
    actions: int = 0  # actions played while generating
    seconds: float = 0.0  # generating
    shrink_seconds: float = 0.0
    shrink_calls: int = 0  # games played after the first failure (mostly shrinking)
    failures: list[Failure] = field(default_factory=list)
    interrupted: bool = False
    shrink_limited: bool = False  # shrinking stopped by the shrink limit
    ended_by: str = ""  # the exception hypothesis ended with (the failure, or Flaky...)
    rule_counts: Counter = field(default_factory=Counter)  # rules fired by the generated games

    @property
    def examples_per_second(self) -> float:
        return self.examples / self.seconds if self.seconds else 0.0


class ScriptThenPass(ScriptedAgent):
    """Replays recorded decisions, then passes every action and takes the first option of every
    mandatory choice (declining optional ones), so the game runs to its end."""

    def _done(self) -> bool:
        return self.position >= len(self.queue)

    def choose_action(self, ctx, side, legal):
        if self._done():
            return None if legal.may_pass else legal.first()
        return super().choose_action(ctx, side, legal)

    def choose(self, ctx, who, what, options, optional):
        if self._done():
            return None if optional else 0
        return super().choose(ctx, who, what, options, optional)

    def choose_subset(self, ctx, who, what, options, lo, hi):
        return list(range(lo)) if self._done() else super().choose_subset(ctx, who, what, options, lo, hi)


def _classify(exc: BaseException) -> tuple[tuple, str, str]:
    if isinstance(exc, InvariantViolation):
        return ("invariant", exc.invariant.name), "invariant", str(exc)
    if isinstance(exc, RuleError):
        where = str(exc.span) if exc.span is not None else exc.message
        return ("rule", where), "rule error", exc.message
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f"{Path(frame.filename).name}:{frame.lineno}" if frame else "?"
    return ("exception", type(exc).__name__, where), "engine error", f"{type(exc).__name__}: {exc} ({where})"


def fuzz_game(engine, scenario: str | None = None, examples: int = 100, seed: int = 0,
              max_actions: int = DEFAULT_MAX_ACTIONS, options: dict | None = None, on_example=None,
              shrink_limit: int = DEFAULT_SHRINK_LIMIT, rule_counter=None, steer: bool = False) -> FuzzReport:
    """Play `examples` hypothesis-driven games; shrink and reproduce every failure found.
    Shrinking stops after `shrink_limit` more games (a count, so runs stay deterministic).
    `on_example(report, shrinking)` is called before each game (progress bars).
    With `rule_counter` (rule_coverage.RuleCounter), the rules each generated game fired are added
    up in `report.rule_counts`; with `steer`, hypothesis is asked to maximise the number of distinct
    rules a game fires (`hypothesis.target`), which steers generation towards rarely used rules."""
    scenario = engine.scenario(scenario).name
    report = FuzzReport(scenario, seed)
    found: dict[tuple, Failure] = {}
    clock = {"start": time.perf_counter(), "first_failure": None}
    # Once a failure is known after A actions, no smaller example needs more than A + 1 (one more
    # decision lets the phase end): later games stop there, so shrinking attempts stay cheap. The
    # cap never changes again, so every failure hypothesis saw replays identically.
    cap = {"actions": max_actions}

    @settings(max_examples=examples, database=None, deadline=None, verbosity=Verbosity.quiet,
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False, print_blob=False,
              phases=[Phase.generate, Phase.shrink])
    @hypothesis_seed(seed)
    @given(st.data())
    def one_game(data):
        shrinking = clock["first_failure"] is not None
        if shrinking and report.shrink_calls >= shrink_limit:
            report.shrink_limited = True
            raise _ShrinkLimit
        report.calls += 1
        if shrinking:
            report.shrink_calls += 1
        if on_example is not None:
            on_example(report, shrinking)
        game, failed = None, None
        try:
            # traced only when the rules fired are counted (the explain traces are where they show)
            game = start_drawn(data.draw, engine, scenario, seed, options, check_invariants=True,
                               trace=rule_counter is not None)
            game.run(max_actions=cap["actions"])
        except (HypothesisException, StopTest):  # hypothesis's own: an example it cut short...
            raise
        except Exception as exc:  # noqa: BLE001 - invariants, rule errors, engine exceptions
            failed = exc
        actions = game.runner.actions_taken if game is not None else 0
        log = game.log if game is not None else []
        if not shrinking:
            report.examples += 1  # a whole example (hypothesis also runs some it cuts short)
            report.actions += actions
            if rule_counter is not None and log:
                fired = rule_counter.count_log(log)
                report.rule_counts.update(fired)
                if steer:
                    target(float(sum(1 for k in fired if k[0] != "quantity")), label="distinct rules fired")
        if failed is None:
            return
        key, kind, message = _classify(failed)
        decisions = [e for e in log if e.get("k") in ("action", "pass") or e.get("choices")]
        best = found.get(key)
        size = (actions, len(decisions))
        if best is None or size <= (best.actions, len(best.decisions)):
            found[key] = Failure(key, kind, message, failed, decisions, actions,
                                 best.found_at if best else report.examples,
                                 "".join(traceback.format_exception(failed)) if kind == "engine error" else "")
        if clock["first_failure"] is None:
            clock["first_failure"] = time.perf_counter()
            cap["actions"] = min(max_actions, actions + 1)
        raise _failure_type(key)(message)  # outside the `except`: no context, one origin per key

    gc.collect()
    gc.freeze()  # the engine and everything loaded so far: long-lived, not worth scanning per game
    try:
        one_game()
    except _ShrinkLimit:
        pass
    except KeyboardInterrupt:
        if not found:
            raise
        report.interrupted = True  # interrupted while shrinking: report the smallest failure so far
    except BaseException as exc:  # the failure hypothesis re-raises (or a Flaky one): the record is `found`
        if not found:
            raise
        report.ended_by = type(exc).__name__
    finally:
        gc.unfreeze()
    end = time.perf_counter()
    first = clock["first_failure"]
    report.seconds = (first or end) - clock["start"]
    report.shrink_seconds = end - first if first else 0.0
    for failure in sorted(found.values(), key=lambda f: f.found_at):
        reproduce(engine, scenario, seed, options, failure)
        report.failures.append(failure)
    return report


def reproduce(engine, scenario: str, seed: int, options, failure: Failure) -> None:
    """Re-run a failure's decisions with explanations (to the failure), then as a complete game
    (the decisions, then passes to the end) for the saved log."""
    agent = ScriptThenPass(engine, failure.decisions)
    agents = {s.name: agent for s in engine.side_entities}
    game = None
    try:
        game = start_game(engine, scenario, seed, agents, options, check_invariants=True, trace=True)
        game.run()
    except Exception as exc:  # noqa: BLE001 - the failure itself, whatever it is
        failure.reproduced = exc
    failure.trace_log = game.log if game is not None else []
    agent = ScriptThenPass(engine, failure.decisions)
    failure.complete = False
    try:
        failure.game = start(engine, scenario, seed, {s.name: agent for s in engine.side_entities}, options=options)
        failure.game.run()
    except Exception:  # noqa: BLE001 - a rule that fails stops the game: the log ends there
        return
    failure.complete = True


def save_counterexample(path: Path, engine, failure: Failure, options: dict | None) -> bool:
    """Write the complete game as a standard log; True if `replay` reproduces it exactly."""
    from warcodex.interpreter.saves import write_log

    if failure.game is None:
        return False
    write_log(path, engine, failure.game, options or {})
    if not failure.complete:
        return False
    again = replay(engine, failure.game.state.scenario, failure.game.state.seed, failure.game.log, options=options)
    return log_text(again.log) == log_text(failure.game.log)


# ---------------------------------------------------------------- reading a failure
def _value(engine, ctx, data) -> str:
    try:
        value = engine.from_json(data)
    except ValueError:
        return str(data)
    if isinstance(value, UnitRef) and value.id not in ctx.state.units:
        return f"unit#{value.id}"
    return engine.describe(ctx, value)


def sequence_lines(failure: Failure) -> list[str]:
    """The shrunk sequence: every action, and every entry with choices, without the passes."""
    game = failure.game
    lines = []
    for e in failure.trace_log:
        if e.get("k") != "action" and not e.get("choices"):
            continue
        lines.append(format_entry({k: v for k, v in e.items() if k != "trace"}))
        for c in e.get("choices", ()):
            value = _value(game.engine, game.ctx, c["value"]) if game is not None else c["value"]
            lines.append(f"      {c['by']} chooses {c['choice']}: {value}")
    return lines


def last_step(failure: Failure) -> dict | None:
    """The entry the failure followed: the violating action, or the automatic step."""
    return failure.trace_log[-1] if failure.trace_log else None


def declaration_lines(error: BaseException, limit: int = 12) -> list[str]:
    """The source of the broken invariant's declaration, with line numbers."""
    span = getattr(error, "span", None)
    if span is None:
        return []
    try:
        lines = Path(span.file).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    last = min(span.end_line or span.line, span.line + limit - 1, len(lines))
    return [f"{n:>5} | {lines[n - 1]}" for n in range(span.line, last + 1)]


def print_failure(console, failure: Failure, report: FuzzReport) -> None:
    console.print(Text.assemble(("FAILED", "bold red"), f": {failure.message}"), highlight=False)
    error = failure.reproduced or failure.error
    if isinstance(error, InvariantViolation):
        console.print(f"{error.span}:", markup=False)
        for line in declaration_lines(error):
            console.print(line, markup=False)
    elif isinstance(error, RuleError):
        console.print(error.diagnostic().render(), markup=False, style="red")
    elif failure.traceback:
        console.print(failure.traceback, markup=False)
    if failure.reproduced is None or str(failure.reproduced) != str(failure.error):
        console.print(f"warning: re-running the decisions gave {failure.reproduced!r}, not the failure", markup=False,
                      style="yellow")
    console.print(Text.assemble(("\nshrunk counterexample", "bold"), f": {failure.actions} action(s) "
                                f"({failure.passes} pass(es) not shown), scenario {report.scenario}, seed {report.seed}; "
                                f"first found by example {failure.found_at}:"), highlight=False)
    for line in sequence_lines(failure) or ["  (no action: the failure comes from the set-up and automatic rules)"]:
        console.print(line, markup=False)
    entry = last_step(failure)
    console.print(Text.assemble(("\nthe last step, explained", "bold"), ":"))
    if entry is None:
        console.print("  (nothing logged before the failure: it follows the scenario's set-up)")
    else:
        console.print(format_entry(entry), markup=False)
