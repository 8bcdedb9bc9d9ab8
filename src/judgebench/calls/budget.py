"""`--max-cost USD`: the run stops cleanly before its estimated spend would pass the cap.

Before each attempt is sent, its cost is estimated (judges/tokens.py: the characters-per-token
estimate of its prompt at the input price, plus the full output budget at the output price: an
upper bound) and reserved. When the answer returns, the reservation is replaced by the answer's
actual cost (the estimate again when the answer is not priced). An attempt whose reservation would
bring spent + reserved past the cap is not sent: the run drains (the calls in flight finish and
are kept) and stops with a reason naming the cap; the pipeline writes partial results (exit 1).
Cached answers cost nothing and are not counted. A judge without a price cannot be capped: refused
before any call (check_cap, exit 2); a self-hosted judge is given one with input_cost_per_mtok /
output_cost_per_mtok (judges/llm.py).
"""

from __future__ import annotations

from judgebench.core.errors import JudgebenchError
from judgebench.core.records import JudgeReply, JudgeRequest
from judgebench.judges.base import Judge
from judgebench.judges.tokens import chars_tokens, is_paid, judge_prices, output_budget


def check_cap(judge: Judge, max_cost: float | None) -> tuple[float, float] | None:
    """The judge's prices when --max-cost applies to it; a one-line error when it cannot."""
    if max_cost is None or not is_paid(judge):
        return None
    prices = judge_prices(judge)
    if prices is None:
        raise JudgebenchError(
            f"--max-cost: judge {judge.id} is unpriced (not in litellm's cost map), so its spend cannot be "
            "estimated; give it a price (--judge-args input_cost_per_mtok=USD,output_cost_per_mtok=USD, or price: in "
            "its configuration) or leave --max-cost out"
        )
    return prices


class Budget:
    """The spend of one live run against its cap (one event loop: no locking needed)."""

    def __init__(self, judge: Judge, max_cost: float):
        self.cap = max_cost
        self.prices = check_cap(judge, max_cost) or (0.0, 0.0)  # unpaid judges cost nothing
        self.output = output_budget(judge)[0]
        self.spent = 0.0
        self.reserved = 0.0
        self.sent = 0
        self.in_flight = 0  # reserved attempts not settled yet: they finish and are kept after a stop
        self.at_estimate = 0  # settled attempts without a priced answer (failed, or not priced): counted at the estimate

    def estimate(self, request: JudgeRequest) -> float:
        return chars_tokens(request.messages) * self.prices[0] + self.output * self.prices[1]

    def reserve(self, request: JudgeRequest) -> tuple[float, str | None]:
        """(the reserved estimate, None) when the attempt fits under the cap, else (0, the stop reason)."""
        estimate = self.estimate(request)
        if self.spent + self.reserved + estimate > self.cap:
            return 0.0, (
                f"max cost: the next call (estimated ${estimate:.6f}) would bring the estimated spend to "
                f"${self.spent + self.reserved + estimate:.6f}, over --max-cost ${self.cap:g}; "
                f"{self.sent} calls sent, ${self.spent:.6f} spent"
                + (f" so far ({self.in_flight} still in flight, kept)" if self.in_flight else "")
                + (f", of which {self.at_estimate} attempts without a priced answer (failed, or not priced) at their "
                   "estimate" if self.at_estimate else "")
            )
        self.reserved += estimate
        self.sent += 1
        self.in_flight += 1
        return estimate, None

    def settle(self, estimate: float, reply: JudgeReply | None) -> None:
        """Replace a reservation by the answer's cost (the estimate when unknown or failed)."""
        self.reserved -= estimate
        self.in_flight -= 1
        known = reply is not None and reply.cost_usd is not None
        self.spent += reply.cost_usd if known else estimate  # type: ignore[union-attr, operator]
        self.at_estimate += not known  # a failed attempt may still have been billed (a timeout): counted at its estimate
