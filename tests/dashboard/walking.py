"""A seeded random walk over the dashboard as its users move through it (issue 44, section 3):
load the sample or a collection with texts and a judge's labels, change K, switch each
convention and the label set, type and clear a search and a filter, pick runs, baseline and
candidates, follow the links into the drill-down, step through queries, grade ids and rescore,
add and remove a fused run, open every page and the export. After every step the page is
checked for what must hold whatever came before (`Walk.check`):

- no exception element;
- the drill-down shows the query a link named;
- every figure's name agrees with the conventions in force: the K it says is the sidebar's, a
  figure read over the whole list (RR, AP under "over the full list") carries no @K;
- no text or cell reads None, nan or "none relevant";
- the Overview's summary holds the engine's figures for the view (the files scored afresh
  under the sidebar's K, conventions, label set, runs and filter), and the Export page's
  Markdown summary holds the same.

A failure names the seed and every step taken, so that it replays.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

import metrics
from dashboard.state import session
from metrics import Conventions, RunSource
from metrics import format as fmt
from metrics.core.sample import SAMPLE_DIR
from tests.dashboard.conftest import PAGES, follow, open_app, shown, upload
from tests.dashboard.walk_collection import Collection

SAMPLE_RUNS = ("baseline", "reranked", "bm25")
SEARCHED = ("q0", "q1", "how", "plan", "zzz-nothing")
# a figure's label at a cutoff: the default figures' keys and their means' keys
AT_K = re.compile(r"(?<![\w(])(P|R|F1|Hit|MRR|RR|MAP|AP|nDCG|DCG|IDCG|CP|Judged)@(\d+)\b")
WHOLE_LIST = {"rr": ("MRR", "RR"), "ap": ("MAP", "AP")}
# Python's None and a float's nan printed as text, and a count spelled "none" before a noun
PRINTED = (re.compile(r"(?<![.!?:]\s)(?<!^)\bNone\b(?! of\b)"), re.compile(r"\bnan\b"),
           re.compile(r"\bNaN\b"), re.compile(r"\bnone relevant\b"))
PAGES_SHOWING_ONE_K = {"overview", "drilldown", "compare", "heatmap", "overlap", "export"}


class WalkFailure(AssertionError):
    pass


@dataclass
class Walk:
    seed: int
    collection: Collection | None = None  # None: the bundled sample
    app: AppTest = field(init=False)
    rng: random.Random = field(init=False)
    trail: list[str] = field(default_factory=list)
    page: str = "overview"
    expect_query: str | None = None
    pairs_test: str = "paired"  # the test of every pair last chosen (the default before)
    _expected: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.app = open_app()
        if self.collection is not None:
            upload(self.app, **self.collection.uploads())
            self.trail.append(f"upload the collection (human labels on every query: "
                              f"{self.collection.human_everywhere})")
        self.check()

    # ------------------------------------------------------------------ the walk

    def run(self, steps: int) -> None:
        """Until `steps` steps did something (a drawn action may not apply: no link on the
        page, say), each checked."""
        goal = len(self.trail) + steps
        for _ in range(3 * steps):
            if len(self.trail) >= goal:
                return
            self.step()
        raise AssertionError(f"seed {self.seed}: only {len(self.trail)} of {goal} steps applied")

    def step(self) -> None:
        actions = [(action, weight) for action, weight in ACTIONS if self._applies(action)]
        action = self.rng.choices([a for a, _ in actions], [w for _, w in actions])[0]
        said = action(self)
        if said is None:  # nothing to do after all (no link on the page, say)
            return
        self.trail.append(f"{self.page}: {said}")
        self.check()

    def _applies(self, action) -> bool:
        needs = getattr(action, "needs", None)
        return needs is None or needs(self)

    def fail(self, what: str) -> None:
        steps = "\n".join(f"  {i + 1}. {step}" for i, step in enumerate(self.trail))
        raise WalkFailure(f"seed {self.seed}, after {len(self.trail)} steps, on {self.page}: "
                          f"{what}\nsteps:\n{steps}")

    # ------------------------------------------------------------------ reading the app

    @property
    def state(self):
        return self.app.session_state

    def _get(self, key: str, default=None):
        try:
            return self.state[key]
        except KeyError:
            return default

    def widget(self, kind: str, key: str):
        found = [w for w in getattr(self.app, kind) if w.key == key]
        return found[0] if found else None

    def conventions(self) -> Conventions:
        values = {f: self._get(session.settings_key(f)) for f in (*session.CHOICES,
                                                                  *session.NUMBERS)}
        labels = self._get(session.LABELS_SET) if self.judged else "human"
        return Conventions(**{f: v for f, v in values.items() if v is not None},
                           labels=labels or "human")

    @property
    def judged(self) -> bool:
        return self.collection is not None

    @property
    def k(self) -> int:
        return int(self._get(session.K))

    def run_names(self) -> list[str]:
        return list(SAMPLE_RUNS if self.collection is None else
                    (p.stem for p in self.collection.run_files))

    def shown_runs(self) -> list[str]:
        return list(self._get(session.RUNS) or [])

    def fused(self) -> bool:
        return bool(self._get(session.FUSED))

    def graded(self) -> bool:
        return bool(self._get(session.LABELS))

    # ------------------------------------------------------------------ the checks

    def check(self) -> None:
        if self.app.exception:
            self.fail(f"exception: {[e.value for e in self.app.exception]}")
        if self.expect_query is not None and self.page == "drilldown":
            found = self._get("drilldown.query")
            if found != self.expect_query:
                self.fail(f"the link named {self.expect_query}, the drill-down shows {found}")
        self.expect_query = None
        said = self._said()
        self._check_printed(said)
        if self.page in PAGES_SHOWING_ONE_K:
            self._check_names(said)
        if self.page == "overview":
            self._check_summary(self._summary_table())
        self._check_pairs_test()
        if self.page == "drilldown":
            self._check_query_figures()
        if self.page == "export":
            self._check_summary(self._markdown_summary())

    def _said(self) -> str:
        """Every text a reader sees: the page's words, table headers and text cells, metric
        cards and their deltas, widget labels."""
        parts = [e.value for kind in ("title", "header", "subheader", "markdown", "caption",
                                      "error", "warning", "info", "success")
                 for e in getattr(self.app, kind)]
        for frame in self.app.dataframe:
            value = frame.value
            parts += [str(c) for c in value.columns]
            parts += [str(i) for i in value.index if not isinstance(i, int)]
            for column in value.columns:
                cells = value[column]
                if cells.dtype == object:
                    parts += [str(c) for c in cells if c is not None and not pd.isna(c)]
        parts += [f"{m.label} {m.value} {m.proto.body}" for m in self.app.metric]
        return shown("\n".join(parts))

    def _check_printed(self, said: str) -> None:
        for pattern in PRINTED:
            found = pattern.search(said)
            if found:
                start = max(found.start() - 80, 0)
                self.fail(f"the page prints {found.group()!r}: …{said[start:found.end() + 80]}…")

    def _check_names(self, said: str) -> None:
        k = self.k
        for found in AT_K.finditer(said):
            if int(found.group(2)) != k:
                start = max(found.start() - 60, 0)
                self.fail(f"{found.group()} shown at K = {k}: …{said[start:found.end() + 60]}…")
        conventions = self.conventions()
        for field_name, names in WHOLE_LIST.items():
            if getattr(conventions, field_name) != "full":
                continue
            for found in AT_K.finditer(said):
                if found.group(1) in names:
                    start = max(found.start() - 60, 0)
                    self.fail(f"{found.group()} named at K while {field_name.upper()} is read "
                              f"over the full list: …{said[start:found.end() + 60]}…")

    def _expected_evaluation(self):
        """The engine's evaluation of this view, scored afresh from the files (None where the
        view holds what the walk does not score afresh: a fused run, grades given by hand)."""
        if self.fused() or self.graded():
            return None
        conventions = self.conventions()
        shown_runs = self.shown_runs()
        where, values = self._get(session.WHERE), tuple(self._get(session.WHERE_VALUES) or ())
        key = (self.k, conventions, tuple(shown_runs), where, values)
        if key in self._expected:
            return self._expected[key]
        self._expected[key] = evaluation = self._score(conventions, shown_runs, where, values)
        return evaluation

    def _score(self, conventions, shown_runs, where, values):
        folder = SAMPLE_DIR if self.collection is None else self.collection.folder
        qrels = folder / ("qrels.txt" if self.collection is None else
                          ("judge.txt" if conventions.labels == "judge" else "human.txt"))
        runs = [RunSource(folder / f"{name}.run") for name in shown_runs]
        evaluation = metrics.evaluate_files(qrels, runs, self.k, conventions)
        if where is not None and values:
            queries = metrics.load_queries(folder / "queries.csv")
            facet = metrics.facets(queries, evaluation.scored_ids)[where]
            evaluation = metrics.filter_evaluation(evaluation, facet, values)
        return evaluation

    def _expected_summary(self) -> dict[str, dict[str, str]] | None:
        """metric label -> run -> "mean [low, high]", the engine's for this view."""
        evaluation = self._expected_evaluation()
        if evaluation is None:
            return None
        return {evaluation.label(spec.key): {
                    run.name: fmt.interval(run.summary[spec.key].mean,
                                           run.summary[spec.key].low, run.summary[spec.key].high)
                    for run in evaluation.runs}
                for spec in evaluation.summary_specs}

    def _check_query_figures(self) -> None:
        """The drill-down's first table: every run's figures on the query shown, the
        engine's (scored afresh) to the last digit."""
        evaluation = self._expected_evaluation()
        query = self._get("drilldown.query")
        if evaluation is None or query is None or not self.app.dataframe:
            return
        shown = self.app.dataframe[0].value
        if "Run" not in shown.columns:
            return
        engine = metrics.query_figures(evaluation, query).set_index("run")
        for spec in evaluation.summary_specs:
            column = evaluation.label(spec.key, summary=False)
            if column not in shown.columns:
                self.fail(f"the drill-down of {query} has no column {column} "
                          f"(it has {list(shown.columns)})")
            for row in shown.to_dict("records"):
                found, wanted = row[column], float(engine.loc[row["Run"], spec.key])
                if not (found == wanted or abs(found - wanted) <= 1e-12):
                    self.fail(f"{column} of {row['Run']} on {query}: the drill-down shows "
                              f"{found!r}, the engine {wanted!r}")

    def _check_pairs_test(self) -> None:
        """One test of every pair: wherever its control is drawn (Compare, the Overview) it
        shows the one last chosen, and the Overview's leaderboard carries letters only by
        the randomized Tukey HSD."""
        radio = self.widget("radio", session.PAIRS_TEST)
        if radio is None:
            return
        if radio.value != self.pairs_test:
            self.fail(f"the test of every pair shows {radio.value!r}, {self.pairs_test!r} "
                      "was chosen")
        board = next((f.value for f in self.app.dataframe if "P(best)" in f.value.columns),
                     None)
        if board is not None and ("Group" in board.columns) != (self.pairs_test == "tukey"):
            self.fail(f"the leaderboard read by {self.pairs_test} has columns "
                      f"{list(board.columns)}")

    def _summary_table(self) -> dict[str, dict[str, str]] | None:
        for frame in self.app.dataframe:
            table = frame.value
            if list(table.columns[:1]) == ["Metric"] and "Interval" in table.columns:
                runs = [c for c in table.columns if c not in ("Metric", "Interval",
                                                               "Conventions")]
                return {row["Metric"]: {run: str(row[run]) for run in runs}
                        for row in table.to_dict("records")}
        return None

    def _markdown_summary(self) -> dict[str, dict[str, str]] | None:
        blocks = [c.value for c in self.app.code if c.language == "markdown"]
        if not blocks:
            return None
        # the scores of every run: the table headed Metric (the worst queries' and the
        # comparison's come before it)
        tables = re.findall(r"(?:^\|.*\n?)+", blocks[0], flags=re.MULTILINE)
        lines = next((table.splitlines() for table in tables
                      if shown(table.strip("|").split("|")[0].strip()) == "Metric"), None)
        if lines is None:
            return {}
        header = [shown(cell.strip()) for cell in lines[0].strip("|").split("|")]
        rows = {}
        for line in lines[2:]:
            cells = [shown(cell.strip()) for cell in line.strip("|").split("|")]
            if len(cells) == len(header) and AT_K.search(cells[0]) or cells[0] in rows:
                rows[cells[0]] = dict(zip(header[1:], cells[1:], strict=True))
            elif len(cells) == len(header) and header[0] == "Metric":
                rows[cells[0]] = dict(zip(header[1:], cells[1:], strict=True))
        return rows

    def _check_summary(self, found: dict[str, dict[str, str]] | None) -> None:
        expected = self._expected_summary()
        if expected is None or found is None:
            return
        for label, runs in expected.items():
            if label not in found:
                self.fail(f"the engine's {label} is not in the page's summary "
                          f"(it has {list(found)})")
            for run, figure in runs.items():
                cell = found[label].get(run)
                if cell is None or not cell.startswith(figure):
                    self.fail(f"{label} of {run}: the page shows {cell!r}, the engine "
                              f"{figure!r}")

    # ------------------------------------------------------------------ what a user does

    def go(self, page: str | None = None) -> str:
        page = page or self.rng.choice([p for p in PAGES if p != self.page])
        self.app.switch_page(PAGES[page] or "app_pages/overview.py").run()
        self.page = page
        return f"open {page}"

    def set_k(self) -> str:
        k = self.rng.choice([1, 2, 3, 5, 7, 10, 12, 20])
        self.app.number_input(key=session.K).set_value(k).run()
        return f"K = {k}"

    def set_convention(self) -> str:
        field_name = self.rng.choice(list(session.CHOICES))
        value = self.rng.choice(list(session.CHOICES[field_name]))
        self.app.radio(key=session.settings_key(field_name)).set_value(value).run()
        return f"{field_name} = {value}"

    def set_level(self) -> str:
        level = self.rng.choice([1, 1, 2])
        self.app.number_input(key=session.settings_key("relevance_level")).set_value(level).run()
        return f"relevance level {level}"

    def set_confidence(self) -> str:
        level = self.rng.choice([0.9, 0.95, 0.99])
        self.app.number_input(key=session.settings_key("confidence_level")).set_value(
            level).run()
        return f"confidence {level}"

    def set_labels(self) -> str | None:
        radio = self.widget("radio", session.LABELS_SET)
        if radio is None:
            return None
        value = self.rng.choice(["human", "judge"])
        radio.set_value(value).run()
        return f"labels {value}"

    def set_filter(self) -> str | None:
        facet = self.widget("selectbox", session.WHERE)
        if facet is None:
            return None
        if self._get(session.WHERE) is not None and self.rng.random() < 0.4:
            facet.set_value(None).run()
            return "filter: every query"
        name = self.rng.choice([o for o in facet.options if o != "Every query"])
        facet.set_value(name).run()
        values = self.widget("multiselect", session.WHERE_VALUES)
        if values is None:
            return f"filter on {name}"
        labels = [o.rsplit(" (", 1)[0] for o in values.options]
        chosen = self.rng.sample(labels, self.rng.randint(1, len(labels)))
        values.set_value(chosen).run()
        return f"filter {name} in {chosen}"

    def search(self) -> str | None:
        box = self.widget("text_input", f"{self.page}.search")
        if box is None:
            return None
        words = "" if self._get(session.SEARCH) and self.rng.random() < 0.5 else self.rng.choice(
            SEARCHED)
        box.input(words).run()
        return f"search {words!r}"

    def pick_runs(self) -> str:
        runs = self.run_names()
        chosen = self.rng.sample(runs, self.rng.randint(1, len(runs)))
        self.app.multiselect(key=session.RUNS).set_value(chosen).run()
        return f"runs shown {chosen}"

    def pick_baseline(self) -> str | None:
        box = self.widget("selectbox", session.BASELINE)
        if box is None:
            return None
        options = [o for o in self.shown_runs() if o != box.value]
        if not options:
            return None
        chosen = self.rng.choice(options)
        box.set_value(chosen).run()
        return f"baseline {chosen}"

    def pick_candidates(self) -> str | None:
        box = self.widget("multiselect", session.CANDIDATES)
        if box is None or not box.options:
            return None
        chosen = self.rng.sample(list(box.options), self.rng.randint(1, len(box.options)))
        box.set_value(chosen).run()
        return f"candidates {chosen}"

    def set_min_effect(self) -> str | None:
        box = self.widget("number_input", session.MIN_EFFECT)
        if box is None:
            return None
        value = self.rng.choice([None, 0.01, 0.05, 0.2])
        box.set_value(value).run()
        return f"minimum effect {value}"

    def every_pair(self) -> str | None:
        toggle = self.widget("toggle", session.ALL_PAIRS)
        if toggle is None:
            return None
        if not toggle.value or self.rng.random() < 0.3:
            toggle.set_value(not toggle.value).run()
            return f"every pair {'on' if not toggle.value else 'off'}"
        test = self.rng.choice(["paired", "tukey"])
        self.app.radio(key=session.PAIRS_TEST).set_value(test).run()
        self.pairs_test = test
        return f"every pair by {test}"

    def follow_link(self) -> str | None:
        links = [link for link in self.app.get("page_link")
                 if link.proto.page == "drilldown" and "open=" in link.proto.query_string]
        if not links:
            return None
        link = self.rng.choice(links)
        query = link.proto.query_string.split("open=")[1].split("&")[0]
        self.expect_query = query
        follow(self.app, link)
        self.page = "drilldown"
        return f"follow {link.proto.label!r} ({link.proto.query_string})"

    def click_heatmap(self) -> str | None:
        """A click on a heatmap cell: its query becomes the selected one (what the chart's
        callback does: AppTest cannot click a Vega chart), then the page's link is followed."""
        picker = self.widget("selectbox", "heatmap.query")
        if picker is None or not picker.options:
            return None
        query = self.rng.choice(picker.options).split(" · ")[0]
        self.state[session.QUERY] = query
        self.app.run()
        self.trail.append(f"{self.page}: click the heatmap cell of {query}")
        return self.follow_link()

    def step_query(self) -> str | None:
        key = self.rng.choice(["drilldown.next", "drilldown.previous"])
        button = self.widget("button", key)
        if button is None or button.disabled:
            return None
        button.click().run()
        return key.split(".")[1]

    def grade(self) -> str | None:
        controls = [c for c in self.app.get("button_group") if (c.key or "").startswith(
            "judge.")]
        if not controls:
            return None
        control = self.rng.choice(controls)
        grade = self.rng.choice(["0", "1", "2", None])
        self.app.segmented_control(key=control.key).set_value(grade).run()
        rescore = self.widget("toggle", "labels.rescore")
        if rescore is not None and self.rng.random() < 0.5:
            rescore.set_value(not rescore.value).run()
        return f"grade {control.key} = {grade}"

    def fuse(self) -> str | None:
        runs = self.widget("multiselect", "fuse.runs")
        if runs is None or len(runs.options) < 2:
            return None
        names = self.run_names()
        runs.set_value(self.rng.sample(names, 2)).run()
        self.app.button(key="fuse.add").click().run()
        return f"fuse {runs.value}"

    def unfuse(self) -> str | None:
        button = self.widget("button", "fuse.remove.0")
        if button is None:
            return None
        button.click().run()
        return "remove the first fused run"


def _on(*pages: str):
    def needs(walk: Walk) -> bool:
        return walk.page in pages
    return needs


Walk.search.needs = _on("drilldown", "heatmap")
Walk.pick_baseline.needs = _on("compare")
Walk.pick_candidates.needs = _on("compare")
Walk.set_min_effect.needs = _on("compare")
Walk.every_pair.needs = _on("compare")
Walk.follow_link.needs = _on("compare", "heatmap")
Walk.step_query.needs = _on("drilldown")
Walk.click_heatmap.needs = _on("heatmap")
Walk.grade.needs = _on("drilldown")

ACTIONS = [
    (Walk.go, 4), (Walk.set_k, 2), (Walk.set_convention, 2), (Walk.set_level, 0.5),
    (Walk.set_confidence, 0.5), (Walk.set_labels, 1), (Walk.set_filter, 1), (Walk.search, 1),
    (Walk.pick_runs, 1), (Walk.pick_baseline, 1), (Walk.pick_candidates, 1),
    (Walk.set_min_effect, 0.5), (Walk.every_pair, 1),
    (Walk.follow_link, 2), (Walk.click_heatmap, 1), (Walk.step_query, 1), (Walk.grade, 0.7),
    (Walk.fuse, 0.4), (Walk.unfuse, 0.4),
]


def walk(seed: int, steps: int, collection: Collection | None = None) -> Walk:
    """`steps` steps from the sample (or `collection` uploaded), checked after each one."""
    walker = Walk(seed, collection)
    walker.run(steps)
    return walker


__all__ = ["Walk", "WalkFailure", "walk", "Path"]
