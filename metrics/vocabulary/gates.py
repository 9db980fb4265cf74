"""The command line's exit statuses and its CI gates: what each gate checks and the words a
failed one prints. One place, so that `compare`, `leakage` and the README say the same."""

from __future__ import annotations

from metrics.vocabulary.risk import HARM_GATE, harm_failure
from metrics.vocabulary.timings import LATENCY_GATE, latency_failure

EXIT_OK = 0
EXIT_BAD_INPUT = 1  # a file the loaders refused, a value the engine refused
EXIT_USAGE = 2  # a bad flag or a missing input
EXIT_GATE = 3  # a CI gate failed: a regression, a budget, harm, latency
EXIT_LEAK = 4  # more queries copied into the corpus than --max-leaks allows

REGRESSION_FLAG = "--fail-on-regression"

GATES = {
    "regression": f"{REGRESSION_FLAG} METRIC: a candidate significantly worse than the "
    "baseline on METRIC (lower mean, adjusted randomization p below --alpha) fails.",
    "budget": "--budget METRIC=AMOUNT: a candidate passes only when its paired interval lies "
    "at or above minus the budget (within budget); worse beyond budget and cannot tell yet "
    "fail.",
    "harm": HARM_GATE,
    "latency": LATENCY_GATE,
}


def gate_failure(gate: str, candidate: str, metric: str, baseline: str,
                 verdict: str = "") -> str:
    """The line a failed gate prints on standard error."""
    if gate == "regression":
        return f"regression: {candidate} is significantly worse than {baseline} on {metric}"
    if gate == "budget":
        return f"budget: {candidate} on {metric} against {baseline}: {verdict}"
    if gate == "harm":
        return harm_failure(candidate, metric, baseline, verdict)
    if gate == "latency":
        return latency_failure(candidate, metric, baseline, verdict)
    raise ValueError(f"unknown gate {gate!r}; gates: {', '.join(GATES)}")
