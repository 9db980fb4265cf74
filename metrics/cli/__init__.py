"""The command line, one job per module: `args` parses (the convention flags come from the
vocabulary), `text` writes the plain-text table and comparison, `commands` runs score,
compare and snapshot. The JSON contract lives in `metrics.contract`.
"""

from metrics.cli.args import Parser, UsageError, add_input_arguments, conventions_from
from metrics.cli.commands import evaluation_from, main, print_load_report, run_guarded
from metrics.cli.review import fragility_of

__all__ = [
    "Parser",
    "UsageError",
    "add_input_arguments",
    "conventions_from",
    "evaluation_from",
    "fragility_of",
    "main",
    "print_load_report",
    "run_guarded",
]
