"""Parse + check time of every bundled game (issue target: under 0.5 s for a full game).

    .venv/bin/python bench/parse_check.py

For each game folder under games/: the time to load (parse every file, merge) and check it,
median of 5 runs, (a) without the parsed-file cache and (b) with it (an unchanged game re-checked).
The grammars' parse tables are loaded once beforehand (Lark caches them on disk; the first
process on a machine builds them once). A synthetic game ten times the size of the largest one
(its rules repeated under renamed names) shows how the time scales.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent


def timed(fn, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(folder: Path) -> tuple[float, float, int, int]:
    from warcodex.dsl.checker import check_path

    def uncached():
        os.environ["WARCODEX_NO_CACHE"] = "1"
        try:
            game, diags = check_path(folder)
            assert game is not None and not diags.errors, [d.render() for d in diags.errors]
        finally:
            del os.environ["WARCODEX_NO_CACHE"]

    def cached():
        check_path(folder)

    cached()  # fill the cache
    size = sum(p.stat().st_size for p in folder.rglob("*.wcx"))
    lines = sum(p.read_text(encoding="utf-8").count("\n") for p in folder.rglob("*.wcx"))
    return timed(uncached), timed(cached), size, lines


# the rule declarations a synthetic game repeats (renamed); the rest (data, sections, sides, the
# sequence, scenarios, invariants, triggers) exists once
RULE_KINDS = ("Quantity", "Function", "Procedure", "Action", "Movement", "Table")


def synthetic(folder: Path, copies: int, target: Path) -> Path:
    """The game's rules repeated `copies` times, every rule name renamed per copy (the first copy
    is the game itself), so the checker sees a game `copies` x larger. The rule declarations are
    cut out of the files by their parsed spans, in the game's load order, so an `override` still
    comes after what it overrides."""
    from warcodex.dsl.loader import load_game, load_modules

    shutil.copytree(folder, target)
    game = load_game(folder)
    renamable = sorted((n for n, d in game.names.items() if n and type(d).__name__ in RULE_KINDS), key=len, reverse=True)
    if not renamable:
        raise ValueError(f"{folder.name} has no rules to replicate")
    rules = "\n\n".join(_rule_text(m) for m in load_modules(folder))
    # rule names, but not property names after a dot (`u.attack` stays) nor a tag after `is`
    # (`terrain(h) is unplayable` tests a flag that a function may share its name with)
    pattern = re.compile(r"(?<![.\w])(?<!\bis )(?<!\bis not )(" + "|".join(map(re.escape, renamable)) + r")\b")
    extra = [pattern.sub(lambda m: f"{m.group(1)}_{i}", rules) for i in range(1, copies)]
    (target / "extra.wcx").write_text("\n\n".join(extra) + "\n", encoding="utf-8")
    entry = target / "game.wcx"
    entry.write_text(entry.read_text(encoding="utf-8") + '\ninclude "extra.wcx"\n', encoding="utf-8")
    return target


def _rule_text(module) -> str:
    """The text of a module's rule declarations (with their `override`), in file order."""
    text = Path(module.path).read_text(encoding="utf-8")
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    out = []
    for decl in module.decls:
        if type(decl).__name__ not in RULE_KINDS or decl.span is None:
            continue
        begin = starts[decl.span.line - 1] + decl.span.column - 1
        if decl.override:  # the span starts at the declaration's keyword, after `override`
            begin = text.rindex("override", 0, begin)
        out.append(text[begin:starts[decl.span.end_line - 1] + decl.span.end_column - 1])
    return "\n\n".join(out)


def main() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("WARCODEX_CACHE_DIR", tempfile.mkdtemp(prefix="wcx-bench-cache-"))
    from warcodex.dsl.mapfile import _parser
    from warcodex.dsl.parser import grammar_parser

    t0 = time.perf_counter()
    grammar_parser()
    _parser()
    grammars = time.perf_counter() - t0
    console = Console()
    table = Table(title="parse + check (median of 5)")
    for col in ("game", "rules", "uncached", "cached", "target 0.5 s"):
        table.add_column(col)
    from warcodex.dsl.checker import check_path

    rows = []
    games = []
    for folder in sorted(p for p in (ROOT / "games").iterdir() if (p / "game.wcx").exists()):
        game, diags = check_path(folder)
        if game is None or diags.errors:  # a game being written: not measured
            console.print(f"{folder.name}: skipped, it does not check clean ({len(diags.errors)} error(s))")
            continue
        games.append(folder)
        rows.append((folder.name, *measure(folder)))
    largest = max(games, key=lambda p: sum(f.stat().st_size for f in p.rglob("*.wcx")))
    with tempfile.TemporaryDirectory() as tmp:
        try:
            big = synthetic(largest, 10, Path(tmp) / f"{largest.name}_x10")
            rows.append((f"{largest.name} x10 (synthetic)", *measure(big)))
        except (AssertionError, ValueError) as exc:  # a game being edited while measured
            console.print(f"synthetic x10 of {largest.name} skipped: {str(exc)[:200]}")
    for name, uncached, cached, size, lines in rows:
        ok = "ok" if uncached < 0.5 else "over"
        table.add_row(name, f"{lines} lines, {size / 1024:.0f} KB", f"{uncached * 1000:.0f} ms", f"{cached * 1000:.0f} ms", ok)
    console.print(table)
    console.print(f"grammar tables loaded in {grammars * 1000:.0f} ms (once per process)")


if __name__ == "__main__":
    main()
