"""The speed-ups of the second scale round (docs/lab/perf.md) change no output: prompt rendering equals
Jinja's own render, shared tables give the same figures, the lean reader keeps the strict reader's
errors and values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import judgebench
from judgebench.core.errors import JudgebenchError
from judgebench.core.records import PairExample
from judgebench.core.resources import prompts_dir
from judgebench.core.rundir import TEXT_FIELDS, read_samples
from judgebench.judging.prompts import _ENV, build_request, load_prompt
from judgebench.scoring import judgment_table
from judgebench.scoring.diagnostics import diagnose
from judgebench.scoring.metrics import confusion_matrix, score_records

EXAMPLE = PairExample(
    id="e1", question="Why {{ not }} rendered?", response_a="First <b>answer</b> [1].", response_b="Second, longer answer.",
    labels={"overall": "A"}, context={"references": "R1; R2", "citations_a": "x", "citations_b": "y"},
)


@pytest.mark.parametrize("path", sorted(p for p in prompts_dir().glob("*.yaml") if not p.name.startswith("rubric")),
                         ids=lambda p: p.name)  # the pairwise templates (rubric ones take other variables)
@pytest.mark.parametrize("order", ["AB", "BA"])
def test_rendering_equals_jinja_template_render(path: Path, order: str):
    template = load_prompt(str(path))
    dims = [("overall", "Which is better overall?"), ("clarity", "Which is clearer?")]
    request = build_request(template, EXAMPLE, order, dims, ["A", "B", "TIE"])
    first, second = (EXAMPLE.response_a, EXAMPLE.response_b)[:: 1 if order == "AB" else -1]
    variables = {
        "question": EXAMPLE.question, "response_first": first, "response_second": second,
        "context": request.context, "dimension": "overall", "criterion": dims[0][1],
        "dimensions": [{"name": n, "criterion": c} for n, c in dims], "verdicts": ["A", "B", "TIE"], "allow_tie": True,
    }
    parts = [("system", template.system), ("user", template.user)]
    expected = [{"role": role, "content": _ENV.from_string(text).render(variables).strip()} for role, text in parts if text]
    assert request.messages == expected


def test_rendering_is_still_sandboxed(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text('user: "{{ question.__class__.__mro__ }}"\n')
    template = load_prompt(str(bad))
    with pytest.raises(JudgebenchError, match=r"bad\.yaml: cannot render template \(SecurityError"):
        build_request(template, EXAMPLE, "AB", [("overall", "")], ["A", "B"])


@pytest.fixture(scope="module")
def ideation_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("perf") / "run"
    judgebench.evaluate("ideation_arena_eval", "builtin/random", output_path=out, demo=True)
    return out


@pytest.mark.slow
def test_shared_tables_give_the_same_figures_and_are_built_once(ideation_run: Path, monkeypatch):
    records = read_samples(ideation_run / "samples.jsonl", lean=True)
    alone = (score_records(records, n_resamples=50, seed=3), confusion_matrix(records, "novelty"),
             diagnose(records, n_resamples=0, seed=3))
    built = []
    real = judgment_table.build_table
    monkeypatch.setattr(judgment_table, "build_table", lambda *a, **k: built.append(1) or real(*a, **k))
    with judgment_table.reuse_tables(records):
        shared = (score_records(records, n_resamples=50, seed=3), confusion_matrix(records, "novelty"),
                  diagnose(records, n_resamples=0, seed=3))
    assert json.dumps(shared, default=str, sort_keys=True) == json.dumps(alone, default=str, sort_keys=True)
    dimensions = len({r.dimension for r in records})
    assert len(built) == dimensions  # one table per dimension under the "tie" rule, read by all three
    assert not judgment_table._SCOPES  # the scope ends with the block


def test_lean_reader_equals_the_strict_one_without_texts(ideation_run: Path):
    path = ideation_run / "samples.jsonl"
    full, lean = read_samples(path), read_samples(path, lean=True)
    assert [r.model_copy(update=dict.fromkeys(TEXT_FIELDS)) for r in full] == lean
    assert all(r.question is None and r.response_a is None and r.response_b is None for r in lean)


@pytest.mark.parametrize("edit, message", [
    (lambda line: '{"task": broken', r"samples\.jsonl:3: field '\(root\)': Invalid JSON"),
    (lambda line: line.replace('"status":"', '"status":"MAYBE', 1), r"samples\.jsonl:3: field 'status'"),
    (lambda line: json.dumps({**json.loads(line), "question": 5}), r"samples\.jsonl:3: field 'question'"),
])
def test_lean_reader_refuses_a_bad_line_naming_file_and_line(ideation_run: Path, tmp_path: Path, edit, message):
    lines = (ideation_run / "samples.jsonl").read_text().splitlines()
    lines[2] = edit(lines[2])
    bad = tmp_path / "samples.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(JudgebenchError, match=message):
        read_samples(bad, lean=True)


def test_diagnose_alone_builds_each_table_once(ideation_run: Path, monkeypatch):
    records = read_samples(ideation_run / "samples.jsonl", lean=True)
    built = []
    real = judgment_table.build_table
    monkeypatch.setattr(judgment_table, "build_table", lambda *a, **k: built.append(1) or real(*a, **k))
    diagnose(records, n_resamples=0, seed=3)
    assert len(built) == len({r.dimension for r in records})  # its facts table and confusion matrix share it
    assert not judgment_table._SCOPES
