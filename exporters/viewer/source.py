"""Where a replay comes from: a log (`play --log`) or a save (`play --save`), read, matched with
its game's rules and replayed by the engine (`record.py`).

A log names its game folder and rules fingerprint; a save names its game and is refused by the
save reader if its rules differ. Either way the replay must reproduce the recorded log; a save's
position must also be the one its log leads to.
"""

from __future__ import annotations

import json
from pathlib import Path

from warcodex.exporters.viewer.record import Recording, ReplayError, record


def load_record(path: str | Path, game: str | None = None, warn=None) -> tuple[Recording, object, str]:
    """(recording, facts, a description of the source) for a log or a save; `game` overrides the
    game folder the record names. `warn(text)` is told about a log made with other rules files."""
    from warcodex.cli import LOG_FORMAT, UserError, build_engine, read_log
    from warcodex.facts import facts_of

    path = Path(path)
    try:
        head = path.open("rb").read(200).decode("utf-8", "replace").lstrip()
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    if f'"format": "{LOG_FORMAT}"' in head.split("\n", 1)[0]:
        header, entries = read_log(path)
        engine = build_engine(game or _game_folder(header))
        if header.get("rules") != engine.fingerprint and warn is not None:
            warn(f"{path} was made with rules {header.get('rules')}, these are {engine.fingerprint}: "
                 "it is shown only if it replays exactly")
        rec = record(engine, header["scenario"], header["seed"], entries, header.get("options") or {},
                     header.get("dice"))
        what = f"log {path.name}"
    else:
        from warcodex.interpreter.saves import SaveError, load_save, state_to_data

        try:
            name = json.loads(path.read_text(encoding="utf-8")).get("game")
        except (json.JSONDecodeError, AttributeError, UnicodeDecodeError):
            raise UserError(f"{path} is neither a Warcodex log nor a save") from None
        if not isinstance(name, str):
            raise UserError(f"{path} is neither a Warcodex log nor a save")
        engine = build_engine(game or name)
        state, _agents, entries = load_save(engine, path)
        rec = record(engine, state.scenario, state.seed, entries, dict(state.options), getattr(state.rng, "rolls", None))
        if state_to_data(rec.engine, rec.final).model_dump() != state_to_data(rec.engine, state).model_dump():
            raise ReplayError(f"{path}: the saved position is not the one its log leads to (a save edited by hand?)")
        what = f"save {path.name}"
        if isinstance(_agents, dict) and not state.over:
            what += " (a game in progress)"
    return rec, facts_of(rec.engine, rec.scenario), what


def _game_folder(header: dict) -> str:
    """The log's game folder if it is still there, else its bundled game of that name."""
    folder = header.get("game_dir")
    if folder and Path(folder).is_dir():
        return folder
    return str(header.get("game"))
