"""The snapshot's own figures fingerprint, the optional key that turns it into an HMAC, and
the verification status a snapshot is read with.

The fingerprint (``snapshot.figures_fingerprint`` in the file) covers everything in the file
but itself: the canonical JSON of the parsed file without that one key (keys sorted, no
whitespace, floats as ``repr``, UTF-8), so any change to a figure, a label, K, a convention,
a run or query-set fingerprint or the header changes it. Two forms:

- ``"sha256:<hex>"``, SHA-256 of that text. It catches an edit that does not recompute it: an
  accident, a hand edit, a script that rewrites figures. It does not stop a deliberate
  forger: anyone can recompute a SHA-256, and anyone can strip the fingerprint (the file
  then reads as written before fingerprints: "unverified") or replace an HMAC by a plain
  one (it then reads "verified", never "hmac verified").
- ``"hmac-sha256:<hex>"``, HMAC-SHA256 of that text under a secret key, written when a key
  is set (``RETRIEVAL_COMPARE_SNAPSHOT_KEY``, or a key file). Nobody without the key can
  compute it, so "hmac verified" means the figures are as someone holding the key wrote
  them. Only that status vouches for the key; "verified" does not.

With a key set, a snapshot that carries no HMAC under it (no fingerprint, or a plain
SHA-256 that anyone can recompute after an edit) is refused as NOT_SIGNED, unless the reader
allows unsigned ones (``allow_unsigned``, ``--allow-unsigned``): then it reads "unverified".
An HMAC under another key is refused whatever is allowed: it cannot be told from an edit.
The key file is read bounded (MAX_KEY_BYTES) and only if it is a regular file, so that
``/dev/zero`` or a FIFO nobody writes to is refused at once.

Neither says that the engine computed the figures, only that they have not changed since a
snapshot was written (by whoever held the key, for an HMAC). Reading never prints the
fingerprint the figures would need, so an error message is no oracle for a forger.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import stat
from collections.abc import Mapping
from typing import Final

__all__ = [
    "FIELD",
    "FROM_ENVIRONMENT",
    "HMAC_VERIFIED",
    "KEY_VARIABLE",
    "MAX_KEY_BYTES",
    "NOT_SIGNED",
    "NOT_WRITTEN",
    "UNVERIFIED_UNSIGNED",
    "UNVERIFIED_NO_KEY",
    "UNVERIFIED_OLD",
    "VERIFIED",
    "canonical",
    "check",
    "figures_fingerprint",
    "resolve_key",
    "seal",
    "snapshot_key",
]

KEY_VARIABLE: Final = "RETRIEVAL_COMPARE_SNAPSHOT_KEY"
FIELD: Final = "figures_fingerprint"  # its key in the "snapshot" header

VERIFIED: Final = "verified"
HMAC_VERIFIED: Final = "hmac verified"
UNVERIFIED_OLD: Final = "unverified: written before figures fingerprints"
UNVERIFIED_NO_KEY: Final = "unverified: signed with a key that is not available"
NOT_WRITTEN: Final = "unverified: not read from a snapshot file"  # built by hand
# with a key set: the refusal, and the status of a snapshot read although unsigned
NOT_SIGNED: Final = ("not signed: a snapshot key is set and this snapshot carries no HMAC "
                     "under it (no figures fingerprint, or a plain SHA-256 anyone can "
                     "recompute)")
UNVERIFIED_UNSIGNED: Final = "unverified: not signed, read as allowed unsigned"
MAX_KEY_BYTES: Final = 4096  # a key file holds a secret, not data
CHECKED: Final = frozenset({VERIFIED, HMAC_VERIFIED})

_PLAIN, _HMAC = "sha256:", "hmac-sha256:"
_SHAPE = re.compile(r"(sha256|hmac-sha256):[0-9a-f]{64}")


class _FromEnvironment:
    def __repr__(self) -> str:
        return "FROM_ENVIRONMENT"


FROM_ENVIRONMENT: Final = _FromEnvironment()
"""The default ``key``: the value of ``RETRIEVAL_COMPARE_SNAPSHOT_KEY`` if set, else none."""

Key = bytes | str | _FromEnvironment | None


def snapshot_key(key_file: str | os.PathLike | None = None) -> bytes | None:
    """The key: the bytes of ``key_file`` (one trailing newline dropped) if given, else
    ``RETRIEVAL_COMPARE_SNAPSHOT_KEY`` (UTF-8), else None. ValueError for an empty key or a
    file that cannot be read (naming it, never quoting it)."""
    if key_file is None:
        return resolve_key(FROM_ENVIRONMENT)
    name = os.fspath(key_file)
    try:  # non-blocking: a FIFO opens at once, and is then refused as not a file
        fd = os.open(key_file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with open(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ValueError(f"{name}: the snapshot key file is not a regular file")
            key = handle.read(MAX_KEY_BYTES + 1)
    except OSError as error:
        raise ValueError(f"{name}: cannot read the snapshot key file "
                         f"({error.strerror or error})") from None
    if len(key) > MAX_KEY_BYTES:
        raise ValueError(f"{name}: the snapshot key file holds more than {MAX_KEY_BYTES:,} "
                         "bytes: a key file holds the key alone")
    key = key.removesuffix(b"\n").removesuffix(b"\r")
    if not key:
        raise ValueError(f"{name}: the snapshot key file is empty")
    return key


def resolve_key(key: Key) -> bytes | None:
    """``key`` as bytes: FROM_ENVIRONMENT reads the variable; None means no key."""
    if isinstance(key, _FromEnvironment):
        value = os.environ.get(KEY_VARIABLE)
        if value is None:
            return None
        if not value:
            raise ValueError(f"{KEY_VARIABLE} is set but empty: unset it, or set it to the key")
        return value.encode("utf-8", "surrogateescape")
    if key is None:
        return None
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, bytes | bytearray) or not key:
        raise ValueError("the snapshot key must be non-empty bytes or text")
    return bytes(key)


def canonical(data: Mapping) -> bytes:
    """Everything in a snapshot's JSON but its figures fingerprint, as canonical JSON bytes:
    keys sorted, no whitespace, floats as ``repr``, UTF-8. ``data`` must be plain JSON
    (``metrics.snapshot.codec`` checks that first)."""
    header = data.get("snapshot")
    if isinstance(header, Mapping) and FIELD in header:
        data = {**data, "snapshot": {k: v for k, v in header.items() if k != FIELD}}
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
    return text.encode("utf-8")


def figures_fingerprint(data: Mapping, key: bytes | None = None) -> str:
    """'sha256:<hex>' of ``canonical(data)``, or 'hmac-sha256:<hex>' under ``key``."""
    text = canonical(data)
    if key is None:
        return _PLAIN + hashlib.sha256(text).hexdigest()
    return _HMAC + hmac.new(key, text, hashlib.sha256).hexdigest()


def seal(data: dict, key: bytes | None) -> dict:
    """``data`` with its figures fingerprint set (kept in place if present, else last in the
    header)."""
    data["snapshot"][FIELD] = figures_fingerprint(data, key)
    return data


def check(data: Mapping, key: bytes | None, source: str, *,
          allow_unsigned: bool = False) -> str:
    """The verification status of a parsed snapshot's JSON; ValueError naming ``source`` when
    the figures do not match their fingerprint (or were signed with another key), or when a
    key is set and the snapshot is not signed with one (unless ``allow_unsigned``)."""
    header = data["snapshot"]
    if key is not None and not str(header.get(FIELD, "")).startswith(_HMAC):
        if not allow_unsigned:
            raise ValueError(f"{source}: {NOT_SIGNED}; refused (allow_unsigned, "
                             "--allow-unsigned, reads it as unverified)")
        if FIELD in header:
            check(data, None, source)  # a plain fingerprint must still match
        return UNVERIFIED_UNSIGNED
    if FIELD not in header:
        return UNVERIFIED_OLD
    declared = header[FIELD]
    if not isinstance(declared, str) or not _SHAPE.fullmatch(declared):
        shown = declared if not isinstance(declared, str) else declared[:80]
        raise ValueError(f"{source}: not a snapshot: snapshot.{FIELD} must be 'sha256:' or "
                         f"'hmac-sha256:' and 64 hex digits, got {shown!r}")
    signed = declared.startswith(_HMAC)
    if signed and key is None:
        return UNVERIFIED_NO_KEY
    if hmac.compare_digest(declared, figures_fingerprint(data, key if signed else None)):
        return HMAC_VERIFIED if signed else VERIFIED
    short = declared.split(":", 1)[1][:12]
    if signed:
        raise ValueError(
            f"{source}: the figures were changed after the snapshot was written (figures "
            f"fingerprint mismatch): its HMAC {short}... does not match its figures under the "
            f"key given, so they were edited or it was signed with another key")
    raise ValueError(
        f"{source}: the figures were changed after the snapshot was written (figures "
        f"fingerprint mismatch): the file says sha256 {short}..., its figures give another; "
        f"re-score the runs and write a new snapshot, or restore the original file")
