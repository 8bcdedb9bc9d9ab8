"""bulk.py: what repeats across records held once (field-name sets, slice maps, short strings)."""

from __future__ import annotations

from judgebench.core.bulk import intern_short, shared_field_set, shared_map
from judgebench.core.records import JudgmentRecord


def _record(example_id: str, verdict: str) -> JudgmentRecord:
    line = (
        f'{{"task": "t", "example_id": "{example_id}", "dimension": "overall", "order": "AB", "judge": "builtin/longer",'
        f' "prompt_hash": "{"ab" * 32}", "status": "ANSWERED", "raw": "[[{verdict}]]", "verdict_shown": "{verdict}",'
        f' "verdict": "{verdict}", "label": "A", "slices": {{"category": "c0"}}, "length_a": 3, "length_b": 2}}'
    )
    return JudgmentRecord.model_validate_json(line)


def test_records_given_the_same_fields_get_one_set_with_those_names():
    a, b = _record("p1", "A"), _record("p2", "B")
    shared = shared_field_set(a.model_fields_set)
    assert shared is shared_field_set(b.model_fields_set) and shared == a.model_fields_set


def test_records_given_different_fields_keep_different_sets():
    full = _record("p1", "A")
    fewer = JudgmentRecord(task="t", example_id="x", dimension="overall", order="AB", judge="j",
                           prompt_hash="h", status="FAILED", label="A", length_a=1, length_b=1)
    few = shared_field_set(fewer.model_fields_set)
    assert few is not shared_field_set(full.model_fields_set) and "raw" not in few


def test_equal_slice_maps_and_short_strings_are_one_object():
    # a key no other test uses: the registry is process-wide, so a map seen by an earlier test is already held
    first, second = {"test_bulk_only": "c0"}, {"test_bulk_only": "c0"}
    assert shared_map(first) is shared_map(second) is first
    assert shared_map({"test_bulk_only": "c1"}) is not first
    long_text = "x" * 129
    assert intern_short("".join(["m", "1"])) is intern_short("".join(["m", "1"]))
    assert intern_short(long_text) is long_text and intern_short(None) is None


def _rss_mb() -> float:
    import os

    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_free_heap_pages_go_back_to_the_system():
    """Holes left between live heap blocks are returned by release_free_memory (glibc's malloc_trim)."""
    import pytest

    from judgebench.core.allocator import _glibc, release_free_memory

    if _glibc() is None:
        pytest.skip("glibc only")
    keep, holes = [], []
    for i in range(5000):  # 16 KB blocks (heap, below the mmap threshold) between 600-byte ones that stay
        holes.append(bytes(16384 - 40) + i.to_bytes(4, "little"))
        keep.append(bytes(600) + i.to_bytes(4, "little"))
    del holes
    before = _rss_mb()
    release_free_memory()
    after = _rss_mb()
    assert before - after > 40, (before, after)  # about 60 of the 80 MB freed are whole pages
    assert len(keep) == 5000 and keep[-1][-4:] == (4999).to_bytes(4, "little")  # what is in use stays


def test_a_run_releases_free_memory_before_scoring(tmp_path, monkeypatch):
    import judgebench
    from judgebench.judging import pipeline

    calls: list[int] = []
    monkeypatch.setattr(pipeline, "release_free_memory", lambda: calls.append(1))
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path, demo=True)
    assert calls == [1]
