"""Budgets, the CI gate: may the candidate be a little worse than the baseline on a metric?

``compare --budget nDCG@10=0.02`` (repeatable; an absolute amount, or ``2%`` of the baseline's
mean) is a non-inferiority check on the paired bootstrap interval of the difference (candidate
- baseline) at the comparison's confidence level. A significance test cannot gate a change
that is meant to cost a little (a cheaper retriever, a smaller index): "not significantly
worse" is also what too few queries say. The interval says both how much worse and how sure:

- within budget: its lower end is at or above minus the limit -- the only verdict that passes;
- worse beyond budget: its upper end is below minus the limit;
- cannot tell yet: it straddles minus the limit (more queries would say).

The words are in ``metrics.vocabulary.budget``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from metrics.core.compare import metric_label
from metrics.stats.comparison import Comparison, PairedTest
from metrics.stats.validate import check_number, is_number
from metrics.vocabulary.budget import (
    CANNOT_TELL,
    PARSE_ERRORS,
    PASSING,
    WITHIN,
    WORSE,
    budget_sentence,
    budget_words,
    percent,
)
from metrics.vocabulary.conventions import Conventions

__all__ = [
    "Budget",
    "BudgetVerdict",
    "budget_rows",
    "gate",
    "judge",
    "judge_comparison",
    "parse_budget",
    "parse_budgets",
]

# An interval end within this distance of minus the limit counts as on it (and passes): the
# ends are means of per-query differences rounded to 12 decimals (metrics.stats.paired), so
# a gap below that is float noise, e.g. from a relative limit 2% x 0.7 = 0.013999999999999999.
_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Budget:
    """The most a candidate may lose on one metric.

    ``metric_label`` is the label the comparison uses ("nDCG@10", "MRR@10"); ``amount`` the
    number written: the limit itself when absolute, a percentage of the baseline's mean when
    ``relative`` (2.0 for "2%").
    """

    metric_label: str
    amount: float
    relative: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.metric_label, str) or not self.metric_label:
            raise ValueError(f"a budget's metric must be a label, got {self.metric_label!r}")
        amount = self.amount
        if not is_number(amount) or amount < 0:
            raise ValueError(f"budget on {self.metric_label}: {PARSE_ERRORS['amount']}, "
                             f"got {amount!r}")
        object.__setattr__(self, "amount", float(amount))
        object.__setattr__(self, "relative", bool(self.relative))

    def __str__(self) -> str:
        """As written on the command line: 'nDCG@10=0.02', 'nDCG@10=2%'."""
        shown = percent(self.amount) if self.relative else f"{self.amount:g}"
        return f"{self.metric_label}={shown}"

    def limit(self, baseline_mean: float) -> float:
        """How much worse the candidate may be: the amount, or amount% of the baseline's mean
        (on the same queries) when relative."""
        if not self.relative:
            return self.amount
        baseline_mean = check_number("baseline_mean", baseline_mean, low=0,
                                     meaning="the baseline mean a relative budget is a share of")
        return self.amount / 100 * baseline_mean


@dataclass(frozen=True)
class BudgetVerdict:
    """One candidate's difference on one metric held to a budget.

    ``low``/``high`` are the paired bootstrap interval of candidate - baseline the verdict
    read, ``limit`` the budget in the metric's units; ``confidence_level`` is the interval's,
    when known (it only shows in the sentence).
    """

    candidate: str
    metric: str
    budget: Budget
    baseline_mean: float
    limit: float
    low: float
    high: float
    verdict: str
    confidence_level: float | None = None

    @property
    def passed(self) -> bool:
        """True only within budget: 'cannot tell yet' fails the gate as well."""
        return self.verdict in PASSING

    def as_dict(self) -> dict:
        """What a comparison row gains: {"limit", "verdict"}."""
        return {"limit": float(self.limit), "verdict": self.verdict}

    @property
    def sentence(self) -> str:
        """e.g. 'within budget: the 95% interval's lower end -0.012 is at or above -0.020
        (nDCG@10 budget 0.020)'."""
        return budget_sentence(
            self.verdict,
            metric=self.metric,
            budget=budget_words(self.budget.amount, relative=self.budget.relative,
                                baseline_mean=self.baseline_mean, limit=self.limit),
            limit=self.limit,
            low=self.low,
            high=self.high,
            confidence_level=self.confidence_level,
        )


def split_limit(text: object, k: int, conventions: Conventions, *, kind: str, example: str,
                value: str, form: str) -> tuple[str, str]:
    """A gate's 'METRIC=VALUE' (a budget, a harm limit) -> the label of METRIC at K under the
    conventions ('MRR' -> 'MRR@10') and VALUE as written; ValueError naming the missing or bad
    part, `form` how to write it."""
    if not isinstance(text, str):
        raise ValueError(f"a {kind} must be text such as '{example}', got {text!r}")
    label, equals, written = (part.strip() for part in text.strip().partition("="))
    if not equals or not label or not written:
        missing = "the metric" if not label and equals else value if equals else "'='"
        raise ValueError(f"{kind} {text!r} lacks {missing}: {form}")
    try:
        return metric_label(label, k, conventions), written
    except ValueError as error:
        raise ValueError(f"{kind} {text!r}: {error}") from None


def parse_budget(text: str, k: int, conventions: Conventions) -> Budget:
    """'nDCG@10=0.02', 'nDCG@10=2%' or 'MRR=0.01' (K implied) -> a Budget on the label the
    comparison at K uses under the conventions ('MRR' -> 'MRR@10'). ValueError naming the bad
    part."""
    label, written = split_limit(text, k, conventions, kind="budget", example="nDCG@10=0.02",
                                 value="the amount", form=PARSE_ERRORS["form"])
    relative = written.endswith("%")
    number = written[:-1].strip() if relative else written
    try:
        amount = float(number)
    except ValueError:
        raise ValueError(
            f"budget {text!r}: amount {written!r} is not a number; {PARSE_ERRORS['amount']}"
        ) from None
    if not is_number(amount) or amount < 0:
        raise ValueError(f"budget {text!r}: amount {written!r}: {PARSE_ERRORS['amount']}")
    return Budget(label, amount, relative)


def parse_budgets(texts: Sequence[str], k: int, conventions: Conventions
                  ) -> tuple[Budget, ...]:
    """Every --budget of one call, in order; a metric may have one budget only."""
    if isinstance(texts, str):
        texts = [texts]
    return one_per_metric(tuple(parse_budget(text, k, conventions) for text in texts),
                          "budgets")


def one_per_metric(limits: tuple, kind: str, key: str = "metric_label") -> tuple:
    """The limits as given, refused when two name one metric (a gate reads one per metric),
    or one statistic (`key`: the attribute that names what a limit reads); each prints as its
    flag's value."""
    seen: dict[str, object] = {}
    for limit in limits:
        named = getattr(limit, key)
        if named in seen:
            raise ValueError(f"two {kind} on {named}: {seen[named]} and {limit}; give one")
        seen[named] = limit
    return limits


def judge(
    test: PairedTest, budget: Budget, *, confidence_level: float | None = None
) -> BudgetVerdict:
    """Hold one paired test's interval of candidate - baseline to a budget on its metric.

    Within budget when low >= -limit (exactly on it passes), worse beyond budget when
    high < -limit, otherwise cannot tell yet. A relative budget's limit is read from the
    test's baseline mean.
    """
    if not isinstance(test, PairedTest):
        raise ValueError(f"judge needs a PairedTest, got {type(test).__name__}")
    if not isinstance(budget, Budget):
        raise ValueError(f"judge needs a Budget, got {type(budget).__name__}")
    if test.metric != budget.metric_label:
        raise ValueError(f"the budget is on {budget.metric_label}, the test on {test.metric}")
    low, high = float(test.low), float(test.high)
    if not (is_number(low) and is_number(high)) or low > high:
        raise ValueError(f"the interval of {test.candidate} on {test.metric} must be finite "
                         f"with low <= high, got [{low!r}, {high!r}]")
    limit = budget.limit(test.before_mean)
    floor = -limit
    if low >= floor - _TOLERANCE:
        verdict = WITHIN
    elif high < floor - _TOLERANCE:
        verdict = WORSE
    else:
        verdict = CANNOT_TELL
    return BudgetVerdict(
        candidate=test.candidate,
        metric=test.metric,
        budget=budget,
        baseline_mean=float(test.before_mean),
        limit=limit,
        low=low,
        high=high,
        verdict=verdict,
        confidence_level=confidence_level,
    )


def judge_comparison(
    comparison: Comparison, budgets: Sequence[Budget]
) -> tuple[BudgetVerdict | None, ...]:
    """One verdict per test of the comparison, in its order; None for a test whose metric has
    no budget. Every budget must name a compared metric, and a metric may have one budget."""
    if not isinstance(comparison, Comparison):
        raise ValueError(f"judge_comparison needs a Comparison, got {type(comparison).__name__}")
    by_metric: dict[str, Budget] = {}
    for budget in budgets:
        if not isinstance(budget, Budget):
            raise ValueError(f"budgets must be Budget objects, got {type(budget).__name__}")
        if budget.metric_label not in comparison.metrics:
            raise ValueError(f"budget on {budget.metric_label}, which is not compared; "
                             f"compared: {', '.join(comparison.metrics)}")
        if budget.metric_label in by_metric:
            raise ValueError(f"two budgets on {budget.metric_label}; give one")
        by_metric[budget.metric_label] = budget
    return tuple(
        judge(test, by_metric[test.metric], confidence_level=comparison.confidence_level)
        if test.metric in by_metric
        else None
        for test in comparison.tests
    )


def gate(verdicts: Sequence[BudgetVerdict | None]) -> bool:
    """Whether the CI gate passes: every budgeted test within budget (True when none is)."""
    return all(verdict.passed for verdict in verdicts if verdict is not None)


def budget_rows(comparison: Comparison, budgets: Sequence[Budget]) -> list[dict]:
    """comparison.rows(), each with "budget": {"limit", "verdict"} (None where the metric has
    no budget)."""
    verdicts = judge_comparison(comparison, budgets)
    return [
        {**row, "budget": None if verdict is None else verdict.as_dict()}
        for row, verdict in zip(comparison.rows(), verdicts, strict=True)
    ]
