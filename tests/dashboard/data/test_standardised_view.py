"""The view the sidebar builds with standardised scores or gm_map (issue 51), without a
browser: the figures are the engine's (metrics.standardise against every loaded run, or a
trec_eval -Z mean file; metrics.geometric_means and the paired difference against the
baseline), the raw figures kept beside them for the K sweep and the snapshots."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
from dashboard.data import cache, geometric, report
from metrics import Conventions
from tests.dashboard.data.test_cache import VIEWER, sample_file

RUNS = ["baseline.run", "bm25.run", "reranked.run"]


def uploads():
    return cache.read_uploads(sample_file("qrels.txt"), [sample_file(r) for r in RUNS],
                              Conventions(), viewer=VIEWER)


def everything(k: int = 5):
    return cache.build_view(uploads(), ["baseline", "bm25", "reranked"], {}, k,
                            Conventions()).evaluation


def test_standardised_against_every_loaded_run_shown_or_not():
    how = cache.Standardising("runs", "cdf")
    view = cache.build_view(uploads(), ["reranked", "bm25"], {}, 5, Conventions(), (), how)
    expected = metrics.standardise(everything(), scale="cdf").evaluation  # all three runs
    assert view.evaluation.standardised_words == expected.standardised_words
    for run in view.evaluation.runs:
        for key, interval in run.summary.items():
            assert interval.mean == pytest.approx(expected.run(run.name).summary[key].mean,
                                                  nan_ok=True), key
        # the raw figures beside them: what the K sweep and a snapshot read
        assert view.raw.run(run.name).summary["nDCG"].mean == everything().run(
            run.name).summary["nDCG"].mean
    assert view.frozen is view.raw_whole and not view.frozen.standardised
    assert cache.view_at(view, uploads(), 7).evaluation.k == 7  # another K: standardised again


def test_standardised_against_a_mean_file_and_refused_on_one_run():
    lines = [f"q0{i} P_5 0.{i} 0.2" for i in range(1, 10)] + ["q01 ndcg_cut_5 0.5 0"]
    read = cache.read_standards("z.txt", "upload:z", ("\n".join(lines) + "\n").encode())
    assert read.error is None
    how = cache.Standardising("file", "z", read.value, "upload:z")
    view = cache.build_view(uploads(), ["bm25"], {}, 5, Conventions(), (), how)
    expected = metrics.standardise(everything(), read.value).evaluation
    for key in ("P", "nDCG"):  # P_5 from the file (q10 has none: NaN); ndcg_cut_5 of q01 only
        np.testing.assert_array_equal(view.evaluation.per_query_scores("bm25")[key],
                                      expected.per_query_scores("bm25")[key])
    assert np.isnan(view.evaluation.per_query_scores("bm25")["nDCG"][1:]).all()
    bad = cache.read_standards("bad.txt", "upload:bad", b"q01 P_5 half 0.1\n")
    assert "bad.txt, line 1" in bad.error
    one = cache.read_uploads(sample_file("qrels.txt"), [sample_file("bm25.run")],
                             Conventions(), viewer=VIEWER)
    with pytest.raises(ValueError, match="two runs or more"):
        cache.build_view(one, ["bm25"], {}, 5, Conventions(), (),
                         cache.Standardising("runs", "z"))


def test_gm_map_in_more_measures_is_the_engines_with_its_paired_difference():
    view = cache.build_view(uploads(), ["baseline", "bm25", "reranked"], {}, 5, Conventions(),
                            ["gm_map", "Rprec"])
    assert view.summaries == ("gm_map",)
    assert [s.key for s in view.evaluation.asked] == ["Rprec"]
    (table,) = geometric.geometric_tables(view)
    found = metrics.geometric_means(view.evaluation)
    paired = metrics.geometric_difference_of(view.evaluation, "bm25", "baseline")
    rows = {row["Run"]: row for row in table.rows}
    assert rows["bm25"]["gm_map"] == (f"{found['bm25'].mean:.3f} [{found['bm25'].low:.3f}, "
                                      f"{found['bm25'].high:.3f}]")
    assert rows["bm25"]["Against baseline"].startswith(f"+{paired.difference:.3f} [")
    assert rows["baseline"]["Against baseline"] == "baseline"
    standardised = cache.build_view(uploads(), ["baseline", "bm25"], {}, 5, Conventions(),
                                    ["gm_map"], cache.Standardising("runs", "z"))
    (refused,) = geometric.geometric_tables(standardised)
    assert "no logarithm" in refused.problem and not refused.rows


def test_compare_s_gm_map_table_reads_its_own_baseline_and_candidates():
    view = cache.build_view(uploads(), ["baseline", "bm25", "reranked"], {}, 5, Conventions(),
                            ["gm_map"])
    (table,) = geometric.geometric_tables(view, "reranked", ("bm25",))
    paired = metrics.geometric_difference_of(view.evaluation, "bm25", "reranked")
    assert [row["Run"] for row in table.rows] == ["reranked", "bm25"]
    assert table.rows[0]["Against reranked"] == "baseline"
    assert table.rows[1]["Against reranked"] == metrics.format.difference(
        paired.difference, paired.low, paired.high)


def test_the_latex_download_has_a_gm_map_column():
    view = cache.build_view(uploads(), ["baseline", "bm25"], {}, 5, Conventions(), ["gm_map"])
    found = metrics.geometric_means(view.evaluation)
    table = report.latex(view, None, None)
    assert r"Run & P@5" in table and r"& gm\_map \\" in table
    assert f"{found['bm25'].mean:.3f}" in table


def test_a_snapshot_is_not_compared_with_standardised_live_figures():
    how = cache.Standardising("runs", "z")
    view = cache.build_view(uploads(), ["baseline", "bm25"], {}, 5, Conventions(), (), how)
    frozen = cache.Snapshot("before.json", "upload:before",
                            metrics.Snapshot.from_evaluation(view.frozen, label="before"))
    options = cache.CompareOptions("baseline", ("bm25",), ("nDCG",), "holm", 0.05,
                                   snapshot="upload:before")
    found = cache.compare(view, options, [frozen])
    assert found.comparison is None and "cannot be compared" in found.error
