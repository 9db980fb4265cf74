"""The display frames carry the engine's figures, reshaped, never recomputed."""

from __future__ import annotations

import pytest

import metrics
from dashboard.views import frames
from metrics import (
    SUMMARY_MEASURES,
    Conventions,
    evaluate_files,
    label_of,
    load_sample,
    power_table,
)
from metrics import format as fmt
from metrics.core.sample import sample_qrels, sample_runs
from metrics.vocabulary.format import interval as format_interval


def test_summary_table_is_the_engines_summary_with_three_decimals(sample):
    table = frames.summary_table(sample).set_index("Metric")
    assert list(table.columns) == [*sample.run_names, "Interval", "Conventions"]
    assert table.loc["Hit@5", "baseline"] == "0.778 [0.453, 0.937]"
    for run in sample.runs:
        for m in SUMMARY_MEASURES:
            i = run.summary[m.key]
            label = label_of(m, 5, Conventions())
            assert table.loc[label, run.name] == format_interval(i.mean, i.low, i.high)
            assert table.loc[label, "Interval"] == m.interval


def test_conventions_follow_the_switches():
    exponential = load_sample(5, Conventions(gain="exponential", recall_denominator="min"))
    table = frames.summary_table(exponential).set_index("Metric")
    assert "2^grade - 1" in table.loc["nDCG@5", "Conventions"]
    assert "min(R, K)" in table.loc["R@5", "Conventions"]
    assert "min(R, K)" in frames.measure_help(exponential, "AP")


def test_baseline_label(sample):
    assert frames.baseline_label(sample, "baseline") == "baseline"
    assert frames.baseline_label(sample, "bm25") == "bm25"
    reordered = evaluate_files(sample_qrels(), sample_runs()[::-1], 5)
    assert frames.baseline_label(reordered, "bm25") == "bm25 (baseline)"
    assert frames.baseline_label(reordered, "baseline") == "baseline"


def test_counts_table_matches_the_engine(sample):
    counts = frames.counts_table(sample).set_index("Run")
    assert counts.loc["baseline", ["Full", "Partial", "Late hit", "Miss"]].tolist() == [5, 2, 1, 1]
    assert counts["Repeats"].tolist() == [run.repeats for run in sample.runs]
    assert (counts["Excluded"] == 1).all()


def test_sweep_long_is_the_engines_sweep(sample):
    long = frames.sweep_long(sample)
    wide = sample.sweep()
    assert len(long) == len(wide) * len(SUMMARY_MEASURES)
    row = long[(long["run"] == "baseline") & (long["k"] == 10) & (long["metric"] == "Hit")]
    assert row["mean"].item() == pytest.approx(8 / 9) and row["label"].item() == "Hit@K"


@pytest.mark.parametrize("k", [3, 5, 8])
def test_sweep_intervals_at_k_equal_the_summary_intervals(k):
    evaluation = load_sample(k)
    bands = frames.sweep_intervals(evaluation)
    for run in evaluation.runs:
        for m in SUMMARY_MEASURES:
            row = bands[(bands["run"] == run.name) & (bands["k"] == k)
                        & (bands["metric"] == m.summary_key)]
            assert row["low"].item() == run.summary[m.key].low
            assert row["high"].item() == run.summary[m.key].high


def test_query_cells_are_the_per_query_scores(sample):
    cells = frames.query_cells(sample, ["nDCG", "RR"])
    per_query = sample.per_query()
    assert set(cells["label"]) == {"nDCG@5", "RR@5"}
    got = cells[(cells["key"] == "RR") & (cells["run"] == "bm25")].set_index("query_id")["value"]
    expected = per_query[per_query["run"] == "bm25"].set_index("query_id")["RR"]
    assert got.to_dict() == expected.to_dict()


def test_query_order(sample):
    assert frames.query_order(sample, "nDCG", "id") == sample.scored_ids
    by_class = frames.query_order(sample, "nDCG", "class")
    assert by_class[:2] == ["q06", "q03"]  # the miss, then the late hit
    by_score = frames.query_order(sample, "nDCG", "baseline")
    scores = sample.per_query_scores("baseline")["nDCG"]
    ranked = dict(zip(sample.scored_ids, scores, strict=True))
    assert [ranked[q] for q in by_score] == sorted(scores)
    spread = frames.query_order(sample, "nDCG", "spread")
    assert spread[0] == "q07"  # 1.000, 1.000 and 0.000
    with pytest.raises(ValueError, match="unknown sort"):
        frames.query_order(sample, "nDCG", "colour")


def test_natural_order_and_listing():
    assert sorted(["q10", "q2", "q1"], key=fmt.natural_key) == ["q1", "q2", "q10"]
    assert fmt.listing(["a", "b", "c"], limit=2) == "a, b and 1 more"
    assert fmt.listing([]) == ""


# --------------------------------------------------------------------------- comparison


@pytest.fixture(scope="module")
def comparison(sample):
    from metrics.core.compare import compare_evaluation

    return compare_evaluation(sample, metrics=["nDCG", "RR", "Hit"], n_permutations=500)


def test_a_mean_difference_written_as_zero_is_zero_in_the_table(comparison):
    """A mean of differences that cancel can be -1e-17: the browser's '%+.3f' wrote it
    '-0.000' beside the headline's '+0.000'."""
    import math
    from dataclasses import replace

    tests = tuple(replace(t, difference=-1e-17) if t.candidate == "bm25" else t
                  for t in comparison.tests)
    table = frames.comparison_table(replace(comparison, tests=tests), "bm25")
    assert [math.copysign(1.0, d) for d in table["Difference"]] == [1.0] * len(table)
    assert (table["Difference"] == 0.0).all()


def test_comparison_table_is_the_engines(comparison):
    table = frames.comparison_table(comparison, "bm25").set_index("Metric")
    assert list(table.index) == ["nDCG@5", "MRR@5", "Hit@5"]  # the order asked for
    for t in comparison.tests:
        if t.candidate != "bm25":
            continue
        row = table.loc[t.metric]
        assert (row["Before"], row["After"], row["Difference"]) == (
            t.before_mean, t.after_mean, t.difference)
        assert row["p adjusted"] == fmt.p_value(t.p_adjusted)
        power = next(f for f in power_table(comparison, alpha=comparison.alpha)
                     if (f.candidate, f.metric) == (t.candidate, t.metric))
        assert row["Reading"] == f"{comparison.verdict(t)}; {power.sentence}"
        assert row["Detectable"] == power.min_detectable_difference


def test_p_values_and_effect_sizes_keep_three_decimals():
    assert fmt.p_value(0.0004) == "< 0.001"
    assert fmt.p_value(0.0005) == "0.001"
    assert fmt.p_value(0.04049) == "0.040"
    assert fmt.effect(float("nan")) == "undefined"
    assert fmt.effect(0.3456) == "0.346"


def test_gains_and_losses_are_the_largest_changes_in_order(comparison):
    paired = frames.paired_scores(comparison, "nDCG@5")
    assert set(paired["run"]) == {"reranked", "bm25"}
    assert len(paired) == 2 * len(comparison.query_ids)
    gains = frames.biggest_changes(paired, "reranked", 3, gains=True)
    losses = frames.biggest_changes(paired, "reranked", 3, gains=False)
    assert list(gains["query_id"]) == ["q03", "q09", "q04"]
    assert list(losses["query_id"]) == ["q05", "q02"]  # only two queries got worse
    assert (gains["difference"] > 0).all() and (losses["difference"] < 0).all()
    ordered = frames.by_difference(paired, "reranked")
    assert list(ordered["difference"]) == sorted(ordered["difference"], reverse=True)
    ties = ordered[ordered["difference"] == 0]["query_id"]
    assert list(ties) == sorted(ties, key=fmt.natural_key)


def test_query_changes_read_the_engines_arrays(comparison):
    changes = frames.query_changes(comparison, "reranked", "q03").set_index("Metric")
    test = comparison.test("reranked", "nDCG@5")
    i = comparison.query_ids.index("q03")
    assert changes.loc["nDCG@5", "After"] == test.after[i]
    assert changes.loc["nDCG@5", "Difference"] == test.differences[i]


def test_drift_table_has_one_row_per_snapshot_and_run(sample):
    from metrics.snapshot import drift_rows, to_snapshot

    rows = drift_rows([to_snapshot(sample, label="a"), to_snapshot(sample)])
    table = frames.drift_table(frames.drift_frame(rows, ["first", "second"]))
    assert list(table["Snapshot"]) == ["first"] * 3 + ["second"] * 3
    assert list(table["Run"]) == sample.run_names * 2
    s = sample.run("reranked").summary["nDCG"]
    assert table.iloc[1]["nDCG@5"] == f"{s.mean:.3f} [{s.low:.3f}, {s.high:.3f}]"
    assert table.iloc[0]["Lists"] == table.iloc[3]["Lists"]


def test_snapshot_titles_and_unique_names():
    header = {"created": "2025-03-04T05:06:07+00:00", "label": "before"}
    assert frames.snapshot_title(header) == "2025-03-04 05:06 · before"
    assert frames.snapshot_title({"created": "2025-03-04T05:06:07+00:00"}) == "2025-03-04 05:06"
    assert metrics.distinct_names(["a", "a", "b"]) == ["a", "a (2)", "b"]



def test_one_querys_figures_keep_the_defaults_across_and_the_added_ones_a_row_each(sample):
    more = sample.with_measures(["Rprec", "ERR@10", "RBP(p=0.8)"])
    figures = metrics.query_figures(more, "q03")
    runs, added = frames.query_figures_table(figures, more)
    assert list(runs.columns) == ["Run", "Class", *(label_of(m, 5, Conventions(), summary=False)
                                                    for m in SUMMARY_MEASURES)]
    assert list(added.index) == ["Rprec", "ERR@10", "RBP(p=0.8)@5", "RBPresid(p=0.8)@5"]
    assert list(added.columns) == more.run_names
    by_run = figures.set_index("run")
    for name in more.run_names:
        assert added.loc["ERR@10", name] == by_run.loc[name, more.resolve("ERR@10").key]
    assert frames.query_figures_table(metrics.query_figures(sample, "q03"), sample)[1] is None


def test_a_change_of_labels_is_written_as_format_signed_writes_it(sample):
    """On the sample, d81 graded 2 for q01 lowers nDCG@5's mean by 0.0001 (a better ideal
    list): the browser's '%+.3f' wrote that '-0.000', where format.signed writes '+0.000'."""
    rescored = metrics.rescore(sample, {("q01", "d81"): 2})
    raw = [row["difference"] for row in rescored.rows()]
    assert any(-0.0005 < d < 0 for d in raw)  # the case this is about
    table = frames.rescored_table(rescored, sample)
    assert [f"{d:+.3f}" for d in table["difference"]] == [fmt.signed(d) for d in raw]
