"""Outside audit of the rubric judges (issue 14, "How this will be checked"), written from README and
docs/guide/rubric.md alone: a graded set the other rubric tests never saw (30 responses, 2 exams, 10
problems, nested rubric items with integer and text ids, other column names, rubric keys renamed,
expert scores as a list), a scripted judge on the local OpenAI-compatible server whose errors
against the experts are known, every calibration figure recomputed plainly with numpy/scipy from
results.json's raw JSON, and one reply per validation rule that must be rejected and re-asked."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from openai_server import Behaviour, FakeOpenAIServer, scripted_by_marker
from scipy import stats

from judgebench.calls import RunnerOptions
from judgebench.kinds.rubric.run import RubricRunRequest, read_rubric_run, run_rubric

TASK = """\
kind: rubric
name: olymp_audit
version: "2"
dataset: {path: marks.jsonl}
columns:
  id: uid
  question: statement
  response: script
  model: contestant
  rubric: marking
  expert_items: gold
  group: problem
  exam: olympiad
  slices: [subject]
  rubric_keys: {id: key, criterion: text, max: pts}
within_k: 1.0
"""
EXAMS = {"Alpha": ["A1", "A2", "A3", "A4", "A5"], "Beta": ["B1", "B2", "B3", "B4", "B5"]}
MODELS = ["m-x", "m-y", "m-z"]
SUBJECT = {"A1": "phys", "A2": "phys", "A3": "chem", "A4": "chem", "A5": "bio",
           "B1": "phys", "B2": "chem", "B3": "bio", "B4": "bio", "B5": "phys"}
# nested marking schemes: integer ids (1, 2) and text ids of sub-parts ("2a", "2b")
SCHEMES = [
    [{"key": 1, "text": "setup", "pts": 2}, {"key": 2, "text": "result", "pts": 1}],
    [{"key": 1, "text": "setup", "pts": 1}, {"key": "2a", "text": "part a", "pts": 1.5}, {"key": "2b", "text": "part b", "pts": 0.5}],
    [{"key": "i", "text": "idea", "pts": 3}],
]
OFFSETS = [0.0, 0.5, -0.5, 1.0, 0.0, -1.0, 0.5]  # the scripted judge's error, item by item
NO_ANSWER_UID = 29  # "[No Answer]": scored zero without a call


def marker(uid: int) -> str:
    return f"<<R{uid:03d}>>"


def dataset() -> list[dict]:
    rows, uid = [], 0
    for exam, problems in EXAMS.items():
        for p, problem in enumerate(problems):
            scheme = SCHEMES[p % 3]
            for m, model in enumerate(MODELS):
                gold = [max(0.0, min(c["pts"], c["pts"] - 0.5 * ((uid + i + m) % 3))) for i, c in enumerate(scheme)]
                text = "[No Answer]" if uid == NO_ANSWER_UID else f"{marker(uid)} worked answer to {problem}"
                if uid == NO_ANSWER_UID:
                    gold = [0.0] * len(scheme)
                rows.append({"uid": uid, "statement": f"Problem {problem}", "script": text, "contestant": model,
                             "marking": scheme, "gold": gold, "problem": problem, "olympiad": exam,
                             "subject": SUBJECT[problem]})
                uid += 1
    return rows


def judged(row: dict) -> list[float]:
    """The scripted judge's valid scores: expert + a known offset, kept inside [0, max] by the judge."""
    return [min(c["pts"], max(0.0, g + OFFSETS[(row["uid"] + i) % len(OFFSETS)]))
            for i, (c, g) in enumerate(zip(row["marking"], row["gold"], strict=True))]


def reply(row: dict, scores: list[float], *, int_ids: bool = True, **extra) -> str:
    items = [{"id": c["key"] if int_ids else str(c["key"]), "score": s, "evidence": "quoted" if s else ""}
             for c, s in zip(row["marking"], scores, strict=True)]
    body = {"sub_scores": items, "total_score": sum(scores), "max_score": sum(c["pts"] for c in row["marking"]),
            "deductions": [], "confidence": 0.7}
    return json.dumps({**body, **extra})


def broken_replies(rows: dict[int, dict]) -> dict[int, tuple[str, str]]:
    """uid -> (a first reply breaking one rule, the reason expected in the ledger)."""
    def items(uid: int) -> list[dict]:
        return json.loads(reply(rows[uid], judged(rows[uid])))["sub_scores"]

    def with_items(uid: int, entries: list[dict], total: float | None = None) -> str:
        return json.dumps({"sub_scores": entries, "total_score": total if total is not None else
                           sum(e["score"] for e in entries if isinstance(e.get("score"), (int, float)))})

    first = lambda uid, **change: [{**items(uid)[0], **change}, *items(uid)[1:]]  # noqa: E731
    return {
        0: ("The answer deserves 2 of 3 points.", "not JSON"),
        1: (with_items(1, items(1)[:-1]), "missing item"),
        2: (with_items(2, [*items(2), {"id": "zz", "score": 0, "evidence": ""}]), "extra item 'zz'"),
        3: (with_items(3, [*items(3), items(3)[0]]), "given twice"),
        4: (with_items(4, first(4, score=2.5)), "score 2.5 is outside [0, 1]"),
        5: (with_items(5, first(5, score=-0.5)), "score -0.5 is outside [0, 1]"),
        6: (with_items(6, first(6, score=12345.5), total=1.0).replace("12345.5", "NaN"), "nan is not a number"),
        7: (with_items(7, first(7, score=12345.5), total=1.0).replace("12345.5", "Infinity"), "inf is not a number"),
        8: (with_items(8, first(8, score="1"), total=0.5), "'1' is not a number"),
        9: (with_items(9, first(9, score=True), total=1.0), "True is not a number"),
        10: (with_items(10, items(10), total=99), "not the sum"),
        11: (with_items(11, first(11, score=1.0, evidence="")), "score 1 above zero without evidence"),
        12: (reply(rows[12], judged(rows[12])) + "\nHope this helps!", "not JSON"),
        13: ("Here is my grading:\n" + reply(rows[13], judged(rows[13])), "not JSON"),
        14: (with_items(14, first(14, score=None), total=0), "None is not a number"),
        15: (reply(rows[15], judged(rows[15]), max_score=99), "max_score"),
        16: (with_items(16, first(16, score=12345.5), total=1.0).replace("12345.5", "1e400"), "inf is not a number"),
        17: ('{"sub_scores": ' + json.dumps(items(17)) + ', "total_score": 99, "total_score": '
             + json.dumps(sum(judged(rows[17]))) + "}", "repeated key 'total_score'"),
    }


@pytest.fixture(scope="module")
def audited(tmp_path_factory) -> tuple[Path, dict[int, dict], dict, list, dict]:
    tmp = tmp_path_factory.mktemp("audit")
    rows = {r["uid"]: r for r in dataset()}
    (tmp / "olymp_audit.yaml").write_text(TASK, encoding="utf-8")
    (tmp / "marks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows.values()), encoding="utf-8")
    broken = broken_replies(rows)
    script = {}
    for uid, row in rows.items():
        good = reply(row, judged(row), int_ids=uid % 2 == 0)
        script[marker(uid)] = [broken[uid][0], good] if uid in broken else [good]
    script[marker(18)] = ["```json\n" + reply(rows[18], judged(rows[18])) + "\n```"]  # accepted: one json fence
    script[marker(19)] = [reply(rows[19], [c["pts"] + 1 for c in rows[19]["marking"]])]  # always over max: INVALID
    mp = pytest.MonkeyPatch()
    mp.setenv("JUDGEBENCH_CALL_WORKER", "0")
    try:
        with FakeOpenAIServer(Behaviour(answer=scripted_by_marker(script))) as server:
            run_rubric(RubricRunRequest(
                task="olymp_audit", judge="openai/audit-judge", output_path=tmp / "out", include_paths=[tmp],
                judge_args={"api_base": server.api_base, "api_key": "sk-audit"}, n_resamples=300, seed=7,
                runner=RunnerOptions(reask=2, use_cache=False, progress=False, max_retries=0)))
            served = server.stats().total
    finally:
        mp.undo()
    results = json.loads((tmp / "out" / "results.json").read_text(encoding="utf-8"))
    samples = [json.loads(line) for line in (tmp / "out" / "samples.jsonl").read_text(encoding="utf-8").splitlines()]
    return tmp, rows, results, samples, {"broken": broken, "served": served}


def scored_rows(rows: dict[int, dict]) -> dict[int, list[float]]:
    """uid -> the judge's scores as the audit expects them (19 is INVALID: left out; 29 no-answer: zeros)."""
    out = {uid: judged(row) for uid, row in rows.items() if uid != 19}
    out[NO_ANSWER_UID] = [0.0] * len(rows[NO_ANSWER_UID]["marking"])
    return out


@pytest.mark.slow
def test_every_broken_reply_is_rejected_reasked_and_kept_in_the_ledger(audited):
    _, rows, results, samples, info = audited
    by_uid = {int(s["item_id"]): s for s in samples}
    for uid, (bad, reason) in info["broken"].items():
        s = by_uid[uid]
        assert s["status"] == "ANSWERED", (uid, s.get("rejections"))
        assert s["attempts_raw"][0] == bad and len(s["attempts_raw"]) == 2, uid
        assert len(s["rejections"]) == 1 and reason in s["rejections"][0], (uid, s["rejections"])
        assert [s["scores"][str(c["key"])] for c in rows[uid]["marking"]] == judged(rows[uid])  # the re-asked reply's
    assert by_uid[18]["status"] == "ANSWERED" and by_uid[18]["rejections"] == []  # a ```json fence is accepted
    invalid = by_uid[19]
    assert invalid["status"] == "INVALID" and invalid["scores"] is None and invalid["total"] is None  # never clamped
    assert len(invalid["attempts_raw"]) == 3 and len(invalid["rejections"]) == 3  # 1 call + 2 re-asks
    assert by_uid[NO_ANSWER_UID]["status"] == "NO_ANSWER" and by_uid[NO_ANSWER_UID]["attempts_raw"] == []
    # every reply the server sent is in some ledger: 29 asked; 18 broken first replies re-asked; 19 asked 3 times
    assert info["served"] == 29 + len(info["broken"]) + 2 == results["counts"]["calls"]
    c = results["counts"]
    assert (c["answered"], c["invalid"], c["no_answer"], c["failed"]) == (28, 1, 1, 0)
    assert c["coverage"] == pytest.approx(29 / 30)


def _level_arrays(rows: dict[int, dict], level: str, keep=lambda row: True):
    j, e, top, cluster = [], [], [], []
    for uid, scores in sorted(scored_rows(rows).items()):
        row = rows[uid]
        if not keep(row):
            continue
        if level == "item":
            j += scores
            e += row["gold"]
            top += [c["pts"] for c in row["marking"]]
            cluster += [row["problem"]] * len(scores)
        else:
            j.append(sum(scores))
            e.append(sum(row["gold"]))
            top.append(sum(c["pts"] for c in row["marking"]))
            cluster.append(row["problem"])
    return np.array(j), np.array(e), np.array(top), cluster


@pytest.mark.slow
@pytest.mark.parametrize("level", ["item", "total"])
def test_every_calibration_figure_matches_a_plain_recomputation(audited, level):
    _, rows, results, _, _ = audited
    j, e, top, cluster = _level_arrays(rows, level)
    d = j - e
    got = {name: v["value"] for name, v in results["metrics"][level].items()}
    assert results["metrics"][level]["mae"]["n"] == len(j)
    assert got["mae"] == pytest.approx(np.mean(np.abs(d)))
    assert got["normalized_mae"] == pytest.approx(np.mean(np.abs(d) / top))
    assert got["bias"] == pytest.approx(np.mean(d))
    assert got["within_k"] == pytest.approx(np.mean(np.abs(d) <= 1.0))
    assert got["over_credit"] == np.sum(d >= 0.5)
    assert got["pearson"] == pytest.approx(stats.pearsonr(j, e)[0])
    assert got["spearman"] == pytest.approx(stats.spearmanr(j, e)[0])
    assert got["kendall"] == pytest.approx(stats.kendalltau(j, e)[0])
    # the cluster bootstrap, done the slow plain way: draw problems, expand, recompute (seed 7, 300 draws)
    from judgebench.stats.resampling import resample_batches

    names = sorted(set(cluster))
    members = {n: [i for i, c in enumerate(cluster) if c == n] for n in names}
    nmae, r = [], []
    for batch in resample_batches(len(names), 300, 7, 200):
        for draw in batch:
            idx = [i for k in draw for i in members[names[k]]]
            nmae.append(np.mean(np.abs(d[idx]) / top[idx]))
            r.append(np.corrcoef(j[idx], e[idx])[0, 1])
    stored = results["metrics"][level]
    assert stored["normalized_mae"]["ci_low"] == pytest.approx(np.quantile(nmae, 0.025))
    assert stored["normalized_mae"]["ci_high"] == pytest.approx(np.quantile(nmae, 0.975))
    assert stored["pearson"]["ci_low"] == pytest.approx(np.quantile(r, 0.025))
    assert stored["pearson"]["ci_high"] == pytest.approx(np.quantile(r, 0.975))


@pytest.mark.slow
def test_slices_system_level_and_model_ranks_match_a_plain_recomputation(audited):
    _, rows, results, _, _ = audited
    for level in ("item", "total"):
        for column, key in (("subject", "subject"), ("exam", "olympiad")):
            values = sorted({row[key] for row in rows.values()})
            assert sorted(results["slices"][level][column]) == values
            for value in values:
                j, e, top, _ = _level_arrays(rows, level, lambda row, k=key, v=value: row[k] == v)
                got = results["slices"][level][column][value]
                assert got["normalized_mae"]["value"] == pytest.approx(np.mean(np.abs(j - e) / top))
                assert got["bias"]["value"] == pytest.approx(np.mean(j - e))
                assert got["within_k"]["value"] == pytest.approx(np.mean(np.abs(j - e) <= 1.0))
    sums: dict[tuple[str, str], list[float]] = {}
    for uid, scores in scored_rows(rows).items():
        row = rows[uid]
        pair = sums.setdefault((row["contestant"], row["olympiad"]), [0.0, 0.0])
        pair[0] += sum(scores)
        pair[1] += sum(row["gold"])
    system = results["system"]
    stored = {(p["model"], p["exam"]): (p["judge_total"], p["expert_total"]) for p in system["pairs"]}
    assert set(stored) == set(sums)
    for key, (judge_sum, expert_sum) in sums.items():
        assert stored[key] == pytest.approx((judge_sum, expert_sum))
    worst = max(sums, key=lambda k: abs(sums[k][0] - sums[k][1]))
    assert system["max_abs_difference"] == pytest.approx(abs(sums[worst][0] - sums[worst][1]))
    assert system["worst_pair"] == f"{worst[0]} / {worst[1]}"
    assert system["passed"] is all(abs(a - b) <= 1.0 for a, b in sums.values())
    assert system["complete"] is False  # m-y / Alpha has the INVALID response 19
    judge_m = [sum(v[0] for k, v in sums.items() if k[0] == m) for m in MODELS]
    expert_m = [sum(v[1] for k, v in sums.items() if k[0] == m) for m in MODELS]
    for name, fn in (("rank_spearman", stats.spearmanr), ("rank_kendall", stats.kendalltau)):
        expected = fn(judge_m, expert_m)[0]
        assert (system[name] is None and math.isnan(expected)) or system[name] == pytest.approx(expected)


@pytest.mark.slow
def test_rubric_compare_direction_below_zero_means_candidate_closer(audited, tmp_path, capsys):
    """A judge with the experts' own scores against the scripted judge: the candidate is closer."""
    from judgebench.cli.main import main

    tmp, rows, _, _, _ = audited
    script = {marker(uid): [reply(row, row["gold"])] for uid, row in rows.items()}
    mp = pytest.MonkeyPatch()
    mp.setenv("JUDGEBENCH_CALL_WORKER", "0")
    try:
        with FakeOpenAIServer(Behaviour(answer=scripted_by_marker(script))) as server:
            run_rubric(RubricRunRequest(
                task="olymp_audit", judge="openai/oracle", output_path=tmp_path / "oracle", include_paths=[tmp],
                judge_args={"api_base": server.api_base, "api_key": "sk-audit"}, n_resamples=50,
                runner=RunnerOptions(reask=0, use_cache=False, progress=False, max_retries=0)))
    finally:
        mp.undo()
    assert main(["rubric", "compare", str(tmp / "out"), str(tmp_path / "oracle")]) == 0
    out = capsys.readouterr().out
    oracle_error = 0.0
    j, e, top, cluster = _level_arrays({u: r for u, r in rows.items()}, "item")
    scripted_error = np.mean(np.abs(j - e) / top)  # over the items both scored (19 left out by the scripted run)
    assert f"candidate openai/oracle {oracle_error:.4f}" in out
    assert f"baseline openai/audit-judge {scripted_error:.4f}" in out
    assert f"difference {oracle_error - scripted_error:+.4f}" in out and oracle_error - scripted_error < 0
    assert "(95% paired-bootstrap interval) (below 0: candidate closer to the experts)" in out  # (its level said)
    # the paired test's unit is the problem (the task maps `group: problem`), its items' mean error: the items
    # of one problem are not independent. Problems where the scripted judge got an item wrong: the oracle is
    # better on each of them.
    wrong = len({c for c, err in zip(cluster, np.abs(j - e)) if err > 0})
    problems = len(set(cluster))
    assert f"unit = problem, its items' mean error; {problems} problems" in out
    assert f"{wrong} changed, candidate error higher on 0, lower on {wrong}" in out
    # swapped: the scripted judge as candidate is farther from the experts, above 0
    assert main(["rubric", "compare", str(tmp_path / "oracle"), str(tmp / "out")]) == 0
    swapped = capsys.readouterr().out
    assert f"difference {scripted_error:+.4f}" in swapped and f"candidate error higher on {wrong}, lower on 0" in swapped
    # judge vs judge (`rubric agree`): the oracle's scores are the expert's, so the pair's figures are
    # the scripted judge's calibration on the items both scored
    assert main(["rubric", "agree", str(tmp / "out"), str(tmp / "out")]) == 2  # a run with itself: no figure
    assert "a run directory is given twice" in capsys.readouterr().err
    assert main(["rubric", "agree", str(tmp / "out"), str(tmp_path / "oracle")]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = dict(cell.split("=", 1) for cell in lines[0].split("\t"))
    assert lines[-1].startswith("a=mean over pairs\tnormalized_mae=") and "None" not in lines[-1]  # undefined: absent
    assert int(first["items"]) == len(j)
    assert float(first["exact_item_agreement"]) == pytest.approx(np.mean(j == e), abs=1e-4)
    assert float(first["normalized_mae"]) == pytest.approx(scripted_error, abs=1e-4)
    assert float(first["pearson"]) == pytest.approx(stats.pearsonr(j, e)[0], abs=1e-4)
    assert float(first["kendall"]) == pytest.approx(stats.kendalltau(j, e)[0], abs=1e-4)


@pytest.mark.slow
def test_repeat_agreement_of_a_real_two_repeat_run_recomputed(audited, tmp_path):
    """--repeats 2 against a server that answers a prompt's first ask with the scripted scores and its
    second with the expert's: whichever repeat gets which, exact item agreement and the within-judge
    normalized MAE are the scripted judge's agreement with the experts."""
    import threading

    tmp, rows, _, _, _ = audited
    asked: dict[str, int] = {}
    lock = threading.Lock()

    def answer(messages):
        text = str(messages)
        uid = next(u for u in rows if marker(u) in text)
        with lock:
            asked[marker(uid)] = asked.get(marker(uid), 0) + 1
            n = asked[marker(uid)]
        return reply(rows[uid], judged(rows[uid]) if n == 1 else rows[uid]["gold"])

    mp = pytest.MonkeyPatch()
    mp.setenv("JUDGEBENCH_CALL_WORKER", "0")
    try:
        with FakeOpenAIServer(Behaviour(answer=answer)) as server:
            run_rubric(RubricRunRequest(
                task="olymp_audit", judge="openai/twice", output_path=tmp_path / "twice", include_paths=[tmp],
                judge_args={"api_base": server.api_base, "api_key": "sk-audit"}, n_resamples=20, repeats=2,
                runner=RunnerOptions(reask=0, use_cache=False, progress=False, max_retries=0)))
            served = server.stats().total
    finally:
        mp.undo()
    result, records = read_rubric_run(tmp_path / "twice")
    assert served == 29 * 2 and len(records) == 60 and set(asked.values()) == {2}
    j = np.array([s for uid, row in rows.items() for s in (judged(row) if uid != NO_ANSWER_UID else row["gold"])])
    e = np.array([g for row in rows.values() for g in row["gold"]])
    top = np.array([c["pts"] for row in rows.values() for c in row["marking"]])
    agreement = result.repeat_agreement
    assert (agreement["repeats"], agreement["pairs"]) == (2, 1)
    assert agreement["exact_item_agreement"] == pytest.approx(np.mean(j == e))
    assert agreement["normalized_mae"] == pytest.approx(np.mean(np.abs(j - e) / top))
