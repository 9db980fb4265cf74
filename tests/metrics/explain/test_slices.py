"""Figures per slice equal evaluating each slice's queries alone, to the bit."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import Conventions, evaluate
from metrics.explain.facets import facet
from metrics.explain.slices import slice_evaluation
from metrics.vocabulary import SLICE_MIN_QUERIES, SUMMARY_MEASURES
from tests.metrics.builders import make_qrels, make_run


def collection(seed: int, n_queries: int = 60):
    """Graded judgments (some queries with no relevant id) and three runs of 0-12 ids."""
    rng = np.random.default_rng(seed)
    judgments = {
        f"q{i}": {f"d{j}": int(rng.integers(0, 3)) for j in rng.choice(30, 4, replace=False)}
        for i in range(n_queries)
    }
    runs = [
        make_run({q: [f"d{j}" for j in rng.choice(30, rng.integers(0, 12), replace=False)]
                  for q in judgments if rng.random() > 0.1}, name=f"run{r}")
        for r in range(3)
    ]
    return judgments, runs


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("conventions", [
    Conventions(),
    Conventions(gain="exponential", rr="full", ap="full", recall_denominator="min"),
    Conventions(empty_queries="zero", relevance_level=2, confidence_level=0.9),
])
def test_a_slice_reads_as_evaluating_its_queries_alone(seed, conventions):
    judgments, runs = collection(seed)
    evaluation = evaluate(make_qrels(judgments), runs, 5, conventions)
    ids = evaluation.scored_ids
    values = [int(q[1:]) % 3 for q in ids]  # a number facet: 0, 1, 2
    slices = slice_evaluation(evaluation, facet("bucket", ids, values))
    assert sum(s.queries for s in slices) == len(ids)
    for piece in slices:
        mine = [q for q, v in zip(ids, values, strict=True) if str(v) == piece.value]
        alone = evaluate(make_qrels({q: judgments[q] for q in mine}), runs, 5, conventions)
        assert alone.scored_ids == mine and piece.queries == len(mine)
        for run in alone.runs:
            for m in SUMMARY_MEASURES:
                assert piece.summary[run.name][m.key] == run.summary[m.key], (run.name, m.key)


def test_small_slices_are_marked_and_kept():
    judgments, runs = collection(3, n_queries=40)
    evaluation = evaluate(make_qrels(judgments), runs, 5)
    ids = evaluation.scored_ids
    labels = ["rare" if i < SLICE_MIN_QUERIES - 1 else "common" for i in range(len(ids))]
    slices = {s.value: s for s in slice_evaluation(evaluation, facet("kind", ids, labels))}
    assert slices["rare"].too_small and slices["rare"].queries == SLICE_MIN_QUERIES - 1
    assert not slices["common"].too_small


@pytest.mark.parametrize("correction", ["holm", "bh", "none"])
def test_slice_comparisons_are_each_slice_alone_and_corrected_as_one_family(correction):
    from statsmodels.stats.multitest import multipletests

    from metrics import compare_evaluation
    from metrics.explain.slices import compare_slices

    judgments, runs = collection(4, n_queries=90)
    evaluation = evaluate(make_qrels(judgments), runs, 5)
    ids = evaluation.scored_ids
    values = [int(q[1:]) % 3 for q in ids]
    options = dict(baseline="run0", metrics=["nDCG", "RR"], n_permutations=500,
                   n_resamples=300, rng=7)
    pieces = compare_slices(evaluation, facet("bucket", ids, values), correction=correction,
                            **options)
    family = [t for _, c in pieces for t in c.tests]
    assert len(family) == len(pieces) * 2 * 2  # slices x candidates x metrics
    assert all(c.n_comparisons == len(family) and c.correction == correction
               for _, c in pieces)
    for label, comparison in pieces:
        mine = [q for q, v in zip(ids, values, strict=True) if str(v) == label]
        alone = compare_evaluation(
            evaluate(make_qrels({q: judgments[q] for q in mine}), runs, 5),
            correction="none", **options)
        assert list(comparison.query_ids) == mine
        for test, single in zip(comparison.tests, alone.tests, strict=True):
            assert (test.difference, test.low, test.high, test.p_randomization) == (
                single.difference, single.low, single.high, single.p_randomization)
    p = [t.p_randomization for t in family]
    expected = p if correction == "none" else multipletests(
        p, method={"holm": "holm", "bh": "fdr_bh"}[correction])[1]
    np.testing.assert_allclose([t.p_adjusted for t in family], expected, rtol=1e-12)


@pytest.mark.parametrize("seed", [5, 6])
@pytest.mark.parametrize("conventions", [
    Conventions(),
    Conventions(empty_queries="zero", gain="exponential", relevance_level=2),
])
def test_a_filter_reads_as_evaluating_the_chosen_queries_alone(seed, conventions):
    from metrics import compare_evaluation
    from metrics.explain.slices import filter_evaluation

    judgments, runs = collection(seed)
    whole = evaluate(make_qrels(judgments), runs, 5, conventions)
    ids = [str(q) for q in whole.query_set.query_ids]
    kinds = facet("kind", ids, [["a", "b", "c"][int(q[1:]) % 3] for q in ids])
    chosen = filter_evaluation(whole, kinds, ["a", "c"])
    mine = {q: judgments[q] for q in ids if int(q[1:]) % 3 != 1}
    alone = evaluate(make_qrels(mine), runs, 5, conventions)
    assert chosen.scored_ids == alone.scored_ids
    assert chosen.excluded_ids == alone.excluded_ids
    assert chosen.empty_ids == alone.empty_ids
    assert chosen.scope == (f"over {len(alone.scored_ids)} of {len(whole.scored_ids)} scored "
                            "queries: kind = a or c")
    for mine_run, their in zip(chosen.runs, alone.runs, strict=True):
        assert mine_run.summary == their.summary
        assert mine_run.suggestion == their.suggestion
        assert mine_run.diagnosis == their.diagnosis
        assert list(mine_run.classes) == list(their.classes)
        assert mine_run.missing_queries == their.missing_queries
        assert mine_run.repeats == their.repeats
        lo, hi = alone.sweep_range
        np.testing.assert_array_equal(chosen.sweep_means(their.name)["nDCG"][lo - 1:hi],
                                      alone.sweep_means(their.name)["nDCG"])
    options = dict(baseline="run0", metrics=["nDCG"], n_permutations=300, n_resamples=200,
                   rng=3)
    assert ([t.p_randomization for t in compare_evaluation(chosen, **options).tests]
            == [t.p_randomization for t in compare_evaluation(alone, **options).tests])
    assert whole.scope == "" and len(whole.scored_ids) > len(chosen.scored_ids)


def test_a_filter_names_what_it_cannot_keep():
    from metrics.explain.slices import filter_evaluation

    judgments, runs = collection(7)
    whole = evaluate(make_qrels(judgments), runs, 5)
    ids = whole.scored_ids
    kinds = facet("kind", ids, ["x"] * len(ids))
    with pytest.raises(ValueError, match="'y' not among its values \\('x'\\)"):
        filter_evaluation(whole, kinds, ["y"])
    with pytest.raises(ValueError, match="no value chosen"):
        filter_evaluation(whole, kinds, [])
    with pytest.raises(ValueError, match="already restricted"):
        filter_evaluation(filter_evaluation(whole, kinds, ["x"]), kinds, ["x"])


def test_a_filtered_evaluation_is_not_frozen_as_if_whole():
    from metrics import Snapshot
    from metrics.explain.slices import filter_evaluation

    judgments, runs = collection(8)
    whole = evaluate(make_qrels(judgments), runs, 5)
    ids = whole.scored_ids
    chosen = filter_evaluation(whole, facet("kind", ids, ["x", "y"] * (len(ids) // 2)
                                            + ["x"] * (len(ids) % 2)), ["x"])
    with pytest.raises(ValueError, match="whole query set.*kind = x"):
        Snapshot.from_evaluation(chosen)
