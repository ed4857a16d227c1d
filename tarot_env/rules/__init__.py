"""The rules layer: game state machines and scoring, with no knowledge of environments."""
