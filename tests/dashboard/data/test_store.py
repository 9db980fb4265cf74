"""The server-wide store: bounds in entries and bytes, and files no session shows dropped."""

from __future__ import annotations

import threading

import numpy as np
import pyarrow as pa
import pytest

from dashboard.data.store import Store, nbytes


def array(megabytes: float) -> np.ndarray:
    return np.zeros(int(megabytes * 2**20) // 8)


def test_nbytes_counts_each_buffer_once_and_leaves_out_shared_objects():
    big, other = array(1), array(2)
    assert nbytes(big) == big.nbytes
    holder = {"a": big, "view": big[::2], "again": [big, (big,)], "other": other}
    assert nbytes(holder) == pytest.approx(big.nbytes + other.nbytes, rel=0.01)
    assert nbytes(holder, shared=[big]) == pytest.approx(other.nbytes, rel=0.01)
    strings = pa.array(["x" * 100] * 1_000)
    assert nbytes([strings]) >= strings.nbytes


def test_nbytes_reads_dataclasses_and_cached_properties():
    from dataclasses import dataclass
    from functools import cached_property

    @dataclass(frozen=True)
    class Holder:
        values: np.ndarray

        @cached_property
        def doubled(self) -> np.ndarray:
            return self.values * 2

    holder = Holder(array(1))
    before = nbytes(holder)
    holder.doubled  # noqa: B018 (computed: now in the instance's dict)
    assert nbytes(holder) == pytest.approx(2 * before, rel=0.01)


def test_least_recently_used_leaves_first_past_a_kind_s_bound():
    store = Store(max_bytes=2**40, kept={"evaluation": 2})
    made = []
    make = lambda k: lambda: made.append(k) or k  # noqa: E731
    for k in (1, 2):
        store.get("evaluation", (k,), make(k))
    store.get("evaluation", (1,), make(1))  # a hit: 1 becomes the most recent
    store.get("evaluation", (3,), make(3))  # 2, the least recently used, leaves
    assert made == [1, 2, 3]
    assert ("evaluation", (1,)) in store and ("evaluation", (2,)) not in store
    store.get("file", ("f",), make("f"))  # another kind has its own bound
    assert store.count("evaluation") == 2 and store.count() == 3


def test_the_byte_bound_holds_and_the_newest_entry_stays():
    store = Store(max_bytes=3 * 2**20, kept={})
    for k in range(5):
        store.get("evaluation", (k,), lambda: array(1))
        assert store.bytes <= 3 * 2**20
    assert store.count() == 3  # three 1 MiB arrays fill the 3 MiB exactly
    store.get("evaluation", ("huge",), lambda: array(10))
    assert ("evaluation", ("huge",)) in store and store.count() == 1


def test_shared_objects_are_not_counted_twice():
    store = Store(max_bytes=2**40, kept={})
    runs = array(4)
    store.get("file", ("run",), lambda: runs)
    store.get("evaluation", ("e",), lambda: {"runs": runs, "scores": array(1)}, shared=[runs])
    assert store.bytes == pytest.approx(5 * 2**20, rel=0.01)


def test_a_file_no_session_shows_is_dropped_with_what_was_computed_from_it():
    store = Store(max_bytes=2**40, kept={})
    store.get("file", ("a",), lambda: 1, files=["a"])
    store.get("file", ("b",), lambda: 2, files=["b"])
    store.get("evaluation", ("a+b",), lambda: 3, files=["a", "b"])
    store.get("evaluation", ("b",), lambda: 4, files=["b"])
    store.show("one", ["a", "b"])
    store.show("two", ["a"])
    store.show("one", ["b"])  # session one replaced a; session two still shows it
    assert store.count() == 4
    store.show("two", [])  # nobody shows a any more
    assert ("file", ("a",)) not in store and ("evaluation", ("a+b",)) not in store
    assert ("file", ("b",)) in store and ("evaluation", ("b",)) in store


def test_sessions_asking_at_once_all_get_a_value():
    store = Store(max_bytes=2**40, kept={"evaluation": 3})
    results = []

    def ask(k):
        for _ in range(50):
            results.append(store.get("evaluation", (k % 5,), lambda: k % 5) == k % 5)

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(results) and len(results) == 400 and store.count() <= 3


def test_an_entry_asked_for_while_another_thread_makes_it_is_made_once():
    store = Store(max_bytes=2**40, kept={"comparison": 4})
    started, release = threading.Event(), threading.Event()
    made = []

    def slow():
        made.append(1)
        started.set()
        release.wait(5)
        return "tested"

    first = threading.Thread(target=lambda: store.get("comparison", ("a",), slow))
    first.start()
    started.wait(5)
    got = []
    second = threading.Thread(target=lambda: got.append(store.get("comparison", ("a",), slow)))
    second.start()
    second.join(0.2)
    assert second.is_alive()  # waiting for the first thread's value, not making its own
    release.set()
    first.join(5)
    second.join(5)
    assert got == ["tested"] and made == [1]


def test_a_failed_make_leaves_the_entry_for_the_next_asker():
    store = Store(max_bytes=2**40, kept={"comparison": 4})

    def fail():
        raise ValueError("no")

    with pytest.raises(ValueError):
        store.get("comparison", ("a",), fail)
    assert store.get("comparison", ("a",), lambda: 3) == 3


def test_an_entry_leaving_takes_the_entries_holding_its_value_with_it():
    """A comparison left behind would keep its evaluation's arrays alive, uncounted."""
    store = Store(max_bytes=2**40, kept={"evaluation": 1})
    store.get("evaluation", ("k=5",), lambda: "scores at 5")
    store.get("comparison", ("k=5",), lambda: "tests at 5", parents=[("evaluation", ("k=5",))])
    store.get("evaluation", ("k=7",), lambda: "scores at 7")
    assert ("comparison", ("k=5",)) not in store and store.count() == 1


def test_a_hit_refreshes_the_entries_it_holds():
    store = Store(max_bytes=2**40, kept={"evaluation": 2})
    store.get("evaluation", ("a",), lambda: "a")
    store.get("evaluation", ("b",), lambda: "b")
    store.get("comparison", ("on a",), lambda: "x", parents=[("evaluation", ("a",))])
    store.get("comparison", ("on a",), lambda: "x", parents=[("evaluation", ("a",))])  # a hit
    store.get("evaluation", ("c",), lambda: "c")  # b, not a, is the least recently used
    assert ("evaluation", ("a",)) in store and ("evaluation", ("b",)) not in store
    assert ("comparison", ("on a",)) in store


def test_the_byte_bound_never_drops_what_the_newest_entry_holds():
    store = Store(max_bytes=3 * 2**20, kept={})
    store.get("evaluation", ("e",), lambda: array(2))
    store.get("comparison", ("c",), lambda: array(2), parents=[("evaluation", ("e",))])
    assert ("evaluation", ("e",)) in store and ("comparison", ("c",)) in store
