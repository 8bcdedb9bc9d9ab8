"""Your own judge from Python: a `Judge` object or a plain function, run like any other judge.

    class Heuristic(judgebench.Judge):
        id = "mylab/heuristic"
        async def judge(self, request):            # one attempt; request.messages is the rendered prompt
            return "[[A]]" if len(request.first) >= len(request.second) else "[[B]]"

    judgebench.evaluate("sciarena_eval", Heuristic(), output_path="out/", demo=True)
    judgebench.evaluate("sciarena_eval", judgebench.function_judge("mylab/first", lambda r: "[[A]]"), ...)

The object is wrapped (`own_judge`) so that what it does cannot break the accounting: a returned
string becomes the reply's text; any exception other than `JudgeCallError` fails that call only (kept
with its error, never retried); a return value of another type fails that call too. Its id names the run
in results and tables, so it is checked like a file name part and may not pose as a built-in or replay
judge (runs of those are recomputed or replayed by `submit`). Its answers go through the same strict
verdict parser as every judge's. It is cached only when it says so (`cacheable = True`, and then its
`cache_identity()` must name everything besides the prompt that decides its answers).
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable
from typing import Any

from ..errors import JudgebenchError
from ..records import JudgeReply, JudgeRequest
from .base import Judge, JudgeCallError

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*(/[A-Za-z0-9][A-Za-z0-9._+-]*)*")
_RESERVED = ("builtin/", "replay/")
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
    if judge_id.lower().startswith(_RESERVED):
        raise JudgebenchError(f"judge id {judge_id!r}: 'builtin/' and 'replay/' name judgebench's own judges; choose another prefix")
    return judge_id


def own_judge(judge: Any, judge_args: dict[str, Any] | None = None) -> Judge:
    """The caller's Judge object, wrapped for the run (see the module docstring)."""
    if not isinstance(judge, Judge):
        raise JudgebenchError(
            f"judge: expected a judge id (str) or a judgebench.Judge object, got {type(judge).__name__} "
            "(wrap a function with judgebench.function_judge(id, fn))"
        )
    if judge_args:
        raise JudgebenchError("judge_args: not used with a Judge object (give the object its settings)")
    check_judge_id(getattr(judge, "id", None))
    return judge if isinstance(judge, _Guarded) else _Guarded(judge)


def function_judge(judge_id: str, fn: JudgeFunction) -> Judge:
    """A Judge from a function of one JudgeRequest returning the judge's raw text (or a JudgeReply);
    sync or async. A sync function runs on the event loop: make network calls from an async one."""
    if not callable(fn):
        raise JudgebenchError(f"function_judge: fn must be callable, got {type(fn).__name__}")
    return _Guarded(_FunctionJudge(check_judge_id(judge_id), fn))


class _FunctionJudge(Judge):
    def __init__(self, judge_id: str, fn: JudgeFunction):
        self.id = judge_id
        self.fn = fn

    async def judge(self, request: JudgeRequest) -> Any:
        answer = self.fn(request)
        return await answer if inspect.isawaitable(answer) else answer


class _Guarded(Judge):
    """Delegates to the caller's judge; turns its answers into replies and its errors into failed calls."""

    def __init__(self, inner: Judge):
        self.inner = inner
        self.id = inner.id
        self.cacheable = bool(getattr(inner, "cacheable", False))
        self.needs_texts = bool(getattr(inner, "needs_texts", True))

    @property
    def timeout_s(self) -> float:  # type: ignore[override]
        return self.inner.timeout_s

    @timeout_s.setter
    def timeout_s(self, value: float) -> None:
        self.inner.timeout_s = value

    def public_args(self) -> dict[str, Any]:
        return self.inner.public_args()

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
        except Exception as exc:  # the caller's code: this call fails, the run goes on
            raise JudgeCallError(f"judge {self.id} raised {type(exc).__name__}: {exc}", retryable=False, fatal=False) from exc
        if isinstance(answer, JudgeReply):
            return answer
        if isinstance(answer, str):
            return JudgeReply(text=answer)
        raise JudgeCallError(
            f"judge {self.id} returned {type(answer).__name__}; expected the raw text (str) or a JudgeReply",
            retryable=False, fatal=False,
        )
