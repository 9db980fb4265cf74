"""Session state: the widget keys ("area.widget") and their defaults, what a widget shows
and keeps across the runs that do not draw it, the choices made valid against the data (the
runs and their names, the baseline, the Compare page's options, the facet and the filter,
the headline metric), the grades given by hand, and where the sidebar leaves this run's view
and inputs for the pages. The URL that reproduces it is link.py's."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

import metrics
from dashboard import safe
from dashboard.data import progress
from dashboard.data.cache import SAMPLE, CompareOptions, Snapshot, View
from metrics import (
    COMPARED,
    CONVENTION_BY_FIELD,
    CONVENTIONS,
    SAMPLE_K,
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
SUBTOPICS_KEY = "load.subtopics"  # the subtopic qrels the diversity measures read
TIMINGS_KEY = "load.timings"  # each query's latency (cost, tokens) per run
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
NEXT_K_STEPS = "ahead.steps"  # what this run's page reads at a K, decided ahead at the next K
MOVED_ON = "ahead.moved_on"  # whether a later run has started (new_run)
PAIRS_TEST = "compare.pairs_test"  # how every pair is tested: "paired" or "tukey"
MIN_EFFECT = "compare.min_effect"  # the smallest difference that matters (None: none)
DELTA = "compare.delta"  # a difference worth detecting: the queries it needs (None: not asked)
HARM_DELTA = "compare.harm_delta"  # a query is harmed when it loses more than this
RISK_ALPHA = "compare.risk_alpha"  # the risk aversion whose URisk and TRisk are shown
FRAGILITY = "compare.fragility"  # the fragility check is shown
# the presentation mode (present=1): the sidebar and the controls hidden, the evaluation as
# full-width slides (app_pages/present.py); the slide shown, from 1 (slide=4 reopens the
# fourth), read only while presenting
PRESENT = "present.on"
SLIDE = "present.slide"
RBO_P = "overlap.p"  # the persistence of rank-biased overlap
FUSED = "runs.fused"  # the fusion recipes whose runs are added to the loaded ones
ADDING_FUSED = "fuse.adding"  # the action of adding a fused run, for its toast
MEASURES = "measures.added"  # the names of the figures every view shows beside the defaults
# standardised scores (the sidebar's Conventions): against what ("off", "runs", "file"), the
# scale ("z", "cdf") and the uploaded trec_eval -Z mean file
STANDARDISE = "standardise.source"
STANDARDISE_SCALE = "standardise.scale"
STANDARDS_KEY = "load.standards"
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
               ALL_PAIRS: False, PAIRS_TEST: metrics.vocabulary.tukey.DEFAULT_ALL_PAIRS_TEST,
               MIN_EFFECT: None, HARM_DELTA: metrics.HARM_DELTA,
               RISK_ALPHA: str(metrics.RISK_ALPHAS[0]), FRAGILITY: True,
               RBO_P: metrics.vocabulary.overlap.DEFAULT_PERSISTENCE, FUSED: [],
               MEASURES: [], PRESENT: False, SLIDE: 1,
               STANDARDISE: metrics.vocabulary.conventions.STANDARDISE_OFF,
               STANDARDISE_SCALE: metrics.vocabulary.conventions.STANDARDISE_SCALES[0]}
    values[FACET] = st.session_state.get(FACET_FIRST)  # the first facet stays out of the URL
    return values


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


def report_url_problem(problem: str) -> None:
    """A link value that could not be used, shown with the others in the sidebar."""
    st.session_state[URL_PROBLEMS] = [*url_problems(), shorten(problem, PROBLEM_CHARS)]


def listed(values: Sequence[object], *, quoted: bool = True, limit: int = LISTED) -> str:
    """Values from a link for a message: the first few, each shortened (and quoted), then how
    many more (a link can name thousands)."""
    first = [shorten(str(v), 40) for v in values[:limit]]
    return metrics.format.listing([repr(v) if quoted else v for v in first]
                                  + list(values[limit:]), limit=limit)


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
    # said at once: fusing, aligning and scoring the new run, then the page, take seconds
    name = safe.md(metrics.vocabulary.fusion.fused_name(
        made["method"], made["norm"], made["runs"], k=made["k"], weights=made["weights"]))
    progress.announce(ADDING_FUSED, f"Adding the fused run {name}",
                      f"Added the fused run {name}", whole_run=True)


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
                          float(state[ALPHA]), snapshot, state.get(MIN_EFFECT))


def at_next_ks(step) -> None:
    """What the page drawn reads at a K (`step`, given the view at another K), decided ahead
    at the K either side of this one after the page (sidebar.decide_next_ks)."""
    st.session_state.setdefault(NEXT_K_STEPS, []).append(step)


# each session's script runs started (viewer -> count): a step decided ahead on a thread
# reads it to see that the reader has moved on, with no session state (it has none there)
_RUNS_STARTED: dict[str, int] = {}


def new_run() -> None:
    """A script run starts: the page about to be drawn says again what it reads at a K
    (at_next_ks), and the steps decided ahead after it can tell when a later run of this
    session has started (moved_on)."""
    me = viewer()
    started = _RUNS_STARTED[me] = _RUNS_STARTED.get(me, 0) + 1
    st.session_state[NEXT_K_STEPS] = []
    st.session_state[MOVED_ON] = lambda: _RUNS_STARTED.get(me) != started


def moved_on() -> Callable[[], bool]:
    """Whether a run of this session has started since this one (new_run): asked from any
    thread."""
    return st.session_state.get(MOVED_ON, lambda: False)


def next_k_steps() -> list:
    """The steps this run's page asked to be decided at the next K (at_next_ks)."""
    return st.session_state.get(NEXT_K_STEPS, [])


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
