"""Rules compiled to Python source (interpreter/codegen.py, interpreter/generated.py), tested
against the closure compiler they replace (interpreter/compiler.py, the reference):

- every expression and statement node kind has its generator method (a node added to the
  language without generated code fails here, not in a game);
- whole games of every bundled game and of the tests' games give byte-identical logs, with
  explanations, through both evaluators (every rule, trace and decision compared);
- a log made with one evaluator replays identically with the other;
- user text never becomes code, errors stay located at the `.wcx` line and column, evaluation
  stays bounded, the cache serves the same code, and `warcodex compile --show` prints it.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from warcodex.dsl import ast
from warcodex.dsl.checker import check_path
from warcodex.interpreter.codegen import Generator
from warcodex.interpreter.compiler import Compiler
from warcodex.interpreter.engine import Engine
from warcodex.interpreter.play import agents_for, log_text, play, replay, start
from warcodex.interpreter.values import RuleError

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


def _subclasses(cls):
    out = set()
    for sub in cls.__subclasses__():
        out.add(sub)
        out |= _subclasses(sub)
    return out


def test_every_node_kind_has_generated_code_and_a_reference():
    """A node kind someone adds to the language needs both: its generated code (`_e_X`/`_s_X` in
    codegen.Generator) and the reference closure (`_e_X`/`_s_X` in compiler.Compiler)."""
    missing = []
    for base, prefix in ((ast.Expr, "_e_"), (ast.Stmt, "_s_")):
        for cls in _subclasses(base):
            for owner in (Generator, Compiler):
                if not hasattr(owner, prefix + cls.__name__):
                    missing.append(f"{owner.__name__}.{prefix}{cls.__name__}")
    assert not missing, "node kinds without code: " + ", ".join(sorted(missing))


def _engines(path):
    game, diags = check_path(path)
    assert game is not None and not diags.errors, [d.render() for d in diags.errors]
    return Engine(game, evaluator="reference"), Engine(game, evaluator="generated")


def _same_game(ref, gen, scenario, seed, actions=None):
    logs = []
    for engine in (ref, gen):
        game = start(engine, scenario, seed, agents_for(engine, ["random"], seed), trace=True, check_invariants=True)
        game.run(max_actions=actions)
        logs.append(game)
    text_a, text_b = log_text(logs[0].log), log_text(logs[1].log)
    if text_a != text_b:  # show the first differing entry, not two megabytes
        for x, y in zip(text_a.splitlines(), text_b.splitlines()):
            assert x == y
    assert text_a == text_b
    # the game's evaluations (language.md section 25) judge both final positions the same way
    from warcodex.interpreter.context import Context

    ra, rb = logs
    for name, ev in ra.engine.evaluations.items():
        other = rb.engine.evaluations[name]
        for side in ra.engine.side_entities:
            assert ev.breakdown(Context(ra.engine, ra.state), side) == \
                other.breakdown(Context(rb.engine, rb.state), rb.engine.entities[side.name]), (name, side.name)
    return logs[0]


# (game folder, scenario, seeds, actions or None for the whole game): every bundled game and every
# scenario (each has its own special rules), from the set-up through its first actions, kept
# short for CI; bench/compare.py plays whole games of them against the engine before this change
DIFFERENTIAL = [
    (ROOT / "games" / "tiny", "meeting", (1, 2, 3), None),
    (ROOT / "games" / "stalingrad42", "fall_blau", (1, 2), 40),
    (ROOT / "games" / "stalingrad42", "caucasus", (1,), 25),
    (ROOT / "games" / "stalingrad42", "uranus", (1,), 25),
    (ROOT / "games" / "stalingrad42", "campaign", (1,), 25),
    (ROOT / "games" / "axis-allies-1941", "world_1941", (1,), 30),
    # through its first battles: a battle's `per battle` record, cards played in it
    (ROOT / "games" / "no-retreat", "campaign", (1,), 45),
]


@pytest.fixture(scope="module")
def engine_pairs():
    cache = {}

    def get(path):
        if path not in cache:
            cache[path] = _engines(path)
        return cache[path]
    return get


@pytest.mark.parametrize("path,scenario,seeds,actions", DIFFERENTIAL,
                         ids=[f"{p.name}-{s}" for p, s, _, _ in DIFFERENTIAL])
def test_generated_code_plays_the_same_games_as_the_reference(engine_pairs, path, scenario, seeds, actions):
    ref, gen = engine_pairs(path)
    for seed in seeds:
        game = _same_game(ref, gen, scenario, seed, actions)
        if path.name == "tiny":
            assert any(e.get("trace") for e in game.log)  # explanations were compared too


@pytest.mark.parametrize("name", sorted(p.name for p in (DATA / "games").iterdir() if (p / "map.wcmap").exists()))
def test_the_tests_games_play_the_same(name):
    ref, gen = _engines(DATA / "games" / name)
    for scenario in ref.game.scenarios:
        for seed in (1, 2):
            _same_game(ref, gen, scenario, seed)


def test_a_log_made_by_one_evaluator_replays_identically_with_the_other(engine_pairs):
    ref, gen = engine_pairs(ROOT / "games" / "tiny")
    for made, again in ((ref, gen), (gen, ref)):
        original = play(made, "meeting", 5, trace=True)
        replayed = replay(again, "meeting", 5, original.log)
        assert log_text(replayed.log) == log_text(original.log)


# ------------------------------------------------------------------ safety, errors, bounds
def _tiny_with(tmp_path, extra: str):
    """Tiny Front with extra rules in a file of their own (`extra.wcx`, line 1 first)."""
    import shutil

    folder = tmp_path / "tiny"
    shutil.copytree(ROOT / "games" / "tiny", folder)
    (folder / "extra.wcx").write_text(extra)
    game_file = folder / "game.wcx"
    game_file.write_text(game_file.read_text() + '\ninclude "extra.wcx"\n')
    return _engines(folder)


HOSTILE = r"""var note: str = "'''\n'''; raise SystemExit" §3
on turn_start() "Quotes ' \" and \\ and newlines" §3 {
  log "\"); import os; os.system('echo pwned') #"
  set note = "'''\n'''; raise SystemExit"
}
"""


def test_user_text_stays_data(tmp_path):
    ref, gen = _tiny_with(tmp_path, HOSTILE)
    a = play(ref, "meeting", 1, until_turn=1, trace=True)
    b = play(gen, "meeting", 1, until_turn=1, trace=True)
    assert log_text(a.log) == log_text(b.log)
    assert "os.system('echo pwned')" in log_text(b.log)  # the text is in the log, verbatim
    assert b.state.vars["note"] == "'''\n'''; raise SystemExit"
    texts = ["\"); import os; os.system('echo pwned') #", "'''\n'''; raise SystemExit"]
    for line in gen.compiler.source().splitlines():
        for text in texts:  # each text is only ever inside the literal repr() wrote for it
            line = line.replace(repr(text), "")
        assert "pwned" not in line and "SystemExit" not in line, line


LOOPING = """var n: int = 0 §3
procedure spin() "Spin" §3 {
  for x in range(1, 1000000) {
    set n += 1
  }
}
function broken(a: int): int "Broken" §3 = a / (a - a)
on turn_start() "Spinning" §3 {
  spin()
}
"""


def test_evaluation_stays_bounded_with_the_same_located_error(tmp_path):
    ref, gen = _tiny_with(tmp_path, LOOPING)
    errors = []
    for engine in (ref, gen):
        game = start(engine, "meeting", 1, {}, trace=False)
        game.ctx.step_limit = 5_000
        with pytest.raises(RuleError) as info:
            game.run()
        errors.append((info.value.message, info.value.span))
    assert errors[0] == errors[1]
    message, span = errors[1]
    assert "step limit" in message
    assert span.file.endswith("extra.wcx") and span.line in (3, 4)  # the loop or `set n += 1`


def test_run_time_errors_point_at_the_rules(tmp_path):
    ref, gen = _tiny_with(tmp_path, LOOPING)
    for engine in (ref, gen):
        ctx = start(engine, "meeting", 1, {}, trace=False).ctx
        with pytest.raises(RuleError) as info:
            engine.functions["broken"](ctx, (3,), None)
        assert info.value.message == "division by zero"
        assert (info.value.span.file.endswith("extra.wcx"), info.value.span.line) == (True, 7)


def test_a_python_error_inside_generated_code_maps_to_its_rule(tmp_path):
    from warcodex.interpreter.generated import span_of_traceback

    ref, gen = _tiny_with(tmp_path, LOOPING)
    fn = gen.compiler.ns["R_spin"]
    try:
        fn(None)  # no context at all: a Python error inside generated code
    except AttributeError as exc:
        span = span_of_traceback(exc.__traceback__)
        assert span is not None and span.file.endswith("extra.wcx") and span.line in (2, 3, 4)
    else:  # pragma: no cover
        raise AssertionError("expected an error")


def test_the_cache_serves_the_same_code(tmp_path, monkeypatch):
    monkeypatch.setenv("WARCODEX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("WARCODEX_NO_CACHE", raising=False)
    game, _ = check_path(ROOT / "games" / "tiny")
    first = Engine(game, evaluator="generated")
    assert not first.compiler.from_cache
    second = Engine(game, evaluator="generated")
    assert second.compiler.from_cache
    assert second.compiler.source() == first.compiler.source()
    a = play(first, "meeting", 3, trace=True)
    b = play(second, "meeting", 3, trace=True)
    assert log_text(a.log) == log_text(b.log)


def test_compile_shows_the_generated_code_of_a_rule():
    from click.testing import CliRunner

    from warcodex.cli import cli

    result = CliRunner().invoke(cli, ["compile", "tiny", "--show", "crt_column"])
    assert result.exit_code == 0, result.output
    assert "def R_crt_column(ctx, l_attackers, l_target):" in result.output
    assert "def T_crt_column" in result.output  # the traced variant, for explain
    result = CliRunner().invoke(cli, ["compile", "tiny"])
    assert result.exit_code == 0 and "generated units" in result.output
    result = CliRunner().invoke(cli, ["compile", "tiny", "--show", "crt_colum"], standalone_mode=False)
    assert result.exception is not None and "crt_column" in str(result.exception)


def test_generated_functions_take_dsl_locals_as_python_locals():
    game, _ = check_path(ROOT / "games" / "tiny")
    engine = Engine(game, evaluator="generated")
    fn = engine.compiler.ns["B_crt_column"]
    assert list(inspect.signature(fn).parameters) == ["ctx", "l_attackers", "l_target"]
    code = engine.compiler.show("crt_column")
    assert "R_total_attack(ctx, l_attackers, l_target)" in code  # a direct call between rules


# ------------------------------------------------------------------ dice are never memoized
ROLLING = """function die(): int "One die" §3 = roll d6
function via(): int "A rule that only calls the rolling one" §3 = die()
function pair(): int "Two calls in one expression" §3 = via() * 10 + via()
quantity strength(): int "A quantity whose base calls a rolling rule" §3 {
  base: via()
}
function later(n: int): int "Rolls after a call that leads back to it" §3 = if n > 0 then back(n - 1) else roll d6
function back(n: int): int "Rolls only through later" §3 = later(n)
"""


def test_a_rule_that_calls_a_rolling_rule_rolls_at_every_call(tmp_path):
    """Dice are transitive (dependencies.rolls_dice): a function or quantity that rolls only
    through the rules it calls is not memoized either, so two calls in one state are two rolls,
    and a cycle of calls (back -> later -> back) does not hide the roll that follows it."""
    from warcodex.interpreter.dice import FixedDice

    ref, gen = _tiny_with(tmp_path, ROLLING)
    for engine in (ref, gen):
        deps = engine.deps
        names = engine.game.names
        assert [deps.rolls_dice(names[n]) for n in ("back", "later", "pair", "via", "strength")] == [True] * 5
        assert not deps.rolls_dice(names["crt_column"])
        ctx = start(engine, "meeting", 1, {}, trace=False).ctx
        ctx.state.rng = FixedDice([2, 5, 3, 4, 6, 1, 4, 2, 5])
        version = ctx.state.version
        calls = [engine.functions["via"](ctx, (), None), engine.functions["via"](ctx, (), None),
                 engine.functions["pair"](ctx, (), None), engine.quantities["strength"](ctx, (), None),
                 engine.quantities["strength"](ctx, (), None), engine.functions["back"](ctx, (1,), None),
                 engine.functions["back"](ctx, (1,), None)]
        assert ctx.state.version == version  # one state: a memo would have answered
        assert calls == [2, 5, 34, 6, 1, 4, 2], engine.evaluator
        assert ctx.state.rng.remaining == [5]


# ------------------------------------------------------------------ what counts against the bounds
BOUNDS = """function leaf(u: unit): bool "Leaf" §3 = u.steps > 1 and not u is armor
function calls_leaf(u: unit): bool "Calls a leaf" §3 = leaf(u) or u.steps == 3
function twice(k: int): int "Twice" §3 = if k > 0 then twice(k - 1) + twice(k - 1) else 1
function a_range(x: str): int "A range" §3 = sum(i for i in range(1, 3) where count(j for j in [abs(x)]) > 0)
function outer(x: str): int "Outer" §3 = a_range(x) + 1
procedure chooser(s: side) "Chooser" §3 {
  choose h from ["0101", "0102"] by s §3
}
procedure mover(u: unit) "Mover" §3 {
  move_to(u, u.loc)
}
procedure branch(k: int) "Branch" §3 {
  if k > 0 {
    branch(k - 1)
    branch(k - 1)
  }
}
"""


def test_only_rules_that_can_be_entered_again_count_a_call_level(tmp_path):
    ref, gen = _tiny_with(tmp_path, BOUNDS)
    # a recursion, an agent's answer, an effect that fires triggers: counted; reads are not
    assert {"twice", "chooser", "mover", "branch"} <= gen.counted
    assert not {"leaf", "calls_leaf", "a_range", "outer"} & gen.counted
    assert ref.counted == gen.counted
    assert "ctx.enter('twice'" in gen.compiler.show("twice")
    assert "ctx.enter" not in gen.compiler.show("leaf") + gen.compiler.show("calls_leaf")
    # a function that only reads and compares is written inline in its callers: not memoized,
    # not called (its body, `u.steps > 1 and not u is armor`, with the caller's `u`)
    calls_leaf = gen.compiler.show("calls_leaf").split("def R_calls_leaf")[0]
    assert "R_leaf(" not in calls_leaf and "B_leaf(" not in calls_leaf and "> 1" in calls_leaf and "'armor'" in calls_leaf


def test_a_recursion_that_branches_within_the_depth_stops_at_the_step_limit(tmp_path):
    ref, gen = _tiny_with(tmp_path, BOUNDS)
    errors = []
    for engine in (ref, gen):  # 2^60 calls, never deeper than 61: only the steps can stop it
        ctx = start(engine, "meeting", 1, {}, trace=False).ctx
        ctx.steps, ctx.step_limit = 0, 10_000
        with pytest.raises(RuleError) as info:
            engine.procedures["branch"](ctx, (60,), None)
        errors.append(info.value.message)
    assert errors[0] == errors[1] and "step limit (10,000) exceeded" in errors[1]


def test_a_built_in_given_values_it_cannot_use_is_located_at_its_call(tmp_path):
    """Generated code calls built-ins directly and catches their errors once per function: the
    error names the built-in and points at its call, inside a nested aggregate or a rule called
    by another, as the reference does."""
    ref, gen = _tiny_with(tmp_path, BOUNDS)
    for name in ("a_range", "outer"):
        found = []
        for engine in (ref, gen):
            ctx = start(engine, "meeting", 1, {}, trace=False).ctx
            with pytest.raises(RuleError) as info:
                engine.functions[name](ctx, ("a",), None)
            found.append((info.value.message, info.value.span.line, info.value.span.column))
        assert found[0] == found[1]
        message, line, column = found[1]
        assert message.startswith("abs(): these arguments cannot be used") and line == 4
        assert BOUNDS.splitlines()[3][column - 1:].startswith("abs(x)")


NONE_SKIPPED = """function known_distance(n: int): int "none stands for a distance that cannot be traced" §3 =
  if n > 2 then none else n

function nearest_known(): int "the least of the distances known, none skipped" §3 =
  min(known_distance(n) for n in [3, 1, 2])

function farthest_known(): int "the greatest of the distances known, none skipped" §3 =
  max(known_distance(n) for n in [1, 3, 2])

function nothing_known(): int "no distance known: none" §3 =
  min(known_distance(n) for n in [3, 4])
"""


def test_min_and_max_skip_none_as_the_built_in_does(tmp_path):
    """`min(f(x) for x in xs)` where some f(x) are none (a distance to a source that does not
    exist, Stargard's §9.2.1 retreat priority on a board without one) skips them, as `min(a, b)`
    does, in both evaluators: comparing none with a number was a Python TypeError."""
    ref, gen = _tiny_with(tmp_path, NONE_SKIPPED)
    for engine in (ref, gen):
        ctx = start(engine, "meeting", 1, {}, trace=False).ctx
        got = [engine.functions[n](ctx, (), None) for n in ("nearest_known", "farthest_known", "nothing_known")]
        assert got == [1, 2, None]


INLINE_BUILTINS = """function foe(x: side, y: side): bool "Foe" §3 = is_enemy(x, y)
function how_many(xs: list): int "How many" §3 = count(xs)
"""


def test_built_ins_written_inline_answer_as_the_built_in_does(tmp_path):
    """`is_enemy` of two sides and `count` of a list are written inline (codegen._INLINE_BUILTINS);
    any other values go to the built-in, with its located error, as in the reference."""
    ref, gen = _tiny_with(tmp_path, INLINE_BUILTINS)
    for engine in (ref, gen):
        ctx = start(engine, "meeting", 1, {}, trace=False).ctx
        axis, soviet = engine.entities["axis"], engine.entities["soviet"]
        assert engine.functions["foe"](ctx, (axis, soviet), None) is True
        assert engine.functions["foe"](ctx, (axis, axis), None) is False
        assert engine.functions["how_many"](ctx, ((1, 2, 3),), None) == 3
        assert engine.functions["how_many"](ctx, (None,), None) == 0
    errors = []
    for engine in (ref, gen):
        ctx = start(engine, "meeting", 1, {}, trace=False).ctx
        with pytest.raises(RuleError) as info:
            engine.functions["foe"](ctx, (None, engine.entities["axis"]), None)
        errors.append((info.value.message, info.value.span.line, info.value.span.column))
    assert errors[0] == errors[1] and errors[0][0].startswith("expected a side, got")
