"""Where a replay comes from: a log (`play --log`) or a save (`play --save`), read, matched with
its game's rules and replayed by the engine (`record.py`).

A log names its game folder and rules fingerprint; a save names its game and is refused by the
save reader if its rules differ. Either way the replay must reproduce the recorded log; a save's
position must also be the one its log leads to.
"""

from __future__ import annotations

from pathlib import Path

from warcodex.interpreter.recording import Recording, ReplayError, record


def load_record(path: str | Path, game: str | None = None, warn=None) -> tuple[Recording, object, str]:
    """(recording, facts, a description of the source) for a log or a save; `game` overrides the
    game folder the record names. `warn(text)` is told about a record made with other rules files.
    The file is read through the validated readers (`interpreter/saves.py`: regular files only,
    bounded, every line's shape checked): SaveError says what is wrong, where."""
    from warcodex.console import build_engine, recorded_game
    from warcodex.facts import facts_of
    from warcodex.interpreter.saves import is_log_text, load_save, read_log, read_record_text, read_save_file, state_to_data

    path = Path(path)
    text = read_record_text(path)
    if is_log_text(text):
        header, entries = read_log(path, text)
        engine = build_engine(game or _game_folder(header))
        if header.get("rules") != engine.fingerprint and warn is not None:
            warn(f"{path} was made with rules {header.get('rules')}, these are {engine.fingerprint}: "
                 "it is shown only if it replays exactly")
        rec = record(engine, header["scenario"], header["seed"], entries, header.get("options") or {},
                     header.get("dice"))
        what = f"log {path.name}"
    else:
        saved, _raw = read_save_file(path, text)
        engine = build_engine(game or recorded_game(saved.game))
        other_rules = saved.rules != engine.fingerprint
        if other_rules and warn is not None:
            warn(f"{path} was made with rules {saved.rules}, these are {engine.fingerprint}: "
                 "it is shown only if its log replays exactly to its position")
        state, agents, entries = load_save(engine, path, force=other_rules)
        rec = record(engine, state.scenario, state.seed, entries, dict(state.options), getattr(state.rng, "rolls", None))
        if state_to_data(rec.engine, rec.final).model_dump() != state_to_data(rec.engine, state).model_dump():
            raise ReplayError(f"{path}: the saved position is not the one its log leads to (a save edited by hand?)")
        what = f"save {path.name}"
        if isinstance(agents, dict) and not state.over:
            what += " (a game in progress)"
    return rec, facts_of(rec.engine, rec.scenario), what


def _game_folder(header: dict) -> str:
    """The log's game folder if it is still there, else the bundled game that declares its id."""
    from warcodex.console import recorded_game

    return recorded_game(str(header.get("game")), header.get("game_dir"))
