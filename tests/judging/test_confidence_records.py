"""Confidence per judgment in the records (issue 34): token log-probabilities through both transports and the
whole run, vote shares across --repeats, mapped back to the dataset's positions."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer, judge_once

from judgebench.cli.main import main
from judgebench.core.records import JudgeReply, JudgmentRecord
from judgebench.judges.llm import LiteLLMJudge
from judgebench.judging.repeats import with_repeat_confidence

call = judge_once  # one call, clients closed after (openai_server.judge_once)


@pytest.mark.parametrize("transport", ["openai", "litellm"])
def test_both_transports_return_the_verdict_tokens_log_probabilities(transport: str) -> None:
    beh = Behaviour(answer="[[A]]", verdict_probs={"A": 0.7, "B": 0.2, "C": 0.1})
    with FakeOpenAIServer(beh) as server:
        args = {"api_base": server.api_base, "api_key": "sk-t", "transport": transport, "logprobs": True,
                "top_logprobs": 5}
        reply = call(LiteLLMJudge("openai/m", args))
        plain = call(LiteLLMJudge("openai/m", {"api_base": server.api_base, "api_key": "sk-t", "transport": transport}))
    assert reply.top_logprobs is not None
    chosen, lp, top = reply.top_logprobs[-1]
    assert chosen == "A" and lp == pytest.approx(math.log(0.7))
    assert top == pytest.approx({"A": math.log(0.7), "B": math.log(0.2), "C": math.log(0.1)})
    assert plain.top_logprobs is None  # not requested: nothing returned, nothing stored
    assert JudgeReply.model_validate_json(reply.model_dump_json()) == reply  # survives the cache


def run_cli(server: FakeOpenAIServer, out: Path, cache: Path, *extra: str, args: str = "") -> int:
    return main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "3", "--judge", "openai/m",
                 "--judge-args", f"api_base={server.api_base},api_key=sk-t{args}",
                 "--output-path", str(out), "--cache-dir", str(cache), "--quiet", "--max-retries", "0", *extra])


def samples(run_dir: Path, name: str = "samples.jsonl") -> list[JudgmentRecord]:
    return [JudgmentRecord.model_validate_json(line) for line in (run_dir / name).read_text().splitlines()]


@pytest.mark.slow
def test_a_run_records_logprob_confidence_in_dataset_positions(tmp_path: Path) -> None:
    beh = Behaviour(answer="[[A]]", verdict_probs={"A": 0.75, "B": 0.25})
    with FakeOpenAIServer(beh) as server:
        assert run_cli(server, tmp_path / "run", tmp_path / "cache", args=",logprobs=true,top_logprobs=5") == 0
    records = samples(tmp_path / "run")
    assert len(records) == 6
    for r in records:
        assert r.confidence_source == "logprobs"
        # shown A is 0.75 sure: order AB -> dataset A 0.75; order BA (A shown is the dataset's B) -> B 0.75
        expected = {"A": 0.75, "B": 0.25} if r.order == "AB" else {"A": 0.25, "B": 0.75}
        assert r.confidence == pytest.approx(expected)


def record(order: str, verdict: str | None, repeat: int = 0, status: str = "ANSWERED") -> JudgmentRecord:
    return JudgmentRecord(task="t", example_id="e", dimension="overall", order=order, judge="j", prompt_hash="h",
                          status=status, verdict=verdict, label="A", length_a=1, length_b=1, repeat=repeat)


def test_repeats_give_the_share_of_votes() -> None:
    first = [record("AB", "A"), record("BA", "B")]
    others = [record("AB", "A", 1), record("AB", "B", 2), record("AB", None, 3, "INVALID"),
              record("BA", None, 1, "INVALID"), record("BA", None, 2, "INVALID")]
    ab, ba = with_repeat_confidence(first, others, ("A", "B", "TIE"))
    assert ab.confidence == pytest.approx({"A": 2 / 3, "B": 1 / 3, "TIE": 0.0}) and ab.confidence_source == "repeats"
    assert ba.confidence == {"A": 0.0, "B": 1.0, "TIE": 0.0}  # one answered vote of three
    # over the verdicts the task allows: an A/B task's distribution has no TIE (it had one, at 0.0)
    assert with_repeat_confidence(first, others, ("A", "B"))[0].confidence == pytest.approx({"A": 2 / 3, "B": 1 / 3})
    logprob = record("AB", "A").model_copy(update={"confidence": {"A": 0.9, "B": 0.1}, "confidence_source": "logprobs"})
    assert with_repeat_confidence([logprob], others, ("A", "B"))[0].confidence == {"A": 0.9, "B": 0.1}  # its own kept
    assert with_repeat_confidence(first, [], ("A", "B")) == first


def _probs_by_prompt(messages: list[dict]) -> dict[str, float]:
    """A judge whose certainty varies by prompt (0.55 to 0.95), seen by the whole pipeline."""
    import hashlib

    sure = 0.55 + (int(hashlib.sha256(str(messages).encode()).hexdigest()[:4], 16) % 5) / 10
    return {"A": sure, "B": (1 - sure) * 0.8, "C": (1 - sure) * 0.2}


@pytest.mark.slow
def test_logprob_confidence_reaches_results_the_report_and_the_board(tmp_path: Path) -> None:
    import json

    beh = Behaviour(answer="[[A]]", verdict_probs_fn=_probs_by_prompt)
    with FakeOpenAIServer(beh) as server:
        out = tmp_path / "run"
        assert main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "12", "--judge", "openai/m",
                     "--judge-args", f"api_base={server.api_base},api_key=sk-t,logprobs=true,top_logprobs=5",
                     "--output-path", str(out), "--cache-dir", str(tmp_path / "cache"), "--quiet"]) == 0
    records = samples(out)
    assert all(r.confidence_source == "logprobs" for r in records)
    results = json.loads((out / "results.json").read_text())
    overall = results["metrics"]["overall"]
    for name in ("brier_score", "log_loss", "ece", "selective_auc", "handoff_accuracy"):
        assert overall[name]["value"] is not None, name
    assert overall["confidence_coverage"]["value"] == 1.0
    assert main(["report", str(out)]) == 0
    report = (out / "report" / "report.md").read_text()
    assert "## Confidence and calibration" in report and "ECE (10 equal-width bins)" in report
    assert (out / "report" / "reliability_overall.png").stat().st_size > 0
    assert (out / "report" / "selective_overall.png").stat().st_size > 0
    assert main(["leaderboard", str(out), "--output-dir", str(tmp_path / "board")]) == 0
    board = (tmp_path / "board").glob("*.csv")
    header = next(iter(board)).read_text().splitlines()[0]
    assert "brier_score" in header and "ece" in header and "selective_auc" in header


def test_a_panel_judgment_carries_its_members_vote_share() -> None:
    from judgebench.judging.panel import _panel_confidence

    # three members: A, A, and one that abstained (INVALID): 2 of 2 answered votes say A
    assert _panel_confidence(["A", "A", "INVALID"], True) == {"confidence": {"A": 1.0, "B": 0.0, "TIE": 0.0},
                                                              "confidence_source": "panel"}
    got = _panel_confidence(["A", "B", "TIE", "A"], True)  # A 2/4, B 1/4, TIE 1/4
    assert got["confidence"] == {"A": 0.5, "B": 0.25, "TIE": 0.25}
    assert _panel_confidence(["A", "A", "B"], False)["confidence"] == pytest.approx({"A": 2 / 3, "B": 1 / 3})  # A/B task
    assert _panel_confidence(["FAILED", "MISSING"], True) == {"confidence": None, "confidence_source": None}


@pytest.mark.slow
def test_a_prompt_asking_for_a_confidence_gives_a_verbalised_one(tmp_path: Path) -> None:
    with FakeOpenAIServer(Behaviour(answer="B is sharper.\n[[B]]\nConfidence: 70%")) as server:
        prompt = Path(__file__).resolve().parents[2] / "prompts" / "pairwise_confidence.yaml"  # (from any folder)
        assert run_cli(server, tmp_path / "run", tmp_path / "cache", "--prompt", str(prompt)) == 0
    records = samples(tmp_path / "run")
    assert all(r.confidence_source == "verbalised" for r in records)
    # sciarena_eval's verdicts are A and B: shown B 0.7, shown A the rest 0.3; order BA maps shown B to dataset A
    ab = next(r for r in records if r.order == "AB")
    ba = next(r for r in records if r.order == "BA")
    assert ab.confidence == pytest.approx({"A": 0.3, "B": 0.7})
    assert ba.confidence == pytest.approx({"A": 0.7, "B": 0.3})


@pytest.mark.slow
def test_a_run_with_repeats_records_the_share_of_votes(tmp_path: Path) -> None:
    import itertools
    import json

    answers = itertools.cycle(["[[A]]", "[[A]]", "[[B]]"])
    with FakeOpenAIServer(Behaviour(answer=lambda messages: next(answers))) as server:
        assert run_cli(server, tmp_path / "run", tmp_path / "cache", "--repeats", "3", args=",temperature=1") == 0
    records = samples(tmp_path / "run")
    assert len(records) == 6 and all(r.confidence_source == "repeats" for r in records)
    for r in records:  # three votes each: every share is a third of a whole
        assert sorted(r.confidence) == ["A", "B"]  # sciarena_eval's verdicts: no TIE key (there was one, at 0)
        assert round(3 * r.confidence["A"], 9) in (0, 1, 2, 3) and r.confidence["A"] + r.confidence["B"] == 1
    overall = json.loads((tmp_path / "run" / "results.json").read_text())["metrics"]["overall"]
    assert overall["confidence_coverage"]["value"] == 1.0 and overall["brier_score"]["value"] is not None
