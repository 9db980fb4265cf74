"""The command line in a child process whose address space is capped, so that a test can
tell "done within this memory" from "needs more": RLIMIT_AS in the child alone."""

from __future__ import annotations

import resource
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_capped(args: Sequence[str], *, cap_mb: int, timeout: float = 600,
               stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """`python -m metrics ARGS` with at most `cap_mb` MB of address space."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap_mb << 20, cap_mb << 20))

    return subprocess.run([sys.executable, "-m", "metrics", *args], cwd=ROOT,
                          preexec_fn=limit, capture_output=True, timeout=timeout, input=stdin)


def one_id_collection(folder: Path, queries: int) -> tuple[Path, Path, Path]:
    """`queries` queries with one relevant id each and two runs of one id per query (the
    first finds half of them, the second 60%): the shape of a large upload, 48 MB at 1 M."""
    qrels, first, second = (folder / name for name in ("qrels.txt", "a.run", "b.run"))
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(queries)))
    for path, share in ((first, 2), (second, 5)):
        path.write_text("".join(f"q{i} Q0 d{i if i % share else i + 1} 1 1.0 x\n"
                                for i in range(queries)))
    return qrels, first, second
