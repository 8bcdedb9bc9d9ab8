"""Run the README's offline commands and fingerprint every file they write, to prove a refactor changed nothing.

    python scripts/check_outputs_unchanged.py --save before.json      # on the old commit
    python scripts/check_outputs_unchanged.py --compare before.json   # on the new one: exit 1 on any difference

Each command runs as `python -m judgebench ...` in a scratch folder (the interpreter's own judgebench). JSON and
JSONL files are compared with versions, timestamps and durations removed; Markdown, CSV and HTML with the same
values blanked where they print; PNG plots by their pixels (matplotlib's metadata names its version).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# The README's offline jobs, in order (a later one reads an earlier one's folder).
COMMANDS: list[list[str]] = [
    ["run", "--tasks", "sciarena_eval", "--judge", "builtin/longer", "--demo", "--output-path", "out"],
    ["run", "--tasks", "sciarena_eval", "--judge", "builtin/random", "--demo", "--output-path", "out2"],
    ["run", "--tasks", "sciarena_eval", "--judge", "builtin/always-a", "--demo", "--no-swap", "--output-path", "out3"],
    ["leaderboard", "out", "out2", "out3", "--output-dir", "lb"],
    ["score", "out"],
    ["report", "out"],
    ["run", "--tasks", "ideation_arena_eval", "--judge", "builtin/longer", "--demo", "--output-path", "ideation"],
    ["report", "ideation"],
    ["compare", "out", "out2", "--output", "compare.md"],
    ["panel", "out", "out2", "--aggregate", "majority", "--output-path", "panel"],
    ["export", "out", "--format", "hf", "--output", "hf_out"],
    ["run", "--tasks", "human_votes_demo", "--judge", "builtin/longer", "--demo", "--output-path", "votes"],
    ["leaderboard", "votes", "--output-dir", "lb_votes"],
    ["run", "--tasks", "sciarena_eval", "--demo", "--judge", "builtin/longer", "--judge", "builtin/shorter",
     "--output-path", "jury", "--panel", "majority"],
    ["run", "--tasks", "sciarena_eval", "--demo", "--judge", "builtin/longer", "--shard", "1/2", "--output-path", "s1"],
    ["run", "--tasks", "sciarena_eval", "--demo", "--judge", "builtin/longer", "--shard", "2/2", "--output-path", "s2"],
    ["merge", "s1", "s2", "--output-path", "merged"],
    ["arena", str(REPO / "tasks/demo/arena_votes_demo.jsonl"), "--output-dir", "arena", "--exclude-flagged"],
    ["rubric", "run", "--task", "rubric_demo", "--judge", "builtin/full-credit", "--demo", "--output-path", "rubric"],
    ["rubric", "report", "rubric"],
    ["submit", "out", "--leaderboard-dir", "board"],
    ["tasks"],
]

VOLATILE_KEYS = {"start_time", "end_time", "started", "finished", "created", "created_at", "timestamp", "generated",
                 "generated_at", "judgebench_version", "litellm_version", "datasets_version", "versions", "python",
                 "elapsed_s", "duration_s", "wall_s", "latency_s", "latency", "submitted_at", "seconds"}
VOLATILE_TEXT = [
    re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(\+00:00|Z)?"),   # ISO timestamps
    re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?( UTC)?"),             # printed dates
    re.compile(r"(?i)(judgebench|litellm|datasets|matplotlib|python)[ =]v?\d+\.\d+(\.\d+)?\S*"),
    re.compile(r"\d+(\.\d+)? ?(s|ms) (wall|elapsed)"),
]


def _scrub(value: object) -> object:
    if isinstance(value, dict):
        return {k: ("*" if k in VOLATILE_KEYS else _scrub(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    return value


def _text(text: str, root: str) -> str:
    text = text.replace(root, "<ROOT>")
    for pattern in VOLATILE_TEXT:
        text = pattern.sub("*", text)
    return text


def fingerprint(path: Path, root: str) -> str:
    data = path.read_bytes()
    suffix = path.suffix.lower()
    if suffix == ".png":
        from matplotlib import image

        return hashlib.sha256(image.imread(str(path)).tobytes()).hexdigest()
    if suffix in {".json", ".jsonl"}:
        text = _text(data.decode(), root)
        try:
            lines = [json.loads(text)] if suffix == ".json" else [json.loads(x) for x in text.splitlines() if x]
            data = json.dumps(_scrub(lines), sort_keys=True).encode()
        except json.JSONDecodeError:
            data = text.encode()
    elif suffix in {".md", ".csv", ".html", ".txt", ".yaml", ".yml", ".tsv", ""}:
        data = _text(data.decode(errors="replace"), root).encode()
    return hashlib.sha256(data).hexdigest()


def run_all(workdir: Path) -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "MPLBACKEND": "Agg",
           "JUDGEBENCH_CACHE_DIR": str(workdir / ".cache"), "HF_HOME": str(workdir / ".hf")}
    found: dict[str, str] = {}
    for i, command in enumerate(COMMANDS):
        done = subprocess.run([sys.executable, "-m", "judgebench", *command], cwd=workdir, env=env,
                              capture_output=True, text=True)
        found[f"$ {i:02d} {' '.join(command[:2])} exit"] = str(done.returncode)
        found[f"$ {i:02d} {' '.join(command[:2])} stdout"] = hashlib.sha256(
            _text(done.stdout, str(workdir)).encode()).hexdigest()
    for path in sorted(workdir.rglob("*")):
        rel = path.relative_to(workdir).as_posix()
        if path.is_file() and not rel.startswith((".cache", ".hf")):
            found[rel] = fingerprint(path, str(workdir))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", type=Path, help="write the fingerprints here")
    group.add_argument("--compare", type=Path, help="compare with fingerprints saved before")
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it (default: a temporary one)")
    args = parser.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=False)
        found = run_all(args.keep.resolve())
    else:
        with tempfile.TemporaryDirectory() as tmp:
            found = run_all(Path(tmp))
    if args.save:
        args.save.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        print(f"{len(found)} fingerprints written to {args.save}")
        return 0
    before = json.loads(args.compare.read_text())
    changed = sorted(k for k in before.keys() & found.keys() if before[k] != found[k])
    gone, new = sorted(before.keys() - found.keys()), sorted(found.keys() - before.keys())
    for label, keys in (("changed", changed), ("missing now", gone), ("new", new)):
        for key in keys:
            print(f"{label}: {key}")
    same = len(before.keys() & found.keys()) - len(changed)
    print(f"{same} identical, {len(changed)} changed, {len(gone)} missing, {len(new)} new")
    return 1 if changed or gone or new else 0


if __name__ == "__main__":
    sys.exit(main())
