"""Surface features of a response that judges are known to be swayed by."""

from __future__ import annotations

import re

# "(Smith et al. 2023a)", "(Chen 2021)", "(Smith and Lee, 2020; Wu et al. 2019b)", "[3]", "[1, 4]", "[2-5]"
_AUTHOR_YEAR = re.compile(r"[A-Z][\w'\-]+(?: et al\.?| (?:and|&) [A-Z][\w'\-]+)?,? (?:19|20)\d\d[a-z]?")
_PAREN_GROUP = re.compile(r"\(([^()]*?(?:19|20)\d\d[a-z]?[^()]*?)\)")
_NUMERIC = re.compile(r"\[(\d+(?:\s*[-–,]\s*\d+)*)\]")


def count_citations(text: str) -> int:
    """Count in-text citations: author-year citations inside parentheses and numeric [n] markers."""
    author_year = sum(len(_AUTHOR_YEAR.findall(group)) for group in _PAREN_GROUP.findall(text))
    numeric = sum(len(re.split(r"\s*[,]\s*", group)) for group in _NUMERIC.findall(text))
    return author_year + numeric


def response_length(text: str) -> int:
    """Length in characters (the papers' length measure)."""
    return len(text)
