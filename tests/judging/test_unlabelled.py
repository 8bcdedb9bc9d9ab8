"""`run --judge-unlabelled`: examples without a human label are judged too, into unlabelled.jsonl, counted and
costed in results.json's `unlabelled`, never scored; the labelled part of the run is exactly the run of the
labelled examples alone; `score`, `merge` and `arena --judge-run` carry the unlabelled judgments along."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import sci_row, write_jsonl
from openai_server import Behaviour, FakeOpenAIServer

import judgebench
from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError

UNLABELLED_EVERY = 3  # rows 0, 3, 6, ... have no vote (null, blank or no field at all, in turn)
ROWS = 30
SAME = ("metrics", "slices", "counts", "usage", "diagnostics")


def _rows(labelled_only: bool = False) -> list[dict]:
    rows = []
    for i in range(ROWS):
        row = sci_row(i, vote="AB"[i % 2], responseB=f"Answer B{i}" + " longer text" * (i % 5))
        if i % UNLABELLED_EVERY == 0:
            if labelled_only:
                continue
            if i % 9 == 0:
                row["vote"] = None
            elif i % 9 == 3:
                row["vote"] = "  "
            else:
                del row["vote"]
        rows.append(row)
    return rows


def _data(tmp: Path, labelled_only: bool = False) -> Path:
    rows = _rows(labelled_only)
    if not labelled_only:  # the first row keeps every column, so the file's columns are the task's
        rows.insert(0, rows.pop(1))
    return write_jsonl(tmp / ("labelled.jsonl" if labelled_only else "mixed.jsonl"), rows)


def _run(data: Path, out: Path, *extra: str, judge: str = "builtin/longer") -> int:
    return main(["run", "--tasks", "sciarena_eval", "--dataset-path", str(data), "--judge", judge,
                 "--output-path", str(out), "--quiet", "--bootstrap", "200", *extra])


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_labelled_part_is_the_run_of_the_labelled_examples_alone(tmp_path, capsys):
    assert _run(_data(tmp_path), tmp_path / "mixed", "--judge-unlabelled") == 0
    printed = capsys.readouterr().out
    assert _run(_data(tmp_path, labelled_only=True), tmp_path / "alone") == 0
    mixed = json.loads((tmp_path / "mixed" / "results.json").read_text())
    alone = json.loads((tmp_path / "alone" / "results.json").read_text())
    for key in SAME:  # every figure, bootstrap intervals included
        assert mixed[key] == alone[key], key
    assert "unlabelled" not in alone  # a run without the flag writes results.json as before
    assert (tmp_path / "mixed" / "samples.jsonl").read_text() == (tmp_path / "alone" / "samples.jsonl").read_text()
    unlabelled_ids = {f"q{i}" for i in range(0, ROWS, UNLABELLED_EVERY)}  # 10 examples, both orders
    lines = _lines(tmp_path / "mixed" / "unlabelled.jsonl")
    assert len(lines) == 20 and {x["example_id"] for x in lines} == unlabelled_ids
    assert all(x["label"] is None and x["status"] == "ANSWERED" and x["verdict"] in ("A", "B") for x in lines)
    assert mixed["unlabelled"]["examples"] == 10 and mixed["counts"]["examples"] == 20
    assert mixed["unlabelled"]["counts"] == {"examples": 10, "calls": 20, "answered": 20, "invalid": 0, "failed": 0,
                                             "cached": 0, "coverage": 1.0, "truncated": 0}
    assert "unlabelled examples 10 (not scored): judgments 20, answered 20" in printed


def test_a_missing_label_without_the_flag_is_one_line_naming_the_row_and_the_flag(tmp_path, capsys):
    assert _run(_data(tmp_path), tmp_path / "out") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "mixed.jsonl: row id q0: field 'vote' has no label (an empty cell, a null" in err and "--judge-unlabelled" in err
    assert not (tmp_path / "out").exists()
    # a CSV cell `NaN` is a missing label too: said in words (it read "has label value None", naming no NaN)
    import pandas as pd

    rows = [sci_row(i) | {"citation_a": "", "citation_b": ""} for i in range(3)]
    rows[1]["vote"] = "NaN"
    pd.DataFrame(rows).to_csv(tmp_path / "nan.csv", index=False)
    assert _run(tmp_path / "nan.csv", tmp_path / "out") == 2
    err = capsys.readouterr().err.strip()
    assert f"{tmp_path / 'nan.csv'}: row id {rows[1]['id']}: field 'vote' has no label (" in err and "NaN" in err


def test_data_with_no_label_at_all_is_refused_before_any_call(tmp_path, capsys):
    data = write_jsonl(tmp_path / "none.jsonl", [sci_row(i, vote=None) for i in range(3)])
    assert _run(data, tmp_path / "out", "--judge-unlabelled") == 2
    assert "none of the 3 examples has a label" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_label_on_some_dimensions_only_is_refused(tmp_path):
    from judgebench.tasks.loading import load_examples
    from judgebench.tasks.registry import get_task

    spec = get_task("ideation_arena_eval")
    rows = [json.loads(line) for line in (spec.folder / spec.demo.path).read_text().splitlines()[:3]]
    for name in ("overall_quality", "novelty", "feasibility", "significance", "specificity"):
        rows[1][name] = None  # the second row: no label at all (an unlabelled example)
    rows[2]["novelty"] = None  # the third: labelled on four dimensions only
    data = write_jsonl(tmp_path / "ideas.jsonl", rows)
    with pytest.raises(JudgebenchError, match=r"no label on dimension 'novelty' but a label on others"):
        load_examples(spec, dataset_path=str(data), unlabelled=True)
    loaded = load_examples(spec, dataset_path=str(write_jsonl(tmp_path / "two.jsonl", rows[:2])), unlabelled=True)
    assert [e.labels == {} for e in loaded.examples] == [False, True] and loaded.unlabelled == 1


def test_a_votes_task_refuses_the_flag_and_a_panel_keeps_its_members_unlabelled_judgments(tmp_path):
    """A panel is built from its members' scored judgments; each member's copy under members/ keeps its
    unlabelled.jsonl (and repeats.jsonl), so `score` and `arena --judge-run` read the copy as they read the run."""
    with pytest.raises(JudgebenchError, match="derives its labels from annotator votes"):
        judgebench.evaluate("human_votes_demo", "builtin/longer", output_path=tmp_path / "v", demo=True,
                            judge_unlabelled=True)
    done = judgebench.evaluate_judges("sciarena_eval", ["builtin/longer", "builtin/random"], output_path=tmp_path / "p",
                                      panel="majority", dataset_path=str(_data(tmp_path)), judge_unlabelled=True,
                                      repeats=2, n_resamples=100)
    panel = json.loads((tmp_path / "p" / "panel" / "results.json").read_text())
    assert panel["counts"]["examples"] == 20 and "unlabelled" not in panel
    for member in sorted((tmp_path / "p" / "panel" / "members").iterdir()):
        assert (member / "unlabelled.jsonl").is_file() and (member / "repeats.jsonl").is_file()
        before = json.loads((member / "results.json").read_text())
        assert judgebench.score_run(member).unlabelled.model_dump(mode="json") == before["unlabelled"]
    assert len(done.runs) == 2


@pytest.mark.slow
def test_every_call_of_an_llm_judge_is_counted_and_costed_and_cached(tmp_path):
    data = _data(tmp_path)
    args = ["--judge-args", "api_base={},api_key=sk-t,max_tokens=16", "--cache-dir", str(tmp_path / "cache"),
            "--max-retries", "0", "--judge-unlabelled"]
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        args[1] = args[1].format(server.api_base)
        assert _run(data, tmp_path / "first", *args, judge="openai/m") == 0
        assert server.stats().total == ROWS * 2  # both orders of every example, labelled or not
        assert _run(data, tmp_path / "again", *args, judge="openai/m") == 0
        assert server.stats().total == ROWS * 2  # the rerun: every answer from the cache
    for run, cached in (("first", 0), ("again", 20)):
        result = json.loads((tmp_path / run / "results.json").read_text())["unlabelled"]
        lines = _lines(tmp_path / run / "unlabelled.jsonl")
        assert result["counts"]["calls"] == len(lines) == 20 and result["counts"]["cached"] == cached
        assert result["usage"]["tokens_in"] == sum(x["tokens_in"] for x in lines) > 0  # the server's own counts
        assert result["usage"]["cached_calls"] == cached


def test_score_keeps_the_unlabelled_judgments_and_refuses_files_changed_after_the_run(tmp_path, capsys):
    out = tmp_path / "run"
    assert _run(_data(tmp_path), out, "--judge-unlabelled", "--repeats", "2") == 0
    assert {x["repeat"] for x in _lines(out / "unlabelled.jsonl")} == {0, 1}  # every repeat is kept
    assert all(x["label"] is not None for x in _lines(out / "repeats.jsonl"))
    before = (out / "results.json").read_text()
    assert main(["score", str(out)]) == 0
    assert json.loads((out / "results.json").read_text())["unlabelled"] == json.loads(before)["unlabelled"]
    capsys.readouterr()
    unlabelled = (out / "unlabelled.jsonl").read_text().splitlines(keepends=True)
    (out / "unlabelled.jsonl").write_text("".join(unlabelled[1:]))
    assert main(["score", str(out)]) == 2
    assert "unlabelled.jsonl: 19 judgments of repeat 0, but results.json counts 20" in capsys.readouterr().err
    for change, problem in ((dict(example_id="q1"), "is of example 'q1', which samples.jsonl holds as labelled"),
                            (dict(dimension="novelty"), "is on dimension 'novelty', which samples.jsonl does not have"),
                            (dict(repeat=7), "is a repeat the run did not make (it made 2)")):
        (out / "unlabelled.jsonl").write_text("".join([json.dumps({**json.loads(unlabelled[0]), **change}) + "\n",
                                                       *unlabelled[1:]]))
        assert main(["score", str(out)]) == 2
        assert "unlabelled.jsonl: judgment 1 " in (err := capsys.readouterr().err) and problem in err, err
    (out / "unlabelled.jsonl").write_text("".join(unlabelled))
    samples = (out / "samples.jsonl").read_text().splitlines(keepends=True)
    first = json.loads(samples[0])
    (out / "samples.jsonl").write_text("".join([json.dumps({**first, "label": None}) + "\n", *samples[1:]]))
    assert main(["score", str(out)]) == 2
    err = capsys.readouterr().err
    assert "samples.jsonl: judgment 1 (q1/overall/AB) has no label" in err and "unlabelled.jsonl" in err


@pytest.mark.slow
def test_merged_shards_equal_the_whole_run_even_with_the_unvoted_pairs_at_the_end(tmp_path, capsys):
    """Each shard takes its block of the labelled examples and its block of the unlabelled ones: with the unvoted
    pairs appended after the voted ones (the usual file), contiguous blocks would leave shards with nothing to
    score. Merged, the files and figures (repeats' stability included) are the single run's."""
    rows = [sci_row(i, vote="AB"[i % 2] if i < 12 else None) for i in range(30)]  # 12 labelled, then 18 not
    data = write_jsonl(tmp_path / "tail.jsonl", rows)
    common = ("--judge-unlabelled", "--repeats", "3")
    assert _run(data, tmp_path / "whole", *common, judge="builtin/random") == 0
    for k in (1, 2, 3):
        assert _run(data, tmp_path / f"s{k}", *common, "--shard", f"{k}/3", judge="builtin/random") == 0
        shard = json.loads((tmp_path / f"s{k}" / "results.json").read_text())
        assert (shard["counts"]["examples"], shard["unlabelled"]["examples"]) == (4, 6)
    assert main(["merge", str(tmp_path / "s2"), str(tmp_path / "s3"), str(tmp_path / "s1"),
                 "--output-path", str(tmp_path / "merged")]) == 0
    whole = json.loads((tmp_path / "whole" / "results.json").read_text())
    merged = json.loads((tmp_path / "merged" / "results.json").read_text())
    for key in (*SAME, "unlabelled", "stability"):
        assert merged[key] == whole[key], key
    for name in ("samples.jsonl", "unlabelled.jsonl"):
        assert (tmp_path / "merged" / name).read_text() == (tmp_path / "whole" / name).read_text()
    capsys.readouterr()
    assert _run(data, tmp_path / "s13", "--judge-unlabelled", "--shard", "1/13") == 2
    assert "--shard 1/13: the data has 12 labelled example(s)" in capsys.readouterr().err


def test_arena_reads_the_verdicts_on_unvoted_pairs(tmp_path):
    """The judge-assisted ratings' judge-only pairs are the run's unlabelled examples."""
    from judgebench.core.rundir import read_verdicts
    from judgebench.human.arena.assisted import read_judge_pairs

    assert _run(_data(tmp_path), tmp_path / "run", "--judge-unlabelled") == 0
    result, records = read_verdicts(tmp_path / "run")
    assert len(records) == result.counts.calls + result.unlabelled.counts.calls == ROWS * 2
    pairs = read_judge_pairs(tmp_path / "run", "overall")
    assert len(pairs.outcome) == ROWS and pairs.outcome["q0"] in (0.0, 0.5, 1.0)


def test_a_run_whose_unlabelled_examples_got_no_verdict_exits_1_and_says_so(tmp_path, capsys):
    """The unlabelled examples' verdicts are what the flag is run for: none answered (or a share below
    --min-coverage) fails the run as the scored judgments' would, naming which part."""
    unlabelled = {f"Question {i} about" for i in range(0, ROWS, UNLABELLED_EVERY)}

    def answer(messages: list[dict]) -> str:
        text = " ".join(m["content"] for m in messages)
        return "I cannot tell." if any(q in text for q in unlabelled) else "[[A]]"

    args = ["--judge-args", "api_base={},api_key=sk-t", "--no-cache", "--max-retries", "0", "--judge-unlabelled"]
    with FakeOpenAIServer(Behaviour(answer=answer)) as server:
        args[1] = args[1].format(server.api_base)
        assert _run(_data(tmp_path), tmp_path / "run", *args, judge="openai/m") == 1
    err = capsys.readouterr().err
    assert "judgebench: unlabelled examples: no judgment was answered; most common causes: 20 x invalid" in err
    result = json.loads((tmp_path / "run" / "results.json").read_text())
    assert result["counts"]["answered"] == 40 and result["unlabelled"]["counts"]["invalid"] == 20


@pytest.mark.parametrize("name", ["unlabelled.jsonl", "results.json", "samples.jsonl"])
def test_a_folder_where_a_run_writes_a_file_is_refused_before_any_call(tmp_path, capsys, name):
    """It failed the run after every judgment was made (naming samples.jsonl for a folder at unlabelled.jsonl)."""
    (tmp_path / "out" / name).mkdir(parents=True)
    assert _run(_data(tmp_path), tmp_path / "out") == 2
    assert f"--output-path {tmp_path / 'out'}: {tmp_path / 'out' / name} is a folder" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [name]


def test_with_repeats_every_unlabelled_call_is_costed(tmp_path):
    """An outside attack: with --repeats the unlabelled `usage` counted repeat 0's calls only, and no other figure
    held the others (`stability` covers the labelled examples): the run's cost was under-reported."""
    data = _data(tmp_path)
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        assert _run(data, tmp_path / "run", "--judge-unlabelled", "--repeats", "2", "--no-cache", "--max-retries", "0",
                    "--judge-args", f"api_base={server.api_base},api_key=sk-t", judge="openai/m") == 0
        sent = server.stats().total
    result = json.loads((tmp_path / "run" / "results.json").read_text())
    lines = _lines(tmp_path / "run" / "unlabelled.jsonl")
    unlabelled = result["unlabelled"]
    usage = unlabelled["usage"]
    assert (unlabelled["counts"]["calls"], len(lines), usage["unpriced_calls"]) == (20, 40, 40)
    assert usage["tokens_in"] == sum(x["tokens_in"] for x in lines) > sum(x["tokens_in"] for x in lines[::2])
    assert sent == 2 * ROWS * 2 == result["stability"]["judgments_all"] + usage["unpriced_calls"]  # every call, once
