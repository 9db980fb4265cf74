"""The minimum effect (a convention of the verdicts): significant but smaller than it is a
verdict of its own, the equivalence test says when two runs are the same within it, and over
thousands of queries a Wilcoxon p that rejects is said to be worth little."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import compare_evaluation
from metrics.stats.comparison import compare
from metrics.stats.equivalence import tost
from metrics.vocabulary.comparisons import DECISIONS, MANY_QUERIES, comparison_method
from metrics.vocabulary.conventions import MIN_EFFECT, NO_MIN_EFFECT, min_effect_sentence


def _pair(n: int, shift: float, spread: float, seed: int = 0) -> tuple[dict, list[str]]:
    rng = np.random.default_rng(seed)
    before = rng.uniform(0.2, 0.8, n)
    after = before + shift + rng.normal(0, spread, n)
    return {"a": {"m": before}, "b": {"m": after}}, [f"q{i}" for i in range(n)]


def test_a_significant_difference_below_the_minimum_effect_is_its_own_verdict():
    scores, ids = _pair(3000, 0.004, 0.02)
    found = compare("a", scores, ids, n_permutations=2000, rng=1, min_effect=0.01)
    test = found.tests[0]
    assert test.significant and 0 < test.difference < 0.01
    assert found.decision(test) == "below_min_effect"
    assert DECISIONS["below_min_effect"] in found.verdict(test)
    # the same test with no minimum effect declared: plainly better
    plain = found.with_min_effect(None)
    assert plain.decision(plain.tests[0]) == "better" and plain.tests[0].p_equivalence is None
    said = plain.verdict(plain.tests[0])
    assert DECISIONS["below_min_effect"] not in said and "at least the minimum" not in said
    # 3,000 queries and the rank test rejects: said beside the verdict only where it calls
    # no difference that matters (here, below the minimum effect)
    assert "Ihemelandu" not in said and "Ihemelandu" in found.verdict(test)


def test_two_runs_within_the_margin_are_the_same_by_the_equivalence_test():
    scores, ids = _pair(500, 0.0, 0.02, seed=3)
    found = compare("a", scores, ids, n_permutations=2000, rng=1, min_effect=0.01)
    test = found.tests[0]
    assert not test.significant
    assert test.p_equivalence == pytest.approx(
        tost(scores["b"]["m"] - scores["a"]["m"], margin=0.01).p, rel=1e-9)
    assert test.p_equivalence < 0.05 and found.decision(test) == "equivalent"
    assert "the same within the minimum effect (±0.01; equivalence test p" in found.verdict(test)
    row = found.rows()[0]
    assert (row["min_effect"], row["decision"]) == (0.01, "equivalent")
    assert row["p_equivalence"] == test.p_equivalence


def test_a_difference_at_least_the_minimum_effect_is_said_to_be():
    scores, ids = _pair(300, 0.05, 0.05, seed=4)
    found = compare("a", scores, ids, n_permutations=2000, rng=1, min_effect=0.01)
    assert found.decision(found.tests[0]) == "better"
    assert "at least the minimum effect (0.01)" in found.verdict(found.tests[0])


def test_over_thousands_of_queries_a_rejecting_wilcoxon_is_said_to_be_worth_little():
    """A shift of the median but not of the mean: most queries gain a hair, a few lose
    much. Wilcoxon rejects; the verdict says what that is worth, and names the minimum
    effect (or asks for one)."""
    n = MANY_QUERIES + 200
    rng = np.random.default_rng(5)
    before = rng.uniform(0.2, 0.8, n)
    after = before + np.where(rng.random(n) < 0.9, 0.002, -0.018) + rng.normal(0, 1e-4, n)
    ids = [f"q{i}" for i in range(n)]
    found = compare("a", {"a": {"m": before}, "b": {"m": after}}, ids, n_permutations=1000,
                    rng=2)
    test = found.tests[0]
    assert test.p_wilcoxon < 0.05
    assert "Ihemelandu and Ekstrand" in found.verdict(test)
    assert "--min-effect" in found.verdict(test)
    assert "minimum effect (0.01)" in found.with_min_effect(0.01).verdict(test)
    assert "Ihemelandu" in comparison_method(found)["scale"]
    # fewer queries: no such note
    few = compare("a", {"a": {"m": before[:200]}, "b": {"m": after[:200]}}, ids[:200],
                  n_permutations=100, rng=2)
    assert "Ihemelandu" not in few.verdict(few.tests[0])
    assert "scale" not in comparison_method(few)


@pytest.mark.parametrize("bad", [0, -0.01, float("nan"), "0.01", True])
def test_a_bad_minimum_effect_is_refused(bad):
    scores, ids = _pair(20, 0.0, 0.1)
    with pytest.raises(ValueError, match="min_effect"):
        compare("a", scores, ids, n_permutations=10, min_effect=bad)


def test_the_convention_is_declared_once_with_its_sentence():
    assert MIN_EFFECT.flag == "--min-effect" and MIN_EFFECT.default is None
    assert min_effect_sentence(None) == NO_MIN_EFFECT
    assert "0.01" in min_effect_sentence(0.01)
    assert "TOST" in min_effect_sentence(0.01)


def test_a_verdict_the_wilcoxon_test_makes_significant_at_scale_says_what_it_is_worth():
    """The fragility check's Wilcoxon alternative over thousands of queries: the flip to
    significant carries the note; its JSON row does not change shape."""
    from metrics import evaluate
    from metrics.decide.fragility import fragility
    from tests.metrics.builders import make_qrels, make_run

    n = MANY_QUERIES + 200
    judgments = {f"q{i}": {f"r{i}": 1, f"s{i}": 1} for i in range(n)}
    # the candidate moves the relevant id up on two queries in three (RR 1/3 -> 1/2) and
    # loses it on the third: the mean does not move (2 x 1/6 = 1/3), but the gains are the
    # small differences and the losses the large, so the signed ranks lean to the losses
    base = {q: [f"x{q}", f"y{q}", f"r{q[1:]}"] for q in judgments}
    cand = {q: ([f"x{q}", f"y{q}", f"z{q}"] if i % 3 == 0 else [f"x{q}", f"r{q[1:]}"])
            for i, q in enumerate(judgments)}
    evaluation = evaluate(make_qrels(judgments), [make_run(base, name="base"),
                                                  make_run(cand, name="cand")], 3)
    comparison = compare_evaluation(evaluation, metrics=["RR"], n_permutations=2000)
    test = comparison.tests[0]
    assert test.p_wilcoxon < 0.05 <= test.p_adjusted  # only the rank test rejects
    found = fragility(evaluation, comparison)
    flip = next(f for f in found.flips if f.choice == "wilcoxon")
    assert "Ihemelandu and Ekstrand" in flip.sentence and "--min-effect" in flip.sentence
    assert set(flip.as_dict()) == {"candidate", "metric", "convention", "choice", "verdict",
                                   "verdict_under_choice"}
