"""Rubric judges: pointwise grading against a rubric, calibrated against expert scores (issue 14).

kind      the rubric kind (kinds/base.py's protocol), each step imported when it runs
spec      `kind: rubric` task YAML (tasks/rubric/, --include-path) and its data file
hub       rubric data through the real `datasets` path (Hub ids, Parquet, dataset folders)
records   GradedResponse, RubricRecord (samples.jsonl, with the attempt ledger), RubricResult
validate  strict reply validation: rejected with a reason, never clamped
judging   requests (rubric in the context), re-ask test, records; no-answer rows need no call
judges    builtin/full-credit and builtin/length-proportional
metrics   pure calibration metrics (catalogue.RUBRIC_METRICS describes them)
scoring   metrics with cluster-bootstrap intervals, slices, system level, repeats, coverage
run       the job: shared runner and cache, run directory, re-score
board     leaderboard table, compare (paired test on per-item absolute errors), submit checks
verify    `rubric submit`: a run re-checked from its raw replies before it is stored
index     rubric runs as their own tables in the main `judgebench leaderboard`
report    report.md with the scatter, per-slice bias and model-exam totals plots

Its command line, `judgebench rubric run|score|leaderboard|report|compare|agree|submit`, is cli/rubric.py.
"""
