"""The `judgebench pairs` command: flags -> pairs.generate_answers -> pairs.make_pairs -> files."""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from judgebench.cli.flags import (
    NON_NEGATIVE_INT,
    OUTPUT_DIR,
    POSITIVE_INT,
    add_call_flags,
    parse_judge_args,
    runner_options,
)
from judgebench.core.errors import MESSAGE_MAX, JudgebenchError
from judgebench.core.secrets import masked_input
from judgebench.core.text import reads_as_reserved, term_text
from judgebench.core.version import __version__


def add_parser(sub: Any) -> None:
    p = sub.add_parser("pairs", help="have models answer questions and pair their answers for voting")
    p.add_argument("questions", help="questions file (jsonl/csv/parquet) or Hub id, with id and question columns")
    p.add_argument("--models", required=True, help="comma-separated litellm model ids (at least two)")
    p.add_argument("--model-args", action="append", default=[], metavar="MODEL=k=v,...",
                   help="generation args for one model, e.g. 'openai/gpt-4.1=temperature=0.7,max_tokens=800' (repeatable)")
    p.add_argument("--output", required=True, type=OUTPUT_DIR, help="folder for pairs.jsonl, answers.jsonl and manifest.json")
    p.add_argument("--per-question", type=POSITIVE_INT, help="model pairs per question (default: all)")
    p.add_argument("--seed", type=NON_NEGATIVE_INT, default=0, help="seed for the pairing")
    p.add_argument("--system", help="system message sent before every question")
    p.add_argument("--id-column", default="id", help="the questions' id column")
    p.add_argument("--question-column", default="question", help="the questions' text column")
    p.add_argument("--slices", default="", help="comma-separated slice columns to carry into the pairs")
    p.add_argument("--split", default="train", help="split of the questions dataset")
    p.add_argument("--config", help="config of the questions dataset (a Hub dataset's or a data folder's card's; "
                   "default: its default config)")
    add_call_flags(p)  # --concurrency is per model here
    p.set_defaults(handler=cmd_pairs, writes=lambda a, name: name in ("pairs.jsonl", "answers.jsonl", "manifest.json"))


def parse_models(models: str, model_args: list[str]) -> dict[str, dict[str, Any]]:
    """Model ids -> their (typed) generation args; an args entry for an unlisted model is an error."""
    ids = [m.strip() for m in models.split(",") if m.strip()]
    if len(ids) < 2 or len(set(ids)) != len(ids):
        raise JudgebenchError(f"--models: expected at least two distinct model ids, got {models!r}")
    for model in ids:  # (builtin/longer "answered" every question with [[A]])
        if reads_as_reserved(model):
            raise JudgebenchError(f"--models: {model} is one of judgebench's own judges, which judge pairs and answer "
                                  "no question; give litellm model ids (e.g. openai/gpt-4.1)")
    parsed: dict[str, dict[str, Any]] = {m: {} for m in ids}
    for entry in model_args:
        model, sep, args = entry.partition("=")
        if not sep:  # (the whole entry was shown: `api_key=...` without its MODEL= showed the key)
            raise JudgebenchError(f"--model-args {masked_input(repr(entry))}: expected MODEL=k=v,... with MODEL one of {ids}")
        if model not in parsed:
            raise JudgebenchError(f"--model-args {masked_input(model)}=...: {masked_input(model)} is not one of --models "
                                  f"{ids}; expected MODEL=k=v,...")
        with in_pairs_words(model):
            parsed[model] = dict(parse_judge_args(args))  # typed by the judge, as --judge-args
    return parsed


@contextmanager
def in_pairs_words(model: str) -> Iterator[None]:
    """A judge's error about `model` (its id, its arguments, its checks before any call) in `pairs`' words: the
    judges' messages begin with run's flags (`--judge ID`, `--judge-args k=...`, `judge ID: ...`), which `pairs`
    calls --models and --model-args MODEL=... The head and the flag of the arguments are reworded; the rest is the
    judge's."""
    try:
        yield
    except JudgebenchError as exc:
        raise JudgebenchError(_reworded(str(exc), model)) from None


def _reworded(message: str, model: str) -> str:
    for head, words in (("--judge-args:", f"--model-args {model}:"), (f"--judge {model}:", f"--models: {model}:"),
                        (f"judge {model!r}:", f"--models: {model!r}:"), (f"judge {model}:", f"model {model}:")):
        if message.startswith(head):
            message = words + message[len(head):]
            break
    return message.replace("--judge-args ", f"--model-args {model}=")  # at the head, or a hint (`or pass --judge-args ...`)


def cmd_pairs(args: argparse.Namespace) -> int:
    from judgebench.human.pairs import (
        check_outputs,
        generate_answers,
        make_pairs,
        position_counts,
        read_questions,
        write_outputs,
    )
    from judgebench.judges import make_judge

    models = parse_models(args.models, args.model_args)
    check_outputs(args.output)
    judges = {}
    for model, model_args in models.items():  # bad ids and args fail before any call
        with in_pairs_words(model):
            judges[model] = make_judge(model, model_args)
    slices = [s.strip() for s in args.slices.split(",") if s.strip()]
    questions = read_questions(args.questions, id_column=args.id_column, question_column=args.question_column,
                               slice_columns=slices, split=args.split, config=args.config)
    for model, judge in judges.items():
        with in_pairs_words(model):
            judge.preflight()
    options = runner_options(args)
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    answers, calls, stopped = generate_answers(questions, models, options, args.system)
    pairs = make_pairs(questions, answers, per_question=args.per_question, seed=args.seed)
    answered = sum(a.text is not None for a in answers)
    costs = [a.cost_usd for a in answers if a.text is not None]
    manifest = {
        "judgebench": __version__, "questions": args.questions, "config": args.config, "started": started,
        "models": {m: judges[m].public_args() for m in models}, "seed": args.seed, "per_question": args.per_question,
        "system_prompt_hash": hashlib.sha256((args.system or "").encode()).hexdigest(),
        "counts": {"questions": len(questions), "answers": len(answers), "answered": answered, "pairs": len(pairs),
                   "calls_sent": calls},
        "cost_usd": None if any(c is None for c in costs) else round(sum(costs), 6),  # type: ignore[arg-type]
        "positions": position_counts(pairs), "partial": stopped is not None,
    }
    write_outputs(args.output, questions, answers, pairs, manifest)
    print(f"{answered}/{len(answers)} answers ({calls} calls sent), {len(pairs)} pairs -> {args.output}/pairs.jsonl")
    errors = Counter(a.error for a in answers if a.error)
    for error, count in errors.most_common(3):
        print(f"  {count} unanswered: {term_text(error, MESSAGE_MAX)}")  # (the endpoint's words: escaped)
    if stopped:
        cached = "" if getattr(args, "no_cache", False) else " (answers already received are cached)"
        print(f"judgebench: stopped early: {term_text(stopped, MESSAGE_MAX)}; rerun the same command to finish{cached}",
              file=sys.stderr)  # (on stderr, as every command says why it failed)
        return 1
    if answered == 0:
        print("judgebench: no answer received: check the model ids, --model-args (api_base) and credentials",
              file=sys.stderr)
        return 1
    return 0
