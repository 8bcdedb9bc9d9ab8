"""Your own judge from Python: a `Judge` object or a plain function, run like any other judge.

    class Heuristic(judgebench.Judge):
        id = "mylab/heuristic"
        async def judge(self, request):            # one attempt; request.messages is the rendered prompt
            return "[[A]]" if len(request.first) >= len(request.second) else "[[B]]"

    judgebench.evaluate("sciarena_eval", Heuristic(), output_path="out/", demo=True)
    judgebench.evaluate("sciarena_eval", judgebench.function_judge("mylab/first", lambda r: "[[A]]"), ...)

The object is wrapped (`own_judge`) so that what it does cannot break the accounting: a returned
string becomes the reply's text; any exception other than `JudgeCallError` (and Ctrl-C) fails that call
only, kept with its error on one line (known secret shapes and secret-named environment values masked),
never retried; a return value of another type, or a JudgeReply without text, fails that call too. Its id names the run in results and
tables, so it is checked like a file name part and may not pose as a built-in or replay judge (runs of
those are recomputed or replayed by `submit`); results.json marks the run `own_judge: true`. Its answers
go through the same strict verdict parser as every judge's. It is cached only when it says so
(`cacheable = True`, and then it must define `cache_identity()`: everything besides the prompt that decides
its answers); a cached judge's calls run in the forked call worker (Linux), so state it gathers there does
not come back to your process. A sync function runs on the event loop: one call at a time, and a blocking
one cannot be timed out (use an async function for I/O).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import math
import re
from collections.abc import Awaitable, Callable
from typing import Any

from judgebench.core.errors import JudgebenchError, squeezed
from judgebench.core.records import (
    JudgeReply,
    JudgeRequest,
)
from judgebench.core.secrets import environment_secrets, redact_value, scrub_message
from judgebench.core.text import reads_as_reserved
from judgebench.judges.base import Judge, JudgeCallError

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*(/[A-Za-z0-9][A-Za-z0-9._+-]*)*")
MAX_ID_LENGTH = 200

Answer = str | JudgeReply
JudgeFunction = Callable[[JudgeRequest], Answer | Awaitable[Answer]]


def check_judge_id(judge_id: Any) -> str:
    """The id of a caller's judge, or one JudgebenchError saying what is wrong with it."""
    if not isinstance(judge_id, str) or not judge_id:
        raise JudgebenchError(f"your judge's id must be a non-empty string such as 'mylab/heuristic', got {judge_id!r}")
    if len(judge_id) > MAX_ID_LENGTH or not _ID.fullmatch(judge_id):
        raise JudgebenchError(
            f"judge id {judge_id[:80]!r}: use letters, digits and . _ + - in parts separated by '/', "
            f"each part starting with a letter or digit, at most {MAX_ID_LENGTH} characters"
        )
    if reads_as_reserved(judge_id):  # (the leaderboard refuses them too)
        raise JudgebenchError(f"judge id {judge_id!r}: 'builtin', 'replay' and 'panel' (in any case, before any "
                              "separator, or in look-alike letters) name judgebench's own judges; choose another prefix")
    return judge_id


def own_judge(judge: Any, judge_args: dict[str, Any] | None = None) -> Judge:
    """The caller's Judge object, wrapped for the run (see the module docstring); every check that can be
    made before a call is made here, each a one-line JudgebenchError."""
    if not isinstance(judge, Judge):
        raise JudgebenchError(
            f"judge: expected a judge id (str) or a judgebench.Judge object, got {type(judge).__name__} "
            "(wrap a function with judgebench.function_judge(id, fn))"
        )
    if judge_args:
        raise JudgebenchError("judge_args: not used with a Judge object (give the object its settings)")
    if isinstance(judge, _Guarded):  # function_judge's, or checked already
        return judge
    try:
        judge_id = getattr(judge, "id", None)
    except Exception as exc:
        raise JudgebenchError(f"your judge's id could not be read: {type(exc).__name__}: {exc}") from None
    check_judge_id(judge_id)
    name = f"judge {judge_id}"
    if not inspect.iscoroutinefunction(judge.judge):
        raise JudgebenchError(f"{name}: judge() must be 'async def' (wrap a sync function with judgebench.function_judge)")
    if getattr(judge, "cacheable", False) and type(judge).cache_identity is Judge.cache_identity:
        raise JudgebenchError(
            f"{name}: cacheable = True needs cache_identity() naming everything besides the prompt that decides its "
            "answers (its id alone would serve one setting's answers to another)"
        )
    return _Guarded(judge, judge_id, _public_args(judge, name))


def _public_args(judge: Judge, name: str) -> dict[str, Any]:
    """The judge's public_args(), checked once before any call: JSON data, secrets redacted."""
    try:
        args = judge.public_args()
        if not isinstance(args, dict):
            raise TypeError(f"expected a dict, got {type(args).__name__}")
        json.dumps(args, allow_nan=False)
    except Exception as exc:
        raise JudgebenchError(f"{name}: public_args() must return a dict of JSON values ({type(exc).__name__}: {exc})") from None
    return redact_value(args)


def function_judge(judge_id: str, fn: JudgeFunction) -> Judge:
    """A Judge from a function of one JudgeRequest returning the judge's raw text (or a JudgeReply);
    sync or async. A sync function runs on the event loop: make network calls from an async one."""
    if not callable(fn):
        raise JudgebenchError(f"function_judge: fn must be callable, got {type(fn).__name__}")
    return own_judge(_FunctionJudge(check_judge_id(judge_id), fn))


class _FunctionJudge(Judge):
    def __init__(self, judge_id: str, fn: JudgeFunction):
        self.id = judge_id
        self.fn = fn

    async def judge(self, request: JudgeRequest) -> Any:
        answer = self.fn(request)
        return await answer if inspect.isawaitable(answer) else answer


class _Guarded(Judge):
    """Delegates to the caller's judge; turns its answers into replies and its errors into failed calls."""

    def __init__(self, inner: Judge, judge_id: str, public: dict[str, Any]):
        self.inner, self.id, self.public = inner, judge_id, public
        self.cacheable = bool(getattr(inner, "cacheable", False))
        self.needs_texts = bool(getattr(inner, "needs_texts", True))

    @property
    def timeout_s(self) -> float:  # type: ignore[override]
        return self.inner.timeout_s

    @timeout_s.setter
    def timeout_s(self, value: float) -> None:
        self.inner.timeout_s = value

    def public_args(self) -> dict[str, Any]:
        return self.public

    def cache_identity(self) -> dict[str, Any]:
        return self.inner.cache_identity()

    def preflight(self) -> None:
        self.inner.preflight()

    async def warm_up(self) -> None:
        await self.inner.warm_up()

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def judge(self, request: JudgeRequest) -> JudgeReply:
        try:
            answer = await self.inner.judge(request)
        except JudgeCallError:
            raise
        except asyncio.CancelledError as exc:
            if _being_cancelled():  # the runner's own cancellation (timeout, stop): not the judge's answer
                raise
            raise self._failed(f"raised {_one_line(exc, 'CancelledError')}") from None
        except (KeyboardInterrupt, GeneratorExit):
            raise
        except BaseException as exc:  # the caller's code (SystemExit included): this call fails, the run goes on
            raise self._failed(f"raised {_one_line(exc, type(exc).__name__)}") from None
        if isinstance(answer, str):
            return JudgeReply(text=answer)
        if not isinstance(answer, JudgeReply):
            raise self._failed(f"returned {type(answer).__name__}; expected the raw text (str) or a JudgeReply")
        if answer.text is None:
            why = f": {_clean(answer.error)}" if answer.error else ""
            raise self._failed(f"returned a JudgeReply without text{why}")
        counts = (answer.tokens_in, answer.tokens_out, answer.cost_usd, answer.reasoning_tokens, answer.latency_s)
        if not all(v is None or _measured(v) for v in counts):
            raise self._failed("returned a JudgeReply with a negative, infinite or NaN token count, cost or latency")
        return answer

    def _failed(self, what: str) -> JudgeCallError:
        return JudgeCallError(f"judge {self.id} {what}", retryable=False, fatal=False)


def _being_cancelled() -> bool:
    """Whether the running task has been asked to stop (Python 3.11+; earlier: assume so)."""
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return task is None or cancelling is None or cancelling() > 0


def _measured(value: float) -> bool:
    """A count, cost or latency a run can add up: not negative, not infinite, not NaN (an int of any size)."""
    return value >= 0 if isinstance(value, int) else math.isfinite(value) and value >= 0


def _one_line(exc: BaseException, kind: str) -> str:
    try:
        text = _clean(str(exc))
    except Exception:  # its __str__ raised: the call still fails with what is known
        text = "(its message could not be read)"
    return f"{kind}: {text}" if text else kind


def _clean(text: str) -> str:
    """One line, known secret shapes (sk-..., Bearer ..., URL credentials) and the values of the environment's
    secret-named variables (OPENAI_API_KEY, ...) masked, at most 500 characters."""
    return squeezed(scrub_message(str(text), environment_secrets()), 500)
