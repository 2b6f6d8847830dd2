"""VASSAL 3.7 module export: `warcodex vassal GAME --scenario S -o OUT.vmod`.

    module = build_module("games/tiny", scenario="meeting")   # module.py: everything in memory
    module.write("tiny.vmod")                                  # atomically

Parts: gamedata.py (what the module needs from the rules and the engine), board_svg.py (board
images), counters.py (counter art), charts.py (table images), encoder.py (VASSAL's
SequenceEncoder and piece definitions), catalog.py (the VASSAL classes, attributes and traits we
rely on, with their source files), buildfile.py (buildFile.xml with lxml), module.py (the zip),
command.py (the CLI). See docs/vassal-export.md.
"""

from warcodex.exporters.vassal.module import ExportOptions, Module, build_module

__all__ = ["ExportOptions", "Module", "build_module"]
