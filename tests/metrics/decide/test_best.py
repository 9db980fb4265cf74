"""The best run per metric and those not significantly worse: each run against the best by
the existing paired test, one correction over every metric, checked against statsmodels."""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from metrics import compare_evaluation, evaluate, load_sample
from metrics.decide.best import best_marks
from metrics.decide.leaderboard import all_pairs
from metrics.vocabulary.conventions import MAX_PERMUTATIONS
from metrics.vocabulary.leaderboard import BEST_MARK, EVEN_MARK
from tests.metrics.builders import make_qrels, make_run


def ladder():
    """40 queries, one relevant id each: 'top' finds it at rank 1, 'near' at rank 1 on all
    but one query, 'far' never; 'copy' is 'top' again (a tie for best)."""
    judgments = {f"q{i}": {f"r{i}": 1} for i in range(40)}
    top = {q: [next(iter(docs)), "x"] for q, docs in judgments.items()}
    near = {q: (["x", next(iter(docs))] if q == "q0" else [next(iter(docs)), "x"])
            for q, docs in judgments.items()}
    far = {q: ["x", "y"] for q in judgments}
    runs = [make_run(top, name="top"), make_run(near, name="near"), make_run(far, name="far"),
            make_run(top, name="copy")]
    return evaluate(make_qrels(judgments), runs, 5)


def test_the_best_is_starred_ties_share_it_and_a_clear_loser_is_unmarked():
    marks = best_marks(ladder(), ["nDCG", "RR"], n_permutations=2000)
    for label in ("nDCG@5", "MRR@5"):
        assert marks.marks[label] == {"top": BEST_MARK, "copy": BEST_MARK, "near": EVEN_MARK,
                                      "far": ""}
    assert marks.n_comparisons == 4  # (near, far) x 2 metrics; the tied best is not tested
    assert "Holm over 4 comparisons, alpha 0.05" in marks.sentence


def test_the_p_values_are_the_pairwise_tests_adjusted_as_one_family():
    evaluation = load_sample(5)
    marks = best_marks(evaluation, ["nDCG", "P"], correction="holm", alpha=0.5,
                       n_permutations=3000)
    p, expected = [], {}
    for key, label in (("nDCG", "nDCG@5"), ("P", "P@5")):
        means = {r.name: r.summary[key].mean for r in evaluation.runs}
        best = max(means, key=means.get)
        others = [n for n in evaluation.run_names if n != best]
        tests = compare_evaluation(evaluation, baseline=best, candidates=others, metrics=[key],
                                   correction="none", n_permutations=3000,
                                   rng=evaluation.conventions.seed).tests
        p += [t.p_randomization for t in tests]
        expected[label] = (best, [(t.candidate, t.difference) for t in tests])
    adjusted = iter(multipletests(p, method="holm")[1])
    for label, (best, tested) in expected.items():
        assert marks.marks[label][best] == BEST_MARK
        for candidate, difference in tested:
            even = next(adjusted) >= 0.5 or difference >= 0
            assert marks.marks[label][candidate] == (EVEN_MARK if even else ""), label
    assert np.isclose(marks.alpha, 0.5)


def test_the_command_line_marks_the_table_and_the_json(capsys):
    import json

    from metrics.cli import main

    marks = best_marks(load_sample(5))
    assert main(["--mark-best", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr()[0])["marks"] == {"sentence": marks.sentence,
                                                          "metrics": marks.marks}
    assert main(["--mark-best"]) == 0
    out = capsys.readouterr()[0]
    assert marks.sentence in out and "0.732 [0.499, 0.937] ★" in out


def test_more_permutations_than_the_bound_are_refused_before_any_is_drawn():
    """The best marks and every pair of runs read the randomization tests' bound (10^12
    sign flips held compare past any wait)."""
    evaluation = load_sample()
    for call in (best_marks, all_pairs):
        with pytest.raises(ValueError, match=rf"n_permutations must be an integer from 1 to "
                           rf"{MAX_PERMUTATIONS:,}"):
            call(evaluation, n_permutations=10**12)
