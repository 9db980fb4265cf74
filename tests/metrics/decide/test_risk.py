"""metrics.risk: URisk and TRisk against a plain loop and hand-computed figures, the harm share
against statsmodels' Wilson interval, the worst losses' order, and the harm gate."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from metrics.decide.risk import (
    HarmLimit,
    HarmVerdict,
    Risk,
    harm_gate,
    harm_passed,
    judge_harm,
    parse_harm_limit,
    parse_harm_limits,
    risk,
    risk_rows,
    risks,
    trisk,
    urisk,
)
from metrics.stats.comparison import compare
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.risk import (
    HARM_DELTA,
    HARM_FAILED,
    HARM_HELP,
    HARM_PASSED,
    NOT_DIFFERENT,
    RISK_ALPHAS,
    RISK_MEANING,
    RISK_NAMES,
    RISKIER,
    SAFER,
    TRISK_THRESHOLD,
    UNDEFINED,
    harm_failure,
    harm_sentence,
    risk_sentence,
    trisk_reading,
    worst_sentence,
)

# --------------------------------------------------------------------------- a plain reference


def loop_urisk(differences: list[float], alpha: float) -> float:
    total = 0.0
    for d in differences:
        total += d if d >= 0 else (1 + alpha) * d
    return total / len(differences)


def loop_trisk(differences: list[float], alpha: float) -> float:
    z = [d if d >= 0 else (1 + alpha) * d for d in differences]
    c = len(z)
    mean = sum(z) / c
    sd = math.sqrt(sum((v - mean) ** 2 for v in z) / (c - 1))
    return mean / (sd / math.sqrt(c))


HAND = [0.2, -0.1, 0.0, -0.3]


class FakeTest:
    """Duck-typed paired test: only what risk() reads."""

    def __init__(self, differences, candidate="cand", metric="nDCG@10"):
        self.differences = np.asarray(differences, dtype=float)
        self.candidate = candidate
        self.metric = metric


def ids(n: int) -> list[str]:
    return [f"q{i + 1}" for i in range(n)]


def comparison_of(before: list[float], **candidates: list[float]):
    """A compare() over one metric, nDCG@10, with few resamples: risk reads only differences."""
    n = len(before)
    scores = {"base": {"nDCG@10": np.array(before)}}
    scores |= {name: {"nDCG@10": np.array(after)} for name, after in candidates.items()}
    return compare("base", scores, ids(n), n_resamples=50, n_permutations=50, rng=0)


# --------------------------------------------------------------------------- URisk, TRisk


def test_hand_computed_figures() -> None:
    # α = 1: z = [0.2, -0.2, 0, -0.6], mean -0.15, s_z² = 0.35 / 3
    assert urisk(HAND, 1) == pytest.approx(-0.15)
    assert trisk(HAND, 1) == pytest.approx(-0.15 / (math.sqrt(0.35 / 3) / 2))
    assert trisk(HAND, 1) == pytest.approx(-0.8783100656536799)
    # α = 5: z = [0.2, -0.6, 0, -1.8], mean -0.55, s_z = 0.9, so TRisk = -0.55 / 0.45
    assert urisk(HAND, 5) == pytest.approx(-0.55)
    assert trisk(HAND, 5) == pytest.approx(-11 / 9)


def test_alpha_zero_is_the_mean_and_the_paired_t_statistic() -> None:
    d = np.random.default_rng(3).normal(0.01, 0.1, size=40)
    assert urisk(d, 0) == pytest.approx(d.mean())
    assert trisk(d, 0) == pytest.approx(stats.ttest_1samp(d, 0.0).statistic)


@pytest.mark.parametrize("alpha", [0, 1, 2.5, 5])
def test_vectorised_equals_the_loop_on_random_columns(alpha: float) -> None:
    rng = np.random.default_rng(7)
    d = np.round(rng.uniform(-1, 1, size=(60, 9)), 2)
    d[:, 3] = np.where(d[:, 3] > 0, 0.0, d[:, 3])  # only losses and ties
    d[:, 4] = np.abs(d[:, 4])  # only gains
    u, t = urisk(d, alpha), trisk(d, alpha)
    assert u.shape == t.shape == (9,)
    for j in range(9):
        column = d[:, j].tolist()
        assert u[j] == pytest.approx(loop_urisk(column, alpha), abs=1e-12)
        assert t[j] == pytest.approx(loop_trisk(column, alpha), rel=1e-10)
        assert urisk(d[:, j], alpha) == pytest.approx(u[j], abs=1e-15)  # 1-D alike


def test_one_column_gives_a_float_and_losses_weigh_more_with_alpha() -> None:
    assert isinstance(urisk(HAND, 1), float)
    assert isinstance(trisk(HAND, 1), float)
    assert urisk(HAND, 5) < urisk(HAND, 1) < urisk(HAND, 0) == pytest.approx(-0.05)
    assert urisk([0.1, 0.2], 5) == pytest.approx(0.15)  # no loss: α changes nothing


def test_trisk_without_spread() -> None:
    assert trisk([0.0, 0.0, 0.0], 1) == 0.0  # nothing changed: no risk either way
    assert math.isnan(trisk([0.1, 0.1, 0.1], 1))  # float sums leave s_z at 1.7e-17 here
    assert math.isnan(trisk([-0.2, -0.2], 5))
    both = trisk(np.array([[0.0, 0.1, 0.3], [0.0, 0.1, -0.2]]), 1)
    assert both[0] == 0.0 and math.isnan(both[1]) and math.isfinite(both[2])
    assert urisk([-0.2, -0.2], 5) == pytest.approx(-1.2)  # URisk says which way


def test_bad_differences_and_alphas_are_refused() -> None:
    with pytest.raises(ValueError, match="at least 2 queries"):
        trisk([0.1], 1)
    assert urisk([-0.1], 1) == pytest.approx(-0.2)  # a mean needs one query
    with pytest.raises(ValueError, match="at least 1 query"):
        urisk([], 1)
    with pytest.raises(ValueError, match="finite"):
        urisk([0.1, float("nan")], 1)
    with pytest.raises(ValueError, match="1-D or 2-D"):
        trisk(np.zeros((2, 2, 2)), 1)
    for alpha in (-1, float("nan"), float("inf"), True, "1"):
        with pytest.raises(ValueError, match="risk aversion"):
            urisk(HAND, alpha)


# --------------------------------------------------------------------------- one Risk


def test_risk_of_a_test() -> None:
    result = risk(FakeTest(HAND), ids(4))
    assert isinstance(result, Risk)
    assert result.alphas == (1.0, 5.0)
    assert result.urisk == pytest.approx((-0.15, -0.55))
    assert result.trisk_at(5) == pytest.approx(-11 / 9)
    assert result.urisk_at(1.0) == pytest.approx(-0.15)
    assert (result.harmed, result.losing, result.n) == (2, 2, 4)
    assert result.harm_share == 0.5
    assert result.mean_loss == pytest.approx(0.2)  # (0.1 + 0.3) / 2, a positive size
    assert result.worst == (("q4", -0.3), ("q2", -0.1))
    assert result.reading(1) == NOT_DIFFERENT
    with pytest.raises(ValueError, match="not computed"):
        result.trisk_at(2)


def test_a_loss_of_exactly_delta_is_not_harm() -> None:
    # 0.45 - 0.5 is -0.04999999999999999 in floats; compare rounds it to -0.05
    comparison = comparison_of([0.5, 0.5, 0.5, 0.5], cand=[0.45, 0.4499, 0.5, 0.6])
    result = risk(comparison.tests[0], comparison.query_ids)
    assert result.harmed == 1  # only 0.4499: -0.0501
    assert result.losing == 2
    assert risk(FakeTest([-0.05, -0.0500001, 0.0]), ids(3)).harmed == 1
    assert risk(FakeTest([-0.05, -0.02, 0.0]), ids(3), delta=0.0).harmed == 2  # any loss


def test_mean_loss_counts_every_loss_however_small() -> None:
    result = risk(FakeTest([-0.01, -0.2, 0.3, 0.0]), ids(4))
    assert (result.losing, result.harmed) == (2, 1)
    assert result.mean_loss == pytest.approx(0.105)
    gains = risk(FakeTest([0.1, 0.0, 0.2]), ids(3))
    assert gains.losing == 0 and math.isnan(gains.mean_loss) and gains.worst == ()
    assert gains.as_dict()["mean_loss"] is None
    assert gains.sentence.endswith("; no query loses")


@pytest.mark.parametrize("level", [0.95, 0.9, 0.99])
@pytest.mark.parametrize("harmed, n", [(0, 20), (3, 20), (60, 500), (20, 20)])
def test_harm_interval_is_statsmodels_wilson(level: float, harmed: int, n: int) -> None:
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    d = np.array([-0.3] * harmed + [0.1] * (n - harmed))
    result = risk(FakeTest(d), ids(n), confidence_level=level)
    low, high = proportion.proportion_confint(harmed, n, alpha=1 - level, method="wilson")
    assert result.harm_share == harmed / n
    assert result.harm_low == pytest.approx(low, abs=1e-12)
    assert result.harm_high == pytest.approx(high, abs=1e-12)
    assert result.confidence_level == level


def test_worst_losses_worst_first_ties_by_query_id() -> None:
    d = [-0.2, -0.5, 0.3, -0.2, -0.5, -0.1, 0.0, -0.2]
    query_ids = ["q10", "q9", "q1", "q2", "q11", "q3", "q4", "q1b"]
    result = risk(FakeTest(d), query_ids, worst=10)
    assert result.worst == (("q9", -0.5), ("q11", -0.5), ("q1b", -0.2), ("q2", -0.2),
                            ("q10", -0.2), ("q3", -0.1))  # natural order: q2 before q10
    # the cut falls inside the tie at -0.2: the smallest ids are kept
    assert risk(FakeTest(d), query_ids, worst=4).worst == result.worst[:4]
    assert risk(FakeTest(d), query_ids, worst=1).worst == (("q9", -0.5),)
    assert risk(FakeTest(d), query_ids, worst=0).worst == ()
    # the same whatever the input order
    order = np.random.default_rng(1).permutation(len(d))
    shuffled = risk(FakeTest(np.array(d)[order]), [query_ids[i] for i in order], worst=4)
    assert shuffled.worst == result.worst[:4]


def test_at_most_ten_worst_by_default() -> None:
    d = -np.arange(1, 31) / 100
    result = risk(FakeTest(d), ids(30))
    assert len(result.worst) == 10
    assert [q for q, _ in result.worst] == [f"q{i}" for i in range(30, 20, -1)]


def test_risk_checks_its_inputs() -> None:
    with pytest.raises(ValueError, match="one query id per difference"):
        risk(FakeTest(HAND), ids(3))
    with pytest.raises(ValueError, match="sequence of ids"):
        risk(FakeTest(HAND), "q1q2")
    with pytest.raises(ValueError, match=r"\.differences"):
        risk({"differences": HAND}, ids(4))
    with pytest.raises(ValueError, match="delta"):
        risk(FakeTest(HAND), ids(4), delta=1.5)
    with pytest.raises(ValueError, match="distinct"):
        risk(FakeTest(HAND), ids(4), alphas=(1, 1.0))
    with pytest.raises(ValueError, match="non-empty"):
        risk(FakeTest(HAND), ids(4), alphas=())
    with pytest.raises(ValueError, match="worst"):
        risk(FakeTest(HAND), ids(4), worst=-1)
    with pytest.raises(ValueError, match="confidence_level"):
        risk(FakeTest(HAND), ids(4), confidence_level=1.0)
    with pytest.raises(ValueError, match="at least 2"):
        risk(FakeTest([-0.1]), ids(1))


# --------------------------------------------------------------------------- a comparison


def test_risks_of_a_comparison_equal_one_test_at_a_time() -> None:
    rng = np.random.default_rng(5)
    before = rng.uniform(0, 1, 40).round(3)
    comparison = comparison_of(list(before), a=list(rng.uniform(0, 1, 40).round(3)),
                               b=list(before), c=list(np.clip(before - 0.1, 0, 1)))
    together = risks(comparison)
    assert [(r.candidate, r.metric) for r in together] == [
        (t.candidate, t.metric) for t in comparison.tests]
    for item, test in zip(together, comparison.tests, strict=True):
        alone = risk(test, comparison.query_ids)  # the same floats, not merely close ones
        assert item.as_dict() == alone.as_dict()  # (nan != nan: compare the JSON, None)
    assert together[1].trisk == (0.0, 0.0)  # the baseline against itself
    assert together[2].urisk_at(5) < together[2].urisk_at(1) < 0


def test_risk_rows_are_json() -> None:
    comparison = comparison_of([0.5, 0.5, 0.5], up=[0.6, 0.6, 0.6], mixed=[0.2, 0.5, 0.9])
    rows = risk_rows(comparison, confidence_level=0.9)
    json.dumps(rows, allow_nan=False)
    up, mixed = rows
    assert set(up) >= {"urisk", "trisk", "harm_share", "harm_low", "harm_high", "harm_delta",
                       "harmed", "losing", "mean_loss", "worst", "reading"}
    assert set(up["urisk"]) == set(up["trisk"]) == {"1", "5"}
    assert up["trisk"] == {"1": None, "5": None}  # every query gained 0.1: undefined
    assert up["reading"]["1"] == UNDEFINED
    assert up["urisk"]["5"] == pytest.approx(0.1)
    assert mixed["worst"] == [{"query_id": "q1", "difference": pytest.approx(-0.3)}]
    assert mixed["harm_delta"] == HARM_DELTA and mixed["confidence_level"] == 0.9
    assert all(type(v) is float for v in mixed["urisk"].values())
    assert risk_rows(comparison)[0]["confidence_level"] == comparison.confidence_level
    with pytest.raises(ValueError, match="needs a Comparison"):
        risk_rows(comparison.tests)


# --------------------------------------------------------------------------- words


@pytest.mark.parametrize("value, reading", [
    (2.01, SAFER), (TRISK_THRESHOLD, NOT_DIFFERENT), (0.0, NOT_DIFFERENT),
    (-TRISK_THRESHOLD, NOT_DIFFERENT), (-2.01, RISKIER), (float("inf"), SAFER),
    (float("nan"), UNDEFINED), (None, UNDEFINED),
])
def test_trisk_readings(value, reading) -> None:
    assert trisk_reading(value) == reading


def test_sentences() -> None:
    assert harm_sentence(
        candidate="bm25+rerank", metric="nDCG@10", delta=0.05, harm_share=0.12, low=0.0944,
        high=0.1514, harmed=60, n=500, losing=71, mean_loss=0.0834,
    ) == ("bm25+rerank loses more than 0.05 nDCG@10 on 12.0% of queries [9.4%, 15.1%] "
          "(60 of 500); mean loss 0.083 over the 71 queries that lose")
    one = risk(FakeTest([-0.3, 0.1]), ["a", "b"], delta=0.05)
    assert one.sentence == ("cand loses more than 0.05 nDCG@10 on 50.0% of queries "
                            f"[{one.harm_low * 100:.1f}%, {one.harm_high * 100:.1f}%] (1 of 2); "
                            "mean loss 0.300 over the 1 query that loses")
    assert risk_sentence(5, -0.012, -2.41) == (
        "URisk α=5 -0.012, TRisk -2.410: reliably riskier than the baseline")
    assert risk_sentence(1, 0.1, None).endswith(f"TRisk —: {UNDEFINED}")
    assert worst_sentence([("q7", -0.412), ("q3", -0.38)]) == "worst losses: q7 -0.412, q3 -0.380"
    assert set(RISK_NAMES) <= set(RISK_MEANING)
    assert RISK_ALPHAS == (1, 5) and HARM_DELTA == 0.05


# --------------------------------------------------------------------------- the harm gate


@pytest.mark.parametrize("text, share, delta", [
    ("nDCG@10=0.10:0.05", 0.10, 0.05),
    ("nDCG@10=10%:0.05", 0.10, 0.05),
    ("nDCG=0.2", 0.2, HARM_DELTA),
    (" nDCG@10 = 12.5% : 0.1 ", 0.125, 0.1),
    ("MRR=0:0", 0.0, 0.0),
    ("nDCG@10=100%:1", 1.0, 1.0),
])
def test_parse_harm_limit(text: str, share: float, delta: float) -> None:
    limit = parse_harm_limit(text, 10, Conventions())
    assert limit.share == pytest.approx(share) and limit.delta == delta
    assert limit.metric_label in ("nDCG@10", "MRR@10")
    assert parse_harm_limit(str(limit), 10, Conventions()) == limit  # written back as read


@pytest.mark.parametrize("text, message", [
    ("nDCG@10", "lacks '='"),
    ("=0.1", "lacks the metric"),
    ("nDCG@10=", "lacks the share"),
    ("nDCG@10=:0.05", "lacks the share"),
    ("nDCG@10=0.1:", "lacks DELTA after ':'"),
    ("nDCG@5=0.1", "K = 5"),
    ("BLEU=0.1", "unknown metric 'BLEU'"),
    ("nDCG@10=ten", "SHARE 'ten' is not a number"),
    ("nDCG@10=10", r"did you mean 10%\?"),
    ("nDCG@10=150%", "SHARE must be a number from 0 to 1"),
    ("nDCG@10=-0.1", "SHARE must be"),
    ("nDCG@10=nan", "SHARE must be"),
    ("nDCG@10=0.1:5%", r"DELTA '5%': .*\(not a percentage\)"),
    ("nDCG@10=0.1:1.5", "DELTA must be"),
    ("nDCG@10=0.1:inf", "DELTA must be"),
    ("nDCG@10=0.1:x", "DELTA 'x' is not a number"),
])
def test_parse_errors_name_the_bad_part(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_harm_limit(text, 10, Conventions())


def test_one_harm_limit_per_metric() -> None:
    assert len(parse_harm_limits(["nDCG=0.1", "MRR@10=0.2:0.1"], 10, Conventions())) == 2
    assert parse_harm_limits("nDCG=0.1", 10, Conventions()) == (HarmLimit("nDCG@10", 0.1),)
    with pytest.raises(ValueError, match="two harm limits on nDCG@10"):
        parse_harm_limits(["nDCG=0.1", "nDCG@10=0.2:0.1"], 10, Conventions())
    with pytest.raises(ValueError, match="SHARE"):
        HarmLimit("nDCG@10", 1.5)
    with pytest.raises(ValueError, match="DELTA"):
        HarmLimit("nDCG@10", 0.1, -0.01)
    assert str(HarmLimit("nDCG@10", 0.1)) == "nDCG@10=10%:0.05"


def test_gate_passes_on_the_limit_and_fails_above_it() -> None:
    before = [0.5] * 10
    # three of ten lose more than 0.05; one loses exactly 0.05 (not harm), one 0.01
    harms = [0.3, 0.4, 0.44, 0.45, 0.49, 0.5, 0.6, 0.6, 0.6, 0.6]
    comparison = comparison_of(before, harms=harms, safe=[0.55] * 10)
    on_limit = harm_gate(comparison, [parse_harm_limit("nDCG@10=30%", 10, Conventions())])
    assert [v.candidate for v in on_limit] == ["harms", "safe"]
    assert [v.passed for v in on_limit] == [True, True] and harm_passed(on_limit)
    verdict = on_limit[0]
    assert isinstance(verdict, HarmVerdict)
    assert (verdict.harmed, verdict.n, verdict.harm_share) == (3, 10, 0.3)
    assert verdict.delta == 0.05 and verdict.confidence_level == comparison.confidence_level
    below = harm_gate(comparison, [parse_harm_limit("nDCG@10=0.2", 10, Conventions())])
    assert [v.passed for v in below] == [False, True] and not harm_passed(below)
    row = below[0].as_dict()
    assert row == {"candidate": "harms", "metric": "nDCG@10", "share": 0.3,
                   "low": below[0].low, "high": below[0].high, "limit": 0.2, "delta": 0.05,
                   "harmed": 3, "n": 10, "passed": False}
    json.dumps(row, allow_nan=False)
    assert below[0].sentence.startswith(f"{HARM_FAILED}: 30.0% of queries [")
    assert below[0].sentence.endswith(
        "(3 of 10) lose more than 0.05 nDCG@10; the limit is 20% (95% Wilson interval)")
    assert below[1].sentence.startswith(f"{HARM_PASSED}: 0.0% of queries")
    # a larger δ harms fewer: only the losses of 0.2 and 0.1 exceed 0.09
    wide = harm_gate(comparison, [parse_harm_limit("nDCG@10=0.2:0.09", 10, Conventions())])
    assert wide[0].harmed == 2 and wide[0].passed
    assert harm_failure("harms", "nDCG@10", "base", below[0].sentence).startswith(
        "harm: harms on nDCG@10 against base: harms too many queries")


def test_gate_checks_its_limits() -> None:
    comparison = comparison_of([0.5, 0.5], cand=[0.4, 0.5])
    with pytest.raises(ValueError, match="not compared"):
        harm_gate(comparison, [HarmLimit("MRR@10", 0.1)])
    with pytest.raises(ValueError, match="HarmLimit objects"):
        harm_gate(comparison, ["nDCG@10=0.1"])
    with pytest.raises(ValueError, match="two harm limits"):
        harm_gate(comparison, [HarmLimit("nDCG@10", 0.1), HarmLimit("nDCG@10", 0.2)])
    with pytest.raises(ValueError, match="needs a Comparison"):
        harm_gate(comparison.tests, [HarmLimit("nDCG@10", 0.1)])
    with pytest.raises(ValueError, match="the test on nDCG@10"):
        judge_harm(comparison.tests[0], HarmLimit("MRR@10", 0.1))
    assert harm_gate(comparison, []) == () and harm_passed(())
    assert "default 0.05" in HARM_HELP  # the help says the δ it falls back on
