"""`run --repeats N`: the stability figures on hand-built records, repeats from a server that answers at
random (agreement counted from the recorded verdicts), and the cache when N grows (server calls counted).

Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections import Counter
from pathlib import Path

import pytest
from helpers import sci_row, write_jsonl
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.api import evaluate, score_run
from judgebench.calls import RunnerOptions
from judgebench.calls.cache import cache_key
from judgebench.cli.main import main
from judgebench.core.files import read_models_jsonl
from judgebench.core.records import JudgmentRecord
from judgebench.core.rundir import read_run
from judgebench.publish.report import write_report
from judgebench.scoring.repeats import stability_summary


def rec(example: str, repeat: int, vote: str, label: str) -> JudgmentRecord:
    """One AB judgment of repeat `repeat`; `vote` A / B (dataset positions) or INVALID."""
    answered = vote in ("A", "B")
    return JudgmentRecord(
        task="t", example_id=example, dimension="overall", order="AB", judge="j", prompt_hash="h" + example,
        status="ANSWERED" if answered else "INVALID", raw=f"[[{vote}]]" if answered else "?",
        verdict_shown=vote if answered else None, verdict=vote if answered else None, label=label,
        length_a=10, length_b=20, repeat=repeat,
    )


def test_stability_figures_by_hand():
    # e1 (label A): A A A        agree, no flip, majority A (right)
    # e2 (label B): A B B        differ, flips,  majority B (right)
    # e3 (label A): B INVALID B  differ (INVALID is a vote), no flip (answered: B only), majority B (wrong)
    votes = {"e1": ("A", "A", "A", "A"), "e2": ("A", "B", "B", "B"), "e3": ("B", "INVALID", "B", "A")}
    records = [rec(e, r, v[r], v[3]) for e, v in votes.items() for r in range(3)]
    s = stability_summary(records, 3, headline="accuracy", both_bad="tie", allow_tie=False, joint=False, n_resamples=1000)
    # accuracy per repeat: r0 e1 only = 1/3; r1 e1, e2 = 2/3; r2 e1, e2 = 2/3; mean 5/9
    assert s.headline_per_repeat == pytest.approx([1 / 3, 2 / 3, 2 / 3])
    assert (s.headline_min, s.headline_max) == pytest.approx((1 / 3, 2 / 3)) and s.headline_mean == pytest.approx(5 / 9)
    # resampled means lie in [1/3, 2/3]; all-r0 has probability 1/27 (3.7%) and all-from-{r1, r2} 8/27, both
    # above the 2.5% tails, so the 95% interval is the whole range
    assert (s.headline_ci_low, s.headline_ci_high) == pytest.approx((1 / 3, 2 / 3))
    assert s.agreement_per_example == {"e1": 1.0, "e2": 0.0, "e3": 0.0} and s.agreement_mean == pytest.approx(1 / 3)
    assert s.judgments_agreeing == pytest.approx(1 / 3) and s.flip_rate == pytest.approx(1 / 3)
    assert s.majority_headline == pytest.approx(2 / 3) and s.majority_coverage == 1.0  # e1, e2 right of 3
    assert (s.judgments_all, s.answered_all, s.invalid_all) == (9, 8, 1)


def test_a_binary_split_majority_takes_the_lowest_answered_repeat():
    # two repeats A / B on a binary task: a split, broken by the chair (repeat 0: A, right on label A)
    records = [rec("e", 0, "A", "A"), rec("e", 1, "B", "A")]
    s = stability_summary(records, 2, headline="accuracy", both_bad="tie", allow_tie=False, joint=False)
    assert s.majority_headline == 1.0 and s.flip_rate == 1.0 and s.agreement_mean == 0.0


def test_a_judgment_never_sent_in_any_repeat_does_not_agree():
    """A stopped run: e1 answered A in all three repeats (agrees); e2 failed with an error in all three (FAILED is
    a vote: agrees, as documented); e3 was never sent in any repeat (not_attempted), which had read as three
    identical FAILED votes, agreeing. It does not agree: a stopped run's agreement is a lower bound (1/3 here,
    not 2/3 -- e2 still agrees, e3 no longer)."""
    from judgebench.core.records import NOT_ATTEMPTED

    def failed(example: str, repeat: int, error: str) -> JudgmentRecord:
        return rec(example, repeat, "INVALID", "A").model_copy(update={"status": "FAILED", "raw": None, "error": error})

    records = [rec("e1", r, "A", "A") for r in range(3)]
    records += [failed("e2", r, "HTTP 500: fake error 500") for r in range(3)]
    records += [failed("e3", r, NOT_ATTEMPTED.format(reason="interrupted")) for r in range(3)]
    s = stability_summary(records, 3, headline="accuracy", both_bad="tie", allow_tie=False, joint=False, n_resamples=10)
    assert s.agreement_per_example == {"e1": 1.0, "e2": 1.0, "e3": 0.0}
    assert s.judgments_agreeing == pytest.approx(2 / 3) and s.agreement_mean == pytest.approx(2 / 3)


def test_a_repeat_a_stopped_run_never_judged_has_no_headline():
    """An outside attack: a run stopped during repeat 0 printed `accuracy per repeat 52.1%, 0.0%, 0.0%`, as if the
    never-sent repeats had been judged wrong. Repeat 0 here: e1 right, e2 wrong (1/2); repeats 1 and 2 never
    sent: undefined; one defined repeat has no spread, so min, max and mean are undefined too, and no interval."""
    from judgebench.core.records import NOT_ATTEMPTED
    from judgebench.publish.summary import format_stability

    def unsent(example: str, repeat: int) -> JudgmentRecord:
        return rec(example, repeat, "INVALID", "A").model_copy(
            update={"status": "FAILED", "raw": None, "error": NOT_ATTEMPTED.format(reason="interrupted")})

    records = [rec("e1", 0, "A", "A"), rec("e2", 0, "A", "B")] + [unsent(e, r) for e in ("e1", "e2") for r in (1, 2)]
    s = stability_summary(records, 3, headline="accuracy", both_bad="tie", allow_tie=False, joint=False, n_resamples=10)
    assert s.headline_per_repeat == [0.5, None, None]
    assert (s.headline_min, s.headline_max, s.headline_mean) == (None, None, None)
    assert (s.headline_ci_low, s.headline_ci_high) == (None, None)
    assert "accuracy per repeat: 50.0%, —, — (min —, max —, mean —)" in "\n".join(format_stability(s))
    # a third attack: a repeat judged in part (e1 answered, e2 never sent) read 50% with e2 counted wrong, and
    # entered the spread; it is undefined too. Repeats 0 and 2 whole: the spread is over those two (1/2 and 2/2)
    partial = [rec("e1", 0, "A", "A"), rec("e2", 0, "A", "B"), rec("e1", 1, "A", "A"), unsent("e2", 1),
               rec("e1", 2, "A", "A"), rec("e2", 2, "B", "B")]
    s = stability_summary(partial, 3, headline="accuracy", both_bad="tie", allow_tie=False, joint=False, n_resamples=10)
    assert s.headline_per_repeat == [0.5, None, 1.0]
    assert (s.headline_min, s.headline_max, s.headline_mean) == (0.5, 1.0, 0.75)


def _data(tmp_path: Path, n: int) -> Path:
    return write_jsonl(tmp_path / "eval.jsonl", [sci_row(i, "A" if i % 2 else "B") for i in range(n)])


@pytest.mark.slow
def test_repeats_from_a_random_server_agreement_counted_from_the_recorded_verdicts(tmp_path):
    rng, lock = random.Random(13), threading.Lock()

    def coin(messages) -> str:
        with lock:
            return rng.choice(["[[A]]", "[[B]]"])

    out = tmp_path / "out"
    with FakeOpenAIServer(Behaviour(answer=coin)) as server:
        evaluate(
            "sciarena_eval", "openai/coin", output_path=out, dataset_path=str(_data(tmp_path, 6)), repeats=3,
            judge_args={"api_base": server.api_base, "api_key": "sk-test"},
            runner=RunnerOptions(progress=False, cache_dir=tmp_path / "cache"),
        )
        stats = server.stats()
    # 6 examples x 2 orders = 12 prompts, each asked once per repeat
    assert stats.total == 36 and set(Counter(r.prompt_hash for r in stats.requests).values()) == {3}
    result, first = read_run(out)
    later = read_models_jsonl(out / "repeats.jsonl", JudgmentRecord)
    assert {r.repeat for r in first} == {0} and Counter(r.repeat for r in later) == {1: 12, 2: 12}
    assert result.counts.calls == 12  # the main metrics are repeat 0's
    # count by hand from the recorded verdicts
    votes: dict[tuple[str, str], list[str]] = {}
    for r in sorted([*first, *later], key=lambda r: r.repeat):
        votes.setdefault((r.example_id, r.order), []).append(r.verdict)
    per_example: dict[str, list[bool]] = {}
    for (example, _), row in votes.items():
        per_example.setdefault(example, []).append(len(set(row)) == 1)
    agreement = {e: sum(flags) / 2 for e, flags in per_example.items()}  # 2 orders per example
    flips = sum(not all(flags) for flags in per_example.values()) / 6  # every vote answered: differ = flip
    labels = {r.example_id: r.label for r in first}
    right = [sum(r.verdict == labels[r.example_id] for r in [*first, *later] if r.repeat == k) / 12 for k in range(3)]
    s = result.stability
    assert s is not None and s.repeats == 3 and s.agreement_per_example == agreement
    assert s.agreement_mean == pytest.approx(sum(agreement.values()) / 6) and s.flip_rate == pytest.approx(flips)
    assert s.headline_per_repeat == pytest.approx(right) and right[0] == result.metrics["overall"]["accuracy"].value
    assert s.agreement_mean < 1  # a coin: all 12 judgments agreeing three times has probability 4^-12
    # re-scoring recomputes the same figures from samples.jsonl and repeats.jsonl; report shows them
    assert score_run(out).stability == s
    assert "## Repeats and stability" in write_report(out).read_text()


def test_repeat_zero_keeps_the_old_cache_key():
    identity, prompt = {"model": "openai/x", "args": {"temperature": 0.0}}, "ab" * 32
    old = hashlib.sha256(json.dumps({"identity": identity, "prompt_hash": prompt}, sort_keys=True,
                                    separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
    assert cache_key(identity, prompt) == cache_key(identity, prompt, 0) == old
    assert len({cache_key(identity, prompt, r) for r in range(4)}) == 4


@pytest.mark.slow
def test_a_larger_n_adds_only_the_new_repeats_and_temperature_0_says_so(tmp_path, capsys):
    data = _data(tmp_path, 4)  # 4 examples x 2 orders = 8 calls per repeat

    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        def run(folder: str, repeats: int) -> int:
            return main([
                "run", "--tasks", "sciarena_eval", "--judge", "openai/steady", "--dataset-path", str(data),
                "--judge-args", f"api_base={server.api_base},api_key=sk-test,temperature=0",
                "--output-path", str(tmp_path / folder), "--cache-dir", str(tmp_path / "cache"),
                "--repeats", str(repeats), "--quiet",
            ])

        assert run("two", 2) == 0 and server.stats().total == 16  # 2 repeats x 8
        assert "at temperature 0: the repeats run anyway" in capsys.readouterr().err
        assert run("three", 3) == 0 and server.stats().total == 24  # only repeat 2 is new: + 8
        capsys.readouterr()
        assert run("one", 1) == 0 and server.stats().total == 24  # repeat 0 keeps its key: all cached
        assert "temperature 0" not in capsys.readouterr().err  # no note without repeats
    three, first = read_run(tmp_path / "three")
    later = read_models_jsonl(tmp_path / "three" / "repeats.jsonl", JudgmentRecord)
    assert all(r.cached for r in first) and [r.cached for r in later if r.repeat == 1] == [True] * 8
    assert [r.cached for r in later if r.repeat == 2] == [False] * 8
    assert three.stability.agreement_mean == 1.0 and three.stability.flip_rate == 0.0  # always [[A]]
    assert not (tmp_path / "one" / "repeats.jsonl").exists() and read_run(tmp_path / "one")[0].stability is None
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--repeats", "0",
                 "--output-path", str(tmp_path / "x")]) == 2
    assert "--repeats" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: {**r, "repeat": 0}, "has repeat 0"),
        (lambda r: {**r, "judge": "openai/other"}, "not the run's"),
        (lambda r: {**r, "repeat": "two"}, "repeat"),
    ],
)
def test_a_tampered_repeats_file_is_one_line_naming_it(tmp_path, capsys, edit, message):
    out = tmp_path / "run"
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--limit", "3",
                 "--repeats", "2", "--output-path", str(out), "--quiet"]) == 0
    path = out / "repeats.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(r) + "\n" for r in [edit(rows[0]), *rows[1:]]))
    capsys.readouterr()
    assert main(["score", str(out)]) == 2
    err = capsys.readouterr().err
    assert "repeats.jsonl" in err and message in err and len(err.strip().splitlines()) == 1


def test_a_judgment_twice_in_the_repeats_file_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--limit", "3",
                 "--repeats", "2", "--output-path", str(out), "--quiet"]) == 0
    path = out / "repeats.jsonl"
    first = path.read_text().splitlines()[0]
    path.write_text(path.read_text() + first + "\n")
    assert main(["score", str(out)]) == 2
    assert "judgment 7 (" in capsys.readouterr().err  # 3 examples x 2 orders = 6 lines, then the copy


def test_the_repeats_cost_line_says_no_tokens_were_reported_rather_than_unpriced():
    from judgebench.publish.summary import format_stability

    records = [rec(e, r, "A", "A") for e in ("e1", "e2") for r in range(2)]  # no tokens, no cost: a built-in judge
    s = stability_summary(records, 2, headline="accuracy", both_bad="tie", allow_tie=False, joint=False)
    assert s.cost_usd_all is None and "none (no tokens reported" in format_stability(s)[-1]
    assert "n/a" not in "\n".join(format_stability(s))  # (an outside audit: undefined figures are a dash, never n/a)
    with_tokens = [r.model_copy(update={"tokens_in": 10, "tokens_out": 2}) for r in records]  # tokens, no price
    line = format_stability(stability_summary(with_tokens, 2, headline="accuracy", both_bad="tie", allow_tie=False, joint=False))[-1]
    assert "40 tokens in, 8 out, cost unpriced" in line


def test_a_run_whose_repeat_zero_answered_nothing_says_the_other_repeats_did(tmp_path, capsys):
    """Every prompt's first call fails (500) and its second is answered: repeat 0 answers nothing (the run's
    figures: exit 1) while repeat 1 answers all 8 judgments. The message had said "no judgment was answered"."""
    with FakeOpenAIServer(Behaviour(script=(500,), answer="[[A]]")) as server:
        code = main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "4", "--judge", "openai/m",
                     "--judge-args", f"api_base={server.api_base},api_key=x", "--max-retries", "0", "--repeats", "2",
                     "--concurrency", "1", "--output-path", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "c"),
                     "--quiet"])
    err = capsys.readouterr().err
    assert code == 1
    assert "judgebench: in repeat 0 (the run's figures; 8 judgments of repeat 1 answered): no judgment was answered" in err


def test_repeats_of_a_built_in_judge_are_said_to_agree_by_construction(tmp_path, capsys):
    """A walkthrough: `builtin/random --repeats 5` reported 100% stability and confidence from repeats, unremarked."""
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "2", "--judge", "builtin/random", "--repeats", "3",
                 "--output-path", str(tmp_path / "r"), "--quiet"]) == 0
    assert "built-in judge builtin/random answers alike every time, so its repeats agree by construction" in capsys.readouterr().err
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "2", "--judge", "builtin/random",
                 "--output-path", str(tmp_path / "one"), "--quiet"]) == 0
    assert "agree by construction" not in capsys.readouterr().err
