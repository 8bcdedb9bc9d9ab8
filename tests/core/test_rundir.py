"""rundir: a run written over an earlier one leaves nothing of the earlier run that no longer matches."""

from __future__ import annotations

from pydantic import BaseModel

from judgebench.core.rundir import (
    REPEATS_FILE,
    REPORT_DIR,
    RESULTS_FILE,
    SAMPLES_FILE,
    write_run,
)


class _Row(BaseModel):
    n: int


def _earlier_run(run_dir, with_report_md: bool = True) -> None:
    (run_dir / REPORT_DIR).mkdir(parents=True)
    if with_report_md:
        (run_dir / REPORT_DIR / "report.md").write_text("# old run\n")
    (run_dir / REPORT_DIR / "plot.png").write_bytes(b"png")
    (run_dir / REPEATS_FILE).write_text('{"n": 0}\n')


def test_a_new_run_removes_the_earlier_runs_report_and_repeats(tmp_path):
    _earlier_run(tmp_path)
    write_run(tmp_path, _Row(n=1), [_Row(n=2)])
    assert not (tmp_path / REPORT_DIR).exists() and not (tmp_path / REPEATS_FILE).exists()
    assert (tmp_path / RESULTS_FILE).read_text().strip() == '{\n  "n": 1\n}'.strip()
    assert (tmp_path / SAMPLES_FILE).read_text() == '{"n":2}\n'


def test_a_report_folder_keeps_what_report_did_not_write(tmp_path, capsys):
    """An outside attack: merge, panel and rubric run deleted a report/ holding a report.md with everything in it
    (a user's chapters/thesis.tex); run left it whole. Both now remove report's own files only."""
    from judgebench.cli.main import main

    run = ["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--quiet", "--output-path"]
    for writer in ("write_run", "run"):
        folder = tmp_path / writer
        if writer == "run":  # an earlier run of its own (a repeats.jsonl alone is someone else's file: refused)
            assert main([*run, str(folder)]) == 0
        _earlier_run(folder)
        (folder / REPORT_DIR / "chapters").mkdir()
        (folder / REPORT_DIR / "chapters" / "thesis.tex").write_text("years of work\n")
        (folder / REPORT_DIR / "notes.txt").write_text("mine\n")
        if writer == "run":
            assert main([*run, str(folder)]) == 0
        else:
            write_run(folder, _Row(n=1), [_Row(n=2)])
        left = sorted(str(p.relative_to(folder / REPORT_DIR)) for p in (folder / REPORT_DIR).rglob("*"))
        assert left == ["chapters", "chapters/thesis.tex", "notes.txt"], (writer, left)


def test_a_report_folder_judgebench_did_not_write_is_left_alone(tmp_path):
    _earlier_run(tmp_path, with_report_md=False)  # no report.md: not a report folder of ours
    write_run(tmp_path, _Row(n=1), [_Row(n=2)])
    assert (tmp_path / REPORT_DIR / "plot.png").read_bytes() == b"png"


def test_a_symlinked_report_folder_loses_the_link_only(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "report.md").write_text("# not ours to delete\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / REPORT_DIR).symlink_to(outside)
    write_run(run, _Row(n=1), [_Row(n=2)])
    assert not (run / REPORT_DIR).exists() and (outside / "report.md").read_text() == "# not ours to delete\n"


def test_run_and_report_never_write_through_symlinks_out_of_the_run_folder(tmp_path, capsys):
    from judgebench.cli.main import main

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "other").write_text("keep\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / SAMPLES_FILE).symlink_to(outside / "other")
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--output-path", str(run)]) == 0
    assert (outside / "other").read_text() == "keep\n" and not (run / SAMPLES_FILE).is_symlink()
    (run / REPORT_DIR).symlink_to(outside)
    capsys.readouterr()
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert "is a symlink" in err and "\n" not in err and sorted(p.name for p in outside.iterdir()) == ["other"]


def test_a_non_finite_figure_is_written_as_null(tmp_path):
    """JSON has no NaN or infinity: arena.json once held `NaN` (an undefined effective count), which a strict reader
    refuses. write_json writes every such figure as null, the outputs' mark of an undefined figure."""
    import json
    import math

    import numpy as np
    import pytest

    from judgebench.core.files import json_text, write_json

    path = tmp_path / "figures.json"
    write_json(path, {"nan": math.nan, "row": [1.5, math.inf, np.float64("-inf")], "deep": {"t": (math.nan, 2)},
                      "kept": 0.25, "text": "NaN"})
    strict = json.loads(path.read_text(), parse_constant=lambda constant: pytest.fail(constant))
    assert strict == {"nan": None, "row": [1.5, None, None], "deep": {"t": [None, 2]}, "kept": 0.25, "text": "NaN"}
    assert json_text({"x": [math.nan]}, indent=None) == '{"x": [null]}'  # the leaderboard's, compare's encoder
    assert json_text({"x": "é"}) == '{"x": "\\u00e9"}'  # the caller's options kept (ensure_ascii by default)


def test_results_json_comes_last_so_a_cut_write_leaves_no_whole_looking_run(tmp_path, monkeypatch):
    # an outside attack: a second SIGTERM between the files left results.json (a finished run's mark) without
    # prompt.yaml; the copies come first now, so a run cut anywhere has no results.json
    import pytest

    from judgebench.core import rundir
    from judgebench.core.errors import JudgebenchError

    task, prompt = tmp_path / "t.yaml", tmp_path / "p.yaml"
    task.write_text("name: t\n")
    prompt.write_text("user: x\n")
    real = rundir.write_atomic

    def cut_at_the_prompt(path, text):
        if path.name == rundir.PROMPT_FILE:
            raise OSError(28, "No space left on device", str(path))
        return real(path, text)

    monkeypatch.setattr(rundir, "write_atomic", cut_at_the_prompt)
    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(JudgebenchError, match="No space left on device"):
        write_run(run, _Row(n=1), [_Row(n=2)], task_file=task, prompt_file=prompt)
    assert not (run / RESULTS_FILE).exists() and (run / SAMPLES_FILE).exists()
