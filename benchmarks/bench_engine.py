"""Time the metrics engine against pytrec_eval on the same files, in one run, and print ratios.

    python benchmarks/bench_engine.py [--queries 10000] [--repeats 5] [--profile]

The collection (benchmarks/generate.py: N queries x 100 retrieved ids, graded labels, tied
scores) is generated into benchmarks/out/ when absent. Every task runs once untimed (warm-up:
file cache, first-touch page faults), then `--repeats` times, engine and reference
alternating (the order flips every repetition); the table shows medians.

(a) in process, on already-parsed inputs: what pytrec_eval computes, nothing more.
    engine:    prepare_query_set + align + kernel.compute on the Qrels/Run from
               `metrics.load_qrels` and `metrics.load_run(..., labels=qrels)`: the join of
               the run to the labels and P, R, F1, Hit, RR, AP, DCG, IDCG, nDCG, CP and
               Judged at every K = 1..100. Loading against the labels codes each run id by
               its position among the labelled ids (the command line loads so), so the join
               is integer work; the info row "run loaded alone" adds the string join.
    reference: `pytrec_eval.RelevanceEvaluator(qrels_dict, measures).evaluate(run_dict)` with
               P, recall, map_cut and ndcg_cut at every cutoff 1..100 plus recip_rank;
               evaluator construction included, building the dicts excluded.
    Info rows (no target): the same on a run loaded without labels, whose ids align()
    then matches to the labels' in one arrow hash pass; the whole
    `metrics.evaluate(qrels, [run], 10, sweep=(1, 100))`,
    which adds the query classes, k suggestion, diagnosis and the 1,000-resample bootstrap;
    loading, `load_qrels` + `load_run(labels=)` against the plain line loop of
    benchmarks/pytrec_eval_script.py that builds the dicts; "kernel.compute alone", the
    vectorised pass on already aligned arrays.
(b) end to end, whole processes, output to /dev/null (start-up, imports, parsing, JSON),
    with the bytecode cache a user's Python writes (the warm-up writes it, even where
    PYTHONDONTWRITEBYTECODE is set):
    engine:    python -m metrics --qrels Q --run R --k 10 --sweep 1:100 --format json
    reference: python benchmarks/pytrec_eval_script.py Q R   (same measures; its JSON holds
               the per-query values at K = 10 and the mean of every measure at every cutoff,
               the same content as the engine's JSON)
(c) the percentile bootstrap, 1,000 resamples, of the nine summary metrics at K = 10 over
    the scored queries: `metrics.bootstrap` on the (queries x 9) per-query values, and the
    steps `evaluate` runs for it (`stats.bootstrap.resample_counts` + `stats.summary.summarise`, on
    the same values). (Timing evaluate with 1,000 minus 1 resamples was tried: a difference
    of two 2-second medians is too noisy on a shared machine.)

`--profile` adds where the time of (b)'s engine command goes: imports, parsing, aligning,
measures, bootstrap and the rest of evaluate, building the JSON dict and writing it.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import pytrec_eval_script as reference  # noqa: E402

K = 10
SWEEP = (1, 100)


class Timing(NamedTuple):
    wall: float  # median wall-clock seconds
    cpu: float  # median CPU seconds (user + sys) of this process and its children


class Row(NamedTuple):
    task: str
    engine: Timing
    reference: Timing | None
    target: float | None = None  # a ratio when there is a reference, else seconds


def cpu_seconds() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def alternating(tasks: dict[str, Callable[[], object]], repeats: int) -> dict[str, Timing]:
    """Medians of each task: one untimed warm-up each, then `repeats` alternating runs."""
    for task in tasks.values():
        task()
    walls: dict[str, list[float]] = {name: [] for name in tasks}
    cpus: dict[str, list[float]] = {name: [] for name in tasks}
    names = list(tasks)
    for repeat in range(repeats):
        for name in names if repeat % 2 == 0 else names[::-1]:
            gc.collect()
            cpu, start = cpu_seconds(), time.perf_counter()
            tasks[name]()
            walls[name].append(time.perf_counter() - start)
            cpus[name].append(cpu_seconds() - cpu)
    return {
        name: Timing(statistics.median(walls[name]), statistics.median(cpus[name]))
        for name in tasks
    }


# A user's Python keeps each module's compiled bytecode after its first import; a machine
# that sets PYTHONDONTWRITEBYTECODE (as some CI images do) would instead compile the
# project's ~80 modules on every timed run, about 0.1 s that no user waits for.
CHILD_ENV = {name: value for name, value in os.environ.items()
             if name != "PYTHONDONTWRITEBYTECODE"}


def run_process(command: list[str]) -> None:
    completed = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False, env=CHILD_ENV
    )
    if completed.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{completed.stderr.decode()}")


def agreement(evaluation, results: dict[str, dict[str, float]]) -> float:
    """Largest |engine - pytrec_eval| over the scored queries, a few measures and cutoffs."""
    scores = evaluation.runs[0].scores.values
    query_ids = [str(q) for q in evaluation.query_set.query_ids]
    scored = evaluation.query_set.scored
    pairs = [("P", "P"), ("R", "recall"), ("AP", "map_cut"), ("nDCG", "ndcg_cut")]
    worst = 0.0
    for row, qid in enumerate(query_ids):
        if not scored[row] or qid not in results:
            continue
        expected = results[qid]
        for ours, theirs in pairs:
            for k in (1, 10, 50, 100):
                worst = max(worst, abs(scores[ours][row, k - 1] - expected[f"{theirs}_{k}"]))
        # the lists hold 100 ids, so RR read at K = 100 is trec_eval's full-list recip_rank
        worst = max(worst, abs(scores["RR"][row, 99] - expected["recip_rank"]))
    return float(worst)


def bench(qrels_path: Path, run_path: Path, repeats: int) -> tuple[list[Row], float, int]:
    import pytrec_eval

    import metrics
    from metrics.core.kernel import compute
    from metrics.core.ranking import align, prepare_query_set

    rows: list[Row] = []

    # (a) loading (info) and evaluating, in process
    loaded = alternating(
        {
            "engine": lambda: metrics.load_run(
                run_path, labels=metrics.load_qrels(qrels_path)[0]
            ),
            "reference": lambda: (
                reference.read_qrels(str(qrels_path)),
                reference.read_run(str(run_path)),
            ),
        },
        repeats,
    )
    qrels, _ = metrics.load_qrels(qrels_path)
    run, _ = metrics.load_run(run_path, labels=qrels)
    run_alone, _ = metrics.load_run(run_path)
    qrels_dict = reference.read_qrels(str(qrels_path))
    run_dict = reference.read_run(str(run_path))
    query_set = prepare_query_set(qrels)
    aligned = align(query_set, run, width=SWEEP[1])
    conventions = metrics.Conventions()

    def join_and_measure(qrels, run):
        """What pytrec_eval does: join the run to the labels, every measure at every K."""
        prepared = prepare_query_set(qrels)
        return compute(prepared, align(prepared, run, width=SWEEP[1]), conventions)

    evaluated = alternating(
        {
            "engine": lambda: metrics.evaluate(qrels, [run], K, sweep=SWEEP),
            "reference": lambda: pytrec_eval.RelevanceEvaluator(
                qrels_dict, reference.MEASURES
            ).evaluate(run_dict),
            "measures": lambda: join_and_measure(qrels, run),
            "string join": lambda: join_and_measure(qrels, run_alone),
            "compute": lambda: compute(query_set, aligned, conventions),
        },
        repeats,
    )
    evaluation = metrics.evaluate(qrels, [run], K, sweep=SWEEP)
    results = pytrec_eval.RelevanceEvaluator(qrels_dict, reference.MEASURES).evaluate(run_dict)
    worst = agreement(evaluation, results)
    del results
    rows.append(
        Row("a. join + measures, in process", evaluated["measures"], evaluated["reference"], 10)
    )
    rows.append(
        Row("   run loaded alone: + string join (info)", evaluated["string join"],
            evaluated["reference"])
    )
    rows.append(
        Row("   whole evaluate, + summary (info)", evaluated["engine"], evaluated["reference"])
    )
    rows.append(Row("   loading the files (info)", loaded["engine"], loaded["reference"]))
    rows.append(
        Row("   kernel.compute alone (info)", evaluated["compute"], evaluated["reference"])
    )

    # (b) whole processes
    engine_command = [
        sys.executable,
        "-m",
        "metrics",
        "--qrels",
        str(qrels_path),
        "--run",
        str(run_path),
        "--k",
        str(K),
        "--sweep",
        f"{SWEEP[0]}:{SWEEP[1]}",
        "--format",
        "json",
    ]
    reference_command = [
        sys.executable,
        str(HERE / "pytrec_eval_script.py"),
        str(qrels_path),
        str(run_path),
        "--k",
        str(K),
    ]
    processes = alternating(
        {
            "engine": lambda: run_process(engine_command),
            "reference": lambda: run_process(reference_command),
        },
        repeats,
    )
    rows.append(  # issue 27's target: at least 4x pytrec_eval's script
        Row("b. end to end, whole process", processes["engine"], processes["reference"], 4)
    )

    # (c) bootstrap of the nine summary metrics at K
    values = evaluation.per_query_scores(run.name)
    matrix = np.column_stack([values[m.key] for m in metrics.SUMMARY_MEASURES])
    seed = metrics.DEFAULT_SEED
    direct = alternating(
        {
            "bootstrap": lambda: metrics.bootstrap(
                matrix, n_resamples=1000, rng=np.random.default_rng(seed)
            )
        },
        repeats,
    )["bootstrap"]
    # the steps evaluate itself runs: draw the resample counts once, then summarise
    # (bootstrap means of 8 metrics, percentile bounds, Wilson for Hit)
    from metrics.stats.bootstrap import resample_counts
    from metrics.stats.summary import summarise

    at_k = {
        key: v[evaluation.query_set.scored] for key, v in evaluation.runs[0].scores.at(K).items()
    }

    def evaluate_steps():
        rng = np.random.default_rng(conventions.seed)
        counts = resample_counts(len(matrix), n_resamples=conventions.n_resamples, rng=rng)
        return summarise(at_k, counts, conventions)

    inside = alternating({"steps": evaluate_steps}, repeats)["steps"]
    label = f"c. bootstrap, 1000 x {matrix.shape[1]} metrics"
    rows.append(Row(label, direct, None, 1.0))
    rows.append(Row("   evaluate's resample_counts + summarise", inside, None, 1.0))
    return rows, worst, int(evaluation.query_set.scored.sum())


def print_table(rows: list[Row]) -> bool:
    """Wall-clock medians decide PASS/MISS; CPU medians (user + sys) are shown beside them,
    being less sensitive to other load on the machine."""
    header = (
        f"{'task':40} {'engine s':>8} {'pytrec s':>8} {'ratio':>6} {'target':>7}  {'result':6}"
        f" | {'cpu eng':>7} {'cpu ref':>7} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    passed = True
    for row in rows:
        engine, ref, target = row.engine, row.reference, row.target
        ratio = None if ref is None else ref.wall / engine.wall
        cpu_ratio = None if ref is None else ref.cpu / engine.cpu
        if target is None:
            goal, result = "-", "info"
        else:
            ok = engine.wall < target if ref is None else ratio >= target
            goal = f"< {target:g} s" if ref is None else f">= {target:g}x"
            result = "PASS" if ok else "MISS"
            passed &= ok
        print(
            f"{row.task:40} {engine.wall:8.3f} {_number(ref and ref.wall):>8} "
            f"{_ratio(ratio):>6} {goal:>7}  {result:6} | {engine.cpu:7.3f} "
            f"{_number(ref and ref.cpu):>7} {_ratio(cpu_ratio):>6}"
        )
    return passed


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}x"


def profile(qrels_path: Path, run_path: Path, repeats: int) -> None:
    """Stages of `python -m metrics ... --format json`, each a median of `repeats` runs."""
    import metrics
    from metrics.core.kernel import compute
    from metrics.core.ranking import align, prepare_query_set
    from metrics.outputs.documents import write_json
    from metrics.snapshot.contract import to_dict

    def median(task: Callable[[], object]) -> float:
        return alternating({"task": task}, repeats)["task"].wall

    bare = [sys.executable, "-c", "pass"]
    imports = [sys.executable, "-c", "import metrics.__main__"]
    start_up = alternating(
        {"bare": lambda: run_process(bare), "imports": lambda: run_process(imports)}, repeats
    )
    qrels, _ = metrics.load_qrels(qrels_path)
    run, _ = metrics.load_run(run_path)  # as the command line loads it: alone, beside the qrels
    query_set = prepare_query_set(qrels)
    aligned = align(query_set, run, width=SWEEP[1])
    evaluation = metrics.evaluate(qrels, [run], K, sweep=SWEEP)
    document = to_dict(evaluation)
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        stages = [
            ("interpreter start-up", start_up["bare"].wall),
            ("imports (import metrics.__main__)", start_up["imports"].wall - start_up["bare"].wall),
            ("load_qrels (beside load_run)", median(lambda: metrics.load_qrels(qrels_path))),
            ("load_run", median(lambda: metrics.load_run(run_path))),
            ("evaluate: prepare_query_set", median(lambda: prepare_query_set(qrels))),
            ("evaluate: align, string join", median(lambda: align(query_set, run, width=SWEEP[1]))),
            (
                "evaluate: measures.compute",
                median(lambda: compute(query_set, aligned, metrics.Conventions())),
            ),
            (
                "evaluate: whole, 1000 resamples",
                median(lambda: metrics.evaluate(qrels, [run], K, sweep=SWEEP)),
            ),
            (
                "evaluate: whole, 1 resample",
                median(
                    lambda: metrics.evaluate(
                        qrels, [run], K, metrics.Conventions(n_resamples=1), sweep=SWEEP
                    )
                ),
            ),
            ("output.to_dict", median(lambda: to_dict(evaluation))),
            ("write_json (orjson, as the CLI writes)", median(lambda: write_json(document))),
            (
                "json.dumps + one write (stdlib)",
                median(lambda: sink.write(json.dumps(document, separators=(",", ":")))),
            ),
        ]
    print("\nwhere (b)'s engine command spends its time (wall-clock medians, seconds):")
    for name, seconds in stages:
        print(f"  {name:40} {seconds:7.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=generate.DEFAULT_OUT)
    parser.add_argument("--profile", action="store_true", help="also time the CLI's stages")
    args = parser.parse_args()
    if args.repeats < 1 or args.queries < 1:
        parser.error("--queries and --repeats must be positive")

    qrels_path, run_path = generate.paths(args.out, args.queries)
    if not (qrels_path.exists() and run_path.exists()):
        print(f"generating {args.queries:,} queries x 100 ids into {args.out} ...", flush=True)
        generate.generate(args.out, queries=args.queries)
    print(
        f"collection: {qrels_path.name} / {run_path.name}; {args.repeats} alternating repeats "
        f"after one warm-up each; Python {sys.version.split()[0]}, {os.cpu_count()} CPUs",
        flush=True,
    )
    rows, worst, scored = bench(qrels_path, run_path, args.repeats)
    print(f"agreement on {scored:,} scored queries: max |engine - pytrec_eval| = {worst:.1e}\n")
    passed = print_table(rows)
    if args.profile:
        profile(qrels_path, run_path, args.repeats)
    print("\nall targets met" if passed else "\nsome targets missed")


if __name__ == "__main__":
    main()
