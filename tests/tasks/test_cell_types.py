"""A cell of a local data file is read as its own type wherever it is (cell_types.py, docs/guide/tasks.md).

`datasets` types a JSON Lines column from its first 10 MB block; these files are ~12 MB with the odd cell
at row 3,000 (in the second block), so the tests fail where the late cell is cast or JSON-quoted.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from helpers import sci_row, write_jsonl

from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.tasks.loading import load_examples
from judgebench.tasks.registry import get_task as load_task

PAD = "x" * 4000  # ~4 KB per row: 3,000 rows are past datasets' first 10 MB block


def big_file(path: Path, late: int, **cell: object) -> Path:
    rows = [sci_row(i, vote="AB"[i % 2], question_type=PAD) for i in range(3_200)]
    rows[late].update(cell)
    return write_jsonl(path, rows)


@pytest.mark.slow
@pytest.mark.parametrize("cache", ["1", "0"])
def test_a_late_int_response_is_the_row_1_error(tmp_path, monkeypatch, capsys, cache):
    monkeypatch.setenv("JUDGEBENCH_EXAMPLE_CACHE", cache)
    early = big_file(tmp_path / "early.jsonl", 0, responseA=12345)
    late = big_file(tmp_path / "late.jsonl", 2_999, responseA=12345)
    spec = load_task("sciarena_eval")
    with pytest.raises(JudgebenchError) as first:
        load_examples(spec, dataset_path=str(early))
    assert str(first.value) == f"{early}: row id q0: field 'responseA' must be text, got int"
    for lazy in (False, True):
        with pytest.raises(JudgebenchError) as later:
            load_examples(spec, dataset_path=str(late), lazy=lazy)
        assert str(later.value) == f"{late}: row id q2999: field 'responseA' must be text, got int"
    out = tmp_path / "out"
    code = main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--dataset-path", str(late),
                 "--output-path", str(out), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == [f"judgebench: error: {late}: row id q2999: field 'responseA' must be text, got int"]
    assert not out.exists()


@pytest.mark.slow  # measured over 1.5 s in the fast selection
def test_a_late_number_in_a_text_column_keeps_the_other_rows_as_they_are(tmp_path):
    """One int slice value at row 3,000: datasets rewrote the whole block's slices as JSON text ('"Healthcare"')."""
    data = big_file(tmp_path / "slice.jsonl", 2_999, subject=7)
    loaded = load_examples(load_task("sciarena_eval"), dataset_path=str(data))
    subjects = [e.slices["subject"] for e in loaded.examples]
    expected = [sci_row(i)["subject"] for i in range(3_200)]
    expected[2_999] = "7"  # str(7): as a number at row 1 reads
    assert subjects == expected
    # the rows read here (cell_types) are the examples datasets gives for the same file with the text "7"
    text = load_examples(load_task("sciarena_eval"), dataset_path=str(big_file(tmp_path / "t.jsonl", 2_999, subject="7")))
    assert loaded.dataset.fingerprint == text.dataset.fingerprint


def test_a_late_float_id_is_the_row_1_error(tmp_path):
    data = big_file(tmp_path / "id.jsonl", 3_100, id=2.5)
    with pytest.raises(JudgebenchError, match=r"row 3101: field 'id' \(id\) must be text or an integer, got float$"):
        load_examples(load_task("sciarena_eval"), dataset_path=str(data))


def test_csv_text_columns_are_text_in_every_row(tmp_path):
    """A response "42" is the text "42" in row 1 too (it was an int there, an error, and text elsewhere)."""
    path = tmp_path / "data.csv"
    fields = ["id", "question", "responseA", "responseB", "vote"]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(fields)
        writer.writerow(["q0", "What is 6 x 7?", "42", "41", "A"])
    spec = load_task("sciarena_eval")
    spec = spec.model_copy(update={"columns": spec.columns.model_copy(
        update={"model_a": None, "model_b": None, "slices": [], "context": {}})})
    (example,) = load_examples(spec, dataset_path=str(path)).examples
    assert (example.response_a, example.response_b) == ("42", "41")
    path.write_text(path.read_text().replace("41", ""), encoding="utf-8")
    with pytest.raises(JudgebenchError, match="row id q0: field 'responseB' must be text, got NoneType"):
        load_examples(spec, dataset_path=str(path))


def test_csv_ids_model_names_and_slices_stay_the_text_written(tmp_path):
    """An outside attack: CSV ids 001..048 were recorded as "1".."48" (read as numbers, then made text again)."""
    path = tmp_path / "data.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "responseA", "responseB", "modelA", "modelB", "subject", "vote"])
        writer.writerow(["001", "Q", "a", "b", "007", "1e3", "01", "A"])
        writer.writerow(["0002", "Q", "a", "b", "8.0", "9", "02", "B"])
    spec = load_task("sciarena_eval")
    spec = spec.model_copy(update={"columns": spec.columns.model_copy(update={"slices": ["subject"], "context": {}})})
    first, second = load_examples(spec, dataset_path=str(path)).examples
    assert (first.id, first.model_a, first.model_b, first.slices) == ("001", "007", "1e3", {"subject": "01"})
    assert (second.id, second.model_a, second.slices) == ("0002", "8.0", {"subject": "02"})


def test_a_folder_of_csv_files_and_a_long_layouts_annotators_stay_the_text_written(tmp_path):
    """An attack on the CSV fix: a --dataset-path folder of CSV files still read ids as numbers, and a long votes
    layout's annotators 007 and 7 became one ('7'), 08 became '8' (the ceiling counted two annotators of three)."""
    folder = tmp_path / "data"
    folder.mkdir()
    with (folder / "train.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "responseA", "responseB", "modelA", "modelB", "subject", "vote"])
        writer.writerow(["001", "Q", "a", "b", "m1", "m2", "01", "A"])
    spec = load_task("sciarena_eval")
    spec = spec.model_copy(update={"columns": spec.columns.model_copy(update={"slices": ["subject"], "context": {}})})
    (example,) = load_examples(spec, dataset_path=str(folder)).examples
    assert (example.id, example.slices) == ("001", {"subject": "01"})
    from judgebench.tasks.cell_types import text_columns
    from judgebench.tasks.registry import VotesMapping

    voted = spec.model_copy(update={"votes": VotesMapping(layout="long", annotator="annot")})
    assert "annot" in text_columns(voted)


def test_the_first_block_size_is_datasets_own():
    """Files up to FIRST_BLOCK bytes are not checked: datasets must type them as one block."""
    from datasets.packaged_modules.json.json import JsonConfig

    from judgebench.tasks.cell_types import FIRST_BLOCK

    assert JsonConfig().chunksize == FIRST_BLOCK


@pytest.mark.parametrize("cache", ["1", "0"])
def test_a_csv_label_the_task_maps_is_a_label_and_missing_strings_stay_missing(tmp_path, monkeypatch, cache):
    """pandas reads `NA`, `None`, `null` ... as missing: in a label column where the task maps them they are
    labels (an `NA: TIE` task read its ties as missing labels, which --judge-unlabelled then left unscored);
    where the task does not map them, they stay missing (an empty cell too). In a text column (model names, ids,
    responses, slices) they are text: a final outside attack saw a model `None` become no model and a slice `NA`
    (North America) vanish, silently (this test had pinned the model's `NA` as missing)."""
    monkeypatch.setenv("JUDGEBENCH_EXAMPLE_CACHE", cache)
    path = tmp_path / "data.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "responseA", "responseB", "vote", "modelA"])
        for i, vote in enumerate(["A", "NA", "", "null", "B"]):
            writer.writerow([f"q{i}", "Q?", "long answer", "short", vote, "NA"])
    spec = load_task("sciarena_eval")
    spec = spec.model_copy(update={"columns": spec.columns.model_copy(
        update={"model_b": None, "slices": [], "context": {}})})
    examples = load_examples(spec, dataset_path=str(path), unlabelled=True).examples
    assert [e.labels for e in examples] == [{"overall": "A"}, {}, {}, {}, {"overall": "B"}]
    assert {e.model_a for e in examples} == {"NA"}  # a text column: the text written
    tie = spec.model_copy(update={"labels": {**spec.labels, "NA": "TIE"}})
    examples = load_examples(tie, dataset_path=str(path), unlabelled=True).examples
    assert [e.labels for e in examples] == [{"overall": "A"}, {"overall": "TIE"}, {}, {}, {"overall": "B"}]


def test_missing_value_strings_in_text_columns_are_text(tmp_path):
    """The final attack's cases: a slice `NA`, a model `None`, a response `N/A`, an id `null`."""
    path = tmp_path / "data.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "responseA", "responseB", "vote", "modelA", "modelB", "subject", "question_type",
                         "citation_a", "citation_b"])
        writer.writerow(["null", "Q?", "N/A", "a longer answer", "A", "None", "m2", "NA", "t", "", ""])
        writer.writerow(["q2", "Q?", "short", "a longer answer", "B", "m1", "m2", "EU", "t", "", ""])
    examples = load_examples(load_task("sciarena_eval"), dataset_path=str(path)).examples
    first = examples[0]
    assert (first.id, first.response_a, first.model_a, first.slices["subject"]) == ("null", "N/A", "None", "NA")
    blank = path.read_text().replace("N/A", "", 1)
    path.write_text(blank)
    with pytest.raises(JudgebenchError, match="responseA"):  # an empty cell is still missing, naming the field
        load_examples(load_task("sciarena_eval"), dataset_path=str(path))


def test_csv_vote_columns_with_an_empty_cell_keep_their_labels(tmp_path):
    """An attack: a `columns` votes layout with numeric labels and one empty cell (no vote) read its column as
    decimals, so `2` was `2.0`, which no label maps: one error naming row 1, whose cell held `2`."""
    from judgebench.tasks.registry import load_task_file

    (tmp_path / "cols.csv").write_text("id,question,responseA,responseB,ann1,ann2,ann3\n"
                                       "001,q,s,longer one,1,2,1\n002,q,s,longer one,2,,2\n")
    (tmp_path / "vc.yaml").write_text(
        "name: vc\nversion: '1.0'\ndataset: {path: cols.csv, split: train}\nlayout: wide\n"
        "columns: {id: id, question: question, response_a: responseA, response_b: responseB}\n"
        "votes: {layout: columns, annotator_columns: {a1: ann1, a2: ann2, a3: ann3}}\n"
        "labels: {1: A, 2: B, 0: TIE}\nverdicts: [A, B, TIE]\nprompt: pairwise_generic.yaml\nheadline: soft_accuracy\n")
    first, second = load_examples(load_task_file(tmp_path / "vc.yaml")).examples
    assert first.labels == {"overall": "A"} and [(v.annotator, v.labels["overall"]) for v in first.votes] == [
        ("a1", "A"), ("a2", "B"), ("a3", "A")]
    assert [v.annotator for v in second.votes] == ["a1", "a3"]  # the empty cell: no vote
