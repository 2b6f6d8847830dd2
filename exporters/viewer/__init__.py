"""The replay viewer: `warcodex view LOG_OR_SAVE -o replay.html`.

    recording, facts, source = load_record("game.log.jsonl")    # the engine replays the log
    html = build_page(recording, facts, source=source)          # one self-contained page

Parts: record.py (the engine's replay, step by step), events.py (what each step did: paths,
arrows, eliminations, dice), board.py (the board image from the shared board renderer, where
counters stand), symbols.py (counter art from the VASSAL counters' functions), data.py (the page's
JSON), page.py (the HTML), static/ (style sheet, script, template), command.py (the CLI).
See docs/viewer.md.
"""

from warcodex.exporters.viewer.page import ViewOptions, build_page
from warcodex.interpreter.recording import Recording, ReplayError, record
from warcodex.exporters.viewer.source import load_record

__all__ = ["Recording", "ReplayError", "ViewOptions", "build_page", "load_record", "record"]
