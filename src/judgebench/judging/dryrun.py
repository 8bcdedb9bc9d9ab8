"""`judgebench run --dry-run`: what a run would send and cost, without calling anything.

Per judge and task: the calls planned, those answered from the cache (calls/cache.py; identical
prompts count once, as in a run), the calls left to send, their estimated input tokens
(judges/tokens.py: litellm's token counter or the characters-per-token estimate; which one is
printed), the output budget (max_tokens, else a documented default) and the estimated cost from
litellm's price map, or "unpriced". Re-asks and retries are not in the estimate. Nothing is
written, no credentials are needed; the data is loaded and the prompts rendered as a run would.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgebench.calls import RunnerOptions
from judgebench.calls.cache import (
    CACHE_FILENAME,
    ReplyCache,
    cache_key,
    default_cache_dir,
)
from judgebench.calls.state import uses_cache
from judgebench.core.records import JudgeRequest
from judgebench.judges import Judge, make_judge
from judgebench.judges.tokens import is_paid, judge_prices, output_budget, token_counter
from judgebench.judging.judgments import plan_requests
from judgebench.judging.pipeline import RunRequest, load_for_run, run_template, warn_of_setup
from judgebench.judging.repeats import expand_repeats


@dataclass
class Estimate:
    """What one judge's run of one task would send."""

    judge: str
    task: str
    calls: int  # judgments' calls planned
    cached: int  # of them, answered from the cache (or identical to another call)
    to_send: int
    tokens_in: int  # over the calls to send
    token_method: str
    output_per_call: int
    output_source: str
    prices: tuple[float, float] | None  # USD per token in/out; None: unpriced
    paid: bool = True  # False: a built-in or replay judge (no paid calls)

    @property
    def output_tokens(self) -> int:
        return self.to_send * self.output_per_call if self.paid else 0

    @property
    def cost_usd(self) -> float | None:
        if not self.paid:
            return 0.0
        if self.prices is None:
            return None
        return self.tokens_in * self.prices[0] + self.output_tokens * self.prices[1]


def estimate_run(request: RunRequest) -> Estimate:
    """Plan one task's calls as `run` would and estimate them (no call, nothing written)."""
    spec, mode, template = run_template(request)
    warn_of_setup(request, spec, mode, template)
    judge = make_judge(request.judge, request.judge_args, seed=request.seed)
    loaded = load_for_run(spec, request)
    requests = expand_repeats(plan_requests(spec, loaded.examples, template, mode=mode, swap=request.swap), request.repeats)
    estimate = estimate_requests(spec.name, requests, judge, request.runner)
    if request.judge_name:  # a named configuration: two configurations of one model read apart
        estimate.judge = f"{request.judge_name} ({judge.id})"
    return estimate


def _to_send(requests: list[JudgeRequest], judge: Judge, options: RunnerOptions) -> list[JudgeRequest]:
    """The requests a run would send: one per distinct cache key, cache hits left out."""
    if not uses_cache(judge, options):
        return list(requests)
    identity = judge.cache_identity()
    by_key = {cache_key(identity, r.prompt_hash, repeat=r.repeat): r for r in reversed(requests)}  # the first of each key
    folder = options.cache_dir or default_cache_dir()
    if options.refresh_cache or not (folder / CACHE_FILENAME).is_file():
        return list(reversed(by_key.values()))
    with ReplyCache(folder) as cache:
        found = cache.get_many(list(by_key))
    return [r for key, r in reversed(by_key.items()) if key not in found or found[key].text is None]


def estimate_requests(task: str, requests: list[JudgeRequest], judge: Judge, options: RunnerOptions) -> Estimate:
    """The estimate for these planned requests of one judge."""
    paid = is_paid(judge)
    sending = _to_send(requests, judge, options)
    if paid:
        count, method = token_counter(judge)
        tokens = sum(count(r.messages) for r in sending)
        per_call, source = output_budget(judge)
    else:
        tokens, method, per_call, source = 0, "not counted (no paid calls)", 0, "none"
    return Estimate(
        judge=judge.id,
        task=task,
        calls=len(requests),
        cached=len(requests) - len(sending),
        to_send=len(sending),
        tokens_in=tokens,
        token_method=method,
        output_per_call=per_call,
        output_source=source,
        prices=judge_prices(judge, batch=options.batch) if paid else None,
        paid=paid,
    )


def _cost(value: float | None) -> str:
    return "unpriced (not in litellm's cost map)" if value is None else f"${value:.4f}"


def format_estimates(estimates: list[Estimate]) -> str:
    """The dry-run's terminal text: one block per judge and task, then the total."""
    lines = ["dry run: nothing was called"]
    for e in estimates:
        price = (
            f" at ${e.prices[0] * 1e6:g} / ${e.prices[1] * 1e6:g} per 1M tokens in/out" if e.prices else ""
        )
        lines += [
            f"judge {e.judge} | task {e.task}",
            f"  calls: {e.calls} planned, {e.cached} from the cache, {e.to_send} to send",
            f"  input tokens: {e.tokens_in} ({e.token_method})",
            f"  output budget: {e.output_tokens} tokens ({e.to_send} calls x {e.output_per_call}, {e.output_source})",
            f"  estimated cost: {_cost(e.cost_usd)}{price}",
        ]
    priced = [e.cost_usd for e in estimates if e.cost_usd is not None]
    unpriced = len(estimates) - len(priced)
    total = f"${sum(priced):.4f}" + (f" + {unpriced} unpriced" if unpriced else "") if priced else _cost(None)
    lines.append(
        f"total: {sum(e.to_send for e in estimates)} calls to send, {sum(e.tokens_in for e in estimates)} input "
        f"tokens, {sum(e.output_tokens for e in estimates)} output tokens budgeted, estimated cost {total}"
    )
    return "\n".join(lines)
