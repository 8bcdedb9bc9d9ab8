"""`judgebench pairs`: balanced pairing (by hand), the CLI against the local OpenAI-compatible server,
and a SIGKILL mid-run followed by a rerun that repeats no answered call."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from helpers import write_jsonl
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.cli.main import main
from judgebench.human.pairs import Answer, Question, make_pairs

MODELS = ["openai/m1", "openai/m2", "openai/m3", "openai/m4"]


def _answers(questions: list[Question], models: list[str]) -> list[Answer]:
    return [Answer(q.id, m, f"{m} on {q.id}", None, 1, 2, None, 0.1, False) for q in questions for m in models]


def test_sampled_pairs_use_every_model_pair_and_side_equally() -> None:
    questions = [Question(f"q{i}", f"question {i}") for i in range(12)]
    pairs = make_pairs(questions, _answers(questions, MODELS), per_question=2, seed=7)
    # 12 questions x 2 = 24 pairs over C(4,2) = 6 model pairs -> each model pair 24 / 6 = 4 times,
    # alternating sides -> 2 times each way; each model is in 3 model pairs -> 12 pairs, 6 on A, 6 on B.
    unordered = Counter(tuple(sorted((p["model_a"], p["model_b"]))) for p in pairs)
    assert len(pairs) == 24 and set(unordered.values()) == {4}
    ordered = Counter((p["model_a"], p["model_b"]) for p in pairs)
    assert set(ordered.values()) == {2}
    sides = Counter(p["model_a"] for p in pairs)
    assert sides == {m: 6 for m in MODELS}
    assert all(Counter(p["question_id"] for p in pairs)[q.id] == 2 for q in questions)
    assert make_pairs(questions, _answers(questions, MODELS), per_question=2, seed=7) == pairs  # seeded


def test_all_pairs_and_a_failed_answer_is_left_out() -> None:
    questions = [Question("q1", "x"), Question("q2", "y")]
    answers = _answers(questions, MODELS[:3])
    answers[0].text, answers[0].error = None, "boom"  # q1 / m1 failed
    pairs = make_pairs(questions, answers, per_question=None, seed=0)
    # q1: only m2, m3 answered -> 1 pair; q2: C(3,2) = 3 pairs
    assert Counter(p["question_id"] for p in pairs) == {"q1": 1, "q2": 3}


def _questions_file(tmp_path: Path, n: int) -> Path:
    return write_jsonl(tmp_path / "questions.jsonl", [{"id": f"q{i}", "question": f"Explain topic {i}.", "field": "ab"[i % 2]} for i in range(n)])


def _command(tmp_path: Path, server: FakeOpenAIServer, questions: Path, out: str, *extra: str) -> list[str]:
    args = [a for m in ("openai/m1", "openai/m2", "openai/m3")
            for a in ("--model-args", f"{m}=api_base={server.api_base},api_key=sk-test,temperature=0.7")]
    return ["pairs", str(questions), "--models", "openai/m1,openai/m2,openai/m3", *args, "--output", str(tmp_path / out),
            "--cache-dir", str(tmp_path / "cache"), "--slices", "field", "--no-progress", *extra]


@pytest.mark.slow
def test_pairs_cli_against_the_local_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    questions = _questions_file(tmp_path, 4)
    behaviours = {m: Behaviour(answer=lambda messages, m=m: f"**{m}** answers: {messages[-1]['content']}") for m in ("m1", "m2", "m3")}
    with FakeOpenAIServer(Behaviour(), models=behaviours) as server:
        command = [a for a in _command(tmp_path, server, questions, "out", "--seed", "3") if a != "--no-progress"]
        assert main(command) == 0
        progress = capsys.readouterr().err  # the bar says what the calls do: they answer, nothing is judged
        assert "answering (openai/m1)" in progress and "judging" not in progress
        assert server.stats().answered() == 12  # 4 questions x 3 models
        assert main(_command(tmp_path, server, questions, "again", "--seed", "3")) == 0
        assert server.stats().answered() == 12  # the rerun is served from the cache
    pairs = [json.loads(line) for line in (tmp_path / "out" / "pairs.jsonl").read_text().splitlines()]
    assert len(pairs) == 4 * 3 and pairs[0]["field"] in "ab"
    assert all(p["response_a"].startswith(f"**{p['model_a'].split('/')[1]}**") for p in pairs)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["counts"]["calls_sent"] == 12 and manifest["models"]["openai/m1"]["temperature"] == 0.7
    assert "sk-test" not in (tmp_path / "out" / "manifest.json").read_text()
    # 3 model pairs x 4 questions, alternating sides: each ordering twice -> each model 4 times on A, 4 on B
    assert all(v == {"A": 4, "B": 4} for v in manifest["positions"].values())
    assert (tmp_path / "again" / "pairs.jsonl").read_text() == (tmp_path / "out" / "pairs.jsonl").read_text()


def test_bad_model_args_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    questions = _questions_file(tmp_path, 2)
    code = main(["pairs", str(questions), "--models", "openai/a,openai/b", "--model-args", "openai/c=temperature=1", "--output", str(tmp_path / "o")])
    assert code == 2 and "--model-args openai/c=...: openai/c is not one of --models" in capsys.readouterr().err
    # an entry without its MODEL= (or for another model) is not quoted whole: it showed the key
    for entry in ("api_key=SECRETpw123XYZ", "openai/c=api_key=SECRETpw123XYZ"):
        assert main(["pairs", str(questions), "--models", "openai/a,openai/b", "--model-args", entry,
                     "--output", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert "--model-args" in err and "SECRET" not in err, err
    assert main(["pairs", str(questions), "--models", "openai/a", "--output", str(tmp_path / "o")]) == 2
    assert main(["pairs", str(questions), "--models", "openai/a,openai/b", "--question-column", "prompt", "--output", str(tmp_path / "o")]) == 2
    assert "no column 'prompt'" in capsys.readouterr().err


def test_missing_credentials_name_pairs_own_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The judges' preflight named `run`'s --judge-args, a flag `pairs` does not have."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    questions = _questions_file(tmp_path, 2)
    assert main(["pairs", str(questions), "--models", "openai/gpt-4.1,openai/o3", "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "model openai/gpt-4.1: no credentials: set OPENAI_API_KEY (or pass --model-args openai/gpt-4.1=api_key=...)" in err
    assert "--judge-args" not in err


@pytest.mark.parametrize(("models", "model_args", "said"), [
    ("opnai/gpt-4o,openai/o3", [], "error: --models: opnai/gpt-4o: unknown litellm provider 'opnai' (did you mean openai/gpt-4o?)"),
    ("openai/o3,nope", [], "error: --models: 'nope': expected a litellm model id"),
    ("openai/a,openai/b", ["openai/a=api_base=notaurl"], "error: --model-args openai/a=api_base='notaurl': expected an http(s) URL"),
    ("openai/a,openai/b", ["openai/a=foo"], "error: --model-args openai/a: expected key=value, got 'foo'"),
    ("openai/a,openai/b", ["openai/b=temperature=hot"], "error: --model-args openai/b=temperature='hot': expected a number"),
])
def test_a_bad_model_id_or_argument_names_pairs_own_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          models: str, model_args: list[str], said: str) -> None:
    """The judges' checks named `run`'s flags (`--judge opnai/gpt-4o`, `judge 'nope'`, `--judge-args api_base=...`)
    in `pairs`, which has --models and --model-args MODEL=...; only the preflight's messages were reworded."""
    questions = _questions_file(tmp_path, 2)
    given = [part for entry in model_args for part in ("--model-args", entry)]
    assert main(["pairs", str(questions), "--models", models, *given, "--output", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert said in err and "--judge" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_pairs_killed_mid_run_then_rerun_repeats_no_answered_call(tmp_path: Path) -> None:
    n = 30  # questions; 3 models -> 90 generation calls
    questions = _questions_file(tmp_path, n)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    with FakeOpenAIServer(Behaviour(latency_s=0.2, jitter_s=0.1)) as server:
        command = [sys.executable, "-m", "judgebench", *_command(tmp_path, server, questions, "out", "--concurrency", "6")]
        proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 120
        while server.stats().answered() < n and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
        assert proc.returncode == -signal.SIGKILL
        deadline = time.monotonic() + 30
        while any(r.ended is None for r in server.stats().requests) and time.monotonic() < deadline:
            time.sleep(0.02)
        before = server.stats().answered()
        assert n <= before < 3 * n
        rerun = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        assert rerun.returncode == 0, rerun.stderr[-2000:]
        stats = server.stats()
    by_call = Counter((r.model, r.prompt_hash) for r in stats.requests if r.outcome == "answered")
    assert len(by_call) == 3 * n and max(by_call.values()) == 1  # every (model, question) answered exactly once
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["counts"]["calls_sent"] == 3 * n - before and manifest["counts"]["pairs"] == 3 * n


def test_a_run_stopped_at_the_first_model_lists_every_answer_of_every_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """An outside attack: stopped during the first of 3 models, `pairs` printed 4/12 answers: the other models'
    answers were in no count and no file. Every (question, model) is now an answer, not attempted if so."""
    from judgebench.calls import RunnerOptions
    from judgebench.calls.options import RunOutcome
    from judgebench.core.records import JudgeReply
    from judgebench.human import pairs

    questions = [Question(f"q{i}", f"question {i}", {}) for i in range(4)]
    asked: list[str] = []

    def stops_after_one(requests, judge, options, is_parseable):
        asked.append(judge.id)
        return RunOutcome([JudgeReply(text="an answer"), None, None, None], "interrupted (SIGTERM)", 1)

    monkeypatch.setattr(pairs, "run_requests", stops_after_one)
    models = {m: {"api_base": "http://127.0.0.1:9/v1", "api_key": "sk-t"} for m in MODELS[:3]}
    answers, calls, stopped = pairs.generate_answers(questions, models, RunnerOptions(progress=False))
    assert asked == ["openai/m1"] and calls == 1 and stopped == "openai/m1: interrupted (SIGTERM)"
    assert [(a.model, a.question_id) for a in answers] == [(m, q.id) for m in MODELS[:3] for q in questions]
    assert Counter(a.error for a in answers) == {None: 1, "not attempted (run stopped)": 11}


@pytest.mark.parametrize("ids, slice_value", [([12345678901234567, 0.5], "x"), ([1.0, 2], "x"), ([True, 2], "x"),
                                               (["q1", "q2"], ["x"]), (["q1", "q2"], {"x": 1})])
def test_question_ids_and_slices_are_kept_as_written_or_refused(tmp_path: Path, ids, slice_value) -> None:
    """An outside attack: one float id made every id a float (12345678901234567 became '1.2345678901234568e+16',
    1 '1.0'), distinct large ids were refused as duplicates, `true` became 'True', a slice ['x'] the text "['x']"."""
    from judgebench.core.errors import JudgebenchError
    from judgebench.human.pairs import read_questions

    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps({"id": i, "question": "Q?", "field": slice_value}) + "\n" for i in ids))
    with pytest.raises(JudgebenchError, match=r"^questions .*: row 1: .*must be (non-empty )?text or an integer"):
        read_questions(str(path), slice_columns=["field"])


def test_csv_question_ids_stay_the_text_written(tmp_path: Path) -> None:
    from judgebench.human.pairs import read_questions

    path = tmp_path / "q.csv"
    path.write_text("id,question,field\n007,Q one?,01\n7.0,Q two?,2\n")
    assert [(q.id, q.slices) for q in read_questions(str(path), slice_columns=["field"])] == [
        ("007", {"field": "01"}), ("7.0", {"field": "2"})]
    folder = tmp_path / "questions"  # a folder of CSV files the same (an attack: "007" had become "7" there)
    folder.mkdir()
    path.rename(folder / "train.csv")
    assert [q.id for q in read_questions(str(folder), slice_columns=["field"])] == ["007", "7.0"]


TWO_CONFIGS = ("---\nconfigs:\n- config_name: easy\n  data_files: easy/*.jsonl\n"
               "- config_name: hard\n  data_files: hard/*.jsonl\n---\n")


def test_questions_are_read_in_the_config_named(tmp_path: Path) -> None:
    """A data folder (a Hub snapshot's layout) of two configs and no default: `pairs` reads the one --config names, and
    without it the error names the flag (before, `pairs` could name none, so such a folder could not be read)."""
    from judgebench.core.errors import JudgebenchError
    from judgebench.human.pairs import read_questions

    folder = tmp_path / "questions"
    write_jsonl(folder / "easy" / "train.jsonl", [{"id": "e1", "question": "Easy?"}])
    write_jsonl(folder / "hard" / "train.jsonl", [{"id": "h1", "question": "Hard?"},
                                                  {"id": "h2", "question": "Harder?"}])
    (folder / "README.md").write_text(TWO_CONFIGS, encoding="utf-8")
    assert [q.id for q in read_questions(str(folder), config="hard")] == ["h1", "h2"]
    assert [q.id for q in read_questions(str(folder), config="easy")] == ["e1"]
    with pytest.raises(JudgebenchError, match=r"declares several configs \('easy', 'hard'\) .*`pairs`: --config\)$"):
        read_questions(str(folder))
    with pytest.raises(JudgebenchError, match=r"config 'medium' .*--config\), but .* declares only: 'easy', 'hard'$"):
        read_questions(str(folder), config="medium")
    single = folder / "easy" / "train.jsonl"
    with pytest.raises(JudgebenchError, match=r"a single file has no configs, but config 'easy' was asked for"):
        read_questions(str(single), config="easy")  # not silently read as if no config were named


@pytest.mark.parametrize("text, message", [
    ("id,question,question\n1,What is x?,Other\n", r"q\.csv: row 1 \(the header\): column 'question' appears twice"),
    ('id,question\n1,"What is x?\n2,Why y?\n', r"q\.csv:2: a quoted cell that begins in this row never closes"),
])
def test_question_csv_is_read_as_strictly_as_a_tasks(tmp_path: Path, text: str, message: str) -> None:
    """An outside find: `pairs` read a CSV of questions without a task's strict checks, so a second `question` column
    was dropped silently (pandas keeps the first) and a stray quote failed as "cannot load" with no row."""
    from judgebench.core.errors import JudgebenchError
    from judgebench.human.pairs import read_questions

    (tmp_path / "q.csv").write_text(text, encoding="utf-8")
    with pytest.raises(JudgebenchError, match=message):
        read_questions(str(tmp_path / "q.csv"))


def test_pairs_cli_reads_and_records_the_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "questions"
    write_jsonl(folder / "easy" / "train.jsonl", [{"id": "e1", "question": "Easy?", "field": "a"}])
    write_jsonl(folder / "hard" / "train.jsonl", [{"id": "h1", "question": "Hard?", "field": "b"}])
    (folder / "README.md").write_text(TWO_CONFIGS, encoding="utf-8")
    with FakeOpenAIServer(Behaviour()) as server:
        assert main(_command(tmp_path, server, folder, "out", "--config", "hard")) == 0
        assert main(_command(tmp_path, server, folder, "none")) == 2
    assert "`pairs`: --config" in capsys.readouterr().err
    pairs = [json.loads(line) for line in (tmp_path / "out" / "pairs.jsonl").read_text().splitlines()]
    assert {p["question_id"] for p in pairs} == {"h1"}
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["config"] == "hard"
