"""Self-preference: does the judge favour responses from its own model family more than the humans do?

Family of a model name: the name lower-cased, without any `provider/` path (`openai/gpt-4o` ->
`gpt-4o`), matched against model-name prefixes, longest first (FAMILY_PREFIXES, extended or
overridden by the task YAML's `model_families: {prefix: family}`). The judge's family comes from its
id the same way; built-in and replay judges have none.

Per dimension, over the examples where exactly one of the two responses is from the judge's family
(an "own-family" response) and the judge answered at least one order:
  judge win rate  = mean over those examples of the judge's score for the own-family response
                    (win 1, tie 0.5, loss 0; averaged over the answered orders)
  human win rate  = the same from the human label (TIE and BOTH_BAD count 0.5)
  self_preference = judge win rate - human win rate, with a 95% percentile bootstrap interval over
                    examples (resampling.py; seed and resamples of the run).
Positive: the judge favours its own family beyond what the humans did. "not applicable" with the
reason when there are no model names, the judge has no family, or no example has an own-family
response. Unanswered judgments are left out (not scored 0) since the question is about the judge's
preferences when it answers.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from judgebench.core.records import VERDICT_SCORE, JudgmentRecord
from judgebench.core.text import md_cell, md_text
from judgebench.stats.resampling import percentile_interval, resample_batches

FAMILY_PREFIXES: dict[str, str] = {
    "gpt": "openai", "chatgpt": "openai", "o1": "openai", "o3": "openai", "o4": "openai",
    "text-davinci": "openai", "claude": "anthropic", "gemini": "google", "gemma": "google",
    "palm": "google", "llama": "meta", "meta-llama": "meta", "qwen": "qwen", "qwq": "qwen",
    "deepseek": "deepseek", "mistral": "mistral", "mixtral": "mistral", "magistral": "mistral",
    "codestral": "mistral", "ministral": "mistral", "grok": "xai", "command": "cohere",
    "phi": "microsoft", "kimi": "moonshot", "moonshot": "moonshot", "glm": "zhipu",
    "chatglm": "zhipu", "sonar": "perplexity", "nova": "amazon", "yi": "01-ai",
}  # fmt: skip
_SCORE = {**VERDICT_SCORE, "BOTH_BAD": 0.5}
BATCH = 200


def family(model: str | None, prefixes: dict[str, str]) -> str | None:
    """The family of a model name by its longest matching prefix, or None."""
    if not model:
        return None
    name = model.strip().lower().rsplit("/", 1)[-1]
    for prefix in sorted(prefixes, key=len, reverse=True):
        if name.startswith(prefix.lower()):
            return prefixes[prefix]
    return None


def families(overrides: dict[str, str] | None = None) -> dict[str, str]:
    """The default prefixes with a task's `model_families` on top."""
    return {**FAMILY_PREFIXES, **(overrides or {})}


def _not_applicable(reason: str) -> dict[str, Any]:
    return {"applicable": False, "reason": reason}


def _own_side_scores(records: list[JudgmentRecord], own: str, prefixes: dict[str, str]) -> tuple[list[float], list[float]]:
    """(judge score, human score) for the own-family response, one pair per usable example."""
    by_example: dict[str, list[JudgmentRecord]] = defaultdict(list)
    for record in records:
        by_example[record.example_id].append(record)
    judge, human = [], []
    for group in by_example.values():
        first = group[0]
        a_own, b_own = family(first.model_a, prefixes) == own, family(first.model_b, prefixes) == own
        if a_own == b_own:
            continue
        verdicts = [_SCORE[r.verdict] for r in group if r.status == "ANSWERED" and r.verdict is not None]
        if not verdicts:
            continue
        judged = sum(verdicts) / len(verdicts)  # P(A wins), ties half
        said = _SCORE[first.label]
        judge.append(judged if a_own else 1 - judged)
        human.append(said if a_own else 1 - said)
    return judge, human


def self_preference(
    records: list[JudgmentRecord],
    judge_id: str,
    *,
    overrides: dict[str, str] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Per dimension: the judge's own-family win rate minus the humans', with an interval (see the module docstring)."""
    prefixes = families(overrides)
    own = family(judge_id, prefixes)
    if not any(r.model_a or r.model_b for r in records):
        return _not_applicable("the task has no model names")
    if own is None:
        return _not_applicable("the judge's id has no known model family (add its prefix to the task's model_families)")
    out: dict[str, Any] = {"applicable": True, "judge_family": own, "dimensions": {}}
    for dimension in dict.fromkeys(r.dimension for r in records):
        judge, human = _own_side_scores([r for r in records if r.dimension == dimension], own, prefixes)
        out["dimensions"][dimension] = _dimension_stat(np.asarray(judge), np.asarray(human), own, n_resamples, seed)
    return out


def _dimension_stat(judge: np.ndarray, human: np.ndarray, own: str, n_resamples: int, seed: int) -> dict[str, Any]:
    if judge.size == 0:
        return _not_applicable(f"no example has exactly one {own}-family response that the judge answered")
    diff = judge - human
    low = high = None
    if n_resamples > 0:
        samples = np.concatenate([diff[draws].mean(axis=1) for draws in resample_batches(diff.size, n_resamples, seed, BATCH)])
        lo, hi = percentile_interval(samples)
        low, high = float(lo), float(hi)
    return {
        "applicable": True,
        "n": int(diff.size),
        "judge_win_rate": float(judge.mean()),
        "human_win_rate": float(human.mean()),
        "self_preference": {"value": float(diff.mean()), "ci_low": low, "ci_high": high, "n": int(diff.size)},
    }


def format_self_preference(result: dict[str, Any]) -> list[str]:
    """Markdown lines for the report."""
    lines = ["### Self-preference (own model family)", ""]
    if not result.get("applicable"):
        return [*lines, f"Not applicable: {result.get('reason')}.", ""]
    lines += [f"Judge family: {md_text(result['judge_family'])}.", "", "| dimension | examples | judge win rate | human win rate | judge - human [95% CI] |", "|---|---|---|---|---|"]
    for dimension, d in result["dimensions"].items():
        if not d.get("applicable"):
            lines.append(f"| {md_cell(dimension)} | 0 | - | - | not applicable: {d['reason']} |")
            continue
        s = d["self_preference"]
        ci = f" [{s['ci_low']:+.3f}, {s['ci_high']:+.3f}]" if s["ci_low"] is not None else ""
        lines.append(f"| {md_cell(dimension)} | {d['n']} | {d['judge_win_rate']:.3f} | {d['human_win_rate']:.3f} | {s['value']:+.3f}{ci} |")
    return [*lines, ""]
