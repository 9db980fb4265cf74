"""Snapshot files and text: a ``Snapshot`` written as the text of its file, and a file's text
(or an upload's bytes) read back into one through the schema's checks (``schema.parse``).

Every problem is one ValueError naming the file (``source``) and the field:
"monday.json: not a snapshot: run 'bm25': summary.nDCG@5.mean must lie in [0, 1], got 1.5".
Nothing else escapes, whatever the bytes: text that is not UTF-8, JSON nested deeper than
``MAX_DEPTH``, NaN, Infinity, numbers beyond 2**63 and lone surrogates are refused before the
schema is read, naming where they are, and values are quoted short.

Then the figures fingerprint is checked (``metrics.snapshot.integrity``): a mismatch is
refused, and the Snapshot carries its ``verification``. ``key`` defaults to the environment's
``RETRIEVAL_COMPARE_SNAPSHOT_KEY``; pass ``key=None`` for none, or the key itself.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from metrics.io.writing import write_text
from metrics.snapshot.integrity import (
    FROM_ENVIRONMENT,
    UNVERIFIED_NO_KEY,
    UNVERIFIED_OLD,
    UNVERIFIED_UNSIGNED,
    Key,
    resolve_key,
    seal,
)
from metrics.snapshot.schema import MAX_DEPTH, Refusal, Snapshot, encode, parse

__all__ = ["as_snapshot", "dumps", "load", "loads", "save"]

_KEPT_AS_READ = (UNVERIFIED_OLD, UNVERIFIED_NO_KEY, UNVERIFIED_UNSIGNED)


def dumps(snapshot: Snapshot | Mapping, *, source: str = "<snapshot>",
          key: Key = FROM_ENVIRONMENT) -> str:
    """A snapshot as the text of its file: what save() writes (a dict is checked first).

    The figures fingerprint is written for what is written: an HMAC under ``key`` (default
    ``RETRIEVAL_COMPARE_SNAPSHOT_KEY`` if set), else SHA-256. A snapshot read unverified
    (before fingerprints, signed with a key not given, or not signed while a key is set)
    keeps the fingerprint it was read with, none, that HMAC or that SHA-256: writing never
    turns an unverified snapshot into a verified one.
    """
    key = resolve_key(key)
    typed = as_snapshot(snapshot, source, key=key, allow_unsigned=True)  # kept as read
    data = typed.to_dict()
    if typed.verification not in _KEPT_AS_READ:
        seal(data, key)
    return encode(data) + "\n"


def save(snapshot: Snapshot | Mapping, path: str | os.PathLike, *,
         key: Key = FROM_ENVIRONMENT) -> None:
    """Write a snapshot as UTF-8 JSON (checked first, so a bad dict never leaves a bad file),
    replacing what `path` held only once it is all written (`metrics.io.writing`)."""
    write_text(path, dumps(snapshot, source=os.fspath(path), key=key))


def load(path: str | os.PathLike, *, key: Key = FROM_ENVIRONMENT,
         allow_unsigned: bool = False) -> Snapshot:
    """Read and check a snapshot file; ValueError naming the file on anything else."""
    with open(path, "rb") as handle:
        payload = handle.read()
    return loads(payload, source=os.fspath(path), key=key, allow_unsigned=allow_unsigned)


def loads(text: str | bytes, *, source: str = "<snapshot>", key: Key = FROM_ENVIRONMENT,
          allow_unsigned: bool = False) -> Snapshot:
    """A snapshot from JSON text or UTF-8 bytes (an upload's, say), checked like ``load``."""
    fail = Refusal(source)
    if isinstance(text, bytes | bytearray | memoryview):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as error:
            fail(f"not UTF-8 text (byte 0x{error.object[error.start]:02x} at offset "
                 f"{error.start})")
    if not isinstance(text, str):
        fail(f"expected JSON text or bytes, got {type(text).__name__}")
    try:
        data = json.loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as error:
        fail(f"not valid JSON ({error})")
    except RecursionError:
        fail(f"not valid JSON (nested more than {MAX_DEPTH} levels deep)")
    except ValueError:  # an integer of more digits than Python converts
        fail("not valid JSON (a number with thousands of digits)")
    return parse(data, source, key=key, allow_unsigned=allow_unsigned)


def as_snapshot(item: Snapshot | Mapping, source: str = "snapshot", *,
                key: Key = FROM_ENVIRONMENT, allow_unsigned: bool = False) -> Snapshot:
    """A Snapshot as it is, or a snapshot's JSON dict parsed and checked."""
    if isinstance(item, Snapshot):
        return item
    return parse(item, source, key=key, allow_unsigned=allow_unsigned)


