"""What the reader asked for, read once per script run: one frozen view of every choice that
reaches more than one page, a link or an export (K, the conventions, the runs shown, the query
and the filter, the comparison's correction, the headline metric, the harm threshold, the
facet, what K is priced at, the judge's weight...).

app.py builds it after the sidebar, from the session state the URL, the widgets and the
callbacks have set by then (a widget's value is in session state before the script runs, so a
page's own controls are read too); every page, link and export reads its choices from it
rather than from session state, so two features cannot read one choice two ways. What is made
valid against the data (the baseline and candidates among the runs shown) is the Compare
options' (session.compare_options), made once from these."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from dashboard.state import session
from metrics import Conventions, vocabulary


@dataclass(frozen=True)
class Asked:
    k: int
    conventions: Conventions
    runs: tuple[str, ...]  # the runs shown, original names, in display order (first: baseline)
    measures: tuple[str, ...]  # the figures added to every view, as typed
    query: str | None  # the selected query, shared by every page that picks one
    search: str  # the words that narrow the query pickers ("" : none)
    where: str | None  # the facet the sidebar's filter reads (None: every query)
    values: tuple[str, ...]  # the bins of it the filter keeps
    facet: str | None  # the facet the Overview and the report cut by kind of query
    correction: str  # the comparison's multiple-comparison correction
    alpha: float
    min_effect: float | None  # the smallest difference that matters (None: none declared)
    pairs_test: str  # how every pair is read: "paired" (as the comparison) or "tukey"
    delta: float | None  # a difference worth detecting (None: not asked)
    primary: str  # the headline's measure key
    harm_delta: float  # a query is harmed when it loses more than this
    risk_alpha: float  # the risk aversion whose URisk and TRisk are shown
    fragility: bool  # whether each verdict is checked under the other conventions
    tokens_per_chunk: float | None  # what a chunk holds (None: the corpus's estimate)
    price: float | None  # dollars a million input tokens (None: tokens only)
    lam: float | None  # the weight on the judge (None: tuned, PPI++)
    rbo_p: float  # the persistence of rank-biased overlap
    mark_best: bool  # the summary marks each metric's best run

    @property
    def filtered(self) -> bool:
        return self.where is not None and bool(self.values)


def read(conventions: Conventions | None = None) -> Asked:
    """The choices in session state now, each at its default when not set yet;
    `conventions` those the view was scored under (the label set included)."""
    state = st.session_state
    default = session.defaults()

    def get(key: str):
        value = state.get(key)
        return default.get(key) if value is None else value

    lam = get(session.PPI_LAMBDA) or vocabulary.judge.TUNED
    return Asked(
        k=int(get(session.K)),
        conventions=conventions or session.conventions(),
        runs=tuple(state.get(session.RUNS) or ()),
        measures=tuple(state.get(session.MEASURES) or ()),
        query=state.get(session.QUERY),
        search=state.get(session.SEARCH) or "",
        where=state.get(session.WHERE),
        values=tuple(state.get(session.WHERE_VALUES) or ()),
        facet=state.get(session.FACET),
        correction=get(session.CORRECTION),
        alpha=float(get(session.ALPHA)),
        min_effect=state.get(session.MIN_EFFECT),
        pairs_test=get(session.PAIRS_TEST),
        delta=state.get(session.DELTA),
        primary=get(session.PRIMARY),
        harm_delta=float(get(session.HARM_DELTA)),
        risk_alpha=float(get(session.RISK_ALPHA)),
        fragility=bool(get(session.FRAGILITY)),
        tokens_per_chunk=state.get(session.TOKENS),
        price=state.get(session.PRICE),
        lam=None if lam == vocabulary.judge.TUNED else float(lam),
        rbo_p=float(get(session.RBO_P)),
        mark_best=bool(get(session.MARK_BEST)),
    )


def publish(view=None) -> Asked:
    """Read the choices once for this script run (after the sidebar drew `view`) and keep
    them for the pages."""
    asked = read(None if view is None else view.evaluation.conventions)
    st.session_state[session.ASKED] = asked
    return asked


def now() -> Asked:
    """This script run's choices (read after the sidebar: app.py)."""
    asked = st.session_state.get(session.ASKED)
    return asked if asked is not None else publish()
