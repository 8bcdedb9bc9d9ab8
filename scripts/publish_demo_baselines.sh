#!/usr/bin/env bash
# Maintenance: run every built-in baseline judge on both demo splits and submit the runs to a fresh
# leaderboard (validated by `judgebench submit`; tables rebuilt by code), then replace leaderboards/
# with it. Built in a temp folder so a failed submission leaves the committed board as it was.
# Offline, ~1 minute.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for task in sciarena_eval ideation_arena_eval; do
  for judge in longer shorter more-citations random always-a; do
    judgebench run --tasks "$task" --judge "builtin/$judge" --demo --quiet --output-path "$work/$task-$judge" >/dev/null
    judgebench submit "$work/$task-$judge" --leaderboard-dir "$work/board" >/dev/null
  done
done
for judge in full-credit length-proportional; do  # rubric judges (docs/guide/rubric.md): their own table, leaderboards/rubric/
  judgebench rubric run --task rubric_demo --judge "builtin/$judge" --demo --quiet --output-path "$work/rubric-$judge" >/dev/null
  judgebench rubric submit "$work/rubric-$judge" --leaderboard-dir "$work/board" >/dev/null
done
rm -rf leaderboards
cp -r "$work/board" leaderboards
echo "rebuilt leaderboards/ from $(find leaderboards/entries -name results.json | wc -l) entries"
