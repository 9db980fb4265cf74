"""The presentation's slides as data: a tuple of frozen `Slide`s (a title, a few lines of
plain text, a chart), built from the report's contents (metrics.report_contents, the one
function the Export page and `python -m dashboard report` call), so that the presentation
mode (dashboard/app_pages/present.py) and the export (dashboard/report/slides.py: PNG and
PDF) show the same words and the same figures. Pure: no Streamlit.

The six slides, in the order a room follows a decision:

1. what was compared: the runs, the queries, K and the labels in one line, and the
   conventions stated once (every later figure is read under them);
2. the headline on the primary figure (the engine's sentence per candidate) and its picture:
   every run's mean with its interval, the baseline marked;
3. where the runs differ: the primary figure against K (Evaluation.sweep), the chosen K marked;
4. what each candidate wins and loses: the queries its paired difference raises and lowers
   most (the comparison's per-query arrays), with their questions when a queries file was
   given; one slide per candidate;
5. what it costs: the tokens (and dollars, when priced) each run sends at K and at its
   suggested k (metrics.costs); and `latency`, one line per candidate from the timings
   (None: none given, said so);
6. the caveats that matter: leakage, the share of the top K that is judged, what the query
   set can detect (power), the harmed queries and the excluded ones.

Lines are plain text as the engine and the files wrote them: whoever draws them escapes them
(the page with safe.md; the export draws Vega text marks, which render no markup). Every
figure is the engine's, written by metrics.format.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import altair as alt
import pandas as pd

from dashboard.views import frames
from dashboard.views.chart_base import OKABE_ITO, UNIT, run_scale
from metrics import Comparison, Evaluation, ReportContents, vocabulary
from metrics import format as fmt

# the export's canvas and the least text size a projector reads from the back of a room:
# 18 pt at 1920 x 1080 is 24 px (a pixel is 0.75 pt)
WIDTH, HEIGHT = 1920, 1080
MIN_TEXT_PX = 24
TEXT_PX = 30  # a slide's lines
TITLE_PX = 52
AXIS_PX = 26  # axis labels and titles, legends
CHART_WIDTH = 1560  # the plot, leaving room for the axis and legend within 1920 - margins
EXAMPLES = 5  # gains and as many losses a candidate
QUESTION_CHARS = 52  # of a query's text beside its id in the wins-and-losses chart
GAIN, LOSS = OKABE_ITO[0], OKABE_ITO[3]  # blue and vermilion: apart for every common CVD
INK = "#1a1a1a"  # words and rules that are not a run's
SOFT = "#555555"  # the baseline's mark, axis grid


# every slide chart's text, on the page and in the files: what a projector needs
# (labelLimit 0: a label is never cut short with an ellipsis)
AXIS_STYLE = dict(labelLimit=0, labelFontSize=AXIS_PX, titleFontSize=AXIS_PX, labelColor=INK,
                  titleColor=INK, titleFontWeight="normal", titlePadding=16, labelPadding=8,
                  gridColor="#dddddd", domainColor=SOFT, tickColor=SOFT)
LEGEND_STYLE = dict(labelLimit=0, rowPadding=8, labelFontSize=AXIS_PX, titleFontSize=AXIS_PX,
                    labelColor=INK, titleColor=INK)


def styled(chart: alt.TopLevelMixin, font: str | None = None) -> alt.TopLevelMixin:
    """A slide's chart (or the slide's composite) with the slides' text sizes and colours
    (and `font`, for the files: the page keeps the theme's)."""
    fonts = {} if font is None else dict(labelFont=font, titleFont=font)
    chart = chart.configure_view(stroke=None).configure_axis(
        **AXIS_STYLE, **fonts).configure_legend(**LEGEND_STYLE, **fonts)
    return chart if font is None else chart.configure_text(font=font)


@dataclass(frozen=True, eq=False)
class Slide:
    """One slide: `key` names its kind (compared, headline, sweep, wins, cost, caveats),
    `title` and `lines` are plain text, `chart` an Altair chart sized for the 1920 x 1080
    export (None: words only)."""

    key: str
    title: str
    lines: tuple[str, ...]
    chart: alt.TopLevelMixin | None = None


def build(contents: ReportContents, *, latency: Sequence[str] | None = None,
          colour_domain: Sequence[str] | None = None) -> tuple[Slide, ...]:
    """The slides of an evaluation and its comparison (contents.comparison; without one, the
    slides that need it say so). `latency`: one line per run on what it costs in time (the
    hook for the engine's latency figures; None: not measured). `colour_domain`: every loaded
    run in load order, so a run keeps the colour it has on the other pages."""
    evaluation = contents.evaluation
    runs = run_scale(list(colour_domain or evaluation.run_names))
    comparison = contents.comparison
    live = comparison is not None and comparison.baseline in evaluation.run_names
    slides = [compared(contents), headline(contents, runs), sweep(contents, runs)]
    if live and comparison.metrics:
        slides += [wins(contents, candidate) for candidate in comparison.candidates]
    else:
        slides.append(Slide("wins", "What a candidate wins and loses", (
            "No comparison of live runs: load two runs or more (the first shown is the "
            "baseline) to see the queries a candidate helps and hurts most.",)))
    slides += [cost(contents, runs, latency), caveats(contents)]
    return tuple(slides)


def footer(evaluation: Evaluation, baseline: str) -> str:
    """What every exported slide says at its foot besides its number."""
    return (f"K = {evaluation.k} · {fmt.count(len(evaluation.scored_ids), 'query')} · "
            f"baseline {baseline}")


def primary_label(contents: ReportContents) -> str:
    return contents.evaluation.label(contents.primary)


def _baseline(contents: ReportContents) -> str:
    comparison = contents.comparison
    return comparison.baseline if comparison is not None else contents.evaluation.run_names[0]


# --------------------------------------------------------------------------- 1. compared


def compared(contents: ReportContents) -> Slide:
    evaluation = contents.evaluation
    baseline = _baseline(contents)
    others = [r for r in evaluation.run_names if r != baseline]
    runs = (f"{baseline} (baseline) against {fmt.listing(others, 6)}" if others
            else f"{baseline} alone")
    excluded = len(evaluation.excluded_ids)
    scored = fmt.count(len(evaluation.scored_ids), "query") + " scored" + (
        f" ({excluded:,} without a relevant id left out)" if excluded else "")
    labels = _labels(evaluation)
    one_line = " · ".join([runs, scored, f"K = {evaluation.k}", labels])
    conventions = evaluation.conventions
    methods = vocabulary.interval_methods(
        [(evaluation.label(s.key), s.measure.interval) for s in evaluation.summary_specs],
        conventions.interval_method)
    return Slide("compared", "What was compared", (
        one_line,
        f"Every figure is a mean over the scored queries at K = {evaluation.k}; "
        f"{methods}.",
        "Conventions: " + "; ".join(conventions.in_words()) + ".",
        f"The headline reads {primary_label(contents)}; "
        + (f"each candidate is compared with {baseline}, query by query (paired)."
           if others else "a comparison needs a second run."),
    ))


def _labels(evaluation: Evaluation) -> str:
    """The labels in a few words: the qrels' load report (what the reader counted)."""
    reports = [r for r in frames.load_reports(evaluation) if r.kind == "qrels"]
    return "labels: " + (reports[0].summary() if reports else "the qrels given")


# --------------------------------------------------------------------------- 2. headline


def headline(contents: ReportContents, runs: alt.Scale) -> Slide:
    evaluation = contents.evaluation
    label = primary_label(contents)
    said = contents.headline or (
        "No headline: it compares a candidate with a live baseline; load two runs or more.",)
    summary = evaluation.summary()
    rows = summary[summary["label"] == label].copy()
    return Slide("headline", f"The headline: {label}", tuple(said),
                 headline_chart(rows, runs, baseline=_baseline(contents), label=label,
                                level=fmt.confidence(evaluation.conventions.confidence_level)))


def headline_chart(rows: pd.DataFrame, runs: alt.Scale, *, baseline: str, label: str,
                   level: str) -> alt.LayerChart:
    """One row a run: its mean (a point) and interval (a bar with caps), the baseline's row
    named so and its mean a dashed line across every row. `rows` are Evaluation.summary()'s
    rows of one figure (run, mean, low, high)."""
    order = list(rows["run"])
    rows = rows.assign(shown=[f"{r} (baseline)" if r == baseline else r for r in rows["run"]],
                       written=[f"{fmt.figure(m)} [{fmt.figure(lo)}, {fmt.figure(hi)}]"
                                for m, lo, hi in zip(rows["mean"], rows["low"], rows["high"],
                                                     strict=True)])
    shown = list(rows["shown"])
    base = alt.Chart(rows)
    y = alt.Y("shown:N", sort=shown, title=None, axis=alt.Axis(labelLimit=0))
    colour = alt.Color("run:N", scale=runs, legend=None, sort=order)
    x = alt.X("low:Q", scale=UNIT, title=f"{label}: mean and {level} interval",
              axis=alt.Axis(format=".1f", tickCount=5, grid=True))
    bars = base.mark_rule(strokeWidth=6).encode(x=x, x2="high:Q", y=y, color=colour)
    caps = [base.mark_tick(thickness=4, size=34).encode(
        x=alt.X(f"{end}:Q", scale=UNIT), y=y, color=colour) for end in ("low", "high")]
    points = base.mark_point(filled=True, size=420, opacity=1).encode(
        x=alt.X("mean:Q", scale=UNIT), y=y, color=colour)
    written = base.mark_text(align="left", dx=16, dy=-26, fontSize=AXIS_PX, color=INK).encode(
        x=alt.X("high:Q", scale=UNIT), y=y, text="written:N")
    rule = base.transform_filter(alt.datum.run == baseline).mark_rule(
        strokeDash=[10, 8], strokeWidth=2, color=SOFT).encode(x=alt.X("mean:Q", scale=UNIT))
    height = min(560, max(320, 120 * len(shown)))  # the page fits axes into it: room for them
    return alt.layer(rule, bars, *caps, points, written).properties(
        width=CHART_WIDTH - 200, height=height)


# --------------------------------------------------------------------------- 3. sweep


def sweep(contents: ReportContents, runs: alt.Scale) -> Slide:
    evaluation = contents.evaluation
    key = contents.primary
    long = frames.sweep_long(evaluation)
    curve = long[long["metric"] == _sweep_name(evaluation, key)]
    label = curve["label"].iloc[0] if len(curve) else evaluation.label(key)
    k, top = evaluation.k, int(curve["k"].max()) if len(curve) else evaluation.k
    at = sorted({1, k, top})
    lines = [f"Mean {label} of every run at every K from 1 to {top}; the dashed line marks "
             f"K = {k}."]
    for run in evaluation.run_names:
        mine = curve[curve["run"] == run].set_index("k")["mean"]
        lines.append(f"{run}: " + " · ".join(
            f"{fmt.figure(mine[c])} at K = {c}" for c in at if c in mine.index))
    return Slide("sweep", f"Where the runs differ: {label} as K grows", tuple(lines),
                 sweep_chart(curve, runs, k=k, label=label))


def _sweep_name(evaluation: Evaluation, key: str) -> str:
    """The sweep's column of a measure key (Evaluation.sweep names them by Spec.name())."""
    for spec in evaluation.sweep_specs:
        if spec.key == key:
            return spec.name()
    return evaluation.sweep_specs[0].name()


def sweep_chart(curve: pd.DataFrame, runs: alt.Scale, *, k: int, label: str) -> alt.LayerChart:
    """The primary figure against K, one line a run, the chosen K a dashed rule."""
    shown = list(dict.fromkeys(curve["run"]))
    lo, hi = int(curve["k"].min()), int(curve["k"].max())
    x = alt.X("k:Q", title="K (cutoff)", scale=alt.Scale(domain=[lo, hi], nice=False),
              axis=alt.Axis(tickMinStep=1, format="d", tickCount=10, grid=False))
    y = alt.Y("mean:Q", scale=UNIT, title=f"Mean {label}",
              axis=alt.Axis(format=".1f", tickCount=5, grid=True))
    colour = alt.Color("run:N", scale=runs, sort=shown, title=None, legend=alt.Legend(
        orient="right", values=shown, labelLimit=0, symbolStrokeWidth=6, symbolSize=400))
    lines = alt.Chart(curve).mark_line(strokeWidth=5).encode(x=x, y=y, color=colour)
    chosen = alt.Chart(pd.DataFrame({"k": [k]})).mark_rule(
        strokeDash=[10, 8], strokeWidth=2, color=SOFT).encode(x="k:Q")
    return alt.layer(lines, chosen).properties(width=CHART_WIDTH, height=420)


# --------------------------------------------------------------------------- 4. wins


def wins(contents: ReportContents, candidate: str) -> Slide:
    comparison = contents.comparison
    label = primary_label(contents)
    metric = label if label in comparison.metrics else comparison.metrics[0]
    test = next(t for t in comparison.tests if t.candidate == candidate and t.metric == metric)
    paired = frames.paired_scores(comparison, metric)
    gains = frames.biggest_changes(paired, candidate, EXAMPLES, gains=True)
    losses = frames.biggest_changes(paired, candidate, EXAMPLES, gains=False)
    lines = [f"{candidate} against {comparison.baseline} on {metric}, query by query: "
             f"{fmt.count(test.wins, 'query')} better, {test.losses:,} worse, "
             f"{test.ties:,} unchanged.",
             f"The {EXAMPLES} it raised most and the {EXAMPLES} it lowered most (ties left "
             "out), each with its " + ("question." if contents.queries is not None else
                                       "query id (give a queries file to see its question).")]
    rows = examples_frame(gains, losses, contents.queries)
    return Slide("wins", f"What {candidate} wins and loses", tuple(lines),
                 wins_chart(rows, metric) if len(rows) else None)


def examples_frame(gains: pd.DataFrame, losses: pd.DataFrame, queries) -> pd.DataFrame:
    """One row a query: its name on the chart (id, and its question cut to QUESTION_CHARS),
    before, after, difference (frames.biggest_changes's figures), gain or loss."""
    rows = []
    for kind, changes in (("gain", gains), ("loss", losses)):
        for row in changes.itertuples(index=False):
            text = queries.text(row.query_id) if queries is not None else None
            shown = row.query_id + (f"  {_cut(text)}" if text else "")
            rows.append({"query": shown, "query_id": row.query_id, "kind": kind,
                         "before": row.before, "after": row.after,
                         "difference": row.difference,
                         "written": f"{fmt.figure(row.before)} → {fmt.figure(row.after)}"})
    return pd.DataFrame(rows)


def _cut(text: str, n: int = QUESTION_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 1].rstrip() + "…"


def wins_chart(rows: pd.DataFrame, metric: str) -> alt.LayerChart:
    """Each query's paired difference as a bar from 0 (gains above, in blue; losses below,
    in vermilion), its before -> after written at the bar's end."""
    order = list(rows["query"])
    y = alt.Y("query:N", sort=order, title=None, axis=alt.Axis(labelLimit=0))
    x = alt.X("difference:Q", title=f"Difference in {metric} (candidate - baseline)",
              scale=alt.Scale(domain=[-1, 1], nice=False),
              axis=alt.Axis(format="+.1f", values=[-1, -0.5, 0, 0.5, 1], grid=True))
    colour = alt.Color("kind:N", scale=alt.Scale(domain=["gain", "loss"], range=[GAIN, LOSS]),
                       legend=None)
    base = alt.Chart(rows)
    bars = base.mark_bar(height=22).encode(x=x, y=y, color=colour)
    zero = alt.Chart(pd.DataFrame({"x": [0]})).mark_rule(color=INK, strokeWidth=2).encode(
        x="x:Q")
    # before -> after beside the plot's right edge (the scale's +1), whatever its width
    written = base.mark_text(fontSize=MIN_TEXT_PX, color=INK, align="left", dx=18).encode(
        x=alt.datum(1, scale=alt.Scale(domain=[-1, 1], nice=False)), y=y, text="written:N")
    return alt.layer(bars, zero, written).properties(width=CHART_WIDTH - 880,
                                                     height=44 * len(order))


# --------------------------------------------------------------------------- 5. cost


NOT_PRICED = ("Not priced: give the tokens per chunk (and a price per million tokens) on the "
              "Overview, or a corpus, which gives words × 1.3.")
NO_LATENCY = "Latency: not measured in these inputs."


def cost(contents: ReportContents, runs: alt.Scale, latency: Sequence[str] | None) -> Slide:
    costs = contents.costs
    lines = [*(latency if latency else [NO_LATENCY])]
    if not costs:
        return Slide("cost", "What it costs", (NOT_PRICED, *lines))
    k = costs[0].current.k
    # each run's figures are the chart's (its sentence, three lines a run, would push the
    # chart off the slide at three runs); the direction of each suggestion in words
    lines = [costs[0].tokens.sentence,
             "Each bar: the tokens a query sends to the model at K and at the run's suggested "
             "k (the smallest k whose recall nears the best its lists allow), with the recall "
             "they buy.",
             *lines]
    rows = pd.DataFrame([
        {"run": c.run, "at": f"K = {at.k}" if at is c.current else f"suggested k = {at.k}",
         "which": which, "tokens": at.tokens, "recall": at.recall,
         }
        for c in costs for which, at in (("at K", c.current), ("at suggested k", c.suggested))])
    rows["written"] = [f"{t:,.0f} tokens · recall {fmt.figure(r)}"
                       for t, r in zip(rows["tokens"], rows["recall"], strict=True)]
    return Slide("cost", f"What it costs at K = {k}", tuple(lines), cost_chart(rows, runs))


def cost_chart(rows: pd.DataFrame, runs: alt.Scale) -> alt.LayerChart:
    """Tokens a query sends per run, at K and at its suggested k, the recall they buy
    written beside each bar."""
    rows = rows.assign(row=[f"{r} · {a}" for r, a in zip(rows["run"], rows["at"], strict=True)])
    order = list(rows["row"])
    y = alt.Y("row:N", sort=order, title=None, axis=alt.Axis(labelLimit=0))
    x = alt.X("tokens:Q", title="Tokens per query", axis=alt.Axis(format=",d", tickCount=5))
    colour = alt.Color("run:N", scale=runs, legend=None)
    base = alt.Chart(rows)
    bars = base.mark_bar(height=26).encode(
        x=x, y=y, color=colour,
        opacity=alt.Opacity("which:N", scale=alt.Scale(domain=["at K", "at suggested k"],
                                                        range=[1.0, 0.55]), legend=None))
    written = base.mark_text(fontSize=MIN_TEXT_PX, color=INK, align="left", dx=10).encode(
        x="tokens:Q", y=y, text="written:N")
    return alt.layer(bars, written).properties(width=CHART_WIDTH - 900,
                                               height=min(420, 56 * len(order)))


# --------------------------------------------------------------------------- 6. caveats


def caveats(contents: ReportContents) -> Slide:
    evaluation = contents.evaluation
    lines = []
    leakage = contents.leakage
    lines.append("Leakage: " + (leakage.sentence if leakage is not None else
                                "not checked (it needs the queries and the corpus)."))
    judged = _judged(evaluation)
    if judged:
        lines.append(judged)
    comparison = contents.comparison
    if comparison is not None and comparison.metrics:
        lines += _power(contents, comparison)
        lines += [f"Harm: {r.candidate} lowers {r.metric} by more than {r.harm_delta:g} on "
                  f"{fmt.percent_of(r.harmed, r.n)} of the queries."
                  for r in contents.risks or () if r.metric == _metric(contents, comparison)]
    if evaluation.excluded_ids:
        lines.append(f"Left out: {fmt.count(len(evaluation.excluded_ids), 'query')} without a "
                     "relevant id (they would score 0 for every run).")
    return Slide("caveats", "The caveats that matter", tuple(lines))


def _metric(contents: ReportContents, comparison: Comparison) -> str:
    label = primary_label(contents)
    return label if label in comparison.metrics else comparison.metrics[0]


def _judged(evaluation: Evaluation) -> str | None:
    """Judged@K of every run (the engine's mean): the share of its top K that has a label."""
    summary = evaluation.summary()
    rows = summary[summary["metric"] == "Judged"]
    if rows.empty:
        return None
    label = rows["label"].iloc[0]
    return (f"Judged share ({label}, the share of each run's top {evaluation.k} with a label; "
            "an unlabelled id counts as not relevant): "
            + ", ".join(f"{r.run} {fmt.figure(r.mean)}" for r in rows.itertuples(index=False))
            + ".")


def _power(contents: ReportContents, comparison: Comparison) -> list[str]:
    metric = _metric(contents, comparison)
    power = frames.power_by_test(comparison)
    return [f"Power: for {candidate} on {metric}, {power[candidate, metric].sentence}."
            for candidate in comparison.candidates if (candidate, metric) in power]
