#!/usr/bin/env bash
# The README's "Build your own judge benchmark" loop, end to end and offline:
# questions -> pairs (the local test server plays three models) -> votes (four scripted browsers)
# -> export -> frozen split -> a judge run on it. Usage: scripts/annotate_demo.sh [WORK_DIR]
# Needs the test extra (aiohttp, selenium) and /usr/bin/chromium + chromedriver for the voters.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
cd "$work"
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

# 1. Three stand-in models: the OpenAI-compatible test server answering in Markdown ("@essay").
python "$repo/tests/openai_server.py" --config '{"default": {"answer": "@essay", "latency_s": 0.05}}' > models.log &
pids+=($!)
until grep -q PORT models.log 2>/dev/null; do sleep 0.1; done
api="http://127.0.0.1:$(awk '/PORT/ {print $2}' models.log)/v1"

# 2. Every model answers every question; all model pairs per question (3 per question).
args=()
for m in alpha beta gamma; do args+=(--model-args "openai/$m=api_base=$api,api_key=sk-demo,temperature=0.7"); done
judgebench pairs "$repo/docs/examples/annotate_questions.jsonl" --models openai/alpha,openai/beta,openai/gamma \
  "${args[@]}" --slices field --seed 0 --output pairs --cache-dir cache --no-progress

# 3. The voting page, four annotators (one of them votes at random), three votes per pair.
rm -f votes.sqlite*
for a in ann1 ann2 ann3 ann4; do
  judgebench annotate pairs/pairs.jsonl --db votes.sqlite --add-annotator "$a" --port 8089 | tail -1 > "invite-$a.txt"
done
judgebench annotate --db votes.sqlite --add-annotator admin --admin --port 8089 | tail -1 > invite-admin.txt
judgebench annotate --db votes.sqlite --port 8089 --target-votes 3 > server.log 2>&1 &
pids+=($!)
until grep -q serving server.log 2>/dev/null; do sleep 0.1; done
for a in ann1 ann2 ann3; do python "$repo/scripts/browser_voter.py" "$(cat "invite-$a.txt")" --policy longer --seed "${a#ann}" & done
python "$repo/scripts/browser_voter.py" "$(cat invite-ann4.txt)" --policy random --seed 4
wait %3 %4 %5 2>/dev/null || wait

# 4. Export the annotator-level votes (votes.py layout: arena, the human ceiling and freeze read it).
judgebench annotate --db votes.sqlite --export votes.jsonl

# 5. Model ratings and voter checks from the exported votes; arena/flagged.txt lists the flagged voters
# (at this size the chi-square test flags nobody, ann4 included: see docs/guide/arena.md "Power"; the
# annotator table still shows ann4's low agreement with the majority).
judgebench arena votes.jsonl --output-dir arena --n-resamples 200

# 6. Freeze a split balanced by slice and label (arena's flagged.txt read as it is), then run judges on
# it as a task: the frozen task carries the kept annotator-level votes, so the board has a human row.
judgebench freeze votes.jsonl --pairs pairs/pairs.jsonl --split-size 8 --seed 0 \
  --exclude-annotators arena/flagged.txt --name demo_judge_eval --output frozen
judgebench run --tasks frozen/demo_judge_eval.yaml --judge builtin/longer --output-path runs/longer --quiet
judgebench run --tasks frozen/demo_judge_eval.yaml --judge builtin/shorter --output-path runs/shorter --quiet
judgebench leaderboard runs/longer runs/shorter --output-dir board
echo "work folder: $work"
