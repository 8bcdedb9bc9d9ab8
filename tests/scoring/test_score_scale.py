"""score and report at scale (issue 16, third round): every fast path gives the reference path's figures.

The fast paths (exact_sums.py, ratings.unique_rows, the per-round bincounts, the grouped records,
the usage shortcut) are each compared here with the original computation on small synthetic runs,
bit for bit; the reference is the original code, reached by switching the shortcut off.
"""

from __future__ import annotations

import json
from contextlib import nullcontext

import numpy as np
import pytest

from judgebench.core.records import JudgmentRecord, swap_verdict
from judgebench.scoring import diagnostics, metrics
from judgebench.scoring.judgment_table import (
    dimension_tables,
    group_by_dimension,
    reuse_tables,
)
from judgebench.scoring.usage import summarize_counts, summarize_usage
from judgebench.stats import exact_sums, ratings, ratio_bootstrap


def _records(n: int, *, seed: int = 0, dimensions: tuple[str, ...] = ("overall",),
             shared_call: bool = False) -> list[JudgmentRecord]:
    """n examples x dimensions x both orders: a judge that mostly prefers the longer response, some
    invalid and failed judgments, labels A/B/TIE/BOTH_BAD, six models, two slices, citations."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        la, lb = (int(v) for v in rng.integers(50, 2000, 2))
        label = ("A", "B", "TIE", "BOTH_BAD", "A", "B")[int(rng.integers(0, 6))]
        for order in ("AB", "BA"):  # one call per order, shared by the dimensions when shared_call
            status = (("ANSWERED",) * 8 + ("INVALID", "FAILED"))[int(rng.integers(0, 10))]
            verdict = ("A" if la > lb else "B") if rng.random() < 0.8 else ("A", "B", "TIE")[int(rng.integers(0, 3))]
            answered = status == "ANSWERED"
            for dimension in dimensions:
                out.append(JudgmentRecord(
                    task="synth", example_id=f"e{i}", dimension=dimension, order=order, judge="builtin/test",
                    prompt_hash=f"h{i}{order}" + ("" if shared_call else dimension), status=status,
                    verdict=verdict if answered else None,
                    verdict_shown=(verdict if order == "AB" else swap_verdict(verdict)) if answered else None,
                    label=label, model_a=f"m{i % 6}", model_b=f"m{(i + 1 + i // 6) % 6}",
                    length_a=la, length_b=lb, citations_a=int(rng.integers(0, 6)), citations_b=int(rng.integers(0, 6)),
                    slices={"subject": ("bio", "cs")[i % 2]}, tokens_in=100 + i % 7, tokens_out=5,
                    cost_usd=0.25 if i % 3 else None, latency_s=0.5 + (i % 11) / 4,
                    error="boom" if status == "FAILED" else None,
                ))
    return out


def _reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """Switch every exact-sum shortcut off: the original multi-threaded products over all examples."""
    for module in (metrics, diagnostics):
        monkeypatch.setattr(module, "sums_are_exact", lambda *args: False)


# ---------------------------------------------------------------- exact_sums


def test_sums_are_exact_only_for_dyadic_finite_values_below_2_53():
    quarters = np.array([[0.0, 0.25], [0.5, 1.0], [2.0, 0.75]])
    assert exact_sums.sums_are_exact(quarters, 1_000)
    assert not exact_sums.sums_are_exact(np.array([[1 / 3]]), 10)  # a mean over three dimensions
    assert not exact_sums.sums_are_exact(np.array([[np.nan]]), 10)
    assert not exact_sums.sums_are_exact(np.array([[0.1]]), 10)
    # 1.0 scaled by 2**10 times a weight of 2**43 reaches 2**53: no longer exact in every order
    assert not exact_sums.sums_are_exact(np.array([[1.0]]), 2.0**43)
    assert exact_sums.sums_are_exact(np.array([[1.0]]), 2.0**42)


def test_row_types_group_equal_rows_and_refuse_varied_ones():
    rows = np.array([[1.0, 0.5], [0.0, 0.5], [1.0, 0.5], [1.0, 0.5], [0.0, 0.5], [1.0, 0.5], [1.0, 0.5], [0.0, 0.5]])
    first, types = exact_sums.row_types(rows)
    assert len(first) == 2  # two distinct rows
    assert np.array_equal(rows[first][types], rows)
    assert exact_sums.row_types(np.arange(100.0).reshape(50, 2)) is None  # 50 distinct rows of 50


def test_type_counts_are_the_per_round_bincounts_summed_per_type():
    rng = np.random.default_rng(4)
    types = rng.integers(0, 5, 40)
    draws = rng.integers(0, 40, size=(7, 40))
    # per round: each example's count, summed over the examples of each type
    want = np.stack([np.bincount(types, weights=np.bincount(row, minlength=40), minlength=5) for row in draws])
    assert np.array_equal(exact_sums.type_counts(draws, types, 5), want)


# ---------------------------------------------------------------- metrics and diagnostics


def test_metrics_bootstrap_fast_path_equals_the_reference(monkeypatch):
    recs = _records(1500)
    calls = []
    real = metrics.type_counts
    monkeypatch.setattr(metrics, "type_counts", lambda *a: calls.append(1) or real(*a))
    fast = metrics.score_records(recs, n_resamples=300, seed=5, slice_columns=("subject",))
    assert calls, "the grouped path was not taken: this test would compare the reference with itself"
    _reference(monkeypatch)
    assert metrics.score_records(recs, n_resamples=300, seed=5, slice_columns=("subject",)) == fast


def test_mean_over_three_dimensions_keeps_the_reference_product(monkeypatch):
    recs = _records(300, dimensions=("a", "b", "c"))
    fast = metrics.score_records(recs, n_resamples=200, seed=1)
    _reference(monkeypatch)
    assert metrics.score_records(recs, n_resamples=200, seed=1) == fast
    assert fast[0]["mean"]["accuracy"].ci_low is not None


def test_diagnostics_fast_path_equals_the_reference(monkeypatch):
    recs = _records(1200)
    monkeypatch.setattr(exact_sums, "_MAX_TYPE_SHARE", 1.0)  # group whatever the share of distinct rows
    grouped = []
    real = ratio_bootstrap.row_types
    monkeypatch.setattr(ratio_bootstrap, "row_types", lambda *a: grouped.append(real(*a)) or grouped[-1])
    fast = diagnostics.diagnose(recs, n_resamples=200, seed=3)
    assert any(g is not None for g in grouped), "the grouped path was not taken"
    _reference(monkeypatch)
    assert diagnostics.diagnose(recs, n_resamples=200, seed=3) == fast


def test_diagnostics_of_no_examples_still_give_empty_intervals():
    recs = [r for r in _records(30) if r.label == "BOTH_BAD"]
    assert recs
    out = diagnostics.diagnose(recs, both_bad="exclude", n_resamples=20, seed=0)
    assert out["dimensions"]["overall"]["n_examples"] == 0
    assert out["dimensions"]["overall"]["accuracy"]["accuracy"]["value"] is None


# ---------------------------------------------------------------- Bradley-Terry design and draws


def test_unique_rows_equal_numpy_unique_on_rows():
    rng = np.random.default_rng(2)
    rows = np.column_stack([rng.integers(0, 6, 5000), rng.integers(0, 6, 5000), rng.normal(size=5000).round(1),
                            rng.choice([0.0, 0.5, 1.0, -1.0], 5000)])
    want, want_inverse = np.unique(rows, axis=0, return_inverse=True)
    got, inverse = ratings.unique_rows(rows)
    assert np.array_equal(got, want) and np.array_equal(inverse, want_inverse.reshape(-1))
    signed = np.array([[0.0, 1.0], [-0.0, 1.0], [0.0, 2.0]])  # -0.0 equals 0.0: one row, written 0.0
    got, inverse = ratings.unique_rows(signed)
    assert got.tolist() == [[0.0, 1.0], [0.0, 2.0]] and inverse.tolist() == [0, 0, 1]
    assert not np.signbit(got[0, 0])


def test_rows_already_sorted_and_distinct_are_taken_as_they_are_and_others_sorted():
    """unique_rows' shortcut for rows already in order (a subset's sorted cells) gives np.unique's answer; rows
    out of order, repeated, or equal up to the sign of a zero take the sort."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        rows = np.unique(rng.integers(0, 4, (int(rng.integers(1, 40)), int(rng.integers(1, 4)))).astype(float), axis=0)
        if rng.random() < 0.5 and len(rows) > 1:  # out of order, or one row repeated
            rows = rows[rng.permutation(len(rows))] if rng.random() < 0.5 else np.vstack([rows, rows[-1:]])
        if rng.random() < 0.2:
            rows[rows == 0] = -0.0
        want, want_inverse = np.unique(rows + 0.0, axis=0, return_inverse=True)
        got, inverse = ratings.unique_rows(rows)
        assert np.array_equal(got, want) and np.array_equal(inverse, want_inverse.reshape(-1))
        assert not np.signbit(got).any()


def test_bootstrap_draws_equal_one_bincount_over_round_unit_cells():
    rng = np.random.default_rng(8)
    a, b = rng.integers(0, 5, 400).astype(str), rng.integers(5, 9, 400).astype(str)
    y = rng.choice([0.0, 0.5, 1.0], (400, 1))
    design = ratings._build_design(a, b, y, np.zeros((400, 0)), np.ones(400))
    got = ratings._draw_block(design, np.random.default_rng(1), 30)
    draws = np.random.default_rng(1).integers(0, 400, size=(30, 400), dtype=np.int32)
    flat = design.battle_unit[draws].astype(np.int64) + (np.arange(30) * len(design.unit_count))[:, None]
    want = np.bincount(flat.ravel(), minlength=30 * len(design.unit_count)).reshape(30, -1).T.astype(float)
    assert np.array_equal(got, want)


def test_style_fits_are_unchanged_by_the_lexsort_design(monkeypatch):
    recs = _records(400)
    fast = diagnostics.diagnose(recs, n_resamples=50, seed=2)

    def numpy_unique(rows):
        found, inverse = np.unique(rows + 0.0, axis=0, return_inverse=True)
        return found, inverse.reshape(-1)

    monkeypatch.setattr(ratings, "unique_rows", numpy_unique)
    assert diagnostics.diagnose(recs, n_resamples=50, seed=2) == fast


# ---------------------------------------------------------------- grouping, counts and usage


def test_records_are_grouped_once_inside_a_scoring_scope():
    recs = _records(20)
    assert group_by_dimension(recs) is not group_by_dimension(recs)
    with reuse_tables(recs):
        grouped = group_by_dimension(recs)
        assert group_by_dimension(recs) is grouped
        dimension_tables(recs, "tie")
        assert group_by_dimension(recs) is grouped
        assert group_by_dimension(list(recs)) is not grouped  # another list: its own grouping


def test_usage_of_one_record_per_call_by_hand():
    recs = _records(4)[:4]  # e0 AB, e0 BA, e1 AB, e1 BA
    usage = summarize_usage(recs, joint=False)
    # e0 has no price (i % 3 == 0): its calls are unpriced unless failed; e1 costs 0.25 per call
    replied_e0 = sum(r.status != "FAILED" for r in recs[:2])
    assert usage.priced_calls == 2 and usage.unpriced_calls == replied_e0
    assert usage.cost_usd == (None if replied_e0 else 0.5)
    assert usage.tokens_in == 100 + 100 + 101 + 101 and usage.tokens_out == 20  # tokens_in = 100 + i % 7
    assert usage.latency_p50_s == pytest.approx(0.625)  # latencies 0.5, 0.5, 0.75, 0.75: median 0.625


def test_usage_and_counts_equal_the_general_path_in_joint_mode(monkeypatch):
    """Joint mode: one call per (example, order) shared by every dimension, the general grouping; the
    same records with one dimension each give the same figures through the one-record-per-call path."""
    joint = _records(200, dimensions=("a", "b"), shared_call=True)
    separate = [r for r in joint if r.dimension == "a"]
    assert summarize_usage(joint, joint=True) == summarize_usage(separate, joint=False)
    counts = summarize_counts(joint, 200)
    assert counts.invalid == sum(r.status == "INVALID" for r in joint)
    assert counts.failed == sum(r.status == "FAILED" for r in joint)
    assert counts.answered == sum(r.status == "ANSWERED" for r in joint)


def test_blas_for_is_the_plain_context_when_not_exact():
    assert isinstance(exact_sums.blas_for(False), nullcontext)


# ---------------------------------------------------------------- tables


def _reference_table(by_key, both_bad):
    """The per-example table as judgment_table built it before this round: record by record."""
    from judgebench.scoring.judgment_table import (
        _STATUS_CODE,
        _STATUSES,
        _VERDICTS,
        CODE,
        ORDER_KEYS,
        ORDERS,
        _confidence_columns,
        _derived_columns,
        is_answered,
    )

    slots = {}
    for (ex, order), r in by_key.items():
        slots.setdefault(ex, [None, None])[order == "BA"] = r
    orders = tuple(o for i, o in enumerate(ORDERS) if any(s[i] is not None for s in slots.values()))
    firsts, pairs = [], []
    for pair in slots.values():
        first = pair[0] if pair[0] is not None else pair[1]
        if both_bad == "exclude" and first.label == "BOTH_BAD":
            continue
        firsts.append(first)
        pairs.append(pair)
    label_raw = np.array([r.label for r in firsts], dtype=object)
    label = np.where(label_raw == "BOTH_BAD", "TIE", label_raw) if both_bad == "tie" else label_raw
    cols = {"example_id": np.array([r.example_id for r in firsts], dtype=object), "label_raw": label_raw,
            "label": label.astype(object), "label_code": np.array([CODE.get(x, -1) for x in label], dtype=np.int64)}
    for i, o in enumerate(ORDERS):
        recs, key, lab = [p[i] for p in pairs], ORDER_KEYS[o], cols["label_code"]
        ok = [is_answered(r) for r in recs]
        status = np.array([_STATUS_CODE[r.status] if r is not None else -1 for r in recs], dtype=np.int64)
        v = np.array([CODE[r.verdict] if a else -1 for r, a in zip(recs, ok)], dtype=np.int64)
        shown = np.array([CODE.get(r.verdict_shown, -1) if a else -1 for r, a in zip(recs, ok)], dtype=np.int64)
        scorable, nan = (v >= 0) & (lab >= 0), np.full(len(recs), np.nan)
        cols.update({f"status_{key}": _STATUSES[status], f"verdict_{key}": _VERDICTS[v], f"shown_{key}": _VERDICTS[shown],
                     f"status_code_{key}": status, f"verdict_code_{key}": v, f"shown_code_{key}": shown,
                     f"exact_{key}": np.where(scorable & (v == lab), 1.0, 0.0) if o in orders else nan,
                     f"soft_{key}": np.where(scorable, 1.0 - np.abs(v - lab) / 2.0, 0.0) if o in orders else nan})
    for c in ("task", "judge", "model_a", "model_b"):
        cols[c] = np.array([getattr(r, c) for r in firsts], dtype=object)
    for c in ("length_a", "length_b"):
        cols[c] = np.array([getattr(r, c) for r in firsts], dtype=np.int64)
    for c in ("citations_a", "citations_b"):
        cols[c] = np.array([getattr(r, c) for r in firsts], dtype=float)
    for k in sorted({k for r in firsts for k in r.slices}):
        cols[f"slice_{k}"] = np.array([r.slices.get(k) for r in firsts], dtype=object)
    cols.update(_confidence_columns(pairs, firsts))  # issue 34
    cols.update(_derived_columns(cols, orders))
    return cols, orders


@pytest.mark.parametrize("both_bad", ["tie", "exclude", "keep"])
@pytest.mark.parametrize("case", ["both orders", "AB only", "no records"])
def test_tables_from_extracted_values_equal_the_record_by_record_build(both_bad, case):
    from judgebench.scoring.judgment_table import build_table, extract

    recs = _records(300, seed=9)
    recs[5] = recs[5].model_copy(update={"slices": {"subject": "bio", "venue": "x"}})  # a slice on one example only
    recs[7] = recs[7].model_copy(update={"citations_a": None, "model_a": None})
    recs = [r for r in recs if case == "both orders" or r.order == "AB"] if case != "no records" else []
    by_key = group_by_dimension(recs).get("overall", {})
    want, orders = _reference_table(by_key, both_bad)
    for got in (build_table(by_key, both_bad), build_table(by_key, both_bad, extract(by_key))):
        assert got.orders == orders and list(got.cols) == list(want)
        for name, column in want.items():
            assert got.cols[name].dtype == column.dtype, name
            assert np.array_equal(got.cols[name], column, equal_nan=column.dtype.kind == "f"), name


# ---------------------------------------------------------------- score's diagnostics


@pytest.mark.parametrize("case", ["plain", "three dimensions", "AB only", "no model names", "exclude"])
def test_score_computes_only_the_leaderboard_columns_with_the_same_values(case):
    recs = _records(400, seed=11, dimensions=("a", "b", "c") if case == "three dimensions" else ("overall",))
    if case == "AB only":
        recs = [r for r in recs if r.order == "AB"]
    if case == "no model names":
        recs = [r.model_copy(update={"model_a": None, "model_b": None}) for r in recs]
    both_bad = "exclude" if case == "exclude" else "tie"
    want = diagnostics.leaderboard_columns(diagnostics.diagnose(recs, both_bad=both_bad, n_resamples=0, seed=4))
    got = diagnostics.leaderboard_diagnostics(recs, both_bad=both_bad, seed=4)
    assert got == want
    if case == "plain":
        assert None not in want.values()  # every column computed: the comparison covers all four


# ---------------------------------------------------------------- the lean reader


def test_lean_reader_shares_field_sets_and_slices_and_keeps_every_value(tmp_path):
    from judgebench.core.files import write_models_jsonl
    from judgebench.core.lean_records import LeanRecord
    from judgebench.core.rundir import TEXT_FIELDS, read_samples

    recs = _records(50)
    path = tmp_path / "samples.jsonl"
    write_models_jsonl(path, recs)
    lean = read_samples(path, lean=True)
    assert all(type(r) is LeanRecord for r in lean)
    assert lean == [r.model_copy(update=dict.fromkeys(TEXT_FIELDS)) for r in recs]
    assert all(r._fields_set is lean[0]._fields_set for r in lean)
    bio = [r.slices for r in lean if r.slices == {"subject": "bio"}]
    assert len(bio) > 1 and all(s is bio[0] for s in bio)


@pytest.mark.parametrize("edit, message", [
    (lambda line: line[:40], r"samples\.jsonl:4: field '\(root\)': Invalid JSON"),
    (lambda line: line.replace('"order":"BA"', '"order":"XY"'), r"samples\.jsonl:4: field 'order'"),
    (lambda line: json.dumps({**json.loads(line), "length_a": "long"}), r"samples\.jsonl:4: field 'length_a'"),
    (lambda line: json.dumps({**json.loads(line), "lenght_a": 3}), r"samples\.jsonl:4: field 'lenght_a': Extra inputs"),
])
def test_lean_reader_errors_name_file_and_line(tmp_path, edit, message):
    from judgebench.core.errors import JudgebenchError
    from judgebench.core.files import write_models_jsonl
    from judgebench.core.rundir import read_samples

    path = tmp_path / "samples.jsonl"
    write_models_jsonl(path, _records(3))
    lines = path.read_text().splitlines()
    lines[3] = edit(lines[3])
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(JudgebenchError, match=message) as caught:
        read_samples(path, lean=True)
    assert "\n" not in str(caught.value)


def test_read_run_names_the_first_judgment_of_another_task_or_judge(tmp_path):
    from test_report import run_dir

    from judgebench.core.errors import JudgebenchError
    from judgebench.core.rundir import read_run

    recs = [r.model_copy(update={"task": "demo"}) for r in _records(5)]
    recs[6] = recs[6].model_copy(update={"judge": "builtin/other"})
    folder = run_dir(tmp_path, recs, with_result=True)
    with pytest.raises(JudgebenchError, match=r"samples\.jsonl: judgment 7 is task 'demo', judge 'builtin/other'; "
                                              r"results\.json says task 'demo', judge 'builtin/test'$"):
        read_run(folder, lean=True)
    folder = run_dir(tmp_path / "ok", recs[:6], with_result=True)  # the judgments before it are the run's
    assert len(read_run(folder, lean=True)[1]) == 6
