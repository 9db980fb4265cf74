"""Snapshots that cannot be edited silently: a fingerprint over the snapshot's own figures
(SHA-256, or an HMAC under a key), checked on load; old snapshots read "unverified"; the note
when a candidate is the snapshot's own run; and malformed files that give one ValueError
naming the file and the field, never another exception."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import hmac
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import snapshot as snap
from metrics.cli import main
from metrics.core.sample import SAMPLE_DIR, load_sample, sample_qrels
from tests.metrics.edits import any_field_edited

KEY = b"team secret"
MISMATCH = "the figures were changed after the snapshot was written (figures fingerprint mismatch)"


@pytest.fixture(scope="module")
def text(sample):
    created = "2024-05-01T09:00:00+00:00"
    return snap.dumps(snap.Snapshot.from_evaluation(sample, created=created, key=None), key=None)


def _canonical_sha256(data: dict) -> str:
    """Independent of the engine: the file without its fingerprint, keys sorted, compact."""
    data = copy.deepcopy(data)
    del data["snapshot"]["figures_fingerprint"]
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _zeroed(data: dict) -> dict:
    """The edit a forger would try first: every per-query figure of every run set to 0.0."""
    data = copy.deepcopy(data)
    for run in data["runs"]:
        for row in run["queries"]:
            row.update({k: 0.0 for k, v in row.items() if isinstance(v, float)})
    return data


def _refused(tmp_path, data_or_text, *parts, key=None) -> str:
    path = tmp_path / "edited.json"
    text = data_or_text if isinstance(data_or_text, str | bytes) else json.dumps(data_or_text)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(ValueError) as error:
        snap.load(path, key=key)
    message = str(error.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    for part in parts:
        assert part in message
    return message


# --------------------------------------------------------------------------- the fingerprint


def test_the_fingerprint_covers_the_figures_and_is_written_last_in_the_header(text):
    data = json.loads(text)
    header = data["snapshot"]
    assert list(header) == ["format", "version", "tool", "tool_version", "created", "label",
                            "figures_fingerprint"]
    assert list(data) == ["snapshot", "k", "conventions", "query_set", "runs"]
    assert header["figures_fingerprint"] == "sha256:" + _canonical_sha256(data)
    loaded = snap.loads(text)
    assert loaded.verified and loaded.verification == snap.VERIFIED == "verified"
    assert loaded.header.figures_fingerprint == header["figures_fingerprint"]
    assert snap.dumps(loaded, key=None) == text  # read and written again: the same bytes


def test_zeroed_figures_are_refused(tmp_path, text):
    message = _refused(tmp_path, _zeroed(json.loads(text)), MISMATCH)
    assert message.startswith(f"{tmp_path / 'edited.json'}: {MISMATCH}")


@pytest.mark.parametrize("edit", [
    lambda d: d["runs"][1]["summary"]["nDCG@5"].update(mean=0.99),
    lambda d: d["runs"][0]["queries"][3].update({"P@5": 0.0}),
    lambda d: d["snapshot"].update(label="another"),
    lambda d: d["snapshot"].update(created="2025-01-01T00:00:00+00:00"),
    lambda d: d["conventions"].update(gain="exponential"),
    lambda d: d["runs"][2].update(fingerprint=d["runs"][0]["fingerprint"]),
    lambda d: d["runs"].reverse(),
    lambda d: d.update(note="added"),
])
def test_any_edit_that_keeps_the_fingerprint_is_refused(tmp_path, text, edit):
    data = json.loads(text)
    edit(data)
    _refused(tmp_path, data, MISMATCH)


def test_an_edit_that_recomputes_the_plain_fingerprint_passes(text):
    # the plain fingerprint guards against accidents and naive edits, not against a forger
    data = _zeroed(json.loads(text))
    data["snapshot"]["figures_fingerprint"] = "sha256:" + _canonical_sha256(data)
    assert snap.loads(json.dumps(data)).verification == "verified"


def test_the_same_numbers_written_otherwise_keep_the_fingerprint(text):
    data = json.loads(text)
    spaced = json.dumps(data, indent=2, ensure_ascii=True)  # whitespace and escapes differ
    assert snap.loads(spaced).verified and snap.dumps(snap.loads(spaced), key=None) == text


@pytest.mark.parametrize("value", [None, 5, "sha256:abc", "md5:" + "0" * 64, "SHA256:" + "0" * 64])
def test_a_fingerprint_of_another_shape_names_the_field(tmp_path, text, value):
    data = json.loads(text)
    data["snapshot"]["figures_fingerprint"] = value
    _refused(tmp_path, data, "not a snapshot", "snapshot.figures_fingerprint")


# --------------------------------------------------------------------------- snapshots before


def test_a_snapshot_from_before_fingerprints_reads_unverified(tmp_path, text, sample):
    data = json.loads(text)
    del data["snapshot"]["figures_fingerprint"]
    old = snap.loads(json.dumps(data))
    assert not old.verified
    assert old.verification == snap.UNVERIFIED_OLD
    assert old.verification == "unverified: written before figures fingerprints"
    # written again, it is never sealed as verified: the status survives the round trip
    again = snap.dumps(old, key=KEY)
    assert "figures_fingerprint" not in json.loads(again)["snapshot"]
    assert snap.loads(again).verification == snap.UNVERIFIED_OLD
    # it still compares, and the comparison says what it is
    assert snap.compare_with_snapshot(sample, old, candidates=["reranked"]).tests


def test_a_snapshot_built_by_hand_is_not_verified(text):
    loaded = snap.loads(text)
    fields = {f.name: getattr(loaded, f.name) for f in dataclasses.fields(loaded)
              if f.name != "verification"}
    by_hand = snap.Snapshot(**fields)
    assert not by_hand.verified and by_hand == loaded  # verification is not part of equality
    assert snap.loads(snap.dumps(by_hand, key=None)).verified  # written, then sealed


# --------------------------------------------------------------------------- the key


def test_with_a_key_the_fingerprint_is_an_hmac(monkeypatch, sample):
    monkeypatch.setenv(snap.KEY_VARIABLE, KEY.decode())
    signed = snap.dumps(snap.Snapshot.from_evaluation(sample))
    data = json.loads(signed)
    fingerprint = data["snapshot"]["figures_fingerprint"]
    unsigned = copy.deepcopy(data)
    del unsigned["snapshot"]["figures_fingerprint"]
    canonical = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    expected = hmac.new(KEY, canonical.encode("utf-8"), hashlib.sha256).hexdigest()
    assert fingerprint == "hmac-sha256:" + expected
    assert snap.loads(signed).verification == snap.HMAC_VERIFIED == "hmac verified"
    assert snap.loads(signed, key=KEY).verified
    # nobody without the key can recompute it: a recomputed SHA-256 is not an HMAC
    assert expected != _canonical_sha256(data)


def test_an_hmac_without_the_key_reads_unverified_and_keeps_its_signature(sample):
    signed = snap.dumps(snap.Snapshot.from_evaluation(sample, key=KEY), key=KEY)
    unkeyed = snap.loads(signed, key=None)
    assert not unkeyed.verified
    assert unkeyed.verification == "unverified: signed with a key that is not available"
    assert snap.dumps(unkeyed, key=None) == signed  # written back, the HMAC is kept as read
    assert snap.loads(snap.dumps(unkeyed, key=None), key=KEY).verification == "hmac verified"


def test_a_wrong_key_or_an_edit_under_a_key_is_refused(tmp_path, sample):
    signed = snap.dumps(snap.Snapshot.from_evaluation(sample, key=KEY), key=KEY)
    message = _refused(tmp_path, signed, MISMATCH, "another key", key=b"not the key")
    data = json.loads(signed)
    # the message never tells a forger the HMAC its figures would need
    wrong = snap.figures_fingerprint(data, b"not the key").split(":")[1]
    assert wrong[:12] not in message
    edited = _zeroed(data)
    message = _refused(tmp_path, edited, MISMATCH, key=KEY)
    assert snap.figures_fingerprint(edited, KEY).split(":")[1][:12] not in message
    # with a key, an HMAC swapped for a recomputed SHA-256, or deleted, is refused as not
    # signed; allowed unsigned, it reads "unverified", never "verified"
    edited["snapshot"]["figures_fingerprint"] = "sha256:" + _canonical_sha256(edited)
    _refused(tmp_path, edited, snap.NOT_SIGNED, "--allow-unsigned", key=KEY)
    allowed = snap.loads(json.dumps(edited), key=KEY, allow_unsigned=True)
    assert allowed.verification == snap.UNVERIFIED_UNSIGNED
    assert snap.loads(json.dumps(edited), key=None).verification == "verified"  # no key
    del edited["snapshot"]["figures_fingerprint"]
    _refused(tmp_path, edited, snap.NOT_SIGNED, key=KEY)
    allowed = snap.loads(json.dumps(edited), key=KEY, allow_unsigned=True)
    assert allowed.verification == snap.UNVERIFIED_UNSIGNED
    edited["snapshot"]["figures_fingerprint"] = "sha256:" + "0" * 64  # allowed, still checked
    with pytest.raises(ValueError, match="figures fingerprint mismatch"):
        snap.loads(json.dumps(edited), key=KEY, allow_unsigned=True)


def test_the_key_comes_from_a_file_or_the_environment(tmp_path, monkeypatch):
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY + b"\n")
    assert snap.snapshot_key(key_file) == KEY
    assert snap.snapshot_key() is None
    monkeypatch.setenv(snap.KEY_VARIABLE, "from the environment")
    assert snap.snapshot_key() == b"from the environment"
    assert snap.snapshot_key(key_file) == KEY  # the file wins
    key_file.write_bytes(b"\n")
    with pytest.raises(ValueError, match=f"{key_file}: the snapshot key file is empty"):
        snap.snapshot_key(key_file)
    with pytest.raises(ValueError, match="cannot read the snapshot key file"):
        snap.snapshot_key(tmp_path / "missing")
    key_file.write_bytes(b"k" * (snap.MAX_KEY_BYTES + 1))
    with pytest.raises(ValueError, match="holds more than 4,096 bytes"):
        snap.snapshot_key(key_file)
    monkeypatch.setenv(snap.KEY_VARIABLE, "")
    with pytest.raises(ValueError, match=f"{snap.KEY_VARIABLE} is set but empty"):
        snap.snapshot_key()


# --------------------------------------------------------------------------- the same run


def test_the_same_run_on_both_sides_is_said(sample, text):
    snapshot = snap.loads(text)
    note = snap.same_run_note(snapshot, sample)
    assert note.startswith("baseline is the same run as the snapshot's baseline (run "
                           f"fingerprint {snapshot.runs[0].fingerprint[7:19]})")
    assert note.endswith("their per-query figures agree.")
    assert snap.same_runs(snapshot, sample, run="bm25") == ["bm25"]
    assert snap.same_run_note(snapshot, sample, candidates=["reranked"]) is None
    # a snapshot of its own run, figures zeroed, fingerprint removed
    data = _zeroed(json.loads(text))
    del data["snapshot"]["figures_fingerprint"]
    note = snap.same_run_note(data, sample, candidates=["baseline"])
    assert "yet their per-query figures differ on 9 of 9 queries" in note
    assert "unverified: written before figures fingerprints" in note


# --------------------------------------------------------------------------- command line


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_signs_with_a_key_file_and_checks_it(tmp_path, capsys):
    key_file, path = tmp_path / "key", tmp_path / "signed.json"
    key_file.write_bytes(KEY)
    code, _, err = run_cli(capsys, "snapshot", "--out", path, "--snapshot-key-file", key_file)
    assert code == 0 and "signed with HMAC-SHA256" in err
    assert json.loads(path.read_text())["snapshot"]["figures_fingerprint"].startswith("hmac-")
    reranked = SAMPLE_DIR / "reranked.run"
    base = ("compare", "--snapshot", path, "--qrels", sample_qrels(), "--run", reranked,
            "--format", "json")
    code, out, err = run_cli(capsys, *base, "--snapshot-key-file", key_file)
    assert code == 0 and f"{path}: snapshot figures hmac verified" in err
    block = json.loads(out)["snapshot"]
    assert block["verification"] == "hmac verified" and block["verified"] is True
    assert block["same_run"] is None
    code, out, err = run_cli(capsys, *base)
    assert code == 0 and "snapshot figures unverified: signed with a key that is not " in err
    assert json.loads(out)["snapshot"]["verified"] is False
    other = tmp_path / "other"
    other.write_bytes(b"another key")
    code, out, err = run_cli(capsys, *base, "--snapshot-key-file", other)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith(f"error: {path}: {MISMATCH}")
    unsigned = tmp_path / "unsigned.json"
    assert run_cli(capsys, "snapshot", "--out", unsigned)[0] == 0
    code, _, err = run_cli(capsys, *base[:2], unsigned, *base[3:], "--snapshot-key-file", key_file)
    assert code == 1 and err == (f"error: {unsigned}: {snap.NOT_SIGNED}; refused "
                                 "(allow_unsigned, --allow-unsigned, reads it as unverified)\n")
    code, _, err = run_cli(capsys, *base[:2], unsigned, *base[3:], "--snapshot-key-file", key_file,
                           "--allow-unsigned")
    assert code == 0 and f"{unsigned}: snapshot figures {snap.UNVERIFIED_UNSIGNED}" in err
    code, _, err = run_cli(capsys, "compare", "--snapshot-key-file", key_file)
    assert code == 2 and "--snapshot-key-file needs --snapshot" in err


def test_cli_reads_the_key_from_the_environment(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(snap.KEY_VARIABLE, KEY.decode())
    path = tmp_path / "signed.json"
    assert run_cli(capsys, "snapshot", "--out", path)[0] == 0
    assert snap.load(path, key=KEY).verification == "hmac verified"
    assert snap.load(path, key=None).verification == snap.UNVERIFIED_NO_KEY


def test_cli_says_when_a_run_is_compared_with_itself(tmp_path, capsys, text):
    # 0.000 -> 0.597 "significant" against its own zeroed snapshot
    zeroed = _zeroed(json.loads(text))
    del zeroed["snapshot"]["figures_fingerprint"]
    path = tmp_path / "zeroed.json"
    path.write_text(json.dumps(zeroed))
    code, out, err = run_cli(capsys, "compare", "--snapshot", path, "--qrels", sample_qrels(),
                             "--run", SAMPLE_DIR / "baseline.run", "--format", "json")
    assert code == 0
    assert f"{path}: snapshot figures unverified: written before figures fingerprints" in err
    assert "note: baseline is the same run as the snapshot's baseline" in err
    block = json.loads(out)["snapshot"]
    assert block["verification"] == snap.UNVERIFIED_OLD and block["verified"] is False
    assert "differ on 9 of 9 queries" in block["same_run"]
    zeroed_sealed = _zeroed(json.loads(text))  # with its fingerprint: refused outright
    path.write_text(json.dumps(zeroed_sealed))
    code, _, err = run_cli(capsys, "compare", "--snapshot", path, "--qrels", sample_qrels(),
                           "--run", SAMPLE_DIR / "baseline.run")
    assert code == 1 and err.count("\n") == 1 and MISMATCH in err


def test_cli_refuses_deep_nesting_in_one_line(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text("[" * 10_000 + "]" * 10_000)
    code, out, err = run_cli(capsys, "compare", "--snapshot", path)
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith(f"error: {path}: not a snapshot: ") and "nested" in err


# --------------------------------------------------------------------------- malformed files


def _edited(text: str, change) -> dict:
    data = json.loads(text)
    change(data)
    return data


@pytest.mark.parametrize("payload, parts", [
    ("[" * 10_000 + "]" * 10_000, ("not valid JSON", "nested more than")),
    ('{"a":' * 10_000 + "0" + "}" * 10_000, ("nested more than",)),
    ("[" * 40 + "]" * 40, ("[0][0]", "is nested more than 32 levels deep")),
    (b'{"snapshot": "\xff\xfe"}', ("not UTF-8 text", "0xff", "offset 14")),
    (b"\xef\xbb\xbf[1]", ("expected a JSON object",)),  # a BOM is read past
    ('{"k": NaN}', ("k is NaN",)),
    ('{"runs": [{"x": -Infinity}]}', ("runs[0].x is -Infinity",)),
    ('{"k": 1e999}', ("k is Infinity",)),
    ('{"k": ' + "9" * 5000 + "}", ("a number with thousands of digits",)),
    ('{"k": ' + "9" * 30 + "}", ("k is a number beyond 2**63",)),
    ('{"a": "\\ud800"}', ("a holds text that is not valid Unicode",)),
    ("", ("not valid JSON",)),
])
def test_malformed_text_gives_one_value_error_naming_file_and_field(tmp_path, payload, parts):
    _refused(tmp_path, payload, "not a snapshot", *parts)


@pytest.mark.parametrize("change, parts", [
    (lambda d: d["snapshot"].update(created="yesterday"),
     ("snapshot.created must be an ISO 8601 time", "'yesterday'")),
    (lambda d: d["snapshot"].update(created=5), ("snapshot.created",)),
    (lambda d: d["runs"][1].update(summary="x"), ("run 'reranked'", "summary must be an object")),
    (lambda d: d["runs"][0]["queries"][2].update({"P@5": float("nan")}),
     ("runs[0].queries[2].P@5 is NaN",)),
    (lambda d: d["runs"][0].update(name="x" * 10_000, summary="x"), ("run 'xxxx",)),
])
def test_malformed_fields_name_the_file_and_the_field(tmp_path, text, change, parts):
    data = _edited(text, change)
    message = _refused(tmp_path, data, "not a snapshot", *parts)
    assert len(message) < 400 + len(str(tmp_path))


def test_a_summary_that_is_not_an_object_never_reaches_drift(text):
    data = _edited(text, lambda d: d["runs"][0].update(summary="x"))
    with pytest.raises(ValueError, match="summary must be an object"):
        snap.drift_rows([data, snap.loads(text)])


def test_a_dict_with_values_json_cannot_hold_is_refused(text):
    data = _edited(text, lambda d: d["runs"][0]["queries"][0].update(repeats=np.int64(1)))
    with pytest.raises(ValueError, match=r"runs\[0\].queries\[0\].repeats is a int64, not a JSON"):
        snap.compare_with_snapshot(load_sample(), data)


# --------------------------------------------------------------------------- properties

_LEAVES = (st.none() | st.booleans() | st.integers() | st.floats()
           | st.text(st.characters() | st.sampled_from(["\ud800", "\udfff", '"', "\\"]),
                     max_size=8))
_JSON = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                max_size=4),
    max_leaves=20,
)
_DEEP = st.integers(1, 10_000).flatmap(lambda depth: st.sampled_from([
    "[" * depth + "]" * depth,
    '{"a":' * depth + "1" + "}" * depth,
    '{"snapshot":' + "[" * depth,  # cut short
]))


def _only_value_errors(payload) -> None:
    try:
        snapshot = snap.loads(payload, source="fuzz.json", key=None)
    except ValueError as error:
        message = str(error)
        assert message.startswith("fuzz.json: ") and "\n" not in message
        return
    # what loads accepts, the rest of the engine reads without another exception
    for use in (lambda: snap.drift_rows([snapshot, snapshot]), lambda: snap.dumps(snapshot),
                lambda: snapshot.check_comparable(load_sample()),
                lambda: snap.same_run_note(snapshot, load_sample())):
        try:
            use()
        except ValueError:
            pass


@settings(max_examples=60, deadline=None)
@given(st.one_of(_JSON.map(json.dumps), _DEEP))
def test_random_json_gives_only_value_errors(payload):
    _only_value_errors(payload)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_give_only_value_errors(payload):
    _only_value_errors(payload)


@pytest.fixture(scope="module")
def small_snapshot():
    data = json.loads(snap.dumps(snap.Snapshot.from_evaluation(load_sample(), key=None),
                                 key=None))
    del data["snapshot"]["figures_fingerprint"]  # so that edits reach every check after it
    for run in data["runs"]:
        run["queries"] = run["queries"][:3]
    data["query_set"]["scored"] = 3
    return data


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # the autouse one
@given(data=st.data())
def test_a_snapshot_with_one_field_replaced_gives_only_value_errors(small_snapshot, data):
    _only_value_errors(json.dumps(any_field_edited(data, small_snapshot, _JSON)))
