"""The layout of a run directory: which files a run writes and reads back.

results.json   the run's config, metrics, counts and usage (RunResult)
samples.jsonl  one JudgmentRecord per judgment: the source of truth for every re-score
task.yaml      a copy of the resolved task definition, so the run can be re-scored alone
prompt.yaml    a copy of the prompt template the run rendered
report/        `judgebench report` output

A run's own task.yaml and prompt.yaml are conveniences for the user who made the run
(`score`, `report`, `leaderboard`). `submit` never loads them: it verifies against the
tasks and templates the leaderboard already holds.
"""

from __future__ import annotations

RESULTS_FILE = "results.json"
SAMPLES_FILE = "samples.jsonl"
TASK_FILE = "task.yaml"
PROMPT_FILE = "prompt.yaml"
REPORT_DIR = "report"
