"""metrics.budget: the CI gate's non-inferiority verdicts on constructed intervals, and parsing."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metrics.core.compare import compare_evaluation
from metrics.core.sample import load_sample
from metrics.decide.budget import (
    Budget,
    BudgetVerdict,
    budget_rows,
    gate,
    judge,
    judge_comparison,
    parse_budget,
    parse_budgets,
)
from metrics.stats.comparison import PairedTest
from metrics.vocabulary.budget import (
    BUDGET_METHOD,
    CANNOT_TELL,
    PASSING,
    VERDICTS,
    WITHIN,
    WORSE,
    budget_sentence,
)
from metrics.vocabulary.conventions import Conventions


def make_test(low: float, high: float, *, before_mean: float = 0.5,
              metric: str = "nDCG@10", candidate: str = "cand") -> PairedTest:
    """A paired test with only what a budget reads set to something that matters."""
    difference = (low + high) / 2
    return PairedTest(
        candidate=candidate, metric=metric, n=50, before_mean=before_mean,
        after_mean=before_mean + difference, difference=difference, low=low, high=high,
        wins=20, ties=10, losses=20, p_randomization=0.5, p_t=0.5, p_wilcoxon=0.5,
        effect_size=0.0, p_adjusted=0.5, significant=False,
        differences=np.zeros(50), before=np.zeros(50), after=np.zeros(50),
    )


ABSOLUTE = Budget("nDCG@10", 0.02)


# --------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize(
    "low, high, verdict",
    [
        (-0.01, 0.03, WITHIN),  # lower end above -0.02
        (0.01, 0.05, WITHIN),  # better: within any budget
        (-0.05, -0.03, WORSE),  # upper end below -0.02
        (-0.03, 0.01, CANNOT_TELL),  # straddles -0.02
        (-0.03, -0.01, CANNOT_TELL),  # worse, but maybe within the budget
    ],
)
def test_intervals_on_each_side_of_the_budget(low: float, high: float, verdict: str) -> None:
    result = judge(make_test(low, high), ABSOLUTE)
    assert isinstance(result, BudgetVerdict)
    assert result.verdict == verdict
    assert result.passed is (verdict == WITHIN)
    assert result.limit == 0.02
    assert (result.low, result.high) == (low, high)
    assert result.as_dict() == {"limit": 0.02, "verdict": verdict}


def test_lower_end_exactly_on_minus_the_limit_passes() -> None:
    assert judge(make_test(-0.02, 0.01), ABSOLUTE).verdict == WITHIN
    assert judge(make_test(-0.02, -0.02), ABSOLUTE).verdict == WITHIN  # a zero-width interval
    assert judge(make_test(-0.020001, 0.01), ABSOLUTE).verdict == CANNOT_TELL


def test_upper_end_exactly_on_minus_the_limit_cannot_tell() -> None:
    """'Worse beyond budget' needs the upper end below minus the limit, not on it."""
    assert judge(make_test(-0.05, -0.02), ABSOLUTE).verdict == CANNOT_TELL
    assert judge(make_test(-0.05, -0.020001), ABSOLUTE).verdict == WORSE


def test_a_zero_budget_allows_no_loss() -> None:
    zero = Budget("nDCG@10", 0.0)
    assert judge(make_test(0.0, 0.02), zero).verdict == WITHIN
    assert judge(make_test(-0.001, 0.02), zero).verdict == CANNOT_TELL
    assert judge(make_test(-0.01, -0.001), zero).verdict == WORSE


def test_relative_budgets_are_a_share_of_the_baseline_mean() -> None:
    relative = parse_budget("nDCG@10=2%", 10, Conventions())
    assert relative == Budget("nDCG@10", 2.0, True)
    assert relative.limit(0.7) == pytest.approx(0.014)
    # 2% x 0.7 is 0.013999999999999999 in floats: a lower end written -0.014 is on the limit
    assert judge(make_test(-0.014, 0.01, before_mean=0.7), relative).verdict == WITHIN
    assert judge(make_test(-0.015, 0.01, before_mean=0.7), relative).verdict == CANNOT_TELL
    assert judge(make_test(-0.03, -0.015, before_mean=0.7), relative).verdict == WORSE
    # the same interval within an absolute budget of 0.02
    assert judge(make_test(-0.015, 0.01, before_mean=0.7), ABSOLUTE).verdict == WITHIN
    result = judge(make_test(-0.014, 0.01, before_mean=0.7), relative)
    assert result.as_dict()["limit"] == pytest.approx(0.014)
    assert result.baseline_mean == 0.7


def test_relative_limit_of_a_zero_baseline_is_zero() -> None:
    assert Budget("nDCG@10", 5.0, True).limit(0.0) == 0.0
    with pytest.raises(ValueError, match="baseline mean"):
        Budget("nDCG@10", 5.0, True).limit(float("nan"))
    with pytest.raises(ValueError, match="baseline mean"):
        Budget("nDCG@10", 5.0, True).limit(-0.1)


def test_judge_checks_the_metric_and_the_interval() -> None:
    with pytest.raises(ValueError, match="budget is on nDCG@10, the test on MRR@10"):
        judge(make_test(-0.01, 0.01, metric="MRR@10"), ABSOLUTE)
    with pytest.raises(ValueError, match="finite"):
        judge(make_test(float("nan"), 0.01), ABSOLUTE)
    with pytest.raises(ValueError, match="needs a PairedTest"):
        judge({"low": -0.01}, ABSOLUTE)
    with pytest.raises(ValueError, match="needs a Budget"):
        judge(make_test(-0.01, 0.01), "nDCG@10=0.02")


def test_gate_passes_only_when_every_budget_is_within() -> None:
    within = judge(make_test(-0.01, 0.01), ABSOLUTE)
    unsure = judge(make_test(-0.03, 0.01), ABSOLUTE)
    worse = judge(make_test(-0.05, -0.03), ABSOLUTE)
    assert gate([within, None, within])
    assert not gate([within, unsure])
    assert not gate([worse, within])
    assert gate([None, None]) and gate([])


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "text, k, expected",
    [
        ("nDCG@10=0.02", 10, Budget("nDCG@10", 0.02)),
        ("nDCG@10=2%", 10, Budget("nDCG@10", 2.0, True)),
        ("MRR=0.01", 10, Budget("MRR@10", 0.01)),  # K implied
        ("RR@5=0.01", 5, Budget("MRR@5", 0.01)),  # the per-query key names the same measure
        ("  R@20 = 1.5 % ", 20, Budget("R@20", 1.5, True)),
        ("P=0", 3, Budget("P@3", 0.0)),
        ("MAP@10=1e-2", 10, Budget("MAP@10", 0.01)),
    ],
)
def test_parse_budget(text: str, k: int, expected: Budget) -> None:
    assert parse_budget(text, k, Conventions()) == expected


def test_a_budget_reads_as_written() -> None:
    assert str(parse_budget("nDCG@10=0.02", 10, Conventions())) == "nDCG@10=0.02"
    assert str(parse_budget("MRR=2.5%", 10, Conventions())) == "MRR@10=2.5%"


@pytest.mark.parametrize(
    "text, message",
    [
        ("nDCG@10", "lacks '='"),
        ("nDCG@10 0.02", "lacks '='"),
        ("=0.02", "lacks the metric"),
        ("nDCG@10=", "lacks the amount"),
        ("", "lacks '='"),
        ("nDCG@5=0.02", "names K = 5, but the comparison is at K = 10"),
        ("BLEU=0.02", "unknown metric 'BLEU'"),
        ("nDCG@10=abc", "amount 'abc' is not a number"),
        ("nDCG@10=%", "amount '%' is not a number"),
        ("nDCG@10=0.02%%", "amount '0.02%%' is not a number"),
        ("nDCG@10=-0.01", "amount '-0.01': the amount must be a finite number >= 0"),
        ("nDCG@10=-2%", "amount '-2%'"),
        ("nDCG@10=nan", "amount 'nan'"),
        ("nDCG@10=inf", "amount 'inf'"),
    ],
)
def test_parse_errors_name_the_bad_part(text: str, message: str) -> None:
    with pytest.raises(ValueError, match="budget") as error:
        parse_budget(text, 10, Conventions())
    assert message in str(error.value)
    assert repr(text) in str(error.value)  # the text as given


def test_parse_refuses_what_is_not_text() -> None:
    with pytest.raises(ValueError, match="must be text"):
        parse_budget(0.02, 10, Conventions())


def test_one_budget_per_metric() -> None:
    assert parse_budgets(["nDCG=0.02", "MRR@10=1%"], 10, Conventions()) == (
        Budget("nDCG@10", 0.02), Budget("MRR@10", 1.0, True))
    assert parse_budgets("nDCG=0.02", 10, Conventions()) == (Budget("nDCG@10", 0.02),)
    with pytest.raises(ValueError, match="two budgets on nDCG@10: nDCG@10=0.02 and nDCG@10=1%"):
        parse_budgets(["nDCG=0.02", "nDCG@10=1%"], 10, Conventions())


@pytest.mark.parametrize("amount", [-0.1, float("nan"), float("inf"), "0.02", True])
def test_budget_checks_its_amount(amount: object) -> None:
    with pytest.raises(ValueError, match="amount must be"):
        Budget("nDCG@10", amount)
    with pytest.raises(ValueError, match="metric must be a label"):
        Budget("", 0.02)


# --------------------------------------------------------------------------- a comparison


def test_judge_comparison_gives_one_verdict_per_test() -> None:
    comparison = compare_evaluation(load_sample())  # K = 5, nine queries: wide intervals
    budgets = parse_budgets(["nDCG=0.5", "MRR@5=1%"], 5, Conventions())
    verdicts = judge_comparison(comparison, budgets)
    assert len(verdicts) == len(comparison.tests)
    for test, verdict in zip(comparison.tests, verdicts, strict=True):
        if test.metric not in ("nDCG@5", "MRR@5"):
            assert verdict is None
            continue
        assert (verdict.candidate, verdict.metric) == (test.candidate, test.metric)
        assert (verdict.low, verdict.high) == (test.low, test.high)
        assert verdict.confidence_level == comparison.confidence_level
        expected = 0.5 if test.metric == "nDCG@5" else 0.01 * test.before_mean
        assert verdict.limit == pytest.approx(expected)
    by_pair = {(v.candidate, v.metric): v.verdict for v in verdicts if v is not None}
    # reranked nDCG@5: [-0.060, +0.384] is above -0.5; MRR@5: [-0.120, ...] straddles -0.0x
    assert by_pair["reranked", "nDCG@5"] == WITHIN
    assert by_pair["reranked", "MRR@5"] == CANNOT_TELL
    assert not gate(verdicts)


def test_budget_rows_add_the_budget_to_each_comparison_row() -> None:
    comparison = compare_evaluation(load_sample())
    rows = budget_rows(comparison, [parse_budget("nDCG=0.5", 5, Conventions())])
    assert len(rows) == len(comparison.rows())
    for row in rows:
        if row["metric"] == "nDCG@5":
            assert row["budget"] == {"limit": 0.5, "verdict": WITHIN}
        else:
            assert row["budget"] is None
    json.dumps(rows, allow_nan=False)


def test_judge_comparison_refuses_a_metric_not_compared() -> None:
    comparison = compare_evaluation(load_sample(), metrics=["nDCG"])
    with pytest.raises(ValueError, match="budget on MRR@5, which is not compared; "
                                         "compared: nDCG@5"):
        judge_comparison(comparison, [parse_budget("MRR=0.01", 5, Conventions())])
    with pytest.raises(ValueError, match="two budgets on nDCG@5"):
        judge_comparison(comparison, [Budget("nDCG@5", 0.1), Budget("nDCG@5", 1.0, True)])
    with pytest.raises(ValueError, match="needs a Comparison"):
        judge_comparison(comparison.tests, [])


# --------------------------------------------------------------------------- words


def test_verdict_words() -> None:
    assert list(VERDICTS) == ["within budget", "worse beyond budget", "cannot tell yet"]
    assert PASSING == (WITHIN,)
    assert "non-inferiority" in BUDGET_METHOD.lower()


def test_sentences_name_the_interval_and_the_limit() -> None:
    within = judge(make_test(-0.012, 0.03), ABSOLUTE, confidence_level=0.95)
    assert within.sentence == ("within budget: the 95% interval's lower end -0.012 is at or "
                               "above -0.020 (nDCG@10 budget 0.020)")
    worse = judge(make_test(-0.05, -0.03, before_mean=0.8), Budget("nDCG@10", 2.0, True))
    assert worse.sentence == ("worse beyond budget: the interval's upper end -0.030 is below "
                              "-0.016 (nDCG@10 budget 2% of the baseline's 0.800 = 0.016)")
    unsure = judge(make_test(-0.03, 0.01), ABSOLUTE, confidence_level=0.9)
    assert unsure.sentence == ("cannot tell yet: the 90% interval [-0.030, +0.010] straddles "
                               "-0.020 (nDCG@10 budget 0.020)")
    with pytest.raises(ValueError, match="verdict must be one of"):
        budget_sentence("fine", metric="m", budget="0.1", limit=0.1, low=0, high=0,
                        confidence_level=None)
