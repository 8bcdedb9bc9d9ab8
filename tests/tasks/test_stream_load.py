"""The streamed load (stream_load.py) equals the eager one, and holds at most a chunk of examples.

The reference is the eager path kept in loading.py (`_rows_to_examples` over every row, then
`fingerprint_examples` over the list): the same examples in the same order, the same fingerprint,
the same one-line errors naming the same row, the same warnings; `--limit` and `--shard` select the
same examples. Small batches (BATCH_ROWS patched to 4) make every file span many batches.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.core.lean_records import LeanRecord
from judgebench.judging.shards import select_shard
from judgebench.tasks import stream_load
from judgebench.tasks.loading import (
    _rows_to_examples,
    check_local_file,
    fingerprint_examples,
    load_examples,
)
from judgebench.tasks.registry import get_task
from judgebench.tasks.stream_load import LazyExamples, RowSource, chunked, scan_wide

TASK = """\
name: stream_synth
version: "1"
description: Small synthetic pairs for the streamed load.
dataset: {path: data.jsonl, split: test}
columns: {id: id, question: question, response_a: response_a, response_b: response_b, label: label,
          model_a: model_a, model_b: model_b, slices: [category]}
labels: {A: A, B: B}
verdicts: [A, B]
prompt: pairwise_generic.yaml
headline: accuracy
"""


def _rows(n: int) -> list[dict]:
    # ids whose sorted order is not the file's order ("p10" < "p2"), so the fingerprint's sort matters
    return [
        {"id": f"p{i}", "question": f"Q{i}?", "response_a": "a" * (i % 7 + 1), "response_b": "bb" * (i % 5 + 1),
         "label": "AB"[i % 2], "model_a": f"m{i % 3}", "model_b": f"m{i % 3 + 1}", "category": f"c{i % 2}"}
        for i in range(n)
    ]


def _task(tmp: Path, rows: list[dict]):
    (tmp / "tasks").mkdir(exist_ok=True)
    (tmp / "tasks" / "stream_synth.yaml").write_text(TASK, encoding="utf-8")
    data = tmp / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return get_task("stream_synth", [tmp / "tasks"]), str(data)


@pytest.fixture(autouse=True)
def small_batches(monkeypatch):
    monkeypatch.setattr(stream_load, "BATCH_ROWS", 4)


def _eager(spec, path: str, limit=None):
    rows = json_rows(path)
    examples = _rows_to_examples(spec, rows, path)[:limit]
    return examples, fingerprint_examples(examples)


def json_rows(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_the_streamed_load_gives_the_eager_examples_fingerprint_and_warnings(tmp_path):
    rows = _rows(23)
    rows[17]["response_b"] = "  "  # an empty response: the same warning, naming the first such id
    rows[21]["response_a"] = ""
    spec, path = _task(tmp_path, rows)
    examples, fingerprint = _eager(spec, path)
    lazy = load_examples(spec, dataset_path=path, lazy=True)
    eager = load_examples(spec, dataset_path=path)
    assert isinstance(lazy.examples, LazyExamples) and isinstance(eager.examples, list)
    assert list(lazy.examples) == eager.examples == examples
    assert lazy.dataset.fingerprint == eager.dataset.fingerprint == fingerprint
    assert lazy.warnings == eager.warnings == [f"{path}: 2 example(s) have an empty response (first: id p17); they are judged as given"]


@pytest.mark.parametrize(
    "row, change, message",
    [
        (21, {"label": "C"}, "row id p21: field 'label' has label value 'C', which task stream_synth does not map"),
        (22, {"id": "p3"}, "row 23: duplicate id 'p3'"),
        (19, {"id": ""}, "row 20: field 'id' (id) is empty"),
        (20, {"response_a": None}, "row id p20: field 'response_a' must be text, got NoneType"),
    ],
)
def test_a_bad_row_late_in_the_file_is_the_eager_error_even_beyond_the_limit(tmp_path, row, change, message):
    rows = _rows(23)
    rows[row].update(change)
    spec, path = _task(tmp_path, rows)
    with pytest.raises(JudgebenchError) as eager:
        _rows_to_examples(spec, json_rows(path), path)
    for limit in (None, 5):  # the limit selects examples; every row is still checked (as before)
        with pytest.raises(JudgebenchError) as lazy:
            load_examples(spec, dataset_path=path, lazy=True, limit=limit)
        assert str(lazy.value) == str(eager.value)
        assert str(lazy.value).startswith(f"{path}: ") and message in str(lazy.value)


def test_a_bad_row_late_in_the_file_stops_the_run_before_any_judgment(tmp_path, capsys):
    rows = _rows(40)
    rows[38]["label"] = "maybe"
    _task(tmp_path, rows)
    out = tmp_path / "run"
    code = main(["run", "--tasks", "stream_synth", "--include-path", str(tmp_path / "tasks"), "--dataset-path",
                 str(tmp_path / "data.jsonl"), "--judge", "builtin/longer", "--output-path", str(out)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "row id p38: field 'label' has label value 'maybe'" in err and len(err.splitlines()) == 1
    assert not (out / "samples.jsonl").exists()


@pytest.mark.parametrize("limit", [1, 4, 9, 23, 40])
def test_limit_and_shards_select_the_eager_examples(tmp_path, limit):
    spec, path = _task(tmp_path, _rows(23))
    examples, fingerprint = _eager(spec, path, limit)
    loaded = load_examples(spec, dataset_path=path, lazy=True, limit=limit)
    assert len(loaded.examples) == len(examples) and list(loaded.examples) == examples
    assert loaded.dataset.fingerprint == fingerprint
    for n in (1, 2, 3, 5):
        for k in range(1, n + 1):
            shard = select_shard(loaded.examples, k, n)
            assert isinstance(shard, LazyExamples)
            assert list(shard) == select_shard(examples, k, n)
            assert [e for part in chunked(shard, 3) for e in part] == select_shard(examples, k, n)


def test_indexing_and_slicing_a_lazy_view(tmp_path):
    spec, path = _task(tmp_path, _rows(11))
    examples, _ = _eager(spec, path)
    lazy = load_examples(spec, dataset_path=path, lazy=True).examples
    assert lazy[0] == examples[0] and lazy[-1] == examples[-1] and lazy[5] == examples[5]
    assert list(lazy[3:8][1:3]) == examples[4:6] and list(lazy[8:3]) == [] and len(lazy[2:]) == 9
    with pytest.raises(IndexError):
        lazy[11]


def test_picked_examples_of_a_lazy_view_are_the_eager_ones(tmp_path):
    """`pick_examples` (the shards of a run with unlabelled examples): any ascending indices of a lazy view, and of
    a picked view again, give the eager examples at those indices, sliced and chunked alike."""
    spec, path = _task(tmp_path, _rows(23))
    examples, _ = _eager(spec, path)
    lazy = load_examples(spec, dataset_path=path, lazy=True).examples
    for view, base in ((lazy, examples), (lazy[1:], examples[1:])):  # a view of the whole and of a slice
        for indices in ([], [0], [len(base) - 1], [1, 2, 3], [0, 5, 6, 17, len(base) - 1], list(range(0, len(base), 2))):
            picked = stream_load.pick_examples(view, indices)
            want = [base[i] for i in indices]
            assert isinstance(picked, LazyExamples) and len(picked) == len(indices)
            assert list(picked) == want and [e for part in chunked(picked, 2) for e in part] == want
            assert list(picked[1:3]) == want[1:3]
            assert list(stream_load.pick_examples(picked, list(range(0, len(indices), 2)))) == want[::2]
    assert stream_load.pick_examples(examples, [3, 4]) == examples[3:5]  # a list stays a list


def test_the_demo_split_streams_the_same_as_before(tmp_path):
    spec = get_task("sciarena_eval")
    lazy, eager = load_examples(spec, demo=True, lazy=True), load_examples(spec, demo=True)
    assert list(lazy.examples) == eager.examples and lazy.dataset == eager.dataset


def test_the_rows_from_the_arrow_stream_files_are_to_list(tmp_path):
    """Rows read from the Dataset's cache files by a stream reader: exactly Dataset.to_list()."""
    import datasets

    _, path = _task(tmp_path, _rows(13))
    ds = datasets.load_dataset("json", data_files={"test": path}, split="test", cache_dir=str(tmp_path / "hf"))
    assert stream_load._stream_files(ds)  # the stream-reader path, not the table
    source = RowSource.from_dataset(ds)
    batches = list(source.batches())
    assert [row for b in batches for row in b] == ds.to_list() and max(map(len, batches)) <= 4
    assert source.n_rows == 13
    picked = ds.select([3, 1, 2])  # an indices mapping: read through the table instead
    assert stream_load._stream_files(picked) is None
    assert [row for b in RowSource.from_dataset(picked).batches() for row in b] == picked.to_list()


def test_examples_are_built_one_chunk_at_a_time(tmp_path):
    """The bound: chunks(size) builds each example when its chunk is due, never the whole list, and
    reads the rows once (each batch of rows converted once per pass)."""
    spec, path = _task(tmp_path, _rows(23))
    loaded = load_examples(spec, dataset_path=path, lazy=True)
    built: list[int] = []
    build = loaded.examples._build
    counting = LazyExamples(lambda row, i, seen: built.append(i) or build(row, i, seen), loaded.examples._source, 0, 23)
    for k, part in enumerate(counting.chunks(5)):
        assert len(part) == min(5, 23 - 5 * k)
        assert len(built) == 5 * k + len(part)  # only this chunk's examples were built so far
        assert built[-len(part):] == list(range(5 * k, 5 * k + len(part)))
    built.clear()
    assert [e.id for part in counting[10:14].chunks(3) for e in part] == ["p10", "p11", "p12", "p13"]
    assert built == [10, 11, 12, 13]  # the rows before the view are skipped unbuilt


def test_a_run_judges_a_lazy_load_chunk_by_chunk(tmp_path, monkeypatch):
    """stream_judgments asks for one chunk of examples at a time: when a chunk is answered, the examples
    built so far are that chunk's and the earlier ones' only (the earlier ones already released)."""
    from judgebench.calls import run_requests
    from judgebench.judging import streaming

    _task(tmp_path, _rows(23))
    monkeypatch.setattr(streaming, "CHUNK_REQUESTS_BUILTIN", 6)  # 3 examples x 2 orders per chunk
    built: list[int] = []
    original = LazyExamples.chunks

    def counted(self, size):
        for part in original(self, size):
            if size == 3:  # the judging chunks (not the one example read to count requests per example)
                built.append(len(part))
            yield part

    seen_at_call: list[int] = []

    def call(requests, *args, **kwargs):
        seen_at_call.append(sum(built))
        return run_requests(requests, *args, **kwargs)

    monkeypatch.setattr(LazyExamples, "chunks", counted)
    monkeypatch.setattr("judgebench.judging.pipeline.run_requests", call)
    code = main(["run", "--tasks", "stream_synth", "--include-path", str(tmp_path / "tasks"), "--dataset-path",
                 str(tmp_path / "data.jsonl"), "--judge", "builtin/longer", "--output-path", str(tmp_path / "run"),
                 "--bootstrap", "0"])
    assert code == 0
    assert seen_at_call == [3, 6, 9, 12, 15, 18, 21, 23]  # 3 examples per chunk, built just before they are judged
    assert len((tmp_path / "run" / "samples.jsonl").read_text().splitlines()) == 46


def test_scan_reports_counts_without_holding_examples(tmp_path):
    spec, path = _task(tmp_path, _rows(9))
    from functools import partial

    from judgebench.tasks.loading import wide_example

    source = RowSource.from_rows(json_rows(path))
    scanned = scan_wide(partial(wide_example, spec, source=path), source, limit=6)
    examples, fingerprint = _eager(spec, path, 6)
    assert (scanned.count, scanned.fingerprint, scanned.empty, scanned.first_empty) == (6, fingerprint, 0, None)


@pytest.mark.parametrize("block", [1, 2, 3, 5, 1 << 20])
def test_the_data_file_check_reads_blocks_and_names_the_same_offset(tmp_path, block):
    good = tmp_path / "good.jsonl"
    good.write_bytes('{"q": "naïve – 日本語 🎉"}\n'.encode() * 3)  # multi-byte characters cut by small blocks
    check_local_file(good, block=block)
    bad = tmp_path / "bad.jsonl"
    data = '{"q": "日本"}\n'.encode() * 2 + b'{"q": "\xff"}\n' + b"x" * 10
    bad.write_bytes(data)
    offset = data.index(b"\xff")  # what a whole-file decode names: 39 = 2 lines of 16 bytes + 7 ('{"q": "')
    assert offset == 39
    with pytest.raises(JudgebenchError, match=f"bad.jsonl: not UTF-8 text \\(invalid byte at offset {offset}\\)"):
        check_local_file(bad, block=block)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes('{"q": "日'.encode()[:-1])  # a character cut by the end of the file
    with pytest.raises(JudgebenchError, match="offset 7\\)"):  # where the cut character starts
        check_local_file(cut, block=block)
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b" \n\t\n" * 5)
    with pytest.raises(JudgebenchError, match="blank.jsonl: the file is empty"):
        check_local_file(blank, block=block)


def test_a_lean_record_reads_like_the_record_without_texts(tmp_path):
    import judgebench
    from judgebench.core.rundir import read_samples, salvage

    run = judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "run", demo=True)
    records = read_samples(run.run_dir / "samples.jsonl")
    lean = [LeanRecord.of(r.model_copy()) for r in records]
    for full, small in zip(records, lean):
        assert small == full.model_copy(update={"question": None, "response_a": None, "response_b": None})
        assert small.question is None and small.label == full.label and small.slices == full.slices
        assert small.model_copy(update={"verdict": "A"}).verdict == "A"
        assert small.model_fields_set == full.model_fields_set
    assert "saved to" in salvage(lean)
    # what repeats from example to example is held once: model names, slice maps, the field-name set
    same_model = [s for s in lean if s.model_a == lean[0].model_a]
    assert len(same_model) > 2 and all(s.model_a is lean[0].model_a for s in same_model)
    same_slices = [s for s in lean if s.slices == lean[0].slices]
    assert len(same_slices) > 2 and all(s.slices is lean[0].slices for s in same_slices)
    assert all(s._fields_set is lean[0]._fields_set for s in lean)


def test_json_feature_columns_are_decoded_as_to_list_does(tmp_path):
    """A column of the `Json` feature (nested values of mixed types) read from saved Arrow files: decoded."""
    datasets = pytest.importorskip("datasets")
    if not hasattr(datasets, "Json"):
        pytest.skip("this datasets version has no Json feature")
    rows = [{"id": f"p{i}", "ctx": [{"k": i}, "text", 2.5] if i % 2 else {"nested": {"x": [i]}}} for i in range(9)]
    features = datasets.Features({"id": datasets.Value("string"), "ctx": datasets.Json()})
    datasets.Dataset.from_list(rows, features=features).save_to_disk(str(tmp_path / "saved"))
    ds = datasets.load_from_disk(str(tmp_path / "saved"))
    assert stream_load._stream_files(ds)
    read = [row for b in RowSource.from_dataset(ds).batches() for row in b]
    assert read == ds.to_list() == rows
