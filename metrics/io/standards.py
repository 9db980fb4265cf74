"""Read a file of standards: each query's and measure's mean and standard deviation over a
population of runs, in trec_eval -Z's format (its `get_zscores.c`): one line a figure,

    query_id  measure_name  mean  stddev

fields separated by white space, the names holding none, the numbers read as doubles. The
measure is named as trec_eval names it (``P_10``, ``ndcg_cut_10``, ``map``); a figure
trec_eval does not have is named by this tool's label (``INST(T=1)``). A line that does not
hold four fields, a number that does not parse or is not finite, a negative standard
deviation and a (query, measure) given twice are refused with the file and the line.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from metrics.io.errors import LoadError, show
from metrics.io.sources import open_source
from metrics.io.streams import MAX_INPUT_BYTES


@dataclass(frozen=True, eq=False)
class Standards:
    """(query id, measure name) -> (mean, standard deviation), and where they came from."""

    source: str
    figures: dict[tuple[str, str], tuple[float, float]]

    def get(self, query_id: str, measure: str) -> tuple[float, float] | None:
        return self.figures.get((query_id, measure))

    @property
    def measures(self) -> set[str]:
        return {measure for _, measure in self.figures}


def _number(text: str, what: str, name: str, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise LoadError(name, line, f"the {what} must be a number, got {show(text)}") from None
    if not math.isfinite(value):
        raise LoadError(name, line, f"the {what} must be finite, got {show(text)}")
    return value


def load_standards(source: str | os.PathLike | bytes, *, file_name: str | None = None,
                   max_bytes: int = MAX_INPUT_BYTES) -> Standards:
    """The means and standard deviations of a trec_eval -Z file (a path, `-`, or an
    upload's bytes named `file_name`); LoadError naming the file and the line."""
    src = open_source(source, file_name, max_bytes)
    figures: dict[tuple[str, str], tuple[float, float]] = {}
    for number, line in enumerate(src.text.split("\n"), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise src.fail(number, "a line holds query_id measure mean stddev (4 fields), "
                           f"got {len(fields)}: {show(line)}")
        query, measure = fields[0], fields[1]
        mean = _number(fields[2], "mean", src.name, number)
        deviation = _number(fields[3], "standard deviation", src.name, number)
        if deviation < 0:
            raise src.fail(number, f"the standard deviation must be 0 or more, got "
                           f"{show(fields[3])}")
        if (query, measure) in figures:
            raise src.fail(number, f"query {show(query)}, measure {show(measure)} is given "
                           "twice")
        figures[query, measure] = (mean, deviation)
    return Standards(src.name, figures)
