"""`judgebench export --format hf`: a Dataset on disk (and Parquet) with a card; pushing fails clearly offline."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from test_submit import make_run

from judgebench.cli.main import main
from judgebench.core.files import read_models_jsonl
from judgebench.core.records import JudgmentRecord
from judgebench.publish.export import hub_license, records_to_rows, rows_to_records


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("export-runs")
    return {
        "sciarena_eval": make_run(folder / "sci", "sciarena_eval", "builtin/longer"),
        "ideation_arena_eval": make_run(folder / "idea", "ideation_arena_eval", "builtin/more-citations"),
    }


@pytest.mark.slow
@pytest.mark.parametrize("task", ["sciarena_eval", "ideation_arena_eval"])
def test_export_then_load_dataset_and_load_from_disk_give_the_same_rows(runs, task, tmp_path, capsys):
    import datasets

    out = tmp_path / "hf"
    assert main(["export", str(runs[task]), "--format", "hf", "--output", str(out)]) == 0
    assert "load_from_disk" in capsys.readouterr().out
    records = read_models_jsonl(runs[task] / "samples.jsonl", JudgmentRecord)
    loaded = datasets.load_from_disk(str(out / "disk"))
    assert loaded.num_rows == len(records)
    rows, _ = records_to_rows(records)
    assert loaded.to_list() == rows
    assert rows_to_records(loaded.to_list()) == records  # lossless, slices included
    parquet = datasets.load_dataset("parquet", data_files=str(out / "data" / "*.parquet"), split="train")
    assert parquet.to_list() == rows
    # the folder itself, as a Hub repo is read (data/train-*.parquet); with save_to_disk's files at its top, as
    # exports wrote them before, datasets refused it ("saved using `save_to_disk`")
    assert datasets.load_dataset(str(out), split="train").to_list() == rows
    other = tmp_path / "again" / "hf"  # another export of the same folder name: its own rows, not the cached ones
    assert main(["export", str(runs["sciarena_eval" if task != "sciarena_eval" else "ideation_arena_eval"]),
                 "--output", str(other)]) == 0
    assert datasets.load_dataset(str(other), split="train")[0]["task"] != task


@pytest.mark.slow
def test_an_earlier_export_with_its_dataset_at_the_top_is_replaced_by_the_new_layout(runs, tmp_path):
    import datasets

    from judgebench.publish.export import to_dataset

    run, out = runs["sciarena_eval"], tmp_path / "hf"
    records = read_models_jsonl(run / "samples.jsonl", JudgmentRecord)
    assert main(["export", str(run), "--output", str(tmp_path / "new")]) == 0
    to_dataset(records).save_to_disk(str(out))  # the layout of an export before 2026-12-07
    shutil.copy(tmp_path / "new" / "README.md", out / "README.md")
    with pytest.raises(ValueError, match="save_to_disk"):
        datasets.load_dataset(str(out), split="train")
    assert main(["export", str(run), "--output", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "data", "disk"]
    assert datasets.load_dataset(str(out), split="train").num_rows == len(records)


def test_dataset_card_names_task_judge_prompt_metrics_and_licence(runs, tmp_path):
    out = tmp_path / "hf"
    assert main(["export", str(runs["sciarena_eval"]), "--output", str(out)]) == 0
    card = (out / "README.md").read_text()
    results = json.loads((runs["sciarena_eval"] / "results.json").read_text())
    config = results["config"]
    assert card.startswith("---\nlicense: mit\n")
    assert "sciarena_eval" in card and "builtin/longer" in card
    assert config["prompt_template_hash"] in card and config["dataset"]["fingerprint"] in card
    accuracy = results["metrics"]["overall"]["accuracy"]["value"]
    assert f"| overall | **accuracy** (headline) | {accuracy:.4f} |" in card
    accuracy_ab = results["metrics"]["overall"]["accuracy_ab"]["value"]  # (a walkthrough: the summary's per-order
    assert f"| overall | accuracy_ab | {accuracy_ab:.4f} |" in card  # figures were not on the card)
    assert "licence: **MIT**" in card and "demo split" in card
    import datasets

    columns = datasets.load_from_disk(str(out / "disk")).column_names  # every column listed (a walkthrough: 23 of 39 were)
    listed = card.split("## Columns")[1].split("```")[0]
    assert all(f"`{c}`" in listed for c in columns) and "`votes` (annotator -> labels, as JSON text)" not in listed
    assert hub_license("Apache-2.0") == "apache-2.0" and hub_license("unknown (see card)") == "other"


def test_push_without_token_or_network_fails_with_one_line_and_writes_nothing(runs, tmp_path, monkeypatch, capsys):
    import huggingface_hub.constants as hub

    for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_OIDC_RESOURCE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(hub, "HF_TOKEN_PATH", str(tmp_path / "no-token"))  # no stored login either
    monkeypatch.setattr(hub, "HF_STORED_TOKENS_PATH", str(tmp_path / "no-tokens"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    out = tmp_path / "hf"
    push = ["export", str(runs["sciarena_eval"]), "--output", str(out), "--push-to-hub", "me/judgebench-samples"]
    assert main(push) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("judgebench: error: --push-to-hub: no Hugging Face token")
    assert not out.exists()
    monkeypatch.setenv("HF_TOKEN", "hf_not_a_real_token")  # a token, but no network: still one clear line
    assert main(push) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "HF_HUB_OFFLINE" in err
    assert not out.exists()
    assert main([*push[:-1], "bad repo name"]) == 2  # refused before the export was written (it was after)
    assert "--push-to-hub 'bad repo name': not a Hub repo id" in capsys.readouterr().err and not out.exists()


def test_export_errors_are_one_line(tmp_path, capsys):
    assert main(["export", str(tmp_path), "--output", str(tmp_path / "x")]) == 2
    assert "not a run directory" in capsys.readouterr().err
    assert main(["export", str(tmp_path), "--output", str(tmp_path / "x"), "--private"]) == 2  # it was ignored
    assert "--private is for the Hub repo --push-to-hub creates" in capsys.readouterr().err


def test_dataset_card_escapes_a_hostile_judge_id_and_marks_it_self_reported(runs):
    import yaml

    from judgebench.core.records import RunResult
    from judgebench.publish.export import dataset_card

    result = RunResult.model_validate_json((runs["sciarena_eval"] / "results.json").read_text())
    hostile = 'x"\nlicense: apache-2.0\n| forged | row |<script>'
    config = result.config.model_copy(update={"judge": hostile})
    card = dataset_card(result.model_copy(update={"config": config}), 10)
    front = yaml.safe_load(card.split("---\n")[1])
    assert front["license"] == "mit" and set(front) == {"license", "pretty_name", "tags"}
    assert "<script>" not in card and "| forged |" not in card
    assert "| judge (self-reported) | x&quot;" in card or "| judge (self-reported) | x\"" in card


def test_export_refuses_links_and_folders_that_are_not_its_own(runs, tmp_path, capsys):
    """An outside attack: links inside --output (data/, state.json, the Arrow file) had export write the dataset
    through them, out of the folder; a walkthrough: a folder holding the user's README.md had it replaced. Refused
    now before anything is read or written; an earlier export in the folder is replaced as before."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim").write_text("secret\n")
    run = runs["sciarena_eval"]
    for name in ("data", "disk", "disk/state.json", "disk/data-00000-of-00001.arrow"):
        out = tmp_path / f"links-{name.replace('/', '-')}"
        assert main(["export", str(run), "--output", str(out)]) == 0  # an earlier export: replaced, fine
        assert main(["export", str(run), "--output", str(out)]) == 0
        target = out / name
        if target.is_dir():
            for child in target.iterdir():
                child.unlink()
            target.rmdir()
        else:
            target.unlink()
        target.symlink_to(outside if name in ("data", "disk") else outside / "victim")
        assert main(["export", str(run), "--output", str(out)]) == 2
        err = capsys.readouterr().err
        assert "is a symbolic link" in err and err.count("\n") == 1
        assert sorted(p.name for p in outside.iterdir()) == ["victim"] and (outside / "victim").read_text() == "secret\n"
    mine = tmp_path / "proj"
    mine.mkdir()
    (mine / "README.md").write_text("# my notes\n")
    assert main(["export", str(run), "--output", str(mine)]) == 2
    assert "neither empty nor an earlier export" in capsys.readouterr().err
    assert (mine / "README.md").read_text() == "# my notes\n" and sorted(p.name for p in mine.iterdir()) == ["README.md"]
    (tmp_path / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    assert main(["export", str(run), "--output", str(tmp_path / "linked")]) == 2
    assert not (tmp_path / "elsewhere").exists()


def test_an_earlier_export_is_replaced_whole_and_a_foreign_folder_is_left_alone(runs, tmp_path, capsys):
    """An outside attack: a Parquet file left in data/ by an earlier export was read with the new rows by
    `load_dataset(OUT)` (456 rows where the card said 96); a folder of the user's own holding a README.md and a saved
    Dataset passed for an earlier export and had its README.md replaced; a file named `disk` or `data` failed the
    export half-way, after an earlier export's files were removed."""
    import datasets

    run, out = runs["sciarena_eval"], tmp_path / "hf"
    assert main(["export", str(runs["ideation_arena_eval"]), "--output", str(out)]) == 0
    (out / "data" / "train-00001-of-00002.parquet").write_bytes((out / "data" / "train-00000-of-00001.parquet").read_bytes())
    (out / "data" / "test-00000-of-00001.parquet").write_bytes((out / "data" / "train-00000-of-00001.parquet").read_bytes())
    assert main(["export", str(run), "--output", str(out)]) == 0
    loaded = datasets.load_dataset(str(out))
    assert list(loaded) == ["train"] and set(loaded["train"]["task"]) == {"sciarena_eval"}
    assert loaded["train"].num_rows == len(read_models_jsonl(run / "samples.jsonl", JudgmentRecord))
    mine = tmp_path / "mine"
    (mine / "disk").mkdir(parents=True)
    for name in ("disk/state.json", "disk/dataset_info.json"):
        (mine / name).write_text("{}")
    (mine / "README.md").write_text("# my notes\n")
    assert main(["export", str(run), "--output", str(mine)]) == 2
    assert "neither empty nor an earlier export" in capsys.readouterr().err
    assert (mine / "README.md").read_text() == "# my notes\n"
    capsys.readouterr()
    for name in ("data", "disk"):
        broken = tmp_path / f"broken-{name}"
        assert main(["export", str(run), "--output", str(broken)]) == 0
        before = sorted(str(p.relative_to(broken)) for p in broken.rglob("*"))
        shutil.rmtree(broken / name)
        (broken / name).write_text("not a folder\n")
        assert main(["export", str(run), "--output", str(broken)]) == 2
        err = capsys.readouterr().err  # (without disk/ the folder is no export: refused as a foreign one)
        said = f"{broken / name} is not a folder" if name == "data" else "neither empty nor an earlier export"
        assert said in err and err.count("\n") == 1
        assert (broken / name).read_text() == "not a folder\n" and (broken / "README.md").is_file()
        assert len(before) > 3


def test_the_card_of_a_run_with_confidences_lists_its_calibration_metrics(runs, tmp_path):
    """A walkthrough: results.json held brier_score and ece for a run with log-probabilities, and the exported card
    listed neither. They are card metrics now, in the card's rows as the others are (left out when undefined: a run
    without confidences lists none)."""
    from openai_server import Behaviour, FakeOpenAIServer

    run = tmp_path / "run"
    with FakeOpenAIServer(Behaviour(answer="[[A]]")) as server:
        assert main(["run", "--tasks", "sciarena_eval", "--demo", "--limit", "4", "--judge", "openai/m", "--judge-args",
                     f"api_base={server.api_base},api_key=sk-t,logprobs=true,top_logprobs=5", "--output-path",
                     str(run), "--cache-dir", str(tmp_path / "cache"), "--quiet"]) == 0
    assert main(["export", str(run), "--output", str(tmp_path / "hf")]) == 0
    card = (tmp_path / "hf" / "README.md").read_text()
    metrics = json.loads((run / "results.json").read_text())["metrics"]["overall"]
    brier, ece = metrics["brier_score"], metrics["ece"]
    assert (f"| overall | brier_score | {brier['value']:.4f} | [{brier['ci_low']:.4f}, {brier['ci_high']:.4f}] | "
            f"{brier['n']} |") in card
    assert f"| overall | ece | {ece['value']:.4f} |  | {ece['n']} |" in card
    assert main(["export", str(runs["sciarena_eval"]), "--output", str(tmp_path / "plain")]) == 0
    plain = (tmp_path / "plain" / "README.md").read_text()  # a built-in judge: no confidence, no calibration row
    assert "| overall | accuracy_ab |" in plain and "brier_score" not in plain and "| ece |" not in plain
