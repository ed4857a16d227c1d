"""The package version, stated once: pyproject.toml reads it from here (setuptools' ``attr:``)."""

__version__ = "0.2.0"
