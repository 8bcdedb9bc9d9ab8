"""Collecting and using human votes: candidate pairs, the voting server (annotate), arena ratings and freezing votes into a task."""
