"""read_figures(file) -> SavedEvaluation: an evaluation read back from the long table of
per-query figures (`--per-query-out FILE.parquet`, `metrics.core.per_query`), with no list.

The table holds every scored query's figures at K, in the order the evaluation scored them
(the qrels' order). Everything aggregation computes reads those alone: the means and
intervals (`summarise_runs` over `resampled_queries` on the recorded seed, so the same resampled
queries and the same digits as the driver that wrote the file), and every decision of
`metrics.decide` that reads per-query figures at K (paired comparisons, the leaderboard, best
marks, the run table, gates). What the writer records beside the figures (`about`: K, the
conventions, the engine, the counts the table cannot carry, the sweep's means) is in the
schema's metadata (`metrics.vocabulary.saved.METADATA_KEY`); a file without it is read with
K from its K column and the default conventions, and says so (`recorded`).

Not here: whatever reads a ranked list or the judgments (query classes, the k suggestion,
drill-down, figures not saved, other K or conventions): `metrics.vocabulary.saved.NEEDS_LISTS`
names them; one query's lists are read on demand by `metrics.io.one_query`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.core.asked import summary_methods
from metrics.core.evaluate import (
    DEFAULT_PER_QUERY,
    DEFAULT_SUMMARY,
    Evaluation,
    WithoutLists,
    evaluate,
    resolve_among,
    summary_frame,
    sweep_frame,
    sweep_specs_of,
)
from metrics.core.files import RunSource
from metrics.core.per_query import SCHEMA
from metrics.io import Run
from metrics.io.errors import LoadError, show
from metrics.io.loaders import run_name_of
from metrics.io.names import plain_name
from metrics.io.one_query import load_query_qrels, load_query_run
from metrics.io.streams import MAX_INPUT_BYTES
from metrics.stats.bootstrap import resampled_queries
from metrics.stats.intervals import Interval
from metrics.stats.summary import summarise_runs
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import check_k
from metrics.vocabulary.names import Spec, parse_measure
from metrics.vocabulary.saved import METADATA_KEY, METADATA_VERSION

ENGINE_UNRECORDED = "unrecorded"


def about(evaluation, engine: str) -> dict:
    """What a file of saved figures records beside them: K, the conventions, the engine, the
    sweep's range and each run's means over it (and its bands when the driver computed them),
    the counts the table cannot carry (the qrels' queries, those excluded, each run's
    missing ones and repeats) and the qrels' highest grade (ERR's scale). `evaluation` is an
    in-memory `Evaluation` or a `BlockEvaluation`."""
    runs = {}
    for run in evaluation.runs:
        means = (evaluation.sweep_means(run.name) if callable(getattr(evaluation, "sweep_means",
                                                                      None))
                 else run.sweep_means)
        bands = getattr(run, "sweep_intervals", None)
        runs[run.name] = {
            "missing": len(run.missing_queries), "repeats": int(run.repeats),
            "sweep": {name: [float(v) for v in values] for name, values in means.items()
                      if name != "k"},
            "bands": None if bands is None else [[int(k), key, float(low), float(high)]
                                                 for k, key, low, high in bands],
        }
    max_grade = getattr(evaluation, "max_grade", None)
    if max_grade is None:
        max_grade = int(evaluation.query_set.max_grade.max(initial=1))
    return {"version": METADATA_VERSION, "engine": engine, "k": int(evaluation.k),
            "conventions": evaluation.conventions.as_dict(),
            "sweep_range": [int(v) for v in evaluation.sweep_range],
            "queries": len(evaluation.scored_ids) + len(evaluation.excluded_ids),
            "excluded": len(evaluation.excluded_ids), "max_grade": int(max_grade),
            "runs": runs}


@dataclass(frozen=True, eq=False)
class SavedRun:
    """One run's saved figures."""

    name: str
    summary: dict[str, Interval]  # summary figure key -> mean and interval at K, recomputed
    at_k: dict[str, np.ndarray]  # figure key -> the scored queries' figures at K
    missing: int | None = None  # qrels queries the run had no list for (None: not recorded)
    repeats: int | None = None
    sweep_means: dict[str, np.ndarray] | None = None  # "k", then each figure's name -> means
    sweep_intervals: list[tuple[int, str, float, float]] | None = None  # (k, key, low, high)


@dataclass(frozen=True, eq=False)
class SavedEvaluation(WithoutLists):
    """An evaluation read back from its saved per-query figures: the figures at K of every
    scored query, the summary recomputed from them, what the file recorded. No ranked list,
    no judgment: `recorded` says whether K and the conventions are the file's own."""

    k: int
    conventions: Conventions
    query_ids: np.ndarray  # the scored queries, in the order they were written
    scored: np.ndarray  # every query here is scored
    runs: tuple[SavedRun, ...]
    source: str  # the file's name
    recorded: bool  # K and the conventions come from the file's metadata
    engine: str = ENGINE_UNRECORDED
    sweep_range: tuple[int, int] | None = None  # None: the sweep was not saved
    queries: int | None = None  # the qrels' queries (scored and excluded), when recorded
    excluded: int | None = None
    max_grade: int = 1
    summary_specs: tuple[Spec, ...] = DEFAULT_SUMMARY
    query_specs: tuple[Spec, ...] = DEFAULT_PER_QUERY

    within = None  # a saved evaluation covers every query it holds: no filter
    scope = ""

    @property
    def sweep_specs(self) -> tuple[Spec, ...]:
        return sweep_specs_of(self.summary_specs, self.conventions)

    def summary(self):
        """One row per (run, summary figure): mean and interval at K (`Evaluation.summary`)."""
        return summary_frame(self)

    def sweep(self):
        """The saved sweep's means: run, k, one column a figure (`Evaluation.sweep`)."""
        return sweep_frame(self)

    def per_query(self):
        """One row per (run, scored query) at K: the figures saved; `class` is empty (query
        classes read the first relevant rank and R, which were not saved)."""
        import pandas as pd

        return pd.concat([pd.DataFrame({"run": run.name, "query_id": self.scored_ids,
                                        "class": None, **run.at_k}) for run in self.runs],
                         ignore_index=True)

    def query_figures(self, query_id: str):
        """One query's saved figures, a row per run (as `metrics.query_figures`: run, class
        (empty: not saved), then each summary figure by key)."""
        import pandas as pd

        ids = self.scored_ids
        if query_id not in ids:
            raise ValueError(f"query {query_id!r} is not among the {len(ids):,} queries "
                             f"{self.source} holds")
        row = ids.index(query_id)
        return pd.DataFrame([{"run": run.name, "class": None,
                              **{s.key: float(run.at_k[s.key][row]) for s in self.summary_specs}}
                             for run in self.runs])

    @property
    def has_sweep(self) -> bool:
        return self.sweep_range is not None and all(r.sweep_means for r in self.runs)

    @property
    def has_sweep_bands(self) -> bool:
        return self.has_sweep and all(r.sweep_intervals is not None for r in self.runs)

    def per_query_scores(self, name: str, k: int | None = None) -> dict[str, np.ndarray]:
        """Scored queries' values at K, keyed by figure key (as `Evaluation.per_query_scores`);
        no other K was saved."""
        if k not in (None, self.k):
            raise ValueError(f"{self.source} holds the figures at K = {self.k} only, not "
                             f"K = {k}: give the runs and the qrels to read another K")
        return dict(self.run(name).at_k)

    def spec(self, key: str) -> Spec:
        for spec in self.query_specs:
            if spec.key == key:
                return spec
        raise ValueError(f"{key!r} is not among the figures {self.source} holds: "
                         + ", ".join(s.key for s in self.query_specs))

    def label(self, key: str, *, summary: bool = True) -> str:
        return self.spec(key).label(self.k, self.conventions, summary=summary)

    def resolve(self, metric: str | Spec) -> Spec:
        """A figure saved, by key, label or name (as `Evaluation.resolve`, among these)."""
        return self.spec(resolve_among(self.query_specs, metric, self.k, self.conventions).key)

    def with_measures(self, measures) -> SavedEvaluation:
        """Itself when every figure named was saved; a figure not saved needs the lists
        (ValueError saying so)."""
        for measure in measures:
            self.resolve(measure)
        return self

    def select(self, names: Sequence[str], shown: dict[str, str] | None = None
               ) -> SavedEvaluation:
        """Some of its runs, in the order given, each under the name `shown` gives it (as
        `Evaluation.select`); nothing is recomputed."""
        shown = shown or {}
        chosen = [replace(self.run(name), name=shown.get(name, name)) for name in names]
        if len({plain_name(r.name) for r in chosen}) != len(chosen):
            raise ValueError(f"run names must be distinct, got {[r.name for r in chosen]}")
        return replace(self, runs=tuple(chosen))

    def sweep_means(self, name: str) -> dict[str, np.ndarray]:
        run = self.run(name)
        if run.sweep_means is None:
            raise ValueError(f"{self.source} holds no sweep over K")
        return {key: values.copy() for key, values in run.sweep_means.items()}

    def sweep_intervals(self) -> list[tuple[str, int, str, float, float]]:
        """(run, k, key, low, high) as saved (empty when the bands were not saved)."""
        return [(run.name, *row) for run in self.runs for row in run.sweep_intervals or ()]


def read_figures(source: str | os.PathLike | bytes, *, file_name: str | None = None,
                 max_bytes: int = MAX_INPUT_BYTES) -> SavedEvaluation:
    """The long table of per-query figures (a path, or an upload's bytes named `file_name`)
    read back into a `SavedEvaluation`. Every row is used or refused: a LoadError names the
    file and the row (a missing column, a null or non-finite value, a figure written twice
    for a query, a run lacking a query another run has, a figure name this engine does not
    read)."""
    name = file_name or (Path(source).name if not isinstance(source, bytes) else "figures")
    table, metadata = _read(source, name, max_bytes)
    recorded = _about(metadata, name)
    if not table.num_rows:
        raise LoadError(name, None, "holds no figure (an empty table)")
    query_ids = pc.unique(table["query_id"])  # first appearance: the order they were written
    q_codes = _codes(table["query_id"], query_ids)
    runs = pc.unique(table["run"])
    r_codes = _codes(table["run"], runs)
    figures, f_codes = _figures(table)
    k = recorded["k"] if recorded else _k_of(figures, name)
    check_k(k)
    conventions = (Conventions(**recorded["conventions"]) if recorded else Conventions())
    specs = [_spec(measure, at, k, conventions, name, _first_row(f_codes, i))
             for i, (measure, at) in enumerate(figures)]
    nq, nf, nr = len(query_ids), len(figures), len(runs)
    cell = (r_codes.astype(np.int64) * nf + f_codes) * nq + q_codes
    counts = np.bincount(cell, minlength=nr * nf * nq)
    if (counts > 1).any():
        bad = cell[np.argmax(counts[cell] > 1)]
        row = int(np.flatnonzero(cell == bad)[1])
        raise LoadError(name, row + 1, f"{_figure_words(table, row)} is written twice "
                        "(once a row for each query, run and figure)", unit="row")
    if (counts == 0).any():
        gap = int(np.argmax(counts == 0))
        run, rest = divmod(gap, nf * nq)
        figure, query = divmod(rest, nq)
        raise LoadError(name, None, f"run {show(runs[run].as_py())} has no "
                        f"{show(specs[figure].name(summary=False))} for query "
                        f"{show(query_ids[query].as_py())}: every run must hold every figure "
                        "of every query the file names")
    values = np.empty(nr * nf * nq)
    values[cell] = table["value"].to_numpy(zero_copy_only=False)
    values = values.reshape(nr, nf, nq)
    by_key = {spec.key: i for i, spec in enumerate(specs)}
    ordered = [s for s in DEFAULT_PER_QUERY if s.key in by_key] + [
        s for s in specs if s.key not in {d.key for d in DEFAULT_PER_QUERY}]
    summary_specs = tuple(s for s in ordered if s.measure.in_summary)
    missing = [s.key for s in DEFAULT_SUMMARY if s.key not in by_key]
    if missing:
        raise LoadError(name, None, "holds no " + ", ".join(missing) + " figure: a file of "
                        "saved figures holds every default figure (--per-query-out writes "
                        "them)")
    at_ks = [{s.key: values[r, by_key[s.key]] for s in ordered} for r in range(nr)]
    summaries = _summaries(at_ks, [s for s in ordered if s.measure.in_summary], conventions)
    run_names = [str(r) for r in runs.to_pylist()]
    sweep_range = tuple(recorded["sweep_range"]) if recorded else None
    saved_runs = tuple(
        _saved_run(run, at_k, summary, (recorded or {}).get("runs", {}).get(run), sweep_range)
        for run, at_k, summary in zip(run_names, at_ks, summaries, strict=True))
    if not all(r.sweep_means for r in saved_runs):
        sweep_range = None
    return SavedEvaluation(
        k=k, conventions=conventions, query_ids=np.asarray(query_ids.to_pylist(), dtype=object),
        scored=np.ones(nq, dtype=bool), runs=saved_runs, source=name,
        recorded=recorded is not None,
        engine=recorded["engine"] if recorded else ENGINE_UNRECORDED,
        sweep_range=sweep_range,
        queries=recorded.get("queries") if recorded else None,
        excluded=recorded.get("excluded") if recorded else None,
        max_grade=int(recorded.get("max_grade", 1)) if recorded else 1,
        summary_specs=summary_specs, query_specs=tuple(ordered))


def _summaries(at_ks: list[dict[str, np.ndarray]], specs: Sequence[Spec],
               conventions: Conventions) -> list[dict[str, Interval]]:
    """Each run's summary as the driver computed it: the default figures in one pass over
    the resampled queries, the figures asked for by name in their own call on the same draw
    (as `Evaluation.with_measures` does)."""
    def draw():
        return resampled_queries(len(next(iter(at_ks[0].values()))), seed=conventions.seed,
                                 n_resamples=conventions.n_resamples)

    summaries = summarise_runs([{s.key: at_k[s.key] for s in DEFAULT_SUMMARY} for at_k in at_ks],
                               draw(), conventions)
    asked = [s for s in specs if s.key not in {d.key for d in DEFAULT_SUMMARY}]
    if not asked:
        return summaries
    more = summarise_runs([{s.key: at_k[s.key] for s in asked} for at_k in at_ks], draw(),
                          conventions, summary_methods(asked))
    return [summary | extra for summary, extra in zip(summaries, more, strict=True)]


def _read(source, name: str, max_bytes: int) -> tuple[pa.Table, dict]:
    import pyarrow.parquet as pq  # on use: see metrics.io.parquet._open

    try:
        file = pq.ParquetFile(pa.BufferReader(source) if isinstance(source, bytes) else source)
    except (pa.ArrowException, OSError) as exc:
        raise LoadError(name, None, f"not a Parquet file of saved figures ({exc})") from None
    size = sum(file.metadata.row_group(i).total_byte_size
               for i in range(file.metadata.num_row_groups))
    if size > max_bytes:
        raise LoadError(name, None, f"{size / 2**20:,.0f} MB of figures uncompressed, over "
                        f"the bound of {max_bytes / 2**20:,.0f} MB")
    schema = file.schema_arrow
    absent = [c for c in SCHEMA.names if c not in schema.names]
    if absent:
        raise LoadError(name, None, "not a file of saved figures: no column "
                        + ", ".join(absent) + " (it holds " + ", ".join(schema.names[:8])
                        + "; --per-query-out writes " + ", ".join(SCHEMA.names) + ")")
    try:
        table = file.read(columns=SCHEMA.names).cast(SCHEMA)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise LoadError(name, None, f"a column of the wrong type ({exc}); --per-query-out "
                        f"writes {SCHEMA}".replace("\n", ", ")) from None
    for column in ("query_id", "run", "measure", "value"):
        nulls = table[column].is_null()
        if pc.any(nulls).as_py():
            row = _first_true(nulls)
            raise LoadError(name, row + 1, f"no {column} (a null)", unit="row")
    finite = pc.is_finite(table["value"])
    if not pc.all(finite).as_py():
        row = _first_true(pc.invert(finite))
        raise LoadError(name, row + 1, f"value must be a finite number, got "
                        f"{table['value'][row].as_py()!r}", unit="row")
    return table, schema.metadata or {}


def _about(metadata: dict, name: str) -> dict | None:
    raw = metadata.get(METADATA_KEY)
    if raw is None:
        return None
    try:
        about = json.loads(raw)
        Conventions(**about["conventions"])
        int(about["k"])
    except (ValueError, KeyError, TypeError) as exc:
        raise LoadError(name, None, f"its metadata {METADATA_KEY.decode()} cannot be read "
                        f"({show(str(exc), 80)})") from None
    if about.get("version") != METADATA_VERSION:
        raise LoadError(name, None, f"its metadata is version {show(about.get('version'))}; "
                        f"this engine reads version {METADATA_VERSION}")
    return about


def _codes(column, uniques) -> np.ndarray:
    return pc.index_in(column, value_set=uniques).to_numpy(zero_copy_only=False).astype(np.int64)


def _figures(table: pa.Table) -> tuple[list[tuple[str, int | None]], np.ndarray]:
    """Each distinct (measure, K) pair in the order it first appears, and each row's."""
    names = pc.unique(table["measure"])
    m_codes = _codes(table["measure"], names)
    ks = table["k"].fill_null(-1).to_numpy().astype(np.int64)
    pair = m_codes * (int(ks.max(initial=0)) + 2) + ks + 1
    uniques, first, codes = np.unique(pair, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    figures = [(names[int(m_codes[first[i]])].as_py(),
                None if ks[first[i]] < 0 else int(ks[first[i]])) for i in order]
    return figures, rank[codes.ravel()]


def _first_true(mask) -> int:
    return int(np.argmax(mask.to_numpy(zero_copy_only=False)))


def _first_row(codes: np.ndarray, code: int) -> int:
    return int(np.argmax(codes == code)) + 1


def _k_of(figures: list[tuple[str, int | None]], name: str) -> int:
    """K of a file that does not record it: the cutoff its default figures are read at."""
    defaults = {s.name(summary=False) for s in DEFAULT_PER_QUERY}
    ks = {at for measure, at in figures if measure in defaults and at is not None}
    if len(ks) != 1:
        raise LoadError(name, None, "its default figures are read at "
                        + (", ".join(f"K = {k}" for k in sorted(ks)) or "no K")
                        + ": one K is expected")
    return ks.pop()


def _spec(measure: str, at: int | None, k: int, conventions: Conventions, name: str,
          row: int) -> Spec:
    """The figure a (measure, K) pair of the table stands for at this K. A default figure
    read over the whole list by the conventions (RR under rr=full) is written with no K; a
    file written before that wrote it at K, and reads as the same figure."""
    for spec in DEFAULT_PER_QUERY:
        if spec.name(summary=False) == measure and at == k:
            return spec
    try:
        spec = parse_measure(measure if at is None or at == k else f"{measure}@{at}")
    except ValueError as exc:
        raise LoadError(name, row, f"figure {show(measure)}: {exc}", unit="row") from None
    spec = spec.settled(k, conventions)
    if (at is None) != spec.reads_whole(conventions) or (at is not None and spec.k(k) != at):
        raise LoadError(name, row, f"figure {show(measure)} at K = {at}, but the file's K is "
                        f"{k}: a file of saved figures holds one K", unit="row")
    return spec


def _figure_words(table: pa.Table, row: int) -> str:
    return (f"{show(table['measure'][row].as_py())} of run {show(table['run'][row].as_py())} "
            f"for query {show(table['query_id'][row].as_py())}")


def _saved_run(name: str, at_k: dict[str, np.ndarray], summary: dict[str, Interval],
               recorded: dict | None, sweep_range: tuple[int, int] | None) -> SavedRun:
    if not recorded:
        return SavedRun(name, summary, at_k)
    bands = recorded.get("bands")
    return SavedRun(
        name, summary, at_k, missing=recorded.get("missing"), repeats=recorded.get("repeats"),
        sweep_means=_sweep(recorded.get("sweep"), sweep_range),
        sweep_intervals=None if bands is None else [
            (int(k), str(key), float(low), float(high)) for k, key, low, high in bands])


def _sweep(sweep: dict[str, Sequence[float]] | None,
           sweep_range: tuple[int, int] | None) -> dict[str, np.ndarray] | None:
    """The sweep's means as `Evaluation.sweep_means` gives them ("k" first); None when not
    saved, or not over the whole recorded range."""
    if not sweep or sweep_range is None:
        return None
    ks = np.arange(sweep_range[0], sweep_range[1] + 1)
    if any(len(values) != len(ks) for values in sweep.values()):
        return None
    return {"k": ks} | {name: np.asarray(values, dtype=float) for name, values in sweep.items()}




@dataclass(frozen=True, eq=False)
class QueryLists:
    """One query's lists read from the run files beside its saved figures: an in-memory
    evaluation of that query alone (every explanation reads it), the runs given no file
    for, and each figure the lists give otherwise than the saved one."""

    query_id: str
    evaluation: Evaluation | None  # None when the qrels judge no relevant id for it
    without_file: tuple[str, ...]  # saved runs no run file was given for
    disagreements: tuple[tuple[str, str, float, float], ...]  # (run, figure label, saved, read)


def query_lists(saved: SavedEvaluation, query_id: str, qrels: RunSource,
                runs: Sequence[RunSource]) -> QueryLists:
    """`query_id`'s judgments and every run's list for it, read on demand from the files
    (`metrics.io.one_query`: only that query's rows), scored alone under the saved K and
    conventions; each run file goes with the saved run of its name (`RunSource.name`, or
    the file's). A figure the lists give otherwise than the file (beyond 1e-9) is listed:
    the files are then not those the figures were computed from."""
    c = saved.conventions
    judged = load_query_qrels(qrels.source, query_id, file_name=qrels.file_name)
    lists = []
    for spec in runs:
        name = spec.name or run_name_of(spec.file_name or Path(str(spec.source)).name)
        if name not in saved.run_names:
            continue
        run = load_query_run(spec.source, query_id, file_name=spec.file_name, order=c.order,
                             score_precision=c.score_precision, run_name=name)
        lists.append(run if run is not None else Run.from_lists(name, {}))
    given = {run.name for run in lists}
    without = tuple(name for name in saved.run_names if name not in given)
    if judged is None or not lists:
        return QueryLists(query_id, None, without, ())
    evaluation = evaluate(judged, lists, saved.k, c, sweep=(1, 1))
    if query_id not in evaluation.scored_ids:
        return QueryLists(query_id, None, without, ())
    row = saved.scored_ids.index(query_id)
    differ = []
    for run in evaluation.runs:
        kept = saved.per_query_scores(run.name)
        for key, values in evaluation.per_query_scores(run.name).items():
            if key in kept and abs(float(kept[key][row]) - float(values[0])) > 1e-9:
                differ.append((run.name, saved.label(key, summary=False),
                               float(kept[key][row]), float(values[0])))
    return QueryLists(query_id, evaluation, without, tuple(differ))


__all__ = ["QueryLists", "SavedEvaluation", "SavedRun", "about", "query_lists", "read_figures"]
