"""One rule for a data cell, every task kind's (pairwise and rubric): what a text cell and a name cell may hold.

A text cell (a question, a response, a reference answer, a criterion) is a string: a number is refused, never made
text. A name cell (an id, a model, a slice, a group, an exam, a rubric item id) is text or an integer, kept as its
decimal text (`7` is `7`); a float, a bool, a list or an object is refused (its repr is no name), and so is a missing
value (a null, an empty CSV cell, a key the row lacks): a row is never dropped from a slice or left without a model.
Each refusal is one line naming the file and row (`where`) and the field.
"""

from __future__ import annotations

from typing import Any

from judgebench.core.errors import JudgebenchError


def text_or_integer(value: Any) -> bool:
    """A value a name keeps as text unchanged (a float, a bool, a list or an object would not)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def text_cell(value: Any, where: str, column: str) -> str:
    """A text cell's value: a string, or an error naming the row and field."""
    if not isinstance(value, str):
        raise JudgebenchError(f"{where}: field '{column}' must be text, got {type(value).__name__}")
    return value


def name_cell(value: Any, where: str, column: str, role: str = "") -> str:
    """A name cell's text: text or an integer, never missing or blank; `role` follows the field's name (` (id)`)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise JudgebenchError(f"{where}: field '{column}'{role} is empty (a null, an empty cell or a missing key)")
    if not text_or_integer(value):
        raise JudgebenchError(f"{where}: field '{column}'{role} must be text or an integer, got {type(value).__name__}")
    return str(value)
