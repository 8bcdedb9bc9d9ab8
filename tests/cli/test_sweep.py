"""`run --sweep` (issue 34 item 4): one judge at several settings, through the cache, as curves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.cli.main import main
from judgebench.cli.sweep import parse_sweep
from judgebench.core.errors import JudgebenchError

THINK = "x" * 396  # 396 // 4 + 1 = 100 reasoning tokens


def test_parse_sweep() -> None:
    assert parse_sweep("reasoning_effort=low, medium,high") == ("reasoning_effort", ["low", "medium", "high"])
    # a fourth attack: a JSON value's own commas cut it in two ("not valid JSON: '{"top_k":1'")
    assert parse_sweep('extra_body={"top_k":1,"min_p":0.1},{"top_k":2}') == (
        "extra_body", ['{"top_k":1,"min_p":0.1}', '{"top_k":2}'])
    assert parse_sweep('stop=["x","y"],["z"]') == ("stop", ['["x","y"]', '["z"]'])
    assert parse_sweep('stop=["a\\"],b"],["c"]') == ("stop", ['["a\\"],b"]', '["c"]'])  # an escaped quote
    for bad in ("temperature", "=1,2", "timeout=1,2", "temperature=0,0"):
        with pytest.raises(JudgebenchError):
            parse_sweep(bad)


@pytest.mark.slow
def test_a_max_tokens_sweep_draws_truncation_thinking_tokens_and_reuses_the_cache(tmp_path: Path, capsys) -> None:
    beh = Behaviour(answer="[[A]]", reasoning_content=THINK, honour_max_tokens=True)
    out, cache = tmp_path / "sweep", tmp_path / "cache"
    with FakeOpenAIServer(beh) as server:
        argv = ["run", "--tasks", "sciarena_eval", "--demo", "--limit", "3", "--judge", "openai/m",
                "--judge-args", f"api_base={server.api_base},api_key=sk-t", "--output-path", str(out),
                "--cache-dir", str(cache), "--quiet", "--max-retries", "0", "--sweep", "max_tokens=50,200"]
        status = main(argv)
        first = server.stats().total
        assert main([*argv[:-1], "max_tokens=50,200"]) == status  # again: every answer from the cache
        assert server.stats().total == first == 12  # 3 examples x 2 orders x 2 settings
    sweep = json.loads((out / "sweep.json").read_text())
    assert sweep["key"] == "max_tokens" and [r["value"] for r in sweep["settings"]] == ["50", "200"]
    low, high = sweep["settings"]
    # 50 tokens: the 100 reasoning tokens use the cap, every answer cut off (truncated) and nothing answered
    assert low["truncation_rate"] == 1.0 and low["coverage"] == 0.0
    # 200 tokens: room for the answer "[[A]]" (2 tokens): no truncation
    assert high["truncation_rate"] == 0.0 and high["coverage"] == 1.0
    assert high["reasoning_tokens_per_call"] == 100 and high["answer_tokens_per_call"] == 2
    assert (out / "max_tokens=50" / "results.json").exists() and (out / "max_tokens=200" / "samples.jsonl").exists()
    assert (out / "sweep.png").stat().st_size > 0
    assert "| 200 |" in (out / "sweep.md").read_text()


def test_sweep_refuses_several_judges_and_a_key_given_twice(tmp_path: Path, capsys) -> None:
    base = ["run", "--tasks", "sciarena_eval", "--demo", "--output-path", str(tmp_path / "o")]
    assert main([*base, "--judge", "builtin/longer", "--judge", "builtin/shorter", "--sweep", "seed=1,2"]) == 2
    assert main([*base, "--judge", "openai/m", "--judge-args", "temperature=0", "--sweep", "temperature=0,1"]) == 2
    err = capsys.readouterr().err
    assert "one task and one judge" in err and "also in --judge-args" in err
    # a new user: `temperature=0,0.0` ran one configuration twice (two folders, one hash, two identical rows)
    assert main([*base, "--judge", "openai/m", "--judge-args", "api_key=x", "--sweep", "temperature=0,0.0"]) == 2
    assert "sweep: values '0' and '0.0' of temperature are one setting (0.0)" in capsys.readouterr().err
    assert main([*base, "--judge", "openai/m", "--judge-args", "api_key=x", "--sweep", "temperature=0,-0"]) == 2
    assert "are one setting (0.0)" in capsys.readouterr().err
    assert main([*base, "--judge", "openai/m", "--judge-args", "api_key=x", "--sweep", "temperature=0.1,abc"]) == 2
    assert "error: --sweep temperature='abc': expected a number" in capsys.readouterr().err
    # an outside attack: 'a/b' and 'a-b' (or '.' and '..') are one folder; the second run replaced the first
    for values in ("a/b,a-b", ".,.."):
        assert main([*base, "--judge", "openai/m", "--judge-args", "api_key=x", "--sweep", f"user={values}"]) == 2
        err = capsys.readouterr().err
        assert "would share the folder" in err and err.count("\n") == 1
    # a walkthrough: a sweep on a built-in judge was refused as `--judge-args is not used ...`, a flag not given
    assert main([*base, "--judge", "builtin/longer", "--sweep", "temperature=0,1"]) == 2
    assert capsys.readouterr().err == "judgebench: error: --sweep: built-in judge builtin/longer takes no arguments to sweep\n"
    assert not (tmp_path / "o").exists()


def test_a_sweep_of_an_argument_stored_under_another_name_runs(tmp_path: Path, capsys) -> None:
    """A third attack: `--sweep thinking_budget=...` (stored as `thinking`) and `base_url=...` (as `api_base`) were
    refused as one setting (every value looked up under the name given was null)."""
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        out = tmp_path / "s"
        assert main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "1", "--quiet", "--judge", "openai/m",
                     "--judge-args", f"api_base={server.api_base},api_key=sk-t", "--max-retries", "0", "--output-path",
                     str(out), "--cache-dir", str(tmp_path / "c"), "--sweep", "thinking_budget=16,32"]) == 0
        assert sorted(p.name for p in out.iterdir() if p.is_dir()) == ["thinking_budget=16", "thinking_budget=32"]
        assert server.stats().total == 4


def test_sweep_table_numbers_are_never_in_exponent_form() -> None:
    """A thinking-token column read `1.5e+03` (three significant digits of 1536.0)."""
    from judgebench.publish.sweep import _fmt

    assert [_fmt(v) for v in (1536.4, 999.5, 123.6, 12.345, 0.000123, 3, None)] == [
        "1,536", "1,000", "124", "12.3", "0.000123", "3", "—"]  # (undefined: a dash, never n/a)
    assert _fmt(0.5, pct=True) == "50.0%"


def test_an_unpriced_sweep_draws_no_empty_cost_axis(tmp_path: Path, monkeypatch) -> None:
    """An outside audit: a judge without a price drew a cost axis with no line on it, from -0.04 to 0.04. The panel
    then shows latency alone and says the judge is not priced; a priced sweep keeps both lines."""
    from judgebench.publish import sweep

    drawn = []
    monkeypatch.setattr(sweep, "save_png", lambda fig, path: drawn.append(fig))
    row = {"key": "reasoning_effort", "headline": "accuracy", "headline_value": 0.5, "ci_low": 0.4, "ci_high": 0.6,
           "truncation_rate": 0.0, "cost_usd": None, "latency_p50_s": 1.5, "reasoning_tokens_per_call": None,
           "answer_tokens_per_call": 2.0}
    sweep.plot_sweep([{**row, "value": "low"}, {**row, "value": "high"}], tmp_path / "sweep.png")
    panel = drawn[0].axes[2]
    assert panel.get_ylabel() == "latency p50 (s)" and panel.get_title() == "cost: not priced for this judge"
    assert len(drawn[0].axes) == 4 and [list(line.get_ydata()) for line in panel.get_lines()] == [[1.5, 1.5]]
    sweep.plot_sweep([{**row, "value": "low", "cost_usd": 0.01}, {**row, "value": "high", "cost_usd": 0.02}],
                     tmp_path / "sweep.png")
    assert len(drawn[1].axes) == 5 and drawn[1].axes[2].get_ylabel() == "cost (USD)"


def test_a_sweep_writes_no_secret_and_no_markup(tmp_path: Path, capsys) -> None:
    """An outside attack: `--sweep api_base=http://u:PASS@host/v1?key=Q` and `--sweep api_key=sk-A,sk-B` wrote the
    password, the query value and the keys into folder names, sweep.md, sweep.json and the terminal (each setting's
    results.json was redacted); a value `<img onerror=...>` or `a|b` went into sweep.md raw."""
    out = tmp_path / "sweep"
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        base = ["run", "--tasks", "sciarena_eval", "--demo", "--limit", "1", "--judge", "openai/m", "--quiet",
                "--max-retries", "0", "--cache-dir", str(tmp_path / "cache"), "--output-path", str(out)]
        assert main([*base, "--judge-args", f"api_base={server.api_base}", "--sweep", "api_key=sk-SWEEPSECRET1,sk-SWEEPSECRET2"]) == 2
        assert "sweep: api_key holds a secret" in capsys.readouterr().err and not out.exists()
        # a second attack: header values (every one is a secret) and a JSON value with a key inside went through
        for sweep, says in (("extra_headers.X-Tenant=HDRSECRET1,HDRSECRET2", "sweep: extra_headers.X-Tenant holds a secret"),
                            ("header.X-Project=HDRSECRET3,HDRSECRET4", "sweep: header.X-Project holds a secret"),
                            ('extra_body={"api_key":"BODYSECRET1"},{"top_k":3}', "sweep: a value of extra_body holds a secret")):
            assert main([*base, "--judge-args", f"api_base={server.api_base},api_key=sk-t", "--sweep", sweep]) == 2
            assert says in capsys.readouterr().err and not out.exists()
        secret_url = server.api_base.replace("http://", "http://u:SWEEPPASS@") + "?key=SWEEPQUERY"
        assert main([*base, "--judge-args", "api_key=sk-t", "--sweep", f"api_base={secret_url},{server.api_base}"]) == 0
        printed = "".join(capsys.readouterr())
        assert main([*base, "--judge-args", f"api_base={server.api_base},api_key=sk-t", "--output-path",
                     str(tmp_path / "markup"), "--sweep", "user=<img src=x onerror=alert(1)>,a|b [x](javascript:alert(1))"]) == 0
    written = printed + "".join(p.name for p in out.rglob("*")) + "".join(
        p.read_text(errors="replace") for p in out.rglob("*") if p.is_file() and p.suffix != ".png")
    assert "SWEEPPASS" not in written and "SWEEPQUERY" not in written
    rows = json.loads((out / "sweep.json").read_text())["settings"]
    assert rows[0]["value"] == secret_url.replace("u:SWEEPPASS", "***").replace("SWEEPQUERY", "***")
    assert rows[1]["value"] == server.api_base
    table = (tmp_path / "markup" / "sweep.md").read_text()
    assert "<img" not in table and "a&#124;b" in table and "\\[x\\]" in table


def test_a_sweep_of_a_named_configuration_keeps_its_name_and_prompt(tmp_path: Path, capsys) -> None:
    """An audit: `--judge FILE --sweep ...` ran each setting under no name and with the task's prompt (the file's
    `prompt:` dropped), and sweep.md named neither the judge nor each setting's configuration."""
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        config = tmp_path / "mine.yaml"
        config.write_text(f"name: My judge\njudge: openai/m\nprompt: pairwise_generic\n"
                          f"judge_args: {{api_base: '{server.api_base}', api_key: sk-t}}\n", encoding="utf-8")
        out = tmp_path / "s"
        assert main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "1", "--quiet", "--judge", str(config),
                     "--output-path", str(out), "--cache-dir", str(tmp_path / "c"), "--sweep", "temperature=0,1"]) == 0
    rows = json.loads((out / "sweep.json").read_text())["settings"]
    for row, folder in zip(rows, ("temperature=0", "temperature=1")):
        recorded = json.loads((out / folder / "results.json").read_text())["config"]
        assert recorded["judge_name"] == "My judge" and recorded["prompt_template"] == "pairwise_generic"
        assert row["judge_name"] == "My judge" and row["config_hash"] == recorded["judge_config_hash"]
    assert rows[0]["config_hash"] != rows[1]["config_hash"]
    table = (out / "sweep.md").read_text()
    assert table.startswith("# Sweep over temperature: openai/m (My judge) on sciarena_eval\n")
    assert f"| {rows[0]['config_hash'][:8]} |" in table



def test_a_swept_key_the_configuration_file_sets_names_the_file(tmp_path: Path, capsys) -> None:
    """An attack: a key set in a configuration file's judge_args was refused as `also in --judge-args`."""
    config = tmp_path / "mine.yaml"
    config.write_text("judge: openai/m\njudge_args: {temperature: 0.2, api_key: x}\n", encoding="utf-8")
    assert main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", str(config), "--output-path", str(tmp_path / "o"),
                 "--sweep", "temperature=0,1"]) == 2
    assert f"--sweep: temperature is also in its configuration file {config} (give it once)" in capsys.readouterr().err


def test_a_misspelt_sweep_key_is_refused_under_sweep_and_a_providers_own_key_is_swept(tmp_path: Path, capsys) -> None:
    """A walkthrough: `--sweep reasoning_efort=low,high` ran both settings, warned under `--judge-args` (a flag not
    given), exited 0 and drew a flat curve. A key one letter off a known argument is now refused naming --sweep, before
    any call; a key close to none (a provider's own) is swept as --judge-args sends it, without a word."""
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        base = ["run", "--tasks", "sciarena_eval", "--demo", "--limit", "2", "--judge", "openai/x", "--judge-args",
                f"api_base={server.api_base},api_key=x", "--cache-dir", str(tmp_path / "cache"), "--quiet",
                "--max-retries", "0"]
        assert main([*base, "--output-path", str(tmp_path / "e"), "--sweep", "reasoning_efort=low,high"]) == 2
        assert capsys.readouterr().err == (
            "judgebench: error: --sweep reasoning_efort: not an argument judgebench knows; did you mean "
            "reasoning_effort? (refused: a sweep over an argument the provider ignores draws a flat curve; a "
            "provider's own argument of that name: run each value with --judge-args reasoning_efort=V, which sends "
            "it with a warning, and compare the runs)\n")
        assert server.stats().total == 0 and not (tmp_path / "e").exists()
        assert main([*base, "--output-path", str(tmp_path / "v"), "--sweep", "vendor_knob=1,2"]) == 0
        assert "not an argument" not in capsys.readouterr().err and server.stats().total == 8
        # an outside attack: providers' own arguments close to a known one were refused with no way through
        assert main([*base, "--output-path", str(tmp_path / "g"), "--sweep", "reasoning_format=parsed,raw"]) == 0
        assert "not an argument" not in capsys.readouterr().err and server.stats().total == 16
