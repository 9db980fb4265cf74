"""Hostile-input probe (issue 45): hostile files, flags and output paths through whole processes
of the command line, each outcome sorted into one class.

    python benchmarks/hostile_probe.py [--json FILE] [--only SUBSTRING] [--no-spark] [--jobs N]
                                       [--list] [--keep DIR]

Every case is a small declaration (`Case`: its surface, the files it writes into a folder of
its own, the command's argv, what it must do: refuse, accept with a known answer, or either)
run as a process of its own (`python -m metrics ...`, `python -m dashboard report ...`, or one
of this script's drivers for the two readers that have no command of their own) from its
folder, with this checkout's packages first on PYTHONPATH, under a memory cap and a time cap:
RLIMIT_AS of 4 GB (Python with pyarrow maps about 1.8 GB before it reads a byte; 8 GB for
Spark, whose JVM does not start under 3 GB; none for the HTML report, whose chart renderer
reserves a V8 heap cage of many GB, where the probe kills it past 4 GB resident instead) and
60 s of wall time (120 s for the dashboard, 300 s for Spark). Each outcome gets one class, the
first that holds:

    data-lost      a file the command was given, or an output that was there before a write
                   that failed, changed or vanished (every file is checksummed before and after)
    blow-up        over 2 GB resident at its peak (polled VmHWM), the address-space cap hit
                   (VmPeak within 10% of it on a failure), MemoryError or the tool's "out of
                   memory" / "too large to load in memory", Arrow's capacity overflow, a Java
                   heap error, or the process killed by a signal
    hang           the time cap reached (the process group is killed)
    traceback      a Python or Java stack trace on standard error (Spark's executor log too),
                   or an exception on a dashboard page
    silent-wrong   exit 0 with a wrong answer (against the reference below), a NaN, a forged
                   output line or a raw control character, or a file it should have refused
    error-unnamed  a refusal (non-zero exit) whose error line names neither the file nor the flag
    error          a refusal whose error line names the file (or the flag) it is about
    accept         exit 0 with the right answer where the case knows it

The right answer of an accepted scoring case is every scored query's P@10, R@10, AP@10 and
nDCG@10 (and their means) in the JSON, against a plain-Python reference of trec_eval's
definitions (P_10, recall_10, map_cut_10, ndcg_cut_10; exponential gains in exact integers),
checked against pytrec_eval on the clean collection before the run. Saved figures are read
back by `metrics.read_figures` (driver `figures`: errors said as `run_guarded` says them) and
by the dashboard under Streamlit's AppTest (driver `dashboard`: `streamlit run
dashboard/serve.py -- --figures FILE` after serve.py's warm-up, every page opened; or the same
pages over uploaded files).

A measurement, not a test: it exits 0 whatever it finds. It runs from any checkout, with the
packages of the checkout it lives in and the interpreter that runs it; cases run one at a time
unless --jobs says otherwise (Spark's never two at once).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable

CLASSES = ("error", "error-unnamed", "accept", "silent-wrong", "traceback", "blow-up", "hang",
           "data-lost")
REFUSE, ACCEPT, EITHER = "refuse", "accept", "either"

GB = 1 << 30
# RLIMIT_AS: Python with pyarrow maps about 1.8 GB of address space (thread stacks, allocator
# arenas) before it reads a byte, so 4 GB of address space leaves about 2 GB to allocate
MEMORY_CAP = 4 * GB
SPARK_MEMORY_CAP = 8 * GB  # the JVM does not start under 3 GB
RESIDENT_BUDGET = 2 * GB  # a resident peak past this is a blow-up, however the command ended
RESIDENT_KILL = 4 * GB  # and past this the probe kills it (the only cap where RLIMIT_AS is off)
TIME_CAP = 60.0
DASHBOARD_TIME_CAP = 120.0
SPARK_TIME_CAP = 300.0
CAP_HIT = 0.9  # a failure with this share of the cap's address space in use: the cap was hit
OUTPUT_KEPT = 64 << 20  # bytes of standard output kept for the checks

K = 10
MARK = "FORGED"

# --------------------------------------------------------------------------- the collection

QRELS: dict[str, dict[str, int]] = {
    "q1": {"d1": 2, "d2": 1, "d3": 0, "d5": 3, "d9": 1},
    "q2": {"d11": 1, "d14": 2, "d20": 1},
    "q3": {"d21": 1, "d22": 0, "d30": 2},
    "q4": {"d31": 3, "d35": 1, "d38": 2, "d39": 1},
    "q5": {"d41": 1},
    "q6": {"d51": 0, "d52": 0},  # no relevant id: excluded from every mean
    "q7": {"d61": 2, "d62": 2, "d63": 1, "d70": 1},
    "q8": {"d71": 1, "d79": 3},
}


def _ranked(shift: int) -> dict[str, list[str]]:
    """Ten ids a query, in a fixed scrambled order (some judged, most not)."""
    out = {}
    for i, q in enumerate(QRELS, 1):
        docs = [f"d{10 * (i - 1) + j}" for j in range(1, 11)]
        out[q] = [docs[(j * 7 + shift) % 10] for j in range(10)]
    return out


RUN = _ranked(0)
RUN2 = _ranked(3)


def score_of(rank: int) -> float:
    return 20.5 - rank


def run_rows(run: dict[str, list] | None = None) -> list[list]:
    """TREC run rows: query, Q0, doc, rank, score, tag."""
    run = RUN if run is None else run
    return [[q, "Q0", d, r, score_of(r), "probe"] for q, docs in run.items()
            for r, d in enumerate(docs, 1)]


def qrels_rows(qrels: dict[str, dict] | None = None) -> list[list]:
    qrels = QRELS if qrels is None else qrels
    return [[q, 0, d, g] for q, docs in qrels.items() for d, g in docs.items()]


def _b(value) -> bytes:
    if isinstance(value, bytes):
        return value
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return repr(value).encode()
    return str(value).encode("utf-8", "surrogatepass")


def lazy(make: Callable[[], bytes]) -> Callable[[Path], None]:
    """A file's bytes made when the case runs, not when it is declared (the large ones)."""
    def build(path: Path) -> None:
        path.write_bytes(make())
    return build


def lines(rows: Iterable[Iterable], sep: bytes = b" ", end: bytes = b"\n") -> bytes:
    return b"".join(sep.join(_b(v) for v in row) + end for row in rows)


def trec_run(run=None) -> bytes:
    return lines(run_rows(run))


def trec_qrels(qrels=None) -> bytes:
    return lines(qrels_rows(qrels))


def _csv_cell(value) -> bytes:
    raw = _b(value)
    if any(c in raw for c in (b",", b'"', b"\n", b"\r", b"\t")) or raw[:1] in (b" ",):
        return b'"' + raw.replace(b'"', b'""') + b'"'
    return raw


def csv_bytes(header: list[str], rows: Iterable[Iterable], sep: bytes = b",") -> bytes:
    out = [sep.join(h.encode() for h in header)]
    out += [sep.join(_csv_cell(v) if sep == b"," else _b(v) for v in row) for row in rows]
    return b"\n".join(out) + b"\n"


def csv_run(run=None) -> bytes:
    return csv_bytes(["query_id", "doc_id", "rank", "score"],
                     [[r[0], r[2], r[3], r[4]] for r in run_rows(run)])


def csv_qrels(qrels=None) -> bytes:
    return csv_bytes(["query_id", "doc_id", "grade"],
                     [[r[0], r[2], r[3]] for r in qrels_rows(qrels)])


def jsonl_run(run=None) -> bytes:
    run = RUN if run is None else run
    return b"".join(json.dumps({"query_id": q, "retrieved": docs}).encode() + b"\n"
                    for q, docs in run.items())


def jsonl_qrels(qrels=None) -> bytes:
    qrels = QRELS if qrels is None else qrels
    return b"".join(json.dumps({"query_id": q, "relevant": docs}).encode() + b"\n"
                    for q, docs in qrels.items())


def renamed(mapping: dict, old: str, new: str) -> dict:
    """A copy of a qrels or run dict with query `old` renamed `new` (order kept)."""
    return {new if q == old else q: v for q, v in mapping.items()}


def doc_renamed(qrels: dict, run: dict, old: str, new: str) -> tuple[dict, dict]:
    q2 = {q: {new if d == old else d: g for d, g in docs.items()} for q, docs in qrels.items()}
    r2 = {q: [new if d == old else d for d in docs] for q, docs in run.items()}
    return q2, r2


# --------------------------------------------------------------------------- the reference

def reference(qrels: dict[str, dict], run: dict[str, list], k: int = K,
              gain: str = "linear") -> dict[str, dict[str, float]]:
    """trec_eval's P_k, recall_k, map_cut_k and ndcg_cut_k of every query with a relevant id
    (a query the run lacks scores 0), with the engine's rule for a repeated id (it keeps its
    slot; only its first occurrence scores)."""
    out = {}
    for q, judged in qrels.items():
        relevant = [g for g in judged.values() if g >= 1]
        if not relevant:
            continue
        top = max(judged.values())
        seen, hits, ap, dcg = set(), 0, 0.0, 0.0
        for i, d in enumerate(run.get(q, [])[:k], 1):
            first = d not in seen
            seen.add(d)
            g = judged.get(d, 0) if first else 0
            if g >= 1:
                hits += 1
                ap += hits / i
            if g > 0:
                dcg += _gain(g, gain, top) / math.log2(i + 1)
        ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
        idcg = sum(_gain(g, gain, top) / math.log2(i + 1) for i, g in enumerate(ideal, 1))
        out[q] = {"P": hits / k, "R": hits / len(relevant), "AP": ap / len(relevant),
                  "nDCG": dcg / idcg}
    return out


def _gain(grade: int, gain: str, top: int) -> float:
    """The gain, divided by the query's largest one (nDCG is a ratio: this keeps 2^5000 - 1
    finite); exact integer arithmetic before the one division."""
    if gain == "linear":
        return grade / top
    return (2 ** int(grade) - 1) / (2 ** int(top) - 1)


def pytrec_eval_agrees() -> str:
    """The reference against pytrec_eval on the clean collection (both runs)."""
    try:
        import pytrec_eval
    except ImportError:
        return "pytrec_eval not installed: the reference was not cross-checked"
    measures = {f"P_{K}", f"recall_{K}", f"map_cut_{K}", f"ndcg_cut_{K}"}
    names = {"P": f"P_{K}", "R": f"recall_{K}", "AP": f"map_cut_{K}", "nDCG": f"ndcg_cut_{K}"}
    evaluator = pytrec_eval.RelevanceEvaluator(QRELS, measures)
    worst = 0.0
    for run in (RUN, RUN2):
        theirs = evaluator.evaluate({q: {d: score_of(r) for r, d in enumerate(docs, 1)}
                                     for q, docs in run.items()})
        for q, ours in reference(QRELS, run).items():
            for key, name in names.items():
                worst = max(worst, abs(ours[key] - theirs[q][name]))
    if worst > 1e-12:
        raise SystemExit(f"the probe's reference disagrees with pytrec_eval by {worst}")
    return f"reference = pytrec_eval on the clean collection (largest difference {worst:.1e})"


# --------------------------------------------------------------------------- cases


@dataclass
class Result:
    rc: int | None
    stdout: bytes
    stderr: str
    seconds: float
    peak_mb: float  # resident
    virtual_mb: float  # address space: near the cap, the cap was hit
    timed_out: bool
    signal: int | None
    folder: Path
    lost: list[str]
    litter: list[str]
    memory_killed: bool = False  # resident memory past RESIDENT_KILL: killed by the probe


Check = Callable[[Result], "str | None"]


@dataclass
class Case:
    name: str
    surface: str
    argv: list[str]  # after the interpreter; run from the case's folder
    files: dict[str, object] = field(default_factory=dict)  # path -> bytes | builder(path)
    expect: str = REFUSE
    names: tuple[str, ...] = ()  # an error line must hold one of these (a file name, a flag)
    check: Check | None = None  # an accepted result's check: None when right
    writes: tuple[str, ...] = ()  # files the command may create or change (when it succeeds)
    shared: tuple[str, ...] = ()  # shared files it reads (checksummed too)
    engine: str = "memory"
    timeout: float | None = None
    fsize: int | None = None  # RLIMIT_FSIZE, bytes
    stdout_to: str | None = None  # standard output to this path instead of a pipe
    group: str | None = None  # the same hostile input on every engine: compared verdicts
    forge: tuple[str, ...] | None = None  # outputs checked for forged lines ("-" = stdout)

    @property
    def cap(self) -> int | None:
        """RLIMIT_AS; None for the HTML report, whose chart renderer (V8, in vl-convert)
        reserves a heap cage of many GB of address space at start and aborts under any
        such cap: there the resident memory is watched instead (RESIDENT_KILL)."""
        if self.argv[:3] == ["-m", "dashboard", "report"]:
            return None
        return SPARK_MEMORY_CAP if self.engine == "spark" else MEMORY_CAP

    @property
    def time_cap(self) -> float:
        if self.timeout is not None:
            return self.timeout
        if self.engine == "spark":
            return SPARK_TIME_CAP
        if self.engine == "dashboard":
            return DASHBOARD_TIME_CAP
        return TIME_CAP


def metrics_argv(*args: str) -> list[str]:
    return ["-m", "metrics", *args]


def driver_argv(kind: str, *args: str) -> list[str]:
    return [str(Path(__file__).resolve()), "--driver", kind, *args]


def json_of(result: Result):
    """Standard output as JSON, NaN and infinities seen (None when it is not JSON)."""
    bad = []

    def constant(name):
        bad.append(name)
        return float("nan")

    try:
        data = json.loads(result.stdout.decode("utf-8", "replace"), parse_constant=constant)
    except ValueError:
        return None, bad
    return data, bad


def answer(qrels: dict, runs: list[dict], *, gain: str = "linear", k: int = K) -> Check:
    """The JSON's per-query P, R, AP and nDCG at K (and their means) of each run in order
    against the reference."""
    want = [reference(qrels, run, k, gain) for run in runs]

    def check(result: Result) -> str | None:
        data, _ = json_of(result)
        if not isinstance(data, dict) or "runs" not in data:
            return "standard output is not the JSON result"
        if len(data["runs"]) != len(runs):
            return f"{len(data['runs'])} runs in the JSON, {len(runs)} given"
        for run, expected in zip(data["runs"], want, strict=True):
            got = {q["query_id"]: q for q in run.get("queries", [])}
            if set(got) != set(expected):
                extra, lack = sorted(set(got) - set(expected)), sorted(set(expected) - set(got))
                return (f"run {run['name']!r}: scored queries differ (extra {_short(extra)}, "
                        f"missing {_short(lack)})")
            for q, figures in expected.items():
                for key, value in figures.items():
                    shown = got[q].get(f"{key}@{k}")
                    if not isinstance(shown, (int, float)) or not abs(shown - value) <= 1e-9:
                        return (f"run {run['name']!r}, query {_short(q)}: {key}@{k} = {shown}, "
                                f"expected {value:.6f}")
            for key, summary_key in (("P", "P"), ("R", "R"), ("AP", "MAP"), ("nDCG", "nDCG")):
                mean = sum(f[key] for f in expected.values()) / len(expected)
                shown = run.get("summary", {}).get(f"{summary_key}@{k}", {}).get("mean")
                if not isinstance(shown, (int, float)) or not abs(shown - mean) <= 1e-9:
                    return f"run {run['name']!r}: mean {key}@{k} = {shown}, expected {mean:.6f}"
        return None

    return check


def _short(value, n: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= n else text[:n] + f"... ({len(text):,} chars)"


def clean_answer() -> Check:
    return answer(QRELS, [RUN])


# forged output: what must never reach an output raw
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")
INJECTED = re.compile(rf"(^|[\n\r\t]){MARK}")


def forged(text: str, where: str, *, markdown: bool = False, csv_cells: bool = False,
           html: bool = False, latex: bool = False) -> str | None:
    # HTML: what counts is markup, not control characters (a browser shows none of them)
    raw = None if html else RAW.search(text.replace("\r\n", "\n") if csv_cells else text)
    if raw:
        return f"{where}: a raw {raw.group()!r} from an id"
    if INJECTED.search(text):
        line = next(x for x in re.split(r"[\n\r]", text) if MARK in x)
        return f"{where}: a line or field forged by an id ({line[:60]!r})"
    if markdown and re.search(rf"(?<!\\)\|{MARK}", text):
        return f"{where}: a table cell forged by an id's '|'"
    if html and (f"<script>{MARK}" in text or f'onmouseover="{MARK}' in text):
        return f"{where}: raw markup from an id"
    if latex and (f"\\input{{{MARK}" in text or f"\\write18{{{MARK}" in text):
        return f"{where}: a LaTeX command from an id"
    if csv_cells:  # CSV ends its rows with CR LF
        import csv
        import io
        rows = list(csv.reader(io.StringIO(text)))
        widths = {len(r) for r in rows if r}
        if len(widths) > 1:
            return f"{where}: CSV rows of {sorted(widths)} cells (a row forged by an id)"
        if any(cell.startswith(("=", "+", "@")) and MARK in cell for r in rows for cell in r):
            return f"{where}: a formula cell from an id (CSV injection)"
    return None


def forge_check(*outputs: str, markdown=False, csv_cells=False, html=False, latex=False,
                then: Check | None = None) -> Check:
    """No forged line, field or raw control character in standard output ("-"), standard
    error ("2") or the files named."""

    def check(result: Result) -> str | None:
        for out in outputs:
            if out == "-":
                text, where = result.stdout.decode("utf-8", "replace"), "standard output"
            elif out == "2":
                text, where = result.stderr, "standard error"
            else:
                path = result.folder / out
                if not path.is_file():
                    return f"{out} was not written"
                text, where = path.read_text("utf-8", "replace"), out
            problem = forged(text, where, markdown=markdown and out != "2",
                             csv_cells=csv_cells and out != "2", html=html and out != "2",
                             latex=latex and out != "2")
            if problem:
                return problem
        return then(result) if then else None

    return check


# --------------------------------------------------------------------------- Parquet helpers


def _pq():
    import pyarrow as pa
    import pyarrow.parquet as pq
    return pa, pq


def parquet_table(columns: dict, path: Path, **options) -> None:
    pa, pq = _pq()
    table = columns if isinstance(columns, pa.Table) else pa.table(columns)
    pq.write_table(table, path, **options)


def run_columns(run=None, *, rank=True, score=True) -> dict:
    rows = run_rows(run)
    cols = {"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows]}
    if rank:
        cols["rank"] = [r[3] for r in rows]
    if score:
        cols["score"] = [r[4] for r in rows]
    return cols


def qrels_columns(qrels=None) -> dict:
    rows = qrels_rows(qrels)
    return {"query_id": [r[0] for r in rows], "doc_id": [r[2] for r in rows],
            "grade": [r[3] for r in rows]}


def pq_writer(make: Callable[[], object], **options) -> Callable[[Path], None]:
    """A builder writing the table `make()` returns (a dict of columns or an Arrow table)."""
    def build(path: Path) -> None:
        parquet_table(make(), path, **options)
    return build


def with_column(cols: dict, name: str, values) -> dict:
    out = dict(cols)
    out[name] = values
    return out


def replaced(values: list, index: int, value) -> list:
    out = list(values)
    out[index] = value
    return out


# --------------------------------------------------------------------------- surfaces

def scoring(surface: str, name: str, *, run: object = None, qrels: object = None,
            run_file: str = "run.txt", qrels_file: str = "qrels.txt", expect: str,
            check: Check | None = None, extra: Iterable[str] = (), names: tuple = (),
            engine: str = "memory", files: dict | None = None, group: str | None = None,
            fmt: str = "json", command: tuple[str, ...] = (), timeout: float | None = None,
            shared: tuple[str, ...] = ()) -> Case:
    """`python -m metrics [command] --qrels Q --run R --k 10 --format json`: the clean
    collection in the format of the file names unless `run`/`qrels` give bytes or builders."""
    default_run = {"run.txt": trec_run(), "run.csv": csv_run(), "run.jsonl": jsonl_run(),
                   "run.parquet": pq_writer(run_columns)}
    default_qrels = {"qrels.txt": trec_qrels(), "qrels.csv": csv_qrels(),
                     "qrels.jsonl": jsonl_qrels(), "qrels.parquet": pq_writer(qrels_columns)}
    given = dict(files or {})
    if qrels_file and qrels_file not in given and not qrels_file.startswith("{s}"):
        given[qrels_file] = qrels if qrels is not None else default_qrels.get(qrels_file,
                                                                            trec_qrels())
    if run_file and run_file not in given and not run_file.startswith("{s}"):
        given[run_file] = run if run is not None else default_run.get(run_file, trec_run())
    bad = names or tuple(n for n, v in ((run_file, run), (qrels_file, qrels)) if v is not None)
    argv = metrics_argv(*command, *(["--qrels", qrels_file] if qrels_file else []),
                        *(["--run", run_file] if run_file else []), "--k", str(K),
                        *(["--format", fmt] if fmt else []),
                        *(["--engine", engine] if engine != "memory" else []), *extra)
    return Case(name, surface, argv, given, expect, tuple(Path(n).name for n in bad), check,
                engine=engine, group=group, timeout=timeout, shared=shared)


def trec_cases() -> list[Case]:
    cases = []
    S = "trec"
    rows = run_rows()

    def run_with(index: int, column: int, value, order: str | None = None, **kw) -> Case:
        changed = [list(r) for r in rows]
        changed[index][column] = value
        return scoring(S, kw.pop("name"), run=lines(changed),
                       extra=(["--order", order] if order else []), **kw)

    cases.append(scoring(S, "clean TREC run and qrels", expect=ACCEPT, check=clean_answer()))
    for label, value in (("nan", "nan"), ("NaN", "NaN"), ("-nan", "-nan")):
        cases.append(run_with(3, 4, value, name=f"score {label}", expect=REFUSE))
    for label, value in (("inf", "inf"), ("1e999", "1e999"), ("0x1p10 (hex)", "0x1p10"),
                         ("Infinity", "Infinity")):
        # on q1's first line: a largest score keeps the order, so the answer is the clean one
        cases.append(run_with(0, 4, value, name=f"score {label} on a first line",
                              expect=EITHER, check=clean_answer()))
    cases.append(run_with(9, 4, "-inf", name="score -inf on a last line", expect=EITHER,
                          check=clean_answer()))
    cases.append(run_with(3, 4, "1,5", name="score '1,5'", expect=REFUSE))
    cases.append(run_with(3, 4, "", name="a line of 5 columns", expect=REFUSE))
    cases.append(run_with(3, 5, "tag extra", name="a line of 7 columns", expect=EITHER,
                          check=clean_answer()))
    cases.append(run_with(3, 3, -3, "rank", name="rank -3 (--order rank)", expect=REFUSE))
    cases.append(run_with(3, 3, "1.5", "rank", name="rank 1.5 (--order rank)", expect=REFUSE))
    cases.append(run_with(3, 3, "1.5", None, name="rank 1.5 (order by score)", expect=EITHER,
                          check=clean_answer()))
    cases.append(run_with(9, 3, 2**63 + 5, "rank", name="rank 2^63+5 (--order rank)",
                          expect=EITHER, check=clean_answer()))
    cases.append(run_with(9, 3, 10**30, "rank", name="rank 10^30 (--order rank)",
                          expect=EITHER, check=clean_answer()))
    cases.append(run_with(0, 3, 0, "rank", name="rank 0 on a first line (--order rank)",
                          expect=EITHER, check=clean_answer()))
    cases.append(run_with(1, 3, 1, "rank", name="two rank 1 in a query (--order rank)",
                          expect=EITHER))
    cases.append(scoring(S, "empty run file", run=b"", expect=REFUSE))
    cases.append(scoring(S, "run of blank lines", run=b"\n\n  \n\t\n", expect=REFUSE))
    cases.append(scoring(S, "run with a UTF-8 BOM", run=b"\xef\xbb\xbf" + trec_run(),
                         expect=EITHER, check=clean_answer()))
    cases.append(scoring(S, "run with CRLF line ends", run=trec_run().replace(b"\n", b"\r\n"),
                         expect=ACCEPT, check=clean_answer()))
    cases.append(scoring(S, "run tab-separated", run=lines(rows, b"\t"), expect=ACCEPT,
                         check=clean_answer()))
    bad_doc = [list(r) for r in rows]
    bad_doc[4][2] = b"d\x80\xff"
    cases.append(scoring(S, "doc id not valid UTF-8", run=lines(bad_doc), expect=REFUSE))
    bad_q = [list(r) for r in rows]
    bad_q[4][0] = b"q\xc3("
    cases.append(scoring(S, "run query id not valid UTF-8", run=lines(bad_q), expect=REFUSE))
    nul = [list(r) for r in rows]
    nul[4][2] = b"d\x00x"
    cases.append(scoring(S, "NUL byte in a doc id", run=lines(nul), expect=REFUSE))
    q, r = doc_renamed(QRELS, RUN, "d1", "d\x1b[31m1")
    cases.append(scoring(S, "ESC in a doc id (both files)", run=trec_run(r),
                         qrels=trec_qrels(q), expect=ACCEPT, check=answer(q, [r])))
    q, r = renamed(QRELS, "q1", "q\x1b]0;x\x071"), renamed(RUN, "q1", "q\x1b]0;x\x071")
    cases.append(scoring(S, "ESC and BEL in a query id (both files)", run=trec_run(r),
                         qrels=trec_qrels(q), expect=ACCEPT, check=answer(q, [r])))
    q, r = renamed(QRELS, "q2", "q\u202e2"), renamed(RUN, "q2", "q\u202e2")
    cases.append(scoring(S, "bidi override in a query id", run=trec_run(r),
                         qrels=trec_qrels(q), expect=ACCEPT, check=answer(q, [r])))
    q, r = doc_renamed(QRELS, RUN, "d11", "caf\u00e9")
    r2 = {**r, "q2": ["cafe\u0301" if d == "caf\u00e9" else d for d in r["q2"]]}
    cases.append(scoring(S, "NFC id in qrels, NFD in the run", run=trec_run(r2),
                         qrels=trec_qrels(q), expect=ACCEPT, check=answer(q, [r2])))
    big = "D" * (10 << 20)
    q, r = doc_renamed(QRELS, RUN, "d1", big)
    cases.append(scoring(S, "10 MB doc id (relevant, retrieved)",
                         run=lazy(lambda r=r: trec_run(r)), qrels=lazy(lambda q=q: trec_qrels(q)),
                         expect=ACCEPT, check=answer(q, [r])))
    q, r = renamed(QRELS, "q3", "Q" * (10 << 20)), renamed(RUN, "q3", "Q" * (10 << 20))
    cases.append(scoring(S, "10 MB query id (both files)", run=lazy(lambda r=r: trec_run(r)),
                         qrels=lazy(lambda q=q: trec_qrels(q)), expect=ACCEPT,
                         check=answer(q, [r])))
    cases.append(scoring(S, "a 17 MB line", run=lazy(lambda: trec_run() + b"q1 Q0 "
                                                        + b"x" * (17 << 20) + b" 11 0.1 t\n"),
                         expect=REFUSE))
    cases.append(scoring(S, "a line of 100,000 columns", run=trec_run()
                         + b" ".join([b"x"] * 100_000) + b"\n", expect=REFUSE))
    many = {**RUN, **{f"x{i}": ["d1"] for i in range(100_000)}}
    cases.append(scoring(S, "100,000 run queries not in the qrels",
                         run=lazy(lambda many=many: trec_run(many)),
                         expect=ACCEPT, check=clean_answer()))
    cases.append(scoring(S, "1,000,000 lines, 125,000 ids a query", run=lazy(_long_run),
                         expect=ACCEPT, check=clean_answer()))
    cases.append(scoring(S, "gzip run", run=gzip.compress(trec_run()), run_file="run.txt.gz",
                         expect=ACCEPT, check=clean_answer()))
    cases.append(scoring(S, "gzip bomb (1 GB of run lines)", run=lazy(_gzip_bomb),
                         run_file="run.gz", expect=REFUSE))
    cases.append(scoring(S, "truncated gzip", run=gzip.compress(trec_run())[:200],
                         run_file="run.gz", expect=REFUSE))
    cases.append(scoring(S, "run is a directory of text files", run=_directory(
        {"a.txt": trec_run()}), run_file="rundir", expect=REFUSE))
    cases.append(scoring(S, "run is /dev/zero", run_file="zero", run=_symlink("/dev/zero"),
                         expect=REFUSE))
    cases.append(scoring(S, "run is a symlink loop", run_file="loop.run",
                         run=_symlink("loop.run"), expect=REFUSE))
    cases.append(scoring(S, "run file does not exist", run_file="absent.run", run=_nothing,
                         expect=REFUSE))
    cases.append(Case("the same run file twice", S, metrics_argv(
        "--qrels", "qrels.txt", "--run", "run.txt", "--run", "run.txt", "--k", "10",
        "--format", "json"), {"qrels.txt": trec_qrels(), "run.txt": trec_run()}, EITHER,
        ("run.txt",), answer(QRELS, [RUN, RUN])))
    rep = {**RUN, "q1": RUN["q1"][:2] + [RUN["q1"][0]] + RUN["q1"][3:]}
    cases.append(scoring(S, "a repeated id in a query", run=trec_run(rep), expect=ACCEPT,
                         check=answer(QRELS, [rep])))
    cases.append(scoring(S, "CSV run given --run-format trec", run=csv_run(),
                         extra=["--run-format", "trec"], expect=REFUSE))
    cases.append(scoring(S, "binary junk as a run", run=bytes(range(256)) * 64, expect=REFUSE))
    return cases + trec_qrels_cases()


def _long_run() -> bytes:
    """The clean run with 124,990 more ids after each query's ten (lower scores)."""
    return lines([q, "Q0", d, r, 1e6 - r, "t"] for q, docs in RUN.items()
                 for r, d in enumerate(docs + [f"z{i}" for i in range(124_990)], 1))


def _gzip_bomb() -> bytes:
    """1 GB of one valid run line, repeated: about 2 MB of gzip."""
    import zlib
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    line = b"q1 Q0 d1 1 1.0 t\n"
    chunk = line * ((1 << 20) // len(line))
    return b"".join([z.compress(chunk) for _ in range(1024)] + [z.flush()])


def _directory(files: dict[str, object]) -> Callable[[Path], None]:
    def build(path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            _write(path / name, content)
    return build


def _symlink(target: str) -> Callable[[Path], None]:
    def build(path: Path) -> None:
        os.symlink(target, path)
    return build


def _nothing(path: Path) -> None:
    return None


def trec_qrels_cases() -> list[Case]:
    S = "trec"
    cases = []
    rows = qrels_rows()

    def qrels_with(index: int, value, **kw) -> Case:
        changed = [list(r) for r in rows]
        changed[index][3] = value
        return scoring(S, kw.pop("name"), qrels=lines(changed), **kw)

    # rows[0] is q1 d1 (grade 2, retrieved at rank 1)
    for label, value in (("2^62", 2**62), ("2^63", 2**63), ("1.5", "1.5"), ("1e3", "1e3"),
                         ("nan", "nan"), ("an empty grade", "")):
        cases.append(qrels_with(0, value, name=f"qrels grade {label}", expect=REFUSE))
    q = {**QRELS, "q1": {**QRELS["q1"], "d1": 0}}
    cases.append(qrels_with(0, -(2**62), name="qrels grade -2^62", expect=EITHER,
                            check=answer(q, [RUN])))
    cases.append(qrels_with(0, "+2", name="qrels grade '+2'", expect=EITHER,
                            check=clean_answer()))
    # grades are declared from -960 to 960 (metrics/vocabulary/numeric.py, MAX_GRADE: past it
    # the exponential gain overflows), whatever the gain asked for: every reader refuses 1024
    cases.append(qrels_with(0, 1024, name="qrels grade 1024 (linear gain)", expect=REFUSE))
    cases.append(scoring(S, "empty qrels", qrels=b"", expect=REFUSE))
    none = {q: {d: 0 for d in docs} for q, docs in QRELS.items()}
    cases.append(scoring(S, "qrels without a relevant id", qrels=trec_qrels(none),
                         expect=EITHER))
    cases.append(scoring(S, "qrels of 3 columns", qrels=lines([r[0], r[2], r[3]] for r in rows),
                         expect=ACCEPT, check=clean_answer()))
    cases.append(scoring(S, "qrels line of 5 columns", qrels=lines(
        [*r, "x"] if i == 2 else r for i, r in enumerate(rows)), expect=REFUSE))
    dup = rows + [["q1", 0, "d1", 0]]
    cases.append(scoring(S, "qrels judging one id twice, differently", qrels=lines(dup),
                         expect=EITHER))
    bad = [list(r) for r in rows]
    bad[5][0] = b"q\xff"
    cases.append(scoring(S, "qrels query id not valid UTF-8", qrels=lines(bad), expect=REFUSE))
    cases.append(scoring(S, "qrels given a run file", qrels=trec_run(), expect=REFUSE))
    many = {**QRELS, **{f"x{i}": {"d1": 1} for i in range(20_000)}}
    cases.append(scoring(S, "20,000 qrels queries the run lacks",
                         qrels=lazy(lambda many=many: trec_qrels(many)),
                         expect=ACCEPT, check=answer(many, [RUN])))
    return cases


def flag_cases() -> list[Case]:
    S = "flags"
    cases = []
    base = {"qrels.txt": trec_qrels(), "run.txt": trec_run(), "run2.txt": trec_run(RUN2)}

    def flag(name: str, command: list[str], flag_name: str, value: str, *,
             expect: str = REFUSE, check: Check | None = None, runs: int = 1,
             extra: list[str] | None = None) -> Case:
        argv = metrics_argv(*command, "--qrels", "qrels.txt", "--run", "run.txt",
                            *(["--run", "run2.txt"] if runs > 1 else []),
                            *(extra or []), f"{flag_name}={value}")
        bare = flag_name.lstrip("-")
        return Case(name, S, argv, dict(base), expect,
                    (flag_name, bare) if len(bare) >= 4 else (flag_name,), check)

    for value in ("0", "-1", "1000001", "nan", "1e3", "99999999999999999999"):
        cases.append(flag(f"--k {value}", [], "--k", value))
    for value in ("0:10", "5:1", "1:2000000", "a:b", "1:10001", "1:", "-5:5"):
        cases.append(flag(f"--sweep {value}", [], "--sweep", value))
    for value in ("1.5", "nan", "0", "1", "-0.5"):
        cases.append(flag(f"--confidence-level {value}", [], "--confidence-level", value))
    for value in ("-1", str(2**70), "nan"):
        cases.append(flag(f"--seed {value}", [], "--seed", value))
    for value in ("0", str(2**62), "-1", "nan"):
        cases.append(flag(f"--relevance-level {value}", [], "--relevance-level", value))
    for value in ("0", "-1", "nan", "1e30"):
        cases.append(flag(f"--max-input-mb {value}", [], "--max-input-mb", value))
    for value in ("0", "-5"):
        cases.append(flag(f"--block-queries {value} (blocks)", [], "--block-queries", value,
                          extra=["--engine", "blocks"]))
    cases.append(flag("--block-queries 10^12 (blocks)", [], "--block-queries", str(10**12),
                      extra=["--engine", "blocks"], expect=EITHER))
    for value in ("nDCG@99999999999", "RBP(p=2)", "P(rel=4611686018427387904)@5", "nonsense",
                  "nDCG(dcg=exp-log2)@0"):
        cases.append(flag(f"--metric {value}", [], "--metric", value))
    for value in ("1000000000000", "0", "-1", "nan"):
        cases.append(flag(f"compare --permutations {value}", ["compare"], "--permutations",
                          value, runs=2))
    for value in ("2", "nan", "0"):
        cases.append(flag(f"compare --alpha {value}", ["compare"], "--alpha", value, runs=2))
    cases.append(flag("compare --harm-delta nan", ["compare"], "--harm-delta", "nan", runs=2))
    cases.append(flag("compare --max-harm nDCG=2", ["compare"], "--max-harm", "nDCG=2", runs=2))
    for value in ("nan", "-1", "1e308"):
        cases.append(flag(f"fuse --rrf-k {value}", ["fuse"], "--rrf-k", value, runs=2))
    for value in ("nan,1", "1e308,1e308", "-1,1", "0,0"):
        cases.append(flag(f"fuse --weights {value}", ["fuse", "--method", "combsum"],
                          "--weights", value, runs=2))
    for value in ("nan", "0", "inf"):
        cases.append(flag(f"power --delta {value}", ["power"], "--delta", value, runs=2))
    cases.append(flag("power --power 1", ["power"], "--power", "1", runs=2))
    for value in ("nan", "-1", "inf"):
        cases.append(flag(f"--tokens-per-chunk {value}", [], "--tokens-per-chunk", value))
    cases.append(flag("--price-per-mtok inf", [], "--price-per-mtok", "inf"))
    return cases


def delimited_cases() -> list[Case]:
    S = "csv/tsv"
    cases = []
    head = ["query_id", "doc_id", "rank", "score"]
    rows = [[r[0], r[2], r[3], r[4]] for r in run_rows()]

    def run_csv(name, data: bytes, expect, check=None, extra=(), **kw) -> Case:
        return scoring(S, name, run=data, run_file=kw.pop("run_file", "run.csv"),
                       expect=expect, check=check, extra=extra, **kw)

    def changed(index, column, value):
        out = [list(r) for r in rows]
        out[index][column] = value
        return out

    cases.append(run_csv("clean CSV run", csv_run(), ACCEPT, clean_answer()))
    cases.append(scoring(S, "clean CSV qrels", qrels=csv_qrels(), qrels_file="qrels.csv",
                         expect=ACCEPT, check=clean_answer()))
    cases.append(run_csv("clean TSV run", csv_bytes(head, rows, b"\t"), ACCEPT, clean_answer(),
                         run_file="run.tsv"))
    cases.append(run_csv("CSV run rank -3", csv_bytes(head, changed(3, 2, -3)), REFUSE))
    cases.append(run_csv("CSV run rank 1.5", csv_bytes(head, changed(3, 2, "1.5")), REFUSE))
    cases.append(run_csv("CSV run rank 2^64", csv_bytes(head, changed(9, 2, 2**64)), EITHER,
                         clean_answer()))
    cases.append(run_csv("CSV run rank empty", csv_bytes(head, changed(3, 2, "")), REFUSE))
    cases.append(run_csv("CSV run score NaN (rank given)", csv_bytes(head, changed(3, 3, "NaN")),
                         REFUSE))
    no_rank = [[r[0], r[1], r[3]] for r in rows]
    nan_score = [list(r) for r in no_rank]
    nan_score[3][2] = "nan"
    cases.append(run_csv("CSV run by score, a score nan",
                         csv_bytes(["query_id", "doc_id", "score"], nan_score), REFUSE))
    cases.append(run_csv("CSV run by score", csv_bytes(["query_id", "doc_id", "score"], no_rank),
                         ACCEPT, clean_answer()))
    cases.append(run_csv("CSV run empty doc id", csv_bytes(head, changed(3, 1, "")), REFUSE))
    cases.append(run_csv("CSV run empty query id", csv_bytes(head, changed(3, 0, "")), REFUSE))
    cases.append(run_csv("CSV run duplicate column doc_id",
                         csv_bytes(["query_id", "doc_id", "doc_id", "rank"],
                                   [[r[0], r[1], r[1], r[2]] for r in rows]), REFUSE))
    cases.append(run_csv("CSV run query_id and QID columns",
                         csv_bytes(["query_id", "QID", "doc_id", "rank"],
                                   [[r[0], "x", r[1], r[2]] for r in rows]), REFUSE))
    cases.append(run_csv("CSV run header only", csv_bytes(head, []), REFUSE))
    cases.append(run_csv("CSV run without a header", csv_bytes(head, rows).split(b"\n", 1)[1],
                         REFUSE))
    cases.append(run_csv("CSV run unterminated quote", csv_run() + b'q1,"d99,12,1.0\n', REFUSE))
    long_id = {**RUN, "q1": replaced(RUN["q1"], 3, "x" * 131_073)}
    cases.append(run_csv("CSV run cell of 131,073 characters", csv_bytes(
        head, changed(3, 1, "x" * 131_073)), EITHER, answer(QRELS, [long_id])))
    cases.append(run_csv("CSV run semicolon-separated", csv_bytes(head, rows, b";"), REFUSE))
    cases.append(run_csv("CSV run with a BOM", b"\xef\xbb\xbf" + csv_run(), EITHER,
                         clean_answer()))
    cases.append(run_csv("CSV run invalid UTF-8 cell", csv_bytes(head, changed(3, 1, b"\xfe")),
                         REFUSE))
    q, r = renamed(QRELS, "q1", "q\n1"), renamed(RUN, "q1", "q\n1")
    cases.append(scoring(S, "CSV newline inside a quoted query id (both files)",
                         run=csv_run(r), qrels=csv_qrels(q), run_file="run.csv",
                         qrels_file="qrels.csv", expect=EITHER, check=answer(q, [r])))
    q, r = doc_renamed(QRELS, RUN, "d1", "=1+1")
    cases.append(scoring(S, "CSV formula as a doc id (both files)", run=csv_run(r),
                         qrels=csv_qrels(q), run_file="run.csv", qrels_file="qrels.csv",
                         expect=ACCEPT, check=answer(q, [r])))
    cases.append(run_csv("CSV run only query_id,doc_id", csv_bytes(
        ["query_id", "doc_id"], [r[:2] for r in rows]), EITHER, clean_answer()))
    swapped = [[r[0], r[1], r[2], -r[3]] for r in rows]  # scores disagree with ranks
    cases.append(run_csv("CSV run rank and score disagreeing", csv_bytes(head, swapped),
                         ACCEPT, clean_answer()))
    qhead = ["query-id", "corpus-id", "score"]
    qrows = [[r[0], r[2], r[3]] for r in qrels_rows()]
    cases.append(scoring(S, "BEIR qrels", qrels=csv_bytes(qhead, qrows, b"\t"),
                         qrels_file="qrels.tsv", expect=ACCEPT, check=clean_answer()))
    bad = [list(r) for r in qrows]
    bad[0][2] = "2.0"
    cases.append(scoring(S, "BEIR qrels grade '2.0'", qrels=csv_bytes(qhead, bad, b"\t"),
                         qrels_file="qrels.tsv", expect=EITHER, check=clean_answer()))
    bad[0][2] = str(2**62)
    cases.append(scoring(S, "BEIR qrels grade 2^62", qrels=csv_bytes(qhead, bad, b"\t"),
                         qrels_file="qrels.tsv", expect=REFUSE))
    bad[0][2] = "-"
    cases.append(scoring(S, "BEIR qrels grade '-'", qrels=csv_bytes(qhead, bad, b"\t"),
                         qrels_file="qrels.tsv", expect=REFUSE))
    cases.append(scoring(S, "CSV qrels NUL in a cell", qrels=csv_qrels().replace(
        b"d14", b"d1\x004"), qrels_file="qrels.csv", expect=REFUSE))
    q, _ = doc_renamed(QRELS, RUN, "d14", "d" * (10 << 20))
    cases.append(scoring(S, "CSV qrels 10 MB cell", qrels=lazy(lambda q=q: csv_qrels(q)),
                         qrels_file="qrels.csv", expect=EITHER, check=answer(q, [RUN])))
    return cases


def jsonl_cases() -> list[Case]:
    S = "jsonl"
    cases = []

    def rec(**kw) -> bytes:
        return json.dumps(kw).encode() + b"\n"

    def run_j(name, data: bytes, expect, check=None, **kw) -> Case:
        return scoring(S, name, run=data, run_file="run.jsonl", expect=expect, check=check,
                       **kw)

    def qrels_j(name, data: bytes, expect, check=None, **kw) -> Case:
        return scoring(S, name, qrels=data, qrels_file="qrels.jsonl", expect=expect,
                       check=check, **kw)

    rest = b"".join(rec(query_id=q, relevant=d) for q, d in QRELS.items() if q != "q1")
    rest_run = b"".join(rec(query_id=q, retrieved=d) for q, d in RUN.items() if q != "q1")
    cases.append(run_j("clean JSONL run", jsonl_run(), ACCEPT, clean_answer()))
    cases.append(qrels_j("clean JSONL qrels", jsonl_qrels(), ACCEPT, clean_answer()))
    listed = {q: {d: 1 for d, g in docs.items() if g >= 1} for q, docs in QRELS.items()}
    cases.append(qrels_j("JSONL relevant as a list", b"".join(
        rec(query_id=q, relevant=[d for d, g in docs.items() if g >= 1])
        for q, docs in QRELS.items()), ACCEPT, answer(listed, [RUN])))
    cases.append(qrels_j("JSONL grade NaN", b'{"query_id": "q1", "relevant": {"d1": NaN}}\n'
                         + rest, REFUSE))
    cases.append(qrels_j("JSONL grade Infinity", b'{"query_id": "q1", "relevant": {"d1": '
                         b'Infinity}}\n' + rest, REFUSE))
    cases.append(qrels_j("JSONL grade 2^62", rec(query_id="q1", relevant={"d1": 2**62})
                         + rest, REFUSE))
    cases.append(qrels_j("JSONL grade 10^30", rec(query_id="q1", relevant={"d1": 10**30})
                         + rest, REFUSE))
    cases.append(qrels_j("JSONL grade true", rec(query_id="q1", relevant={"d1": True}) + rest,
                         EITHER))
    cases.append(qrels_j("JSONL grade '2'", rec(query_id="q1", relevant={"d1": "2"}) + rest,
                         EITHER, answer({**QRELS, "q1": {"d1": 2}}, [RUN])))
    cases.append(qrels_j("JSONL grade 1.5", rec(query_id="q1", relevant={"d1": 1.5}) + rest,
                         REFUSE))
    cases.append(qrels_j("JSONL grade an object", rec(query_id="q1", relevant={"d1": {"a": 1}})
                         + rest, REFUSE))
    cases.append(run_j("JSONL retrieved nested list", rec(query_id="q1", retrieved=[["d1"]])
                       + rest_run, REFUSE))
    cases.append(run_j("JSONL retrieved null", rec(query_id="q1", retrieved=None) + rest_run,
                       REFUSE))
    cases.append(run_j("JSONL retrieved a string", rec(query_id="q1", retrieved="d1 d2")
                       + rest_run, REFUSE))
    cases.append(run_j("JSONL retrieved with a null id", rec(query_id="q1", retrieved=[
        "d1", None]) + rest_run, REFUSE))
    ints = {q: [int(d[1:]) for d in docs] for q, docs in RUN.items()}
    as_text = {q: [str(d) for d in docs] for q, docs in ints.items()}  # "1" is not "d1"
    cases.append(run_j("JSONL integer doc ids", b"".join(
        rec(query_id=q, retrieved=d) for q, d in ints.items()), EITHER,
        answer(QRELS, [as_text])))
    cases.append(run_j("JSONL query_id null", rec(query_id=None, retrieved=["d1"]) + jsonl_run(),
                       REFUSE))
    cases.append(run_j("JSONL query_id an object", rec(query_id={"a": 1}, retrieved=["d1"])
                       + jsonl_run(), REFUSE))
    cases.append(run_j("JSONL query_id missing", rec(retrieved=["d1"]) + jsonl_run(), REFUSE))
    cases.append(run_j("JSONL nested 100,000 levels", b"[" * 100_000 + b"]" * 100_000 + b"\n"
                       + jsonl_run(), REFUSE))
    cases.append(run_j("JSONL a line that is not JSON", jsonl_run() + b"{not json\n", REFUSE))
    cases.append(run_j("JSONL a record that is an array", b'["q1", ["d1"]]\n' + jsonl_run(),
                       REFUSE))
    cases.append(run_j("JSONL invalid UTF-8 in a string", b'{"query_id": "q1", "retrieved": '
                       b'["d\xff"]}\n' + rest_run, REFUSE))
    cases.append(run_j("JSONL lone surrogate in an id", b'{"query_id": "q1", "retrieved": '
                       b'["\\ud800"]}\n' + rest_run, REFUSE))
    q, r = renamed(QRELS, "q1", "q\u00001"), renamed(RUN, "q1", "q\u00001")
    cases.append(scoring(S, "JSONL \\u0000 in a query id (both files)", run=jsonl_run(r),
                         qrels=jsonl_qrels(q), run_file="run.jsonl", qrels_file="qrels.jsonl",
                         expect=EITHER, check=answer(q, [r])))
    cases.append(run_j("JSONL duplicate key in a record",
                       b'{"query_id": "q1", "query_id": "q2", "retrieved": ["d11"]}\n' + rest_run,
                       EITHER))
    big = {"q1": [f"z{i}" for i in range(200_000)], **{q: d for q, d in RUN.items()
                                                        if q != "q1"}}
    cases.append(run_j("JSONL 200,000 ids in one record", lazy(lambda big=big: jsonl_run(big)),
                       ACCEPT, answer(QRELS, [big])))
    both = b"".join(rec(query_id=q, retrieved=RUN[q], relevant=QRELS[q]) for q in QRELS)
    cases.append(Case("JSONL run carrying relevant, alone", S, metrics_argv(
        "--run", "both.jsonl", "--k", "10", "--format", "json"), {"both.jsonl": both}, ACCEPT,
        ("both.jsonl",), clean_answer()))
    cases.append(run_j("JSONL empty file", b"", REFUSE))
    return cases


# Parquet: each hostile file through the in-memory engine, the block engine and (a few) Spark

def parquet_payloads() -> list[tuple[str, str, dict, str, Check | None, bool]]:
    """(name, which file, {file name: builder}, expect, answer, on Spark too)."""
    import numpy as np
    pa, _ = _pq()
    out = []

    def run(name, make, expect, check=None, spark=False, **options):
        out.append((name, "run", {"run.parquet": pq_writer(make, **options)}, expect, check,
                    spark))

    def qrels(name, make, expect, check=None, spark=False, **options):
        out.append((name, "qrels", {"qrels.parquet": pq_writer(make, **options)}, expect, check,
                    spark))

    rc = run_columns
    n = len(run_rows())
    run("clean Parquet run", rc, ACCEPT, clean_answer(), True)
    no_rank = lambda: run_columns(rank=False)  # noqa: E731
    run("score NaN (no rank column)", lambda: with_column(no_rank(), "score", replaced(
        no_rank()["score"], 3, float("nan"))), REFUSE, None, True)
    run("score +inf first (no rank column)", lambda: with_column(no_rank(), "score", replaced(
        no_rank()["score"], 0, float("inf"))), EITHER, clean_answer(), True)
    run("score null (no rank column)", lambda: with_column(no_rank(), "score", replaced(
        no_rank()["score"], 3, None)), REFUSE, None, True)
    run("score as text '1.5'", lambda: with_column(no_rank(), "score", [
        str(s) for s in no_rank()["score"]]), EITHER, clean_answer())
    run("rank -3", lambda: with_column(rc(), "rank", replaced(rc()["rank"], 3, -3)), REFUSE,
        None, True)
    run("rank 0 first", lambda: with_column(rc(), "rank", replaced(rc()["rank"], 0, 0)), EITHER,
        clean_answer())
    run("rank 1.5 (a double column)", lambda: with_column(rc(), "rank", replaced(
        [float(x) for x in rc()["rank"]], 3, 1.5)), REFUSE, None, True)
    run("rank whole doubles", lambda: with_column(rc(), "rank", [float(x) for x in rc()["rank"]]),
        ACCEPT, clean_answer(), True)
    run("rank uint64 2^63+5 last", lambda: with_column(rc(), "rank", pa.array(replaced(
        rc()["rank"], 9, 2**63 + 5), pa.uint64())), EITHER, clean_answer(), True)
    run("rank 10^15 ranks", lambda: with_column(rc(), "rank", [10**15 + x for x in rc()["rank"]]),
        ACCEPT, clean_answer())
    run("rank null", lambda: with_column(rc(), "rank", replaced(rc()["rank"], 3, None)), REFUSE,
        None, True)
    run("query_id list-typed", lambda: with_column(rc(), "query_id", [[q] for q in rc()[
        "query_id"]]), REFUSE, None, True)
    run("query_id struct-typed", lambda: with_column(rc(), "query_id", [{"id": q} for q in rc()[
        "query_id"]]), REFUSE, None, True)
    run("doc_id list-typed", lambda: with_column(rc(), "doc_id", [[d] for d in rc()["doc_id"]]),
        REFUSE)
    run("doc_id a map", lambda: with_column(rc(), "doc_id", pa.array(
        [[(d, 1)] for d in rc()["doc_id"]], pa.map_(pa.string(), pa.int64()))), REFUSE)
    run("query_id null", lambda: with_column(rc(), "query_id", replaced(rc()["query_id"], 3,
                                                                          None)), REFUSE, None,
        True)
    run("doc_id null", lambda: with_column(rc(), "doc_id", replaced(rc()["doc_id"], 3, None)),
        REFUSE, None, True)
    run("doc_id empty string", lambda: with_column(rc(), "doc_id", replaced(rc()["doc_id"], 3,
                                                                              "")), REFUSE)
    run("zero rows", lambda: pa.table({k: pa.array([], t) for k, t in (
        ("query_id", pa.string()), ("doc_id", pa.string()), ("rank", pa.int64()),
        ("score", pa.float64()))}), REFUSE, None, True)
    run("doc_id binary, not valid UTF-8", lambda: with_column(rc(), "doc_id", pa.array(replaced(
        [d.encode() for d in rc()["doc_id"]], 3, b"\x80\xff"), pa.binary())), REFUSE, None, True)
    run("ids binary, valid UTF-8", lambda: {**rc(), "query_id": pa.array(
        [q.encode() for q in rc()["query_id"]], pa.binary()), "doc_id": pa.array(
        [d.encode() for d in rc()["doc_id"]], pa.binary())}, EITHER, clean_answer(), True)
    ints = {q: [int(d[1:]) for d in docs] for q, docs in RUN.items()}
    run("doc ids as integers", lambda: with_column(rc(), "doc_id", [
        int(d[1:]) for d in rc()["doc_id"]]), ACCEPT, answer(QRELS, [{q: [str(d) for d in ds]
                                                                      for q, ds in
                                                                      ints.items()}]))
    run("query ids as integers (qrels strings)", lambda: with_column(rc(), "query_id", [
        int(q[1:]) for q in rc()["query_id"]]), EITHER)
    run("two query_id columns", lambda: pa.Table.from_arrays(
        [pa.array(rc()["query_id"]), pa.array(rc()["query_id"]), pa.array(rc()["doc_id"]),
         pa.array(rc()["rank"])], names=["query_id", "query_id", "doc_id", "rank"]), REFUSE,
        None, True)
    run("columns QID, DOCID, RANK", lambda: {"QID": rc()["query_id"], "DOCID": rc()["doc_id"],
                                             "RANK": rc()["rank"]}, ACCEPT, clean_answer())
    run("extra columns of every type", lambda: {**rc(), "note": [{"a": [1]}] * n,
                                                "when": pa.array(np.arange(n), pa.int64()).cast(
                                                    pa.timestamp("s"))}, ACCEPT, clean_answer())
    run("dictionary-encoded and large_string ids", lambda: {
        **rc(), "query_id": pa.array(rc()["query_id"]).dictionary_encode(),
        "doc_id": pa.array(rc()["doc_id"], pa.large_string())}, ACCEPT, clean_answer(), True)
    run("timestamps as query ids", lambda: with_column(rc(), "query_id", pa.array(
        np.zeros(n, dtype="int64")).cast(pa.timestamp("s"))), REFUSE)
    q, r = renamed(QRELS, "q1", "q\n\t\x1b1"), renamed(RUN, "q1", "q\n\t\x1b1")
    out.append(("newline, tab and ESC in a query id (both files)", "both", {
        "qrels.parquet": pq_writer(lambda q=q: qrels_columns(q)),
        "run.parquet": pq_writer(lambda r=r: run_columns(r))}, ACCEPT, answer(q, [r]), False))
    big = "D" * (10 << 20)
    q, r = doc_renamed(QRELS, RUN, "d1", big)
    out.append(("10 MB doc id (both files)", "both", {
        "qrels.parquet": pq_writer(lambda q=q: qrels_columns(q)),
        "run.parquet": pq_writer(lambda r=r: run_columns(r))}, ACCEPT, answer(q, [r]), False))
    qc = qrels_columns
    qrels("qrels grade 2^62", lambda: with_column(qc(), "grade", replaced(qc()["grade"], 0,
                                                                          2**62)), REFUSE, None,
          True)
    qrels("qrels grade text 'high'", lambda: with_column(qc(), "grade", replaced(
        [str(g) for g in qc()["grade"]], 0, "high")), REFUSE)
    qrels("qrels grade text '2'", lambda: with_column(qc(), "grade", [str(g) for g in qc()[
        "grade"]]), ACCEPT, clean_answer())
    qrels("qrels grade 1.5", lambda: with_column(qc(), "grade", replaced(
        [float(g) for g in qc()["grade"]], 0, 1.5)), REFUSE, None, True)
    qrels("qrels grade null", lambda: with_column(qc(), "grade", replaced(qc()["grade"], 0,
                                                                          None)), REFUSE)
    qrels("qrels zero rows", lambda: pa.table({"query_id": pa.array([], pa.string()),
                                               "doc_id": pa.array([], pa.string()),
                                               "grade": pa.array([], pa.int64())}), REFUSE,
          None, True)
    qrels("qrels query id not valid UTF-8", lambda: with_column(qc(), "query_id", pa.array(
        replaced([q.encode() for q in qc()["query_id"]], 0, b"q\xff"), pa.binary())), REFUSE,
          None, True)
    qrels("qrels grade and relevance columns", lambda: {**qc(), "relevance": [0] * len(qc()[
        "grade"])}, EITHER)
    run("many row groups (one row each)", rc, ACCEPT, clean_answer(), row_group_size=1)

    def parts(make_parts: list[tuple[str, object]], *, extra: dict | None = None):
        def build(path: Path) -> None:
            path.mkdir()
            for name, make in make_parts:
                parquet_table(make(), path / name)
            for name, content in (extra or {}).items():
                _write(path / name, content)
        return build

    half = len(run_rows()) // 2

    def piece(cols_of, lo, hi, **casts):
        def make():
            cols = {k: v[lo:hi] for k, v in cols_of().items()}
            for key, cast in casts.items():
                cols[key] = cast(cols[key])
            return cols
        return make

    def dataset(name, builder, expect, check=None, spark=False):
        out.append((name, "run", {"rundir": builder}, expect, check, spark))

    dataset("directory of two parts", parts([("part-0.parquet", piece(rc, 0, half)),
                                             ("part-1.parquet", piece(rc, half, None))]),
            ACCEPT, clean_answer(), True)
    dataset("directory with _SUCCESS and a corrupt .crc file", parts(
        [("part-0.parquet", piece(rc, 0, half)), ("part-1.parquet", piece(rc, half, None))],
        extra={"_SUCCESS": b"", ".part-0.parquet.crc": b"junk"}), ACCEPT, clean_answer(), True)
    dataset("directory with a README.md", parts(
        [("part-0.parquet", piece(rc, 0, half)), ("part-1.parquet", piece(rc, half, None))],
        extra={"README.md": b"# results\n"}), REFUSE, None, True)
    dataset("parts: rank int64 and double", parts(
        [("part-0.parquet", piece(rc, 0, half)),
         ("part-1.parquet", piece(rc, half, None, rank=lambda v: [float(x) for x in v]))]),
            EITHER, clean_answer(), True)
    dataset("parts: query_id string and int64", parts(
        [("part-0.parquet", piece(rc, 0, half)),
         ("part-1.parquet", piece(rc, half, None, query_id=lambda v: [int(x[1:]) for x in v]))]),
            EITHER, None, True)
    dataset("parts: query_id string and struct", parts(
        [("part-0.parquet", piece(rc, 0, half)),
         ("part-1.parquet", piece(rc, half, None, query_id=lambda v: [{"id": x} for x in v]))]),
            REFUSE, None, True)
    dataset("parts: one without the rank column", parts(
        [("part-0.parquet", piece(rc, 0, half)),
         ("part-1.parquet", lambda: {k: v[half:] for k, v in rc().items() if k != "rank"})]),
            REFUSE)
    dataset("empty directory", parts([]), REFUSE, None, True)
    dataset("directory with a sub-directory of parts", parts(
        [("part-0.parquet", piece(rc, 0, half))],
        extra={"sub/part-1.parquet": pq_writer(piece(rc, half, None))}), EITHER)
    out.append(("CSV renamed run.parquet", "run", {"run.parquet": csv_run()}, EITHER,
                clean_answer(), True))
    out.append(("truncated Parquet file", "run", {"run.parquet": _truncated_parquet}, REFUSE,
                None, True))
    out.append(("dictionary-page bomb (6 GB decoded)", "run", {"run.parquet": _dictionary_bomb},
                REFUSE, None, True))
    return out


def _write(path: Path, content) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if callable(content):
        content(path)
    else:
        path.write_bytes(content)


def _truncated_parquet(path: Path) -> None:
    parquet_table(run_columns(), path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] + data[-8:])  # the footer's length and magic kept


def _dictionary_bomb(path: Path) -> None:
    """12,000 rows whose doc_id is one 512 KB string held once in a dictionary page: 145 KB
    on disk, 0.7 MB uncompressed by the footer, 6 GB once decoded."""
    import numpy as np
    pa, pq = _pq()
    rows = 12_000
    zeros = pa.array(np.zeros(rows, dtype=np.int32))
    table = pa.table({
        "query_id": pa.DictionaryArray.from_arrays(zeros, pa.array(["q1"])),
        "doc_id": pa.DictionaryArray.from_arrays(zeros, pa.array(["x" * (512 << 10)])),
        "rank": pa.array(np.arange(1, rows + 1)),
        "score": pa.array(np.linspace(1, 0, rows))})
    pq.write_table(table, path, compression="zstd", store_schema=False)


def _many_row_groups(path: Path) -> None:
    """100,000 row groups of one row: 10,000 queries x 10 ids (the issue's 54 MB file)."""
    import numpy as np
    n = 100_000
    i = np.arange(n)
    parquet_table({"query_id": [f"q{x}" for x in i // 10], "doc_id": [f"d{x}" for x in i % 10],
                   "rank": i % 10 + 1, "score": (10 - i % 10).astype(float)}, path,
                  row_group_size=1)


def _many_queries_qrels(path: Path) -> None:
    path.write_bytes(b"".join(f"q{x} 0 d{x % 10} {x % 3}\n".encode() for x in range(10_000)))


def _many_answer() -> Check:
    qrels = {f"q{x}": {f"d{x % 10}": x % 3} for x in range(10_000)}
    run = {f"q{x}": [f"d{j}" for j in range(10)] for x in range(10_000)}
    return answer(qrels, [run])


SPARK_NAMES = {"run.parquet", "qrels.parquet", "rundir"}


def parquet_cases(spark: bool) -> list[Case]:
    cases = []
    for name, _which, files, expect, check, on_spark in parquet_payloads():
        engines = ["memory", "blocks"] + (["spark"] if spark and on_spark else [])
        for engine in engines:
            run_file = "rundir" if "rundir" in files else "run.parquet"
            given = dict(files)
            given.setdefault("qrels.parquet", pq_writer(qrels_columns))
            given.setdefault(run_file, pq_writer(run_columns))
            bad = tuple(n for n in files)
            surface = {"memory": "parquet", "blocks": "blocks", "spark": "spark"}[engine]
            cases.append(scoring(surface, f"{name} [{engine}]", run_file=run_file,
                                 qrels_file="qrels.parquet", files=given, expect=expect,
                                 check=check, engine=engine, group=name, names=bad))
    # the issue's layout: 100,000 row groups, from a shared file
    for engine in ("memory", "blocks"):
        surface = "parquet" if engine == "memory" else "blocks"
        case = scoring(surface, f"100,000 row groups of one row [{engine}]",
                       run_file="{s}/rowgroups.parquet", qrels_file="{s}/queries10k.txt",
                       expect=ACCEPT, check=_many_answer(), engine=engine,
                       names=("rowgroups.parquet",), group="100,000 row groups",
                       shared=("rowgroups.parquet", "queries10k.txt"))
        cases.append(case)
    return cases


SHARED: dict[str, Callable[[Path], None]] = {
    "rowgroups.parquet": _many_row_groups,
    "queries10k.txt": _many_queries_qrels,
}


# --------------------------------------------------------------------------- saved figures

def _make_figures(path: Path) -> None:
    """The clean file of saved figures: `--per-query-out` over the collection, two runs."""
    folder = path.parent / "figures_src"
    folder.mkdir(exist_ok=True)
    (folder / "qrels.txt").write_bytes(trec_qrels())
    (folder / "a.run").write_bytes(trec_run())
    (folder / "b.run").write_bytes(trec_run(RUN2))
    done = subprocess.run([PY, "-m", "metrics", "--qrels", "qrels.txt", "--run", "a.run",
                           "--run", "b.run", "--k", str(K), "--per-query-out", str(path)],
                          cwd=folder, env=child_env(), capture_output=True, text=True,
                          check=False)
    if done.returncode or not path.exists():
        raise SystemExit("the probe could not write its clean saved figures: "
                         + done.stderr.strip()[-500:])


SHARED["figures.parquet"] = _make_figures


def _metadata_key():
    return b"retrieval_compare.evaluation"


def tampered(change_table=None, change_about=None, *, drop_metadata=False,
             raw_metadata: bytes | None = None) -> Callable[[Path], None]:
    """A copy of the clean figures with its table and/or metadata changed."""
    def build(path: Path) -> None:
        pa, pq = _pq()
        table = pq.read_table(path.parent.parent / "_shared" / "figures.parquet")
        metadata = dict(table.schema.metadata or {})
        about = json.loads(metadata[_metadata_key()])
        if change_table:
            table = change_table(table)
        if change_about:
            about = change_about(about)
        if drop_metadata:
            metadata.pop(_metadata_key(), None)
        else:
            metadata[_metadata_key()] = (raw_metadata if raw_metadata is not None
                                         else json.dumps(about).encode())
        pq.write_table(table.replace_schema_metadata(metadata), path)
    return build


def _set(path: str, value):
    """An `about` change: the value at a dotted path (runs.a.missing) set."""
    def change(about):
        node = about
        keys = path.split(".")
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = value
        return about
    return change


def _values(fn):
    def change(table):
        pa = _pq()[0]
        i = table.schema.get_field_index("value")
        return table.set_column(i, "value", pa.array(fn(table["value"].to_pylist()),
                                                     pa.float64()))
    return change


def _first_value(value):
    return _values(lambda vs: [value] + vs[1:])


def _where_measure(table, measure: str) -> list[int]:
    return [i for i, m in enumerate(table["measure"].to_pylist()) if m == measure]


def _measure_value(measure: str, value: float):
    def change(table):
        pa = _pq()[0]
        vs = table["value"].to_pylist()
        for i in _where_measure(table, measure):
            vs[i] = value
        return table.set_column(table.schema.get_field_index("value"), "value",
                                pa.array(vs, pa.float64()))
    return change


def _column(name: str, fn):
    def change(table):
        i = table.schema.get_field_index(name)
        array = fn(table[name])
        return table.set_column(i, name, array)
    return change


def figures_check(result: Result) -> str | None:
    """An accepted file of figures: each run's mean of every figure at K is the mean of the
    file's rows, bounded figures within [0, 1], every count a whole number >= 0."""
    import pyarrow.compute as pc
    _, pq = _pq()
    try:
        table = pq.read_table(result.folder / "figures.parquet")
    except Exception as exc:  # noqa: BLE001 - accepted, but not a table this probe can read
        return f"accepted a file the probe cannot read back ({exc})"
    want = defaultdict(dict)
    for run in table["run"].unique().to_pylist():
        for measure in table["measure"].unique().to_pylist():
            mask = pc.and_(pc.equal(table["run"], run), pc.equal(table["measure"], measure))
            values = table.filter(mask)["value"].to_pylist()
            want[run][measure] = sum(values) / len(values)
    data, bad = json_of(result)
    if bad:
        return f"{bad[0]} in the figures read"
    if not isinstance(data, dict) or "runs" not in data:
        return "standard output is not the driver's JSON"
    if set(data["runs"]) != set(want):
        return f"runs {sorted(data['runs'])}, expected {sorted(want)}"
    for run, figures in data["runs"].items():
        for key, (mean, low, high) in figures["summary"].items():
            measure = key.split("@")[0]
            if measure in want[run] and abs(mean - want[run][measure]) > 1e-9:
                return f"{run} {key} mean {mean}, the rows' mean {want[run][measure]}"
            if not (0 <= low <= mean <= high <= 1) and measure not in ("DCG", "IDCG"):
                return f"{run} {key} = {mean} [{low}, {high}]: outside [0, 1]"
    counts = data.get("counts", {})
    for key, value in counts.items():
        if value is not None and (not isinstance(value, int) or value < 0):
            return f"count {key} = {value!r}"
    return None


def figures_cases(shared: Path, dashboard: bool = True) -> list[Case]:
    """Saved figures, tampered, read back by `metrics.read_figures` (driver `figures`) and, for
    a share of them, by the dashboard (driver `dashboard`: every page)."""
    pa = _pq()[0]
    payloads: list[tuple[str, object, str, bool]] = []  # name, builder, expect, on dashboard

    def add(name, builder, expect=REFUSE, dash=False):
        payloads.append((name, builder, expect, dash))

    add("clean saved figures", tampered(), ACCEPT, True)
    add("no metadata (K from the table)", tampered(drop_metadata=True), ACCEPT, True)
    add("P = 5.0 everywhere", tampered(_measure_value("P", 5.0)), REFUSE, True)
    add("nDCG = -0.5 everywhere", tampered(_measure_value("nDCG", -0.5)), REFUSE, True)
    add("a value 1e308", tampered(_first_value(1e308)))
    add("a value NaN", tampered(_first_value(float("nan"))))
    add("a value -inf", tampered(_first_value(float("-inf"))))
    add("a value null", tampered(_values(lambda vs: [None] + vs[1:])))
    add("n_resamples 40,000,000", tampered(change_about=_set("conventions.n_resamples",
                                                             40_000_000)), REFUSE, True)
    add("n_resamples -1", tampered(change_about=_set("conventions.n_resamples", -1)))
    add("confidence_level 1.5", tampered(change_about=_set("conventions.confidence_level", 1.5)))
    add("seed 2^70", tampered(change_about=_set("conventions.seed", 2**70)))
    add("gain 'cubic'", tampered(change_about=_set("conventions.gain", "cubic")))
    add("an unknown convention key", tampered(change_about=_set("conventions.colour", "red")))
    add("k -5", tampered(change_about=_set("k", -5)))
    add("k 10^12", tampered(change_about=_set("k", 10**12)))
    add("k '10' (a string)", tampered(change_about=_set("k", "10")))
    add("queries -5", tampered(change_about=_set("queries", -5)), REFUSE, True)
    add("queries 10^10", tampered(change_about=_set("queries", 10**10)), REFUSE, True)
    add("queries 'many'", tampered(change_about=_set("queries", "many")), REFUSE, True)
    add("excluded -1", tampered(change_about=_set("excluded", -1)))
    add("excluded over queries", tampered(change_about=_set("excluded", 99)))
    add("max_grade -3", tampered(change_about=_set("max_grade", -3)), REFUSE, True)
    add("max_grade 1e29", tampered(change_about=_set("max_grade", 1e29)))
    add("runs given as a list", tampered(change_about=_set("runs", ["a", "b"])), REFUSE, True)
    add("a run's missing 'x'", tampered(change_about=_set("runs.a.missing", "x")), REFUSE, True)
    add("a run's missing -5", tampered(change_about=_set("runs.a.missing", -5)))
    add("a run's repeats -1", tampered(change_about=_set("runs.a.repeats", -1)))
    add("sweep means 5.0", tampered(change_about=lambda a: _set("runs.a.sweep", {
        key: [5.0] * len(v) for key, v in a["runs"]["a"]["sweep"].items()})(a)), REFUSE, True)
    add("sweep nested arrays", tampered(change_about=lambda a: _set("runs.a.sweep", {
        key: [[x] for x in v] for key, v in a["runs"]["a"]["sweep"].items()})(a)), REFUSE, True)
    add("sweep shorter than its range", tampered(change_about=lambda a: _set("runs.a.sweep", {
        key: v[:3] for key, v in a["runs"]["a"]["sweep"].items()})(a)))
    add("sweep_range [1]", tampered(change_about=_set("sweep_range", [1])), REFUSE, True)
    add("sweep_range 'ab'", tampered(change_about=_set("sweep_range", "ab")), REFUSE, True)
    add("sweep_range null", tampered(change_about=_set("sweep_range", None)), REFUSE, True)
    add("sweep_range [10, 1]", tampered(change_about=_set("sweep_range", [10, 1])))
    add("sweep_range [1, 10^9]", tampered(change_about=_set("sweep_range", [1, 10**9])))
    add("bands with a null", tampered(change_about=_set("runs.a.bands", [None])), REFUSE, True)
    add("bands low over high", tampered(change_about=_set("runs.a.bands", [[1, "P", 0.9, 0.1]])))
    add("version 2", tampered(change_about=_set("version", 2)))
    add("engine '<script>x</script>'", tampered(change_about=_set("engine",
                                                                  "<script>x</script>")),
        EITHER)
    add("metadata not JSON", tampered(raw_metadata=b"{not json"))
    add("metadata nested 100,000 levels", tampered(raw_metadata=b"[" * 100_000 + b"]" * 100_000),
        REFUSE, True)
    add("metadata a JSON string", tampered(raw_metadata=b'"hello"'))
    add("zero rows", tampered(lambda t: t.slice(0, 0)), REFUSE, True)
    add("a row written twice", tampered(lambda t: pa.concat_tables([t, t.slice(0, 1)])))
    add("a run lacking a query", tampered(lambda t: t.slice(1)))
    add("an unknown measure", tampered(_column("measure", lambda c: pa.array(
        ["Zeta"] + c.to_pylist()[1:], pa.string()))))
    add("value as text", tampered(_column("value", lambda c: pa.array(
        [str(v) for v in c.to_pylist()], pa.string()))))
    add("query_id null", tampered(_column("query_id", lambda c: pa.array(
        [None] + c.to_pylist()[1:], pa.string()))))
    add("k null on a default figure", tampered(_column("k", lambda c: pa.array(
        [None] + c.to_pylist()[1:], pa.int32()))))
    add("a run name with newline and ESC", tampered(_column("run", lambda c: pa.array(
        [r.replace("a", "a\n\x1b[2J") for r in c.to_pylist()], pa.string()))), EITHER)
    add("10,000 runs", _ten_thousand_runs, REFUSE, True)
    add("a CSV named figures.parquet", csv_run(), REFUSE)
    add("truncated", _truncated_figures, REFUSE)
    add("a symlink loop", _symlink("figures.parquet"), REFUSE, True)
    add("a directory", _directory({"x.parquet": b"junk"}), REFUSE)
    cases = []
    check = figures_check
    for name, builder, expect, dash in payloads:
        cases.append(Case(f"{name} [read_figures]", "figures", driver_argv(
            "figures", "figures.parquet"), {"figures.parquet": builder}, expect,
            ("figures.parquet",), check if expect != REFUSE else None, shared=("figures.parquet",),
            group=f"figures: {name}"))
        if dashboard and dash:
            cases.append(Case(f"{name} [dashboard]", "figures-dashboard", driver_argv(
                "dashboard", "--figures", "figures.parquet"), {"figures.parquet": builder},
                expect, ("figures.parquet",), None, shared=("figures.parquet",),
                engine="dashboard", group=f"figures: {name}"))
    return cases


def _ten_thousand_runs(path: Path) -> None:
    pa, pq = _pq()
    table = pq.read_table(path.parent.parent / "_shared" / "figures.parquet")
    metadata = dict(table.schema.metadata)
    about = json.loads(metadata[_metadata_key()])
    import pyarrow.compute as pc
    one = table.filter(pc.equal(table["run"], "a"))
    parts, runs = [], {}
    for i in range(10_000):
        name = f"r{i}"
        parts.append(one.set_column(one.schema.get_field_index("run"), "run",
                                    pa.array([name] * one.num_rows, pa.string())))
        runs[name] = about["runs"]["a"]
    about["runs"] = runs
    metadata[_metadata_key()] = json.dumps(about).encode()
    pq.write_table(pa.concat_tables(parts).replace_schema_metadata(metadata), path,
                   compression="zstd")


def _truncated_figures(path: Path) -> None:
    data = (path.parent.parent / "_shared" / "figures.parquet").read_bytes()
    path.write_bytes(data[: len(data) // 2] + data[-8:])


# --------------------------------------------------------------------------- judge labels

def judge_cases() -> list[Case]:
    S = "judge"
    cases = []
    human = {q: d for q, d in QRELS.items() if q in ("q1", "q2", "q3", "q4")}
    judge = {q: {d: (g + 1) % 3 for d, g in docs.items()} for q, docs in QRELS.items()}
    base = {"human.txt": trec_qrels(human), "judge.txt": trec_qrels(judge),
            "run.txt": trec_run(), "run2.txt": trec_run(RUN2)}
    judge_rows = qrels_rows(judge)

    def judged(name, judge_bytes, expect, commands=("judge", "ppi"), check=None, extra=()):
        for how in commands:
            files = {**base, "judge.txt": judge_bytes}
            if how == "judge":
                argv = metrics_argv("judge", "--qrels", "human.txt", "--judge-qrels",
                                    "judge.txt", "--run", "run.txt", "--run", "run2.txt",
                                    "--k", str(K), "--format", "json", *extra)
            elif how == "ppi":
                argv = metrics_argv("compare", "--labels", "ppi", "--qrels", "human.txt",
                                    "--judge-qrels", "judge.txt", "--run", "run.txt", "--run",
                                    "run2.txt", "--k", str(K), "--format", "json", *extra)
            else:  # scored against the judge alone
                argv = metrics_argv("--labels", "judge", "--qrels", "human.txt",
                                    "--judge-qrels", "judge.txt", "--run", "run.txt", "--k",
                                    str(K), "--format", "json", *extra)
            cases.append(Case(f"{name} [{how}]", S, argv, files, expect, ("judge.txt",),
                              check if how == "label" else None))

    def with_grade(value) -> bytes:
        rows = [list(r) for r in judge_rows]
        rows[0][3] = value
        return lines(rows)

    judged("clean judge labels", trec_qrels(judge), ACCEPT, ("judge", "ppi", "label"),
           answer(judge, [RUN]))
    big = "D" * (10 << 20)
    jq, _ = doc_renamed(judge, RUN, "d1", big)
    judged("a 10 MB doc id in the judge's labels", lazy(lambda jq=jq: trec_qrels(jq)), ACCEPT,
           ("judge", "ppi", "label"), answer(jq, [RUN]))
    judged("judge grade nan", with_grade("nan"), REFUSE)
    judged("judge grade 2^62", with_grade(2**62), REFUSE)
    judged("judge grade 1.5", with_grade("1.5"), REFUSE)
    judged("judge labels not valid UTF-8", with_grade(b"\xff"), REFUSE, ("judge",))
    judged("judge labels empty", b"", REFUSE)
    judged("judge labels of other queries only", trec_qrels(
        {f"z{q}": d for q, d in judge.items()}), REFUSE, ("judge",))
    judged("judge labels binary", bytes(range(256)) * 16, REFUSE, ("judge",))
    judged("judge labels a run file", trec_run(), REFUSE, ("judge",))
    for value in ("nan", "-1", "1e308", "inf"):
        cases.append(Case(f"judge --ppi-lambda {value}", S, metrics_argv(
            "judge", "--qrels", "human.txt", "--judge-qrels", "judge.txt", "--run", "run.txt",
            "--k", str(K), f"--ppi-lambda={value}"), dict(base), REFUSE, ("--ppi-lambda",)))
    cases.append(Case("compare --labels ppi without --judge-qrels", S, metrics_argv(
        "compare", "--labels", "ppi", "--qrels", "human.txt", "--run", "run.txt", "--run",
        "run2.txt"), dict(base), REFUSE, ("--judge-qrels",)))
    cases.append(Case("the judge's labels are the human file", S, metrics_argv(
        "judge", "--qrels", "human.txt", "--judge-qrels", "human.txt", "--run", "run.txt",
        "--k", str(K), "--format", "json"), dict(base), EITHER, ("human.txt",)))
    return cases


# --------------------------------------------------------------------------- output paths

PREVIOUS = b"the previous contents of this file, which a failed write must leave whole\n" * 40


def output_cases() -> list[Case]:
    S = "outputs"
    cases = []
    base = {"qrels.txt": trec_qrels(), "run.txt": trec_run(), "run2.txt": trec_run(RUN2),
            "judge.txt": trec_qrels({q: {d: 1 for d in docs} for q, docs in QRELS.items()})}
    score = ["--qrels", "qrels.txt", "--run", "run.txt", "--k", str(K)]
    two = ["--qrels", "qrels.txt", "--run", "run.txt", "--run", "run2.txt", "--k", str(K)]

    def out(name, argv, expect=REFUSE, names=(), writes=(), files=None, fsize=None,
            stdout_to=None, check=None):
        cases.append(Case(name, S, argv, {**base, **(files or {})}, expect, tuple(names), check,
                          writes=tuple(writes), fsize=fsize, stdout_to=stdout_to))

    for engine in ("memory", "blocks"):
        eng = [] if engine == "memory" else ["--engine", engine]
        for target in ("qrels.txt", "run.txt"):
            out(f"--per-query-out names {target} [{engine}]",
                metrics_argv(*score, *eng, "--per-query-out", target), names=(target,
                                                                               "--per-query-out"))
            out(f"--load-report names {target} [{engine}]",
                metrics_argv(*score, *eng, "--load-report", target),
                names=(target, "--load-report"))
        out(f"--per-query-out and --load-report the same path [{engine}]",
            metrics_argv(*score, *eng, "--per-query-out", "same.out", "--load-report",
                         "same.out"), names=("same.out",), writes=("same.out",))
        out(f"--per-query-out /dev/full [{engine}]",
            metrics_argv(*score, *eng, "--per-query-out", "/dev/full"),
            names=("/dev/full", "--per-query-out"))
        out(f"--per-query-out under a 1 KB file-size limit, a previous file [{engine}]",
            metrics_argv(*score, *eng, "--per-query-out", "figures.parquet"),
            names=("figures.parquet", "--per-query-out"), writes=("figures.parquet",),
            files={"figures.parquet": PREVIOUS}, fsize=1024)
        out(f"--per-query-out a symlink to the run [{engine}]",
            metrics_argv(*score, *eng, "--per-query-out", "link.parquet"),
            names=("link.parquet", "run.txt", "--per-query-out"),
            files={"link.parquet": _symlink("run.txt")})
    out("--load-report /dev/full", metrics_argv(*score, "--load-report", "/dev/full"),
        names=("/dev/full", "--load-report"))
    out("--load-report under a 1 KB limit, a previous file",
        metrics_argv(*score, "--load-report", "report.txt"), files={"report.txt": PREVIOUS},
        names=("report.txt", "--load-report"), writes=("report.txt",), fsize=1024,
        expect=EITHER)
    out("--per-query-out a hard link to the qrels",
        metrics_argv(*score, "--per-query-out", "hard.parquet"),
        names=("hard.parquet", "qrels.txt", "--per-query-out"),
        files={"hard.parquet": lambda p: os.link(p.parent / "qrels.txt", p)})
    out("--per-query-out a directory", metrics_argv(*score, "--per-query-out", "adir"),
        names=("adir", "--per-query-out"), files={"adir/keep": b"x"})
    out("--per-query-out in a missing directory",
        metrics_argv(*score, "--per-query-out", "nowhere/f.parquet"),
        names=("nowhere", "--per-query-out"))
    out("compare --load-report names the qrels",
        metrics_argv("compare", *two, "--load-report", "qrels.txt"),
        names=("qrels.txt", "--load-report"))
    out("judge --load-report names the judge's labels",
        metrics_argv("judge", *score, "--judge-qrels", "judge.txt", "--load-report",
                     "judge.txt"), names=("judge.txt", "--load-report"))
    for target in ("run.txt", "qrels.txt"):
        out(f"snapshot --out names {target}", metrics_argv("snapshot", *score, "--out", target),
            names=(target, "--out"))
        out(f"fuse --out names {target}", metrics_argv("fuse", *two, "--out", target),
            names=(target, "--out"))
        out(f"dashboard report --out names {target}", ["-m", "dashboard", "report", *score,
                                                       "--out", target],
            names=(target, "--out"))
    out("snapshot --out and --load-report the same path", metrics_argv(
        "snapshot", *score, "--out", "same.json", "--load-report", "same.json"),
        names=("same.json",), writes=("same.json",))
    for command, argv in (("snapshot", metrics_argv("snapshot", *score, "--out", "{t}")),
                          ("fuse", metrics_argv("fuse", *two, "--out", "{t}")),
                          ("dashboard report", ["-m", "dashboard", "report", *score, "--out",
                                                "{t}"])):
        out(f"{command} --out /dev/full", [a.replace("{t}", "/dev/full") for a in argv],
            names=("/dev/full", "--out"))
        out(f"{command} --out under a 1 KB limit, a previous file",
            [a.replace("{t}", "previous.out") for a in argv], files={"previous.out": PREVIOUS},
            names=("previous.out", "--out"), writes=("previous.out",), fsize=1024)
    out("dashboard report --out and --load-report the same path",
        ["-m", "dashboard", "report", *score, "--out", "same.html", "--load-report",
         "same.html"], names=("same.html",), writes=("same.html",))
    out("score --format json to a full standard output", metrics_argv(*score, "--format",
                                                                      "json"),
        names=("standard output", "stdout", "<stdout>"), stdout_to="/dev/full")
    out("trec_eval -q to a full standard output", metrics_argv(
        *score, "--format", "trec_eval", "-q"), names=("standard output", "stdout",
                                                       "<stdout>"), stdout_to="/dev/full")
    out("--per-query-out to a new file (control)", metrics_argv(
        *score, "--per-query-out", "new.parquet"), expect=ACCEPT, writes=("new.parquet",),
        check=lambda r: None if (r.folder / "new.parquet").stat().st_size else "empty output")
    return cases


# --------------------------------------------------------------------------- forged outputs

PAYLOADS = {
    "newline": f"q9\n{MARK}\tall\t1.0000",
    "tab": f"q9\t{MARK}",
    "ESC": f"q9\x1b[2J\x1b]0;{MARK}\x07",
    "CR": f"q9\r{MARK}",
    "bidi": f"q9\u202e{MARK}",
    "line separator": f"q9\u2028{MARK}",
    "NEL": f"q9\x85{MARK}",
    "pipe": f"q9|{MARK}|x",
    "formula": f'=HYPERLINK("{MARK}")',
    "html": f"<script>{MARK}</script>",
    "attribute": f'q9" onmouseover="{MARK}',
    "latex": f"\\input{{{MARK}}}\\write18{{{MARK}}}%",
}


LINE_BREAKING = ("newline", "CR", "NEL", "line separator")


def forgery_cases() -> list[Case]:
    """Ids that carry line breaks, tabs, terminal escapes, bidi controls, Markdown, HTML,
    LaTeX or a spreadsheet formula, into every output that writes ids. The payload renames
    q1 (scored: in trec_eval -q) and q6 (excluded: named in the tables' headers), or the
    doc id d1. CSV carries them, JSONL those that break lines (the CSV reader refuses a line
    break inside a cell, by design). A refusal naming the file is fine; exit 0 must show no
    forged line or field and no raw control character (docs/security.md)."""
    S = "forgery"
    cases = []

    def variant(payload: str, query: str) -> str:
        return payload.replace("q9", query) if "q9" in payload else payload + query

    def carried(label: str, qrels: dict, runs: list[dict]) -> dict:
        if label in LINE_BREAKING:
            return {"qrels.jsonl": jsonl_qrels(qrels), "run.jsonl": jsonl_run(runs[0]),
                    "run2.jsonl": jsonl_run(runs[1])}
        return {"qrels.csv": csv_qrels(qrels), "run.csv": csv_run(runs[0]),
                "run2.csv": csv_run(runs[1])}

    def with_query(label: str) -> dict:
        payload = PAYLOADS[label]
        q, runs = QRELS, [RUN, RUN2]
        for old in ("q1", "q6"):
            q = renamed(q, old, variant(payload, old))
            runs = [renamed(r, old, variant(payload, old)) for r in runs]
        return carried(label, q, runs)

    def with_doc(label: str) -> dict:
        q, r = doc_renamed(QRELS, RUN, "d1", PAYLOADS[label])
        _, r2 = doc_renamed(QRELS, RUN2, "d1", PAYLOADS[label])
        return carried(label, q, [r, r2])

    def inputs(files: dict, runs: int = 1) -> list[str]:
        qrels, run, run2 = sorted(files)  # qrels.*, run.*, run2.*
        return ["--qrels", qrels, "--run", run, *(["--run", run2] if runs > 1 else []),
                "--k", str(K)]

    def forge(name, command: list[str], files: dict, tail=(), runs=1, outputs=("-", "2"),
              **kw):
        argv = [*command, *inputs(files, runs), *tail]
        cases.append(Case(name, S, argv, files, EITHER, tuple(sorted(files))[:2],
                          forge_check(*outputs, **kw), writes=tuple(
                              o for o in outputs if o not in ("-", "2"))))

    metrics_ = ["-m", "metrics"]
    report = ["-m", "dashboard", "report"]
    for label in ("newline", "tab", "ESC", "CR", "bidi", "line separator", "NEL"):
        forge(f"query id with {label}: --format trec_eval -q", metrics_, with_query(label),
              ["--format", "trec_eval", "-q"])
    for label in ("newline", "tab", "ESC", "CR", "bidi"):
        forge(f"query id with {label}: --format table", metrics_, with_query(label))
    for label in ("newline", "ESC", "latex"):
        forge(f"query id with {label}: --format latex", metrics_, with_query(label),
              ["--format", "latex"], runs=2, latex=True)
    for label in ("newline", "ESC"):
        forge(f"query id with {label}: compare table", [*metrics_, "compare"],
              with_query(label), runs=2)
    for label in ("newline", "pipe", "ESC"):
        forge(f"query id with {label}: dashboard report --format markdown", report,
              with_query(label), ["--format", "markdown"], runs=2, markdown=True)
    for label in ("html", "attribute"):
        forge(f"query id with {label}: dashboard report html", report, with_query(label),
              ["--out", "report.html"], runs=2, outputs=("report.html", "2"), html=True)
    for label in ("formula", "newline", "ESC"):
        forge(f"doc id with {label}: unjudged --as csv", [*metrics_, "unjudged"],
              with_doc(label), ["--as", "csv"], csv_cells=True)
    for label in ("newline", "tab"):
        forge(f"doc id with {label}: unjudged --as qrels", [*metrics_, "unjudged"],
              with_doc(label), ["--as", "qrels"])
        forge(f"doc id with {label}: sample-for-labelling --as qrels",
              [*metrics_, "sample-for-labelling"], with_doc(label), ["--n", "3", "--as",
                                                                     "qrels"])
    forge("query id with formula: sample-for-labelling --as csv",
          [*metrics_, "sample-for-labelling"], with_query("formula"), ["--n", "8", "--as",
                                                                       "csv"], csv_cells=True)
    for label in ("newline", "tab", "ESC"):
        forge(f"doc id with {label}: fuse (a TREC run)", [*metrics_, "fuse"], with_doc(label),
              runs=2)
    for label in ("newline", "ESC", "CR"):
        files = carried(label, QRELS, [RUN, RUN2])
        run_name = next(n for n in files if n.startswith("run."))
        stray = {variant(PAYLOADS[label], "x"): ["d1"]}
        files[run_name] += (jsonl_run(stray) if run_name.endswith("jsonl")
                            else csv_run(stray).split(b"\n", 1)[1])
        forge(f"run query not in the qrels with {label}: warnings and --load-report",
              metrics_, files, ["--load-report", "load.txt"], outputs=("-", "2", "load.txt"))
    return cases


# --------------------------------------------------------------------------- grades

def grade_cases() -> list[Case]:
    S = "grades"
    cases = []

    def graded(name, grades: dict[str, int], gain: str, expect: str, fmt: str = "txt"):
        q = {**QRELS, "q1": {**QRELS["q1"], **grades}}
        writer = {"txt": trec_qrels, "csv": csv_qrels, "jsonl": jsonl_qrels}[fmt]
        cases.append(scoring(S, name, qrels=writer(q), qrels_file=f"qrels.{fmt}",
                             expect=expect, check=answer(q, [RUN], gain=gain),
                             extra=["--gain", gain]))

    graded("grade 63 (exponential gain)", {"d1": 63}, "exponential", ACCEPT)
    graded("grade 1023 twice (exponential gain)", {"d1": 1023, "d2": 1023}, "exponential",
           EITHER)
    graded("grade 1024 (exponential gain)", {"d1": 1024}, "exponential", EITHER)
    graded("grade 5000 (exponential gain), CSV", {"d1": 5000}, "exponential", EITHER, "csv")
    graded("grade 2^31 (linear gain)", {"d1": 2**31}, "linear", EITHER)
    graded("grade 2^53+1 (linear gain), JSONL", {"d1": 2**53 + 1}, "linear", EITHER, "jsonl")
    graded("grade 2^62 (linear gain), CSV", {"d1": 2**62}, "linear", REFUSE, "csv")
    graded("grade -2^62 and 2^62 in one query", {"d1": 2**62, "d2": -(2**62)}, "linear", REFUSE)
    q = {**QRELS, "q1": {**QRELS["q1"], "d1": 2**62}}
    cases.append(Case("ERR@10 with grade 2^62", S, metrics_argv(
        "--qrels", "qrels.txt", "--run", "run.txt", "--k", str(K), "--metric", "ERR@10",
        "--format", "json"), {"qrels.txt": trec_qrels(q), "run.txt": trec_run()}, REFUSE,
        ("qrels.txt",)))
    q = {**QRELS, "q1": {**QRELS["q1"], "d1": 1000}}
    cases.append(Case("ERR@10 with grade 1000", S, metrics_argv(
        "--qrels", "qrels.txt", "--run", "run.txt", "--k", str(K), "--metric", "ERR@10",
        "--format", "json"), {"qrels.txt": trec_qrels(q), "run.txt": trec_run()}, EITHER,
        ("qrels.txt",)))
    cases.append(Case("compare with grade 2^62", S, metrics_argv(
        "compare", "--qrels", "qrels.txt", "--run", "run.txt", "--run", "run2.txt", "--k",
        str(K), "--format", "json"), {"qrels.txt": trec_qrels(
            {**QRELS, "q1": {**QRELS["q1"], "d1": 2**62}}), "run.txt": trec_run(),
            "run2.txt": trec_run(RUN2)}, REFUSE, ("qrels.txt",)))
    return cases


# --------------------------------------------------------------------------- dashboard uploads

def dashboard_cases() -> list[Case]:
    S = "dashboard"
    cases = []

    def upload(name, qrels, run, expect, run_name="run.txt"):
        cases.append(Case(name, S, driver_argv("dashboard", "--qrels", "qrels.txt", "--run",
                                               run_name),
                          {"qrels.txt": qrels, run_name: run}, expect, ("qrels.txt", run_name),
                          engine="dashboard"))

    rows = run_rows()
    upload("clean upload", trec_qrels(), trec_run(), ACCEPT)
    bad = [list(r) for r in rows]
    bad[0][0] = b"q\xff1"
    upload("upload: a run query id not valid UTF-8", trec_qrels(), lines(bad), REFUSE)
    upload("upload: qrels grade 2^62", trec_qrels({**QRELS, "q1": {"d1": 2**62}}), trec_run(),
           REFUSE)
    nan = [list(r) for r in rows]
    nan[3][4] = "nan"
    upload("upload: score nan", trec_qrels(), lines(nan), REFUSE)
    q, r = renamed(QRELS, "q1", "q\x1b[2J1"), renamed(RUN, "q1", "q\x1b[2J1")
    upload("upload: ESC in a query id", trec_qrels(q), trec_run(r), ACCEPT)
    q, r = renamed(QRELS, "q1", "q\n1"), renamed(RUN, "q1", "q\n1")
    cases.append(Case("upload: newline in a JSONL query id", S, driver_argv(
        "dashboard", "--qrels", "qrels.jsonl", "--run", "run.jsonl"),
        {"qrels.jsonl": jsonl_qrels(q), "run.jsonl": jsonl_run(r)}, ACCEPT,
        ("qrels.jsonl", "run.jsonl"), engine="dashboard"))
    upload("upload: empty run", trec_qrels(), b"", REFUSE)
    q, r = doc_renamed(QRELS, RUN, "d1", "D" * (10 << 20))
    upload("upload: 10 MB doc id", lazy(lambda q=q: trec_qrels(q)), lazy(lambda r=r: trec_run(r)),
           ACCEPT)
    cases.append(Case("upload: the CSV-renamed Parquet run", S, driver_argv(
        "dashboard", "--qrels", "qrels.txt", "--run", "run.parquet"),
        {"qrels.txt": trec_qrels(), "run.parquet": csv_run()}, EITHER, ("run.parquet",),
        engine="dashboard"))
    cases.append(Case("app.py without serve.py's warm-up (the sample)", S, driver_argv(
        "dashboard", "--cold"), {}, ACCEPT, (), engine="dashboard"))
    return cases


# --------------------------------------------------------------------------- running

def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"]
                                     if env.get("PYTHONPATH") else "")
    return env


def limits(cap: int | None, fsize: int | None) -> Callable[[], None]:
    def apply() -> None:
        if cap is not None:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return apply


def fingerprint(path: Path):
    if path.is_symlink():
        return ("link", os.readlink(path))
    try:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return ("file", h.hexdigest())
    except OSError as exc:
        return ("unreadable", str(exc))


def snapshot(folder: Path, shared: Path, names: Iterable[str]) -> dict[str, object]:
    out = {}
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in files + [d for d in dirs if Path(root, d).is_symlink()]:
            path = Path(root, name)
            out[str(path.relative_to(folder))] = fingerprint(path)
    for name in names:
        out["{s}/" + name] = fingerprint(shared / name)
    return out


def _reader(stream, keep: int, into: list) -> None:
    size = 0
    for chunk in iter(lambda: stream.read(1 << 16), b""):
        if size < keep:
            into.append(chunk[: keep - size])
        size += len(chunk)
    stream.close()


def run_case(case: Case, folder: Path, shared: Path) -> Result:
    folder.mkdir(parents=True)
    for name, content in case.files.items():
        _write(folder / name, content)
    before = snapshot(folder, shared, case.shared)
    argv = [a.replace("{s}", str(shared)) for a in case.argv]
    stdout = open(case.stdout_to, "wb") if case.stdout_to else subprocess.PIPE
    start = time.monotonic()
    process = subprocess.Popen([PY, *argv], cwd=folder, env=child_env(),
                               stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE,
                               preexec_fn=limits(case.cap, case.fsize), start_new_session=True)
    if case.stdout_to:
        stdout.close()
    out, err = [], []
    threads = [threading.Thread(target=_reader, args=(process.stderr, 1 << 20, err), daemon=True)]
    if process.stdout is not None:
        threads.append(threading.Thread(target=_reader, args=(process.stdout, OUTPUT_KEPT, out),
                                        daemon=True))
    for t in threads:
        t.start()
    timed_out, status, peak, virtual, killed_at = False, None, 0, 0, None
    while True:
        pid, status, _ = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        resident, mapped = _high_water(process.pid)
        peak, virtual = max(peak, resident), max(virtual, mapped)
        if peak * 1024 > RESIDENT_KILL:
            killed_at = peak
            _kill_group(process.pid)
            _, status, _ = os.wait4(process.pid, 0)
            break
        if time.monotonic() - start > case.time_cap:
            timed_out = True
            _kill_group(process.pid)
            _, status, _ = os.wait4(process.pid, 0)
            break
        time.sleep(0.01)
    seconds = time.monotonic() - start
    process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait
    _kill_group(process.pid)  # a JVM or a worker left behind
    for t in threads:
        t.join(timeout=10)
    rc = process.returncode
    sig = -rc if rc is not None and rc < 0 else None
    after = snapshot(folder, shared, case.shared)
    lost, litter = [], []
    for name, print_ in before.items():
        if after.get(name) == print_:
            continue
        if name in case.writes and rc == 0:
            continue
        what = "removed" if name not in after else "changed"
        lost.append(f"{name} {what}")
    for name in after:
        if name not in before and name not in case.writes:
            litter.append(name)
    return Result(rc, b"".join(out), b"".join(err).decode("utf-8", "replace"), seconds,
                  peak / 1024, virtual / 1024, timed_out, sig, folder, lost, litter,
                  killed_at is not None)


def _high_water(pid: int) -> tuple[int, int]:
    """The process's peak resident and peak virtual memory so far, in KB (VmHWM and VmPeak:
    since its exec, so not the probe's own pages copied by the fork, which wait4's ru_maxrss
    counts)."""
    found = {}
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith((b"VmHWM:", b"VmPeak:")):
                    found[line[:6]] = int(line.split()[1])
    except (OSError, ValueError):
        pass
    return found.get(b"VmHWM:", 0), found.get(b"VmPeak", 0)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


NOISE = re.compile(
    r"^(WARNING: Using incubator modules|Using Spark's default log4j profile|Setting default "
    r"log level|To adjust logging level|\d\d/\d\d/\d\d \d\d:\d\d:\d\d WARN |\s*$|"
    r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ WARNING streamlit\.)")
PY_TRACE = re.compile(r"Traceback \(most recent call last\)")
JAVA_TRACE = re.compile(r"^\s+at [\w$.<>]+\(.*\)\s*$|Exception in thread|Py4JJavaError|"
                        r"^\S+\.\w*(Exception|Error): .*\n\s+at ", re.M)
MEMORY = re.compile(r"MemoryError|out of memory|Cannot allocate memory|std::bad_alloc|"
                    r"OutOfMemoryError|Java heap space|overflowed binary array capacity|"
                    r"capacity overflow|Unable to allocate|too large to load in memory|"
                    r"too large to read in this server's memory", re.I)
WARNING = re.compile(r"^\S+\.py:\d+: \w*Warning: .*$", re.M)
BLOWN = {signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS}


def meaningful_lines(stderr: str) -> list[str]:
    return [x for x in stderr.splitlines() if not NOISE.match(x)]


def error_line(stderr: str) -> str:
    kept = meaningful_lines(stderr)
    for x in kept:
        if x.startswith("error:") or x.lower().startswith("error:"):
            return x
    return kept[-1] if kept else ""


def trace_line(stderr: str) -> str:
    """What a stack trace ends with: the command's own error line when it printed one after
    the trace (Spark's log does), else the Python exception, else the first Java one."""
    kept = meaningful_lines(stderr)
    said = [x for x in kept if x.startswith("error:")]
    if said:
        frames = sum(1 for x in kept if x.startswith((" ", "\t")))
        return f"{said[-1]} (after a stack trace of {frames} frame lines)"
    if PY_TRACE.search(stderr):
        after = [x for x in kept if x and not x.startswith((" ", "\t", "Traceback"))
                 and not x.startswith("During handling") and not x.startswith("The above")]
        if after:
            return after[-1]
    for x in kept:
        if re.search(r"(Exception|Error)\b", x):
            return x.strip()
    return kept[0] if kept else ""


def classify(case: Case, result: Result) -> tuple[str, str]:
    """(class, why)."""
    stderr = result.stderr
    if result.lost:
        return "data-lost", "; ".join(result.lost)
    if result.memory_killed:
        return "blow-up", (f"killed at {result.peak_mb:,.0f} MB resident (the probe's limit: "
                           f"{RESIDENT_KILL / GB:.0f} GB)")
    if result.timed_out:
        return "hang", f"still running after {case.time_cap:.0f} s"
    if result.signal in BLOWN:
        return "blow-up", f"killed by {signal.Signals(result.signal).name} " \
                          f"(peak {result.peak_mb:,.0f} MB)"
    if result.peak_mb * 2**20 >= RESIDENT_BUDGET:
        return "blow-up", (f"{result.peak_mb:,.0f} MB resident, over the "
                           f"{RESIDENT_BUDGET / GB:.0f} GB budget: "
                           + (error_line(stderr) if result.rc else "exit 0"))
    if result.rc and case.cap and result.virtual_mb * 2**20 >= CAP_HIT * case.cap:
        return "blow-up", (f"the {case.cap / GB:.0f} GB memory cap reached (address space "
                           f"{result.virtual_mb:,.0f} MB): " + error_line(stderr))
    memory = MEMORY.search(stderr)
    if memory:
        return "blow-up", next((x for x in meaningful_lines(stderr) if MEMORY.search(x)),
                               memory.group())
    if PY_TRACE.search(stderr) or JAVA_TRACE.search(stderr):
        return "traceback", trace_line(stderr)
    if result.rc != 0:
        line = error_line(stderr)
        if not line:
            return "error-unnamed", f"exit {result.rc} and nothing on standard error"
        named = any(n and n in line for n in case.names)
        return ("error" if named else "error-unnamed"), line
    if case.expect == REFUSE:
        return "silent-wrong", "accepted (exit 0) what it should refuse"
    data, bad = json_of(result)
    if bad:
        return "silent-wrong", f"{bad[0]} in the JSON result"
    if data is None and re.search(r"(?<![\w.])(nan|NaN|-?inf)(?![\w])",
                                  result.stdout.decode("utf-8", "replace")):
        return "silent-wrong", "nan or inf in the result"
    if case.check is not None:
        problem = case.check(result)
        if problem:
            return "silent-wrong", problem
    return "accept", ""


# --------------------------------------------------------------------------- the probe

def every_case(shared: Path, spark: bool) -> list[Case]:
    return [*trec_cases(), *flag_cases(), *delimited_cases(), *jsonl_cases(),
            *parquet_cases(spark), *figures_cases(shared), *judge_cases(), *output_cases(),
            *forgery_cases(), *grade_cases(), *dashboard_cases()]


def prepare_shared(shared: Path, cases: list[Case]) -> None:
    shared.mkdir(parents=True, exist_ok=True)
    needed = {n for c in cases for n in c.shared}
    for name in sorted(needed):
        path = shared / name
        if not path.exists():
            print(f"  writing the shared {name}", file=sys.stderr, flush=True)
            # in a process of its own: the probe stays small, and so does every fork of it
            subprocess.run([PY, str(Path(__file__).resolve()), "--driver", "shared", name,
                            str(path)], check=True)


def probe(cases: list[Case], work: Path, jobs: int, keep: bool) -> list[dict]:
    shared = work / "_shared"
    prepare_shared(shared, cases)
    spark_lock = threading.Lock()
    results: list[dict | None] = [None] * len(cases)
    done = [0]
    print_lock = threading.Lock()

    def one(i: int) -> None:
        case = cases[i]
        folder = work / f"{i:04d}"
        if case.engine == "spark":
            with spark_lock:
                result = run_case(case, folder, shared)
        else:
            result = run_case(case, folder, shared)
        kind, why = classify(case, result)
        warning = WARNING.search(result.stderr)
        record = {
            "name": case.name, "surface": case.surface, "engine": case.engine,
            "expect": case.expect, "class": kind, "why": why, "exit": result.rc,
            "seconds": round(result.seconds, 2), "peak_mb": round(result.peak_mb, 1),
            "virtual_mb": round(result.virtual_mb, 1),
            "first_stderr": _first_line(result.stderr), "group": case.group,
            "stderr_tail": [x[:300] for x in meaningful_lines(result.stderr)[-8:]],
            "warning": warning.group() if warning else None, "litter": result.litter,
            "argv": case.argv,
        }
        results[i] = record
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
        with print_lock:
            done[0] += 1
            print(f"[{done[0]:3d}/{len(cases)}] {kind:13s} {result.seconds:6.1f}s "
                  f"{case.surface}: {case.name}", file=sys.stderr, flush=True)

    if jobs <= 1:
        for i in range(len(cases)):
            one(i)
    else:
        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(one, range(len(cases))))
    return [r for r in results if r is not None]


def compared(before: dict, records: list[dict]) -> str:
    """Counts per class before and after (another run's --json), and every case whose class
    changed."""
    old = {(c["surface"], c["name"]): c for c in before["cases"]}
    new = {(c["surface"], c["name"]): c for c in records}
    both = [k for k in new if k in old]
    was = Counter(old[k]["class"] for k in both)
    now = Counter(new[k]["class"] for k in both)
    out = [f"before: {before.get('commit') or '?'}; after: {_commit()}; over the {len(both)} "
           "cases in both runs",
           f"{'class':14s} {'before':>7s} {'after':>7s}"]
    out += [f"{c:14s} {was.get(c, 0):7d} {now.get(c, 0):7d}" for c in CLASSES]
    changed = [(k, old[k]["class"], new[k]["class"]) for k in new
               if k in old and old[k]["class"] != new[k]["class"]]
    out.append(f"\ncases whose class changed: {len(changed)}")
    out += [f"  {surface}: {name}: {a} -> {b}" for (surface, name), a, b in changed]
    only = [k for k in new if k not in old] + [k for k in old if k not in new]
    if only:
        out.append(f"cases in one run only: {len(only)}")
    return "\n".join(out)


def _first_line(stderr: str) -> str:
    kept = [x for x in meaningful_lines(stderr) if x.strip()]
    return kept[0] if kept else ""


def _clip(text: str, n: int = 150) -> str:
    text = text.encode("unicode_escape").decode("ascii") if RAW.search(text) else text
    return text if len(text) <= n else text[: n - 3] + "..."


def report(records: list[dict]) -> str:
    out = [f"{len(records)} cases"]
    surfaces = sorted({r["surface"] for r in records}, key=lambda s: [
        r["surface"] for r in records].index(s))
    header = f"{'surface':20s} {'cases':>5s} " + " ".join(f"{c:>{max(5, len(c))}s}"
                                                         for c in CLASSES)
    out.append(header)
    out.append("-" * len(header))
    for surface in [*surfaces, "all"]:
        rs = records if surface == "all" else [r for r in records if r["surface"] == surface]
        counts = Counter(r["class"] for r in rs)
        if surface == "all":
            out.append("-" * len(header))
        out.append(f"{surface:20s} {len(rs):5d} " + " ".join(
            f"{counts.get(c, 0):>{max(5, len(c))}d}" for c in CLASSES))
    refused_valid = [r for r in records if r["expect"] == ACCEPT
                     and r["class"] in ("error", "error-unnamed")]
    out.append("")
    out.append(f"refused although valid (must-accept cases that were refused): "
               f"{len(refused_valid)}")
    for r in refused_valid:
        out.append(f"  {r['surface']}: {r['name']}: {_clip(r['why'])}")
    out.append("")
    bad = [r for r in records if r["class"] not in ("error", "accept")]
    out.append(f"cases not in {{error, accept}}: {len(bad)}")
    for kind in CLASSES[1:]:
        for r in (r for r in bad if r["class"] == kind):
            out.append(f"  [{kind}] {r['surface']}: {r['name']}")
            out.append(f"      {_clip(r['why'] or r['first_stderr'])}")
            if r["first_stderr"] and r["first_stderr"] != r["why"]:
                out.append(f"      first stderr line: {_clip(r['first_stderr'])}")
    groups = defaultdict(dict)
    for r in records:
        if r["group"] and r["surface"] in ("parquet", "blocks", "spark", "figures",
                                           "figures-dashboard"):
            reader = {"figures": "read_figures", "figures-dashboard": "dashboard"}.get(
                r["surface"], r["engine"])
            groups[r["group"]][reader] = (
                "refuse" if r["class"] in ("error", "error-unnamed") else r["class"])
    differing = {g: v for g, v in groups.items() if len(set(v.values())) > 1}
    out.append("")
    out.append(f"the same input, different verdicts across engines or readers: {len(differing)}"
               f" of {sum(1 for v in groups.values() if len(v) > 1)}")
    for g, v in differing.items():
        out.append(f"  {g}: " + ", ".join(f"{e} {k}" for e, k in v.items()))
    warned = [r for r in records if r["warning"]]
    if warned:
        out.append("")
        out.append(f"Python warnings printed on standard error: {len(warned)}")
        for r in warned:
            out.append(f"  {r['surface']}: {r['name']}: {_clip(r['warning'])}")
    littered = [r for r in records if r["litter"] and r["class"] != "data-lost"
                and r["exit"] != 0]
    if littered:
        out.append("")
        out.append(f"failed commands that left a new file behind: {len(littered)}")
        for r in littered:
            out.append(f"  {r['surface']}: {r['name']}: {', '.join(r['litter'][:3])}")
    heavier = []
    for r in records:
        if r["engine"] == "blocks" and r["group"]:
            twin = next((m for m in records if m["group"] == r["group"]
                         and m["engine"] == "memory"), None)
            if twin and r["peak_mb"] > max(1.5 * twin["peak_mb"], 300):
                heavier.append((r, twin))
    if heavier:
        out.append("")
        out.append("the bounded engine (--engine blocks) above the in-memory one, same input:")
        for r, twin in heavier:
            out.append(f"  {r['group']}: blocks {r['peak_mb']:,.0f} MB, memory "
                       f"{twin['peak_mb']:,.0f} MB resident")
    slow = sorted(records, key=lambda r: -r["peak_mb"])[:5]
    out.append("")
    out.append("largest peaks: " + "; ".join(f"{r['name']} {r['peak_mb']:,.0f} MB" for r in slow))
    return "\n".join(out)


# --------------------------------------------------------------------------- drivers

def drive(argv: list[str]) -> int:
    """The two readers without a command of their own, each run as this script's process."""
    kind, rest = argv[0], argv[1:]
    if kind == "shared":
        SHARED[rest[0]](Path(rest[1]))
        return 0
    if kind == "figures":
        return _drive_figures(rest[0])
    if kind == "dashboard":
        return _drive_dashboard(rest)
    raise SystemExit(f"unknown driver {kind!r}")


def _drive_figures(path: str) -> int:
    """`metrics.read_figures(FILE)`, errors as the command line says them (run_guarded); on
    success its summary and counts as JSON."""
    import metrics

    def command(argv):
        saved = metrics.read_figures(argv[0])
        out = {"k": saved.k, "counts": {"queries": saved.queries, "excluded": saved.excluded,
                                        "max_grade": saved.max_grade},
               "runs": {}}
        for run in saved.runs:
            out["runs"][run.name] = {
                "summary": {key: [iv.mean, iv.low, iv.high] for key, iv in run.summary.items()},
                "missing": run.missing, "repeats": run.repeats}
            for key in ("missing", "repeats"):
                out["counts"][f"{run.name}.{key}"] = getattr(run, key)
        print(json.dumps(out))
        return 0

    return metrics.run_guarded(command, [path])


def _drive_dashboard(argv: list[str]) -> int:
    """Every page of the dashboard under AppTest: over saved figures named on the command
    line (`-- --figures FILE`), over uploaded files (--qrels, --run), or on the sample. Runs
    serve.py's warm-up first (the README's `streamlit run dashboard/serve.py`) unless --cold.
    Exit 0 when every page draws without an error; 1 with `error: ...` (the first error
    shown); 1 with a traceback when a page raised."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--figures")
    parser.add_argument("--qrels")
    parser.add_argument("--run", action="append", default=[])
    parser.add_argument("--cold", action="store_true")
    args = parser.parse_args(argv)
    sys.argv = ["app.py", *(["--figures", args.figures] if args.figures else [])]
    if not args.cold:
        try:
            from dashboard import serve
            warm = getattr(serve, "warm_up", None)
            if warm:
                warm()
        except Exception as exc:  # noqa: BLE001 - the warm-up is the server's, not the page's
            print(f"(warm-up failed: {exc!r})", file=sys.stderr)
    from streamlit.testing.v1 import AppTest

    app_file = ROOT / "dashboard" / "app.py"
    pages = re.findall(r'\("(app_pages/\w+\.py)"', app_file.read_text())
    app = AppTest.from_file(str(app_file), default_timeout=DASHBOARD_TIME_CAP)
    app.run()
    if args.qrels or args.run:
        app.radio(key="load.source").set_value("upload").run()
        if args.qrels:
            app.file_uploader(key="load.qrels").set_value(
                (args.qrels, Path(args.qrels).read_bytes(), "text/plain"))
        app.file_uploader(key="load.runs").set_value(
            [(r, Path(r).read_bytes(), "text/plain") for r in args.run]).run()
    errors = []
    for page in pages:
        if page != pages[0]:
            app.switch_page(page).run()
        if app.exception:
            e = app.exception[0]
            print("Traceback (most recent call last):", file=sys.stderr)
            print(f"  (page {page})", file=sys.stderr)
            for line in (e.stack_trace or [])[-6:]:
                print("  " + str(line).strip(), file=sys.stderr)
            print(f"{e.message}".splitlines()[0] if e.message else "an exception",
                  file=sys.stderr)
            return 1
        errors += [e.value for e in app.error]
    if errors:  # as a reader sees it: Markdown's backslash escapes removed
        text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", " ".join(str(errors[0]).split()))
        print("error: " + text, file=sys.stderr)
        return 1
    print(json.dumps({"pages": len(pages)}))
    return 0


# --------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--driver"]:
        return drive(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="run the cases whose surface or name holds this")
    parser.add_argument("--no-spark", action="store_true", help="leave out --engine spark")
    parser.add_argument("--jobs", type=int, default=1, help="cases at once (default 1)")
    parser.add_argument("--json", type=Path, help="save every case's outcome as JSON here")
    parser.add_argument("--keep", type=Path, help="keep every case's folder under this one")
    parser.add_argument("--list", action="store_true", help="list the cases and stop")
    parser.add_argument("--before", type=Path, metavar="FILE",
                        help="another run's --json: print the counts before and after too")
    parser.add_argument("--report", type=Path, metavar="FILE",
                        help="print the table of a saved --json and stop")
    args = parser.parse_args(argv)
    if args.report:
        print(json.loads(args.report.read_text())["table"])
        return 0
    work = Path(tempfile.mkdtemp(prefix="hostile_probe_")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    shared = work / "_shared"
    try:
        if not args.list:
            print(pytrec_eval_agrees(), file=sys.stderr)
        shared.mkdir(exist_ok=True)
        if not args.list:
            _make_figures(shared / "figures.parquet")
        cases = every_case(shared, spark=not args.no_spark)
        if args.only:
            cases = [c for c in cases if args.only.lower() in f"{c.surface}: {c.name}".lower()]
        if args.list:
            for c in cases:
                print(f"{c.surface:18s} {c.expect:7s} {c.name}")
            print(f"{len(cases)} cases")
            return 0
        started = time.monotonic()
        records = probe(cases, work, args.jobs, keep=args.keep is not None)
        text = report(records)
        print(text)
        if args.before:
            print("\n" + compared(json.loads(args.before.read_text()), records))
        print(f"\n{time.monotonic() - started:,.0f} s; checkout {ROOT}; {sys.executable}")
        if args.json:
            args.json.write_text(json.dumps({
                "checkout": str(ROOT), "commit": _commit(), "cases": records,
                "counts": dict(Counter(r["class"] for r in records)),
                "by_surface": {s: dict(Counter(r["class"] for r in records
                                               if r["surface"] == s))
                               for s in dict.fromkeys(r["surface"] for r in records)},
                "table": text}, indent=1))
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def _commit() -> str | None:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=False)
    return done.stdout.strip() or None


if __name__ == "__main__":
    sys.exit(main())
