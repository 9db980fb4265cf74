"""The URL and the links: what a link carries, read once per session into session state,
and written back at the top of every run, so that a link reproduces a view.

The URL holds the data source, K, every convention, the shown runs (in order), the selected
query and the comparison's correction and alpha, under the short names the vocabulary declares
(`?k=10&gain=exponential&runs=bm25&runs=baseline&query=q03`). It is read once per session,
before any widget exists (`init`), and rewritten at the top of every run (`publish`: widget
values are already in session state by then) with the values that differ from their
defaults. A value that does not parse is ignored and reported, whatever went wrong with it
(each parameter on its own: one bad value never stops the others, nor the page); so is a
query string Streamlit dropped whole for its length.

Two parameters are not state but a request: `open=QUERY`, which every "open in the
drill-down" link carries, and `pair=A&pair=B`, the runs it compares. A link is a change of
view: on arrival the query is the selected one (whatever was selected before), the pair is
set side by side, and whatever would hide the query (a search typed earlier, the sidebar's
filter) is cleared, with a note that says so (`open_query`). Both leave the URL.

A tab can outlive its session: after a server restart (or once a session has ended) the
browser still shows the last page and sends its widgets' values with its next click, to a new
session, whose URL may already be gone (a click on another page drops it). `init` tells such
a tab from a new one by those values: it keeps them (the widgets are drawn with them: the data
source, K, the conventions, the names), and names the files that were uploaded before, which
lived in the old session's memory only, so that the page asks for them again instead of
showing anything else in their place.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.state.common import user_key_from_element_id
from streamlit.runtime.state.query_params import (
    CLIENT_STATE_QUERY_STRING_MAX_FIELDS,
    CLIENT_STATE_QUERY_STRING_MAX_LENGTH,
)
from streamlit.runtime.uploaded_file_manager import DeletedFile

import metrics
from dashboard.data import combine
from dashboard.data.cache import SOURCES, UPLOAD, View
from dashboard.state.session import (
    ALL_PAIRS,
    ALPHA,
    ALPHA_RANGE,
    APP_RERUN,
    ARRIVED,
    BASELINE,
    CHOICES,
    CONFIDENCE,
    CORPUS_KEY,
    CORRECTION,
    DELTA,
    FACET,
    FRAGILITY,
    FUSED,
    HARM_DELTA,
    JUDGE_KEY,
    KEPT,
    LEVELS,
    LINK_BASELINE,
    LINK_CORPUS,
    LINK_FILES,
    LINK_QUERIES,
    MARK_BEST,
    MEASURES,
    MIN_EFFECT,
    NOTES,
    NUMBERS,
    OPEN,
    PAIR,
    PAIRS_TEST,
    PRESENT,
    PRICE,
    PRIMARY,
    PROBLEM_CHARS,
    QRELS_KEY,
    QUERIES_KEY,
    QUERY,
    RBO_P,
    READY,
    RENAMES,
    REVEAL,
    RISK_ALPHA,
    RUN_NAME,
    RUN_OPTIONS,
    RUNS,
    RUNS_KEY,
    SEARCH,
    SIDE_A,
    SIDE_B,
    SLIDE,
    SNAPSHOT_BASELINE,
    SOURCE_KEY,
    STANDARDISE,
    STANDARDISE_SCALE,
    SUBTOPICS_KEY,
    TOKENS,
    UPLOADS_LOST,
    URL_PROBLEMS,
    WHERE,
    WHERE_VALUES,
    K,
    defaults,
    display_names,
    report_url_problem,
    settings_key,
    shorten,
)
from metrics import CONVENTION_BY_FIELD, CORRECTIONS, SUMMARY_MEASURES


@dataclass(frozen=True)
class Param:
    key: str
    parse: Callable[[list[str]], object]  # raises ValueError on a bad value
    dump: Callable[[object], str | list[str]] = str
    each: bool = False  # a list of values, each parsed alone: a bad one leaves the others


def _choice(options: dict[str, str]) -> Callable[[list[str]], str]:
    def parse(values: list[str]) -> str:
        if values[-1] not in options:
            raise ValueError(f"expected one of {', '.join(options)}")
        return values[-1]

    return parse


def _integer(low: int | None = None, high: int | None = None) -> Callable[[list[str]], int]:
    def parse(values: list[str]) -> int:
        value = int(values[-1])
        if (low is not None and value < low) or (high is not None and value > high):
            raise ValueError(f"expected an integer from {low} to {high}")
        return value

    return parse


def _number(low: float, high: float) -> Callable[[list[str]], float]:
    def parse(values: list[str]) -> float:
        value = float(values[-1])
        if not low <= value <= high:
            raise ValueError(f"expected a number from {low} to {high}")
        return value

    return parse


def _text(values: list[str]) -> str:
    return values[-1]


def _measure_name(value: str) -> str:
    """A measure's name as a link gives it (ValueError naming a bad one, as the engine reads
    it); a geometric summary's too (gm_map)."""
    if metrics.geometric_summary(value) is None:
        metrics.parse_measure(value)
    return value


def _min_effect(values: list[str]) -> float:
    """The minimum effect, checked as the engine checks it (a number > 0)."""
    return metrics.vocabulary.conventions.check_min_effect(float(values[-1]))


def _flag(values: list[str]) -> bool:
    """An on/off choice: 1 or 0."""
    if values[-1] not in ("0", "1"):
        raise ValueError("expected 1 (on) or 0 (off)")
    return values[-1] == "1"


def _dump_flag(value: object) -> str:
    return "1" if value else "0"


def _renames(values: list[str]) -> dict[str, str]:
    """names=ORIGINAL=SHOWN, repeated: the runs' display names."""
    renames = {}
    for value in values:
        original, sep, shown = value.partition("=")
        if not sep or not original or not shown.strip():
            raise ValueError(f"expected ORIGINAL=NEW, got {value!r}")
        renames[original] = shown.strip()
    return renames


def _dump_renames(renames: dict[str, str]) -> list[str]:
    return [f"{original}={shown}" for original, shown in renames.items()]


_STANDARDISING = metrics.vocabulary.conventions  # the standardised scores' names and choices
_PARSE_NUMBER = {"relevance_level": _integer(*LEVELS), "confidence_level": _number(*CONFIDENCE)}


PARAMS = {
    "source": Param(SOURCE_KEY, _choice(SOURCES)),
    "k": Param(K, _integer(1, metrics.DASHBOARD_MAX_K)),
    **{CONVENTION_BY_FIELD[field].url: Param(settings_key(field), _choice(labels))
       for field, labels in CHOICES.items()},
    **{CONVENTION_BY_FIELD[field].url: Param(settings_key(field), _PARSE_NUMBER[field])
       for field in NUMBERS},
    "runs": Param(RUNS, list, list),
    "query": Param(QUERY, _text),
    "find": Param(SEARCH, _text),
    "tokens": Param(TOKENS, _number(1, 10_000_000)),
    "price": Param(PRICE, _number(0, 10_000)),
    "correction": Param(CORRECTION, _choice(CORRECTIONS)),
    "alpha": Param(ALPHA, _number(*ALPHA_RANGE)),
    "best": Param(MARK_BEST, _flag, _dump_flag),
    "delta": Param(DELTA, _number(1e-6, 1.0)),
    "pairs": Param(ALL_PAIRS, _flag, _dump_flag),
    "pairs_test": Param(PAIRS_TEST, _choice(metrics.ALL_PAIRS_TESTS)),
    metrics.MIN_EFFECT.url: Param(MIN_EFFECT, _min_effect),
    "harm": Param(HARM_DELTA, _number(0.0, 1.0)),
    "risk": Param(RISK_ALPHA, _choice({str(a): str(a) for a in metrics.RISK_ALPHAS})),
    "fragility": Param(FRAGILITY, _flag, _dump_flag),
    "rbo": Param(RBO_P, _number(0.01, 0.99)),
    "fuse": Param(FUSED, lambda values: combine.recipe_from_link(values[-1]),
                  lambda recipes: [combine.recipe_link(r) for r in recipes], each=True),
    "primary": Param(PRIMARY, _choice({m.key: m.key for m in SUMMARY_MEASURES})),
    "baseline": Param(BASELINE, _text),
    "names": Param(RENAMES, _renames, _dump_renames),
    "files": Param(LINK_FILES, list, list),
    "m": Param(MEASURES, lambda values: [_measure_name(v) for v in values], list),
    "queries_file": Param(LINK_QUERIES, _text),
    "corpus_file": Param(LINK_CORPUS, _text),
    "facet": Param(FACET, _text),
    "where": Param(WHERE, _text),
    "is": Param(WHERE_VALUES, list, list),
    "present": Param(PRESENT, _flag, _dump_flag),
    "slide": Param(SLIDE, _integer(1, 999)),
    _STANDARDISING.STANDARDISE_URL: Param(
        STANDARDISE, _choice(_STANDARDISING.STANDARDISE_CHOICES)),
    _STANDARDISING.STANDARDISE_SCALE_URL: Param(
        STANDARDISE_SCALE, _choice(_STANDARDISING.STANDARDISE_SCALE_LABELS)),
}


MULTIPLE = {"runs", "names", "files", "is", "fuse", "m"}  # they repeat: ?runs=a&runs=b


def init() -> None:
    """Once per session: URL -> session state; then fill every missing default."""
    tab: dict[str, object] = {}
    if not st.session_state.get(READY):
        tab = _earlier_tab()
        lost = _uploaded_before(tab)
        # the names the tab gave its runs: their inputs are drawn only once the files are
        # back, and Streamlit forgets the value of a widget a run does not draw
        for key, state in tab.items():
            if key.startswith(RUN_NAME) and getattr(state, "string_value", ""):
                st.session_state[key] = state.string_value
        if lost:
            st.session_state[SOURCE_KEY] = UPLOAD
            st.session_state[UPLOADS_LOST] = lost
            st.session_state[LINK_FILES] = lost
        problems = [] if st.query_params else _dropped_query_string()
        for name, param in PARAMS.items():
            values = st.query_params.get_all(name)
            if not values:
                continue
            parsed = []
            for given in ([[v] for v in values] if param.each else [values]):
                try:
                    parsed.append(param.parse(given))
                except Exception as exc:  # noqa: BLE001 (a link is hostile: nothing it holds may stop the page)
                    problems.append(f"{name}={shorten(given[-1])!r} ignored: "
                                    f"{shorten(str(exc), PROBLEM_CHARS)}; the default is used")
            if parsed:
                st.session_state[param.key] = parsed if param.each else parsed[0]
        if BASELINE in st.session_state:
            st.session_state[LINK_BASELINE] = st.session_state[BASELINE]
        for original, shown in (st.session_state.get(RENAMES) or {}).items():
            st.session_state[RUN_NAME + original] = shown
        runs = st.session_state.get(RUNS) or []
        if len(set(runs)) != len(runs):
            st.session_state[RUNS] = list(dict.fromkeys(runs))
            problems.append("runs: a run named more than once is shown once")
        st.session_state[URL_PROBLEMS] = problems
        st.session_state[READY] = True
    opened = st.query_params.get(OPEN)
    if opened is not None:  # a link asked for this query: it is the selected one now
        open_query(opened, st.query_params.get_all(PAIR))
        del st.query_params[OPEN]
    if PAIR in st.query_params:
        del st.query_params[PAIR]
    for key, value in defaults().items():
        if key in tab:
            continue  # the earlier tab's widget value: Streamlit draws the widget with it
        # Streamlit drops a widget's state after a run that did not draw it (one that
        # stopped early); the widget would then come back at its minimum, not at the value
        # the user chose. The last value drawn is kept under a key of our own.
        st.session_state.setdefault(key, st.session_state.get(KEPT + key, value))


def presenting() -> bool:
    """The presentation mode is on (the sidebar's toggle, or present=1 in the link)."""
    return bool(st.session_state.get(PRESENT))


def slide(total: int) -> int:
    """The slide shown, from 1, kept within the `total` slides there are."""
    at = min(max(1, int(st.session_state.get(SLIDE) or 1)), max(1, total))
    st.session_state[SLIDE] = at
    return at


def step_slide(by: int, total: int) -> None:
    """A button's callback: `by` slides on (back when negative), within 1..total."""
    st.session_state[SLIDE] = min(max(1, int(st.session_state.get(SLIDE) or 1) + by),
                                  max(1, total))


def leave_presentation() -> None:
    """A button's callback: the pages and the sidebar again."""
    st.session_state[PRESENT] = False


def open_query(query: str, pair: Sequence[str] = ()) -> None:
    """A link's change of view: `query` selected, `pair` (two run names) side by side, and
    the query revealed: a search or filter that would hide it is cleared where it is drawn
    (`revealed`)."""
    st.session_state[QUERY] = query
    st.session_state[REVEAL] = query
    st.session_state[ARRIVED] = True
    if len(pair) == 2 and pair[0] != pair[1]:
        st.session_state[SIDE_A], st.session_state[SIDE_B] = pair


def revealed() -> str | None:
    """The query a link opened, until a page has shown it."""
    return st.session_state.get(REVEAL)


def shown_revealed() -> None:
    """A page showed (or could not show) the query a link opened: the request is done."""
    st.session_state.pop(REVEAL, None)


def say(note: str) -> None:
    """What a change of view did that the reader did not ask for (a filter cleared), said
    once at the top of the next page drawn."""
    st.session_state[NOTES] = [*st.session_state.get(NOTES, []), note]


def arrived() -> bool:
    """A link was followed to this page (asked once: the page opens at its top)."""
    return bool(st.session_state.pop(ARRIVED, False))


def notes() -> list[str]:
    """The notes said since the last page was drawn (they are said once)."""
    return st.session_state.pop(NOTES, [])


def _earlier_tab() -> dict[str, object]:
    """The widget values a browser tab sent with this session's first run, by widget key
    (serialized: Streamlit reads each one when its widget is drawn). A new tab sends none;
    a tab whose session is gone sends every widget it shows."""
    ctx = get_script_run_ctx()
    try:
        states = ctx.session_state._state._new_widget_state.states
    except AttributeError:  # a Streamlit that keeps them elsewhere: every tab reads as new
        return {}
    tab = {}
    for widget_id, state in states.items():
        key = user_key_from_element_id(widget_id)
        if key:
            tab[key] = getattr(state, "value", None)
    return tab


def _uploaded_before(tab: dict[str, object]) -> list[str]:
    """The names of the files an earlier tab's uploaders held."""
    names = []
    for key in (QRELS_KEY, RUNS_KEY, QUERIES_KEY, CORPUS_KEY, JUDGE_KEY, SUBTOPICS_KEY):
        state = tab.get(key)
        try:
            if state.WhichOneof("value") == "file_uploader_state_value":
                names += [info.name for info in state.file_uploader_state_value.uploaded_file_info]
        except AttributeError:  # not a serialized uploader state
            continue
    return names


def uploads_lost() -> list[str]:
    """Files this tab had uploaded to an earlier session (gone with it), until uploaded again."""
    lost = st.session_state.get(UPLOADS_LOST) or []
    if lost and uploaded_names():
        st.session_state[UPLOADS_LOST] = lost = []
    return list(lost)


def _dropped_query_string() -> list[str]:
    """Streamlit drops a query string past its limits (a log line on the server, nothing
    on the page): say so, and what the limit is."""
    ctx = get_script_run_ctx()
    raw = getattr(ctx, "query_string", "") or ""
    fields = raw.count("&") + 1 if raw else 0
    if len(raw) > CLIENT_STATE_QUERY_STRING_MAX_LENGTH:
        size = f"{len(raw):,} characters, over the {CLIENT_STATE_QUERY_STRING_MAX_LENGTH:,}"
    elif fields > CLIENT_STATE_QUERY_STRING_MAX_FIELDS:
        size = f"{fields:,} parameters, over the {CLIENT_STATE_QUERY_STRING_MAX_FIELDS:,}"
    else:
        return []
    return [f"the whole link ({size} a link may hold) ignored: every setting is its default"]


def publish() -> None:
    """Session state -> URL: every parameter whose value differs from its default."""
    st.session_state[RENAMES] = {
        key.removeprefix(RUN_NAME): value.strip() for key, value in st.session_state.items()
        if isinstance(key, str) and key.startswith(RUN_NAME) and (value or "").strip()}
    # the files uploaded now, or (until they are) the ones the link named
    uploading = st.session_state.get(SOURCE_KEY) == UPLOAD
    state = st.session_state
    state[LINK_FILES] = (uploaded_names() or state.get(LINK_FILES, [])) if uploading else []
    for key, upload in ((LINK_QUERIES, QUERIES_KEY), (LINK_CORPUS, CORPUS_KEY)):
        given = state.get(upload)
        state[key] = ((given.name if given is not None else state.get(key)) if uploading
                      else None)
    shown = st.session_state.get(RUNS) or [None]
    first = display_names(shown[:1]).get(shown[0], shown[0]) if shown[0] else None
    default = defaults() | {RUNS: list(st.session_state.get(RUN_OPTIONS, ())),
                            BASELINE: first, RENAMES: {}, LINK_FILES: [],
                            LINK_QUERIES: None, LINK_CORPUS: None}
    params: dict[str, str | list[str]] = {}
    for name, param in PARAMS.items():
        value = st.session_state.get(param.key)
        if value is None or value == default.get(param.key):
            continue
        if name == "baseline" and str(value).startswith(SNAPSHOT_BASELINE):
            continue  # a snapshot lives in this session only
        if name == "slide" and not st.session_state.get(PRESENT):
            continue  # a slide's number means something only in the presentation
        params[name] = param.dump(value)
    if params != {name: _current(name) for name in st.query_params}:
        st.query_params.from_dict(params)


def _current(name: str) -> str | list[str]:
    values = st.query_params.get_all(name)
    return values if name in MULTIPLE else values[-1]


def uploaded_names() -> list[str]:
    """The names of the files uploaded now, the qrels first (empty on the sample)."""
    if st.session_state.get(SOURCE_KEY) != UPLOAD:
        return []
    qrels = st.session_state.get(QRELS_KEY)
    runs = st.session_state.get(RUNS_KEY) or []
    # an upload the server no longer holds (a tab that outlived its session) is a DeletedFile
    return [f.name for f in ([qrels] if qrels else []) + list(runs)
            if not isinstance(f, DeletedFile)]


def linked_files() -> list[str]:
    """The qrels and runs a link was made with, when this session has not uploaded them yet."""
    return [] if uploaded_names() else list(st.session_state.get(LINK_FILES) or [])


# the sidebar's upload boxes a link's files go back into, by their session keys
BOXES = {LINK_QUERIES: (QUERIES_KEY, "Queries"), LINK_CORPUS: (CORPUS_KEY, "Corpus")}


def linked_texts() -> dict[str, str]:
    """The queries and corpus files a link was made with and this session has not uploaded
    yet: box title -> file name."""
    state = st.session_state
    if state.get(SOURCE_KEY) != UPLOAD:
        return {}
    return {title: state[key] for key, (upload, title) in BOXES.items()
            if state.get(key) and state.get(upload) is None}


def check_link_baseline(view: View | None) -> None:
    """A link's baseline= that names no run shown is said once, and the first run shown
    takes its place."""
    wanted = st.session_state.pop(LINK_BASELINE, None)
    if view is None or wanted is None or wanted in view.evaluation.run_names:
        return
    report_url_problem(f"baseline={shorten(str(wanted))!r} ignored: no run shown is named so; "
                       f"the first run shown, {view.baseline!r}, is the baseline")
    st.session_state[BASELINE] = view.baseline


def page_fragment(draw: Callable[..., None]) -> Callable[..., None]:
    """st.fragment for a part of a page: its own controls rerun it alone, not app.py. A
    fragment's rerun skips app.py, so it first runs the whole app when a callback asked for
    it (one that changed what the sidebar draws) and keeps the link on what is chosen."""
    @st.fragment
    @functools.wraps(draw)  # the fragment's identity is the page's function, not this one
    def drawn(*args, **kwargs) -> None:  # a fragment's rerun calls it with the same arguments
        if st.session_state.pop(APP_RERUN, False):
            st.rerun()
        publish()
        draw(*args, **kwargs)
    return drawn
