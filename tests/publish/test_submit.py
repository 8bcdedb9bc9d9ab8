"""`judgebench submit`: honest runs are accepted and stored; each kind of tampering is rejected with its reason."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from helpers import sci_row, write_jsonl

from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import read_models_jsonl
from judgebench.core.records import IN_FLIGHT, JudgeReply, JudgmentRecord, RunResult
from judgebench.core.rundir import read_run, write_run
from judgebench.judges.config import config_hash
from judgebench.judging.judgments import assemble_records, plan_requests
from judgebench.judging.prompts import load_prompt
from judgebench.publish.submit import Rejected, entry_name, submit_run, validate_run
from judgebench.scoring.score import rescore_run, score
from judgebench.tasks.loading import load_examples
from judgebench.tasks.registry import get_task

REPO = Path(__file__).resolve().parents[2]
PINNED = "0123456789abcdef0123456789abcdef01234567"


def make_run(run_dir: Path, task: str, judge: str = "builtin/longer", *extra: str) -> Path:
    """A run made by the real pipeline through the CLI (demo data unless --dataset-path/--include-path)."""
    args = ["run", "--tasks", task, "--judge", judge, "--output-path", str(run_dir), "--quiet", *map(str, extra)]
    if "--include-path" not in extra and "--dataset-path" not in extra:
        args.append("--demo")
    assert main(args) == 0
    return run_dir


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("runs") / "honest", "sciarena_eval")


def tampered(honest: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "tampered"
    shutil.copytree(honest, copy)
    return copy


def edit_results(run_dir: Path, edit, rehash: bool = True) -> None:
    """Edit results.json as a forger would: recomputing the configuration hash after the edit (it is public)."""
    data = json.loads((run_dir / "results.json").read_text())
    edit(data)
    config = data.get("config") or {}
    if rehash and config.get("judge_config_hash"):
        args = (config["judge"], config.get("judge_args"), config.get("prompt_template_hash"), config.get("reask"))
        config["judge_config_hash"] = config_hash(*args)
    (run_dir / "results.json").write_text(json.dumps(data))


def edit_samples(run_dir: Path, edit) -> None:
    lines = (run_dir / "samples.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    rows = edit(rows) or rows
    (run_dir / "samples.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))


def rejected(run_dir: Path, check: str, *words: str, **kwargs) -> str:
    with pytest.raises(Rejected) as info:
        validate_run(run_dir, **kwargs)
    assert info.value.check == check, str(info.value)
    for word in words:
        assert word in str(info.value)
    assert "\n" not in str(info.value)
    return str(info.value)


# ----------------------------------------------------------------------------- accepted


def test_honest_run_is_accepted_stored_and_tables_rebuilt(honest, tmp_path, capsys):
    board = tmp_path / "leaderboards"
    assert main(["submit", str(honest), "--leaderboard-dir", str(board)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("accepted: sciarena_eval / builtin/longer / sciarena_pairwise@") and "[demo data]" in out
    result = RunResult.model_validate_json((honest / "results.json").read_text())
    entry = board / "entries" / "sciarena_eval" / entry_name(result)
    digest = result.config.judge_config_hash[:8]  # the hash `run` prints (`builtin/longer #480630f4`)
    assert entry.name == f"builtin-longer-{digest}__{result.config.prompt_template_hash[:10]}__demo"
    assert (entry / "results.json").read_text() == (honest / "results.json").read_text()
    assert (entry / "samples.jsonl").read_text() == (honest / "samples.jsonl").read_text()
    stored = json.loads((entry / "submission.json").read_text())
    assert stored["labels"] == ["demo data"] and stored["min_coverage"] == 0.9 and stored["coverage"] == 1.0
    for suffix in (".md", ".csv", ".json"):
        assert (board / f"sciarena_eval{suffix}").is_file()
    assert "<table>" in (board / "index.html").read_text()
    rows = json.loads((board / "sciarena_eval.json").read_text())["rows"]
    mine = next(row for row in rows if row["judge"] == "builtin/longer")
    assert mine["accuracy"] == round(100 * result.metrics["overall"]["accuracy"].value, 2)
    assert {row["kind"] for row in rows} == {"baseline", "reported", "reported-human"}  # + published human agreement
    # resubmitting replaces the entry (one per judge, task and prompt version)
    assert main(["submit", str(honest), "--leaderboard-dir", str(board)]) == 0
    assert "replaced" in capsys.readouterr().out


@pytest.mark.slow
def test_multi_dimension_and_single_order_runs_are_accepted_as_labelled(tmp_path):
    ideation = make_run(tmp_path / "ideation", "ideation_arena_eval", "builtin/more-citations")
    assert validate_run(ideation).labels == ["demo data"]
    joint = make_run(tmp_path / "joint", "ideation_arena_eval", "builtin/longer", "--dimension-mode", "joint")
    assert validate_run(joint).result.config.dimension_mode == "joint"
    single = make_run(tmp_path / "single", "sciarena_eval", "builtin/shorter", "--no-swap")
    verified = validate_run(single)
    assert verified.labels == ["single-order", "demo data"]
    board = tmp_path / "board"
    submit_run(single, board)
    row = next(r for r in json.loads((board / "sciarena_eval.json").read_text())["rows"] if r["judge"] == "builtin/shorter")
    assert row["orders"] == "single" and row["examples"] == 48


@pytest.mark.slow
def test_partial_run_is_accepted_only_when_marked_partial(honest, tmp_path):
    """A run stopped early (pipeline records the calls never sent, and those in flight at the stop, as FAILED) is
    accepted as partial."""
    run = tampered(honest, tmp_path)
    result = RunResult.model_validate_json((run / "results.json").read_text())
    spec = get_task("sciarena_eval")
    examples = load_examples(spec, demo=True).examples
    requests = plan_requests(spec, examples, load_prompt(spec.prompt, spec.folder), mode="single", swap=True)
    old = read_models_jsonl(run / "samples.jsonl", JudgmentRecord)
    in_flight = JudgeReply(error=IN_FLIGHT)
    replies = [JudgeReply(text=r.raw) if i < 30 else in_flight if i < 32 else None for i, r in enumerate(old)]
    records = assemble_records(spec.name, result.config.judge, requests, replies, examples, "max failures reached")
    unmarked = score(records, result.config, spec, n_examples=len(examples))
    write_run(run, unmarked, records)
    rejected(run, "coverage", f"{len(old) - 30} samples were left unfinished by a stop", "partial", min_coverage=0.0)
    config = result.config.model_copy(update={"partial": True})
    write_run(run, score(records, config, spec, n_examples=len(examples)), records)
    assert validate_run(run, min_coverage=0.3).labels == ["partial", "demo data"]
    # 30 of 96 judgments answered: below the default bar of 90%
    rejected(run, "coverage", "30 of 96 judgments answered", "minimum coverage of 90%")


# ----------------------------------------------------------------------------- tampering


def test_edited_metric_is_rejected(honest, tmp_path):
    run = tampered(honest, tmp_path)
    edit_results(run, lambda d: d["metrics"]["overall"]["accuracy"].update(value=d["metrics"]["overall"]["accuracy"]["value"] + 0.05))
    rejected(run, "metrics", "metrics.overall.accuracy.value", "recomputed from the samples")


def test_a_paid_before_part_larger_than_the_cost_is_rejected(honest, tmp_path):
    """`cached_cost_usd` is the part of `cost_usd` an earlier run paid: more than the cost (an outside attack set it
    to 50 times the cost, and submit printed "of it $12,917.90 not paid again" of a $258 run) is refused."""
    run = tampered(honest, tmp_path)
    edit_samples(run, lambda rows: rows[0].update(cost_usd=0.002, cached_cost_usd=0.1))
    rejected(run, "metrics", "cached_cost_usd 0.1 is more than its cost_usd 0.002")


def test_a_run_with_unlabelled_examples_is_rejected_as_such(tmp_path):
    """A run made with --judge-unlabelled judged data that is not the task's labelled data: named as such, not a
    failure to reload the data."""
    rows = [sci_row(i, vote="AB"[i % 2] if i % 3 else None) for i in range(9)]
    data = write_jsonl(tmp_path / "mixed.jsonl", rows)
    run = make_run(tmp_path / "run", "sciarena_eval", "builtin/longer", "--dataset-path", data, "--judge-unlabelled")
    rejected(run, "data", "judged 3 example(s) without a label (run --judge-unlabelled)", dataset_path=str(data))


def test_edited_confidence_interval_and_counts_are_rejected(honest, tmp_path):
    run = tampered(honest, tmp_path)
    edit_results(run, lambda d: d["metrics"]["overall"]["accuracy"].update(ci_low=0.0))
    rejected(run, "metrics", "ci_low")
    run2 = tmp_path / "b"
    shutil.copytree(honest, run2)
    edit_results(run2, lambda d: d["counts"].update(answered=d["counts"]["answered"] + 1))
    rejected(run2, "metrics", "counts.answered")


def test_dropped_sample_is_rejected_even_after_rescoring(honest, tmp_path):
    run = tampered(honest, tmp_path)
    edit_samples(run, lambda rows: rows[:-1])
    with pytest.raises(JudgebenchError, match=r"samples\.jsonl: 95 judgments, but results\.json counts 96: lines were removed"):
        rescore_run(run)  # `score` refuses samples that no longer match their results
    rejected(run, "schema", "95 judgments, but results.json counts 96")
    edit_results(run, lambda data: data["counts"].update(calls=95))  # the tamperer makes the counts match
    rejected(run, "coverage", "missing sample")  # checked against the task's own data


def test_duplicated_sample_is_rejected(honest, tmp_path):
    run = tampered(honest, tmp_path)
    edit_samples(run, lambda rows: rows + [rows[3]])
    rejected(run, "coverage", "duplicated sample", "appears 2 times")


def test_flipped_label_is_rejected_even_after_rescoring(honest, tmp_path):
    run = tampered(honest, tmp_path)

    def flip(rows):
        for row in rows:
            if row["example_id"] == rows[0]["example_id"]:
                row["label"] = "B" if row["label"] == "A" else "A"

    edit_samples(run, flip)
    rescore_run(run)
    rejected(run, "labels", "label of example", "in the task's data")


def test_swapped_prompt_hash_is_rejected(honest, tmp_path):
    run = tampered(honest, tmp_path)
    other = load_prompt("pairwise_generic.yaml").sha256  # registered (installed), but not what rendered the run
    edit_results(run, lambda d: d["config"].update(prompt_template_hash=other))  # (the name left: refused for it)
    rejected(run, "prompts", "the run names its prompt template 'sciarena_pairwise'", "is 'pairwise_generic'")
    edit_results(run, lambda d: d["config"].update(prompt_template_hash=other, prompt_template="pairwise_generic"))
    rejected(run, "prompts", "prompt hash of example", "pairwise_generic")
    edit_results(run, lambda d: d["config"].update(prompt_template_hash="f" * 64))
    rejected(run, "prompts", "is not registered on this leaderboard", "ffffffffffff")
    run2 = tmp_path / "b"
    shutil.copytree(honest, run2)

    def swap(rows):
        rows[0]["prompt_hash"], rows[1]["prompt_hash"] = rows[1]["prompt_hash"], rows[0]["prompt_hash"]

    edit_samples(run2, swap)
    rejected(run2, "prompts", "prompt hash of example")


def test_edited_verdict_is_rejected_even_after_rescoring(honest, tmp_path):
    run = tampered(honest, tmp_path)

    def turn(rows):
        row = next(r for r in rows if r["status"] == "ANSWERED" and r["verdict"] != r["label"])
        row["verdict"] = row["label"]
        row["verdict_shown"] = row["label"] if row["order"] == "AB" else {"A": "B", "B": "A"}[row["label"]]

    edit_samples(run, turn)
    # The tamperer recomputes results.json from the edited verdicts (`judgebench score` would re-parse
    # the raw answers and undo the edit, so they score the records as they stand).
    result, records = read_run(run)
    spec = get_task(result.config.task)
    write_run(run, score(records, result.config, spec, n_examples=result.counts.examples), records)
    rejected(run, "verdicts", "raw answer parses to")


def test_wrong_dataset_fingerprint_or_revision_on_demo_is_rejected(honest, tmp_path):
    run = tampered(honest, tmp_path)
    edit_results(run, lambda d: d["config"]["dataset"].update(fingerprint="0" * 64))
    rejected(run, "data", "fingerprint 000000000000", "demo data")
    run2 = tmp_path / "b"
    shutil.copytree(honest, run2)
    edit_results(run2, lambda d: d["config"]["dataset"].update(revision="deadbeef"))
    rejected(run2, "data", "revision 'deadbeef'")


def test_schema_task_and_version_errors_are_rejected(honest, tmp_path):
    run = tampered(honest, tmp_path)
    edit_results(run, lambda d: d.update(extra_field=1))
    rejected(run, "schema", "extra_field")
    run2 = tmp_path / "b"
    shutil.copytree(honest, run2)
    edit_results(run2, lambda d: d["config"].update(task_version="0.9"))
    rejected(run2, "task", "version 1.0", "version 0.9")
    run3 = tmp_path / "c"
    shutil.copytree(honest, run3)
    edit_samples(run3, lambda rows: rows[:-1] + [{**rows[-1], "note": "x"}])
    rejected(run3, "schema", "samples.jsonl:")


def test_replay_run_is_not_a_judge_result(honest, tmp_path):
    replayed = make_run(tmp_path / "replayed", "sciarena_eval", f"replay/{honest / 'samples.jsonl'}")
    rejected(replayed, "task", "replays recorded answers")


def test_cli_rejection_is_one_line_exit_2(honest, tmp_path, capsys):
    run = tampered(honest, tmp_path)
    edit_samples(run, lambda rows: rows[1:])
    board = tmp_path / "board"
    assert main(["submit", str(run), "--leaderboard-dir", str(board)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("judgebench: error: submission rejected (schema): ")
    assert err.endswith("95 judgments, but results.json counts 96: lines were removed or added after the run (rerun it, or restore the file)\n")
    assert not board.exists()


# ----------------------------------------------------------------------------- real (non-demo) data


@pytest.fixture()
def local_task(tmp_path) -> Path:
    """A task whose dataset is a local file pinned at a commit, like a Hub task with a pinned revision."""
    data = write_jsonl(tmp_path / "data" / "pairs.jsonl", [sci_row(i, "AB"[i % 2]) for i in range(12)])
    spec = (REPO / "tasks" / "sciarena_eval.yaml").read_text()
    spec = spec.replace("name: sciarena_eval", "name: local_pairs").replace("path: yale-nlp/SciArena-Eval", f"path: {data}")
    spec = spec.replace("revision: main ", f"revision: {PINNED} ").replace("path: demo/sciarena_eval_demo.jsonl", "path: none.jsonl")
    folder = tmp_path / "board" / "tasks"  # registered on the leaderboard: LEADERBOARD_DIR/tasks/
    folder.mkdir(parents=True)
    (folder / "local_pairs.yaml").write_text(spec)
    assert get_task("local_pairs", [folder]).dataset.revision == PINNED
    return folder


@pytest.mark.slow
def test_real_data_revision_pin_and_known_fingerprints(local_task, tmp_path):
    run = make_run(tmp_path / "run", "local_pairs", "builtin/longer", "--include-path", str(local_task))
    board = local_task.parent
    rejected(run, "task", "unknown task 'local_pairs'")  # not registered without the leaderboard
    with pytest.raises(JudgebenchError, match="copy the task YAML to"):
        submit_run(run, board, include_paths=[local_task])  # submit takes no --include-path
    assert submit_run(run, board).verified.labels == []
    wrong = tmp_path / "wrong"
    shutil.copytree(run, wrong)
    edit_results(wrong, lambda d: d["config"]["dataset"].update(revision="f" * 40))
    rejected(wrong, "data", "is not the task's pinned revision", leaderboard_dir=board)

    data = tmp_path / "data" / "pairs.jsonl"
    copy = str(shutil.copy(data, tmp_path / "copy.jsonl"))
    other = make_run(tmp_path / "copyrun", "local_pairs", "builtin/shorter", "--include-path", str(local_task), "--dataset-path", copy)
    rejected(other, "data", "not the task's dataset", leaderboard_dir=board)  # not verifiable without the data
    verified = validate_run(other, dataset_path=copy, leaderboard_dir=board)
    assert verified.result.config.dataset.source == copy  # same data as the accepted run: accepted
    empty = tmp_path / "empty_board"
    shutil.copytree(local_task, empty / "tasks")
    rejected(other, "data", "matches no accepted run", dataset_path=copy, leaderboard_dir=empty)

    changed = write_jsonl(tmp_path / "changed.jsonl", [sci_row(i, "AB"[(i + 1) % 2]) for i in range(12)])
    different = make_run(tmp_path / "diff", "local_pairs", "builtin/shorter", "--include-path", str(local_task), "--dataset-path", str(changed))
    rejected(different, "data", "matches no accepted run", dataset_path=str(changed), leaderboard_dir=board)
    # the verifier's copy must be the data the run judged
    rejected(different, "data", "does not match", dataset_path=copy, leaderboard_dir=board)


def test_a_local_data_task_is_verified_the_same_from_any_working_folder(tmp_path, monkeypatch):
    """`submit` resolved a local task's relative dataset.path against the working folder, not the task YAML's: from
    elsewhere the run was refused as "dataset revision None is not a commit: the task is unpinned"."""
    board = tmp_path / "board"
    write_jsonl(board / "data" / "pairs.jsonl", [sci_row(i, "AB"[i % 2]) for i in range(6)])
    spec = (REPO / "tasks" / "sciarena_eval.yaml").read_text().replace("name: sciarena_eval", "name: rel_pairs")
    spec = spec.replace("path: yale-nlp/SciArena-Eval", "path: ../data/pairs.jsonl").replace("revision: main ", "")
    (board / "tasks").mkdir()
    (board / "tasks" / "rel_pairs.yaml").write_text(spec)
    run = make_run(tmp_path / "run", "rel_pairs", "builtin/longer", "--include-path", str(board / "tasks"))
    elsewhere = tmp_path / "a" / "b"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    assert validate_run(run, leaderboard_dir=board).result.config.task == "rel_pairs"
    (board / "data" / "pairs.jsonl").unlink()
    rejected(run, "data", "rel_pairs.yaml: dataset.path '../data/pairs.jsonl': no such file", leaderboard_dir=board)


def test_a_run_of_a_users_task_named_as_a_bundled_one_is_not_read_by_the_bundled_one(tmp_path, capsys):
    """A user's `sciarena_eval` (another headline) run with --include-path was scored by `leaderboard` and `score`
    without it by the bundled definition, silently (its headline, the paper's rows attached)."""
    mine = tmp_path / "mine"
    mine.mkdir()
    demo = REPO / "tasks" / "demo" / "sciarena_eval_demo.jsonl"
    spec = (REPO / "tasks" / "sciarena_eval.yaml").read_text().replace("path: demo/sciarena_eval_demo.jsonl", f"path: {demo}")
    (mine / "sciarena_eval.yaml").write_text(spec.replace("headline: accuracy", "headline: soft_accuracy"))
    run = make_run(tmp_path / "clash", "sciarena_eval", "builtin/longer", "--include-path", str(mine), "--demo")
    capsys.readouterr()
    for args in (["leaderboard", str(run), "--output-dir", str(tmp_path / "lb")], ["score", str(run)]):
        assert main(args) == 2
        last = capsys.readouterr().err.splitlines()[-1]  # (leaderboard: the skip's warning, then the error)
        assert str(run) in last and "another definition of task sciarena_eval" in last and "pass --include-path" in last
    assert main(["leaderboard", str(run), "--output-dir", str(tmp_path / "lb"), "--include-path", str(mine)]) == 0
    assert "soft_accuracy" in (tmp_path / "lb" / "sciarena_eval.md").read_text()


def test_a_run_whose_task_copy_differs_only_in_description_or_reported_rows_is_read(tmp_path, capsys):
    """A release that edits a bundled task's description or adds a published row must not make its earlier runs
    unreadable: only what decides the figures is compared."""
    run = make_run(tmp_path / "old", "sciarena_eval", "builtin/longer", "--demo")
    import yaml

    from judgebench.tasks.registry import load_task_file

    copy = run / "task.yaml"
    task = yaml.safe_load(copy.read_text())
    assert task["description"] and task["reported"]
    task.update(description="an older wording", reported=task["reported"][:1])
    copy.write_text(yaml.safe_dump(task))
    assert load_task_file(copy).reported  # the copy loads, so it is compared
    assert main(["score", str(run)]) == 0, capsys.readouterr().err
    task["headline"] = "soft_accuracy"  # a figure's definition: refused
    copy.write_text(yaml.safe_dump(task))
    assert main(["score", str(run)]) == 2 and "another definition of task" in capsys.readouterr().err


def test_a_local_board_labels_its_data_and_tokens_alike_in_md_and_csv(tmp_path, capsys):
    """tokens_per_comparison was rounded to one decimal and printed with two (318.67 shown as 318.70), and the data
    label was `pairs.jsonl:train@...` in the .md but `../data/pairs.jsonl:train@...` in the .csv."""
    import csv

    write_jsonl(tmp_path / "data" / "pairs.jsonl", [sci_row(i, "AB"[i % 2]) for i in range(6)])
    spec = (REPO / "tasks" / "sciarena_eval.yaml").read_text().replace("name: sciarena_eval", "name: rel_pairs")
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "rel_pairs.yaml").write_text(spec.replace("path: yale-nlp/SciArena-Eval", "path: ../data/pairs.jsonl"))
    run = make_run(tmp_path / "run", "rel_pairs", "builtin/longer", "--include-path", str(tmp_path / "tasks"))
    # 1,912 tokens over 6 comparisons: 318.666... per comparison; over 12 calls 159.333... per call
    edit_results(run, lambda d: d["usage"].update(tokens_in=1900, tokens_out=12, tokens_per_call=1912 / 12))
    assert main(["leaderboard", str(run), "--output-dir", str(tmp_path / "lb"), "--include-path", str(tmp_path / "tasks")]) == 0
    row = next(row for row in csv.DictReader((tmp_path / "lb" / "rel_pairs.csv").open()) if row["label"] == "builtin/longer")
    assert row["tokens_per_comparison"] == "318.67" and row["tokens_per_call"] == "159.33"
    markdown = (tmp_path / "lb" / "rel_pairs.md").read_text()
    assert "318.67" in markdown and "318.70" not in markdown
    assert row["dataset"].startswith("pairs.jsonl:train@") and f"## Data: {row['dataset']}" in markdown.replace("\\@", "@")


# ----------------------------------------------------------------------------- hostile submissions


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


EVIL_TEMPLATE = "user: \"{{% set _x = cycler.__init__.__globals__.os.system('id > {marker}') %}}{{{{ question }}}}\"\n"


def test_a_renamed_prompt_template_is_rejected(honest, tmp_path):
    """A third attack: the board's labels now show the template's name (`[prompt=NAME]`), and a submitter could
    write any name beside a registered hash; the name is checked against the registered template's own."""
    run = tampered(honest, tmp_path)
    edit_results(run, lambda d: d["config"].update(prompt_template="pairwise_generic"))
    rejected(run, "prompts", "the run names its prompt template 'pairwise_generic'", "is 'sciarena_pairwise'")
    validate_run(honest)
    # a template without `name:` is named after the run's own file: a maintainer may register it under another
    # (a fourth attack: honest runs were refused), but its recorded name may not be another registered template's
    board = tmp_path / "board"
    (board / "prompts").mkdir(parents=True)
    text = (REPO / "prompts" / "sciarena_pairwise.yaml").read_text().replace("name: sciarena_pairwise\n", "", 1)
    (tmp_path / "mine.yaml").write_text(text)
    (board / "prompts" / "registered_as.yaml").write_text(text)
    unnamed = make_run(tmp_path / "unnamed", "sciarena_eval", "builtin/longer", "--prompt", tmp_path / "mine.yaml")
    validate_run(unnamed, leaderboard_dir=board)
    edit_results(unnamed, lambda d: d["config"].update(prompt_template="sciarena_pairwise"))
    rejected(unnamed, "prompts", "the name of another registered template", leaderboard_dir=board)
    # a fifth attack: names that read as a registered one, or that no label can show as themselves, were accepted
    for name in ("sciarena_p\u0430irwise", "SCIARENA_PAIRWISE"):  # (a Cyrillic a; case)
        edit_results(unnamed, lambda d, name=name: d["config"].update(prompt_template=name))
        rejected(unnamed, "prompts", "the name of another registered template", leaderboard_dir=board)
    for name, why in (("sciarena_pairwise ", "has a space at an end"), ("", "must be a short text"),
                      ("x\x1b[31mred", "holds a control character"), ("sciarena_pairwise@7cf103ebf5", "holds '@'")):
        edit_results(unnamed, lambda d, name=name: d["config"].update(prompt_template=name))
        rejected(unnamed, "prompts", why, leaderboard_dir=board)
    edit_results(unnamed, lambda d: d["config"].update(prompt_template="my own prompt"))
    validate_run(unnamed, leaderboard_dir=board)  # any other name of its own stays the submitter's to choose


def test_submitted_template_path_is_never_loaded_or_rendered(honest, tmp_path, monkeypatch):
    """The attack: config.prompt_template names a file of the submitter's, with its hash."""
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "pwned"
    evil = tmp_path / "t" / "rce" / "evil_prompt"
    evil.parent.mkdir(parents=True)
    evil.write_text(EVIL_TEMPLATE.format(marker=marker))
    (evil.parent / "evil_prompt.yaml").write_text(evil.read_text())
    run = tampered(honest, tmp_path)
    digest = hashlib.sha256(evil.read_bytes()).hexdigest()
    edit_results(run, lambda d: d["config"].update(prompt_template="t/rce/evil_prompt", prompt_template_hash=digest))
    board = tmp_path / "board"
    with pytest.raises(Rejected, match="is not registered on this leaderboard") as info:
        submit_run(run, board)
    assert info.value.check == "prompts"
    assert not marker.exists() and not board.exists()
    with pytest.raises(JudgebenchError, match="copy the template to"):
        submit_run(run, board, prompt_path=evil)  # submit takes no --prompt
    assert not marker.exists()


def test_sandbox_escape_in_a_registered_template_or_task_prompt_is_refused(honest, tmp_path):
    """Even a template the leaderboard holds (its prompts/ folder, or a registered task's prompt) renders sandboxed."""
    marker = tmp_path / "pwned"
    board = tmp_path / "board"
    (board / "prompts").mkdir(parents=True)
    evil = board / "prompts" / "evil.yaml"
    evil.write_text(EVIL_TEMPLATE.format(marker=marker))
    run = tampered(honest, tmp_path)
    digest = hashlib.sha256(evil.read_bytes()).hexdigest()
    edit_results(run, lambda d: d["config"].update(prompt_template="evil", prompt_template_hash=digest))
    rejected(run, "prompts", "cannot re-render", leaderboard_dir=board)
    assert not marker.exists()
    # the same template as a registered task's own prompt
    evil.rename(tmp_path / "evil.yaml")
    (board / "tasks").mkdir()
    spec = (REPO / "tasks" / "sciarena_eval.yaml").read_text()
    demo = REPO / "tasks" / "demo" / "sciarena_eval_demo.jsonl"
    spec = spec.replace("prompt: sciarena_pairwise.yaml", "prompt: evil.yaml").replace("path: demo/sciarena_eval_demo.jsonl", f"path: {demo}")
    (board / "tasks" / "sciarena_eval.yaml").write_text(spec)
    shutil.copy(tmp_path / "evil.yaml", board / "tasks" / "evil.yaml")
    rejected(run, "prompts", "cannot re-render", leaderboard_dir=board)
    assert not marker.exists()
    # and through `judgebench run` with that task: a one-line error, nothing executed
    assert main(["run", "--tasks", "sciarena_eval", "--include-path", str(board / "tasks"), "--judge", "builtin/longer",
                 "--demo", "--quiet", "--output-path", str(tmp_path / "evilrun")]) == 2
    assert not marker.exists()


@pytest.mark.parametrize("task", ["atk/evil_task.yaml", "../sub/atk/evil_task.yaml", "/tmp/evil_task.yaml", "..", "evil.yaml"])
def test_task_names_that_are_paths_are_refused_and_nothing_is_written(honest, tmp_path, monkeypatch, task):
    """The attack: config.task is a path to the submitter's own task YAML (own data, labels, a fake reported row)."""
    work = tmp_path / "work"
    (work / "atk").mkdir(parents=True)
    (work / "sub" / "atk").mkdir(parents=True)
    evil_spec = (REPO / "tasks" / "sciarena_eval.yaml").read_text().replace("{overall: 65.1}", "{overall: 99.9}")
    for where in (work / "atk", work / "sub" / "atk"):
        (where / "evil_task.yaml").write_text(evil_spec)
    (work / "evil.yaml").write_text(evil_spec)
    monkeypatch.chdir(work)
    run = tampered(honest, tmp_path)

    def retask(rows):
        for row in rows:
            row["task"] = task

    edit_results(run, lambda d: d["config"].update(task=task))
    edit_samples(run, retask)
    before = _tree(tmp_path)
    board = work / "board"
    with pytest.raises(Rejected, match="is not a task name") as info:
        submit_run(run, board)
    assert info.value.check == "task" and "\n" not in str(info.value)
    assert _tree(tmp_path) == before  # nothing written, inside the board or out


@pytest.mark.slow
def test_lookalike_judge_ids_get_distinct_entries_and_copied_answers_are_refused(honest, tmp_path):
    board = tmp_path / "board"
    names = {}
    for judge, folder in (("openai:gpt-4.1", "colon"), ("openai/gpt-4.1", "slash")):
        run = tmp_path / folder
        shutil.copytree(honest, run)
        edit_results(run, lambda d, judge=judge: d["config"].update(judge=judge))
        edit_samples(run, lambda rows, judge=judge: [row.update(judge=judge) for row in rows] and None)
        rescore_run(run)  # the judge id decides the self-preference diagnostic: results consistent with the new name
        names[judge] = entry_name(RunResult.model_validate_json((run / "results.json").read_text()))
    assert names["openai:gpt-4.1"] != names["openai/gpt-4.1"]
    assert names["openai:gpt-4.1"].startswith("openai-gpt-4.1-") and names["openai/gpt-4.1"].startswith("openai-gpt-4.1-")
    first = submit_run(tmp_path / "colon", board)
    # the same answers under another judge name: refused, the first entry untouched
    with pytest.raises(Rejected, match="same answers as the entry") as info:
        submit_run(tmp_path / "slash", board)
    assert info.value.check == "identity"
    assert [p.name for p in (board / "entries" / "sciarena_eval").iterdir()] == [first.entry_dir.name]


@pytest.mark.slow
def test_subset_and_smaller_runs_never_replace_an_entry(honest, tmp_path):
    board = tmp_path / "board"
    submit_run(honest, board)
    limited = make_run(tmp_path / "limited", "sciarena_eval", "builtin/longer", "--limit", "43")
    with pytest.raises(Rejected, match=r"first 43 examples \(--limit\)"):
        submit_run(limited, board)
    single = make_run(tmp_path / "single", "sciarena_eval", "builtin/longer", "--no-swap")  # 48 of 96 judgments
    with pytest.raises(Rejected, match="never replaced by a run on fewer") as info:
        submit_run(single, board)
    assert info.value.check == "identity"
    entry = board / "entries" / "sciarena_eval" / entry_name(RunResult.model_validate_json((honest / "results.json").read_text()))
    assert (entry / "results.json").read_text() == (honest / "results.json").read_text()


def test_an_entry_folder_has_the_hash_the_run_printed_and_an_entry_under_its_old_name_is_replaced(tmp_path, capsys):
    """A walkthrough: `run` printed `builtin/longer #480630f4` and `submit` stored `builtin-longer-d1ecae08__...` (the
    sha256 of the judge id, for a judge with no arguments). The folder now carries the printed hash; a board that
    holds the judge's entry under its old name (the committed leaderboards/ do) has that entry replaced, never a
    second folder beside it (its identity check would refuse the same answers there)."""
    run = tmp_path / "run"
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--output-path", str(run)]) == 0
    printed = re.search(r"judge builtin/longer #([0-9a-f]{8})", capsys.readouterr().out).group(1)
    fresh = submit_run(run, tmp_path / "fresh")
    assert fresh.entry_dir.name.startswith(f"builtin-longer-{printed}__") and printed != "d1ecae08"
    board = tmp_path / "board"
    shutil.copytree(REPO / "leaderboards" / "entries", board / "entries")
    old = board / "entries" / "sciarena_eval" / "builtin-longer-d1ecae08__7cf103ebf5__demo"
    before = sorted(p.name for p in old.parent.iterdir())
    assert old.is_dir() and submit_run(run, board).entry_dir.resolve() == old.resolve()
    assert sorted(p.name for p in old.parent.iterdir()) == before
    assert (old / "results.json").read_text() == (run / "results.json").read_text()


def test_all_failed_run_is_refused(honest, tmp_path):
    run = tampered(honest, tmp_path)
    result, records = read_run(run)
    spec = get_task("sciarena_eval")
    failed = [r.model_copy(update={"status": "FAILED", "error": "boom", "raw": None, "verdict": None, "verdict_shown": None}) for r in records]
    write_run(run, score(failed, result.config, spec, n_examples=result.counts.examples), failed)
    rejected(run, "coverage", "0 of 96 judgments answered (0.0%)")
    with pytest.raises(JudgebenchError, match="between 0 and 1"):
        validate_run(run, min_coverage=1.5)


def test_unknown_task_entry_is_a_warning_not_fatal(honest, tmp_path):
    board = tmp_path / "board"
    stray = board / "entries" / "my_task" / "x"
    stray.mkdir(parents=True)
    edit = json.loads((honest / "results.json").read_text())
    edit["config"]["task"] = "my_task"
    (stray / "results.json").write_text(json.dumps(edit))
    broken = board / "entries" / "sciarena_eval" / "broken"
    broken.mkdir(parents=True)
    (broken / "results.json").write_text("{not json")
    done = submit_run(honest, board)
    assert any("my_task" in w and "unknown task" in w for w in done.warnings)
    assert any("broken" in w for w in done.warnings)
    assert (board / "sciarena_eval.md").is_file() and not (board / "my_task.md").exists()
    assert done.written[0] == done.entry_dir / "samples.jsonl" and board / "index.html" in done.written


def test_leaderboard_command_never_overwrites_a_submit_managed_board(honest, tmp_path, capsys):
    board = tmp_path / "board"
    submit_run(honest, board)
    before = (board / "sciarena_eval.md").read_text()
    assert main(["leaderboard", str(honest), "--output-dir", str(board)]) == 2
    assert "rebuilt only by `judgebench submit`" in capsys.readouterr().err
    assert (board / "sciarena_eval.md").read_text() == before


def test_logged_texts_must_equal_the_data_when_present(honest, tmp_path):
    if "question" not in JudgmentRecord.model_fields:
        pytest.skip("JudgmentRecord does not log texts in this checkout")
    run = tampered(honest, tmp_path)
    edit_samples(run, lambda rows: rows[0].update(question="a different question") or None)
    rejected(run, "labels", "question of example")


def test_a_symlink_out_of_the_board_is_refused_before_writing(honest, tmp_path):
    """Entries are resolved (symlinks followed) and must stay under the leaderboard directory."""
    outside = tmp_path / "outside"
    outside.mkdir()
    board = tmp_path / "board"
    (board / "entries").mkdir(parents=True)
    (board / "entries" / "sciarena_eval").symlink_to(outside, target_is_directory=True)
    with pytest.raises(Rejected, match="resolves outside") as info:
        submit_run(honest, board)
    assert info.value.check == "storage" and list(outside.iterdir()) == []
    (board / "entries" / "sciarena_eval").unlink()
    (board / "entries").rmdir()
    (board / "entries").symlink_to(outside, target_is_directory=True)
    with pytest.raises(Rejected, match="resolves outside"):
        submit_run(honest, board)
    assert list(outside.iterdir()) == []


def test_a_symlinked_cost_plot_is_refused_before_the_entry_is_stored(honest, tmp_path):
    """A new user's walkthrough: with `<task>_cost_accuracy.csv` a link out of the board, submit refused ("resolves
    outside ...; not written") after it had stored the entry and rewritten the task's tables: the board was left
    half changed. The cost plot's files are among the writes checked first now."""
    board = tmp_path / "board"
    submit_run(honest, board)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text("keep\n")
    for name in ("sciarena_eval_cost_accuracy.csv", "sciarena_eval_cost_accuracy.png"):
        (board / name).symlink_to(outside / "victim")
        before = {p: p.read_bytes() for p in board.rglob("*") if p.is_file() and not p.is_symlink()}
        with pytest.raises(Rejected, match="resolves outside the leaderboard directory") as info:
            submit_run(make_run(tmp_path / f"other-{name}", "sciarena_eval", "builtin/shorter"), board)
        assert info.value.check == "storage" and (outside / "victim").read_text() == "keep\n"
        assert {p: p.read_bytes() for p in board.rglob("*") if p.is_file() and not p.is_symlink()} == before
        (board / name).unlink()


def test_leaderboard_checks_every_name_it_writes_before_the_first(honest, tmp_path, capsys):
    """An attack on the submit fix: `leaderboard` refused a linked cost plot only after writing the task's tables."""
    outside = tmp_path / "outside"
    outside.mkdir()
    board = tmp_path / "lb"
    board.mkdir()
    (board / "sciarena_eval_cost_accuracy.png").symlink_to(outside / "p.png")
    assert main(["leaderboard", str(honest), "--output-dir", str(board)]) == 2
    err = capsys.readouterr().err
    assert "sciarena_eval_cost_accuracy.png: resolves outside" in err and err.count("\n") == 1
    assert sorted(p.name for p in board.iterdir()) == ["sciarena_eval_cost_accuracy.png"] and not list(outside.iterdir())
