"""The sidebar: the data (sample or uploads), which runs are shown and how they are named, K
and every convention (widgets, labels and help from the engine's vocabulary), and snapshots.
`draw()` is the whole sidebar, in order; app.py calls it on every run.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace

import streamlit as st

import metrics
from dashboard import safe
from dashboard.data import cache, combine, decisions, progress, slicing, texts
from dashboard.data.cache import Inputs, Parsed, Snapshot, View
from dashboard.report import exports
from dashboard.state import link, opening, session
from metrics import CONVENTION_BY_FIELD, SAMPLE_DIR, Conventions

CORPUS_SLOT = "corpus"  # where the corpus's load report goes, once the view says which ids
HELP = metrics.vocabulary.columns.CONTROL_HELP
# the catalogue's names, then the summaries that are not means (gm_map)
OFFERED_MEASURES = (*metrics.OFFERED_NAMES, *(s.key for s in metrics.GEOMETRIC_SUMMARIES))


def draw() -> View | None:
    """Every section of the sidebar; the view every page then draws from."""
    session.new_run()
    with st.sidebar:
        # the presentation mode hides this sidebar; its slides have a button back
        st.toggle("Present as slides", key=session.PRESENT, help=HELP["present"])
        loaded, summaries = inputs()
        labels = _labels(loaded)
        loaded = loaded.under(labels)
        loaded = fuse_runs(loaded) if loaded.ready else loaded
        shown, names = choose_runs(loaded.run_names) if loaded.ready else ([], {})
        st.divider()
        k, conventions = settings()
        conventions = replace(conventions, labels=labels)
        added = more_measures(k, conventions, subtopics=loaded.has_subtopics)
        how = standardising()
    view = _built(loaded, shown, names, k, conventions, added, how)
    _show_corpus(loaded, view, summaries.get(CORPUS_SLOT))
    link.check_link_baseline(view)
    with st.sidebar:
        view = query_filter(view) if view is not None else None
        for problem in session.url_problems():
            st.warning(f"Link parameter {safe.md(problem)}", icon=":material/link_off:")
    session.set_view(view)
    session.set_inputs(loaded)
    _summarise_runs(loaded, names, view, summaries)
    with st.sidebar:
        session.set_snapshots(snapshots(view))
    return view


def _built(loaded: Inputs, shown: Sequence[str], names: dict[str, str], k: int,
           conventions: Conventions, added: tuple[str, ...],
           how: cache.Standardising | None) -> View | None:
    """The view, standardised when the sidebar asks; when its figures cannot be (one run
    loaded), the raw view and the reason, in the sidebar."""
    if how is None:
        return cache.build_view(loaded, shown, names, k, conventions, added)
    try:
        return cache.build_view(loaded, shown, names, k, conventions, added, how)
    except ValueError as error:
        st.sidebar.warning(safe.md(f"Not standardised: {error}"), icon=":material/warning:")
        return cache.build_view(loaded, shown, names, k, conventions, added)


def standardising() -> cache.Standardising | None:
    """The standardised scores the sidebar's Conventions ask for (drawn there by
    `_standardise_controls`), with the uploaded mean file read; None for the raw figures or
    while the mean file is missing or unreadable (said in the sidebar)."""
    words = metrics.vocabulary.conventions
    state = st.session_state
    source = state.get(session.STANDARDISE, words.STANDARDISE_OFF)
    scale = state.get(session.STANDARDISE_SCALE, words.STANDARDISE_SCALES[0])
    if source == words.STANDARDISE_RUNS:
        return cache.Standardising(source, scale)
    if source != words.STANDARDISE_FILE:
        return None
    uploaded = state.get(session.STANDARDS_KEY)
    if uploaded is None:
        st.info(safe.md(words.STANDARDISE_NEEDS_FILE), icon=":material/upload:")
        return None
    key = f"upload:{uploaded.file_id}"
    parsed = cache.read_standards(uploaded.name, key, uploaded.getvalue())
    if parsed.error:
        st.error(safe.md(parsed.error), icon=":material/error:")
        return None
    return cache.Standardising(source, scale, parsed.value, key)


def _standardise_controls() -> None:
    """The standardised scores' choices, at the end of the Conventions: against what, on
    which scale, and the mean file when one is asked for."""
    words = metrics.vocabulary.conventions
    choices = list(words.STANDARDISE_CHOICES)
    st.radio(words.STANDARDISE_TITLE, choices,
             index=session.shown_index(session.STANDARDISE, choices),
             format_func=words.STANDARDISE_CHOICES.get, key=session.STANDARDISE,
             help=words.STANDARDISE_CONTROL_HELP)
    if st.session_state.get(session.STANDARDISE) == words.STANDARDISE_OFF:
        session.keep([session.STANDARDISE])
        return
    scales = list(words.STANDARDISE_SCALE_LABELS)
    st.radio("Scale", scales, index=session.shown_index(session.STANDARDISE_SCALE, scales),
             format_func=words.STANDARDISE_SCALE_LABELS.get, key=session.STANDARDISE_SCALE,
             horizontal=True, help=words.STANDARDISE_SCALE_HELP_DASHBOARD)
    if st.session_state.get(session.STANDARDISE) == words.STANDARDISE_FILE:
        st.file_uploader("trec_eval -Z mean file", key=session.STANDARDS_KEY,
                         help=words.STANDARDISE_HELP)
    session.keep([session.STANDARDISE, session.STANDARDISE_SCALE])


def decide_next_ks() -> None:
    """After the page: what it reads at a K (session.at_next_ks) decided ahead at the K either
    side of this one (decisions.next_ks), under the runs and conventions chosen now. Not under
    a filter on the queries: the sidebar cuts that view afresh."""
    view, loaded = session.view(), session.inputs()
    if view is None or loaded is None or view.whole is not None:
        return
    decisions.next_ks(view, loaded, session.next_k_steps(), moved_on=session.moved_on())


def _show_parsed(parsed: Parsed | None) -> None:
    if parsed is None:
        return
    if parsed.error:
        st.error(safe.md(parsed.error), icon=":material/error:")
    else:
        st.caption(safe.md(parsed.report.summary()))


def _summarise_runs(loaded: Inputs, names: dict[str, str], view: View | None,
                    summaries: dict[str, object]) -> None:
    """Each run file's line counts as the load report on the Overview states them: once
    scored, the lines whose query is not in the qrels count as dropped, here too."""
    scored = {} if view is None else {r.name: r.report for r in view.evaluation.runs}
    for name, parsed in zip(loaded.run_names, loaded.usable_runs, strict=True):
        if parsed.key not in summaries:  # a fused run: no file, its recipe is its report
            continue
        report = scored.get(names.get(name, name)) or parsed.report
        hidden = "" if names.get(name, name) in scored else " (not shown)"
        summaries[parsed.key].caption(safe.md(report.summary() + hidden))


def _show_queries(inputs: Inputs) -> None:
    """The queries file's error, or what it holds against the qrels (nothing dropped)."""
    parsed = inputs.queries
    if parsed is None:
        return
    if parsed.error:
        st.error(safe.md(parsed.error), icon=":material/error:")
    elif inputs.qrels is None or inputs.qrels.value is None:
        read = metrics.format.count(len(parsed.value), "query")
        st.caption(safe.md(f"{parsed.file_name}: {read} read; matched to the qrels once they "
                           "are loaded"))
    else:
        st.caption(safe.md(metrics.queries_report(parsed.value, inputs.qrels.value).summary()))


def _show_corpus(inputs: Inputs, view: View | None, slot) -> None:
    """In its slot below the queries file's: the corpus file's error, or what it held of
    the ids used (read once the labels and runs say which ids to keep)."""
    if inputs.corpus is None or slot is None:
        return
    read = texts.chunks(view) if view is not None else None
    if read is None:
        slot.caption(safe.md(f"{inputs.corpus.file_name}: read once the qrels and a run are "
                             "loaded"))
    elif read.error:
        slot.error(safe.md(read.error), icon=":material/error:")
    else:
        slot.caption(safe.md(read.report.summary()))


def inputs() -> tuple[Inputs, dict[str, object]]:
    """The sidebar's Data section: sample or uploads, each file's error, and a place for each
    run's load summary (filled once the runs are scored, see _summarise_runs)."""
    reading = session.conventions()
    source = st.radio(
        "Data",
        list(cache.SOURCES),
        index=session.shown_index(session.SOURCE_KEY, list(cache.SOURCES)),
        format_func=cache.SOURCES.get,
        key=session.SOURCE_KEY,
        horizontal=True,
        on_change=session.source_changed,
        help=HELP["source"],
    )
    if source == cache.SAMPLE:
        inputs = cache.read_sample(reading, viewer=session.viewer())
        st.caption(safe.md(f"{SAMPLE_DIR.name}/ of the repository: " + ", ".join(
            p.file_name for p in (inputs.qrels, *inputs.runs, inputs.queries, inputs.corpus)
            if p)))
        _show_queries(inputs)
        return inputs, {run.key: st.empty() for run in inputs.runs} | {CORPUS_SLOT: st.empty()}
    qrels_file = st.file_uploader(
        "Qrels (the labels)",
        key=session.QRELS_KEY,
        help=HELP["qrels_file"],
    )
    run_slot = st.container()
    run_files = st.file_uploader(
        "Runs (one file per retriever)",
        key=session.RUNS_KEY,
        accept_multiple_files=True,
        help=HELP["runs_file"],
    ) or []
    queries_file = st.file_uploader(
        "Queries (optional: texts and facets)",
        key=session.QUERIES_KEY,
        help=HELP["queries_file"],
    )
    corpus_file = st.file_uploader(
        "Corpus (optional: the chunks' texts)",
        key=session.CORPUS_KEY,
        help=HELP["corpus_file"],
    )
    judge_file = st.file_uploader(
        "Judge's qrels (optional: a model judge's labels)",
        key=session.JUDGE_KEY,
        help=HELP["judge_file"],
    )
    judge_slot = st.container()
    subtopics_file = st.file_uploader(
        "Subtopic qrels (optional: the diversity measures)",
        key=session.SUBTOPICS_KEY,
        help=HELP["subtopics_file"],
    )
    subtopics_slot = st.container()
    timings_file = st.file_uploader(
        "Timings (optional: latency, cost per query)",
        key=session.TIMINGS_KEY,
        help=HELP["timings_file"],
    )
    opening.uploader()  # an evaluation's saved figures: the next run draws their sidebar
    inputs = cache.read_uploads(qrels_file, run_files, reading, queries_file, corpus_file,
                                judge_file, subtopics_file, viewer=session.viewer(),
                                timings_file=timings_file)
    with judge_slot:
        _show_parsed(inputs.judge)
    with subtopics_slot:
        _show_parsed(inputs.subtopics)
    with run_slot:
        _show_parsed(inputs.qrels if qrels_file is not None else None)
    summaries = {}
    for parsed in inputs.runs:
        if parsed.error:
            _show_parsed(parsed)
        else:
            summaries[parsed.key] = st.empty()
    _show_queries(inputs)
    summaries[CORPUS_SLOT] = st.empty()
    if inputs.problem:
        st.error(safe.md(inputs.problem), icon=":material/error:")
    elif not run_files:
        st.info("Upload a qrels file and at least one run.", icon=":material/upload:")
    return inputs, summaries


def _labels(loaded: Inputs) -> str:
    """With a judge's labels loaded beside the human ones, which of them every page scores
    against (the labels convention's choices but 'ppi', which the Judge labels page shows)."""
    if not loaded.judged:
        return CONVENTION_BY_FIELD["labels"].default
    convention = CONVENTION_BY_FIELD["labels"]
    choices = {c.value: c.label for c in convention.choices if c.value != "ppi"}
    return st.radio(convention.title, list(choices), format_func=choices.get,
                    index=session.shown_index(session.LABELS_SET, list(choices)),
                    key=session.LABELS_SET, horizontal=True, help=HELP["labels"])


def query_filter(view: View) -> View:
    """The sidebar's filter: keep the queries whose value of one facet is among those
    picked, on every page (only with a queries file, whose facets it reads)."""
    facets = slicing.facets(view)
    if not facets:
        return view
    session.query_filter({name: facet.bins for name, facet in facets.items()})
    _reveal(view)
    facet = st.session_state.get(session.WHERE)
    with st.expander("Filter queries", icon=":material/filter_alt:", expanded=facet is not None):
        names = {None: "Every query"} | {name: name for name in facets}
        facet = st.selectbox("Only the queries whose", list(names), format_func=names.get,
                             index=session.shown_index(session.WHERE, list(names)),
                             key=session.WHERE, on_change=session.filter_facet_changed,
                             help=metrics.FACET_RULES["filter"])
        values: list[str] = []
        if facet is not None:
            counts = {label: f"{label} ({n:,})" for label, n
                      in zip(facets[facet].bins, facets[facet].counts, strict=True)}
            values = st.multiselect(f"{safe.label(facet)} is one of", list(counts),
                                    session.shown_among(session.WHERE_VALUES, list(counts)),
                                    key=session.WHERE_VALUES,
                                    format_func=counts.get, placeholder="Pick values")
            if not values:
                st.caption("Pick one value or more: until then every query is shown.")
    session.keep([session.WHERE, session.WHERE_VALUES])
    return slicing.filtered(view, facet, values) if facet is not None and values else view


def _reveal(view: View) -> None:
    """A filter that hides the query a link opened is cleared before it is drawn (the link
    names that query: it wins), and a note says so."""
    state = st.session_state
    opened, facet, values = link.revealed(), state.get(session.WHERE), state.get(
        session.WHERE_VALUES)
    if (opened not in view.evaluation.scored_ids or facet is None or not values
            or opened in slicing.filtered(view, facet, values).evaluation.scored_ids):
        return
    state[session.WHERE], state[session.WHERE_VALUES] = None, []
    link.say(f"The sidebar's filter ({facet} is one of {', '.join(values)}) was cleared: "
                f"it hid {opened}, which the link opened.")


def snapshots(view: View | None) -> list[Snapshot]:
    """The sidebar's Snapshots section: save the live figures, load earlier ones."""
    files = st.session_state.get(session.SNAPSHOT_FILES_KEY) or []
    with st.expander("Snapshots", icon=":material/history:", expanded=bool(files)):
        st.caption("A snapshot freezes every figure with its K, conventions and the "
                   "fingerprints of the labels and the runs. Load earlier ones to read drift "
                   "(Drift page) or to compare against (Compare page).")
        if view is not None:
            label = st.text_input("Label of the snapshot",
                                  session.shown(session.SNAPSHOT_LABEL_KEY, ""),
                                  key=session.SNAPSHOT_LABEL_KEY,
                                  placeholder="e.g. before the index rebuild")
            # a snapshot freezes every query, filter or not, and the raw figures
            evaluation = view.frozen
            st.download_button(
                "Save snapshot",
                data=lambda: exports.snapshot_json(evaluation, label.strip() or None),
                file_name=cache.snapshot_file_name(view),
                mime="application/json",
                key="snapshots.save",
                on_click="ignore",
                icon=":material/download:",
                help=HELP["save_snapshot"],
            )
        uploads = st.file_uploader(
            "Load snapshots",
            type=["json"],
            accept_multiple_files=True,
            key=session.SNAPSHOT_FILES_KEY,
            help=HELP["load_snapshots"],
        ) or []
        snapshots = cache.read_snapshots(uploads)
        for snapshot in snapshots:
            if snapshot.error:
                st.error(safe.md(snapshot.error), icon=":material/error:")
            else:
                st.caption(safe.md(snapshot.summary()))
    return [s for s in snapshots if s.data is not None]


def _help(field: str) -> str:
    """What switching a convention changes, and the sentence of each of its choices."""
    convention = CONVENTION_BY_FIELD[field]
    lines = [f"- **{choice.label}**: {choice.sentence}" for choice in convention.choices]
    return convention.changes + "\n\n" + "\n".join(lines)


def _number_help(field: str, conventions: Conventions) -> str:
    convention = CONVENTION_BY_FIELD[field]
    return convention.changes + "\n\n" + conventions.sentences()[convention.key]


def settings() -> tuple[int, Conventions]:
    """K, every convention and the confidence level, each saying what it changes."""
    k = st.number_input(
        "K (cutoff)",
        min_value=1,
        max_value=metrics.DASHBOARD_MAX_K,
        value=session.shown(session.K),
        step=1,
        key=session.K,
        help=metrics.K_MEANING,
    )
    with st.expander("Conventions", icon=":material/tune:"):
        chosen = {
            field: st.radio(CONVENTION_BY_FIELD[field].title, list(labels),
                            index=session.shown_index(session.settings_key(field), list(labels)),
                            format_func=labels.get, key=session.settings_key(field),
                            help=_help(field))
            for field, labels in session.CHOICES.items()
        }
        current = session.conventions()
        level = st.number_input(
            CONVENTION_BY_FIELD["relevance_level"].title,
            min_value=int(session.LEVELS[0]),
            max_value=int(session.LEVELS[1]),
            value=session.shown(session.settings_key("relevance_level")),
            step=1,
            key=session.settings_key("relevance_level"),
            help=_number_help("relevance_level", current),
        )
        confidence = st.number_input(
            CONVENTION_BY_FIELD["confidence_level"].title,
            min_value=session.CONFIDENCE[0],
            max_value=session.CONFIDENCE[1],
            value=session.shown(session.settings_key("confidence_level")),
            step=0.01,
            format=metrics.format.FIGURE_PATTERN,
            key=session.settings_key("confidence_level"),
            help=_number_help("confidence_level", current),
        )
        _standardise_controls()
    conventions = Conventions(**chosen, relevance_level=int(level),
                              confidence_level=float(confidence))
    session.keep([session.K, *(session.settings_key(f) for f in (*chosen, *session.NUMBERS))])
    return int(k), conventions


def more_measures(k: int, conventions: Conventions, *, subtopics: bool = False
                  ) -> tuple[str, ...]:
    """The sidebar's More measures: figures every view then shows beside the default ones,
    picked from the catalogue or typed in any name ir_measures or trec_eval reads (each
    checked by the engine; a bad one is named with the closest names, and left out). A
    diversity measure reads the subtopic qrels: without them (`subtopics`) it is named as
    waiting for them, and left out."""
    state = st.session_state
    # before the widget is drawn its value may be only an earlier tab's (a session that
    # outlived its server holds no value yet): read as none until the widget takes it
    chosen = state.get(session.MEASURES) or []
    offered = list(dict.fromkeys([*OFFERED_MEASURES, *chosen]))
    with st.expander("More measures", icon=":material/functions:", expanded=bool(chosen)):
        st.multiselect("Measures added to every view", offered, chosen, key=session.MEASURES,
                       format_func=functools.partial(_measure_label, k=k,
                                                     conventions=conventions),
                       accept_new_options=True, placeholder="Pick, or type a name",
                       help=HELP["more_measures"])
        kept = []
        for name in state[session.MEASURES]:
            if metrics.geometric_summary(name) is not None:  # gm_map: its own table
                kept.append(name)
                continue
            try:
                spec = metrics.parse_measure(name)
            except ValueError as error:
                st.error(safe.md(str(error)), icon=":material/error:")
                continue
            if spec.measure.subtopics and not subtopics:
                st.warning(safe.md(f"{name} reads the subtopic qrels (query_id subtopic_id "
                                   "doc_id grade): upload them in the sidebar's Subtopic qrels "
                                   "box"), icon=":material/upload:")
                continue
            kept.append(name)
    session.keep([session.MEASURES])
    return tuple(kept)


def _measure_label(name: str, *, k: int, conventions: Conventions) -> str:
    """A name as the views will label it at K under the conventions ('ERR' -> 'ERR@5',
    'recip_rank' -> 'MRR' while RR is read over the full list); a bad one as written."""
    if metrics.geometric_summary(name) is not None:
        return name
    try:
        return metrics.parse_measure(name).label(k, conventions)
    except ValueError:
        return name


def fuse_runs(loaded: Inputs) -> Inputs:
    """Fused runs: each recipe adds a derived run that every view then shows like
    any other, its recipe in its load report; the recipes live in the URL (fuse=)."""
    words = metrics.vocabulary.fusion
    files = [n for n, p in zip(loaded.run_names, loaded.usable_runs, strict=True)
             if not combine.is_fused(p)]
    names = session.display_names(files)
    with st.expander("Fuse runs (hybrid)", icon=":material/merge:"):
        chosen = st.multiselect("Runs to fuse", files, session.shown_among("fuse.runs", files),
                                format_func=names.get, key="fuse.runs",
                                help=HELP["fuse_runs"])
        method = st.radio("Method", list(words.METHODS), format_func=words.METHOD_NAMES.get,
                          index=session.shown_index("fuse.method", list(words.METHODS)),
                          key="fuse.method", horizontal=True, help=words.METHOD_HELP)
        recipe = {"method": method, "runs": chosen, "norm": words.DEFAULT_NORM,
                  "k": words.RRF_K, "weights": None}
        if method == words.RRF:
            recipe["k"] = st.number_input("k of 1/(k + rank)", min_value=0.0,
                                          max_value=float(words.MAX_RRF_K),
                                          value=session.shown("fuse.k", float(words.RRF_K)),
                                          step=10.0, format=metrics.format.PARAMETER_PATTERN,
                                          key="fuse.k", help=words.RRF_K_HELP)
        else:
            recipe["norm"] = st.selectbox("Normalise scores", list(words.NORMS),
                                          index=session.shown_index("fuse.norm",
                                                                    list(words.NORMS)),
                                          format_func=words.NORM_NAMES.get, key="fuse.norm",
                                          help=words.NORM_HELP)
        if method == words.COMBSUM and len(chosen) == 2 and st.toggle(
                "Weighted", session.shown("fuse.weighted", False), key="fuse.weighted",
                help=words.WEIGHTS_HELP):
            weight = st.slider(f"Weight of {safe.label(names[chosen[0]])}", 0.0, 1.0,
                               session.shown("fuse.weight", 0.5), 0.05,
                               key="fuse.weight", help=HELP["fuse_weight"])
            recipe["weights"] = [weight, round(1 - weight, 12)]
        st.button("Add the fused run", disabled=len(chosen) < 2, key="fuse.add",
                  on_click=session.add_fused, args=(recipe,))
        refused = st.session_state.pop(session.FUSE_REFUSED, None)
        if refused:
            st.error(safe.md(refused), icon=":material/error:")
        for i, made in enumerate(st.session_state[session.FUSED]):
            left, right = st.columns([3, 2], vertical_alignment="center")
            left.caption(safe.md(metrics.vocabulary.fusion.fused_name(
                made["method"], made["norm"], made["runs"], k=made["k"],
                weights=made["weights"])))
            # a worded button: an icon alone would be named "close" to a screen reader
            if right.button("Remove", icon=":material/close:", key=f"fuse.remove.{i}",
                            type="tertiary", help=HELP["fuse_remove"]):
                recipes = list(st.session_state[session.FUSED])
                del recipes[i]
                st.session_state[session.FUSED] = recipes
                st.rerun()
    fused, problems = combine.with_fused(loaded, st.session_state[session.FUSED])
    for problem in problems:
        st.warning(safe.md(problem), icon=":material/merge:")
    for parsed in fused.runs[len(loaded.runs):]:
        if parsed.error:
            st.error(safe.md(parsed.error), icon=":material/error:")
            progress.withdraw(session.ADDING_FUSED, "The fused run could not be made: see "
                              "the sidebar")
    return fused


def choose_runs(loaded: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    """Which runs are shown and in what order (the first is the baseline), and their names.

    Returns the shown runs' original names in display order and original -> display name.
    """
    loaded = list(loaded)
    if st.session_state.get(session.RUN_OPTIONS) != loaded or session.RUNS not in st.session_state:
        # first run of the session: keep the URL's choice where it names loaded runs;
        # new files (or a widget state Streamlit dropped): show every run
        first = session.RUN_OPTIONS not in st.session_state
        asked = st.session_state.get(session.RUNS, []) if first else []
        wanted = [n for n in asked if n in loaded]
        unknown = [n for n in asked if n not in loaded]
        if unknown:
            rest = "the runs it names are shown" if wanted else "every run is shown"
            named = session.listed(unknown, quoted=False)
            session.report_url_problem(f"runs: no run named {named} in these data; {rest}")
        st.session_state[session.RUNS] = wanted or loaded
        st.session_state[session.RUN_OPTIONS] = loaded
        if first and st.session_state.get(session.BASELINE):  # a link's baseline= goes first
            session.put_first(st.session_state[session.BASELINE])
    names = session.display_names(loaded)
    shown = st.multiselect(
        "Runs shown (the first is the baseline)",
        loaded,
        session.shown_among(session.RUNS, loaded),
        key=session.RUNS,
        format_func=names.get,
        on_change=session.runs_changed,
        help=HELP["runs_shown"],
    )
    for problem in session.rename_problems(loaded):
        st.warning(safe.md(problem), icon=":material/edit_off:")
    with st.expander("Rename runs", icon=":material/edit:"):
        for name in loaded:
            st.text_input(safe.label(name), session.shown(session.RUN_NAME + name, ""),
                          key=session.RUN_NAME + name, placeholder=name)
    if not shown:
        st.warning("Pick at least one run to show.", icon=":material/warning:")
    return shown, names


