"""The report's section on a model judge's labels: what each label set covers, the judge's
agreement with the humans, the prediction-powered headline, and the primary figure of every
run (and every candidate's difference from the baseline) three ways with the judge's bias.
Pure HTML from a metrics.JudgeReport and the engine's words; every text escaped once."""

from __future__ import annotations

from dashboard import safe
from dashboard.report.texts import table
from dashboard.views import judge_views
from metrics import JudgeReport, ppi_headlines, vocabulary
from metrics import format as fmt

COLUMNS = ["Run", "Human only", "Judge only", "Prediction-powered", "Lambda", "Width ratio",
           "Bias (judge − human)"]


def _rows(frame, key_label: str) -> list[list[str]]:
    rows = frame[frame["Metric"] == key_label]
    return [[row[column] for column in COLUMNS] for row in rows.to_dict("records")]


def judge_section(report: JudgeReport | None, primary: str) -> str:
    """The judge's section on the primary figure (a measure key); "" without a judge."""
    if report is None:
        return ""
    words = vocabulary.judge
    terms = words.TERMS
    c, g = report.coverage, report.grades
    keys = [f.key for f in report.figures]
    primary = primary if primary in keys else keys[0]  # a figure the judge's report holds
    label = next(f.label for f in report.figures if f.key == primary)
    level = fmt.confidence(report.confidence_level)
    kappas = [f"{name} {fmt.interval(k.kappa, k.low, k.high, why=k.undefined)}"
              for name, k in (("Cohen's kappa", g.kappa), ("weighted kappa", g.weighted_kappa),
                              (f"binary kappa (relevant from grade {g.relevance_level})",
                               g.binary_kappa)) if k is not None]
    rates = [f"{name} {fmt.interval(r.mean, r.low, r.high, why=r.undefined)}"
             + ("" if r.undefined else f", {r.basis}")
             for name, r in (("false relevant rate", g.false_relevant),
                             ("false non-relevant rate", g.false_nonrelevant))]
    covered = words.coverage_sentence(c.human_queries, c.judge_queries, c.both_queries,
                                      c.human_pairs, c.judge_pairs, c.both_pairs)
    parts = [
        '<section id="judge"><h2>Labels from a model judge</h2>',
        f"<p>{safe.html(covered)}</p>",
        f"<p>On the {g.pairs:,} pairs both label ({level} intervals): "
        f"{safe.html('; '.join(kappas + rates))}.</p>",
    ]
    if g.relevant_ungraded:
        ungraded = words.UNGRADED_RELEVANT.format(ids=fmt.count(g.relevant_ungraded, "id"))
        parts.append(f"<p>{safe.html(ungraded)}</p>")
    if not report.n_unlabelled:
        parts.append(f"<p>{safe.html(words.NO_UNLABELLED)}</p>")
    if report.sample_flagged:
        parts.append(f'<p class="warning">{safe.html(report.sample_sentence)}</p>')
    if report.comparisons:
        items = "".join(f"<li>{safe.html(s)}</li>" for s in ppi_headlines(report, primary))
        parts.append(f'<ul class="headline">{items}</ul>')
    parts.append(f"<h3>{safe.html(label)} three ways</h3>")
    parts.append(table(COLUMNS, _rows(judge_views.figures_frame(report), label),
                       numeric=[False, True, True, True, True, True, True]))
    if report.comparisons:
        parts.append(f"<h3>{safe.html(label)}: each run against the baseline</h3>")
        parts.append(table(["Difference", *COLUMNS[1:]],
                           _rows(judge_views.comparisons_frame(report), label),
                           numeric=[False, True, True, True, True, True, True]))
    notes = " ".join(terms[key] for key in ("human", "judge", "ppi", "lambda", "bias"))
    parts.append(f'<p class="note">{safe.html(words.EVERY_QUERY_COUNTS)} '
                 f"{safe.html(notes)}</p></section>")
    return "".join(parts)
