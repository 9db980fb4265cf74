"""The engine's calls, cached: the sample or uploads -> one Evaluation per (inputs, K,
conventions); comparisons; snapshots.

What is kept, and how: one server-wide Store (dashboard/data/store.py) holds the
parsed files (Qrels, Run and their LoadReport), the runs aligned on the labels, the
evaluations of every loaded run and the comparisons, bounded in entries per kind (`KEPT`)
and in bytes overall (`STORE_BYTES`), least recently used first out. A file no session shows
any more (replaced or removed in the uploader) leaves at once with everything computed from
it. They are large immutable numpy arrays: kept as they are, never pickled. Uploads are keyed
by their upload id, so the bytes are never hashed. A loader error is kept as well, so a
malformed upload is read once, not on every rerun.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol, TypeVar

import streamlit as st
from streamlit.elements import spinner as streamlit_spinner
from streamlit.runtime.scriptrunner import get_script_run_ctx

import metrics
from dashboard import safe
from dashboard.data import progress
from dashboard.data.store import Store
from dashboard.views import frames
from metrics import (
    Comparison,
    Conventions,
    Evaluation,
    LoadReport,
    Prepared,
    Qrels,
    Run,
    RunSource,
    Subtopics,
    compare_evaluation,
    compare_with_snapshot,
    distinct_names,
    evaluate_prepared,
    prepare,
    read_qrels,
    read_run,
    sample_qrels,
    sample_runs,
    snapshot_loads,
)

KEPT = {
    "file": 16,  # a qrels and several runs, under both run orders
    "prepared": 2,  # the runs aligned on the labels, per relevance level and identical ids
    # each run file's ids' positions among the labels' doc ids: a run set that changes (a
    # fused run added, a run file added) aligns every run again, without matching them again
    "label codes": 32,
    "fusion pool": 2,  # the rows of the runs last fused, pooled: another recipe of them reuses it
    "scored": 2,  # every K of every query, under a convention or two to flip between
    # the K read from those, to flip between without reading again: an entry leaving takes
    # every comparison, check and table made at its K with it, so that with 4 a return to a K
    # chosen five changes before tested, checked and drew it all again (0.74 s on Compare at
    # 4 runs x 2,000 queries instead of 0.16 s); one is 0.5 MB there
    "evaluation": 16,
    "measured": 16,  # an evaluation with the figures the sidebar adds, per K and choice
    "pr curve": 4,  # the interpolated precision at the 11 recall levels, per view
    "comparison": 16,  # per K, baseline and candidates: flip between them without re-testing
    "headlines": 16,  # their sentences, per comparison
    "id mismatches": 4,
    "live snapshot": 4,
    "facets": 4,
    "filtered": 4,  # a few filters to flip between; each shares its scores with the whole
    "corpus": 2,  # the texts of the ids used: one corpus, and the next while it is replaced
    "leakage": 2,
    "slices": 8,
    "slice comparison": 8,
    "leaderboard": 16,  # per K, like "evaluation"
    "all pairs": 8,
    "best marks": 16,
    "fragility": 16,  # per comparison shown, like "comparison"
    "to label": 4,  # 32 MB each at 5 runs x 10,000 queries
    "overlap": 16,  # per K, like "evaluation"
    "cross fit": 4,
    "rescored": 2,  # the last grades given by hand, and the ones before
    "harm profile": 8,
    "risks": 8,  # the harm and risk figures of a comparison's tests, per harm threshold
    "derived": 1024,  # the pages' tables, charts and sentences (small), per K kept above
    "judge": 4,  # the judge's report, per view and weight on the judge
    "latex": 8,  # a paper's table, per view and comparison
    "figures": 2,  # an evaluation opened from its saved figures, and the one before
    "query lists": 16,  # one query's lists read from the run files beside saved figures
}
# four evaluations of 5 runs x 5,000 queries x 100 ids with their files and aligned runs;
# the server's own ~300 MB come on top
STORE_BYTES = 1152 * 2**20
SNAPSHOTS_KEPT = 16
SAMPLE, UPLOAD = "sample", "upload"
FIGURES = "figures"  # an evaluation opened from its saved per-query figures (no lists)
SAMPLE_QUERIES = "queries.csv"  # beside the sample's qrels: texts and two facets
SAMPLE_CORPUS = "corpus.jsonl"  # and the texts of every id its qrels and runs mention
SOURCES = {SAMPLE: "Bundled sample", UPLOAD: "My files"}
T = TypeVar("T")


class UploadedFile(Protocol):
    """What the loaders need of an upload (Streamlit's UploadedFile has it)."""

    name: str
    file_id: str

    def getvalue(self) -> bytes: ...


@dataclass(frozen=True)
class FileBytes:
    """A file handed over outside the browser (tests, benchmarks), shaped like an upload."""

    name: str
    payload: bytes
    file_id: str = field(default_factory=lambda: uuid.uuid4().hex)

    def getvalue(self) -> bytes:
        return self.payload


@dataclass(frozen=True, eq=False)
class Parsed:
    """One file read by the engine's loader, or the loader's one-line error."""

    file_name: str
    key: str  # identity of the source for the caches (path or upload id, and the run order)
    value: Qrels | Run | None = None
    report: LoadReport | None = None
    error: str | None = None
    belongs: str | None = None  # "qrels" or "run": the kind of file it looks like, when refused


@dataclass(frozen=True, eq=False)
class TextFile:
    """A corpus file given, not read yet: which of its texts to keep depends on the ids the
    labels and the runs mention, and reading it can take seconds, so only a page that shows
    chunk texts reads it (dashboard/texts.py)."""

    file_name: str
    key: str  # the path or upload id
    source: Callable[[], Path | bytes]  # an upload's bytes are fetched only when read


@dataclass(frozen=True, eq=False)
class Inputs:
    """Everything the sidebar loaded: the labels, every run file given, and what went wrong."""

    source: str
    qrels: Parsed | None
    runs: tuple[Parsed, ...]
    problem: str | None = None  # an error tied to no single file
    queries: Parsed | None = None  # the optional queries file: texts and facets
    corpus: TextFile | None = None  # the optional corpus: read once the ids it must hold are known
    # the same run files read under another reading (the fragility check's other TREC order)
    read_again: Callable[[Conventions], tuple[Parsed, ...]] | None = None
    judge: Parsed | None = None  # the optional model judge's labels, beside the human qrels
    human: Parsed | None = None  # the human qrels while the judge's score every page
    # the optional subtopic qrels the diversity measures read (More measures)
    subtopics: Parsed | None = None

    @property
    def has_subtopics(self) -> bool:
        return self.subtopics is not None and self.subtopics.value is not None
    # each run file's bytes or path, beside `runs` (their latency_ms, cost, tokens columns)
    run_files: tuple[TextFile, ...] = ()
    timings: TextFile | None = None  # the optional timings side file (latency, cost per query)

    @property
    def judged(self) -> bool:
        """Both label sets are loaded and readable."""
        human = self.human or self.qrels
        return (self.judge is not None and self.judge.value is not None
                and human is not None and human.value is not None)

    def under(self, labels: str) -> Inputs:
        """The same inputs scored against the human labels or the judge's."""
        if labels == "judge" and self.judged:
            return replace(self, qrels=self.judge, human=self.human or self.qrels)
        return self

    @property
    def usable_runs(self) -> list[Parsed]:
        return [run for run in self.runs if run.value is not None]

    @property
    def ready(self) -> bool:
        return self.qrels is not None and self.qrels.value is not None and bool(self.usable_runs)

    @property
    def run_names(self) -> list[str]:
        """Every readable run's name, load order, made distinct."""
        return distinct_names([run.value.name for run in self.usable_runs])


@dataclass(frozen=True, eq=False)
class Standardising:
    """How the sidebar asks the figures standardised (metrics.standardise): against the runs
    loaded or a trec_eval -Z mean file (`standards`, its file key `key`), on `scale`."""

    source: str  # "runs" or "file"
    scale: str  # "z" or "cdf"
    standards: metrics.Standards | None = None
    key: str = ""

    @property
    def identity(self) -> tuple:
        return ("standardised", self.source, self.key, self.scale)


@dataclass(frozen=True, eq=False)
class View:
    """What every page draws from: one Evaluation (shown runs, display names, display order)."""

    evaluation: Evaluation
    qrels: Qrels
    key: tuple  # identity of the evaluation, for the per-view caches
    colour_domain: tuple[str, ...]  # every loaded run's display name, load order
    files: frozenset[str]  # the keys of the files it was computed from
    source: tuple  # the store entry of the evaluation it selects from
    queries: metrics.Queries | None = None  # texts and facets, when a queries file is read
    queries_key: str | None = None  # the queries file's identity, for the slices' cache
    # with a filter on a facet's values: the evaluation over every query, and its key
    whole: Evaluation | None = None
    whole_key: tuple | None = None
    corpus_file: TextFile | None = None  # the chunk texts, read when a page shows them
    loaded_runs: tuple[Run, ...] = ()  # every run loaded, shown or not: the ids a corpus keeps
    shown: tuple[tuple[str, str], ...] = ()  # (original name, display name), display order
    # standardised scores: how (None: raw figures), and the same runs' raw figures, which the
    # K sweep reads (the engine standardises one K at a time)
    standardising: Standardising | None = None
    raw: Evaluation | None = None  # over the queries shown (a filter's, when one is set)
    raw_whole: Evaluation | None = None  # over every query: what a snapshot freezes
    # the summaries that are not means More measures adds (gm_map), by key
    summaries: tuple[str, ...] = ()

    @property
    def frozen(self) -> Evaluation:
        """What a snapshot freezes: every query (filter or not), raw figures (standardised
        or not: a snapshot holds raw figures)."""
        return self.unfiltered if self.raw_whole is None else self.raw_whole

    @property
    def unstandardised(self) -> Evaluation:
        """The shown runs' raw figures (the evaluation itself unless standardised)."""
        return self.evaluation if self.raw is None else self.raw

    @property
    def unfiltered(self) -> Evaluation:
        """The evaluation over every query (snapshots freeze it; facets are cut over it)."""
        return self.evaluation if self.whole is None else self.whole

    def text(self, query_id: str) -> str | None:
        """The query's text, when a queries file gives one."""
        return None if self.queries is None else self.queries.text(query_id)

    @property
    def baseline(self) -> str:
        return self.evaluation.run_names[0]

    @property
    def qrels_key(self) -> str:
        """The qrels file's identity (the grades given by hand are kept per qrels file)."""
        return self.key[0][0][0]


_STORE = Store(max_bytes=STORE_BYTES, kept=KEPT)


def store() -> Store:
    """The server's one store, made with this module (once per process): every session's
    script thread and the threads a page starts ahead (decisions.ahead) share it."""
    return _STORE


def spinner(text: str):
    """What a slow step shows while it works (the store's on_miss): Streamlit's spinner,
    shown after SPINNER_DELAY_S rather than Streamlit's 0.5 s; nothing on a thread that runs
    no page (decisions.ahead), which has no page to show it on."""
    def shown():
        if get_script_run_ctx(suppress_warning=True) is None:
            return contextlib.nullcontext()
        return st.spinner(text)
    return shown


# Streamlit waits 0.5 s before it shows a spinner, so that a fast step does not flash one;
# a person who asked for a fusion or every pair should see within 0.2 s that it is under way.
# The delay is a module constant Streamlit reads when a spinner starts (a test checks it is
# still there, so an upgrade that renames it fails loudly).
SPINNER_DELAY_S = 0.05
streamlit_spinner.DELAY_SECS = SPINNER_DELAY_S


def _show(inputs: Inputs, viewer: str) -> Inputs:
    """Tell the store which files `viewer` (a session's id for the store, given by the state
    layer) shows now: those it stopped showing, and that no other session shows, are
    dropped with everything computed from them."""
    files = [p.key for p in (inputs.qrels, *inputs.runs, inputs.queries, inputs.corpus,
                             inputs.judge) if p is not None]
    store().show(viewer, files)
    return inputs


def _reading(conventions: Conventions) -> Conventions:
    """Only the conventions a run's loading depends on (the rest leave the cache key alone)."""
    return Conventions(order=conventions.order, score_precision=conventions.score_precision)


def _tag(reading: Conventions) -> str:
    """The reading in a file's key: the aligned-runs cache is keyed by the files' keys."""
    return f"{reading.order}|{reading.score_precision}"


def _parse(kind: str, key: str, file_name: str, reading: Conventions,
           source: Path | bytes) -> Parsed:
    """Load one file through the engine's loader (the command line's), once per key."""
    return store().get("file", (kind, key), lambda: _load(kind, key, file_name, reading, source),
                       files=[key], on_miss=lambda: progress.reading(file_name, source))


def _load(kind: str, key: str, file_name: str, reading: Conventions,
          source: Path | bytes) -> Parsed:
    """The parsed file or the loader's error (kept too: a malformed upload is read once)."""
    try:
        if kind == "qrels":
            value, report = read_qrels(source, file_name=file_name)
        elif kind == "subtopics":
            judged, report = metrics.load_subtopic_qrels(source, file_name=file_name)
            value = Subtopics(judged)
        elif kind == "queries":
            value, report = metrics.load_queries(source, file_name=file_name), None
        else:
            value, report = read_run(RunSource(source, file_name=file_name), reading)
    except ValueError as exc:  # LoadError is a ValueError with a one-line message
        return Parsed(file_name, key, error=str(exc), belongs=getattr(exc, "belongs", None))
    except MemoryError:
        return Parsed(file_name, key, error=f"{file_name}: too large to load in this server's "
                      "memory")
    return Parsed(file_name, key, value, report)


def read_sample(conventions: Conventions, *, viewer: str) -> Inputs:
    """The bundled sample, as the files `viewer` shows."""
    return _show(sample_inputs(conventions), viewer)


def sample_inputs(conventions: Conventions) -> Inputs:
    """The bundled sample read through the store, claimed by no session (what the server's
    warm-up reads ahead, dashboard/serve.py)."""
    reading = _reading(conventions)
    qrels_path = sample_qrels()
    qrels = _parse("qrels", str(qrels_path), qrels_path.name, Conventions(), qrels_path)
    def read_runs(reading: Conventions) -> tuple[Parsed, ...]:
        return tuple(
            _parse("run", f"{spec.source}|{_tag(reading)}", Path(spec.source).name, reading,
                   Path(spec.source))
            for spec in sample_runs()
        )

    runs = read_runs(reading)
    queries_path = sample_qrels().parent / SAMPLE_QUERIES
    queries = _parse("queries", str(queries_path), queries_path.name, Conventions(), queries_path)
    corpus_path = sample_qrels().parent / SAMPLE_CORPUS
    corpus = TextFile(corpus_path.name, str(corpus_path), lambda: corpus_path)
    files = tuple(TextFile(Path(spec.source).name, str(spec.source),
                           lambda source=Path(spec.source): source) for spec in sample_runs())
    return Inputs(SAMPLE, qrels, runs, queries=queries, corpus=corpus,
                  read_again=lambda other: read_runs(_reading(other)), run_files=files)


def read_uploads(
    qrels_file: UploadedFile | None, run_files: Sequence[UploadedFile], conventions: Conventions,
    queries_file: UploadedFile | None = None, corpus_file: UploadedFile | None = None,
    judge_file: UploadedFile | None = None, subtopics_file: UploadedFile | None = None, *,
    viewer: str, timings_file: UploadedFile | None = None,
) -> Inputs:
    """Parse uploads, the files `viewer` shows. Without a qrels file, the labels come from
    the first run, which must then be a JSONL file whose records carry both `retrieved` and
    `relevant`."""
    def read_runs(reading: Conventions) -> tuple[Parsed, ...]:
        return tuple(
            _parse("run", f"upload:{f.file_id}|{_tag(reading)}", f.name, reading, f.getvalue())
            for f in run_files
        )

    runs = read_runs(_reading(conventions))
    problem = None
    if qrels_file is not None:
        qrels = _parse("qrels", f"upload:{qrels_file.file_id}", qrels_file.name, Conventions(),
                       qrels_file.getvalue())
    elif run_files:
        first, read = run_files[0], runs[0]
        qrels = None
        if read.report is not None and read.report.format != "jsonl":
            problem = (f"No qrels file yet: upload the labels in the sidebar's Qrels box. "
                       f"{first.name} is a {read.report.format.upper()} run, which carries "
                       "no labels (only a JSONL run whose records carry both 'retrieved' and "
                       "'relevant' stands without a qrels file).")
        elif read.value is not None:
            qrels = _parse("qrels", f"upload:{first.file_id}", first.name, Conventions(),
                           first.getvalue())
            if qrels.error:
                problem = (
                    "No qrels file: upload one, or make the first run a JSONL file whose "
                    f"records carry both 'retrieved' and 'relevant'. Reading {first.name} as "
                    f"labels failed: {qrels.error}"
                )
                qrels = None
    else:
        qrels = None
    queries = None if queries_file is None else _parse(
        "queries", f"upload:{queries_file.file_id}", queries_file.name, Conventions(),
        queries_file.getvalue())
    corpus = None if corpus_file is None else TextFile(
        corpus_file.name, f"upload:{corpus_file.file_id}", corpus_file.getvalue)
    judge = None if judge_file is None else _parse(
        "qrels", f"upload:{judge_file.file_id}", judge_file.name, Conventions(),
        judge_file.getvalue())
    subtopics = None if subtopics_file is None else _parse(
        "subtopics", f"upload:{subtopics_file.file_id}", subtopics_file.name, Conventions(),
        subtopics_file.getvalue())
    files = tuple(TextFile(f.name, f"upload:{f.file_id}", f.getvalue) for f in run_files)
    timings = None if timings_file is None else TextFile(
        timings_file.name, f"upload:{timings_file.file_id}", timings_file.getvalue)
    return _show(Inputs(UPLOAD, qrels, runs, problem, queries, corpus,
                        read_again=lambda other: read_runs(_reading(other)), judge=judge,
                        subtopics=subtopics, run_files=files, timings=timings),
                 viewer)


def _labelled(key: tuple, qrels: Qrels, runs: tuple[Run, ...]) -> list[Run]:
    """Each run with its ids' positions among the labels' doc ids (Run.labelled_by), found
    once per labels and run file: matching a run's ids to the labels' is a string hash pass
    over its rows, a seventh of the run that adds a fused run when every run was matched
    again. The codes alone are kept, so a run keeps the name it has now."""
    return [run.labelled_by(qrels, store().get(
        "label codes", (key[0], run_key), lambda run=run: run.codes_in(qrels.doc_names),
        files=[key[0], run_key], parents=[("file", ("qrels", key[0]))]))
        for run_key, run in zip(key[1], runs, strict=True)]


def _prepared(key: tuple, relevance_level: int, identical_ids: str, qrels: Qrels,
              runs: tuple[Run, ...]) -> Prepared:
    # aligned arrays of every run (hundreds of MB on large uploads), reused as they are by
    # every K and convention that keeps the relevance level
    return store().get("prepared", (key, relevance_level, identical_ids),
                       lambda: prepare(qrels, _labelled(key, qrels, runs),
                                       relevance_level=relevance_level,
                                       identical_ids=identical_ids),
                       files=_files(key), parents=_parsed(key), shared=(qrels, runs),
                       on_miss=spinner("Matching the runs to the labels…"))


def _evaluation(key: tuple, k: int, conventions: Conventions, qrels: Qrels,
                runs: tuple[Run, ...], reports: dict[str, LoadReport],
                qrels_report: LoadReport | None) -> Evaluation:
    prepared = _prepared(key, conventions.relevance_level, conventions.identical_ids, qrels,
                         runs)
    # the kernel scores every K at once: the first K asked under these conventions is
    # scored (a bar over the runs while they are), every other K is read from it
    # (Evaluation.at), which a change of K waits for. Under the other DCG gain, already
    # scored, only DCG, IDCG and nDCG are scored again and the rest is shared with it: a
    # third of the bytes (both gains fit the store at 5 runs x 10,000 queries)
    regain, regain_entry = _under_other_gain(key, conventions)

    def score() -> Evaluation:
        with progress.scoring(len(runs), len(prepared.query_set.query_ids)) as tick:
            return evaluate_prepared(prepared, k, conventions, reports=reports,
                                     qrels_report=qrels_report, progress=tick, regain=regain)
    scored = store().get(
        "scored", (key, conventions), score,
        files=_files(key),
        parents=[("prepared", (key, conventions.relevance_level, conventions.identical_ids)),
                 *([regain_entry] if regain else [])],
        shared=(prepared, reports, qrels_report, *([regain] if regain else [])))
    return store().get("evaluation", (key, k, conventions), lambda: scored.at(k),
                       files=_files(key), parents=[("scored", (key, conventions))],
                       shared=(scored,))


def _under_other_gain(key: tuple, conventions: Conventions
                      ) -> tuple[Evaluation | None, tuple | None]:
    """When these runs are not yet scored under `conventions`: the stored evaluation under
    the same conventions but the DCG gain, and its entry; else (None, None)."""
    if not store().has("scored", (key, conventions)):
        for gain in metrics.CONVENTION_BY_FIELD["gain"].values:
            entry = ("scored", (key, replace(conventions, gain=gain)))
            if gain != conventions.gain and (found := store().peek(*entry)) is not None:
                return found, entry
    return None, None


def _files(key: tuple) -> list[str]:
    """The file keys in an evaluation's key: (qrels key, (run keys...))."""
    return [key[0], *key[1]]


def _parsed(key: tuple) -> list[tuple]:
    """The store entries of the parsed files an evaluation's key names."""
    return [("file", ("qrels", key[0])), *(("file", ("run", run)) for run in key[1])]


def _measured_key(key: tuple, k: int, conventions: Conventions, measures: tuple[str, ...],
                  subtopics: Parsed | None) -> tuple:
    """The store key of the figures added: with the subtopic qrels' file key when they are
    loaded (the diversity measures read them)."""
    if subtopics is None:
        return (key, k, conventions, measures)
    return (key, k, conventions, measures, subtopics.key)


def _measured(key: tuple, k: int, conventions: Conventions, evaluation: Evaluation,
              measures: tuple[str, ...], subtopics: Parsed | None = None) -> Evaluation:
    """The evaluation with the figures the sidebar adds: only those are scored, once per
    choice of them; the default figures are the evaluation's own. The diversity measures
    read `subtopics` (the subtopic qrels uploaded), whose key is part of the figures' key."""
    if not measures:
        return evaluation
    if subtopics is not None:
        evaluation = replace(evaluation, subtopics=subtopics.value)
    return store().get("measured", _measured_key(key, k, conventions, measures, subtopics),
                       lambda: evaluation.with_measures(measures),
                       files=[*_files(key), *([subtopics.key] if subtopics else [])],
                       parents=[("evaluation", (key, k, conventions))], shared=(evaluation,),
                       on_miss=spinner("Scoring the measures added…"))


def read_standards(file_name: str, key: str, payload: bytes) -> Parsed:
    """An uploaded trec_eval -Z mean file, read once per file (its error kept too)."""
    def load() -> Parsed:
        try:
            return Parsed(file_name, key, metrics.load_standards(payload, file_name=file_name))
        except ValueError as exc:
            return Parsed(file_name, key, error=str(exc))
    return store().get("standards", (key,), load, files=[key])


def _standardised(key: tuple, source: tuple, everything: Evaluation, how: Standardising
                  ) -> Evaluation:
    """Every loaded run's figures at K standardised (ValueError: why they cannot be, as
    one run alone)."""
    return store().get(
        "standardised", (source, how.identity),
        lambda: metrics.standardise(everything, how.standards, scale=how.scale).evaluation,
        files=[*_files(key), *([how.key] if how.key else [])],
        parents=[source], shared=(everything,),
        on_miss=spinner("Standardising the figures…"))


def build_view(
    inputs: Inputs, shown: Sequence[str], names: dict[str, str], k: int, conventions: Conventions,
    measures: Sequence[str] = (), standardising: Standardising | None = None,
) -> View | None:
    """The shown runs (original names, display order) under their display names, with the
    figures `measures` names beside the default ones; with `standardising`, every figure at
    K standardised against the runs loaded (all of them, shown or not) or a mean file
    (ValueError when it cannot be: one run alone).

    Every loaded run is scored once per K and conventions; hiding, showing, reordering or
    renaming a run then only selects from that evaluation (Evaluation.select): it does not
    rescore, nor re-align the runs. A measure added scores that measure alone."""
    if not inputs.ready or not shown:
        return None
    runs = tuple(parsed.value.renamed(name)
                 for name, parsed in zip(inputs.run_names, inputs.usable_runs, strict=True))
    reports = {name: parsed.report
               for name, parsed in zip(inputs.run_names, inputs.usable_runs, strict=True)}
    key = (inputs.qrels.key, tuple(p.key for p in inputs.usable_runs))
    everything = _evaluation(key, k, conventions, inputs.qrels.value, runs, reports,
                             inputs.qrels.report)
    # gm_map is no per-query figure: the Overview computes it from the view (data.geometric)
    asked = tuple(measures)
    geometric, scored = metrics.vocabulary.measures.split_summaries(asked)
    summaries, measures = tuple(g.key for g in geometric), tuple(scored)
    subtopics = inputs.subtopics if inputs.has_subtopics else None
    everything = _measured(key, k, conventions, everything, measures, subtopics)
    source = (("measured", _measured_key(key, k, conventions, measures, subtopics))
              if measures else ("evaluation", (key, k, conventions)))
    raw = None
    if standardising is not None:
        raw = everything.select(shown, names)
        everything = _standardised(key, source, everything, standardising)
        source = ("standardised", (source, standardising.identity))
    evaluation = everything.select(shown, names)
    domain = tuple(names.get(name, name) for name in inputs.run_names)
    view_key = (key, tuple((name, names.get(name, name)) for name in shown))
    if subtopics is not None and measures:  # the figures added read them
        view_key += (subtopics.key,)
    if standardising is not None:
        view_key += (standardising.identity,)
    read = inputs.queries if inputs.queries is not None and inputs.queries.value else None
    files = frozenset(_files(key)) | ({standardising.key} if standardising and standardising.key
                                      else set())
    return View(evaluation, inputs.qrels.value, (view_key, k, conventions, asked), domain,
                files, source,
                read.value if read else None, read.key if read else None,
                corpus_file=inputs.corpus, loaded_runs=runs,
                shown=tuple((name, names.get(name, name)) for name in shown),
                standardising=standardising, raw=raw, raw_whole=raw, summaries=summaries)


def view_at(view: View, inputs: Inputs, k: int) -> View | None:
    """The same runs, display names, conventions and added figures at another K: what the
    sidebar builds when only K changes."""
    _, _, conventions, measures = view.key
    return build_view(inputs, [name for name, _ in view.shown], dict(view.shown), k,
                      conventions, measures, view.standardising)


def pr_curve(view: View) -> Evaluation:
    """The view's evaluation with the interpolated precision at trec_eval's 11 recall
    levels, what the K sweep's precision-recall curve draws."""
    levels = tuple(f"IPrec@{level:g}" for level in metrics.STANDARD_RECALL)
    # the raw figures: a standardised evaluation holds K's figures alone (the sweep's note)
    raw = view.unstandardised
    return store().get("pr curve", view.key, lambda: raw.with_measures(levels),
                       files=view.files, parents=[view.source], shared=(raw,),
                       on_miss=spinner("Interpolating precision at 11 recall levels…"))


def rescored(view: View, grades: dict[tuple[str, str], int]) -> metrics.Rescored:
    """The view's evaluation scored again with the grades given by hand added to a copy of
    its qrels, once per view and set of grades."""
    return store().get(
        "rescored", (view.key, tuple(grades.items())),
        lambda: metrics.rescore(view.evaluation, grades), files=view.files,
        parents=[view.source], shared=(view.evaluation,),
        on_miss=spinner("Scoring every run again with your labels…"))


def derived(view: View, name: str, args: tuple, make: Callable[[], T]) -> T:
    """What a page builds from the view alone (a table, a chart, its sentences, the power of
    each test), once per view, `name` and `args` (hashable: every choice it depends on):
    a rerun that changed nothing it reads takes it from the store. The value is shared by
    every rerun and session: never change it in place."""
    # counted alone (what it holds of the evaluation is copies): walking the evaluation's
    # objects to leave them out would cost more than building most of these
    return store().get("derived", (view.key, name, args), make, files=view.files,
                       parents=[view.source])


def id_mismatches(view: View) -> tuple[metrics.IdMismatch, ...]:
    """Runs whose query or doc ids barely meet the labels' (a prefix, padding, case...)."""
    # they read the files and the aligned rows only: one look per set of runs, not per K
    c = view.evaluation.conventions
    return store().get("id mismatches",
                       (view.key[0], c.relevance_level, c.identical_ids, c.unjudged),
                       lambda: tuple(metrics.id_mismatches(view.evaluation)),
                       files=view.files)


# --------------------------------------------------------------------------- comparison


@dataclass(frozen=True)
class CompareOptions:
    """The Compare page's choices; hashable, so that they key the comparison cache."""

    baseline: str  # a shown run, or the run of the snapshot `snapshot` names
    candidates: tuple[str, ...]
    metrics: tuple[str, ...]  # measure keys ("nDCG", "RR", ...)
    correction: str
    alpha: float
    snapshot: str | None = None  # the key of the snapshot whose run is the baseline
    min_effect: float | None = None  # the smallest difference that matters (None: none)


@dataclass(frozen=True, eq=False)
class Compared:
    """A comparison, or the engine's one-line reason why there is none."""

    comparison: Comparison | None = None
    error: str | None = None


def _compare(view: View, options: CompareOptions,
             snapshot: metrics.Snapshot | None) -> Compared:
    # a Comparison keeps per-query arrays of every pair; the page and the report read the
    # same object
    return store().get(
        "comparison", (view.key, options), lambda: _compared(options, view.evaluation, snapshot),
        files=view.files, parents=[view.source], shared=(view.evaluation, snapshot),
        on_miss=spinner("Comparing the runs: 10,000 sign flips, a t-test and a Wilcoxon test "
                         "per comparison…"))


def resampling(conventions: Conventions) -> dict[str, object]:
    """What every comparison takes from the conventions: the interval's level, the bootstrap
    resamples and the seed (the same draws as the summary's, and as the command line's)."""
    return metrics.comparison_settings(conventions)


def _compared(options: CompareOptions, evaluation: Evaluation,
              snapshot: metrics.Snapshot | None) -> Compared:
    settings = dict(candidates=list(options.candidates), metrics=list(options.metrics),
                    correction=options.correction, alpha=options.alpha,
                    **resampling(evaluation.conventions))
    try:
        if snapshot is None:
            return Compared(compare_evaluation(evaluation, baseline=options.baseline,
                                               **settings))
        return Compared(compare_with_snapshot(evaluation, snapshot, run=options.baseline,
                                              **settings))
    except ValueError as exc:
        return Compared(error=str(exc))


def compare(view: View, options: CompareOptions, snapshots: Sequence[Snapshot]) -> Compared:
    """The paired comparison the options ask for, computed once per view and options."""
    snapshot = None
    if options.snapshot is not None:
        found = [s for s in snapshots if s.key == options.snapshot]
        if not found:
            return Compared(error="The snapshot chosen as the baseline is no longer loaded.")
        snapshot = found[0].data
        if view.raw is not None:  # raw snapshot figures against standardised live ones
            return Compared(error=metrics.vocabulary.conventions.STANDARDISE_SNAPSHOT_REFUSED)
    # the tests are cached without the correction, alpha and minimum effect, which only
    # re-adjust p-values and re-read the verdicts
    comparisons = metrics.vocabulary.comparisons
    tested = _compare(view, replace(options, correction=comparisons.DEFAULT_CORRECTION,
                                    alpha=comparisons.ALPHA, min_effect=None), snapshot)
    if tested.comparison is None:
        return tested
    adjusted = tested.comparison.adjusted(options.correction, options.alpha)
    return Compared(adjusted if options.min_effect is None
                    else adjusted.with_min_effect(options.min_effect))


# --------------------------------------------------------------------------- snapshots


@dataclass(frozen=True, eq=False)
class Snapshot:
    """One snapshot file, as the engine's typed snapshot, or the engine's one-line error."""

    file_name: str
    key: str  # the upload's id: identity for the caches and the baseline picker
    data: metrics.Snapshot | None = None
    error: str | None = None

    @property
    def title(self) -> str:
        return frames.snapshot_title(self.data.header.as_dict())

    @property
    def run_names(self) -> list[str]:
        return self.data.run_names

    def summary(self) -> str:
        runs = self.run_names
        scored = "?" if self.data.n_scored is None else self.data.n_scored
        return (f"{self.file_name}: {self.title}, K = {self.data.k}, {scored} scored queries, "
                f"{len(runs)} run{'s' if len(runs) != 1 else ''} ({', '.join(runs)}); "
                f"figures {self.data.verification}")


@st.cache_resource(max_entries=SNAPSHOTS_KEPT, show_spinner="Reading the snapshot…")
def _read_snapshot(key: str, file_name: str, _payload: bytes) -> Snapshot:
    try:
        return Snapshot(file_name, key, snapshot_loads(_payload, source=file_name))
    except ValueError as exc:  # the engine names the file and what is wrong
        return Snapshot(file_name, key, error=str(exc))


def read_snapshots(files: Sequence[UploadedFile]) -> list[Snapshot]:
    """Every snapshot file given, read once per upload."""
    return [_read_snapshot(f"upload:{f.file_id}", f.name, f.getvalue()) for f in files]


def same_run_note(view: View, snapshot: metrics.Snapshot, options: CompareOptions,
                  candidates: Sequence[str]) -> str | None:
    """Whether a candidate is the very run the snapshot froze as the baseline (their lists'
    fingerprints agree): the comparison would then read noise as a difference."""
    return metrics.same_run_note(snapshot, view.evaluation, run=options.baseline,
                                 candidates=list(candidates))


def live_snapshot(view: View) -> metrics.Snapshot:
    """The live evaluation as a snapshot (what Drift sets beside the loaded ones)."""
    return store().get(
        "live snapshot", view.whole_key or view.key,
        lambda: metrics.Snapshot.from_evaluation(view.frozen, label="live"),
        files=view.files, parents=[view.source], shared=(view.unfiltered,),
        on_miss=spinner("Freezing the live figures…"))


def snapshot_file_name(view: View) -> str:
    return f"snapshot-{dt.date.today().isoformat()}-k{view.evaluation.k}.json"




# --------------------------------------------------------------------------- saved figures


@dataclass(frozen=True, eq=False)
class SavedFile:
    """A file of saved per-query figures read by the engine, or the engine's one-line error."""

    file_name: str
    key: str  # the path or upload id
    evaluation: metrics.SavedEvaluation | None = None
    error: str | None = None


@dataclass(frozen=True, eq=False)
class SideFile:
    """A run or qrels file given beside saved figures: never read whole, only a query's rows
    when a page asks for them (metrics.query_lists)."""

    file_name: str
    key: str
    source: Callable[[], Path | bytes]


@dataclass(frozen=True, eq=False)
class SavedInputs:
    """What the sidebar opened: the saved figures, and the files given beside them."""

    figures: SavedFile
    qrels: SideFile | None = None
    runs: tuple[SideFile, ...] = ()
    run_names: tuple[str | None, ...] = ()  # the saved run each run file goes with (None: its stem)
    source: str = FIGURES

    @property
    def ready(self) -> bool:
        return self.figures.evaluation is not None

    @property
    def lists_given(self) -> bool:
        return self.qrels is not None and bool(self.runs)

    judged = False  # a judge's labels score the runs again: not beside saved figures


def read_saved(key: str, file_name: str, source: Callable[[], Path | bytes]) -> SavedFile:
    """The saved figures of one file, read once per path or upload."""
    def load() -> SavedFile:
        try:
            return SavedFile(file_name, key, metrics.read_figures(source(), file_name=file_name))
        except ValueError as exc:  # LoadError: the file, the row and what is wrong
            return SavedFile(file_name, key, error=str(exc))
        except MemoryError:
            return SavedFile(file_name, key, error=f"{file_name}: too large to read in this "
                             "server's memory")
    return store().get("figures", (key,), load, files=[key],
                       on_miss=spinner("Reading the saved figures…"))


def without_lists(view: View | None) -> bool:
    """The view shows saved figures: no ranked list and no judgment in memory."""
    return view is not None and isinstance(view.evaluation, metrics.SavedEvaluation)


def build_saved_view(inputs: SavedInputs, shown: Sequence[str],
                     names: dict[str, str]) -> View | None:
    """The saved figures' runs shown (original names, display order) under their display
    names: selected from the evaluation read once, nothing recomputed."""
    if not inputs.ready or not shown:
        return None
    saved = inputs.figures.evaluation
    key = (inputs.figures.key, ())
    view_key = (key, tuple((name, names.get(name, name)) for name in shown))
    return View(saved.select(shown, names), None, (view_key, saved.k, saved.conventions, ()),
                tuple(names.get(name, name) for name in saved.run_names),
                frozenset([inputs.figures.key]), ("figures", (inputs.figures.key,)),
                shown=tuple((name, names.get(name, name)) for name in shown))


@dataclass(frozen=True, eq=False)
class ReadLists:
    """One query's lists read beside its saved figures, or why they could not be."""

    lists: metrics.QueryLists | None = None
    error: str | None = None


def query_lists(view: View, inputs: SavedInputs, query_id: str) -> ReadLists:
    """`query_id`'s lists from the run files and its labels from the qrels given beside the
    saved figures (only its rows are read), under the view's display names; once per query
    and files."""
    files = (inputs.qrels.key, *(f.key for f in inputs.runs))
    shown = dict(view.shown)

    def read() -> ReadLists:
        sources = [RunSource(f.source(), name=name, file_name=f.file_name)
                   for f, name in zip(inputs.runs, inputs.run_names, strict=True)]
        qrels = RunSource(inputs.qrels.source(), file_name=inputs.qrels.file_name)
        try:
            found = metrics.query_lists(inputs.figures.evaluation, query_id, qrels, sources)
        except ValueError as exc:
            return ReadLists(error=str(exc))
        if found.evaluation is None:
            return ReadLists(found)
        kept = [name for name in shown if name in found.evaluation.run_names]
        return ReadLists(replace(found, evaluation=found.evaluation.select(kept, shown)))
    return store().get("query lists", (view.key, files, query_id), read,
                       files=[inputs.figures.key, *files],
                       on_miss=spinner(f"Reading query {safe.md(query_id)}'s rows from the run "
                                       "files…"))


def judged(inputs: Inputs, view: View, lam: float | None) -> metrics.JudgeReport:
    """The judge's report over the view's runs (shown ones, display names and order) at its
    K and conventions: each label set scores every query (empty_queries 'zero',
    metrics.vocabulary.judge.EVERY_QUERY_COUNTS), over the whole query set whatever the
    filter; once per view and weight. A ValueError (too few queries both label) is the
    caller's to show."""
    human_file, judge_file = inputs.human or inputs.qrels, inputs.judge
    conventions = view.evaluation.conventions
    runs = tuple(parsed.value.renamed(name)
                 for name, parsed in zip(inputs.run_names, inputs.usable_runs, strict=True))
    reports = {name: parsed.report
               for name, parsed in zip(inputs.run_names, inputs.usable_runs, strict=True)}
    names = dict(view.shown)

    def under(parsed: Parsed, labels: str) -> Evaluation:
        key = (parsed.key, tuple(p.key for p in inputs.usable_runs))
        every = replace(conventions, labels=labels, empty_queries="zero")
        evaluation = _evaluation(key, view.evaluation.k, every, parsed.value, runs, reports,
                                 parsed.report)
        return evaluation.select(list(names), names)

    def build() -> metrics.JudgeReport:
        return metrics.judge_report(under(human_file, "human"), under(judge_file, "judge"),
                                    lam=lam)

    return store().get("judge", (human_file.key, judge_file.key, view.key, lam), build,
                       files=[*view.files, human_file.key, judge_file.key],
                       on_miss=spinner("Setting the judge's labels beside the human ones…"))



def ppi_headlines(report: metrics.JudgeReport, primary: str) -> list[str]:
    """Each candidate against the baseline on `primary` (a measure key), from few human
    labels and many judge labels, in a sentence."""
    return metrics.ppi_headlines(report, primary)
