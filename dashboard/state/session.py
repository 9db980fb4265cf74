"""Session state and the URL: widget keys ("area.widget"), defaults, and the sync with
st.query_params that lets a link reproduce a view.

The URL holds the data source, K, every convention, the shown runs (in order), the selected
query and the comparison's correction and alpha, under the short names the vocabulary declares
(`?k=10&gain=exponential&runs=bm25&runs=baseline&query=q03`). It is read once per session,
before any widget exists, and rewritten at the top of every run (widget values are already in
session state by then) with the values that differ from their defaults. A value that does not
parse is ignored and reported, whatever went wrong with it (each parameter on its own: one bad
value never stops the others, nor the page); so is a query string Streamlit dropped whole for
its length.

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
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.state.common import user_key_from_element_id
from streamlit.runtime.state.query_params import (
    CLIENT_STATE_QUERY_STRING_MAX_FIELDS,
    CLIENT_STATE_QUERY_STRING_MAX_LENGTH,
)
from streamlit.runtime.uploaded_file_manager import DeletedFile, UploadedFile, UploadedFileRec

import metrics
from dashboard import safe
from dashboard.data import combine
from dashboard.data.cache import SAMPLE, SOURCES, UPLOAD, CompareOptions, Snapshot, View
from metrics import (
    COMPARED,
    CONVENTION_BY_FIELD,
    CONVENTIONS,
    CORRECTIONS,
    SAMPLE_K,
    SUMMARY_MEASURES,
    Conventions,
)


def _sharing_copy(file: UploadedFile, memo: dict) -> UploadedFile:
    """An uploaded file's deep copy that shares its bytes (they are immutable) instead of
    copying them. Streamlit deep-copies every widget's value on every run, so that a script
    cannot change it in place; for the file inputs that copied every uploaded byte (30 MB
    for four runs of 2,000 queries) on every click, a third of a rerun's script time. The
    copy is still a file object of its own (its own read position), as Streamlit's is."""
    copy = UploadedFile(UploadedFileRec(file.file_id, file.name, file.type, file.getvalue()),
                        file._file_urls)
    copy.seek(file.tell())
    return copy


UploadedFile.__deepcopy__ = _sharing_copy

COMPARISONS = metrics.vocabulary.comparisons  # the comparison's declared defaults
SOURCE_KEY = "load.source"
QRELS_KEY = "load.qrels"
RUNS_KEY = "load.runs"
QUERIES_KEY = "load.queries"
CORPUS_KEY = "load.corpus"
JUDGE_KEY = "load.judge"  # the model judge's qrels, beside the human ones
LABELS_SET = "labels.set"  # "human" or "judge": which labels every page scores against
PPI_LAMBDA = "judge.lambda"  # "tuned" (PPI++) or "1" (plain PPI)
FACET = "overview.facet"  # the facet the Overview slices by
FACET_FIRST = "overview.facet_first"  # the data's first facet: the facet's default
WHERE = "filter.facet"  # the facet a filter reads (None: every query)
WHERE_VALUES = "filter.values"  # the bins of it the filter keeps
SNAPSHOT_FILES_KEY = "snapshots.files"
SNAPSHOT_LABEL_KEY = "snapshots.label"
READY = "state.ready"
QUERY = "state.query"
TOKENS = "cost.tokens"  # mean tokens a chunk, as the user gives it (None: the corpus's)
PRICE = "cost.price"  # dollars a million input tokens (None: tokens only)
SEARCH = "state.search"  # the words a query search holds, shared by the pages that search
VIEW = "state.view"
VIEWER = "state.viewer"  # this session's id for the server's store (the files it shows)
ASKED = "state.asked"  # this script run's choices, read once (dashboard/state/asked.py)
URL_PROBLEMS = "state.url_problems"
LINK_BASELINE = "state.link_baseline"  # the link's baseline=, until checked against the runs
UPLOADS_LOST = "state.uploads_lost"  # files a tab had uploaded to a session that is gone
PROBLEM_CHARS = 300  # the longest message a link's value gets
LISTED = 3  # values of a link a message names (each cut at 40 characters)
KEPT = "kept."  # + a widget's key: its last drawn value
INPUTS = "state.inputs"
RENAMES = "state.renames"  # original run name -> name shown, as the URL carries them
LINK_FILES = "state.link_files"  # the uploaded files' names, as the URL carries them
LINK_QUERIES = "state.link_queries"  # the uploaded queries file's name, as the URL carries it
LINK_CORPUS = "state.link_corpus"  # the uploaded corpus file's name
OPEN = "open"  # a link's request: select this query on arrival (not kept in the URL)
PAIR = "pair"  # with it, the two runs to set side by side (not kept in the URL either)
REVEAL = "state.reveal"  # the query a link opened: a filter hiding it is cleared, once
NOTES = "state.notes"  # what a change of view cleared, said once at the top of the page
ARRIVED = "state.arrived"  # a link was followed: its page opens at its top
SIDE_A = "drilldown.a"  # the drill-down's two runs side by side
SIDE_B = "drilldown.b"
K = "settings.k"
RUNS = "runs.shown"
RUN_OPTIONS = "runs.options"
RUN_NAME = "runs.name."  # + the run's original name
SNAPSHOTS = "state.snapshots"
BASELINE = "compare.baseline"
FUSE_REFUSED = "fuse.refused"  # why the recipe last added was refused: said once, in the sidebar
APP_RERUN = "state.app_rerun"  # a fragment's callback changed the sidebar: rerun the app
CANDIDATES = "compare.candidates"
METRICS = "compare.metrics"
CORRECTION = "compare.correction"
ALPHA = "compare.alpha"
MARK_BEST = "overview.mark_best"  # the summary marks each metric's best run
PRIMARY = "compare.primary"  # the headline's metric, a measure key
ALL_PAIRS = "compare.all_pairs"  # every pair of runs compared on the headline metric
DELTA = "compare.delta"  # a difference worth detecting: the queries it needs (None: not asked)
HARM_DELTA = "compare.harm_delta"  # a query is harmed when it loses more than this
RISK_ALPHA = "compare.risk_alpha"  # the risk aversion whose URisk and TRisk are shown
FRAGILITY = "compare.fragility"  # the fragility check is shown
RBO_P = "overlap.p"  # the persistence of rank-biased overlap
FUSED = "runs.fused"  # the fusion recipes whose runs are added to the loaded ones
MEASURES = "measures.added"  # the names of the figures every view shows beside the defaults
LABELS = "labels.grades"  # qrels file key -> {(query, doc): grade} given in this session
SNAPSHOT_BASELINE = "snapshot|"  # + snapshot key + "|" + run name: a snapshot run as baseline

# convention field -> {value: label}, in the engine's order (its first value is the default)
CHOICES = {c.field: {ch.value: ch.label for ch in c.choices}
           for c in CONVENTIONS if c.choices and c.in_sidebar}
NUMBERS = tuple(c.field for c in CONVENTIONS if not c.choices and c.in_sidebar)
CONFIDENCE = CONVENTION_BY_FIELD["confidence_level"].bounds
LEVELS = CONVENTION_BY_FIELD["relevance_level"].bounds
ALPHA_RANGE = COMPARISONS.ALPHA_RANGE


def settings_key(field: str) -> str:
    return f"settings.{field}"


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
    it)."""
    metrics.parse_measure(value)
    return value


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
}
MULTIPLE = {"runs", "names", "files", "is", "fuse", "m"}  # they repeat: ?runs=a&runs=b


def default_k(source: str) -> int:
    return SAMPLE_K if source == SAMPLE else metrics.DEFAULT_K


def defaults() -> dict[str, object]:
    """Session-state key -> default value (K follows the data source)."""
    values: dict[str, object] = {SOURCE_KEY: SAMPLE}
    values[K] = default_k(st.session_state.get(SOURCE_KEY, SAMPLE))
    values |= {settings_key(f): CONVENTION_BY_FIELD[f].default for f in (*CHOICES, *NUMBERS)}
    values |= {CORRECTION: COMPARISONS.DEFAULT_CORRECTION, ALPHA: COMPARISONS.ALPHA,
               RENAMES: {}, LINK_FILES: [], LINK_QUERIES: None, LINK_CORPUS: None,
               WHERE: None,
               WHERE_VALUES: [], SEARCH: "", TOKENS: None, PRICE: None,
               PRIMARY: metrics.PRIMARY, MARK_BEST: False, DELTA: None,
               ALL_PAIRS: False, HARM_DELTA: metrics.HARM_DELTA,
               RISK_ALPHA: str(metrics.RISK_ALPHAS[0]), FRAGILITY: True,
               RBO_P: metrics.vocabulary.overlap.DEFAULT_PERSISTENCE, FUSED: [],
               MEASURES: []}
    values[FACET] = st.session_state.get(FACET_FIRST)  # the first facet stays out of the URL
    return values


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
    for key in (QRELS_KEY, RUNS_KEY, QUERIES_KEY, CORPUS_KEY, JUDGE_KEY):
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


def shown(key: str, fallback: object = None) -> object:
    """The value a widget shows now, to draw it with as its default too. The browser falls
    back to a widget's default whenever it re-creates one, and then sends that default as the
    widget's value (Streamlit 1.67: after "Open q05 in the drill-down" the sidebar's K came
    back as 1, its minimum, or its runs as none); with the shown value as the default, a
    re-created widget sends what it showed. (A file uploader takes no default: not covered.)
    Before the widget has a value here (a tab that outlived its session draws it from the
    tab's), its declared default, then `fallback`: never None where None is not a value."""
    if key in st.session_state:
        return st.session_state[key]
    return defaults().get(key, fallback)


def shown_index(key: str, options: Sequence[object]) -> int:
    """`shown` for a radio or a select box: the position of its value among its options."""
    value = shown(key)
    return list(options).index(value) if value in options else 0


def shown_among(key: str, options: Sequence[object]) -> list:
    """`shown` for a multiselect: its values that are among its options, in their order."""
    return [value for value in shown(key) or [] if value in options]


def keep(keys: Sequence[str]) -> None:
    """Remember the values the widgets drew this run (see init)."""
    for key in keys:
        st.session_state[KEPT + key] = st.session_state[key]


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


def report_url_problem(problem: str) -> None:
    """A link value that could not be used, shown with the others in the sidebar."""
    st.session_state[URL_PROBLEMS] = [*url_problems(), shorten(problem, PROBLEM_CHARS)]


def listed(values: Sequence[object], *, quoted: bool = True, limit: int = LISTED) -> str:
    """Values from a link for a message: the first few, each shortened (and quoted), then how
    many more (a link can name thousands)."""
    first = [shorten(str(v), 40) for v in values[:limit]]
    return metrics.format.listing([repr(v) if quoted else v for v in first]
                                  + list(values[limit:]), limit=limit)


def check_link_baseline(view: View | None) -> None:
    """A link's baseline= that names no run shown is said once, and the first run shown
    takes its place."""
    wanted = st.session_state.pop(LINK_BASELINE, None)
    if view is None or wanted is None or wanted in view.evaluation.run_names:
        return
    report_url_problem(f"baseline={shorten(str(wanted))!r} ignored: no run shown is named so; "
                       f"the first run shown, {view.baseline!r}, is the baseline")
    st.session_state[BASELINE] = view.baseline


def url_problems() -> list[str]:
    return st.session_state.get(URL_PROBLEMS, [])


def source_changed() -> None:
    """A new data source starts from its own default K and every run shown."""
    st.session_state[K] = default_k(st.session_state[SOURCE_KEY])
    st.session_state.pop(RUN_OPTIONS, None)
    st.session_state.pop(RUNS, None)  # the other source's runs: every new run is shown


def conventions() -> Conventions:
    """The conventions the sidebar holds now (before its widgets are drawn this run: the
    files are read under the run order and score precision they name)."""
    values = {field: st.session_state.get(settings_key(field), CONVENTION_BY_FIELD[field].default)
              for field in (*CHOICES, *NUMBERS)}
    try:
        return Conventions(**values)
    except ValueError:  # a stale value: the widgets put the defaults back when drawn
        return Conventions()


def display_names(loaded: Sequence[str]) -> dict[str, str]:
    """original -> display name; an empty rename keeps the original name, and so does one
    the engine refuses (`rename_problems` says why)."""
    return _renamed(loaded)[0]


def rename_problems(loaded: Sequence[str]) -> list[str]:
    """Why each refused rename was refused: it holds hidden characters, or it looks like
    another run's name (metrics.rename_refusal: names compared as they look)."""
    return _renamed(loaded)[1]


def _renamed(loaded: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    names: dict[str, str] = {}
    problems = []
    for name in loaded:
        wanted = (st.session_state.get(RUN_NAME + name) or "").strip() or name
        if wanted != name:
            others = [other for other in loaded if other != name] + list(names.values())
            refusal = metrics.rename_refusal(name, wanted, others)
            if refusal:
                problems.append(refusal)
                wanted = name
        names[name] = wanted
    return names, problems


def bounded(key: str, low: int, high: int, default: int) -> None:
    """Keep a number input's stored value within bounds that depend on the data (a widget
    whose value falls outside its bounds raises), before the widget is drawn."""
    value = st.session_state.get(key, default)
    st.session_state[key] = min(max(value, low), high)


def viewer() -> str:
    """This session's id for the server's store: the files it shows are kept for it."""
    return st.session_state.setdefault(VIEWER, uuid.uuid4().hex)


def set_view(view) -> None:
    st.session_state[VIEW] = view


def set_inputs(inputs) -> None:
    st.session_state[INPUTS] = inputs


def inputs():
    """What the sidebar loaded this run (files, errors), or None before it ran."""
    return st.session_state.get(INPUTS)


def view():
    return st.session_state.get(VIEW)


shorten = metrics.format.shortened


# --------------------------------------------------------------------------- snapshots


def set_snapshots(snapshots: list[Snapshot]) -> None:
    st.session_state[SNAPSHOTS] = snapshots


def snapshots() -> list[Snapshot]:
    """The snapshot files loaded in the sidebar that the engine could read."""
    return st.session_state.get(SNAPSHOTS, [])


def snapshot_settings(snapshot: metrics.Snapshot) -> tuple[dict[str, object], list[str]]:
    """The sidebar values (session key -> value) that score like the snapshot: its K and
    every convention a sidebar widget sets; and the conventions no widget sets that differ
    from the current ones (seed, resamples: the command line sets them)."""
    conventions = snapshot.conventions
    values: dict[str, object] = {K: snapshot.k}
    values |= {settings_key(f): getattr(conventions, f) for f in (*CHOICES, *NUMBERS)}
    fixed = [c.field for c in CONVENTIONS if not c.in_sidebar
             and getattr(conventions, c.field) != c.default]
    return values, fixed


def settings_changes(values: dict[str, object]) -> list[str]:
    """What the sidebar would change to reach `values`: "K: 10 now, 5 in the snapshot"."""
    titles = {K: "K"} | {settings_key(c.field): c.title for c in CONVENTIONS}
    changes = []
    for key, wanted in values.items():
        current = st.session_state.get(key)
        if current != wanted:
            field = key.removeprefix("settings.")
            labels = CHOICES.get(field, {})
            changes.append(f"{titles[key]}: {labels.get(wanted, wanted)} in the snapshot, "
                           f"{labels.get(current, current)} now")
    return changes


def apply_settings(values: dict[str, object]) -> None:
    """A button's callback: set the sidebar to `values` before its widgets are drawn."""
    for key, value in values.items():
        st.session_state[key] = value


# --------------------------------------------------------------------------- comparison


def snapshot_baseline(snapshot: Snapshot, run: str) -> str:
    return f"{SNAPSHOT_BASELINE}{snapshot.key}|{run}"


def baseline_options(view: View, loaded: list[Snapshot]) -> dict[str, str]:
    """Baseline choices -> their names: the shown runs, then every run of each snapshot."""
    options = {name: name for name in view.evaluation.run_names}
    for snapshot in loaded:
        for run in snapshot.run_names:
            options[snapshot_baseline(snapshot, run)] = f"{run} · snapshot {snapshot.title}"
    return options


def add_fused(recipe: dict, *, whole_app: bool = False) -> None:
    """An Add button's callback: the recipe joins the session's fused runs before the run
    the click starts, which fuses it and writes it into the link (a second run, started
    from inside the first, showed the fusion's progress later). `whole_app` for a button
    inside a fragment, whose rerun would leave the sidebar without the new run. A recipe the
    engine refuses is kept for the sidebar to say, once."""
    if whole_app:
        st.session_state[APP_RERUN] = True
    try:
        made = metrics.recipe_from(recipe)
    except ValueError as error:  # the engine's bounds, whatever the widget allowed
        st.session_state[FUSE_REFUSED] = str(error)
        return
    if made not in st.session_state[FUSED]:
        st.session_state[FUSED] = [*st.session_state[FUSED], made]


def baseline_changed() -> None:
    """A new baseline starts from every other run as a candidate; a live run chosen as the
    baseline becomes the first run shown, so that every page reads the same baseline. The
    control is in Compare's fragment, whose rerun would leave the sidebar's runs in their old
    order: the fragment reruns the whole app (page_fragment)."""
    st.session_state[APP_RERUN] = True
    st.session_state.pop(CANDIDATES, None)
    chosen = st.session_state.get(BASELINE)
    if chosen is None or str(chosen).startswith(SNAPSHOT_BASELINE):
        return
    put_first(chosen)


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


def put_first(display: str) -> None:
    """The run shown under `display` first among the shown runs (before the sidebar draws
    its widgets): the baseline of every page."""
    shown = list(st.session_state.get(RUNS) or [])
    names = display_names(list(st.session_state.get(RUN_OPTIONS) or shown))
    original = next((o for o in shown if names.get(o, o) == display), None)
    if original is not None and shown[0] != original:
        st.session_state[RUNS] = [original] + [o for o in shown if o != original]


def runs_changed() -> None:
    """The sidebar's runs reordered or changed: the first shown is the baseline everywhere."""
    shown = st.session_state.get(RUNS) or []
    if shown and not str(st.session_state.get(BASELINE, "")).startswith(SNAPSHOT_BASELINE):
        names = display_names(list(st.session_state.get(RUN_OPTIONS) or shown))
        first = names.get(shown[0], shown[0])
        if st.session_state.get(BASELINE) != first:
            st.session_state[BASELINE] = first
            st.session_state.pop(CANDIDATES, None)


def compare_options(view: View, loaded: list[Snapshot]) -> CompareOptions:
    """The Compare page's choices from session state, made valid for the runs and snapshots
    loaded now (the page calls it before drawing its widgets; other pages, the Export page,
    read the same choices). Defaults: the first shown run against every other one, the
    engine's default metrics, Holm at alpha 0.05. A live baseline is always the first run
    shown (choosing another one on Compare puts it first in the sidebar): one baseline on
    every page."""
    state = st.session_state
    options = baseline_options(view, loaded)
    live = state.get(BASELINE) in view.evaluation.run_names
    if state.get(BASELINE) not in options or (live and state[BASELINE] != view.baseline):
        # a live baseline is the first run shown, always; a link's unknown baseline was said
        # by the sidebar
        state[BASELINE] = view.baseline
    baseline = state[BASELINE]
    snapshot = None
    if baseline.startswith(SNAPSHOT_BASELINE):
        snapshot, baseline = baseline.removeprefix(SNAPSHOT_BASELINE).split("|", 1)
    names = view.evaluation.run_names
    others = names if snapshot else [n for n in names if n != baseline]
    stored, seen = state.get(CANDIDATES), state.get("compare.seen", others)
    # a run shown since (a new file, a fused run) joins the candidates the user kept
    candidates = [c for c in stored or [] if c in others] + [n for n in others if n not in seen]
    if stored is None or (stored and not candidates):
        candidates = others
    state[CANDIDATES], state["compare.seen"] = candidates, others
    keys = [s.key for s in view.evaluation.summary_specs]
    stored = state.get(METRICS)
    metrics = [m for m in keys if m in stored] if stored is not None else list(COMPARED)
    state[METRICS] = metrics
    return CompareOptions(baseline, tuple(candidates), tuple(metrics), state[CORRECTION],
                          float(state[ALPHA]), snapshot)


def choose_facet(facets: list[str]) -> None:
    """The Overview's facet among the data's (the file's own first by default, FACET_FIRST);
    a link's facet the data lack is named in a warning, not silently dropped."""
    wanted = st.session_state.get(FACET)
    if wanted is not None and wanted not in facets:
        st.warning(f"facet={safe.md(repr(shorten(str(wanted))))} ignored: these queries have no "
                   f"such facet (they have {safe.md(', '.join(facets))}); the default is used.",
                   icon=":material/link_off:")
    first = st.session_state.get(FACET_FIRST)
    choose(FACET, facets, first if first in facets else facets[0])


def filter_facet_changed() -> None:
    """Another facet: the values picked for the last one do not apply to it."""
    st.session_state[WHERE_VALUES] = []


def headline_metric(evaluation) -> tuple[str, dict[str, str]]:
    """The headline metric (a measure key, kept among the compared measures, default the
    engine's PRIMARY) and every choice's label at the evaluation's K and conventions: what
    the Overview reads and Compare draws a picker for."""
    labels = {key: evaluation.label(key) for key in COMPARED}
    choose(PRIMARY, list(labels), metrics.PRIMARY)
    relabelled(PRIMARY)
    return st.session_state[PRIMARY], labels


def query_filter(facets: dict[str, Sequence[str]]) -> None:
    """Keep the filter among the data's facets and their bins (they change with the data),
    before its widgets are drawn; a link's facet or value the data lack is named in a
    warning, not silently dropped."""
    state = st.session_state
    facet, values = state.get(WHERE), list(state.get(WHERE_VALUES) or [])
    if facet is None and values:
        report_url_problem(f"is={listed(values)} ignored: no facet named by where=")
        state[WHERE_VALUES] = []
    if facet is not None and facet not in facets:
        report_url_problem(f"where={shorten(str(facet))!r} ignored: these queries have no "
                           "such facet; every query is shown")
        state[WHERE], state[WHERE_VALUES] = None, []
        return
    if facet is not None:
        kept = [value for value in values if value in facets[facet]]
        if len(kept) < len(values):
            dropped = listed([v for v in values if v not in kept])
            report_url_problem(f"is={dropped} ignored: not a value of {shorten(facet)!r}")
        state[WHERE_VALUES] = kept


def relabelled(key: str) -> None:
    """Before a keyed choice widget whose options keep their values but not their labels (a
    measure's label carries K) is drawn: its stored value set again, so that Streamlit sends
    it with its label of now. Its browser side keeps the label it showed as the value, and
    went on showing "nDCG@9" at K = 10 beside the figures at 10."""
    if key in st.session_state:
        st.session_state[key] = st.session_state[key]


def choose(key: str, options: Sequence, default) -> None:
    """Keep a choice widget's stored value among its options (they change with the data),
    before the widget is drawn: an unknown value falls back to `default`."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default


# --------------------------------------------------------------------------- labels


def my_labels(qrels_key: str) -> dict[tuple[str, str], int]:
    """The grades given in this session for the qrels file `qrels_key` (query, doc) -> grade,
    in the order given; the loaded file is never changed by them."""
    return dict(st.session_state.get(LABELS, {}).get(qrels_key, {}))


def set_label(qrels_key: str, query: str, doc: str, grade: int | None) -> None:
    """Give (or, with None, take back) a grade for an unjudged id of a query."""
    every = dict(st.session_state.get(LABELS, {}))
    mine = dict(every.get(qrels_key, {}))
    mine.pop((query, doc), None)
    if grade is not None:
        mine[(query, doc)] = int(grade)
    every[qrels_key] = mine
    st.session_state[LABELS] = every


def clear_labels(qrels_key: str) -> None:
    every = dict(st.session_state.get(LABELS, {}))
    every.pop(qrels_key, None)
    st.session_state[LABELS] = every
