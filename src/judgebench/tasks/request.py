"""JobRequest: what every judging job of one task takes, whatever its kind (`run`, `rubric run`, a new kind's).

It sits low (the tasks floor, light imports) so each kind's request extends it and the task-kind protocol
(kinds/base.py) can name it: pairwise `judging.pipeline.RunRequest` and `kinds.rubric.run.RubricRunRequest`
add only their own options (and their runner defaults: RunnerOptions is on a higher floor).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from judgebench.core.argtypes import check_field_types
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import check_output_dir, refuse_output_over_inputs
from judgebench.core.records import REPLAY_PREFIX, check_resamples
from judgebench.core.text import display_name_error


def replayed_run(judge: Any) -> Path | None:
    """The run folder a `replay/PATH` judge reads (PATH a run folder, or a file in one), else None: nothing may be
    written inside it (an outside attack replayed a CI baseline into its own folder and lost its answers)."""
    if not isinstance(judge, str) or not judge.startswith(REPLAY_PREFIX) or judge[len(REPLAY_PREFIX):] in ("", "."):
        return None
    path = Path(judge[len(REPLAY_PREFIX):])
    return path if path.is_dir() else path.parent


@dataclass
class JobRequest:
    """The fields every judging command shares, with the ranges the command line checks."""

    max_repeats: ClassVar[int | None] = None  # a kind's upper bound on --repeats (None: only >= 1)
    fractional_limit: ClassVar[bool] = False  # the kind takes --limit 0.1 (a share of the examples)

    task: str
    judge: str
    output_path: Path
    judge_args: dict[str, Any] = field(default_factory=dict)
    include_paths: list[Path] = field(default_factory=list)
    dataset_path: str | None = None
    demo: bool = False
    limit: int | float | None = None  # the first N examples, or a fraction 0 < f < 1 of them
    seed: int = 0
    prompt: str | None = None
    n_resamples: int = 1000
    repeats: int = 1  # samples per judgment (judging/repeats.py)
    min_coverage: float | None = None  # None: the run fails only when nothing was answered
    judge_name: str | None = None  # the judge configuration's display name (judges/config.py); pairwise runs record it
    on_warning: Callable[[str], None] | None = None  # told, before any call, what the setup likely does not mean

    def __post_init__(self) -> None:
        """The types and ranges the command line checks, for Python callers (named by their keyword and their flag: one message for both)."""
        check_field_types(self, type(self).__name__)
        if isinstance(self.limit, float) and self.limit == 1:  # one example, or all of them? (it judged one)
            raise JudgebenchError("limit (--limit): 1.0 is ambiguous: give 1 for one example, or leave limit out for all")
        if isinstance(self.limit, float) and self.limit.is_integer() and self.limit >= 1:
            self.limit = int(self.limit)
        if isinstance(self.limit, float) and not self.fractional_limit:
            raise JudgebenchError(f"limit (--limit): must be an integer >= 1, got {self.limit}")
        if isinstance(self.limit, float) and not 0 < self.limit < 1:
            raise JudgebenchError(f"limit (--limit): a fraction must be between 0 and 1 (exclusive), got {self.limit}")
        if self.limit is not None and self.limit < 1 and not isinstance(self.limit, float):
            raise JudgebenchError(f"limit (--limit): must be >= 1, got {self.limit}")
        check_resamples(self.n_resamples)
        if self.seed < 0:  # (a walkthrough: evaluate(seed=-1) made every call, then failed writing results.json)
            raise JudgebenchError(f"seed (--seed): must be >= 0, got {self.seed}")
        if self.demo and self.dataset_path:  # (evaluate ran the demo and said nothing of the data given)
            raise JudgebenchError("demo and dataset_path (--demo, --dataset-path) exclude each other")
        if self.min_coverage is not None and not 0 <= self.min_coverage <= 1:
            raise JudgebenchError(f"min_coverage (--min-coverage): must be a fraction between 0 and 1, got {self.min_coverage}")
        if self.max_repeats is not None and not 1 <= self.repeats <= self.max_repeats:
            raise JudgebenchError(f"repeats (--repeats): must be between 1 and {self.max_repeats}, got {self.repeats}")
        if self.repeats < 1:
            raise JudgebenchError(f"repeats (--repeats): must be >= 1, got {self.repeats}")
        if self.judge_name is not None and (why := display_name_error(self.judge_name)):
            raise JudgebenchError(f"judge_name: {why}")  # (as a judges file's `name:`)

    def check_outputs(self) -> None:
        """Before any work, for Python callers as on the command line (where cli.main's guard runs first): the
        output folder can be written, and it is none of the files the job reads (its data or prompt file) nor
        the run folder one of them lies in."""
        inputs = [Path(path) for path in (self.dataset_path, self.prompt) if path]
        runs = [run] if (run := replayed_run(self.judge)) is not None else []
        refuse_output_over_inputs([("--output-path", self.output_path)], inputs, runs)
        check_output_dir(self.output_path)
