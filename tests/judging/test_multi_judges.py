"""Several judges in one run (`run --judge A --judge B --judges-file F --panel majority`) against the
local OpenAI-compatible server, the panel rebuilt with the server stopped, and hostile judge lists.

Expected values are worked out by hand in the comments.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from helpers import sci_row, write_jsonl
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.api import build_leaderboard, evaluate_judges
from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.core.rundir import read_run
from judgebench.judging.multirun import judge_dir_names, read_judges_file

N = 8  # examples q0..q7; label A for odd i, B for even i


def _shown_first_is_a(messages) -> tuple[int, bool]:
    """(example number, whether the dataset's response A is shown first) from the rendered prompt."""
    text = messages[-1]["content"]
    i = int(re.search(r"Question (\d+) ", text).group(1))
    return i, text.index(f"Answer A{i}") < text.index(f"Answer B{i}")


def first_shown(messages) -> str:  # judge-a: position-biased, always the response shown first
    return "[[A]]"


def dataset_a(messages) -> str:  # judge-b: always the dataset's A (here also the longer response)
    _, a_first = _shown_first_is_a(messages)
    return "[[A]]" if a_first else "[[B]]"


def oracle(messages) -> str:  # judge-c: always the human label (A for odd i, B for even i)
    i, a_first = _shown_first_is_a(messages)
    wants_a = i % 2 == 1
    return "[[A]]" if wants_a == a_first else "[[B]]"


def scripted_server() -> FakeOpenAIServer:
    return FakeOpenAIServer(
        Behaviour(status=404),  # any other model name is an error
        models={"judge-a": Behaviour(answer=first_shown), "judge-b": Behaviour(answer=dataset_a),
                "judge-c": Behaviour(answer=oracle)},
    )


def _data(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "eval.jsonl", [sci_row(i, "A" if i % 2 else "B") for i in range(N)])


@pytest.mark.slow
def test_three_scripted_judges_their_panel_and_the_panel_rebuilt_without_a_server(tmp_path, capsys):
    out, data = tmp_path / "out", _data(tmp_path)
    with scripted_server() as server:
        judges_file = tmp_path / "judges.yaml"
        judges_file.write_text(
            f"- judge: openai/judge-c\n  judge_args: {{api_base: '{server.api_base}', api_key: sk-test, temperature: 0}}\n"
        )
        code = main([
            "run", "--tasks", "sciarena_eval", "--judge", "openai/judge-a", "--judge", "openai/judge-b",
            "--judge-args", f"api_base={server.api_base},api_key=sk-test", "--judges-file", str(judges_file),
            "--dataset-path", str(data), "--output-path", str(out), "--cache-dir", str(tmp_path / "cache"),
            "--concurrency", "4", "--panel", "majority", "--quiet",
        ])
        stats = server.stats()
    printed = capsys.readouterr().out
    assert code == 0, printed
    # 8 examples x 2 orders = 16 calls per judge, each model asked exactly its 16, never over --concurrency 4
    assert stats.models() == {"judge-a": 16, "judge-b": 16, "judge-c": 16}
    asked = Counter((r.model, r.prompt_hash) for r in stats.requests)
    assert stats.max_in_flight() <= 4 and set(asked.values()) == {1}  # each (judge, prompt) asked once
    names = ["openai-judge-a", "openai-judge-b", "openai-judge-c"]
    assert sorted(p.name for p in out.iterdir()) == sorted([*names, "judges.json", "panel"])

    def accuracy(folder: str) -> float:
        return read_run(out / folder)[0].metrics["overall"]["accuracy"].value

    # judge-a picks the shown-first response: per example one order right (AB on odd, BA on even) -> 8/16
    # judge-b picks the dataset's A: right on the 4 odd examples in both orders -> 8/16; judge-c: 16/16
    assert [accuracy(n) for n in names] == [0.5, 0.5, 1.0]
    # majority per judgment (dataset positions; a: AB->A, BA->B; b: A, A; c: the label):
    #   odd i (label A): AB A,A,A -> A right; BA B,A,A -> A right
    #   even i (label B): AB A,A,B -> A wrong; BA B,A,B -> B right  => (8 + 4) / 16 = 0.75
    panel_result, panel_records = read_run(out / "panel")
    assert panel_result.config.kind == "panel" and panel_result.config.aggregate == "majority"
    assert panel_result.metrics["overall"]["accuracy"].value == 0.75
    assert [m.judge for m in panel_result.config.members] == ["openai/judge-a", "openai/judge-b", "openai/judge-c"]
    q0_ab = next(r for r in panel_records if (r.example_id, r.order) == ("q0", "AB"))
    assert json.loads(q0_ab.raw)["votes"] == ["A", "A", "B"] and q0_ab.verdict == "A"
    versus = panel_result.panel.versus_best
    assert versus.best_member == "openai/judge-c" and versus.difference == pytest.approx(-0.25)  # 0.75 - 1.0
    # the summary file names each judge's folder and headline
    summary = json.loads((out / "judges.json").read_text())
    assert [(j["judge"], j["run_dir"], j["headline_value"]) for j in summary["judges"]] == [
        ("openai/judge-a", names[0], 0.5), ("openai/judge-b", names[1], 0.5), ("openai/judge-c", names[2], 1.0)
    ]
    assert summary["panel"] == {"run_dir": "panel", "aggregate": "majority"}
    assert "sk-test" not in "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    # the server is stopped: the panel is rebuilt from the three run directories alone, with the same verdicts
    rebuilt = tmp_path / "rebuilt"
    assert main(["panel", *(str(out / n) for n in names), "--aggregate", "majority", "--output-path", str(rebuilt)]) == 0
    again, again_records = read_run(rebuilt)
    assert again.metrics == panel_result.metrics
    assert [(r.example_id, r.order, r.verdict, r.raw) for r in again_records] == [
        (r.example_id, r.order, r.verdict, r.raw) for r in panel_records
    ]
    # the leaderboard takes them all: three judges and the panel
    written = build_leaderboard([out], tmp_path / "board")
    table = next(p for p in written if p.name == "sciarena_eval.json").read_text()
    for judge in ("openai/judge-a", "openai/judge-b", "openai/judge-c", "panel/majority("):
        assert judge in table


@pytest.mark.slow
def test_a_second_multi_judge_run_is_served_from_the_shared_cache(tmp_path):
    data = _data(tmp_path)
    with scripted_server() as server:
        args = {"api_base": server.api_base, "api_key": "sk-test"}
        judges = [("openai/judge-a", args), ("openai/judge-c", args)]
        options = dict(dataset_path=str(data), include_paths=(), n_resamples=100)
        from judgebench.calls import RunnerOptions

        runner = RunnerOptions(progress=False, cache_dir=tmp_path / "cache")
        first = evaluate_judges("sciarena_eval", judges, output_path=tmp_path / "one", runner=runner, **options)
        second = evaluate_judges("sciarena_eval", judges, output_path=tmp_path / "two", runner=runner, **options)
        stats = server.stats()
    assert stats.total == 32  # 2 judges x 16 calls, once: the second run is all cache
    assert [r.calls_made for r in first.runs] == [16, 16] and [r.calls_made for r in second.runs] == [0, 0]
    assert [r.result.counts.cached for r in second.runs] == [16, 16]
    assert first.panel is None and second.summary_path == tmp_path / "two" / "judges.json"


def test_judge_folder_names_are_safe_and_distinct():
    names = judge_dir_names(["openai/gpt-4.1", "openai/gpt-4.1", "../../etc", "panel", "", "a b/c?d"])
    assert names == ["openai-gpt-4.1", "openai-gpt-4.1-2", "etc", "judge-panel", "judge", "a-b-c-d"]
    assert all("/" not in n and not n.startswith(".") for n in names)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{judges: x}", "expected a non-empty list"),  # issue 29: {judge: x} is now one judge configuration
        ("[]", "expected a non-empty list"),
        ("- {judge: builtin/longer, model_args: x}", "entry 1: unknown key 'model_args'"),
        ("- builtin/longer\n- {judge_args: {temperature: 0}}", "entry 2: 'judge' must be a judge id"),
        ("- {judge: openai/x, judge_args: [1, 2]}", "entry 1: 'judge_args' must be a mapping"),
        ("- {judge: openai/x, judge_args: 'temperature'}", "entry 1: --judge-args: expected key=value"),
        ("- {judge: a}\n- {judge: a, judge: b}", "not valid YAML"),
        ("- [unclosed", "not valid YAML"),
    ],
)
def test_a_bad_judges_file_is_one_line_naming_the_file_and_entry(tmp_path, text, message):
    path = tmp_path / "judges.yaml"
    path.write_text(text)
    with pytest.raises(JudgebenchError, match=re.escape(message)) as caught:
        read_judges_file(path)
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)


def test_judges_file_values_are_typed_like_judge_args(tmp_path):
    path = tmp_path / "judges.yaml"
    path.write_text("- builtin/longer\n- {judge: openai/x, judge_args: {temperature: 0, drop_params: true, api_base: 'http://h'}}\n")
    first, second = read_judges_file(path)
    assert (first.judge, first.judge_args) == ("builtin/longer", {})
    assert second.judge_args == {"temperature": "0", "drop_params": "true", "api_base": "http://h"}


def test_cli_refusals_exit_2_with_one_line(tmp_path, capsys):
    base = ["run", "--tasks", "sciarena_eval", "--demo", "--output-path", str(tmp_path / "o"), "--quiet"]
    assert main(base) == 2
    assert "give a judge" in capsys.readouterr().err
    assert main([*base, "--judges-file", str(tmp_path / "missing.yaml")]) == 2
    assert "missing.yaml" in capsys.readouterr().err
    assert main([*base, "--judge", "builtin/longer", "--judge", "builtin/nope"]) == 2
    err = capsys.readouterr().err
    assert "builtin/nope" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o" / "builtin-longer").exists()  # every judge is checked before any runs


def test_panel_with_one_judge_is_refused_before_any_call(tmp_path, capsys):
    # it ran the judge (calls paid for), then said "no panel" and exited 1: a panel of one judge is that judge
    out = tmp_path / "o"
    code = main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "4", "--judge", "builtin/longer",
                 "--panel", "majority", "--output-path", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "--panel needs at least two judges, got 1" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_judge_given_twice_gets_its_own_folder_and_the_panel_refuses_the_twin(tmp_path, capsys):
    out = tmp_path / "o"
    code = main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "4", "--judge", "builtin/longer",
                 "--judge", "builtin/longer", "--panel", "majority", "--output-path", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and "no panel: panel:" in err and "holds the same answers" in err
    assert (out / "builtin-longer-2" / "results.json").is_file() and not (out / "panel").exists()
    summary = json.loads((out / "judges.json").read_text())
    assert [j["run_dir"] for j in summary["judges"]] == ["builtin-longer", "builtin-longer-2"]
    assert "holds the same answers" in summary["panel_skipped"] and summary["panel"] is None
