"""A standardised evaluation's slices (the dashboard's Overview by facet, with the sidebar's
standardised scores): every interval a bootstrap one, as the standardised evaluation's own
(a standardised Hit@K is no 0/1 outcome: a Wilson interval of it failed on a negative count),
and the means those of the standardised figures over each slice's queries."""

from __future__ import annotations

import numpy as np
import pytest

from metrics import evaluate
from metrics.core.standardise import standardise
from metrics.explain.facets import facet
from metrics.explain.slices import slice_evaluation
from tests.metrics.builders import make_qrels
from tests.metrics.explain.test_slices import collection


@pytest.mark.parametrize("scale", ["z", "cdf"])
def test_slices_of_standardised_figures(scale):
    judgments, runs = collection(4)
    raw = evaluate(make_qrels(judgments), runs, 5, measures=["Success@3"])
    evaluation = standardise(raw, scale=scale).evaluation
    ids = evaluation.scored_ids
    values = [int(q[1:]) % 2 for q in ids]
    slices = slice_evaluation(evaluation, facet("bucket", ids, values))
    for piece in slices:
        mask = np.array([str(v) == piece.value for v in values])
        for run in evaluation.runs:
            figures = evaluation.per_query_scores(run.name)
            for key, interval in piece.summary[run.name].items():
                assert interval.method == "bootstrap", key
                assert interval.mean == pytest.approx(np.nanmean(figures[key][mask])), key
