"""Rubric leftovers and audit regressions: --min-coverage and --batch on `rubric run`, rubric data
through the real `datasets` path (Parquet file, dataset folder, Hub id offline), YAML keys that
would make a check vacuous, and a reply with a repeated JSON key."""

from __future__ import annotations

import json

import pytest
from openai_server import Behaviour, FakeOpenAIServer, scripted_by_marker
from test_rubric_server import FINAL, TASK_YAML, good, write_task

from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.kinds.rubric.records import Criterion
from judgebench.kinds.rubric.spec import get_rubric_task, load_responses
from judgebench.kinds.rubric.validate import Accepted, validate_reply


def _run_cli(tmp_path, extra, capsys, monkeypatch):
    monkeypatch.setenv("JUDGEBENCH_CALL_WORKER", "0")
    folder = write_task(tmp_path / "tasks")
    script = {f"RESP-{rid}": [good(*FINAL[rid])] for rid in FINAL}
    script["RESP-r2"] = [good(3.0, 0.0)]  # always out of range: INVALID after the re-asks
    with FakeOpenAIServer(Behaviour(answer=scripted_by_marker(script))) as server:
        code = main(["rubric", "run", "--task", "my_graded", "--include-path", str(folder), "--judge", "openai/s",
                     "--judge-args", f"api_base={server.api_base},api_key=sk-t", "--output-path",
                     str(tmp_path / "out"), "--quiet", "--no-cache", "--reask", "1", "--bootstrap", "20", *extra])
    return code, capsys.readouterr()


@pytest.mark.slow
def test_min_coverage_exits_1_below_it_and_0_at_or_above(tmp_path, capsys, monkeypatch):
    # 8 responses: 6 answered + 1 no-answer scored, r2 rejected twice -> coverage 7/8 = 0.875
    code, out = _run_cli(tmp_path / "a", ["--min-coverage", "0.9"], capsys, monkeypatch)
    assert code == 1
    assert "coverage 0.875 is below --min-coverage 0.9 (rejected 1, failed 0 of 8 judgments)" in out.err
    # the failure is said on stderr (as `run` says it), and no system-level "pass" is claimed over 7 of 8
    first = out.err.splitlines()[0]
    assert first.startswith("judgebench: FAILED: coverage 0.875 is below --min-coverage 0.9")
    assert "over the scored responses only" in first
    assert "-> pass on the 87.5% scored" in out.out  # not a bare "pass"
    assert (tmp_path / "a" / "out" / "results.json").is_file()  # results written all the same
    from judgebench.kinds.rubric.report import write_rubric_report

    report = next(p for p in write_rubric_report(tmp_path / "a" / "out") if p.suffix == ".md").read_text()
    assert report.index("**Coverage 87.5%") < report.index("| level | metric |")
    code, _ = _run_cli(tmp_path / "b", ["--min-coverage", "0.875"], capsys, monkeypatch)
    assert code == 0


def test_batch_is_refused_with_one_line(tmp_path, capsys):
    folder = write_task(tmp_path / "tasks")
    code = main(["rubric", "run", "--task", "my_graded", "--include-path", str(folder), "--judge",
                 "builtin/full-credit", "--output-path", str(tmp_path / "o"), "--batch"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "--batch: rubric runs cannot use the batch API" in err
    assert not (tmp_path / "o").exists()


def _rows_with_uneven_marks() -> list[dict]:
    """Expert scores as objects whose keys differ between rows: Arrow unifies them, adding nulls."""
    return [
        {"rid": "r1", "q": "Q1", "text": "A1", "who": "m1", "problem": "P1", "paper": "X", "area": "a",
         "scheme": [{"id": "p1", "criterion": "c", "max": 2.0}, {"id": "p2", "criterion": "c", "max": 1.0}],
         "marks": {"p1": 1.5, "p2": 0.0}},
        {"rid": "r2", "q": "Q2", "text": "A2", "who": "m2", "problem": "P2", "paper": "X", "area": "a",
         "scheme": [{"id": "k", "criterion": "c", "max": 3.0}], "marks": {"k": 2.0}},
    ]


@pytest.mark.slow
def test_parquet_file_and_dataset_folder_load_through_datasets(tmp_path):
    import datasets

    folder = tmp_path / "t"
    folder.mkdir()
    (folder / "my_graded.yaml").write_text(TASK_YAML.replace("graded.jsonl", "graded.parquet"), encoding="utf-8")
    datasets.Dataset.from_list(_rows_with_uneven_marks()).to_parquet(str(folder / "graded.parquet"))
    spec = get_rubric_task("my_graded", [folder])
    from judgebench.kinds.rubric.spec import data_path

    for path in (data_path(spec, demo=False, dataset_path=None), folder):  # the YAML's file; a folder (--dataset-path)
        r1, r2 = load_responses(spec, path)
        assert r1.expert_items == {"p1": 1.5, "p2": 0.0} and r1.expert_total == 1.5
        assert r2.expert_items == {"k": 2.0} and [c.id for c in r2.rubric] == ["k"]  # Arrow's added nulls dropped
    (folder / "bad.parquet").write_bytes(b"not parquet")
    with pytest.raises(JudgebenchError, match="bad.parquet"):
        load_responses(spec, folder / "bad.parquet")


def test_a_data_folder_is_read_in_the_config_the_rubric_task_names(tmp_path):
    """As for pairwise tasks (tasks/loading.data_config): the YAML's `dataset.name` picks a snapshot folder's config,
    for the YAML's own folder and a --dataset-path folder alike."""
    folder = tmp_path / "t"
    first, second = _rows_with_uneven_marks()
    for name, row in (("one", first), ("two", second)):
        (folder / "snap" / name).mkdir(parents=True)
        (folder / "snap" / name / "train.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    (folder / "snap" / "README.md").write_text("---\nconfigs:\n- config_name: first\n  data_files: one/*.jsonl\n"
                                               "- config_name: second\n  data_files: two/*.jsonl\n---\n")
    (folder / "my_graded.yaml").write_text(TASK_YAML.replace("{path: graded.jsonl}", "{path: snap, name: second}"),
                                           encoding="utf-8")
    spec = get_rubric_task("my_graded", [folder])
    from judgebench.kinds.rubric.spec import data_path

    for path in (data_path(spec, demo=False, dataset_path=None), folder / "snap"):
        assert [r.id for r in load_responses(spec, path)] == ["r2"]
    assert main(["rubric", "run", "--task", "my_graded", "--include-path", str(folder), "--judge", "builtin/full-credit",
                 "--output-path", str(tmp_path / "out"), "--quiet"]) == 0
    assert json.loads((tmp_path / "out" / "results.json").read_text())["config"]["dataset_config"] == "second"  # (recorded)
    (folder / "rows.jsonl").write_text(json.dumps(first) + "\n", encoding="utf-8")  # a config for a single file: none
    (folder / "my_graded.yaml").write_text(TASK_YAML.replace("{path: graded.jsonl}", "{path: rows.jsonl, name: x}"),
                                           encoding="utf-8")
    spec = get_rubric_task("my_graded", [folder])
    with pytest.raises(JudgebenchError, match="dataset.name 'x' names a config, but .*rows.jsonl is a single file"):
        load_responses(spec, data_path(spec, demo=False, dataset_path=None))


def test_a_rubric_data_folders_csv_files_are_read_strictly(tmp_path):
    """An outside attack: a folder's CSV with a column named twice reached pandas, which renamed the second
    (`marks.1`); a task's folder is checked strictly, in the card's format (tasks/loading.check_csv_files)."""
    folder = tmp_path / "t"
    (folder / "snap").mkdir(parents=True)
    (folder / "snap" / "rows.csv").write_text("rid;q;text;who;scheme;marks;marks\nr1;Q;A;m;[];{};{}\n", encoding="utf-8")
    (folder / "snap" / "README.md").write_text("---\nconfigs:\n- config_name: main\n  data_files: rows.csv\n  sep: ';'\n---\n")
    (folder / "my_graded.yaml").write_text(TASK_YAML.replace("{path: graded.jsonl}", "{path: snap}"), encoding="utf-8")
    spec = get_rubric_task("my_graded", [folder])
    with pytest.raises(JudgebenchError) as info:
        load_responses(spec, folder / "snap")
    assert str(info.value) == f"{folder / 'snap' / 'rows.csv'}: row 1 (the header): column 'marks' appears twice (which one is meant?)"


def test_a_hub_id_goes_to_datasets_and_fails_offline_in_one_line(tmp_path, capsys):
    folder = write_task(tmp_path / "tasks")
    (folder / "my_graded.yaml").write_text(TASK_YAML.replace("{path: graded.jsonl}",
                                                             "{path: some-org/graded-rubric, split: test}"))
    code = main(["rubric", "run", "--task", "my_graded", "--include-path", str(folder), "--judge",
                 "builtin/full-credit", "--output-path", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "some-org/graded-rubric" in err


@pytest.mark.parametrize("key", ["within_k: .inf", "validation: {total_tolerance: .inf}",
                                 "validation: {total_tolerance: .nan}"])
def test_yaml_numbers_that_would_make_a_check_vacuous_are_refused(tmp_path, key):
    folder = write_task(tmp_path / "tasks")
    (folder / "my_graded.yaml").write_text(TASK_YAML.replace("within_k: 1.0\n", "") + key + "\n", encoding="utf-8")
    with pytest.raises(JudgebenchError, match="my_graded.yaml: field '(within_k|validation.total_tolerance)'"):
        get_rubric_task("my_graded", [folder])


def test_a_reply_with_a_repeated_key_is_rejected_not_last_wins():
    rubric = [Criterion(id="a", criterion="", max=2.0)]
    item = '{"id": "a", "score": 1, "evidence": "q"}'
    assert isinstance(validate_reply('{"sub_scores": [' + item + '], "total_score": 1}', rubric), Accepted)
    twice_total = '{"sub_scores": [' + item + '], "total_score": 2, "total_score": 1}'
    assert validate_reply(twice_total, rubric).startswith("repeated key 'total_score'")
    twice_score = '{"sub_scores": [{"id": "a", "score": 9, "score": 1, "evidence": "q"}], "total_score": 1}'
    assert validate_reply(twice_score, rubric).startswith("repeated key 'score'")  # 9 > 2 would have been hidden


def test_rows_unchanged_for_the_own_reader(tmp_path):
    """Local .jsonl keeps the strict reader (mixed integer and text item ids load; no datasets rewrite)."""
    folder = write_task(tmp_path / "tasks")
    rows = [json.loads(line) for line in (folder / "graded.jsonl").read_text().splitlines()]
    rows[0]["scheme"] = [{"id": 1, "max": 2}, {"id": "2b", "max": 1}]
    rows[0]["marks"] = [2.0, 1.0]
    (folder / "graded.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = get_rubric_task("my_graded", [folder])
    first = load_responses(spec, folder / "graded.jsonl")[0]
    assert [c.id for c in first.rubric] == ["1", "2b"] and first.expert_items == {"1": 2.0, "2b": 1.0}


@pytest.mark.parametrize(("column", "value", "expected"), [
    ("text", 42, "field 'text' must be text, got int"),
    ("q", 1.5, "field 'q' must be text, got float"),
    ("rid", 2.0, "field 'rid' (id) must be text or an integer, got float"),
    ("who", {"name": "gpt"}, "field 'who' must be text or an integer, got dict"),
    ("area", None, "field 'area' is empty (a null, an empty cell or a missing key)"),
])
def test_rubric_cells_follow_the_pairwise_rule(tmp_path, column, value, expected):
    """A numeric response, question or id was made text silently (pairwise refuses them); both kinds apply one rule
    (tasks/cells.py): texts are strings, names text or an integer."""
    folder = write_task(tmp_path / "tasks")
    rows = [json.loads(line) for line in (folder / "graded.jsonl").read_text().splitlines()]
    rows[1][column] = value
    (folder / "graded.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(JudgebenchError) as info:
        load_responses(get_rubric_task("my_graded", [folder]), folder / "graded.jsonl")
    assert str(info.value) == f"{folder / 'graded.jsonl'}:2: {expected}"
    rows[1][column] = 7 if column in ("rid", "who", "area") else "seven"  # an integer name: its decimal text
    (folder / "graded.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert load_responses(get_rubric_task("my_graded", [folder]), folder / "graded.jsonl")[1]


def test_a_rubric_response_too_long_for_a_prompt_names_the_response_and_field(tmp_path):
    from judgebench.judging.prompts import OUTPUT_MAX, load_prompt
    from judgebench.kinds.rubric.judging import plan_rubric_requests

    folder = write_task(tmp_path / "tasks")
    spec = get_rubric_task("my_graded", [folder])
    responses = load_responses(spec, folder / "graded.jsonl")
    responses[1] = responses[1].model_copy(update={"response": "x" * (OUTPUT_MAX + 1)})
    with pytest.raises(JudgebenchError) as info:
        plan_rubric_requests(spec, responses, load_prompt(spec.prompt, spec.folder))
    assert str(info.value).startswith(f"example id r2: field 'response' holds {OUTPUT_MAX + 1:,} characters")


@pytest.mark.slow
def test_a_stopped_run_writes_partial_results_and_an_incomplete_pass_says_so(tmp_path, capsys, monkeypatch):
    """--max-failures stops the run: exit 1, partial results, every response accounted for; the system
    criterion over the scored responses alone is labelled incomplete, not a plain pass."""
    from judgebench.kinds.rubric.board import row_of
    from judgebench.kinds.rubric.run import read_rubric_run

    monkeypatch.setenv("JUDGEBENCH_CALL_WORKER", "0")
    folder = write_task(tmp_path / "tasks")
    script = {f"RESP-{rid}": [good(*FINAL[rid])] for rid in FINAL}

    def fail_some(messages):
        return 500 if any(f"RESP-{rid}" in str(messages) for rid in ("r3", "r4", "r5")) else None

    with FakeOpenAIServer(Behaviour(answer=scripted_by_marker(script), action_fn=fail_some)) as server:
        code = main(["rubric", "run", "--task", "my_graded", "--include-path", str(folder), "--judge", "openai/s",
                     "--judge-args", f"api_base={server.api_base},api_key=sk-t", "--output-path", str(tmp_path / "o"),
                     "--quiet", "--no-cache", "--max-retries", "0", "--max-failures", "2", "--concurrency", "1",
                     "--bootstrap", "10"])
    said = capsys.readouterr()
    assert code == 1 and "stopped early" in said.err and "(incomplete: totals over scored responses only)" in said.out
    result, records = read_rubric_run(tmp_path / "o")
    assert result.config.partial and len(records) == 8
    statuses = {r.item_id: r.status for r in records}
    assert statuses["r3"] == statuses["r4"] == "FAILED" and statuses["r8"] == "NO_ANSWER"
    assert all(r.error for r in records if r.status == "FAILED")  # the error, or "not attempted", kept
    assert result.counts.answered + result.counts.no_answer + result.counts.failed == 8
    assert result.system.complete is False
    assert row_of(result)["system_pass"].endswith("(incomplete: unscored responses)")
