"""The presentation's slides for a view, and their PDF and PNGs, once per view and choices.

The slides read the report's contents (dashboard/data/report.py: metrics.report_contents, the
one function the Export page and `python -m dashboard report` call) under the Compare page's
comparison, the headline metric and the Overview's token figure, without the fragility check
(the slides do not show it, and it reads every run again). dashboard/views/slides.py builds
them; dashboard/report/slides.py lays them out as files.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass

import metrics
from dashboard.data import costs, report
from dashboard.data import timings as timing_data
from dashboard.data.cache import CompareOptions, Inputs, View, derived
from dashboard.report import slides as files
from dashboard.views import slides as built


def footer(view: View) -> str:
    return built.footer(view.evaluation, view.baseline)


@dataclass(frozen=True, eq=False)
class Deck:
    """The slides and the choices they were built under (what keys their files)."""

    slides: tuple[built.Slide, ...]
    key: tuple


def slides(view: View, inputs: Inputs | None, comparison: metrics.Comparison | None,
           options: CompareOptions | None, *, primary: str, harm_delta: float,
           tokens_per_chunk: float | None, price: float | None
           ) -> Deck:
    """The view's slides: its report contents (no fragility check, no facet, no judge
    weight) laid out by views.slides.build."""
    tokens = costs.priced(view, tokens_per_chunk, price).tokens
    contents = report.contents(
        view, inputs, comparison, options, primary=primary, harm_delta=harm_delta,
        check_fragility=False, facet=None, tokens=tokens, lam=None)
    timed = timing_data.timed(view, inputs, view.baseline)
    key = (*_key(view, options, primary, harm_delta, tokens), None if timed is None else timed.key)
    return Deck(derived(view, "slides", key,
                        lambda: built.build(contents, latency=latency(timed),
                                            colour_domain=view.colour_domain)), key)


def latency(timed: timing_data.Timed | None) -> list[str] | None:
    """The cost slide's latency lines: each candidate's p95 latency against the baseline's
    (the engine's headline piece, the one the Overview's and compare's headlines carry);
    None when no shown run has timings."""
    if timed is None or timed.found is None:
        return None
    return [f"{pair.candidate} against {pair.baseline}: {pair.headline()}."
            for pair in timed.found.pairs if pair.column == metrics.vocabulary.timings.LATENCY]


def _key(view: View, options: CompareOptions | None, primary: str, harm_delta: float,
         tokens: metrics.ChunkTokens | None) -> tuple:
    corpus = None if view.corpus_file is None else view.corpus_file.key
    return (view.queries_key, corpus, options, primary, harm_delta, tokens)


def pdf(view: View, deck: Deck) -> bytes:
    """The slides as one PDF, a 16:9 page a slide (made when asked: a download's click)."""
    return derived(view, "slides pdf", deck.key,
                   lambda: files.pdf(files.specs(deck.slides, footer(view))))


def pngs(view: View, deck: Deck) -> bytes:
    """The slides as a ZIP of 1920 x 1080 PNGs, one a slide, named in order."""
    def make() -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:  # PNGs: compressed
            shown = deck.slides
            for name, vega in zip(files.file_names(shown), files.specs(shown, footer(view)),
                                  strict=True):
                archive.writestr(name, files.png(vega))
        return out.getvalue()
    return derived(view, "slides png", deck.key, make)
