"""A file of saved figures is read like any other input: its table and its metadata are
checked against what an evaluation can hold, and whatever is not is one ValueError naming
the file and the row or the field, never another exception, a blow-up or a figure shown as
given (values outside [0, 1], counts below 0, 40,000,000 resamples, 10,000 runs)."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import metrics
from metrics.core.per_query import write_long
from metrics.core.sample import SAMPLE_DIR
from metrics.core.saved import about, read_figures
from metrics.vocabulary.conventions import MAX_RESAMPLES
from metrics.vocabulary.limits import MAX_SAVED_RUNS
from metrics.vocabulary.saved import METADATA_KEY
from tests.metrics.capped import ROOT
from tests.metrics.edits import any_field_edited

NAME = "figures.parquet"


def _evaluation(engine: str):
    qrels = SAMPLE_DIR / "qrels.txt"
    runs = [metrics.RunSource(str(spec.source)) for spec in metrics.sample_runs()]
    if engine == "blocks":
        loaded, _ = metrics.load_qrels(qrels)
        return metrics.evaluate_blocks(loaded, runs, 5)  # its bands are saved too
    return metrics.evaluate_files(qrels, runs, 5)


@pytest.fixture(scope="module", params=["memory", "blocks"])
def saved(request):
    """The sample's figures as --per-query-out writes them: (table, metadata)."""
    evaluation = _evaluation(request.param)
    out = io.BytesIO()
    write_long(out, evaluation.per_query_tables(), about(evaluation, request.param))
    table = pq.read_table(pa.BufferReader(out.getvalue()))
    return table.replace_schema_metadata(None), json.loads(table.schema.metadata[METADATA_KEY])


def written(table: pa.Table, metadata: object) -> bytes:
    """The table with `metadata` as its JSON (bytes as they are), as a file's bytes."""
    raw = metadata if isinstance(metadata, bytes) else json.dumps(metadata).encode()
    out = io.BytesIO()
    pq.write_table(table.replace_schema_metadata({METADATA_KEY: raw}), out)
    return out.getvalue()


def read(data: bytes):
    return read_figures(data, file_name=NAME)


def edited(metadata: dict, path: tuple, value) -> dict:
    changed = copy.deepcopy(metadata)
    target = changed
    for name in path[:-1]:
        target = target[name] if name != "<run>" else target[next(iter(target))]
    last = path[-1] if path[-1] != "<run>" else next(iter(target))
    target[last] = value
    return changed


def test_the_files_as_written_are_read(saved):
    table, metadata = saved
    evaluation = read(written(table, metadata))
    assert evaluation.recorded and evaluation.sweep_range == tuple(metadata["sweep_range"])


@pytest.mark.parametrize(("path", "value", "message"), [
    # (40,000,000 resamples: in a capped process below, as it would blow up before)
    (("conventions", "n_resamples"), 0,
     r"conventions\.n_resamples must be an integer from 1 to 100,000, got 0"),
    (("conventions", "seed"), -1, r"conventions\.seed must be an integer from 0"),
    (("conventions", "relevance_level"), 10**9, r"conventions\.relevance_level must be"),
    (("conventions", "gain"), ["linear"], r"conventions\.gain must be one of linear"),
    (("conventions",), [1], r"'s conventions must be an object"),
    (("k",), "5", r"'s k must be an integer from 1 to 1,000,000, got '5'"),
    (("engine",), 5, r"'s engine must name an engine"),
    (("queries",), -5, r"'s queries must be the qrels' queries: the 9 scored queries the "
                       r"table holds and the 1 excluded, got -5"),
    (("queries",), 10_000_000_000, r"'s queries must be the qrels' queries"),
    (("queries",), "many", r"'s queries must be the qrels' queries.*got 'many'"),
    (("excluded",), -1, r"'s excluded must be an integer from 0"),
    (("max_grade",), -3, r"'s max_grade must be an integer from 1"),
    (("max_grade",), 1e29, r"'s max_grade must be an integer from 1.*got 1e\+29"),
    (("sweep_range",), [1], r"'s sweep_range must be \[FROM, TO\], two integers, got \[1\]"),
    (("sweep_range",), "ab", r"'s sweep_range must be \[FROM, TO\]"),
    (("sweep_range",), None, r"\.sweep needs the metadata's sweep_range"),
    (("sweep_range",), [0, 10], r"'s sweep_range must be a sweep"),
    (("runs",), ["baseline", "reranked", "bm25"], r"'s runs must be an object naming each"),
    (("runs", "<run>", "missing"), "x", r"\.missing must be an integer from 0 to 10, got 'x'"),
    (("runs", "<run>", "missing"), 11, r"\.missing must be an integer from 0 to 10"),
    (("runs", "<run>", "repeats"), -1, r"\.repeats must be an integer from 0"),
    (("runs", "<run>", "sweep", "P"), [5.0] * 10, r"\.sweep\.'P'\[0\] must be a mean from 0"),
    (("runs", "<run>", "sweep", "P"), [[0.5]] * 10, r"\.sweep\.'P' must be a list of 10 "),
    (("runs", "<run>", "sweep", "P"), [0.5] * 3, r"\.sweep\.'P' must be a list of 10 "),
    (("runs", "<run>", "sweep", "Nope"), [0.5] * 10, r"\.sweep must hold the means of P, R"),
    (("runs", "<run>", "bands"), [None], r"\.bands\[0\] must be \[K within the sweep"),
    (("runs", "<run>", "bands"), [[3, "P", 0.9, 0.1]], r"\.bands\[0\] must be"),
    (("runs", "<run>", "bands"), [[99, "P", 0.1, 0.9]], r"\.bands\[0\] must be"),
    (("runs", "<run>"), "x", r"'s runs\.'\w+' must be an object"),
    (("version",), 2, r"retrieval_compare\.evaluation is version 2; this engine reads "
                      r"version 1"),
    (("version",), True, r"is version True"),
])
def test_a_field_out_of_what_can_exist_is_refused_naming_it(saved, path, value, message):
    table, metadata = saved
    with pytest.raises(ValueError, match=rf"^{NAME}: its metadata.*{message}"):
        read(written(table, edited(metadata, path, value)))


@pytest.mark.parametrize(("raw", "message"), [
    (b"[" * 100_000 + b"]" * 100_000, "is JSON nested too deeply"),
    (b"[1]", "must be a JSON object, got an array"),
    (b"\xff\xfe", "is not UTF-8 text"),
    (b'{"version": 1, "version": 1}', "repeats the key 'version'"),
    (b"{", "is not valid JSON"),
])
def test_metadata_that_is_not_a_json_object_is_refused(saved, raw, message):
    table, _ = saved
    with pytest.raises(ValueError, match=rf"^{NAME}: its metadata retrieval_compare\."
                       rf"evaluation {message}"):
        read(written(table, raw))


@pytest.mark.parametrize(("measure", "value", "message"), [
    ("P", 5.0, r"'P' of run 'baseline' for query 'q01' is 5\.0: P is from 0 to 1"),
    ("P", -0.5, r"is -0\.5: P is from 0 to 1"),
    ("nDCG", 1.5, r"is 1\.5: nDCG is from 0 to 1"),
    ("DCG", -1.0, r"is -1\.0: DCG is 0 or more"),
])
def test_a_value_outside_its_figures_range_is_refused(saved, measure, value, message):
    table, metadata = saved
    values = table["value"].to_numpy().copy()
    row = int(np.flatnonzero(table["measure"].to_numpy(zero_copy_only=False) == measure)[0])
    values[row] = value
    bad = table.set_column(4, "value", pa.array(values))
    with pytest.raises(ValueError, match=rf"^{NAME}, row {row + 1}: .*{message}"):
        read(written(bad, metadata))
    assert read(written(table.set_column(4, "value", pa.array(
        np.where(np.arange(len(values)) == row, 2.0, table["value"].to_numpy())))
        if measure == "DCG" else table, metadata))  # DCG has no ceiling


def test_a_zero_row_file_and_a_negative_k_are_refused_naming_the_file(saved):
    table, metadata = saved
    with pytest.raises(ValueError, match=rf"^{NAME}: holds no figure \(an empty table\)$"):
        read(written(table.slice(0, 0), metadata))
    ks = pa.array([-5] + table["k"].to_pylist()[1:], pa.int32())
    with pytest.raises(ValueError, match=rf"^{NAME}, row 1: k must be a cutoff from 1"):
        read(written(table.set_column(3, "k", ks), metadata))


@pytest.mark.parametrize(("column", "kind", "said"), [
    ("value", pa.string(), "the value column holds string, not numbers; --per-query-out writes "
                           "double"),
    ("k", pa.string(), "the k column holds string, not integers"),
    ("query_id", pa.int64(), None),  # the sample's ids are text: its ids as numbers cannot be
    ("measure", pa.binary(), "the measure column holds binary, not text"),
])
def test_a_column_of_another_kind_is_refused_not_converted(saved, column, kind, said):
    """A value written as text ("0.5") was parsed and shown as a figure: a column is read as
    written, within its kind, and any other kind is refused naming the file and the column."""
    table, metadata = saved
    index = table.schema.get_field_index(column)
    if said is None:  # integer ids: q01 -> 1
        values = pa.array([int(v.lstrip("q")) for v in table[column].to_pylist()], kind)
        said = "the query_id column holds int64, not text"
    elif kind == pa.binary():
        values = pa.array([v.encode() for v in table[column].to_pylist()], kind)
    else:
        values = pa.array([None if v is None else str(v) for v in table[column].to_pylist()],
                          kind)
    with pytest.raises(ValueError, match=rf"^{NAME}: {said}"):
        read(written(table.set_column(index, column, values), metadata))


def one_row_runs(count: int) -> pa.Table:
    """`count` runs of one query each (every default figure once): 11 rows a run."""
    measures = ("P", "R", "F1", "Hit", "RR", "AP", "DCG", "IDCG", "nDCG", "CP", "Judged")
    rows = [("q1", f"run{i}", m, 5, 0.5) for i in range(count) for m in measures]
    return pa.table({name: [r[i] for r in rows] for i, name in
                     enumerate(("query_id", "run", "measure", "k", "value"))},
                    schema=metrics.core.per_query.SCHEMA)


def test_a_file_names_at_most_max_saved_runs():
    """A 200 KB file naming 10,000 runs held the dashboard past 90 s: the bound is said."""
    out = io.BytesIO()
    pq.write_table(one_row_runs(MAX_SAVED_RUNS + 1), out)
    with pytest.raises(ValueError, match=rf"^{NAME}: names {MAX_SAVED_RUNS + 1} runs; a file "
                       rf"of saved figures holds at most {MAX_SAVED_RUNS}"):
        read(out.getvalue())
    out = io.BytesIO()
    pq.write_table(one_row_runs(MAX_SAVED_RUNS), out)
    assert len(read(out.getvalue()).runs) == MAX_SAVED_RUNS


def test_run_names_that_look_alike_are_refused():
    table = one_row_runs(2)
    runs = ["bm25" if r == "run0" else "bm\u200b25" for r in table["run"].to_pylist()]
    out = io.BytesIO()
    pq.write_table(table.set_column(1, "run", pa.array(runs)), out)
    with pytest.raises(ValueError, match=rf"^{NAME}: runs 'bm25' and 'bm\\u200b25' look alike"):
        read(out.getvalue())


def test_forty_million_resamples_are_refused_before_any_is_drawn(tmp_path, saved):
    """A 13 KB file asking for 40,000,000 resamples drove read_figures to 7.5 GB; in 2 GB
    of address space it is refused at once."""
    table, metadata = saved
    path = tmp_path / NAME
    path.write_bytes(written(table, edited(metadata, ("conventions", "n_resamples"),
                                           40_000_000)))
    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))\n"
            "from metrics import read_figures\n"
            "try:\n"
            "    read_figures(sys.argv[1])\n"
            "except ValueError as exc:\n"
            "    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], cwd=ROOT, capture_output=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().startswith(f"{NAME}: its metadata's conventions.n_resamples "
                                           f"must be an integer from 1 to {MAX_RESAMPLES:,}")


def test_a_directory_and_a_symlink_loop_are_named(tmp_path):
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    with pytest.raises(ValueError, match=r"^loop1: cannot be opened \(Too many levels of "
                       r"symbolic links\)$"):
        read_figures(tmp_path / "loop1")
    with pytest.raises(ValueError, match=rf"^{tmp_path.name}: is a directory, not a Parquet "):
        read_figures(tmp_path)


# --------------------------------------------------------------------------- any edit


_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=8),
    st.sampled_from([0, 1, -1, 5, 10, 0.5, 1.5, "baseline", "P", "memory", 2**63, 100_001]))
_JSON = st.recursive(
    _LEAVES, lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=12)


def _consistent(evaluation) -> None:
    """What a page reads of an evaluation read back is within what can exist."""
    assert 1 <= evaluation.k <= metrics.MAX_K
    assert 1 <= len(evaluation.runs) <= MAX_SAVED_RUNS
    assert evaluation.conventions.n_resamples <= MAX_RESAMPLES
    scored = len(evaluation.scored_ids)
    if evaluation.excluded is not None:
        assert evaluation.excluded >= 0
    if evaluation.queries is not None:
        assert evaluation.queries >= scored + (evaluation.excluded or 0)
    assert isinstance(evaluation.max_grade, int) and evaluation.max_grade >= 1
    for run in evaluation.runs:
        for key, interval in run.summary.items():
            if evaluation.spec(key).measure.bounded:
                assert -1e-9 <= interval.mean <= 1 + 1e-9 and interval.low <= interval.high
        for count in (run.missing, run.repeats):
            assert count is None or (isinstance(count, int) and count >= 0)
    if evaluation.sweep_range is not None:
        lo, hi = evaluation.sweep_range
        for run in evaluation.runs:
            for key, values in run.sweep_means.items():
                assert len(values) == hi - lo + 1
                if key != "k":
                    assert np.all((values >= -1e-9) & (values <= 1 + 1e-9))
        evaluation.sweep()
        for _, k, _, low, high in evaluation.sweep_intervals():
            assert lo <= k <= hi and -1e-9 <= low <= high <= 1 + 1e-9
    evaluation.summary()
    evaluation.per_query()


def _read_or_refused(data: bytes) -> None:
    try:
        evaluation = read(data)
    except ValueError as error:
        message = str(error)
        assert message.startswith(f"{NAME}") and "\n" not in message, message
        return
    _consistent(evaluation)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_edit_of_the_metadata_is_read_consistently_or_refused_naming_the_file(saved,
                                                                                   data):
    table, metadata = saved
    _read_or_refused(written(table, any_field_edited(data, metadata, _JSON, removals=True)))


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_edit_of_the_values_is_read_consistently_or_refused_naming_the_file(saved, data):
    table, metadata = saved
    column = data.draw(st.sampled_from(["value", "k", "measure", "run", "query_id"]))
    row = data.draw(st.integers(0, table.num_rows - 1))
    cells = table[column].to_pylist()
    if column == "value":
        cells[row] = data.draw(st.floats(allow_nan=True, allow_infinity=True))
    elif column == "k":
        cells[row] = data.draw(st.none() | st.integers(-(2**31), 2**31 - 1))
    else:
        cells[row] = data.draw(st.none() | st.text(max_size=6)
                               | st.sampled_from(table[column].unique().to_pylist()))
    field = table.schema.field(column)
    changed = table.set_column(table.schema.get_field_index(column), field,
                               pa.array(cells, field.type))
    _read_or_refused(written(changed, metadata))


def test_a_dictionary_bomb_of_figures_is_refused_before_it_is_read(saved):
    """Every row's query id one 64 KB value of a dictionary page: a file of a few KB that
    decodes to 20 MB, past a 4 MB bound (the default bound is 512 MB: the same check)."""
    table, metadata = saved
    long = pa.DictionaryArray.from_arrays(pa.array(np.zeros(table.num_rows, np.int32)),
                                          pa.array(["q" * (1 << 16)]))
    bomb = table.set_column(0, "query_id", long.cast(pa.string()))
    out = io.BytesIO()
    pq.write_table(bomb.replace_schema_metadata({METADATA_KEY: json.dumps(metadata).encode()}),
                   out, compression="zstd", dictionary_pagesize_limit=1 << 30)
    assert len(out.getvalue()) < 64 << 10
    with pytest.raises(ValueError, match=rf"^{NAME}: decodes to as much as .* MB once read"):
        read_figures(out.getvalue(), file_name=NAME, max_bytes=4 << 20)
