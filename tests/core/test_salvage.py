"""Issue 27 item 2: the output folder and the temp folder cannot be written when the judgments are saved. The
paid answers must be kept where possible (the answer cache folder, even with --no-cache), and the message must
say the truth about where they are."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from openai_server import Behaviour, FakeOpenAIServer

from judgebench.cli.main import main

BROKEN = "/dev/null/cannot-be-a-folder"


def broken_output(tmp_path: Path) -> Path:
    """The run's output folder, whose samples.jsonl cannot be written once the calls are answered (`breaking`
    makes a folder there: the "full" output disk; a folder there before the run is refused before any call)."""
    _OUTPUTS[:] = [tmp_path / "out"]
    return tmp_path / "out"


def breaking(*breaks):
    """An answer that breaks the given places once the calls are being answered (after the data was loaded,
    as a disk that fills up during the run), the output folder's samples.jsonl first."""
    def answer(messages):
        for do in (_full_output, *breaks):
            do()
        return "[[A]]"
    return answer


def _full_output() -> None:
    """samples.jsonl of every output folder under the test's folder `out` cannot be written from now on."""
    for out in _OUTPUTS:
        if not (out / "samples.jsonl").exists():
            (out / "samples.jsonl").mkdir(parents=True)
            (out / "samples.jsonl" / "keep").write_text("x")


_OUTPUTS: list[Path] = []


def no_temp():
    tempfile.tempdir = BROKEN


def no_cwd(folder: Path):
    def gone():
        if folder.exists():
            os.chdir(folder)
            os.rmdir(folder)
    return gone


def run_llm(server, out: Path, *extra: str) -> int:
    args = f"api_base={server.api_base},api_key=sk-test"
    return main(["run", "--tasks", "sciarena_eval", "--judge", "openai/fake-model", "--judge-args", args, "--demo",
                 "--limit", "4", "--output-path", str(out), "--quiet", *extra])


def test_full_output_and_temp_with_no_cache_saves_to_the_cache_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tempfile, "tempdir", None)  # restored after the test; the answers break it
    monkeypatch.setenv("JUDGEBENCH_CACHE_DIR", str(tmp_path / "cache"))
    with FakeOpenAIServer(Behaviour(answer=breaking(no_temp))) as server:
        code = run_llm(server, broken_output(tmp_path), "--no-cache")
        paid = server.stats().total
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert paid == 8, err
    saved = Path(err.split("saved to ")[1].split()[0])
    assert saved.is_relative_to(tmp_path / "cache" / "salvage")
    rows = [json.loads(line) for line in saved.read_text().splitlines()]
    assert len(rows) == 8 and all(r["raw"] == "[[A]]" for r in rows)
    assert "answer cache" not in err


def test_nowhere_to_save_says_the_answers_are_lost_with_no_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.chdir(tmp_path)
    gone = tmp_path / "gone"
    gone.mkdir()
    out = broken_output(tmp_path)

    def no_cache_no_home():
        os.environ["JUDGEBENCH_CACHE_DIR"] = BROKEN + "/cache"
        os.environ["HOME"] = BROKEN + "/home"

    monkeypatch.setenv("JUDGEBENCH_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("HOME", str(tmp_path))
    with FakeOpenAIServer(Behaviour(answer=breaking(no_temp, no_cache_no_home, no_cwd(gone)))) as server:
        code = run_llm(server, out, "--no-cache")
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "cached no answer (--no-cache)" in err and "lost" in err
    assert "are in the answer cache" not in err


def test_nowhere_to_save_names_the_cache_that_holds_the_answers(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(tempfile, "tempdir", None)
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "cache"
    gone = tmp_path / "gone"
    gone.mkdir()
    out = broken_output(tmp_path)

    def no_default_cache_no_home():
        os.environ["JUDGEBENCH_CACHE_DIR"] = BROKEN + "/cache"  # the default cache folder: unusable
        os.environ["HOME"] = BROKEN + "/home"

    monkeypatch.setenv("JUDGEBENCH_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.setenv("HOME", str(tmp_path))
    with FakeOpenAIServer(Behaviour(answer=breaking(no_temp, no_default_cache_no_home, no_cwd(gone)))) as server:
        code = run_llm(server, out, "--cache-dir", str(cache))
    err = capsys.readouterr().err
    assert code == 2 and f"in the answer cache {cache}" in err, err
    shutil.rmtree(cache, ignore_errors=True)
