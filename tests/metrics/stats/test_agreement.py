"""Kendall's tau-b and tau_AP between two orderings, against plain loops written from their
definitions (Kendall 1945 for tau-b; Yilmaz, Aslam and Robertson 2008, equation 1, for
tau_AP), on random scores with ties; and the orderings of runs an evaluation gives."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from metrics import load_sample
from metrics.decide.agreement import measure_agreements
from metrics.stats.agreement import agreement, discordant_pairs, kendall_tau, tau_ap


def tau_b_loop(a, b) -> float:
    concordant = discordant = ties_a = ties_b = 0
    for i, j in itertools.combinations(range(len(a)), 2):
        da, db = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
        if da == 0 and db == 0:
            continue
        if da == 0:
            ties_a += 1
        elif db == 0:
            ties_b += 1
        elif da == db:
            concordant += 1
        else:
            discordant += 1
    n0 = concordant + discordant
    return (concordant - discordant) / math.sqrt((n0 + ties_a) * (n0 + ties_b))


def tau_ap_loop(truth, estimate) -> float:
    """tau_AP = 2 / (N - 1) * sum over i = 2..N of C(i) / (i - 1) - 1, C(i) the items above
    rank i of the estimated ordering that the true ordering also puts above it (ties in
    either ordering broken by the items' given order)."""
    n = len(truth)
    rank_truth = {item: r for r, item in enumerate(sorted(range(n), key=lambda i: -truth[i]))}
    listed = sorted(range(n), key=lambda i: -estimate[i])
    total = 0.0
    for i in range(1, n):
        above = listed[:i]
        total += sum(rank_truth[j] < rank_truth[listed[i]] for j in above) / i
    return 2 / (n - 1) * total - 1


@pytest.mark.parametrize("seed", range(40))
def test_tau_and_tau_ap_agree_with_loops(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    a = rng.integers(0, 6, n) / 5  # ties on purpose
    b = a + rng.normal(0, 0.3, n) if seed % 2 else rng.integers(0, 6, n) / 5
    if len(set(a)) > 1 and len(set(b)) > 1:
        assert kendall_tau(a, b) == pytest.approx(tau_b_loop(a, b))
    assert tau_ap(a, b) == pytest.approx(tau_ap_loop(a, b))
    expected = [(i, j) for i, j in itertools.combinations(range(n), 2)
                if (a[i] - a[j]) * (b[i] - b[j]) < 0]
    assert discordant_pairs(a, b) == expected


def test_the_extremes_and_a_swap_near_the_top():
    truth = np.array([4.0, 3, 2, 1])
    assert kendall_tau(truth, truth) == tau_ap(truth, truth) == 1.0
    assert kendall_tau(truth, -truth) == tau_ap(truth, -truth) == -1.0
    top, bottom = np.array([3.0, 4, 2, 1]), np.array([4.0, 3, 1, 2])
    assert kendall_tau(truth, top) == kendall_tau(truth, bottom) == pytest.approx(2 / 3)
    assert tau_ap(truth, top) == pytest.approx(1 / 3)
    assert tau_ap(truth, bottom) == pytest.approx(7 / 9)  # a swap lower down costs less
    assert math.isnan(kendall_tau([1.0], [2.0])) and math.isnan(tau_ap([1.0], [2.0]))
    with pytest.raises(ValueError, match="arrays of one shape"):
        tau_ap([1, 2], [1, 2, 3])


def test_agreement_names_the_pairs_that_swap():
    found = agreement("A", "B", {"x": 0.9, "y": 0.5, "z": 0.1}, {"x": 0.2, "y": 0.6, "z": 0.4})
    assert found.order_first == ("x", "y", "z") and found.order_second == ("y", "z", "x")
    assert found.swapped == (("x", "y"), ("x", "z"))
    assert found.sentence == ("A and B order the runs with tau -0.333 and tau_AP 0.000: 2 of 3 "
                              "pairs swap.")
    with pytest.raises(ValueError, match="the same runs"):
        agreement("A", "B", {"x": 1.0}, {"y": 1.0})


def test_measure_agreements_read_the_evaluations_means():
    evaluation = load_sample(5)
    (found,) = measure_agreements(evaluation, ["MRR", "Rprec"], against="nDCG")[:1]
    means = [run.summary["RR"].mean for run in evaluation.runs]
    assert found.first == "nDCG@5" and found.second == "MRR@5"
    assert list(found.means_second) == means


def test_an_ordering_that_ties_every_run_leaves_tau_undefined_with_its_reason():
    """Two runs both at Hit@10 = 1.000 under one label set: tau-b has no strictly ordered
    pair to divide by, so tau is undefined; it says so in the sentence, the JSON (null
    beside the reason) and the cells, never 'nan' or None. tau_AP orders the tie as given."""
    found = agreement("Hit@10 (human)", "Hit@10 (judge)", {"a": 1.0, "b": 1.0},
                      {"a": 0.9, "b": 1.0})
    assert math.isnan(found.tau) and not math.isnan(found.tau_ap)
    assert found.tau_undefined == "Hit@10 (human) ties every run, so it orders no pair"
    assert found.tau_ap_undefined == ""
    assert "nan" not in found.sentence
    assert f"tau undefined ({found.tau_undefined})" in found.sentence
    document = found.as_dict()
    assert document["tau"] is None and document["undefined"] == {"tau": found.tau_undefined}
    defined = agreement("x", "y", {"a": 1.0, "b": 0.5}, {"a": 0.9, "b": 1.0})
    assert defined.tau_undefined == "" and defined.as_dict()["undefined"] == {}
