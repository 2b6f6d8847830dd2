"""Screenshots of exported modules in the real VASSAL, for docs/vassal-export.md.

    .venv/bin/python tests/vassal_real/screenshots.py [OUT_DIR]      (default: docs/images)

Exports Stalingrad '42 (Fall Blau), Tiny Front and No Retreat!, loads each in VASSAL under Xvfb (harness.py)
with the dice rolled and the Counters palette and the turn tracker open, and writes:
  vassal-main.png       the main window: chat, toolbar, map with the set-up, palette, tracker
  vassal-palette.png    the Counters palette at full size
  vassal-tiny-main.png  Tiny Front's main window (its whole map fits)
  vassal-cards.png      No Retreat!'s card table (the decks' piles as VASSAL decks)
  vassal-stargard-cards.png  Stargard Solstice's chits: the cup face down (`pile "cup" face_down`)
Look at them before committing: they are what a player sees.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from vassal_real.harness import find_vassal, run  # noqa: E402


def shoot(game: str, scenario: str, tag: str, work: Path):
    from warcodex.exporters.vassal.module import build_module

    module = build_module(ROOT / "games" / game, scenario)
    vmod = module.write(work / f"{tag}.vmod")
    report = run(find_vassal(), vmod, work, tag, dice=True, screenshots=True)
    if report.failures():
        raise SystemExit(f"{game} in VASSAL: {report.failures()}")
    return report


def main() -> None:
    from PIL import Image

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "images"
    vassal = find_vassal()
    if isinstance(vassal, str):
        raise SystemExit(vassal)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        report = shoot("stalingrad42", "fall_blau", "s42", work)
        main_png = Image.open(work / "s42-main.png").convert("RGB")
        main_png.save(out / "vassal-main.png", optimize=True)
        x, y, w, h = report.windows["Counters"]
        main_png.crop((x, y, x + w, y + h)).save(out / "vassal-palette.png", optimize=True)
        shoot("tiny", "meeting", "tiny", work)
        Image.open(work / "tiny-main.png").convert("RGB").save(out / "vassal-tiny-main.png", optimize=True)
        shoot("no-retreat", "campaign", "nr", work)
        Image.open(work / "nr-map-Cards.png").convert("RGB").save(out / "vassal-cards.png", optimize=True)
        shoot("stargard-solstice", "solstice", "sg", work)
        cards = Image.open(work / "sg-map-Cards.png").convert("RGB")
        cards.resize((cards.width * 2 // 3, cards.height * 2 // 3), Image.LANCZOS).save(out / "vassal-stargard-cards.png", optimize=True)
    print(f"wrote {out}/vassal-main.png, vassal-palette.png, vassal-tiny-main.png, vassal-cards.png, vassal-stargard-cards.png")


if __name__ == "__main__":
    main()
