"""What a command line names, read once: ``Inputs``, the files the shared arguments
(``metrics.inputs.arguments``) name and the choices they are read under, each read when first
asked for: the evaluation (or the judge's and the human labels' two), the queries file, the
corpus, the facet --by names and its slices, the token cost, the runs read again in the other
TREC order; and the load report's lines.

``python -m metrics`` and ``python -m dashboard report`` both read with
``Inputs.from_arguments``; a script can build ``Inputs`` itself. Without qrels and runs the
inputs are the bundled sample, with its queries file and its corpus unless others are given.
Every load report read along the way goes to ``report`` (the command line prints it on
standard error).

Below both front ends, on the outputs' floor: it calls the readers (io, core's files and
sample) and what the engine derives from them for a command (explain's facets, slices and the
id warnings, context's token cost), so it stands above those floors, not in io or core.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metrics.context.cost import ChunkTokens, chunk_tokens
from metrics.core.blocks import BlockEvaluation
from metrics.core.evaluate import Evaluation
from metrics.core.files import RunSource, evaluate_files, read_subtopics, rereader
from metrics.core.sample import SAMPLE_DIR, load_sample, sample_runs
from metrics.explain.facets import Facet, facets
from metrics.explain.lists import short_lists
from metrics.explain.mismatch import id_mismatches
from metrics.explain.slices import Slice, compare_slices, slice_evaluation
from metrics.inputs.arguments import ReadingOutOfMemory, UsageError, conventions_from
from metrics.io import (
    MAX_CORPUS_BYTES,
    MAX_INPUT_BYTES,
    Corpus,
    Queries,
    load_queries,
    mentioned_doc_ids,
    queries_report,
    read_corpus,
)
from metrics.io.report import DROPPED_SHOWN
from metrics.io.writing import write_text
from metrics.stats.comparison import Comparison
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cutoffs import DEFAULT_K, SAMPLE_K
from metrics.vocabulary.format import count, listing
from metrics.vocabulary.identifiers import NORMALIZE_IDS
from metrics.vocabulary.judge import JUDGE_NEEDED, PPI_ONLY_HERE

SAMPLE_QUERIES = SAMPLE_DIR / "queries.csv"
SAMPLE_CORPUS = SAMPLE_DIR / "corpus.jsonl"


def load_report_lines(evaluation: Evaluation, *, whole: bool = False,
                      written_to: Path | None = None) -> list[str]:
    """What is wrong first (each run whose ids barely meet the qrels', each run whose lists
    stop before K), then what each file held, what was dropped and the loaders' notes, and
    the queries a run has no list for. A file's dropped lines are counted by reason with the
    first DROPPED_SHOWN quoted (every one with `whole`); `written_to` names the file that
    holds them all."""
    lines = [f"warning: {finding.sentence}" for finding in id_mismatches(evaluation)]
    lines += [f"warning: {found.sentence}" for found in short_lists(evaluation)]
    return lines + file_report_lines(evaluation, whole=whole, written_to=written_to)


def file_report_lines(evaluation: Evaluation | BlockEvaluation, *, whole: bool = False,
                      written_to: Path | None = None) -> list[str]:
    """What each file held, what was dropped and the loaders' notes, and the queries a run
    has no list for: what either driver reports."""
    lines = []
    reports = [evaluation.qrels_report] + [run.report for run in evaluation.runs]
    for report in filter(None, reports):
        lines.append(report.summary())
        lines += _dropped_lines(report, whole=whole, written_to=written_to)
        lines += [f"  {report.source}: {note}" for note in report.notes]
    lines += [f"{run.name}: no list for "
              f"{count(len(run.missing_queries), 'qrels query', 'qrels queries')} "
              f"(they score 0): {listing(run.missing_queries, limit=10)}"
              for run in evaluation.runs if run.missing_queries]
    return lines


def _dropped_lines(report, *, whole: bool, written_to: Path | None) -> list[str]:
    """A report's dropped lines: each quoted when few (or `whole`); else counted by reason,
    the first few quoted, and where to find the rest."""
    dropped = report.dropped
    quoted = [f"  {report.source}, {report.unit} {entry.line}: {entry.reason}"
              for entry in (dropped if whole else dropped[:DROPPED_SHOWN])]
    if whole or len(dropped) <= DROPPED_SHOWN:
        return quoted
    reasons: dict[str, int] = {}
    for entry in dropped:
        reasons[entry.reason] = reasons.get(entry.reason, 0) + 1
    counted = [f"  {report.source}: {count(n, report.unit)} dropped: {reason}"
               for reason, n in sorted(reasons.items(), key=lambda item: -item[1])[:3]
               if n > 1]
    rest = len(dropped) - DROPPED_SHOWN
    where = (f"every one is in {written_to}" if written_to is not None
             else "--load-report FILE writes every one")
    more = count(rest, f"more dropped {report.unit}")
    return [*counted, *quoted, f"  {report.source}: {more} not shown here ({where})"]


def _qrels_lines(evaluation: Evaluation, *, whole: bool, written_to: Path | None) -> list[str]:
    """The qrels' load report alone: what they held and their dropped lines."""
    report = evaluation.qrels_report
    if report is None:
        return []
    return [report.summary(), *_dropped_lines(report, whole=whole, written_to=written_to)]


def _silent(_line: str) -> None:
    """The default report: a script that builds Inputs itself reads the reports it wants."""


@dataclass(eq=False)
class Inputs:
    """The files a command line names, and the choices they are read under; each is read
    once, when first asked for. Without ``qrels`` and ``runs``, the bundled sample (at
    SAMPLE_K unless ``k`` says otherwise) with its queries file and corpus."""

    qrels: Path | None = None
    runs: Sequence[RunSource] = ()
    judge_qrels: Path | None = None  # a model judge's labels (--labels judge scores on them)
    k: int | None = None
    conventions: Conventions = field(default_factory=Conventions)
    qrels_format: str = "auto"
    run_format: str = "auto"
    sweep: tuple[int, int] | None = None
    max_bytes: int = MAX_INPUT_BYTES
    max_corpus_bytes: int = MAX_CORPUS_BYTES
    normalize_ids: str = NORMALIZE_IDS[0]
    queries_file: Path | None = None
    corpus_file: Path | None = None
    by: str | None = None
    tokens_per_chunk: float | None = None
    price_per_mtok: float | None = None
    measures: Sequence[str] = ()  # figures to score beyond the defaults (--metric)
    subtopic_qrels: Path | None = None  # the diversity measures' judgments (--subtopic-qrels)
    intents: Path | None = None  # their subtopics' probabilities (--intents)
    report: Callable[[str], None] = _silent  # each load report read, as one line
    load_report_file: Path | None = None  # where the whole load report is written
    _read: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_arguments(cls, args: argparse.Namespace, *,
                       report: Callable[[str], None] = _silent) -> Inputs:
        """The inputs a parsed command line names (flags it lacks keep their defaults)."""
        return cls(
            qrels=args.qrels, runs=tuple(args.run), k=args.k, conventions=conventions_from(args),
            judge_qrels=getattr(args, "judge_qrels", None),
            qrels_format=args.qrels_format, run_format=args.run_format, sweep=args.sweep,
            max_bytes=args.max_input_mb << 20,
            normalize_ids=getattr(args, "normalize_ids", NORMALIZE_IDS[0]),
            max_corpus_bytes=getattr(args, "max_corpus_mb", MAX_CORPUS_BYTES >> 20) << 20,
            queries_file=getattr(args, "queries", None),
            corpus_file=getattr(args, "corpus", None), by=getattr(args, "by", None),
            tokens_per_chunk=getattr(args, "tokens_per_chunk", None),
            price_per_mtok=getattr(args, "price_per_mtok", None),
            measures=tuple(getattr(args, "metric", ())), report=report,
            subtopic_qrels=getattr(args, "subtopic_qrels", None),
            intents=getattr(args, "intents", None),
            load_report_file=getattr(args, "load_report", None))

    @property
    def on_sample(self) -> bool:
        return self.qrels is None and not self.runs

    @property
    def run_sources(self) -> list[RunSource]:
        """The runs as read: each in the format asked for, or the sample's."""
        if self.on_sample:
            return sample_runs()
        return [dataclasses.replace(run, format=self.run_format) for run in self.runs]

    def _once(self, name: str, read: Callable[[], Any]) -> Any:
        if name not in self._read:
            try:
                self._read[name] = read()
            except ReadingOutOfMemory:
                raise
            except MemoryError:
                raise ReadingOutOfMemory(self.reading(name)) from None
        return self._read[name]

    def reading(self, name: str) -> str:
        """What `name` ("evaluation", "queries", "corpus") reads, for an out-of-memory
        message: the files by name."""
        if name == "queries":
            return f"{self.queries_path.name} (--queries)"
        if name == "corpus":
            return f"{self.corpus_path.name} (--corpus)"
        if self.on_sample:
            return "the bundled sample"
        files = [Path(self.qrels).name, *(Path(str(run.source)).name for run in self.runs)]
        return "the qrels and runs (" + ", ".join(files[:4]) + (", ..." if files[4:] else "") + ")"

    def evaluation(self) -> Evaluation:
        """The runs scored against the qrels (the sample's without either), with the figures
        `measures` names."""
        return self._once("evaluation", lambda: self._with_subtopics(
            self._evaluate()).with_measures(self.measures))

    def _with_subtopics(self, evaluation: Evaluation) -> Evaluation:
        """The evaluation with the subtopic qrels its diversity measures read, when given."""
        if self.intents is not None and self.subtopic_qrels is None:
            raise UsageError("--intents weighs the subtopics of --subtopic-qrels: give both")
        if self.subtopic_qrels is None:
            return evaluation
        subtopics, reports = read_subtopics(self.subtopic_qrels, self.intents,
                                            max_bytes=self.max_bytes)
        for report in reports:
            self.report(f"{report.source}: {report.kind}, {report.lines_used:,} lines used"
                        + (f", {len(report.dropped):,} dropped" if report.dropped else ""))
        return dataclasses.replace(evaluation, subtopics=subtopics)

    def _evaluate(self) -> Evaluation:
        if self.labels_file != self.qrels:  # every figure read under the judge's labels
            return dataclasses.replace(self, qrels=self.judge_qrels, _read={})._evaluate_human()
        return self._evaluate_human()

    @property
    def labels_file(self) -> Path | None:
        """The labels every figure is scored against under the labels convention: the qrels,
        or the judge's (--labels judge); --labels ppi is the judge command's."""
        labels = self.conventions.labels
        if labels == "ppi":
            raise UsageError(PPI_ONLY_HERE)
        if labels == "judge" and self.judge_qrels is None:
            raise UsageError(JUDGE_NEEDED.format(labels=labels))
        return self.judge_qrels if labels == "judge" else self.qrels

    def _evaluate_human(self) -> Evaluation:
        if self.on_sample:
            return load_sample(self.k or SAMPLE_K, self.conventions, sweep=self.sweep)
        if not self.runs:
            raise UsageError("--qrels needs at least one --run")
        # the conventions carry the run order and the score precision to the loaders
        return evaluate_files(
            self.qrels, self.run_sources, self.k or DEFAULT_K, self.conventions,
            qrels_format=self.qrels_format, sweep=self.sweep, max_bytes=self.max_bytes,
            normalize_ids=self.normalize_ids)

    def judged(self) -> tuple[Evaluation, Evaluation]:
        """The runs scored against the human labels and against the judge's, each scoring
        every query (a query without a relevant id scores 0: EVERY_QUERY_COUNTS), for the
        judge's agreement, bias and prediction-powered figures; each load report goes to
        ``report``."""
        if self.judge_qrels is None:
            raise UsageError(JUDGE_NEEDED.format(labels="ppi"))
        if self.on_sample:
            raise UsageError("the judge's figures need your --qrels (the human labels), "
                             "--judge-qrels and --run files")

        def under(labels: str) -> Inputs:
            conventions = dataclasses.replace(self.conventions, labels=labels,
                                              empty_queries="zero")
            return dataclasses.replace(self, conventions=conventions, _read={})

        return self._once("judged", lambda: tuple(
            inputs.evaluation() for inputs in (under("human"), under("judge"))))

    def report_judged(self) -> None:
        """The human labels' load report, then the judge evaluation's whole one: the runs'
        lines on queries only the judge labels are used there, so the human evaluation's
        report on the runs (every such line ignored) says nothing new. The whole of both
        goes to ``load_report_file`` when given."""
        human, judge = self.judged()
        written_to = self.load_report_file
        if written_to is not None:
            whole = _qrels_lines(human, whole=True, written_to=None)
            whole += load_report_lines(judge, whole=True)
            write_text(written_to, "\n".join(whole) + "\n", flag="--load-report")
        for line in _qrels_lines(human, whole=False, written_to=written_to):
            self.report(line)
        for line in load_report_lines(judge, written_to=written_to):
            self.report(line)

    def report_load(self, *, also: Sequence[Inputs] = ()) -> None:
        """The evaluation's load report, line by line, to ``report`` (the problems first, the
        dropped lines counted); the whole report to ``load_report_file`` when given. With
        `also` (the same runs under other labels: agreement's second --qrels), theirs after
        it, and the file holds every one of them, written once."""
        evaluations = [inputs.evaluation() for inputs in (self, *also)]
        if self.load_report_file is not None:
            whole = [line for evaluation in evaluations
                     for line in load_report_lines(evaluation, whole=True)]
            write_text(self.load_report_file, "\n".join(whole) + "\n", flag="--load-report")
        for evaluation in evaluations:
            for line in load_report_lines(evaluation, written_to=self.load_report_file):
                self.report(line)

    @property
    def queries_path(self) -> Path | None:
        return self.queries_file or (SAMPLE_QUERIES if self.on_sample else None)

    @property
    def corpus_path(self) -> Path | None:
        return self.corpus_file or (SAMPLE_CORPUS if self.on_sample else None)

    def queries(self) -> Queries | None:
        """The queries file (the sample's on the sample); its report against the qrels."""
        return self._once("queries", self._read_queries)

    def _read_queries(self) -> Queries | None:
        path = self.queries_path
        if path is None:
            return None
        queries = load_queries(path, max_bytes=self.max_bytes)
        self.report(queries_report(queries, self.evaluation().qrels).summary())
        return queries

    def corpus(self) -> Corpus | None:
        """The texts of every id the qrels or a run mentions; the corpus's report."""
        return self._once("corpus", self._read_corpus)

    def _read_corpus(self) -> Corpus | None:
        path = self.corpus_path
        if path is None:
            return None
        evaluation = self.evaluation()
        wanted = mentioned_doc_ids(evaluation.qrels, [run.run for run in evaluation.runs])
        corpus, report = read_corpus(path, wanted, max_bytes=self.max_corpus_bytes)
        self.report(report.summary())
        return corpus

    def facet(self) -> Facet | None:
        """The facet --by names, binned over the scored queries; None without --by."""
        if not self.by:
            return None
        queries = self.queries()
        if queries is None:
            raise UsageError("--by needs --queries")
        found = facets(queries, self.evaluation().scored_ids)
        if self.by not in found:
            raise UsageError(f"--by {self.by!r}: {queries.source} has no such facet; its "
                             "facets: " + ", ".join(repr(name) for name in found))
        return found[self.by]

    def slices(self) -> list[Slice]:
        """The slices --by asks for; the queries file is read (and reported on) whether or
        not --by asks for slices."""
        self.queries()
        facet = self.facet()
        return [] if facet is None else slice_evaluation(self.evaluation(), facet)

    def compared_slices(self, **options: Any) -> list[tuple[str, Comparison]]:
        """compare --by: the paired comparison per slice, corrected over every (candidate,
        metric, slice) as one family."""
        facet = self.facet()
        return [] if facet is None else compare_slices(self.evaluation(), facet, **options)

    def tokens(self) -> ChunkTokens | None:
        """--tokens-per-chunk (or the corpus's words x 1.3) and --price-per-mtok; None when
        neither a token figure nor a corpus file is given."""
        given, price = self.tokens_per_chunk, self.price_per_mtok
        if given is None and price is None and self.corpus_file is None:
            return None
        corpus = self.corpus() if given is None else None  # a bad corpus is bad input
        try:
            return chunk_tokens(tokens_per_chunk=given, price_per_mtok=price, corpus=corpus)
        except ValueError as error:
            raise UsageError(str(error)) from None

    def rereader(self) -> Callable[[str], list] | None:
        """The runs read again in another TREC order, for the fragility check (None when no
        run is a TREC file)."""
        return rereader(self.run_sources, self.evaluation(), max_bytes=self.max_bytes,
                        normalize_ids=self.normalize_ids)


__all__ = ["Inputs", "file_report_lines", "load_report_lines"]
