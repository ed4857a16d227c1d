"""Exceptions shared by every game."""


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state (the state is unchanged)."""
