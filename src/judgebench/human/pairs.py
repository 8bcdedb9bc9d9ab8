"""`judgebench pairs`: every model answers every question through the call layer (calls/:
concurrency, retries, cache, kill-safe resume), then the answers are paired per question.

    answers = generate_answers(questions, models, options)   # one generation request per (question, model)
    pairs = make_pairs(questions, answers, per_question=2, seed=0)

A generation request is a JudgeRequest whose messages are the question (after an optional
system message); the model is a litellm judge object used as a plain text generator, so the
reply cache makes a rerun after a kill pay for no answer twice. Pairing (seeded): for each
question, all model pairs or `per_question` of them, picking the model pairs used least so far;
within a model pair the side alternates, so every model sits on A and on B equally often
(to within one per model pair).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from judgebench.calls import RunnerOptions, run_requests
from judgebench.core.errors import JudgebenchError
from judgebench.core.files import write_atomic, write_json
from judgebench.core.records import JudgeReply, JudgeRequest
from judgebench.judges import make_judge
from judgebench.judging.prompts import hash_messages
from judgebench.tasks.cells import text_or_integer

GENERATION = "generation"  # the request kind's dimension name


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    slices: dict[str, str] = field(default_factory=dict)


@dataclass
class Answer:
    question_id: str
    model: str
    text: str | None
    error: str | None
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: float | None
    latency_s: float
    cached: bool


def read_questions(source: str, *, id_column: str = "id", question_column: str = "question",
                   slice_columns: list[str] | None = None, split: str = "train",
                   config: str | None = None) -> list[Question]:
    """Questions from a jsonl/csv/parquet file, a data folder or a Hub id (in `config`: a folder's card's default when
    None); a missing column or duplicate id is one error."""
    from judgebench.tasks.loading import load_checked_table  # the loader every task uses (datasets; local data checked)

    texts = [id_column, question_column, *(slice_columns or [])]
    as_written = {"converters": dict.fromkeys(texts, str)}  # CSV cells as written ("007" stays "007")
    table, _, _ = load_checked_table(source, config, split, None, as_written, typed=True)
    columns = list(table.column_names)
    for column in texts:
        if column not in columns:
            raise JudgebenchError(f"questions {source}: no column '{column}'; columns: {columns}")
    questions, seen = [], set()
    for index, row in enumerate(table.to_list(), start=1):
        qid, text = row.get(id_column), row.get(question_column)
        if not text_or_integer(qid) or str(qid) == "":
            raise JudgebenchError(f"questions {source}: row {index}: '{id_column}' must be non-empty text or an integer, "
                                  f"got {qid!r} (write ids as text: a column holding one decimal number is read as "
                                  "decimals, 2 as 2.0)")
        if not isinstance(text, str) or not text.strip():
            raise JudgebenchError(f"questions {source}: row {index}: '{question_column}' must be non-empty text")
        if str(qid) in seen:
            raise JudgebenchError(f"questions {source}: row {index}: duplicate id {qid!r}")
        seen.add(str(qid))
        for column in slice_columns or []:
            if row.get(column) is not None and not text_or_integer(row[column]):
                raise JudgebenchError(f"questions {source}: row {index}: slice '{column}' must be text or an integer, "
                                      f"got {type(row[column]).__name__}")
        slices = {c: str(row.get(c)) for c in slice_columns or [] if row.get(c) is not None}
        questions.append(Question(str(qid), text, slices))
    if not questions:
        raise JudgebenchError(f"questions {source}: no questions")
    return questions


def generation_request(question: Question, system: str | None) -> JudgeRequest:
    """The generation request kind: the question as the user message."""
    messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": question.question}]
    return JudgeRequest(
        example_id=question.id, dimensions=[GENERATION], order="AB", question=question.question, first="", second="",
        verdicts=["A", "B"], messages=messages, prompt_hash=hash_messages(messages),
    )


def has_text(request: JudgeRequest, text: str) -> bool:
    """A generation answer is usable when it is not blank (module-level: the call worker pickles it)."""
    return bool(text.strip())


def generate_answers(questions: list[Question], models: dict[str, dict[str, Any]], options: RunnerOptions,
                     system: str | None = None) -> tuple[list[Answer], int, str | None]:
    """Every model answers every question: (answers, calls sent, why it stopped early or None)."""
    requests = [generation_request(q, system) for q in questions]
    answers: list[Answer] = []
    calls = 0
    stopped: str | None = None
    for model, args in models.items():
        if stopped is not None:  # the models after the stop: every answer listed, as not attempted
            answers += [_answer(question.id, model, None) for question in questions]
            continue
        outcome = run_requests(requests, make_judge(model, args), replace(options, progress_label=f"answering ({model})"),
                               has_text)
        calls += outcome.calls_made
        for question, reply in zip(questions, outcome.replies):
            answers.append(_answer(question.id, model, reply))
        if outcome.stopped:
            stopped = f"{model}: {outcome.stopped}"
    return answers, calls, stopped


def _answer(question_id: str, model: str, reply: JudgeReply | None) -> Answer:
    if reply is None:
        return Answer(question_id, model, None, "not attempted (run stopped)", None, None, None, 0.0, False)
    text = reply.text if reply.text and reply.text.strip() else None
    error = reply.error or (None if text else "blank answer")
    return Answer(question_id, model, text, error, reply.tokens_in, reply.tokens_out, reply.cost_usd, reply.latency_s, reply.cached)


def make_pairs(questions: list[Question], answers: list[Answer], *, per_question: int | None, seed: int) -> list[dict[str, Any]]:
    """Pair the answered models per question (see the module docstring); rows in the pairs layout."""
    rng = random.Random(seed)
    by_question: dict[str, dict[str, Answer]] = {}
    for answer in answers:
        if answer.text is not None:
            by_question.setdefault(answer.question_id, {})[answer.model] = answer
    used: Counter[tuple[str, str]] = Counter()
    rows = []
    for question in questions:
        answered = by_question.get(question.id, {})
        combos = list(itertools.combinations(sorted(answered), 2))
        rng.shuffle(combos)  # seeded tie-break among equally used model pairs
        combos.sort(key=lambda pair: used[pair])
        for first, second in combos[: per_question or len(combos)]:
            swap = used[(first, second)] % 2 == 1  # alternate sides within a model pair
            used[(first, second)] += 1
            model_a, model_b = (second, first) if swap else (first, second)
            rows.append(_pair_row(question, answered[model_a], answered[model_b]))
    return rows


def _pair_row(question: Question, a: Answer, b: Answer) -> dict[str, Any]:
    digest = hashlib.sha256(f"{question.id}\0{a.model}\0{b.model}".encode()).hexdigest()[:12]
    row: dict[str, Any] = {"id": f"{question.id}-{digest}", "question_id": question.id, "question": question.question,
                           "response_a": a.text, "response_b": b.text, "model_a": a.model, "model_b": b.model}
    row.update(question.slices)
    for side, answer in (("a", a), ("b", b)):
        row.update({f"tokens_out_{side}": answer.tokens_out, f"cost_usd_{side}": answer.cost_usd, f"latency_s_{side}": answer.latency_s})
    return row


OUTPUT_FILES = ("answers.jsonl", "pairs.jsonl", "manifest.json")


def check_outputs(output: Path) -> None:
    """Before any call: none of the files `pairs` writes is a folder (it failed after every call was paid for), and
    the folder holds no such file of someone else's (a pairs.jsonl or manifest.json without a `pairs` manifest: they
    were replaced without a word)."""
    for name in OUTPUT_FILES:
        if (output / name).is_dir():
            raise JudgebenchError(f"--output {output}: {output / name} is a folder; pairs writes a file there")
    manifest, present = output / "manifest.json", [n for n in OUTPUT_FILES if (output / n).is_file()]
    try:
        ours = isinstance(json.loads(manifest.read_text(encoding="utf-8")).get("judgebench"), str)
    except (OSError, ValueError, UnicodeDecodeError, AttributeError, RecursionError):
        ours = False
    if present and not ours:
        raise JudgebenchError(f"--output {output}: {output / present[0]} is not from an earlier `pairs` (its "
                              "manifest.json is missing or not one) and would be replaced; choose another folder")


def write_outputs(output: Path, questions: list[Question], answers: list[Answer], pairs: list[dict[str, Any]],
                  manifest: dict[str, Any]) -> None:
    """manifest.json, answers.jsonl and pairs.jsonl under `output`, each atomically; the manifest first, so that a
    folder killed between them is still one `pairs` made (check_outputs)."""
    output.mkdir(parents=True, exist_ok=True)
    write_json(output / "manifest.json", manifest)
    write_atomic(output / "answers.jsonl", "".join(json.dumps(vars(a), ensure_ascii=False) + "\n" for a in answers))
    write_atomic(output / "pairs.jsonl", "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pairs))


def position_counts(pairs: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """How often each model sits on side A and on side B (the balance the manifest reports)."""
    counts: dict[str, dict[str, int]] = {}
    for pair in pairs:
        for side in ("a", "b"):
            counts.setdefault(pair[f"model_{side}"], {"A": 0, "B": 0})[side.upper()] += 1
    return counts
