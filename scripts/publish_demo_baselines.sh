#!/usr/bin/env bash
# Maintenance: run every built-in baseline judge on both demo splits and submit the runs to
# leaderboards/ (validated by `judgebench submit`; tables rebuilt by code). Offline, ~1 minute.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for task in sciarena_eval ideation_arena_eval; do
  for judge in longer shorter more-citations random always-a; do
    judgebench run --tasks "$task" --judge "builtin/$judge" --demo --quiet --output-path "$work/$task-$judge" >/dev/null
    judgebench submit "$work/$task-$judge" --leaderboard-dir leaderboards/
  done
done
