"""A history of evaluations: a store of snapshots with the time, commit and label of each,
and each figure's trend over them with the changes that are more than noise.

The store is a directory (``metrics.vocabulary.history`` names its parts)::

    STORE/index.jsonl            {"format": "retrieval-compare history", "version": 1}
                                 {"entry": 1, "time": "2026-12-01T02:00:00Z", "commit": "...",
                                  "label": "...", "file": "snapshots/000001.json",
                                  "sha256": "<hex of the file's bytes>"}
                                 ... one line an entry, in the order appended
    STORE/snapshots/000001.json  each entry's snapshot, a snapshot file as ``save`` writes it

Each entry is a snapshot file, so it is read by the snapshot codec with its schema, its figures
fingerprint (SHA-256 or HMAC) and its comparability rule: nothing is encoded twice. The index
line's SHA-256 of the file's bytes ties the entry to its file.

Appending writes the snapshot file, then the index with the new line, each through
``metrics.io.writing`` (a temporary file renamed over the old one): the index holds the old
entries or the old ones and the new one, never a part. One writer at a time: two appends at
once may both write the index, and the later one wins.

Reading is bounded: the index is read line by line, each line at most ``MAX_LINE_BYTES``, at
most ``MAX_ENTRIES`` entries; the trend loads one snapshot at a time and keeps, per run, only the
previous point's per-query figures. Anything else in the index is refused in one ValueError
naming the file, the line and the entry: "STORE/index.jsonl: line 3 (entry 2): file must be
snapshots/NNNNNN.json, got '../../etc/passwd'".

The trend: each run's figure at each entry (its mean and interval, as the snapshot froze it),
and between consecutive points of a run the change: a paired test (``metrics.stats.comparison
.compare``: the randomization test, with a paired bootstrap interval of the difference) where
both snapshots store that figure per query, else an unpaired normal approximation from the
two intervals, said so. The p-values of every change shown (every run, metric and consecutive
pair) are one family, corrected by the chosen correction (Holm by default).
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import math
import os
import re
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist

import numpy as np

from metrics.core.compare import comparison_settings
from metrics.io.writing import replacing, write_text
from metrics.snapshot.codec import dumps, loads
from metrics.snapshot.comparable import refusal
from metrics.snapshot.integrity import FROM_ENVIRONMENT, Key
from metrics.snapshot.schema import Figure, Snapshot, show
from metrics.stats import corrections
from metrics.stats.comparison import compare
from metrics.vocabulary import MEASURE_BY_KEY, SUMMARY_MEASURES
from metrics.vocabulary.comparisons import (
    ALPHA,
    CORRECTIONS,
    DEFAULT_CORRECTION,
    DEFAULT_PERMUTATIONS,
)
from metrics.vocabulary.history import (
    DOWN,
    FILE_PATTERN,
    FORMAT,
    INDEX,
    MAX_COMMIT,
    MAX_ENTRIES,
    MAX_LABEL,
    MAX_LINE_BYTES,
    PAIRED,
    UNPAIRED,
    UP,
    VERSION,
    method_sentence,
)
from metrics.vocabulary.names import default_spec

__all__ = ["Change", "Entry", "Point", "Store", "Trend", "append", "trend", "utc_time"]

_FILE = re.compile(FILE_PATTERN)
_HEX = re.compile(r"[0-9a-f]{64}")
_ENTRY_KEYS = ("entry", "time", "commit", "label", "file", "sha256")
_WHY = ("A history holds evaluations of one query set and labels, at one K, under the same "
        "conventions, as drift does.")


def utc_time(value: str | _dt.datetime | None = None) -> str:
    """A time as the store writes it: UTC, ISO 8601, to the second ('2026-12-01T02:00:00Z');
    None is now. ValueError for a time without a zone or one that is not ISO 8601."""
    if value is None:
        moment = _dt.datetime.now(_dt.UTC)
    elif isinstance(value, _dt.datetime):
        moment = value
    else:
        try:
            moment = _dt.datetime.fromisoformat(str(value).strip())
        except ValueError:
            raise ValueError(f"time must be ISO 8601 with a zone (2026-12-01T02:00:00Z), got "
                             f"{show(value)}") from None
    if moment.tzinfo is None:
        raise ValueError(f"time must carry a zone (Z or +01:00), got {show(str(value))}")
    return moment.astimezone(_dt.UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Entry:
    """One line of the index: an evaluation appended to the store."""

    number: int
    time: str  # UTC, ISO 8601
    commit: str | None
    label: str | None
    file: str  # relative to the store: snapshots/000001.json
    sha256: str  # of the file's bytes

    def as_dict(self) -> dict:
        return {"entry": self.number, "time": self.time, "commit": self.commit,
                "label": self.label, "file": self.file, "sha256": self.sha256}

    def describe(self) -> str:
        """'entry 2 (2026-12-02T02:00:00Z, commit 1a2b3c4, 'nightly')'."""
        parts = [self.time]
        if self.commit:
            parts.append(f"commit {self.commit[:12]}")
        if self.label:
            parts.append(repr(self.label))
        return f"entry {self.number} ({', '.join(parts)})"


def _text(value: object, name: str, limit: int, fail: Callable[[str], None]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > limit or any(
            ord(c) < 32 or 0x7f <= ord(c) < 0xa0 for c in value):
        fail(f"{name} must be text of at most {limit} characters without control characters, "
             f"got {show(value)}")
    return value


def _entry(line: bytes, source: str, number: int) -> Entry:
    where = f"{source}: line {number}"

    def fail(problem: str) -> None:
        raise ValueError(f"{where}: {problem}")

    try:
        data = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        fail(f"not a JSON line ({str(error)[:100]})")
    if not isinstance(data, dict):
        fail(f"expected a JSON object, got {show(data)}")
    entry = data.get("entry")
    if isinstance(entry, bool) or not isinstance(entry, int) or not 1 <= entry <= 10**9:
        fail(f"entry must be a positive whole number, got {show(entry)}")
    where = f"{source}: line {number} (entry {entry})"
    unknown = sorted(set(data) - set(_ENTRY_KEYS))
    missing = [k for k in _ENTRY_KEYS if k not in data]
    if unknown or missing:
        fail("; ".join(filter(None, [missing and f"missing {', '.join(missing)}",
                                     unknown and f"unknown keys {show(unknown)}"])))
    time = data["time"]
    try:
        if not isinstance(time, str) or utc_time(time) != time:
            raise ValueError
    except ValueError:
        fail(f"time must be UTC ISO 8601 as the store writes it (2026-12-01T02:00:00Z), got "
             f"{show(time)}")
    file = data["file"]
    if not isinstance(file, str) or not _FILE.fullmatch(file):
        fail(f"file must be snapshots/NNNNNN.json, got {show(file)}")
    if not isinstance(data["sha256"], str) or not _HEX.fullmatch(data["sha256"]):
        fail(f"sha256 must be 64 hex digits, got {show(data['sha256'])}")
    commit = _text(data["commit"], "commit", MAX_COMMIT, fail)
    label = _text(data["label"], "label", MAX_LABEL, fail)
    return Entry(entry, time, commit, label, file, data["sha256"])


def _header(line: bytes, source: str) -> None:
    try:
        data = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        data = None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{source}: line 1: not a history index: the first line must be "
                         f'{{"format": "{FORMAT}", "version": {VERSION}}}')
    if data.get("version") != VERSION:
        raise ValueError(f"{source}: line 1: history version {show(data.get('version'))} is "
                         f"not one this tool reads ({VERSION})")


def read_index(lines: Iterator[bytes], source: str) -> list[Entry]:
    """The entries of an index read line by line (each line at most MAX_LINE_BYTES, read with
    that limit, so a line without end is not read whole); ValueError naming ``source``, the
    line and the entry on anything else."""
    entries: list[Entry] = []
    numbers: set[int] = set()
    files: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE_BYTES or (len(line) == MAX_LINE_BYTES
                                          and not line.endswith(b"\n")):
            raise ValueError(f"{source}: line {number} is longer than {MAX_LINE_BYTES:,} bytes: "
                             "not an index line")
        if number == 1:
            _header(line, source)
            continue
        if not line.strip():
            continue
        if len(entries) >= MAX_ENTRIES:
            raise ValueError(f"{source}: more than {MAX_ENTRIES:,} entries: refused")
        entry = _entry(line, source, number)
        if entry.number in numbers or entry.file in files:
            raise ValueError(f"{source}: line {number} (entry {entry.number}): entry number or "
                             f"file {entry.file} appears twice")
        numbers.add(entry.number)
        files.add(entry.file)
        entries.append(entry)
    return entries


def _lines(handle, limit: int = MAX_LINE_BYTES) -> Iterator[bytes]:
    while True:
        line = handle.readline(limit + 1)
        if not line:
            return
        yield line


class Store:
    """A history store: its index's entries, and each entry's snapshot read on demand.

    ``Store.at(directory)`` reads a directory; ``Store.of_files(files, name)`` the same files
    given as {file name: bytes} (uploads: the index and the snapshot files by their base
    names)."""

    def __init__(self, name: str, entries: Sequence[Entry],
                 read: Callable[[Entry], bytes]) -> None:
        self.name, self.entries, self._read = name, tuple(entries), read

    @property
    def index_name(self) -> str:
        return os.path.join(self.name, INDEX)

    @classmethod
    def at(cls, directory: str | os.PathLike) -> Store:
        root = Path(directory)
        index = root / INDEX
        if not root.is_dir():
            raise ValueError(f"{root}: not a history store (no such directory)")
        try:
            with open(index, "rb") as handle:
                entries = read_index(_lines(handle), os.fspath(index))
        except FileNotFoundError:
            raise ValueError(f"{root}: not a history store (no {INDEX})") from None

        def read(entry: Entry) -> bytes:
            path = root / entry.file
            try:
                with open(path, "rb") as handle:
                    return handle.read()
            except OSError as error:
                raise ValueError(f"{index}: {entry.describe()}: cannot read {entry.file} "
                                 f"({error.strerror or error})") from None

        return cls(os.fspath(root), entries, read)

    @classmethod
    def of_files(cls, files: Mapping[str, bytes], name: str = "the store") -> Store:
        by_base = {os.path.basename(n): payload for n, payload in files.items()}
        if INDEX not in by_base:
            raise ValueError(f"{name}: no {INDEX} among the files given: a history store is "
                             f"its {INDEX} and its snapshot files")
        payload = by_base[INDEX]
        lines = (line for line in payload.splitlines(keepends=True))
        entries = read_index(lines, os.path.join(name, INDEX))

        def read(entry: Entry) -> bytes:
            base = os.path.basename(entry.file)
            if base not in by_base:
                raise ValueError(f"{os.path.join(name, INDEX)}: {entry.describe()}: its "
                                 f"snapshot {base} was not given")
            return by_base[base]

        return cls(name, entries, read)

    def snapshot(self, entry: Entry, *, key: Key = FROM_ENVIRONMENT) -> Snapshot:
        """The entry's snapshot, read by the codec after its bytes are checked against the
        index's SHA-256; ValueError naming the index, the entry and the file."""
        payload = self._read(entry)
        if hashlib.sha256(payload).hexdigest() != entry.sha256:
            raise ValueError(f"{self.index_name}: {entry.describe()}: {entry.file} does not "
                             "match the SHA-256 the index holds for it: it was changed or "
                             "replaced after it was appended")
        return loads(payload, source=f"{os.path.join(self.name, entry.file)} "
                     f"({entry.describe()})", key=key)

    def ordered(self) -> list[Entry]:
        """Entries by time, then in the order appended."""
        return sorted(self.entries, key=lambda e: (e.time, e.number))


def append(directory: str | os.PathLike, snapshot: Snapshot, *, time: str | None = None,
           commit: str | None = None, label: str | None = None,
           key: Key = FROM_ENVIRONMENT) -> Entry:
    """Add ``snapshot`` to the store at ``directory`` (made if absent) as a new entry at
    ``time`` (default now, UTC), with ``commit`` and ``label`` (default the snapshot's).
    Refuses (ValueError naming the store, the entry and each difference) a snapshot that is not
    comparable with the store's first entry."""
    root = Path(directory)
    when = utc_time(time)
    label = snapshot.header.label if label is None else label
    fail = _refuser(os.fspath(root / INDEX))
    _text(commit or None, "commit", MAX_COMMIT, fail)
    _text(label, "label", MAX_LABEL, fail)
    index = root / INDEX
    if index.exists():
        store = Store.at(root)
        entries = list(store.entries)
    else:
        if root.exists() and not root.is_dir():
            raise ValueError(f"{root}: not a directory: a history store is a directory")
        store, entries = None, []
    if entries:
        first = store.ordered()[0]
        problems = store.snapshot(first, key=key).mismatches(
            snapshot, names=(f"the store's {first.describe()}", "this evaluation"))
        if problems:
            raise ValueError(refusal(f"{index}: cannot append this evaluation", problems, _WHY))
    number = max((e.number for e in entries), default=0) + 1
    while (root / f"snapshots/{number:06d}.json").exists():  # left by an append cut short
        number += 1
    entry_file = f"snapshots/{number:06d}.json"
    text = dumps(snapshot, source=os.fspath(root / entry_file), key=key)
    (root / "snapshots").mkdir(parents=True, exist_ok=True)
    write_text(root / entry_file, text)
    entry = Entry(number, when, commit or None, label, entry_file,
                  hashlib.sha256(text.encode("utf-8")).hexdigest())
    line = json.dumps(entry.as_dict(), ensure_ascii=False) + "\n"
    with replacing(index) as temporary, open(temporary, "wb") as out:
        if entries:
            with open(index, "rb") as old:
                shutil.copyfileobj(old, out)  # in chunks: bounded whatever the index
        else:
            out.write((json.dumps({"format": FORMAT, "version": VERSION}) + "\n").encode())
        out.write(line.encode("utf-8"))
    return entry


def _refuser(source: str) -> Callable[[str], None]:
    def fail(problem: str) -> None:
        raise ValueError(f"{source}: {problem}")
    return fail


# --------------------------------------------------------------------------- the trend


@dataclass(frozen=True)
class Point:
    """One run's figure at one entry."""

    entry: int
    time: str
    commit: str | None
    label: str | None
    run: str
    metric: str  # the measure's key: "nDCG"
    label_at_k: str  # "nDCG@10"
    mean: float
    low: float
    high: float
    interval: str
    run_fingerprint: str


@dataclass(frozen=True)
class Change:
    """The change of one run's figure from its previous point (``before``) to ``after``."""

    run: str
    metric: str
    before: int  # entry numbers
    after: int
    difference: float
    low: float  # the difference's interval
    high: float
    test: str  # PAIRED or UNPAIRED
    p: float  # the test's p, before the correction
    p_adjusted: float = math.nan
    significant: bool = False
    same_lists: bool = False  # the two points' runs have the same ranked lists

    @property
    def mark(self) -> str:
        if not self.significant:
            return ""
        return UP if self.difference > 0 else DOWN


@dataclass(frozen=True)
class Trend:
    """Every point and every change of a store (or the runs and metrics asked for)."""

    store: str
    entries: tuple[Entry, ...]  # oldest first
    k: int
    n_scored: int | None
    query_set: str
    points: tuple[Point, ...]
    changes: tuple[Change, ...]
    correction: str
    alpha: float
    n_permutations: int
    method: str = field(default="")
    # how each entry's figures were read (oldest first): "verified", "hmac verified", ...
    verification: tuple[str, ...] = ()

    @functools.cached_property
    def _by_point(self) -> dict[tuple[str, str, int], Change]:
        return {(c.run, c.metric, c.after): c for c in self.changes}

    def change_to(self, point: Point) -> Change | None:
        """The change of the point's run and metric from its previous point (None for a
        run's first)."""
        return self._by_point.get((point.run, point.metric, point.entry))


def _metric_keys(metrics: Sequence[str] | None) -> list[str]:
    if not metrics:
        return [m.key for m in SUMMARY_MEASURES]
    keys = {name.lower(): m.key for m in SUMMARY_MEASURES
            for name in (m.key, m.summary_key, m.name)}
    chosen = []
    for name in metrics:
        found = keys.get(name.split("@")[0].lower())
        if found is None:
            raise ValueError(f"--metric {name!r}: the history shows the summary figures: "
                             f"{', '.join(m.summary_key for m in SUMMARY_MEASURES)}")
        if found not in chosen:
            chosen.append(found)
    return chosen


def _unpaired(before: Figure, after: Figure, level: float) -> tuple[float, float, float, float]:
    """The difference of two means, its interval and two-sided p from a normal approximation
    of each mean's standard error read off its interval (half-width / z)."""
    z = NormalDist().inv_cdf(0.5 + level / 2)
    se = math.hypot((before.high - before.low) / (2 * z), (after.high - after.low) / (2 * z))
    difference = after.mean - before.mean
    if se == 0:
        return difference, difference, difference, 1.0 if difference == 0 else 0.0
    p = math.erfc(abs(difference) / se / math.sqrt(2))
    return difference, difference - z * se, difference + z * se, p


def trend(store: Store, *, metrics: Sequence[str] | None = None,
          runs: Sequence[str] | None = None, correction: str = DEFAULT_CORRECTION,
          alpha: float = ALPHA, n_permutations: int = DEFAULT_PERMUTATIONS,
          key: Key = FROM_ENVIRONMENT) -> Trend:
    """Each run's figures over the store's entries (by time), and each change between a run's
    consecutive points, tested and corrected as one family (see the module's docstring).
    Refuses (ValueError naming the entry, its file and each difference) an entry that is not
    comparable with the first, and a run asked for that no entry holds."""
    corrections.check_correction(correction)
    ordered = store.ordered()
    if not ordered:
        raise ValueError(f"{store.index_name}: the store holds no entry yet")
    keys = _metric_keys(metrics)
    specs = {k: default_spec(MEASURE_BY_KEY[k]) for k in keys}
    points: list[Point] = []
    changes: list[Change] = []
    # run -> its last point: the entry, figures, per-query columns, query ids and lists'
    # fingerprint, never the snapshot (one snapshot is held at a time, and the first)
    previous: dict[str, tuple] = {}
    first = None
    seen_runs: set[str] = set()
    verification = []
    for entry in ordered:
        snapshot = store.snapshot(entry, key=key)
        verification.append(snapshot.verification)
        if first is None:
            first = (entry, snapshot)
        else:
            problems = first[1].mismatches(snapshot, names=(
                f"the first, {first[0].describe()}", f"{entry.describe()}"))
            if problems:
                raise ValueError(refusal(
                    f"{store.index_name}: {entry.describe()} ({entry.file}) cannot be read "
                    f"beside {first[0].describe()}", problems, _WHY))
        settings = comparison_settings(snapshot.conventions)
        for run in snapshot.runs:
            seen_runs.add(run.name)
            if runs and run.name not in runs:
                continue
            figures, columns = {}, {}
            for k, spec in specs.items():
                figure = snapshot.figure(run, spec)
                if figure is None:
                    continue
                figures[k] = figure
                column = snapshot.column(run, spec)
                columns[k] = None if column is None else np.asarray(column, dtype=float)
                points.append(Point(entry.number, entry.time, entry.commit, entry.label,
                                    run.name, k, snapshot.label(spec), figure.mean, figure.low,
                                    figure.high, figure.interval, run.fingerprint))
            if run.name in previous:
                changes += _changes(previous[run.name], (entry, snapshot, figures, columns),
                                    run.name, settings, n_permutations)
            previous[run.name] = (entry, figures, columns, run.query_ids,
                                  run.fingerprint)
    missing = [r for r in runs or () if r not in seen_runs]
    if missing:
        raise ValueError(f"{store.index_name}: no entry holds a run named "
                         f"{', '.join(map(repr, missing))}; the runs are: "
                         f"{', '.join(sorted(seen_runs))}")
    if changes:
        adjusted = corrections.adjust([c.p for c in changes], correction)
        changes = [Change(**{**c.__dict__, "p_adjusted": float(a),
                             "significant": bool(a < alpha and c.difference != 0)})
                   for c, a in zip(changes, adjusted, strict=True)]
    reference = first[1]
    return Trend(store.name, tuple(ordered), reference.k, reference.n_scored,
                 reference.query_set_fingerprint, tuple(points), tuple(changes), correction,
                 alpha, n_permutations,
                 method_sentence(CORRECTIONS[correction], len(changes), alpha, n_permutations),
                 tuple(verification))


def _changes(before: tuple, after: tuple, run: str, settings: dict, n_permutations: int
             ) -> list[Change]:
    entry0, figures0, columns0, ids0, print0 = before
    entry1, snapshot1, figures1, columns1 = after
    run1 = snapshot1.run(run)
    same = print0 == run1.fingerprint
    shared = [k for k in figures0 if k in figures1]
    paired = [k for k in shared if columns0.get(k) is not None and columns1.get(k) is not None]
    order = None
    if paired and ids0 != run1.query_ids:
        position = {q: i for i, q in enumerate(run1.query_ids)}
        if set(position) == set(ids0) and len(ids0) == len(position):
            order = [position[q] for q in ids0]
        else:
            paired = []  # not the same queries: compared unpaired
    if len(ids0) < 2:
        paired = []
    found: dict[str, Change] = {}
    if paired:
        scores = {"before": {k: columns0[k] for k in paired},
                  "after": {k: (columns1[k] if order is None else columns1[k][order])
                            for k in paired}}
        compared = compare("before", scores, list(ids0), candidates=["after"], metrics=paired,
                           correction="none", n_permutations=n_permutations, **settings)
        for test in compared.tests:
            found[test.metric] = Change(run, test.metric, entry0.number, entry1.number,
                                        test.difference, test.low, test.high, PAIRED,
                                        test.p_randomization, same_lists=same)
    level = settings["confidence_level"]
    for k in shared:
        if k not in found:
            d, low, high, p = _unpaired(figures0[k], figures1[k], level)
            found[k] = Change(run, k, entry0.number, entry1.number, d, low, high, UNPAIRED, p,
                              same_lists=same)
    return [found[k] for k in shared]
