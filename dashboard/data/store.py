"""What the dashboard keeps between reruns and sessions, bounded in memory.

One store for the whole server: parsed files, aligned runs, evaluations, comparisons. It is
bounded twice, in entries per kind and in bytes overall, the least recently used entry
leaving first; and an upload that no session shows any more leaves at once, with every
entry computed from it, rather than waiting for the bounds to push it out.

Streamlit's own caches bound entries only, and an evaluation of 5 runs x 5,000 queries x 100
ids holds about 250 MB of per-query arrays: a few of them, each kept until sixteen newer
ones arrive, held the server above 3 GB after twenty uploads.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa


def nbytes(value: Any, *, shared: Iterable[Any] = ()) -> int:
    """The memory an object graph holds in arrays (numpy, arrow, pandas) and Python objects,
    each object counted once, leaving out what `shared` objects hold (an evaluation's runs
    belong to the parsed files' entries, and are counted there)."""
    skip = _reachable(shared)
    return sum(_own_size(obj) for obj in _walk([value], skip))


def _reachable(roots: Iterable[Any]) -> set[int]:
    return {id(obj) for obj in _walk(list(roots), set())}


def _walk(roots: list[Any], skip: set[int]):
    """Every object reachable from roots through containers, dataclass fields and instance
    dictionaries (cached properties live there), arrays resolved to the buffer they view."""
    seen = set(skip)
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if isinstance(obj, np.ndarray):
            while isinstance(obj.base, np.ndarray):
                obj = obj.base
        if id(obj) in seen or obj is None or isinstance(obj, type):
            continue
        seen.add(id(obj))
        yield obj
        stack.extend(_children(obj))


def _children(obj: Any) -> Iterable[Any]:
    if isinstance(obj, np.ndarray | pa.Array | pa.ChunkedArray | str | bytes | int | float):
        return ()
    if type(obj).__module__.startswith("pandas"):
        return ()
    if isinstance(obj, dict):
        return [*obj.keys(), *obj.values()]
    if isinstance(obj, list | tuple | set | frozenset):
        return obj
    inner = getattr(obj, "__dict__", None)
    slots = [getattr(obj, name) for name in getattr(type(obj), "__slots__", ())
             if isinstance(name, str) and hasattr(obj, name)]
    return [*(inner.values() if isinstance(inner, dict) else ()), *slots]


def _own_size(obj: Any) -> int:
    if isinstance(obj, np.ndarray):
        size = obj.nbytes
        if obj.dtype == object and obj.size:  # the Python objects it points to, by sample
            sample = obj.ravel()[: 1_000]
            size += sum(sys.getsizeof(item) for item in sample) * obj.size // len(sample)
        return size
    if isinstance(obj, pa.Array | pa.ChunkedArray):
        return obj.nbytes
    if type(obj).__module__.startswith("pandas") and hasattr(obj, "memory_usage"):
        used = obj.memory_usage(deep=True)
        return int(used.sum() if hasattr(used, "sum") else used)
    return sys.getsizeof(obj)


@dataclass(frozen=True)
class Entry:
    value: Any
    kind: str
    nbytes: int
    files: frozenset[str]  # the keys of the files it was computed from
    parents: tuple[tuple, ...]  # the (kind, key) of the entries whose values it holds


class Store:
    """Least recently used entries out first, past `kept[kind]` entries of a kind or past
    `max_bytes` overall (the newest entry and what it holds always stay); thread-safe, since
    every session runs its script in its own thread. A value is computed outside the lock,
    once: a thread asking for an entry another thread is making waits for it (two sessions
    opening the same files, or a page and the comparisons it started ahead, `ahead`).

    An entry that holds another's value (a comparison holds its evaluation) names it as a
    parent: a hit refreshes the parents too, and an entry leaving takes its children with
    it, since a child left behind would keep the parent's arrays alive, uncounted."""

    def __init__(self, *, max_bytes: int, kept: dict[str, int]) -> None:
        self.max_bytes, self.kept = max_bytes, dict(kept)
        self._entries: OrderedDict[tuple, Entry] = OrderedDict()
        self._claims: dict[str, set[str]] = {}  # file key -> the sessions showing it
        # (kind, key) being made -> (set when done, the thread making it)
        self._making: dict[tuple, tuple[threading.Event, int]] = {}
        self._lock = threading.RLock()

    def get(self, kind: str, key: tuple, make: Callable[[], Any], *, files: Iterable[str] = (),
            parents: Iterable[tuple] = (), shared: Iterable[Any] = (),
            on_miss: Callable[[], Any] | None = None) -> Any:
        """The value stored under (kind, key), made and stored when missing. `parents`: the
        (kind, key) of entries whose values it holds; `shared`: the objects it holds that
        other entries own (not counted in its bytes); `on_miss`: a context manager (a
        spinner) to make the value in."""
        while True:
            with self._lock:
                entry = self._entries.get((kind, key))
                if entry is not None:
                    self._touch((kind, key))
                    return entry.value
                making = self._making.get((kind, key))
                if making is None:  # this thread makes it
                    underway = threading.Event()
                    self._making[kind, key] = (underway, threading.get_ident())
                    break
                if making[1] == threading.get_ident():  # asked again while making it
                    raise RuntimeError(f"the {kind} entry is asked for while it is made")
            making[0].wait()  # another thread makes it: take theirs (or, if it failed, try)
        try:
            if on_miss is None:
                value = make()
            else:
                with on_miss():
                    value = make()
            entry = Entry(value, kind, nbytes(value, shared=shared), frozenset(files),
                          tuple(parents))
            with self._lock:
                self._entries[kind, key] = entry
                self._touch((kind, key))
                evicted = self._evict(kind)
        finally:
            with self._lock:
                del self._making[kind, key]
            underway.set()
        if evicted >= TRIM_BYTES:
            release_freed_memory()
        return value

    def peek(self, kind: str, key: tuple) -> Any:
        """The value stored under (kind, key) (a use, as a hit of `get` is), or None: nothing
        is made."""
        with self._lock:
            entry = self._entries.get((kind, key))
            if entry is None:
                return None
            self._touch((kind, key))
            return entry.value

    def has(self, kind: str, key: tuple) -> bool:
        with self._lock:
            return (kind, key) in self._entries

    def show(self, session: str, files: Iterable[str]) -> None:
        """The files one session shows now. A file no session shows any more is dropped
        with every entry computed from it."""
        files = set(files)
        with self._lock:
            for file in files:
                self._claims.setdefault(file, set()).add(session)
            released = set()
            for file, sessions in list(self._claims.items()):
                if file not in files:
                    sessions.discard(session)
                if not sessions:
                    released.add(file)
                    del self._claims[file]
            dropped = [key for key, entry in self._entries.items() if entry.files & released]
            for key in dropped:
                self._drop(key)
        if dropped:
            release_freed_memory()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._claims.clear()

    @property
    def bytes(self) -> int:
        with self._lock:
            return sum(entry.nbytes for entry in self._entries.values())

    def count(self, kind: str | None = None) -> int:
        with self._lock:
            return sum(1 for entry in self._entries.values() if kind in (None, entry.kind))

    def __contains__(self, kind_key: tuple) -> bool:
        with self._lock:
            return kind_key in self._entries

    def _touch(self, key: tuple) -> None:
        """Most recently used: the entry, and before it the entries it holds."""
        for parent in self._entries[key].parents:
            if parent in self._entries:
                self._touch(parent)
        self._entries.move_to_end(key)

    def _drop(self, key: tuple) -> None:
        """The entry and, with it, every entry holding its value."""
        if self._entries.pop(key, None) is None:
            return
        for child in [k for k, entry in self._entries.items() if key in entry.parents]:
            self._drop(child)

    def _lineage(self, key: tuple) -> set[tuple]:
        entry = self._entries.get(key)
        if entry is None:
            return set()
        return {key}.union(*(self._lineage(parent) for parent in entry.parents))

    def _evict(self, newest_kind: str) -> int:
        """Drop what is past the bounds; the bytes dropped."""
        before = self.bytes
        newest = next(reversed(self._entries))
        keep = self._lineage(newest)
        while self.count(newest_kind) > self.kept.get(newest_kind, sys.maxsize):
            oldest = next((key for key, entry in self._entries.items()
                           if entry.kind == newest_kind and key not in keep), None)
            if oldest is None:
                break
            self._drop(oldest)
        while self.bytes > self.max_bytes:
            oldest = next((key for key in self._entries if key not in keep), None)
            if oldest is None:
                break
            self._drop(oldest)
        return before - self.bytes


# the heap is handed back after an eviction of at least this much: a small table leaving
# (past its kind's count) is not worth malloc_trim's walk over the whole heap
TRIM_BYTES = 16 * 2**20


def release_freed_memory() -> None:
    """Hand freed heap pages back to the operating system (glibc's malloc_trim): numpy's
    arrays of a few MB come from the heap, and glibc keeps what is freed there for reuse, so
    that the server's resident memory would stay at its peak."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    """glibc's malloc_trim, or None on a C library without it."""
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None
