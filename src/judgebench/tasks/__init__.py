"""Tasks and their data: the task registry (YAML), loading examples through `datasets` (streamed and cached), cell types, and annotator-level votes."""
