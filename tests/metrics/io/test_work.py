"""Bounded work, not only bounded memory: a corpus gzip that expands like a bomb is refused
after a second of work, a corpus past its byte bound is refused, each in one line; the
command line in a child process with capped memory."""

from __future__ import annotations

import functools
import gzip
import time
import zlib

import pytest

from metrics.core.sample import SAMPLE_DIR
from metrics.io import LoadError, iter_documents, read_corpus
from metrics.io.streams import EXPANSION_FLOOR, MAX_EXPANSION
from tests.marks import THOROUGH
from tests.metrics.capped import run_capped

MB = 1 << 20
UNWANTED = b'{"_id": "unwanted", "title": "", "text": "nothing anyone asked for"}\n'


def corpus_bomb(expanded: int) -> bytes:
    """A gzip of `expanded` bytes of valid corpus lines nobody wants: one member of 16 MB,
    repeated (a gzip file may hold many members)."""
    return _member() * (expanded // (16 * MB))


@functools.cache
def _member() -> bytes:
    return gzip.compress(UNWANTED * (16 * MB // len(UNWANTED)), compresslevel=6)


def test_a_corpus_bomb_is_refused_after_a_second_of_work(tmp_path):
    bomb = tmp_path / "corpus.jsonl.gz"
    bomb.write_bytes(corpus_bomb(1_100 * MB))  # 1.1 GB of lines, 3.7 MB of gzip
    started = time.monotonic()
    done = run_capped(["--corpus", str(bomb)], cap_mb=3072,
                      timeout=120)
    spent = time.monotonic() - started
    err = done.stderr.decode().strip().splitlines()
    assert done.returncode == 1, err
    assert err[-1].startswith(f"error: corpus.jsonl.gz: expands more than {MAX_EXPANSION}-fold (")
    assert err[-1].endswith("of gzip): refused as a decompression bomb")
    assert spent < 20, spent  # it read the whole 1.1 GB (29 to 49 s) before


def test_the_same_bomb_is_refused_in_the_engine():
    with pytest.raises(LoadError, match="expands more than 100-fold"):
        read_corpus(corpus_bomb(256 * MB), ["d1"], file_name="c.jsonl.gz")


@THOROUGH  # parses every line it reads (some 10 s)
def test_the_same_bomb_is_refused_by_the_leakage_scan():
    with pytest.raises(LoadError, match="expands more than 100-fold"):
        list(iter_documents(corpus_bomb(256 * MB), file_name="c.jsonl.gz"))


@THOROUGH  # 40 MB of lines to compress (some 5 s)
def test_a_corpus_that_compresses_like_text_is_read_past_the_floor():
    """Text compresses 3 to 10-fold: a corpus past the floor is read, ratio and all."""
    lines = b"".join(b'{"_id": "d%d", "text": "%s"}\n' % (i, (b"w%d " % (i * 7919 % 100_003)) * 9)
                     for i in range(800_000))
    assert len(lines) > EXPANSION_FLOOR
    data = zlib.compress(lines, 6, wbits=16 + zlib.MAX_WBITS)
    assert len(lines) / len(data) < MAX_EXPANSION
    corpus, report = read_corpus(data, ["d1", "d799999"], file_name="c.jsonl.gz")
    assert report.found == 2


def test_a_corpus_past_its_byte_bound_is_refused_in_one_line(tmp_path):
    plain = tmp_path / "corpus.jsonl"
    plain.write_bytes(UNWANTED * (3 * MB // len(UNWANTED)))
    packed = tmp_path / "corpus.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for path, verb in ((plain, "is larger than"), (packed, "expands beyond")):
        done = run_capped(["--corpus", str(path),
                           "--max-corpus-mb", "1"], cap_mb=3072)
        err = done.stderr.decode().strip().splitlines()[-1]
        assert done.returncode == 1
        assert err == f"error: {path.name}: {verb} the 1 MB limit (--max-corpus-mb)"
    fine = run_capped(["--corpus", str(SAMPLE_DIR / "corpus.jsonl"), "--max-corpus-mb", "1"],
                      cap_mb=3072)
    assert fine.returncode == 0, fine.stderr.decode()[-300:]
