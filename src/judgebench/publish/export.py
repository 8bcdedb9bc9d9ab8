"""`judgebench export --format hf`: a run's samples as a Hugging Face `datasets` Dataset with a dataset card.

OUTPUT/ holds the rows as Parquet in the Hub layout (data/train-00000-of-00001.parquet) and README.md, a
dataset card with the task, judge, prompt hash, metrics and the source data's licence, so that
`datasets.load_dataset(OUTPUT)` reads it as it would the pushed repo; and OUTPUT/disk/, the same Dataset
written by `save_to_disk` (`datasets.load_from_disk(OUTPUT/disk)`). (save_to_disk's files at OUTPUT's top, as
exports before 2026-12-07 wrote them, made `load_dataset(OUTPUT)` refuse the folder.) `--push-to-hub REPO`
uploads the Dataset (Parquet) and the card with huggingface_hub.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgebench.core.catalogue import CARD_METRICS
from judgebench.core.errors import JudgebenchError, one_line
from judgebench.core.files import open_regular, write_atomic
from judgebench.core.records import JudgmentRecord, MetricValue, RunResult
from judgebench.core.secrets import redact_value
from judgebench.judges.config import named_judge, run_config_hash
from judgebench.publish.tables import md_escape

PARQUET_FILE = "data/train-00000-of-00001.parquet"
DISK_FOLDER = "disk"  # save_to_disk's Dataset
CARD_FILE = "README.md"
CARD_TAGS = "tags: [judgebench, llm-as-a-judge, pairwise-preference, meta-evaluation]"  # a line of every card's header
HUB_LICENSES = {
    "mit", "apache-2.0", "bsd-2-clause", "bsd-3-clause", "cc0-1.0", "cc-by-4.0", "cc-by-sa-4.0",
    "cc-by-nc-4.0", "cc-by-nc-sa-4.0", "odc-by", "odbl", "gpl-3.0", "openrail",
}  # fmt: skip


@dataclass
class Export:
    output: Path
    rows: int
    pushed_to: str | None = None


# ----------------------------------------------------------------------------- rows


def features() -> Any:
    """The explicit column types (slices are added per run: their names depend on the task)."""
    from datasets import List, Value

    text, integer, number = Value("string"), Value("int64"), Value("float64")
    return {
        "task": text, "example_id": text, "dimension": text, "order": text, "judge": text,
        "prompt_hash": text, "status": text, "raw": text, "earlier_raw": List(text),
        "verdict_shown": text, "verdict": text, "label": text, "tokens_in": integer, "tokens_out": integer,
        "cost_usd": number, "latency_s": number, "attempts": integer, "cached": Value("bool"),
        "cached_cost_usd": number, "error": text, "failure": text,
        "repeat": integer,
        "invalid_reason": text, "finish_reason": text, "reasoning": text, "reasoning_tokens": integer, "served_model": text,
        "model_a": text, "model_b": text, "length_a": integer, "length_b": integer,
        "citations_a": integer, "citations_b": integer,
        "question": text, "response_a": text, "response_b": text,
        "confidence": {"A": number, "B": number, "TIE": number}, "confidence_source": text,  # issue 34
    }  # fmt: skip


def records_to_rows(records: list[JudgmentRecord]) -> tuple[list[dict[str, Any]], list[str]]:
    """Flat rows (slices as one struct column with every slice name) and the slice names."""
    names = sorted({name for record in records for name in record.slices})
    with_votes = any(record.votes for record in records)
    rows = []
    for record in records:
        row = record.model_dump(mode="json", exclude={"slices", "votes"})
        if with_votes:  # annotator -> labels has data-dependent keys: one JSON text column
            row["votes"] = json.dumps(record.votes, ensure_ascii=False) if record.votes else None
        if names:
            row["slices"] = {name: record.slices.get(name) for name in names}
        if row.get("confidence") is not None:  # one struct column: a verdict the task does not allow is null
            row["confidence"] = {v: row["confidence"].get(v) for v in ("A", "B", "TIE")}
        rows.append(row)
    return rows, names


def rows_to_records(rows: list[dict[str, Any]]) -> list[JudgmentRecord]:
    """The inverse of records_to_rows (slice values that are null were absent)."""
    records = []
    for row in rows:
        data = dict(row)
        data["slices"] = {k: v for k, v in (data.get("slices") or {}).items() if v is not None}
        if isinstance(data.get("votes"), str):
            data["votes"] = json.loads(data["votes"])
        if isinstance(data.get("confidence"), dict):
            data["confidence"] = {k: v for k, v in data["confidence"].items() if v is not None}
        records.append(JudgmentRecord.model_validate(data))
    return records


def to_dataset(records: list[JudgmentRecord]) -> Any:
    import datasets
    from datasets import Dataset, Features, Value

    datasets.disable_progress_bars()
    rows, slice_names = records_to_rows(records)
    columns = features()
    if slice_names:
        columns["slices"] = {name: Value("string") for name in slice_names}
    if rows and "votes" in rows[0]:
        columns["votes"] = Value("string")
    return Dataset.from_list(rows, features=Features(columns))


# ----------------------------------------------------------------------------- card


def hub_license(license_text: str | None) -> str:
    value = (license_text or "").strip().lower()
    return value if value in HUB_LICENSES else "other"


COLUMN_NOTES = {
    "prompt_hash": "sha256 of the rendered messages", "status": "ANSWERED / INVALID / FAILED",
    "verdict_shown": "positions as shown", "verdict": "dataset positions", "order": "AB as in the dataset, BA swapped",
    "slices": "one field per slice", "votes": "annotator -> labels, as JSON text",
}


def dataset_card(result: RunResult, rows: int, columns: Sequence[str] = ()) -> str:
    """README.md: YAML metadata for the Hub, then what the rows are and where they came from; `columns`: the
    dataset's (listed as they are: the card had listed 23 of 39)."""
    config, info = result.config, result.config.dataset
    title = f"judgebench samples: {config.task} judged by {named_judge(config.judge, config.judge_name)}"  # (an audit:
    # two names of one model read alike)
    header = "\n".join(
        [
            "---",
            f"license: {hub_license(info.license)}",
            f"pretty_name: {json.dumps(md_escape(title))}",  # a YAML double-quoted string: no injected keys; escaped
            # as the card's text is (no raw markup anywhere in the file, though the Hub shows `&lt;` as it is)
            CARD_TAGS,
            "---",  # no `configs:`: `datasets` finds data/train-*.parquet by its name, locally and on the Hub, and
            # keys a local folder's cache by its files (with `configs:` by the folder's name and the card alone)
        ]
    )
    facts = [
        ("task", f"{config.task} (version {config.task_version})"),
        ("dataset", f"{info.source} split {info.split}" + (" — demo data, not the released benchmark" if info.demo else "")),
        ("dataset revision", info.resolved_revision or info.revision or "none recorded"),
        ("dataset fingerprint", info.fingerprint),
        ("judge (self-reported)", config.judge),
        ("judge configuration", f"{config.judge_name or 'no display name'}; hash {run_config_hash(config)} (model, "
                                "answer-changing arguments and prompt)"),
        ("judge arguments (self-reported)",
         ", ".join(f"{k}={v}" for k, v in sorted(redact_value(config.judge_args).items())) or "none"),
        ("prompt template", config.prompt_template),
        ("prompt template hash (sha256)", config.prompt_template_hash),
        ("dimension mode", config.dimension_mode),
        ("orders", "both (AB and BA)" if config.swap else "AB only"),
        ("partial run", "yes" if config.partial else "no"),
        ("seed", str(config.seed)),
        ("judgebench version", config.judgebench_version),
        ("run started", config.started_at),
    ]
    body = [
        f"# {md_escape(title)}",
        "",
        f"{rows} judgments written by [judgebench](https://pypi.org/project/judgebench/): one row per "
        "example, dimension and order (`AB` as in the dataset, `BA` swapped), with the judge's raw "
        "answer, the parsed verdict, the human label and the call's usage.",
        "",
        "| | |",
        "|---|---|",
        *(f"| {name} | {md_escape(value)} |" for name, value in facts),
        "",
        "## Metrics",
        "",
        _metrics_table(result.metrics, config.headline),
        "",
        f"Counts: {result.counts.calls} judgments, {result.counts.answered} answered, "
        f"{result.counts.invalid} invalid, {result.counts.failed} failed (coverage {result.counts.coverage:.3f}).",
        "",
        "## Licence of the source data",
        "",
        f"The questions, responses and human labels come from `{info.source}`, licence: "
        f"**{info.license or 'not stated in the task definition'}** (as recorded in the run). "
        "They remain under that licence; the judge's answers are added by this run."
        + (" These rows use judgebench's demo split, written by the judgebench authors, not the released data." if info.demo else ""),
        "",
        "## Columns",
        "",
        ", ".join(f"`{c}`" + (f" ({COLUMN_NOTES[c]})" if c in COLUMN_NOTES else "") for c in columns)
        + ": the fields of samples.jsonl (docs/guide/outputs.md).",
        "",
        "```python",
        "from datasets import load_dataset, load_from_disk",
        'rows = load_dataset("EXPORT_DIR", split="train")  # the folder judgebench export wrote (its data/*.parquet)',
        f'rows = load_from_disk("EXPORT_DIR/{DISK_FOLDER}")  # the same rows, as the saved Dataset',
        'rows = load_dataset("OWNER/REPO", split="train")  # after --push-to-hub OWNER/REPO',
        "```",
    ]
    return header + "\n\n" + "\n".join(body) + "\n"


def _metrics_table(metrics: dict[str, dict[str, MetricValue]], headline: str) -> str:
    """The card's metrics per dimension, the task's headline first and marked (a walkthrough: which one ranks the
    run was not said)."""
    lines = ["| dimension | metric | value | 95% CI | n |", "|---|---|---|---|---|"]
    names = [headline, *(name for name in CARD_METRICS if name != headline)]
    for dimension, values in metrics.items():
        for name in names:
            value = values.get(name)
            if value is None or value.value is None:
                continue
            ci = f"[{value.ci_low:.4f}, {value.ci_high:.4f}]" if value.ci_low is not None else ""
            shown = f"**{name}** (headline)" if name == headline else name
            lines.append(f"| {dimension} | {shown} | {value.value:.4f} | {ci} | {value.n} |")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- export and push


def _check_repo_id(repo: str) -> None:
    """A Hub repo id (`name` or `owner/name`) as the Hub takes it, or one line naming the flag."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(repo)
    except HFValidationError as exc:
        raise JudgebenchError(f"--push-to-hub {repo!r}: not a Hub repo id ({one_line(str(exc), 160)})") from None


def export_hf(run_dir: Path, output: Path, push_to_hub: str | None = None, private: bool = False) -> Export:
    """Write the Dataset, its Parquet copy and the card; then push when asked."""
    from judgebench.core.rundir import read_run

    check_export_folder(output)
    result, records = read_run(run_dir)
    if not records:
        raise JudgebenchError(f"{run_dir}: samples.jsonl has no judgments to export")
    if push_to_hub:
        _check_repo_id(push_to_hub)  # before anything is written (a bad name was refused after the export)
    token = _hub_token() if push_to_hub else None
    dataset = to_dataset(records)
    card = dataset_card(result, len(records), dataset.column_names)
    _save(dataset, card, output)
    exported = Export(output=output, rows=len(records))
    if push_to_hub:
        _push(dataset, card, push_to_hub, token, private, output)
        exported.pushed_to = push_to_hub
    return exported


_SAVED = ("state.json", "dataset_info.json")  # what save_to_disk leaves beside its Arrow files
EXPORT_MARKERS = (*(f"{DISK_FOLDER}/{name}" for name in _SAVED), CARD_FILE)  # what an export leaves
_OLD_MARKERS = (*_SAVED, CARD_FILE)  # an export before 2026-12-07 (save_to_disk's files at the top)


def check_export_folder(output: Path) -> None:
    """--output is a new or empty folder, or an earlier export (its files are replaced), holding no symbolic link
    (an outside attack had the Arrow files, state.json and the Parquet copy written through links out of it; a
    user's own README.md in a folder given had been replaced)."""
    if output.is_symlink():
        raise JudgebenchError(f"--output {output}: is a symbolic link; export writes a folder of its own")
    if not output.exists():
        return
    if not output.is_dir():
        raise JudgebenchError(f"--output {output}: exists and is not a directory")
    top = list(output.iterdir())  # (a link among its own entries is named below: a linked disk/ reads as no export)
    if top and not _is_earlier_export(output) and not any(entry.is_symlink() for entry in top):
        raise JudgebenchError(f"--output {output}: a folder that is neither empty nor an earlier export; choose a new one")
    for name in ("data", DISK_FOLDER):  # replaced whole below: checked before anything is removed or written
        if (output / name).exists() and not (output / name).is_dir():
            raise JudgebenchError(f"--output {output}: {output / name} is not a folder; an export writes its own there")
    for folder, names, files in os.walk(output):
        for name in [*names, *files]:
            if os.path.islink(os.path.join(folder, name)):
                raise JudgebenchError(f"--output {output}: {os.path.join(folder, name)} is a symbolic link; export "
                                      "writes only regular files under its folder")


def _is_earlier_export(output: Path) -> bool:
    """The files an export leaves are there, and README.md is an export's card (a folder of the user's own that
    holds a README.md and a saved Dataset is none)."""
    if not any(all((output / name).is_file() for name in markers) for markers in (EXPORT_MARKERS, _OLD_MARKERS)):
        return False
    try:
        with open_regular(output / CARD_FILE, "rb") as handle:
            return CARD_TAGS.encode() in handle.read(4096).split(b"\n---", 1)[0]  # (in the YAML header)
    except OSError:
        return False


def _save(dataset: Any, card: str, output: Path) -> None:
    output.mkdir(parents=True, exist_ok=True)
    for folder in (output / "data", output / DISK_FOLDER):  # an earlier export's (check_export_folder: folders
        if folder.is_dir():  # without a link): a file left there would be read with the new rows (data/*.parquet)
            shutil.rmtree(folder)
    for old in [*(output / name for name in _SAVED), *output.glob("data-*-of-*.arrow"), *output.glob("cache-*.arrow")]:
        old.unlink(missing_ok=True)  # an export's top-level Dataset before 2026-12-07, now under disk/
    dataset.save_to_disk(str(output / DISK_FOLDER))
    (output / PARQUET_FILE).parent.mkdir(parents=True, exist_ok=True)
    dataset.to_parquet(str(output / PARQUET_FILE))
    write_atomic(output / CARD_FILE, card)


def _hub_token() -> str:
    """The Hub token, or a one-line error when pushing cannot work (offline or not logged in)."""
    from huggingface_hub import get_token

    token = get_token()
    if not token:
        raise JudgebenchError("--push-to-hub: no Hugging Face token; set HF_TOKEN or run `hf auth login` (nothing written)")
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise JudgebenchError("--push-to-hub: the Hub is unreachable in offline mode (HF_HUB_OFFLINE is set; nothing written)")
    return token


def _push(dataset: Any, card: str, repo: str, token: str, private: bool, output: Path) -> None:
    from huggingface_hub import HfApi

    try:
        dataset.push_to_hub(repo, token=token, private=private)
        HfApi(token=token).upload_file(
            path_or_fileobj=card.encode("utf-8"), path_in_repo=CARD_FILE, repo_id=repo, repo_type="dataset"
        )
    except Exception as exc:  # network, auth and Hub errors come in many types
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise JudgebenchError(
            f"--push-to-hub {repo}: upload failed ({type(exc).__name__}: {first}); the export is in {output}"
        ) from None
