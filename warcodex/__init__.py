"""Warcodex: a rules-as-data engine for board wargames.

The package is assembled from the project's top-level folders (see pyproject.toml):
``warcodex.dsl`` (language), ``warcodex.interpreter`` (board, state, evaluation, sequence,
agents), ``warcodex.exporters`` (player aids, VASSAL) and ``warcodex.games`` (bundled games, data
only).
"""

__version__ = "0.1.0"
