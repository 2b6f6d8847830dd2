"""The reliability campaign: hostile inputs of every class the CLI reads or writes, generated with
hypothesis, run through the `warcodex` entry point in this process, each within a time bound.

    .venv/bin/python bench/reliability.py [--inputs 10000] [--seed 1] [--classes saves,logs,...]

Every input ends in one of: **accepted** (exit 0), **refused** (exit 1 or 2 with a message),
**traceback** (an exception escaped `warcodex.cli.main`, or it reported an internal error),
**hang** (it ran past the time bound), **silent** (an input known to be impossible, such as a
save with a unit of -5 steps or a log cut at a line boundary, was accepted). The campaign passes
when the last three counts are 0. `tests/test_reliability.py` runs a small slice in CI.

Classes (see docs/reliability.md): saves, logs, rules, overlays, includes, outputs. Each input is
generated from Tiny Front's rules, a save and a log of one of its games. Engines are built once
per rules folder and reused (`build_engine` of warcodex.console and warcodex.cli is memoized here), so a replay costs the
replay, not a re-check of the rules.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import errno
import functools
import io
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "games" / "tiny"
TIME_BOUND = 30  # seconds one input may take (a whole tiny game is about 1 s)
CLASSES = ("saves", "logs", "rules", "overlays", "includes", "outputs")


# ------------------------------------------------------------------ running one input
class Hang(BaseException):
    """The time bound ran out (a BaseException: the CLI's handlers must not turn it into a message)."""


@dataclass
class Outcome:
    kind: str  # accepted, refused, traceback, hang, silent
    detail: str = ""


@dataclass
class Tally:
    counts: Counter = field(default_factory=Counter)
    by_class: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)

    inputs: Counter = field(default_factory=Counter)  # generated inputs per class (an input may run several commands)

    def add(self, cls: str, what: str, outcome: Outcome) -> None:
        self.counts[outcome.kind] += 1
        self.by_class.setdefault(cls, Counter())[outcome.kind] += 1
        if outcome.kind in ("traceback", "hang", "silent") and len(self.failures) < 50:
            self.failures.append((cls, what, outcome))

    @property
    def bad(self) -> int:
        return self.counts["traceback"] + self.counts["hang"] + self.counts["silent"]

    def total(self) -> int:
        return sum(self.counts.values())


def run_cli(argv: list[str], bound: float = TIME_BOUND) -> tuple[int | None, str, str]:
    """Run `warcodex ARGV` in this process: (exit status or None if an exception escaped, stdout,
    stderr). A run past `bound` seconds raises Hang."""
    from warcodex import cli

    out, err = io.StringIO(), io.StringIO()

    def alarm(signum, frame):
        raise Hang()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, bound)
    code: int | None = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                cli.main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except Hang:
                raise
            except BaseException as exc:  # noqa: BLE001 - what the campaign counts
                err.write(f"\nESCAPED {type(exc).__name__}: {exc}\n")
                code = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        from warcodex.dsl import diagnostics

        diagnostics._cache.clear()  # sources remembered for carets: not kept across inputs
    return code, out.getvalue(), err.getvalue()


def judge(argv: list[str], impossible: bool = False, bound: float = TIME_BOUND) -> Outcome:
    """Run and classify; `impossible` inputs must be refused."""
    from warcodex.cli import INTERNAL_ERROR

    try:
        code, out, err = run_cli(argv, bound)
    except Hang:
        return Outcome("hang", " ".join(argv))
    if code is None or code == INTERNAL_ERROR or "Traceback (most recent call last)" in err:
        return Outcome("traceback", err[-600:])
    if code == 0:
        return Outcome("silent", out[-300:]) if impossible else Outcome("accepted")
    if not err.strip() and not (argv[0] == "fmt" and out.strip()):  # fmt --check reports on stdout
        return Outcome("traceback", f"exit {code} without a message")
    if "\N{HUNDRED POINTS SYMBOL}" in err or "\N{HUNDRED POINTS SYMBOL}" in out:
        return Outcome("traceback", "an emoji in a diagnostic")
    return Outcome("refused")


# ------------------------------------------------------------------ fixtures made once
class Fixtures:
    """A work folder with Tiny Front, a mid-game save and a short log, made once per process."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.game = work / "tiny"
        shutil.copytree(TINY, self.game)
        self.save = work / "mid.save.json"
        self.log = work / "short.log.jsonl"
        for argv in (["play", str(self.game), "--seed", "3", "--max-actions", "12", "--save", str(self.save)],
                     ["play", str(self.game), "--seed", "5", "--until", "2", "--log", str(self.log)]):
            code, out, err = run_cli(argv, 300)
            assert code == 0, err
        self.save_data = json.loads(self.save.read_text(encoding="utf-8"))
        self.log_lines = self.log.read_text(encoding="utf-8").splitlines()
        self.counter = 0

    def path(self, name: str) -> Path:
        self.counter += 1
        folder = self.work / f"in{self.counter}"
        folder.mkdir()
        return folder / name

    def game_copy(self) -> Path:
        self.counter += 1
        target = self.work / f"g{self.counter}"
        shutil.copytree(self.game, target)
        return target


def memoize_engines() -> None:
    """Reuse the engine of a rules folder across inputs while its files are unchanged."""
    from warcodex import cli, console

    def build_engine(game_arg: str, overlays=()):
        folder = console.resolve_game(game_arg)
        stamp = tuple(sorted((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in Path(folder).glob("*.wc*")))
        return _engine_for(str(folder), stamp, tuple(overlays))

    # the CLI's commands and those living with their feature (aids, vassal, fuzz) share console's
    cli.build_engine = console.build_engine = build_engine


@functools.lru_cache(maxsize=64)
def _engine_for(folder: str, stamp: tuple, overlays: tuple):
    from warcodex.console import load_checked
    from warcodex.interpreter.engine import Engine

    game, _ = load_checked(folder, overlays)
    return Engine(game)


# ------------------------------------------------------------------ hostile values
JSON_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70), st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "martians", "0101", "9999", "eliminated", ":100:", "[bold]x[/]", "\x00", "é" * 3, "a" * 300,
                     "move", "axis", "soviet", "combat", "infantry", "disrupted"]),
    st.text(max_size=12),
)
JSON_VALUE = st.recursive(JSON_LEAF, lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(st.text(max_size=6), c, max_size=4)),
                          max_leaves=12)


def _paths(node, prefix=()):
    """Every path into a JSON tree (dict keys and list indexes)."""
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node[:6]):
            yield from _paths(v, prefix + (i,))


def _set(node, path, value, delete=False):
    for p in path[:-1]:
        node = node[p]
    if delete:
        if isinstance(node, dict):
            node.pop(path[-1], None)
        elif isinstance(node, list) and node:
            node.pop(path[-1])
    else:
        node[path[-1]] = value


# Edits a save can never come from (each must be refused): (name, edit of the save's JSON)
def _unit(d, i=0):
    return d["state"]["units"][i]


IMPOSSIBLE_SAVES = {
    "steps -5": lambda d: _unit(d).update(steps=-5),
    "steps above max": lambda d: _unit(d).update(steps=_unit(d)["max_steps"] + 1),
    "max_steps changed": lambda d: _unit(d).update(max_steps=_unit(d)["max_steps"] + 3, steps=1),
    "no steps, not eliminated": lambda d: _unit(d).update(steps=0, box=None),
    "duplicate unit id": lambda d: _unit(d, 1).update(id=_unit(d)["id"]),
    "unit id beyond next_unit_id": lambda d: _unit(d).update(id=d["state"]["next_unit_id"] + 5),
    "unit type unknown": lambda d: _unit(d).update(type="zeppelin"),
    "unit side unknown": lambda d: _unit(d).update(side="martians"),
    "unit off the map": lambda d: _unit(d).update(loc="9999"),
    "unit on the map and in a box": lambda d: _unit(d).update(loc="0505", box="eliminated"),
    "unit in an unknown box": lambda d: _unit(d).update(loc=None, box="the moon"),
    "unit marker unknown": lambda d: _unit(d).update(markers=["cursed"]),
    "unit variable unknown": lambda d: _unit(d).update(vars={"mana": 3}),
    "unit variable mistyped": lambda d: _unit(d).update(vars={"has_moved": "yes"}),
    "active martians": lambda d: d["state"].update(active="martians"),
    "winner martians": lambda d: d["state"].update(winner="martians"),
    "phase unknown": lambda d: d["state"].update(phase="siesta"),
    "scenario unknown": lambda d: d["state"].update(scenario="atlantis"),
    "turn -5": lambda d: d["state"]["position"].update(turn=-5),
    "turn 1000": lambda d: d["state"]["position"].update(turn=1000),
    "op beyond the turn": lambda d: d["state"]["position"].update(op=10_000),
    "in_allow negative": lambda d: d["state"]["position"].update(in_allow=-1),
    "turn_order martians": lambda d: d["state"].update(turn_order=["martians"]),
    "turn_order empty": lambda d: d["state"].update(turn_order=[]),
    "turn_order twice": lambda d: d["state"].update(turn_order=["axis", "axis"]),
    "variable unknown": lambda d: d["state"]["vars"].update(mana=1),
    "variable mistyped": lambda d: d["state"]["vars"].update(weather=7),
    "side variable mistyped": lambda d: d["state"]["side_vars"].setdefault("axis", {}).update(vp="many"),
    "side variable of martians": lambda d: d["state"]["side_vars"].update(martians={"vp": 1}),
    "location variable off the map": lambda d: d["state"]["loc_vars"].update({"9999": {}}),
    "location marker unknown": lambda d: d["state"]["loc_markers"].update({"0505": ["cursed"]}),
    "option unknown": lambda d: d["state"]["options"].update(warp_drive=True),
    "ended but not over": lambda d: d["state"].update(ended=True, over=False),
    "next_unit_id 0": lambda d: d["state"].update(next_unit_id=0),
    "rng null": lambda d: d["state"].update(rng=None),
    "rng empty": lambda d: d["state"].update(rng=[]),
    "rng wrong size": lambda d: d["state"].update(rng=[3, [1, 2, 3], None]),
    "rng index out of range": lambda d: d["state"]["rng"][1].__setitem__(624, 10_000),
    "agent rng null": lambda d: d["agents"]["axis"].update(rng=None),
    "agent pass_probability 7": lambda d: d["agents"]["axis"].update(pass_probability=7),
    "agent human": lambda d: d["agents"]["axis"].update(kind="human"),
    "agent missing": lambda d: d["agents"].pop("soviet"),
    "agent for martians": lambda d: d["agents"].update(martians={"kind": "first"}),
    "log entry without keys": lambda d: d["log"].append({"k": "action"}),
    "log entry renumbered": lambda d: d["log"][0].update(n=99) if d["log"] else d["log"].append({"n": 5}),
    "log action unknown": lambda d: d["log"].append({"k": "action", "n": len(d["log"]), "turn": 1, "phase": "movement",
                                                     "side": "axis", "action": "teleport", "args": {}, "text": "x"}),
    "hand of unknown cards": lambda d: d["state"].update(hands={"axis": ["ace"]}),
    "deck unknown": lambda d: d["state"].update(decks={"tarot": {"draw": [], "discard": []}}),
    "rules of another game": lambda d: d.update(game="chess"),
    "other rules fingerprint": lambda d: d.update(rules="0000000000000000"),
    "version 2": lambda d: d.update(version=2),
}


def save_strategy():
    impossible = st.sampled_from(sorted(IMPOSSIBLE_SAVES)).map(lambda k: ("impossible", k))
    structural = st.tuples(st.just("structure"), st.integers(0, 10**6), JSON_VALUE, st.booleans())
    textual = st.tuples(st.just("text"), st.integers(0, 10**6), st.integers(0, 255), st.sampled_from(["flip", "cut", "insert"]))
    return st.one_of(impossible, impossible, structural, textual)



def _damage_bytes(path, text: bytes, pos: int, byte: int, how: str):
    """Write `text` with one byte-level damage at `pos`: a bit flip, a cut, or an insertion."""
    raw = bytearray(text)
    pos %= len(raw)
    if how == "flip":
        raw[pos] ^= (byte or 1)
    elif how == "cut":
        del raw[pos:]
    else:
        raw[pos:pos] = bytes([byte]) * 3
    path.write_bytes(bytes(raw))
    return path, False, f"{how} at byte {pos}"


def make_save(fx: Fixtures, spec) -> tuple[Path, bool, str]:
    data = copy.deepcopy(fx.save_data)
    kind = spec[0]
    path = fx.path("s.json")
    if kind == "impossible":
        IMPOSSIBLE_SAVES[spec[1]](data)
        path.write_text(json.dumps(data), encoding="utf-8")
        return path, True, spec[1]
    if kind == "structure":
        _, pick, value, delete = spec
        paths = [p for p in _paths(data) if p]
        target = paths[pick % len(paths)]
        _set(data, target, value, delete)
        path.write_text(json.dumps(data), encoding="utf-8")
        return path, False, f"{'delete' if delete else 'set'} {'.'.join(map(str, target))}"
    _, pos, byte, how = spec
    return _damage_bytes(path, json.dumps(data).encode("utf-8"), pos, byte, how)


# ------------------------------------------------------------------ logs
def log_strategy():
    impossible = st.sampled_from(["cut one line", "cut the end marker", "cut half", "other fingerprint",
                                  "count too high", "entry renumbered", "empty"]).map(lambda k: ("impossible", k))
    structural = st.tuples(st.just("structure"), st.integers(0, 10**6), st.integers(0, 10**6), JSON_VALUE, st.booleans())
    textual = st.tuples(st.just("text"), st.integers(0, 10**6), st.integers(0, 255), st.sampled_from(["flip", "cut", "insert"]))
    return st.one_of(impossible, structural, structural, textual)


def make_log(fx: Fixtures, spec) -> tuple[Path, bool, str]:
    lines = list(fx.log_lines)
    path = fx.path("g.log.jsonl")
    kind = spec[0]
    if kind == "impossible":
        what = spec[1]
        if what == "cut one line":
            lines = lines[:-2] + lines[-1:]
        elif what == "cut the end marker":
            lines = lines[:-1]
        elif what == "cut half":
            lines = lines[: len(lines) // 2]
        elif what == "other fingerprint":
            header = json.loads(lines[0])
            header["rules"] = "0000000000000000"
            lines[0] = json.dumps(header)
        elif what == "count too high":
            header = json.loads(lines[0])
            header["entries"] += 1
            lines[0] = json.dumps(header)
        elif what == "entry renumbered":
            entry = json.loads(lines[1])
            entry["n"] = 7
            lines[1] = json.dumps(entry)
        else:
            lines = []
        path.write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
        return path, True, what
    if kind == "structure":
        _, line_pick, pick, value, delete = spec
        i = line_pick % len(lines)
        data = json.loads(lines[i])
        paths = [p for p in _paths(data) if p]
        target = paths[pick % len(paths)]
        _set(data, target, value, delete)
        lines[i] = json.dumps(data)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path, False, f"line {i + 1}: {'delete' if delete else 'set'} {'.'.join(map(str, target))}"
    _, pos, byte, how = spec
    return _damage_bytes(path, ("\n".join(lines) + "\n").encode("utf-8"), pos, byte, how)


# ------------------------------------------------------------------ rules
SNIPPETS = {
    "deep not": lambda n: f'function deep_{n}(): bool "d" §7 = {"not " * (n * 7 % 3000)}true\n',
    "deep sum": lambda n: f'function sum_{n}(): int "s" §7 = {" + ".join(["1"] * (n % 2000 + 1))}\n',
    "deep else if": lambda n: 'function chain(): int "c" §7 = ' + "".join(f"if turn == {i} then {i} else " for i in range(n % 400)) + "0\n",
    "huge number": lambda n: f'function big(): int "b" §7 = {"9" * (n % 6000 + 1)}\n',
    "huge decimal": lambda n: f'function dec(): num "b" §7 = 1.{"5" * (n % 5000 + 1)}\n',
    "self call": lambda n: 'procedure lose(u: unit) "l" §7 { lose(u) }\non turn_start "t" §7 { for u in all_units() { lose(u) } }\n',
    "mutual call": lambda n: 'function fa(x: int): int "a" §7 = fb(x) + 1\nfunction fb(x: int): int "b" §7 = fa(x)\n'
                             'on turn_start "t" §7 { if fa(1) > 0 { set weather = mud } }\n',
    "quantity loop": lambda n: 'quantity qq(x: int): int "q" §7 { base: qq(x) }\non turn_start "t" §7 { if qq(1) > 0 { set weather = mud } }\n',
    "conditional recursion": lambda n: f'procedure down(k: int) "d" §7 {{ if k > 0 {{ down(k - 1) }} }}\non turn_start "t" §7 {{ down({n % 5000}) }}\n',
    "trigger loop": lambda n: 'on placed(u: unit, h: location) "again" §7 { place(infantry, axis, h) }\n',
    "emit loop": lambda n: 'on turn_end "e" §7 { emit(turn_end) }\n',
    "range bomb": lambda n: f'on turn_start "r" §7 {{ let xs = list(range(1, {10 ** (n % 14)})) }}\n',
    "doubling": lambda n: 'on turn_start "d" §7 { let s = "ab"\n  for i in range(1, 80) { set s = s + s } }\n',
    "squaring": lambda n: 'on turn_start "d" §7 { let x = 3\n  for i in range(1, 80) { set x = x * x } }\n',
    "odds 0:0": lambda n: 'function zz(): odds "z" §7 = 0:0\n',
    "dice d0": lambda n: f'function rr(): int "r" §7 = roll {n % 3}d0\n',
    "many dice": lambda n: f'function rr(): int "r" §7 = roll {10 ** (n % 9)}d6\n',
    "line 100": lambda n: "\n" * 99 + " " * 99 + "unknown_thing\n",
    "markup": lambda n: 'function m(): int "[bold red]x[/] :100: :smile:" §7 = nope\n',
    "control chars": lambda n: 'function c(): int "\x1b[31mred\x07" §7 = 1\n',
    "nul": lambda n: 'function z(): int "z" §7 = 1\x00\n',
    "string as range": lambda n: 'on turn_start "s" §7 { let xs = range("a", 3) }\n',
    "unit bomb": lambda n: 'on turn_start "u" §7 { for i in range(1, 200000) { place(infantry, axis, "0101") } }\n',
}
BAD_BYTES = [b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80"]


def rules_strategy():
    snippet = st.tuples(st.just("snippet"), st.sampled_from(sorted(SNIPPETS)), st.integers(0, 10**6))
    bytes_ = st.tuples(st.just("bytes"), st.sampled_from(["combat.wcx", "components.wcx", "sequence.wcx"]),
                       st.integers(0, 10**6), st.sampled_from(BAD_BYTES))
    token = st.tuples(st.just("token"), st.sampled_from(["combat.wcx", "components.wcx", "tables.wcx", "movement.wcx"]),
                      st.integers(0, 10**6), st.sampled_from(["{", "}", "(", ")", "§", "0:0", "d0", "-1", '"', "9" * 40,
                                                              "not not not", "::", "\x00", "override"]))
    return st.one_of(snippet, snippet, bytes_, token)


def make_rules(fx: Fixtures, spec) -> tuple[Path, str]:
    game = fx.game_copy()
    kind = spec[0]
    if kind == "snippet":
        _, name, n = spec
        (game / "hostile.wcx").write_text(SNIPPETS[name](n), encoding="utf-8")
        entry = game / "game.wcx"
        entry.write_text(entry.read_text(encoding="utf-8") + '\ninclude "hostile.wcx"\n', encoding="utf-8")
        return game, name
    _, file, pos, what = spec
    path = game / file
    raw = path.read_bytes()
    pos %= len(raw)
    insert = what if isinstance(what, bytes) else what.encode("utf-8")
    path.write_bytes(raw[:pos] + insert + raw[pos:])
    return game, f"{kind} {what!r} into {file} at {pos}"


# ------------------------------------------------------------------ overlays
OVERLAY_TARGETS = [("unit", "panzer", "attack"), ("unit", "panzer", "move"), ("unit", "infantry", "steps"),
                   ("unit", "rifle", "defense"), ("terrain", "forest", "move_cost"), ("game", "tiny", "dice"),
                   ("game", "tiny", "turn_order"), ("scenario", "meeting", "last_turn"),
                   ("scenario", "meeting", "first_turn"), ("edge", "major_river", "move_cost")]
OVERLAY_VALUES = ["0:0", "1:0", '"eight"', "-1", "0", "1000000", "1000000000", "d0", "d6", "2d6", "[]", "[axis, axis]",
                  "[martians]", "[soviet, axis]", "true", "none", "1/0", "1/2", "99999999999999", "forest", "3", "7", "2:1",
                  '""', "[1, 2]", "-0", "100", "1000"]


def overlay_strategy():
    return st.tuples(st.sampled_from(OVERLAY_TARGETS), st.sampled_from(OVERLAY_VALUES),
                     st.sampled_from(["check", "play", "play", "vassal"]))


def make_overlay(fx: Fixtures, spec) -> tuple[Path, Path, str, str]:
    (kind, name, key), value, command = spec
    game = fx.game_copy()
    overlay = game / "overlay.wcx"
    overlay.write_text(f"override {kind} {name} {{ {key}: {value} }}\n", encoding="utf-8")
    return game, overlay, command, f"{kind} {name}.{key} = {value} ({command})"


# ------------------------------------------------------------------ includes and paths
def _include_targets(fx: Fixtures) -> dict:
    work = fx.work
    fifo = work / "fifo.wcx"
    if not fifo.exists():
        os.mkfifo(fifo)
    loop = work / "loop.wcx"
    if not loop.is_symlink():
        os.symlink(work / "loop2.wcx", loop)
        os.symlink(loop, work / "loop2.wcx")
    outside = work / "outside.wcx"
    outside.write_text('function secret(): int "s" §7 = 1\n', encoding="utf-8")
    return {"parent traversal": "../../../../../../etc/hostname", "absolute": "/etc/passwd", "dev zero": "/dev/zero",
            "dev null": "/dev/null", "fifo": str(fifo), "symlink loop": str(loop), "folder": "/tmp",
            "missing": "nowhere.wcx", "outside": str(outside), "long name": "x" * 5000 + ".wcx",
            "proc": "/proc/self/mem", "self": "game.wcx"}


def include_strategy():
    return st.tuples(st.sampled_from(["parent traversal", "absolute", "dev zero", "dev null", "fifo", "symlink loop",
                                      "folder", "missing", "outside", "long name", "proc", "self"]),
                     st.sampled_from(["include", "map", "symlinked include"]))


def make_include(fx: Fixtures, spec) -> tuple[Path, str, bool]:
    what, how = spec
    target = _include_targets(fx)[what]
    game = fx.game_copy()
    entry = game / "game.wcx"
    text = entry.read_text(encoding="utf-8")
    if how == "include":
        text = f'include "{target}"\n' + text
    elif how == "map":
        text = text.replace('map: "map.wcmap"', f'map: "{target}"')
    else:
        try:
            os.symlink(target, game / "linked.wcx")
        except OSError:
            pass
        text = 'include "linked.wcx"\n' + text
    entry.write_text(text, encoding="utf-8")
    # reading these must be refused (dev/null and the game's own entry are readable, but as rules
    # /dev/null is not a regular file and including game.wcx is a cycle)
    return game, f"{how} {what}", True


# ------------------------------------------------------------------ outputs
FAULTS = {"EACCES": errno.EACCES, "ENOSPC": errno.ENOSPC, "EROFS": errno.EROFS, "EIO": errno.EIO}


def output_strategy():
    return st.tuples(st.sampled_from(["play --log", "play --save", "coverage --html", "fmt", "vassal", "aids", "demo"]),
                     st.sampled_from(["through a file", "a folder in the way", "proc", "sys", "fault os.replace",
                                      "fault mkstemp", "fault mkdir", "fault rename", "umask 027"]),
                     st.sampled_from(sorted(FAULTS)))


@contextlib.contextmanager
def fault(where: str, code: int):
    """Make one file operation fail with an OSError, as a full disk or a read-only folder would."""
    import tempfile as tf

    targets = {"fault os.replace": (os, "replace"), "fault mkstemp": (tf, "mkstemp"), "fault mkdir": (Path, "mkdir"),
               "fault rename": (os, "rename")}
    if where not in targets:
        yield
        return
    owner, name = targets[where]
    original = getattr(owner, name)

    def failing(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    setattr(owner, name, failing)
    try:
        yield
    finally:
        setattr(owner, name, original)


def output_case(fx: Fixtures, spec) -> tuple[list[str], str, str, Path]:
    command, how, code_name = spec
    base = fx.path("out")
    base.parent.mkdir(exist_ok=True)
    if how == "through a file":
        blocker = base.parent / "file"
        blocker.write_text("x")
        target = blocker / "out"
    elif how == "a folder in the way":
        target = base
        target.mkdir()
        (target / "mine.txt").write_text("the user's")
    elif how == "proc":
        target = Path("/proc/warcodex-campaign") / "out"
    elif how == "sys":
        target = Path("/sys/warcodex-campaign-out")
    else:
        target = base
    game = str(fx.game)
    argv = {"play --log": ["play", game, "--until", "1", "--log", str(target)],
            "play --save": ["play", game, "--until", "1", "--save", str(target)],
            "coverage --html": ["coverage", game, "--html", str(target)],
            "vassal": ["vassal", game, "-o", str(target)],
            "aids": ["aids", game, "-o", str(target)],
            "demo": ["demo", game, "-o", str(target)]}.get(command)
    if command == "fmt":
        copy_dir = fx.game_copy()
        victim = copy_dir / "combat.wcx"
        victim.write_text(victim.read_text(encoding="utf-8").replace("  base: u.attack", "base:   u.attack"), encoding="utf-8")
        argv = ["fmt", str(victim)]
        target = victim
    return argv, how, code_name, target


def run_output(fx: Fixtures, spec) -> tuple[Outcome, str]:
    argv, how, code_name, target = output_case(fx, spec)
    what = f"{' '.join(argv[:1])} {spec[0]} / {how}"
    if how == "umask 027":
        old = os.umask(0o027)
        try:
            outcome = judge(argv)
        finally:
            os.umask(old)
        if outcome.kind == "accepted":
            files = [target] if target.is_file() else [p for p in target.rglob("*") if p.is_file()] if target.exists() else []
            wrong = [p for p in files if (p.stat().st_mode & 0o777) not in (0o640, 0o644)]
            if spec[0] == "fmt":
                wrong = []  # fmt keeps the mode the file had
            if not files or wrong:
                return Outcome("traceback", f"modes {[oct(p.stat().st_mode & 0o777) for p in wrong]} under umask 027"), what
        return outcome, what
    with fault(how, FAULTS[code_name]):
        outcome = judge(argv)
    if outcome.kind == "accepted":
        # a fault in an operation this writer does not use changes nothing; anything else must fail
        must_fail = not how.startswith("fault ") and spec[0] != "fmt"
        if must_fail or not target.exists():
            return Outcome("silent", f"{what}: reported success without its output"), what
    if spec[0] != "fmt" and how == "a folder in the way" and not (target / "mine.txt").exists():
        return Outcome("silent", "the user's file was lost"), what
    leftovers = [p for p in target.parent.glob(".*") if ".tmp" in p.name or ".new-" in p.name] if target.parent.exists() else []
    if leftovers:
        return Outcome("traceback", f"temporary files left: {leftovers[:3]}"), what
    return outcome, what


# ------------------------------------------------------------------ the campaign
def run_class(cls: str, fx: Fixtures, n: int, seed: int, tally: Tally, progress=None) -> None:
    """`n` hypothesis-generated inputs of one class, each judged and counted."""

    def record(what: str, outcome: Outcome) -> None:
        tally.add(cls, what, outcome)
        if progress:
            progress()

    if cls == "saves":
        strategy = save_strategy()

        def one(spec):
            path, impossible, what = make_save(fx, spec)
            outcome = judge(["play", str(fx.game), "--load", str(path), "--max-actions", "4"], impossible)
            record(f"save {what}", outcome)
    elif cls == "logs":
        strategy = log_strategy()

        def one(spec):
            path, impossible, what = make_log(fx, spec)
            for argv in (["replay", str(path), "--game", str(fx.game)], ["explain", str(path), "--all"]):
                outcome = judge(argv, impossible and argv[0] == "replay")
                record(f"log {what} ({argv[0]})", outcome)
    elif cls == "rules":
        strategy = rules_strategy()

        def one(spec):
            game, what = make_rules(fx, spec)
            outcome = judge(["check", str(game)])
            record(f"rules {what} (check)", outcome)
            if outcome.kind == "accepted":
                record(f"rules {what} (play)", judge(["play", str(game), "--until", "3"]))
            if spec[0] == "token":
                record(f"rules {what} (fmt)", judge(["fmt", "--check", str(game)]))
    elif cls == "overlays":
        strategy = overlay_strategy()

        def one(spec):
            game, overlay, command, what = make_overlay(fx, spec)
            outcome = judge(["check", str(game)])
            record(f"overlay {what} (check)", outcome)
            if outcome.kind == "accepted" and command == "play":
                record(f"overlay {what} (play)", judge(["play", str(game), "--until", "2"]))
            elif outcome.kind == "accepted" and command == "vassal":
                record(f"overlay {what} (vassal)", judge(["vassal", str(game), "-o", str(game / "m.vmod")]))
    elif cls == "includes":
        strategy = include_strategy()
        secret = Path("/etc/hostname").read_text(errors="replace").strip() if Path("/etc/hostname").exists() else None

        def one(spec):
            game, what, impossible = make_include(fx, spec)
            outcome = judge(["check", str(game)], impossible, bound=10)
            if outcome.kind == "refused" and secret and "parent traversal" in what:
                _, out, err = run_cli(["check", str(game)], 10)
                if secret in err.replace(str(game), ""):
                    outcome = Outcome("silent", "the file outside the game was read and shown")
            record(f"include {what}", outcome)
    elif cls == "outputs":
        strategy = output_strategy()

        def one(spec):
            if spec[0] in ("aids", "demo") and random.Random(str(spec)).random() < 0.85:
                spec = ("vassal",) + spec[1:]  # PDF writers are slow: a sample of them
            outcome, what = run_output(fx, spec)
            record(what, outcome)
    else:
        raise ValueError(f"unknown class {cls}")

    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate], derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def campaign(spec):
        tally.inputs[cls] += 1
        one(spec)

    from hypothesis import seed as hypothesis_seed

    hypothesis_seed(seed)(campaign)()


# relative cost of one input of each class, to split a total number of inputs
# (a save or a log costs milliseconds; a rules mutant is checked and played, an output writes a game)
WEIGHTS = {"saves": 110, "logs": 70, "rules": 10, "overlays": 6, "includes": 3, "outputs": 2}


def campaign(total: int, seed: int, classes=CLASSES, work: Path | None = None, progress=None) -> Tally:
    """Run about `total` inputs split over `classes`; return the tally."""
    memoize_engines()
    tally = Tally()
    owned = work is None
    work = Path(tempfile.mkdtemp(prefix="wcx-reliability-")) if owned else work
    old_env = {k: os.environ.get(k) for k in ("WARCODEX_CACHE_DIR", "COLUMNS")}
    os.environ["WARCODEX_CACHE_DIR"] = str(work / "cache")
    os.environ["COLUMNS"] = "120"
    try:
        fx = Fixtures(work)
        weight = sum(WEIGHTS[c] for c in classes)
        for cls in classes:
            n = max(1, round(total * WEIGHTS[cls] / weight))
            run_class(cls, fx, n, seed, tally, progress)
    finally:
        for k, v in old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if owned:
            shutil.rmtree(work, ignore_errors=True)
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description="Warcodex reliability campaign (hostile inputs through the CLI)")
    parser.add_argument("--inputs", type=int, default=10_000, help="about how many inputs in all")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--classes", default=",".join(CLASSES))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    classes = [c for c in args.classes.split(",") if c]
    started = time.perf_counter()
    done = [0]

    def progress():
        done[0] += 1
        if done[0] % 250 == 0:
            print(f"  {done[0]} runs, {time.perf_counter() - started:.0f} s", file=sys.__stderr__, flush=True)

    tally = campaign(args.inputs, args.seed, classes, progress=progress)
    seconds = time.perf_counter() - started
    print(f"reliability campaign: {sum(tally.inputs.values())} hostile inputs, {tally.total()} runs of the CLI, "
          f"in {seconds:.0f} s (seed {args.seed})")
    for cls in classes:
        c = tally.by_class.get(cls, Counter())
        print(f"  {cls:9} {tally.inputs[cls]:5} inputs: " +
              ", ".join(f"{c[k]} {k}" for k in ("accepted", "refused", "traceback", "hang", "silent")))
    c = tally.counts
    print(f"  total     {c['accepted']} accepted, {c['refused']} refused, {c['traceback']} tracebacks, {c['hang']} hangs, "
          f"{c['silent']} silent acceptances")
    for cls, what, outcome in tally.failures[:20]:
        print(f"FAILED [{cls}] {outcome.kind}: {what}\n    {outcome.detail[:400]}")
    raise SystemExit(1 if tally.bad else 0)


if __name__ == "__main__":
    main()
