"""The Python API: what the command line does, callable from notebooks and scripts.

    import judgebench

    run = judgebench.evaluate("sciarena_eval", "builtin/longer", output_path="out/", demo=True)
    runs = judgebench.evaluate_judges("sciarena_eval", ["builtin/longer", "builtin/shorter", "builtin/random"],
                                      output_path="out3/", demo=True, panel="majority")  # OUT/<judge>/, OUT/panel/
    print(run.result.metrics["overall"]["accuracy"].value)
    result = judgebench.score_run("out/")            # re-score from samples.jsonl: no calls
    result, records = judgebench.read_run("out/")    # typed results and per-judgment records
    judgebench.build_leaderboard(["out/"], "lb/")    # md, csv, json, html tables
    judgebench.compare_runs("runs/old/", "runs/new/")  # paired comparison of two runs
    judgebench.build_panel(["a/", "b/", "c/"], "panel/", aggregate="majority")  # a panel: no calls

The names differ from the modules (`judgebench.scoring.compare`, `judgebench.publish.leaderboard`) on purpose: a
submodule import would replace a package attribute of the same name.

Errors in the input raise `judgebench.JudgebenchError` with the same one-line message the CLI prints.
The CLI calls these functions; each imports its heavy dependencies only when called.
"""

from __future__ import annotations

import os
from dataclasses import replace
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from judgebench.core.errors import JudgebenchError, JudgebenchWarning

if TYPE_CHECKING:
    from judgebench.calls import RunnerOptions
    from judgebench.core.records import JudgmentRecord, RunResult
    from judgebench.judges.base import Judge
    from judgebench.judging.multirun import JudgeChoice, MultiSummary
    from judgebench.judging.pipeline import RunRequest, RunSummary
    from judgebench.scoring.compare import Comparison


def evaluate(
    task: str,
    judge: str | Judge,
    *,
    output_path: str | Path,
    judge_args: dict[str, Any] | None = None,
    judge_name: str | None = None,
    demo: bool = False,
    dataset_path: str | None = None,
    split: str | None = None,
    revision: str | None = None,
    include_paths: Iterable[str | Path] = (),
    limit: int | float | None = None,  # a count, or a fraction 0 < f < 1 of the examples
    swap: bool = True,
    seed: int = 0,
    prompt: str | None = None,
    dimension_mode: Literal["separate", "joint"] | None = None,
    both_bad: Literal["tie", "exclude"] | None = None,
    n_resamples: int = 1000,
    repeats: int = 1,
    min_coverage: float | None = None,
    log_text: bool = True,
    judge_unlabelled: bool = False,
    runner: RunnerOptions | None = None,
    shard: str | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> RunSummary:
    """Judge every example of one task, write the run directory and return its summary.

    `summary.result` is the typed results.json; `summary.stopped` says why a run stopped early and
    `summary.coverage_failure` why its answered share is too low (both None when all went well).
    `repeats=N` samples each judgment N times (`summary.result.stability`; docs/guide/running-judges.md).
    `shard="K/N"` judges only the K-th of N blocks of examples (merge the shards with `judgebench merge`).
    `judge_name` is the judge configuration's display name (tables show it; judges/config.py).
    `judge_unlabelled=True` judges examples without a label too, into unlabelled.jsonl (counted in
    `summary.result.unlabelled`, never scored; `arena --judge-run` reads them).
    `judge` is a judge id as on the command line, or your own `judgebench.Judge` object (or
    `judgebench.function_judge(id, fn)`; docs/design/recipes.md, "How to add a judge").
    """
    options = dict(locals())  # exactly this function's parameters
    from judgebench.judging.pipeline import run_task

    return run_task(run_request(**options))


def evaluate_judges(
    task: str,
    judges: Iterable[str | tuple[str, dict[str, Any]] | Judge],
    *,
    output_path: str | Path,
    panel: Literal["majority", "mean", "unanimous-else-tie"] | None = None,
    on_run: Callable[[RunSummary], None] | None = None,
    **options: Any,
) -> MultiSummary:
    """Several judges on one task: OUT/<judge>/ per judge, OUT/judges.json, and with `panel` OUT/panel/.

    `judges`: ids, (id, judge_args) pairs, `JudgeConfig`s (judges/config.py) or Judge objects; `options`: every other keyword of `evaluate`. `on_run`
    is called with each judge's RunSummary as it finishes (multirun.py). `judge_args` apply to every judge given by id
    or configuration, under each one's own (as `--judge-args` with several `--judge`); a Judge object takes none.
    """
    from judgebench.judging.multirun import run_judges
    from judgebench.judging.panel import AGGREGATES

    if panel is not None and panel not in AGGREGATES:
        raise JudgebenchError(f"evaluate_judges: panel must be one of {', '.join(map(repr, AGGREGATES))} or None, got {panel!r}")
    on_run = _arg(on_run, Callable[..., Any] | None, "evaluate_judges", "on_run")
    choices = [_judge_choice(j) for j in _many(judges, "evaluate_judges", "judges")]
    _distinct_own_ids(choices)
    if not choices:
        raise JudgebenchError("evaluate_judges: give at least one judge")
    if "judge" in options:
        raise JudgebenchError("evaluate_judges: give the judges as `judges` (a list), not `judge`")
    if options.get("judge_name") is not None and len(choices) > 1:
        raise JudgebenchError("evaluate_judges: judge_name names one judge; name each judge in its "
                              "JudgeConfig(name=...) instead")
    shared = _judge_args(options.pop("judge_args", None), "evaluate_judges")
    choices = [c if c.judge_object is not None else replace(c, judge_args={**shared, **c.judge_args}) for c in choices]
    base = run_request(task=task, judge=choices[0].judge, output_path=output_path, **options)
    return run_judges(base, choices, panel=panel, on_run=on_run)


def _judge_choice(judge: Any) -> JudgeChoice:
    """A multirun.JudgeChoice from an id, an (id, judge_args) pair (any two-item sequence) or a Judge object."""
    from judgebench.judging.multirun import JudgeChoice

    if isinstance(judge, JudgeChoice):  # its arguments' names checked as a pair's are (a config's {1: 2} was sent)
        _judge_args(judge.judge_args, "evaluate_judges")
        return judge
    if isinstance(judge, str):
        return JudgeChoice(judge)
    args: dict[str, Any] | None = None
    if isinstance(judge, (tuple, list)) and len(judge) == 2:
        judge, args = judge[0], _judge_args(judge[1], "evaluate_judges")
        if isinstance(judge, str):
            return JudgeChoice(judge, args)
    if not _is_judge(judge):
        raise JudgebenchError(f"evaluate_judges: each judge must be an id, an (id, judge_args) pair, a JudgeConfig or a "
                              f"judgebench.Judge object, got {type(judge).__name__} {_short(judge)}")
    from judgebench.judges.own import own_judge

    own = own_judge(judge, args)
    return JudgeChoice(own.id, {}, own)


def _distinct_own_ids(choices: list[JudgeChoice]) -> None:
    """Two judges named alike would be told apart by nothing but their folders (and a cached one would
    serve the other's answers): a Judge object's id must differ from every other judge's, in any case."""
    for i, choice in enumerate(choices):
        if choice.judge_object is None:
            continue
        same = [c.judge for j, c in enumerate(choices) if j != i and c.judge.lower() == choice.judge.lower()]
        if same:
            raise JudgebenchError(f"evaluate_judges: judge id {choice.judge!r} is given twice; give each judge object its own id")


def run_request(**options: Any) -> RunRequest:
    """A RunRequest from `evaluate`'s keywords (the same names as RunRequest's fields), with paths made
    Paths and the quiet runner by default; an unknown keyword is a TypeError. A Judge object as
    `judge` runs as itself (judges/own.py), under its id."""
    from judgebench.calls import RunnerOptions
    from judgebench.judging.pipeline import RunRequest

    if not isinstance(options.get("judge"), str):
        from judgebench.judges.own import own_judge

        options["judge_object"] = own = own_judge(options["judge"], options.get("judge_args"))
        options["judge"] = own.id
    output_path = _path(options.pop("output_path"), "evaluate", "output_path")
    judge_args = _judge_args(options.pop("judge_args", None), "evaluate")
    include_paths = _paths(options.pop("include_paths", ()), "evaluate", "include_paths")
    for name in ("dataset_path", "prompt"):  # a Path is as good as its text
        if isinstance(options.get(name), Path):
            options[name] = str(options[name])
    runner = options.pop("runner", None) or RunnerOptions()
    options["on_warning"] = _told(_arg(options.get("on_warning"), Callable[..., Any] | None, "evaluate", "on_warning"))
    return RunRequest(output_path=output_path, judge_args=judge_args, include_paths=include_paths, runner=runner, **options)


def _plain_value(value: Any) -> Any:
    """A numpy number or array (np.arange's values) as the Python value it stands for: a float32 by its shortest
    digits (0.1, not 0.10000000149011612, which had named the folder and been sent); anything else as it is."""
    if hasattr(value, "dtype") and hasattr(value, "tolist"):
        if getattr(value, "ndim", 1) == 0 and value.dtype.kind == "f":
            return float(str(value))
        return value.tolist()
    return value


def _setting_text(value: Any) -> str:
    """A sweep value as `--sweep` would spell it: text as it is, anything else as JSON (true, null, [1, 2], {...}:
    str() had made Python's True and {'a': 1}, which are no JSON)."""
    if isinstance(value, str):
        return value
    import json

    try:
        return json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        raise JudgebenchError(f"sweep: each value must be text or a JSON value, got {type(value).__name__} {_short(value)}") from None


def _shown_settings(key: str, settings: list[str], given: list[Any]) -> dict[str, str]:
    """Each sweep value as its folder name and table rows show it (a URL's userinfo and query values as ***), each
    typed once as the judge takes it (judge_args.convert_judge_args; thinking_budget is stored as thinking). Refused:
    a key that holds a secret (api_key, a header: every header value is one) or a value holding one (a JSON object
    with an api_key inside), since each value names a folder and a table row (an outside attack: keys in clear); and
    two values that are one setting once typed (`temperature=0,0.0,-0`: the same runs paid twice)."""
    import json

    from judgebench.core.secrets import is_secret_name, redact_value
    from judgebench.judges.args import convert_judge_args

    advice = "run each setting with judge_args (--judge-args) instead"
    shown: dict[str, str] = {}
    seen: dict[str, str] = {}
    for value, original in zip(settings, given):
        try:
            args, headers = convert_judge_args({key: original})
        except JudgebenchError as exc:
            raise JudgebenchError(str(exc).replace("--judge-args ", "--sweep ", 1)) from None
        if is_secret_name(key) or headers:
            raise JudgebenchError(f"sweep: {key} holds a secret, and a sweep writes its values into folder names and "
                                  f"tables; {advice}")
        typed = next(iter(args.values()), value)
        if isinstance(typed, (dict, list)) and redact_value(typed) != typed:
            raise JudgebenchError(f"sweep: a value of {key} holds a secret (a key named like one), and a sweep writes "
                                  f"its values into folder names and tables; {advice}")
        stored = json.dumps(0.0 if typed == 0 and isinstance(typed, float) else typed, sort_keys=True)  # -0.0 too
        if (twin := seen.setdefault(stored, value)) != value:
            raise JudgebenchError(f"sweep: values {twin!r} and {value!r} of {key} are one setting ({stored})")
        shown[value] = str(redact_value(value))
    return shown


def _refuse_near_miss(key: str) -> None:
    """A swept key one letter off a known argument (`reasoning_efort`) is refused, where judge_args only warns: the
    provider likely ignores it, so every setting answers alike and the curve is flat (a walkthrough: it ran, warned under
    --judge-args, and exited 0). A name close to none is a provider's own and swept as given."""
    from judgebench.judges.args import near_miss

    if close := near_miss(key):
        raise JudgebenchError(f"--sweep {key}: not an argument judgebench knows; did you mean {close}? (refused: a "
                              "sweep over an argument the provider ignores draws a flat curve; a provider's own argument "
                              f"of that name: run each value with --judge-args {key}=V, which sends it with a warning, "
                              "and compare the runs)")


def _told(on_warning: Callable[[str], None] | None) -> Callable[[str], None]:
    """Where a call's warnings go: the caller's `on_warning`, else Python's warnings module (JudgebenchWarning,
    shown once per message by the default filters)."""
    return on_warning if on_warning is not None else _python_warning


def _python_warning(message: str) -> None:
    """The warning, attributed to the caller's own line (the first frame outside judgebench), so that the warnings
    module's filters by module and its "once per location" see the caller's code."""
    import sys
    import warnings

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    level, frame = 2, sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, JudgebenchWarning, stacklevel=level)


def _path(value: Any, call: str, name: str) -> Path:
    """A path argument: a str, a Path or any path-like object, else one line naming the keyword."""
    if not isinstance(value, (str, os.PathLike)) or not isinstance(os.fspath(value), str) or not os.fspath(value):
        raise JudgebenchError(f"{call}: {name} must be a path (str or Path), got {type(value).__name__} {_short(value)}")
    return Path(value)


def _arg(value: Any, hint: Any, call: str, name: str) -> Any:
    """A keyword's value in its hinted type (numpy's numbers as Python's), else one line naming it (argtypes.py)."""
    from judgebench.core.argtypes import fitted_or_refused

    return fitted_or_refused(hint, value, f"{call}: {name}")


def _short(value: Any) -> str:
    from judgebench.core.argtypes import shown

    return shown(value)


def _is_judge(value: Any) -> bool:
    from judgebench.judges.base import Judge

    return isinstance(value, Judge)


def _many(values: Any, call: str, name: str) -> list[Any]:
    """A list argument: any iterable but a bare str or Path (whose characters would be taken one by one)."""
    if isinstance(values, (str, bytes, Path)) or not isinstance(values, Iterable):
        raise JudgebenchError(f"{call}: {name} must be a list, got {type(values).__name__} {_short(values)}"
                              + (f" (write [{str(values)!r}])" if isinstance(values, (str, Path)) else ""))
    return list(values)


def _paths(values: Any, call: str, name: str) -> list[Path]:
    return [_path(value, call, name) for value in _many(values, call, name)]


def _judge_args(value: Any, call: str) -> dict[str, Any]:
    """judge_args: a dict or any mapping (None: none); the values are checked where they are converted (args.py)."""
    if value is not None and not isinstance(value, Mapping):
        raise JudgebenchError(f"{call}: judge_args must be a dict, got {type(value).__name__} {_short(value)}")
    for key in value or {}:  # (1, None or ("a",) had become the names "1", "None", "('a',)", sent to the provider)
        if not isinstance(key, str) or not key.strip():
            raise JudgebenchError(f"{call}: judge_args: each name must be non-empty text, got {type(key).__name__} {_short(key)}")
    return dict(value or {})


def score_run(
    run_dir: str | Path, *, include_paths: Iterable[str | Path] = (), n_resamples: int | None = None
) -> RunResult:
    """Re-parse the raw answers of a finished run and recompute its results (no judge calls).

    `n_resamples` (default: the run's own) changes the bootstrap resample count of its intervals.
    """
    from judgebench.scoring.score import rescore_run

    return rescore_run(_path(run_dir, "score_run", "run_dir"), _paths(include_paths, "score_run", "include_paths"),
                       _arg(n_resamples, int | None, "score_run", "n_resamples"))


def read_run(run_dir: str | Path) -> tuple[RunResult, list[JudgmentRecord]]:
    """The typed results.json and samples.jsonl of a run directory."""
    from judgebench.core.rundir import read_run as _read_run

    return _read_run(_path(run_dir, "read_run", "run_dir"))


def build_leaderboard(
    results: Iterable[str | Path],
    output_dir: str | Path,
    *,
    include_paths: Iterable[str | Path] = (),
    on_warning: Callable[[str], None] | None = None,
) -> list[Path]:
    """Build the leaderboard tables (md, csv, json per task, and index.html) from runs; the paths written.

    Rubric runs among them get their own tables under OUTPUT/rubric/, shown as sections of index.html.

    An unreadable run or one of an unknown task is skipped and reported through `on_warning`.
    """
    from judgebench.kinds.rubric.index import (
        check_rubric_tables,
        rubric_sections,
        split_runs,
        write_rubric_tables,
    )
    from judgebench.publish.leaderboard import collect_tables
    from judgebench.publish.tables import write_leaderboards

    from judgebench.core.files import check_output_dir, refuse_output_over_inputs

    runs = _paths(results, "build_leaderboard", "results")
    out = _path(output_dir, "build_leaderboard", "output_dir")
    refuse_output_over_inputs([("build_leaderboard: output_dir", out)], [], runs)  # as the command line's guard: never
    # into a run it reads (an outside attack wrote the tables into an input run from Python)
    check_output_dir(out, "build_leaderboard: output_dir")  # before reading any run: a file in its place, a folder that cannot be written
    pairwise, rubric = split_runs(runs)  # rubric runs: OUTPUT/rubric/ + index sections
    tables, warnings = collect_tables(pairwise, _paths(include_paths, "build_leaderboard", "include_paths")) if pairwise else ({}, [])
    rubric_tables, sections = rubric_sections(rubric, warnings)
    for message in warnings:
        _told(on_warning)(message)
    if not tables and not rubric_tables:  # every run was skipped: an empty leaderboard must not look like success
        count = len(pairwise) + len(rubric)
        first = f"; the first {warnings[0]}" if warnings else ""
        raise JudgebenchError(f"no leaderboard written: none of the {count} results file(s) could be used{first}")
    check_rubric_tables(rubric_tables, out)  # before the pairwise tables are written (as every path of theirs is)
    written = write_leaderboards(tables, out, extra=sections)
    return written + write_rubric_tables(rubric_tables, out)


def compare_runs(baseline: str | Path, candidate: str | Path, *, seed: int = 0) -> Comparison:
    """Paired comparison of two runs of one task on their common examples."""
    from judgebench.scoring.compare import compare_runs as _compare_runs

    return _compare_runs(_path(baseline, "compare_runs", "baseline"), _path(candidate, "compare_runs", "candidate"),
                         seed=_arg(seed, int, "compare_runs", "seed"))


def build_panel(
    run_dirs: Iterable[str | Path],
    output_path: str | Path,
    *,
    aggregate: Literal["majority", "mean", "unanimous-else-tie"] = "majority",
    include_paths: Iterable[str | Path] = (),
    n_resamples: int | None = None,
    on_warning: Callable[[str], None] | None = None,
) -> RunResult:
    """Build a panel run directory from finished runs of one task (no judge calls); its results.

    `result.panel` holds the members' agreement, the panel against its best member and the biases. `on_warning`
    is told when `output_path` holds another run that the panel replaces.
    """
    from judgebench.judging.panel import build_panel as _build_panel

    return _build_panel(
        _paths(run_dirs, "build_panel", "run_dirs"),
        aggregate,
        _path(output_path, "build_panel", "output_path"),
        include_paths=_paths(include_paths, "build_panel", "include_paths"),
        n_resamples=_arg(n_resamples, int | None, "build_panel", "n_resamples"),
        on_warning=_told(_arg(on_warning, Callable[..., Any] | None, "build_panel", "on_warning")),
    )


def sweep(
    task: str,
    judge: str,
    key: str,
    values: Iterable[Any],
    *,
    output_path: str | Path,
    judge_args: dict[str, Any] | None = None,
    on_run: Callable[[RunSummary], Any] | None = None,
    **options: Any,
) -> list[dict[str, Any]]:
    """`run --sweep KEY=V1,V2,...` from Python (docs/guide/confidence.md): `judge` run at each value of the judge
    argument `key`, each in OUTPUT/KEY=VALUE/ through the shared cache, then sweep.json, sweep.md and sweep.png
    in `output_path`. Returns sweep.json's rows; `on_run` gets each setting's RunSummary; `options` are
    `evaluate`'s. Stops after a setting that stopped early (its row says why)."""
    from judgebench.core.files import check_output_dir
    from judgebench.core.rundir import check_run_files, writing_run
    from judgebench.publish.sweep import setting_folder

    if not isinstance(key, str) or not key.strip():
        raise JudgebenchError(f"sweep: key must be a judge argument's name (non-empty text), got {type(key).__name__} {_short(key)}")
    given = [_plain_value(v) for v in _many(values, "sweep", "values")]  # sent as given (None is null, not "null")
    settings = [_setting_text(v) for v in given]  # and named by their JSON text (folders, tables)
    if not settings or len(set(settings)) != len(settings):
        raise JudgebenchError(f"sweep: give distinct values of {key}")
    shown = _shown_settings(key, settings, given)  # a URL's userinfo and query values: ***
    _refuse_near_miss(key)  # (after the values' checks: a misspelt secret's refusal says more)
    folders: dict[str, str] = {}
    for value in settings:  # two values one folder: the later run replaced the earlier's (an outside attack)
        if (twin := folders.setdefault(setting_folder(key, shown[value]), value)) != value:
            raise JudgebenchError(f"sweep: values {shown[twin]!r} and {shown[value]!r} of {key} would share the "
                                  f"folder {setting_folder(key, shown[value])} (characters outside A-Z a-z 0-9 . _ = - "
                                  "become -; secrets in a URL become ***)")
    judge_args = _judge_args(judge_args, "sweep")
    if key in judge_args:
        raise JudgebenchError(f"sweep: {key} is also in judge_args (give it once)")
    on_run = _arg(on_run, Callable[..., Any] | None, "sweep", "on_run")
    out = _path(output_path, "sweep", "output_path")
    for value in settings:  # every folder checked before the first setting's calls
        check_run_files(out / setting_folder(key, shown[value]))
    check_output_dir(out)
    with writing_run(out):  # one sweep at a time writes sweep.json (and each setting's folder)
        return _sweep_settings(task, judge, key, settings, given, shown, out, judge_args, on_run, options)


def _sweep_settings(task: str, judge: str, key: str, settings: list[str], given: list[Any], shown: dict[str, str],
                    out: Path, judge_args: dict[str, Any], on_run: Callable[[RunSummary], Any] | None,
                    options: dict[str, Any]) -> list[dict[str, Any]]:
    """Each setting's run in OUT/KEY=VALUE/, then sweep.json, sweep.md and sweep.png in `out`."""
    from judgebench.core.rundir import SAMPLES_FILE, read_samples
    from judgebench.publish.sweep import setting_folder, sweep_row, write_sweep

    rows: list[dict[str, Any]] = []
    for value, original in zip(settings, given):
        folder = setting_folder(key, shown[value])
        summary = evaluate(task, judge, output_path=out / folder, judge_args={**judge_args, key: original},
                           **options)
        if on_run is not None:
            on_run(summary)
        records = read_samples(out / folder / SAMPLES_FILE, lean=True)
        rows.append(sweep_row(key, shown[value], folder, summary.result, summary.stopped, records))
        if summary.stopped:
            break
    write_sweep(out, rows)
    return rows
