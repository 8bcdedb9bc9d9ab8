"""Defaults shared by the arena modules and its command line (kept import-light for the CLI)."""

DEFAULT_ALPHA = 0.01  # anomalous-voter test level
DEFAULT_REPEATS = 20  # robustness: repeats per annotator share
FRACTIONS = (0.5, 0.75, 0.9)  # robustness: annotator shares
TOP_K = 5  # judge vs human: top-k overlap
