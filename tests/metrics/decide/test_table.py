"""The run x metric table: the evaluation's means, the comparison's differences and marks,
the note naming the test and correction; and the results as tables in a notebook."""

from __future__ import annotations

import pytest

from metrics import compare_evaluation, run_table
from metrics.vocabulary.comparisons import BETTER_MARK, WORSE_MARK


def test_every_cell_reads_the_evaluation_and_the_comparison(sample):
    # uncorrected at a loose alpha: nine queries give some marks to read
    comparison = compare_evaluation(sample, correction="none", alpha=0.5)
    table = run_table(sample, comparison)
    assert table.runs == ("baseline", "reranked", "bm25") and table.labels[0] == "P@5"
    for run in table.runs:
        for label in table.labels:
            cell = table.cell(run, label)
            key = next(m for m in ("P", "R", "F1", "Hit", "MRR", "MAP", "nDCG", "CP", "Judged")
                       if label.startswith(m + "@"))
            key = {"MRR": "RR", "MAP": "AP"}.get(key, key)
            assert cell.mean == sample.run(run).summary[key].mean
            if run == "baseline" or label == "Judged@5":
                assert cell.test is None and cell.mark == ""
                continue
            test = comparison.test(run, label)
            assert cell.test == test
            expected = "" if not test.significant else (
                BETTER_MARK if test.difference > 0 else WORSE_MARK)
            assert cell.mark == expected
            assert cell.text.startswith(f"{cell.mean:.3f} {test.difference:+.3f}")
    assert any(table.cell(r, lab).mark for r in table.runs for lab in table.labels)
    assert "not corrected over the 16 comparisons" in table.note
    assert "Judged@5: the mean alone (not compared)" in table.note
    assert "Holm correction over the 16" in run_table(sample, compare_evaluation(sample)).note


def test_the_table_as_a_frame_and_in_a_notebook(sample):
    table = run_table(sample, compare_evaluation(sample))
    frame = table.to_frame()
    assert list(frame["Run"]) == ["baseline", "reranked", "bm25"]
    assert frame.loc[1, "nDCG@5"] == table.cell("reranked", "nDCG@5").text
    html = table._repr_html_()
    assert "<table>" in html and "nDCG@5" in html and "Holm" in html


def test_a_baseline_outside_the_evaluation_is_refused(sample):
    other = compare_evaluation(sample.select(["reranked", "bm25"]))
    with pytest.raises(ValueError, match="baseline 'reranked' is not a run"):
        run_table(sample.select(["baseline", "bm25"]), other)


def test_evaluations_and_comparisons_show_as_tables_in_a_notebook(sample):
    wide = sample.to_frame()
    assert list(wide.index) == sample.run_names
    assert wide.loc["baseline", "Hit@5"] == pytest.approx(7 / 9)
    assert "0.778 [0.453, 0.937]" in sample._repr_html_()
    comparison = compare_evaluation(sample)
    assert len(comparison.to_frame()) == len(comparison.tests)
    assert "Holm correction over 16 comparisons" in comparison._repr_html_()
