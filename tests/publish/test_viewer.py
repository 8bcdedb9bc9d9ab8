"""The run viewer (issue 31): filters and counts on hand-built records, hostile text kept as text in the
bundle and the served page, the bundle's chunk size cap, the server's endpoints."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from judgebench.core.files import write_json, write_models_jsonl
from judgebench.core.records import (
    Counts,
    DatasetInfo,
    JudgmentRecord,
    RunConfig,
    RunResult,
    Usage,
)
from judgebench.core.files import current_umask
from judgebench.publish.viewer.bundle import write_bundle
from judgebench.publish.viewer.data import (
    Filters,
    build_view,
    confusion,
    example_detail,
    filter_rows,
    flag_counts,
)
from judgebench.publish.viewer.serve import make_server

HOSTILE_Q = '<script>window.__pwned=1</script> What? <img src=x onerror="window.__pwned=2">'
HOSTILE_A = '**bold** [click](javascript:window.__pwned=3) <iframe src="javascript:1"></iframe>\n```\n<script>x()</script>\n```'
HOSTILE_RAW = '</pre><script>window.__pwned=4</script>[[A]]'


def rec(example: str, order: str, verdict: str | None, label: str, *, status: str = "ANSWERED", judge: str = "j/one",
        subject: str = "bio", dimension: str = "overall", votes=None, **extra) -> JudgmentRecord:
    shown = verdict if order == "AB" or verdict in (None, "TIE") else {"A": "B", "B": "A"}[verdict]
    return JudgmentRecord(
        task="demo", example_id=example, dimension=dimension, order=order, judge=judge, prompt_hash="h",
        status=status, raw=extra.pop("raw", f"[[{shown}]]" if verdict else "no idea"),
        verdict_shown=shown if status == "ANSWERED" else None, verdict=verdict if status == "ANSWERED" else None,
        label=label, length_a=10, length_b=20, slices={"subject": subject}, votes=votes,
        question=extra.pop("question", f"question of {example}"), response_a=extra.pop("response_a", "answer a"),
        response_b="answer b", cost_usd=0.002, latency_s=1.5, **extra)


def write_run(folder: Path, records: list[JudgmentRecord], judge: str = "j/one") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write_models_jsonl(folder / "samples.jsonl", records)
    config = RunConfig(task="demo", task_version="1", dataset=DatasetInfo(source="x", split="test", fingerprint="f"),
                       judge=judge, prompt_template="p", prompt_template_hash="h", judgebench_version="0",
                       started_at="2026-01-01T00:00:00Z")
    n = len(records)
    write_json(folder / "results.json", RunResult(
        config=config, metrics={}, usage=Usage(),
        counts=Counts(examples=n // 2, calls=n, answered=n, invalid=0, failed=0, coverage=1.0)).model_dump(mode="json"))
    return folder


def hand_records(judge: str = "j/one") -> list[JudgmentRecord]:
    """e1 agrees; e2 disagrees in both orders; e3 flips (AB agrees, BA not); e4 invalid in BA (truncated);
    e5 failed in AB; e6 (slice cs) disagrees with the label but agrees with the annotators' majority."""
    r = lambda *a, **k: rec(*a, judge=judge, **k)
    return [
        r("e1", "AB", "A", "A"), r("e1", "BA", "A", "A"),
        r("e2", "AB", "B", "A"), r("e2", "BA", "B", "A"),
        r("e3", "AB", "A", "A"), r("e3", "BA", "B", "A"),
        r("e4", "AB", "B", "B"), r("e4", "BA", None, "B", status="INVALID", invalid_reason="truncated", finish_reason="length"),
        r("e5", "AB", None, "TIE", status="FAILED", error="timeout", failure="error"), r("e5", "BA", "TIE", "TIE"),
        r("e6", "AB", "B", "A", subject="cs", votes={"u1": ["B"], "u2": ["B"], "u3": ["A"]}),
        r("e6", "BA", "B", "A", subject="cs", votes={"u1": ["B"], "u2": ["B"], "u3": ["A"]}),
    ]


@pytest.fixture()
def one_run(tmp_path):
    return write_run(tmp_path / "one", hand_records())


def ids(rows) -> list[str]:
    return [r["id"] for r in rows]


def test_rows_codes_and_single_filters(one_run):
    view = build_view([one_run])
    assert [(r["id"], r["v"][0], r["label"], r["maj"]) for r in view.rows] == [
        ("e1", "AA", "A", ""), ("e2", "BB", "A", ""), ("e3", "AB", "A", ""), ("e4", "Bi", "B", ""),
        ("e5", "fT", "T", ""), ("e6", "BB", "A", "B")]
    assert ids(filter_rows(view, Filters(flags=("disagree_label",)))) == ["e2", "e3", "e6"]
    assert ids(filter_rows(view, Filters(flags=("disagree_majority",)))) == []
    assert ids(filter_rows(view, Filters(flags=("flip",)))) == ["e3"]
    assert ids(filter_rows(view, Filters(flags=("invalid",)))) == ["e4"]
    assert ids(filter_rows(view, Filters(flags=("failed",)))) == ["e5"]
    assert ids(filter_rows(view, Filters(reason="truncated"))) == ["e4"]
    assert ids(filter_rows(view, Filters(reason="error"))) == ["e5"]
    assert ids(filter_rows(view, Filters(slice_column="subject", slice_value="cs"))) == ["e6"]
    assert ids(filter_rows(view, Filters(text="OF E3"))) == ["e3"]
    assert ids(filter_rows(view, Filters(cell=("A", "B")))) == ["e2", "e3", "e6"]
    assert ids(filter_rows(view, Filters(dimension="other"))) == []


def test_filters_combine_and_counts_follow_the_other_filters(one_run):
    view = build_view([one_run])
    assert flag_counts(view, Filters()) == {"disagree_label": 3, "disagree_majority": 0, "flip": 1, "invalid": 1,
                                            "failed": 1, "runs_differ": 0}
    bio = Filters(slice_column="subject", slice_value="bio")
    assert flag_counts(view, bio)["disagree_label"] == 2
    assert ids(filter_rows(view, Filters(flags=("disagree_label", "flip")))) == ["e3"]
    assert ids(filter_rows(view, Filters(flags=("disagree_label",), slice_column="subject", slice_value="cs"))) == ["e6"]
    assert confusion(view)["A"] == {"A": 3, "B": 5, "T": 0, "i": 0, "f": 0}
    assert confusion(view)["B"] == {"A": 0, "B": 1, "T": 0, "i": 1, "f": 0}
    assert confusion(view)["T"] == {"A": 0, "B": 0, "T": 1, "i": 0, "f": 1}


def test_majority_disagreement_and_both_bad(tmp_path):
    votes = {"u1": ["A", "B"], "u2": ["B"], "u3": ["A"]}  # u1's first vote counts, as the pair label counts it: A 2,
    records = [rec("x", "AB", "B", "A", votes=votes), rec("x", "BA", "B", "A", votes=votes),  # B 1 -> A (its last
               rec("y", "AB", "TIE", "BOTH_BAD"), rec("y", "BA", "A", "BOTH_BAD")]  # vote had made it a TIE, beside
    view = build_view([write_run(tmp_path / "r", records)])  # the label A: an attack)
    assert view.rows[0]["maj"] == "A"
    assert ids(filter_rows(view, Filters(flags=("disagree_majority",)))) == ["x"]
    assert ids(filter_rows(view, Filters(flags=("disagree_label",)))) == ["x", "y"]  # BOTH_BAD is TIE: y's A disagrees


def test_two_runs_side_by_side(tmp_path):
    first = write_run(tmp_path / "a" / "run", hand_records())
    other = hand_records("j/two")
    other[2] = rec("e2", "AB", "A", "A", judge="j/two")
    other[3] = rec("e2", "BA", "A", "A", judge="j/two")
    second = write_run(tmp_path / "b" / "run", other, judge="j/two")
    view = build_view([first, second])
    assert [r["name"] for r in view.meta()["runs"]] == ["a/run", "b/run"] and view.meta()["warnings"] == []
    assert ids(filter_rows(view, Filters(flags=("runs_differ",)))) == ["e2"]
    assert ids(filter_rows(view, Filters(run=1, flags=("disagree_label",)))) == ["e3", "e6"]
    detail = example_detail(view, 1)
    assert [run["orders"]["AB"]["verdict"] for run in detail["runs"]] == ["B", "A"]


def test_a_folder_of_runs_stands_for_its_runs_and_a_run_named_twice_is_refused(tmp_path):
    """A walkthrough: `view` refused the folder `run --judge a --judge b --panel ...` and `--sweep` write ("not a
    run directory"), and each of its files given by a wildcard, where `leaderboard` reads it."""
    from judgebench.core.errors import JudgebenchError

    first = write_run(tmp_path / "jury" / "one", hand_records())
    write_run(tmp_path / "jury" / "two", hand_records("j/two"), judge="j/two")
    (tmp_path / "jury" / "judges.json").write_text("{}")
    view = build_view([tmp_path / "jury"])
    assert [r["name"] for r in view.meta()["runs"]] == ["one", "two"]
    with pytest.raises(JudgebenchError, match=r"judges.json: not a run directory"):
        build_view(sorted((tmp_path / "jury").iterdir()))
    with pytest.raises(JudgebenchError, match=r"one/results.json: given twice .* a run is read once"):
        build_view([first, tmp_path / "jury"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(JudgebenchError, match=r"no results.json found under"):
        build_view([tmp_path / "empty"])
    write_run(first / "retry", hand_records())  # a run written inside another's folder: not part of it
    assert [r["name"] for r in build_view([first]).meta()["runs"]] == ["one"]


def test_runs_of_another_task_are_refused(tmp_path):
    from judgebench.core.errors import JudgebenchError

    first = write_run(tmp_path / "a", hand_records())
    other = write_run(tmp_path / "b", [r.model_copy(update={"task": "other"}) for r in hand_records()])
    data = json.loads((other / "results.json").read_text())
    data["config"]["task"] = "other"
    (other / "results.json").write_text(json.dumps(data))
    with pytest.raises(JudgebenchError, match="same task"):
        build_view([first, other])


def test_detail_has_reasons_costs_votes_and_no_prompt_without_a_copy(one_run):
    view = build_view([one_run])
    e4 = example_detail(view, 3)["runs"][0]["orders"]["BA"]
    assert e4["status"] == "INVALID" and e4["invalid_reason"] == "truncated" and e4["raw"] == "no idea"
    assert e4["cost_usd"] == 0.002 and e4["latency_s"] == 1.5
    assert e4["prompt"]["note"].startswith("not stored")
    e5 = example_detail(view, 4)["runs"][0]["orders"]["AB"]
    assert (e5["failure"], e5["error"]) == ("error", "timeout")
    assert example_detail(view, 5)["votes"] == {"u1": ["B"], "u2": ["B"], "u3": ["A"]}


def hostile_run(tmp_path: Path) -> Path:
    records = [rec("h1", o, "A", "B", question=HOSTILE_Q, response_a=HOSTILE_A, raw=HOSTILE_RAW,
                   reasoning="<b onmouseover=alert(1)>think</b>") for o in ("AB", "BA")]
    return write_run(tmp_path / "hostile", records)


def test_hostile_text_stays_text_in_the_bundle(tmp_path):
    out = tmp_path / "bundle"
    write_bundle(build_view([hostile_run(tmp_path)]), out)
    page = (out / "index.html").read_text()
    assert "Content-Security-Policy" in page and "script-src 'self'" in page and "'unsafe-inline'" not in page
    assert page.count("<script") == 1 and '<script src="viewer.js"></script>' in page
    for data in (out / "data").glob("*.js"):
        text = data.read_text()
        assert "<" not in text and ">" not in text, data.name  # every < > of the data is a \u escape
    detail = (out / "data" / "ex-0.js").read_text()
    assert "\\u003cscript\\u003ewindow.__pwned=1" in detail and "javascript:window.__pwned=3" in detail
    js = (out / "viewer.js").read_text()
    assert "innerHTML" not in js.replace("never innerHTML", "") and "eval(" not in js
    assert not any(s in page + js for s in ("http://", "https://cdn", "//cdn"))


def test_bundle_chunks_stay_under_the_cap(tmp_path):
    records = []
    for i in range(150):
        for order in ("AB", "BA"):
            records.append(rec(f"e{i:03d}", order, "A", "B", response_a="x" * 3000))
    view = build_view([write_run(tmp_path / "big", records)])
    out = tmp_path / "bundle"
    cap = 60_000
    chunks = write_bundle(view, out, chunk_bytes=cap)
    files = sorted((out / "data").glob("ex-*.js"))
    assert chunks["example_chunks"] == len(files) > 5
    assert all(f.stat().st_size <= cap for f in (out / "data").glob("*.js"))
    meta = json.loads((out / "data" / "meta.js").read_text()[len('JBV.load("meta",'):-3])
    assert meta["ex_chunks"][0] == 0 and meta["ex_chunks"] == sorted(meta["ex_chunks"]) and meta["rows"] == 150
    last = (out / "data" / f"ex-{len(files) - 1}.js").read_text()
    assert '"id":"e149"' in last


def test_a_bundle_rewritten_or_stopped_half_way_is_whole(tmp_path, monkeypatch):
    """A second bundle into the same folder leaves no chunk of the first; one stopped half-way (a full disk, an
    interrupt) leaves the earlier bundle as it was (the data files were deleted first, then written one by one)."""
    import judgebench.publish.viewer.bundle as bundle

    records = [rec(f"e{i:03d}", order, "A", "B", response_a="x" * 3000) for i in range(40) for order in ("AB", "BA")]
    view = build_view([write_run(tmp_path / "big", records)])
    out = tmp_path / "bundle"
    assert write_bundle(view, out, chunk_bytes=20_000)["example_chunks"] > 3
    small = build_view([write_run(tmp_path / "small", records[:2])])
    assert write_bundle(small, out, chunk_bytes=20_000) == {"index_chunks": 1, "example_chunks": 1}
    assert sorted(p.name for p in (out / "data").iterdir()) == ["ex-0.js", "index-0.js", "meta.js"]
    assert sorted(p.name for p in out.iterdir()) == ["data", "index.html", "viewer.css", "viewer.js"]
    before = {p.name: p.read_bytes() for p in (out / "data").iterdir()}
    written = []

    def full_disk(folder, name, parts):
        if written:
            raise OSError(28, "No space left on device", str(folder / f"{name}.js"))
        written.append(name)
        bundle_data_file(folder, name, parts)

    bundle_data_file = bundle._data_file
    monkeypatch.setattr(bundle, "_data_file", full_disk)
    with pytest.raises(OSError, match="No space left"):
        write_bundle(view, out, chunk_bytes=20_000)
    assert {p.name: p.read_bytes() for p in (out / "data").iterdir()} == before
    assert sorted(p.name for p in out.iterdir()) == ["data", "index.html", "viewer.css", "viewer.js"]
    assert (out / "data").stat().st_mode & 0o777 == 0o777 & ~current_umask()


def _get(url: str) -> tuple[int, dict, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_served_page_and_endpoints_keep_hostile_text_as_json_text(tmp_path):
    view = build_view([hostile_run(tmp_path)])
    server = make_server(view, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        assert server.server_address[0] == "127.0.0.1"
        status, headers, body = _get(base + "/")
        assert status == 200 and "script-src 'self'" in headers["Content-Security-Policy"]
        assert b'data-source="api"' in body and b"pwned" not in body
        status, headers, body = _get(base + "/api/example/0")
        assert status == 200 and headers["Content-Type"] == "application/json"
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert b"<" not in body and json.loads(body)["question"] == HOSTILE_Q
        assert json.loads(_get(base + "/api/index/0")[2])[0][1] == "h1"
        assert json.loads(_get(base + "/api/meta")[2])["index_chunks"] == 1
        assert _get(base + "/api/example/7")[0] == 404 and _get(base + "/../results.json")[0] == 404
        rebound = urllib.request.Request(base + "/api/example/0", headers={"Host": "evil.example:80"})
        with pytest.raises(urllib.error.HTTPError, match="403"):
            urllib.request.urlopen(rebound, timeout=10)
        assert _get(base.replace("127.0.0.1", "localhost") + "/api/meta")[0] == 200
    finally:
        server.shutdown()
        server.server_close()


def test_the_server_binds_this_machine_only(one_run):
    from judgebench.core.errors import JudgebenchError

    with pytest.raises(JudgebenchError, match="127.0.0.1"):
        make_server(build_view([one_run]), 0, host="0.0.0.0")


def test_cli_writes_a_bundle(one_run, tmp_path, capsys):
    from judgebench.cli.main import main

    assert main(["view", str(one_run), "--output-dir", str(tmp_path / "out")]) == 0
    assert "6 examples" in capsys.readouterr().out
    assert (tmp_path / "out" / "index.html").is_file() and (tmp_path / "out" / "data" / "ex-0.js").is_file()


ROOT = Path(__file__).resolve().parents[2]


def test_panel_members_and_repeats_on_the_example(tmp_path):
    from judgebench.core.records import PanelMember

    panel = write_run(tmp_path / "panel", hand_records("panel/majority(j/one,j/two)"), judge="panel/majority(j/one,j/two)")
    data = json.loads((panel / "results.json").read_text())
    data["config"]["kind"] = "panel"
    data["config"]["members"] = [PanelMember(judge=j, run_dir=d, prompt_template="p", prompt_template_hash="h",
                                             answers_sha256="s").model_dump() for j, d in (("j/one", "1-one"), ("j/two", "2-two"))]
    (panel / "results.json").write_text(json.dumps(data))
    write_run(panel / "members" / "1-one", hand_records("j/one"))
    two = hand_records("j/two")
    two[2:4] = [rec("e2", "AB", "A", "A", judge="j/two"), rec("e2", "BA", "TIE", "A", judge="j/two")]
    write_run(panel / "members" / "2-two", two, judge="j/two")
    run = write_run(tmp_path / "rep", hand_records())
    write_models_jsonl(run / "repeats.jsonl", [rec("e2", o, "A", "A", repeat=1) for o in ("AB", "BA")])
    view = build_view([panel, run])
    assert view.meta()["runs"][0]["members"] == ["j/one", "j/two"] and view.meta()["runs"][1]["repeats"]
    detail = example_detail(view, 1)
    assert detail["runs"][0]["members"] == [{"name": "j/one", "AB": "B", "BA": "B"}, {"name": "j/two", "AB": "A", "BA": "T"}]
    assert detail["runs"][1]["repeats"] == [{"repeat": 1, "AB": "A", "BA": "A"}]
    assert "repeats" not in detail["runs"][0] and "members" not in detail["runs"][1]


def test_a_prompt_is_shown_only_when_it_renders_to_the_recorded_hash(tmp_path):
    import shutil

    from judgebench.core.records import PairExample
    from judgebench.judging.prompts import build_request, load_prompt

    run = write_run(tmp_path / "run", hand_records())
    shutil.copy(ROOT / "tasks" / "sciarena_eval.yaml", run / "task.yaml")
    shutil.copy(ROOT / "prompts" / "sciarena_pairwise.yaml", run / "prompt.yaml")
    view = build_view([run])
    assert "another prompt than the judge saw" in example_detail(view, 0)["runs"][0]["orders"]["AB"]["prompt"]["note"]
    example = PairExample(id="e1", question="question of e1", response_a="answer a", response_b="answer b", labels={})
    request = build_request(load_prompt(str(run / "prompt.yaml")), example, "BA", [("overall", "")], ["A", "B", "TIE"])
    records = [r.model_copy(update={"prompt_hash": request.prompt_hash}) if (r.example_id, r.order) == ("e1", "BA") else r
               for r in hand_records()]
    write_models_jsonl(run / "samples.jsonl", records)
    shown = example_detail(build_view([run]), 0)["runs"][0]["orders"]["BA"]["prompt"]
    assert shown["messages"] == request.messages and "answer b" in shown["messages"][-1]["content"]


@pytest.mark.slow
def test_cli_serves_on_127_0_0_1_until_stopped(one_run):
    import os
    import re
    import signal
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    process = subprocess.Popen([sys.executable, "-m", "judgebench", "view", str(one_run), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line
        status, _, body = _get(url[0] + "api/meta")
        assert status == 200 and json.loads(body)["rows"] == 6
    finally:
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 130
        assert process.stderr.read() == "judgebench: interrupted\n"  # (a walkthrough: a second line said it too)


def test_runs_on_other_data_are_shown_with_a_warning(tmp_path):
    first = write_run(tmp_path / "a", hand_records())
    second = write_run(tmp_path / "b", hand_records("j/two")[:4], judge="j/two")
    data = json.loads((second / "results.json").read_text())
    data["config"]["dataset"]["fingerprint"] = "other"
    (second / "results.json").write_text(json.dumps(data))
    view = build_view([first, second])
    assert [r["v"][1] for r in view.rows] == ["AA", "BB", "--", "--", "--", "--"]
    assert view.meta()["warnings"] == [("b was run on other data than a (dataset fingerprints differ): "
                                        "examples only one run has show '-' for the other")]


@pytest.mark.parametrize(("field", "value"), [("label", "Z"), ("status", "DONE"), ("order", "XY"), ("verdict", "C")])
def test_a_judgment_every_other_reader_refuses_is_refused_by_view_too(tmp_path, field, value):
    """An outside attack: `view` showed lines whose label, status, order or verdict no record holds."""
    from judgebench.core.errors import JudgebenchError

    run = write_run(tmp_path / "one", hand_records())
    lines = (run / "samples.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first[field] = value
    (run / "samples.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with pytest.raises(JudgebenchError, match=rf"judgment 1 cannot be read \(Invalid enum value '{value}' - at `\$.{field}`\)"):
        build_view([run])


@pytest.mark.parametrize("field", ['"raw": ' + "[" * 100_000 + "]" * 100_000, '"tokens_in": ' + "9" * 5000],
                         ids=["nested-deep", "huge-integer"])
def test_a_judgment_no_reader_can_take_is_one_line(tmp_path, field):
    """The second attack: `view` ended in a RecursionError or ValueError traceback where every other reader refuses."""
    from judgebench.core.errors import JudgebenchError

    run = write_run(tmp_path / "one", hand_records())
    lines = (run / "samples.jsonl").read_text().splitlines()
    lines[-1] = lines[-1][:-1] + ", " + field.replace('"raw"', '"raw_too"') + "}"
    (run / "samples.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(JudgebenchError, match="cannot be read"):
        view = build_view([run])
        for n in range(len(view.rows)):  # the details, as the bundle and the server read them
            example_detail(view, n)


def test_bundles_written_at_once_and_a_dangling_data_link_leave_one_whole_data_folder(tmp_path):
    """An attack on the folder swap: four writers at once failed one with FileNotFoundError and left `.data-old.*`
    folders in the published folder; a `data` link to nowhere gave "OUT/.data.x -> OUT/data: Not a directory"."""
    import threading

    from judgebench.publish.viewer.bundle import _swap_in

    out = tmp_path / "out"
    out.mkdir()
    (out / "data").symlink_to(tmp_path / "nowhere")
    records = [rec(f"e{i}", order, "A", "B") for i in range(3) for order in ("AB", "BA")]
    write_bundle(build_view([write_run(tmp_path / "r", records)]), out)
    assert (out / "data").is_dir() and not (out / "data").is_symlink() and (out / "data" / "meta.js").is_file()
    errors: list[BaseException] = []

    def writer(k: int) -> None:
        for round_ in range(30):
            fresh = out / f".fresh-{k}-{round_}"
            fresh.mkdir()
            (fresh / "meta.js").write_text(f"{k}-{round_}")
            try:
                _swap_in(fresh, out / "data")
            except BaseException as exc:  # noqa: BLE001 - collected for the assertion
                errors.append(exc)

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and sorted(p.name for p in out.iterdir()) == ["data", "index.html", "viewer.css", "viewer.js"]
    assert (out / "data" / "meta.js").is_file()
