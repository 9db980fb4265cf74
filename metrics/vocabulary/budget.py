"""The CI gate's words: a budget (how much worse a candidate may be on a metric), the three
verdicts a paired comparison's interval gives against it, and the sentences shown beside them.

metrics/budget.py parses and judges; the command line, the dashboard and the report print
these words. Pure: no numpy.
"""

from __future__ import annotations

from metrics.vocabulary.format import confidence, figure, signed

WITHIN = "within budget"
WORSE = "worse beyond budget"
CANNOT_TELL = "cannot tell yet"
VERDICTS = {  # verdict -> what it means; only the first passes the gate
    WITHIN: "The interval's lower end is at or above minus the budget: the candidate is at "
    "most the budget worse than the baseline, at this confidence. The gate passes.",
    WORSE: "The interval's upper end is below minus the budget: the candidate is worse than "
    "the baseline by more than the budget. The gate fails.",
    CANNOT_TELL: "The interval straddles minus the budget: the queries cannot yet tell whether "
    "the loss is within the budget. The gate fails until more queries (or a smaller spread) "
    "say so.",
}
PASSING = (WITHIN,)

BUDGET_FLAG = "--budget"
BUDGET_HELP = (
    "METRIC=AMOUNT: the most a candidate may lose on a metric, e.g. nDCG@10=0.02 (absolute) "
    "or nDCG@10=2% (relative to the baseline's mean); the K may be left out (MRR=0.01). "
    "Repeatable. A candidate passes only when the paired bootstrap interval of its difference, "
    "at --confidence-level, lies at or above minus the budget."
)

BUDGET_METHOD = (
    "Budget (non-inferiority): the candidate passes when the lower end of the paired bootstrap "
    "interval of its difference (candidate − baseline) is at or above minus the budget. A "
    "two-sided interval at level 1 − 2a makes this a one-sided test at level a (a 95% interval: "
    "2.5%). A relative budget is a share of the baseline's mean on the same queries."
)

# sentence templates: {metric} a label, {floor} minus the limit, {low} and {high} signed
# differences, {interval} '95% interval', {budget} the budget in words (budget_words)
TEMPLATES = {
    WITHIN: "within budget: the {interval}'s lower end {low} is at or above {floor} "
    "({metric} budget {budget})",
    WORSE: "worse beyond budget: the {interval}'s upper end {high} is below {floor} "
    "({metric} budget {budget})",
    CANNOT_TELL: "cannot tell yet: the {interval} [{low}, {high}] straddles {floor} "
    "({metric} budget {budget})",
}

PARSE_ERRORS = {  # what a budget's text must look like, said when it does not
    "form": "a budget is METRIC=AMOUNT, e.g. nDCG@10=0.02 or nDCG@10=2%",
    "amount": "the amount must be a finite number >= 0, or a percentage >= 0 such as 2%",
}


def percent(amount: float) -> str:
    """A relative budget as written: '2%', '0.5%'."""
    return f"{amount:g}%"


def budget_words(amount: float, *, relative: bool, baseline_mean: float, limit: float) -> str:
    """The budget in words: '0.020' when absolute; '2% of the baseline's 0.800 = 0.016' when
    relative, so the limit the interval was held to is always on the page."""
    if not relative:
        return figure(limit)
    return f"{percent(amount)} of the baseline's {figure(baseline_mean)} = {figure(limit)}"


def budget_sentence(
    verdict: str,
    *,
    metric: str,
    budget: str,
    limit: float,
    low: float,
    high: float,
    confidence_level: float | None,
) -> str:
    """One budget's verdict in words, e.g. 'within budget: the 95% interval's lower end -0.012
    is at or above -0.016 (nDCG@10 budget 2% of the baseline's 0.800 = 0.016)'. `budget` is
    the budget in words (budget_words); without a confidence level, 'the interval'."""
    if verdict not in TEMPLATES:
        raise ValueError(f"verdict must be one of {', '.join(TEMPLATES)}, got {verdict!r}")
    return TEMPLATES[verdict].format(
        interval=("interval" if confidence_level is None
                  else f"{confidence(confidence_level)} interval"),
        low=signed(low), high=signed(high),
        floor=signed(-limit if limit else 0.0), metric=metric, budget=budget,
    )
