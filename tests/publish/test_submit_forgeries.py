"""Attacks on submit found by the outside audit: each test performs the attack and must be refused."""

from __future__ import annotations

import functools
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from test_submit import edit_results, edit_samples, honest, make_run, rejected, tampered  # noqa: F401

from judgebench.cli.main import main
from judgebench.core.records import RunConfig
from judgebench.judges.config import public_config_hash
from judgebench.publish.submit import Rejected, submit_run, validate_run

REPO = Path(__file__).resolve().parents[2]


def renamed(source: Path, target: Path, judge: str, raw=None, args=None) -> Path:
    """A copy of a run under another judge name (rename.py of the audit); `raw` rewrites every raw answer."""
    shutil.copytree(source, target)

    def config(data):
        data["config"]["judge"] = judge
        if args is not None:
            data["config"]["judge_args"] = args

    edit_results(target, config)

    def samples(rows):
        for row in rows:
            row["judge"] = judge
            if raw is not None and row.get("raw") is not None:
                row["raw"] = raw(row["raw"])

    edit_samples(target, samples)
    return target


@functools.cache
def _scored_recording() -> Path:
    """The recorded fake-LLM demo run, re-scored with the leaderboard's resample count, once per session
    (scoring is seeded and writes no path, so each copy equals a fresh re-score)."""
    run = Path(tempfile.mkdtemp(prefix="judgebench-llm-run-")) / "llm"
    shutil.copytree(REPO / "tests" / "recordings" / "sciarena_eval", run)
    assert main(["score", str(run), "--bootstrap", "1000"]) == 0
    return run


def llm_run(tmp_path: Path) -> Path:
    """A copy of the recorded fake-LLM demo run, re-scored with the leaderboard's resample count."""
    run = tmp_path / "llm"
    shutil.copytree(_scored_recording(), run)
    return run


# ----------------------------------------------------------------------------- 1. built-in judges


def test_an_llm_run_renamed_to_a_builtin_judge_is_refused(tmp_path):
    fake = renamed(llm_run(tmp_path), tmp_path / "fake", "builtin/longer", raw=lambda text: text + "\n", args={})
    rejected(fake, "verdicts", "built-in judge builtin/longer")


def test_a_builtin_run_with_edited_answers_or_under_another_builtin_name_is_refused(honest, tmp_path):
    spaced = renamed(honest, tmp_path / "spaced", "builtin/longer", raw=lambda text: text + " ")
    rejected(spaced, "verdicts", "is not what built-in judge")
    shorter = renamed(honest, tmp_path / "shorter", "builtin/shorter")
    rejected(shorter, "verdicts", "builtin/shorter")
    validate_run(honest)  # the honest built-in run is re-run and accepted


@pytest.mark.parametrize(
    "judge", ["builtin/longer2", "Builtin/longer", "builtin:longer", " builtin/longer", "replay:x", "panel/majority(a,b)"]
)
def test_reserved_and_lookalike_judge_ids_are_refused(tmp_path, judge):
    fake = renamed(llm_run(tmp_path), tmp_path / "fake", judge)
    rejected(fake, "task", judge.strip()[:6])


# ----------------------------------------------------------------------------- 2. identity


@pytest.mark.slow
@pytest.mark.parametrize(
    "edit",
    [lambda t: t + " ", lambda t: t + "\n", lambda t: "\n  " + t.replace(" ", "  "), str.upper, str.lower, lambda t: f"**{t}**"],
    ids=["trailing-space", "newline", "respaced", "upper", "lower", "markup"],
)
def test_another_entrys_answers_reformatted_under_a_second_name_are_refused(tmp_path, edit):
    board = tmp_path / "board"
    original = llm_run(tmp_path)
    submit_run(original, board)
    copy = renamed(original, tmp_path / "copy", "openai/my-own-judge", raw=edit)
    validate_run(copy)  # verdicts and metrics are unchanged: the copy passes every other check
    with pytest.raises(Rejected, match="same answers as the entry") as info:
        submit_run(copy, board)
    assert info.value.check == "identity"
    assert len(list((board / "entries" / "sciarena_eval").iterdir())) == 1


# ----------------------------------------------------------------------------- 3. secrets in judge_args

SMUGGLED = {
    "api_base": "http://u:ARGSECRETPW@h.example/v1?token=ARGTOKEN",
    "api_key": "sk-ARGKEY123456",
    "x-api-key": "XKEYSECRET",
    "auth": {"password": "NESTEDPW", "Authorization": "Bearer BEARERSECRET"},
    "note": "my key is sk-proj-NOTESECRET",
    "max_tokens": 64,
}
LEAKS = ("ARGSECRETPW", "ARGTOKEN", "ARGKEY123456", "XKEYSECRET", "NESTEDPW", "BEARERSECRET", "NOTESECRET")


def test_secrets_in_submitted_judge_args_are_never_stored_or_exported(tmp_path):
    board = tmp_path / "board"
    run = renamed(llm_run(tmp_path), tmp_path / "secret", "openai/secret-judge", args=SMUGGLED)
    done = submit_run(run, board)
    for path in done.written:
        text = path.read_text()
        assert not [leak for leak in LEAKS if leak in text], path
    stored = json.loads((done.entry_dir / "results.json").read_text())["config"]["judge_args"]
    assert stored["max_tokens"] == 64 and stored["api_key"] == "<redacted>"
    assert stored["api_base"].startswith("http://***@h.example/v1?token=")
    out = tmp_path / "hf"
    assert main(["export", str(run), "--output", str(out)]) == 0
    card = (out / "README.md").read_text()
    assert "max_tokens=64" in card and not [leak for leak in LEAKS if leak in card]


# ----------------------------------------------------------------------------- 8, 9. where submit and leaderboard write


def _snapshot(root: Path) -> dict[str, bytes | str]:
    return {
        str(p.relative_to(root)): (f"-> {p.readlink()}" if p.is_symlink() else p.read_bytes() if p.is_file() else "dir")
        for p in sorted(root.rglob("*"))
    }


@pytest.mark.slow
@pytest.mark.parametrize("table", ["sciarena_eval.md", "ideation_arena_eval.csv", "index.html", "inside-link"])
def test_a_symlinked_table_file_is_refused_before_anything_is_written(honest, tmp_path, table):
    board = tmp_path / "board"
    first = submit_run(honest, board)
    (board / "entries" / "ideation_arena_eval").mkdir()  # another task's tables are rebuilt too
    outside = tmp_path / "outside"
    outside.write_text("precious")
    if table == "inside-link":  # a link inside the board onto an entry file is refused as well
        (board / "sciarena_eval.json").unlink()
        (board / "sciarena_eval.json").symlink_to(first.entry_dir / "results.json")
    else:
        (board / table).unlink(missing_ok=True)
        (board / table).symlink_to(outside)
    before = _snapshot(board)
    better = make_run(tmp_path / "again", "sciarena_eval", "builtin/longer")  # a valid resubmission
    with pytest.raises(Rejected) as info:
        submit_run(better, board)
    assert info.value.check == "storage" and "\n" not in str(info.value)
    assert _snapshot(board) == before and outside.read_text() == "precious"


@pytest.mark.slow
@pytest.mark.parametrize("inside", ["entries", "entries/sciarena_eval", "entries/new", "tasks"])
def test_leaderboard_command_never_writes_inside_a_submit_managed_board(honest, tmp_path, capsys, inside):
    board = tmp_path / "board"
    submit_run(honest, board)
    before = _snapshot(board)
    assert main(["leaderboard", str(honest), "--output-dir", str(board / inside)]) == 2
    assert "inside the leaderboard" in capsys.readouterr().err
    assert _snapshot(board) == before
    assert main(["leaderboard", str(honest), "--output-dir", str(tmp_path / "mine")]) == 0  # elsewhere: fine


# ----------------------------------------------------------------------------- 4, 5. data-derived baselines


def _baselines(rows: list[dict]) -> dict[tuple[str, str | None], dict]:
    return {(row["judge"], row.get("both_bad")): row for row in rows if row["kind"] == "baseline" and "/" not in row["judge"]}


@pytest.mark.slow
def test_baselines_come_from_a_both_orders_run_whatever_the_listing_order(tmp_path):
    from judgebench.publish.leaderboard import collect_tables

    single = make_run(tmp_path / "a-single", "sciarena_eval", "builtin/longer", "--no-swap")
    full = make_run(tmp_path / "b-full", "sciarena_eval", "builtin/random")
    first, _ = collect_tables([single, full])
    second, _ = collect_tables([full, single])
    assert _baselines(first["sciarena_eval"]) == _baselines(second["sciarena_eval"])
    rows = _baselines(first["sciarena_eval"])
    assert rows[("always-first (both orders)", None)]["accuracy"] == 50.0
    assert rows[("always-first (both orders)", None)]["orders"] == "both"
    assert not [name for name, _ in rows if "order AB only" in name]
    alone, _ = collect_tables([single])  # only a single-order run: its baselines say so
    names = {name for name, _ in _baselines(alone["sciarena_eval"])}
    assert "always-first (both orders)" not in names
    assert {"always-first (order AB only)", "always-longer (order AB only)"} <= names


@pytest.mark.slow
def test_rows_under_different_both_bad_rules_never_share_a_ranking(tmp_path):
    from judgebench.publish.leaderboard import collect_tables
    from judgebench.publish.tables import to_markdown

    tie = make_run(tmp_path / "tie", "ideation_arena_eval", "builtin/longer")
    exclude = make_run(tmp_path / "exclude", "ideation_arena_eval", "builtin/shorter", "--both-bad", "exclude")
    for paths in ([tie, exclude], [exclude, tie]):
        tables, _ = collect_tables(paths)
        rows = tables["ideation_arena_eval"]
        assert {row["judge"]: row["both_bad"] for row in rows if "/" in row["judge"]} == {"builtin/longer": "tie", "builtin/shorter": "exclude"}
        baselines = _baselines(rows)
        for rule in ("tie", "exclude"):  # one set of baselines per rule
            assert {"always-longer", "always-first (both orders)", "random (label distribution)"} <= {n for n, r in baselines if r == rule}
        markdown = to_markdown("ideation_arena_eval", rows)
        sections = markdown.split("## Data: ")[1:]
        assert [s.split("\n")[0] for s in sections] == ["demo, Both Bad: exclude", "demo, Both Bad: tie"]
        assert "builtin/shorter" in sections[0] and "builtin/longer" not in sections[0]
        assert "builtin/longer" in sections[1] and "builtin/shorter" not in sections[1]


def test_a_second_line_for_one_judgment_is_refused_even_with_another_answer(honest, tmp_path):
    """Duplicate judgments (example, dimension, order) never reach the metrics: reading the run refuses
    them, and submit names the coverage check."""
    run = tampered(honest, tmp_path)

    def duplicate(rows):
        twin = dict(rows[0], raw="[[B]]" if rows[0]["raw"] != "[[B]]" else "[[A]]")
        return rows + [twin]

    edit_samples(run, duplicate)
    with pytest.raises(Rejected) as info:
        validate_run(run)
    assert info.value.check == "coverage" and "duplicated sample" in str(info.value) and "\n" not in str(info.value)


# ----------------------------------------------------------------------------- 3. a copied configuration hash


@pytest.mark.parametrize(
    "forge",
    [
        lambda config: config.update(judge_config_hash="0123456789abcdef"),  # another entry's hash, copied
        lambda config: config.update(reask=2),  # a field the hash covers, changed after the run
        # an empty headers argument beside a copied hash: no headers were sent, so the hash is checked all the same
        lambda config: config.update(judge_config_hash="0123456789abcdef", judge_args={**config["judge_args"], "headers": {}}),
        lambda config: config.update(judge_config_hash="0123456789abcdef", judge_args={**config["judge_args"], "extra_headers": {}}),
    ],
    ids=["copied-hash", "edited-reask", "empty-headers", "empty-extra-headers"],
)
def test_a_recorded_config_hash_that_is_not_the_hash_of_the_config_is_refused(tmp_path, forge):
    """The recorded hash names the board entry a submission replaces: it must be the hash of what results.json shows."""
    honest = llm_run(tmp_path)  # an LLM judge's run (a built-in judge takes no arguments at all), recorded before
    edit_results(honest, lambda data: data["config"].update(  # runs recorded their hash: given the one a run records now
        judge_config_hash=public_config_hash(RunConfig.model_validate(data["config"]))), rehash=False)
    assert json.loads((honest / "results.json").read_text())["config"]["judge_config_hash"]
    validate_run(honest)
    forged = tmp_path / "forged"
    shutil.copytree(honest, forged)
    edit_results(forged, lambda data: forge(data["config"]), rehash=False)
    rejected(forged, "identity", "judge_config_hash", "is not the hash of its judge")
