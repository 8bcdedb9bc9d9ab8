"""The human ratings in a judge's diagnostics are fitted on every battle, not only on the
battles that judge answered (issue 12 §3: they used to move with the judge)."""

from __future__ import annotations

import numpy as np

from judgebench.core.records import JudgmentRecord, swap_verdict
from judgebench.scoring.diagnostics import diagnose
from judgebench.stats.ratings import fit_bt


def _records(judge: str, answer, n: int = 120, seed: int = 3) -> list[JudgmentRecord]:
    """n examples over 5 models, both orders; answer(i, order) -> verdict or None (failed)."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        a, b = rng.choice(5, 2, replace=False)
        label = "A" if rng.random() < 0.5 + 0.1 * (b - a) else "B"
        for order in ("AB", "BA"):
            verdict = answer(i, order, label)
            ok = verdict is not None
            out.append(JudgmentRecord(
                task="t", example_id=f"e{i}", dimension="overall", order=order, judge=judge,
                prompt_hash="h", status="ANSWERED" if ok else "FAILED", verdict=verdict,
                verdict_shown=swap_verdict(verdict) if order == "BA" else verdict,
                error=None if ok else "timeout", failure=None if ok else "error",
                label=label, model_a=f"m{a}", model_b=f"m{b}", length_a=100, length_b=120))
    return out


def _system(records):
    return diagnose(records, n_resamples=200, seed=0)["dimensions"]["overall"]["system"]


def test_two_judges_reports_give_identical_human_ratings():
    full = _records("j/full", lambda i, order, label: label)
    # the second judge fails every third example (both orders) and answers A otherwise
    holey = _records("j/holey", lambda i, order, label: None if i % 3 == 0 else "A")
    one, two = _system(full), _system(holey)
    assert two["n_battles"] == 80 and two["n_battles_human"] == 120 == one["n_battles_human"]
    human_one = {r["model"]: r["human"] for r in one["ratings"]}
    human_two = {r["model"]: r["human"] for r in two["ratings"]}
    assert human_one == human_two  # points and intervals, exactly
    # and they are the fit on all 120 battles
    labels = [r for r in full if r.order == "AB"]
    fit = fit_bt(([r.model_a for r in labels], [r.model_b for r in labels],
                  [1.0 if r.label == "A" else 0.0 for r in labels]))
    for model, stat in human_one.items():
        assert abs(stat["value"] - fit.rating(model)) < 1e-6
    # the fit on the holey judge's answered battles only would differ (what the bug did)
    answered = [r for r in labels if int(r.example_id[1:]) % 3]
    partial = fit_bt(([r.model_a for r in answered], [r.model_b for r in answered],
                      [1.0 if r.label == "A" else 0.0 for r in answered]))
    assert max(abs(partial.rating(m) - fit.rating(m)) for m in fit.models) > 1.0
