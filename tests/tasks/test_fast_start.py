"""A fast start and a short tail (issue 11, section 6): the example cache and the preload of scoring imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import sci_row, write_jsonl

from judgebench.core import preload
from judgebench.core.errors import JudgebenchError
from judgebench.tasks import example_cache, loading
from judgebench.tasks.loading import load_examples
from judgebench.tasks.registry import get_task

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache_home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("JUDGEBENCH_CACHE_DIR", str(home))
    monkeypatch.delenv("JUDGEBENCH_EXAMPLE_CACHE", raising=False)
    return home


def _entries(home: Path) -> list[Path]:
    folder = home / "examples"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def _no_datasets(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("datasets was asked to load the file")

    monkeypatch.setattr(loading, "load_table", refuse)


def test_a_second_load_of_the_same_bytes_gives_the_same_examples_without_datasets(tmp_path, cache_home, monkeypatch):
    data = write_jsonl(tmp_path / "pairs.jsonl", [sci_row(i, vote="AB"[i % 2]) for i in range(12)])
    spec = get_task("sciarena_eval")
    first = load_examples(spec, dataset_path=str(data))
    assert len(_entries(cache_home)) == 1
    _no_datasets(monkeypatch)
    second = load_examples(spec, dataset_path=str(data))
    assert second.examples == first.examples and second.dataset == first.dataset
    assert second.warnings == first.warnings
    limited = load_examples(spec, dataset_path=str(data), limit=3)  # --limit applies after the rows, as before
    assert limited.examples == first.examples[:3]


def test_changed_bytes_or_split_go_through_datasets_again(tmp_path, cache_home, monkeypatch):
    rows = [sci_row(i, vote="AB"[i % 2]) for i in range(6)]
    data = write_jsonl(tmp_path / "pairs.jsonl", rows)
    spec = get_task("sciarena_eval")
    load_examples(spec, dataset_path=str(data))
    write_jsonl(data, [*rows[:-1], sci_row(5, vote="A")])  # one vote changed, same size and name
    changed = load_examples(spec, dataset_path=str(data))
    assert rows[-1]["vote"] == "B" and changed.examples[-1].labels == {"overall": "A"}
    load_examples(spec, dataset_path=str(data), split="other")  # another split name: another key
    assert len(_entries(cache_home)) == 3


def test_errors_are_the_same_with_and_without_a_stored_entry(tmp_path, cache_home, monkeypatch):
    data = write_jsonl(tmp_path / "pairs.jsonl", [sci_row(i) for i in range(4)])
    spec = get_task("sciarena_eval")
    renamed = spec.model_copy(update={"columns": spec.columns.model_copy(update={"question": "prompt"})})
    with pytest.raises(JudgebenchError) as fresh:
        load_examples(renamed, dataset_path=str(data))  # the rows load (and are stored); the mapping fails
    assert len(_entries(cache_home)) == 1
    _no_datasets(monkeypatch)
    with pytest.raises(JudgebenchError) as cached:
        load_examples(renamed, dataset_path=str(data))
    assert str(cached.value) == str(fresh.value) and "prompt" in str(fresh.value)


def test_a_file_that_fails_to_load_is_never_stored(tmp_path, cache_home):
    data = tmp_path / "broken.jsonl"
    data.write_text(json.dumps(sci_row(0)) + "\n{not json\n", encoding="utf-8")
    spec = get_task("sciarena_eval")
    messages = []
    for _ in range(2):
        with pytest.raises(JudgebenchError) as info:
            load_examples(spec, dataset_path=str(data))
        messages.append(str(info.value))
    assert messages[0] == messages[1] and "broken.jsonl" in messages[0]
    assert _entries(cache_home) == []


class _Table:
    def __init__(self, rows):
        self.rows, self.column_names = rows, list(rows[0])

    def to_list(self):
        return self.rows


def test_only_rows_that_read_back_exactly_are_stored(tmp_path, cache_home):
    data = tmp_path / "rows.jsonl"
    data.write_text("x\n", encoding="utf-8")
    builders = {".jsonl": "json"}
    for rows in ([{"a": float("nan")}], [{"a": b"bytes"}], [{"a": (1, 2)}], [{"a": {1: "int key"}}]):
        got = example_cache.load_rows(str(data), "train", builders, lambda rows=rows: (_Table(rows), None))
        assert got == (rows, ["a"], None)
        assert _entries(cache_home) == []
    exact = [{"a": 1, "b": 1.5, "c": None, "d": [True, "x"], "e": {"k": -0.0}}]
    example_cache.load_rows(str(data), "train", builders, lambda: (_Table(exact), None))
    stored = example_cache.load_rows(str(data), "train", builders, lambda: pytest.fail("loaded again"))
    assert stored == (exact, ["a", "b", "c", "d", "e"], None)
    assert [type(v) for v in stored[0][0].values()] == [int, float, type(None), list, dict]


def test_an_entry_with_columns_that_are_not_names_is_ignored(tmp_path, cache_home):
    data = tmp_path / "rows.jsonl"
    data.write_text("w\n", encoding="utf-8")
    builders, rows = {".jsonl": "json"}, [{"a": 1}]
    example_cache.load_rows(str(data), "train", builders, lambda: (_Table(rows), None))
    (entry,) = _entries(cache_home)
    entry.write_text(json.dumps({**json.loads(entry.read_text()), "columns": [1, 2]}), encoding="utf-8")
    again = example_cache.load_rows(str(data), "train", builders, lambda: (_Table(rows), None))
    assert again == (rows, ["a"], None)  # loaded afresh, not the tampered column list


def test_a_damaged_entry_is_ignored_and_rewritten(tmp_path, cache_home):
    data = tmp_path / "rows.jsonl"
    data.write_text("y\n", encoding="utf-8")
    builders, rows = {".jsonl": "json"}, [{"a": 1}]
    example_cache.load_rows(str(data), "train", builders, lambda: (_Table(rows), None))
    (entry,) = _entries(cache_home)
    entry.write_text('{"key": "other", "rows": []', encoding="utf-8")
    assert example_cache.load_rows(str(data), "train", builders, lambda: (_Table(rows), None))[0] == rows
    assert json.loads(entry.read_text())["rows"] == rows


def test_the_switch_non_local_sources_and_large_files_bypass_the_cache(tmp_path, cache_home, monkeypatch):
    data = tmp_path / "rows.jsonl"
    data.write_text("z\n", encoding="utf-8")
    never = lambda: pytest.fail("a bypassed source is loaded by the caller, not the cache")  # noqa: E731
    monkeypatch.setenv("JUDGEBENCH_EXAMPLE_CACHE", "0")
    assert example_cache.load_rows(str(data), "train", {".jsonl": "json"}, never) is None
    monkeypatch.delenv("JUDGEBENCH_EXAMPLE_CACHE")
    assert example_cache.load_rows("org/dataset", "train", {".jsonl": "json"}, never) is None
    assert example_cache.load_rows(str(tmp_path), "train", {".jsonl": "json"}, never) is None
    monkeypatch.setattr(example_cache, "MAX_FILE_BYTES", 1)  # "z\n" is 2 bytes: streamed, never held as rows
    assert example_cache.load_rows(str(data), "train", {".jsonl": "json"}, never) is None
    assert _entries(cache_home) == []


@pytest.mark.slow
def test_a_rerun_on_a_stored_file_does_not_import_datasets(tmp_path, cache_home):
    data = write_jsonl(tmp_path / "pairs.jsonl", [sci_row(i, vote="AB"[i % 2]) for i in range(5)])
    script = textwrap.dedent(f"""
        import sys
        from judgebench.tasks.loading import load_examples
        from judgebench.tasks.registry import get_task
        loaded = load_examples(get_task("sciarena_eval"), dataset_path={str(data)!r})
        print(len(loaded.examples), "datasets" in sys.modules)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    outputs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
               for _ in range(2)]
    assert [o.stdout.split() for o in outputs] == [["5", "True"], ["5", "False"]], [o.stderr[-500:] for o in outputs]


# ----------------------------------------------------------------------------- preload


@pytest.fixture
def fresh_preload(monkeypatch):
    monkeypatch.setattr(preload, "_wanted", [])
    monkeypatch.setattr(preload, "_thread", None)


def test_preload_imports_the_named_modules_in_a_thread_and_settle_waits(tmp_path, monkeypatch, fresh_preload):
    (tmp_path / "h11_later_a.py").write_text("import time\ntime.sleep(0.2)\nDONE = True\n")
    (tmp_path / "h11_later_b.py").write_text("DONE = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("h11_later_a", "h11_later_b"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    preload.need_later("h11_later_a", "h11_later_b", "h11_later_a")
    assert "h11_later_a" not in sys.modules  # nothing before start()
    preload.start()
    preload.settle()
    assert sys.modules["h11_later_a"].DONE and sys.modules["h11_later_b"].DONE
    assert preload._thread is None and preload._wanted == []


def test_a_failing_preload_import_is_left_to_the_real_import(tmp_path, monkeypatch, fresh_preload):
    (tmp_path / "h11_broken.py").write_text("raise ImportError('broken on purpose')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "h11_broken", raising=False)
    preload.need_later("h11_broken")
    preload.start()
    preload.settle()  # no exception here
    with pytest.raises(ImportError, match="broken on purpose"):
        __import__("h11_broken")


def test_preload_names_only_what_scoring_imports():
    source = (REPO / "src" / "judgebench" / "scoring" / "score.py").read_text()
    fits = (REPO / "src" / "judgebench" / "stats" / "ratings.py").read_text()  # the diagnostics' Bradley-Terry point fits
    from judgebench.judging.fastpath import SCORING_IMPORTS

    for name in SCORING_IMPORTS:
        if name.startswith("judgebench."):
            assert f"from {name} import" in source, name
        else:  # a library a point fit imports where it is used
            package, module = name.rsplit(".", 1)
            assert f"from {package} import {module}" in fits, name


# ----------------------------------------------------------------------------- the parser's imports (issue 30)


def test_help_imports_no_pydantic_yaml_or_records():
    """Building the parser imports what the parsers need; the handlers import the rest (pydantic, YAML, records)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "judgebench", "--help"], env=env, check=False,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "usage:" in done.stdout, done.stderr[-500:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "judgebench.cli.main" in imported
    for module in ("pydantic", "yaml", "judgebench.core.records", "judgebench.calls.dispatch"):
        assert module not in imported, module



@pytest.mark.slow
def test_a_rerun_scores_without_pandas(tmp_path, cache_home):
    """A run's scoring (metrics and the stored diagnostics) reads numpy columns: pandas (0.25 s to import) is
    left to the commands that make frames. The second run reads its examples from the example cache, so
    nothing else brings pandas in (the first goes through `datasets`, which imports it)."""
    data = write_jsonl(tmp_path / "pairs.jsonl", [sci_row(i, vote="AB"[i % 2]) for i in range(8)])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    imported = []
    for run in ("one", "two"):
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "judgebench", "run", "--tasks", "sciarena_eval",
                               "--judge", "builtin/longer", "--dataset-path", str(data), "--quiet",
                               "--output-path", str(tmp_path / run)], env=env, check=False, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-800:]
        imported.append({line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                         if line.startswith("import time:")})
    assert "judgebench.scoring.diagnostics" in imported[1] and "datasets" not in imported[1]
    assert "pandas" in imported[0] and "pandas" not in imported[1]

def test_the_lazy_calls_package_gives_the_same_names():
    from judgebench import calls
    from judgebench.calls import dispatch, options, policy, totals

    assert calls.RunnerOptions is options.RunnerOptions and calls.run_requests is dispatch.run_requests
    assert calls.TokenBucket is policy.TokenBucket and calls.reask_messages is totals.reask_messages
    assert sorted(calls.__all__) == sorted(calls._WHERE)
    with pytest.raises(AttributeError):
        calls.no_such_name  # noqa: B018
