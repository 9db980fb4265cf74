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
import stat
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
from metrics.io.jsonl import DuplicateKey, json_type, unique_keys
from metrics.io.loaders import run_name_of
from metrics.io.names import plain_name
from metrics.io.one_query import load_query_qrels, load_query_run
from metrics.io.parquet import decoded_bound
from metrics.io.streams import MAX_INPUT_BYTES, check_max_bytes
from metrics.stats.bootstrap import resampled_queries
from metrics.stats.intervals import Interval
from metrics.stats.summary import summarise_runs
from metrics.vocabulary.conventions import VALUE_ORDER, Conventions
from metrics.vocabulary.cutoffs import MAX_K, check_sweep
from metrics.vocabulary.engines import ENGINES
from metrics.vocabulary.identifiers import MAX_NAME_CHARS
from metrics.vocabulary.limits import MAX_SAVED_RUNS
from metrics.vocabulary.names import Spec, parse_measure
from metrics.vocabulary.numeric import is_number
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
    read back into a `SavedEvaluation`. The file is read like any other input: its table and
    its metadata are checked against what an evaluation can hold (``_iv``) before anything
    is computed, and whatever is not is one LoadError (a ValueError) naming the file and the
    row or the metadata's field: a missing column, a null or a value outside its figure's
    range, a figure written twice or missing for a query, a figure name this engine does not
    read, more runs than MAX_SAVED_RUNS, and any metadata field of the wrong type, outside its
    bounds (the conventions' as on the command line) or at odds with the table."""
    checked = _iv(source, file_name, max_bytes)
    specs, values, recorded = checked.specs, checked.values, checked.recorded
    by_key = {spec.key: i for i, spec in enumerate(specs)}
    ordered = [s for s in DEFAULT_PER_QUERY if s.key in by_key] + [
        s for s in specs if s.key not in {d.key for d in DEFAULT_PER_QUERY}]
    summary_specs = tuple(s for s in ordered if s.measure.in_summary)
    at_ks = [{s.key: values[r, by_key[s.key]] for s in ordered}
             for r in range(len(checked.run_names))]
    summaries = _summaries(at_ks, [s for s in ordered if s.measure.in_summary],
                           checked.conventions)
    saved_runs = tuple(
        _saved_run(run, at_k, summary, None if recorded is None else recorded.runs.get(run))
        for run, at_k, summary in zip(checked.run_names, at_ks, summaries, strict=True))
    sweep_range = None if recorded is None else recorded.sweep_range
    if not all(r.sweep_means for r in saved_runs):
        sweep_range = None
    nq = len(checked.query_ids)
    return SavedEvaluation(
        k=checked.k, conventions=checked.conventions,
        query_ids=np.asarray(checked.query_ids, dtype=object),
        scored=np.ones(nq, dtype=bool), runs=saved_runs, source=checked.name,
        recorded=recorded is not None,
        engine=ENGINE_UNRECORDED if recorded is None else recorded.engine,
        sweep_range=sweep_range,
        queries=None if recorded is None else recorded.queries,
        excluded=None if recorded is None else recorded.excluded,
        max_grade=1 if recorded is None else recorded.max_grade,
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


def _saved_run(name: str, at_k: dict[str, np.ndarray], summary: dict[str, Interval],
               recorded: _RecordedRun | None) -> SavedRun:
    if recorded is None:
        return SavedRun(name, summary, at_k)
    return SavedRun(name, summary, at_k, missing=recorded.missing, repeats=recorded.repeats,
                    sweep_means=recorded.sweep, sweep_intervals=recorded.bands)


# --------------------------------------------------------------------------- the file, checked


@dataclass(frozen=True, eq=False)
class _RecordedRun:
    """What the metadata says of one run, checked."""

    missing: int | None
    repeats: int | None
    sweep: dict[str, np.ndarray] | None  # "k", then each sweep figure's name -> its means
    bands: list[tuple[int, str, float, float]] | None  # (k, name, low, high)


@dataclass(frozen=True, eq=False)
class _Recorded:
    """The metadata, checked field by field and against the table."""

    engine: str
    sweep_range: tuple[int, int] | None
    queries: int | None
    excluded: int | None
    max_grade: int
    runs: dict[str, _RecordedRun]


@dataclass(frozen=True, eq=False)
class _Checked:
    """A file of saved figures as read and checked: what read_figures computes from."""

    name: str
    k: int
    conventions: Conventions
    query_ids: list[str]  # in the order they were written
    run_names: list[str]
    specs: list[Spec]  # each (measure, K) pair of the table, in the order it first appears
    values: np.ndarray  # (runs, figures, queries)
    recorded: _Recorded | None  # None: the file records no metadata


_SLACK = 1e-9  # a figure in [0, 1] may stray this far past either end by rounding
_MAX_COUNT = 2**53  # a count read from the metadata: an integer a float holds exactly
_MAX_GRADE = 2**63 - 1  # grades are int64


def _iv(source, file_name: str | None, max_bytes: int) -> _Checked:
    """The one validation of a file of saved figures (scipy's ``_iv``): its bytes as a
    Parquet file of the schema --per-query-out writes, each row, the metadata field by field,
    and the table and the metadata against each other. A LoadError naming the file and the
    row or the field, never another exception."""
    check_max_bytes(max_bytes)
    if isinstance(source, bytes | bytearray | memoryview):
        name = file_name or "figures"
    else:
        name = file_name or Path(source).name
    table, raw = _read(source, name, max_bytes)
    about = _metadata(raw, name, max_bytes)
    query_ids = pc.unique(table["query_id"])  # first appearance: the order they were written
    runs = pc.unique(table["run"])
    if len(runs) > MAX_SAVED_RUNS:
        raise LoadError(name, None, f"names {len(runs):,} runs; a file of saved figures holds "
                        f"at most {MAX_SAVED_RUNS} (every page lays out each run)")
    run_names = [str(r) for r in runs.to_pylist()]
    _check_names(name, table, [str(q) for q in query_ids.to_pylist()], run_names)
    figures, f_codes = _figures(table, name)
    fields = _Fields(name)
    if about is None:
        k, conventions = _k_of(figures, name), Conventions()
    else:
        k, conventions = fields.k(about), fields.conventions(about)
    specs = [_spec(measure, at, k, conventions, name, _first_row(f_codes, i))
             for i, (measure, at) in enumerate(figures)]
    missing = [s.key for s in DEFAULT_SUMMARY if s.key not in {spec.key for spec in specs}]
    if missing:
        raise LoadError(name, None, "holds no " + ", ".join(missing) + " figure: a file of "
                        "saved figures holds every default figure (--per-query-out writes "
                        "them)")
    _check_values(name, table, specs, f_codes)
    values = _grid(name, table, specs, query_ids, runs, f_codes)
    recorded = None if about is None else fields.recorded(
        about, run_names, len(query_ids), conventions, sweep_specs_of(
            tuple(s for s in specs if s.measure.in_summary), conventions))
    return _Checked(name, k, conventions, query_ids.to_pylist(), run_names, specs, values,
                    recorded)


def _read(source, name: str, max_bytes: int) -> tuple[pa.Table, bytes | None]:
    """The table's five columns as the schema types them, every row with a query, a run, a
    figure and a finite value; and the raw metadata (None when the file has none). Only a
    regular file or bytes; the data bounded uncompressed and decoded (``decoded_bound``)."""
    import pyarrow.parquet as pq  # on use: see metrics.io.parquet._open

    if isinstance(source, bytes | bytearray | memoryview):
        where = pa.BufferReader(bytes(source))
    else:
        where = _regular_file(source, name)
    try:
        file = pq.ParquetFile(where)
    except (pa.ArrowException, OSError) as exc:
        raise LoadError(name, None, f"not a Parquet file of saved figures "
                        f"({' '.join(str(exc).split())})") from None
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
    for column in SCHEMA.names:
        kind = schema.field(column).type
        family, test = _TAKES[column]
        if not test(kind.value_type if pa.types.is_dictionary(kind) else kind):
            raise LoadError(name, None, f"the {column} column holds {kind}, not {family}; "
                            f"--per-query-out writes {SCHEMA.field(column).type} (a column is "
                            "read as written, never converted from another kind)")
    decoded_bound(name, where, file, SCHEMA.names, max_bytes)
    try:
        table = file.read(columns=SCHEMA.names).cast(SCHEMA)
    except (pa.ArrowException, OSError) as exc:
        raise LoadError(name, None, f"a column of the wrong type ({exc}); --per-query-out "
                        f"writes {SCHEMA}".replace("\n", ", ")) from None
    if not table.num_rows:
        raise LoadError(name, None, "holds no figure (an empty table)")
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
    ks = table["k"].fill_null(1)
    bad = pc.or_(pc.less(ks, 1), pc.greater(ks, MAX_K))
    if pc.any(bad).as_py():
        row = _first_true(bad)
        raise LoadError(name, row + 1, f"k must be a cutoff from 1 to {MAX_K:,} (or null for a "
                        f"figure of the whole list), got {table['k'][row].as_py()}", unit="row")
    return table, (schema.metadata or {}).get(METADATA_KEY)


def _text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _number(kind: pa.DataType) -> bool:
    return (pa.types.is_integer(kind) or pa.types.is_floating(kind)) \
        and not pa.types.is_float16(kind)


# what each column of the schema may hold as written (its values read as the schema types them,
# within the kind): text as text, numbers as numbers: a value written as the text "0.5" is
# refused, not parsed (another tool wrote that column, and may have written it otherwise)
_TAKES = {"query_id": ("text", _text), "run": ("text", _text), "measure": ("text", _text),
          "k": ("integers", pa.types.is_integer), "value": ("numbers", _number)}


def _regular_file(source, name: str) -> str:
    """A path to a regular file, or a LoadError naming it: a directory, a device, a FIFO (a
    Parquet file is read by seeking), a name that resolves to nothing (a symlink loop)."""
    try:
        path = os.fspath(source)
        mode = os.stat(path).st_mode
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        problem = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise LoadError(name, None, f"cannot be opened ({problem})") from None
    if not stat.S_ISREG(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
        raise LoadError(name, None, f"is {kind}, not a Parquet file of saved figures")
    return path


def _metadata(raw: bytes | None, name: str, max_bytes: int) -> dict | None:
    """The metadata's JSON object (None when the file has none)."""
    if raw is None:
        return None
    if len(raw) > max_bytes:
        raise LoadError(name, None, f"its metadata {METADATA_KEY.decode()} holds "
                        f"{len(raw):,} bytes, over the bound of {max_bytes:,}")
    try:
        about = json.loads(raw.decode("utf-8"), object_pairs_hook=unique_keys)
    except DuplicateKey as exc:
        problem = f"repeats the key {show(str(exc))}"
    except RecursionError:
        problem = "is JSON nested too deeply"
    except UnicodeDecodeError:
        problem = "is not UTF-8 text"
    except ValueError as exc:  # not JSON; an integer of too many digits
        problem = f"is not valid JSON ({show(str(exc), 80)})"
    else:
        if not isinstance(about, dict):
            problem = f"must be a JSON object, got {json_type(about)}"
        elif about.get("version") != METADATA_VERSION or type(about["version"]) is not int:
            problem = (f"is version {show(about.get('version'))}; this engine reads version "
                       f"{METADATA_VERSION}")
        else:
            return about
    raise LoadError(name, None, f"its metadata {METADATA_KEY.decode()} {problem}")


def _check_names(name: str, table: pa.Table, query_ids: list[str], runs: list[str]) -> None:
    """Ids and run names as a run file's: not empty; run names that do not look alike (they
    are compared as shown) and not longer than a run's name may be."""
    for column, given in (("query_id", query_ids), ("run", runs)):
        if "" in given:
            row = _first_true(pc.equal(table[column], ""))
            raise LoadError(name, row + 1, f"empty {column}", unit="row")
    for run in runs:
        if len(run) > MAX_NAME_CHARS:
            raise LoadError(name, None, f"run name {show(run)} is {len(run):,} characters long; "
                            f"a run's name holds at most {MAX_NAME_CHARS}")
    seen: dict[str, str] = {}
    for run in runs:
        other = seen.setdefault(plain_name(run), run)
        if other != run:
            raise LoadError(name, None, f"runs {show(other)} and {show(run)} look alike (the "
                            "same name once invisible characters are removed)")


def _codes(column, uniques) -> np.ndarray:
    return pc.index_in(column, value_set=uniques).to_numpy(zero_copy_only=False).astype(np.int64)


def _figures(table: pa.Table, name: str) -> tuple[list[tuple[str, int | None]], np.ndarray]:
    """Each distinct (measure, K) pair in the order it first appears, and each row's."""
    names = pc.unique(table["measure"])
    m_codes = _codes(table["measure"], names)
    ks = table["k"].fill_null(0).to_numpy().astype(np.int64)  # K from 1: 0 is no K
    pair = m_codes * (MAX_K + 1) + ks
    uniques, first, codes = np.unique(pair, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    figures = [(names[int(m_codes[first[i]])].as_py(),
                None if ks[first[i]] == 0 else int(ks[first[i]])) for i in order]
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
        spec = spec.settled(k, conventions)
    except ValueError as exc:
        raise LoadError(name, row, f"figure {show(measure)}: {exc}", unit="row") from None
    if (at is None) != spec.reads_whole(conventions) or (at is not None and spec.k(k) != at):
        raise LoadError(name, row, f"figure {show(measure)} at K = {at}, but the file's K is "
                        f"{k}: a file of saved figures holds one K", unit="row")
    return spec


def _check_values(name: str, table: pa.Table, specs: list[Spec], f_codes: np.ndarray) -> None:
    """Every value within what its figure can be: [0, 1] for a score, a count a whole
    number, nothing below 0 (DCG and IDCG have no ceiling)."""
    values = table["value"].to_numpy(zero_copy_only=False)
    low = np.zeros(len(specs))
    high = np.array([1.0 if s.measure.bounded else np.inf for s in specs])
    whole = np.array([s.measure.total for s in specs])
    code = f_codes
    bad = ((values < low[code] - _SLACK) | (values > high[code] + _SLACK)
           | (whole[code] & (values != np.floor(values))))
    if bad.any():
        row = int(np.argmax(bad))
        spec = specs[int(code[row])]
        within = ("a whole number from 0" if spec.measure.total
                  else "from 0 to 1" if spec.measure.bounded else "0 or more")
        raise LoadError(name, row + 1, f"{_figure_words(table, row)} is {float(values[row])!r}: "
                        f"{spec.name(summary=False)} is {within}", unit="row")


def _grid(name: str, table: pa.Table, specs: list[Spec], query_ids: pa.Array, runs: pa.Array,
          f_codes: np.ndarray) -> np.ndarray:
    """The values as (runs, figures, queries): every cell written once. Checked on the rows
    alone (memory follows the rows, not runs x figures x queries, which a file of distinct
    runs and queries a row each would make huge)."""
    nq, nf, nr = len(query_ids), len(specs), len(runs)
    q_codes, r_codes = _codes(table["query_id"], query_ids), _codes(table["run"], runs)
    cell = (r_codes * nf + f_codes) * nq + q_codes
    order = np.argsort(cell, kind="stable")
    twice = np.flatnonzero(cell[order][1:] == cell[order][:-1])
    if len(twice):
        row = int(order[twice + 1].min())
        raise LoadError(name, row + 1, f"{_figure_words(table, row)} is written twice "
                        "(once a row for each query, run and figure)", unit="row")
    if len(cell) != nr * nf * nq:
        held = np.zeros(nr * nf, dtype=np.int64)  # each (run, figure): its queries
        np.add.at(held, r_codes * nf + f_codes, 1)
        gap = int(np.argmax(held < nq))
        run, figure = divmod(gap, nf)
        mine = q_codes[(r_codes == run) & (f_codes == figure)]
        query = int(np.argmax(~np.isin(np.arange(nq), mine)))
        raise LoadError(name, None, f"run {show(runs[run].as_py())} has no "
                        f"{show(specs[figure].name(summary=False))} for query "
                        f"{show(query_ids[query].as_py())}: every run must hold every figure "
                        "of every query the file names")
    values = np.empty(nr * nf * nq)
    values[cell] = table["value"].to_numpy(zero_copy_only=False)
    return values.reshape(nr, nf, nq)


def _figure_words(table: pa.Table, row: int) -> str:
    return (f"{show(table['measure'][row].as_py())} of run {show(table['run'][row].as_py())} "
            f"for query {show(table['query_id'][row].as_py())}")


class _Fields:
    """The metadata's fields, each checked for its type and its bounds against what an
    evaluation can hold; a refusal names the file and the field (`runs.bm25.sweep.P`)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, field: str, problem: str, value: object) -> LoadError:
        return LoadError(self.name, None, f"its metadata's {field} {problem}, got "
                         f"{_shown(value)}")

    def integer(self, value: object, field: str, low: int, high: int) -> int:
        if not is_number(value, integer=True) or not low <= value <= high:
            raise self.fail(field, f"must be an integer from {low:,} to {high:,}", value)
        return int(value)

    def k(self, about: dict) -> int:
        return self.integer(about.get("k"), "k", 1, MAX_K)

    def conventions(self, about: dict) -> Conventions:
        given = about.get("conventions")
        if not isinstance(given, dict):
            raise self.fail("conventions", "must be an object of the conventions", given)
        unknown = [key for key in given if key not in VALUE_ORDER]
        if unknown:
            raise LoadError(self.name, None, f"its metadata's conventions name "
                            f"{show(unknown[0])}, which is no convention (they are "
                            + ", ".join(VALUE_ORDER) + ")")
        try:  # each convention within the bounds the engine (and its flag) holds it to
            return Conventions(**given)
        except ValueError as exc:  # the message starts with the convention's name
            raise LoadError(self.name, None, f"its metadata's conventions.{exc}") from None

    def recorded(self, about: dict, run_names: list[str], scored: int,
                 conventions: Conventions, sweep_specs: Sequence[Spec]) -> _Recorded:
        engine = about.get("engine")
        if not isinstance(engine, str) or engine not in ENGINES:
            raise self.fail("engine", "must name an engine (" + ", ".join(ENGINES) + ")",
                            engine)
        sweep_range = self.sweep_range(about.get("sweep_range"))
        excluded = about.get("excluded")
        excluded = None if excluded is None else self.integer(excluded, "excluded", 0,
                                                              _MAX_COUNT)
        if excluded and conventions.empty_queries == "zero":
            raise self.fail("excluded", "must be 0 under conventions.empty_queries 'zero' "
                            "(every query is scored)", excluded)
        queries = about.get("queries")
        if queries is not None:
            total = scored + (excluded or 0)
            low, high = (total, total) if excluded is not None else (scored, _MAX_COUNT)
            if not is_number(queries, integer=True) or not low <= queries <= high:
                raise self.fail("queries", f"must be the qrels' queries: the {scored:,} "
                                f"scored queries the table holds and the {excluded or 0:,} "
                                "excluded", queries)
            queries = int(queries)
        max_grade = about.get("max_grade", 1)
        max_grade = self.integer(max_grade, "max_grade", 1, _MAX_GRADE)
        runs = about.get("runs")
        if runs is None:
            runs = {}
        if not isinstance(runs, dict):
            raise self.fail("runs", "must be an object naming each run", runs)
        if runs and set(runs) != set(run_names):
            odd = sorted(set(runs) ^ set(run_names))[0]
            raise LoadError(self.name, None, f"its metadata's runs must name the table's runs "
                            f"({show(run_names, 60)}), and {show(odd)} is only in "
                            + ("the metadata" if odd in runs else "the table"))
        checked = {run: self.run(run, value, queries, sweep_range, sweep_specs)
                   for run, value in runs.items()}
        return _Recorded(engine, sweep_range, queries, excluded, max_grade, checked)

    def sweep_range(self, value: object) -> tuple[int, int] | None:
        if value is None:
            return None
        if (not isinstance(value, list) or len(value) != 2
                or not all(is_number(v, integer=True) for v in value)):
            raise self.fail("sweep_range", "must be [FROM, TO], two integers", value)
        try:
            return check_sweep(*value)
        except ValueError as exc:
            raise self.fail("sweep_range", f"must be a sweep ({exc})", value) from None

    def run(self, run: str, value: object, queries: int | None,
            sweep_range: tuple[int, int] | None, sweep_specs: Sequence[Spec]) -> _RecordedRun:
        field = f"runs.{_shown(run)}"
        if not isinstance(value, dict):
            raise self.fail(field, "must be an object (missing, repeats, sweep, bands)", value)
        unknown = [key for key in value if key not in ("missing", "repeats", "sweep", "bands")]
        if unknown:
            raise self.fail(field, "holds missing, repeats, sweep and bands", unknown[0])
        counts = []
        for key, high in (("missing", _MAX_COUNT if queries is None else queries),
                          ("repeats", _MAX_COUNT)):
            given = value.get(key)
            counts.append(None if given is None else self.integer(given, f"{field}.{key}", 0,
                                                                  high))
        names = [s.name() for s in sweep_specs]
        sweep = self.sweep(value.get("sweep"), f"{field}.sweep", sweep_range, names)
        bands = self.bands(value.get("bands"), f"{field}.bands", sweep_range, names)
        return _RecordedRun(*counts, sweep, bands)

    def sweep(self, value: object, field: str, sweep_range: tuple[int, int] | None,
              names: list[str]) -> dict[str, np.ndarray] | None:
        """The sweep's means: one array a sweep figure, a mean in [0, 1] at each K."""
        if value is None or value == {}:
            return None
        if not isinstance(value, dict):
            raise self.fail(field, "must be an object of each figure's means", value)
        if sweep_range is None:
            raise self.fail(field, "needs the metadata's sweep_range", sweep_range)
        if sorted(value) != sorted(names):
            raise self.fail(field, "must hold the means of " + ", ".join(names),
                            sorted(value))
        lo, hi = sweep_range
        means = {"k": np.arange(lo, hi + 1)}
        for key in names:
            means[key] = self.fractions(value[key], f"{field}.{_shown(key)}", hi - lo + 1)
        return means

    def fractions(self, value: object, field: str, count: int) -> np.ndarray:
        """`count` means of a figure in [0, 1]."""
        if (not isinstance(value, list) or len(value) != count
                or not all(type(v) in (int, float) for v in value)):
            raise self.fail(field, f"must be a list of {count:,} numbers (one a K of the "
                            "sweep)", value)
        array = np.array(value, dtype=float)
        bad = ~np.isfinite(array) | (array < -_SLACK) | (array > 1 + _SLACK)
        if bad.any():
            at = int(np.argmax(bad))
            raise self.fail(f"{field}[{at}]", "must be a mean from 0 to 1", value[at])
        return array

    def bands(self, value: object, field: str, sweep_range: tuple[int, int] | None,
              names: list[str]) -> list[tuple[int, str, float, float]] | None:
        """Each band: [K within the sweep, a sweep figure's name, low, high], 0 <= low <=
        high <= 1."""
        if value is None:
            return None
        if not isinstance(value, list):
            raise self.fail(field, "must be a list of [K, figure, low, high]", value)
        if sweep_range is None and value:
            raise self.fail(field, "needs the metadata's sweep_range", sweep_range)
        bands = []
        for i, band in enumerate(value):
            if not (isinstance(band, list) and len(band) == 4
                    and is_number(band[0], integer=True)
                    and sweep_range[0] <= band[0] <= sweep_range[1]
                    and isinstance(band[1], str) and band[1] in names
                    and all(type(v) in (int, float) for v in band[2:])
                    and -_SLACK <= band[2] <= band[3] <= 1 + _SLACK):
                raise self.fail(f"{field}[{i}]", "must be [K within the sweep, a sweep "
                                "figure, low, high] with 0 <= low <= high <= 1", band)
            bands.append((int(band[0]), band[1], float(band[2]), float(band[3])))
        return bands


def _shown(value: object) -> str:
    """A value of a file quoted in a message: its repr, cut short (nested values too)."""
    return show(value, 60)


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
