"""Ids that match only after Unicode normalisation: half a run's doc ids written NFD where
the qrels write NFC halves its figures; the load report says how many ids meet only in NFC,
and --normalize-ids nfc (off by default) reads both sides alike."""

from __future__ import annotations

import json
import unicodedata

from metrics.explain.mismatch import run_mismatches
from metrics.io import load_qrels, load_run
from metrics.vocabulary.identifiers import NORMALIZED_NOTE
from tests.metrics.capped import run_capped

ACCENT = "\u00e9"  # é, one code point in NFC; e + U+0301 in NFD


def collection(folder, queries: int = 30):
    """Each query: five relevant ids, the odd ones accented; the run finds them all, in
    the qrels' order, its accented ids written NFD."""
    ids = {q: [f"caf{ACCENT}-{q}-{i}" if i % 2 else f"doc-{q}-{i}" for i in range(5)]
           for q in range(queries)}
    qrels, run, same = folder / "qrels.txt", folder / "nfd.run", folder / "nfc.run"
    qrels.write_text("".join(f"q{q} 0 {d} 1\n" for q, docs in ids.items() for d in docs))
    for path, form in ((run, "NFD"), (same, "NFC")):
        path.write_text("".join(f"q{q} Q0 {unicodedata.normalize(form, d)} {r + 1} {9 - r} x\n"
                                for q, docs in ids.items() for r, d in enumerate(docs)))
    return qrels, run, same


def scores(done) -> dict:
    assert done.returncode == 0, done.stderr.decode()[-400:]
    runs = json.loads(done.stdout)["runs"]
    return {run["name"]: run["summary"]["nDCG@10"]["mean"] for run in runs}


def test_a_partial_nfd_mismatch_is_counted_and_nfc_reads_it_whole(tmp_path):
    qrels, nfd, nfc = collection(tmp_path)
    argv = ["--qrels", str(qrels), "--run", str(nfd), "--run", str(nfc), "--k", "10",
            "--format", "json"]
    done = run_capped(argv, cap_mb=3072)
    figures = scores(done)
    assert figures["nfc"] == 1.0 and figures["nfd"] < 0.75  # the accented half scores nothing
    warnings = [line for line in done.stderr.decode().splitlines() if "normalisation" in line]
    assert warnings == [
        "warning: 60 of the 150 doc ids of run 'nfd' match the qrels only after Unicode "
        "normalisation (the same letters written as other code points, NFC on one side, NFD "
        f"on the other, as in {unicodedata.normalize('NFD', f'caf{ACCENT}-0-1')!r}): compared "
        "as written they count as unjudged; --normalize-ids nfc reads every id in NFC."]
    normalized = run_capped([*argv, "--normalize-ids", "nfc"], cap_mb=3072)
    assert scores(normalized) == {"nfd": 1.0, "nfc": 1.0}
    err = normalized.stderr.decode()
    assert "normalisation" not in err and err.count(NORMALIZED_NOTE) == 3


def test_ascii_ids_and_matching_ids_raise_nothing(tmp_path):
    qrels, _, nfc = collection(tmp_path, queries=3)
    labels, _ = load_qrels(qrels)
    run, _ = load_run(nfc)
    assert run_mismatches(labels, run) == ()


def test_query_ids_that_meet_only_in_nfc_are_counted():
    qrels, _ = load_qrels(f"q{ACCENT} 0 d1 1\nq2 0 d2 1\n".encode(), file_name="q.txt")
    nfd = unicodedata.normalize("NFD", f"q{ACCENT}")
    run, _ = load_run(f"{nfd} Q0 d1 1 1 x\nq2 Q0 d2 1 1 x\n".encode(), file_name="r.run")
    (finding,) = run_mismatches(qrels, run)
    assert finding.kind == "query nfc" and finding.shared == 1 and finding.total == 2
    again, _ = load_run(f"{nfd} Q0 d1 1 1 x\n".encode(), file_name="r.run",
                        normalize_ids="nfc")
    assert list(again.query_ids) == [f"q{ACCENT}"]
