"""What each query cost under each run, through the engine: the timings side file uploaded in
the sidebar and the latency_ms, cost and tokens columns of the CSV/TSV/Parquet runs, read
once per set of files (``timings``), then their figures over the view's scored queries, each
shown run against the baseline (``timed``), and the trade-off chart (``chart``). The Overview,
Compare and the report read them: one computation for all three."""

from __future__ import annotations

from dataclasses import dataclass

import altair as alt

import metrics
from dashboard.data import costs
from dashboard.data.cache import Inputs, View, derived, store
from dashboard.views import chart_base
from dashboard.views.tradeoff_charts import tradeoff_chart, tradeoff_frame
from metrics import vocabulary


@dataclass(frozen=True, eq=False)
class Read:
    """Every run's timings by its loaded name, the side file's report, or the loader's
    one-line error."""

    by_run: dict[str, metrics.RunTimings]
    key: tuple = ()  # the files read, for the caches of what is built from them
    summary: str | None = None
    error: str | None = None


@dataclass(frozen=True, eq=False)
class Timed:
    """The view's figures (None when no shown run has timings), the load report's lines on
    them, and the error that stopped reading them."""

    found: metrics.Timed | None
    key: tuple = ()  # the files read and the baseline, for the chart's cache
    lines: tuple[str, ...] = ()
    summary: str | None = None
    error: str | None = None


def _files(loaded: Inputs) -> list[tuple[str, object]]:
    """(loaded run name, its file) for each readable run read from a file (a fused run has
    none)."""
    files = dict(zip((p.key for p in loaded.runs), loaded.run_files, strict=False))
    return [(name, files[parsed.key])
            for name, parsed in zip(loaded.run_names, loaded.usable_runs, strict=True)
            if parsed.key in files]


def timings(loaded: Inputs) -> Read:
    """The timings of every loaded run: its file's own columns and the side file's rows (a
    run named there but not loaded, a bad value: the loader's error, naming the file and
    line). Read once per set of files."""
    files = _files(loaded)
    side = loaded.timings
    key = (tuple(f.key for _, f in files), tuple(n for n, _ in files),
           None if side is None else side.key)

    def read() -> Read:
        try:
            found = []
            for name, file in files:
                own = metrics.run_file_timings(file.source(), name, file_name=file.file_name)
                if own is not None:
                    found.append({name: own})
            summary = None
            if side is not None:
                by_run, report = metrics.load_timings(side.source(), file_name=side.file_name)
                metrics.check_runs(by_run, [n for n, _ in files], report.source)
                found.append(by_run)
                summary = report.summary()
            return Read(metrics.merge_timings(*found), key, summary)
        except ValueError as exc:  # LoadError: one line naming the file and line
            return Read({}, key, error=str(exc))
        except MemoryError:
            return Read({}, key, error="the timings are too large to read in this server's "
                        "memory")

    return store().get("timings", key, read,
                       files=[f.key for _, f in files] + ([side.key] if side else []))


def timed(view: View, loaded: Inputs | None, baseline: str | None = None) -> Timed | None:
    """The figures of the view's shown runs (under their display names) over its scored
    queries, each against `baseline` (default the first shown run); None without timings
    (saved figures carry none: their run files, when given, are read for their lists)."""
    if not isinstance(loaded, Inputs):
        return None
    read = timings(loaded)
    if read.error:
        return Timed(None, error=read.error)
    shown = {original: display for original, display in view.shown} or {
        name: name for name in view.evaluation.run_names}
    by_run = {shown[name]: value for name, value in read.by_run.items() if name in shown}
    if not by_run:
        return None if read.summary is None else Timed(None, summary=read.summary)
    evaluation = view.evaluation

    def build() -> Timed:
        found = metrics.timed(evaluation.run_names, evaluation.scored_ids, by_run,
                              evaluation.conventions, baseline=baseline)
        return Timed(found, (read.key, baseline), tuple(metrics.timing_report_lines(found)),
                     read.summary)

    return derived(view, "timed", (read.key, baseline), build)


def chart(view: View, timed_: Timed, metric: str, label: str, *, statistic: str = "p95",
          column: str = vocabulary.timings.LATENCY) -> alt.LayerChart:
    """The trade-off chart of the view's runs: `statistic` of `column` against `metric` (a
    measure key of the summary, written `label`) at K; on the tokens axis, where a corpus
    is given, each run's figure at every K against its estimated tokens at K too."""
    evaluation = view.evaluation
    swept = costs.swept(view) if column == vocabulary.timings.TOKENS else None
    sweep = None if swept is None else costs.sweep_frame(view, swept, metric)

    def build() -> alt.LayerChart:
        frame, left_out = tradeoff_frame(evaluation.summary(), timed_.found, metric=metric,
                                         statistic=statistic, column=column)
        return tradeoff_chart(frame, chart_base.run_scale(view.colour_domain),
                              k=evaluation.k, metric_label=label, statistic=statistic,
                              column=column,
                              confidence_level=evaluation.conventions.confidence_level,
                              left_out=left_out, sweep=sweep,
                              sweep_method="" if swept is None else swept.method)

    return derived(view, "tradeoff chart", (timed_.key, metric, statistic, column,
                                            None if swept is None else swept.key), build)
