"""The stakeholder report's contents for a view: the engine's one function
(metrics.report_contents, which `python -m dashboard report` calls too) given what the
dashboard chose (the Compare page's comparison, the harm threshold, the fragility switch, the
facet, the token figure, the judge's weight), kept in the store once per view and choices.
The Export page lays out what it returns."""

from __future__ import annotations

import metrics
from dashboard.data import geometric, review, slicing, texts
from dashboard.data.cache import CompareOptions, Inputs, View, judged, spinner, store


def contents(view: View, inputs: Inputs | None, comparison: metrics.Comparison | None,
             options: CompareOptions | None, *, primary: str, harm_delta: float,
             check_fragility: bool, facet: str | None, tokens: metrics.ChunkTokens | None,
             lam: float | None, pairs: metrics.AllPairs | None = None,
             topic_sets: dict[str, metrics.TopicSetSize] | None = None,
             timed: metrics.Timed | None = None, timed_key: tuple = ()
             ) -> metrics.ReportContents:
    """What the report holds for the view: `comparison` is the Compare page's (made under
    `options`; None without one), `primary` the headline's measure key, `facet` the facet
    the figures by kind of query are cut by (None: none), `tokens` what K is priced at, `lam`
    the judge's weight (None: tuned, PPI++), `pairs` every pair as the leaderboard is read
    (decisions.leaderboard_pairs, None: by the paired tests) and `topic_sets` the queries a
    future set needs (decisions.topic_set_sizes, None: no difference asked), both the pages'
    own entries; `timed` the latency and cost figures (dashboard/data/timings.py, read
    under `timed_key`)."""
    corpus = texts.corpus(view)
    judge_file = inputs.judge if inputs is not None and inputs.judged else None
    corpus_key = None if view.corpus_file is None else view.corpus_file.key
    key = (view.key, view.queries_key, corpus_key, options, primary, harm_delta,
           check_fragility, facet, tokens, lam, None if judge_file is None else judge_file.key,
           _reading(pairs),
           None if topic_sets is None else tuple(
               (label, size.min_difference) for label, size in topic_sets.items()), timed_key)

    def make() -> metrics.ReportContents:
        return metrics.report_contents(
            view.evaluation, comparison, primary=primary, harm_delta=harm_delta,
            check_fragility=check_fragility,
            reread=(review.rereader(inputs, view)
                    if check_fragility and inputs is not None and comparison is not None
                    else None),
            queries=view.queries, corpus=corpus,
            facet=slicing.facets(view)[facet] if facet is not None else None,
            tokens=tokens, leakage_qrels=view.qrels, leakage_runs=view.loaded_runs,
            judge=_judge(inputs, view, lam) if judge_file is not None else None,
            pairs=pairs, topic_sets=topic_sets, timed=timed)

    return store().get(
        "report contents", key, make,
        files=view.files | {name for name in (view.queries_key, corpus_key) if name},
        parents=[view.source], shared=(view.evaluation, comparison, view.queries, corpus),
        on_miss=spinner("Gathering what the report holds…"))


def _judge(inputs: Inputs, view: View, lam: float | None) -> metrics.JudgeReport | None:
    """The judge's report at the Judge labels page's weight; None when too few queries both
    label (that page says why)."""
    try:
        return judged(inputs, view, lam)
    except ValueError:
        return None


def latex(view: View, comparison: metrics.Comparison | None,
          options: CompareOptions | None, pairs: metrics.AllPairs | None = None) -> str:
    """A paper's table of the view's figures, its daggers the comparison's (made under
    `options`), its superscript letters those of every pair read by the test in force
    (`pairs`: decisions.leaderboard_pairs), once per view, comparison and reading; the
    command line's writer (metrics.latex_table)."""
    return store().get("latex", (view.key, options, _reading(pairs)),
                       lambda: metrics.latex_table(view.evaluation, comparison, pairs=pairs,
                                                   summaries=_summaries(view)),
                       files=view.files, parents=[view.source],
                       shared=(view.evaluation, comparison))


def _summaries(view: View) -> dict[str, dict[str, metrics.Interval]]:
    """The summaries that are not means (gm_map) the view asks for, a column each; none on
    standardised figures (a z-score has no logarithm: the Overview says so)."""
    if view.evaluation.standardised:
        return {}
    return {key: geometric.means(view, key) for key in view.summaries}


def _reading(pairs: metrics.AllPairs | None) -> tuple | None:
    """What keys a reading of every pair in the store: the test, alpha, the metrics and the
    minimum effect it was read under (None: the paired tests, no pairs)."""
    return None if pairs is None else (pairs.test, pairs.alpha, pairs.metrics, pairs.min_effect)
