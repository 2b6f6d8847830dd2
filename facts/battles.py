"""Typical battles as facts: the odds of each battle a game declares, for the player aids.

A game declares its typical battles as *scenes* (docs/odds.md): `test` blocks in the files of its
`scenes/` folder, each a position whose last line is the combat. Every scene there is a typical
battle the aid shows. Each is resolved by the engine from the rules (`interpreter/odds.py`), with
the overlays the game was loaded with:

* exactly, when the enumeration needs at most `EXACT_REPLAYS` replays (a CRT attack needs a few;
  a small dice battle a few hundred);
* otherwise by Monte Carlo, `MC_BATTLES` battles played with dice on one process, its 95%
  confidence half-width given with it (a large battle; a blind draw).

These budgets keep an aid's build time modest: the aid says which battles are exact and which are
estimates. A CRT attack also gets the report of `interpreter/attack_report.py`: the column its
result is read in and the chance of each result of the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

EXACT_REPLAYS = 1500  # an exact answer needing more replays is estimated by Monte Carlo instead
MC_BATTLES = 1000  # battles of such an estimate: a 95% half-width of at most 0.031
SCENES_DIR = "scenes"


@dataclass
class CrtResults:
    """A CRT attack: the table its result is read on, the final column(s), each cell's chance."""

    table: str
    title: str
    provisional: bool
    note: str | None
    columns: list[str]
    results: dict[str, float]  # the cell (`DR1`) -> probability, most likely first


@dataclass
class BattleFacts:
    """One typical battle and its odds, as the engine computed them."""

    name: str  # the scene's test block
    label: str
    citations: list[str]
    file: str  # the scene file, relative to the game's folder
    attacker: str  # the side attacking
    method: str  # "exact" or "monte carlo"
    battles: int  # Monte Carlo: battles played
    half_width: float  # Monte Carlo: 95% confidence half-width of each probability
    note: str  # why it is not exact, when it is not
    outcomes: dict[str, float]  # attacker wins, defender wins, mutual destruction, both remain
    results: list[tuple[float, str]]  # what the combat does to the units, most likely first
    expected_losses: dict[str, dict[str, float]]  # attacker/defender -> unit type -> expected losses
    crt: CrtResults | None
    provisional: list[str] = field(default_factory=list)  # the provisional data the result depends on


def scene_files(game) -> list[Path]:
    folder = Path(game.root) / SCENES_DIR
    return sorted(folder.glob("*.wcx")) if folder.is_dir() else []


def battle_facts(engine) -> list[BattleFacts]:
    """The typical battles of the engine's game (none without a scenes/ folder), computed once."""
    cache = engine.derived_cache
    if "battles" not in cache:
        cache["battles"] = _battles(engine.game)
    return cache["battles"]


def _battles(game) -> list[BattleFacts]:
    from warcodex.dsl.checker import check_path
    from warcodex.dsl.diagnostics import DiagnosticError
    from warcodex.interpreter import odds
    from warcodex.interpreter.attack_report import attack_report
    from warcodex.interpreter.chance import NotEnumerable

    files = scene_files(game)
    if not files:
        return []
    checked, diags = check_path(game.root, game.overlays, tests=True, scenes=files)
    if diags.errors or checked is None:
        raise DiagnosticError(diags.errors)
    wanted = {str(f) for f in files}
    out = []
    for test in checked.tests.values():
        if test.header.span.file not in wanted:
            continue
        scene = odds.scene_from_test(checked, test, casualties="cheapest")
        start = scene.run.ctx.state.snapshot()
        try:
            result = odds.exact(scene, EXACT_REPLAYS)
        except NotEnumerable as exc:
            scene.run.ctx.install(start)
            result = odds.monte_carlo(scene, precision=1e-9, workers=1, max_battles=MC_BATTLES, batch=MC_BATTLES,
                                      note=exc.message)
        report = attack_report(scene) if result.method == "exact" else None
        crt = None
        if report is not None:
            crt = CrtResults(report.table, report.title, report.provenance == "provisional", report.provenance_note,
                             report.columns, report.results)
        out.append(BattleFacts(
            test.name, test.header.label or test.name, list(test.header.citations),
            f"{SCENES_DIR}/{Path(test.header.span.file).name}",
            result.attacker, result.method, result.battles, result.half_width, result.note, result.outcomes,
            result.effects, result.losses, crt, result.provisional))
    return out
