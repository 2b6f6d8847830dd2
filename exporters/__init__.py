"""Exporters that render a loaded game: player aids and VASSAL modules."""
