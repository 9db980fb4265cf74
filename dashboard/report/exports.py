"""Results that travel as files: chart images, CSV tables, a snapshot file and a Markdown
summary for a pull request.

Pure (no streamlit): the dashboard's download buttons, the report and ``python -m dashboard
report`` call the same functions. Charts come from ``dashboard.charts`` and are rendered by
vl-convert-python, which needs no browser and, with ``allowed_base_urls=[]``, fetches nothing.
Ids and names from user files are escaped in Markdown (``safe.md``) and neutralised in CSV
cells that a spreadsheet would read as a formula (``safe.csv_text``). Figures have three
decimals. The Markdown summary is the engine's (``metrics.summary_markdown``): GitHub renders
it, so its names are escaped as GitHub needs (``metrics.format.markdown_text``, which
``safe.github`` names), not as Streamlit does.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd
import vl_convert as vlc

import metrics
from dashboard import safe
from dashboard.report.texts import first_words
from dashboard.views import chart_base, charts, frames, vega_spec
from metrics import (
    Comparison,
    Evaluation,
    snapshot_dumps,
    to_snapshot,
    tool_version,
)

# Vega-Lite version of the installed Altair, in vl-convert's spelling ("v6_4"), as Altair does
VL_VERSION = "_".join(alt.SCHEMA_VERSION.split(".")[:2])
PNG_SCALE = 2.0  # crisp on high-density screens and slides
REPORT_WIDTH = 1200  # pixels: a chart across the report's column (1,300 px less its margins)


# --------------------------------------------------------------------------- charts


def interval_chart(evaluation: Evaluation, colour_domain: Sequence[str] | None = None,
                   width: int = REPORT_WIDTH) -> alt.LayerChart:
    """The interval bars in landscape: every summary metric's mean and interval, per run,
    across the report's width (and what the dashboard's PNG and SVG buttons export)."""
    return charts.interval_columns(
        evaluation.summary(),
        chart_base.run_scale(colour_domain or evaluation.run_names),
        k=evaluation.k,
        confidence_level=evaluation.conventions.confidence_level,
        n_queries=len(evaluation.scored_ids),
        width=width,
        interval_method=evaluation.conventions.interval_method,
    )


def sweep_chart(evaluation: Evaluation) -> alt.FacetChart:
    """The dashboard's K sweep: every summary metric against K, the chosen K marked, across
    the report's width."""
    return charts.sweep_lines(
        frames.sweep_long(evaluation),
        chart_base.run_scale(evaluation.run_names),
        k=evaluation.k,
        labels=[s.label("K", evaluation.conventions) for s in evaluation.sweep_specs],
        width=REPORT_WIDTH,
    )


def _spec(chart: alt.TopLevelMixin | dict) -> dict:
    if isinstance(chart, dict):
        return chart
    if not hasattr(chart, "to_dict"):
        raise ValueError(
            f"expected an Altair chart or a Vega-Lite dict, got {type(chart).__name__}"
        )
    return vega_spec.exported_spec(chart)


def chart_svg(chart: alt.TopLevelMixin | dict) -> str:
    """An Altair chart (or Vega-Lite dict) as an SVG document, rendered offline."""
    return vlc.vegalite_to_svg(_spec(chart), vl_version=VL_VERSION, allowed_base_urls=[])


def chart_png(chart: alt.TopLevelMixin | dict, *, scale: float = PNG_SCALE) -> bytes:
    """An Altair chart (or Vega-Lite dict) as PNG bytes, rendered offline."""
    return vlc.vegalite_to_png(
        _spec(chart), vl_version=VL_VERSION, scale=scale, allowed_base_urls=[]
    )


# --------------------------------------------------------------------------- tables


def summary_csv(evaluation: Evaluation) -> str:
    """Evaluation.summary() as CSV: run, metric, label, mean, low, high, interval (unrounded)."""
    return safe.csv_text(evaluation.summary())


def per_query_csv(evaluation: Evaluation) -> str:
    """Evaluation.per_query() as CSV: one row per (run, scored query), every measure at K."""
    return safe.csv_text(evaluation.per_query())


def comparison_csv(comparison: Comparison) -> str:
    """Comparison.rows() as CSV: one row per (candidate, metric), p-values unrounded."""
    return safe.csv_text(pd.DataFrame(comparison.rows()))


WORST_CHUNKS = 3  # of each run, with each worst query


def worst_queries(evaluation: Evaluation, comparison: Comparison, candidate: str,
                  metric: str, queries=None, corpus=None,
                  chunks: int = WORST_CHUNKS) -> pd.DataFrame:
    """Every query the candidate scores lower than the baseline on `metric`, worst first:
    its question (with a queries file), both figures and the difference, and each run's top
    `chunks` ids with their titles and first words (with a corpus)."""
    paired = frames.paired_scores(comparison, metric)
    losses = frames.biggest_changes(paired, candidate, len(paired), gains=False)

    def top(run: str, query: str) -> str:
        ids = metrics.top_ids(evaluation, run, query, chunks)
        if corpus is None:
            return " | ".join(ids)
        return " | ".join(" · ".join(part for part in (
            doc, " ".join((corpus.title(doc) or "").split()),
            first_words(corpus.text(doc) or "")) if part) for doc in ids)

    rows = []
    for row in losses.itertuples(index=False):
        rows.append({
            "query_id": row.query_id,
            **({"question": queries.text(row.query_id) or ""} if queries is not None else {}),
            f"{comparison.baseline} ({metric})": row.before, f"{candidate} ({metric})": row.after,
            "difference": row.difference,
            f"top {chunks} of {candidate}": top(candidate, row.query_id),
            f"top {chunks} of {comparison.baseline}": top(comparison.baseline, row.query_id),
        })
    return pd.DataFrame(rows)


def worst_queries_csv(*args, **kwargs) -> str:
    """worst_queries as CSV, safe to open in a spreadsheet."""
    return safe.csv_text(worst_queries(*args, **kwargs))


def snapshot_json(evaluation: Evaluation, label: str | None = None) -> str:
    """The evaluation as a snapshot file (metrics.snapshot.to_snapshot), stamped now, written
    as metrics.snapshot.save writes it."""
    return snapshot_dumps(to_snapshot(evaluation, label=label))


# --------------------------------------------------------------------------- markdown


def summary_markdown(evaluation: Evaluation, comparison: Comparison | None = None, *,
                     primary: str = metrics.PRIMARY, harm_delta: float | None = None,
                     queries: metrics.Queries | None = None,
                     gates: Sequence[dict] | None = None) -> str:
    """The summary for a pull request, written by the engine's one writer
    (metrics.summary_markdown, whose text `compare --format markdown` writes for the same
    inputs): the headline, the gates when given, each candidate's worst queries on `primary`
    (with their questions, given the queries), every metric against the baseline, every run's
    figures with their intervals, and a link-free note of K, the query set and the
    conventions, within GitHub's 65,536 characters."""
    return metrics.summary_markdown(
        evaluation, comparison, primary=primary, gates=gates, queries=queries,
        harm_delta=metrics.HARM_DELTA if harm_delta is None else harm_delta,
        version=tool_version())


def triple(interval) -> tuple[float, float, float]:
    return interval.mean, interval.low, interval.high


