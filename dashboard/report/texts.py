"""The report's sections that need the query and chunk texts: the examples (biggest gains and
losses, with the query's text and what the candidate put in front of the model), the figures
by kind of query (--by), the leakage warning and what K costs.

Pure (no streamlit); ``dashboard.report.build_html`` places them. Every text from a user file
(query ids and texts, chunk ids, titles and texts, run names, facet names and values) is
escaped with ``safe.html`` exactly once: table cells are plain text escaped by ``_table``,
and a cell that carries markup is built here from escaped pieces and marked ``Html``.

A column whose source was not given is left out (no queries file: no question column); a
value its source lacks reads "—" (a query missing from the queries file, a chunk missing
from the corpus).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from dashboard import safe
from dashboard.views import frames
from dashboard.views.highlight import preview
from metrics import (
    CORRECTIONS,
    FACET_RULES,
    SLICE_MIN_QUERIES,
    Comparison,
    Corpus,
    Evaluation,
    Leakage,
    Queries,
    Slice,
    rank_movement,
    vocabulary,
)
from metrics import format as fmt

__all__ = [
    "EXAMPLES",
    "FIRST_WORDS",
    "PRIMARY",
    "STYLE",
    "TOP_CHUNKS",
    "costs_section",
    "examples_section",
    "leakage_section",
    "primary_label",
    "slices_section",
]

PRIMARY = vocabulary.report.EXAMPLES_ON  # the measure the examples and the slices are read on
EXAMPLES = 5  # gains and as many losses per candidate
TOP_CHUNKS = 3  # the candidate's chunks shown with each example
FIRST_WORDS = 12  # of each chunk's text
WORDS_CHARS = 120  # and no more characters than this, whatever its words' length
LEAKED_SHOWN = 100  # leaked queries listed; the count says how many more
MISSING = "—"

STYLE = """
.warning { border-left: 4px solid #b42318; background: #fff4f2; padding: .6rem .9rem;
  margin: .75rem 0; } .warning b { color: #b42318; }
.chunk { margin: 0 0 .35rem; font-size: 13px; line-height: 1.4; }
.chunk:last-child { margin-bottom: 0; }
.chunk-words, .small { color: #57606a; }
"""

_e = safe.html


class Html(str):
    """A table cell already written as HTML from escaped pieces: `_table` keeps it as is."""


def table(header: Sequence[str], rows: Iterable[Sequence[str]],
           numeric: Sequence[bool] = ()) -> str:
    """Plain-text cells are escaped here; `Html` cells are written as they are."""
    head = "".join(f"<th>{_e(cell)}</th>" for cell in header)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            css = ' class="num"' if i < len(numeric) and numeric[i] else ""
            cells.append(f"<td{css}>{cell if isinstance(cell, Html) else _e(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def primary_label(evaluation: Evaluation) -> str:
    """'nDCG@10': the primary measure's label at the evaluation's K and conventions."""
    return evaluation.label(PRIMARY)


def _question(queries: Queries, query_id: str) -> str:
    text = queries.text(query_id)
    return MISSING if text is None else text


# --------------------------------------------------------------------------- examples


def first_words(text: str, n: int = FIRST_WORDS) -> str:
    """The text's first n words (at most WORDS_CHARS characters), with "…" if cut."""
    words = text.split()
    shown, rest = preview(" ".join(words[:n]), WORDS_CHARS)
    return shown + ("…" if rest or len(words) > n else "")


def _chunk(rank: int, doc_id: str, judged: str, corpus: Corpus | None) -> str:
    """One chunk as escaped HTML: rank, id and judgement, then its title and first words."""
    line = f"<b>{rank}.</b> <code>{_e(doc_id)}</code> <span class=\"small\">({_e(judged)})</span>"
    if corpus is not None:
        text, title = corpus.text(doc_id), corpus.title(doc_id)
        if text is None:
            line += f" {MISSING}"
        else:
            if title:
                line += f" · <b>{_e(' '.join(title.split()))}</b>"
            line += f' <span class="chunk-words">{_e(first_words(text))}</span>'
    return f'<div class="chunk">{line}</div>'


def top_chunks(evaluation: Evaluation, baseline: str, candidate: str, query_id: str,
               corpus: Corpus | None, n: int = TOP_CHUNKS) -> Html:
    """The candidate's first n ranks for the query (each id at its first rank), as HTML."""
    moved = rank_movement(evaluation, baseline, candidate, query_id, n)
    top = moved[moved["after"].le(n).fillna(False).astype(bool)]
    if top.empty:
        return Html("<i>no list</i>")
    return Html("".join(_chunk(int(row.after), str(row.doc_id), str(row.judged), corpus)
                        for row in top.itertuples(index=False)))


def _examplestable(evaluation: Evaluation, comparison: Comparison, candidate: str,
                    changes: pd.DataFrame, queries: Queries | None,
                    corpus: Corpus | None) -> str:
    header = ["Query", *(["Question"] if queries is not None else []), "Before", "After",
              "Difference", f"Top {TOP_CHUNKS} of {candidate}"]
    numeric = [False, *([False] if queries is not None else []), True, True, True, False]
    rows = [
        [row.query_id,
         *([_question(queries, row.query_id)] if queries is not None else []),
         fmt.figure(row.before), fmt.figure(row.after), fmt.signed(row.difference),
         top_chunks(evaluation, comparison.baseline, candidate, row.query_id, corpus)]
        for row in changes.itertuples(index=False)
    ]
    return table(header, rows, numeric)


def examples_section(evaluation: Evaluation, comparison: Comparison | None,
                     queries: Queries | None = None, corpus: Corpus | None = None) -> str:
    """Per candidate, the EXAMPLES queries it improved most and hurt most on the primary
    measure (the first compared one if the comparison left it out)."""
    if comparison is None or not comparison.metrics:
        return ""
    label = primary_label(evaluation)
    metric = label if label in comparison.metrics else comparison.metrics[0]
    paired = frames.paired_scores(comparison, metric)
    texts = [part for part, given in (("the question", queries is not None),
                                      ("each chunk's title and first words",
                                       corpus is not None)) if given]
    parts = [
        f'<section id="examples"><h2>Examples: biggest gains and losses in {_e(metric)}</h2>',
        f'<p class="note">Per candidate, the {EXAMPLES} queries whose {_e(metric)} it raised '
        f"most and the {EXAMPLES} it lowered most against {_e(comparison.baseline)} (ties left "
        f"out), with the candidate's top {TOP_CHUNKS} chunks: what it put in front of the "
        "model. "
        + (f"Shown: {_e(' and '.join(texts))}; {MISSING} where the file lacks the id."
           if texts else "Give --queries and --corpus to see the question and the chunks' "
           "texts.")
        + "</p>",
    ]
    for candidate in comparison.candidates:
        parts.append(f"<h3>{_e(candidate)} against {_e(comparison.baseline)}</h3>")
        for gains, title, none in ((True, "Gains", "better"), (False, "Losses", "worse")):
            changes = frames.biggest_changes(paired, candidate, EXAMPLES, gains=gains)
            parts.append(f"<h4>{title}</h4>")
            parts.append(
                f'<p class="note">No query got {none}.</p>' if changes.empty
                else _examplestable(evaluation, comparison, candidate, changes, queries, corpus)
            )
    parts.append("</section>")
    return "".join(parts)


# --------------------------------------------------------------------------- slices


def _queries_cell(n: int, too_small: bool) -> str:
    return f"{n:,}" + (" (too few to read)" if too_small else "")


def slices_section(evaluation: Evaluation, slices: Sequence[Slice] | None,
                   slice_pieces: Sequence[tuple[str, Comparison]] | None = None) -> str:
    """The primary measure per slice of one facet (runs across), and each slice's paired
    difference per candidate with p adjusted over every (candidate, metric, slice)."""
    if not slices and slice_pieces is None:
        return ""
    label = primary_label(evaluation)
    facet = slices[0].facet if slices else None
    parts = ['<section id="slices"><h2>By kind of query'
             + (f": {_e(facet)}" if facet else "") + "</h2>"]
    if slices:
        header = ["Slice", "Scored queries", *evaluation.run_names]
        rows = [[piece.value, _queries_cell(piece.queries, piece.too_small),
                 *(fmt.interval(*_triple(piece.summary[name][PRIMARY]))
                   for name in evaluation.run_names)]
                for piece in slices]
        parts.append(
            f'<p class="note">{_e(label)}, mean [low, high] at '
            f"{_e(fmt.confidence(evaluation.conventions.confidence_level))} confidence, each "
            f"slice evaluated alone. {_e(FACET_RULES['figures'])} {_e(FACET_RULES['small'])}</p>"
            + table(header, rows, [False, True] + [True] * len(evaluation.run_names))
        )
    if slice_pieces is not None:
        parts.append(_slice_comparison(slice_pieces))
    parts.append("</section>")
    return "".join(parts)


def _triple(interval: Any) -> tuple[float, float, float]:
    return interval.mean, interval.low, interval.high


def _slice_comparison(pieces: Sequence[tuple[str, Comparison]]) -> str:
    if not pieces:
        return '<p class="note">No slice holds two scored queries: nothing to compare.</p>'
    first = pieces[0][1]
    header = ["Slice", "Scored queries", "Candidate", "Metric", "Difference [interval]",
              vocabulary.WIN_TIE_LOSS, "p adjusted", "Reading"]
    rows = [[label, _queries_cell(int(t.n), t.n < SLICE_MIN_QUERIES), t.candidate, t.metric,
             fmt.difference(t.difference, t.low, t.high),
             fmt.win_tie_loss(t.wins, t.ties, t.losses), fmt.p_value(t.p_adjusted),
             "significant" if t.significant else "not significant"]
            for label, comparison in pieces for t in comparison.tests]
    return (
        f"<h3>{_e(first.baseline)} against each candidate, slice by slice</h3>"
        f'<p class="note">Paired over each slice\'s scored queries alone; '
        f"{_e(CORRECTIONS[first.correction])} correction over "
        f"{_e(fmt.count(first.n_comparisons, 'comparison'))} (every candidate, metric and "
        f"slice), alpha {first.alpha:g}.</p>"
        + table(header, rows, [False, True, False, False, True, True, True, False])
    )


# --------------------------------------------------------------------------- leakage, cost


def leakage_section(leakage: Leakage | None, queries: Queries | None = None) -> str:
    """The check's sentence in a warning box when a query leaked (a note when none did), and
    the leaked queries with the chunks that hold them."""
    if leakage is None:
        return ""
    if not leakage.leaks:
        return (f'<section id="leakage"><h2>Leakage</h2><p class="note">'
                f"{_e(leakage.sentence)}</p></section>")
    leaked = leakage.leaked_queries
    header = ["Query", *(["Question"] if queries is not None else []),
              "Chunks that hold it (kind, share of its word 3-grams)"]
    rows = [
        [query, *([_question(queries, query)] if queries is not None else []),
         "; ".join(f"{leak.doc_id} ({leak.kind}, "
                   f"{vocabulary.leakage.ngram_share(leak.overlap)})"
                   for leak in leakage.by_query(query))]
        for query in leaked[:LEAKED_SHOWN]
    ]
    more = (f'<p class="note">and {len(leaked) - LEAKED_SHOWN:,} more leaked queries.</p>'
            if len(leaked) > LEAKED_SHOWN else "")
    return (
        '<section id="leakage"><h2>Leakage</h2>'
        f'<div class="warning" role="note"><b>Leakage.</b> {_e(leakage.sentence)}</div>'
        f'<p class="note">Checked: {leakage.queries_checked:,} queries against the '
        f"{leakage.chunks_checked:,} chunks a run retrieved or the qrels judge; a leak is the "
        f"query's text in a chunk, or {leakage.threshold:g} of its word 3-grams in one "
        "chunk.</p>" + table(header, rows) + more + "</section>"
    )


def costs_section(costs: Sequence[Any] | None) -> str:
    """What each run's context costs at K and at the suggested k (``metrics.cost.costs``),
    one sentence a run."""
    if not costs:
        return ""
    items = "".join(f"<li><b>{_e(cost.run)}</b>: {_e(cost.sentence)}</li>" for cost in costs)
    return (f'<section id="cost"><h2>What K costs</h2>'
            f'<p class="note">{_e(costs[0].tokens.sentence)}</p><ul>{items}</ul></section>')
