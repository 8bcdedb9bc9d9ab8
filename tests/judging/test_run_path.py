"""The run path's fast builders (docs/lab/perf.md, "Fourth round") change no output: the prompt hash written
without the json encoder equals json's, and requests, records and re-built examples made from validated
parts without validating again (bulk.trusted) equal the validated ones, value for value and type for type."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from pydantic import BaseModel, Field, PrivateAttr

import judgebench
from judgebench.core.bulk import trusted, trusts
from judgebench.core.records import (
    JudgeReply,
    JudgeRequest,
    JudgmentRecord,
    PairExample,
    PairVote,
)
from judgebench.judging import judgments, prompts
from judgebench.judging.prompts import (
    build_request,
    chat_json,
    hash_messages,
    load_prompt,
)
from judgebench.tasks import loading
from judgebench.tasks.loading import load_examples
from judgebench.tasks.registry import get_task


def _json_hash(messages: object) -> str:
    """The prompt hash as it was computed before this round."""
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def test_chat_json_by_hand():
    messages = [{"role": "system", "content": "Be fair."}, {"role": "user", "content": 'Say "hi"\\n\n\tné\x01'}]
    expected = b'[{"content": "Be fair.", "role": "system"}, {"content": "Say \\"hi\\"\\\\n\\n\\tn\xc3\xa9\\u0001", "role": "user"}]'
    assert chat_json(messages) == expected
    assert hash_messages(messages) == hashlib.sha256(expected).hexdigest() == _json_hash(messages)


def test_hash_equals_json_for_every_character_below_0x800_and_beyond():
    chars = [chr(i) for i in range(0x800)] + ["\u2028", "\u2029", "\ufeff", "\uffff", "\U0001f600", "\U0010ffff"]
    for char in chars:
        for text in (char, f'a{char}b\\"\n{char}{char}', "x" * 300 + char):  # short (remembered) and long texts
            for messages in ([{"role": "user", "content": text}], [{"content": "c", "role": text}]):
                assert chat_json(messages) == json.dumps(messages, sort_keys=True, ensure_ascii=False).encode(), repr(text)
                assert hash_messages(messages) == _json_hash(messages)


@pytest.mark.parametrize("messages", [
    [],
    [{"role": "user"}],
    [{"role": "user", "content": "x", "name": "n"}],
    [{"role": "user", "content": 5}],
    [{"role": "user", "content": ["part"]}],
    ({"role": "user", "content": "x"},),
    [{"role": "user", "content": "x"}, {"role": "repeat", "content": "2"}],  # rubric repeats
    [{"content": "keys given in the other order", "role": "user"}],
], ids=str)
def test_other_message_shapes_hash_as_before(messages: object):
    assert hash_messages(messages) == _json_hash(messages)  # type: ignore[arg-type]


def test_a_lone_surrogate_fails_as_before():
    messages = [{"role": "user", "content": "bad \ud800"}]
    assert chat_json(messages) is None
    with pytest.raises(UnicodeEncodeError):
        _json_hash(messages)
    with pytest.raises(UnicodeEncodeError):
        hash_messages(messages)


def _same(fast: BaseModel, slow: BaseModel) -> None:
    """Equal, with the same fields given, the same value types in the same order and the same JSON."""
    assert type(fast) is type(slow) and fast == slow
    assert list(fast.__dict__) == list(slow.__dict__) == list(type(slow).model_fields)
    assert [type(v) for v in fast.__dict__.values()] == [type(v) for v in slow.__dict__.values()]
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump_json() == slow.model_dump_json()


EXAMPLE = PairExample(
    id="e1", question="Why? \"quoted\"\n", response_a="First answer [1].\n\tTabbed é", response_b="Second (Smith et al. 2020).",
    labels={"overall": "A", "clarity": "TIE"}, model_a="m1", model_b="m2", slices={"field": "cs"},
    context={"references": "R1", "citations_a": ["x"], "citations_b": {"n": 2}},
    votes=[PairVote(annotator="h1", labels={"overall": "A"}), PairVote(annotator="h1", labels={"overall": "B", "clarity": "A"})],
)
DIMS = [("overall", "Which is better?"), ("clarity", "Which is clearer?")]


@pytest.mark.parametrize("order", ["AB", "BA"])
@pytest.mark.parametrize("dims", [DIMS[:1], DIMS], ids=["one", "joint"])
def test_checked_requests_equal_validated_ones(order: str, dims: list[tuple[str, str]]):
    template = load_prompt("pairwise_generic.yaml")
    fast = build_request(template, EXAMPLE, order, dims, ["A", "B", "TIE"], checked=True)  # type: ignore[arg-type]
    slow = build_request(template, EXAMPLE, order, dims, ["A", "B", "TIE"])  # type: ignore[arg-type]
    _same(fast, slow)
    assert fast.model_fields_set == set(JudgeRequest.model_fields) - {"reask_reminder", "repeat"}


REPLIES = {
    "answered": JudgeReply(text="[[A]]"),
    "usage": JudgeReply(text="Reasoning... [[B]]", tokens_in=120, tokens_out=7, cost_usd=0.00031, latency_s=1.5,
                        attempts=2, earlier_texts=["maybe"], cached=True, finish_reason="stop", reasoning="thought",
                        reasoning_tokens=5, served_model="gpt-x-2025"),
    "invalid": JudgeReply(text="no idea"),
    "truncated": JudgeReply(text="[[A", finish_reason="length"),
    "failed": JudgeReply(error="RateLimitError: too many requests", attempts=5, latency_s=3.25),
    "not attempted": None,
    "in flight": JudgeReply(error="in flight when the run stopped: sent, its answer not waited for"),
    "joint": JudgeReply(text='{"overall": "A", "clarity": "Tie"}', tokens_in=10, tokens_out=3, cost_usd=0.5),
}


@pytest.mark.parametrize("log_text", [True, False])
@pytest.mark.parametrize("kind", list(REPLIES))
def test_records_built_without_validation_equal_validated_ones(kind: str, log_text: bool, monkeypatch):
    template = load_prompt("pairwise_generic.yaml")
    dims = DIMS if kind == "joint" else DIMS[:1]
    requests = [build_request(template, EXAMPLE, order, dims, ["A", "B", "TIE"], checked=True) for order in ("AB", "BA")]  # type: ignore[arg-type]
    replies = [REPLIES[kind]] * 2
    built: list[int] = []
    monkeypatch.setattr(judgments, "trusted", lambda *a: built.append(1) or trusted(*a))
    fast = judgments.assemble_records("t", "j", requests, replies, [EXAMPLE], "budget", log_text=log_text)
    assert len(built) == len(fast) == 2 * len(dims)  # every record took the fast path
    monkeypatch.setattr(judgments, "_TRUSTED", False)
    slow = judgments.assemble_records("t", "j", requests, replies, [EXAMPLE], "budget", log_text=log_text)
    assert len(built) == len(fast)  # the old path: validated
    for a, b in zip(fast, slow, strict=True):
        _same(a, b)
        assert isinstance(a, JudgmentRecord) and a.slices is not EXAMPLE.slices  # containers of its own, as validated
        if REPLIES[kind] is not None:
            assert a.earlier_raw is not REPLIES[kind].earlier_texts  # type: ignore[union-attr]


def test_models_with_aliases_or_private_state_are_not_trusted():
    class Aliased(BaseModel):
        x: int = Field(alias="y")

    class Private(BaseModel):
        x: int
        _p: int = PrivateAttr(default=0)

    assert trusts(JudgmentRecord) and trusts(JudgeRequest) and trusts(PairExample)
    assert not trusts(Aliased) and not trusts(Private)


def test_examples_built_again_for_their_chunk_equal_validated_ones(tmp_path: Path, monkeypatch):
    rows = [
        {"id": 7, "question": "Q1", "response_a": "a", "response_b": "bb", "label": "B", "model_a": 3, "model_b": "m",
         "category": "c1"},
        {"id": "x", "question": "Q2 é", "response_a": "aaa\n", "response_b": "b", "label": "A", "model_a": "m2",
         "model_b": "m", "category": 5},  # (a null model or slice is an error naming the row: tests/tasks)
    ]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "t.yaml").write_text(
        "name: t\nversion: '1'\ndataset: {path: data.jsonl, split: test}\n"
        "columns: {id: id, question: question, response_a: response_a, response_b: response_b, label: label,"
        " model_a: model_a, model_b: model_b, slices: [category]}\n"
        "labels: {A: A, B: B}\nverdicts: [A, B]\nprompt: pairwise_generic.yaml\nheadline: accuracy\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("JUDGEBENCH_CACHE_DIR", str(tmp_path / "cache"))
    spec = get_task("t", [tmp_path / "tasks"])
    fast = list(load_examples(spec, dataset_path=str(data)).examples)
    monkeypatch.setattr(loading, "_TRUSTED", False)
    slow = list(load_examples(spec, dataset_path=str(data)).examples)
    assert [e.id for e in fast] == ["7", "x"] and fast[0].model_a == "3" and fast[1].slices == {"category": "5"}
    for a, b in zip(fast, slow, strict=True):
        _same(a, b)
    demo = get_task("sciarena_eval")
    for a, b in zip(list(load_examples(demo, demo=True).examples), _validated(load_examples(demo, demo=True).examples)):
        _same(a, b)


def _validated(examples: object) -> list[PairExample]:
    return [PairExample(**{k: getattr(e, k) for k in e.model_fields_set}) for e in examples]  # type: ignore[attr-defined]


@pytest.mark.parametrize("judge,task,mode", [
    ("builtin/longer", "sciarena_eval", None),
    ("builtin/random", "ideation_arena_eval", "joint"),
])
def test_a_builtin_run_writes_the_same_samples_as_the_validating_path(tmp_path: Path, monkeypatch, judge, task, mode):
    fast = tmp_path / "fast"
    judgebench.evaluate(task, judge, output_path=fast, demo=True, dimension_mode=mode)
    for module in (judgments, prompts, loading):
        monkeypatch.setattr(module, "_TRUSTED", False)
    slow = tmp_path / "slow"
    judgebench.evaluate(task, judge, output_path=slow, demo=True, dimension_mode=mode)
    assert (fast / "samples.jsonl").read_bytes() == (slow / "samples.jsonl").read_bytes()
    results = [json.loads((d / "results.json").read_text()) for d in (fast, slow)]
    for r in results:
        del r["config"]["started_at"], r["config"]["ended_at"]
    assert results[0] == results[1]


def test_fingerprint_bytes_are_the_examples_json():
    from judgebench.tasks.stream_load import canonical

    plain = EXAMPLE.model_copy(update={"votes": None})
    assert canonical(EXAMPLE) == EXAMPLE.model_dump_json().encode()
    assert canonical(plain) == plain.model_dump_json(exclude={"votes"}).encode() and b'"votes"' not in canonical(plain)


def test_lean_records_share_one_empty_earlier_list_and_keep_the_others():
    from judgebench.core.lean_records import LeanRecord

    template = load_prompt("pairwise_generic.yaml")
    request = build_request(template, EXAMPLE, "AB", DIMS[:1], ["A", "B"], checked=True)  # type: ignore[arg-type]
    plain, reasked = judgments.assemble_records("t", "j", [request] * 2, [REPLIES["answered"], REPLIES["usage"]], [EXAMPLE])
    first, second, third = LeanRecord.of(plain), LeanRecord.of(plain.model_copy()), LeanRecord.of(reasked)
    assert first.earlier_raw == [] and first.earlier_raw is second.earlier_raw
    assert third.earlier_raw == ["maybe"] and third.earlier_raw is reasked.earlier_raw
    for lean, record in ((first, plain), (third, reasked)):
        assert lean == record.model_copy(update={"question": None, "response_a": None, "response_b": None})


def test_a_plain_text_part_is_rendered_once_and_any_other_part_every_time(tmp_path: Path):
    path = tmp_path / "p.yaml"
    path.write_text('system: "Plain {# a comment #}text\\n\\n"\nuser: "Judge {{ question }} on {{ dimension }}{{ range(2)|list }}"\n')
    template = load_prompt(str(path))
    assert [fixed for _, _, _, fixed in template._compiled] == ["Plain text", None]
    example = EXAMPLE.model_copy(update={"question": "Q2"})
    one = build_request(template, EXAMPLE, "AB", [("overall", "")], ["A", "B"]).messages  # type: ignore[arg-type]
    two = build_request(template, example, "BA", [("clarity", "")], ["A", "B"]).messages  # type: ignore[arg-type]
    assert one == [{"role": "system", "content": "Plain text"}, {"role": "user", "content": 'Judge Why? "quoted"\n on overall[0, 1]'}]
    assert two[1]["content"] == "Judge Q2 on clarity[0, 1]" and two[0] == one[0]


def test_only_a_builtin_run_keeps_the_collector_paused_up_to_its_results(tmp_path: Path, monkeypatch):
    import gc

    from judgebench.judging import pipeline

    enabled: list[bool] = []
    real = pipeline.score
    monkeypatch.setattr(pipeline, "score", lambda *a, **k: enabled.append(gc.isenabled()) or real(*a, **k))
    judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / "b", demo=True)
    assert enabled == [False] and gc.isenabled()
    judgebench.evaluate("sciarena_eval", f"replay/{tmp_path / 'b'}", output_path=tmp_path / "r", demo=True)
    assert enabled == [False, True] and gc.isenabled()  # a judge answered through the event loop keeps it
    assert (tmp_path / "b" / "samples.jsonl").read_bytes().count(b"\n") == (tmp_path / "r" / "samples.jsonl").read_bytes().count(b"\n")


def test_a_run_into_another_judges_run_folder_says_it_replaces_it(tmp_path, capsys):
    """A walkthrough: `run --judge builtin/random --output-path <a paid gpt-4.1 run>` replaced it without a word. It
    still does (a folder is the user's to reuse), but says so first; a rerun of the same judge and task (resuming
    from the cache) says nothing."""
    from judgebench.cli.main import main

    out = tmp_path / "o"
    base = ["run", "--tasks", "sciarena_eval", "--demo", "--quiet", "--output-path", str(out)]
    assert main([*base, "--judge", "builtin/longer"]) == 0
    assert main([*base, "--judge", "builtin/longer"]) == 0
    assert "replaces" not in capsys.readouterr().err
    assert main([*base, "--judge", "builtin/random"]) == 0
    err = capsys.readouterr().err
    assert f"--output-path {out} holds a run of judge builtin/longer on task sciarena_eval: this run replaces it" in err
    # the other commands that write a run folder say it too (an attack: rubric run, merge and panel said nothing)
    assert main(["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit", "--demo", "--quiet",
                 "--output-path", str(out)]) == 0
    assert f"--output-path {out} holds a run of judge builtin/random on task sciarena_eval" in capsys.readouterr().err
    shards = [tmp_path / f"s{k}" for k in (1, 2)]
    for k, shard in enumerate(shards, start=1):
        assert main(["run", "--tasks", "sciarena_eval", "--demo", "--quiet", "--judge", "builtin/longer", "--shard",
                     f"{k}/2", "--output-path", str(shard)]) == 0
    assert main(["merge", *map(str, shards), "--output-path", str(out)]) == 0
    assert f"--output-path {out} holds a run of judge builtin/full-credit on task rubric_demo" in capsys.readouterr().err
    members = [tmp_path / "m1", tmp_path / "m2"]
    for judge, member in zip(("builtin/random", "builtin/shorter"), members):
        assert main(["run", "--tasks", "sciarena_eval", "--demo", "--quiet", "--judge", judge, "--output-path",
                     str(member)]) == 0
    capsys.readouterr()
    assert main(["panel", *map(str, members), "--output-path", str(out)]) == 0
    assert f"--output-path {out} holds a run of judge builtin/longer on task sciarena_eval" in capsys.readouterr().err
    assert main(["panel", *map(str, members), "--output-path", str(out)]) == 0  # the panel rebuilt: nothing said
    assert "replaces" not in capsys.readouterr().err
    # refused before writing: no word of replacing (they had warned first, then checked their inputs and data)
    other = tmp_path / "other"
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--quiet", "--judge", "builtin/longer", "--output-path",
                 str(other)]) == 0
    capsys.readouterr()
    assert main(["merge", str(members[0]), str(members[0]), "--output-path", str(other)]) == 2
    assert main(["panel", str(members[0]), "--output-path", str(other)]) == 2
    assert main(["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit", "--dataset-path",
                 str(tmp_path / "absent.jsonl"), "--quiet", "--output-path", str(other)]) == 2
    assert "replaces" not in capsys.readouterr().err
    told: list[str] = []  # from Python, through on_warning
    judgebench.build_panel(members, other, on_warning=told.append)
    assert told == [f"--output-path {other} holds a run of judge builtin/longer on task sciarena_eval: this run replaces it"]


def test_a_run_of_another_configuration_of_the_same_model_says_it_replaces_it(tmp_path, capsys):
    """An attack: two configurations of one model (two judges, to the leaderboard) replaced each other in one
    folder without a word; the same configuration again (a rerun resuming from the cache) stays silent."""
    from openai_server import Behaviour, FakeOpenAIServer

    from judgebench.cli.main import main

    out = tmp_path / "o"
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        def run(temperature: str) -> str:
            assert main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "2", "--quiet", "--judge", "openai/m",
                         "--judge-args", f"api_base={server.api_base},api_key=sk-t,temperature={temperature}",
                         "--cache-dir", str(tmp_path / "cache"), "--output-path", str(out)]) == 0
            return capsys.readouterr().err

        run("0")
        assert "replaces" not in run("0")
        assert f"{out} holds another configuration of judge openai/m on task sciarena_eval: this run replaces it" in run("0.7")
