"""Task YAML validation and example loading through the real `datasets` code path (local files)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml
from helpers import sci_row, write_jsonl

from judgebench.core.errors import JudgebenchError
from judgebench.core.resources import tasks_dir
from judgebench.tasks.loading import load_examples
from judgebench.tasks.registry import get_task, load_task_file, task_files


def test_bundled_tasks_validate_and_ship_demo_data():
    files = task_files()
    assert {"sciarena_eval", "ideation_arena_eval"} <= set(files)
    for name in ("sciarena_eval", "ideation_arena_eval"):
        spec = get_task(name)
        assert spec.demo is not None and (spec.folder / spec.demo.path).is_file()


def test_sciarena_task_facts_match_the_paper():
    spec = get_task("sciarena_eval")
    assert spec.verdicts == ["A", "B"]
    assert spec.columns.response_a == "responseA" and spec.columns.label == "vote"
    assert spec.headline == "accuracy"
    reported = {row.judge: row.metrics["overall"] for row in spec.reported}
    assert reported["o3"] == 65.1 and reported["Random"] == 50.0


def test_sciarena_demo_split_covers_disciplines_and_labels():
    loaded = load_examples(get_task("sciarena_eval"), demo=True)
    assert len(loaded.examples) >= 40
    subjects = {e.slices["subject"] for e in loaded.examples}
    assert subjects == {"Natural Science", "Healthcare", "Humanities & Social Sciences", "Engineering"}
    assert {e.labels["overall"] for e in loaded.examples} == {"A", "B"}
    assert loaded.dataset.demo and loaded.dataset.split == "demo"


def test_local_jsonl_loads_with_the_task_mapping(tmp_path):
    path = write_jsonl(tmp_path / "eval.jsonl", [sci_row(1, "A"), sci_row(2, "B")])
    loaded = load_examples(get_task("sciarena_eval"), dataset_path=str(path))
    assert [e.id for e in loaded.examples] == ["q1", "q2"]
    first = loaded.examples[0]
    assert first.response_a.startswith("Answer A1") and first.labels == {"overall": "A"}
    assert first.model_a == "model-x" and first.slices["subject"] == "Healthcare"
    assert first.context["citations_a"] == [{"concise_authors": "Smith et al. 2023a"}]
    assert loaded.dataset.source == str(path) and len(loaded.dataset.fingerprint) == 64


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_parquet_and_csv_load_the_same_examples(tmp_path, suffix):
    rows = [sci_row(1, "A"), sci_row(2, "B")]
    for row in rows:  # csv cannot hold lists; keep the columns flat for both
        row["citation_a"] = row["citation_b"] = ""
    frame = pd.DataFrame(rows)
    path = tmp_path / f"eval.{suffix}"
    frame.to_parquet(path) if suffix == "parquet" else frame.to_csv(path, index=False)
    loaded = load_examples(get_task("sciarena_eval"), dataset_path=str(path))
    assert [e.labels["overall"] for e in loaded.examples] == ["A", "B"]


def test_a_save_to_disk_folder_loads_the_same_examples(tmp_path):
    """A `Dataset.save_to_disk` folder was refused with datasets' "Please use load_from_disk instead", advice a CLI
    user cannot follow; it is read with load_from_disk (a DatasetDict's split, or the one Dataset saved)."""
    import datasets

    rows = [sci_row(i) for i in range(4)]
    expected = load_examples(get_task("sciarena_eval"), dataset_path=str(write_jsonl(tmp_path / "e.jsonl", rows)))
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "one"))
    datasets.DatasetDict({"train": datasets.Dataset.from_list(rows), "test": datasets.Dataset.from_list(rows[:1])}
                         ).save_to_disk(str(tmp_path / "dict"))
    for folder in ("one", "dict"):
        loaded = load_examples(get_task("sciarena_eval"), dataset_path=str(tmp_path / folder))
        assert loaded.dataset.fingerprint == expected.dataset.fingerprint
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path=str(tmp_path / "dict"), split="dev")
    assert message == f"{tmp_path / 'dict'}: split 'dev' does not exist; splits: ['train', 'test'] (choose one with --split)"


def test_a_nul_in_a_csv_header_name_is_refused_naming_the_column(tmp_path):
    """The datasets loader failed on it with "An error occurred while generating the dataset", naming no file,
    row or column (an earlier note's known gap); other control characters load as they are."""
    frame = pd.DataFrame([sci_row(1, "A"), sci_row(2, "B")]).rename(columns={"vote": "vote\x00x"})
    path = tmp_path / "eval.csv"
    frame.to_csv(path, index=False)
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path=str(path))
    assert message == f"{path}: row 1 (the header): column 'vote\\x00x' holds a NUL character"


def test_a_csv_column_named_twice_is_refused_in_a_file_and_in_a_folder(tmp_path):
    """pandas kept the first `vote` column and renamed the second `vote.1`: the run scored against one of two
    label columns silently (an earlier note's known gap)."""
    rows = [sci_row(1, "A"), sci_row(2, "B")]
    for row in rows:
        row["citation_a"] = row["citation_b"] = ""
    frame = pd.DataFrame(rows)
    text = frame.to_csv(index=False).replace("vote,", "vote,vote,", 1).replace(",A,", ",A,B,").replace(",B,", ",B,A,", 1)
    path = tmp_path / "eval.csv"
    path.write_text(text, encoding="utf-8")
    spec = get_task("sciarena_eval")
    message = _error(load_examples, spec, dataset_path=str(path))
    assert message == f"{path}: row 1 (the header): column 'vote' appears twice (which one is meant?)"
    folder = tmp_path / "folder"
    folder.mkdir()
    frame.to_csv(folder / "part1.csv", index=False)  # (no name says a split: `datasets` reads both for train)
    (folder / "extra.CSV").write_text(text, encoding="utf-8")
    assert f"{folder / 'extra.CSV'}: row 1" in _error(load_examples, spec, dataset_path=str(folder))
    (folder / "part1.csv").rename(folder / "train.csv")
    (folder / "extra.CSV").rename(folder / "test.csv")  # the test split's: `datasets` prepares it for a train run too
    assert f"{folder / 'test.csv'}: row 1" in _error(load_examples, spec, dataset_path=str(folder))
    (folder / "archive").mkdir()  # a file of no split beside train.csv: `datasets` never reads it
    (folder / "test.csv").rename(folder / "archive" / "notes.csv")
    assert [e.labels["overall"] for e in load_examples(spec, dataset_path=str(folder)).examples] == ["A", "B"]
    # a third attack: a JSON Lines file of no split (here empty) had turned the CSV checks and options off, or was
    # refused though never read
    (folder / "archive" / "old.jsonl").write_text("", encoding="utf-8")
    assert [e.labels["overall"] for e in load_examples(spec, dataset_path=str(folder)).examples] == ["A", "B"]
    (folder / "archive" / "notes.csv").rename(folder / "test.csv")
    assert f"{folder / 'test.csv'}: row 1" in _error(load_examples, spec, dataset_path=str(folder))
    # a second attack: a byte-order mark hid a repeat of the first column; trailing empty header cells (which
    # spreadsheets export) were refused as "column '' appears twice"
    first = next(iter(frame.columns))
    bom = tmp_path / "bom.csv"
    lines = frame.to_csv(index=False).splitlines()
    bom.write_text("\ufeff" + "\n".join([lines[0] + f",{first}", *(line + ",x" for line in lines[1:])]) + "\n",
                   encoding="utf-8")
    assert f"column '{first}' appears twice" in _error(load_examples, spec, dataset_path=str(bom))
    trailing = tmp_path / "trailing.csv"
    trailing.write_text(frame.to_csv(index=False).replace("\n", ",,\n"), encoding="utf-8")
    assert [e.labels["overall"] for e in load_examples(spec, dataset_path=str(trailing)).examples] == ["A", "B"]


def test_a_stray_quote_in_a_csv_is_refused_naming_its_line_and_long_or_multi_line_cells_are_read(tmp_path):
    """A quote opened in one row and closed in the next merged the two rows into one cell (29 of 30 examples
    judged, without a word); one never closed failed as `DatasetGenerationError` naming no row."""
    rows = [sci_row(i, "AB"[i % 2]) for i in range(1, 7)]
    for row in rows:
        row["citation_a"] = row["citation_b"] = ""
    rows[1]["responseA"] = "two lines,\nand a \"quoted\" word, " + "x" * 200_000  # past csv's own 128 KB limit
    spec = get_task("sciarena_eval")
    good = tmp_path / "good.csv"
    pd.DataFrame(rows).to_csv(good, index=False)
    loaded = load_examples(spec, dataset_path=str(good))
    assert len(loaded.examples) == 6 and loaded.examples[1].response_a == rows[1]["responseA"]
    lines = good.read_text(encoding="utf-8").split("\n")
    third = next(i for i, line in enumerate(lines) if line.startswith(f"{rows[2]['id']},"))  # (0-based: line i + 1)
    stray = tmp_path / "stray.csv"
    stray.write_text("\n".join([*lines[:third], lines[third].replace(",", ',"', 2).replace(',"', ",", 1),
                                 *lines[third + 1:]]), encoding="utf-8")
    assert _error(load_examples, spec, dataset_path=str(stray)) == (
        f"{stray}:{third + 1}: a quoted cell ends mid-cell: a quote inside a quoted cell is written twice (\"\"), "
        "and a cell holding a quote must be quoted whole")
    unclosed = tmp_path / "unclosed.csv"
    last = len(lines) - 2  # (the file ends with a line break)
    head, tail = lines[last].rsplit(",", 1)  # a quote opened at the last row's last cell never closes
    unclosed.write_text("\n".join([*lines[:last], f'{head},"{tail}', ""]), encoding="utf-8")
    assert _error(load_examples, spec, dataset_path=str(unclosed)) == (
        f"{unclosed}:{last + 1}: a quoted cell that begins in this row never closes (a stray quote?)")
    # an outside attack: every row one field longer than the header ran on shifted columns (pandas took the first
    # column for the index); a hidden folder's CSV (.ipynb_checkpoints), which `datasets` skips, was refused
    longer = tmp_path / "longer.csv"
    longer.write_text("\n".join([lines[0], *(line + ",extra" for line in lines[1:-1]), ""]), encoding="utf-8")
    assert _error(load_examples, spec, dataset_path=str(longer)) == (
        f"{longer}:2: {len(lines[0].split(',')) + 1} fields, the header names {len(lines[0].split(','))}")
    # a blank line before the header (pandas skips it) was taken for an empty header
    lead = tmp_path / "lead.csv"
    lead.write_text("\n" + good.read_text(encoding="utf-8"), encoding="utf-8")
    assert len(load_examples(spec, dataset_path=str(lead)).examples) == 6
    folder = tmp_path / "folder"
    (folder / ".ipynb_checkpoints").mkdir(parents=True)
    (folder / "train.csv").write_text(good.read_text(encoding="utf-8"), encoding="utf-8")
    (folder / ".ipynb_checkpoints" / "train-checkpoint.csv").write_text(stray.read_text(encoding="utf-8"),
                                                                        encoding="utf-8")
    assert len(load_examples(spec, dataset_path=str(folder)).examples) == 6


def test_fingerprint_is_stable_and_content_sensitive(tmp_path):
    spec = get_task("sciarena_eval")
    a = load_examples(spec, dataset_path=str(write_jsonl(tmp_path / "a.jsonl", [sci_row(1), sci_row(2)])))
    b = load_examples(spec, dataset_path=str(write_jsonl(tmp_path / "b.jsonl", [sci_row(2), sci_row(1)])))
    c = load_examples(spec, dataset_path=str(write_jsonl(tmp_path / "c.jsonl", [sci_row(1), sci_row(2, "B")])))
    assert a.dataset.fingerprint == b.dataset.fingerprint != c.dataset.fingerprint


def _error(func, *args, **kwargs) -> str:
    with pytest.raises(JudgebenchError) as info:
        func(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_missing_column_names_it_and_lists_the_columns(tmp_path):
    row = sci_row(1)
    del row["responseB"]
    path = write_jsonl(tmp_path / "eval.jsonl", [row])
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path=str(path))
    assert "'responseB'" in message and "columns.response_b" in message and "responseA" in message


def test_unmapped_label_names_row_and_value(tmp_path):
    path = write_jsonl(tmp_path / "eval.jsonl", [sci_row(1), sci_row(2, vote="Tie")])
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path=str(path))
    assert "row id q2" in message and "'Tie'" in message and "vote" in message


def test_duplicate_id_is_an_error(tmp_path):
    path = write_jsonl(tmp_path / "eval.jsonl", [sci_row(1), sci_row(1)])
    assert "duplicate id 'q1'" in _error(load_examples, get_task("sciarena_eval"), dataset_path=str(path))


def test_non_text_response_is_not_coerced(tmp_path):
    path = write_jsonl(tmp_path / "eval.jsonl", [sci_row(1, responseA=None)])
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path=str(path))
    assert "row id q1" in message and "responseA" in message


def test_missing_split_lists_the_splits(tmp_path):
    folder = tmp_path / "data"
    write_jsonl(folder / "train.jsonl", [sci_row(1)])
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path=str(folder), split="validation")
    assert "split 'validation' does not exist" in message and "train" in message


def test_a_split_given_for_a_single_file_is_said_to_only_name_its_rows(tmp_path):
    """A single file has no splits: `--split nosuch` read its rows silently and recorded "nosuch"."""
    path = write_jsonl(tmp_path / "eval.jsonl", [sci_row(1), sci_row(2)])
    loaded = load_examples(get_task("sciarena_eval"), dataset_path=str(path), split="nosuch")
    assert len(loaded.examples) == 2 and loaded.dataset.split == "nosuch"
    assert any(w.startswith("--split nosuch: ") and "single file" in w for w in loaded.warnings)
    assert not load_examples(get_task("sciarena_eval"), dataset_path=str(path)).warnings


def test_unreachable_hub_dataset_says_how_to_run_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    message = _error(load_examples, get_task("sciarena_eval"))
    assert "yale-nlp/SciArena-Eval" in message and "--dataset-path" in message


def test_a_hub_that_does_not_resolve_is_one_line_at_once(monkeypatch, tmp_path):
    """A walkthrough: without --demo on a machine with no network, `datasets` retried five times over 24 s, a line
    each, before the error. Where the Hub's name does not resolve and no copy is cached, the error is at once; a
    cached copy is left for `datasets` to find. (No network is touched: the name lookup is the test's.)"""
    import socket
    import time

    import huggingface_hub.constants as hub

    def no_name(host, *args, **kwargs):
        raise socket.gaierror(-2, "Name or service not known")

    monkeypatch.setattr(hub, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hub, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(socket, "getaddrinfo", no_name)
    started = time.monotonic()
    message = _error(load_examples, get_task("sciarena_eval"))
    assert time.monotonic() - started < 10
    assert message == ("cannot load dataset 'yale-nlp/SciArena-Eval': the Hugging Face Hub (huggingface.co) cannot be "
                       "reached (its name does not resolve) and there is no cached copy; to run offline use --demo or "
                       "--dataset-path FILE")
    from judgebench.tasks.loading import _check_hub_reachable

    cached = tmp_path / "hub" / "datasets--yale-nlp--SciArena-Eval"
    (cached / "snapshots").mkdir(parents=True)  # an empty folder is no copy (an attack: it bypassed the check)
    with pytest.raises(JudgebenchError, match="no cached copy"):
        _check_hub_reachable("yale-nlp/SciArena-Eval")
    (cached / "snapshots" / "0123abc").mkdir()  # nor an empty snapshot
    with pytest.raises(JudgebenchError, match="no cached copy"):
        _check_hub_reachable("yale-nlp/SciArena-Eval")
    (cached / "snapshots" / "0123abc" / "README.md").write_text("card")
    _check_hub_reachable("yale-nlp/SciArena-Eval")  # a cached copy: left to datasets


def test_a_mistyped_folder_in_owner_name_form_is_said_to_be_no_local_folder(monkeypatch, tmp_path):
    """A walkthrough: `--dataset-path hfdata/sci_nope` (a typo for a local folder) was reported as the Hub being
    unreachable only; the line now also says no local file or folder of that name is in the working folder. A task's
    own Hub id (not typed, not relative to the working folder) says nothing of local folders."""
    import socket

    import huggingface_hub.constants as hub

    def no_name(host, *args, **kwargs):
        raise socket.gaierror(-2, "Name or service not known")

    monkeypatch.setattr(hub, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hub, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(socket, "getaddrinfo", no_name)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hfdata").mkdir()
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path="hfdata/sci_nope")
    assert message.startswith(f"cannot load dataset 'hfdata/sci_nope' (no local file or folder of that name in "
                              f"{tmp_path}; read as a Hub id): the Hugging Face Hub (huggingface.co) cannot be reached")
    monkeypatch.setattr(hub, "HF_HUB_OFFLINE", True)  # the other way a Hub load fails: datasets' own error
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path="hfdata/sci_nope")
    assert f"(no local file or folder of that name in {tmp_path}; read as a Hub id)" in message
    assert "local file" not in _error(load_examples, get_task("sciarena_eval"))
    (tmp_path / "hfdata" / "sci").symlink_to("/mnt/unmounted/sci")  # an outside attack: "no local file" was untrue
    assert _error(load_examples, get_task("sciarena_eval"), dataset_path="hfdata/sci") == (
        "hfdata/sci: a link to /mnt/unmounted/sci, which leads to no file or folder (missing, or a loop of links)")
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")  # (it said loop2 "does not exist")
    assert "loop1: a link to loop2, which leads to no file or folder (missing, or a loop of links)" == _error(
        load_examples, get_task("sciarena_eval"), dataset_path="loop1")


def test_a_task_yaml_path_that_does_not_exist_is_said_to_be_missing(tmp_path):
    """A lab walkthrough: `run --tasks frozen/nope.yaml` said "unknown task 'frozen/nope.yaml' (known tasks: ...)"."""
    message = _error(get_task, str(tmp_path / "frozen" / "nope.yaml"))
    assert message == (f"task {tmp_path / 'frozen' / 'nope.yaml'}: no such file (a task is a name from `judgebench "
                       "tasks` or the path of a task YAML)")
    folder = tmp_path / "odd.yaml"
    folder.mkdir()
    assert "not a regular file" in _error(get_task, str(folder))
    from judgebench.kinds.rubric.spec import get_rubric_task  # the rubric kind's tasks too (a second attack)

    assert _error(get_rubric_task, str(tmp_path / "nope.yaml")).startswith(f"task {tmp_path / 'nope.yaml'}: no such file")


def test_missing_local_file_is_an_error(tmp_path):
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path=str(tmp_path / "nope.jsonl"))
    assert "nope.jsonl" in message


def _write_task(folder, **changes):
    data = yaml.safe_load((tasks_dir() / "sciarena_eval.yaml").read_text())
    data.update(changes)
    path = folder / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_malformed_yaml_names_file_and_key(tmp_path):
    path = _write_task(tmp_path, name="broken", verdicts=["A", "C"])
    message = _error(load_task_file, path)
    assert str(path) in message and "verdicts" in message
    path = _write_task(tmp_path, name="broken2", labels={"A": "A", "B": "Bee"})
    assert "labels.B" in _error(load_task_file, path)
    path.write_text("name: [unclosed\n")
    assert "invalid YAML" in _error(load_task_file, path)


def test_unknown_key_is_rejected(tmp_path):
    path = _write_task(tmp_path, name="typo", promt="x.yaml")
    assert "promt" in _error(load_task_file, path)


def test_validation_errors_name_the_other_fields_and_drop_pydantic_s_words(tmp_path):
    """"(6 more)" said nothing of what; "Value error, must be one of ..." was pydantic's wording."""
    path = _write_task(tmp_path, name="bad", headline="nope", verdicts=["A"], both_bad="maybe")
    message = _error(load_task_file, path)
    assert message.startswith(f"{path}: field 'verdicts': must contain A and B (also: ") and "Value error" not in message
    assert "headline" in message and "both_bad" in message and "more)" not in message
    message = _error(load_task_file, _write_task(tmp_path, name="bad2", headline="nope"))
    assert message.startswith(f"{tmp_path / 'bad2.yaml'}: field 'headline': must be one of")


def test_source_file_is_no_task_key(tmp_path):
    """`source_file: /etc/passwd` was accepted and copied into the run's task.yaml, and "unknown key" errors listed
    source_file as an allowed key."""
    path = _write_task(tmp_path, name="sneaky", source_file="/etc/passwd")
    assert _error(load_task_file, path) == f"{path}: unknown key 'source_file' (judgebench sets it to the file's path)"
    allowed = _error(load_task_file, _write_task(tmp_path, name="typo2", zzzz=1)).split("(allowed: ")[1]
    assert "exclude_annotators" in allowed and "source_file" not in allowed
    from judgebench.kinds.rubric.spec import load_rubric_task_file

    rubric = tmp_path / "rubric_demo.yaml"
    rubric.write_text((tasks_dir() / "rubric" / "rubric_demo.yaml").read_text() + "source_file: /etc/passwd\n")
    assert "unknown key 'source_file'" in _error(load_rubric_task_file, rubric)


def test_include_path_adds_user_tasks_and_name_must_match_file(tmp_path):
    _write_task(tmp_path, name="my_task")
    assert get_task("my_task", [tmp_path]).name == "my_task"
    (tmp_path / "other.yaml").write_text((tmp_path / "my_task.yaml").read_text())
    assert "key 'name'" in _error(get_task, "other", [tmp_path])
    assert "unknown task 'nope'" in _error(get_task, "nope", [tmp_path])


def test_a_prompt_template_beside_the_tasks_is_not_a_task_and_a_broken_task_stays_an_error(tmp_path, capsys):
    """The docs name "beside the task YAML" as a place a task's `prompt:` is looked up, but `judgebench tasks
    --include-path` and `rubric tasks` read the template as a task ("field 'system': unknown key")."""
    from judgebench.cli.main import main

    _write_task(tmp_path, name="my_task", prompt="beside")
    (tmp_path / "beside.yaml").write_text("name: beside\nsystem: You judge.\nuser: '{{ response_first }}'\n")
    assert "beside" not in task_files([tmp_path]) and "my_task" in task_files([tmp_path])
    assert main(["tasks", "--include-path", str(tmp_path)]) == 0
    listed = capsys.readouterr().out
    assert "my_task" in listed and "beside.yaml" not in listed
    assert main(["rubric", "tasks", "--include-path", str(tmp_path)]) == 0
    assert "beside" not in capsys.readouterr().out
    (tmp_path / "broken.yaml").write_text("name: broken\nuser: hi\ncolumns: {}\n")  # a task's key: still a task
    assert main(["tasks", "--include-path", str(tmp_path)]) == 2
    assert "broken.yaml" in capsys.readouterr().err


def test_a_relative_dataset_path_resolves_beside_the_task_yaml_only(tmp_path, monkeypatch):
    """A relative dataset.path missing beside the YAML was read from the working folder (the same command read other
    data from another folder), and from elsewhere the error named neither the task file nor where it looked."""
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    path = _write_task(tasks, name="mine", dataset={"path": "eval.jsonl", "split": "train"})
    write_jsonl(tmp_path / "eval.jsonl", [sci_row(1)])  # in the working folder, not beside the YAML
    monkeypatch.chdir(tmp_path)
    message = _error(load_examples, get_task("mine", [tasks]))
    assert message == (f"{path}: dataset.path 'eval.jsonl': no such file or folder beside the task YAML "
                       f"({tasks / 'eval.jsonl'}); a relative path resolves beside the task YAML, not the working folder")
    write_jsonl(tasks / "eval.jsonl", [sci_row(1), sci_row(2)])
    assert len(load_examples(get_task("mine", [tasks])).examples) == 2  # beside the YAML, whatever the folder
    from judgebench.kinds.rubric.spec import data_path, get_rubric_task  # the rubric kind: the same rule

    rubric = tmp_path / "rubric"
    rubric.mkdir()
    text = (tasks_dir() / "rubric" / "rubric_demo.yaml").read_text()
    (rubric / "rubric_demo.yaml").write_text(text.replace(yaml.safe_load(text)["dataset"]["path"], "graded.jsonl", 1))
    (tmp_path / "graded.jsonl").write_text("{}\n")
    spec = get_rubric_task("rubric_demo", [rubric])
    assert "no such file or folder beside the task YAML" in _error(data_path, spec, demo=False, dataset_path=None)


@pytest.mark.parametrize(("change", "expected"), [
    ({"modelA": {"name": "gpt"}}, "row id q2: field 'modelA' must be text or an integer, got dict"),
    ({"subject": True}, "row id q2: field 'subject' must be text or an integer, got bool"),
    ({"subject": 1.5}, "row id q2: field 'subject' must be text or an integer, got float"),
    ({"subject": None}, "row id q2: field 'subject' is empty (a null, an empty cell or a missing key)"),
    ({"modelB": " "}, "row id q2: field 'modelB' is empty (a null, an empty cell or a missing key)"),
])
def test_a_model_or_slice_cell_is_text_or_an_integer_and_never_missing(tmp_path, change, expected):
    """A dict, bool or float model or slice became its Python repr ("{'name': 'gpt'}", "True") in report.md and the
    slices, and a null slice dropped the example from the per-slice figures silently."""
    path = write_jsonl(tmp_path / "eval.jsonl", [sci_row(1), sci_row(2, **change), sci_row(3)])
    assert _error(load_examples, get_task("sciarena_eval"), dataset_path=str(path)).endswith(expected)


def test_a_missing_slice_key_and_empty_csv_model_or_slice_cells_are_errors_naming_the_row(tmp_path):
    rows = [sci_row(1), sci_row(2)]
    del rows[1]["subject"]
    path = write_jsonl(tmp_path / "eval.jsonl", rows)
    assert "row id q2: field 'subject' is empty" in _error(load_examples, get_task("sciarena_eval"), dataset_path=str(path))
    for column in ("modelA", "question_type"):
        frame = pd.DataFrame([sci_row(1), sci_row(2, **{column: ""})]).drop(columns=["citation_a", "citation_b"])
        frame.to_csv(tmp_path / f"{column}.csv", index=False)
        spec = get_task("sciarena_eval").model_copy(update={"columns": get_task("sciarena_eval").columns.model_copy(
            update={"context": {}})})
        message = _error(load_examples, spec, dataset_path=str(tmp_path / f"{column}.csv"))
        assert message.endswith(f"row id q2: field '{column}' is empty (a null, an empty cell or a missing key)")
    path = write_jsonl(tmp_path / "int.jsonl", [sci_row(1, subject=7)])  # an integer: its decimal text
    assert load_examples(get_task("sciarena_eval"), dataset_path=str(path)).examples[0].slices["subject"] == "7"


def _ideation_rows():
    return [
        {"comparison_id": "c1", "seed_paper": "S", "references": "R", "proposal_a": "pa", "proposal_b": "pb",
         "system_a": "x", "system_b": "y", "overall_quality": "A", "novelty": "Tie", "feasibility": "B",
         "significance": "Both Bad", "specificity": "A"},
        {"comparison_id": "c2", "seed_paper": "S2", "references": "R2", "proposal_a": "qa", "proposal_b": "qb",
         "system_a": "y", "system_b": "z", "overall_quality": "B", "novelty": "B", "feasibility": "A",
         "significance": "Tie", "specificity": "B"},
    ]


def test_wide_and_long_layouts_give_the_same_examples(tmp_path):
    wide = write_jsonl(tmp_path / "wide.jsonl", _ideation_rows())
    spec = get_task("ideation_arena_eval")
    from_wide = load_examples(spec, dataset_path=str(wide)).examples

    dims = spec.dimension_names
    long_rows = []
    for row in _ideation_rows():
        for dim in dims:
            base = {k: v for k, v in row.items() if k not in dims}
            long_rows.append({**base, "dimension": dim.replace("_", " ").title(), "label": row[dim]})
    write_jsonl(tmp_path / "long.jsonl", long_rows)
    data = yaml.safe_load((tasks_dir() / "ideation_arena_eval.yaml").read_text())
    data.update(name="ideation_long", layout="long")
    data["columns"].update(dimension="dimension", label="label")
    for dim in data["dimensions"]:
        dim["value"] = dim.pop("label_column").replace("_", " ").title()
    (tmp_path / "ideation_long.yaml").write_text(yaml.safe_dump(data))
    long_spec = get_task("ideation_long", [tmp_path])
    from_long = load_examples(long_spec, dataset_path=str(tmp_path / "long.jsonl")).examples

    assert [e.model_dump() for e in from_long] == [e.model_dump() for e in from_wide]
    assert from_wide[0].labels == {
        "overall_quality": "A", "novelty": "TIE", "feasibility": "B", "significance": "BOTH_BAD", "specificity": "A",
    }


def _long_ideation_task(tmp_path: Path) -> None:
    """ideation_long.yaml in tmp_path: Ideation-Arena-Eval's task with one row per dimension (dimension, label)."""
    data = yaml.safe_load((tasks_dir() / "ideation_arena_eval.yaml").read_text())
    data.update(name="ideation_long", layout="long")
    data["columns"].update(dimension="dimension", label="label")
    for dim in data["dimensions"]:
        dim["value"] = dim.pop("label_column")
    (tmp_path / "ideation_long.yaml").write_text(yaml.safe_dump(data))


def test_long_layout_rejects_conflicting_rows(tmp_path):
    _long_ideation_task(tmp_path)
    row = {k: v for k, v in _ideation_rows()[0].items() if k not in ("overall_quality", "novelty", "feasibility", "significance", "specificity")}
    rows = [{**row, "dimension": "novelty", "label": "A"}, {**row, "proposal_a": "changed", "dimension": "feasibility", "label": "B"}]
    path = write_jsonl(tmp_path / "long.jsonl", rows)
    message = _error(load_examples, get_task("ideation_long", [tmp_path]), dataset_path=str(path))
    assert "row 2" in message and "differ" in message
    path = write_jsonl(tmp_path / "long2.jsonl", [{**row, "dimension": "clarity", "label": "A"}])
    assert "'clarity'" in _error(load_examples, get_task("ideation_long", [tmp_path]), dataset_path=str(path))


def test_long_layout_needs_a_row_for_every_dimension(tmp_path):
    """An example without a row for one dimension was a KeyError traceback when its records were assembled (and,
    for a moment, an unlabelled judgment): one line naming the example and the dimension, with or without
    --judge-unlabelled; an example whose rows all lack a label is an unlabelled one."""
    _long_ideation_task(tmp_path)
    spec = get_task("ideation_long", [tmp_path])
    dims = spec.dimension_names
    rows = []
    for i, row in enumerate(_ideation_rows()):
        base = {k: v for k, v in row.items() if k not in dims}
        rows += [{**base, "dimension": d, "label": row[d] if i == 0 else None} for d in dims]
    path = write_jsonl(tmp_path / "long.jsonl", rows)
    loaded = load_examples(spec, dataset_path=str(path), unlabelled=True)
    assert [e.labels == {} for e in loaded.examples] == [False, True] and loaded.unlabelled == 1
    for unlabelled in (False, True):
        kept = [r for r in rows if (unlabelled or r["label"] is not None)]  # without the flag: c1's rows only
        path = write_jsonl(tmp_path / "short.jsonl", [r for r in kept if not (r["comparison_id"] == "c1" and r["dimension"] == "novelty")])
        message = _error(load_examples, spec, dataset_path=str(path), unlabelled=unlabelled)
        assert message.endswith(f"short.jsonl: id c1: no row for dimension 'novelty' (each example has one row per dimension: {', '.join(dims)})")


def test_shared_real_data_loads_with_a_yaml_only_task(tmp_path):
    from helpers import SHARED_DATA

    source = SHARED_DATA / "llmeval2" / "llmeval2.jsonl"
    if not source.is_file():
        pytest.skip("../shared/data is not available")
    task = {
        "name": "llmeval2_pairwise", "version": "1", "dataset": {"path": str(source), "split": "test"},
        "columns": {"id": "id", "question": "question", "response_a": "response_a", "response_b": "response_b",
                    "label": "label", "slices": ["category"]},
        "labels": {"A": "A", "B": "B", "TIE": "TIE"}, "verdicts": ["A", "B", "TIE"],
        "prompt": "pairwise_generic.yaml", "headline": "soft_accuracy",
    }
    (tmp_path / "llmeval2_pairwise.yaml").write_text(json.dumps(task))
    loaded = load_examples(get_task("llmeval2_pairwise", [tmp_path]), dataset_path=str(source))
    labels = [e.labels["overall"] for e in loaded.examples]
    # PROVENANCE / data README: 2,551 rows, A 1048 / B 1021 / TIE 482
    assert (len(labels), labels.count("A"), labels.count("B"), labels.count("TIE")) == (2551, 1048, 1021, 482)


CARD_CONFIGS = "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: train\n    path: data/*.jsonl\n---\n"


def test_a_folder_whose_card_declares_its_files_is_read_afresh_each_time(tmp_path):
    """`datasets` keys a folder whose README.md declares `configs:` (the Hub's layout, as downloaded) by the folder's
    name and the card alone: an edited file, or another folder of the same name, gave the rows it had cached first,
    silently."""
    spec = get_task("sciarena_eval")
    first, second = tmp_path / "one" / "sci", tmp_path / "two" / "sci"
    for folder, labels_written in ((first, "AA"), (second, "BBB")):
        (folder / "data").mkdir(parents=True)
        (folder / "README.md").write_text(CARD_CONFIGS, encoding="utf-8")
        write_jsonl(folder / "data" / "train.jsonl", [sci_row(i, x) for i, x in enumerate(labels_written, 1)])

    def labels(folder: Path) -> str:
        return "".join(e.labels["overall"] for e in load_examples(spec, dataset_path=str(folder)).examples)

    assert labels(first) == "AA"
    assert labels(second) == "BBB"  # another folder of the same name (and another row count: an outside attack
    # found the rebuilt rows checked against the split sizes recorded for the first folder's, and refused)
    write_jsonl(first / "data" / "train.jsonl", [sci_row(1, "B"), sci_row(2, "A")])  # the same file, edited
    assert labels(first) == "BA"
    write_jsonl(first / "data" / "train.jsonl", [sci_row(1, "B")])
    assert labels(first) == "B"


def test_a_carded_folder_whose_columns_change_is_read_with_its_own_columns(tmp_path):
    """Found this session: under the folder's name and card `datasets` also kept the columns it had found first, so
    a column added to a file, or another folder of the same name with one more column, failed to load at all
    ("cannot load dataset ... DatasetGenerationError"); each folder now has a cache of its own."""
    spec = get_task("sciarena_eval")
    first, second = tmp_path / "one" / "sci", tmp_path / "two" / "sci"
    for folder, extra in ((first, {}), (second, {"note": "x"})):
        (folder / "data").mkdir(parents=True)
        (folder / "README.md").write_text(CARD_CONFIGS, encoding="utf-8")
        write_jsonl(folder / "data" / "train.jsonl", [{**sci_row(1, "A"), **extra}])
    assert [e.id for e in load_examples(spec, dataset_path=str(first)).examples] == ["q1"]
    assert [e.id for e in load_examples(spec, dataset_path=str(second)).examples] == ["q1"]
    write_jsonl(first / "data" / "train.jsonl", [{**sci_row(2, "B"), "note": "added"}])  # a column added
    assert [e.labels["overall"] for e in load_examples(spec, dataset_path=str(first)).examples] == ["B"]
    write_jsonl(first / "data" / "train.jsonl", [sci_row(3, "A")])  # and taken away again
    assert [e.id for e in load_examples(spec, dataset_path=str(first)).examples] == ["q3"]


def test_a_linked_folder_with_a_prose_card_is_read(tmp_path):
    """An outside find: a folder with a README.md of prose (no `configs:`) reached through a symbolic link was refused
    as naming "a data file outside the folder" (datasets gives such a folder's files resolved, the check compared them
    with the link's path); as on macOS, where /tmp and /var/folders are links."""
    real = tmp_path / "real" / "sci"
    write_jsonl(real / "train.jsonl", [sci_row(1, "A"), sci_row(2, "B")])
    (real / "README.md").write_text("Our votes, collected in 2026.\n", encoding="utf-8")
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    loaded = load_examples(get_task("sciarena_eval"), dataset_path=str(tmp_path / "link"))
    assert [e.id for e in loaded.examples] == ["q1", "q2"]


def test_a_folder_card_naming_a_file_outside_the_folder_is_refused(tmp_path):
    """A downloaded folder's card could feed any file on the machine into prompts, samples and exports."""
    write_jsonl(tmp_path / "elsewhere.jsonl", [sci_row(1, "A")])
    folder = tmp_path / "sci"
    folder.mkdir()
    write_jsonl(folder / "train.jsonl", [sci_row(1, "B")])
    for named in ("../elsewhere.jsonl", str(tmp_path / "elsewhere.jsonl")):
        (folder / "README.md").write_text(CARD_CONFIGS.replace("data/*.jsonl", named), encoding="utf-8")
        message = _error(load_examples, get_task("sciarena_eval"), dataset_path=str(folder))
        assert message.startswith(f"{folder}: README.md names a data file outside the folder (")


def test_a_malformed_line_in_a_folder_is_named(tmp_path):
    folder = tmp_path / "sci"
    folder.mkdir()
    write_jsonl(folder / "train.jsonl", [sci_row(1, "A"), sci_row(2, "B")])
    with (folder / "train.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"id": "x", broken\n')
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path=str(folder))
    assert message.startswith(f"{folder / 'train.jsonl'}:3: ")


def test_the_csv_a_folder_card_names_is_checked_strictly(tmp_path):
    """A folder whose README.md names its data (`configs:`) is read from those files, not by file-name patterns:
    a stray quote there merged rows silently (the run then failed on a label, naming no line)."""
    rows = [sci_row(i, "A") for i in (1, 2, 3)]
    for row in rows:
        row["citation_a"] = row["citation_b"] = ""
    text = pd.DataFrame(rows).to_csv(index=False)
    folder = tmp_path / "carded"
    (folder / "extra").mkdir(parents=True)
    (folder / "train.csv").write_text(text, encoding="utf-8")  # clean, and not what the card names
    lines = text.splitlines()
    lines[1] = lines[1].replace(",", ',"', 1)  # a stray quote in the first row
    (folder / "extra" / "named.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "README.md").write_text(CARD_CONFIGS.replace("data/*.jsonl", "extra/named.csv"), encoding="utf-8")
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path=str(folder))
    assert message.startswith(f"{folder / 'extra' / 'named.csv'}:2: a quoted cell ends mid-cell")


def _text_rows() -> list[dict]:
    rows = [sci_row(i, label) for i, label in ((1, "A"), (2, "B"))]
    for row, number in zip(rows, ("007", "008")):  # ids that read as numbers unless read as text
        row["id"], row["citation_a"], row["citation_b"] = number, "", ""
    return rows


def test_tab_separated_files_and_folders_are_read_as_csv_is(tmp_path):
    """A .tsv file was refused ("unsupported file type"), and a folder of them was read by `datasets` without the CSV
    checks or options (ids as numbers)."""
    spec = get_task("sciarena_eval")
    text = pd.DataFrame(_text_rows()).to_csv(sep="\t", index=False)
    folder = tmp_path / "tabs"
    folder.mkdir()
    (folder / "train.tsv").write_text(text, encoding="utf-8")
    for location in (folder, folder / "train.tsv"):
        loaded = load_examples(spec, dataset_path=str(location)).examples
        assert [(e.id, e.labels["overall"]) for e in loaded] == [("007", "A"), ("008", "B")]
    lines = text.splitlines()
    lines[1] = lines[1].replace("\t", '\t"', 1)  # a stray quote
    (folder / "train.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for location in (folder, folder / "train.tsv"):
        message = _error(load_examples, spec, dataset_path=str(location))
        assert message.endswith("train.tsv:2: a quoted cell that begins in this row never closes (a stray quote?)")


def test_a_folder_card_s_separator_is_the_checks_separator(tmp_path):
    """An outside attack: once the checks followed the card's files, a `sep: ";"` file was refused ("5 fields, the
    header names 1") though `datasets` reads it right."""
    spec = get_task("sciarena_eval")
    folder = tmp_path / "semi"
    (folder / "rows").mkdir(parents=True)
    text = pd.DataFrame(_text_rows()).to_csv(sep=";", index=False)
    (folder / "rows" / "all.csv").write_text(text, encoding="utf-8")
    card = CARD_CONFIGS.replace("data/*.jsonl", "rows/all.csv\n  sep: ';'")  # (the config's own key)
    (folder / "README.md").write_text(card, encoding="utf-8")
    assert [e.id for e in load_examples(spec, dataset_path=str(folder)).examples] == ["007", "008"]
    lines = text.splitlines()
    lines[2] = lines[2].replace(";", ';"', 1)
    (folder / "rows" / "all.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _error(load_examples, spec, dataset_path=str(folder)).startswith(f"{folder / 'rows' / 'all.csv'}:3: ")


def test_a_folder_card_that_datasets_refuses_is_named_in_words(tmp_path):
    """An outside attack: a card naming a missing file gave a one-line error of about 2,000 characters (datasets'
    list of forty file extensions); several configs without a default, or YAML that does not parse, named the folder
    but not its README.md."""
    folder = tmp_path / "carded"
    folder.mkdir()
    write_jsonl(folder / "train.jsonl", [sci_row(1, "A")])
    card = folder / "README.md"
    spec = get_task("sciarena_eval")
    for text, says in (
        (CARD_CONFIGS.replace("data/*.jsonl", "nothere.jsonl"), "names data files that do not exist (Unable to find"),
        ("---\nconfigs:\n- config_name: a\n  data_files: train.jsonl\n- config_name: b\n  data_files: train.jsonl\n---\n",
         "declares several configs ('a', 'b') and marks none `default: true`; name one (a task: in its YAML"),
        ("---\nconfigs: [\n---\n", "not a dataset card datasets can read (ParserError"),
    ):
        card.write_text(text, encoding="utf-8")
        message = _error(load_examples, spec, dataset_path=str(folder))
        assert message.startswith(f"{card}: {says}") and len(message) < 400, message
    card.write_text("Notes without a YAML header.\n", encoding="utf-8")  # (huggingface_hub logged a line of its own)
    assert [e.id for e in load_examples(spec, dataset_path=str(folder)).examples] == ["q1"]


TWO_CONFIGS = ("---\nconfigs:\n- config_name: first\n  data_files: one/*.jsonl\n"
               "- config_name: second\n  data_files: two/*.jsonl\n---\n")


def _with_config(spec, name):
    return spec.model_copy(update={"dataset": spec.dataset.model_copy(update={"name": name})})


def test_a_data_folder_is_read_in_the_config_its_task_names(tmp_path):
    """A new user's gap: a Hub snapshot with several configs could not be read at all (no way to name one); the task's
    `dataset.name` now picks the config of its own folder and of a --dataset-path folder, and is recorded."""
    folder = tmp_path / "snapshot"
    write_jsonl(folder / "one" / "train.jsonl", [sci_row(1, "A")])
    write_jsonl(folder / "two" / "train.jsonl", [sci_row(7, "B"), sci_row(8, "A")])
    (folder / "README.md").write_text(TWO_CONFIGS, encoding="utf-8")
    spec = get_task("sciarena_eval")
    for name, ids in (("first", ["q1"]), ("second", ["q7", "q8"])):
        loaded = load_examples(_with_config(spec, name), dataset_path=str(folder))
        assert [e.id for e in loaded.examples] == ids and loaded.dataset.config == name
    own = _with_config(spec, "second").model_copy(update={"source_file": str(tmp_path / "mine.yaml")})
    own = own.model_copy(update={"dataset": own.dataset.model_copy(update={"path": "snapshot"})})
    assert [e.id for e in load_examples(own).examples] == ["q7", "q8"]  # the YAML's own folder, beside it
    message = _error(load_examples, _with_config(spec, "third"), dataset_path=str(folder))
    assert message == (f"the data is read in config 'third' (a task's dataset.name; pairs' --config), but "
                       f"{folder / 'README.md'} declares only: 'first', 'second'")


def test_a_config_named_for_a_folder_without_a_card_is_refused(tmp_path):
    """A config a plain folder does not have is an error, not the folder's files read under that name."""
    folder = tmp_path / "plain"
    write_jsonl(folder / "train.jsonl", [sci_row(1, "A")])
    message = _error(load_examples, _with_config(get_task("sciarena_eval"), "first"), dataset_path=str(folder))
    assert message == (f"the data is read in config 'first' (a task's dataset.name; pairs' --config), but {folder} "
                       "declares no configs (no `configs:` in a README.md): leave the name out")
    (folder / "README.md").write_text("Notes, no YAML.\n", encoding="utf-8")  # (a card without configs: the same)
    assert _error(load_examples, _with_config(get_task("sciarena_eval"), "first"), dataset_path=str(folder)) == message


def test_a_dataset_path_file_or_hub_id_is_read_without_the_tasks_config(tmp_path):
    """--dataset-path to a file (or another Hub id) is other data: the task's config is not applied or recorded."""
    data = tmp_path / "rows.jsonl"
    write_jsonl(data, [sci_row(1, "A")])
    loaded = load_examples(_with_config(get_task("sciarena_eval"), "first"), dataset_path=str(data))
    assert [e.id for e in loaded.examples] == ["q1"] and loaded.dataset.config is None


def test_the_config_read_is_recorded_and_its_names_listed_as_written(tmp_path):
    """An outside attack: a card's default config was read and `null` recorded; names holding a quote were listed
    garbled (`s", , ,`); an empty name read the default silently."""
    folder = tmp_path / "snapshot"
    write_jsonl(folder / "one" / "train.jsonl", [sci_row(1, "A")])
    write_jsonl(folder / "two" / "train.jsonl", [sci_row(2, "B")])
    (folder / "README.md").write_text(TWO_CONFIGS.replace("- config_name: second\n", "- config_name: second\n  default: true\n"),
                                      encoding="utf-8")
    spec = get_task("sciarena_eval")
    loaded = load_examples(spec, dataset_path=str(folder))
    assert [e.id for e in loaded.examples] == ["q2"] and loaded.dataset.config == "second"
    (folder / "README.md").write_text(TWO_CONFIGS.replace("first", '"it\'s"').replace("second", '"sp ace"'), encoding="utf-8")
    message = _error(load_examples, _with_config(spec, "nope"), dataset_path=str(folder))
    assert message.endswith("declares only: \"it's\", 'sp ace'"), message
    with pytest.raises(Exception, match="dataset.name"):
        _with_config(spec, "x").model_validate({**spec.model_dump(), "dataset": {**spec.dataset.model_dump(), "name": ""}})


def test_a_config_named_for_the_tasks_own_file_is_refused(tmp_path):
    """A single file has no configs: the task's `dataset.name` beside it was ignored and recorded as read."""
    write_jsonl(tmp_path / "rows.jsonl", [sci_row(1, "A")])
    spec = _with_config(get_task("sciarena_eval"), "whatever").model_copy(update={"source_file": str(tmp_path / "t.yaml")})
    spec = spec.model_copy(update={"dataset": spec.dataset.model_copy(update={"path": "rows.jsonl"})})
    assert _error(load_examples, spec) == (f"task sciarena_eval: dataset.name 'whatever' names a config, but "
                                           f"{tmp_path / 'rows.jsonl'} is a single file, which has none: leave the name out")


def test_a_folders_configs_must_share_the_format_datasets_reads_them_in(tmp_path):
    """`datasets` reads every config of a folder with the reader its first config's files call for: a CSV config after
    a JSON one failed inside `datasets`, and a .tsv config after a .csv one was read split at commas."""
    folder = tmp_path / "mixed"
    write_jsonl(folder / "j" / "train.jsonl", [sci_row(1, "A")])
    first, second = _text_rows()
    pd.DataFrame([first]).to_csv(folder / "c.csv", index=False)
    pd.DataFrame([second]).to_csv(folder / "t.tsv", sep="\t", index=False)
    card = folder / "README.md"
    card.write_text("---\nconfigs:\n- config_name: j\n  data_files: j/*.jsonl\n- config_name: c\n  data_files: c.csv\n---\n",
                    encoding="utf-8")
    spec = get_task("sciarena_eval")
    assert _error(load_examples, _with_config(spec, "c"), dataset_path=str(folder)) == (
        f"{card}: config 'c' names .csv files (c.csv), but datasets reads every config of a folder as its first config's "
        "files are (json); keep one format per folder")
    card.write_text("---\nconfigs:\n- config_name: c\n  data_files: c.csv\n- config_name: t\n  data_files: t.tsv\n---\n",
                    encoding="utf-8")
    assert _error(load_examples, _with_config(spec, "t"), dataset_path=str(folder)).startswith(
        f"{card}: config 't' names .tsv files, which datasets would read split at ','")
    card.write_text(card.read_text(encoding="utf-8").replace("data_files: t.tsv", "data_files: t.tsv\n  sep: \"\\t\""),
                    encoding="utf-8")
    assert [e.id for e in load_examples(_with_config(spec, "t"), dataset_path=str(folder)).examples] == ["008"]


def test_a_file_outside_the_folder_is_refused_before_it_is_read(tmp_path):
    """An outside attack: the CSV checks opened a card's `../secret.csv` (its header in the error) before the
    outside-file refusal."""
    (tmp_path / "secret.csv").write_text("secret_col,secret_col\n1,2\n", encoding="utf-8")
    folder = tmp_path / "snap"
    folder.mkdir()
    (folder / "README.md").write_text(CARD_CONFIGS.replace("data/*.jsonl", "../secret.csv"), encoding="utf-8")
    message = _error(load_examples, get_task("sciarena_eval"), dataset_path=str(folder))
    assert message.startswith(f"{folder}: README.md names a data file outside the folder") and "secret_col" not in message


def test_a_missing_split_names_the_config(tmp_path):
    folder = tmp_path / "snapshot"
    write_jsonl(folder / "one" / "train.jsonl", [sci_row(1, "A")])
    write_jsonl(folder / "two" / "train.jsonl", [sci_row(2, "B")])
    (folder / "README.md").write_text(TWO_CONFIGS, encoding="utf-8")
    message = _error(load_examples, _with_config(get_task("sciarena_eval"), "second"), dataset_path=str(folder), split="test")
    assert message.startswith(f"{folder} (config 'second'): split 'test' does not exist"), message


def test_an_empty_folder_given_a_config_says_it_holds_no_data(tmp_path):
    """An attack: a named config on an empty folder blamed a README.md that does not exist."""
    folder = tmp_path / "empty"
    folder.mkdir()
    message = _error(load_examples, _with_config(get_task("sciarena_eval"), "cfg"), dataset_path=str(folder))
    assert message == f"{folder}: holds no data files (config 'cfg' asked for: a task's dataset.name; pairs' --config)"


def test_a_task_dataset_without_a_split_reads_train():
    """A walkthrough's task YAML for one local file was refused ("Field required") for leaving out `split`, which a
    single file does not have; it defaults to `train`, as a rubric task's does."""
    from judgebench.tasks.registry import DatasetSource

    assert DatasetSource(path="votes.jsonl").split == "train"
