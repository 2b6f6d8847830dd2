"""Scale: rules and maps far larger than any real game cost time linear in their size, a map
costs at most about 1 KB of memory per hex, and the exporters refuse what they cannot draw.

    .venv/bin/python bench/scale.py [--rules-mb 10] [--map 1000]

Rules: Tiny Front plus a generated file of declarations of every kind (unit types, terrain,
quantities with modifiers, functions, procedures, tables), at 1 MB and at --rules-mb MB; the
figure is the ratio of the times per MB (1.0 is linear), CPU time of this process, so the load
of other processes on a shared machine does not count. Maps: a square hex map of --map x --map
hexes, checked; memory per hex from the Python heap (tracemalloc), and `vassal` must refuse to
draw it with a message.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "games" / "tiny"

# one block of generated rules; {i} makes every name unique. Each block checks clean against
# Tiny Front's declarations (sections, terrain, units, the CRT's results).
BLOCK = '''
terrain marsh_{i} "Marsh {i}" §2.2 provisional "generated" {{ move_cost: {a} defense_shift: -1 }}
unit brigade_{i} "Brigade {i}" : infantry_class §2.1 provisional "generated" {{
  attack: {a} defense: {b} move: 4 steps: 2
  at steps 1 {{ attack: 1 defense: 2 }}
}}
quantity strength_{i}(u: unit, h: location): num "strength {i}" §7.2 {{
  base: u.attack
  modifier "forest" + 1 when terrain(h) is forest §7.4
  modifier "mud" * 1/2 round up when weather == mud §8
  modifier "cap" min {b}0 §7.2
}}
function reach_{i}(u: unit, h: location): bool "in reach {i}" §5.1 =
  distance(u.loc, h) <= u.move and not (terrain(h) is swamp) and count(units_at(h)) < 2
procedure shuffle_{i}(u: unit, h: location) "shuffle {i}" §5 {{
  if reach_{i}(u, h) and strength_{i}(u, h) > {a} {{
    move_to(u, h)
    set u.has_moved = true
  }}
}}
table odds_{i} "Odds table {i}" §7.3 provisional "generated" {{
  columns odds: 1:2 1:1 2:1 3:1
  rows roll d6: 1..6 clamp
  row 1: AE | AR | DR1 | DE
  row 2: AR | EX | DR2 | DE
  row 3: EX | DR1 | DR2 | DE
  row 4: DR1 | DR1 | DE | DE
  row 5: DR1 | DR2 | DE | DE
  row 6: DR2 | DR2 | DE | DE
}}
'''


def rules_game(target: Path, size: int) -> Path:
    """A copy of Tiny Front with about `size` bytes of generated rules in `extra.wcx`."""
    shutil.copytree(TINY, target)
    parts, total, i = [], 0, 0
    while total < size:
        block = BLOCK.format(i=i, a=2 + i % 5, b=3 + i % 4)
        parts.append(block)
        total += len(block.encode("utf-8"))
        i += 1
    (target / "extra.wcx").write_text("".join(parts), encoding="utf-8")
    entry = target / "game.wcx"
    entry.write_text(entry.read_text(encoding="utf-8").replace('include "scenarios.wcx"',
                                                                 'include "scenarios.wcx"\ninclude "extra.wcx"'),
                     encoding="utf-8")
    return target


def map_game(target: Path, cols: int, rows: int) -> Path:
    """A copy of Tiny Front on a generated hex map of cols x rows hexes; with 100 columns or
    more, hex ids have 6 or 8 digits (CCCRRR, CCCCRRRR) and the rules' ids are rewritten to match."""
    shutil.copytree(TINY, target)
    digits = max(2, len(str(max(cols, rows))))

    def hex_id(c: int, r: int) -> str:
        return f"{c:0{digits}d}{r:0{digits}d}"

    if digits > 2:
        pad = "0" * (digits - 2)
        for path in target.glob("*.wcx"):
            text = path.read_text(encoding="utf-8")
            path.write_text(re.sub(r'"(\d\d)(\d\d)"', lambda m: f'"{pad}{m.group(1)}{pad}{m.group(2)}"', text), encoding="utf-8")
    west = " ".join(hex_id(1, r) for r in range(5, 9))
    east = " ".join(hex_id(11, r) for r in range(5, 9))
    (target / "map.wcmap").write_text(
        f'map "Generated {cols}x{rows}" provisional "generated for bench/scale.py" {{\n'
        f"  grid hex flat odd cols 1..{cols} rows 1..{rows} ids {'C' * digits}{'R' * digits}\n"
        "  default terrain clear\n"
        f'  location {west} {{ entry_area: "west" }}\n'
        f'  location {east} {{ entry_area: "east" }}\n'
        f"  feature objective: {hex_id(6, 6)} {hex_id(6, 7)}\n"
        "}\n", encoding="utf-8")
    return target


def check_cpu(folder: Path) -> tuple[float, int]:
    """CPU seconds to load and check the game (no parse cache), and its number of errors."""
    from warcodex.dsl.checker import check_path

    os.environ["WARCODEX_NO_CACHE"] = "1"
    try:
        t0 = time.process_time()
        game, diags = check_path(folder)
        return time.process_time() - t0, len(diags.errors)
    finally:
        del os.environ["WARCODEX_NO_CACHE"]


def rules_scaling(tmp: Path, big_mb: float) -> dict:
    from warcodex.dsl.parser import grammar_parser

    grammar_parser()  # the parse tables, once per process
    small = rules_game(tmp / "rules_1mb", 1_000_000)
    large = rules_game(tmp / f"rules_{big_mb:g}mb", int(big_mb * 1_000_000))
    t_small, e_small = check_cpu(small)
    gc.collect()
    t_large, e_large = check_cpu(large)
    ratio = (t_large / big_mb) / t_small
    return {"1 MB": t_small, f"{big_mb:g} MB": t_large, "errors": e_small + e_large, "per-MB ratio": ratio}


def map_memory(tmp: Path, side: int) -> dict:
    from warcodex.dsl.checker import check_path

    folder = map_game(tmp / f"map_{side}", side, side)
    gc.collect()
    tracemalloc.start()
    t0 = time.process_time()
    game, diags = check_path(folder)
    seconds = time.process_time() - t0
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    hexes = side * side
    if diags.errors:
        print("\n".join(d.render() for d in diags.errors[:3]))
    return {"hexes": hexes, "check s": seconds, "errors": len(diags.errors), "KB/hex held": current / hexes / 1024,
            "KB/hex peak": peak / hexes / 1024, "game": game}


def vassal_refuses(game) -> str | None:
    """The message `vassal` gives for this game, or None if it would export it."""
    from warcodex.exporters.vassal.module import ExportOptions, ExportRefused, build_module

    try:
        build_module(game, None, ExportOptions())
    except ExportRefused as exc:
        return str(exc)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules-mb", type=float, default=10.0)
    parser.add_argument("--map", type=int, default=1000, help="side of the square hex map")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as tmp:
        r = rules_scaling(Path(tmp), args.rules_mb)
        print(f"rules: 1 MB checked in {r['1 MB']:.1f} s CPU, {args.rules_mb:g} MB in {r[f'{args.rules_mb:g} MB']:.1f} s CPU; "
              f"time per MB at {args.rules_mb:g} MB / at 1 MB = {r['per-MB ratio']:.2f} (1.00 is linear); "
              f"errors: {r['errors']}")
        m = map_memory(Path(tmp), args.map)
        print(f"map: {m['hexes']:,} hexes checked in {m['check s']:.1f} s CPU, {m['KB/hex held']:.2f} KB per hex held, "
              f"{m['KB/hex peak']:.2f} KB per hex at the peak; errors: {m['errors']}")
        if m["game"] is not None:
            print(f"vassal: {vassal_refuses(m['game']) or 'exported (not refused)'}")


if __name__ == "__main__":
    main()
