"""The generic engine: board model, game state, evaluation, turn sequence and agents."""
