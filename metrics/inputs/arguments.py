"""The arguments every command that reads runs shares, declared once: the qrels and the
runs, K, the formats, the sweep, the size bound, one flag per convention of the vocabulary,
and the text inputs (a queries file, a corpus, a facet to slice by, the token cost); the value
readers that refuse a bad one as a usage error naming its flag; the parser that refuses a bad
flag in one line; and the guard that turns an error into one line and an exit status.

Below both front ends: ``python -m metrics`` adds each command's own flags to these, and
``python -m dashboard report`` builds its parser with ``command_parser`` (public as
``metrics.command_parser``). ``metrics.inputs.reading`` reads what the parsed flags name.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from metrics.context.cost import check_price_per_mtok, check_tokens_per_chunk
from metrics.core.files import RunSource
from metrics.core.sample import SAMPLE_DIR
from metrics.io import (
    MAX_CORPUS_BYTES,
    MAX_CORPUS_FLAG,
    MAX_INPUT_BYTES,
    QRELS_FORMATS,
    RUN_FORMATS,
)
from metrics.io.report import DROPPED_SHOWN
from metrics.io.writing import paths_meet, standard_output_named
from metrics.vocabulary import CONVENTIONS, Convention
from metrics.vocabulary.conventions import (
    MAX_PERMUTATIONS,
    MIN_EFFECT,
    STANDARDISE_FLAG,
    STANDARDISE_HELP,
    STANDARDISE_SCALE_FLAG,
    STANDARDISE_SCALE_HELP,
    STANDARDISE_SCALES,
    Conventions,
    check_min_effect,
    check_permutations,
)
from metrics.vocabulary.cost import FLAGS as COST_FLAGS
from metrics.vocabulary.cutoffs import DEFAULT_K, MAX_K, MAX_SWEEP, SAMPLE_K, check_sweep
from metrics.vocabulary.format import shortened, terminal
from metrics.vocabulary.gates import EXIT_BAD_INPUT, EXIT_USAGE
from metrics.vocabulary.identifiers import (
    MAX_NAME_CHARS,
    NAME_TOO_LONG,
    NORMALIZE_IDS,
    NORMALIZE_IDS_FLAG,
    NORMALIZE_IDS_HELP,
)
from metrics.vocabulary.judge import JUDGE_FLAG, JUDGE_HELP
from metrics.vocabulary.measures import GEOMETRIC_SUMMARIES, geometric_summary
from metrics.vocabulary.names import NAME_EXAMPLES, parse_measure
from metrics.vocabulary.slices import LENGTH
from metrics.vocabulary.tukey import ALL_PAIRS_TESTS, DEFAULT_ALL_PAIRS_TEST, TEST_HELP

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
    """One short line on a bad flag, not the whole usage text; a flag that writes a file
    (`output_file`) naming what another flag reads or writes is refused
    (`refuse_overwriting`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_VALUE

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)

    def parse_known_args(self, args: Sequence[str] | None = None,
                         namespace: argparse.Namespace | None = None
                         ) -> tuple[argparse.Namespace, list[str]]:
        parsed, rest = super().parse_known_args(args, namespace)
        refuse_overwriting(self._actions, parsed)
        return parsed, rest


# --------------------------------------------------------------------------- outputs


def output_file(text: str) -> Path:
    """The type of every flag that names a file the command writes (--out, --per-query-out,
    --load-report): the parser compares each with every file the command reads and with the
    other outputs (`refuse_overwriting`)."""
    return Path(text)


def formats_written(formats: Sequence[str]) -> Callable[[str], tuple[str, Path]]:
    """The type of a flag that writes one more format to a file, FORMAT=FILE (compare's
    --write): a usage error on a format the command does not write. Its files are compared
    with the inputs and the other outputs as output_file's are."""

    def read(text: str) -> tuple[str, Path]:
        name, equals, path = text.partition("=")
        if not equals or not path or name not in formats:
            raise argparse.ArgumentTypeError(
                f"expected FORMAT=FILE with FORMAT one of {', '.join(formats)}, got {text!r}")
        return name, Path(path)

    read.writes = True  # type: ignore[attr-defined]
    return read


def refuse_overwriting(actions: Sequence[argparse.Action], args: argparse.Namespace) -> None:
    """A UsageError when a file the command would write is one it reads (writing it would
    destroy the input before, or while, it is read), lies inside a directory it reads, or is
    the file another output flag writes: paths compared as the file system resolves them
    (`paths_meet`: links, `./x` and `x`, hard links). On the bundled sample its directory is
    the input."""
    outputs: list[tuple[str, Path]] = []
    inputs: list[tuple[str, Path]] = []
    for action in actions:
        if not action.option_strings:
            continue
        flag = max(action.option_strings, key=len)
        for path in _paths(getattr(args, action.dest, None)):
            writes = action.type is output_file or getattr(action.type, "writes", False)
            (outputs if writes else inputs).append((flag, path))
    if not outputs:
        return
    if hasattr(args, "run") and not getattr(args, "qrels", None) and not args.run:
        inputs.append(("the bundled sample", SAMPLE_DIR))
    for index, (flag, path) in enumerate(outputs):
        for other_flag, other in outputs[:index]:
            if paths_meet(path, other):
                raise UsageError(f"{other_flag} {_shown(other)} and {flag} {_shown(path)} name "
                                 "the same file: give each its own")
        for given_flag, given in inputs:
            if paths_meet(path, given):
                raise UsageError(f"{flag} {_shown(path)} is one of this command's inputs "
                                 f"({given_flag} {_shown(given)}): write it elsewhere")


def _paths(value: object) -> list[Path]:
    """The paths a parsed flag's value names (a run's file, each of a repeated flag's)."""
    if isinstance(value, list | tuple):
        return [path for item in value for path in _paths(item)]
    if isinstance(value, RunSource):
        value = value.source
    if isinstance(value, Path) and str(value) != "-":  # standard input is no file
        return [value]
    return []


def _shown(path: Path) -> str:
    return shortened(str(path), 200)


# --------------------------------------------------------------------------- readers


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def permutations(text: str) -> int:
    """--permutations: the draws of a randomization test, within the engine's bound
    (`check_permutations`), refused as a usage error naming the flag."""
    try:
        return check_permutations(int(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer from 1 to "
                                         f"{MAX_PERMUTATIONS:,}, got {text!r}") from None


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


def checked_number(check: Callable[[float], float]) -> Reader:
    """The type function of a flag whose number the engine checks (`check`, which says what
    it must be): a bad one is a usage error naming the flag, before any file is read."""
    def read(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        try:
            return check(value)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return read


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


def metric_or_summary_name(text: str) -> str:
    """A measure's name, or a geometric summary's (gm_map: `GEOMETRIC_SUMMARIES`)."""
    return text if geometric_summary(text) is not None else metric_name(text)


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
    "junit": "JUnit XML for a CI system: a test suite per candidate, a test case per gate "
    "(failed with its figures) and per metric compared",
    "markdown": "a pull request's comment in GitHub's Markdown: the gates' verdicts, the "
    "worst queries, every metric, the conventions (at most 65,536 characters)",
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
    parser.add_argument("--subtopic-qrels", type=Path, metavar="FILE",
                        help="subtopic judgments for the diversity measures (alpha_nDCG, "
                        "ERR_IA, nERR_IA, NRBP, P_IA, AP_IA, StRecall): the TREC Web track's "
                        "'query_id subtopic_id doc_id grade' lines, a CSV/TSV with those "
                        "columns, or Parquet")
    parser.add_argument("--intents", type=Path, metavar="FILE",
                        help="with --subtopic-qrels: each subtopic's probability, "
                        "'query_id subtopic_id probability' lines (default: every subtopic of "
                        "a query weighs the same, as ndeval)")
    parser.add_argument("--run-format", choices=("auto", *RUN_FORMATS), default="auto",
                        help="format of every --run file (default: detected from the content)")
    parser.add_argument(
        "--sweep",
        type=sweep_range,
        metavar="FROM:TO",
        help=f"K range of the sweep, at most {MAX_SWEEP:,} cutoffs up to K = {MAX_K:,} "
        "(default 1 to the longest list)",
    )
    parser.add_argument(STANDARDISE_FLAG, dest="standardise", metavar="FILE|runs",
                        help=STANDARDISE_HELP)
    parser.add_argument(STANDARDISE_SCALE_FLAG, dest="standardise_scale",
                        choices=STANDARDISE_SCALES, default=STANDARDISE_SCALES[0],
                        help=STANDARDISE_SCALE_HELP)
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
        type=output_file,
        metavar="FILE",
        help="write the whole load report to FILE, every dropped line with its file, line "
        f"number and reason (standard error counts them and shows the first {DROPPED_SHOWN})",
    )
    add_convention_arguments(parser)


def add_metric_argument(parser: argparse.ArgumentParser, what: str, *,
                        summaries: bool = False) -> None:
    """--metric, repeatable: a figure by any name ir_measures, trec_eval or this tool gives it
    (`what` says what the command does with the figures named); with `summaries`, a
    geometric summary's name too (gm_map)."""
    examples = ", ".join(NAME_EXAMPLES[:6] + ("ndcg_cut_10", "map"))
    also = (" " + ", ".join(s.key for s in GEOMETRIC_SUMMARIES)
            + " (the geometric mean of AP, trec_eval's) too") if summaries else ""
    parser.add_argument("--metric", action="append", default=[],
                        type=metric_or_summary_name if summaries else metric_name,
                        metavar="NAME",
                        help=_help(f"{what}; repeatable. Any measure name: {examples}... "
                                   f"(a name without @K is read at --k){also}"))


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
        parser.add_argument(flag, dest="tokens_per_chunk", type=checked_number(
            check_tokens_per_chunk), metavar="N", help=text)
        flag, text = COST_FLAGS["price_per_mtok"]
        parser.add_argument(flag, dest="price_per_mtok", type=checked_number(
            check_price_per_mtok), metavar="USD", help=text)


def conventions_from(args: argparse.Namespace) -> Conventions:
    """Every convention that has a flag, as parsed; the others keep their defaults."""
    return Conventions(**{c.field: getattr(args, c.field) for c in CONVENTIONS if c.flag})


def to_stderr(line: str) -> None:
    """One line on standard error (a load report's, a warning, an error), with every
    character no output writes as it is (`format.terminal`: a line break, a tab, ESC, a
    bidirectional override) escaped, since ids and file names from the inputs stand in it:
    a line cannot become two, nor drive the terminal."""
    print(terminal(line), file=sys.stderr)


def run_guarded(command: Command, argv: Sequence[str]) -> int:
    """Run a command; errors become one line on standard error and a non-zero exit (a write
    to standard output that fails too, naming it: `standard_output_named`)."""
    try:
        with standard_output_named():
            return command(argv)
    except UsageError as error:
        to_stderr(f"error: {error} (see --help)")
        return EXIT_USAGE
    except (ValueError, OSError) as error:
        to_stderr(f"error: {error}")
        return EXIT_BAD_INPUT
    except ReadingOutOfMemory as error:
        to_stderr(f"error: out of memory while reading {error.reading}: give smaller inputs")
        return EXIT_BAD_INPUT
    except MemoryError:
        name = getattr(command, "__name__", "command").removesuffix("_command")
        to_stderr(f"error: out of memory while running {name}: give smaller inputs, or a "
                  "smaller --sweep or --permutations")
        return EXIT_BAD_INPUT


# --------------------------------------------------------------------------- every pair
# (compare, leaderboard and python -m dashboard report read every pair by the same flags)


def add_test_argument(parser: argparse.ArgumentParser,
                      default: str | None = DEFAULT_ALL_PAIRS_TEST,
                      when: str = "with --all-pairs") -> None:
    """--test: how every pair of runs is read (with no default, only when asked; `when`
    says with what flag it applies)."""
    parser.add_argument("--test", choices=list(ALL_PAIRS_TESTS), default=default,
                        help=TEST_HELP + (f" (default {default}; {when})" if default
                                          else " (default: no pair tested)"))


def _min_effect(text: str) -> float:
    try:
        return check_min_effect(float(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number > 0 in the metric's units, got {text!r}") from None


def add_min_effect_argument(parser: argparse.ArgumentParser) -> None:
    """--min-effect, the convention of the verdicts (MIN_EFFECT): default none."""
    parser.add_argument(MIN_EFFECT.flag, dest=MIN_EFFECT.field, type=_min_effect,
                        default=MIN_EFFECT.default, metavar="DELTA",
                        help=MIN_EFFECT.help.replace("%", "%%"))


def command_parser(prog: str, description: str, *, texts: bool = False, by: bool = True,
                   cost: bool = False, metric: str | None = None, pairs: str | None = None,
                   **options: Any) -> Parser:
    """An argument parser with the inputs and the conventions' flags (with ``texts``, the
    queries file, the corpus, --by and the token cost; with ``metric``, --metric, whose help
    says what the command does with the figures named; with ``pairs``, --test and
    --min-effect, ``pairs`` saying what reads every pair) that refuses a bad flag in one
    line (UsageError)."""
    parser = Parser(prog=prog, description=description, **options)
    add_input_arguments(parser)
    if texts:
        add_text_arguments(parser, by=by, cost=cost)
    if metric is not None:
        add_metric_argument(parser, metric)
    if pairs is not None:
        add_test_argument(parser, when=pairs)
        add_min_effect_argument(parser)
    return parser


__all__ = ["Command", "Parser", "ReadingOutOfMemory", "UsageError", "add_convention_arguments",
           "add_input_arguments", "add_metric_argument", "add_min_effect_argument",
           "add_test_argument", "add_text_arguments", "command_parser", "conventions_from",
           "output_file", "permutations", "refuse_overwriting", "run_guarded", "to_stderr"]
