"""Sharded runs (`run --shard K/N`) and `judgebench merge`: the merged run equals one run of the whole task."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import judgebench
from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.judging.shards import parse_shard, select_shard

SAME_IN_BOTH = ("metrics", "slices", "counts", "usage", "diagnostics")


def _run(tmp: Path, name: str, task: str = "ideation_arena_eval", judge: str = "builtin/random", shard=None, **kwargs):
    return judgebench.evaluate(task, judge, output_path=tmp / name, demo=True, seed=3, shard=shard, **kwargs)


def _results(path: Path) -> dict:
    return json.loads((path / "results.json").read_text())


def _samples(path: Path) -> list[str]:
    return (path / "samples.jsonl").read_text().splitlines()


@pytest.mark.slow
@pytest.mark.parametrize("task", ["ideation_arena_eval", "sciarena_eval"])
def test_two_shards_merged_equal_one_run(tmp_path, task, capsys):
    whole = _run(tmp_path, "whole", task)
    first, second = _run(tmp_path, "s1", task, shard="1/2"), _run(tmp_path, "s2", task, shard="2/2")
    assert 0 < first.result.counts.examples < whole.result.counts.examples
    assert first.result.counts.examples + second.result.counts.examples == whole.result.counts.examples
    assert first.result.config.shard == "1/2"
    # the shards are given out of order: merge puts them in shard order
    assert main(["merge", str(tmp_path / "s2"), str(tmp_path / "s1"), "--output-path", str(tmp_path / "merged")]) == 0
    merged, single = _results(tmp_path / "merged"), _results(tmp_path / "whole")
    headline = merged["metrics"][next(iter(merged["metrics"]))][merged["config"]["headline"]]
    printed = f"{merged['config']['headline']} {headline['value']:.3f} [{headline['ci_low']:.3f}, {headline['ci_high']:.3f}]"
    assert printed in capsys.readouterr().out  # the merged run's summary, with the interval, as `score` prints it
    for key in SAME_IN_BOTH:  # every figure, bootstrap intervals included
        assert merged[key] == single[key], key
    assert merged["config"]["shard"] is None
    assert _samples(tmp_path / "merged") == _samples(tmp_path / "whole")  # same records, same order
    assert judgebench.score_run(tmp_path / "merged").metrics == whole.result.metrics


def test_select_shard_blocks_cover_everything_once():
    items = list(range(10))
    blocks = [select_shard(items, k, 3) for k in (1, 2, 3)]
    assert blocks == [[0, 1, 2], [3, 4, 5], [6, 7, 8, 9]]  # floor(k*10/3): 3, 6, 10
    assert select_shard(items, 1, 1) == items


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "2", "a/b", "1/2/3", "-1/2"])
def test_bad_shard_flag_is_one_line(text):
    with pytest.raises(JudgebenchError, match="^--shard: "):
        parse_shard(text)


def test_bad_shard_on_the_command_line_exits_2(tmp_path, capsys):
    code = main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", "builtin/longer",
                 "--output-path", str(tmp_path / "r"), "--shard", "5/4"])
    assert code == 2
    assert capsys.readouterr().err.strip() == "judgebench: error: --shard: K must be between 1 and N (N >= 1), got 5/4"


@pytest.mark.slow
def test_merge_refuses_a_missing_a_repeated_or_a_foreign_shard(tmp_path, capsys):
    _run(tmp_path, "s1", shard="1/2")
    _run(tmp_path, "s2", shard="2/2")
    _run(tmp_path, "other", judge="builtin/longer", shard="2/2")
    _run(tmp_path, "whole")
    _run(tmp_path, "thrice", shard="2/2", repeats=3)  # an outside attack: merged, its stability figures were wrong
    _run(tmp_path, "reasked", shard="2/2", runner=judgebench.calls.RunnerOptions(reask=2, progress=False))
    cases = {
        ("s1",): "merge: shard(s) 2/2 missing",
        ("s1", "s1"): "shard 1/2 given twice",
        ("s1", "other"): "not a shard of the same run",
        ("s1", "whole"): "not a shard (results.json has no config.shard",
        ("s1", "thrice"): "thrice: not a shard of the same run as",
        ("s1", "reasked"): "(config.reask differs)",
    }
    for dirs, message in cases.items():
        code = main(["merge", *(str(tmp_path / d) for d in dirs), "--output-path", str(tmp_path / "m")])
        err = capsys.readouterr().err.strip()
        assert code == 2 and message in err and len(err.splitlines()) == 1, (dirs, err)
    assert not (tmp_path / "m" / "results.json").exists()


@pytest.mark.parametrize("edited", ["3/2", "0/2", "abc", "1/2/3", "²/2"])
def test_a_hand_edited_shard_is_refused_naming_the_results_file(tmp_path, capsys, edited):
    """An outside attack: `score` took "3/2", "0/2" and "abc", and `merge` blamed a flag nobody gave (--shard)."""
    _run(tmp_path, "s1", task="sciarena_eval", shard="1/2")
    _run(tmp_path, "s2", task="sciarena_eval", shard="2/2")
    data = _results(tmp_path / "s2")
    data["config"]["shard"] = edited
    (tmp_path / "s2" / "results.json").write_text(json.dumps(data))
    for command in (["score", str(tmp_path / "s2")], ["merge", str(tmp_path / "s1"), str(tmp_path / "s2"),
                                                       "--output-path", str(tmp_path / "m")]):
        assert main(command) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"judgebench: error: {tmp_path / 's2' / 'results.json'}: field 'config.shard'"), err


@pytest.mark.parametrize("command", ["merge", "panel", "rubric"])
def test_a_signal_while_the_run_folder_is_written_lets_it_finish(tmp_path, capsys, monkeypatch, command):
    """An outside attack: SIGTERM while `merge` wrote left samples.jsonl without results.json (exit 130; the earlier
    run in the folder gone, `score` refused the folder). The folder is written whole, then the command ends as
    interrupted; panel the same."""
    import os
    import signal

    import judgebench.core.rundir as rundir

    argv, examples = [], 48
    if command == "rubric":  # (an attack on the fix: rubric run's folder was not written whole)
        argv, examples = ["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit", "--demo"], 45
    else:
        inputs = [_run(tmp_path, "s1", "sciarena_eval", shard="1/2"), _run(tmp_path, "s2", "sciarena_eval", shard="2/2")]
        if command == "panel":
            inputs = [_run(tmp_path, "a", "sciarena_eval"), _run(tmp_path, "b", "sciarena_eval", judge="builtin/longer")]
        argv = [command, *(str(s.run_dir) for s in inputs)]
    written = rundir.write_models_jsonl

    def signalled(*args, **kwargs):  # the signal lands once samples.jsonl is half way
        os.kill(os.getpid(), signal.SIGTERM)
        return written(*args, **kwargs)

    monkeypatch.setattr(rundir, "write_models_jsonl", signalled)
    out = tmp_path / "out"
    status = main([*argv, "--output-path", str(out)])
    err = capsys.readouterr().err
    assert status == 130 and "writing the" in err and "first" in err, (status, err)
    counts = json.loads((out / "results.json").read_text())["counts"]
    assert counts.get("examples", counts.get("responses")) == examples, counts
    monkeypatch.setattr(rundir, "write_models_jsonl", written)
    assert main(["rubric", "score", str(out)] if command == "rubric" else ["score", str(out)]) == 0


def test_merging_a_partial_shard_names_it_and_exits_1(tmp_path, capsys):
    # an outside attack: the merged header said PARTIAL, nothing named the shard, and the command exited 0
    _run(tmp_path, "s1", shard="1/2")
    _run(tmp_path, "s2", shard="2/2")
    results = _results(tmp_path / "s2")
    results["config"]["partial"] = True  # as a shard run stopped early records it
    (tmp_path / "s2" / "results.json").write_text(json.dumps(results))
    status = main(["merge", str(tmp_path / "s1"), str(tmp_path / "s2"), "--output-path", str(tmp_path / "merged")])
    err = capsys.readouterr().err
    assert status == 1 and f"partial shards: {tmp_path / 's2'} (shard 2/2): their runs stopped early" in err, err
    assert _results(tmp_path / "merged")["config"]["partial"] is True
