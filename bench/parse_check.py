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


def synthetic(folder: Path, copies: int, target: Path) -> Path:
    """The game's rules repeated `copies` times, every rule name renamed per copy (the first copy
    keeps the game, sections, sides and sequence), so the checker sees a game `copies` x larger."""
    shutil.copytree(folder, target)
    extra = []
    rules = [p for p in sorted(folder.glob("*.wcx")) if p.name not in ("game.wcx", "sections.wcx", "sequence.wcx", "scenarios.wcx")]
    from warcodex.dsl.loader import load_game

    game = load_game(folder)
    renamable = sorted((n for n, d in game.names.items() if n and type(d).__name__ in ("Quantity", "Function", "Procedure", "Action", "Movement", "Table")), key=len, reverse=True)
    if not renamable:
        raise ValueError(f"{folder.name} has no rules to replicate")
    # rule names, but not property names after a dot (`u.attack` stays)
    pattern = re.compile(r"(?<![.\w])(" + "|".join(map(re.escape, renamable)) + r")\b")
    for i in range(1, copies):
        for p in rules:
            extra.append(pattern.sub(lambda m: f"{m.group(1)}_{i}", p.read_text(encoding="utf-8")))
    (target / "extra.wcx").write_text(_drop_data_decls("\n".join(extra)), encoding="utf-8")
    entry = target / "game.wcx"
    entry.write_text('include "extra.wcx"\n' + entry.read_text(encoding="utf-8"), encoding="utf-8")
    return target


def _drop_data_decls(text: str) -> str:
    """Keep only rule declarations (renamed); data declarations (terrain, units...) exist once."""
    out, keep = [], True
    for line in text.splitlines():
        if re.match(r"^(terrain|edge|feature|marker|class|unit|var|side_var|unit_var|location_var|option|result|side|alliance)\b", line):
            keep = False
        elif re.match(r"^(quantity|function|procedure|action|movement|table|#|$)", line):
            keep = True
        elif re.match(r"^\S", line) and not line.startswith("}"):
            keep = keep
        if keep:
            out.append(line)
    return "\n".join(out)


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
