"""The package's version, in one place (results, caches and `--version` read it)."""

__version__ = "0.1.0"
