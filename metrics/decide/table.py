"""Every run x metric in one table, as ranx's reports and PyTerrier's pt.Experiment show them:
each run's mean at K, its difference from the baseline, and a mark when the comparison calls
that difference significant (its test and correction named in the note under the table).

A frozen result that reads the Evaluation (the means) and a Comparison of every run against
the baseline (the differences and the marks); it computes nothing itself. It shows as a
table in Jupyter (`_repr_html_`) and gives the cells as a pandas frame (`to_frame`).
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING

from metrics.core.evaluate import Evaluation
from metrics.stats.comparison import Comparison, PairedTest
from metrics.vocabulary import SUMMARY_MEASURES
from metrics.vocabulary.comparisons import (
    BETTER_MARK,
    NOT_COMPARED,
    WORSE_MARK,
    comparison_method,
    run_table_note,
)
from metrics.vocabulary.format import figure, signed

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Cell:
    """One run on one measure: its mean, and against the baseline (None for the baseline
    itself, or a measure the comparison left out) its test."""

    mean: float
    test: PairedTest | None

    @property
    def mark(self) -> str:
        if self.test is None or not self.test.significant:
            return ""
        return BETTER_MARK if self.test.difference > 0 else WORSE_MARK

    @property
    def text(self) -> str:
        """'0.433 +0.021 ▲'; the baseline's cell, its mean alone."""
        if self.test is None:
            return figure(self.mean)
        return " ".join(part for part in (figure(self.mean), signed(self.test.difference),
                                          self.mark) if part)


@dataclass(frozen=True, eq=False)
class RunTable:
    """Runs down (the baseline first), measures across, at K."""

    k: int
    baseline: str
    runs: tuple[str, ...]
    labels: tuple[str, ...]  # each measure's label at K, "nDCG@10"
    cells: dict[tuple[str, str], Cell]  # (run, label) -> its cell
    note: str  # what a cell holds, and the test and correction behind its mark

    def cell(self, run: str, label: str) -> Cell:
        return self.cells[run, label]

    def to_frame(self) -> pd.DataFrame:
        """The cells as text, a row per run ("Run" first), a column per measure label."""
        import pandas as pd

        return pd.DataFrame([{"Run": run, **{label: self.cells[run, label].text
                                             for label in self.labels}}
                             for run in self.runs])

    def by_metric(self) -> pd.DataFrame:
        """The same cells turned: a row per measure ("Metric" first), a column per run (the
        baseline first), for a narrow page."""
        import pandas as pd

        return pd.DataFrame([{"Metric": label, **{run: self.cells[run, label].text
                                                  for run in self.runs}}
                             for label in self.labels])

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in ("Run", *self.labels))
        rows = "".join(
            "<tr><th>" + html.escape(run) + "</th>" + "".join(
                f"<td>{html.escape(self.cells[run, label].text)}</td>" for label in self.labels)
            + "</tr>" for run in self.runs)
        return (f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
                f"<p><small>{html.escape(self.note)}</small></p>")


def run_table(evaluation: Evaluation, comparison: Comparison) -> RunTable:
    """The table of every run of the evaluation on every summary measure at K, the marks
    read from `comparison` (of those runs against its baseline, e.g. compare_evaluation's)."""
    if comparison.baseline not in evaluation.run_names:
        raise ValueError(f"the comparison's baseline {comparison.baseline!r} is not a run of "
                         f"the evaluation ({', '.join(evaluation.run_names)})")
    runs = (comparison.baseline,
            *(name for name in evaluation.run_names if name != comparison.baseline))
    tests = {(t.candidate, t.metric): t for t in comparison.tests}
    cells, labels, uncompared = {}, [], []
    for m in SUMMARY_MEASURES:
        label = evaluation.label(m.key)
        labels.append(label)
        if label not in comparison.metrics:
            uncompared.append(label)
        for run in runs:
            cells[run, label] = Cell(evaluation.run(run).summary[m.key].mean,
                                     tests.get((run, label)))
    note = run_table_note(comparison.baseline, comparison_method(comparison)["test"],
                          uncompared)
    return RunTable(evaluation.k, comparison.baseline, runs, tuple(labels), cells, note)


__all__ = ["NOT_COMPARED", "Cell", "RunTable", "run_table"]
