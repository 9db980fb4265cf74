"""What a command line names, and reading it once: the arguments every command that reads runs
shares, declared here once (the qrels and the runs, K, the formats, the sweep, the size bound,
one flag per convention of the vocabulary, and the text inputs: a queries file, a corpus, a
facet to slice by, the token cost), the parser that refuses a bad flag in one line, and
``Inputs``, the files those arguments name, each read when first asked for.

``python -m metrics`` and ``python -m dashboard report`` both build their parsers with
``Inputs.parser`` and read with ``Inputs.from_arguments``; a script can build ``Inputs``
itself. Without qrels and runs the inputs are the bundled sample, with its queries file and its
corpus unless others are given. Every load report read along the way goes to ``report`` (the
command line prints it on standard error).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from metrics.context.cost import ChunkTokens, chunk_tokens
from metrics.core.blocks import BlockEvaluation
from metrics.core.evaluate import Evaluation
from metrics.core.files import RunSource, evaluate_files, rereader
from metrics.core.sample import SAMPLE_DIR, load_sample, sample_runs
from metrics.decide.compare import Comparison
from metrics.explain.facets import Facet, facets
from metrics.explain.lists import short_lists
from metrics.explain.mismatch import id_mismatches
from metrics.explain.slices import Slice, compare_slices, slice_evaluation
from metrics.io import (
    MAX_CORPUS_BYTES,
    MAX_CORPUS_FLAG,
    MAX_INPUT_BYTES,
    QRELS_FORMATS,
    RUN_FORMATS,
    Corpus,
    Queries,
    load_queries,
    mentioned_doc_ids,
    queries_report,
    read_corpus,
)
from metrics.vocabulary import CONVENTIONS, Convention
from metrics.vocabulary.conventions import Conventions
from metrics.vocabulary.cost import FLAGS as COST_FLAGS
from metrics.vocabulary.cutoffs import DEFAULT_K, MAX_K, MAX_SWEEP, SAMPLE_K, check_sweep
from metrics.vocabulary.format import count, listing, shortened
from metrics.vocabulary.gates import EXIT_BAD_INPUT, EXIT_USAGE
from metrics.vocabulary.identifiers import (
    MAX_NAME_CHARS,
    NAME_TOO_LONG,
    NORMALIZE_IDS,
    NORMALIZE_IDS_FLAG,
    NORMALIZE_IDS_HELP,
)
from metrics.vocabulary.judge import JUDGE_FLAG, JUDGE_HELP, JUDGE_NEEDED, PPI_ONLY_HERE
from metrics.vocabulary.names import NAME_EXAMPLES, parse_measure
from metrics.vocabulary.slices import LENGTH

SAMPLE_QUERIES = SAMPLE_DIR / "queries.csv"
SAMPLE_CORPUS = SAMPLE_DIR / "corpus.jsonl"

Reader = Callable[[str], object]
Command = Callable[[Sequence[str]], int]


class ReadingOutOfMemory(MemoryError):
    """Memory ran out while an input was read: `reading` names it for the message."""

    def __init__(self, reading: str) -> None:
        super().__init__(reading)
        self.reading = reading


class UsageError(Exception):
    """A bad flag, or inputs that do not go together: exit status 2 and one line."""


# what argparse takes for a value, not a flag, when it starts with "-": a negative number,
# and also "-inf", "-nan" and lists such as "-1,2", so that their flag names what is wrong
# with them rather than asking for an argument
_NEGATIVE_VALUE = re.compile(r"^-(?:\d|\.\d|inf|nan)", re.IGNORECASE)


class Parser(argparse.ArgumentParser):
    """One short line on a bad flag, not the whole usage text."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_VALUE

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


# --------------------------------------------------------------------------- readers


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def cutoff(text: str) -> int:
    """K: a positive integer up to MAX_K (any K is computed without arrays as wide as K, but
    a K past every list and label says nothing more)."""
    value = positive_int(text)
    if value > MAX_K:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer up to {MAX_K:,} (MAX_K), got {text!r}"
        )
    return value


def confidence(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
    return value


def sweep_range(text: str) -> tuple[int, int]:
    parts = text.split(":")
    try:
        lo, hi = (int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected FROM:TO such as 1:20, got {text!r}") from None
    try:
        return check_sweep(lo, hi)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def metric_name(text: str) -> str:
    """A measure's name as any of its spellings writes it (checked here, so that a bad one
    is a usage error naming it and the closest names); kept as written."""
    try:
        parse_measure(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def run_source(text: str) -> RunSource:
    """[NAME=]FILE; a name defaults to the file name without its extension. A name longer
    than MAX_NAME_CHARS is refused, naming the problem."""
    name, sep, path = text.partition("=")
    if sep and name and not _exists(text):
        if len(name) > MAX_NAME_CHARS:
            raise argparse.ArgumentTypeError(NAME_TOO_LONG.format(
                limit=MAX_NAME_CHARS, length=len(name), shown=shortened(name, 20)))
        return RunSource(Path(path), name=name)
    return RunSource(Path(text))


def _exists(text: str) -> bool:
    try:
        return Path(text).exists()
    except OSError:  # a name too long for the file system names no file
        return False


def within_bounds(convention: Convention) -> Reader:
    """The type function of a numeric convention's flag: a number of its default's type within
    the vocabulary's inclusive bounds, so that a bad value is a usage error naming the flag
    (exit 2) rather than an engine error."""
    kind = int if isinstance(convention.default, int) else float
    noun = "an integer" if kind is int else "a number"
    lo, hi = convention.bounds or (float("-inf"), float("inf"))

    def read(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"expected {noun} from {lo:,} to {hi:,}, got {text!r}")
        return value

    return read


# --confidence-level keeps the reading it had before the vocabulary: any level strictly between
# 0 and 1 (the vocabulary's bounds are the dashboard slider's). Any other numeric convention,
# --seed and --relevance-level included, reads a number within its vocabulary bounds.
# what each --format choice writes
FORMAT_WORDS = {
    "table": "readable tables",
    "json": "the JSON contract",
    "trec_eval": "trec_eval's measure<TAB>query<TAB>value lines and its all lines (per query "
    "too with -q)",
    "latex": "the summary table a paper uses: runs x measures, the best per column in bold, "
    "significance against the first run as daggers, test and correction in the caption",
}

READERS: dict[str, tuple[Reader, str | None]] = {
    "confidence_level": (confidence, None),
}


def _help(text: str) -> str:
    """argparse formats help with %: a literal one must be doubled."""
    return text.replace("%", "%%")


# --------------------------------------------------------------------------- the arguments


def add_convention_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per convention of the vocabulary that has one; dest is the convention's field."""
    group = parser.add_argument_group("conventions")
    for c in CONVENTIONS:
        if not c.flag:
            continue
        if c.choices:
            group.add_argument(c.flag, dest=c.field, choices=c.values, default=c.default,
                               help=_help(c.help))
            continue
        reader, metavar = READERS.get(c.field, (within_bounds(c), "N"))
        group.add_argument(c.flag, dest=c.field, type=reader, default=c.default,
                           metavar=metavar, help=_help(c.help))


def add_input_arguments(parser: argparse.ArgumentParser,
                        formats: Sequence[str] = ("table", "json")) -> None:
    """Inputs and conventions, shared by every command that scores runs; `formats` are the
    --format choices the command writes, the first the default."""
    parser.add_argument("--qrels", type=Path, help="labels: TREC, BEIR TSV, CSV, JSONL (.gz ok) or "
                        "Parquet (a file, or a directory of files)")
    parser.add_argument(JUDGE_FLAG, dest="judge_qrels", type=Path, metavar="FILE",
                        help=JUDGE_HELP + "; --labels judge scores against them")
    parser.add_argument(
        "--run",
        type=run_source,
        action="append",
        default=[],
        metavar="[NAME=]FILE",
        help="a run; repeat for several; the first is the "
        "baseline. A JSONL run carrying `relevant` may stand without --qrels",
    )
    parser.add_argument(
        "--k",
        type=cutoff,
        help=f"cutoff K, up to {MAX_K:,} (default {SAMPLE_K} on the sample, {DEFAULT_K} on your "
        "files)",
    )
    parser.add_argument("--qrels-format", choices=("auto", *QRELS_FORMATS), default="auto",
                        help="qrels file format (default: detected from the content)")
    parser.add_argument("--run-format", choices=("auto", *RUN_FORMATS), default="auto",
                        help="format of every --run file (default: detected from the content)")
    parser.add_argument(
        "--sweep",
        type=sweep_range,
        metavar="FROM:TO",
        help=f"K range of the sweep, at most {MAX_SWEEP:,} cutoffs up to K = {MAX_K:,} "
        "(default 1 to the longest list)",
    )
    parser.add_argument(
        "--max-input-mb",
        type=positive_int,
        default=MAX_INPUT_BYTES >> 20,
        metavar="MB",
        help="refuse an input file that holds (or a .gz that expands to) more than MB "
        f"megabytes (default {MAX_INPUT_BYTES >> 20}; the dashboard uses the default)",
    )
    parser.add_argument(NORMALIZE_IDS_FLAG, dest="normalize_ids", choices=NORMALIZE_IDS,
                        default=NORMALIZE_IDS[0], help=NORMALIZE_IDS_HELP)
    if tuple(formats) == ("table", "json"):  # the flag every command had: help as it was
        parser.add_argument("--format", choices=list(formats), default=formats[0])
    else:
        parser.add_argument("--format", choices=list(formats), default=formats[0],
                            help=_help("; ".join(f"{f}: {FORMAT_WORDS[f]}" for f in formats)))
    parser.add_argument(
        "--load-report",
        type=Path,
        metavar="FILE",
        help="write the whole load report to FILE, every dropped line with its file, line "
        f"number and reason (standard error counts them and shows the first {DROPPED_SHOWN})",
    )
    add_convention_arguments(parser)


def add_metric_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """--metric, repeatable: a figure by any name ir_measures, trec_eval or this tool gives it
    (`what` says what the command does with the figures named)."""
    examples = ", ".join(NAME_EXAMPLES[:6] + ("ndcg_cut_10", "map"))
    parser.add_argument("--metric", action="append", default=[], type=metric_name,
                        metavar="NAME",
                        help=_help(f"{what}; repeatable. Any measure name: {examples}... "
                                   "(a name without @K is read at --k)"))


def add_text_arguments(parser: argparse.ArgumentParser, *, by: bool = True,
                       cost: bool = False) -> None:
    """--queries and --corpus; --by (slices by a facet of --queries); the token cost flags."""
    parser.add_argument("--queries", type=Path,
                        help="query texts and facets: TSV, BEIR queries.jsonl, JSONL or CSV/TSV "
                        "with a header (.gz ok); the sample's on the sample")
    parser.add_argument("--corpus", type=Path,
                        help="chunk texts: BEIR corpus.jsonl, JSONL or TSV doc_id<TAB>text (.gz "
                        "ok), read as a stream keeping only the ids used; the sample's on the "
                        "sample")
    parser.add_argument(MAX_CORPUS_FLAG, dest="max_corpus_mb", type=positive_int,
                        default=MAX_CORPUS_BYTES >> 20, metavar="MB",
                        help="refuse a corpus that holds (or a .gz that expands to) more than "
                        f"MB megabytes (default {MAX_CORPUS_BYTES >> 20:,}); a .gz that expands "
                        "like a decompression bomb is refused whatever its size")
    if by:
        parser.add_argument("--by", metavar="FACET",
                            help="every figure per slice of this facet of --queries (a column, "
                            f"a metadata key, or '{LENGTH}')")
    if cost:
        flag, text = COST_FLAGS["tokens_per_chunk"]
        parser.add_argument(flag, dest="tokens_per_chunk", type=float, metavar="N", help=text)
        flag, text = COST_FLAGS["price_per_mtok"]
        parser.add_argument(flag, dest="price_per_mtok", type=float, metavar="USD", help=text)


def conventions_from(args: argparse.Namespace) -> Conventions:
    """Every convention that has a flag, as parsed; the others keep their defaults."""
    return Conventions(**{c.field: getattr(args, c.field) for c in CONVENTIONS if c.flag})


def run_guarded(command: Command, argv: Sequence[str]) -> int:
    """Run a command; errors become one line on standard error and a non-zero exit."""
    try:
        return command(argv)
    except UsageError as error:
        print(f"error: {error} (see --help)", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ReadingOutOfMemory as error:
        print(f"error: out of memory while reading {error.reading}: give smaller inputs",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        name = getattr(command, "__name__", "command").removesuffix("_command")
        print(f"error: out of memory while running {name}: give smaller inputs, or a smaller "
              "--sweep or --permutations", file=sys.stderr)
        return EXIT_BAD_INPUT


# --------------------------------------------------------------------------- reading them


DROPPED_SHOWN = 5  # dropped lines quoted on standard error, a file; the rest are counted


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
    report: Callable[[str], None] = _silent  # each load report read, as one line
    load_report_file: Path | None = None  # where the whole load report is written
    _read: dict[str, Any] = field(default_factory=dict, repr=False)

    # the command line's pieces, shared by every program that reads runs from it
    UsageError = UsageError
    run_guarded = staticmethod(run_guarded)
    add_text_arguments = staticmethod(add_text_arguments)
    add_metric_argument = staticmethod(add_metric_argument)

    @staticmethod
    def parser(prog: str, description: str, *, texts: bool = False, by: bool = True,
               cost: bool = False, **options: Any) -> Parser:
        """An argument parser with the inputs and the conventions' flags (and, with
        ``texts``, the queries file, the corpus, --by and the token cost) that refuses a bad
        flag in one line (UsageError)."""
        parser = Parser(prog=prog, description=description, **options)
        add_input_arguments(parser)
        if texts:
            add_text_arguments(parser, by=by, cost=cost)
        return parser

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
                raise ReadingOutOfMemory(self._reading(name)) from None
        return self._read[name]

    def _reading(self, name: str) -> str:
        """What `_once(name)` reads, for an out-of-memory message."""
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
        return self._once("evaluation", lambda: self._evaluate().with_measures(self.measures))

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
        report on the runs (every such line ignored) says nothing new."""
        human, judge = self.judged()
        if human.qrels_report is not None:
            self.report(human.qrels_report.summary())
            for line in _dropped_lines(human.qrels_report, whole=False, written_to=None):
                self.report(line)
        for line in load_report_lines(judge):
            self.report(line)

    def report_load(self) -> None:
        """The evaluation's load report, line by line, to ``report`` (the problems first, the
        dropped lines counted); the whole report to ``load_report_file`` when given."""
        evaluation = self.evaluation()
        if self.load_report_file is not None:
            whole = load_report_lines(evaluation, whole=True)
            self.load_report_file.write_text("\n".join(whole) + "\n", encoding="utf-8")
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


__all__ = ["Inputs", "Parser", "UsageError", "add_convention_arguments", "add_input_arguments",
           "add_text_arguments", "conventions_from", "file_report_lines", "load_report_lines",
           "run_guarded"]
