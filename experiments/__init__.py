"""Scripts that produce the project's numbers (run from the repository root with python -m)."""
