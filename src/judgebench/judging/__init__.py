"""Running a judge over a task: prompts, requests, the pipeline (plan -> calls -> records -> scores), streaming chunks, shards, dry runs, several judges and panels as runs."""
