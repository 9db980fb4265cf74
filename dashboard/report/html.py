"""The stakeholder report: one self-contained HTML file.

Pure (no streamlit): the dashboard's download button and ``python -m dashboard report`` call
the same function. Charts are rendered by ``dashboard.exports``. The HTML opens offline:
styles inline, charts as ``data:`` URIs, no ``src`` or ``href`` pointing outside the file,
references as plain text.

Every id and name that came from a user file is escaped wherever it lands: ``safe.html`` in
the page, ``<``, ``>`` and ``&`` as JSON unicode escapes in the inline data block, and
``& < > |`` in Markdown cells. Figures have three decimals.
"""

from __future__ import annotations

import base64
import datetime as _dt
import io
import json
import os
from collections.abc import Sequence
from typing import Any

from dashboard import safe
from dashboard.report import decisions as report_decisions
from dashboard.report import exports
from dashboard.report import judge as report_judge
from dashboard.report import texts as report_texts
from dashboard.views import frames
from dashboard.views.chart_base import run_scale
from dashboard.views.tradeoff_charts import (
    paired_table,
    timing_table,
    tradeoff_chart,
    tradeoff_frame,
)
from metrics import (
    BEST_MARK,
    CLASS_MEANING,
    LIMITS,
    POWER_MEANING,
    PRIMARY,
    QUERY_CLASSES,
    AllPairs,
    BestMarks,
    Comparison,
    Corpus,
    Evaluation,
    Leaderboard,
    Leakage,
    Queries,
    ReportContents,
    Slice,
    evaluation_fingerprints,
    label_of,
    run_table,
    to_snapshot,
    tool_version,
    vocabulary,
)
from metrics import format as fmt

__all__ = ["DEFAULT_TITLE", "REFERENCES", "TOPIC_SET_REFERENCES", "TUKEY_REFERENCES",
           "build_html", "build_report"]

DEFAULT_TITLE = "Retrieval comparison"

REFERENCES = (
    "Manning, C. D., Raghavan, P. and Schütze, H. (2008). Introduction to Information "
    "Retrieval, chapter 8. Cambridge University Press.",
    "Järvelin, K. and Kekäläinen, J. (2002). Cumulated gain-based evaluation of IR techniques. "
    "ACM Transactions on Information Systems 20(4).",
    "Burges, C. et al. (2005). Learning to rank using gradient descent. ICML.",
    "Wilson, E. B. (1927). Probable inference, the law of succession, and statistical "
    "inference. Journal of the American Statistical Association 22.",
    "Efron, B. (1979). Bootstrap methods: another look at the jackknife. Annals of Statistics 7.",
    "Smucker, M. D., Allan, J. and Carterette, B. (2007). A comparison of statistical "
    "significance tests for information retrieval evaluation. CIKM.",
    "Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scandinavian "
    "Journal of Statistics 6.",
    "Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate. Journal of "
    "the Royal Statistical Society B 57.",
)
# cited by the sections a report holds only sometimes: every pair by the Tukey HSD, the
# topic-set sizes
TUKEY_REFERENCES = (
    "Carterette, B. (2012). Multiple testing in statistical analysis of systems-based "
    "information retrieval experiments. ACM Transactions on Information Systems 30(1).",
    "Sakai, T. (2014). Statistical reform in information retrieval? SIGIR Forum 48(1).",
    "Sakai, T. (2018). Laboratory Experiments in Information Retrieval: Sample Sizes, Effect "
    "Sizes, and Statistical Power. Springer.",
)
TOPIC_SET_REFERENCES = (
    "Sakai, T. (2016). Topic set size design. Information Retrieval Journal 19(3).",
)


def _level(evaluation: Evaluation) -> str:
    return fmt.confidence(evaluation.conventions.confidence_level)

# --------------------------------------------------------------------------- html

_STYLE = """
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
  max-width: 1360px; margin: 2rem auto; padding: 0 1.5rem; }
h1 { margin-bottom: .25rem; } h2 { margin-top: 2.25rem; border-bottom: 1px solid #d0d7de; }
.meta, .note, figcaption { color: #57606a; } .note { max-width: 100ch; }
table { border-collapse: collapse; margin: .75rem 0; font-variant-numeric: tabular-nums; }
table:has(th:nth-child(6)) { width: 100%; }
th, td { border: 1px solid #d0d7de; padding: .3rem .6rem; text-align: left; vertical-align: top;
  overflow-wrap: break-word; }
th { background: #f6f8fa; } td.num { text-align: right; white-space: nowrap; }
code { font: 13px ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all; }
figure { margin: 1.25rem 0; } figure img { max-width: 100%; height: auto; }
ul.readings { margin-top: 0; font-size: 14px; }
.flagged { color: #b42318; font-weight: 600; } .ok { color: #1a7f37; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: break-word; }
@page { size: A4 landscape; margin: 12mm; }
@media print {
  body { max-width: none; margin: 0; padding: 0; font-size: 10pt; }
  h2 { break-after: avoid; margin-top: 1.2rem; } h3, h4 { break-after: avoid; }
  figure, tr, .chunk, dl { break-inside: avoid; }
  table { font-size: 9pt; } th, td { padding: .15rem .35rem; }
  thead { display: table-header-group; }
  details > summary { display: none; } details { display: inline; }
  a { color: inherit; text-decoration: none; }
  section { break-inside: auto; }
}
"""


_e = safe.html


def _figure(svg: str, alt_text: str, caption: str) -> str:
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (
        f'<figure><img alt="{_e(alt_text)}" src="data:image/svg+xml;base64,{data}">'
        f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def _inline_json(data: object) -> str:
    """JSON safe inside <script type="application/json">: no <, >, & or line separators."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in (
        ("&", "\\u0026"),
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escaped)
    return text


def _ids(ids: Sequence[str], limit: int = 20) -> str:
    shown = ", ".join(ids[:limit])
    if not ids:
        return "none"
    return shown + (f" and {len(ids) - limit:,} more" if len(ids) > limit else "")


def _source_name(source: str | None) -> str:
    return os.path.basename(source) if source else "(given in memory)"


def _basis_section(evaluation: Evaluation, fingerprints: dict) -> str:
    query_set = evaluation.query_set
    qrels_source = evaluation.qrels_report.source if evaluation.qrels_report else None
    basis = [
        ("Cutoff", f"K = {evaluation.k}"),
        (
            "Query set",
            f"{len(query_set.query_ids):,} queries from {_source_name(qrels_source)}: "
            f"{len(evaluation.scored_ids):,} scored, {len(evaluation.excluded_ids):,} excluded "
            f"because they list no relevant id ({_ids(evaluation.excluded_ids)})",
        ),
        *([("Filter", f"Every figure is {evaluation.scope}")] if evaluation.scope else []),
    ]
    items = "".join(f"<dt>{_e(term)}</dt><dd>{_e(text)}</dd>" for term, text in basis)
    items += (
        f"<dt>Query-set fingerprint</dt><dd><code>{_e(fingerprints['qrels'])}</code><br>"
        '<span class="note">SHA-256 over the sorted (query, doc, grade) rows of the qrels, not '
        "the file bytes: a re-formatted file keeps it, a changed label changes it.</span></dd>"
    )
    runs = report_texts.table(
        ["Run", "File", "Fingerprint (SHA-256 of the ranked lists as scored)"],
        [
            [run.name, _source_name(run.run.source), fingerprints["runs"][run.name]]
            for run in evaluation.runs
        ],
    )
    counts = frames.counts_table(evaluation)
    counted = report_texts.table(
        list(counts.columns),
        [[str(v) for v in row] for row in counts.itertuples(index=False)],
        [False] + [True] * (len(counts.columns) - 1),
    )
    classes = "".join(
        f"<li><b>{_e(c.replace('_', ' '))}</b>: {_e(CLASS_MEANING[c])}</li>" for c in QUERY_CLASSES
    )
    missing = "".join(
        f"<li>{_e(run.name)} has no list for {len(run.missing_queries):,} queries, which score "
        "0: "
        f"{_e(_ids(list(run.missing_queries)))}</li>"
        for run in evaluation.runs
        if run.missing_queries
    )
    sentences = "".join(f"<li>{_e(s)}</li>" for s in evaluation.conventions.sentences().values())
    return (
        '<section id="basis"><h2>What was measured</h2>'
        f"<dl>{items}</dl>{runs}"
        f"<h3>What was scored</h3>{counted}<ul>{classes}</ul>"
        + (f"<ul>{missing}</ul>" if missing else "")
        + f"<h3>Conventions</h3><ul>{sentences}</ul></section>"
    )


def _summary_section(evaluation: Evaluation, charts_html: str,
                     marks: BestMarks | None = None) -> str:
    k, c = evaluation.k, evaluation.conventions
    header = ["Metric"] + evaluation.run_names + ["Interval"]
    notes = evaluation.notes()
    rows = [
        [s.label(k, c)]
        + [_marked(fmt.interval(*exports.triple(run.summary[s.key])),
                   marks.mark(s.label(k, c), run.name) if marks else "")
           for run in evaluation.runs]
        + [s.measure.interval]
        for s in evaluation.summary_specs
    ]
    # what each certifies below the table: as a column it made every row a paragraph tall
    meanings = "".join(
        f"<dt>{_e(s.label(k, c))}</dt><dd>{_e(s.measure.meaning)}"
        + (f" ({_e(notes[s.key])})" if s.key in notes else "") + "</dd>"
        for s in evaluation.summary_specs)
    numeric = [False] + [True] * len(evaluation.runs)
    return (
        f'<section id="summary"><h2>Summary at K = {k}</h2>'
        f'<p class="note">Mean [low, high] at {_e(_level(evaluation))} confidence over '
        f"{len(evaluation.scored_ids):,} scored queries, each weighing the same. "
        f"{_e(evaluation.conventions.sentences()['interval'])}</p>"
        f"{report_texts.table(header, rows, numeric)}"
        + (f'<p class="note">{_e(marks.sentence)}</p>' if marks else "")
        + f'<h3>What each figure certifies</h3><dl class="meanings">{meanings}</dl>'
        + f"{charts_html}</section>"
    )


def _run_table_section(evaluation: Evaluation, comparison: Comparison | None) -> str:
    """Every run x metric with its difference from the baseline and its significance mark,
    the test and correction named under it (metrics.run_table)."""
    if comparison is None or comparison.baseline not in evaluation.run_names:
        return ""
    table = run_table(evaluation, comparison)
    rows = [[run, *(table.cell(run, label).text for label in table.labels)]
            for run in table.runs]
    return (f'<section id="against-baseline"><h2>Against the baseline, {_e(table.baseline)}'
            # cells may wrap (mean, then difference and mark): ten columns fit 1280 px
            "</h2>" + report_texts.table(["Run", *table.labels], rows)
            + f'<p class="note">{_e(table.note)}</p></section>')


def _marked(cell: str, mark: str) -> str | report_texts.Html:
    """A summary cell with its mark: the best run's in bold."""
    if not mark:
        return cell
    text = f"{_e(cell)} {_e(mark)}"
    return report_texts.Html(f"<b>{text}</b>" if mark == BEST_MARK else text)


def _charts_html(evaluation: Evaluation) -> str:
    k = evaluation.k
    return _figure(
        exports.chart_svg(exports.interval_chart(evaluation)),
        f"Mean and {_level(evaluation)} interval of every metric at K = {k}, per run",
        "Interval bars: each run's mean (dot) and interval (bar); bars that do not overlap "
        "differ beyond the noise of this many queries.",
    ) + _figure(
        exports.chart_svg(exports.sweep_chart(evaluation)),
        "Every metric's mean against K, per run",
        f"K sweep: every metric at every K from {evaluation.sweep_range[0]} to "
        f"{evaluation.sweep_range[1]}; the dashed line marks the chosen K = {k}.",
    )


def _comparison_section(evaluation: Evaluation, comparison: Comparison | None) -> str:
    if comparison is None:
        return ""
    parts = [
        '<section id="comparison"><h2>Comparison with the baseline</h2>',
        f'<p class="note">Baseline: <b>{_e(comparison.baseline)}</b>. '
        + _e(" ".join(vocabulary.comparison_method(comparison).values())) + " Detectable: "
        + _e(POWER_MEANING["min_detectable_difference"]) + "</p>",
    ]
    header = [
        "Metric",
        "Before",
        "After",
        "Difference [interval]",
        vocabulary.WIN_TIE_LOSS,
        "p",
        "p adjusted",
        "p t-test",
        "p Wilcoxon",
        "Effect size",
        "Detectable",
    ]
    numeric = [False] + [True] * 10
    power = frames.power_by_test(comparison)
    for candidate in comparison.candidates:
        # the dashboard's table, its unrounded figures written with three decimals; what
        # the set can detect has its own column, and each reading is a line below the table
        # (as a column it made every row a paragraph tall)
        table = frames.comparison_table(comparison, candidate, power)
        rows = [
            [
                row["Metric"],
                fmt.figure(row['Before']),
                fmt.figure(row['After']),
                f"{fmt.signed(row['Difference'])} {row['Interval']}",
                *(row[c] for c in (vocabulary.WIN_TIE_LOSS, "p", "p adjusted", "p t-test",
                                   "p Wilcoxon")),
                fmt.effect(row["Effect size"]),
                fmt.figure(row["Detectable"]),
            ]
            for _, row in table.iterrows()
        ]
        readings = "".join(f"<li><b>{_e(row['Metric'])}</b>: {_e(row['Verdict'])}</li>"
                           for _, row in table.iterrows())
        parts.append(
            f"<h3>{_e(candidate)} against {_e(comparison.baseline)}</h3>"
            + report_texts.table(header, rows, numeric)
            + f'<ul class="readings">{readings}</ul>'
        )
    parts.append("</section>")
    return "".join(parts)


def _timings_section(evaluation: Evaluation, timed: Any, primary: str) -> str:
    """Effectiveness against what it costs: the trade-off chart (p95 latency, else mean cost,
    against the primary figure at K), each run's figures with intervals and each candidate
    against the baseline, and how the intervals were made. Nothing without timings."""
    if timed is None or not timed.runs:
        return ""
    words = vocabulary.timings
    statistic, column = (("p95", words.LATENCY) if words.LATENCY in timed.columns
                         else ("mean", timed.columns[0]))
    label = label_of(primary, evaluation.k, evaluation.conventions)
    frame, left_out = tradeoff_frame(evaluation.summary(), timed, metric=primary,
                                     statistic=statistic, column=column)
    chart = tradeoff_chart(frame, run_scale(evaluation.run_names), k=evaluation.k,
                           metric_label=label, statistic=statistic, column=column,
                           confidence_level=evaluation.conventions.confidence_level,
                           left_out=left_out)
    figure = _figure(exports.chart_svg(chart),
                     f"{label} against {statistic} {column}, each run with intervals both "
                     "ways and the Pareto front marked",
                     f"{label} at K = {evaluation.k} against {statistic} {column}.")
    tables = []
    level = _level(evaluation)
    for shown in timed.columns:
        unit = words.TIMING_COLUMNS[shown][1]
        tables.append(_table_html(timing_table(timed, shown),
                                  f"{shown} per run ({level} intervals"
                                  + (f", {unit}" if unit else "") + ")"))
        pairs = paired_table(timed, shown)
        if len(pairs):
            tables.append(_table_html(pairs, f"{shown}: each candidate against "
                                      f"{timed.pairs[0].baseline}, paired"))
    notes = " ".join([words.QUANTILE_INTERVAL.format(level=level), words.PAIRED,
                      words.QUERIES_READ])
    return ('<section id="timings"><h2>Effectiveness against what it costs</h2>'
            f"{figure}{''.join(tables)}<p class=\"note\">{_e(notes)}</p></section>")


def _table_html(frame, caption: str) -> str:
    """A small frame as an HTML table, every cell escaped."""
    head = "".join(f"<th>{_e(str(c))}</th>" for c in frame.columns)
    rows = "".join("<tr>" + "".join(f"<td>{_e(str(v))}</td>" for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    return (f"<table><caption>{_e(caption)}</caption><thead><tr>{head}</tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def _diagnosis_section(evaluation: Evaluation) -> str:
    parts = ['<section id="diagnosis"><h2>Diagnosis and k suggestion</h2>']
    for run in evaluation.runs:
        s = run.suggestion
        findings = "".join(
            f'<li><span class="{"flagged" if f.flagged else "ok"}">'
            f"{'Flagged' if f.flagged else 'Not flagged'}: {_e(f.failure)}</span> "
            f"({_e(f.threshold)}; figure {fmt.figure(f.figure)}). {_e(f.sentence)}</li>"
            for f in run.diagnosis
        )
        readings = "".join(f"<li>{_e(r)}</li>" for r in (s.readings if s.advice
                                                           else s.readings[1:]))
        parts.append(
            f"<h3>{_e(run.name)}</h3>"
            f"<p><b>k suggestion</b>: {_e(s.sentence)} "
            f'<span class="note">Rule: {_e(s.rule)}.</span></p>'
            f"<ul>{readings}</ul><ul>{findings}</ul>"
        )
    parts.append("</section>")
    return "".join(parts)


def _limits_section(cited: Sequence[str] = ()) -> str:
    """The honest limits, and the references: every report's, then `cited` (those of the
    sections this one holds)."""
    limits = "".join(f"<li>{_e(text)}</li>" for text in LIMITS)
    references = "".join(f"<li>{_e(text)}</li>" for text in (*REFERENCES, *cited))
    return (
        f'<section id="limits"><h2>Honest limits</h2><ul>{limits}</ul></section>'
        f'<section id="references"><h2>References</h2><ol>{references}</ol></section>'
    )


def build_html(
    evaluation: Evaluation,
    comparison: Comparison | None = None,
    *,
    title: str = DEFAULT_TITLE,
    generated_on: _dt.date | str | None = None,
    embed_data: bool = True,
    queries: Queries | None = None,
    corpus: Corpus | None = None,
    slices: Sequence[Slice] | None = None,
    slice_pieces: Sequence[tuple[str, Comparison]] | None = None,
    leakage: Leakage | None = None,
    costs: Sequence[Any] | None = None,
    headline: Sequence[str] | None = None,
    board: Leaderboard | None = None,
    primary: str = PRIMARY,
    marks: BestMarks | None = None,
    risks: Sequence[Any] | None = None,
    fragility: Any = None,
    to_label: Any = None,
    judge: Any = None,
    pairs: AllPairs | None = None,
    topic_sets: dict[str, Any] | None = None,
    timed: Any = None,
) -> str:
    """The report as one self-contained HTML page (UTF-8 text).

    ``comparison`` (e.g. ``metrics.baseline_comparison(evaluation)`` or the dashboard's own)
    adds the comparison tables; without it there is none. ``generated_on`` defaults to today.
    The texts add sections (``dashboard.report_texts``), each only when given: ``queries``
    or ``corpus`` the examples (with a comparison: each candidate's biggest gains and losses
    in nDCG, the question and its top chunks' first words), ``slices``
    (``metrics.slice_evaluation``) and ``slice_pieces`` (``metrics.compare_slices``) the
    figures by kind of query, ``leakage`` (``metrics.find_leaks``) a warning and the leaked
    queries, ``costs`` (``metrics.cost.costs``) what K costs. The page opens with
    ``headline`` (``metrics.headlines`` of the primary metric) and ``board`` (the
    ``metrics.leaderboard`` on ``primary``, a measure key) when given; ``marks``
    (``metrics.best_marks``) marks each metric's best run in the summary. ``risks``
    (``metrics.risks``), ``fragility`` (``metrics.fragility``) and ``to_label``
    (``metrics.to_label``) add the harm, the verdicts under other conventions and what to
    label next after the comparison; ``judge`` (``metrics.judge_report``) the model judge's
    agreement, bias and prediction-powered figures on ``primary``. ``pairs``
    (``metrics.all_pairs`` on ``primary``) reads every pair as the leaderboard is read: each
    run's letters beside its standing, then every pair's table (with the randomized Tukey HSD
    its classic p, effect sizes and the two-way ANOVA); ``topic_sets``
    (``metrics.topic_set_sizes``) the queries a future set needs, after the comparison;
    ``timed`` (``metrics.timed``) each run's latency and cost figures and the trade-off chart
    of the primary figure against p95 latency (or mean cost), after the summary. The
    query set's basis and fingerprints close it, for the reviewer.
    ``embed_data`` keeps the snapshot of the evaluation (``metrics.snapshot.to_snapshot``:
    every per-query figure and the fingerprints) in a ``<script type="application/json"
    id="snapshot">`` block, so that the figures travel with the page; it is never executed.
    """
    if generated_on is None:
        generated_on = _dt.date.today()
    date = generated_on.isoformat() if isinstance(generated_on, _dt.date) else str(generated_on)
    fingerprints = evaluation_fingerprints(evaluation)
    k = evaluation.k
    body = [
        f"<header><h1>{_e(title)}</h1>"
        f'<p class="meta">Generated on {_e(date)} by retrieval-compare {_e(tool_version())}. '
        f"{len(evaluation.runs)} runs scored at K = {k} over {len(evaluation.scored_ids):,} "
        f"scored queries; conventions: {_e('; '.join(evaluation.conventions.in_words()))}.</p>"
        '<p class="note">Every figure here holds for this K, this label set, this query set '
        "and this day. Re-score the same frozen query set later to read drift.</p></header>",
        report_texts.leakage_section(leakage, queries),
        report_decisions.headline_section(headline),
        report_decisions.leaderboard_section(board, primary, pairs),
        _summary_section(evaluation, _charts_html(evaluation), marks),
        _run_table_section(evaluation, comparison),
        _timings_section(evaluation, timed, primary),
        report_texts.slices_section(evaluation, slices, slice_pieces),
        _comparison_section(evaluation, comparison),
        report_decisions.topic_set_section(topic_sets),
        report_decisions.pairs_section(pairs, primary),
        report_decisions.review_section(comparison, risks, fragility, to_label,
                                        label_of(primary, k, evaluation.conventions)),
        report_judge.judge_section(judge, primary),
        report_texts.examples_section(evaluation, comparison, queries, corpus)
        if queries is not None or corpus is not None else "",
        _diagnosis_section(evaluation),
        report_texts.costs_section(costs),
        _basis_section(evaluation, fingerprints),  # for the reviewer, after the findings
        _limits_section((*(TUKEY_REFERENCES if pairs is not None and pairs.test == "tukey"
                            else ()), *(TOPIC_SET_REFERENCES if topic_sets else ()))),
    ]
    texts = any(x is not None for x in (queries, corpus, slices, slice_pieces, leakage, costs))
    style = _STYLE + (report_texts.STYLE if texts else "")
    if embed_data and evaluation.within is not None:
        # a snapshot freezes the whole query set: a filtered report carries its tables only
        body.append('<p class="note">The figures of a filtered query set are not embedded as '
                    "a snapshot: save one without the filter to keep every per-query figure."
                    "</p>")
    elif embed_data:
        data = to_snapshot(evaluation, label=title, created=_created(generated_on))
        body.append(f'<script type="application/json" id="snapshot">{_inline_json(data)}</script>')
    out = io.StringIO()
    out.write('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n')
    out.write('<meta name="viewport" content="width=device-width, initial-scale=1">\n')
    out.write(f"<title>{_e(title)}</title>\n<style>{style}</style>\n</head>\n<body>\n")
    out.write("\n".join(part for part in body if part))
    out.write("\n</body>\n</html>\n")
    return out.getvalue()


def build_report(contents: ReportContents, *, title: str = DEFAULT_TITLE,
                 generated_on: _dt.date | str | None = None, embed_data: bool = True) -> str:
    """The report of what metrics.report_contents decided it holds (the Export page's and
    python -m dashboard report's one call), laid out by build_html."""
    return build_html(**contents.keywords(), title=title, generated_on=generated_on,
                      embed_data=embed_data)


def _created(generated_on: _dt.date | str) -> _dt.datetime | None:
    """The embedded snapshot's timestamp: generated_on if it is a time-zone-aware datetime,
    else now (the figures were computed now, whatever date the report is given)."""
    if isinstance(generated_on, _dt.datetime) and generated_on.tzinfo is not None:
        return generated_on
    return None
