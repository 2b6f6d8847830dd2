"""What the commands of the command line share: the two consoles (results on stdout, progress and
messages on stderr), finding a game (a folder or a bundled game's name), loading and checking it
with its errors printed, compiling it, and reading `--option NAME=VALUE` pairs.

The CLI (`warcodex/cli.py`) and the commands that live with their feature (the exporters'
`command.py`, `fuzz_command.py`) import these; nothing below the command line does.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.text import Text

from warcodex.dsl.diagnostics import Diagnostic, Severity

# Text printed is mostly the user's (names, titles, paths, messages): never read as console markup
# or emoji codes (a diagnostic at `file:100:21` must not become an emoji); styles are given as
# `style=` or `Text` spans instead.
out = Console(highlight=False, soft_wrap=True, markup=False, emoji=False)
err = Console(stderr=True, highlight=False, soft_wrap=True, markup=False, emoji=False)


def bold(title: str, rest: str = "") -> Text:
    """A bold title followed by plain text."""
    return Text.assemble((title, "bold"), rest)


class UserError(Exception):
    """Bad input that is not located in a rules file (a missing log, a corrupt save...)."""


def bundled_games() -> Path | None:
    """Where the bundled games are: package data of an installed wheel, or the source tree's
    games/ folder for an editable install (whose finder does not expose data-only packages)."""
    try:
        import importlib

        # games/ is a namespace package (data only, no __init__.py): `resources.files` gives a
        # MultiplexedPath whose str() is not a path, so take the package's (first) folder
        return Path(next(iter(importlib.import_module("warcodex.games").__path__)))
    except ModuleNotFoundError:
        import warcodex

        tree = Path(warcodex.__file__).resolve().parent.parent / "games"
        return tree if tree.is_dir() else None


def resolve_game(arg: str) -> Path:
    path = Path(arg)
    if path.exists():
        return path
    root = bundled_games()
    if root is not None and (root / arg).is_dir():
        return root / arg
    known = sorted(p.name for p in root.iterdir() if p.is_dir()) if root is not None else []
    raise click.BadParameter(f"no game folder or bundled game named '{arg}'"
                             + (f" (bundled: {', '.join(known)})" if known else ""), param_hint="GAME")


def declared_game_id(folder: Path) -> str | None:
    """The id a game folder declares (`game aa1941 "..."` in its game.wcx), read from that file
    alone; None when it has none or does not parse (loading the game says why)."""
    from warcodex import inputs
    from warcodex.dsl import ast
    from warcodex.dsl.diagnostics import DiagnosticError
    from warcodex.dsl.parser import parse_text

    entry = folder / "game.wcx"
    try:
        module = parse_text(inputs.read_text(entry, inputs.MAX_RULES_BYTES, "rules file"), str(entry))
    except (inputs.InputError, DiagnosticError):
        return None
    return next((d.name for d in module.decls if isinstance(d, ast.Game)), None)


def recorded_game(game_id: str, folder: str | None = None) -> str:
    """The game folder of a log or a save, for `build_engine`: the folder the record names if it is
    still there (a log records it), else a folder named like the id where the command runs that
    declares it (a user's own game, played from the folder holding it: a save records only the
    id), else the bundled game that declares the recorded id (`aa1941`, whose folder is
    `axis-allies-1941`). A clear error when none has that id: the user names the folder with
    `--game`."""
    if folder and Path(folder).is_dir():
        return folder
    if Path(game_id).is_dir() and declared_game_id(Path(game_id)) == game_id:
        return game_id
    root = bundled_games()
    bundled = sorted(p for p in root.iterdir() if (p / "game.wcx").is_file()) if root is not None else []
    for candidate in bundled:  # a folder named like the id first: no file read
        if candidate.name == game_id and declared_game_id(candidate) == game_id:
            return str(candidate)
    for candidate in bundled:
        if declared_game_id(candidate) == game_id:
            return str(candidate)
    where = f"its folder {folder} is not there and " if folder else ""
    known = ", ".join(f"{declared_game_id(c)} ({c.name})" for c in bundled)
    raise UserError(f"the record is a game of '{game_id}': {where}no bundled game declares that id"
                    + (f" (bundled: {known})" if known else "") + "; name the game's folder with --game FOLDER")


def print_diagnostics(diags: list[Diagnostic]) -> None:
    for d in diags:
        err.print(d.render(), markup=False, style="red" if d.severity is Severity.ERROR else "yellow")


def include_roots() -> tuple[str, ...]:
    """The folders named with `warcodex --include-root DIR` (none outside a command line)."""
    ctx = click.get_current_context(silent=True)
    root = ctx.find_root() if ctx is not None else None
    return tuple(root.params.get("include_roots") or ()) if root is not None else ()


def load_checked(game_arg: str, overlays=(), show_warnings: bool = False):
    """Load and check a game; print errors and raise SystemExit(1) if there are any."""
    from warcodex.dsl.checker import check_path

    game, diags = check_path(resolve_game(game_arg), overlays, include_roots())
    if diags.errors or game is None:
        print_diagnostics(diags.errors + (diags.warnings if show_warnings else []))
        err.print(f"{len(diags.errors)} error(s)", style="bold red")
        raise SystemExit(1)
    return game, diags


def build_engine(game_arg: str, overlays=()):
    from warcodex.interpreter.engine import Engine

    game, _ = load_checked(game_arg, overlays)
    return settled_if_single_job(Engine(game))


# Whether this process does one job and ends: the console script running one command
# (`warcodex.cli.main`), a balance worker playing a batch's games (balance/runner.py). The engines
# it builds then live as long as it does, and settle for play (the compiled rules frozen out of the
# cyclic collector's way, `settle_for_play`). Not in a process that goes on after the job and
# builds other engines (a test invoking `cli` or `run_batch`, a library caller).
SINGLE_JOB = False


def single_job() -> None:
    """Says this process does one job and ends (see SINGLE_JOB): the console script and the
    balance workers call it first."""
    global SINGLE_JOB
    SINGLE_JOB = True


def settled_if_single_job(engine):
    """`engine`, settled for play when this process does one job (see SINGLE_JOB)."""
    if SINGLE_JOB:
        from warcodex.interpreter.engine import settle_for_play

        settle_for_play(engine)
    return engine


def parse_options(pairs) -> dict:
    options = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        options[key] = {"true": True, "false": False}.get(value.lower(), int(value) if value.lstrip("-").isdigit() else value)
    return options


# ------------------------------------------------------------------ records (logs and saves)
def read_log(path: Path) -> tuple[dict, list[dict]]:
    """A log's header and entries, checked for shape (`saves.read_log`)."""
    from warcodex.interpreter.saves import read_log as read

    return read(path)


def is_log(path: Path) -> bool:
    """A Warcodex log starts with a header line whose `format` is warcodex-log (the file is read
    as every record is: regular files only, bounded)."""
    from warcodex.interpreter.saves import SaveError, is_log_text, read_record_text

    try:
        return is_log_text(read_record_text(path))
    except SaveError:
        return False


def read_record(path: Path) -> list[dict]:
    """The log entries of a log or of a save, checked for shape (`saves.read_entries`)."""
    from warcodex.interpreter.saves import read_entries

    return read_entries(path)


def parse_agents(engine, spec: str, seed: int) -> dict:
    """The agents of `--agents` (one per side, or one for all), a usage error if malformed."""
    from warcodex.interpreter.play import agents_for

    try:
        return agents_for(engine, [a for a in spec.split(",")], seed)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--agents") from None
