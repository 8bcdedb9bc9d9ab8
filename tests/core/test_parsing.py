"""Tests for the strict verdict parser (judgebench.core.parsing).

Each row states the raw judge output, the allowed verdicts and the expected
result explicitly. None means the runner records the judgment as INVALID.
"""

from __future__ import annotations

import pytest

from judgebench.core.parsing import (
    parse_joint_verdicts,
    parse_reply,
    parse_verdict,
    strip_reasoning,
)

AB = ["A", "B"]
ABT = ["A", "B", "TIE"]

LONG_B_MARKER = """Response A gives a broad overview of the topic and cites a few papers,
but it makes a factual error about the training set size and never answers the
second part of the question.

Response B is shorter. It answers both parts, and its citations are accurate.
A reader would come away with a correct picture.

Considering accuracy and completeness, [[B]]"""

LONG_B_SENTENCE = """Both responses address the question about protein folding.

Response A is a long, well-structured essay, but it relies on a 2018 result that
has since been superseded, and it is a bit vague about the method.

Response B is concise and uses the current state of the art.

Therefore, Response B is better."""

LONG_NO_VERDICT = """This is a difficult comparison. Each response takes a different
approach to the question, and a good answer would need a clearer structure.

A careful reader might prefer the first for its detail, or the second for its
brevity; as a judge I find it hard to say which is more useful overall."""

LONG_ARTICLES_THEN_A = """A good answer should cover the history, the method and a
limitation. Response A does all three; Response B skips the limitation.

A is better."""

MARKDOWN_REPORT = """## Analysis of Response A
Response A is thorough and has a clear structure.

## Analysis of Response B
Response B is a bit shorter and misses a key citation.

## Final Verdict
**Response A**"""

JSON_FENCED = """Let me compare the two outputs carefully.

```json
{"reasoning": "Output (b) is more faithful to the sources.", "winner": "B"}
```"""

SINGLE_CASES = [
    # --- whole-output short forms
    ("A", AB, "A"),
    ("B", AB, "B"),
    ("a", AB, "A"),
    ("b\n", AB, "B"),
    ("(A)", AB, "A"),
    ("[[B]]", AB, "B"),
    ("[[a]]", AB, "A"),
    ("Output (a)", AB, "A"),
    ("output (b)", AB, "B"),
    ("Output (b).", AB, "B"),
    ("Response A", AB, "A"),
    ("Assistant B", AB, "B"),
    ("**A**", AB, "A"),
    ("**B**.", AB, "B"),
    ('"A"', AB, "A"),
    ("`B`", AB, "B"),
    # --- explicit labels and markers
    ("Answer: B", AB, "B"),
    ("Verdict: A", AB, "A"),
    ("Final answer: [[A]]", AB, "A"),
    ("**Final Verdict:** **Response B**", AB, "B"),
    ("My final verdict is [[A]].", AB, "A"),
    ("Verdict: B - Response B cites its sources correctly.", AB, "B"),
    ("Winner: Output (a)", AB, "A"),
    ("The answer is: A", AB, "A"),
    ("Final answer: $\\boxed{B}$", AB, "B"),
    ("<answer>A</answer>", AB, "A"),
    (MARKDOWN_REPORT, AB, "A"),
    ("Explanation: both are fine, B is tighter.\n\nFinal verdict:\n\nB", AB, "B"),
    # --- JSON
    ('{"verdict": "B"}', AB, "B"),
    ('{"winner": "A"}', AB, "A"),
    ('{"answer": "B"}', AB, "B"),
    ('{"explanation": "a is an article here", "verdict": "[[A]]"}', AB, "A"),
    (JSON_FENCED, AB, "B"),
    ('{"verdict": "Tie"}', ABT, "TIE"),
    ('{"verdict": "Tie"}', AB, None),
    # --- anchored sentences
    ("The better response is A.", AB, "A"),
    ("Response B is better.", AB, "B"),
    ("I prefer Output (b).", AB, "B"),
    ("I'd go with Response B.", AB, "B"),
    ("Decision: I'll go with Response B", AB, "B"),
    ("Assistant A's answer is better", AB, None),  # possessive: not a pattern
    ("The winner is Assistant A!", AB, "A"),
    ("B wins.", AB, "B"),
    ("This is a hard question, but B is better", AB, "B"),
    ("Although Response A is longer, Response B is clearly better.", AB, "B"),
    ("Response A is better in style, but Response B is better overall.", AB, "B"),
    ("Response A is better than Response B.", AB, "A"),  # comparative: parsed
    ("I prefer A over B.", AB, "A"),
    (LONG_B_SENTENCE, AB, "B"),
    (LONG_ARTICLES_THEN_A, AB, "A"),
    # --- reasoning blocks
    ("<think>Response A is better... no wait.</think>\n[[B]]", AB, "B"),
    ("<thinking>\nA seems fine. [[A]]?\n</thinking>\n\nVerdict: B", AB, "B"),
    ("<reasoning>a long chain of thought</reasoning>A", AB, "A"),
    ("Okay, comparing them, A is more thorough.\n</think>\n\n[[A]]", AB, "A"),
    ("<think>I think [[A]] is right but let me check", AB, None),  # never closed
    # --- long explanations
    (LONG_B_MARKER, AB, "B"),
    (LONG_NO_VERDICT, AB, None),
    ("A\n\nResponse A answers the question; Response B drifts off topic.", AB, "A"),
    ("Both have merit.\n\nB", AB, "B"),
    # --- the article "a" and sentence-initial "A" never count
    ("This is a good response.", AB, None),
    ("A good answer should be concise and cite its sources.", AB, None),
    ("The answer is a bit long, but B is better.", AB, "B"),
    ("Response A is better organised and has a clearer flow.", AB, None),  # hedge
    # --- ambiguous or conflicting
    ("A and B are both good", AB, None),
    ("[[A]] ... on reflection [[B]]", AB, None),
    ("[[A]] because it is correct, so [[A]]", AB, "A"),
    ("Final verdict: [[A]]\n\nWait, actually the answer is [[B]]", AB, None),
    ('Output "[[A]]" if assistant A is better, "[[B]]" if assistant B is better.', AB, None),
    ("Response A\n\nResponse B", AB, None),
    ("The better response is A.\n[[B]]", AB, None),
    ("I don't think Response A is better.", AB, None),
    ("Is Response A better?", AB, None),
    ("Answer: it depends on the reader.", AB, None),
    # --- empty, undecided, not allowed
    ("", AB, None),
    (None, AB, None),
    ("   \n\t ", AB, None),
    ("I cannot decide", AB, None),
    ("Neither.", AB, None),
    ("[[D]]", AB, None),
    # --- tie handling
    ("Tie", ABT, "TIE"),
    ("tie", ABT, "TIE"),
    ("TIE", ABT, "TIE"),
    ("TIE", AB, None),
    ("[[TIE]]", ABT, "TIE"),
    ("[[C]]", ABT, "TIE"),
    ("[[C]]", AB, None),
    ("C", ABT, None),
    ("(C)", ABT, None),
    ("It's a tie.", ABT, "TIE"),
    ("Both responses are equally good.", ABT, "TIE"),
    ("Verdict: tie", AB, None),
    ("tie", ["a", "b", "tie"], "TIE"),  # allowed is case-insensitive
]


@pytest.mark.parametrize(("text", "allowed", "expected"), SINGLE_CASES)
def test_parse_verdict(text: str | None, allowed: list[str], expected: str | None) -> None:
    assert parse_verdict(text, allowed) == expected


DIMS = ["overall_quality", "novelty", "feasibility"]

JOINT_CASES = [
    (
        '{"overall_quality": "A", "novelty": "Tie", "feasibility": "b"}',
        ABT,
        {"overall_quality": "A", "novelty": "TIE", "feasibility": "B"},
    ),
    (  # tie not allowed: that dimension only becomes None
        '{"overall_quality": "A", "novelty": "Tie", "feasibility": "b"}',
        AB,
        {"overall_quality": "A", "novelty": None, "feasibility": "B"},
    ),
    (  # keys by display name, values in several styles
        '{"Overall Quality": "[[A]]", "NOVELTY": "Response B", "Feasibility": "tie"}',
        ABT,
        {"overall_quality": "A", "novelty": "B", "feasibility": "TIE"},
    ),
    (  # one bad dimension
        '{"overall_quality": "A", "novelty": "both are nice", "feasibility": "B"}',
        ABT,
        {"overall_quality": "A", "novelty": None, "feasibility": "B"},
    ),
    (  # non-string value
        '{"overall_quality": 1, "novelty": null, "feasibility": "A"}',
        ABT,
        {"overall_quality": None, "novelty": None, "feasibility": "A"},
    ),
    (  # missing key
        '{"overall_quality": "B", "novelty": "A"}',
        ABT,
        {"overall_quality": "B", "novelty": "A", "feasibility": None},
    ),
    (  # extra unknown key ignored
        '{"overall_quality": "B", "novelty": "A", "feasibility": "A", "clarity": "B"}',
        ABT,
        {"overall_quality": "B", "novelty": "A", "feasibility": "A"},
    ),
    (  # in a fence after reasoning; the earlier example object is ignored
        'The format is {"overall_quality": "A or B"}.\nMy reasoning: ...\n'
        '```json\n{\n  "overall_quality": "B",\n  "novelty": "B",\n  "feasibility": "A"\n}\n```',
        ABT,
        {"overall_quality": "B", "novelty": "B", "feasibility": "A"},
    ),
    (  # think block first; last object that parses wins
        '<think>{"overall_quality": "A"}</think>{"overall_quality": "A"} then '
        '{"overall_quality": "B", "novelty": "TIE", "feasibility": "B"}',
        ABT,
        {"overall_quality": "B", "novelty": "TIE", "feasibility": "B"},
    ),
    (  # per-dimension objects with reasons
        '{"overall_quality": {"verdict": "A", "reason": "more complete"},'
        ' "novelty": {"winner": "B"}, "feasibility": {"reason": "unclear"}}',
        ABT,
        {"overall_quality": "A", "novelty": "B", "feasibility": None},
    ),
    (  # wrapped one level deep
        '{"verdicts": {"overall_quality": "A", "novelty": "A", "feasibility": "B"}}',
        ABT,
        {"overall_quality": "A", "novelty": "A", "feasibility": "B"},
    ),
    (  # non-JSON output
        "Overall quality: A\nNovelty: B\nFeasibility: A",
        ABT,
        {"overall_quality": None, "novelty": None, "feasibility": None},
    ),
    (  # broken JSON (trailing comma) is not repaired
        '{"overall_quality": "A", "novelty": "B", "feasibility": "A",}',
        ABT,
        {"overall_quality": None, "novelty": None, "feasibility": None},
    ),
    (  # JSON without any dimension key
        '{"verdict": "A"}',
        ABT,
        {"overall_quality": None, "novelty": None, "feasibility": None},
    ),
    ("", ABT, {"overall_quality": None, "novelty": None, "feasibility": None}),
    (None, ABT, {"overall_quality": None, "novelty": None, "feasibility": None}),
]


@pytest.mark.parametrize(("text", "allowed", "expected"), JOINT_CASES)
def test_parse_joint_verdicts(
    text: str | None, allowed: list[str], expected: dict[str, str | None]
) -> None:
    assert parse_joint_verdicts(text, DIMS, allowed) == expected


def test_joint_dimension_with_spaces_in_its_name() -> None:
    assert parse_joint_verdicts('{"overall_quality": "A"}', ["Overall Quality"], AB) == {
        "Overall Quality": "A"
    }


def test_parse_reply_single_uses_first_dimension() -> None:
    assert parse_reply("Verdict: B", ["overall"], AB, joint=False) == {"overall": "B"}
    assert parse_reply("hmm", ["overall"], AB, joint=False) == {"overall": None}


def test_parse_reply_joint_dispatches() -> None:
    text = '{"overall_quality": "A", "novelty": "B", "feasibility": "x"}'
    assert parse_reply(text, DIMS, AB, joint=True) == {
        "overall_quality": "A",
        "novelty": "B",
        "feasibility": None,
    }


def test_parse_reply_needs_a_dimension() -> None:
    with pytest.raises(ValueError):
        parse_reply("A", [], AB, joint=False)


@pytest.mark.parametrize(
    "text",
    ["but " * 20000 + "x", "but , " * 20000, "Verdict: " + " " * 50000 + "x", '{"a": ' + "[" * 100000],
)
def test_pathological_input_is_fast_and_invalid(text: str) -> None:
    """Regex backtracking or deep JSON must not hang or crash the parser."""
    assert parse_verdict(text, AB) is None
    assert parse_joint_verdicts(text, ["a"], AB) == {"a": None}


def test_strip_reasoning() -> None:
    assert strip_reasoning("<think>x</think>\n [[A]] ") == "[[A]]"
    assert strip_reasoning("<THINKING>x</THINKING>B") == "B"
    assert strip_reasoning("answer first <think>never closed") == "answer first"
    assert strip_reasoning(None) == ""
