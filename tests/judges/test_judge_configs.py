"""Issue 29: a judge is a configuration (id + model + arguments + prompt + name + price), the answer cache
knows the endpoint, cost survives a cached rerun, and a --limit run is marked and never ranked among full
runs. Against the local OpenAI-compatible server (tests/openai_server.py)."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest
from openai_server import Behaviour, FakeOpenAIServer

from judgebench.calls.cache import CACHE_FILENAME
from judgebench.cli.main import main
from judgebench.core.errors import JudgebenchError
from judgebench.judges import make_judge
from judgebench.judges.config import config_hash, display_label, read_judge_configs
from judgebench.publish.leaderboard import collect_tables
from judgebench.publish.submit import submit_run
from judgebench.publish.tables import to_csv, to_markdown

BASE = ["run", "--tasks", "sciarena_eval", "--demo", "--quiet", "--max-retries", "0"]


def results(folder: Path) -> dict:
    return json.loads((folder / "results.json").read_text())


def two_efforts(tmp_path: Path, bases: tuple[str, str], *, names: bool) -> Path:
    """One YAML file holding two configurations of one model (reasoning_effort low and high); the fake
    server answers from the prompt only, so each effort has its own server (answers that differ)."""
    path = tmp_path / "judges.yaml"
    entries = []
    for effort, api_base in zip(("low", "high"), bases):
        entries.append(
            (f"- name: stub {effort}\n" if names else "- ")
            + ("  " if names else "")
            + f"judge: openai/stub-model\n  judge_args: {{api_base: '{api_base}', api_key: sk-t, reasoning_effort: {effort}}}\n"
        )
    path.write_text("".join(entries))
    return path


def test_configuration_file_formats_and_refusals(tmp_path: Path) -> None:
    one = tmp_path / "one.yaml"
    one.write_text("name: my judge\nmodel: openai/x\nargs: 'temperature=0'\nprice: {input_per_mtok: 1, output_per_mtok: 2}\n")
    (config,) = read_judge_configs(one)
    assert (config.judge, config.name) == ("openai/x", "my judge")
    assert config.judge_args == {"temperature": "0", "input_cost_per_mtok": "1", "output_cost_per_mtok": "2"}
    folder = tmp_path / "registry"
    folder.mkdir()
    (folder / "b.yaml").write_text("judges:\n  - builtin/longer\n  - {judge: builtin/always-a, name: first}\n")
    (folder / "a.yml").write_text("judge: builtin/random\n")
    (folder / "notes.txt").write_text("not a judge")
    assert [(c.judge, c.name) for c in read_judge_configs(folder)] == [
        ("builtin/random", None), ("builtin/longer", None), ("builtin/always-a", "first")]
    assert read_judge_configs(str(folder)) == read_judge_configs(folder)  # a str path too (python-api.md)
    bad = tmp_path / "bad.yaml"
    for text, message in (("judge: x\nmodel: y\n", "give 'judge' or 'model', not both"),
                          ("judge: openai/x\nprice: 3\n", "'price' must be a mapping"),
                          ("judge: openai/x\nname: ''\n", "'name' must be a short text"),
                          # a NUL, ESC or line break in a display name reached results.json and every table
                          ("judge: openai/x\nname: \"a\\0b\\e[31m\"\n", r"'name' 'a\\x00b\\x1b\[31m' holds a control"),
                          ("judge: openai/x\nname: \"two\\nlines\"\n", r"'name' 'two\\nlines' holds a control"),
                          ("judge: openai/x\nname: \"tab\\there\"\n", r"'name' 'tab\\there' holds a control"),
                          ("judge: openai/x\nname: \"a\\u2028b\"\n", r"'name' 'a\\u2028b' holds a control"),
                          ("judge: openai/x\nname: \"evil\\u202etxt\"\n", r"holds an invisible format character"),
                          # a bad price names the file, its entry and its own key (it was worded as --judge-args)
                          ("judge: openai/x\nprice: {input_per_mtok: -1, output_per_mtok: 4}\n",
                           r"bad.yaml: entry 1: price input_per_mtok=-1: expected a price from 0 to 10,000"),
                          ("judge: openai/x\nprice: {input: abc, output: 4}\n",
                           r"bad.yaml: entry 1: price input='abc': expected a number"),
                          ("judge: openai/x\nprice: {input_per_mtok: true, output: 1}\n", r"price input_per_mtok=True: "
                           "expected a number"),
                          ("judge: openai/x\nprice: {input_per_mtok: 1}\n", "bad.yaml: entry 1: 'price' needs "
                           "input_per_mtok and output_per_mtok, once each"),
                          ("judge: openai/x\nprice: {input: 1, input_per_mtok: 2}\n", "'price' needs input_per_mtok"),
                          # the price in judge_args is checked on reading too, and a long value is cut
                          ("judge: openai/x\njudge_args: {input_cost_per_mtok: -1, output_cost_per_mtok: 1}\n",
                           "bad.yaml: entry 1: judge_args input_cost_per_mtok=-1: expected a price from 0"),
                          ("judge: openai/x\njudge_args: {input_cost_per_mtok: 1}\n",
                           "bad.yaml: entry 1: 'judge_args' gives input_cost_per_mtok alone"),
                          ("judge: openai/x\njudge_args: {input_cost_per_mtok: 1, output_cost_per_mtok: 1}\n"
                           "price: {input: 1, output: 2}\n", "give 'price' or input_cost_per_mtok in 'judge_args', not both"),
                          # a new user's: a price on a built-in judge was worded as --judge-args; a third key
                          ("judge: builtin/longer\nprice: {input: 1, output: 2}\n",
                           "entry 1: built-in judge builtin/longer takes no judge_args or price"),
                          ("judge: openai/x\nprice: {input: 1, output: 2, cached_per_mtok: 3}\n",
                           "'price' has no key 'cached_per_mtok'"),
                          (f"judge: openai/x\nprice: {{input: '{'9' * 5000}', output: 1}}\n",
                           r"price input='9{39}\.\.\. \(4,962 more characters\): expected a price")):
        bad.write_text(text)
        with pytest.raises(JudgebenchError, match=message):
            read_judge_configs(bad)
    # a YAML block scalar ends its text with a line break, which the stored (stripped) name does not keep: no control
    # character (an outside attack saw `name: >` refused); a Python caller's judge_name takes the same check
    bad.write_text("name: >\n  longer (folded)\njudge: builtin/longer\n")
    assert read_judge_configs(bad)[0].name == "longer (folded)"
    bad.write_text("name: \"\\U0001f469\\u200d\\U0001f52c judge\"\njudge: builtin/longer\n")  # an emoji sequence's joiner
    assert read_judge_configs(bad)[0].name == "\U0001f469\u200d\U0001f52c judge"
    from judgebench.judging.pipeline import RunRequest

    with pytest.raises(JudgebenchError, match=r"judge_name: 'evil\\x1b\[31mred\\nline' holds a control character"):
        RunRequest(task="sciarena_eval", judge="builtin/longer", output_path=tmp_path / "o",
                   judge_name="evil\x1b[31mred\nline")


def test_the_configuration_hash_changes_with_answers_not_with_name_price_or_transport() -> None:
    base = config_hash("openai/o4-mini", {"reasoning_effort": "low"}, "p" * 64)
    assert base != config_hash("openai/o4-mini", {"reasoning_effort": "high"}, "p" * 64)
    assert base != config_hash("openai/o4-mini", {"reasoning_effort": "low"}, "q" * 64)
    assert base == config_hash("openai/o4-mini", {"reasoning_effort": "low", "transport": "litellm",
                                                  "input_cost_per_mtok": 1.0, "output_cost_per_mtok": 2.0}, "p" * 64)
    assert display_label("openai/o4-mini", {"reasoning_effort": "high"}) == "openai/o4-mini [reasoning_effort=high]"
    assert display_label("openai/o4-mini", {"reasoning_effort": "high"}, "fast") == "fast"


def test_reask_is_part_of_the_configuration_only_when_given() -> None:
    """A re-asked answer replaces an unparseable one: `--reask` changes answers. Runs without it keep their hash
    (sha256 of the identity without a reask key, as every run before reask counted)."""
    import hashlib

    from judgebench.core.records import RunConfig

    base = config_hash("openai/m", {"temperature": 0}, "p" * 64)
    identity = '{"args":{"temperature":0},"judge":"openai/m","prompt":"' + "p" * 64 + '"}'
    assert base == hashlib.sha256(identity.encode()).hexdigest()[:16] == config_hash("openai/m", {"temperature": 0}, "p" * 64, 0)
    assert len({base, config_hash("openai/m", {"temperature": 0}, "p" * 64, 1),
                config_hash("openai/m", {"temperature": 0}, "p" * 64, 2)}) == 3
    fields = dict(task="t", task_version="1", dataset={"source": "x", "split": "test", "fingerprint": "f"}, judge="openai/m",
                  prompt_template="p", prompt_template_hash="p" * 64, judgebench_version="0", started_at="now")
    assert "reask" not in RunConfig(**fields).model_dump() and RunConfig(**fields, reask=2).model_dump()["reask"] == 2


def test_two_configurations_of_one_model_are_two_named_rows_and_two_entries(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash")) as low, FakeOpenAIServer(Behaviour(answer="[[B]]")) as high:
        for names in (True, False):
            out = tmp_path / f"runs-{names}"
            bases = (low.api_base, high.api_base)
            status = main([*BASE, "--judges-file", str(two_efforts(tmp_path, bases, names=names)),
                           "--output-path", str(out), "--cache-dir", str(tmp_path / "cache")])  # fmt: skip
            assert status == 0, capsys.readouterr().err
        capsys.readouterr()
    named = tmp_path / "runs-True"
    low, high = results(named / "stub-low"), results(named / "stub-high")
    assert (low["config"]["judge_name"], high["config"]["judge_name"]) == ("stub low", "stub high")
    assert low["config"]["judge_config_hash"] != high["config"]["judge_config_hash"]
    summary = json.loads((named / "judges.json").read_text())
    assert [row["name"] for row in summary["judges"]] == ["stub low", "stub high"]

    # unnamed: the label shows the argument that tells the rows apart; judge_args in md, csv and json
    tables, warnings = collect_tables([tmp_path / "runs-False"])
    runs = [row for row in tables["sciarena_eval"] if row["kind"] == "run"]
    assert len({row["label"] for row in runs}) == 2
    assert all(row["label"].startswith("openai/stub-model [") for row in runs)
    assert any("reasoning_effort=high" in row["label"] for row in runs)
    assert all("reasoning_effort=" in row["judge_args"] for row in runs)
    markdown, text = to_markdown("sciarena_eval", tables["sciarena_eval"]), to_csv(tables["sciarena_eval"])
    assert "reasoning\\_effort=high" in markdown or "reasoning_effort=high" in markdown
    assert {r["judge_args"] for r in csv.DictReader(io.StringIO(text)) if r["kind"] == "run"} == {
        row["judge_args"] for row in runs}
    tables, _ = collect_tables([named])
    assert sorted(r["label"] for r in tables["sciarena_eval"] if r["kind"] == "run") == ["stub high", "stub low"]

    # submit: the second configuration does not replace the first
    board = tmp_path / "board"
    first = submit_run(named / "stub-low", board, min_coverage=0.0)
    second = submit_run(named / "stub-high", board, min_coverage=0.0)
    assert first.entry_dir != second.entry_dir and not second.replaced
    assert (first.entry_dir / "results.json").is_file() and (second.entry_dir / "results.json").is_file()
    again = submit_run(named / "stub-low", board, min_coverage=0.0)  # the same configuration replaces itself
    assert again.entry_dir == first.entry_dir and again.replaced and not again.warnings
    data = results(named / "stub-low")  # under another display name (not part of the configuration): said
    data["config"]["judge_name"] = "stub renamed"
    (named / "stub-low" / "results.json").write_text(json.dumps(data))
    renamed = submit_run(named / "stub-low", board, min_coverage=0.0)
    assert renamed.replaced and renamed.warnings == [
        f"entry {first.entry_dir.name} was shown as 'stub low'; this run of the same configuration shows it as 'stub renamed'"]


def test_two_servers_under_one_model_name_never_share_answers(tmp_path: Path, capsys) -> None:
    cache = tmp_path / "cache"
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as one, FakeOpenAIServer(Behaviour(answer="[[B]]")) as two:
        for server, out in ((one, tmp_path / "one"), (two, tmp_path / "two")):
            status = main([*BASE, "--limit", "3", "--judge", "openai/stub-model", "--judge-args",
                           f"api_base={server.api_base},api_key=sk-t", "--output-path", str(out), "--cache-dir", str(cache)])
            assert status == 0, capsys.readouterr().err
        assert one.stats().total == 6 and two.stats().total == 6  # the second server got every call
    capsys.readouterr()
    verdicts = {name: {json.loads(line)["verdict_shown"] for line in (tmp_path / name / "samples.jsonl").read_text().splitlines()}
                for name in ("one", "two")}
    assert verdicts == {"one": {"A"}, "two": {"B"}}
    tables, _ = collect_tables([tmp_path / "one", tmp_path / "two"])
    labels = sorted(r["label"] for r in tables["sciarena_eval"] if r["kind"] == "run")
    assert len(set(labels)) == 2 and all(label.startswith("openai/stub-model [api_base=http://127.0.0.1:") for label in labels)


def test_header_values_and_the_endpoint_are_in_the_cache_identity_never_in_clear() -> None:
    plain = make_judge("openai/gpt-4.1", {"temperature": "0"}).cache_identity()
    assert plain == {"judge": "openai/gpt-4.1", "args": {"temperature": 0.0}, "header_names": []}  # unchanged: old caches stay valid
    a = make_judge("openai/m", {"api_base": "http://h:1/v1", "extra_headers.X-Tenant": "alpha-secret"}).cache_identity()
    b = make_judge("openai/m", {"api_base": "http://h:1/v1", "extra_headers.X-Tenant": "beta-secret"}).cache_identity()
    c = make_judge("openai/m", {"api_base": "http://h:2/v1", "extra_headers.X-Tenant": "alpha-secret"}).cache_identity()
    assert a != b and a != c and a["endpoint"] == "http://h:1/v1"
    assert "alpha-secret" not in json.dumps(a)
    moved = make_judge("openai/m", {"api_base": "http://h:2/v1", "endpoint_fingerprint": "lab-vllm"}).cache_identity()
    same = make_judge("openai/m", {"api_base": "http://h:3/v1", "endpoint_fingerprint": "lab-vllm"}).cache_identity()
    assert moved == same and moved["endpoint"] == "fingerprint:lab-vllm"
    keyed = make_judge("openai/m", {"api_base": "https://u:pw@h/v1?key=abc"}).cache_identity()
    assert "pw" not in keyed["endpoint"] and "abc" not in keyed["endpoint"]


def test_an_endpoint_from_the_environment_or_told_apart_by_a_hidden_part_is_its_own_identity(monkeypatch) -> None:
    """An outside attack: a judge whose server came from litellm's environment variable (HOSTED_VLLM_API_BASE,
    OPENAI_BASE_URL) had the default endpoint's identity, and two servers whose URLs differ only in a part shown as
    *** (a query value, a key-like path segment) had one identity: the second server's run was served the first's
    answers from the cache, under one configuration hash."""
    from judgebench.judges.config import configuration_hash

    def judge(model: str, **args: str):
        return make_judge(model, args)

    for name in ("HOSTED_VLLM_API_BASE", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    plain = judge("openai/gpt-4.1").cache_identity()
    monkeypatch.setenv("HOSTED_VLLM_API_BASE", "http://127.0.0.1:8791/v1/")
    one = judge("hosted_vllm/stub")
    monkeypatch.setenv("HOSTED_VLLM_API_BASE", "http://127.0.0.1:8792/v1")
    two = judge("hosted_vllm/stub")
    assert one.cache_identity()["endpoint"] == "http://127.0.0.1:8791/v1" and one.cache_identity() != two.cache_identity()
    assert two.public_args() == {"api_base": "http://127.0.0.1:8792/v1"}  # results.json says where the calls went
    assert configuration_hash(one, "p") != configuration_hash(two, "p")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8793/v1")
    assert judge("openai/gpt-4.1").cache_identity()["endpoint"] == "http://127.0.0.1:8793/v1" != plain.get("endpoint")
    assert judge("openai/gpt-4.1", api_base="http://h:1/v1").cache_identity()["endpoint"] == "http://h:1/v1"  # the flag wins
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert judge("openai/gpt-4.1").cache_identity() == plain  # no address anywhere: the identity it always had
    # a second attack: providers whose variable is not PROVIDER_API_BASE (litellm's own names)
    for model, variable in (("ollama_chat/llama3", "OLLAMA_API_BASE"), ("anthropic/claude-x", "ANTHROPIC_BASE_URL"),
                            ("text-completion-openai/gpt-3.5-turbo-instruct", "OPENAI_BASE_URL"),
                            ("huggingface/org/m", "HF_API_BASE"), ("fireworks_ai/m", "FIREWORKS_API_BASE"),
                            ("vertex_ai/gemini-x", "VERTEXAI_API_BASE"), ("bedrock/m", "AWS_BEDROCK_RUNTIME_ENDPOINT")):
        monkeypatch.setenv(variable, "http://127.0.0.1:8801")
        first = judge(model).cache_identity()
        monkeypatch.setenv(variable, "http://127.0.0.1:8802")
        assert first != judge(model).cache_identity() and first["endpoint"] == "http://127.0.0.1:8801", model
        monkeypatch.delenv(variable)

    prod, other = (judge("openai/m", api_base=f"http://h:1/v1?deployment={d}") for d in ("prod1234", "Z9y8x7w6"))
    assert prod.public_args() == other.public_args()  # both shown as ?deployment=***
    assert prod.cache_identity() != other.cache_identity() and configuration_hash(prod, "p") != configuration_hash(other, "p")
    assert "prod1234" not in json.dumps(prod.cache_identity()) and "Z9y8x7w6" not in json.dumps(other.cache_identity())
    paths = [judge("openai/m", api_base=f"http://h:1/dep/{t}/v1") for t in ("A1b2C3d4E5f6G7h8I9j0K1", "Z9y8X7w6V5u4T3s2R1q0P9")]
    assert paths[0].cache_identity() != paths[1].cache_identity()
    named = [judge("openai/m", api_base=f"http://h:1/v1?deployment={d}", endpoint_fingerprint="lab") for d in ("p1234", "q5678")]
    assert named[0].cache_identity() == named[1].cache_identity()  # a fingerprint names the server: one endpoint
    assert judge("openai/m", api_base="http://h:1/v1").cache_identity().get("endpoint_secrets_sha256") is None


def test_two_servers_named_by_the_environment_share_no_answer(tmp_path: Path, monkeypatch, capsys) -> None:
    """The attack end to end: the second server's run had answered from the first's cache (96 from cache, accuracy
    1.000 against 0.500 with --no-cache)."""
    cache = tmp_path / "cache"
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as one, FakeOpenAIServer(Behaviour(answer="[[B]]")) as two:
        for server, out in ((one, "one"), (two, "two")):
            monkeypatch.setenv("HOSTED_VLLM_API_BASE", server.api_base)
            assert main([*BASE, "--limit", "2", "--judge", "hosted_vllm/stub", "--output-path", str(tmp_path / out),
                         "--cache-dir", str(cache)]) == 0
        assert one.stats().total == two.stats().total == 4  # each server answered its own run
    configs = [results(tmp_path / out)["config"] for out in ("one", "two")]
    assert [c["judge_args"]["api_base"] for c in configs] == [one.api_base, two.api_base]
    assert configs[0]["judge_config_hash"] != configs[1]["judge_config_hash"]


def test_a_corrected_price_applies_to_cached_answers(tmp_path: Path, capsys) -> None:
    """An outside attack: a price corrected after the answers were cached was ignored (the cost stayed the first
    price's, beside judge_args naming the new one), and a price added to a cached judge left its cost unknown. The
    price is not part of the configuration, so the cached answers take the price the configuration gives now."""
    cache = tmp_path / "cache"
    costs = {}
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        for out, price in (("first", ""), ("priced", ",input_cost_per_mtok=3,output_cost_per_mtok=15"),
                           ("corrected", ",input_cost_per_mtok=1,output_cost_per_mtok=5")):
            assert main([*BASE, "--limit", "3", "--judge", "openai/stub-model", "--judge-args",
                         f"api_base={server.api_base},api_key=sk-t{price}", "--output-path", str(tmp_path / out),
                         "--cache-dir", str(cache)]) == 0
            samples = [json.loads(line) for line in (tmp_path / out / "samples.jsonl").read_text().splitlines()]
            costs[out] = [(s["tokens_in"], s["tokens_out"], s["cost_usd"], s["cached"]) for s in samples]
        assert server.stats().total == 6  # only the first run called: the others are the cache's answers
    assert all(cost is None for _, _, cost, _ in costs["first"])  # no price anywhere (a local model)
    for out, (per_in, per_out) in (("priced", (3, 15)), ("corrected", (1, 5))):
        assert all(cached for *_, cached in costs[out])
        assert [cost for _, _, cost, _ in costs[out]] == pytest.approx(
            [(t_in * per_in + t_out * per_out) / 1e6 for t_in, t_out, _, _ in costs[out]])
        assert results(tmp_path / out)["usage"]["cost_usd"] == pytest.approx(sum(c for _, _, c, _ in costs[out]))


def test_python_numbers_are_the_configuration_the_command_line_gives(tmp_path: Path, capsys) -> None:
    """An outside check: `evaluate(..., judge_args={"temperature": 0})` stored 0 where `--judge-args temperature=0`
    stores 0.0: two configuration hashes, two board rows and every call paid again past the CLI's cache."""
    import judgebench

    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        assert main([*BASE, "--limit", "3", "--judge", "openai/m", "--judge-args",
                     f"api_base={server.api_base},api_key=sk-t,temperature=0,max_tokens=64", "--output-path",
                     str(tmp_path / "cli"), "--cache-dir", str(tmp_path / "cache")]) == 0
        judgebench.evaluate("sciarena_eval", "openai/m", output_path=tmp_path / "py", demo=True, limit=3,
                            judge_args={"api_base": server.api_base, "api_key": "sk-t", "temperature": 0,
                                        "max_tokens": 64.0},
                            runner=judgebench.calls.RunnerOptions(cache_dir=tmp_path / "cache", progress=False))
        assert server.stats().total == 6  # the Python run's answers all came from the CLI run's cache
    cli, py = results(tmp_path / "cli")["config"], results(tmp_path / "py")["config"]
    assert py["judge_args"] == cli["judge_args"] and py["judge_args"]["temperature"] == 0.0
    assert py["judge_args"]["max_tokens"] == 64 and py["judge_config_hash"] == cli["judge_config_hash"]
    for bad, says in (({"temperature": True}, "temperature=True: expected a number"),
                      ({"max_tokens": 64.5}, "max_tokens=64.5: expected an integer"),
                      ({"temperature": 10**400}, "temperature: an integer too large for a number"),  # (an OverflowError traceback)
                      ({"max_tokens": 2**70}, "max_tokens: an integer past 64 bits"),
                      ({"max_tokens": float("inf")}, "max_tokens=inf: expected an integer")):
        with pytest.raises(JudgebenchError, match=says):
            judgebench.evaluate("sciarena_eval", "openai/m", output_path=tmp_path / "x", demo=True, judge_args=bad)


def test_two_prompt_templates_of_one_judge_are_labelled_by_their_names(tmp_path: Path, capsys) -> None:
    """An outside check: two configurations differing only in their prompt were labelled by hashes alone
    (`... #cc14bef1`, `... #b92e1cea`); unreadable without the table's every column."""
    prompts = Path(__file__).resolve().parents[2] / "prompts"
    custom = tmp_path / "my_sci.yaml"
    text = (prompts / "sciarena_pairwise.yaml").read_text()
    custom.write_text(text.replace("name: sciarena_pairwise", "name: my_sci", 1).replace("{{ question }}", "Q: {{ question }}", 1))
    for folder, extra in (("bundled", []), ("custom", ["--prompt", str(custom)])):
        assert main([*BASE, "--judge", "builtin/longer", "--output-path", str(tmp_path / folder), *extra]) == 0
    tables, _ = collect_tables([tmp_path / "bundled", tmp_path / "custom"])
    labels = sorted(r["label"] for r in tables["sciarena_eval"] if r["judge"] == "builtin/longer")
    assert labels == ["builtin/longer [prompt=my_sci]", "builtin/longer [prompt=sciarena_pairwise]"]


def test_a_cached_rerun_reports_the_same_cost_as_the_first_run(tmp_path: Path, capsys) -> None:
    price = "input_cost_per_mtok=1.5,output_cost_per_mtok=6"
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        for out in ("first", "again"):
            status = main([*BASE, "--limit", "3", "--judge", "openai/self-hosted", "--judge-args",
                           f"api_base={server.api_base},api_key=sk-t,{price}", "--output-path", str(tmp_path / out),
                           "--cache-dir", str(tmp_path / "cache")])  # fmt: skip
            assert status == 0
        assert server.stats().total == 6  # the rerun made no call
    printed = capsys.readouterr().out
    first, again = results(tmp_path / "first")["usage"], results(tmp_path / "again")["usage"]
    assert first["cost_usd"] > 0 and again["cost_usd"] == pytest.approx(first["cost_usd"])
    assert again["tokens_in"] == first["tokens_in"] and again["latency_p50_s"] is not None
    assert (first["cached_calls"], again["cached_calls"]) == (0, 6)
    assert again["cached_cost_usd"] == pytest.approx(first["cost_usd"])
    assert "tokens " in printed and f"cost ${first['cost_usd']:.4f}" in printed and "from the cache, not paid again" in printed
    assert results(tmp_path / "first")["config"]["judge_args"]["input_cost_per_mtok"] == 1.5


def test_a_self_hosted_judge_with_a_price_is_capped_by_max_cost(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        status = main([*BASE, "--limit", "10", "--judge", "openai/self-hosted", "--judge-args",
                       f"api_base={server.api_base},api_key=sk-t,max_tokens=64,input_cost_per_mtok=10,output_cost_per_mtok=10",
                       "--max-cost", "0.02", "--concurrency", "1", "--output-path", str(tmp_path / "run"),
                       "--cache-dir", str(tmp_path / "cache")])  # fmt: skip
        sent = server.stats().total
    err = capsys.readouterr().err
    assert status == 1 and 0 < sent < 20 and "max cost" in err
    assert results(tmp_path / "run")["usage"]["cost_usd"] <= 0.02


def test_a_price_needs_both_halves(tmp_path: Path, capsys) -> None:
    status = main([*BASE, "--judge", "openai/x", "--judge-args", "api_base=http://127.0.0.1:9/v1,input_cost_per_mtok=1",
                   "--output-path", str(tmp_path / "o"), "--no-cache"])
    assert status == 2 and "give both input_cost_per_mtok and output_cost_per_mtok" in capsys.readouterr().err



@pytest.mark.parametrize("value", ["1e308", "-1", "nan", "10001"])
def test_a_price_past_any_real_one_is_refused(tmp_path: Path, capsys, value: str) -> None:
    """An outside attack: 1e308 was taken and printed a cost of 300 digits."""
    status = main([*BASE, "--judge", "openai/x", "--judge-args", f"api_base=http://127.0.0.1:9/v1,input_cost_per_mtok={value},"
                   "output_cost_per_mtok=1", "--output-path", str(tmp_path / "o"), "--no-cache"])
    assert status == 2 and "expected a price from 0 to 10,000 (USD per million tokens)" in capsys.readouterr().err


def test_a_limited_run_is_marked_and_never_ranked_among_full_runs(tmp_path: Path, capsys) -> None:
    assert main([*BASE, "--judge", "builtin/always-a", "--output-path", str(tmp_path / "full")]) == 0
    assert main([*BASE, "--limit", "0.1", "--judge", "builtin/longer", "--output-path", str(tmp_path / "part")]) == 0
    printed = capsys.readouterr().out
    assert "subset: 5 examples (--limit 0.1), not ranked among full runs" in printed
    config = results(tmp_path / "part")["config"]
    assert (config["limit"], config["limit_fraction"]) == (5, 0.1)
    tables, _ = collect_tables([tmp_path / "full", tmp_path / "part"])
    rows = tables["sciarena_eval"]
    part = next(r for r in rows if r["judge"] == "builtin/longer" and r["kind"] != "run" and "subset" in r)
    full = next(r for r in rows if r["judge"] == "builtin/always-a")
    assert part["subset"] == "subset: 5 examples (--limit 0.1)" and "subset" not in full
    assert rows.index(part) > rows.index(full)
    markdown = to_markdown("sciarena_eval", rows)
    assert "not ranked" in markdown and markdown.index("builtin/always-a") < markdown.index("not ranked")
    assert main([*BASE, "--limit", "1.5", "--judge", "builtin/longer", "--output-path", str(tmp_path / "x")]) == 2
    assert "fraction between 0 and 1" in capsys.readouterr().err


def test_judge_accepts_a_configuration_file(tmp_path: Path, capsys) -> None:
    config = tmp_path / "judge.yaml"
    config.write_text("name: longest answer\njudge: builtin/longer\n")
    assert main([*BASE, "--limit", "3", "--judge", str(config), "--output-path", str(tmp_path / "o")]) == 0
    assert "judge builtin/longer (longest answer)" in capsys.readouterr().out
    assert results(tmp_path / "o")["config"]["judge_name"] == "longest answer"


def test_the_cache_never_stores_header_values(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        assert main([*BASE, "--limit", "2", "--judge", "openai/m", "--judge-args",
                     f"api_base={server.api_base},api_key=sk-t,extra_headers.X-Tenant=tenant-PLANTED",
                     "--output-path", str(tmp_path / "o"), "--cache-dir", str(tmp_path / "cache")]) == 0
    capsys.readouterr()
    dump = "\n".join(sqlite3.connect(tmp_path / "cache" / CACHE_FILENAME).iterdump())
    assert "tenant-PLANTED" not in dump
    assert "tenant-PLANTED" not in (tmp_path / "o" / "results.json").read_text()


def test_answers_reused_under_a_shared_fingerprint_from_another_endpoint_are_named(tmp_path: Path, capsys) -> None:
    cache = tmp_path / "cache"
    with FakeOpenAIServer(Behaviour(answer="@hash")) as one, FakeOpenAIServer(Behaviour(answer="@hash")) as two:
        for server, out in ((one, "one"), (two, "two")):
            assert main([*BASE, "--limit", "2", "--judge", "openai/m", "--judge-args",
                         f"api_base={server.api_base},api_key=sk-t,endpoint_fingerprint=lab-vllm",
                         "--output-path", str(tmp_path / out), "--cache-dir", str(cache)]) == 0
        assert two.stats().total == 0  # the fingerprint says they are one endpoint: answers reused
    err = capsys.readouterr().err
    assert "4 answers from the cache were recorded under another endpoint" in err and one.api_base in err


def test_a_full_cache_disk_after_a_rerun_does_not_turn_its_success_into_bad_input(tmp_path: Path, capsys,
                                                                                  monkeypatch) -> None:
    """An outside attack: a rerun whose cache disk filled as it ended wrote its results, then exited 2 ("cache ...:
    database or disk is full ... or delete the file": bad input, and advice that throws away every paid answer),
    from the endpoint note reopening the cache (its schema and probe writes) after the results were written. The
    note is skipped when the cache cannot be opened."""
    from judgebench.calls import dispatch
    from judgebench.core.errors import JudgebenchError

    cache = tmp_path / "cache"
    with FakeOpenAIServer(Behaviour(answer="@hash")) as server:
        args = [*BASE, "--limit", "2", "--judge", "openai/m", "--judge-args",
                f"api_base={server.api_base},api_key=sk-t", "--cache-dir", str(cache)]
        assert main([*args, "--output-path", str(tmp_path / "one")]) == 0
        opened = []
        real = dispatch.ReplyCache

        def full_after_the_check(directory):  # type: ignore[no-untyped-def]
            import sys

            opened.append(sys._getframe(1).f_code.co_name)
            if opened[-1] == "cache_endpoint_note":  # the disk filled once the run's answers were in
                raise JudgebenchError(f"cache {directory}: database or disk is full (use another --cache-dir)")
            return real(directory)

        monkeypatch.setattr(dispatch, "ReplyCache", full_after_the_check)
        capsys.readouterr()
        assert main([*args, "--output-path", str(tmp_path / "two")]) == 0
        assert "cache_endpoint_note" in opened and server.stats().total == 4  # the second run: all from the cache
    assert "disk is full" not in capsys.readouterr().err and (tmp_path / "two" / "results.json").is_file()


def test_a_panel_of_two_servers_under_one_model_name_tells_its_members_apart(tmp_path: Path, capsys) -> None:
    with FakeOpenAIServer(Behaviour(answer="@hash")) as one, FakeOpenAIServer(Behaviour(answer="[[A]]")) as two:
        config = tmp_path / "panel.yaml"
        config.write_text("".join(f"- judge: openai/stub-model\n  judge_args: {{api_base: '{s.api_base}', api_key: sk-t}}\n"
                                  for s in (one, two)) + "- builtin/longer\n")
        status = main([*BASE, "--limit", "4", "--judges-file", str(config), "--panel", "majority",
                       "--output-path", str(tmp_path / "o"), "--cache-dir", str(tmp_path / "cache")])
    assert status == 0, capsys.readouterr().err
    panel = results(tmp_path / "o" / "panel")
    members = panel["config"]["members"]
    assert members[0]["config_hash"] != members[1]["config_hash"]
    labels = [f["judge"] for f in panel["panel"]["figures"][1:]]
    assert len(set(labels)) == 3 and labels[0].startswith("openai/stub-model #")
    assert labels[1].startswith("openai/stub-model #")  # both tagged (the first of two alike used to keep its bare id)
    printed = capsys.readouterr().out  # the kappa matrix's rows carry the same labels, not the model id twice
    assert all(f"  {label}\n" in printed for label in labels), printed


def test_panel_member_labels_are_distinct_whatever_the_names() -> None:
    """An outside attack: a member named `ci-judge #2706c3e8` beside the member that hash names printed two rows
    `ci-judge #2706c3e8`, and of two alike only the first got its hash."""
    from types import SimpleNamespace

    from judgebench.judges.config import member_labels

    def member(name, judge, digest):
        return SimpleNamespace(name=name, judge=judge, config_hash=digest)

    forged = [member("ci-judge #2706c3e8", "openai/a", "aaaa1111bbbb2222"),
              member("ci-judge", "openai/s", "2706c3e8cccc3333"), member("ci-judge", "openai/s", "9999888877776666")]
    assert member_labels(forged) == ["ci-judge #2706c3e8 #aaaa1111bbbb2222", "ci-judge #2706c3e8cccc3333",
                                     "ci-judge #99998888"]
    assert member_labels([member(None, "x", "h1"), member(None, "x", "h1"), member(None, "y", None)]) == ["x #1", "x #2", "y"]
    assert member_labels([member(None, "x", "abc"), member(None, "y", "abc")]) == ["x", "y"]
    # a second attack: one configuration twice beside a member named as the second one's place-tagged label
    twice = member_labels([member(None, "X", "h1"), member(None, "X", "h1"), member("X #2", "b", "h3")])
    assert twice == ["X #1", "X #2 #2", "X #2 #3"]


def test_gold_label_data_is_called_gold_in_the_report(tmp_path: Path, capsys) -> None:
    """Issue 29 item 6: a task field says whether its labels are human votes or objective gold answers."""
    from judgebench.publish.report import write_report

    assert main([*BASE, "--limit", "6", "--judge", "builtin/longer", "--output-path", str(tmp_path / "run")]) == 0
    capsys.readouterr()
    human = write_report(tmp_path / "run", tmp_path / "human").read_text()
    assert "Human label vs judge verdict" in human
    task = tmp_path / "run" / "task.yaml"
    task.write_text(task.read_text() + "\nlabel_source: gold\n")
    gold = write_report(tmp_path / "run", tmp_path / "gold").read_text()
    assert "Gold label vs judge verdict" in gold and "Human label" not in gold


def test_tables_show_a_local_data_path_short_and_a_published_board_never_holds_it(tmp_path: Path) -> None:
    from judgebench.publish.html import to_html
    from judgebench.publish.tables import write_leaderboards

    local = "/home/someone/projects/very/long/local/folder/of/data/my_split.jsonl:test@unpinned"
    row = {"kind": "run", "judge": "openai/x", "label": "openai/x", "dataset": local, "accuracy": 61.25,
           "accuracy_ci": [53.75, 68.5], "coverage_pct": 100.0, "examples": 40}
    markdown, page = to_markdown("sciarena_eval", [row]), to_html({"sciarena_eval": [row]}, verified=False)
    assert "## Data: my_split.jsonl:test\\@unpinned" in markdown and "/home/someone" not in markdown
    assert f'title="{local}"' in page  # a local board: the full source on hover
    published = to_html({"sciarena_eval": [row]}, verified=True)
    assert "/home/someone" not in published
    write_leaderboards({"sciarena_eval": [row]}, tmp_path / "board", managed=True)
    for name in ("sciarena_eval.json", "sciarena_eval.csv", "sciarena_eval.md", "index.html"):
        assert "/home/someone" not in (tmp_path / "board" / name).read_text(), name
    text = (tmp_path / "board" / "sciarena_eval.csv").read_text()
    header, line = text.splitlines()[:2]
    assert "accuracy_ci_low" in header and "accuracy_ci_high" in header and "[" not in line


def test_dry_run_prices_a_self_hosted_judge_given_a_price(tmp_path: Path, capsys) -> None:
    args = "api_base=http://127.0.0.1:9/v1,max_tokens=64"
    assert main([*BASE, "--limit", "2", "--judge", "openai/self-hosted", "--judge-args", args, "--dry-run", "--no-cache",
                 "--output-path", str(tmp_path / "a")]) == 0
    assert "estimated cost: unpriced" in capsys.readouterr().out
    config = tmp_path / "priced.yaml"
    config.write_text(f"name: local qwen\njudge: openai/self-hosted\njudge_args: '{args}'\n"
                      "price: {input_per_mtok: 2, output_per_mtok: 8}\n")
    assert main([*BASE, "--limit", "2", "--judge", str(config), "--dry-run", "--no-cache", "--output-path", str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "estimated cost: $" in out and "local qwen (openai/self-hosted)" in out


def test_an_empty_judge_value_is_no_judge_not_the_current_folder(tmp_path: Path, capsys, monkeypatch) -> None:
    """`--judge ""` read the current folder as a folder of configurations ("--judge .: the folder holds no .yaml
    judge configuration"); it is a judge id that names nothing."""
    monkeypatch.chdir(tmp_path)
    for value in ("", "  "):
        assert main(["run", "--tasks", "sciarena_eval", "--demo", "--judge", value, "--output-path", "o", "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"judge {value!r}: expected a litellm model id" in err and "folder" not in err


def test_two_runs_that_differ_in_reask_are_two_labelled_rows(tmp_path: Path) -> None:
    import judgebench
    from judgebench.calls import RunnerOptions

    for name, reask in (("plain", 0), ("reasked", 2)):
        judgebench.evaluate("sciarena_eval", "builtin/longer", output_path=tmp_path / name, demo=True,
                            runner=RunnerOptions(reask=reask, progress=False), n_resamples=0)
    tables, _ = collect_tables([tmp_path / "plain", tmp_path / "reasked"])
    labels = sorted(row["label"] for row in tables["sciarena_eval"] if row["judge"] == "builtin/longer")
    assert labels == ["builtin/longer [defaults]", "builtin/longer [reask=2]"]


def test_a_configuration_names_its_prompt_as_runs_name_it(tmp_path: Path, capsys) -> None:
    """running-judges.md's example says `prompt: sciarena_pairwise`, as runs and tables name the template; only
    `sciarena_pairwise.yaml` was found."""
    hashes = []
    for prompt in ("sciarena_pairwise", "sciarena_pairwise.yaml"):
        config = tmp_path / f"judge-{len(hashes)}.yaml"
        config.write_text(f"judge: builtin/longer\nprompt: {prompt}\n")
        out = tmp_path / f"run-{len(hashes)}"
        assert main(["run", "--tasks", "sciarena_eval", "--judge", str(config), "--demo", "--output-path", str(out)]) == 0
        hashes.append(json.loads((out / "results.json").read_text())["config"]["prompt_template_hash"])
    assert hashes[0] == hashes[1]
    capsys.readouterr()
    assert main(["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--prompt", "no_such_template", "--demo",
                 "--output-path", str(tmp_path / "none")]) == 2
    assert "prompt template 'no_such_template' not found" in capsys.readouterr().err


def test_a_template_named_without_suffix_is_found_everywhere_a_name_is_read(tmp_path: Path, monkeypatch) -> None:
    """`--prompt mine` beside ./mine.yaml, a dotted name, and a registered task's suffix-less prompt at submit
    (run took it, submit refused the template as unregistered): one rule, judging.prompts.template_files."""
    from judgebench.judging.prompts import find_prompt, template_files
    from judgebench.publish.board import registered_templates
    from judgebench.tasks.registry import get_task

    source = (Path(__file__).resolve().parents[2] / "prompts" / "sciarena_pairwise.yaml").read_text()
    for name in ("mine.yaml", "x.v2.yaml"):
        (tmp_path / name).write_text(source)
    monkeypatch.chdir(tmp_path)
    assert template_files("x.v2") == ["x.v2", "x.v2.yaml"] and template_files("a.yml") == ["a.yml"]
    assert find_prompt("mine") == Path("mine.yaml") and find_prompt("x.v2") == Path("x.v2.yaml")
    with pytest.raises(JudgebenchError, match=r"'nothing' not found \(looked in the current folder, .*prompts"):
        find_prompt("nothing", tmp_path)
    spec = get_task("sciarena_eval").model_copy(update={"source_file": str(tmp_path / "mine_task.yaml"), "prompt": "mine"})
    assert (tmp_path / "mine.yaml").resolve() in registered_templates(spec, None)


def test_every_reader_of_a_run_names_its_configuration(tmp_path: Path, capsys) -> None:
    """An audit: two configurations of one model (and one configuration under two names) read alike in `report`
    (title, diagnostics.json), the export card and the viewer, which named the model id and the folder only."""
    from judgebench.publish.export import export_hf
    from judgebench.publish.report import write_report
    from judgebench.publish.viewer.data import build_view

    with FakeOpenAIServer(Behaviour(answer="@hash")) as low, FakeOpenAIServer(Behaviour(answer="[[B]]")) as high:
        out = tmp_path / "runs"
        assert main([*BASE, "--limit", "4", "--judges-file", str(two_efforts(tmp_path, (low.api_base, high.api_base), names=True)),
                     "--output-path", str(out), "--cache-dir", str(tmp_path / "cache")]) == 0
    capsys.readouterr()
    runs = [out / "stub-low", out / "stub-high"]
    hashes = [results(run)["config"]["judge_config_hash"] for run in runs]
    for run, name, digest in zip(runs, ("stub low", "stub high"), hashes):
        text = write_report(run).read_text()
        assert text.startswith(f"# Judge diagnostics: openai/stub-model ({name}) on sciarena_eval\n")
        line = next(line for line in text.splitlines() if line.startswith(f"- Judge configuration {digest}: api_base="))
        assert f"reasoning_effort={name.split()[1]}" in line and "sk-t" not in line
        diag = json.loads((run / "report" / "diagnostics.json").read_text())
        assert (diag["judge_name"], diag["config_hash"]) == (name, digest) and "api_key" not in json.dumps(diag)
    export_hf(runs[1], tmp_path / "card")
    card = (tmp_path / "card" / "README.md").read_text()
    assert "judged by openai/stub-model (stub high)" in card and f"stub high; hash {hashes[1]}" in card
    assert main(["compare", str(runs[0]), str(runs[1]), "--output", str(tmp_path / "c.json")]) == 0
    assert "(openai/stub-model (stub low)) vs candidate" in capsys.readouterr().out
    sides = json.loads((tmp_path / "c.json").read_text())
    assert [(sides[k]["judge_name"], sides[k]["config_hash"]) for k in ("baseline", "candidate")] == list(zip(("stub low", "stub high"), hashes))
    meta = build_view(runs).meta()
    assert [r["label"] for r in meta["runs"]] == [f"openai/stub-model ({n}) #{h[:8]}" for n, h in zip(("stub low", "stub high"), hashes)]


def test_a_display_name_never_reads_as_another_rows_label() -> None:
    """An audit: a run named `Same #<the other configuration's hash>` and one named as a baseline row kept those
    labels (two rows read alike); one configuration on two datasets keeps one label."""
    from judgebench.publish.leaderboard import ARGS_KEY, label_rows

    def run(label: str, digest: str, name: str | None = None) -> dict:
        return {"kind": "run", "judge": "openai/m", "label": label, "name": name, "config_hash": digest * 16, ARGS_KEY: {}}

    rows = [run("Same", "a", "Same"), run("Same", "b", "Same"), run("Same #bbbbbbbb", "c", "Same #bbbbbbbb"),
            run("always-longer", "d", "always-longer"), run("Same", "a", "Same"),
            {"kind": "baseline", "judge": "always-longer"}, {"kind": "reported", "judge": "o4-mini"},
            run("o4-mini", "e", "o4-mini")]  # (baseline and reported rows have no label: the tables print their judge)
    label_rows(rows)
    labels = [row.get("label") or row["judge"] for row in rows]
    assert labels[0] == labels[4]  # one configuration, one label (two datasets' sections)
    by_identity = {row.get("config_hash", row["judge"]): label for row, label in zip(rows, labels)}
    assert len(set(by_identity.values())) == len(by_identity) == 7, labels
    assert labels[5] == "always-longer" and labels[3] == "always-longer #dddddddd"
    assert labels[6] == "o4-mini" and labels[7] == "o4-mini #eeeeeeee"
